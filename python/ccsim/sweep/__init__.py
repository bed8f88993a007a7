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

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccsim.sweep.cluster import DaskCluster
    from ccsim.sweep.pool import LocalPool, default_jobs
    from ccsim.sweep.runner import Outcome, Serial, SweepReport, Task, execute, run_sweep
    from ccsim.sweep.spec import Run, Sweep, derive_seed, from_dict, load_sweep, plan, run_id_of
    from ccsim.sweep.store import DB_FILE, SweepResults, load

# Each name is imported from its module on first use (PEP 562), so that
# `ccsim validate` of a sweep file loads the spec alone, not pyarrow, pandas
# and DuckDB (docs/performance.md, "Start-up").
_HOME = {
    "DaskCluster": "cluster",
    "LocalPool": "pool",
    "default_jobs": "pool",
    "Outcome": "runner",
    "Serial": "runner",
    "SweepReport": "runner",
    "Task": "runner",
    "execute": "runner",
    "run_sweep": "runner",
    "Run": "spec",
    "Sweep": "spec",
    "derive_seed": "spec",
    "from_dict": "spec",
    "load_sweep": "spec",
    "plan": "spec",
    "run_id_of": "spec",
    "DB_FILE": "store",
    "SweepResults": "store",
    "load": "store",
}
_MODULES = ("cluster", "columns", "pool", "progress", "runner", "spec", "store")


def __getattr__(name: str) -> object:
    """A name of the package (from its module) or one of its modules, imported on first use."""
    if name in _MODULES:
        return importlib.import_module(f"ccsim.sweep.{name}")
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ccsim.sweep' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ccsim.sweep.{home}"), name)


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
