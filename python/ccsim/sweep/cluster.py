"""The Dask backend (`ccsim sweep --cluster ADDRESS`): runs go to a Dask distributed cluster.

`ADDRESS` is a scheduler's address (`tcp://host:8786`, or any scheme Dask's
`Client` takes) or `local:N`, which starts a LocalCluster of N worker
processes with one thread each on this machine (for testing the cluster path
without a cluster), listening on loopback (127.0.0.1) only, without a
dashboard. Workers run `ccsim.sweep.runner.execute`, the function
every backend runs, so they must have the same ccsim installed (the driver
checks the version each run reports). Results come back to the driver,
which alone writes the store: workers need no shared file system.

Dask is an optional dependency: `pip install ccsim[dask]`.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from types import ModuleType
from typing import Any

from ccsim._core import ScenarioError
from ccsim.sweep.runner import Outcome, Task, execute, failure

INSTALL_HINT = "--cluster needs Dask: pip install 'ccsim[dask]' (or pip install 'dask[distributed]')"
CONNECT_TIMEOUT_S = 30
LOOPBACK = "127.0.0.1"
"""The address a LocalCluster (`local:N`) listens on: its scheduler and workers are not reachable from elsewhere."""


def _distributed() -> ModuleType:
    try:
        import distributed  # noqa: PLC0415 (an optional dependency)
    except ImportError as e:
        raise ScenarioError(INSTALL_HINT) from e
    return distributed


class DaskCluster:
    """Submit every run to a Dask cluster; yield the outcomes as they complete."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.local_workers: int | None = None
        m = re.fullmatch(r"local(?::(\d+))?", address)
        if m:
            self.local_workers = int(m.group(1)) if m.group(1) else None
            if self.local_workers is not None and self.local_workers < 1:
                raise ScenarioError(f"--cluster {address}: expected local:N with N >= 1")
        elif "://" not in address:
            raise ScenarioError(f"--cluster {address}: expected a scheduler address like tcp://HOST:8786, or local:N")
        _distributed()  # fail before anything runs when Dask is missing
        self._client: Any = None
        self._cluster: Any = None

    def warm_up(self, runs: int) -> None:
        """Connect to the scheduler (or start the LocalCluster) before the driver creates the store.

        A cluster that cannot be had then fails the sweep with nothing written.
        """
        if self._client is not None or runs == 0:
            return
        distributed = _distributed()
        try:
            if self.local_workers is not None or self.address == "local":
                # Loopback only, and no dashboard: nothing on the network can reach the workers.
                self._cluster = distributed.LocalCluster(
                    n_workers=self.local_workers,
                    threads_per_worker=1,
                    processes=True,
                    host=LOOPBACK,
                    dashboard_address=None,
                    worker_dashboard_address=None,
                )
                self._client = distributed.Client(self._cluster)
            else:
                try:
                    self._client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT_S)
                except (OSError, TimeoutError) as e:
                    raise ScenarioError(f"--cluster {self.address}: cannot reach the Dask scheduler: {e}") from e
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Disconnect (and stop the LocalCluster)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def run(self, tasks: Sequence[Task]) -> Generator[list[Outcome], None, None]:
        """Execute the tasks on the cluster."""
        if not tasks:
            self.close()
            return
        distributed = _distributed()
        self.warm_up(len(tasks))
        client = self._client
        assert client is not None
        futures: dict[Any, Task] = {}
        try:
            futures = {client.submit(execute, t, key=f"ccsim-run-{t.run_id}", pure=False, retries=0): t for t in tasks}
            for done in distributed.as_completed(futures).batches():
                batch: list[Outcome] = []
                for fut in done:
                    task = futures.pop(fut)
                    try:
                        batch.append(fut.result())
                    except Exception as e:  # the worker died (KilledWorker) or could not run ccsim
                        batch.append(failure(task, f"{task.source}: the Dask task failed ({type(e).__name__}: {e})"))
                    fut.release()
                yield batch
        finally:
            for fut in futures:
                fut.cancel()
            self.close()
