"""The bisoy study's figures: Figures 2-10 with 95% confidence bands."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ccsim import stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies import claims as cl
from ccsim.studies import figures as fg
from ccsim.studies.bisoy.setup import FLOWS, LABELS_P01, LENGTH, LOOKS, MAIN_CASES, MAXP_CASES, NAMES, TIME_PART, short
from ccsim.studies.bisoy.tables import FLOW_METRICS, TIME_METRICS
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.tables import StudyTables


def _best_note(t: pd.DataFrame, metric: str, x: str, *, higher: bool, cases: Sequence[str], unit: str = "") -> str:
    """'At x = max: best case m, worst case m' (means) for a caption."""
    at = t[(t[x] == t[x].max()) & t[CASE].isin(cases)]
    if at.empty:
        return ""
    means = at.groupby(CASE)[metric].mean().sort_values(ascending=not higher)
    u = f" {unit}" if unit else ""
    first, last = means.index[0], means.index[-1]
    return (
        f"At {short(x)} = {cl.num(float(t[x].max()))}: best {NAMES.get(first, first)} "
        f"({cl.num(float(means.iloc[0]))}{u}), worst {NAMES.get(last, last)} ({cl.num(float(means.iloc[-1]))}{u})."
    )


def maxp_plot(rows: pd.DataFrame, out: Path, pdf: bool) -> Plot | None:
    """Figure 10: GRED and NLRED goodput against the flows for max_p 0.1, 0.3, 0.5 (colour: algorithm)."""
    cases = [c for group in MAXP_CASES.values() for c in group]
    data = rows[rows[CASE].isin(cases)]
    if data.empty:
        return None
    table = stats.describe(data, [CASE, FLOWS], ["goodput_norm"])
    name, title = "fig10_goodput_vs_flows_maxp", "Fig. 10: GRED vs NLRED goodput by max_p"
    with style.house_style():
        fig, ax = style.figure()
        for algo, group in MAXP_CASES.items():
            colour = (LOOKS.get(algo) or style.look(algo)).color
            for k, case in enumerate(group):
                g = table[table[CASE] == case].sort_values(FLOWS)
                if g.empty:
                    continue
                xs = g[FLOWS].to_numpy(dtype=float)
                ax.plot(
                    xs,
                    g["mean"],
                    color=colour,
                    ls=style.LINESTYLES[k],
                    marker=style.MARKERS[k],
                    ms=3,
                    label=LABELS_P01[case],
                )
                ax.fill_between(xs, g["ci_low"], g["ci_high"], color=colour, alpha=0.15, lw=0)
        ax.set_xlabel("number of flows")
        ax.set_ylabel(FLOW_METRICS["goodput_norm"])
        ax.set_title(title, loc="left")
        style.legend_below(ax, ncol=2)
        paths = style.save(fig, out / name, pdf)
    reps = int(table["n"].min())
    means = data.groupby(CASE).goodput_norm.mean()
    spread = {a: float(means.reindex(list(g)).max() - means.reindex(list(g)).min()) for a, g in MAXP_CASES.items()}
    caption = (
        f"Mean of {reps} or more replicates per point with 95% confidence bands (Student t); colour: algorithm, "
        f"line style: max_p. Spread of the mean goodput over max_p (averaged over the flow counts): "
        f"GRED {cl.num(spread['gred'])}, NLRED {cl.num(spread['nlred'])}."
    )
    return Plot(name, title, caption, paths)


def figures(data: StudyData, tables: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    """The paper's Figures 2-10 from ccsim's runs, with 95% confidence bands."""
    rows = tables.get("flows").rows
    plots: list[Plot | None] = []
    against_flows = [
        ("fig2_goodput_vs_flows", "Fig. 2: goodput vs number of flows", "goodput_norm", True, ""),
        ("fig3_avg_queue_vs_flows", "Fig. 3: average queue vs number of flows", "avg_queue_pkts", False, "packets"),
        ("fig4_delay_vs_flows", "Fig. 4: delay vs number of flows", "delay_ms", False, "ms"),
        ("fig5_loss_vs_flows", "Fig. 5: loss rate vs number of flows", "loss_rate", False, ""),
        ("fig6_utilization_vs_flows", "Fig. 6: link utilization vs number of flows", "utilization", True, ""),
        ("fig7_jain_vs_flows", "Fig. 7: Jain's index vs number of flows", "jain_index", True, ""),
    ]
    notes = {
        "delay_ms": "Mean one-way delay of the data packets (propagation 24 ms + transmission + queueing).",
        "loss_rate": "Data packets lost / sent, all flows.",
        "goodput_norm": "Non-duplicate packets delivered per second over the link capacity in packets per second.",
    }
    for name, title, metric, higher, unit in against_flows:
        best = _best_note(rows, metric, FLOWS, higher=higher, cases=MAIN_CASES, unit=unit)
        note = f"{notes.get(metric, '')} {best}".strip()
        plots.append(
            fg.line_ci(
                rows,
                FLOWS,
                fg.Y(metric, FLOW_METRICS[metric]),
                out=out,
                name=name,
                title=title,
                xlabel="number of flows",
                pdf=pdf,
                cases=MAIN_CASES,
                labels=NAMES,
                note=note,
                looks=LOOKS,
            )
        )
    if TIME_PART in data.parts:
        trows = tables.get("time").rows
        flows = sorted(set(trows[FLOWS])) if FLOWS in trows else []
        for n in flows:
            sub = trows[trows[FLOWS] == n]
            suffix = f"_n{n}" if len(flows) > 1 else ""
            for fig, metric, higher, what in (
                ("fig8_goodput_vs_time", "goodput_norm", True, "goodput"),
                ("fig9_loss_vs_time", "loss_rate", False, "loss rate"),
            ):
                best = _best_note(sub, metric, LENGTH, higher=higher, cases=MAIN_CASES)
                note = (
                    f"{n} flows. Each point: a simulation of length T, cut from one longer run per replicate "
                    f"(the same seed's first T seconds). {best}"
                )
                plots.append(
                    fg.line_ci(
                        sub,
                        LENGTH,
                        fg.Y(metric, TIME_METRICS[metric]),
                        out=out,
                        name=fig + suffix,
                        title=f"Fig. {fig[3]}: {what} vs simulation time ({n} flows)",
                        xlabel="simulation time (s)",
                        pdf=pdf,
                        cases=MAIN_CASES,
                        labels=NAMES,
                        note=note,
                        looks=LOOKS,
                    )
                )
    plots.append(maxp_plot(rows, out, pdf))
    return [p for p in plots if p is not None]
