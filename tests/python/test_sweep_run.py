"""Running sweeps: local workers equal a serial run, failures are recorded, resume, the store and ccsim.load."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from sweep_helpers import BASE, TWELVE, cli, comparable, timeseries_bytes, write_sweep

import ccsim
from ccsim.sweep import LocalPool, Serial, load_sweep, run_sweep
from ccsim.sweep.runner import Outcome
from ccsim.sweep.spec import Run


def test_two_workers_equal_a_serial_run_run_by_run(twelve: tuple[Path, Path, Path]) -> None:
    _, serial, pool = twelve
    a, b = comparable(ccsim.load(serial)), comparable(ccsim.load(pool))
    assert len(a["runs"]) == 12
    assert (a["runs"]["status"] == "ok").all()
    for name in ("runs", "flows", "queues", "links"):
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)
    # 2 flows per run; a 2-pair dumbbell has 10 link directions.
    assert len(a["flows"]) == 24
    assert len(a["queues"]) == len(a["links"]) == 120
    # The time series are byte-identical files.
    ts_a, ts_b = timeseries_bytes(serial), timeseries_bytes(pool)
    assert len(ts_a) == 12
    assert ts_a == ts_b
    # The runs really ran in worker processes, two of them.
    workers = set(ccsim.load(pool).runs["worker"])
    assert len(workers) == 2
    assert all(not w.endswith(f":{os.getpid()}") for w in workers)


def test_a_stored_run_is_exactly_what_ccsim_run_gives(twelve: tuple[Path, Path, Path]) -> None:
    _, _, pool = twelve
    res = ccsim.load(pool)
    row = res.runs.iloc[7]
    direct = ccsim.run(json.loads(row["scenario"]))
    assert direct.seed == row["seed"]
    flows = res.flows[res.flows["run_id"] == row["run_id"]].drop(columns="run_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(flows, direct.flows, check_dtype=False, check_exact=True)
    for key, value in direct.summary.items():
        assert row[key] == value, key
    pd.testing.assert_frame_equal(res.timeseries(row["run_id"]), direct.timeseries)


def test_load_gives_typed_frames_with_the_grid_as_columns(twelve: tuple[Path, Path, Path]) -> None:
    _, _, pool = twelve
    res = ccsim.load(pool)
    assert res.name == "twelve"
    assert res.parameters == ["flows[0].rate"]
    assert res.cases == ["droptail", "red"]
    runs = res.runs
    assert list(runs.columns[:6]) == ["run_id", "sweep", "case_label", "replicate", "seed", "flows[0].rate"]
    assert set(runs["flows[0].rate"]) == {"3Mbps", "5Mbps"}
    assert runs.groupby(["case_label", "flows[0].rate"]).size().tolist() == [3, 3, 3, 3]
    assert runs["goodput_bps"].dtype == "float64"
    assert runs["version"].unique().tolist() == [ccsim.__version__]
    assert set(res.metrics) >= {"goodput_bps", "jain_index", "loss_rate", "bottleneck_utilization"}
    # The red case's queue is RED, with the base's limit kept.
    red = runs[runs["case_label"] == "red"].iloc[0]
    assert json.loads(red["scenario"])["topology"]["bottleneck"]["queue"] == {
        "kind": "red",
        "limit": 20,
        "min_th": 3,
        "max_th": 9,
    }
    q = res.queues
    assert set(q.loc[(q["run_id"] == red["run_id"]) & (q["link"] == "r1->r2"), "kind"]) == {"red"}


def test_the_database_answers_sql(twelve: tuple[Path, Path, Path]) -> None:
    _, _, pool = twelve
    con = duckdb.connect(str(pool / "results.duckdb"), read_only=True)
    try:
        rows = con.execute(
            'SELECT case_label, "flows[0].rate", count(*), avg(goodput_bps) FROM runs '
            "WHERE status = 'ok' GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        per_flow = con.execute(
            "SELECT count(*) FROM flows f JOIN runs r USING (run_id) WHERE r.case_label = 'red'"
        ).fetchone()
    finally:
        con.close()
    assert [r[:3] for r in rows] == [
        ("droptail", "3Mbps", 3),
        ("droptail", "5Mbps", 3),
        ("red", "3Mbps", 3),
        ("red", "5Mbps", 3),
    ]
    assert per_flow == (12,)


def test_resume_runs_only_what_is_missing(twelve: tuple[Path, Path, Path], tmp_path: Path) -> None:
    path, _, pool = twelve
    out = tmp_path / "grown"
    # A copy of the finished store, then the sweep grown by one grid value and one replicate.
    for f in ("results.duckdb",):
        (out / "timeseries").mkdir(parents=True)
        (out / f).write_bytes((pool / f).read_bytes())
    for name, data in timeseries_bytes(pool).items():
        (out / "timeseries" / name).write_bytes(data)
    before = comparable(ccsim.load(out))
    grown = path.with_name("grown.toml")
    grown.write_text(
        path.read_text()
        .replace('["3Mbps", "5Mbps"]', '["3Mbps", "5Mbps", "1Mbps"]')
        .replace("replicates = 3", "replicates = 4")
    )
    status, stdout, stderr = cli("sweep", str(grown), "--out", str(out), "--resume", "--jobs", "2")
    assert (status, stderr) == (0, "")
    # 2 cases x 3 rates x 4 replicates = 24 runs, 12 of them stored already.
    assert stdout.startswith("running 12 runs (12 already stored)\n")
    assert "12 runs in " in stdout
    after = comparable(ccsim.load(out))
    assert len(after["runs"]) == 24
    assert after["runs"]["run_id"].is_unique
    old = after["runs"][after["runs"]["run_id"].isin(before["runs"]["run_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(old.drop(columns="sweep"), before["runs"].drop(columns="sweep"))
    # Nothing left to do: a second resume runs nothing.
    status, stdout, _ = cli("sweep", str(grown), "--out", str(out), "--resume", "-q")
    assert (status, stdout) == (0, "")
    assert len(ccsim.load(out).runs) == 24


def test_an_existing_store_needs_resume_or_overwrite(twelve: tuple[Path, Path, Path]) -> None:
    path, _, pool = twelve
    status, out, err = cli("sweep", str(path), "--out", str(pool))
    assert (status, out) == (2, "")
    assert "results.duckdb exists: add --resume to run what is missing, or --overwrite to start afresh" in err


def test_resume_refuses_runs_of_a_changed_scenario(twelve: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """Runs of a base that has since changed are not silently counted as extra replicates."""
    path, _, pool = twelve
    out = tmp_path / "changed"
    (out / "timeseries").mkdir(parents=True)
    (out / "results.duckdb").write_bytes((pool / "results.duckdb").read_bytes())
    src = tmp_path / "src"
    src.mkdir()
    changed = src / path.name
    changed.write_text(path.read_text())
    base = (path.parent / "base.toml").read_text()
    (src / "base.toml").write_text(base.replace('warmup = "0.5s"', 'warmup = "0.25s"', 1))
    status, stdout, err = cli("sweep", str(changed), "--out", str(out), "--resume", "-q")
    assert (status, stdout) == (2, "")
    assert "12 stored run(s) are not runs of this sweep as it is now" in err
    assert "--overwrite" in err
    assert len(ccsim.load(out).runs) == 12  # nothing was added or removed


def test_invalid_point_is_reported_before_anything_runs(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path,
        """
        base = "base.toml"
        [grid]
        "flows[0].rate" = ["1Mbps", "2Mbps", "3Mpbs", "4Mbps"]
        """,
    )
    status, out, err = cli("sweep", str(path), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert (status, out) == (2, "")
    assert err == (
        f"error: {path}: 1 of 4 grid points is invalid; nothing was run:\n"
        f'  {path} [flows[0].rate=3Mpbs]: flows[0].rate: expected a rate like "10Mbps" '
        '(units bps, kbps, Mbps, Gbps), got "3Mpbs"\n'
    )
    # Nothing ran: not even the store was created.
    assert not (tmp_path / "out").exists()
    status, out, _ = cli("sweep", str(path), "--dry-run")
    assert status == 2


def test_dry_run_counts_and_runs_nothing(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, TWELVE)
    status, out, err = cli("sweep", str(path), "--dry-run", "--out", str(tmp_path / "o"))
    assert (status, err) == (0, "")
    assert out == f"{path}: ok: 12 runs (4 grid points and cases x 3 replicates)\n"
    assert not (tmp_path / "o").exists()


def test_a_runtime_error_is_recorded_and_the_others_complete(tmp_path: Path) -> None:
    # The "starved" case passes validation but trips its event guard while running.
    path = write_sweep(
        tmp_path,
        """
        base = "base.toml"
        replicates = 2
        [grid]
        "flows[0].rate" = ["2Mbps", "3Mbps"]
        [[cases]]
        label = "fine"
        [[cases]]
        label = "starved"
        limits.max_events = 500
        """,
    )
    out = tmp_path / "out"
    status, stdout, stderr = cli("sweep", str(path), "--out", str(out), "--jobs", "2")
    # Exit status 10 + the number of failed runs.
    assert status == 14
    assert stderr == "error: 4 of 8 runs failed (see the error column of runs)\n"
    assert "8 runs in " in stdout
    assert ": 4 ok, 4 failed;" in stdout
    assert stdout.count("\n    ") == 4  # each failure's error is printed under its line
    runs = ccsim.load(out).runs
    ok, bad = runs[runs["status"] == "ok"], runs[runs["status"] == "error"]
    assert set(ok["case_label"]) == {"fine"}
    assert len(ok) == len(bad) == 4
    assert ok["error"].isna().all()
    for _, r in bad.iterrows():
        assert r["case_label"] == "starved"
        assert r["error"].startswith(f"{path} [case=starved, flows[0].rate=")
        assert "run stopped: more than 500 events (limits.max_events" in r["error"]
        assert pd.isna(r["goodput_bps"])
        assert pd.isna(r["timeseries"])
    assert set(ccsim.load(out).flows["run_id"]) == set(ok["run_id"])
    # --resume leaves failed runs alone; --retry-failed runs them again (they fail again, replacing their rows).
    assert cli("sweep", str(path), "--out", str(out), "--resume", "-q")[0] == 14
    status, stdout, _ = cli("sweep", str(path), "--out", str(out), "--resume", "--retry-failed", "-j", "1")
    assert status == 14
    assert stdout.startswith("running 4 runs (4 already stored)")
    again = ccsim.load(out).runs
    assert len(again) == 8
    assert again["run_id"].is_unique


class KillWorkerAfterFirst:
    """A progress sink that SIGKILLs the pool's worker when the first run is stored (the second is then running)."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    def start(self, total: int, skipped: int) -> None:
        """Nothing."""

    def advance(self, run: Run, outcome: Outcome) -> None:
        """Kill the worker after the first outcome."""
        self.outcomes.append(outcome)
        if len(self.outcomes) == 1:
            (child,) = multiprocessing.active_children()
            assert child.pid is not None
            os.kill(child.pid, signal.SIGKILL)

    def stop(self) -> None:
        """Nothing."""


