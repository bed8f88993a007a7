"""Running a sweep: validate every run, then execute the missing ones on a backend and store each at once.

The driver (this module's `run_sweep`) is the only process that touches the
results store. A backend (`Serial`, `pool.LocalPool`, `cluster.DaskCluster`)
takes `Task`s and yields `Outcome`s as runs finish, in any order (in
batches: what finished while the driver was storing the last batch); every
backend runs the same function, `execute`, so a run's result does not
depend on where it ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa

from ccsim import _core
from ccsim._core import ScenarioError, SimulationError
from ccsim.results import TABLES, flat_rows
from ccsim.sweep.columns import arrow_table
from ccsim.sweep.spec import Run, Sweep, plan
from ccsim.sweep.store import STATUS_ERROR, STATUS_OK, Store

if TYPE_CHECKING:
    from ccsim.sweep.progress import Progress


@dataclass(frozen=True)
class Task:
    """What a worker needs to run one run (picklable, small)."""

    run_id: str
    scenario_json: str
    source: str
    max_wall_s: float | None = None
    timeseries: bool = True
    plugin_dirs: tuple[str, ...] = ()
    """Folders searched first for `python:` algorithms' modules (the sweep's and its base's)."""


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back: the results as Arrow tables and the time series as Parquet bytes, or an error."""

    run_id: str
    status: str
    error: str | None
    wall_s: float
    version: str
    worker: str
    summary: dict[str, Any] | None = None
    """The summary block (goodput_bps, ...)."""
    perf: dict[str, Any] | None = None
    """The perf block (events, wall_s, ...)."""
    window: dict[str, float] | None = None
    """The run's `duration_s` and `warmup_s` as the engine resolved them (RUN_INFO_COLUMNS of the store)."""
    components: dict[str, Any] | None = None
    """Every component as the engine configured it (summary.json's `components`; the store's `components`)."""
    tables: dict[str, pa.Table] | None = None
    """flows, groups, queues, links, wlans: each with `run_id` first (columns.arrow_table)."""
    timeseries: bytes | None = None
    cpu_s: float | None = None
    """CPU time the run took in its worker (wall_s minus this is time the worker waited for a core)."""


