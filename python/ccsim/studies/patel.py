"""The patel study (docs/studies/patel-red-sfq-rem.md): its tables, figures and the paper's claims.

Patel et al. compare RED, SFQ and REM on one bottleneck with a 4 KB buffer of
2 KB packets (two packets), two-way FTP traffic, 100 s. Table 2 and
Figures 5-7 are at 5 Mbps (Sections 3.1 and 3.3; `PAPER_RATE`), Figure 4
sweeps the bottleneck bandwidth. Every number below comes from the stored
runs; the paper's values appear only in the claims' wording.
"""

from __future__ import annotations

import itertools
import tomllib
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccsim import stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies import claims as cl
from ccsim.studies import figures as fg
from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_queue
from ccsim.studies.core import BOTTLENECK, CASE, Part, Study, StudyData, Table
from ccsim.studies.tables import StudyTable, StudyTables, compute
from ccsim.sweep.store import SweepResults

RATE = "topology.bottleneck.rate"
"""The grid parameter: the bottleneck (R1R2) bandwidth, a string such as "5Mbps"."""
PAPER_RATE = "5Mbps"
"""The bandwidth of the paper's Table 2, Table 3 and Figures 5-7 (Sections 3.1 and 3.3; Table 1 says 10 Mbps)."""
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
        qlen = _series_of(ts, "queue", BOTTLENECK, "len_pkts")
        drops = _series_of(ts, "queue", BOTTLENECK, "drops")
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


def queue_limit() -> float:
    """The R1->R2 buffer in packets of the study's base scenario (`limit` of the bottleneck queue)."""
    base = tomllib.loads((STUDY.folder() / "base.toml").read_text(encoding="utf-8"))
    return float(base["topology"]["bottleneck"]["queue"]["limit"])


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


# ---------------------------------------------------------------- figures


def _label(case: str) -> str:
    return LABELS.get(case, case)


def _curves(res: SweepResults, kind: str, entity: str, metric: str, rate: str) -> dict[str, pd.DataFrame]:
    present = [c for c in CASES if c in set(res.runs[CASE])]
    return {c: fg.series(res, fg.point_runs(res, c, **{RATE: rate}), kind, entity, metric) for c in present}


def panels(
    curves: dict[str, pd.DataFrame],
    y: fg.Y,
    *,
    out: Path,
    name: str,
    title: str,
    pdf: bool,
    note: str,
    ymin: float | None = None,
) -> Plot | None:
    """One panel per algorithm, stacked as the paper's (a), (b), (c): the mean over replicates and its 95% band."""
    curves = {k: v for k, v in curves.items() if not v.empty}
    if not curves:
        return None
    reps = min(int(v["n"].min()) for v in curves.values())
    with style.house_style():
        fig = Figure(figsize=(style.WIDTH_IN, 0.9 + 1.05 * len(curves)), layout="constrained")
        axes = fig.subplots(len(curves), 1, sharex=True, sharey=True, squeeze=False)[:, 0]
        for i, (ax, (case, g)) in enumerate(zip(axes, curves.items(), strict=True)):
            lk = style.look(case)
            ax.plot(g["time_s"], g["mean"] * y.scale, color=lk.color, lw=0.8)
            if reps > 1:
                ax.fill_between(
                    g["time_s"], g["ci_low"] * y.scale, g["ci_high"] * y.scale, color=lk.color, alpha=0.25, lw=0
                )
            ax.set_title(f"({chr(ord('a') + i)}) {_label(case)}", loc="left")
            ax.set_ylabel(y.label)
            if ymin is not None:
                ax.set_ylim(bottom=ymin)
        axes[-1].set_xlabel("time (s)")
        fig.suptitle(title, x=0.02, ha="left")
        paths = style.save(fig, out / name, pdf)
    band = f"mean of {reps} replicates with 95% confidence bands (Student t)" if reps > 1 else "one run"
    return Plot(name, title, f"Sampled every interval; {band}. {note}".strip(), paths)


