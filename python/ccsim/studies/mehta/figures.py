"""The mehta study's figures, named after the paper's (Figures 6-19)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies.claims import num
from ccsim.studies.common import bottleneck_of
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.figures import band_text, mean_over_runs, point_runs, replicates
from ccsim.studies.mehta.draw import _bars, _best, _cases, _panels, _period_axis
from ccsim.studies.mehta.flash import crowd, flash_rows
from ccsim.studies.mehta.reading import ok_runs, series, setup
from ccsim.studies.mehta.restart import main_rows, schedule
from ccsim.studies.mehta.setup import CBR, CROWD, FLASH, LONG, MAIN, OTHER, SQUARE, TABLE1, TCP_GROUP, label, look
from ccsim.studies.mehta.square import duty as square_duty
from ccsim.studies.mehta.square import fair_share_bps, square_rows
from ccsim.studies.tables import StudyTables
from ccsim.sweep.store import SweepResults


def main_figures(res: SweepResults, out: Path, pdf: bool) -> list[Plot]:
    """Figure 6 (drop rate against time), the flows' throughput against time, the loss and f(k) bars."""
    plots: list[Plot | None] = []
    ok = ok_runs(res)
    if ok.empty:
        return []
    rows = main_rows(res)
    s0 = setup(res, str(ok.run_id.iloc[0]))
    sch = schedule(s0)
    width = max(sch.end / 250, 1e-3)  # 1 s bins in the full run
    cbr_on = [(float(a), float(b)) for a, b in s0.group(CBR)["on"]]
    cases = _cases(res)

    lo, hi = sch.on - (sch.end - sch.on) / 10, sch.on + (sch.end - sch.on) / 2
    curves: dict[str, tuple[pd.DataFrame, str, str]] = {}
    for case in _cases(res, TABLE1):
        frames = [series(res, r).binned_drop_rate(bottleneck_of(res, r), width) for r in point_runs(res, case)]
        g = mean_over_runs([f[(f.index > lo) & (f.index <= hi)] for f in frames])
        curves[label(case)] = (g, *look(case))
    reps = replicates([c for c, _, _ in curves.values()])
    peak = {k: float(v[0]["mean"].max()) for k, v in curves.items() if not v[0].empty}
    top = max(peak, key=peak.__getitem__) if peak else "-"
    plots.append(
        _panels(
            {"": curves},
            ylabel="drop rate at RED",
            out=out,
            name="fig6_loss_rate",
            title="Figure 6: drop rate after the CBR source restarts",
            caption=(
                f"Pooled drop rate at the bottleneck's RED queue per {num(width)} s, the kinds of the paper's "
                f"Table 1; {band_text(reps)}. The CBR source (shaded while on) restarts at {num(sch.on)} s. "
                f"Highest peak: {top} ({num(peak.get(top, math.nan))}). Drop rate in the first "
                f"{num(sch.restart_window[1] - sch.on)} s after the restart: highest "
                f"{_best(rows, 'restart_drop_rate', cases, lowest=False)}, lowest "
                f"{_best(rows, 'restart_drop_rate', cases, lowest=True)}."
            ),
            pdf=pdf,
            spans=[(max(a, lo), min(b, hi)) for a, b in cbr_on if b > lo and a < hi],
        )
    )

    panels: dict[str, dict[str, tuple[pd.DataFrame, str, str]]] = {}
    for case in cases:
        runs = point_runs(res, case)
        long = mean_over_runs([series(res, r).binned(LONG, "throughput_bps", width, "group") for r in runs])
        cbr = mean_over_runs([series(res, r).binned(CBR, "throughput_bps", width, "group") for r in runs])
        color, _ = look(case)
        panels[label(case)] = {"15 long-lived flows": (long, color, "-"), "CBR source": (cbr, style.GREY, ":")}
    reps = replicates([c for p in panels.values() for c, _, _ in p.values()])
    plots.append(
        _panels(
            panels,
            ylabel="Mbit/s",
            out=out,
            name="fig6_throughput_vs_time",
            title="Aggregate throughput of the long-lived flows against time, per kind",
            caption=(
                f"Throughput (data arriving at the receivers) of the 15 long-lived flows together and of the CBR "
                f"source per {num(width)} s; {band_text(reps)}; the CBR source is on in the shaded spans. "
                f"Fastest to take up the link after the CBR stops at {num(sch.off)} s (f(20)): "
                f"{_best(rows, 'f20', cases, lowest=False)}; slowest: {_best(rows, 'f20', cases, lowest=True)}."
            ),
            pdf=pdf,
            spans=cbr_on,
            scale=1e-6,
        )
    )

    plots.append(
        _bars(
            rows,
            {
                "restart_peak_drop_rate": "peak after the restart",
                "restart_drop_rate": "after the restart",
                "steady_drop_rate": "steady (CBR on)",
                "idle_drop_rate": "CBR off",
                "queue_loss_rate": "whole run",
            },
            cases,
            ylabel="drop rate at RED",
            out=out,
            name="fig6_loss_rate_by_kind",
            title="Figure 6: drop rate per kind of long-lived flows",
            caption=(
                f"Drop rate at RED in the worst 10-RTT window of the first {num(sch.restart_window[1] - sch.on)} "
                f"s after the CBR restarts, pooled over those seconds, over the second half of its second "
                f"on-period (steady), while it is off "
                f"({num(sch.off)}-{num(sch.on)} s) and over the whole run; mean of the replicates with 95% "
                f"intervals. Peak after the restart: highest "
                f"{_best(rows, 'restart_peak_drop_rate', cases, lowest=False)}, lowest "
                f"{_best(rows, 'restart_peak_drop_rate', cases, lowest=True)}; highest while off: "
                f"{_best(rows, 'idle_drop_rate', cases, lowest=False)}."
            ),
            pdf=pdf,
        )
    )
    plots.append(
        _bars(
            rows,
            {"stab_time_s": "stabilization time (s)", "stab_cost": "stabilization cost"},
            cases,
            ylabel="s / RTTs x drop rate (log scale)",
            logy=True,
            out=out,
            name="stabilization",
            title="Stabilization after the CBR restarts (Bansal et al. 4.1)",
            caption=(
                "Time until the drop rate over 10-RTT windows is within 1.5 times its steady value, and that "
                "time in RTTs times the mean drop rate over it; mean with 95% intervals. Highest cost: "
                f"{_best(rows, 'stab_cost', cases, lowest=False)}; lowest: "
                f"{_best(rows, 'stab_cost', cases, lowest=True)}."
            ),
            pdf=pdf,
        )
    )
    plots.append(
        _bars(
            rows,
            {"f20": "f(20)", "f200": "f(200)"},
            cases,
            ylabel="fraction of the link",
            out=out,
            name="fk_after_cbr_stops",
            title="Taking up the bandwidth the CBR leaves (Bansal et al. 4.2)",
            caption=(
                f"Mean throughput of the 15 flows over the first 20 and 200 RTTs after the CBR stops at "
                f"{num(sch.off)} s, over the link rate (capped at the off period); mean with 95% intervals. "
                f"f(20): highest {_best(rows, 'f20', cases, lowest=False)}, lowest "
                f"{_best(rows, 'f20', cases, lowest=True)}."
            ),
            pdf=pdf,
            hline=1.0,
        )
    )
    return [p for p in plots if p is not None]


