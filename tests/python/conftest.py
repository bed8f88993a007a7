"""Shared fixtures of the Python tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from scenarios import poisson_pair, small_dumbbell

REPO = Path(__file__).resolve().parents[2]

# CI runs the property tests on a fixed sequence of examples (derandomized,
# no example database) so that a run is reproducible; locally hypothesis
# explores new examples each time.
settings.register_profile(
    "ci", derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
if os.environ.get("CI"):
    settings.load_profile("ci")

# A small dumbbell (2 pairs, 10 Mbps bottleneck, 2 s): fast enough to run many times.
SMALL_DUMBBELL = small_dumbbell("small", poisson_pair("6Mbps"))

# An AP and two stations sending CBR to it over 802.11b for 1 s: a run with a `wlans[]` block.
SMALL_WLAN = """\
name = "small_wlan"
duration = "1s"
warmup = "0.2s"
seed = 3

[[nodes]]
name = "ap"

[[nodes]]
name = "s1"

[[nodes]]
name = "s2"

[[wlans]]
ap = "ap"
stations = ["s1", "s2"]
standard = "802.11b"

[[flows]]
src = "s1"
dst = "ap"
app = "cbr"
rate = "1Mbps"
packet_size = 1000

[[flows]]
src = "s2"
dst = "ap"
app = "cbr"
rate = "1Mbps"
packet_size = 1000
"""


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture
def small_scenario(tmp_path: Path) -> Path:
    """SMALL_DUMBBELL written to a file (overloaded: 12 Mbps into 10 Mbps, so it drops)."""
    path = tmp_path / "small.toml"
    path.write_text(SMALL_DUMBBELL)
    return path


@pytest.fixture
def wlan_scenario(tmp_path: Path) -> Path:
    """SMALL_WLAN written to a file."""
    path = tmp_path / "small_wlan.toml"
    path.write_text(SMALL_WLAN)
    return path


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write scenario text to tmp_path/<name> and return its path."""

    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture(scope="session")
def twelve(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The 12-run sweep (sweep_helpers.TWELVE) run serially, in this process, and on 2 local workers.

    Returns (sweep file, serial results folder, pool results folder); shared by the sweep tests.
    """
    from sweep_helpers import TWELVE, write_sweep  # noqa: PLC0415 (only the sweep tests need it)

    from ccsim.sweep import LocalPool, Serial, load_sweep, run_sweep  # noqa: PLC0415

    folder = tmp_path_factory.mktemp("twelve")
    path = write_sweep(folder, TWELVE)
    s = load_sweep(path)
    serial, pool = folder / "serial", folder / "pool"
    assert run_sweep(s, serial, Serial()).failed == 0
    report = run_sweep(s, pool, LocalPool(jobs=2))
    assert (report.total, report.ran, report.failed, report.skipped) == (12, 12, 0, 0)
    return path, serial, pool