def _point(t: StudyTable, metric: str, rate: str) -> dict[str, tuple[float, float]]:
    """case -> (mean, half-width) of a metric at one bandwidth."""
    out = {}
    for c in CASES:
        try:
            s = t.stat(metric, c, **{RATE: rate})
        except KeyError:
            continue
        out[c] = (float(s["mean"]), float(s["half_width"]))
    return out


def _means_text(t: StudyTable, metric: str, rate: str, scale: float = 1.0, unit: str = "") -> str:
    return ", ".join(f"{_label(c)} {cl.ci(m, h, scale, unit)}" for c, (m, h) in _point(t, metric, rate).items())


def _differ_text(t: StudyTable, metric: str, rates: Sequence[str] | None = None) -> str:
    """Where the algorithms differ significantly on a ranked metric (ranks from Welch tests, Holm-corrected)."""
    ranking = t.comparisons[metric].ranking
    points = []
    for rate in sorted(set(ranking[RATE]), key=mbps):
        if rates is not None and rate not in rates:
            continue
        r = ranking[ranking[RATE] == rate].sort_values("order")
        if int(r["rank"].max()) > 1:
            points.append(f"{_mbps_text(rate)} (best: {', '.join(_label(str(c)) for c in r[r['rank'] == 1].case)})")
    where = "at any bandwidth" if rates is None else f"at {', '.join(_mbps_text(r) for r in rates)}"
    if not points:
        return f"No two algorithms differ significantly {where} (Welch, Holm, alpha 0.05)."
    return f"Significant differences (Welch, Holm, alpha 0.05) at {'; '.join(points)}."


def figures(data: StudyData, out: Path, pdf: bool) -> list[Plot]:
    """Figure 4 (loss against bandwidth), utilization against bandwidth, Figures 5-7 (time series at 5 Mbps)."""
    res = data.main
    computed = compute(STUDY, data)  # the tables again, for the captions' numbers
    t, st = computed.get("table2"), computed.get("fig5_7")
    rows = t.rows
    rates = sorted(set(rows[RATE]), key=mbps)
    rate = PAPER_RATE if PAPER_RATE in rates else rates[0]
    lo, hi = rates[0], rates[-1]
    plots: list[Plot | None] = []
    loss = {r: _point(t, "loss_ratio", r) for r in (lo, hi)}
    trend = "; ".join(
        f"{_label(c)} {100 * loss[lo][c][0]:.2f}% at {_mbps_text(lo)}, {100 * loss[hi][c][0]:.2f}% at {_mbps_text(hi)}"
        for c in CASES
        if c in loss[lo] and c in loss[hi]
    )
    plots.append(
        fg.line_ci(
            rows,
            BANDWIDTH,
            fg.Y("loss_ratio", "loss ratio at R1->R2 (%)", 100),
            out=out,
            name="fig4_loss_vs_bandwidth",
            title="Fig. 4: loss rate against bandwidth",
            xlabel="bottleneck bandwidth (Mbps)",
            pdf=pdf,
            cases=CASES,
            labels=LABELS,
            note=f"Packets dropped / offered at R1->R2 (data and the reverse flows' ACKs). {trend}. "
            + _differ_text(t, "loss_ratio"),
        )
    )
    plots.append(
        fg.line_ci(
            rows,
            BANDWIDTH,
            fg.Y("utilization", "utilization of R1->R2 (%)", 100),
            out=out,
            name="table2_utilization_vs_bandwidth",
            title="Table 2's utilization against bandwidth",
            xlabel="bottleneck bandwidth (Mbps)",
            pdf=pdf,
            cases=CASES,
            labels=LABELS,
            note=f"Busy time of R1->R2 over the run. At {_mbps_text(rate)}: "
            f"{_means_text(t, 'utilization', rate, 100, '%')}. " + _differ_text(t, "utilization"),
        )
    )
    at = f"({_mbps_text(rate)})"
    plots.append(
        panels(
            _curves(res, "group", FWD, "throughput_bps", rate),
            fg.Y("throughput_bps", "Mbps", 1e-6),
            out=out,
            name="fig5_throughput_time",
            title=f"Fig. 5: forward throughput {at}",
            pdf=pdf,
            note="Data received by the five sinks per interval (all forward flows together). "
            f"Run means of their goodput: {_means_text(t, 'goodput_mbps', rate, 1, 'Mbps')}. "
            + _differ_text(t, "goodput_mbps", [rate]),
            ymin=0,
        )
    )
    plots.append(
        panels(
            _curves(res, "group", FWD, "delay_s", rate),
            fg.Y("delay_s", "ms", 1e3),
            out=out,
            name="fig6_delay_time",
            title=f"Fig. 6: forward one-way delay {at}",
            pdf=pdf,
            note="Mean one-way delay of the data packets received in each interval (the propagation alone is "
            f"60 ms). Run means: {_means_text(t, 'delay_mean_ms', rate, 1, 'ms')}; "
            f"largest single delay: {_means_text(t, 'delay_max_ms', rate, 1, 'ms')}. "
            + _differ_text(t, "delay_mean_ms", [rate]),
        )
    )
    plots.append(
        panels(
            _curves(res, "queue", BOTTLENECK, "len_pkts", rate),
            fg.Y("len_pkts", "packets", 1),
            out=out,
            name="fig7_queue_time",
            title=f"Fig. 7: queue at R1->R2 {at}",
            pdf=pdf,
            note="Packets waiting at each sample instant (the buffer holds 2). Time-averaged queue: "
            f"{_means_text(t, 'queue_avg_pkts', rate, 1, 'pkts')}; fraction of samples at a full buffer: "
            f"{_means_text(st, 'queue_full_frac', rate)}. " + _differ_text(t, "queue_avg_pkts", [rate]),
            ymin=0,
        )
    )
    if "table2_buffer50" in {x.table.name for x in computed.tables}:
        plots += _buffer50_figures(computed.get("table2_buffer50"), out, pdf, rate)
    return [p for p in plots if p is not None]