def test_a_worker_that_dies_fails_its_run_only(tmp_path: Path) -> None:
    # The second case runs 2000 simulated seconds (about two seconds on an idle core, far longer
    # than storing a run), so it is still running when the first run (2 simulated seconds) is stored.
    # (200 s was once not enough on a loaded machine once the worker's time series stopped going
    # through pyarrow.)
    body = """
        base = "base.toml"
        [[cases]]
        label = "short"
        [[cases]]
        label = "long"
        duration = "2000s"
        [[cases]]
        label = "after"
        """
    path = write_sweep(tmp_path, body)
    sink = KillWorkerAfterFirst()
    report = run_sweep(load_sweep(path), tmp_path / "out", LocalPool(jobs=1), progress=sink)
    assert [o.status for o in sink.outcomes] == ["ok", "error", "ok"]
    assert (
        sink.outcomes[1].error
        == f"{path} [case=long, replicate=0]: the worker process died (killed by SIGKILL (out of memory?))"
    )
    assert (report.ran, report.failed) == (3, 1)
    # The third run went to a new worker.
    assert sink.outcomes[0].worker != sink.outcomes[2].worker


def test_the_base_scenario_alone_is_a_sweep(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, 'base = "base.toml"\nreplicates = 2\nname = "two seeds"\ntimeseries = false\n')
    report = run_sweep(load_sweep(path), tmp_path / "out", Serial())
    assert (report.total, report.failed) == (2, 0)
    res = ccsim.load(tmp_path / "out")
    assert res.parameters == []
    assert res.cases == ["base"]
    assert res.runs["timeseries"].isna().all()
    assert not list((tmp_path / "out" / "timeseries").iterdir())
    assert res.runs["goodput_bps"].nunique() == 2  # two seeds, two results
    assert BASE.startswith('name = "tiny"')


