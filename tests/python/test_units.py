"""Scenario quantities on the Python side are read by the engine's parser (ccsim.units)."""

from __future__ import annotations

import pytest

from ccsim import units


@pytest.mark.parametrize(
    ("text", "value"),
    [("20ms", 0.02), ("1.5s", 1.5), ("2min", 120.0), ("250ns", 2.5e-7), ("100us", 1e-4), (3, 3.0), (0.5, 0.5)],
)
def test_seconds(text: object, value: float) -> None:
    assert units.seconds(text) == pytest.approx(value)


def test_the_python_side_accepts_what_the_engine_accepts() -> None:
    """A "2min" warm-up read as 0 s once: every unit the engine knows is known here."""
    assert units.seconds("2min") == pytest.approx(120.0)
    assert units.bits_per_second("10Mbps") == 10e6
    assert units.bits_per_second("2.5Gbps") == 2.5e9
    with pytest.raises(ValueError, match="units ns, us, ms, s, min"):
        units.seconds("10 parsecs")
    with pytest.raises(ValueError, match="negative"):
        units.seconds("-1s")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10Mbps", (10e6, "bit/s")), ("20ms", (0.02, "s")), ("64KB", (64e3, "B")), ("red", None), ("", None)],
)
def test_quantity_recognises_times_rates_and_sizes(text: str, expected: tuple[float, str] | None) -> None:
    assert units.quantity(text) == expected
