"""The main part (CBR restart, Table 1, Figure 6): the CBR's schedule and the per-run measures."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ccsim import measures
from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_of, bottleneck_queue, link_rate_bps
from ccsim.studies.mehta.reading import Series, Setup, series, setup
from ccsim.studies.mehta.setup import CBR, LONG
from ccsim.sweep.store import SweepResults


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
    on = [(float(a), float(b)) for a, b in s.group(CBR)["on"]]
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
        link = bottleneck_of(res, rid)
        stab = measures.stabilization(ts, link, sch.on, s.rtt, sch.steady)  # type: ignore[arg-type]
        if stab is None:
            # never within 1.5 times the steady state before the run ends: censored at the end
            t = sch.steady[1] - sch.on
            stab_time, stab_cost = t, t / s.rtt * measures.drop_rate_over(ts, link, sch.on, sch.steady[1])  # type: ignore[arg-type]
        else:
            stab_time, stab_cost = stab.time_s, stab.cost
        idle_rtts = (sch.on - sch.off) / s.rtt
        lo, hi = sch.restart_window
        windows = measures.windowed_drop_rate(ts, link, 10 * s.rtt, lo)  # type: ignore[arg-type]
        extra.append(
            {
                "restart_peak_drop_rate": float(windows[windows.index <= hi + 1e-9].max()),
                "restart_drop_rate": measures.drop_rate_over(ts, link, lo, hi),  # type: ignore[arg-type]
                "steady_drop_rate": measures.drop_rate_over(ts, link, *sch.steady),  # type: ignore[arg-type]
                "idle_drop_rate": measures.drop_rate_over(ts, link, *sch.idle),  # type: ignore[arg-type]
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
