"""Dynamic measures of congestion control, computed from a run's time series.

The engine samples, per interval, everything that needs each packet
(docs/results.md): per-group aggregate rates (`goodput_bps`,
`throughput_bps`, `send_bps`, `active_flows`), per-flow sending rates, and
each queue's `arrivals`, `drops` and `drop_rate`. The measures here only
post-process those columns; docs/measures.md defines each one and says which
paper it comes from. A sample at time t covers the interval (t - dt, t].

    import ccsim
    from ccsim import measures

    r = ccsim.run("scenario.toml")
    s = measures.stabilization(r, "r1->r2", t0=100.0, rtt=0.05, steady=(130.0, 150.0))
    s.time_rtts, s.cost
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ccsim.results import Result

# Sample times are float seconds; windows compare them with this slack so a
# sample exactly on a window edge falls in the interval it closes.
_EPS = 1e-9


def _in(index: pd.Index, start: float, end: float) -> npt.NDArray[np.bool_]:
    t = index.to_numpy(dtype=np.float64)
    return (t > start + _EPS) & (t <= end + _EPS)


def window_sum(series: pd.Series, start: float, end: float) -> float:
    """Sum of the samples covering (start, end]."""
    return float(series[_in(series.index, start, end)].sum())


def window_mean(series: pd.Series, start: float, end: float) -> float:
    """Mean of the samples covering (start, end] (NaN if none)."""
    v = series[_in(series.index, start, end)]
    return float(v.mean()) if len(v) else float("nan")


def group_series(result: Result, group: str, metric: str = "throughput_bps") -> pd.Series:
    """A flow group's aggregate series: `goodput_bps`, `throughput_bps`, `send_bps`, `active_flows` or `delay_s`."""
    return result.series(group, metric, kind="group")


def drop_rate_over(result: Result, link: str, start: float, end: float) -> float:
    """The pooled drop rate of `link`'s queue over (start, end]: drops / arrivals (0 if nothing arrived)."""
    drops = window_sum(result.series(link, "drops", kind="queue"), start, end)
    arrivals = window_sum(result.series(link, "arrivals", kind="queue"), start, end)
    return drops / arrivals if arrivals > 0 else 0.0


def windowed_drop_rate(result: Result, link: str, window: float, start: float = 0.0) -> pd.Series:
    """Pooled drop rates of `link` over consecutive windows of `window` seconds from `start`, indexed by window end."""
    end = float(result.series(link, "drops", kind="queue").index.max())
    ends = np.arange(start + window, end + _EPS, window)
    return pd.Series(
        [drop_rate_over(result, link, e - window, e) for e in ends],
        index=pd.Index(ends, name="time_s"),
        name=f"{link}:drop_rate/{window:g}s",
    )


@dataclass(frozen=True)
class Stabilization:
    """The result of [`stabilization`]."""

    time_s: float
    """From the bandwidth reduction to the end of the first window within `factor` of the steady state, s."""
    time_rtts: float
    """The same in round-trip times."""
    cost: float
    """time_rtts x the pooled drop rate over the stabilization period (Bansal et al.'s stabilization cost)."""
    steady_drop_rate: float
    """The steady-state drop rate it was compared with."""
    drop_rate: float
    """The pooled drop rate over the stabilization period."""


def stabilization(
    result: Result,
    link: str,
    t0: float,
    rtt: float,
    steady: tuple[float, float],
    *,
    window: float | None = None,
    factor: float = 1.5,
) -> Stabilization | None:
    """Stabilization time and cost after a sudden bandwidth reduction at `t0`.

    Bansal, Balakrishnan, Floyd and Shenker (SIGCOMM 2001, section 4.1): the
    time until the drop rate at the bottleneck comes within `factor` (1.5)
    of its steady-state value for the new bandwidth, and the stabilization
    cost, that time in RTTs times the average drop rate during it. Here the
    drop rate is pooled (drops / arrivals) over consecutive windows of
    `window` seconds (default 10 RTTs) from t0; the steady state is the
    pooled rate over `steady` = (start, end). Windows in which nothing
    arrived are skipped. None if nothing arrived during `steady` or no
    window before its end qualifies.
    """
    w = 10.0 * rtt if window is None else window
    arrivals = result.series(link, "arrivals", kind="queue")
    if window_sum(arrivals, *steady) <= 0:
        return None
    p_ss = drop_rate_over(result, link, *steady)
    t = t0 + w
    while t <= steady[1] + _EPS:
        if window_sum(arrivals, t - w, t) > 0 and drop_rate_over(result, link, t - w, t) <= factor * p_ss:
            ts = t - t0
            p = drop_rate_over(result, link, t0, t)
            return Stabilization(ts, ts / rtt, ts / rtt * p, p_ss, p)
        t += w
    return None