def flash_figures(res: SweepResults, out: Path, pdf: bool) -> list[Plot]:
    """Figures 8-14 (the long flows' and the crowd's throughput against time) and the crowd's FCT bars."""
    ok = ok_runs(res)
    if ok.empty:
        return []
    rows = flash_rows(res)
    s0 = setup(res, str(ok.run_id.iloc[0]))
    c = crowd(s0)
    width = max(s0.duration / 60, 1e-3)  # 1 s bins in the full run
    cases = _cases(res)
    panels: dict[str, dict[str, tuple[pd.DataFrame, str, str]]] = {}
    for case in cases:
        runs = point_runs(res, case)
        long = mean_over_runs([series(res, r).binned(LONG, "throughput_bps", width, "group") for r in runs])
        web = mean_over_runs([series(res, r).binned(CROWD, "throughput_bps", width, "group") for r in runs])
        color, _ = look(case)
        panels[label(case)] = {"15 long-lived flows": (long, color, "-"), "flash crowd": (web, style.GREY, "--")}
    reps = replicates([g for p in panels.values() for g, _, _ in p.values()])
    plots: list[Plot | None] = [
        _panels(
            panels,
            ylabel="Mbit/s",
            out=out,
            name="fig8_14_flash_crowd_throughput",
            title="Figures 8-14: long-lived flows and a flash crowd, aggregate throughput",
            caption=(
                f"Throughput of the 15 long-lived flows together and of the {c.count} short flows of the crowd "
                f"per {num(width)} s; {band_text(reps)}; the crowd arrives in the shaded span "
                f"({num(c.start)}-{num(c.start + c.span)} s). The crowd's transfers complete soonest (mean FCT) "
                f"against {_best(rows, 'crowd_fct_mean_s', cases, lowest=True)} and latest against "
                f"{_best(rows, 'crowd_fct_mean_s', cases, lowest=False)}."
            ),
            pdf=pdf,
            spans=[(c.start, c.start + c.span)],
            scale=1e-6,
        ),
        _bars(
            rows,
            {"crowd_fct_mean_s": "mean FCT", "crowd_fct_p90_s": "90th percentile FCT"},
            cases,
            ylabel="s",
            out=out,
            name="fig7_flash_crowd_fct",
            title="Figure 7: completion times of the flash crowd's flows",
            caption=(
                f"Completion time of the crowd's ten-packet transfers, by the kind of the long-lived flows; mean "
                f"with 95% intervals. Lowest mean: {_best(rows, 'crowd_fct_mean_s', cases, lowest=True)}; "
                f"highest: {_best(rows, 'crowd_fct_mean_s', cases, lowest=False)}."
            ),
            pdf=pdf,
        ),
    ]
    return [p for p in plots if p is not None]


