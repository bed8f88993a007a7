"""The ramachendra study (docs/studies/ramachendra-modred.md): RED, WRED, AVQ and ModRED under round robin.

The paper's configurations are (n nodes, load, queue size): n = 16, 32, 64;
load 25-100%, where "25% load means we have divided the number of nodes
with 4"; queues of 25, 100 and 250 packets. The sweep runs the number of
active saturated connections n x load (4 .. 64) and the queue size; the
tables report every configuration (n, load, queue) with the runs of its
connection count (`configurations`), so one run stands for every (n, load)
with the same product. Change NODES and LOADS (and the sweep's counts) for
another network.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ccsim.plots.run import Plot
from ccsim.studies import figures as fig
from ccsim.studies.claims import (
    ALPHA,
    UNTESTED,
    Claim,
    Pair,
    across,
    ci,
    direction_text,
    holm_all,
    judge,
    pair,
)
from ccsim.studies.common import base_runs, bottleneck_queue
from ccsim.studies.core import CASE, Study, StudyData, Table
from ccsim.studies.tables import StudyTable, StudyTables

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


def run_rows(data: StudyData) -> pd.DataFrame:
    """One row per run: the paper's eight metrics and the utilization."""
    res = data.main
    df = base_runs(res)
    q = bottleneck_queue(res)
    g = res.flows.groupby("run_id")
    df["packets_received"] = df.run_id.map(g.received_packets.sum())
    df["enqueued"] = df.run_id.map(q.enqueued)
    df["dequeued"] = df.run_id.map(q.dequeued)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["avg_time_in_queue_ms"] = df.run_id.map(q.avg_sojourn_s) * 1e3
    df["packets_sent"] = df.run_id.map(g.sent_packets.sum())
    df["jitter_ms"] = df.run_id.map(g.jitter_s.mean()) * 1e3
    df["throughput_mbps"] = df.throughput_bps / 1e6
    df["utilization"] = df.bottleneck_utilization
    df["active"] = df[ACTIVE].astype(int)
    df["queue_pkts"] = df[LIMIT].astype(int)
    return df


def config_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run once per (nodes, load) it stands for (a run of 16 connections is 16 at 100%, 32 at 50%, ...)."""
    frames = []
    for active, rows in runs.groupby("active"):
        for n, load in configurations(int(active)):
            frames.append(rows.assign(nodes=n, load_pct=load))
    if not frames:
        return runs.assign(nodes=pd.Series(dtype=int), load_pct=pd.Series(dtype=int)).iloc[0:0]
    return pd.concat(frames, ignore_index=True)


METRICS = {
    "packets_received": "received (pkts)",
    "enqueued": "enqueued (pkts)",
    "dequeued": "dequeued (pkts)",
    "queue_loss_rate": "loss rate",
    "avg_time_in_queue_ms": "avg time in queue (ms)",
    "packets_sent": "sent (pkts)",
    "jitter_ms": "jitter (ms)",
    "throughput_mbps": "throughput (Mbps)",
    "utilization": "utilization",
}


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """The paper's eight metrics per configuration (nodes, load, queue size), and per active connections."""
    runs = run_rows(data)
    by_config = Table(
        "configurations",
        "Per configuration (n nodes, load, queue size): packets received, enqueued, dequeued, loss rate, time in "
        "queue, sent, jitter, throughput (a run of k connections stands for every n x load = k)",
        METRICS,
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms", "jitter_ms"),
        extra_by=("nodes", "load_pct"),
    )
    by_active = Table(
        "metrics",
        "Per active connections and queue size (each run once): the same metrics",
        METRICS,
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms"),
    )
    return [(by_config, config_rows(runs)), (by_active, runs)]


# --- Figures ------------------------------------------------------------------------------------------------
LINE_FIGURES = (
    ("fig_throughput_vs_connections", fig.Y("throughput_mbps", "throughput (Mbps)"), True),
    ("fig_loss_vs_connections", fig.Y("queue_loss_rate", "loss rate (%)", 100.0), False),
    ("fig_time_in_queue_vs_connections", fig.Y("avg_time_in_queue_ms", "average time in queue (ms)"), False),
    ("fig_jitter_vs_connections", fig.Y("jitter_ms", "jitter (ms)"), False),
)


