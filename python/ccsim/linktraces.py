"""The link capacity traces shipped with ccsim (Mahimahi's format), and the script that makes them.

A trace-driven link (`trace = "NAME"` or `trace = "path/to/file"` on a link,
docs/scenarios.md) delivers packets at the delivery opportunities a trace
lists: one line per opportunity, its time in whole milliseconds from the
start, non-decreasing; the trace repeats when it ends (Mahimahi's
`LinkQueue`, src/packet/link_queue.cc). The shipped traces live in
`ccsim/traces/` so that an installed wheel has them (the engine also knows
them by name: it embeds the same files). They are made here, not measured:

- `constant-12mbps`: one opportunity per millisecond, 12 Mbit/s of
  1500-byte packets, period 100 ms.
- `steps-24-6-0-12mbps`: 2 s at 24 Mbit/s, 2 s at 6 Mbit/s, a 1 s outage,
  1 s at 12 Mbit/s (period 6 s): a rate that steps down, vanishes and comes back.
- `cellular-synthetic`: a cellular-like link, 10 s: its rate, in 10 ms slots,
  is a random walk in log space (AR(1) around 10 Mbit/s, clamped to
  [0.5, 50] Mbit/s), and the opportunities come in bursts (a millisecond is
  granted with probability 0.6 and then carries the opportunities its
  predecessors accumulated), from Python's `random.Random(17)`.

`python -m ccsim.linktraces` rewrites the files; a test checks that the
committed files are what this script makes.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["TRACES", "TRACES_DIR", "cellular_synthetic", "constant", "names", "path", "steps", "write"]

TRACES_DIR = Path(__file__).resolve().parent / "traces"

#: Bits one delivery opportunity carries in a full-size (1500-byte) packet.
OPPORTUNITY_BITS = 1500 * 8


def constant(mbps: float, period_ms: int) -> list[int]:
    """Opportunities of a constant rate: `mbps` Mbit/s of 1500-byte packets, spread evenly over each millisecond."""
    per_ms = mbps * 1e6 / OPPORTUNITY_BITS / 1000
    out: list[int] = []
    credit = 0.0
    for ms in range(1, period_ms + 1):
        credit += per_ms
        n = math.floor(credit + 1e-9)
        credit -= n
        out.extend([ms] * n)
    return out


def steps(phases: list[tuple[float, int]]) -> list[int]:
    """Consecutive constant phases (rate in Mbit/s, length in ms); a rate of 0 is an outage."""
    out: list[int] = []
    start = 0
    for mbps, length in phases:
        out.extend(start + t for t in constant(mbps, length))
        start += length
    if not out or out[-1] != start:
        # The period is the last time stamp (Mahimahi): end the trace at the
        # end of the last phase even if its last millisecond has no opportunity.
        out.append(start)
    return out


def _normal(rng: random.Random) -> float:
    """An approximately standard normal draw: the sum of 12 uniforms, minus 6 (stable across Python versions)."""
    return sum(rng.random() for _ in range(12)) - 6.0


def cellular_synthetic(seed: int = 17, seconds: int = 10) -> list[int]:
    """The cellular-like trace: AR(1) log-rate per 10 ms slot, bursty grants per millisecond (module docstring)."""
    rng = random.Random(seed)
    mu = math.log(10.0)
    x = mu
    out: list[int] = []
    credit = 0.0
    for ms in range(1, seconds * 1000 + 1):
        if ms % 10 == 1:
            x = mu + 0.97 * (x - mu) + 0.12 * _normal(rng)
            x = min(max(x, math.log(0.5)), math.log(50.0))
        credit += math.exp(x) * 1e6 / OPPORTUNITY_BITS / 1000
        if rng.random() < 0.6:
            n = math.floor(credit)
            credit -= n
            out.extend([ms] * n)
    if out[-1] != seconds * 1000:
        out.append(seconds * 1000)
    return out


#: The shipped traces: name -> the function that makes them.
TRACES: dict[str, Callable[[], list[int]]] = {
    "constant-12mbps": lambda: constant(12.0, 100),
    "steps-24-6-0-12mbps": lambda: steps([(24.0, 2000), (6.0, 2000), (0.0, 1000), (12.0, 1000)]),
    "cellular-synthetic": cellular_synthetic,
}


def names() -> list[str]:
    """The shipped traces' names."""
    return sorted(TRACES)


def path(name: str) -> Path:
    """The file of the shipped trace `name`."""
    return TRACES_DIR / f"{name}.trace"


def text(name: str) -> str:
    """The file text the script makes for trace `name`: one time stamp a line."""
    return "".join(f"{t}\n" for t in TRACES[name]())


def write() -> None:
    """Rewrite every shipped trace file."""
    TRACES_DIR.mkdir(exist_ok=True)
    for name in names():
        path(name).write_text(text(name), encoding="ascii")


if __name__ == "__main__":
    write()
    for n in names():
        lines = path(n).read_text(encoding="ascii").split()
        mean = len(lines) * OPPORTUNITY_BITS / (int(lines[-1]) / 1000) / 1e6
        print(f"{n}: {len(lines)} opportunities, period {lines[-1]} ms, mean {mean:.2f} Mbit/s", file=sys.stdout)
