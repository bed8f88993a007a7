"""Drawing helpers of the mehta figures: mean and 95% bands over runs, small multiples, bars, captions."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies.claims import num
from ccsim.studies.core import CASE
from ccsim.studies.mehta.reading import ok_runs
from ccsim.studies.mehta.setup import LABELS, label, look
from ccsim.sweep.store import SweepResults

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _cases(res: SweepResults, wanted: Sequence[str] | None = None, sweep_order: bool = False) -> list[str]:
    present = list(dict.fromkeys(ok_runs(res)[CASE].astype(str)))
    first = list(res.cases) if sweep_order else list(LABELS)
    order = [c for c in first if c in present] + [c for c in present if c not in first]
    return [c for c in order if wanted is None or c in wanted]


def _band(ax: Axes, g: pd.DataFrame, color: str, ls: str, *, name: str, scale: float = 1.0) -> None:
    ax.plot(g["time_s"], g["mean"] * scale, color=color, ls=ls, label=name)
    if int(g["n"].min()) > 1:
        ax.fill_between(g["time_s"], g["ci_low"] * scale, g["ci_high"] * scale, color=color, alpha=0.2, lw=0)


def _panels(
    panels: Mapping[str, Mapping[str, tuple[pd.DataFrame, str, str]]],
    *,
    ylabel: str,
    out: Path,
    name: str,
    title: str,
    caption: str,
    pdf: bool,
    spans: Sequence[tuple[float, float]] = (),
    scale: float = 1.0,
) -> Plot | None:
    """Small multiples: one panel per key, lines (curve, colour, style) with their bands; spans shaded."""
    panels = {k: v for k, v in panels.items() if any(not c.empty for c, _, _ in v.values())}
    if not panels:
        return None
    ncol = 2 if len(panels) > 1 else 1
    nrow = math.ceil(len(panels) / ncol)
    with style.house_style():
        from matplotlib.figure import Figure  # noqa: PLC0415

        height = style.HEIGHT_IN if len(panels) == 1 else 1.45 * nrow + 0.6
        fig = Figure(figsize=(style.WIDE_IN, height), layout="constrained")
        axes = fig.subplots(nrow, ncol, sharex=True, sharey=True, squeeze=False)
        for ax, (panel, lines) in zip(axes.flat, panels.items(), strict=False):
            for lo, hi in spans:
                ax.axvspan(lo, hi, color=style.GREY, alpha=0.15, lw=0)
            for line, (g, color, ls) in lines.items():
                if not g.empty:
                    _band(ax, g, color, ls, name=line, scale=scale)
            if panel:
                ax.set_title(panel, loc="left", fontsize=style.FONT_PT)
        # Shared y axis from 0 (rates and fractions are never negative, though a t band may reach below)
        # to the highest band of any panel.
        top = max(
            float(np.nanmax(np.maximum(g["ci_high"].to_numpy(dtype=float), g["mean"].to_numpy(dtype=float))))
            for lines in panels.values()
            for g, _, _ in lines.values()
            if not g.empty
        )
        axes.flat[0].set_ylim(0, top * scale * 1.05 if np.isfinite(top) and top > 0 else 1)
        for i in range(len(panels), nrow * ncol):
            axes.flat[i].set_visible(False)
            if i >= ncol:  # the panel above an empty slot shows the time axis
                axes.flat[i - ncol].xaxis.set_tick_params(labelbottom=True)
                axes.flat[i - ncol].set_xlabel("time (s)")
        for ax in axes[-1, :]:
            ax.set_xlabel("time (s)")
        for ax in axes[:, 0]:
            ax.set_ylabel(ylabel)
        handles, names = axes.flat[0].get_legend_handles_labels()
        if len(names) > 1:
            fig.legend(handles, names, loc="outside lower center", ncol=min(4, len(names)))
        fig.suptitle(title, x=0.01, ha="left", fontsize=style.FONT_PT + 1)
        paths = style.save(fig, out / name, pdf)
    return Plot(name, title, caption, paths)


def _bars(
    rows: pd.DataFrame,
    metrics: Mapping[str, str],
    cases: Sequence[str],
    *,
    ylabel: str,
    out: Path,
    name: str,
    title: str,
    caption: str,
    pdf: bool,
    scale: float = 1.0,
    hline: float | None = None,
    logy: bool = False,
) -> Plot | None:
    """Bars per case (colour) for each metric (group on the x axis), with 95% intervals."""
    cases = [c for c in cases if (rows[CASE] == c).any()]
    if not cases:
        return None
    table = stats.describe(rows[rows[CASE].isin(cases)], [CASE], list(metrics))
    width = 0.8 / len(cases)
    with style.house_style():
        fig, ax = style.figure(style.WIDE_IN if len(metrics) > 1 else style.WIDTH_IN, style.HEIGHT_IN)
        for i, case in enumerate(cases):
            g = table[table[CASE] == case].set_index("metric").reindex(list(metrics))
            pos = np.arange(len(metrics)) - 0.4 + width * (i + 0.5)
            err = np.vstack([(g["mean"] - g["ci_low"]).to_numpy(), (g["ci_high"] - g["mean"]).to_numpy()]) * scale
            color, ls = look(case)
            ax.bar(
                pos,
                g["mean"] * scale,
                width,
                yerr=np.nan_to_num(err),
                color=color,
                hatch="///" if ls != "-" else None,
                edgecolor="white" if ls != "-" else color,
                lw=0,
                label=label(case),
                capsize=2,
                error_kw={"lw": 0.8},
            )
        if hline is not None:
            ax.axhline(hline, color=style.GREY, lw=0.8, ls=":")
        ax.set_xticks(range(len(metrics)), list(metrics.values()))
        if logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        ax.set_title(title, loc="left")
        ax.grid(axis="x", visible=False)
        style.legend_below(ax, ncol=min(4, len(cases)))
        paths = style.save(fig, out / name, pdf)
    return Plot(name, title, caption, paths)


def _best(rows: pd.DataFrame, metric: str, cases: Sequence[str], lowest: bool) -> str:
    m = rows[rows[CASE].isin(cases)].groupby(CASE)[metric].mean().dropna()
    if m.empty:
        return "-"
    c = str(m.idxmin() if lowest else m.idxmax())
    return f"{label(c)} ({num(float(m[c]))})"


def _period_axis(ax: Axes, periods: Sequence[float]) -> None:
    """A log axis of the square wave's period, ticked at the periods swept."""
    ax.set_xscale("log")
    ax.set_xticks(list(periods), [num(p) for p in periods])
    ax.minorticks_off()
    ax.set_xlabel("period of the square wave (s)")