def _buffer50_figures(t: StudyTable, out: Path, pdf: bool, rate: str) -> list[Plot | None]:
    """The sensitivity part: loss and utilization against bandwidth with a 50-packet buffer."""
    early = ", ".join(f"{_label(c)} {m:.0f}" for c, (m, _) in _point(t, "early_drops", rate).items())
    common = {"xlabel": "bottleneck bandwidth (Mbps)", "pdf": pdf, "cases": CASES, "labels": LABELS, "out": out}
    return [
        fg.line_ci(
            t.rows,
            BANDWIDTH,
            fg.Y("loss_ratio", "loss ratio at R1->R2 (%)", 100),
            name="buffer50_loss_vs_bandwidth",
            title="Sensitivity: Fig. 4 with a 50-packet buffer",
            note=f"ns-2's default buffer and AQM parameters, where RED and REM can act (early drops per run at "
            f"{_mbps_text(rate)}: {early}). At {_mbps_text(rate)}: {_means_text(t, 'loss_ratio', rate, 100, '%')}. "
            + _differ_text(t, "loss_ratio"),
            **common,
        ),
        fg.line_ci(
            t.rows,
            BANDWIDTH,
            fg.Y("utilization", "utilization of R1->R2 (%)", 100),
            name="buffer50_utilization_vs_bandwidth",
            title="Sensitivity: utilization with a 50-packet buffer",
            note=f"At {_mbps_text(rate)}: {_means_text(t, 'utilization', rate, 100, '%')}. "
            + _differ_text(t, "utilization"),
            **common,
        ),
    ]


# ---------------------------------------------------------------- claims

ALSO_RATE = "10Mbps"
"""Table 1's bandwidth of R1R2: the rankings are also given there (the paper's text puts Table 2 at 5 Mbps)."""


def _mbps_text(rate: str) -> str:
    return f"{mbps(rate):g} Mbps"