def worker_name() -> str:
    """host:pid of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def failure(task: Task, message: str, wall_s: float = 0.0, worker: str = "") -> Outcome:
    """An outcome recording that a run failed with `message`."""
    return Outcome(task.run_id, STATUS_ERROR, message, wall_s, _core.version(), worker)


def execute(task: Task) -> Outcome:
    """Run one task in this process (a worker's job). Errors of the run become failed outcomes.

    The worker also turns the results into what the store takes (Arrow
    tables, Parquet bytes), so that the driver, which stores every run, has
    as little to do per run as possible.
    """
    start, cpu = time.perf_counter(), time.process_time()
    try:
        summary_json, run = _core.run_scenario(
            task.scenario_json, task.source, "json", max_wall_s=task.max_wall_s, plugin_dirs=list(task.plugin_dirs)
        )
        data = json.loads(summary_json)
        tables = {name: arrow_table(task.run_id, flat_rows(data[name]), data["schema"][name]) for name in TABLES}
        parquet = run.timeseries_parquet() if task.timeseries else None
    except (ScenarioError, SimulationError) as e:
        return failure(task, str(e), time.perf_counter() - start, worker_name())
    except Exception as e:  # a bug in ccsim: keep the sweep going, say what it was
        return failure(task, f"internal error ({type(e).__name__}: {e})", time.perf_counter() - start, worker_name())
    return Outcome(
        task.run_id,
        STATUS_OK,
        None,
        time.perf_counter() - start,
        _core.version(),
        worker_name(),
        summary=data["summary"],
        perf=data["perf"],
        window={"duration_s": data["duration_s"], "warmup_s": data["warmup_s"]},
        components=data.get("components"),
        tables=tables,
        timeseries=parquet,
        cpu_s=time.process_time() - cpu,
    )


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block is done, then raise KeyboardInterrupt.

    Wrapped around the store's transactions: DuckDB would abort an
    interrupted statement with an error of its own; this way a finished run
    is stored whole and the interrupt comes right after.
    """
    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is None:  # installed outside Python: nothing to restore but the default
            previous = signal.SIG_DFL
        caught: list[int] = []
        signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    except ValueError:  # not the main thread: signals go to the main thread anyway
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and previous is not signal.SIG_IGN:
        raise KeyboardInterrupt


class Backend(Protocol):
    """Where runs execute."""

    def run(self, tasks: Sequence[Task]) -> Generator[list[Outcome], None, None]:
        """Execute every task, yielding the outcomes as soon as they are there (in any order).

        Each yield is a batch: every outcome that arrived since the last one
        (the driver stores a batch in one transaction).
        """
        ...


class Serial:
    """Every run in the driver's own process, one after the other (the reference the other backends must equal)."""

    def run(self, tasks: Sequence[Task]) -> Generator[list[Outcome], None, None]:
        """Execute the tasks in order."""
        for t in tasks:
            yield [execute(t)]


def _execute(
    todo: list[Run],
    store: Store,
    backend: Backend,
    *,
    skipped: int,
    max_wall_s: float | None,
    timeseries: bool,
    progress: Progress | None,
    plugin_dirs: tuple[str, ...] = (),
) -> int:
    """Run `todo` on the backend, storing each run as it finishes; return how many failed."""
    by_id = {r.run_id: r for r in todo}
    tasks = [Task(r.run_id, r.scenario_json(), r.source, max_wall_s, timeseries, plugin_dirs) for r in todo]
    failed = 0
    if progress is not None:
        progress.start(len(todo), skipped)
    try:
        with contextlib.closing(backend.run(tasks)) as batches:
            for batch in batches:
                for outcome in batch:
                    if outcome.version != _core.version():
                        raise ScenarioError(
                            f"worker {outcome.worker} runs ccsim {outcome.version}, this driver {_core.version()}: "
                            "install the same version everywhere (the runs stored so far are kept)"
                        )
                done = [(by_id[o.run_id], o) for o in batch]
                with interrupts_deferred():
                    store.commit(done)
                for run, outcome in done:
                    failed += outcome.status != STATUS_OK
                    if progress is not None:
                        progress.advance(run, outcome)
    finally:
        if progress is not None:
            progress.stop()
    return failed


@dataclass
class SweepReport:
    """What a sweep invocation did."""

    out_dir: Path
    total: int
    """Runs in the sweep."""
    skipped: int
    """Runs already in the store (not run again)."""
    ran: int
    failed: int
    """Runs of this invocation that failed."""
    failed_total: int
    """Runs of the sweep whose stored status is an error (this invocation's and earlier ones)."""
    wall_s: float


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    backend: Backend | None = None,
    *,
    resume: bool = False,
    overwrite: bool = False,
    retry_failed: bool = False,
    max_wall_s: float | None = None,
    progress: Progress | None = None,
) -> SweepReport:
    """Validate the sweep, then run what the store in `out_dir` lacks, committing each run as it finishes."""
    start = time.perf_counter()
    runs = plan(sweep)
    backend = backend if backend is not None else Serial()
    warm_up = getattr(backend, "warm_up", None)
    close = getattr(backend, "close", None)
    try:
        if warm_up is not None:
            warm_up(len(runs))  # worker processes start while the store opens
        store = Store.open(out_dir, sweep, resume=resume, overwrite=overwrite)
        try:
            ids = {r.run_id for r in runs}
            stale = set(store.status) - ids
            if stale:
                # A run's id hashes its whole scenario: stored runs outside the plan are of another
                # scenario (the base file, a case or the grid changed). Mixing them in would count them
                # as extra replicates.
                raise ScenarioError(
                    f"{Path(out_dir)}: {len(stale)} stored run(s) are not runs of this sweep as it is now "
                    "(its base scenario, cases, grid or replicates changed since they ran); "
                    "use --overwrite to start afresh, or another --out folder"
                )
            done = store.finished(retry_failed=retry_failed)
            todo = [r for r in runs if r.run_id not in done]
            failed = _execute(
                todo,
                store,
                backend,
                skipped=len(runs) - len(todo),
                max_wall_s=max_wall_s,
                timeseries=sweep.timeseries,
                progress=progress,
                plugin_dirs=sweep.plugin_dirs,
            )
            failed_total = sum(1 for rid, status in store.status.items() if rid in ids and status != STATUS_OK)
        finally:
            with interrupts_deferred():
                store.close()
    finally:
        if close is not None:
            close()
    return SweepReport(
        out_dir=Path(out_dir),
        total=len(runs),
        skipped=len(runs) - len(todo),
        ran=len(todo),
        failed=failed,
        failed_total=failed_total,
        wall_s=time.perf_counter() - start,
    )
