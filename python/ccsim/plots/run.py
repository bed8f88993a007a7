"""The figures of one run: queue, throughput, congestion window, drop probability, delay CDF.

Each function draws one figure from a `Result` and returns a `Plot` (its
files and a caption computed from the data), or None when the run has
nothing to show (no TCP flow for the cwnd figure, no AQM probability, the
bottleneck not sampled).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes

from ccsim.paths import META_FILE
from ccsim.plots import labels, style
from ccsim.results import Result

MBIT = 1e6
MAX_LEGEND_FLOWS = 6


class PlotError(ValueError):
    """A figure cannot be drawn as asked (an unknown parameter or metric, nothing to plot)."""


@dataclass
class Plot:
    """One figure: its name (file stem), title, a caption computed from the data, and its files."""

    name: str
    title: str
    caption: str
    paths: list[Path] = field(default_factory=list)

    def path(self, ext: str) -> Path:
        """The file with extension `ext` ("png", "svg", "pdf")."""
        for p in self.paths:
            if p.suffix == f".{ext}":
                return p
        raise KeyError(f"{self.name}: no .{ext} file")


def read_meta(run_dir: Path) -> dict[str, Any]:
    """meta.json of a run folder (written by `ccsim run`), {} when absent or unreadable."""
    try:
        data = json.loads((run_dir / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _series(result: Result, entity: str, metric: str) -> pd.Series | None:
    try:
        return result.series(entity, metric)
    except KeyError:
        return None


def _window(ax: Axes, result: Result) -> None:
    """Shade the warmup (outside the metrics window)."""
    warmup = float(result.data.get("warmup_s", 0.0))
    if warmup > 0:
        ax.axvspan(0, warmup, color=style.GREY, alpha=0.15, lw=0, label="warmup")


def _bottleneck(result: Result) -> tuple[str, str]:
    link = str(result.summary.get("bottleneck_link", ""))
    kinds = dict(zip(result.queues["link"], result.queues["kind"], strict=True)) if len(result.queues) else {}
    return link, str(kinds.get(link, ""))


def moving_mean(values: npt.NDArray[np.float64], n: int) -> npt.NDArray[np.float64]:
    """Mean of the last `n` samples at each sample (fewer at the start)."""
    c = np.cumsum(np.insert(values, 0, 0.0))
    k = np.arange(1, len(values) + 1)
    lo = np.maximum(k - n, 0)
    return (c[k] - c[lo]) / (k - lo)


def queue_plot(result: Result, out: Path, pdf: bool) -> Plot | None:
    """Instantaneous and average queue length of the bottleneck against time."""
    link, kind = _bottleneck(result)
    inst = _series(result, link, "len_pkts")
    if inst is None or inst.empty:
        return None
    label = labels.queue_label(kind, labels.queue_spec(result.components, link))
    avg = _series(result, link, "avg")
    t = inst.index.to_numpy()
    with style.house_style():
        fig, ax = style.figure()
        _window(ax, result)
        ax.plot(t, inst.to_numpy(), color=style.color(kind), lw=0.8, label="instantaneous")
        if avg is not None:
            ax.plot(avg.index.to_numpy(), avg.to_numpy(), color=style.BLACK, lw=1.2, label=f"{kind} average (EWMA)")
            avg_note = f"{kind}'s EWMA average"
        else:
            dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
            n = max(1, round(1.0 / dt)) if dt > 0 else 1
            ax.plot(t, moving_mean(inst.to_numpy(), n), color=style.BLACK, lw=1.2, label=f"mean over {n * dt:g} s")
            avg_note = f"a moving mean over {n * dt:g} s"
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue length (packets)")
        ax.set_title(f"{link}: {label}", loc="left")
        ax.set_ylim(bottom=0)
        style.legend_below(ax)
        paths = style.save(fig, out / "queue", pdf)
    q = result.queues.set_index("link").loc[link]
    caption = (
        f"Queue at the bottleneck {link} ({label}), sampled every {_interval(t)} s, with {avg_note}. "
        f"Over the metrics window it held {q['avg_len_pkts']:.1f} packets on average "
        f"(at most {int(q['max_len_pkts'])}), and dropped {int(q['drops'])} of {int(q['arrivals'])} arrivals "
        f"({100 * q['loss_rate']:.2f}%)."
    )
    return Plot("queue", "Bottleneck queue length", caption, paths)


def _interval(t: npt.NDArray[np.float64]) -> str:
    return f"{float(np.median(np.diff(t))):g}" if len(t) > 1 else "?"


def _flow_series(result: Result, metric: str) -> dict[str, pd.Series]:
    ts = result.timeseries
    sel = ts[(ts["entity_kind"] == "flow") & (ts["metric"] == metric)]
    out: dict[str, pd.Series] = {}
    for flow, g in sel.groupby("entity", sort=False, observed=True):
        out[str(flow)] = pd.Series(g["value"].to_numpy(), index=g["time_s"].to_numpy())
    return out


def _group_of(result: Result) -> dict[str, str]:
    return dict(zip(result.flows["name"], result.flows["group"], strict=True)) if len(result.flows) else {}


def _group_labels(result: Result) -> dict[str, str]:
    specs = labels.group_specs(result.components)
    out = {}
    for _, f in result.flows.drop_duplicates("group").iterrows():
        out[str(f["group"])] = labels.group_label(str(f["group"]), str(f["transport"]), specs.get(str(f["group"]), {}))
    return out


def _group_algorithm(result: Result) -> dict[str, str]:
    """Flow group -> the name its colour follows: its TCP congestion control (resolved by the engine) or transport."""
    specs = labels.group_specs(result.components)
    out = {}
    for _, f in result.flows.drop_duplicates("group").iterrows():
        g, transport = str(f["group"]), str(f["transport"])
        spec = specs.get(g, {})
        out[g] = str(spec.get("cc", transport)) if transport == "tcp" else transport
    return out


def _per_flow(ax: Axes, series: dict[str, pd.Series], result: Result, scale: float) -> None:
    """One line per flow, coloured by its algorithm; named one by one when few, by group when many."""
    groups = _group_of(result)
    glabels = _group_labels(result)
    algo = _group_algorithm(result)
    many = len(series) > MAX_LEGEND_FLOWS
    seen: dict[str, int] = {}
    for flow, s in series.items():
        g = groups.get(flow, flow)
        lk = style.look(algo.get(g, g))
        k = seen.get(g, 0)
        seen[g] = k + 1
        if many:
            n = sum(1 for f in series if groups.get(f) == g)
            label = f"{glabels.get(g, g)} ({n} flows)" if k == 0 else None
            ax.plot(s.index, s.to_numpy() / scale, color=lk.color, lw=0.5, alpha=0.5, label=label)
        else:
            ls = style.LINESTYLES[k % len(style.LINESTYLES)]
            ax.plot(s.index, s.to_numpy() / scale, color=lk.color, ls=ls, lw=0.9, label=f"{flow} ({glabels.get(g, g)})")


def throughput_plot(result: Result, out: Path, pdf: bool) -> Plot | None:
    """Per-flow and aggregate throughput against time."""
    series = _flow_series(result, "throughput_bps")
    if not series:
        return None
    agg = sum(series.values())
    assert isinstance(agg, pd.Series)
    link, _ = _bottleneck(result)
    rate = result.links.set_index("link")["rate_bps"].get(link) if len(result.links) else None
    with style.house_style():
        fig, ax = style.figure()
        _window(ax, result)
        _per_flow(ax, series, result, MBIT)
        ax.plot(agg.index, agg.to_numpy() / MBIT, color=style.BLACK, lw=1.4, label="aggregate")
        if rate:
            ax.axhline(rate / MBIT, color=style.GREY, ls=":", lw=1.0, label=f"{link} capacity")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("throughput (Mbit/s)")
        ax.set_title("Throughput at the receivers", loc="left")
        ax.set_ylim(bottom=0)
        style.legend_below(ax)
        paths = style.save(fig, out / "throughput", pdf)
    s = result.summary
    flows = result.flows
    best = flows.loc[flows["throughput_bps"].idxmax()]
    worst = flows.loc[flows["throughput_bps"].idxmin()]
    caption = (
        f"Throughput (data bytes arriving at the receiver per sample interval) of {len(series)} flows and their sum. "
        f"Over the metrics window the aggregate averaged {s['throughput_bps'] / MBIT:.2f} Mbit/s"
        + (f" ({100 * s['throughput_bps'] / rate:.0f}% of the {rate / MBIT:g} Mbit/s bottleneck)" if rate else "")
        + f"; per flow from {worst['throughput_bps'] / MBIT:.3f} ({worst['name']}) "
        f"to {best['throughput_bps'] / MBIT:.3f} Mbit/s ({best['name']}), Jain's index {s['jain_index']:.3f}."
    )
    return Plot("throughput", "Throughput", caption, paths)


def cwnd_plot(result: Result, out: Path, pdf: bool) -> Plot | None:
    """Congestion window of the TCP flows against time."""
    series = _flow_series(result, "cwnd_pkts")
    if not series:
        return None
    with style.house_style():
        fig, ax = style.figure()
        _window(ax, result)
        _per_flow(ax, series, result, 1.0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("congestion window (packets)")
        ax.set_title("Congestion window", loc="left")
        ax.set_ylim(bottom=0)
        style.legend_below(ax)
        paths = style.save(fig, out / "cwnd", pdf)
    means = result.flows.dropna(subset=["cwnd_mean_pkts"])
    lo = means.loc[means["cwnd_mean_pkts"].idxmin()]
    hi = means.loc[means["cwnd_mean_pkts"].idxmax()]
    caption = (
        f"Congestion window of the {len(series)} window-based flows (ns-2's cwnd_, recovery inflation included). "
        f"Mean window over the metrics window from {lo['cwnd_mean_pkts']:.1f} packets ({lo['name']}) "
        f"to {hi['cwnd_mean_pkts']:.1f} ({hi['name']}); {int(result.flows['timeouts'].sum())} timeouts and "
        f"{int(result.flows['fast_retransmits'].sum())} fast retransmits in all."
    )
    return Plot("cwnd", "Congestion window", caption, paths)


def drop_prob_plot(result: Result, out: Path, pdf: bool) -> Plot | None:
    """Drop/mark probability of the AQMs that expose one (probes named drop_prob*)."""
    ts = result.timeseries
    sel = ts[(ts["entity_kind"] == "queue") & ts["metric"].astype(str).str.startswith("drop_prob")]
    if sel.empty:
        return None
    kinds = dict(zip(result.queues["link"], result.queues["kind"], strict=True))
    busy = set(result.queues.loc[result.queues["arrivals"] > 0, "link"])
    sel = sel[sel["entity"].astype(str).isin(busy)]
    if sel.empty:
        return None
    stats = []
    with style.house_style():
        fig, ax = style.figure()
        _window(ax, result)
        for i, ((link, metric), g) in enumerate(sel.groupby(["entity", "metric"], sort=False, observed=True)):
            kind = kinds.get(str(link), "")
            lk = style.look(kind)
            label = f"{link} {labels.queue_label(kind, labels.queue_spec(result.components, str(link)))}"
            if metric != "drop_prob":
                label += f" [{metric}]"
            ax.plot(
                g["time_s"], g["value"], color=lk.color, ls=style.LINESTYLES[i % len(style.LINESTYLES)], label=label
            )
            inside = g[g["time_s"] > float(result.data.get("warmup_s", 0.0))]["value"]
            stats.append((str(link), str(metric), float(inside.mean()), float(inside.max())))
        ax.set_xlabel("time (s)")
        ax.set_ylabel("drop/mark probability")
        ax.set_title("AQM drop/mark probability", loc="left")
        ax.set_ylim(bottom=0)
        style.legend_below(ax)
        paths = style.save(fig, out / "drop_prob", pdf)
    parts = [f"{m} at {lk}: mean {mean:.4f}, max {mx:.4f}" for lk, m, mean, mx in stats]
    caption = (
        "Drop (or ECN mark) probability the AQM computes, sampled over time; over the metrics window "
        + "; ".join(parts)
        + "."
    )
    return Plot("drop_prob", "Drop/mark probability", caption, paths)


def delay_plot(result: Result, out: Path, pdf: bool) -> Plot | None:
    """CDF of the one-way delay, per flow group (and of all flows when there are several groups)."""
    d = result.delays
    if d.empty:
        return None
    groups = _group_of(result)
    glabels = _group_labels(result)
    d = d.assign(group=d["flow"].astype(str).map(groups))
    rows = []
    with style.house_style():
        fig, ax = style.figure()
        names = list(dict.fromkeys(d["group"]))
        algo = _group_algorithm(result)
        for i, g in enumerate(names):
            x, y = _cdf(d[d["group"] == g])
            lk = style.look(algo.get(g, g))
            lk = style.Look(lk.color, style.LINESTYLES[i % len(style.LINESTYLES)], lk.marker)
            ax.step(x * 1e3, y, where="post", color=lk.color, ls=lk.linestyle, label=glabels.get(g, g))
            rows.append((g, _quantile(x, y, 0.5), _quantile(x, y, 0.99)))
        if len(names) > 1:
            x, y = _cdf(d)
            ax.step(x * 1e3, y, where="post", color=style.BLACK, lw=1.4, label="all flows")
        ax.set_xlabel("one-way delay (ms)")
        ax.set_ylabel("fraction of packets")
        ax.set_ylim(0, 1.02)
        ax.set_title("One-way delay", loc="left")
        style.legend_below(ax)
        paths = style.save(fig, out / "delay_cdf", pdf)
    flows = result.flows.dropna(subset=["delay_mean_s"])
    best = flows.loc[flows["delay_mean_s"].idxmin()]
    parts = [f"{g}: median {m * 1e3:.2f} ms, 99th percentile {p * 1e3:.2f} ms" for g, m, p in rows]
    caption = (
        "Distribution of the one-way delay of the data packets received in the metrics window "
        "(from a histogram with 0.4% bucket resolution). "
        + "; ".join(parts)
        + f". Lowest mean delay: {best['name']} ({best['delay_mean_s'] * 1e3:.2f} ms)."
    )
    return Plot("delay_cdf", "One-way delay CDF", caption, paths)


def _cdf(d: pd.DataFrame) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    g = d.groupby("delay_s", sort=True)["count"].sum()
    x = g.index.to_numpy(dtype=np.float64)
    c = np.cumsum(g.to_numpy(dtype=np.float64))
    return x, c / c[-1]


def _quantile(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], q: float) -> float:
    return float(x[min(int(np.searchsorted(y, q)), len(x) - 1)])


PLOTS = (queue_plot, throughput_plot, cwnd_plot, drop_prob_plot, delay_plot)


def plot_run(run_dir: str | Path, out_dir: str | Path | None = None, pdf: bool = False) -> list[Plot]:
    """Draw every figure of the run in `run_dir` into `out_dir` (default RUN_DIR/plots); return them."""
    run = Path(run_dir)
    result = Result.read(run)
    return plot_result(result, Path(out_dir) if out_dir is not None else run / "plots", pdf)


def plot_result(result: Result, out: Path, pdf: bool = False) -> list[Plot]:
    """Draw every figure of `result` into `out`; return them (figures with nothing to show are left out)."""
    plots = []
    for fn in PLOTS:
        p = fn(result, out, pdf)
        if p is not None:
            plots.append(p)
    return plots