def response_time(series: pd.Series, t0: float, target: float, window: float) -> float | None:
    """Time from `t0` until the mean of `series` over the trailing `window` is at most `target`.

    For a rate series (e.g. a group's `send_bps`) after a bandwidth reduction:
    how long the senders take to come down to (a margin above) what is left
    to them. None if they never do.
    """
    t = series.index.to_numpy(dtype=np.float64)
    for ti in t[t >= t0 + window - _EPS]:
        if window_mean(series, ti - window, ti) <= target:
            return float(ti - t0)
    return None


def f_k(
    result: Result,
    groups: str | Iterable[str],
    *,
    t1: float,
    k: float,
    rtt: float,
    available_bps: float,
    metric: str = "throughput_bps",
) -> float:
    """f(k): the fraction of the available bandwidth the flows use in the first k RTTs after `t1`.

    Bansal et al. (SIGCOMM 2001, section 4.2) measure how fast
    slowly-responsive flows take up bandwidth that becomes available (e.g.
    when a CBR source stops at t1) with f(20) and f(200): the groups' mean
    aggregate `metric` over (t1, t1 + k RTT], divided by `available_bps`.
    The window should span several sample intervals.
    """
    names = [groups] if isinstance(groups, str) else list(groups)
    total = sum(window_mean(group_series(result, g, metric), t1, t1 + k * rtt) for g in names)
    return total / available_bps


def cov(values: Sequence[float] | npt.NDArray[np.float64] | pd.Series) -> float:
    """Coefficient of variation: population standard deviation over mean."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(v.std() / v.mean())


@dataclass(frozen=True)
class Smoothness:
    """The result of [`smoothness`]."""

    cov: float
    """Coefficient of variation of the rate over the sample intervals."""
    max_ratio: float
    """Largest ratio between the rates of two consecutive intervals (Bansal et al.'s smoothness; 1 is smooth)."""


def smoothness(series: pd.Series, start: float | None = None, end: float | None = None) -> Smoothness:
    """Smoothness of a rate series (a flow's `send_bps`) over (start, end].

    Sample at the time scale of interest (the output's `sample_interval`,
    e.g. one RTT). The coefficient of variation is Floyd, Handley, Padhye
    and Widmer's (SIGCOMM 2000) measure; the largest ratio of consecutive
    rates is Bansal et al.'s (SIGCOMM 2001, section 3). Intervals with a
    zero rate are left out of the ratio.
    """
    t = series.index.to_numpy(dtype=np.float64)
    lo = -np.inf if start is None else start
    hi = np.inf if end is None else end
    v = series.to_numpy(dtype=np.float64)[(t > lo + _EPS) & (t <= hi + _EPS)]
    a, b = v[:-1], v[1:]
    ok = (a > 0) & (b > 0)
    ratios = np.maximum(a[ok] / b[ok], b[ok] / a[ok])
    return Smoothness(cov(v), float(ratios.max()) if len(ratios) else float("nan"))


def normalized_throughput(result: Result, group: str, fair_share_bps: float) -> float:
    """A group's mean per-flow goodput over the metrics window, divided by the fair share.

    Bansal et al. plot this against the period of a square-wave CBR source
    (SIGCOMM 2001, section 4.3): with n long-lived flows on a link of
    capacity C and a CBR source sending at rate c during a fraction d of
    the time, the fair share is (C - c d) / n.
    """
    row = result.groups.set_index("group").loc[group]
    return float(row["goodput_per_flow_bps"]) / fair_share_bps


def fct_distribution(result: Result, group: str) -> pd.Series:
    """The completion times of a group's finite (or web) flows that completed, sorted, in seconds."""
    f = result.flows
    fct = f.loc[(f["group"] == group) & f["fct_s"].notna(), "fct_s"].sort_values()
    return fct.reset_index(drop=True).rename("fct_s")
