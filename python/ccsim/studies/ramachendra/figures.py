"""The ramachendra study's figures: metrics against the active connections and against the queue size."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ccsim.plots.run import Plot
from ccsim.studies import figures as fig
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.ramachendra.setup import AQMS, BASELINE_LIMIT, configurations
from ccsim.studies.tables import StudyTables

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


def figures(data: StudyData, tables: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    """Metrics against the active connections (queue of 100, the paper's baseline) and against the queue size."""
    runs = tables.get("metrics").rows
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
