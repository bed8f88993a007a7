"""`ccsim bench --against ns2`: whole-process timings of ccsim and ns-2 on the same scenarios.

The scenarios are twins of the differential validation suite
(validation/README.md): each row of `benches/against_ns2.toml` is a set of the
suite's shared parameters, which validation/ns2/dumbbell.tcl turns into an
ns-2 script and `validation/ccsim_side.py` into a ccsim scenario under
`compat = "ns2"` (with ccsim's default outputs: what a user's `ccsim run`
writes). Both programs are started as a user starts them, alternately, each
`runs` times after one unmeasured round (which warms the file cache for both
and lets Python cache ccsim's bytecode, as an installed package has it: the
ccsim side runs without `PYTHONDONTWRITEBYTECODE`, which otherwise makes every
run compile ccsim's modules anew); the table gives the median wall time of each, their ratio,
the peak resident memory of each process and ccsim's own event loop time.

This needs a source checkout (the validation suite is not installed with the
package) and ns-2's `ns` on the PATH (Debian's `ns2` package).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccsim.scenario import ScenarioError

TWINS_FILE = Path("benches") / "against_ns2.toml"
NS2_SCRIPT = Path("validation") / "ns2" / "dumbbell.tcl"
SIDE = Path("validation") / "ccsim_side.py"


@dataclass(frozen=True)
class Timing:
    """One process: its wall time and peak resident memory."""

    wall_s: float
    peak_mb: float


@dataclass(frozen=True)
class Row:
    """One benchmark against ns-2: the medians over the runs."""

    name: str
    ns2_s: float
    ccsim_s: float
    ns2_mb: float
    ccsim_mb: float
    loop_s: float
    runs: int

    @property
    def ratio(self) -> float:
        """How many times faster ccsim's whole process is."""
        return self.ns2_s / self.ccsim_s if self.ccsim_s > 0 else float("inf")

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON-ready values."""
        return {
            "benchmark": self.name,
            "ns2_s": self.ns2_s,
            "ccsim_s": self.ccsim_s,
            "ratio": self.ratio,
            "ns2_peak_mb": self.ns2_mb,
            "ccsim_peak_mb": self.ccsim_mb,
            "ccsim_event_loop_s": self.loop_s,
            "runs": self.runs,
        }


def user_env() -> dict[str, str]:
    """This process's environment without `PYTHONDONTWRITEBYTECODE`: a user's, whose Python caches bytecode."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> Timing:
    """Run a command to its end; its wall time and peak RSS (the child's own `ru_maxrss`)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode(errors="replace")[-500:] if proc.stderr else ""
        raise ScenarioError(f"{cmd[0]} failed with exit status {proc.returncode}: {' '.join(cmd)}\n{err}")
    if proc.stderr:
        proc.stderr.close()
    return Timing(wall, usage.ru_maxrss / 1024.0)


def load_twins(root: Path) -> list[dict[str, Any]]:
    """The benchmarks of `benches/against_ns2.toml` (name and the suite's parameters)."""
    path = root / TWINS_FILE
    try:
        twins = tomllib.loads(path.read_text(encoding="utf-8"))["bench"]
    except FileNotFoundError:
        raise ScenarioError(f"{path}: not found: `--against ns2` runs from a source checkout") from None
    except (tomllib.TOMLDecodeError, KeyError) as e:
        raise ScenarioError(f"{path}: expected [[bench]] tables with `name` and `params`: {e}") from None
    return twins


def scenario_builder(root: Path) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The validation suite's ccsim side: shared parameters -> a ccsim scenario under `compat = "ns2"`."""
    if not (root / SIDE).is_file() or not (root / NS2_SCRIPT).is_file():
        raise ScenarioError(f"{root / SIDE} or {root / NS2_SCRIPT} not found: `--against ns2` runs from a checkout")
    sys.path.insert(0, str(root / SIDE.parent))
    import ccsim_side  # noqa: PLC0415 (the validation suite, outside the package)

    def build(params: dict[str, Any]) -> dict[str, Any]:
        scenario: dict[str, Any] = ccsim_side.scenario(params, 1, "ns2")
        scenario.pop("output", None)  # ccsim's default outputs, as `ccsim run` writes them
        return scenario

    return build


def bench_one(twin: dict[str, Any], build: Callable[..., dict[str, Any]], root: Path, runs: int) -> Row:
    """Alternate ns-2 and ccsim `runs` times on one twin, after an unmeasured round; the medians."""
    params = dict(twin["params"])
    ns2_cmd = ["ns", str((root / NS2_SCRIPT).resolve()), *(f"--{k}={v}" for k, v in sorted(params.items())), "--seed=1"]
    ns2: list[Timing] = []
    ours: list[Timing] = []
    loops: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ccsim-bench-") as tmp:
        work = Path(tmp)
        scenario = work / f"{twin['name']}.json"
        scenario.write_text(json.dumps(build(params)), encoding="utf-8")
        ccsim_cmd = [sys.executable, "-m", "ccsim.cli", "run", str(scenario), "--quiet", "--out", str(work / "out")]
        env = user_env()
        timed(ns2_cmd, work)
        timed(ccsim_cmd, work, env)
        for _ in range(runs):
            ns2.append(timed(ns2_cmd, work))
            ours.append(timed(ccsim_cmd, work, env))
            summary = json.loads((work / "out" / "summary.json").read_text(encoding="utf-8"))
            loops.append(float(summary["perf"]["wall_s"]))
    return Row(
        name=str(twin["name"]),
        ns2_s=statistics.median(t.wall_s for t in ns2),
        ccsim_s=statistics.median(t.wall_s for t in ours),
        ns2_mb=max(t.peak_mb for t in ns2),
        ccsim_mb=max(t.peak_mb for t in ours),
        loop_s=statistics.median(loops),
        runs=runs,
    )


def bench_against_ns2(root: Path, runs: int, names: Sequence[str] = ()) -> list[Row]:
    """Every benchmark of `benches/against_ns2.toml` (or those named) against ns-2."""
    if shutil.which("ns") is None:
        raise ScenarioError("`ns` (ns-2) is not on the PATH: install Debian's ns2 package")
    twins = load_twins(root)
    if names:
        unknown = sorted(set(names) - {t["name"] for t in twins})
        if unknown:
            known = ", ".join(t["name"] for t in twins)
            missing = ", ".join(unknown)
            raise ScenarioError(f"{root / TWINS_FILE}: no benchmark named {missing}; expected one of {known}")
        twins = [t for t in twins if t["name"] in names]
    build = scenario_builder(root)
    return [bench_one(t, build, root, runs) for t in twins]
