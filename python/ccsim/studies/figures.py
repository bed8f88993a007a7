"""Figures of a study, drawn from its per-run tables and its runs' time series, in the house style.

Every figure shows the mean over the replicates with its 95% Student t
interval (a band for lines, an error bar for bars): the papers drew one
run per point; ccsim draws what the replicates say. The helpers return
`ccsim.plots.run.Plot` objects (files + title + caption) for the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies.core import CASE
from ccsim.sweep.store import SweepResults


@dataclass(frozen=True)
class Y:
    """The quantity on a figure's y axis: a per-run column, its label (with unit) and the scale to that unit."""

    metric: str
    label: str
    scale: float = 1.0


def _cases(rows: pd.DataFrame, cases: Sequence[str] | None) -> list[str]:
    present = list(dict.fromkeys(rows[CASE].astype(str)))
    return [c for c in cases if c in present] if cases is not None else present


def line_ci(
    rows: pd.DataFrame,
    x: str,
    y: Y,
    *,
    out: Path,
    name: str,
    title: str,
    xlabel: str,
    pdf: bool = False,
    cases: Sequence[str] | None = None,
    labels: Mapping[str, str] | None = None,
    logx: bool = False,
    note: str = "",
    looks: Mapping[str, style.Look] | None = None,
) -> Plot | None:
    """Mean of y against the numeric column x, one line per case, with 95% confidence bands.

    `looks` overrides the house style's look of some cases (e.g. two cases that share a colour).
    """
    chosen = _cases(rows, cases)
    data = rows[rows[CASE].astype(str).isin(chosen)]
    if data.empty:
        return None
    table = stats.describe(data, [CASE, x], [y.metric])
    reps = int(table["n"].min()) if len(table) else 0
    with style.house_style():
        fig, ax = style.figure()
        for case in chosen:
            g = table[table[CASE] == case].sort_values(x)
            if g.empty:
                continue
            lk = (looks or {}).get(case) or style.look(case)
            xs = g[x].to_numpy(dtype=float)
            label = (labels or {}).get(case, case)
            ax.plot(xs, g["mean"] * y.scale, color=lk.color, ls=lk.linestyle, marker=lk.marker, ms=3, label=label)
            ax.fill_between(xs, g["ci_low"] * y.scale, g["ci_high"] * y.scale, color=lk.color, alpha=0.2, lw=0)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(y.label)
        ax.set_title(title, loc="left")
        style.legend_below(ax, ncol=min(4, len(chosen)))
        paths = style.save(fig, out / name, pdf)
    caption = f"Mean of {reps} or more replicates per point with 95% confidence bands (Student t). {note}".strip()
    return Plot(name, title, caption, paths)


def bars_ci(
    rows: pd.DataFrame,
    x: str | None,
    y: Y,
    *,
    out: Path,
    name: str,
    title: str,
    xlabel: str = "",
    pdf: bool = False,
    cases: Sequence[str] | None = None,
    labels: Mapping[str, str] | None = None,
    note: str = "",
) -> Plot | None:
    """Mean of y per case, grouped by the values of column x (or one group), with 95% confidence intervals."""
    chosen = _cases(rows, cases)
    data = rows[rows[CASE].astype(str).isin(chosen)]
    if data.empty:
        return None
    groups = [x] if x else []
    table = stats.describe(data, [*groups, CASE], [y.metric])
    xvals = list(dict.fromkeys(table[x])) if x else [""]
    width = 0.8 / max(1, len(chosen))
    big = len(chosen) * len(xvals) > 12
    reps = int(table["n"].min()) if len(table) else 0
    with style.house_style():
        fig, ax = style.figure(style.WIDE_IN if big else style.WIDTH_IN)
        for i, case in enumerate(chosen):
            g = table[table[CASE] == case]
            pos = np.asarray([xvals.index(v) for v in g[x]] if x else [0] * len(g), dtype=float)
            err = np.vstack([(g["mean"] - g["ci_low"]).to_numpy(), (g["ci_high"] - g["mean"]).to_numpy()]) * y.scale
            ax.bar(
                pos - 0.4 + width * (i + 0.5),
                g["mean"] * y.scale,
                width,
                yerr=np.nan_to_num(err),
                color=style.look(case).color,
                label=(labels or {}).get(case, case),
                capsize=2,
                error_kw={"lw": 0.8},
            )
        ax.set_xticks(range(len(xvals)), [str(v) for v in xvals])
        if xlabel:
            ax.set_xlabel(xlabel)
        ax.set_ylabel(y.label)
        ax.set_title(title, loc="left")
        ax.grid(axis="x", visible=False)
        style.legend_below(ax, ncol=min(4, len(chosen)))
        paths = style.save(fig, out / name, pdf)
    caption = f"Mean of {reps} or more replicates with 95% confidence intervals (Student t). {note}".strip()
    return Plot(name, title, caption, paths)


