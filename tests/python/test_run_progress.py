"""The engine's progress callback and `ccsim run`'s progress bar (drawn only on a terminal)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import ccsim
from ccsim import run_progress

ROOT = Path(__file__).resolve().parents[2]


def test_the_engine_reports_simulated_time_and_events() -> None:
    calls: list[tuple[float, float, int]] = []
    result = ccsim.run(ROOT / "examples" / "dumbbell_udp.toml", progress=lambda t, d, n: calls.append((t, d, n)))
    assert calls, "a run of 89,633 events reports at least once (every 65,536 events)"
    times = [c[0] for c in calls]
    assert times == sorted(times)
    assert all(0 < t <= d == result.data["duration_s"] for t, d, _ in calls)
    assert [c[2] for c in calls] == [65536 * (i + 1) for i in range(len(calls))]


def test_an_exception_in_the_callback_stops_the_run() -> None:
    def fail(_t: float, _d: float, _n: int) -> None:
        raise RuntimeError("stop")

    with pytest.raises(KeyboardInterrupt):
        ccsim.run(ROOT / "examples" / "dumbbell_udp.toml", progress=fail)


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_bar_is_drawn_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "DELAY_S", 0.0)
    term = Terminal()
    with run_progress.progress_bar(stream=term) as update:
        assert update is not None
        update(12.5, 100.0, 5_000_000)
    assert "simulating" in term.getvalue()
    assert "12.5 s" in term.getvalue()
    with run_progress.progress_bar(stream=io.StringIO()) as off:
        assert off is None
    with run_progress.progress_bar(enabled=False, stream=Terminal()) as quiet:
        assert quiet is None


def test_a_short_run_draws_nothing() -> None:
    term = Terminal()
    with run_progress.progress_bar(stream=term) as update:
        assert update is not None
        update(1.0, 100.0, 65536)  # well within DELAY_S of the start
    assert term.getvalue() == ""
