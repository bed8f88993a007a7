"""Peer simulators of the validation suite: one module per peer.

Each module has `NAME`, `available() -> bool` (can this machine run the peer
now?), `version() -> str` and `run(params, seed) -> dict` (the metrics of
one seed; validation/README.md). `get(name)` imports one.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import tempfile
from types import ModuleType

PEERS = ("ns2", "ns3")


def get(name: str) -> ModuleType:
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r} (known: {', '.join(PEERS)})")
    return importlib.import_module(f"peers.{name}")


def run_program(cmd: list[str], what: str, timeout: float = 1800) -> dict:
    """Run a peer's program in a scratch directory; the JSON object on its last line."""
    with tempfile.TemporaryDirectory(prefix=f"ccsim-{what}-") as tmp:
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, timeout=timeout, check=False)
    lines = [ln for ln in out.stdout.strip().splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{what} failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return json.loads(lines[-1])