def _significant(p: float) -> bool:
    return bool(np.isfinite(p) and p < cl.ALPHA)


def _order_text(t: StudyTable, metric: str, rate: str) -> str:
    """`REM 1.2 ± 0.1 (rank 1), ...` best first, at one bandwidth (rank = 1 + cases significantly better)."""
    scale, unit = (100, "%") if metric in ("utilization", "loss_ratio") else (1, "")
    return ", ".join(
        f"{_label(str(r.case))} {cl.ci(float(r['mean']), (float(r.ci_high) - float(r.ci_low)) / 2, scale, unit)}"
        f" (rank {int(r['rank'])})"
        for _, r in cl.best(t, metric, **{RATE: rate}).iterrows()
    )


def _order_verdict(
    t: StudyTable, metric: str, paper: Sequence[str], rate: str
) -> tuple[str, list[cl.Pair], list[float], list[bool]]:
    """The verdict on the paper's order `paper` (best first): every pair compared, Holm-adjusted (`claims.judge`)."""
    point = {RATE: rate}
    higher = t.comparisons[metric].higher_is_better
    pairs = [cl.pair(t, metric, a, b, **point) for i, a in enumerate(paper) for b in paper[i + 1 :]]
    adjusted = cl.holm_all(pairs)
    agree = [p.a_higher == higher for p in pairs]
    sig = [_significant(a) for a in adjusted]
    return cl.judge(agree, sig), pairs, adjusted, agree


def _order_claim(
    t: StudyTable,
    claim: str,
    metric: str,
    *,
    paper: Sequence[str],
    rate: str,
    what: str,
    alt: StudyTable | None = None,
) -> cl.Claim:
    """The paper ranks `paper` best first on `metric` at `rate` (`_order_verdict`).

    The order at Table 1's 10 Mbps, and the order and verdict with a 50-packet buffer (`alt`, the
    sensitivity part), are added to the finding; the verdict is the paper's set-up's.
    """
    verdict, pairs, adjusted, agree = _order_verdict(t, metric, paper, rate)
    finding = f"{_mbps_text(rate)}, {what}, best first: {_order_text(t, metric, rate)}"
    if ALSO_RATE in set(t.rows[RATE]) and rate != ALSO_RATE:
        r = cl.best(t, metric, **{RATE: ALSO_RATE})
        order = ", ".join(_label(str(c)) for c in r.case)
        ranks = ", ".join(str(int(k)) for k in r["rank"])
        finding += f". At {_mbps_text(ALSO_RATE)} (Table 1): {order} (ranks {ranks})"
    if alt is not None and metric in alt.comparisons and rate in set(alt.rows[RATE]):
        alt_verdict = _order_verdict(alt, metric, paper, rate)[0]
        finding += f". With a 50-packet buffer: {_order_text(alt, metric, rate)}; agrees? {alt_verdict}"
    tests = "; ".join(
        f"{_label(p.a)} vs {_label(p.b)}: {'' if g else 'reversed, '}{cl.p_text(a, adjusted=True)}"
        for p, g, a in zip(pairs, agree, adjusted, strict=True)
    )
    return cl.Claim(claim, finding, verdict, tests)


