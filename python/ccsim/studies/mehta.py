"""The mehta study (docs/studies/mehta-slowcc.md): slowly-responsive congestion control in three experiments.

Mehta, Sharma and Verma's seed repeats, in ns-2, the experiments of Bansal,
Balakrishnan, Floyd and Shenker ("Dynamic Behavior of Slowly-Responsive
Congestion Control Algorithms", SIGCOMM 2001). Three parts:

- `main` (Table 1, Figure 6): 15 long-lived flows of one kind against a CBR
  source on during [0, 100] s and again from 150 s, over RED: the drop rate
  after the CBR restarts (how high, how long: Bansal et al.'s stabilization
  time and cost), the drop rate while it is off, and how fast the flows take
  up the bandwidth it leaves (f(k));
- `flash` (Figures 7-14): a flash crowd of 1000 ten-packet TCP transfers at
  100 flows/s against 15 long-lived flows of one kind: the aggregate
  throughput of both against time, the crowd's share and completion times;
- `square` (Table 7.2, Figures 15-19): 7 TCP and 7 flows of another kind
  (TFRC(8), TCP(1/8), SQRT(1/2)) under a square-wave CBR source: throughput
  against time at one period, and normalized by the fair share against the
  period.

The claims and their readings (what "negligible", "respond earlier",
"TCP-compatible" are taken to mean) are listed in docs/studies/mehta-slowcc.md.

Every window below is taken from each run's own scenario (its CBR schedule,
the crowd's start and size), so the quick variants, which compress the
schedules, are measured the same way. The measures are ccsim.measures'
(docs/measures.md), fed from the stored time series.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from ccsim import measures, stats
from ccsim.plots import style
from ccsim.plots.run import Plot
from ccsim.studies.claims import (
    AGREES,
    DIRECTION,
    DISAGREES,
    PARTLY,
    UNTESTED,
    Claim,
    ci,
    holm_all,
    num,
    p_text,
    pair,
)
from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_queue, link_rate_bps
from ccsim.studies.core import BOTTLENECK, CASE, Part, Study, StudyData, Table
from ccsim.studies.tables import StudyTable, StudyTables
from ccsim.sweep.store import SweepResults

if TYPE_CHECKING:
    from matplotlib.axes import Axes

MAIN, FLASH, SQUARE = "main", "flash", "square"
LONG, CROWD, CBR, TCP_GROUP, OTHER = "slowcc", "crowd", "cbr", "tcp", "other"

LABELS = {
    "tcp": "TCP",
    "aimd_1_8": "TCP(1/8)",
    "aimd_1_256": "TCP(1/256)",
    "sqrt_1_256": "SQRT(1/256)",
    "sqrt_1_2": "SQRT(1/2)",
    "iiad_1_2": "IIAD(1/2)",
    "tfrc_8": "TFRC(8)",
    "tfrc_256": "TFRC(256)",
    "tfrc_256_sc": "TFRC(256) self-clocked",
}
"""The cases' names in the paper's notation (TCP(b) is AIMD with decrease b, TFRC(n) averages n loss intervals)."""

# One look per kind across every figure: Okabe-Ito colours, a second line style for a variant.
_LOOKS = {
    "tcp": (style.BLACK, "-"),
    "aimd_1_8": ("#56B4E9", "-"),
    "aimd_1_256": ("#0072B2", "--"),
    "sqrt_1_256": ("#E69F00", "-"),
    "sqrt_1_2": ("#E69F00", "--"),
    "iiad_1_2": ("#CC79A7", "-"),
    "tfrc_8": ("#009E73", "-"),
    "tfrc_256": ("#D55E00", "-"),
    "tfrc_256_sc": ("#D55E00", "--"),
}
TABLE1 = ("tcp", "aimd_1_256", "sqrt_1_256", "tfrc_256", "tfrc_256_sc")
"""The kinds of the paper's Table 1 (TCP AIMD(1/2) is TCP): the lines of its Figure 6."""
SLOW_MAIN = ("aimd_1_256", "sqrt_1_256", "tfrc_256")
"""The slowly-responsive kinds Bansal et al. compare with TCP after the CBR restarts."""
EARLY_FLASH = ("tfrc_256_sc", "sqrt_1_2", "iiad_1_2")
"""The kinds the paper says respond earlier to the flash crowd ..."""
LATE_FLASH = ("aimd_1_256", "tfrc_256")
"""... than these (our reading: the other slowly-responsive kinds of its Figures 8-14)."""
MID_PERIODS = (1.0, 2.0, 4.0, 10.0)
"""The square wave's periods 'between 1 and 10 s' where the paper says TCP gets more than TFRC."""
NEGLIGIBLE = 0.01
"""Our reading of a 'negligible' drop rate: below 1%."""
COMPATIBLE = 1.1
"""Our reading of 'about TCP's throughput' (TCP-compatible): the ratio within 1/1.1 and 1.1."""


def label(case: str) -> str:
    """A case's name in the paper's notation."""
    return LABELS.get(case, case)


def look(case: str) -> tuple[str, str]:
    """(colour, line style) of a case."""
    return _LOOKS.get(case, (style.color(case), "-"))


# ---- reading the runs ----

_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us|ns)?\s*$")
_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kMG]?)bps\s*$")


def seconds(value: object) -> float:
    """A scenario time ("150s", "100ms") or a number of seconds."""
    if isinstance(value, int | float):
        return float(value)
    m = _TIME.match(str(value))
    if not m:
        raise ValueError(f"not a time: {value!r}")
    return float(m.group(1)) * {"s": 1.0, None: 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2)]


