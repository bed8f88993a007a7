"""Scenario quantities ("10Mbps", "20ms", "1500B") read by the engine's own parser.

One parser for the whole project: the Python side (reports, study readings,
plot axes) asks `ccsim._core` rather than keeping regular expressions of its
own that could disagree with what the engine accepts (a "2min" warm-up once
read as 0 s in the report).
"""

from __future__ import annotations

from ccsim import _core

# Base units of the quantities `quantity` recognises.
SECONDS, BITS_PER_SECOND, BYTES = "s", "bit/s", "B"


def seconds(value: object) -> float:
    """A scenario time ("150s", "100ms", "2min") or a number of seconds; ValueError otherwise."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return _core.parse_time_s(str(value))


def bits_per_second(value: object) -> float:
    """A scenario rate ("10Mbps") or a number of bit/s; ValueError otherwise."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return _core.parse_rate_bps(str(value))


def quantity(text: object) -> tuple[float, str] | None:
    """A time, rate or size string in its base unit (s, bit/s, B) and that unit; None for anything else."""
    for parse, unit in (
        (_core.parse_time_s, SECONDS),
        (_core.parse_rate_bps, BITS_PER_SECOND),
        (_core.parse_size_bytes, BYTES),
    ):
        try:
            return parse(str(text)), unit
        except ValueError:
            continue
    return None
