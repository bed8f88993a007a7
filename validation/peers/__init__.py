"""Peer simulators of the validation suite: one module per peer.

Each module has `NAME`, `available() -> bool` (can this machine run the peer
now?), `version() -> str` and `run(params, seed) -> dict` (the metrics of
one seed; validation/README.md). `get(name)` imports one.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PEERS = ("ns2", "ns3")


def get(name: str) -> ModuleType:
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r} (known: {', '.join(PEERS)})")
    return importlib.import_module(f"peers.{name}")