def _ranking_claims(t: StudyTable, rate: str, alt: StudyTable | None) -> list[cl.Claim]:
    """Section 3.3's throughput claim, Table 3 column by column, Section 3.4's maximum delay."""
    out = [
        _order_claim(
            t,
            "REM has the best throughput and RED the least at 5 Mbps (Section 3.3; Table 2: utilization "
            "78.58% REM, 68.08% SFQ, 59.45% RED)",
            "goodput_mbps",
            paper=("rem", "sfq", "red"),
            rate=rate,
            what="goodput of the forward flows (Mbps)",
            alt=alt,
        )
    ]
    what = {
        "delay_mean_ms": "mean one-way delay of the forward packets (ms)",
        "queue_avg_pkts": "time-averaged queue at R1->R2 (pkts)",
        "utilization": "utilization of R1->R2",
        "loss_ratio": "loss ratio at R1->R2",
    }
    for metric, (column, order) in PAPER_TABLE3.items():
        letters = ", ".join(f"{_label(x)} {'ABC'[i]}" for i, x in enumerate(order))
        extra = " (conclusion: SFQ has the minimum loss ratio, RED the maximum)" if metric == "loss_ratio" else ""
        extra = " (conclusion: RED achieves the best delay)" if metric == "delay_mean_ms" else extra
        claim = f"Table 3, {column}: {letters}{extra}"
        out.append(_order_claim(t, claim, metric, paper=order, rate=rate, what=what[metric], alt=alt))
    out.append(
        _order_claim(
            t,
            "The maximum delay is reached with REM, the least with RED (Section 3.4; Table 2: 92.96, 90.01, 67.25 ms)",
            "delay_max_ms",
            paper=("red", "sfq", "rem"),
            rate=rate,
            what="largest one-way delay of a forward packet (ms)",
            alt=alt,
        )
    )
    return out


def _overall(t: StudyTable, rate: str) -> tuple[dict[str, float], dict[str, float], bool, bool]:
    """Mean position and mean significance rank over Table 3's columns; whether REM leads on each."""
    positions: dict[str, list[int]] = {c: [] for c in CASES}
    sig_ranks: dict[str, list[int]] = {c: [] for c in CASES}
    for metric in PAPER_TABLE3:
        for i, row in enumerate(cl.best(t, metric, **{RATE: rate}).itertuples()):
            positions[str(row.case)].append(i + 1)
            sig_ranks[str(row.case)].append(int(row.rank))
    mean_pos = {k: float(np.mean(v)) for k, v in positions.items() if v}
    mean_sig = {k: float(np.mean(v)) for k, v in sig_ranks.items() if v}
    holds = all(v > mean_pos["rem"] for k, v in mean_pos.items() if k != "rem")
    ahead = all(v > mean_sig["rem"] for k, v in mean_sig.items() if k != "rem")
    return mean_pos, mean_sig, holds, ahead


def _overall_claim(t: StudyTable, rate: str, alt: StudyTable | None) -> cl.Claim:
    """Conclusion: with equal weight to each parameter, REM is the best of the three."""
    mean_pos, mean_sig, holds, ahead = _overall(t, rate)
    finding = (
        f"{_mbps_text(rate)}, mean position over Table 3's four columns (1 best): "
        + ", ".join(f"{_label(k)} {v:.2f}" for k, v in mean_pos.items())
        + "; mean significance rank (1 + cases significantly better): "
        + ", ".join(f"{_label(k)} {v:.2f}" for k, v in mean_sig.items())
    )
    if alt is not None and rate in set(alt.rows[RATE]):
        pos2, sig2, holds2, ahead2 = _overall(alt, rate)
        finding += (
            ". With a 50-packet buffer: positions "
            + ", ".join(f"{_label(k)} {v:.2f}" for k, v in pos2.items())
            + ", significance ranks "
            + ", ".join(f"{_label(k)} {v:.2f}" for k, v in sig2.items())
            + f"; agrees? {cl.verdict(holds2, ahead2)}"
        )
    return cl.Claim(
        "With equal weight to delay, queue length, throughput and loss, REM is the best of the three "
        "(conclusion; Table 3)",
        finding,
        cl.verdict(holds, ahead),
        "yes (REM has the lowest mean significance rank)"
        if ahead
        else "no (REM's mean significance rank is not the lowest)",
    )