def square_figures(res: SweepResults, out: Path, pdf: bool) -> list[Plot]:
    """Figures 17-19: normalized throughput of TCP and the other kind against the period, one panel per kind."""
    ok = ok_runs(res)
    if ok.empty:
        return []
    groups, runs = square_rows(res)
    cases = _cases(res, sweep_order=True)
    with style.house_style():
        from matplotlib.figure import Figure  # noqa: PLC0415

        fig = Figure(figsize=(style.WIDE_IN, 2.6), layout="constrained")
        axes = fig.subplots(1, len(cases), sharey=True, squeeze=False)[0]
        for ax, case in zip(axes, cases, strict=True):
            sel = groups[groups[CASE] == case]
            table = stats.describe(sel, ["group", "period_s"], ["norm_throughput"]).sort_values("period_s")
            for grp, color, ls, name in (
                (TCP_GROUP, style.BLACK, "-", "TCP"),
                (OTHER, look(case)[0], "--", label(case)),
            ):
                g = table[table.group == grp]
                ax.plot(g.period_s, g["mean"], color=color, ls=ls, marker="o", ms=3, label=name)
                ax.fill_between(g.period_s, g.ci_low, g.ci_high, color=color, alpha=0.2, lw=0)
            ax.axhline(1.0, color=style.GREY, lw=0.8, ls=":")
            _period_axis(ax, sorted(set(groups.period_s)))
            ax.set_title(f"7 TCP + 7 {label(case)}", loc="left", fontsize=style.FONT_PT)
            ax.legend(loc="lower right")
        axes[0].set_ylabel("throughput / fair share")
        title = "Figures 17-19: TCP and slowly-responsive flows under a square-wave CBR"
        fig.suptitle(title, x=0.01, ha="left", fontsize=style.FONT_PT + 1)
        paths = style.save(fig, out / "fig17_19_normalized_throughput", pdf)
    reps = int(groups.groupby([CASE, "period_s", "group"]).size().min())
    gaps = []
    for case in cases:
        r = runs[runs[CASE] == case].groupby("period_s").tcp_to_other.mean()
        if not r.empty:
            gaps.append(f"{label(case)}: TCP/other largest at {num(float(r.idxmax()))} s ({num(float(r.max()))})")
    caption = (
        f"Mean throughput per flow of each group over the metrics window, divided by the fair share "
        f"(the link less the CBR's mean rate, over 14 flows); mean of {reps} replicates per point with 95% "
        f"confidence bands (Student t). {'; '.join(gaps)}."
    )
    plots: list[Plot | None] = [Plot("fig17_19_normalized_throughput", title, caption, paths)]
    with style.house_style():
        fig, ax = style.figure()
        for case in cases:
            t = stats.describe(runs[runs[CASE] == case], ["period_s"], ["utilization"]).sort_values("period_s")
            color, _ = look(case)
            ax.plot(t.period_s, t["mean"], color=color, marker="o", ms=3, label=f"TCP + {label(case)}")
            ax.fill_between(t.period_s, t.ci_low, t.ci_high, color=color, alpha=0.2, lw=0)
        _period_axis(ax, sorted(set(runs.period_s)))
        ax.set_ylabel("utilization of the bottleneck")
        ax.set_title("Square wave: link utilization", loc="left")
        style.legend_below(ax, ncol=min(3, len(cases)))
        paths = style.save(fig, out / "square_utilization", pdf)
    plots.append(square_time_figure(res, runs, out, pdf))
    u = runs.groupby("period_s").utilization.mean()
    plots.append(
        Plot(
            "square_utilization",
            "Square wave: link utilization against the period",
            f"Utilization of the bottleneck (CBR included) over the metrics window; mean with 95% bands. "
            f"Highest at {num(float(u.idxmax()))} s ({num(float(u.max()))}), lowest at "
            f"{num(float(u.idxmin()))} s ({num(float(u.min()))}), all kinds pooled.",
            paths,
        )
    )
    return [p for p in plots if p is not None]


