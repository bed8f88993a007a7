"""The `ccsim` command: run, validate, bench, exit statuses, determinism."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from contract import CLI_FILES, FLOW_KEYS, LINK_KEYS, PERF_KEYS, QUEUE_KEYS, RESULT_FILES, SUMMARY_KEYS, TOP_KEYS

from ccsim.cli import interruptible, main, safe_dirname


def cli(*argv: str) -> tuple[int, str, str]:
    """Run `ccsim argv...` in this process; return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def ccsim_process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed `ccsim` command as a separate process (as a user would)."""
    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim.cli"]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return subprocess.run([*cmd, *argv], cwd=cwd, capture_output=True, text=True, timeout=120, env=env, check=False)


def without_perf(summary_json: str) -> str:
    """summary.json's text up to its last block, perf (the only wall-clock dependent part)."""
    head, sep, _ = summary_json.partition('\n  "perf": ')
    assert sep, "perf must be the last block of summary.json"
    return head


def test_run_writes_every_file_and_prints_tables(small_scenario: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    status, out, err = cli("run", str(small_scenario), "--out", str(out_dir))
    assert (status, err) == (0, "")
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(CLI_FILES)
    for heading in ("Summary", "Flow groups", "Busiest queues", "r1->r2*", "Jain's index"):
        assert heading in out
    assert "p.0" not in out  # every flow's row only with --flows or --verbose
    assert f"results written to {out_dir}/" in out


@pytest.mark.parametrize(
    ("flags", "shown", "hidden"),
    [
        (["--flows"], ["Flows", "p.0", "p.1", "Busiest queues"], ["Queues (with arrivals"]),
        (["--queues"], ["Queues (with arrivals", "s0->r1"], ["p.0", "more queue"]),
        (["--verbose"], ["Flows", "p.0", "Queues (with arrivals"], ["Busiest queues"]),
    ],
)
def test_full_tables_on_request(
    small_scenario: Path, tmp_path: Path, flags: list[str], shown: list[str], hidden: list[str]
) -> None:
    status, out, _ = cli("run", str(small_scenario), "--out", str(tmp_path / "o"), *flags)
    assert status == 0
    for text in shown:
        assert text in out, text
    for text in hidden:
        assert text not in out, text


def test_a_100_flow_run_fits_one_screen(tmp_path: Path) -> None:
    """The default output of a 100-flow dumbbell: the summary, one line per group, the busiest queues."""
    bench = (Path(__file__).resolve().parents[2] / "benches" / "tcp_newreno_100.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "hundred.toml"
    scenario.write_text(bench.replace('duration = "100s"', 'duration = "6s"'), encoding="utf-8")
    status, out, _ = cli("run", str(scenario), "--out", str(tmp_path / "o"))
    assert status == 0
    lines = out.splitlines()
    assert len(lines) <= 40, out
    tables = [line for line in lines if not line.startswith("results written to")]  # a path as long as it is
    assert max(len(line.rstrip()) for line in tables) <= 80, out
    assert "g0 (tcp, 100)" in out


def test_run_defaults_to_results_name(small_scenario: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    status, _, _ = cli("run", str(small_scenario), "--quiet")
    assert status == 0
    assert sorted(p.name for p in (tmp_path / "results" / "small").iterdir()) == sorted(CLI_FILES)


def test_quiet_prints_nothing(small_scenario: Path, tmp_path: Path) -> None:
    assert cli("run", str(small_scenario), "--quiet", "--out", str(tmp_path / "o")) == (0, "", "")


def test_json_prints_the_summary_json(small_scenario: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "o"
    status, out, err = cli("run", str(small_scenario), "--json", "--out", str(out_dir))
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert set(TOP_KEYS) <= set(data)
    for flow in data["flows"]:
        assert set(FLOW_KEYS) <= set(flow)
    for queue in data["queues"]:
        assert set(QUEUE_KEYS) <= set(queue)
    for link in data["links"]:
        assert set(LINK_KEYS) <= set(link)
    assert set(SUMMARY_KEYS) <= set(data["summary"])
    assert set(PERF_KEYS) <= set(data["perf"])
    # stdout is exactly what summary.json holds.
    assert out == (out_dir / "summary.json").read_text()


def test_same_seed_same_bytes_other_seed_other_results(small_scenario: Path, tmp_path: Path) -> None:
    dirs = [tmp_path / name for name in ("a", "b", "c")]
    assert cli("run", str(small_scenario), "--quiet", "--out", str(dirs[0]))[0] == 0
    assert cli("run", str(small_scenario), "--quiet", "--out", str(dirs[1]))[0] == 0
    assert cli("run", str(small_scenario), "--quiet", "--out", str(dirs[2]), "--seed", "4")[0] == 0
    a, b, c = ((d / "summary.json").read_text() for d in dirs)
    assert without_perf(a) == without_perf(b)
    # Every table file is byte-identical too (none holds wall-clock figures).
    for name in RESULT_FILES[1:]:
        assert (dirs[0] / name).read_bytes() == (dirs[1] / name).read_bytes(), name
    ja, jc = json.loads(a), json.loads(c)
    assert (ja["seed"], jc["seed"]) == (3, 4)
    # Not only the seed field: the Poisson arrivals, and so every flow's counts, change.
    assert ja["flows"] != jc["flows"]
    assert ja["summary"] != jc["summary"]


def test_the_largest_seed_passes_through(small_scenario: Path, tmp_path: Path) -> None:
    # TOML integers stop at 2^63-1; the command line takes any u64 seed.
    status, out, _ = cli("run", str(small_scenario), "--json", "--seed", str(2**64 - 1), "--out", str(tmp_path))
    assert status == 0
    assert json.loads(out)["seed"] == 2**64 - 1


def test_unwritable_output_is_an_error(small_scenario: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    status, out, err = cli("run", str(small_scenario), "--out", str(blocker / "out"))
    assert (status, out) == (2, "")
    assert err == f"error: {blocker / 'out'}: Not a directory\n"


def test_validate_reports_each_file(small_scenario: Path, write_scenario: object, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n')
    status, out, err = cli("validate", str(small_scenario), str(bad))
    assert status == 2
    assert out == f"{small_scenario}: ok\n"
    assert err == f'error: {bad}: (top level): missing key "duration"\n'
    assert cli("validate", str(small_scenario)) == (0, f"{small_scenario}: ok\n", "")


def test_examples_validate(repo: Path) -> None:
    examples = sorted(str(p) for p in (repo / "examples").glob("*.toml"))
    assert examples
    status, out, err = cli("validate", *examples)
    assert (status, err) == (0, "")
    assert out.count(": ok\n") == len(examples)


def test_bench_prints_rates(small_scenario: Path) -> None:
    status, out, err = cli("bench", str(small_scenario), "--json")
    assert (status, err) == (0, "")
    (row,) = json.loads(out)
    assert row["scenario"] == str(small_scenario)
    assert row["events"] > 0
    assert row["packets_forwarded"] > 0
    assert row["events_per_hop"] == pytest.approx(row["events"] / row["packets_forwarded"])
    status, out, _ = cli("bench", str(small_scenario))
    assert status == 0
    assert "events/s" in out
    assert "pkts fwd/s" in out


def test_bench_without_scenarios_or_benches_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("bench") == (2, "", "error: no scenarios given and none found in benches/*.toml\n")


def test_bench_defaults_to_benches_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_scenario: Path) -> None:
    (tmp_path / "benches").mkdir()
    (tmp_path / "benches" / "one.toml").write_text(small_scenario.read_text())
    monkeypatch.chdir(tmp_path)
    status, out, _ = cli("bench", "--json")
    assert status == 0
    assert [r["scenario"] for r in json.loads(out)] == ["benches/one.toml"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("dumbbell_udp", "dumbbell_udp"), ("../../etc", "etc"), ("a b/c", "a_b_c"), ("..", "scenario"), ("", "scenario")],
)
def test_safe_dirname(name: str, expected: str) -> None:
    assert safe_dirname(name) == expected


def test_bad_arguments_exit_2(small_scenario: Path) -> None:
    for argv in (
        ["run", str(small_scenario), "--seed", "-1"],
        ["run", str(small_scenario), "--seed", "x"],
        ["run", str(small_scenario), "--max-wall", "0"],
        ["frobnicate"],
    ):
        with pytest.raises(SystemExit) as e:
            cli(*argv)
        assert e.value.code == 2


# The installed command, as a separate process: exit status and stderr exactly as a user sees them.


def test_process_run_and_json(small_scenario: Path, tmp_path: Path) -> None:
    p = ccsim_process("run", str(small_scenario), "--json", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert (p.returncode, p.stderr) == (0, "")
    assert json.loads(p.stdout)["name"] == "small"


@pytest.mark.parametrize(
    ("argv", "stderr"),
    [
        (["run", "missing.toml"], "error: missing.toml: cannot read the scenario: No such file or directory\n"),
        (["validate", "."], "error: .: cannot read the scenario: Is a directory\n"),
        (["run", "bad.toml"], 'error: bad.toml: (top level): missing key "duration"\n'),
    ],
)
def test_process_errors_exit_2_without_traceback(tmp_path: Path, argv: list[str], stderr: str) -> None:
    (tmp_path / "bad.toml").write_text('name = "x"\n')
    p = ccsim_process(*argv, cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", stderr)


def test_process_usage_error_exits_2_without_traceback(tmp_path: Path) -> None:
    p = ccsim_process("run", "x.toml", "--seed", "-5", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.endswith("ccsim run: error: argument --seed: expected an integer in 0..2^64-1, got -5\n")
    assert "Traceback" not in p.stderr


def test_interrupts_end_the_process_while_the_engine_runs() -> None:
    # While the engine runs, SIGINT has its default action (the process ends with status 130 at once);
    # afterwards Python's handler is back, so an interrupt elsewhere becomes KeyboardInterrupt (exit 130).
    # Start from Python's own handler, whatever the shell that started pytest
    # did (a background job or nohup starts it with SIGINT ignored).
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    with interruptible():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # A process started with interrupts ignored (nohup) keeps ignoring them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interruptible():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_keyboard_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch, small_scenario: Path) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("ccsim.run", interrupted)
    assert cli("run", str(small_scenario)) == (130, "", "interrupted\n")


def test_internal_errors_are_one_line(monkeypatch: pytest.MonkeyPatch, small_scenario: Path) -> None:
    def broken(*_: object, **__: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("ccsim.run", broken)
    assert cli("run", str(small_scenario)) == (
        1,
        "",
        "error: internal error (ZeroDivisionError: division by zero); rerun with --traceback and report it\n",
    )
    with pytest.raises(ZeroDivisionError):
        cli("--traceback", "run", str(small_scenario))
