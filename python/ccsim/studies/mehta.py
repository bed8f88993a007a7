"""The mehta study (docs/studies/): its tables, figures and the paper's claims."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.common import base_runs, bottleneck_link, bottleneck_queue, link_rate_bps
from ccsim.studies.core import Study, StudyData, Table


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Figure 6's loss rate per kind of flow, and how the bandwidth is shared with the CBR source."""
    res = data.main
    df = base_runs(res)
    q, link = bottleneck_queue(res), bottleneck_link(res)
    flows = res.flows
    slow = flows[flows.group == "slowcc"].groupby("run_id")
    cbr = flows[flows.group == "cbr"].groupby("run_id")
    rate = link_rate_bps(df, link)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["slowcc_loss_rate"] = df.run_id.map(slow.lost_packets.sum() / slow.sent_packets.sum())
    df["slowcc_goodput_norm"] = df.run_id.map(slow.goodput_bps.sum()) / rate
    df["cbr_goodput_norm"] = df.run_id.map(cbr.goodput_bps.sum()) / rate
    df["utilization"] = df.bottleneck_utilization
    df["jain_index"] = df.jain_index
    table = Table(
        "loss",
        "Figure 6: loss rate of each kind of flow against the on/off CBR source over RED (whole run)",
        {
            "queue_loss_rate": "RED loss rate",
            "slowcc_loss_rate": "flows' loss rate",
            "slowcc_goodput_norm": "flows' goodput / link",
            "cbr_goodput_norm": "CBR goodput / link",
            "utilization": "utilization",
            "jain_index": "Jain's index (the 15 flows)",
        },
        rank=("slowcc_loss_rate", "slowcc_goodput_norm"),
    )
    return [(table, df)]


STUDY = Study(
    "mehta-slowcc",
    "Mehta et al.: TCP, AIMD(1/8), AIMD(1/256), SQRT(1/256), IIAD vs an on/off CBR over RED (Figure 6)",
    "mehta-slowcc-tfrc-aimd-binomial-ns2.md",
    tables,
    missing=(
        "TFRC with and without self-clocking (not in ccsim yet: branch slowcc)",
        "the flash crowd of 1000 ten-packet flows and the square-wave CBR experiment (Figures 15-19)",
    ),
)
