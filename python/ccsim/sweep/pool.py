"""The local backend: a pool of worker processes on this machine (`ccsim sweep --jobs N`).

Each run executes in a worker process, never in the driver: a run that
crashes its process (or is killed, e.g. by the out-of-memory killer) fails
alone, is recorded with the reason, and its worker is replaced. Workers are
started once (with "spawn": a fresh interpreter, safe whatever threads the
driver has) and reused, so a run costs one message each way, not a process
start. Each worker has its own pipe, so the driver always knows which run a
worker was doing.

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
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext, SpawnProcess

from ccsim.sweep.runner import Outcome, Task, execute, failure

JOIN_TIMEOUT_S = 5.0


def worker_main(conn: Connection) -> None:
    """A worker's loop: receive a task, run it, send the outcome back; stop on None or when the driver is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
    proc: SpawnProcess
    conn: Connection
    task: Task | None = None

    @classmethod
    def start(cls, ctx: SpawnContext) -> _Worker:
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
        self.task = task
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
    """`jobs` worker processes on this machine."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs if jobs is not None else default_jobs()
        if self.jobs < 1:
            raise ValueError(f"jobs: expected at least 1, got {self.jobs}")

    def run(self, tasks: Sequence[Task]) -> Generator[Outcome, None, None]:
        """Execute the tasks on the workers, yielding each outcome as it arrives."""
        ctx = multiprocessing.get_context("spawn")
        queue = deque(tasks)
        workers: list[_Worker] = []
        finished = False
        try:
            for _ in range(min(self.jobs, len(queue))):
                workers.append(_Worker.start(ctx))
            lost: list[Outcome] = []
            for i in range(len(workers)):
                lost += self._feed(workers, i, queue, ctx)
            yield from lost
            while any(w.task is not None for w in workers):
                busy = [i for i, w in enumerate(workers) if w.task is not None]
                ready = set(
                    multiprocessing.connection.wait(
                        [workers[i].conn for i in busy] + [workers[i].proc.sentinel for i in busy]
                    )
                )
                for i in busy:
                    w = workers[i]
                    if w.conn not in ready and w.proc.sentinel not in ready:
                        continue
                    outcome = self._receive(w)
                    lost = self._feed(workers, i, queue, ctx)  # keep the worker busy before the driver stores
                    yield outcome
                    yield from lost
            finished = True
        finally:
            for w in workers:
                w.stop(wait=finished)

    @staticmethod
    def _receive(w: _Worker) -> Outcome:
        """The outcome of the worker's task, or a failure saying how the worker died."""
        task = w.task
        assert task is not None
        w.task = None
        try:
            if w.conn.poll():
                result: Outcome = w.conn.recv()
                return result
        except (EOFError, OSError):
            pass
        w.proc.join(JOIN_TIMEOUT_S)
        return failure(task, f"{task.source}: the worker process died ({describe_exit(w.proc.exitcode)})")

    @staticmethod
    def _feed(workers: list[_Worker], i: int, queue: deque[Task], ctx: SpawnContext) -> list[Outcome]:
        """Give worker i the next task, replacing it if it died; tasks that could not be handed over fail."""
        lost: list[Outcome] = []
        while queue:
            w = workers[i]
            if not w.proc.is_alive():
                w.stop(wait=False)
                workers[i] = w = _Worker.start(ctx)
            task = queue.popleft()
            if w.give(task):
                break
            # The worker died between two runs; its replacement gets the task.
            queue.appendleft(task)
            w.proc.join(JOIN_TIMEOUT_S)
            if w.proc.exitcode is None:
                lost.append(failure(task, f"{task.source}: the worker process does not take work"))
                queue.popleft()
        return lost