def _setup_claims(t: StudyTable, st: StudyTable, rates: Sequence[str], rate: str) -> list[cl.Claim]:
    """Section 3.4's equal minimum delay, Table 2's queue bounds, Figure 7's time at two packets."""
    spreads = []
    for r in rates:
        mins = [float(t.stat("delay_min_ms", c, **{RATE: r})["mean"]) for c in CASES]
        spreads.append((r, min(mins), max(mins)))
    worst = max(hi - lo for _, lo, hi in spreads)
    limit = queue_limit()
    qmax, qmin = float(t.rows.queue_max_pkts.max()), float(t.rows.queue_min_pkts.min())
    pairs = [cl.pair(st, "queue_full_frac", "rem", b, **{RATE: rate}) for b in ("red", "sfq")]
    adj = cl.holm_all(pairs)
    return [
        cl.Claim(
            "The minimum delay is the same for every algorithm (Section 3.4; Table 2: 60.03 ms each)",
            "smallest one-way delay of a forward packet: "
            + ", ".join(f"{_mbps_text(r)} {lo:.2f}-{hi:.2f} ms" for r, lo, hi in spreads)
            + " over the algorithms (60 ms propagation + a 2000-byte packet's transmission on the three links)",
            cl.AGREES if worst < 0.01 else cl.DISAGREES,
            f"- (deterministic: the largest spread between the algorithms is {worst:.4f} ms)",
        ),
        cl.Claim(
            "The queue length is at most 2 packets and at least 0 for every algorithm (Table 2; Section 3.5)",
            f"largest queue of any run {qmax:.0f}, smallest {qmin:.0f} packets (buffer: {limit:g} packets)",
            cl.AGREES if qmax == PAPER_BUFFER_PKTS and qmin == 0 else cl.DISAGREES,
            "- (fixed by the buffer)",
        ),
        cl.Claim(
            "REM holds the queue at two packets for a longer time than RED and SFQ (Section 3.5, Figure 7)",
            f"{_mbps_text(rate)}, fraction of the samples at a full buffer: {_means_text(st, 'queue_full_frac', rate)}",
            cl.verdict(all(p.a_higher for p in pairs), all(_significant(a) for a in adj)),
            "; ".join(f"REM vs {_label(p.b)}: {cl.p_text(a, adjusted=True)}" for p, a in zip(pairs, adj, strict=True)),
        ),
    ]


def _monotone(t: StudyTable, metric: str, case: str, rates: Sequence[str]) -> tuple[bool, list[float], list[float]]:
    """Whether the mean falls at every step of the bandwidth, the means, and the Holm-adjusted p of each step."""
    means = [float(t.stat(metric, case, **{RATE: r})["mean"]) for r in rates]
    ps = [
        stats.welch(cl.values(t.rows, metric, case, **{RATE: r0}), cl.values(t.rows, metric, case, **{RATE: r1})).p
        for r0, r1 in itertools.pairwise(rates)
    ]
    adjusted = [float(p) for p in stats.holm(ps)] if ps else []
    return all(b < a for a, b in itertools.pairwise(means)), means, adjusted


