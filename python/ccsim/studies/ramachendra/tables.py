"""The ramachendra study's tables: the paper's eight metrics per configuration and per active connections."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_queue
from ccsim.studies.core import StudyData, Table
from ccsim.studies.ramachendra.setup import ACTIVE, LIMIT, configurations


def run_rows(data: StudyData) -> pd.DataFrame:
    """One row per run: the paper's eight metrics and the utilization."""
    res = data.main
    df = base_runs(res)
    q = bottleneck_queue(res)
    g = res.flows.groupby("run_id")
    df["packets_received"] = df.run_id.map(g.received_packets.sum())
    df["enqueued"] = df.run_id.map(q.enqueued)
    df["dequeued"] = df.run_id.map(q.dequeued)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["avg_time_in_queue_ms"] = df.run_id.map(q.avg_sojourn_s) * 1e3
    df["packets_sent"] = df.run_id.map(g.sent_packets.sum())
    df["jitter_ms"] = df.run_id.map(g.jitter_s.mean()) * 1e3
    df["throughput_mbps"] = df.throughput_bps / 1e6
    df["utilization"] = df.bottleneck_utilization
    df["active"] = df[ACTIVE].astype(int)
    df["queue_pkts"] = df[LIMIT].astype(int)
    return df


def config_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run once per (nodes, load) it stands for (a run of 16 connections is 16 at 100%, 32 at 50%, ...)."""
    frames = []
    for active, rows in runs.groupby("active"):
        for n, load in configurations(int(active)):
            frames.append(rows.assign(nodes=n, load_pct=load))
    if not frames:
        return runs.assign(nodes=pd.Series(dtype=int), load_pct=pd.Series(dtype=int)).iloc[0:0]
    return pd.concat(frames, ignore_index=True)


METRICS = {
    "packets_received": "received (pkts)",
    "enqueued": "enqueued (pkts)",
    "dequeued": "dequeued (pkts)",
    "queue_loss_rate": "loss rate",
    "avg_time_in_queue_ms": "avg time in queue (ms)",
    "packets_sent": "sent (pkts)",
    "jitter_ms": "jitter (ms)",
    "throughput_mbps": "throughput (Mbps)",
    "utilization": "utilization",
}


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """The paper's eight metrics per configuration (nodes, load, queue size), and per active connections."""
    runs = run_rows(data)
    by_config = Table(
        "configurations",
        "Per configuration (n nodes, load, queue size): packets received, enqueued, dequeued, loss rate, time in "
        "queue, sent, jitter, throughput (a run of k connections stands for every n x load = k)",
        METRICS,
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms", "jitter_ms"),
        extra_by=("nodes", "load_pct"),
    )
    by_active = Table(
        "metrics",
        "Per active connections and queue size (each run once): the same metrics",
        METRICS,
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms"),
    )
    return [(by_config, config_rows(runs)), (by_active, runs)]
