"""Shared pieces of the sweep tests: a tiny base scenario, sweep files, results without wall-clock columns."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pandas as pd
from scenarios import poisson_pair, small_dumbbell

from ccsim.cli import main
from ccsim.sweep import SweepResults

# Two Poisson UDP sources at 4 Mbps each into a 10 Mbps bottleneck for 2 s: a run takes a few
# hundredths of a second, and the goodput is noisy (80% load, random arrivals), which the
# statistics tests need.
BASE = small_dumbbell("tiny", poisson_pair("4Mbps"))

# 2 cases x 2 grid values x 3 replicates = 12 runs.
TWELVE = """\
name = "twelve"
base = "base.toml"
seed = 11
replicates = 3

[grid]
"flows[0].rate" = ["3Mbps", "5Mbps"]

[[cases]]
label = "droptail"

[[cases]]
label = "red"
topology.bottleneck.queue = { kind = "red", min_th = 3, max_th = 9 }
"""

# Columns that depend on the wall clock or on where a run executed.
WALL_CLOCK = ["wall_s", "cpu_s", "engine_wall_s", "worker", "finished_at"]


def write_sweep(folder: Path, body: str, base: str = BASE, name: str = "sweep.toml") -> Path:
    """Write base.toml and the sweep file into `folder`; return the sweep file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "base.toml").write_text(base)
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


def cli(*argv: str) -> tuple[int, str, str]:
    """Run `ccsim argv...` in this process; return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def comparable(res: SweepResults) -> dict[str, pd.DataFrame]:
    """The stored results without wall-clock columns, rows in run_id order, for run-by-run comparison."""
    runs = res.runs.drop(columns=WALL_CLOCK).sort_values("run_id", kind="stable").reset_index(drop=True)
    tables = {"runs": runs}
    for name in ("flows", "queues", "links"):
        df: pd.DataFrame = getattr(res, name)
        tables[name] = df.sort_values("run_id", kind="stable").reset_index(drop=True)
    return tables


def timeseries_bytes(out_dir: Path) -> dict[str, bytes]:
    """Every stored time-series file's bytes, by file name."""
    return {p.name: p.read_bytes() for p in sorted((out_dir / "timeseries").glob("*.parquet"))}
