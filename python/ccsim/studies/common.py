"""Per-run quantities the studies share: the successful runs and the bottleneck's queue and link rows.

The bottleneck is the link the engine reports as such in each run (the summary's `bottleneck_link`:
a dumbbell's `topology.bottleneck`), never a name written here.
"""

from __future__ import annotations

import pandas as pd

from ccsim.studies.core import CASE
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


def bottlenecks(res: SweepResults) -> pd.Series:
    """Each run's bottleneck link ("r1->r2"), as the engine reported it, by run_id (successful runs)."""
    runs = res.runs[res.runs.status == "ok"]
    return runs.set_index("run_id")["bottleneck_link"]


def bottleneck_of(res: SweepResults, run_id: str | None = None) -> str:
    """The bottleneck link of run `run_id`, or (None) the one bottleneck of every successful run of the sweep."""
    links = bottlenecks(res)
    if run_id is not None:
        return str(links[run_id])
    names = sorted({str(n) for n in links})
    if len(names) != 1:
        raise ValueError(f"the runs of sweep {res.name!r} do not share one bottleneck link: {names}")
    return names[0]


def _on_bottleneck(res: SweepResults, table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a per-link table (queues, links) that are each run's bottleneck, indexed by run_id."""
    return table[table.link == table.run_id.map(bottlenecks(res))].set_index("run_id")


def bottleneck_queue(res: SweepResults) -> pd.DataFrame:
    """The bottleneck queue's row of every run."""
    return _on_bottleneck(res, res.queues)


def bottleneck_link(res: SweepResults) -> pd.DataFrame:
    """The bottleneck link's row of every run."""
    return _on_bottleneck(res, res.links)


def link_rate_bps(runs: pd.DataFrame, links: pd.DataFrame) -> pd.Series:
    """Each run's bottleneck rate (bit/s)."""
    return runs.run_id.map(links.rate_bps)
