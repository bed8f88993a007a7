"""The square part (Table 7.2, Figures 15-19): the fair share and the per-run, per-group measures."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_queue
from ccsim.studies.core import CASE
from ccsim.studies.mehta.reading import Setup, setup
from ccsim.studies.mehta.setup import CBR, OTHER, TCP_GROUP
from ccsim.sweep.store import SweepResults

PERIOD = "flows[2].period"


def fair_share_bps(s: Setup) -> float:
    """(C - c d) / n: the link less the CBR's mean rate, over the long-lived flows (Bansal et al. 4.3)."""
    cbr = s.group(CBR)
    n = sum(int(s.group(g)["count"]) for g in (TCP_GROUP, OTHER))
    return (s.link_bps - float(cbr["rate"]) * duty(cbr)) / n


def duty(cbr: dict[str, Any]) -> float:
    """The fraction of the time a CBR group sends: its `duty` on a square wave (as the engine resolved it), 1 on
    intervals or always."""
    return float(cbr["duty"]) if cbr.get("period") is not None else 1.0


def square_rows(res: SweepResults) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per run and group: throughput normalized by the fair share; per run: the link and the TCP/other ratio)."""
    runs = base_runs(res)
    runs["period_s"] = runs.run_id.map(lambda rid: float(setup(res, rid).group(CBR)["period"]))
    runs = runs.sort_values([CASE, "period_s"], kind="stable").reset_index(drop=True)
    q = bottleneck_queue(res)
    fair = {rid: fair_share_bps(setup(res, rid)) for rid in runs.run_id}
    f = res.flows[res.flows.group.isin([TCP_GROUP, OTHER])]
    # throughput: wire bytes of data at the receiver per flow over the metrics window, as the fair share counts
    per_group = f.groupby(["run_id", "group"], observed=True).throughput_bps.mean().rename("per_flow_bps")
    groups = runs[["run_id", CASE, PERIOD, "period_s"]].merge(per_group.reset_index(), on="run_id")
    groups["norm_throughput"] = groups.per_flow_bps / groups.run_id.map(fair)
    groups = groups.sort_values([CASE, "period_s", "group"], kind="stable").reset_index(drop=True)
    wide = groups.pivot_table(index="run_id", columns="group", values="norm_throughput")
    runs["utilization"] = runs.bottleneck_utilization
    runs["queue_loss_rate"] = runs.run_id.map(q.loss_rate)
    runs["tcp_norm"] = runs.run_id.map(wide[TCP_GROUP])
    runs["other_norm"] = runs.run_id.map(wide[OTHER])
    runs["tcp_to_other"] = runs.tcp_norm / runs.other_norm
    return groups, runs
