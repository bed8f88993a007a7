"""The local backend: a pool of worker processes on this machine (`ccsim sweep --jobs N`).

Each run executes in a worker process, never in the driver: a run that
crashes its process (or is killed, e.g. by the out-of-memory killer) fails
alone, is recorded with the reason, and its worker is replaced. Workers are
started once and reused, so a run costs one message each way, not a
process start. They are forked from a "forkserver" process that imported
ccsim once (the driver's threads never reach them; where there is no
forkserver, as on Windows, each worker is a fresh "spawn" interpreter),
so starting N workers costs one import of ccsim, not N. Each worker has
its own pipe, so the driver always knows which run a worker was doing.

Workers ignore SIGINT: Ctrl-C reaches the driver, which stops them. If the
driver dies (even by SIGKILL), a worker's pipe reaches end-of-file and the
worker exits after its current run; workers never write any file.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, ForkServerProcess, SpawnContext, SpawnProcess

from ccsim.sweep.runner import Outcome, Task, execute, failure

JOIN_TIMEOUT_S = 5.0


def worker_main(conn: Connection) -> None:
    """A worker's loop: receive a task, run it, send the outcome back; stop on None or when the driver is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pool already runs a worker per core: each run's time series is encoded on its own thread
    # (ccsim-output would otherwise start a thread per core in every worker, docs/results.md).
    os.environ.setdefault("CCSIM_OUTPUT_THREADS", "1")
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        outcome = execute(task)
        try:
            conn.send(outcome)
        except (BrokenPipeError, OSError):
            return


def start_context() -> ForkServerContext | SpawnContext:
    """How workers start: forked from a forkserver that has ccsim imported, or spawned where that is missing."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def describe_exit(code: int | None) -> str:
    """A worker's exit code in words."""
    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"exit status {code}"


@dataclass
class _Worker:
    proc: SpawnProcess | ForkServerProcess
    conn: Connection
    tasks: deque[Task] = field(default_factory=deque)
    """The tasks sent to the worker and not answered yet, in order: the first one is running."""

    @classmethod
    def start(cls, ctx: ForkServerContext | SpawnContext) -> _Worker:
        parent, child = multiprocessing.Pipe(duplex=True)
        proc = ctx.Process(target=worker_main, args=(child,), daemon=True, name="ccsim-sweep-worker")
        proc.start()
        child.close()  # the worker holds the only other end: its death is end-of-file here
        return cls(proc, parent)

    def give(self, task: Task) -> bool:
        """Send a task; False if the worker is gone."""
        try:
            self.conn.send(task)
        except (BrokenPipeError, OSError):
            return False
        self.tasks.append(task)
        return True

    def stop(self, *, wait: bool) -> None:
        if wait:
            with contextlib.suppress(BrokenPipeError, OSError):
                self.conn.send(None)
            self.proc.join(JOIN_TIMEOUT_S)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(JOIN_TIMEOUT_S)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


class LocalPool:
    """`jobs` worker processes on this machine.

    Each worker holds up to `DEPTH` tasks: the one it runs and the next, so
    that it starts the next run at once instead of waiting while the driver
    stores the last one. (A task's scenario bigger than PREFETCH_MAX_CHARS
    is only sent to an idle worker: a pipe's buffer must never be full in
    both directions at once.)
    """

    DEPTH = 2
    PREFETCH_MAX_CHARS = 16_384

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs if jobs is not None else default_jobs()
        if self.jobs < 1:
            raise ValueError(f"jobs: expected at least 1, got {self.jobs}")
        self._ctx = start_context()
        self._workers: list[_Worker] = []

    def warm_up(self, runs: int) -> None:
        """Start the workers for `runs` runs now (they import ccsim while the driver opens the store)."""
        while len(self._workers) < min(self.jobs, runs):
            self._workers.append(_Worker.start(self._ctx))

    def run(self, tasks: Sequence[Task]) -> Generator[list[Outcome], None, None]:
        """Execute the tasks on the workers, yielding the outcomes as they arrive (all those at hand at once)."""
        queue = deque(tasks)
        workers = self._workers
        finished = False
        try:
            need = min(self.jobs, len(queue))
            for w in workers[need:]:  # fewer runs than warmed-up workers (a resume)
                w.stop(wait=True)
            del workers[need:]
            self.warm_up(len(queue))
            batch: list[Outcome] = []
            for i in range(len(workers)):
                batch += self._feed(i, queue)
            while any(w.tasks for w in workers):
                if batch:
                    yield batch
                    batch = []
                busy = [i for i, w in enumerate(workers) if w.tasks]
                ready = set(
                    multiprocessing.connection.wait(
                        [workers[i].conn for i in busy] + [workers[i].proc.sentinel for i in busy]
                    )
                )
                for i in busy:
                    w = workers[i]
                    if w.conn in ready or w.proc.sentinel in ready:
                        batch += self._receive(w, queue)
                        batch += self._feed(i, queue)  # keep the worker busy before the driver stores
            if batch:
                yield batch
            finished = True
        finally:
            self._stop(wait=finished)

    def close(self) -> None:
        """Stop the workers (those started by warm_up and not used by run)."""
        self._stop(wait=True)

    def _stop(self, *, wait: bool) -> None:
        for w in self._workers:
            w.stop(wait=wait)
        self._workers.clear()

    @staticmethod
    def _receive(w: _Worker, queue: deque[Task]) -> list[Outcome]:
        """The outcomes the worker has sent; if it died, a failure for the run it was doing.

        The tasks it had not started go back to the front of the queue.
        """
        outcomes: list[Outcome] = []
        try:
            while w.tasks and w.conn.poll():
                outcome: Outcome = w.conn.recv()
                task = w.tasks.popleft()
                assert outcome.run_id == task.run_id, "a worker answers its tasks in order"
                outcomes.append(outcome)
        except (EOFError, OSError):
            pass
        if w.tasks and not w.proc.is_alive():
            w.proc.join(JOIN_TIMEOUT_S)
            task = w.tasks.popleft()
            outcomes.append(failure(task, f"{task.source}: the worker process died ({describe_exit(w.proc.exitcode)})"))
            queue.extendleft(reversed(w.tasks))
            w.tasks.clear()
        return outcomes

    def _feed(self, i: int, queue: deque[Task]) -> list[Outcome]:
        """Top worker i up to DEPTH tasks, replacing it if it died; tasks that cannot be handed over fail."""
        lost: list[Outcome] = []
        while queue:
            w = self._workers[i]
            if not w.proc.is_alive() and not w.tasks:
                w.stop(wait=False)
                self._workers[i] = w = _Worker.start(self._ctx)
            if len(w.tasks) >= self.DEPTH or (w.tasks and len(queue[0].scenario_json) > self.PREFETCH_MAX_CHARS):
                break
            task = queue.popleft()
            if w.give(task):
                continue
            # The worker died: its replacement gets the task (unless it will not even take one).
            queue.appendleft(task)
            w.proc.join(JOIN_TIMEOUT_S)
            if w.proc.exitcode is None:
                lost.append(failure(queue.popleft(), f"{task.source}: the worker process does not take work"))
            if w.tasks:  # what it had is collected by _receive when its sentinel fires
                break
        return lost
