"""The result keys other tools rely on (issue 2, "Results"), stated here independently of the code."""

FLOW_KEYS = (
    "name",
    "src",
    "dst",
    "transport",
    "sent_packets",
    "sent_bytes",
    "received_packets",
    "delivered_bytes",
    "goodput_bps",
    "throughput_bps",
    "lost_packets",
    "loss_rate",
    "delay_mean_s",
    "delay_min_s",
    "delay_max_s",
    "delay_p99_s",
    "jitter_s",
)
QUEUE_KEYS = (
    "link",
    "kind",
    "arrivals",
    "enqueued",
    "dequeued",
    "drops",
    "early_drops",
    "forced_drops",
    "marks",
    "loss_rate",
    "avg_len_pkts",
    "avg_len_bytes",
    "max_len_pkts",
    "min_len_pkts",
    "avg_sojourn_s",
)
LINK_KEYS = ("link", "tx_bytes", "utilization")
SUMMARY_KEYS = ("goodput_bps", "jain_index", "loss_rate", "bottleneck_utilization", "bottleneck_avg_queue_pkts")
PERF_KEYS = ("events", "wall_s", "events_per_s", "packets_forwarded")
TOP_KEYS = ("name", "seed", "flows", "queues", "links", "summary", "perf")
TIMESERIES_COLUMNS = ("time_s", "entity_kind", "entity", "metric", "value")
RESULT_FILES = (
    "summary.json",
    "flows.csv",
    "flows.parquet",
    "groups.csv",
    "groups.parquet",
    "queues.csv",
    "queues.parquet",
    "links.csv",
    "links.parquet",
    "wlans.csv",
    "wlans.parquet",
    "timeseries.parquet",
    "delays.parquet",
)
# `ccsim run` also writes how the run was made (command line, date): not byte-identical between runs.
CLI_FILES = (*RESULT_FILES, "meta.json")
