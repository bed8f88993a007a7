"""Start-up stays light: `ccsim --help` and `ccsim validate` load none of the heavy libraries.

The time itself is measured in benches/ and docs/performance.md ("Start-up"),
never here; this test checks the cause instead: which modules a command
imports. Each check runs in a fresh interpreter, since this one has long
since imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "rich", "duckdb", "scipy", "dask")

PROBE = f"""
import contextlib, io, json, sys
from ccsim.cli import main
args = json.loads(sys.argv[1])
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    status = main(args)
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def heavy_modules_loaded(args: list[str], probe: str = PROBE) -> list[str]:
    """The heavy libraries (or the modules `probe` names) loaded after `ccsim ARGS` ran in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "args",
    [
        [],  # only importing the CLI module: main([]) prints the usage and exits 2
        ["--help"],
        ["run", "--help"],
        ["validate", "examples/dumbbell_udp.toml"],
        ["validate", "examples/sweep_aqm.toml"],
    ],
    ids=["import", "help", "run-help", "validate-scenario", "validate-sweep"],
)
def test_light_commands_load_no_heavy_library(args: list[str]) -> None:
    assert heavy_modules_loaded(args) == []


def test_validating_a_scenario_loads_no_sweep_spec() -> None:
    # The sweep spec (hashlib with OpenSSL, unicodedata, ...) only for a sweep file.
    probe = PROBE.replace(repr(HEAVY), repr(("ccsim.sweep.spec",)))
    for args, expected in (
        (["validate", "examples/dumbbell_udp.toml"], []),
        (["validate", "examples/sweep_aqm.toml"], ["ccsim.sweep.spec"]),
    ):
        assert heavy_modules_loaded(args, probe) == expected, args


# The command as a user runs it, stdout a pipe: the modules loaded are printed to stderr at exit.
PIPE_PROBE = f"""
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)), file=sys.stderr))
from ccsim.cli import main
sys.exit(main(sys.argv[1:]))
"""


def heavy_modules_of_cli(args: list[str], env: dict[str, str], probe: str = PIPE_PROBE) -> tuple[list[str], str]:
    """The heavy libraries (or the modules `probe` names) loaded by `ccsim ARGS` run with stdout a pipe, and what
    it printed."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return loaded, done.stdout


@pytest.mark.parametrize("quiet", [False, True], ids=["tables", "quiet"])
def test_a_run_on_a_pipe_loads_no_heavy_library(tmp_path: Path, quiet: bool) -> None:
    """`ccsim run` writes its files (from the extension) and prints its tables (without rich, off a
    terminal) loading none of the heavy libraries: numpy and pyarrow alone took longer to import than a
    small run takes to simulate (docs/performance.md, "Run overhead")."""
    args = ["run", "examples/dumbbell_udp.toml", "--out", str(tmp_path), *(["--quiet"] if quiet else [])]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    loaded, stdout = heavy_modules_of_cli(args, env)
    assert loaded == []
    assert (tmp_path / "flows.parquet").is_file()
    assert (tmp_path / "timeseries.parquet").is_file()
    assert quiet == (stdout == "")
    if not quiet:
        assert "Summary" in stdout
        assert "results written to" in stdout


def test_a_run_on_a_terminal_draws_with_rich(tmp_path: Path) -> None:
    """So that the check above can fail: the same run forced to look like a terminal loads rich."""
    loaded, _ = heavy_modules_of_cli(
        ["run", "examples/dumbbell_udp.toml", "--out", str(tmp_path)], {**os.environ, "FORCE_COLOR": "1"}
    )
    assert loaded == ["rich"]


# `dataclasses` imports `inspect` (with `ast`, `dis`, `tokenize`): about a tenth of the start-up.
INSPECT = ("dataclasses", "inspect")


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["validate", "examples/dumbbell_udp.toml"],
        ["run", "examples/dumbbell_udp.toml", "--quiet"],
        ["run", "examples/dumbbell_udp.toml"],
    ],
    ids=["help", "validate", "run-quiet", "run-tables"],
)
def test_the_commands_users_time_load_no_dataclasses(tmp_path: Path, args: list[str]) -> None:
    """On a pipe, as `ccsim bench` and scripts run them (on a terminal rich draws, and imports them)."""
    if args[0] == "run":
        args = [*args, "--out", str(tmp_path)]
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    loaded, _ = heavy_modules_of_cli(args, env, PIPE_PROBE.replace(repr(HEAVY), repr(INSPECT)))
    assert loaded == []
