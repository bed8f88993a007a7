"""Per-run quantities the studies share: the successful runs, the bottleneck's queue and link rows, each run's
set-up (its flow groups, its access links and round-trip propagation delay).

The bottleneck is the link the engine reports as such in each run (the summary's `bottleneck_link`:
a dumbbell's `topology.bottleneck`), never a name written here; a run's set-up is what the engine resolved
(its results' `components` and tables), never its stored scenario or a unit string parsed here.
"""

from __future__ import annotations

from typing import Any

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


def flow_groups(res: SweepResults, run_id: str) -> dict[str, dict[str, Any]]:
    """Run `run_id`'s flow groups by name, as the engine configured them (the run's `components`).

    Each group's application and transport keys (its `config`: times in s, rates in bit/s, sizes in bytes)
    with its `count`, `start` and `stop` (s) beside them, so that a study reads a run's set-up from its
    results and never parses the stored scenario or a unit.
    """
    groups = {}
    for g in res.components(run_id)["flow_groups"]:
        groups[str(g["group"])] = {
            **g["config"],
            "app": g["app"],
            "count": g["count"],
            "start": g["start"],
            "stop": g["stop"],
        }
    return groups


def access_links(res: SweepResults, run_id: str) -> tuple[pd.Series, pd.Series]:
    """The rows (of the `links` table) of the link out of the source of run `run_id`'s first flow and of the link
    into its destination: a dumbbell's access links of that flow."""
    flow = res.flows[res.flows.run_id == run_id].iloc[0]
    links = res.links[res.links.run_id == run_id]
    first = links[links.link.str.startswith(f"{flow.src}->")].iloc[0]
    last = links[links.link.str.endswith(f"->{flow.dst}")].iloc[0]
    return first, last


def path_rtt_s(res: SweepResults, run_id: str) -> float:
    """The round-trip propagation delay (s) of the run's first flow on a dumbbell: twice the delays of its access
    links and of the run's bottleneck (`access_links`, `bottleneck_of`)."""
    first, last = access_links(res, run_id)
    links = res.links[res.links.run_id == run_id].set_index("link")
    return float(2 * (first.delay_s + last.delay_s + links.delay_s[bottleneck_of(res, run_id)]))