def square_time_figure(res: SweepResults, runs: pd.DataFrame, out: Path, pdf: bool) -> Plot | None:
    """Figures 15-16: the throughput per flow of TCP and the other kind against time at one period (4 s)."""
    periods = sorted(set(runs.period_s))
    if not periods:
        return None
    period = min(periods, key=lambda p: abs(math.log(p / 4.0)))
    s0 = setup(res, str(runs[np.isclose(runs.period_s, period)].run_id.iloc[0]))
    fair = fair_share_bps(s0)
    cbr = s0.group(CBR)
    duty = square_duty(cbr)
    hi = s0.duration
    lo = max(s0.warmup, hi - 5 * period)
    spans = [(k * period, min(hi, k * period + duty * period)) for k in range(int(lo // period), int(hi // period) + 1)]
    spans = [(max(a, lo), b) for a, b in spans if b > lo and a < hi]
    panels: dict[str, dict[str, tuple[pd.DataFrame, str, str]]] = {}
    for case in _cases(res, sweep_order=True):
        ids = list(runs[(runs[CASE] == case) & np.isclose(runs.period_s, period)].run_id)
        lines: dict[str, tuple[pd.DataFrame, str, str]] = {}
        for grp, color, ls, name in ((TCP_GROUP, style.BLACK, "-", "TCP"), (OTHER, look(case)[0], "--", "other")):
            n = int(s0.group(grp)["count"])
            frames = []
            for rid in ids:
                x = series(res, rid).series(grp, "throughput_bps", "group") / n / fair
                frames.append(x[(x.index > lo) & (x.index <= hi)])
            lines[name] = (mean_over_runs(frames), color, ls)
        panels[f"7 TCP + 7 {label(case)}"] = lines
    reps = replicates([g for p in panels.values() for g, _, _ in p.values()])
    interval = float(np.diff(series(res, ids[0]).series(TCP_GROUP, "throughput_bps", "group").index[:2])[0])
    return _panels(
        panels,
        ylabel="throughput / fair share",
        out=out,
        name="fig15_16_square_wave_time",
        title=f"Figures 15-16: throughput per flow against time, square wave of period {num(period)} s",
        caption=(
            f"The mean throughput per flow of the TCP group and of the other group per {num(interval)} s, over "
            f"the fair share, in the last {num(hi - lo)} s of the runs with a period of {num(period)} s; "
            f"{band_text(reps)}. The CBR source is on in the shaded spans (5 Mbit/s left), off between them "
            f"(15 Mbit/s)."
        ),
        pdf=pdf,
        spans=spans,
    )


def figures(data: StudyData, tables: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    """The figures of every part present."""
    plots: list[Plot] = []
    for part, fn in ((MAIN, main_figures), (FLASH, flash_figures), (SQUARE, square_figures)):
        if part in data.parts:
            plots += fn(data[part], out, pdf)
    return plots
