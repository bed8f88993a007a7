"""The ramachendra study's set-up: its cases, the paper's configurations and baseline."""

from __future__ import annotations

NAME = "ramachendra-modred"
AQMS = ("red", "wred", "avq", "modred")
NODES = (16, 32, 64)
LOADS = (25, 50, 75, 100)
ACTIVE = "flows[0].count"
LIMIT = "topology.bottleneck.queue.limit"
BASELINE_LIMIT = 100
"""The paper's baseline: "the RED queue with 100 packets is chosen as a baseline for comparison"."""
PKT_BITS = 1500 * 8


def configurations(active: int) -> list[tuple[int, int]]:
    """The (nodes, load %) configurations of the paper that `active` connections stand for."""
    return [(n, load) for n in NODES for load in LOADS if n * load == active * 100]
