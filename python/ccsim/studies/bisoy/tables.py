"""The bisoy study's tables: metrics against the number of flows (Figures 2-7, 10) and the simulation length (8-9)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.bisoy.setup import LENGTH, TIME_PART, TIME_STEPS
from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_of, bottleneck_queue, link_rate_bps
from ccsim.studies.core import CASE, StudyData, Table
from ccsim.sweep.store import SweepResults

FLOW_METRICS = {
    "goodput_norm": "goodput / link capacity (packets)",
    "avg_queue_pkts": "avg queue (pkts)",
    "delay_ms": "one-way delay (ms)",
    "queue_delay_ms": "queueing delay (ms)",
    "loss_rate": "loss rate",
    "utilization": "utilization",
    "jain_index": "Jain's index",
    "forced_share": "forced drops / drops",
}
"""`forced_share` is not in the paper: the share of the bottleneck's drops that were not early (RED's average at or
above its forced threshold, REM/RED overflow, every DropTail drop); it explains NLRED's losses (docs)."""
TIME_METRICS = {
    "goodput_norm": "goodput / link capacity (packets)",
    "loss_rate": "loss rate (bottleneck drops / arrivals)",
}


def packet_factor(components: dict[str, Any]) -> float:
    """(mss + header) / mss of the first flow group, as the engine configured it (a run's `components`):
    delivered payload bytes -> packet bytes on the wire."""
    tcp = components["flow_groups"][0]["config"]
    mss = float(tcp["mss"])
    return (mss + float(tcp["header"])) / mss


def run_packet_factor(res: SweepResults, run_id: str) -> float:
    """`packet_factor` of run `run_id`."""
    return packet_factor(res.components(run_id))


def lengths(duration_s: float, steps: int = TIME_STEPS) -> list[float]:
    """The simulation lengths of Figures 8-9: `steps` equal steps up to the run's duration."""
    return [duration_s * k / steps for k in range(1, steps + 1)]


def cumulative(ts: pd.DataFrame, ends: Iterable[float], link: str, group: str | None = None) -> pd.DataFrame:
    """What a simulation of length T would report, for each T in `ends`, from one longer run's time series.

    Columns: `sim_time_s` (T), `goodput_bps` (the group's delivered payload
    over (0, T], x 8 / T), `drops`, `arrivals` and `loss_rate` (drops /
    arrivals of the queue of `link` over (0, T]). Each T must be a sampling
    time (the samples cover (t - interval, t]). `group` defaults to the only
    flow group.
    """
    groups = ts[ts.entity_kind == "group"]
    if group is None:
        names = sorted({str(e) for e in groups.entity})
        if len(names) != 1:
            raise ValueError(f"name the flow group: the run has {names}")
        group = names[0]
    good = groups[(groups.entity == group) & (groups.metric == "goodput_bps")].sort_values("time_s")
    t = good.time_s.to_numpy(dtype=float)
    if len(t) == 0:
        raise ValueError(f"no goodput_bps series for group {group!r}")
    bits = np.cumsum(good.value.to_numpy(dtype=float) * np.diff(np.concatenate([[0.0], t])))
    queue = ts[(ts.entity_kind == "queue") & (ts.entity == link)]
    counts = {}
    for metric in ("drops", "arrivals"):
        s = queue[queue.metric == metric].sort_values("time_s")
        if not np.array_equal(s.time_s.to_numpy(dtype=float), t):
            raise ValueError(f"the {link} queue's {metric} series is not sampled with the goodput")
        counts[metric] = np.cumsum(s.value.to_numpy(dtype=float))
    rows = []
    for end in ends:
        i = int(np.searchsorted(t, end - 1e-9))
        if i >= len(t) or abs(t[i] - end) > 1e-9:
            raise ValueError(f"T = {end} s is not a sampling time of the run")
        drops, arrivals = counts["drops"][i], counts["arrivals"][i]
        rows.append(
            {
                LENGTH: end,
                "goodput_bps": bits[i] / end,
                "drops": drops,
                "arrivals": arrivals,
                "loss_rate": drops / arrivals if arrivals else 0.0,
            }
        )
    return pd.DataFrame(rows)


def flow_rows(data: StudyData) -> pd.DataFrame:
    """One row per run of the main part with the metrics of Figures 2-7 and 10."""
    res = data.main
    df = base_runs(res)
    link = bottleneck_link(res)
    queue = bottleneck_queue(res)
    factor = {rid: run_packet_factor(res, rid) for rid in df.run_id}
    delay = res.flows.groupby("run_id").delay_mean_s.mean()
    df["goodput_norm"] = df.goodput_bps * df.run_id.map(factor) / link_rate_bps(df, link)
    df["avg_queue_pkts"] = df.bottleneck_avg_queue_pkts
    df["delay_ms"] = df.run_id.map(delay) * 1e3
    df["queue_delay_ms"] = df.run_id.map(queue.avg_sojourn_s) * 1e3
    df["utilization"] = df.bottleneck_utilization
    forced = queue.drops - queue.early_drops
    df["forced_share"] = df.run_id.map(forced / queue.drops.where(queue.drops > 0))
    return df


def time_rows(data: StudyData) -> pd.DataFrame:
    """One row per run of the time part and simulation length T (Figures 8-9)."""
    res = data[TIME_PART]
    runs = res.runs[res.runs.status == "ok"]
    link = bottleneck_link(res)
    frames = []
    for _, run in runs.iterrows():
        ts = res.timeseries(run.run_id)
        duration = float(ts.time_s.max())
        cut = cumulative(ts, lengths(duration), bottleneck_of(res, run.run_id))
        rate = float(link.rate_bps[run.run_id])
        cut["goodput_norm"] = cut.goodput_bps * run_packet_factor(res, run.run_id) / rate
        for col in ("run_id", CASE, *res.parameters):
            cut[col] = run[col]
        frames.append(cut)
    cols = ["run_id", CASE, *res.parameters, LENGTH, "goodput_norm", "loss_rate", "goodput_bps", "drops", "arrivals"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Figures 2-7 and 10 against the number of flows; Figures 8-9 against the simulation length."""
    flows = Table(
        "flows",
        "Figures 2-7 (and 10 for the max_p cases): metrics against the number of flows",
        FLOW_METRICS,
        rank=tuple(m for m in FLOW_METRICS if m != "forced_share"),
        higher={"utilization": True, "goodput_norm": True, "jain_index": True},
    )
    time = Table(
        "time",
        "Figures 8-9: goodput and loss rate of a simulation of length T (s)",
        TIME_METRICS,
        rank=tuple(TIME_METRICS),
        extra_by=(LENGTH,),
        part=TIME_PART,
        higher={"goodput_norm": True},
    )
    return [(flows, flow_rows(data)), (time, time_rows(data))]
