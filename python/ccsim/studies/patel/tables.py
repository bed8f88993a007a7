"""The patel study's tables: Table 2 per algorithm and bandwidth, Figures 5-7 summarized per run.

Also the sentences the figures' captions and the claims share (the means of
the cases at one bandwidth, where they differ significantly, their order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ccsim.studies import claims as cl
from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_of, bottleneck_queue
from ccsim.studies.core import CASE, StudyData, Table
from ccsim.studies.patel.setup import BANDWIDTH, BUFFER50, CASES, FWD, RATE, label, mbps, mbps_text, queue_limit
from ccsim.studies.tables import StudyTable
from ccsim.sweep.store import SweepResults


def _series_of(ts: pd.DataFrame, kind: str, entity: str, metric: str) -> pd.Series:
    sel = ts[(ts.entity_kind == kind) & (ts.entity == entity) & (ts.metric == metric)]
    return pd.Series(sel.value.to_numpy(dtype=float), index=sel.time_s.to_numpy(dtype=float))


def series_summary(res: SweepResults, limit_pkts: float) -> pd.DataFrame:
    """Per run, what Table 2 and the claims read off the time series (Figures 5-7).

    - `throughput_max_mbps`, `throughput_min_mbps`: the largest and smallest
      aggregate throughput of the forward flows over the sample intervals
      (the paper's Table 2 throughput max/min are read off Figure 5);
    - `queue_full_frac`: the fraction of the samples at which R1->R2 held
      `limit_pkts` packets waiting (Figure 7: "REM achieved queue length of
      two packets for a longer time");
    - `first_drop_s`, `first_drop_ratio`: the end of the first interval with a
      drop at R1->R2 and the forward throughput in it over the run's largest
      (Section 3.3: the point where the throughput's growth breaks "has a same
      ratio as compared to their maximum achieved throughput").
    """
    rows = []
    for rid in res.runs[res.runs.status == "ok"].run_id:
        ts = res.timeseries(rid)
        thr = _series_of(ts, "group", FWD, "throughput_bps")
        link = bottleneck_of(res, rid)
        qlen = _series_of(ts, "queue", link, "len_pkts")
        drops = _series_of(ts, "queue", link, "drops")
        dropped = drops[drops > 0]
        t0 = float(dropped.index[0]) if len(dropped) else np.nan
        peak = float(thr.max()) if len(thr) else np.nan
        rows.append(
            {
                "run_id": rid,
                "throughput_max_mbps": peak / 1e6,
                "throughput_min_mbps": float(thr.min()) / 1e6 if len(thr) else np.nan,
                "queue_full_frac": float((qlen >= limit_pkts).mean()) if len(qlen) else np.nan,
                "first_drop_s": t0,
                "first_drop_ratio": float(thr.get(t0, np.nan)) / peak if np.isfinite(t0) and peak > 0 else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("run_id")


def run_metrics(res: SweepResults, series: bool) -> pd.DataFrame:
    """One row per successful run: Table 2's quantities (and, with `series`, those read off the time series)."""
    df = base_runs(res)
    q, link = bottleneck_queue(res), bottleneck_link(res)
    fwd = res.flows[res.flows.group == FWD].groupby("run_id")
    df[BANDWIDTH] = df.run_id.map(link.rate_bps) / 1e6
    df["queue_max_pkts"] = df.run_id.map(q.max_len_pkts)
    df["queue_min_pkts"] = df.run_id.map(q.min_len_pkts)
    df["queue_avg_pkts"] = df.run_id.map(q.avg_len_pkts)
    if series:
        ser = series_summary(res, queue_limit())
        for col in ser.columns:
            df[col] = df.run_id.map(ser[col])
    df["goodput_mbps"] = df.run_id.map(fwd.goodput_bps.sum()) / 1e6
    df["delay_max_ms"] = df.run_id.map(fwd.delay_max_s.max()) * 1e3
    df["delay_min_ms"] = df.run_id.map(fwd.delay_min_s.min()) * 1e3
    df["delay_mean_ms"] = df.run_id.map(fwd.delay_mean_s.mean()) * 1e3
    df["sent_packets"] = df.run_id.map(q.arrivals)
    df["lost_packets"] = df.run_id.map(q.drops)
    df["early_drops"] = df.run_id.map(q.early_drops)
    df["loss_ratio"] = df.run_id.map(q.loss_rate)
    df["utilization"] = df.run_id.map(link.utilization)
    # rows in bandwidth order, then the paper's order of the algorithms (the tables keep this order)
    order = {c: i for i, c in enumerate(CASES)}
    return df.assign(_c=df[CASE].map(order)).sort_values([BANDWIDTH, "_c", "run_id"]).drop(columns="_c")


TABLE2_METRICS = {
    "queue_max_pkts": "queue max (pkts)",
    "queue_min_pkts": "queue min (pkts)",
    "queue_avg_pkts": "queue avg (pkts)",
    "throughput_max_mbps": "throughput max (Mbps)",
    "throughput_min_mbps": "throughput min (Mbps)",
    "goodput_mbps": "goodput (Mbps)",
    "delay_max_ms": "delay max (ms)",
    "delay_min_ms": "delay min (ms)",
    "delay_mean_ms": "delay mean (ms)",
    "sent_packets": "sent (pkts)",
    "lost_packets": "lost (pkts)",
    "early_drops": "early drops (pkts)",
    "loss_ratio": "loss ratio",
    "utilization": "utilization",
}
RANKED = ("delay_mean_ms", "delay_max_ms", "queue_avg_pkts", "utilization", "goodput_mbps", "loss_ratio")


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Table 2 (per algorithm and bandwidth) with the ranking of Table 3; Figures 5-7 summarized per run;
    Table 2 again with a 50-packet buffer (the sensitivity part)."""
    df = run_metrics(data.main, series=True)
    table2 = Table(
        "table2",
        "Table 2: RED, SFQ and REM on R1->R2, 2-packet buffer (forward flows; sent/lost = packets offered to/"
        "dropped by R1->R2, early drops = dropped by the AQM before the buffer was full)",
        TABLE2_METRICS,
        rank=RANKED,
    )
    series = Table(
        "fig5_7",
        "Figures 5-7 per run: time at a full buffer, the first drop and the throughput then",
        {
            "queue_full_frac": "samples at a full buffer",
            "first_drop_s": "first drop (s)",
            "first_drop_ratio": "throughput at first drop / max",
        },
        rank=("queue_full_frac",),
        higher={"queue_full_frac": False},
    )
    out = [(table2, df), (series, df)]
    if BUFFER50 in data.parts:
        big = run_metrics(data[BUFFER50], series=False)
        metrics = {k: v for k, v in TABLE2_METRICS.items() if not k.startswith("throughput_")}
        sens = Table(
            "table2_buffer50",
            "Sensitivity: Table 2 with ns-2's default buffer of 50 packets and the AQMs' ns-2 defaults",
            metrics,
            rank=RANKED,
            part=BUFFER50,
        )
        out.append((sens, big))
    return out


def point(t: StudyTable, metric: str, rate: str) -> dict[str, tuple[float, float]]:
    """case -> (mean, half-width) of a metric at one bandwidth."""
    out = {}
    for c in CASES:
        try:
            s = t.stat(metric, c, **{RATE: rate})
        except KeyError:
            continue
        out[c] = (float(s["mean"]), float(s["half_width"]))
    return out


def means_text(t: StudyTable, metric: str, rate: str, scale: float = 1.0, unit: str = "") -> str:
    return ", ".join(f"{label(c)} {cl.ci(m, h, scale, unit)}" for c, (m, h) in point(t, metric, rate).items())


def differ_text(t: StudyTable, metric: str, rates: Sequence[str] | None = None) -> str:
    """Where the algorithms differ significantly on a ranked metric (ranks from Welch tests, Holm-corrected)."""
    ranking = t.comparisons[metric].ranking
    points = []
    for rate in sorted(set(ranking[RATE]), key=mbps):
        if rates is not None and rate not in rates:
            continue
        r = ranking[ranking[RATE] == rate].sort_values("order")
        if int(r["rank"].max()) > 1:
            points.append(f"{mbps_text(rate)} (best: {', '.join(label(str(c)) for c in r[r['rank'] == 1].case)})")
    where = "at any bandwidth" if rates is None else f"at {', '.join(mbps_text(r) for r in rates)}"
    if not points:
        return f"No two algorithms differ significantly {where} (Welch, Holm, alpha 0.05)."
    return f"Significant differences (Welch, Holm, alpha 0.05) at {'; '.join(points)}."


def order_text(t: StudyTable, metric: str, rate: str) -> str:
    """`REM 1.2 ± 0.1 (rank 1), ...` best first, at one bandwidth (rank = 1 + cases significantly better)."""
    scale, unit = (100, "%") if metric in ("utilization", "loss_ratio") else (1, "")
    return ", ".join(
        f"{label(str(r.case))} {cl.ci(float(r['mean']), (float(r.ci_high) - float(r.ci_low)) / 2, scale, unit)}"
        f" (rank {int(r['rank'])})"
        for _, r in cl.best(t, metric, **{RATE: rate}).iterrows()
    )
