"""The patel study (docs/studies/): its tables, figures and the paper's claims."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_queue
from ccsim.studies.core import Study, StudyData, Table


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Table 2 (per algorithm and bandwidth) and the ranking of Table 3; Figure 4 is its loss column."""
    res = data.main
    df = base_runs(res)
    q, link = bottleneck_queue(res), bottleneck_link(res)
    fwd = res.flows[res.flows.group == "fwd"].groupby("run_id")
    df["queue_max_pkts"] = df.run_id.map(q.max_len_pkts)
    df["queue_min_pkts"] = df.run_id.map(q.min_len_pkts)
    df["queue_avg_pkts"] = df.run_id.map(q.avg_len_pkts)
    df["flow_throughput_max_mbps"] = df.run_id.map(fwd.goodput_bps.max()) / 1e6
    df["flow_throughput_min_mbps"] = df.run_id.map(fwd.goodput_bps.min()) / 1e6
    df["delay_max_ms"] = df.run_id.map(fwd.delay_max_s.max()) * 1e3
    df["delay_min_ms"] = df.run_id.map(fwd.delay_min_s.min()) * 1e3
    df["delay_mean_ms"] = df.run_id.map(fwd.delay_mean_s.mean()) * 1e3
    df["sent_packets"] = df.run_id.map(q.arrivals)
    df["lost_packets"] = df.run_id.map(q.drops)
    df["loss_ratio"] = df.run_id.map(q.loss_rate)
    df["utilization"] = df.run_id.map(link.utilization)
    table = Table(
        "table2",
        "Table 2: RED, SFQ and REM on R1->R2 (forward flows; sent/lost = packets offered to/dropped by R1->R2)",
        {
            "queue_max_pkts": "queue max (pkts)",
            "queue_min_pkts": "queue min (pkts)",
            "queue_avg_pkts": "queue avg (pkts)",
            "flow_throughput_max_mbps": "flow goodput max (Mbps)",
            "flow_throughput_min_mbps": "flow goodput min (Mbps)",
            "delay_max_ms": "delay max (ms)",
            "delay_min_ms": "delay min (ms)",
            "delay_mean_ms": "delay mean (ms)",
            "sent_packets": "sent (pkts)",
            "lost_packets": "lost (pkts)",
            "loss_ratio": "loss ratio",
            "utilization": "utilization",
        },
        rank=("delay_mean_ms", "queue_avg_pkts", "utilization", "loss_ratio"),
    )
    return [(table, df)]


STUDY = Study(
    "patel-red-sfq-rem",
    "Patel et al.: RED vs SFQ vs REM, 2-packet buffer, bottleneck bandwidth swept (Table 2, Figure 4)",
    "patel-red-sfq-rem-ns2.md",
    tables,
    missing=(),
)