def bits_per_s(value: object) -> float:
    """A scenario rate ("10Mbps") or a number of bit/s."""
    if isinstance(value, int | float):
        return float(value)
    m = _RATE.match(str(value))
    if not m:
        raise ValueError(f"not a rate: {value!r}")
    return float(m.group(1)) * {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


@dataclass(frozen=True)
class Setup:
    """What a run's scenario fixes that the measures need."""

    duration: float
    warmup: float
    rtt: float
    """round-trip propagation delay of the dumbbell (2 x (access + bottleneck + access))."""
    link_bps: float
    groups: dict[str, dict[str, Any]]

    def group(self, name: str) -> dict[str, Any]:
        """A flow group of the scenario."""
        return self.groups[name]


def setup(res: SweepResults, run_id: str) -> Setup:
    """The run's scenario, read from its stored JSON."""
    row = res.runs.loc[res.runs.run_id == run_id].iloc[0]
    sc = json.loads(row["scenario"])
    topo = sc["topology"]
    rtt = 2 * (2 * seconds(topo["access"]["delay"]) + seconds(topo["bottleneck"]["delay"]))
    groups = {str(g.get("group", f"g{i}")): g for i, g in enumerate(sc["flows"])}
    return Setup(
        seconds(sc["duration"]),
        seconds(sc.get("warmup", 0)),
        rtt,
        bits_per_s(topo["bottleneck"]["rate"]),
        groups,
    )


class Series:
    """One run's time series, with the `series(entity, metric, kind)` that ccsim.measures reads from a Result."""

    def __init__(self, ts: pd.DataFrame) -> None:
        self._s: dict[tuple[str, str, str], pd.Series] = {}
        for (kind, entity, metric), g in ts.groupby(["entity_kind", "entity", "metric"], observed=True, sort=False):
            idx = pd.Index(g["time_s"].to_numpy(dtype=np.float64), name="time_s")
            self._s[(str(kind), str(entity), str(metric))] = pd.Series(g["value"].to_numpy(dtype=np.float64), index=idx)

    def series(self, entity: str, metric: str, kind: str | None = None) -> pd.Series:
        """One sampled series indexed by time (as `Result.series`)."""
        for (k, e, m), s in self._s.items():
            if e == entity and m == metric and (kind is None or k == kind):
                return s
        raise KeyError(f"no series {metric!r} for {entity!r}")

    def binned(self, entity: str, metric: str, width: float, kind: str | None = None) -> pd.Series:
        """Mean of a series over bins (k w, (k + 1) w], indexed by the bin's end."""
        s = self.series(entity, metric, kind)
        return s.groupby(_bin_end(s.index, width)).mean()

    def binned_drop_rate(self, link: str, width: float) -> pd.Series:
        """The pooled drop rate (drops / arrivals) of a queue per bin (0 where nothing arrived)."""
        d = self.series(link, "drops", "queue")
        a = self.series(link, "arrivals", "queue")
        bins = _bin_end(d.index, width)
        drops, arrivals = d.groupby(bins).sum(), a.groupby(bins).sum()
        return (drops / arrivals.where(arrivals > 0)).fillna(0.0)


def _bin_end(index: pd.Index, width: float) -> np.ndarray:
    t = index.to_numpy(dtype=np.float64)
    return np.round(np.ceil(t / width - 1e-9) * width, 9)


@lru_cache(maxsize=256)
def _read(path: str) -> Series:
    return Series(pd.read_parquet(path))


def series(res: SweepResults, run_id: str) -> Series:
    """A run's time series (cached: the tables and the figures read the same runs)."""
    row = res.runs.loc[res.runs.run_id == run_id]
    rel = row["timeseries"].iloc[0]
    if not isinstance(rel, str):
        raise KeyError(f"run {run_id!r} has no time series")
    return _read(str(res.out_dir / rel))


def ok_runs(res: SweepResults) -> pd.DataFrame:
    """The successful runs."""
    return res.runs[res.runs.status == "ok"]


# ---- the main part: CBR restart ----


@dataclass(frozen=True)
class Schedule:
    """The CBR source's schedule in a run of the main part and the windows measured from it."""

    off: float
    """when the CBR stops (100 s)."""
    on: float
    """when it restarts (150 s)."""
    end: float
    """the end of the run (250 s)."""

    @property
    def restart_window(self) -> tuple[float, float]:
        """The first twentieth of the second on-period (5 s of 100)."""
        return (self.on, self.on + (self.end - self.on) / 20)

    @property
    def steady(self) -> tuple[float, float]:
        """The second half of the second on-period: the steady state for the reduced bandwidth."""
        return (self.on + (self.end - self.on) / 2, self.end)

    @property
    def idle(self) -> tuple[float, float]:
        """The CBR's off period."""
        return (self.off, self.on)


def schedule(s: Setup) -> Schedule:
    """The main part's CBR schedule: on [a0, b0] then from a1."""
    on = [(seconds(a), seconds(b)) for a, b in s.group(CBR)["on"]]
    return Schedule(on[0][1], on[1][0], s.duration)


def main_rows(res: SweepResults) -> pd.DataFrame:
    """One row per run of the main part: whole-run losses and shares, and the dynamic measures."""
    df = base_runs(res)
    q, link = bottleneck_queue(res), bottleneck_link(res)
    flows = res.flows
    slow = flows[flows.group == LONG].groupby("run_id")
    cbr = flows[flows.group == CBR].groupby("run_id")
    rate = link_rate_bps(df, link)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["slowcc_loss_rate"] = df.run_id.map(slow.lost_packets.sum() / slow.sent_packets.sum())
    df["slowcc_goodput_norm"] = df.run_id.map(slow.goodput_bps.sum()) / rate
    df["cbr_goodput_norm"] = df.run_id.map(cbr.goodput_bps.sum()) / rate
    df["utilization"] = df.bottleneck_utilization
    extra: list[dict[str, float]] = []
    for rid in df.run_id:
        s = setup(res, rid)
        sch = schedule(s)
        ts = series(res, rid)
        stab = measures.stabilization(ts, BOTTLENECK, sch.on, s.rtt, sch.steady)  # type: ignore[arg-type]
        if stab is None:
            # never within 1.5 times the steady state before the run ends: censored at the end
            t = sch.steady[1] - sch.on
            stab_time, stab_cost = t, t / s.rtt * measures.drop_rate_over(ts, BOTTLENECK, sch.on, sch.steady[1])  # type: ignore[arg-type]
        else:
            stab_time, stab_cost = stab.time_s, stab.cost
        idle_rtts = (sch.on - sch.off) / s.rtt
        lo, hi = sch.restart_window
        windows = measures.windowed_drop_rate(ts, BOTTLENECK, 10 * s.rtt, lo)  # type: ignore[arg-type]
        extra.append(
            {
                "restart_peak_drop_rate": float(windows[windows.index <= hi + 1e-9].max()),
                "restart_drop_rate": measures.drop_rate_over(ts, BOTTLENECK, lo, hi),  # type: ignore[arg-type]
                "steady_drop_rate": measures.drop_rate_over(ts, BOTTLENECK, *sch.steady),  # type: ignore[arg-type]
                "idle_drop_rate": measures.drop_rate_over(ts, BOTTLENECK, *sch.idle),  # type: ignore[arg-type]
                "stab_time_s": stab_time,
                "stab_cost": stab_cost,
                "f20": _f_k(ts, sch.off, min(20.0, idle_rtts), s),
                "f200": _f_k(ts, sch.off, min(200.0, idle_rtts), s),
            }
        )
    return pd.concat([df.reset_index(drop=True), pd.DataFrame(extra)], axis=1)


def _f_k(ts: Series, t1: float, k: float, s: Setup) -> float:
    # After the CBR stops the whole link is available to the long-lived flows.
    return measures.f_k(ts, LONG, t1=t1, k=k, rtt=s.rtt, available_bps=s.link_bps)  # type: ignore[arg-type]


# ---- the flash part ----


@dataclass(frozen=True)
class Crowd:
    """The flash crowd of a run: when it arrives and for how long (count / arrival rate)."""

    start: float
    span: float
    count: int


def crowd(s: Setup) -> Crowd:
    """The crowd's arrival window."""
    g = s.group(CROWD)
    count = int(g["count"])
    return Crowd(seconds(g["start"]), count / float(g["arrival_rate"]), count)


def flash_rows(res: SweepResults) -> pd.DataFrame:
    """One row per run of the flash part: the crowd's share and completion times, the long flows' yield."""
    df = base_runs(res)
    f = res.flows
    web = f[f.group == CROWD].groupby("run_id")
    df["crowd_fct_mean_s"] = df.run_id.map(web.fct_s.mean())
    df["crowd_fct_p90_s"] = df.run_id.map(web.fct_s.quantile(0.9))
    df["crowd_completed"] = df.run_id.map(web.fct_s.count() / web.size())
    df["utilization"] = df.bottleneck_utilization
    extra = []
    for rid in df.run_id:
        s = setup(res, rid)
        c = crowd(s)
        ts = series(res, rid)
        during = (c.start, c.start + c.span)
        before = (max(0.0, c.start - c.span), c.start)

        def share(group: str, w: tuple[float, float], ts: Series = ts, s: Setup = s) -> float:
            return measures.window_mean(ts.series(group, "throughput_bps", "group"), *w) / s.link_bps

        extra.append(
            {
                "crowd_share": share(CROWD, during),
                "long_share_before": share(LONG, before),
                "long_share_during": share(LONG, during),
                "crowd_drop_rate": measures.drop_rate_over(ts, BOTTLENECK, *during),  # type: ignore[arg-type]
            }
        )
    return pd.concat([df.reset_index(drop=True), pd.DataFrame(extra)], axis=1)


# ---- the square part ----

PERIOD = "flows[2].period"


def fair_share_bps(s: Setup) -> float:
    """(C - c d) / n: the link less the CBR's mean rate, over the long-lived flows (Bansal et al. 4.3)."""
    cbr = s.group(CBR)
    n = sum(int(s.group(g).get("count", 1)) for g in (TCP_GROUP, OTHER))
    return (s.link_bps - bits_per_s(cbr["rate"]) * float(cbr.get("duty", 1.0))) / n


def square_rows(res: SweepResults) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per run and group: throughput normalized by the fair share; per run: the link and the TCP/other ratio)."""
    runs = base_runs(res)
    runs["period_s"] = runs[PERIOD].map(seconds)
    runs = runs.sort_values([CASE, "period_s"], kind="stable").reset_index(drop=True)
    q = bottleneck_queue(res)
    fair = {rid: fair_share_bps(setup(res, rid)) for rid in runs.run_id}
    f = res.flows[res.flows.group.isin([TCP_GROUP, OTHER])]
    # throughput: wire bytes of data at the receiver per flow over the metrics window, as the fair share counts
    per_group = f.groupby(["run_id", "group"], observed=True).throughput_bps.mean().rename("per_flow_bps")
    groups = runs[["run_id", CASE, PERIOD, "period_s"]].merge(per_group.reset_index(), on="run_id")
    groups["norm_throughput"] = groups.per_flow_bps / groups.run_id.map(fair)
    groups = groups.sort_values([CASE, "period_s", "group"], kind="stable").reset_index(drop=True)
    wide = groups.pivot_table(index="run_id", columns="group", values="norm_throughput")
    runs["utilization"] = runs.bottleneck_utilization
    runs["queue_loss_rate"] = runs.run_id.map(q.loss_rate)
    runs["tcp_norm"] = runs.run_id.map(wide[TCP_GROUP])
    runs["other_norm"] = runs.run_id.map(wide[OTHER])
    runs["tcp_to_other"] = runs.tcp_norm / runs.other_norm
    return groups, runs


# ---- tables ----


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """The tables of the three parts."""
    out: list[tuple[Table, pd.DataFrame]] = []
    if MAIN in data.parts:
        rows = main_rows(data[MAIN])
        out.append(
            (
                Table(
                    "loss",
                    "Figure 6: drop rate at RED and the flows' shares, per kind of the 15 long-lived flows "
                    "(after the restart: the first 5% of the second CBR period, pooled, and its highest 10-RTT "
                    "window; steady: the period's second half; CBR off: the gap between the periods)",
                    {
                        "restart_peak_drop_rate": "peak drop rate after the restart (10 RTTs)",
                        "restart_drop_rate": "drop rate after the restart",
                        "steady_drop_rate": "drop rate, steady (CBR on)",
                        "idle_drop_rate": "drop rate, CBR off",
                        "queue_loss_rate": "drop rate, whole run",
                        "slowcc_loss_rate": "flows' loss rate",
                        "slowcc_goodput_norm": "flows' goodput / link",
                        "cbr_goodput_norm": "CBR goodput / link",
                        "utilization": "utilization",
                        "jain_index": "Jain's index (the 15 flows)",
                    },
                    rank=("restart_peak_drop_rate", "restart_drop_rate"),
                    part=MAIN,
                ),
                rows,
            )
        )
        out.append(
            (
                Table(
                    "stabilization",
                    "After the CBR restarts: stabilization time and cost (Bansal et al. 4.1; 10-RTT windows, "
                    "within 1.5 x the steady drop rate); after it stops: f(20) and f(200), the fraction of "
                    "the link the flows use in the first 20 and 200 RTTs (4.2)",
                    {
                        "stab_time_s": "stabilization time (s)",
                        "stab_cost": "stabilization cost (RTTs x drop rate)",
                        "f20": "f(20)",
                        "f200": "f(200)",
                    },
                    rank=("stab_cost", "f20"),
                    part=MAIN,
                    higher={"stab_time_s": False, "stab_cost": False, "f20": True, "f200": True},
                ),
                rows,
            )
        )
    if FLASH in data.parts:
        out.append(
            (
                Table(
                    "flash",
                    "Figures 7-14: the flash crowd against 15 long-lived flows of each kind (shares of the link "
                    "over the crowd's arrival window, and the 10 s before it for the long flows)",
                    {
                        "crowd_share": "crowd's share during the crowd",
                        "crowd_fct_mean_s": "crowd's mean FCT (s)",
                        "crowd_fct_p90_s": "crowd's 90th pct FCT (s)",
                        "crowd_completed": "crowd flows completed",
                        "long_share_before": "long flows' share before",
                        "long_share_during": "long flows' share during",
                        "crowd_drop_rate": "drop rate during the crowd",
                        "utilization": "utilization",
                    },
                    rank=("crowd_fct_mean_s", "crowd_drop_rate"),
                    part=FLASH,
                    higher={"crowd_share": True, "long_share_before": True, "long_share_during": False},
                ),
                flash_rows(data[FLASH]),
            )
        )
    if SQUARE in data.parts:
        groups, runs = square_rows(data[SQUARE])
        out.append(
            (
                Table(
                    "square",
                    "Figures 17-19: throughput per flow normalized by the fair share ((15 - 10 x 0.5) Mbps / 14), "
                    "TCP and the other kind, against the square wave's period",
                    {"norm_throughput": "normalized throughput"},
                    extra_by=("group",),
                    part=SQUARE,
                ),
                groups,
            )
        )
        out.append(
            (
                Table(
                    "square_link",
                    "Square wave: the bottleneck's utilization and drop rate, and TCP's normalized throughput "
                    "over the other kind's",
                    {
                        "utilization": "utilization",
                        "queue_loss_rate": "drop rate",
                        "tcp_to_other": "TCP / other",
                    },
                    part=SQUARE,
                ),
                runs,
            )
        )
    return out


# ---- figures ----


def _mean_ci(frames: Sequence[pd.Series]) -> pd.DataFrame:
    """Mean and 95% t interval across runs of series sharing their index: columns time_s, mean, ci_low, ci_high, n."""
    if not frames:
        return pd.DataFrame(columns=["time_s", "mean", "ci_low", "ci_high", "n"])
    data = pd.concat(
        [pd.DataFrame({"time_s": s.index.to_numpy(), "value": s.to_numpy()}) for s in frames], ignore_index=True
    ).assign(**{CASE: "x"})
    table = stats.describe(data, ["time_s"], ["value"])
    return table[["time_s", "n", "mean", "ci_low", "ci_high"]].sort_values("time_s").reset_index(drop=True)


def _runs_of(res: SweepResults, case: str, **point: object) -> list[str]:
    runs = ok_runs(res)
    runs = runs[runs[CASE] == case]
    for k, v in point.items():
        runs = runs[runs[k] == v]
    return list(runs.sort_values("replicate").run_id)


def _cases(res: SweepResults, wanted: Sequence[str] | None = None, sweep_order: bool = False) -> list[str]:
    present = list(dict.fromkeys(ok_runs(res)[CASE].astype(str)))
    first = list(res.cases) if sweep_order else list(LABELS)
    order = [c for c in first if c in present] + [c for c in present if c not in first]
    return [c for c in order if wanted is None or c in wanted]


def _band(ax: Axes, g: pd.DataFrame, color: str, ls: str, *, name: str, scale: float = 1.0) -> None:
    ax.plot(g["time_s"], g["mean"] * scale, color=color, ls=ls, label=name)
    if int(g["n"].min()) > 1:
        ax.fill_between(g["time_s"], g["ci_low"] * scale, g["ci_high"] * scale, color=color, alpha=0.2, lw=0)


def _reps(curves: Sequence[pd.DataFrame]) -> int:
    return min((int(c["n"].min()) for c in curves if not c.empty), default=0)


def _band_text(reps: int) -> str:
    return f"mean of {reps} replicates with 95% confidence bands (Student t)" if reps > 1 else "one run"


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
    cbr_on = [(seconds(a), seconds(b)) for a, b in s0.group(CBR)["on"]]
    cases = _cases(res)

    lo, hi = sch.on - (sch.end - sch.on) / 10, sch.on + (sch.end - sch.on) / 2
    curves: dict[str, tuple[pd.DataFrame, str, str]] = {}
    for case in _cases(res, TABLE1):
        frames = [series(res, r).binned_drop_rate(BOTTLENECK, width) for r in _runs_of(res, case)]
        g = _mean_ci([f[(f.index > lo) & (f.index <= hi)] for f in frames])
        curves[label(case)] = (g, *look(case))
    reps = _reps([c for c, _, _ in curves.values()])
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
                f"Table 1; {_band_text(reps)}. The CBR source (shaded while on) restarts at {num(sch.on)} s. "
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
        runs = _runs_of(res, case)
        long = _mean_ci([series(res, r).binned(LONG, "throughput_bps", width, "group") for r in runs])
        cbr = _mean_ci([series(res, r).binned(CBR, "throughput_bps", width, "group") for r in runs])
        color, _ = look(case)
        panels[label(case)] = {"15 long-lived flows": (long, color, "-"), "CBR source": (cbr, style.GREY, ":")}
    reps = _reps([c for p in panels.values() for c, _, _ in p.values()])
    plots.append(
        _panels(
            panels,
            ylabel="Mbit/s",
            out=out,
            name="fig6_throughput_vs_time",
            title="Aggregate throughput of the long-lived flows against time, per kind",
            caption=(
                f"Throughput (data arriving at the receivers) of the 15 long-lived flows together and of the CBR "
                f"source per {num(width)} s; {_band_text(reps)}; the CBR source is on in the shaded spans. "
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
        runs = _runs_of(res, case)
        long = _mean_ci([series(res, r).binned(LONG, "throughput_bps", width, "group") for r in runs])
        web = _mean_ci([series(res, r).binned(CROWD, "throughput_bps", width, "group") for r in runs])
        color, _ = look(case)
        panels[label(case)] = {"15 long-lived flows": (long, color, "-"), "flash crowd": (web, style.GREY, "--")}
    reps = _reps([g for p in panels.values() for g, _, _ in p.values()])
    plots: list[Plot | None] = [
        _panels(
            panels,
            ylabel="Mbit/s",
            out=out,
            name="fig8_14_flash_crowd_throughput",
            title="Figures 8-14: long-lived flows and a flash crowd, aggregate throughput",
            caption=(
                f"Throughput of the 15 long-lived flows together and of the {c.count} short flows of the crowd "
                f"per {num(width)} s; {_band_text(reps)}; the crowd arrives in the shaded span "
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


def _period_axis(ax: Axes, periods: Sequence[float]) -> None:
    """A log axis of the square wave's period, ticked at the periods swept."""
    ax.set_xscale("log")
    ax.set_xticks(list(periods), [num(p) for p in periods])
    ax.minorticks_off()
    ax.set_xlabel("period of the square wave (s)")


