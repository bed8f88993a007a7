"""The figures of a sweep (`ccsim sweep`): metrics against a parameter with 95% confidence bands,
grouped bars for categorical grids, and CDFs of flow completion times.

The statistics come from `ccsim.stats`: the mean of the replicates at each
(case, grid point) with its Student t interval, and, for the captions,
Welch's t-tests between the cases with Holm's correction.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ccsim import stats, units
from ccsim.plots import style
from ccsim.plots.run import Plot, PlotError
from ccsim.sweep.store import STATUS_OK, SweepResults
from ccsim.sweep.store import load as load_sweep

CASE = stats.CASE
# Shown when no --y is given (those the runs table has).
DEFAULT_METRICS = (
    "goodput_bps",
    "bottleneck_avg_queue_pkts",
    "loss_rate",
    "bottleneck_utilization",
    "jain_index",
    "delay_mean_s",
)
MAX_CAPTION_POINTS = 6


@dataclass(frozen=True)
class Axis:
    """How a quantity is labelled and scaled on an axis."""

    label: str
    scale: float = 1.0


def metric_axis(metric: str) -> Axis:
    """Axis label (with unit) and scale of a metric of the runs table."""
    known = {
        "goodput_bps": Axis("goodput (Mbit/s)", 1e-6),
        "throughput_bps": Axis("throughput (Mbit/s)", 1e-6),
        "loss_rate": Axis("loss rate (%)", 100.0),
        "jain_index": Axis("Jain's fairness index"),
        "bottleneck_utilization": Axis("bottleneck utilization (%)", 100.0),
        "bottleneck_avg_queue_pkts": Axis("average bottleneck queue (packets)"),
        "delay_mean_s": Axis("mean one-way delay (ms)", 1e3),
        "fct_s": Axis("flow completion time (s)"),
    }
    if metric in known:
        return known[metric]
    if metric.endswith("_bps"):
        return Axis(f"{metric[:-4]} (Mbit/s)", 1e-6)
    if metric.endswith("_s"):
        return Axis(f"{metric[:-2]} (ms)", 1e3)
    if metric.endswith("_pkts"):
        return Axis(f"{metric[:-5]} (packets)")
    return Axis(metric)


_DISPLAY = {"bit/s": ("Mbit/s", 1e-6), "s": ("ms", 1e3), "B": ("kB", 1e-3)}


def numeric_values(values: pd.Series) -> tuple[pd.Series, str] | None:
    """A grid column as numbers with a display unit: numbers as they are, "10Mbps"-style strings
    converted (to Mbit/s, ms or kB); None when the column is categorical."""
    if pd.api.types.is_bool_dtype(values):
        return None
    if pd.api.types.is_numeric_dtype(values):
        return values.astype(float), ""
    parsed = []
    unit = None
    for v in values:
        q = units.quantity(v)
        if q is None:
            return None
        value, base = q
        if unit not in (None, base):
            return None
        unit = base
        parsed.append(value)
    if unit is None:  # no values at all: nothing to convert
        return None
    shown, scale = _DISPLAY[unit]
    return pd.Series(np.asarray(parsed) * scale, index=values.index), shown


def successful_runs(res: SweepResults) -> pd.DataFrame:
    """The runs that finished, with `delay_mean_s` (mean of the flows' mean delays) added per run."""
    ok = res.runs[res.runs["status"] == STATUS_OK].copy()
    if not res.flows.empty and "delay_mean_s" in res.flows.columns and "delay_mean_s" not in ok.columns:
        d = res.flows.groupby("run_id")["delay_mean_s"].mean()
        ok["delay_mean_s"] = ok["run_id"].map(d)
    return ok


def _point_label(keys: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in keys.items()) if keys else "the sweep"


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def caption_ranking(ok: pd.DataFrame, metric: str, points: Sequence[str], by: str) -> str:
    """Which case is best at each grid point on `metric`, and whether it is significantly better than the next."""
    if ok[by].nunique() < 2:
        return ""
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical; the caption gives p anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        cmp = stats.compare(ok, metric, list(points), case=by)
    axis = metric_axis(metric)
    parts = []
    groups = cmp.ranking.groupby(list(points), sort=True, dropna=False) if points else [((), cmp.ranking)]
    for key, group in list(groups)[:MAX_CAPTION_POINTS]:
        keys = dict(zip(points, key if isinstance(key, tuple) else (key,), strict=True))
        g = group.sort_values("order")
        best, second = g.iloc[0], g.iloc[1] if len(g) > 1 else None
        where = _point_label(keys)
        text = f"at {where}: {best['case']} ({_fmt(best['mean'] * axis.scale)})"
        if second is not None:
            pair = cmp.pairwise
            sel = pair[(pair["case_a"] == best["case"]) & (pair["case_b"] == second["case"])]
            for k, v in keys.items():
                sel = sel[sel[k] == v]
            if not sel.empty and not math.isnan(float(sel["p_holm"].iloc[0])):
                p = float(sel["p_holm"].iloc[0])
                sig = "significantly" if bool(sel["significant"].iloc[0]) else "not significantly"
                text += f", {sig} better than {second['case']} (Welch, Holm-adjusted p = {p:.3g})"
            else:
                text += f", next {second['case']} (too few replicates to test)"
        parts.append(text)
    more = " (first points shown)" if len(list(groups)) > MAX_CAPTION_POINTS else ""
    word = "highest" if cmp.higher_is_better else "lowest"
    return f"Best ({word} mean {metric}) {'; '.join(parts)}{more}."


def metric_vs_param(
    ok: pd.DataFrame, res: SweepResults, x: str, y: str, *, by: str, out: Path, pdf: bool, name: str
) -> Plot | None:
    """Mean of `y` against grid parameter `x`, one line per case, with 95% confidence bands."""
    conv = numeric_values(ok[x])
    if conv is None:
        return grouped_bars(ok, res, x, y, by=by, out=out, pdf=pdf, name=name)
    xs, unit = conv
    data = ok.assign(_x=xs)
    others = [p for p in res.parameters if p != x and data[p].nunique() > 1]
    table = stats.describe(data, [by, *others, "_x"], [y])
    axis = metric_axis(y)
    reps = int(table["n"].max()) if len(table) else 0
    with style.house_style():
        fig, ax = style.figure()
        for line, (key, group) in enumerate(table.groupby([by, *others], sort=False, dropna=False)):
            keys = key if isinstance(key, tuple) else (key,)
            case = str(keys[0])
            lk = style.look(case)
            label = case + (
                " (" + ", ".join(f"{o} {v}" for o, v in zip(others, keys[1:], strict=True)) + ")" if others else ""
            )
            g = group.sort_values("_x")
            ls = lk.linestyle if not others else style.LINESTYLES[line % len(style.LINESTYLES)]
            ax.plot(g["_x"], g["mean"] * axis.scale, color=lk.color, ls=ls, marker=lk.marker, ms=3, label=label)
            ax.fill_between(
                g["_x"], g["ci_low"] * axis.scale, g["ci_high"] * axis.scale, color=lk.color, alpha=0.2, lw=0
            )
        ax.set_xlabel(f"{x} ({unit})" if unit else x)
        ax.set_ylabel(axis.label)
        ax.set_title(_title(axis), loc="left")
        style.legend_below(ax)
        paths = style.save(fig, out / name, pdf)
    caption = (
        f"Mean {y} of {reps} replicates per point against {x}, one line per case, with 95% confidence bands "
        f"(Student t). " + caption_ranking(data.assign(**{x: xs}), y, [x, *others], by)
    )
    return Plot(name, f"{axis.label.split(' (')[0]} against {x}", caption.strip(), paths)


def grouped_bars(
    ok: pd.DataFrame, res: SweepResults, x: str | None, y: str, *, by: str, out: Path, pdf: bool, name: str
) -> Plot | None:
    """Mean of `y` per case, grouped by the values of a categorical parameter `x` (or one group), with 95% CIs."""
    groups = [x] if x else []
    table = stats.describe(ok, [*groups, by], [y])
    if table.empty:
        return None
    axis = metric_axis(y)
    cases = list(dict.fromkeys(table[by]))
    xvals = list(dict.fromkeys(table[x])) if x else [""]
    width = 0.8 / max(1, len(cases))
    big = len(cases) * len(xvals) > 12
    with style.house_style():
        fig, ax = style.figure(style.WIDE_IN if big else style.WIDTH_IN)
        for i, case in enumerate(cases):
            g = table[table[by] == case]
            pos = [xvals.index(v) if x else 0 for v in (g[x] if x else [""] * len(g))]
            lk = style.look(str(case))
            err = np.vstack([(g["mean"] - g["ci_low"]).to_numpy(), (g["ci_high"] - g["mean"]).to_numpy()]) * axis.scale
            ax.bar(
                np.asarray(pos) - 0.4 + width * (i + 0.5),
                g["mean"] * axis.scale,
                width,
                yerr=np.nan_to_num(err),
                color=lk.color,
                label=str(case),
                capsize=2,
                error_kw={"lw": 0.8},
            )
        ax.set_xticks(range(len(xvals)), [str(v) for v in xvals] if x else [""])
        if x:
            ax.set_xlabel(x)
        ax.set_ylabel(axis.label)
        ax.set_title(_title(axis), loc="left")
        ax.grid(axis="x", visible=False)
        style.legend_below(ax, ncol=min(4, len(cases)))
        paths = style.save(fig, out / name, pdf)
    caption = (
        f"Mean {y} per case" + (f", grouped by {x}" if x else "") + ", with 95% confidence intervals (Student t) "
        "over the replicates. " + caption_ranking(ok, y, groups, by)
    )
    return Plot(name, f"{axis.label.split(' (')[0]} per case", caption.strip(), paths)


def fct_cdf(ok: pd.DataFrame, res: SweepResults, by: str, out: Path, pdf: bool) -> Plot | None:
    """CDF of flow completion times per case (finite flows, pooled over replicates and grid points)."""
    f = res.flows
    if f.empty or "fct_s" not in f.columns or f["fct_s"].notna().sum() == 0:
        return None
    f = f[f["fct_s"].notna()].merge(ok[["run_id", by]], on="run_id")
    if f.empty:
        return None
    rows = []
    with style.house_style():
        fig, ax = style.figure()
        for case, g in f.groupby(by, sort=False):
            x = np.sort(g["fct_s"].to_numpy(dtype=float))
            y = np.arange(1, len(x) + 1) / len(x)
            lk = style.look(str(case))
            ax.step(x, y, where="post", color=lk.color, ls=lk.linestyle, label=f"{case} ({len(x)} flows)")
            rows.append((str(case), float(np.median(x)), float(np.quantile(x, 0.99)), len(x)))
        ax.set_xscale("log")
        # Labels at 1, 2 and 5 of each decade, written as plain numbers.
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("flow completion time (s)")
        ax.set_ylabel("fraction of flows")
        ax.set_ylim(0, 1.02)
        ax.set_title("Flow completion time", loc="left")
        style.legend_below(ax)
        paths = style.save(fig, out / "fct_cdf", pdf)
    best = min(rows, key=lambda r: r[1])
    parts = [f"{c}: median {m:.3g} s, 99th percentile {p:.3g} s" for c, m, p, _ in rows]
    caption = (
        "Distribution of the completion times of the finite flows that finished, per case, pooled over "
        f"replicates and grid points. {'; '.join(parts)}. Lowest median: {best[0]}."
    )
    return Plot("fct_cdf", "Flow completion time CDF", caption, paths)


def plot_sweep(
    sweep_dir: str | Path,
    out_dir: str | Path | None = None,
    *,
    x: str | None = None,
    y: Sequence[str] | None = None,
    by: str = CASE,
    pdf: bool = False,
) -> list[Plot]:
    """Draw a sweep's figures into `out_dir` (default SWEEP_DIR/plots); return them.

    `x`: the grid parameter on the horizontal axis (default: the first grid
    parameter); numeric values (or "10Mbps"-style strings) give lines with
    confidence bands, others grouped bars. `y`: the metrics (default: the
    usual summary metrics the runs have). `by`: the column naming the lines
    (default the case label).
    """
    res = load_sweep(sweep_dir)
    out = Path(out_dir) if out_dir is not None else Path(sweep_dir) / "plots"
    ok = successful_runs(res)
    if ok.empty:
        raise PlotError(f"{sweep_dir}: no successful run to plot")
    if x is not None and x not in res.parameters:
        raise PlotError(f"--x: no grid parameter {x!r}; the grid parameters are: {', '.join(res.parameters) or 'none'}")
    if by not in ok.columns:
        raise PlotError(f"--by: no column {by!r} in the runs table")
    metrics = list(y) if y else [m for m in DEFAULT_METRICS if m in ok.columns]
    for m in metrics:
        if m not in ok.columns:
            raise PlotError(f"--y: no metric {m!r}; the metrics are: {', '.join([*res.metrics, 'delay_mean_s'])}")
    xp = x if x is not None else (res.parameters[0] if res.parameters else None)
    plots: list[Plot] = []
    for m in metrics:
        name = _safe(f"{m}_vs_{xp}" if xp else f"{m}_bars")
        if xp:
            p = metric_vs_param(ok, res, xp, m, by=by, out=out, pdf=pdf, name=name)
        else:
            p = grouped_bars(ok, res, None, m, by=by, out=out, pdf=pdf, name=name)
        if p is not None:
            plots.append(p)
    p = fct_cdf(ok, res, by, out, pdf)
    if p is not None:
        plots.append(p)
    return plots


def _title(axis: Axis) -> str:
    """A figure's title: the quantity, capitalised, without its unit (the axis label has it)."""
    text = axis.label.split(" (")[0]
    return text[:1].upper() + text[1:]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def sweep_info(res: SweepResults) -> dict[str, Any]:
    """The sweep file's settings as stored with the results (name, description, seed, replicates, ...)."""
    import duckdb  # noqa: PLC0415 (only when a sweep is reported)

    from ccsim.sweep.store import database_path  # noqa: PLC0415

    con = duckdb.connect(str(database_path(res.out_dir)), read_only=True)
    try:
        info = dict(con.execute("SELECT key, value FROM sweep_info").fetchall())
    finally:
        con.close()
    out: dict[str, Any] = dict(info)
    for key in ("grid", "cases"):
        if key in out:
            out[key] = json.loads(out[key])
    return out
