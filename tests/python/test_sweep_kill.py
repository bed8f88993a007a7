"""Loss-free and resumable: SIGKILL the sweep driver midway, resume, and every run is there exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
from sweep_helpers import BASE, cli, write_sweep

# 16 runs of 100 simulated seconds (about a tenth of a second each on an idle core), so that the
# driver can be killed with some runs stored and others still to come.
SWEEP = """\
name = "killed"
base = "base.toml"
replicates = 4

[grid]
"flows[0].rate" = ["3Mbps", "5Mbps"]

[[cases]]
label = "droptail"

[[cases]]
label = "red"
topology.bottleneck.queue = { kind = "red", min_th = 3, max_th = 9 }
"""
KILL_AFTER = 5
WAIT_S = 60.0


def stored(out: Path) -> dict[str, pd.DataFrame]:
    """The runs and flows tables as they are in the database file (read after the driver died)."""
    con = duckdb.connect(str(out / "results.duckdb"), read_only=True)
    try:
        return {
            "runs": con.execute("SELECT * EXCLUDE (finished_at) FROM runs ORDER BY run_id").df(),
            "flows": con.execute("SELECT * FROM flows ORDER BY run_id, name").df(),
        }
    finally:
        con.close()


def wait_gone(pids: list[int]) -> None:
    """Wait until none of the processes exists (the workers of a dead driver must exit by themselves)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            alive.append(pid)
        if not alive:
            return
        time.sleep(0.1)
    raise AssertionError(f"worker processes {alive} outlived their driver")


def test_sigkill_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, SWEEP, base=BASE.replace('duration = "2s"', 'duration = "100s"'))
    out = tmp_path / "out"
    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim.cli"]
    driver = subprocess.Popen(
        [*cmd, "sweep", str(path), "--out", str(out), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reported: list[str] = []
    assert driver.stdout is not None
    try:
        header = driver.stdout.readline()
        assert header == "running 16 runs\n", header + (driver.stderr.read() if driver.stderr else "")
        while len(reported) < KILL_AFTER:
            line = driver.stdout.readline()
            assert line, "the sweep ended before it could be killed"
            reported.append(line)
        os.kill(driver.pid, signal.SIGKILL)
    finally:
        driver.wait(WAIT_S)
        driver.stdout.close()
        if driver.stderr is not None:
            driver.stderr.close()
    assert driver.returncode == -signal.SIGKILL
    before = stored(out)
    runs = before["runs"]
    # Every run the driver reported was committed before it said so: none lost.
    assert len(runs) >= KILL_AFTER
    assert len(runs) < 16, "the driver finished before it was killed: make the runs longer"
    assert runs["run_id"].is_unique
    assert (runs["status"] == "ok").all()
    assert len(before["flows"]) == 2 * len(runs)
    for rel in runs["timeseries"]:
        assert (out / rel).is_file()
    wait_gone([int(w.rsplit(":", 1)[1]) for w in runs["worker"].unique()])

    status, stdout, stderr = cli("sweep", str(path), "--out", str(out), "--resume", "--jobs", "2")
    assert (status, stderr) == (0, "")
    assert stdout.startswith(f"running {16 - len(runs)} runs ({len(runs)} already stored)\n")
    after = stored(out)
    # All 16 runs, each exactly once, with its 2 flows.
    assert len(after["runs"]) == 16
    assert after["runs"]["run_id"].is_unique
    assert after["flows"].groupby("run_id").size().eq(2).all()
    assert set(after["flows"]["run_id"]) == set(after["runs"]["run_id"])
    # The runs stored before the kill are unchanged, to the last column and flow.
    kept = after["runs"][after["runs"]["run_id"].isin(runs["run_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, runs)
    kept_flows = after["flows"][after["flows"]["run_id"].isin(runs["run_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept_flows, before["flows"])


def test_ctrl_c_stops_the_sweep_and_resume_finishes_it(tmp_path: Path) -> None:
    # SIGINT (Ctrl-C) reaches the driver, which stores nothing half-way (a transaction under way
    # finishes first), stops its workers and exits with 130.
    path = write_sweep(
        tmp_path,
        SWEEP.replace("replicates = 4", "replicates = 2"),
        base=BASE.replace('duration = "2s"', 'duration = "100s"'),
    )
    out = tmp_path / "out"
    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim.cli"]
    # A shell that ignores SIGINT (a background job, nohup) passes that on to
    # the processes it starts; a caught signal is reset to its default action
    # by exec, so the driver starts as from a terminal.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        driver = subprocess.Popen(
            [*cmd, "sweep", str(path), "--out", str(out), "--jobs", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, before)
    assert driver.stdout is not None
    assert driver.stdout.readline() == "running 8 runs\n"
    assert driver.stdout.readline().startswith("[1/8] ok")
    driver.send_signal(signal.SIGINT)
    stdout, stderr = driver.communicate(timeout=WAIT_S)
    assert driver.returncode == 130
    assert stderr == f"interrupted: the finished runs are stored in {out}; add --resume to run the rest\n"
    assert "runs in" not in stdout
    n = len(stored(out)["runs"])
    assert 1 <= n < 8
    status, stdout, _ = cli("sweep", str(path), "--out", str(out), "--resume", "--jobs", "2")
    assert status == 0
    assert stdout.startswith(f"running {8 - n} runs ({n} already stored)\n")
    assert len(stored(out)["runs"]) == 8