def _best_case(rows: pd.DataFrame, metric: str, high: bool) -> str:
    if rows.empty:
        return "-"
    means = rows.groupby(CASE)[metric].mean()
    return str(means.idxmax() if high else means.idxmin())


def _queue_point(runs: pd.DataFrame) -> int:
    """The connection count of the paper's loss example (64 nodes at 75%), or the largest run."""
    counts = sorted(runs.active.unique())
    return 48 if 48 in counts else int(counts[-1])


def figures(data: StudyData, out: Path, pdf: bool) -> list[Plot]:
    """Metrics against the active connections (queue of 100, the paper's baseline) and against the queue size."""
    runs = run_rows(data)
    limit = BASELINE_LIMIT if BASELINE_LIMIT in set(runs.queue_pkts) else int(runs.queue_pkts.max())
    base = runs[runs.queue_pkts == limit]
    plots: list[Plot | None] = []
    for name, y, high in LINE_FIGURES:
        counts = sorted(base.active.unique())
        at = [f"{c}: {_best_case(base[base.active == c], y.metric, high)}" for c in (counts[0], counts[-1])]
        note = (
            f"Queue of {limit} packets. Active connections = n nodes x load (16 = 16 nodes at 100% = 32 at 50% "
            f"= 64 at 25%). {'Highest' if high else 'Lowest'} mean at " + ", ".join(at) + "."
        )
        title = f"{y.label.split(' (')[0].capitalize()} vs connections, queue {limit}"
        plots.append(
            fig.line_ci(
                base,
                "active",
                y,
                out=out,
                name=name,
                title=title,
                xlabel="active connections",
                pdf=pdf,
                cases=AQMS,
                note=note,
            )
        )
    k = _queue_point(runs)
    at = runs[runs.active == k]
    configs = ", ".join(f"{n} nodes at {load}%" for n, load in configurations(k)) or f"{k} connections"
    for name, y in (
        ("fig_loss_vs_queue_size", fig.Y("queue_loss_rate", "loss rate (%)", 100.0)),
        ("fig_time_in_queue_vs_queue_size", fig.Y("avg_time_in_queue_ms", "average time in queue (ms)")),
    ):
        trend = []
        for aqm in AQMS:
            m = at[at[CASE] == aqm].groupby("queue_pkts")[y.metric].mean()
            if len(m) > 1:
                trend.append(f"{aqm} {m.iloc[0] * y.scale:.3g} -> {m.iloc[-1] * y.scale:.3g}")
        note = f"{k} active connections ({configs}). Smallest -> largest queue: " + "; ".join(trend) + "."
        plots.append(
            fig.bars_ci(
                at,
                "queue_pkts",
                y,
                out=out,
                name=name,
                title=f"{y.label.split(' (')[0].capitalize()} vs queue size",
                xlabel="queue size (packets)",
                pdf=pdf,
                cases=AQMS,
                note=note,
            )
        )
    return [p for p in plots if p is not None]


# --- Claims -------------------------------------------------------------------------------------------------
def _points(t: StudyTable) -> list[tuple[int, int]]:
    return sorted({(int(a), int(q)) for a, q in zip(t.rows.active, t.rows.queue_pkts, strict=True)})


