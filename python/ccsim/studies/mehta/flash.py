"""The flash part (Figures 7-14): the crowd's arrival window and the per-run measures."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ccsim import measures
from ccsim.studies.common import base_runs, bottleneck_of
from ccsim.studies.mehta.reading import Series, Setup, series, setup
from ccsim.studies.mehta.setup import CROWD, LONG
from ccsim.sweep.store import SweepResults


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
    return Crowd(float(g["start"]), count / float(g["arrival_rate"]), count)


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
                "crowd_drop_rate": measures.drop_rate_over(ts, bottleneck_of(res, rid), *during),  # type: ignore[arg-type]
            }
        )
    return pd.concat([df.reset_index(drop=True), pd.DataFrame(extra)], axis=1)
