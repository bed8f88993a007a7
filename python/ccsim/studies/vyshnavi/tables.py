"""The vyshnavi study's tables: per application (Tables 1-9) and averaged over the applications (Figures 5-9)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ccsim.studies.common import access_links, flow_groups
from ccsim.studies.core import CASE, MAIN, StudyData, Table
from ccsim.studies.vyshnavi.setup import APP_PACKET, APPS_KEY, WIRELESS_APPS, WLAN_STANDARD
from ccsim.sweep.store import SweepResults


def app_delays(
    time_s: np.ndarray, goodput_bps: np.ndarray, start_s: float, rate: float, size: int
) -> tuple[float, float, int]:
    """Mean application delay and jitter (s) and packets counted, of a CBR source writing into TCP.

    Packet j (of `size` payload bytes) is generated at start + j size 8 / rate
    and received when the connection's delivered payload reaches (j + 1) size
    bytes: TCP delivers in order. The delivery curve is known at the sample
    times (cumulative goodput) and taken as linear in between, so each
    packet's reception time is exact to within one sample interval and the
    mean delay to much better (the errors of consecutive packets cancel).
    Delay = reception - generation (the paper's delay: the wait in the
    sender's buffer plus the network's); jitter = mean |difference of
    consecutive packets' delays| (NetSim's), which between two samples is
    |interval / packets delivered - generation interval| per packet: it
    misses bursts shorter than the sample interval.
    """
    if len(time_s) == 0:
        return math.nan, math.nan, 0
    t = np.concatenate([[0.0], time_s])
    dt = np.diff(t)
    cum = np.concatenate([[0.0], np.cumsum(goodput_bps * dt / 8.0)])
    n = math.floor(cum[-1] / size + 1e-9)
    if n == 0:
        return math.nan, math.nan, 0
    need = (np.arange(n) + 1.0) * size
    k = np.searchsorted(cum, need - 1e-6, side="left")  # first sample with cum >= need
    k = np.clip(k, 1, len(cum) - 1)
    lo, hi = cum[k - 1], cum[k]
    frac = np.where(hi > lo, (need - lo) / np.where(hi > lo, hi - lo, 1.0), 1.0)
    received = t[k - 1] + np.clip(frac, 0.0, 1.0) * (t[k] - t[k - 1])
    generated = start_s + np.arange(n) * size * 8.0 / rate
    delay = np.maximum(received - generated, 0.0)
    jitter = float(np.abs(np.diff(delay)).mean()) if n > 1 else math.nan
    return float(delay.mean()), jitter, n


def _flow_specs(res: SweepResults, run_id: str) -> dict[str, tuple[float, int, str]]:
    """group -> (app rate bit/s, packet size, app) of a run, as the engine configured its flow groups."""
    out = {}
    for group, g in flow_groups(res, run_id).items():
        app = str(g["app"])
        rate = float(g["rate"]) if app == "cbr" else math.nan
        out[group] = (rate, int(g.get("packet_size") or APP_PACKET), app)
    return out


def _access_mbps(res: SweepResults, run_id: str) -> int:
    """The rate of the run's access links (its first flow's link out of its source), Mbit/s."""
    first, _ = access_links(res, run_id)
    return round(float(first.rate_bps) / 1e6)


def app_rows(res: SweepResults, part: str, apps: int | None = None, access_mbps: int | None = None) -> pd.DataFrame:
    """One row per application and run: the paper's per-application columns, ccsim's network ones too."""
    ok = res.runs[res.runs.status == "ok"]
    flows = res.flows.merge(ok[["run_id", CASE, *res.parameters]], on="run_id")
    frames = []
    for _, run in ok.iterrows():
        duration, groups = float(run.duration_s), _flow_specs(res, run.run_id)
        f = flows[flows.run_id == run.run_id].copy()
        series = pd.read_parquet(
            res.out_dir / run.timeseries,
            filters=[("entity_kind", "==", "flow"), ("metric", "==", "goodput_bps")],
        )
        delays, jitters, generated = [], [], []
        for _, flow in f.iterrows():
            rate, size, app = groups[flow.group]
            if app != "cbr":
                delays.append(math.nan)
                jitters.append(math.nan)
                generated.append(math.nan)
                continue
            s = series[series.entity == flow["name"]].sort_values("time_s")
            d, j, _ = app_delays(s.time_s.to_numpy(), s.value.to_numpy(), float(flow.start_s), rate, size)
            delays.append(d)
            jitters.append(j)
            interval = size * 8.0 / rate
            generated.append(math.ceil((duration - float(flow.start_s)) / interval - 1e-9) * size)
        f["app_delay_s"] = delays
        f["app_jitter_s"] = jitters
        f["payload_generated_bytes"] = generated
        frames.append(f)
    df = pd.concat(frames, ignore_index=True) if frames else flows.assign(app_delay_s=[], app_jitter_s=[])
    group_id = df.group.str.extract(r"(\d+)$")[0]
    flow_id = df["name"].str.split(".").str[-1].astype(int) + 1
    df["application"] = np.where(group_id.notna(), pd.to_numeric(group_id, errors="coerce"), flow_id).astype(int)
    df["apps"] = df[APPS_KEY].astype(int) if apps is None else apps
    access = {rid: _access_mbps(res, rid) for rid in ok.run_id} if access_mbps is None else {}
    df["access_mbps"] = df.run_id.map(access).astype(int) if access_mbps is None else access_mbps
    df["part"] = part
    df["network"] = df.apps.astype(str) + " apps, " + df.access_mbps.astype(str) + " Mbps"
    df["payload_received_bytes"] = df.delivered_bytes
    df["throughput_mbps"] = df.goodput_bps / 1e6
    df["app_delay_ms"] = df.app_delay_s * 1e3
    df["app_jitter_ms"] = df.app_jitter_s * 1e3
    df["net_delay_ms"] = df.delay_mean_s * 1e3
    df["net_jitter_ms"] = df.jitter_s * 1e3
    if "wireless" not in df:
        wl = {a: set(v) for a, v in WIRELESS_APPS.items()}
        df["wireless"] = [part != MAIN and a in wl.get(n, set()) for a, n in zip(df.application, df.apps, strict=True)]
    return df


def averages(per_app: pd.DataFrame, parameters: Sequence[str] = ()) -> pd.DataFrame:
    """One row per run: the averages over its applications (the paper's Figures 5-9)."""
    keys = ["run_id", CASE, *parameters, "apps", "access_mbps", "network", "part"]
    g = per_app.groupby(keys, sort=False, dropna=False)
    out = g.agg(
        avg_throughput_mbps=("throughput_mbps", "mean"),
        total_throughput_mbps=("throughput_mbps", "sum"),
        avg_app_delay_ms=("app_delay_ms", "mean"),
        avg_app_jitter_ms=("app_jitter_ms", "mean"),
        avg_net_delay_ms=("net_delay_ms", "mean"),
        avg_net_jitter_ms=("net_jitter_ms", "mean"),
    ).reset_index()
    out["jain_index"] = out.run_id.map(per_app.groupby("run_id").throughput_mbps.apply(stats_jain))
    wl = per_app[per_app.wireless].groupby("run_id").throughput_mbps.sum()
    wired = per_app[~per_app.wireless].groupby("run_id").throughput_mbps.mean()
    out["wireless_total_mbps"] = out.run_id.map(wl)
    out["wired_avg_mbps"] = out.run_id.map(wired)
    return out


def stats_jain(x: pd.Series) -> float:
    """Jain's fairness index of the applications' throughputs."""
    v = x.to_numpy(dtype=float)
    return float(v.sum() ** 2 / (len(v) * (v**2).sum())) if len(v) and (v**2).sum() > 0 else math.nan


def wlan_parts(data: StudyData) -> list[str]:
    """The wireless parts present in the data."""
    return [p for p in data.parts if p.startswith("wlan-")]


def _wlan_rows(data: StudyData) -> pd.DataFrame:
    frames = []
    for part in wlan_parts(data):
        apps, access = (int(x) for x in part.removeprefix("wlan-").split("x"))
        frames.append(app_rows(data[part], part, apps, access))
    return pd.concat(frames, ignore_index=True)


APP_METRICS = {
    "payload_generated_bytes": "payload generated (B)",
    "payload_received_bytes": "payload received (B)",
    "throughput_mbps": "throughput (Mbps)",
    "app_delay_ms": "delay (ms, application)",
    "app_jitter_ms": "jitter (ms, application)",
    "net_delay_ms": "network delay (ms)",
    "net_jitter_ms": "network jitter (ms)",
}
AVG_METRICS = {
    "avg_throughput_mbps": "avg throughput (Mbps)",
    "avg_app_delay_ms": "avg delay (ms, application)",
    "avg_app_jitter_ms": "avg jitter (ms, application)",
    "avg_net_delay_ms": "avg network delay (ms)",
    "avg_net_jitter_ms": "avg network jitter (ms)",
    "total_throughput_mbps": "total throughput (Mbps)",
    "jain_index": "Jain's index",
}
WLAN_METRICS = {
    **AVG_METRICS,
    "wireless_total_mbps": "wireless apps' total (Mbps)",
    "wired_avg_mbps": "wired apps' avg (Mbps)",
}


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Tables 1-9 (per application) and Figures 5-9 (averages over the applications), for each reading."""
    out: list[tuple[Table, pd.DataFrame]] = []
    if MAIN in data.parts:
        per_app = app_rows(data[MAIN], MAIN)
        out += [
            (
                Table(
                    "averages",
                    "Wired reading, Figures 5-9: the applications' average throughput, delay and jitter per run",
                    AVG_METRICS,
                    rank=("avg_throughput_mbps", "avg_app_delay_ms"),
                ),
                averages(per_app, data[MAIN].parameters),
            ),
            (
                Table(
                    "applications",
                    "Wired reading, Tables 1-9: per application (payload in bytes over the 10 s; throughput = "
                    "payload received x 8 / 10 s; delay and jitter from generation to reception)",
                    APP_METRICS,
                    extra_by=("application",),
                ),
                per_app,
            ),
        ]
    parts = wlan_parts(data)
    if parts:
        per_app = _wlan_rows(data)
        out += [
            (
                Table(
                    "averages_wlan",
                    f"Wireless reading ({WLAN_STANDARD} receivers), Figures 5-9: averages per run",
                    WLAN_METRICS,
                    rank=("avg_throughput_mbps", "avg_app_delay_ms"),
                    extra_by=("apps", "access_mbps"),
                    part=parts[0],
                ),
                averages(per_app),
            ),
            (
                Table(
                    "applications_wlan",
                    f"Wireless reading, Tables 1-9: per application (wireless = receiver on the {WLAN_STANDARD} WLAN)",
                    APP_METRICS,
                    extra_by=("apps", "access_mbps", "application"),
                    part=parts[0],
                ),
                per_app,
            ),
        ]
    return out