def _bandwidth_claims(t: StudyTable, rates: Sequence[str]) -> list[cl.Claim]:
    """Section 3.2 / Figure 4: RED's loss falls smoothly with the bandwidth; SFQ's breaks at 15 Mbps."""
    mono = {c: _monotone(t, "loss_ratio", c, rates) for c in CASES}
    red_ok, _, red_p = mono["red"]
    others_smooth = [c for c in ("sfq", "rem") if mono[c][0]]
    if red_ok and not others_smooth:
        verdict = cl.verdict(True, all(_significant(p) for p in red_p))
    else:
        verdict = cl.PARTLY if red_ok else cl.DISAGREES
    out = [
        cl.Claim(
            "RED's loss rate decreases smoothly as the bandwidth increases; SFQ's and REM's do not (Section 3.2, "
            "Figure 4)",
            f"mean loss ratio (%) from {_mbps_text(rates[0])} to {_mbps_text(rates[-1])}: "
            + "; ".join(f"{_label(c)} " + ", ".join(f"{100 * m:.2f}" for m in mono[c][1]) for c in CASES)
            + ". Falling at every step: "
            + ", ".join(f"{_label(c)} {'yes' if mono[c][0] else 'no'}" for c in CASES),
            verdict,
            "RED's steps significant (Welch, Holm over the steps): "
            + ", ".join("yes" if _significant(p) else "no" for p in red_p),
        )
    ]
    mid = "15Mbps"
    if mid in rates and 0 < rates.index(mid) < len(rates) - 1:
        i = rates.index(mid)
        nb = (rates[i - 1], rates[i + 1])
        x15 = cl.values(t.rows, "loss_ratio", "sfq", **{RATE: mid})
        adj = [
            float(p)
            for p in stats.holm([stats.welch(x15, cl.values(t.rows, "loss_ratio", "sfq", **{RATE: r})).p for r in nb])
        ]
        m = [float(t.stat("loss_ratio", "sfq", **{RATE: r})["mean"]) for r in (nb[0], mid, nb[1])]
        extreme = (m[1] > m[0] and m[1] > m[2]) or (m[1] < m[0] and m[1] < m[2])
        out.append(
            cl.Claim(
                "SFQ's loss rate changes drastically at 15 Mbps (Section 3.2, Figure 4)",
                f"SFQ's mean loss ratio {_mbps_text(nb[0])} {100 * m[0]:.3f}%, {_mbps_text(mid)} {100 * m[1]:.3f}%, "
                f"{_mbps_text(nb[1])} {100 * m[2]:.3f}%: "
                + ("a local extreme at 15 Mbps" if extreme else "no break at 15 Mbps (between its neighbours)"),
                cl.verdict(extreme, all(_significant(p) for p in adj)),
                "; ".join(
                    f"15 vs {mbps(r):g} Mbps: {cl.p_text(p, adjusted=True)}" for r, p in zip(nb, adj, strict=True)
                ),
            )
        )
    return out


def _first_drop_claim(st: StudyTable, rate: str) -> cl.Claim:
    """Section 3.3: the throughput at the first drop is the same fraction of the maximum for every algorithm."""
    point = {RATE: rate}
    pairs = [cl.pair(st, "first_drop_ratio", a, b, **point) for a, b in itertools.combinations(CASES, 2)]
    adj = cl.holm_all(pairs)
    differ = any(_significant(a) for a in adj)
    return cl.Claim(
        "The throughput where its growth first breaks (the first drop) is the same fraction of the maximum for "
        "each algorithm (Section 3.3)",
        f"{_mbps_text(rate)}, forward throughput in the sample interval of the first drop at R1->R2 over its largest "
        f"value: {_means_text(st, 'first_drop_ratio', rate)}; first drop in the interval ending at "
        f"{_means_text(st, 'first_drop_s', rate, 1, 's')}",
        cl.DISAGREES if differ else cl.AGREES,
        ("yes, some differ" if differ else "no pair differs significantly (equal within the test's power)")
        + f" (smallest Holm-adjusted Welch p = {min(adj):.2g})",
    )


def claims(data: StudyData, result: StudyTables) -> list[cl.Claim]:
    """The paper's claims (Sections 3.2-3.5, Tables 2-3, the conclusion) beside ccsim's findings."""
    t, st = result.get("table2"), result.get("fig5_7")
    alt = next((x for x in result.tables if x.table.part == BUFFER50), None)
    rates = sorted(set(t.rows[RATE]), key=mbps)
    rate = PAPER_RATE if PAPER_RATE in rates else rates[0]
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical; the means stand anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        return [
            *_ranking_claims(t, rate, alt),
            _overall_claim(t, rate, alt),
            *_setup_claims(t, st, rates, rate),
            *_bandwidth_claims(t, rates),
            _first_drop_claim(st, rate),
        ]


STUDY = Study(
    "patel-red-sfq-rem",
    "Patel et al.: RED vs SFQ vs REM, 2-packet buffer, bottleneck bandwidth swept (Tables 2-3, Figures 4-7)",
    "patel-red-sfq-rem-ns2.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(title="the paper's set-up: a 2-packet buffer"),
        Part(BUFFER50, "buffer50.toml", "buffer50_quick.toml", "sensitivity: a 50-packet buffer"),
    ),
    missing=(),
)
