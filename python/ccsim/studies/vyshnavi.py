"""The vyshnavi study (docs/studies/): its tables, figures and the paper's claims."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.core import CASE, Study, StudyData, Table


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """Tables 1-9 (per application) and Figures 5-9 (averages over the applications)."""
    res = data.main
    ok = res.runs[res.runs.status == "ok"][["run_id", CASE, *res.parameters]]
    flows = res.flows.merge(ok, on="run_id")
    flows["application"] = flows.name.str.split(".").str[-1].astype(int) + 1
    flows["payload_sent_bytes"] = flows.sent_bytes
    flows["payload_received_bytes"] = flows.delivered_bytes
    flows["throughput_mbps"] = flows.goodput_bps / 1e6
    flows["delay_us"] = flows.delay_mean_s * 1e6
    flows["jitter_us"] = flows.jitter_s * 1e6
    per_app = Table(
        "applications",
        "Tables 1-9: per application (payload in bytes of the window; throughput = goodput)",
        {
            "payload_sent_bytes": "payload sent (B)",
            "payload_received_bytes": "payload received (B)",
            "throughput_mbps": "throughput (Mbps)",
            "delay_us": "delay (us)",
            "jitter_us": "jitter (us)",
        },
        extra_by=("application",),
    )
    g = flows.groupby("run_id")
    avg = ok.copy()
    avg["avg_throughput_mbps"] = avg.run_id.map(g.throughput_mbps.mean())
    avg["avg_delay_us"] = avg.run_id.map(g.delay_us.mean())
    avg["avg_jitter_us"] = avg.run_id.map(g.jitter_us.mean())
    avg["jain_index"] = avg.run_id.map(res.runs.set_index("run_id").jain_index)
    averages = Table(
        "averages",
        "Figures 5-9: average throughput, delay and jitter of the applications",
        {
            "avg_throughput_mbps": "avg throughput (Mbps)",
            "avg_delay_us": "avg delay (us)",
            "avg_jitter_us": "avg jitter (us)",
            "jain_index": "Jain's index",
        },
        rank=("avg_throughput_mbps", "avg_delay_us"),
    )
    return [(averages, avg), (per_app, flows)]


STUDY = Study(
    "vyshnavi-tcp",
    "Vyshnavi et al.: Tahoe, Reno, BIC, CUBIC with 6/12 applications, 30/60 Mbps access (Tables 1-9)",
    "vyshnavi-tcp-tahoe-reno-bic-cubic-netsim.md",
    tables,
    missing=("the wireless end devices"),
)
