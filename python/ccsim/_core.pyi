"""Type stubs of the Rust extension module (crates/ccsim-py)."""

import os
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = [
    "AckInfo",
    "CongestionControl",
    "CongestionEvent",
    "Packet",
    "QueueDisc",
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

    @property
    def name(self) -> str:
        """The summary's `name` (the scenario's)."""

    @property
    def seed(self) -> int:
        """The summary's `seed` (the seed the run used)."""

    def write(self, out_dir: str | os.PathLike[str]) -> list[str]:
        """Write the run's files into `out_dir` (docs/results.md), the tables' columns from the summary's `schema`.
        Returns the paths written; OSError if a file cannot be written, ValueError for a value the files cannot
        hold or a summary without a schema."""

    def timeseries_parquet(self) -> bytes:
        """timeseries.parquet's bytes."""

    def delays_parquet(self) -> bytes:
        """delays.parquet's bytes."""

    def timeseries(self) -> dict[str, npt.NDArray[np.float64] | list[Series] | list[Delays]]:
        """{"time_s": array, "series": [(kind, entity, metric, values)], "delays": [(flow, upper_s, counts)]}."""

class ScenarioError(ValueError):
    """A scenario is malformed: "file: key.path: what was expected"."""

class SimulationError(RuntimeError):
    """A run was stopped by a guard (event count or wall time), or by an error in a `python:` algorithm's code."""

def run_scenario(
    text: str,
    source: str,
    fmt: str = "toml",
    max_events: int | None = None,
    max_wall_s: float | None = None,
    seed: int | None = None,
    trace_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[float, float, int], object] | None = None,
    plugin_dirs: list[str] | None = None,
) -> tuple[str, RunData]:
    """Run a scenario; return (RunResult JSON, the run's data).

    `progress(simulated_s, duration_s, events)` is called every 65536
    events (an exception in it stops the run as KeyboardInterrupt).
    A packet trace the scenario asks for (`[output] trace`) is written into
    `trace_dir`; without one such a scenario raises ScenarioError. Files that
    cannot be created or written raise OSError. `plugin_dirs`: folders where
    the modules of `python:` algorithms are looked for first (then sys.path);
    an exception in such an algorithm's code stops the run with
    SimulationError (one line: file, key, class, method, exception).
    """

def validate_scenario(
    text: str, source: str, fmt: str = "toml", seed: int | None = None, plugin_dirs: list[str] | None = None
) -> None:
    """Check a scenario without running it (its `python:` classes are loaded and built); ScenarioError if malformed."""

def trace_estimate(
    text: str, source: str, fmt: str = "toml", seed: int | None = None, plugin_dirs: list[str] | None = None
) -> tuple[str, float, float] | None:
    """The trace a scenario asks for, estimated: (format, packet crossings of traced links, bytes); None without one."""

def pretty_json(text: str) -> str:
    """JSON text indented as `json.dumps(indent=2, ensure_ascii=False)` writes it, ending in a newline."""

def version() -> str:
    """The engine's version."""

def result_schema() -> str:
    """The result tables' column schema as JSON text: {table: [{name, unit, type, nullable}, ...]} (docs/results.md)."""

def parse_scenario(text: str, source: str, fmt: str = "toml") -> str:
    """The scenario read by the engine's parser into its data model, as JSON text; ScenarioError on a syntax error."""

def parse_time_s(text: str) -> float:
    """A time as scenarios write it ("20ms", "2min") in seconds; ValueError otherwise (the engine's parser)."""

def parse_rate_bps(text: str) -> float:
    """A rate as scenarios write it ("10Mbps") in bit/s; ValueError otherwise (the engine's parser)."""

def parse_size_bytes(text: str) -> float:
    """A size as scenarios write it ("1500B", "64KB") in bytes; ValueError otherwise (the engine's parser)."""

# Algorithms written in Python (docs/extending.md). Times are integer nanoseconds.

class Packet:
    """A packet as a queue discipline sees it (read-only; `QueueDisc.mark` sets its `ecn`)."""

    @property
    def size(self) -> int:
        """Size on the wire, bytes."""
    @property
    def flow(self) -> int:
        """The flow's index (the order of the flows table)."""
    @property
    def uid(self) -> int:
        """Unique id, in emission order."""
    @property
    def seq(self) -> int:
        """Transport sequence number."""
    @property
    def traffic_class(self) -> int:
        """Precedence / class (WRED, RIO)."""
    @property
    def enqueued_at(self) -> int:
        """When it arrived at this queue, ns."""
    @property
    def kind(self) -> str:
        """ "data" or "ack"."""
    @property
    def ecn(self) -> str:
        """ "not-ect", "ect" (ECT(0)), "ect1" (ECT(1), L4S) or "ce"."""