def test_wlans_are_stored_as_a_table(wlan_scenario: Path, tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path, 'base = "base.toml"\nreplicates = 2\ntimeseries = false\n', base=wlan_scenario.read_text()
    )
    assert run_sweep(load_sweep(path), tmp_path / "out", Serial()).failed == 0
    res = ccsim.load(tmp_path / "out")
    # An AP and two stations per run.
    assert len(res.wlans) == 6
    for run_id, scenario in zip(res.runs["run_id"], res.runs["scenario"], strict=True):
        stored = res.wlans[res.wlans["run_id"] == run_id].drop(columns="run_id").reset_index(drop=True)
        direct = ccsim.run(json.loads(scenario)).wlans
        pd.testing.assert_frame_equal(stored, direct, check_dtype=False, check_exact=True)
    assert len(res.groups) == 2 * len(res.runs)


def test_a_sweep_without_wlans_has_no_wlan_rows(twelve: tuple[Path, Path, Path]) -> None:
    _, _, pool = twelve
    res = ccsim.load(pool)
    assert res.wlans.empty
    assert len(res.groups) == 12


def test_load_reports_a_missing_store(tmp_path: Path) -> None:
    with pytest.raises(ccsim.ScenarioError, match=r"results.duckdb: no results store"):
        ccsim.load(tmp_path)


def test_validate_checks_every_point_of_a_sweep_file(tmp_path: Path, repo: Path) -> None:
    good = write_sweep(tmp_path, TWELVE)
    bad = write_sweep(tmp_path, 'base = "base.toml"\n[grid]\n"flows[0].rate" = ["1Mbps", "1Mbs"]\n', name="bad.toml")
    status, out, err = cli("validate", str(good), str(repo / "examples" / "sweep_aqm.toml"), str(bad))
    assert status == 2
    assert out == f"{good}: ok\n{repo / 'examples' / 'sweep_aqm.toml'}: ok\n"
    assert err.startswith(
        f"error: {bad}: 1 of 2 grid points is invalid; nothing was run:\n  {bad} [flows[0].rate=1Mbs]"
    )
