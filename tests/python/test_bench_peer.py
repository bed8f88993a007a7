"""`ccsim bench --against ns2`: the harness around the two programs (no timings are checked).

A stand-in `ns` on the PATH takes ns-2's place, so the test runs where ns-2
is not installed; what it checks is that both programs are started from the
benchmark file, ccsim with the validation twin's scenario, and that the table
and the errors say what they should.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ccsim import ScenarioError, bench_peer
from ccsim.cli import main

ROOT = Path(__file__).resolve().parents[2]

TWINS = """
[[bench]]
name = "tiny"
params = { flows = 2, cc = "newreno", duration = 2, warmup = 1, queue = "gred" }
"""


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout-shaped folder: the benchmark file, the validation suite, and a stand-in `ns` that logs its args."""
    (tmp_path / "benches").mkdir()
    (tmp_path / "benches" / "against_ns2.toml").write_text(TWINS, encoding="utf-8")
    (tmp_path / "validation").symlink_to(ROOT / "validation")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ns"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "ns.log"}\n', encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_both_programs_run_alternately(checkout: Path) -> None:
    rows = bench_peer.bench_against_ns2(checkout, runs=2)
    assert [r.name for r in rows] == ["tiny"]
    calls = (checkout / "ns.log").read_text(encoding="utf-8").splitlines()
    assert len(calls) == 3, "one unmeasured round, then two measured"
    assert calls[0].split()[0].endswith("validation/ns2/dumbbell.tcl")
    assert "--flows=2" in calls[0].split()
    assert "--queue=gred" in calls[0].split()
    row = rows[0]
    assert row.runs == 2
    assert row.loop_s > 0
    assert row.ccsim_s > row.loop_s
    assert row.ratio == pytest.approx(row.ns2_s / row.ccsim_s)


def test_ccsim_runs_as_a_users_python_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # With PYTHONDONTWRITEBYTECODE set (as in some CI and sandbox shells) every
    # run would compile ccsim's modules anew, which no installed package does.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("CCSIM_BENCH_MARKER", "kept")
    env = bench_peer.user_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["CCSIM_BENCH_MARKER"] == "kept"


def test_the_cli_prints_the_table_and_json(checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--against", "ns2", "--runs", "1", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["benchmark"] == "tiny"
    assert row["runs"] == 1
    assert set(row) >= {"ns2_s", "ccsim_s", "ratio", "ns2_peak_mb", "ccsim_peak_mb", "ccsim_event_loop_s"}


def test_an_unknown_benchmark_names_the_known_ones(checkout: Path) -> None:
    with pytest.raises(ScenarioError, match="no benchmark named nope; expected one of tiny"):
        bench_peer.bench_against_ns2(checkout, runs=1, names=["nope"])


def test_without_ns_the_error_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ScenarioError, match="ns2 package"):
        bench_peer.bench_against_ns2(ROOT, runs=1)
