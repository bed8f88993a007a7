"""The patel study's set-up: its parts, cases and their names, the paper's constants."""

from __future__ import annotations

import tomllib

from ccsim.studies.core import studies_dir

NAME = "patel-red-sfq-rem"

RATE = "topology.bottleneck.rate"
"""The grid parameter: the bottleneck (R1R2) bandwidth, a string such as "5Mbps"."""
PAPER_RATE = "5Mbps"
"""The bandwidth of the paper's Table 2, Table 3 and Figures 5-7 (Sections 3.1 and 3.3; Table 1 says 10 Mbps)."""
ALSO_RATE = "10Mbps"
"""Table 1's bandwidth of R1R2: the rankings are also given there (the paper's text puts Table 2 at 5 Mbps)."""
BANDWIDTH = "bandwidth_mbps"
"""A numeric copy of RATE (from the link's rate) for the x axis of Figure 4."""
PAPER_BUFFER_PKTS = 2
"""The paper's buffer: 4 KB of 2 KB packets (Section 3.1; Table 2's queue length is at most 2)."""
CASES = ("red", "sfq", "rem")
LABELS = {"red": "RED", "sfq": "SFQ", "rem": "REM"}
BUFFER50 = "buffer50"
"""The sensitivity part: ns-2's default buffer (50 packets), where RED and REM have room to act."""
FWD = "fwd"
"""The forward flows (sources S1-S5 to sinks D1-D5, the direction of R1->R2)."""

# Table 3 of the paper: A (best) to C per column; the ccsim metric each column is read as.
PAPER_TABLE3: dict[str, tuple[str, tuple[str, ...]]] = {
    "delay_mean_ms": ("Delay", ("red", "sfq", "rem")),
    "queue_avg_pkts": ("Queue length", ("red", "sfq", "rem")),
    "utilization": ("Throughput", ("rem", "sfq", "red")),
    "loss_ratio": ("Loss rate", ("sfq", "rem", "red")),
}


def mbps(rate: str) -> float:
    """'5Mbps' -> 5.0 (the grid's rates are written in Mbps)."""
    return float(rate.removesuffix("Mbps"))


def label(case: str) -> str:
    """An algorithm's name as the paper writes it."""
    return LABELS.get(case, case)


def mbps_text(rate: str) -> str:
    """'5Mbps' -> '5 Mbps'."""
    return f"{mbps(rate):g} Mbps"


def queue_limit() -> float:
    """The R1->R2 buffer in packets of the study's base scenario (`limit` of the bottleneck queue)."""
    base = tomllib.loads((studies_dir() / NAME / "base.toml").read_text(encoding="utf-8"))
    return float(base["topology"]["bottleneck"]["queue"]["limit"])