class QueueDisc:
    """Base class of a queue discipline written in Python: `kind = "python:module.Class"`.

    A subclass defines `enqueue(self, now, pkt)` (True: queued; False or
    "overflow", "forced", "early": dropped) and `dequeue(self, now)` (a Packet
    it holds, or None); optionally `probes = ("name", ...)` and `probe(self)`
    returning as many floats (time series), and `initial_timer(self)` /
    `on_timer(self, now)` returning timer delays in ns (or None). The queue
    table's other keys are the constructor's keyword arguments.
    """

    def __init__(self, *args: object, **kwargs: object) -> None: ...
    @property
    def len_pkts(self) -> int:
        """Packets waiting."""
    @property
    def len_bytes(self) -> int:
        """Bytes waiting."""
    @property
    def limit(self) -> int | None:
        """The queue's `limit`, packets (None: bytes only)."""
    @property
    def limit_bytes(self) -> int | None:
        """The queue's `limit_bytes` (None: packets only)."""
    @property
    def link_rate_bps(self) -> int:
        """Rate of the link the queue feeds, bit/s."""
    @property
    def compat(self) -> str:
        """The compatibility profile in force ("ccsim", "ns2", "ns3", "linux", "rfc")."""
    def fits(self, size: int) -> bool:
        """Whether a packet of `size` bytes fits the limits on top of what waits."""
    def random(self) -> float:
        """Uniform draw in [0, 1) from the queue's own stream (the built-in disciplines' stream)."""
    def tx_time(self, size: int) -> int:
        """Serialization time of `size` bytes on the link, ns (rounded up)."""
    def drop(self, pkt: Packet, reason: str = "forced") -> None:
        """Drop a packet this queue holds ("forced", "early" or "overflow"); ValueError for any other packet."""
    def mark(self, pkt: Packet) -> bool:
        """Mark the arriving or a held packet CE if it is ECN-capable; whether it is marked."""

class AckInfo:
    """One acknowledgement as a congestion controller sees it (times in ns)."""

    @property
    def now(self) -> int: ...
    @property
    def acked(self) -> int: ...
    @property
    def sacked(self) -> int: ...
    @property
    def newly_delivered(self) -> int: ...
    @property
    def acked_bytes(self) -> int: ...
    @property
    def rtt(self) -> int | None: ...
    @property
    def srtt(self) -> int | None: ...
    @property
    def min_rtt(self) -> int | None: ...
    @property
    def prior_in_flight(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def cwnd_limited(self) -> bool: ...
    @property
    def state(self) -> str:
        """ "open", "recovery" or "loss"."""
    @property
    def exited_recovery(self) -> bool: ...
    @property
    def exit_growth(self) -> bool:
        """The sender lets this ACK, which ended recovery, grow the window (`recovery_exit_growth`)."""
    @property
    def ece(self) -> bool: ...
    @property
    def ack(self) -> int: ...
    @property
    def snd_max(self) -> int: ...
    @property
    def delivered(self) -> int: ...
    @property
    def losses(self) -> int: ...
    @property
    def rate(self) -> tuple[int, int, int, bool] | None:
        """Delivery-rate sample: (delivered, interval_ns, prior_delivered, app_limited)."""
    def may_raise_cwnd(self) -> bool:
        """Whether a loss-based controller may open its window on this ACK (RFC 5681, RFC 3168, RFC 7661)."""

class CongestionEvent:
    """A loss, ECN-Echo or timeout as a congestion controller sees it (times in ns, windows in segments)."""

    @property
    def now(self) -> int: ...
    @property
    def flight(self) -> float: ...
    @property
    def window(self) -> float: ...
    @property
    def collapse(self) -> bool: ...
    @property
    def repeated(self) -> bool: ...
    @property
    def srtt(self) -> int | None: ...
    @property
    def int_ssthresh(self) -> bool: ...
    def whole(self, ssthresh: float) -> float:
        """`ssthresh` as the sender stores it (rounded down with `int_ssthresh`)."""

class CongestionControl:
    """Base class of a congestion controller written in Python: `cc = "python:module.Class"`.

    A subclass defines `on_ack(self, now, ack)`, `on_congestion_event(self,
    ev)` and `on_rto(self, ev)`, and may define `on_ecn(self, ev)` (default:
    on_congestion_event), `on_recovery_exit(self, now)` and `deflate(self,
    segments)`. It sets `cwnd` and `ssthresh` (segments) and may set
    `pacing_rate_bps`. The flow group's `cc_params` are the constructor's
    keyword arguments.
    """

    cwnd: float
    ssthresh: float
    pacing_rate_bps: float | None
    def __init__(self, *args: object, **kwargs: object) -> None: ...
    @property
    def mss(self) -> int:
        """Payload bytes per segment."""
    @property
    def wire_size(self) -> int:
        """Wire bytes per full segment."""
    @property
    def compat(self) -> str:
        """The flow group's compatibility profile."""
    def random(self) -> float:
        """Uniform draw in [0, 1) from the flow's stream (in on_ack)."""
    def on_ecn(self, ev: CongestionEvent) -> None:
        """An ECN-Echo; by default calls on_congestion_event."""
    def on_recovery_exit(self, now: int) -> None:
        """Recovery ended (default: nothing)."""
    def deflate(self, segments: float) -> None:
        """A NewReno partial ACK deflated the window (default: ignored)."""
