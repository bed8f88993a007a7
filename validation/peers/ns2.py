"""ns-2 peer: runs `ns validation/ns2/dumbbell.tcl --key=value ...`.

ns-2 2.35 is Debian's `ns2` package (`make validate` installs it with
apt-get when `ns` is missing). The script prints one JSON object on its last
stdout line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from params import peer_args

from peers import run_program

NAME = "ns2"
SCRIPT = Path(__file__).resolve().parents[1] / "ns2" / "dumbbell.tcl"


def available() -> bool:
    return shutil.which("ns") is not None


def version() -> str:
    # `ns -version` prints nothing in Debian's build: ask dpkg
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True, timeout=10, check=False
        )
        return f"ns-2 (Debian ns2 {out.stdout.strip()})" if out.returncode == 0 else "ns-2"
    except OSError:
        return "ns-2"


def run(params: dict, seed: int) -> dict:
    if seed < 1:
        raise ValueError("ns-2 seeds must be >= 1 (seed 0 draws a seed from the clock)")
    # ns writes nothing to the working directory, but runs in a scratch one
    return run_program(["ns", str(SCRIPT), *peer_args(params, seed)], "ns-2", timeout=600)
