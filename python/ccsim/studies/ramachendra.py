"""The ramachendra study (docs/studies/): its tables, figures and the paper's claims."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_queue
from ccsim.studies.core import Study, StudyData, Table


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """The paper's eight metrics per AQM, active connections and queue size."""
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
    table = Table(
        "metrics",
        "Packets received, enqueued, dequeued, loss rate, time in queue, sent, jitter, throughput",
        {
            "packets_received": "received (pkts)",
            "enqueued": "enqueued (pkts)",
            "dequeued": "dequeued (pkts)",
            "queue_loss_rate": "loss rate",
            "avg_time_in_queue_ms": "avg time in queue (ms)",
            "packets_sent": "sent (pkts)",
            "jitter_ms": "jitter (ms)",
            "throughput_mbps": "throughput (Mbps)",
            "utilization": "utilization",
        },
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms"),
    )
    return [(table, df)]


STUDY = Study(
    "ramachendra-modred",
    "Ramachendra et al.: RED, WRED, AVQ, ModRED under round robin; connections x queue size",
    "ramachendra-modred-round-robin-qualnet.md",
    tables,
    missing=(),
)
