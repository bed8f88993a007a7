"""Per-run quantities the studies share: the successful runs and the bottleneck's queue and link rows."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.core import BOTTLENECK, CASE
from ccsim.sweep.store import SweepResults


def base_runs(res: SweepResults) -> pd.DataFrame:
    """The successful runs with their case and grid parameters."""
    runs = res.runs[res.runs.status == "ok"]
    return runs[
        [
            "run_id",
            CASE,
            *res.parameters,
            "goodput_bps",
            "throughput_bps",
            "jain_index",
            "loss_rate",
            "bottleneck_utilization",
            "bottleneck_avg_queue_pkts",
        ]
    ].copy()


def bottleneck_queue(res: SweepResults, link: str = BOTTLENECK) -> pd.DataFrame:
    """The bottleneck queue's row of every run."""
    return res.queues[res.queues.link == link].set_index("run_id")


def bottleneck_link(res: SweepResults, link: str = BOTTLENECK) -> pd.DataFrame:
    """The bottleneck link's row of every run."""
    return res.links[res.links.link == link].set_index("run_id")


def link_rate_bps(runs: pd.DataFrame, links: pd.DataFrame) -> pd.Series:
    """Each run's bottleneck rate (bit/s)."""
    return runs.run_id.map(links.rate_bps)
