"""The bisoy study (docs/studies/): its tables, figures and the paper's claims."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_link, link_rate_bps
from ccsim.studies.core import Study, StudyData, Table


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Figures 2-7 and 10: goodput, queue, delay, loss, utilization and Jain's index against the flows."""
    res = data.main
    df = base_runs(res)
    link = bottleneck_link(res)
    delay = res.flows.groupby("run_id").delay_mean_s.mean()
    df["goodput_norm"] = df.goodput_bps / link_rate_bps(df, link)
    df["avg_queue_pkts"] = df.bottleneck_avg_queue_pkts
    df["delay_ms"] = df.run_id.map(delay) * 1e3
    df["utilization"] = df.bottleneck_utilization
    table = Table(
        "flows",
        "Figures 2-7 (and 10 for the max_p cases): metrics against the number of flows",
        {
            "goodput_norm": "goodput / link rate",
            "avg_queue_pkts": "avg queue (pkts)",
            "delay_ms": "delay (ms)",
            "loss_rate": "loss rate",
            "utilization": "utilization",
            "jain_index": "Jain's index",
        },
        rank=("goodput_norm", "loss_rate", "jain_index"),
    )
    return [(table, df)]


STUDY = Study(
    "bisoy-aqm",
    "Bisoy et al.: DropTail vs GRED vs NLRED vs REM, 20-120 FTP flows (Figures 2-7, 10)",
    "bisoy-aqm-droptail-gred-nlred-rem-ns2.md",
    tables,
    missing=("goodput and loss against the simulation time (Figures 8-9)"),
)