def square_time_figure(res: SweepResults, runs: pd.DataFrame, out: Path, pdf: bool) -> Plot | None:
    """Figures 15-16: the throughput per flow of TCP and the other kind against time at one period (4 s)."""
    periods = sorted(set(runs.period_s))
    if not periods:
        return None
    period = min(periods, key=lambda p: abs(math.log(p / 4.0)))
    s0 = setup(res, str(runs[np.isclose(runs.period_s, period)].run_id.iloc[0]))
    fair = fair_share_bps(s0)
    cbr = s0.group(CBR)
    duty = float(cbr.get("duty", 1.0))
    hi = s0.duration
    lo = max(s0.warmup, hi - 5 * period)
    spans = [(k * period, min(hi, k * period + duty * period)) for k in range(int(lo // period), int(hi // period) + 1)]
    spans = [(max(a, lo), b) for a, b in spans if b > lo and a < hi]
    panels: dict[str, dict[str, tuple[pd.DataFrame, str, str]]] = {}
    for case in _cases(res, sweep_order=True):
        ids = list(runs[(runs[CASE] == case) & np.isclose(runs.period_s, period)].run_id)
        lines: dict[str, tuple[pd.DataFrame, str, str]] = {}
        for grp, color, ls, name in ((TCP_GROUP, style.BLACK, "-", "TCP"), (OTHER, look(case)[0], "--", "other")):
            n = int(s0.group(grp).get("count", 1))
            frames = []
            for rid in ids:
                x = series(res, rid).series(grp, "throughput_bps", "group") / n / fair
                frames.append(x[(x.index > lo) & (x.index <= hi)])
            lines[name] = (_mean_ci(frames), color, ls)
        panels[f"7 TCP + 7 {label(case)}"] = lines
    reps = _reps([g for p in panels.values() for g, _, _ in p.values()])
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
            f"{_band_text(reps)}. The CBR source is on in the shaded spans (5 Mbit/s left), off between them "
            f"(15 Mbit/s)."
        ),
        pdf=pdf,
        spans=spans,
    )


def figures(data: StudyData, out: Path, pdf: bool) -> list[Plot]:
    """The figures of every part present."""
    plots: list[Plot] = []
    for part, fn in ((MAIN, main_figures), (FLASH, flash_figures), (SQUARE, square_figures)):
        if part in data.parts:
            plots += fn(data[part], out, pdf)
    return plots


# ---- claims ----


def _has(t: StudyTable, *cases: str) -> bool:
    present = set(t.rows[CASE].astype(str))
    return all(c in present for c in cases)


def _untested(claim: str, why: str) -> Claim:
    return Claim(claim, why, UNTESTED, "-")


def _verdict(holds: Sequence[bool], significant: Sequence[bool]) -> str:
    """AGREES if every comparison holds significantly, DIRECTION if all hold but not all significantly,
    PARTLY if some hold significantly, else DISAGREES."""
    if all(h and s for h, s in zip(holds, significant, strict=True)):
        return AGREES
    if all(holds):
        return DIRECTION
    if any(h and s for h, s in zip(holds, significant, strict=True)):
        return PARTLY
    return DISAGREES


def _pairs_claim(
    claim: str,
    t: StudyTable,
    metric: str,
    pairs: Sequence[tuple[str, str]],
    *,
    a_higher: bool,
    what: str,
) -> Claim:
    """A claim that, on `metric`, a > b (or a < b) for every (a, b) pair; Holm over the pairs."""
    pairs = [(a, b) for a, b in pairs if _has(t, a, b)]
    if not pairs:
        return _untested(claim, "the cases it compares are not in this run")
    ps = [pair(t, metric, a, b) for a, b in pairs]
    adj = holm_all(ps)
    holds = [(p.mean_a > p.mean_b) == a_higher for p in ps]
    sig = [q < 0.05 for q in adj]
    text = "; ".join(
        f"{label(p.a)} {ci(p.mean_a, p.half_a)} vs {label(p.b)} {ci(p.mean_b, p.half_b)}" + ("" if h else " (reversed)")
        for p, h in zip(ps, holds, strict=True)
    )
    signif = "; ".join(
        f"{label(p.a)} vs {label(p.b)}: {_sig_text(h, q, len(ps) > 1)}" for p, h, q in zip(ps, holds, adj, strict=True)
    )
    return Claim(claim, f"{what}: {text}", _verdict(holds, sig), signif)


def _sig_text(holds: bool, p: float, adjusted: bool) -> str:
    """'yes (p)' when the claimed direction holds significantly, 'reversed (p)' when the opposite does."""
    text = p_text(p, adjusted)
    if not holds and np.isfinite(p) and p < 0.05:
        return "reversed " + text.removeprefix("yes ")
    return text


def main_claims(tables: StudyTables) -> list[Claim]:
    """The CBR-restart experiment's claims (the seed's section III with Figure 6, Bansal et al. 4.1-4.2)."""
    loss, stab = tables.get("loss"), tables.get("stabilization")
    out = [
        _pairs_claim(
            "Slowly-responsive flows (TCP(1/256), SQRT(1/256), TFRC(256)) cause a higher loss rate than TCP "
            "when the CBR source restarts (Figure 6; Bansal et al. 4.1)",
            loss,
            "restart_peak_drop_rate",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="peak drop rate over 10-RTT windows in the first 5 s after the restart",
        ),
        _pairs_claim(
            "... and the loss stays high longer after the restart (Figure 6: drop rate over the first seconds)",
            loss,
            "restart_drop_rate",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="drop rate pooled over the first 5 s (5% of the on-period) after the restart",
        ),
        _pairs_claim(
            "... and takes longer to settle, at a higher stabilization cost (Bansal et al. 4.1)",
            stab,
            "stab_cost",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="stabilization cost (RTTs x drop rate; 10-RTT windows)",
        ),
        _pairs_claim(
            "TFRC without self-clocking responds worse to the restart than TFRC with self-clocking "
            "(Table 1; Bansal et al. 4.1)",
            stab,
            "stab_cost",
            [("tfrc_256", "tfrc_256_sc")],
            a_higher=True,
            what="stabilization cost",
        ),
        _pairs_claim(
            "... with a higher peak drop rate after the restart",
            loss,
            "restart_peak_drop_rate",
            [("tfrc_256", "tfrc_256_sc")],
            a_higher=True,
            what="peak drop rate over 10-RTT windows after the restart",
        ),
    ]
    out.append(_idle_claim(loss))
    out.append(
        _pairs_claim(
            "Slowly-responsive TCP-compatible algorithms do not use the whole bottleneck when bandwidth "
            "becomes available (section IV; Bansal et al. 4.2: f(20) after the CBR stops below TCP's)",
            stab,
            "f20",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=False,
            what="f(20), fraction of the link in the first 20 RTTs after the CBR stops",
        )
    )
    return out


def _idle_claim(loss: StudyTable) -> Claim:
    claim = (
        "While the CBR source is off (100-150 s) the drop rate is negligible (section III; our reading: below "
        f"{num(NEGLIGIBLE * 100)}%, and below the drop rate with the CBR on)"
    )
    rows = loss.rows
    kinds = _cases_of(rows)
    if not kinds:
        return _untested(claim, "no runs")
    parts, holds, sig, worst = [], [], [], ("", -1.0)
    for k in kinds:
        sel = rows[rows[CASE] == k]
        idle = sel.idle_drop_rate.to_numpy(dtype=float)
        steady = sel.steady_drop_rate.to_numpy(dtype=float)
        m = float(idle.mean())
        low, high = stats.t_interval(idle)
        holds.append(m < NEGLIGIBLE and m < float(steady.mean()))
        sig.append(bool(np.isfinite(high) and high < NEGLIGIBLE))
        parts.append(f"{label(k)} {ci(m, (high - low) / 2 if np.isfinite(high) else math.nan)}")
        if m > worst[1]:
            worst = (k, m)
    steady_all = float(rows.steady_drop_rate.mean())
    finding = (
        f"pooled drop rate while the CBR is off: {'; '.join(parts)} (with the CBR on, steady: "
        f"{num(steady_all)} over all kinds); highest {label(worst[0])}"
    )
    n_sig = sum(sig)
    return Claim(
        claim,
        finding,
        _verdict(holds, sig),
        f"{n_sig} of {len(kinds)} kinds have the 95% interval's upper end below {num(NEGLIGIBLE)}",
    )


def _cases_of(rows: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(rows[CASE].astype(str)))
    return [c for c in LABELS if c in present] + [c for c in present if c not in LABELS]


def flash_claims(tables: StudyTables) -> list[Claim]:
    """The flash-crowd claims (the seed's section III after Figures 8-14; Bansal et al. 4.1)."""
    t = tables.get("flash")
    return [
        _pairs_claim(
            "TFRC with self-clocking, SQRT and IIAD respond earlier to the flash crowd (section III; our reading: "
            "than TCP(1/256) and TFRC(256) without self-clocking, the other slowly-responsive kinds of its "
            "Figures 8-14, so the crowd's transfers complete sooner)",
            t,
            "crowd_fct_mean_s",
            [(a, b) for a in EARLY_FLASH for b in LATE_FLASH],
            a_higher=False,
            what="crowd's mean FCT (s)",
        ),
        _pairs_claim(
            "Slowly-responsive long-lived flows (TCP(1/256), TFRC(256)) give bandwidth to a flash crowd more "
            "slowly than TCP: the crowd's transfers take longer (Bansal et al. 4.1)",
            t,
            "crowd_fct_mean_s",
            [(c, "tcp") for c in LATE_FLASH],
            a_higher=True,
            what="crowd's mean FCT (s)",
        ),
    ]


def _paired(runs: pd.DataFrame, case: str, period: float) -> tuple[float, float, float, int]:
    """TCP's minus the other kind's normalized throughput in the same runs: mean, half-width, paired t p, n."""
    sel = runs[(runs[CASE] == case) & np.isclose(runs.period_s, period)]
    d = (sel.tcp_norm - sel.other_norm).to_numpy(dtype=float)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return (float(d.mean()) if len(d) else math.nan, math.nan, math.nan, len(d))
    low, high = stats.t_interval(d)
    p = float(sps.ttest_1samp(d, 0.0).pvalue) if np.std(d) > 0 else math.nan
    return float(d.mean()), (high - low) / 2, p, len(d)


def _square_claim(claim: str, runs: pd.DataFrame, cases: Sequence[str]) -> Claim:
    periods = sorted(set(runs.period_s))
    mid = [p for p in periods if any(math.isclose(p, m) for m in MID_PERIODS)]
    cases = [c for c in cases if (runs[CASE] == c).any()]
    if not cases or not mid:
        return _untested(claim, "the kinds or periods it compares are not in this run")
    results = [(c, p, *_paired(runs, c, p)) for c in cases for p in mid]
    adj = stats.holm([r[4] if np.isfinite(r[4]) else 1.0 for r in results])
    holds = [r[2] > 0 for r in results]
    sig = [bool(q < 0.05) for q in adj]
    text = "; ".join(
        f"{label(c)} {num(p)} s: {ci(m, h)}" + ("" if m > 0 else " (reversed)") for c, p, m, h, _, _ in results
    )
    n_ok = sum(h and s for h, s in zip(holds, sig, strict=True))
    return Claim(
        claim,
        f"TCP's minus the other kind's normalized throughput in the same runs, at each period: {text}",
        _verdict(holds, sig),
        f"{n_ok} of {len(results)} (kind, period) points significant in the claimed direction (paired t-test on "
        f"the runs' differences, Holm-adjusted over the points, alpha 0.05)",
    )


def square_claims(tables: StudyTables) -> list[Claim]:
    """The square-wave claims (the seed's section IV; Bansal et al. 4.3)."""
    runs = tables.get("square_link").rows
    out = [
        _square_claim(
            "When the square wave's period is between 1 and 10 s, TCP gets more throughput than TFRC: the "
            "oscillating bandwidth favours TCP (Figure 17; Bansal et al. 4.3)",
            runs,
            ["tfrc_8"],
        ),
        _square_claim(
            "TCP-compatible slowly-responsive AIMD and binomial flows (TCP(1/8), SQRT(1/2)) get less than TCP "
            "under the square wave (section IV; Figures 18-19)",
            runs,
            ["aimd_1_8", "sqrt_1_2"],
        ),
    ]
    out.append(_utilization_claim(runs))
    out.append(_compatible_claim(runs))
    return out


def _compatible_claim(runs: pd.DataFrame) -> Claim:
    claim = (
        "TFRC, AIMD with a = 4(2b - b^2)/3 (TCP(1/8)) and binomial SQRT with k + l = 1 are TCP-compatible: "
        "in a steady state they get about TCP's throughput (section II; our reading: TCP's over theirs within "
        f"{num(1 / COMPATIBLE)}-{num(COMPATIBLE)} at the longest period, where the bandwidth changes least often)"
    )
    if runs.empty:
        return _untested(claim, "no runs")
    longest = float(runs.period_s.max())
    sel = runs[np.isclose(runs.period_s, longest)]
    cases = [c for c in _cases_of(sel) if c in LABELS]
    parts, holds, sig = [], [], []
    for c in cases:
        r = sel[sel[CASE] == c].tcp_to_other.to_numpy(dtype=float)
        low, high = stats.t_interval(r)
        m = float(r.mean())
        holds.append(1 / COMPATIBLE <= m <= COMPATIBLE)
        sig.append(bool(np.isfinite(low) and low >= 1 / COMPATIBLE and high <= COMPATIBLE))
        parts.append(f"{label(c)} {ci(m, (high - low) / 2 if np.isfinite(high) else math.nan)}")
    if not cases:
        return _untested(claim, "no runs")
    return Claim(
        claim,
        f"TCP's normalized throughput over the other kind's in the same runs, period {num(longest)} s: "
        + "; ".join(parts),
        _verdict(holds, sig),
        f"{sum(sig)} of {len(cases)} kinds have the ratio's 95% interval inside the band",
    )


def _utilization_claim(runs: pd.DataFrame) -> Claim:
    claim = (
        "With a 0.2 s period (4 RTTs) the bottleneck is used efficiently (section IV; our reading: its "
        "utilization is higher than at the periods of 1-10 s)"
    )
    periods = sorted(set(runs.period_s))
    short = [p for p in periods if math.isclose(p, 0.2)]
    mid = [p for p in periods if any(math.isclose(p, m) for m in MID_PERIODS)]
    if not short or not mid:
        return _untested(claim, "the periods it compares are not in this run")
    rows = runs.assign(**{CASE: runs.period_s.map(lambda p: f"{num(p)} s")})
    ps = [pair(rows, "utilization", f"{num(short[0])} s", f"{num(p)} s") for p in mid]
    adj = holm_all(ps)
    holds = [p.mean_a > p.mean_b for p in ps]
    sig = [q < 0.05 for q in adj]
    u = runs.groupby("period_s").utilization.mean()
    text = "; ".join(f"{p.b} {ci(p.mean_b, p.half_b)}" for p in ps)
    return Claim(
        claim,
        f"utilization at 0.2 s {ci(ps[0].mean_a, ps[0].half_a)} vs {text} (all kinds pooled); highest at "
        f"{num(float(u.idxmax()))} s ({num(float(u.max()))})",
        _verdict(holds, sig),
        "; ".join(f"0.2 s vs {p.b}: {_sig_text(h, q, True)}" for p, h, q in zip(ps, holds, adj, strict=True)),
    )


def claims(data: StudyData, tables: StudyTables) -> list[Claim]:
    """Every headline claim of the seed, computed from the runs of the parts present."""
    out: list[Claim] = []
    if MAIN in data.parts:
        out += main_claims(tables)
    if FLASH in data.parts:
        out += flash_claims(tables)
    if SQUARE in data.parts:
        out += square_claims(tables)
    return out


STUDY = Study(
    "mehta-slowcc",
    "Mehta et al.: slowly-responsive congestion control (TCP(b), SQRT, IIAD, TFRC(n) with and without "
    "self-clocking) against a CBR restart, a flash crowd and a square-wave CBR over RED",
    "mehta-slowcc-tfrc-aimd-binomial-ns2.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(MAIN, "sweep.toml", "quick.toml", "main: CBR restart (Table 1, Figure 6)"),
        Part(FLASH, "flash.toml", "flash_quick.toml", "flash: flash crowd (Figures 7-14)"),
        Part(SQUARE, "square.toml", "square_quick.toml", "square: square-wave CBR (Table 7.2, Figures 17-19)"),
    ),
    missing=(),
)
