"""Reading a mehta run: its set-up (times, the bottleneck, the flow groups) and its stored time series.

A run's set-up is what the engine resolved, read from its results (the `runs` table's `duration_s` and
`warmup_s`, the `links` table, the run's `components`): never its stored scenario, never a unit string.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ccsim.studies.common import bottleneck_of, flow_groups, path_rtt_s
from ccsim.sweep.store import SweepResults


@dataclass(frozen=True)
class Setup:
    """What a run's set-up fixes that the measures need (seconds, bit/s)."""

    duration: float
    warmup: float
    rtt: float
    """round-trip propagation delay of the dumbbell (2 x (access + bottleneck + access))."""
    link_bps: float
    groups: dict[str, dict[str, Any]]
    """The flow groups by name: each one's resolved keys (`common.flow_groups`: rate in bit/s, `on` intervals
    and `period` in s, `count`, `start`, ...)."""

    def group(self, name: str) -> dict[str, Any]:
        """A flow group as the engine configured it."""
        return self.groups[name]


def setup(res: SweepResults, run_id: str) -> Setup:
    """The run's set-up, from its results."""
    row = res.runs.loc[res.runs.run_id == run_id].iloc[0]
    links = res.links[res.links.run_id == run_id].set_index("link")
    return Setup(
        float(row["duration_s"]),
        float(row["warmup_s"]),
        path_rtt_s(res, run_id),
        float(links.rate_bps[bottleneck_of(res, run_id)]),
        flow_groups(res, run_id),
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


CACHED_RUNS = 256
"""Time series kept per results object (the tables and the figures read the same runs)."""
_CACHES: dict[int, OrderedDict[str, Series]] = {}


def _cache_of(res: SweepResults) -> OrderedDict[str, Series]:
    """The time-series cache of one results object, dropped with it.

    A cache per `SweepResults` rather than per file: a sweep resumed or
    overwritten in the same process is read again through a new results
    object (`ccsim.sweep.load`), which starts with an empty cache, so no
    series is served from a file's earlier version, whatever the file
    system's timestamps say.
    """
    key = id(res)
    if key not in _CACHES:
        _CACHES[key] = OrderedDict()
        weakref.finalize(res, _CACHES.pop, key, None)
    return _CACHES[key]


def series(res: SweepResults, run_id: str) -> Series:
    """A run's time series (cached for the life of `res`, at most CACHED_RUNS runs)."""
    cache = _cache_of(res)
    if run_id in cache:
        cache.move_to_end(run_id)
        return cache[run_id]
    row = res.runs.loc[res.runs.run_id == run_id]
    rel = row["timeseries"].iloc[0]
    if not isinstance(rel, str):
        raise KeyError(f"run {run_id!r} has no time series")
    ts = cache[run_id] = Series(pd.read_parquet(res.out_dir / rel))
    if len(cache) > CACHED_RUNS:
        cache.popitem(last=False)
    return ts


def ok_runs(res: SweepResults) -> pd.DataFrame:
    """The successful runs."""
    return res.runs[res.runs.status == "ok"]
