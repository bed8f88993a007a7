"""ccsim: a deterministic packet-level network simulator for comparing congestion control and queue management.

    >>> import ccsim
    >>> r = ccsim.run("examples/dumbbell_udp.toml")
    >>> r.summary["goodput_bps"], r.flows[["name", "goodput_bps"]]

A queue discipline or congestion controller can be written in Python:
subclass `ccsim.QueueDisc` or `ccsim.CongestionControl` and name the class
in a scenario as `kind = "python:module.Class"` or `cc = "python:module.Class"`
(docs/extending.md).

`ccsim.load(DIR)` reads the results of a sweep (`ccsim sweep`, docs/sweeps.md)
as pandas DataFrames.

`run` and `validate` take a path to a .toml/.json scenario or the scenario as a
dict (the TOML structure). Malformed scenarios raise `ScenarioError` (a
ValueError) whose message names the file, the key path and what was expected;
a run stopped by its event or wall-time guard raises `SimulationError`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ccsim import _core
from ccsim._core import AckInfo, CongestionControl, CongestionEvent, Packet, QueueDisc, ScenarioError, SimulationError
from ccsim.paths import default_results_dir
from ccsim.scenario import ScenarioInput, check_seed
from ccsim.scenario import load as _load_scenario

if TYPE_CHECKING:
    from collections.abc import Callable

    from ccsim.results import Result
    from ccsim.sweep.store import SweepResults

__all__ = [
    "AckInfo",
    "CongestionControl",
    "CongestionEvent",
    "Packet",
    "QueueDisc",
    "Result",
    "ScenarioError",
    "ScenarioInput",
    "SimulationError",
    "__version__",
    "load",
    "run",
    "trace_estimate",
    "validate",
]

__version__: str = _core.version()


def __getattr__(name: str) -> object:
    """`ccsim.Result`, imported on first use (`ccsim --help` needs none of it)."""
    if name == "Result":
        from ccsim.results import Result  # noqa: PLC0415

        return Result
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


def run(
    scenario: ScenarioInput,
    *,
    seed: int | None = None,
    max_wall_s: float | None = None,
    max_events: int | None = None,
    trace_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[float, float, int], object] | None = None,
) -> Result:
    """Run a scenario (a path or a dict) and return its Result.

    `seed` overrides the scenario's seed; `max_wall_s` and `max_events`
    override its run guards (`[limits]`). `progress(simulated_s,
    duration_s, events)` is called every 65536 events while the engine
    runs (`ccsim run` draws its progress bar with it). A packet trace the scenario asks
    for (`[output] trace = "ns2"` or `"pcap"`) is written into `trace_dir`,
    by default the folder `ccsim run` writes the results to
    (`results/<name>/`); a file that cannot be created raises OSError.
    """
    s = _load_scenario(scenario)
    if trace_dir is None:
        name = s.trace_name()
        if name is not None:
            trace_dir = default_results_dir(name)
    summary_json, run_data = _core.run_scenario(
        s.text,
        s.source,
        s.fmt,
        max_events=max_events,
        max_wall_s=max_wall_s,
        seed=check_seed(seed),
        trace_dir=None if trace_dir is None else os.fspath(trace_dir),
        progress=progress,
        plugin_dirs=list(s.plugin_dirs),
    )
    from ccsim.results import Result  # noqa: PLC0415

    return Result.from_engine(summary_json, run_data)


def validate(scenario: ScenarioInput, *, seed: int | None = None) -> None:
    """Check a scenario without running it; raise ScenarioError if it is malformed."""
    s = _load_scenario(scenario)
    _core.validate_scenario(s.text, s.source, s.fmt, seed=check_seed(seed), plugin_dirs=list(s.plugin_dirs))


def trace_estimate(scenario: ScenarioInput, *, seed: int | None = None) -> tuple[str, float, float] | None:
    """The packet trace a scenario asks for, estimated without running it, or None without a trace.

    Returns (format, packets, bytes): "ns2" or "pcap", the packet crossings
    of traced links and the bytes of trace files, if every flow sent all the
    time at its max-min fair share of the link rates (docs/plots.md, "How big
    a trace gets"). Raises ScenarioError if the scenario is malformed.
    """
    s = _load_scenario(scenario)
    return _core.trace_estimate(s.text, s.source, s.fmt, seed=check_seed(seed), plugin_dirs=list(s.plugin_dirs))


def load(results: str | os.PathLike[str]) -> SweepResults:
    """A sweep's results (its output folder, or its results.duckdb) as pandas DataFrames.

    The returned object has `runs` (one row per run: case, grid parameters,
    seed, status, error, summary metrics, ...), `flows`, `queues` and `links`
    (the per-run tables, keyed by `run_id`), `parameters` (the grid columns)
    and `timeseries(run_id)`. See docs/sweeps.md.
    """
    from ccsim.sweep.store import load as load_results  # noqa: PLC0415 (keeps `import ccsim` light)

    return load_results(results)