def mean_over_runs(frames: Sequence[pd.Series]) -> pd.DataFrame:
    """Mean and 95% t interval across runs of series indexed by time: columns time_s, n, mean, ci_low, ci_high."""
    if not frames:
        return pd.DataFrame(columns=["time_s", "n", "mean", "ci_low", "ci_high"])
    data = pd.concat(
        [pd.DataFrame({"time_s": s.index.to_numpy(), "value": s.to_numpy()}) for s in frames], ignore_index=True
    ).assign(**{CASE: "x"})
    table = stats.describe(data, ["time_s"], ["value"])
    return table[["time_s", "n", "mean", "ci_low", "ci_high"]].sort_values("time_s").reset_index(drop=True)


def series(res: SweepResults, run_ids: Sequence[str], entity_kind: str, entity: str, metric: str) -> pd.DataFrame:
    """One time series of several runs (e.g. the replicates of a point): columns time_s, n, mean, ci_low, ci_high.

    The runs share their sampling times (same scenario, same interval);
    at each time the mean and the 95% t interval are over the runs.
    """
    frames = []
    for rid in run_ids:
        ts = res.timeseries(rid)
        sel = ts[(ts.entity_kind == entity_kind) & (ts.entity == entity) & (ts.metric == metric)]
        frames.append(sel.set_index("time_s")["value"])
    return mean_over_runs(frames)


def replicates(curves: Iterable[pd.DataFrame]) -> int:
    """The fewest replicates behind a point of any of the curves (from `series`; 0 without a point)."""
    return min((int(c["n"].min()) for c in curves if not c.empty), default=0)


def band_text(reps: int) -> str:
    """How a time-series figure's lines were made, for its caption."""
    return f"mean of {reps} replicates with 95% confidence bands (Student t)" if reps > 1 else "one run"


def series_plot(
    curves: Mapping[str, pd.DataFrame],
    y: Y,
    *,
    out: Path,
    name: str,
    title: str,
    pdf: bool = False,
    labels: Mapping[str, str] | None = None,
    note: str = "",
    spans: Sequence[tuple[float, float]] = (),
) -> Plot | None:
    """Time series (from `series`), one line per case with its 95% band; `spans` shade intervals (e.g. CBR on)."""
    curves = {k: v for k, v in curves.items() if not v.empty}
    if not curves:
        return None
    reps = replicates(curves.values())
    with style.house_style():
        fig, ax = style.figure()
        for lo, hi in spans:
            ax.axvspan(lo, hi, color=style.GREY, alpha=0.12, lw=0)
        for case, g in curves.items():
            lk = style.look(case)
            ax.plot(
                g["time_s"], g["mean"] * y.scale, color=lk.color, ls=lk.linestyle, label=(labels or {}).get(case, case)
            )
            if reps > 1:
                ax.fill_between(
                    g["time_s"], g["ci_low"] * y.scale, g["ci_high"] * y.scale, color=lk.color, alpha=0.2, lw=0
                )
        ax.set_xlabel("time (s)")
        ax.set_ylabel(y.label)
        ax.set_title(title, loc="left")
        style.legend_below(ax, ncol=min(4, len(curves)))
        paths = style.save(fig, out / name, pdf)
    caption = f"Sampled every interval; {band_text(reps)}. {note}".strip()
    return Plot(name, title, caption, paths)


def point_runs(res: SweepResults, case: str, **point: object) -> list[str]:
    """The successful runs (their ids) of one case at one grid point: its replicates."""
    runs = res.runs[(res.runs.status == "ok") & (res.runs[CASE] == case)]
    for k, v in point.items():
        runs = runs[runs[k] == v]
    return list(runs.sort_values("replicate").run_id)
