"""ns-3 peer: runs validation/ns3/dumbbell.cc, compiled against the ns-3.44 wheel.

`validation/peers/install_ns3.sh` (run by `make validate`) installs the
`ns3==3.44.post0` wheel into its own virtualenv (`.venv-ns3` at the
repository's root, or `$NS3_VENV`) and compiles the program with
`validation/ns3/build.sh`. The program takes the twin's parameters as
`--key=value` arguments and prints one JSON object on its last stdout line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from params import peer_args, resolve, shared_starts

from peers import run_program

NAME = "ns3"
ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "validation" / "ns3" / "build" / "dumbbell"


def _venv() -> Path:
    return Path(os.environ.get("NS3_VENV", ROOT / ".venv-ns3"))


def _build() -> bool:
    """Compile the program (build.sh does nothing when it is up to date)."""
    if not (_venv() / "bin" / "python").exists() or shutil.which("g++") is None:
        return False
    env = dict(os.environ, NS3_VENV=str(_venv()))
    out = subprocess.run(
        ["bash", str(ROOT / "validation" / "ns3" / "build.sh")], env=env, capture_output=True, text=True, check=False
    )
    return out.returncode == 0 and BINARY.exists()


def available() -> bool:
    return _build()


def version() -> str:
    return "ns-3.44 (PyPI wheel ns3==3.44.post0, C++ library)"


def run(params: dict, seed: int) -> dict:
    if not _build():
        raise RuntimeError("ns-3 is not installed: run validation/peers/install_ns3.sh")
    return run_program([str(BINARY), *_args(params, seed)], "ns-3")


def _args(params: dict, seed: int) -> list[str]:
    """The program's arguments. `start_times = "shared"` becomes `--start_list`:
    the instants `shared_starts` gives ccsim and the ns-2 script, reordered from
    their per-pair order (forward, reverse) to dumbbell.cc's (every forward flow,
    then every reverse flow)."""
    p = resolve(params)
    if p["start_times"] != "shared":
        return peer_args(params, seed)
    starts = shared_starts(p, seed)
    if int(p["two_way"]):
        starts = starts[0::2] + starts[1::2]
    rest = {k: v for k, v in params.items() if k != "start_times"}
    return [*peer_args(rest, seed), "--start_list=" + ",".join(f"{t:.9f}" for t in starts)]
