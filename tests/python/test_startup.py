"""Start-up stays light: `ccsim --help` and `ccsim validate` load none of the heavy libraries.

The time itself is measured in benches/ and docs/performance.md ("Start-up"),
never here; this test checks the cause instead: which modules a command
imports. Each check runs in a fresh interpreter, since this one has long
since imported everything.
"""

from __future__ import annotations

import json
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


def heavy_modules_loaded(args: list[str]) -> list[str]:
    """The heavy libraries loaded after `ccsim ARGS` ran in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
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


def test_a_run_writes_its_files_without_pandas(tmp_path: Path) -> None:
    """A run loads what it writes its files with (so the check above can fail), but not pandas or matplotlib.

    pandas takes longer to import than a small run takes to simulate
    (docs/performance.md, "Run overhead"); the files are written from Arrow
    arrays built without it.
    """
    loaded = heavy_modules_loaded(["run", "examples/dumbbell_udp.toml", "--quiet", "--out", str(tmp_path)])
    assert {"numpy", "pyarrow"} <= set(loaded)
    assert not {"pandas", "matplotlib", "scipy", "duckdb", "dask"} & set(loaded)
    assert (tmp_path / "flows.parquet").is_file()
