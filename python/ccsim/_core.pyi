"""Type stubs of the Rust extension module (crates/ccsim-py)."""

import os
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = [
    "ScenarioError",
    "SimulationError",
    "parse_rate_bps",
    "parse_size_bytes",
    "parse_time_s",
    "run_scenario",
    "trace_estimate",
    "validate_scenario",
    "version",
]

Series = tuple[str, str, str, npt.NDArray[np.float64]]

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
) -> tuple[str, dict[str, npt.NDArray[np.float64] | list[Series]]]:
    """Run a scenario; return (RunResult JSON, {"time_s": array, "series": [(kind, entity, metric, values)]}).

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

def version() -> str:
    """The engine's version."""

def parse_time_s(text: str) -> float:
    """A time as scenarios write it ("20ms", "2min") in seconds; ValueError otherwise (the engine's parser)."""

def parse_rate_bps(text: str) -> float:
    """A rate as scenarios write it ("10Mbps") in bit/s; ValueError otherwise (the engine's parser)."""

def parse_size_bytes(text: str) -> float:
    """A size as scenarios write it ("1500B", "64KB") in bytes; ValueError otherwise (the engine's parser)."""