def _beats(
    t: StudyTable,
    metric: str,
    *,
    high: bool,
    others: Sequence[str],
    points: Sequence[tuple[int, int]],
    unit: str,
    scale: float = 1.0,
    claim: str,
) -> Claim:
    """ModRED better than each of `others` on `metric` at every point (active, queue): Holm over all tests."""
    pairs: list[Pair] = []
    holds: list[bool] = []
    for active, limit in points:
        ps = [pair(t, metric, "modred", o, **{ACTIVE: active, LIMIT: limit}) for o in others]
        pairs += ps
        holds.append(all((p.mean_a > p.mean_b) if high else (p.mean_a < p.mean_b) for p in ps))
    if not pairs:
        return Claim(claim, "no runs at the claim's points", UNTESTED, "-")
    adj = holm_all(pairs)
    n = len(others)
    sig = [all(np.isfinite(p) and p < ALPHA for p in adj[i : i + n]) for i in range(0, len(adj), n)]

    # the points where ModRED is furthest behind and furthest ahead of the best other
    def gap(i: int) -> tuple[float, Pair]:
        ps = pairs[i * n : (i + 1) * n]
        best = max(ps, key=lambda p: p.mean_b) if high else min(ps, key=lambda p: p.mean_b)
        return ((best.mean_a - best.mean_b) if high else (best.mean_b - best.mean_a)), best

    gaps = [gap(i) for i in range(len(points))]
    worst_i = min(range(len(points)), key=lambda i: gaps[i][0])
    best_i = max(range(len(points)), key=lambda i: gaps[i][0])

    def where(i: int) -> str:
        a, q = points[i]
        p = gaps[i][1]
        return (
            f"{a} conn./queue {q}: modred {ci(p.mean_a, p.half_a, scale)} vs {p.b} {ci(p.mean_b, p.half_b, scale)}"
            f"{' ' + unit if unit else ''}"
        )

    finding = (
        f"modred {'above' if high else 'below'} all of {', '.join(others)} at {sum(holds)} of {len(points)} points "
        f"(active connections x queue size); worst {where(worst_i)}; best {where(best_i)}"
    )
    significance = direction_text(holds, sig, f"points ({len(pairs)} tests)")
    return Claim(claim, finding, judge(holds, sig), significance)


def _queue_trend(
    t: StudyTable,
    metric: str,
    *,
    up: bool,
    small: int,
    large: int,
    actives: Sequence[int],
    unit: str,
    scale: float = 1.0,
    claim: str,
) -> Claim:
    """Every AQM's metric higher (up) or lower with the large queue than with the small one, at each count."""
    pairs: list[Pair] = []
    labels: list[str] = []
    for active in actives:
        for aqm in AQMS:
            pairs.append(across(t, metric, aqm, {LIMIT: large, ACTIVE: active}, {LIMIT: small, ACTIVE: active}))
            labels.append(aqm)
    if not pairs:
        return Claim(claim, "no runs at the claim's points", UNTESTED, "-")
    adj = holm_all(pairs)
    holds = [(p.mean_a > p.mean_b) if up else (p.mean_a < p.mean_b) for p in pairs]
    sig = [bool(np.isfinite(p) and p < ALPHA) for p in adj]
    shown = actives[-1]
    detail = "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, scale)} -> {ci(p.mean_a, p.half_a, scale)}"
        for aqm, p in zip(labels[-len(AQMS) :], pairs[-len(AQMS) :], strict=True)
    )
    finding = (
        f"holds for {sum(holds)} of {len(pairs)} (AQM, connections) pairs; at {shown} connections, queue "
        f"{small} -> {large}: {detail}{' ' + unit if unit else ''}"
    )
    significance = direction_text(holds, sig, "(AQM, connections) pairs")
    return Claim(claim, finding, judge(holds, sig), significance)


def _loss_example(t: StudyTable) -> Claim:
    """The paper's example: loss 3.58% with 100 packets, 1.6% with 250, at 75% load of 64 nodes (48 conn.)."""
    claim = "Section 5: at 75% load of 64 nodes the loss rate is 3.58% with a queue of 100 packets, 1.6% with 250"
    points = _points(t)
    if (48, 100) not in points or (48, 250) not in points:
        return Claim(claim, "not run (48 connections, queues 100 and 250)", UNTESTED, "-")
    pairs = [across(t, "queue_loss_rate", aqm, {LIMIT: 250, ACTIVE: 48}, {LIMIT: 100, ACTIVE: 48}) for aqm in AQMS]
    adj = holm_all(pairs)
    holds = [p.mean_a < p.mean_b for p in pairs]
    sig = [bool(np.isfinite(p) and p < ALPHA) for p in adj]
    finding = "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, 100)}% -> {ci(p.mean_a, p.half_a, 100)}%"
        for aqm, p in zip(AQMS, pairs, strict=True)
    )
    significance = direction_text(holds, sig, "AQMs")
    return Claim(claim, finding + " (100 -> 250 packets)", judge(holds, sig), significance)


