"""The vyshnavi study's figures: Figures 5-9 and the per-application throughput, for each reading."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ccsim.plots.run import Plot
from ccsim.studies import figures as fig
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.tables import StudyTables
from ccsim.studies.vyshnavi.setup import ALGORITHMS, WLAN_STANDARD

THROUGHPUT = fig.Y("avg_throughput_mbps", "average throughput (Mbps)")
DELAY = fig.Y("avg_app_delay_ms", "average delay (ms)")
# (name, title, y, rows: 6 apps or 30 Mbps, x column, x label): the paper's Figures 5-7
TREND_FIGURES = (
    ("fig5_throughput_vs_link_speed", "Fig. 5: throughput, 6 applications", THROUGHPUT, "apps", "access_mbps"),
    ("fig5b_throughput_vs_applications", "Fig. 5b: throughput at 30 Mbps", THROUGHPUT, "access_mbps", "apps"),
    ("fig6_delay_vs_link_speed", "Fig. 6: delay, 6 applications", DELAY, "apps", "access_mbps"),
    ("fig7_delay_vs_applications", "Fig. 7: delay at 30 Mbps", DELAY, "access_mbps", "apps"),
)
FIXED = {"apps": 6, "access_mbps": 30}
XLABEL = {"apps": "applications", "access_mbps": "link speed (Mbps)", "network": ""}


def _best(rows: pd.DataFrame, metric: str, high: bool, **point: object) -> str:
    sel = rows
    for k, v in point.items():
        sel = sel[sel[k] == v]
    if sel.empty:
        return "-"
    means = sel.groupby(CASE)[metric].mean()
    return str(means.idxmax() if high else means.idxmin())


def _reading_figures(
    avg: pd.DataFrame, per_app: pd.DataFrame, *, suffix: str, label: str, out: Path, pdf: bool
) -> list[Plot | None]:
    plots: list[Plot | None] = []
    for name, title, y, fixed, x in TREND_FIGURES:
        rows = avg[avg[fixed] == FIXED[fixed]]
        high = y is THROUGHPUT
        word = "highest" if high else "lowest"
        best = "; ".join(
            f"{XLABEL[x].split(' (')[0]} {v}: {word} mean {_best(rows, y.metric, high, **{x: v})}"
            for v in sorted(rows[x].unique())
        )
        what = "throughput" if high else "delay from generation to reception (the paper's delay)"
        note = f"{label}. The applications' average {what} per run; {best}."
        plots.append(
            fig.bars_ci(
                rows,
                x,
                y,
                out=out,
                name=name + suffix,
                title=title,
                xlabel=XLABEL[x],
                pdf=pdf,
                cases=ALGORITHMS,
                note=note,
            )
        )
    for y, name, title in (
        (THROUGHPUT, "fig8_throughput_by_algorithm", "Fig. 8: average throughput per algorithm"),
        (DELAY, "fig9_delay_by_algorithm", "Fig. 9: average delay per algorithm"),
    ):
        high = y is THROUGHPUT
        best = "; ".join(f"{n}: {_best(avg, y.metric, high, network=n)}" for n in dict.fromkeys(avg.network))
        note = f"{label}. Each network of the paper; {'highest' if high else 'lowest'} mean: {best}."
        plots.append(
            fig.bars_ci(
                avg, "network", y, out=out, name=name + suffix, title=title, pdf=pdf, cases=ALGORITHMS, note=note
            )
        )
    first = per_app[(per_app.apps == 6) & (per_app.access_mbps == 30)]
    if not first.empty:
        low = first.groupby("application").throughput_mbps.mean().idxmin()
        note = (
            f"{label}, 6 applications at 30 Mbps (the paper's Tables 1, 3 and 4). "
            f"Lowest mean throughput: application {low}."
        )
        plots.append(
            fig.bars_ci(
                first,
                "application",
                fig.Y("throughput_mbps", "throughput (Mbps)"),
                out=out,
                name="table1_throughput_per_application" + suffix,
                title="Tables 1-4: throughput per application",
                xlabel="application",
                pdf=pdf,
                cases=ALGORITHMS,
                note=note,
            )
        )
    return plots


def figures(data: StudyData, tables: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    """Figures 5-9 (and the per-application throughput of Tables 1-4) for each reading."""
    plots: list[Plot | None] = []
    names = {t.table.name for t in tables.tables}
    if "averages" in names:
        avg, per_app = tables.get("averages").rows, tables.get("applications").rows
        plots += _reading_figures(avg, per_app, suffix="", label="Wired reading (dumbbell)", out=out, pdf=pdf)
    if "averages_wlan" in names:
        avg, per_app = tables.get("averages_wlan").rows, tables.get("applications_wlan").rows
        label = f"Wireless reading ({WLAN_STANDARD} receivers)"
        plots += _reading_figures(avg, per_app, suffix="_wlan", label=label, out=out, pdf=pdf)
    return [p for p in plots if p is not None]
