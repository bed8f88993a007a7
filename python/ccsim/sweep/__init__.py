"""Parameter sweeps: many runs of one scenario over a grid, cases and replicates (docs/sweeps.md).

    >>> from ccsim import sweep
    >>> s = sweep.load_sweep("examples/sweep_aqm.toml")
    >>> report = sweep.run_sweep(s, "results/sweep_aqm", sweep.LocalPool(jobs=2))
    >>> results = sweep.load("results/sweep_aqm")   # same as ccsim.load
    >>> results.runs[["case_label", "flows[0].count", "goodput_bps"]]

Modules: `spec` (the sweep file, expansion, seeds, run ids), `runner` (the
driver and the serial backend), `pool` (local worker processes), `cluster`
(Dask), `store` (the DuckDB results store and `load`), `progress`.
"""

from __future__ import annotations

from ccsim.sweep.cluster import DaskCluster
from ccsim.sweep.pool import LocalPool, default_jobs
from ccsim.sweep.runner import Outcome, Serial, SweepReport, Task, execute, plan, run_sweep
from ccsim.sweep.spec import Run, Sweep, derive_seed, from_dict, load_sweep, run_id_of
from ccsim.sweep.store import DB_FILE, SweepResults, load

__all__ = [
    "DB_FILE",
    "DaskCluster",
    "LocalPool",
    "Outcome",
    "Run",
    "Serial",
    "Sweep",
    "SweepReport",
    "SweepResults",
    "Task",
    "default_jobs",
    "derive_seed",
    "execute",
    "from_dict",
    "load",
    "load_sweep",
    "plan",
    "run_id_of",
    "run_sweep",
]