def _congestion(t: StudyTable) -> Claim:
    """'The larger the number of connections, the worse the congestion': loss at the most vs fewest connections."""
    points = _points(t)
    limits = sorted({q for _, q in points})
    limit = BASELINE_LIMIT if BASELINE_LIMIT in limits else limits[-1]
    actives = sorted(a for a, q in points if q == limit)
    claim = "Section 5: the more connections share the bottleneck, the worse the congestion (loss rate)"
    if len(actives) < 2:
        return Claim(claim, "one connection count only", UNTESTED, "-")
    lo, hi = actives[0], actives[-1]
    pairs = [across(t, "queue_loss_rate", aqm, {ACTIVE: hi, LIMIT: limit}, {ACTIVE: lo, LIMIT: limit}) for aqm in AQMS]
    adj = holm_all(pairs)
    holds = [p.mean_a > p.mean_b for p in pairs]
    sig = [bool(np.isfinite(p) and p < ALPHA) for p in adj]
    finding = f"queue {limit}, {lo} -> {hi} connections: " + "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, 100)}% -> {ci(p.mean_a, p.half_a, 100)}%"
        for aqm, p in zip(AQMS, pairs, strict=True)
    )
    significance = direction_text(holds, sig, "AQMs")
    return Claim(claim, finding, judge(holds, sig), significance)


def _load_points(points: Sequence[tuple[int, int]], loads: Sequence[int]) -> list[tuple[int, int]]:
    """The (active, queue) points that stand for some n at one of `loads`."""
    return [(a, q) for a, q in points if any(load in loads for _, load in configurations(a))]


def claims(data: StudyData, result: StudyTables) -> list[Claim]:
    """The paper's claims (abstract, sections 3 and 5, conclusion) against ccsim's runs."""
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical (a saturated link
        # carries 10 Mbps in every replicate); the tests stand anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _claims(result)


def _claims(result: StudyTables) -> list[Claim]:
    t = result.get("metrics")
    points = _points(t)
    others = [a for a in AQMS if a != "modred"]
    limits = sorted({q for _, q in points})
    actives = sorted({a for a, _ in points})
    out = [
        _beats(
            t,
            "throughput_mbps",
            high=True,
            others=others,
            points=points,
            unit="Mbps",
            claim="Abstract: ModRED achieves higher throughput (and link utilization) than RED, WRED and AVQ",
        ),
        _beats(
            t,
            "queue_loss_rate",
            high=False,
            others=others,
            points=points,
            unit="%",
            scale=100,
            claim="Abstract: ModRED has a lower loss rate than RED, WRED and AVQ",
        ),
        _beats(
            t,
            "avg_time_in_queue_ms",
            high=False,
            others=["red"],
            points=points,
            unit="ms",
            claim="Section 3 / conclusion: ModRED reduces the queueing delay (average time in queue) of RED",
        ),
        _beats(
            t,
            "jitter_ms",
            high=False,
            others=["red"],
            points=points,
            unit="ms",
            claim="Section 3: ModRED reduces the delay jitter of RED",
        ),
        _beats(
            t,
            "throughput_mbps",
            high=True,
            others=others,
            points=_load_points(points, (75, 100)),
            unit="Mbps",
            claim="Section 5: at 75% and 100% load ModRED improves significantly on the dropping AQMs (throughput)",
        ),
    ]
    if len(limits) > 1:
        out += [
            _queue_trend(
                t,
                "queue_loss_rate",
                up=False,
                small=limits[0],
                large=limits[-1],
                actives=actives,
                unit="%",
                scale=100,
                claim=f"Section 5: larger queues reduce the loss rate ({limits[0]} -> {limits[-1]} packets: "
                "0.36% -> 0.0% in the paper)",
            ),
            _queue_trend(
                t,
                "avg_time_in_queue_ms",
                up=True,
                small=limits[0],
                large=limits[-1],
                actives=actives,
                unit="ms",
                claim=f"Section 5: a large queue subjects flows to more queueing delay ({limits[0]} -> {limits[-1]})",
            ),
        ]
    out += [_loss_example(t), _congestion(t)]
    return out


STUDY = Study(
    "ramachendra-modred",
    "Ramachendra et al.: RED, WRED, AVQ, ModRED under round robin; n nodes x load x queue size",
    "ramachendra-modred-round-robin-qualnet.md",
    tables,
    figures=figures,
    claims=claims,
    missing=(
        "the wireless networks of the paper's Figures 5.1-5.5 (16-128 nodes; their layout and standard are not "
        "given): the study runs the text's wired bottleneck",
        "the 128-node network (Figure 5.5) is not in the text's n = 16, 32, 64",
    ),
)
