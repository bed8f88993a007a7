"""The patel study's figures: Figure 4, utilization against bandwidth, Figures 5-7, the sensitivity part."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies import figures as fg
from ccsim.studies.common import bottleneck_of
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.patel.setup import BANDWIDTH, CASES, FWD, LABELS, PAPER_RATE, RATE, label, mbps, mbps_text
from ccsim.studies.patel.tables import differ_text, means_text, point
from ccsim.studies.tables import StudyTable, StudyTables
from ccsim.sweep.store import SweepResults


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
    reps = fg.replicates(curves.values())
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
            ax.set_title(f"({chr(ord('a') + i)}) {label(case)}", loc="left")
            ax.set_ylabel(y.label)
            if ymin is not None:
                ax.set_ylim(bottom=ymin)
        axes[-1].set_xlabel("time (s)")
        fig.suptitle(title, x=0.02, ha="left")
        paths = style.save(fig, out / name, pdf)
    return Plot(name, title, f"Sampled every interval; {fg.band_text(reps)}. {note}".strip(), paths)


LOSS = fg.Y("loss_ratio", "loss ratio at R1->R2 (%)", 100)
UTILIZATION = fg.Y("utilization", "utilization of R1->R2 (%)", 100)


def _against_bandwidth(
    rows: pd.DataFrame, y: fg.Y, *, out: Path, pdf: bool, name: str, title: str, note: str
) -> Plot | None:
    """A metric against the bottleneck bandwidth, one line per algorithm with its 95% band (Figure 4's axes)."""
    return fg.line_ci(
        rows,
        BANDWIDTH,
        y,
        out=out,
        name=name,
        title=title,
        xlabel="bottleneck bandwidth (Mbps)",
        pdf=pdf,
        cases=CASES,
        labels=LABELS,
        note=note,
    )


def figures(data: StudyData, computed: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    """Figure 4 (loss against bandwidth), utilization against bandwidth, Figures 5-7 (time series at 5 Mbps)."""
    res = data.main
    t, st = computed.get("table2"), computed.get("fig5_7")
    rows = t.rows
    rates = sorted(set(rows[RATE]), key=mbps)
    rate = PAPER_RATE if PAPER_RATE in rates else rates[0]
    lo, hi = rates[0], rates[-1]
    plots: list[Plot | None] = []
    loss = {r: point(t, "loss_ratio", r) for r in (lo, hi)}
    trend = "; ".join(
        f"{label(c)} {100 * loss[lo][c][0]:.2f}% at {mbps_text(lo)}, {100 * loss[hi][c][0]:.2f}% at {mbps_text(hi)}"
        for c in CASES
        if c in loss[lo] and c in loss[hi]
    )
    plots.append(
        _against_bandwidth(
            rows,
            LOSS,
            out=out,
            pdf=pdf,
            name="fig4_loss_vs_bandwidth",
            title="Fig. 4: loss rate against bandwidth",
            note=f"Packets dropped / offered at R1->R2 (data and the reverse flows' ACKs). {trend}. "
            + differ_text(t, "loss_ratio"),
        )
    )
    plots.append(
        _against_bandwidth(
            rows,
            UTILIZATION,
            out=out,
            pdf=pdf,
            name="table2_utilization_vs_bandwidth",
            title="Table 2's utilization against bandwidth",
            note=f"Busy time of R1->R2 over the run. At {mbps_text(rate)}: "
            f"{means_text(t, 'utilization', rate, 100, '%')}. " + differ_text(t, "utilization"),
        )
    )
    at = f"({mbps_text(rate)})"
    plots.append(
        panels(
            _curves(res, "group", FWD, "throughput_bps", rate),
            fg.Y("throughput_bps", "Mbps", 1e-6),
            out=out,
            name="fig5_throughput_time",
            title=f"Fig. 5: forward throughput {at}",
            pdf=pdf,
            note="Data received by the five sinks per interval (all forward flows together). "
            f"Run means of their goodput: {means_text(t, 'goodput_mbps', rate, 1, 'Mbps')}. "
            + differ_text(t, "goodput_mbps", [rate]),
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
            f"60 ms). Run means: {means_text(t, 'delay_mean_ms', rate, 1, 'ms')}; "
            f"largest single delay: {means_text(t, 'delay_max_ms', rate, 1, 'ms')}. "
            + differ_text(t, "delay_mean_ms", [rate]),
        )
    )
    plots.append(
        panels(
            _curves(res, "queue", bottleneck_of(res), "len_pkts", rate),
            fg.Y("len_pkts", "packets", 1),
            out=out,
            name="fig7_queue_time",
            title=f"Fig. 7: queue at R1->R2 {at}",
            pdf=pdf,
            note="Packets waiting at each sample instant (the buffer holds 2). Time-averaged queue: "
            f"{means_text(t, 'queue_avg_pkts', rate, 1, 'pkts')}; fraction of samples at a full buffer: "
            f"{means_text(st, 'queue_full_frac', rate)}. " + differ_text(t, "queue_avg_pkts", [rate]),
            ymin=0,
        )
    )
    if "table2_buffer50" in {x.table.name for x in computed.tables}:
        plots += _buffer50_figures(computed.get("table2_buffer50"), out, pdf, rate)
    return [p for p in plots if p is not None]


def _buffer50_figures(t: StudyTable, out: Path, pdf: bool, rate: str) -> list[Plot | None]:
    """The sensitivity part: loss and utilization against bandwidth with a 50-packet buffer."""
    early = ", ".join(f"{label(c)} {m:.0f}" for c, (m, _) in point(t, "early_drops", rate).items())
    return [
        _against_bandwidth(
            t.rows,
            LOSS,
            out=out,
            pdf=pdf,
            name="buffer50_loss_vs_bandwidth",
            title="Sensitivity: Fig. 4 with a 50-packet buffer",
            note=f"ns-2's default buffer and AQM parameters, where RED and REM can act (early drops per run at "
            f"{mbps_text(rate)}: {early}). At {mbps_text(rate)}: {means_text(t, 'loss_ratio', rate, 100, '%')}. "
            + differ_text(t, "loss_ratio"),
        ),
        _against_bandwidth(
            t.rows,
            UTILIZATION,
            out=out,
            pdf=pdf,
            name="buffer50_utilization_vs_bandwidth",
            title="Sensitivity: utilization with a 50-packet buffer",
            note=f"At {mbps_text(rate)}: {means_text(t, 'utilization', rate, 100, '%')}. "
            + differ_text(t, "utilization"),
        ),
    ]
