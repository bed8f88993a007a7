"""Type stubs of the Rust extension module (crates/ccsim-py)."""

import os
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = [
    "RunData",
    "ScenarioError",
    "SimulationError",
    "parse_rate_bps",
    "parse_size_bytes",
    "parse_time_s",
    "pretty_json",
    "run_scenario",
    "trace_estimate",
    "validate_scenario",
    "version",
]

Series = tuple[str, str, str, npt.NDArray[np.float64]]
Delays = tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]

class RunData:
    """A finished run's results held by the extension: the summary, the time series, the delay histograms."""

    @staticmethod
    def from_parts(
        summary_json: str,
        time_s: npt.NDArray[np.float64],
        series: list[Series],
        delays: list[Delays],
    ) -> RunData:
        """Results built from Python data (float64 arrays)."""

    def summary_json(self) -> str:
        """The summary as compact JSON text."""

    def write(self, out_dir: str | os.PathLike[str], empty: list[tuple[str, list[str], list[str]]]) -> list[str]:
        """Write the run's files into `out_dir` (docs/results.md); `empty`: (table, columns, text columns) of a
        table without rows. Returns the paths written; OSError if a file cannot be written, ValueError for a
        value the files cannot hold."""

    def timeseries_parquet(self) -> bytes:
        """timeseries.parquet's bytes."""

    def delays_parquet(self) -> bytes:
        """delays.parquet's bytes."""

    def timeseries(self) -> dict[str, npt.NDArray[np.float64] | list[Series] | list[Delays]]:
        """{"time_s": array, "series": [(kind, entity, metric, values)], "delays": [(flow, upper_s, counts)]}."""

class ScenarioError(ValueError):
    """A scenario is malformed: "file: key.path: what was expected"."""

class SimulationError(RuntimeError):
    """A run was stopped by a guard (event count or wall time)."""

def run_scenario(
    text: str,
    source: str,
    fmt: str = "toml",
    max_events: int | None = None,
    max_wall_s: float | None = None,
    seed: int | None = None,
    trace_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[float, float, int], object] | None = None,
) -> tuple[str, RunData]:
    """Run a scenario; return (RunResult JSON, the run's data).

    `progress(simulated_s, duration_s, events)` is called every 65536
    events (an exception in it stops the run as KeyboardInterrupt).
    A packet trace the scenario asks for (`[output] trace`) is written into
    `trace_dir`; without one such a scenario raises ScenarioError. Files that
    cannot be created or written raise OSError.
    """

def validate_scenario(text: str, source: str, fmt: str = "toml", seed: int | None = None) -> None:
    """Check a scenario without running it; raise ScenarioError if it is malformed."""

def trace_estimate(
    text: str, source: str, fmt: str = "toml", seed: int | None = None
) -> tuple[str, float, float] | None:
    """The trace a scenario asks for, estimated: (format, packet crossings of traced links, bytes); None without one."""

def pretty_json(text: str) -> str:
    """JSON text indented as `json.dumps(indent=2, ensure_ascii=False)` writes it, ending in a newline."""

def version() -> str:
    """The engine's version."""

def parse_time_s(text: str) -> float:
    """A time as scenarios write it ("20ms", "2min") in seconds; ValueError otherwise (the engine's parser)."""

def parse_rate_bps(text: str) -> float:
    """A rate as scenarios write it ("10Mbps") in bit/s; ValueError otherwise (the engine's parser)."""

def parse_size_bytes(text: str) -> float:
    """A size as scenarios write it ("1500B", "64KB") in bytes; ValueError otherwise (the engine's parser)."""
