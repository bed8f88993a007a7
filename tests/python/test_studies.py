"""`ccsim reproduce NAME --quick` for every built-in study: the tables exist, have their columns, and are sane.

Each quick run is a handful of short simulations (studies/<name>/quick.toml);
the checks are on quantities bounded by definition (fractions in [0, 1],
non-negative counts and delays, n = the quick variant's 2 replicates) and on
the setup every paper fixes (patel's minimum one-way delay of 60 ms, its
2-packet buffer), so a wrong table or a mis-read scenario fails.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pandas as pd
import pytest

from ccsim import cli, studies
from ccsim.sweep import load_sweep

STATS_COLUMNS = ["case_label", "metric", "n", "mean", "std", "ci_low", "ci_high", "half_width"]
FRACTIONS = {
    "loss_ratio",
    "utilization",
    "loss_rate",
    "queue_loss_rate",
    "slowcc_loss_rate",
    "slowcc_goodput_norm",
    "cbr_goodput_norm",
    "goodput_norm",
    "jain_index",
}
QUICK_REPLICATES = 2


def test_list_names_every_study() -> None:
    out = io.StringIO()
    assert cli.main(["reproduce", "--list"], stdout=out) == 0
    names = [line.split()[0] for line in out.getvalue().splitlines()]
    assert names == list(studies.STUDIES)


def test_unknown_study_is_a_usage_error() -> None:
    err = io.StringIO()
    assert cli.main(["reproduce", "nosuch"], stdout=io.StringIO(), stderr=err) == cli.EXIT_USAGE
    assert "patel-red-sfq-rem" in err.getvalue()


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_full_sweep_has_five_replicates_and_checks(name: str) -> None:
    """The full run (not run here) parses, every point has at least 5 replicates; quick has 2."""
    study = studies.get(name)
    for part in study.parts:
        assert load_sweep(study.sweep_file(part=part.name)).replicates >= 5
        assert load_sweep(study.sweep_file(quick=True, part=part.name)).replicates == QUICK_REPLICATES


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_quick_reproduce_writes_sane_tables(name: str, tmp_path: Path) -> None:
    out_dir = tmp_path / name
    stdout = io.StringIO()
    status = cli.main(["reproduce", name, "--quick", "--out", str(out_dir), "--jobs", "2"], stdout=stdout)
    assert status == 0, stdout.getvalue()
    study = studies.get(name)
    assert (out_dir / "summary.md").read_text().startswith(f"# {study.summary}")
    assert (out_dir / "report.html").is_file()
    for table, _ in study.build(studies.load(study, out_dir)):
        long = pd.read_csv(out_dir / f"{table.name}.csv")
        assert set(STATS_COLUMNS) <= set(long.columns)
        assert set(long.metric) == set(table.metrics)
        assert (long.n == QUICK_REPLICATES).all()
        assert long["mean"].notna().all()
        assert (long.ci_low <= long["mean"] + 1e-12).all()
        assert (long["mean"] <= long.ci_high + 1e-12).all()
        for metric, rows in long.groupby("metric"):
            if metric in FRACTIONS:
                assert rows["mean"].between(0, 1).all(), (metric, rows)
            else:
                assert (rows["mean"] >= 0).all(), (metric, rows)
        if table.rank:
            ranking = pd.read_csv(out_dir / f"{table.name}_ranking.csv")
            assert set(ranking.metric) == set(table.rank)
            assert set(ranking.case) == set(long.case_label)
        check_study(name, long)


def mean_of(long: pd.DataFrame, metric: str) -> pd.Series:
    return long[long.metric == metric]["mean"]


def check_study(name: str, long: pd.DataFrame) -> None:
    """What each paper's setup fixes, whatever the algorithms do."""
    if name == "patel-red-sfq-rem":
        check_patel(long)
    elif name == "bisoy-aqm":
        check_bisoy(long)
    elif name == "vyshnavi-tcp":
        check_vyshnavi(long)
    elif name == "ramachendra-modred":
        check_ramachendra(long)
    elif name == "mehta-slowcc":
        check_mehta(long)


def check_mehta(long: pd.DataFrame) -> None:
    """Bounds the mehta study's set-ups fix (studies/mehta-slowcc/*quick.toml), table by table."""
    metrics = set(long.metric)
    if "cbr_goodput_norm" in metrics:
        # the CBR source is on 20 of 25 s at 10 of 15 Mbps: at most 0.53 of the link
        assert (mean_of(long, "cbr_goodput_norm") <= 20 / 25 * 10 / 15 + 0.01).all()
        # a drop rate pooled over a span is an arrivals-weighted mean of its windows' rates: at most the peak
        m = long.pivot_table(index="case_label", columns="metric", values="mean")
        assert (m.restart_drop_rate <= m.restart_peak_drop_rate + 1e-12).all(), m
    if "f20" in metrics:
        # the long-lived flows' data all crosses the bottleneck: never more than the link (sampling slack 1%)
        assert (mean_of(long, "f20") <= 1.01).all()
        assert (mean_of(long, "f200") <= 1.01).all()
        # the stabilization time ends with a 10-RTT window (RTT 50 ms): at least 0.5 s
        assert (mean_of(long, "stab_time_s") >= 0.5 - 1e-9).all()
    if "crowd_fct_mean_s" in metrics:
        # a transfer takes at least the one-way propagation delay (2 + 21 + 2 ms)
        assert (mean_of(long, "crowd_fct_mean_s") >= 0.025).all()
        assert mean_of(long, "crowd_completed").between(0, 1).all()
    if "norm_throughput" in metrics:
        # 14 flows with a fair share of (15 - 10 x 0.5) / 14 Mbps cannot carry more than the 15 Mbps link
        total = long.groupby(["case_label", "flows[2].period"])["mean"].sum()
        assert (total <= 15 / (10 / 14) / 7 + 1e-9).all(), total
        assert set(long.group) == {"tcp", "other"}


def check_bisoy(long: pd.DataFrame) -> None:
    """Bisoy: a 100-packet buffer of 512 B packets at 10 Mbps, 2 + 20 + 2 ms one way; Figures 8-9 at six lengths."""
    if "sim_time_s" in long.columns:
        # the quick time part: 12 s runs cut at 2, 4, ..., 12 s, the four algorithms of Figures 8-9
        assert sorted(set(long.sim_time_s)) == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
        assert set(long.case_label) == {"droptail", "gred", "nlred", "rem"}
        return
    assert set(long["flows[0].count"]) == {20, 60}
    assert {"gred_p0.3", "gred_p0.5", "nlred_p0.3", "nlred_p0.5"} <= set(long.case_label)
    assert (mean_of(long, "avg_queue_pkts") <= 100).all()
    # a packet waits behind at most 100 others at 0.4096 ms each (512 B at 10 Mbps)
    assert (mean_of(long, "queue_delay_ms") <= 100 * 0.4096 + 1e-9).all()
    # propagation 24 ms plus transmission at 100, 10 and 100 Mbps
    assert (mean_of(long, "delay_ms") >= 24 + 0.4096 + 2 * 0.04096).all()
    # every delivered packet crossed the bottleneck in the run: goodput (in packets) <= utilization, run by run
    wide = long.pivot_table(index=["case_label", "flows[0].count"], columns="metric", values="mean")
    assert (wide.goodput_norm <= wide.utilization + 1e-12).all()
    # DropTail drops only on overflow; the AQMs drop early too
    assert wide.forced_share.between(0, 1).all()
    assert (wide.forced_share.loc["droptail"] == 1).all()
    assert (wide.forced_share.loc["gred"] < 1).all()


def test_report_only_without_runs_says_what_to_run(tmp_path: Path) -> None:
    err = io.StringIO()
    status = cli.main(
        ["reproduce", "bisoy-aqm", "--report-only", "--out", str(tmp_path / "none")], stdout=io.StringIO(), stderr=err
    )
    assert status == cli.EXIT_USAGE
    assert "ccsim reproduce bisoy-aqm --out" in err.getvalue()


def check_patel(long: pd.DataFrame) -> None:
    """patel: bounds fixed by the set-up (delays, the buffer, the link rate) and conservation of the counts."""
    rate = "topology.bottleneck.rate"

    def at(metric: str) -> pd.DataFrame:
        return long[long.metric == metric].set_index(["case_label", rate])["mean"]

    if "delay_min_ms" in set(long.metric):
        # the fastest packet finds every queue empty: 10 + 40 + 10 ms of propagation plus the transmission of
        # one 2040-byte packet (ns-2's packetSize_ 2000 + 40) on the two 100 Mbps access links and on the bottleneck
        mbps = pd.Series(at("delay_min_ms").index.get_level_values(rate).str.removesuffix("Mbps").astype(float))
        floor = 60 + 2040 * 8 / 100e6 * 2e3 + 2040 * 8 / (mbps.to_numpy() * 1e6) * 1e3
        assert abs(at("delay_min_ms").to_numpy() - floor).max() < 0.01
        # early (AQM) drops are some of the drops, and the drops some of the packets offered
        assert (at("early_drops") <= at("lost_packets")).all()
        assert (at("lost_packets") <= at("sent_packets")).all()
        assert (at("delay_max_ms") >= at("delay_mean_ms")).all()
        assert (at("delay_mean_ms") >= at("delay_min_ms")).all()
    if "throughput_max_mbps" in set(long.metric):
        # a 4 KB buffer of 2 KB packets (queue-limit 2) holds at most 2 packets in RED and, with ns-2's
        # semantics, 1 in DropTail-like REM; ns-2's SFQ ignores queue-limit (maxqueue_ 40)
        qmax = at("queue_max_pkts")
        sfq = qmax.index.get_level_values("case_label") == "sfq"
        assert (qmax[~sfq] <= 2).all()
        assert (qmax[sfq] <= 40).all()
        # the receivers cannot get more than the bottleneck sends in an interval (0.5 s), plus one packet
        top = at("throughput_max_mbps")
        mbps = top.index.get_level_values(rate).str.removesuffix("Mbps").astype(float).to_numpy()
        assert (top.to_numpy() <= mbps + 2040 * 8 / 0.5 / 1e6 + 1e-9).all()
        assert (at("throughput_min_mbps") <= top).all()
    elif "queue_max_pkts" in set(long.metric):
        # the sensitivity part: ns-2's default buffer of 50 packets
        assert (at("queue_max_pkts") <= 50).all()
    if "queue_full_frac" in set(long.metric):
        assert at("queue_full_frac").between(0, 1).all()
        ratio = at("first_drop_ratio")
        assert ratio.dropna().between(0, 1).all()


def check_vyshnavi(long: pd.DataFrame) -> None:
    """Bounds the set-up fixes: CBR sources of 29.2 Mbps, 30/60 Mbps links, a 100 Mbps core, 802.11b at 11 Mbps."""
    assert set(long.case_label) == {"tahoe", "reno", "bic", "cubic"}
    metrics = set(long.metric)
    if "payload_generated_bytes" in metrics:
        wide = long.pivot_table(
            index=[c for c in long.columns if c not in STATS_COLUMNS] + ["case_label"], columns="metric", values="mean"
        )
        # nothing is received that was not generated (TCP delivers each byte once)
        assert (wide.payload_received_bytes <= wide.payload_generated_bytes).all()
        # 1460 B every 400 us from start (0-10 ms) to the end of a 2 s quick run: 4975-5000 packets
        assert wide.payload_generated_bytes.between(4975 * 1460, 5000 * 1460).all()
        # an application gets at most its source's 29.2 Mbps (a sample interval's rounding aside)
        assert (wide.throughput_mbps <= 29.2 * 1.001).all()
    else:
        # the applications share the 100 Mbps between the routers
        assert (mean_of(long, "total_throughput_mbps") <= 100).all()
        # each packet's delay from generation is at least its network delay; the application delay is
        # read off 10 ms samples of the delivery curve, so allow one interval
        wide = long.pivot_table(
            index=[c for c in long.columns if c not in STATS_COLUMNS] + ["case_label"], columns="metric", values="mean"
        )
        assert (wide.avg_app_delay_ms >= wide.avg_net_delay_ms - 10).all()
        if "wireless_total_mbps" in metrics:
            # TCP over one 802.11b channel (11 Mbps PHY; ~5 Mbps of TCP goodput at best)
            assert (mean_of(long, "wireless_total_mbps") <= 11).all()


def check_ramachendra(long: pd.DataFrame) -> None:
    """Bounds the set-up fixes: a 10 Mbps bottleneck, 1500-byte packets, the queue size, n x load connections."""
    limit = "topology.bottleneck.queue.limit"
    wide = long.pivot_table(
        index=[c for c in long.columns if c not in STATS_COLUMNS] + ["case_label"], columns="metric", values="mean"
    ).reset_index()
    # the buffer caps the waiting time: `limit` packets of 1500 B at 10 Mbps, 1.2 ms each
    assert (wide.avg_time_in_queue_ms <= wide[limit] * 1.2).all()
    # nothing leaves the queue that was not queued (those queued before the warm-up aside: at most `limit`)
    assert (wide.dequeued <= wide.enqueued + wide[limit]).all()
    # the bottleneck carries at most 10 Mbps
    assert (wide.throughput_mbps <= 10.0 * 1.001).all()
    if "nodes" in wide:
        # x% load of n nodes is n x / 100 active connections
        assert (wide.nodes * wide.load_pct == wide["flows[0].count"] * 100).all()
        assert set(wide.nodes) <= {16, 32, 64}


def test_a_study_on_a_dask_cluster_equals_the_local_pool(tmp_path: Path) -> None:
    """`--cluster` runs the same runs: the tables, claims and figures are byte-identical to `--jobs 2`'s."""
    name = "ramachendra-modred"
    outs = {"pool": tmp_path / "pool", "dask": tmp_path / "dask"}
    for how, flag in (("pool", ["--jobs", "2"]), ("dask", ["--cluster", "local:2"])):
        status = cli.main(["reproduce", name, "--quick", "--quiet", "--out", str(outs[how]), *flag])
        assert status == 0, how
    files = sorted(p.relative_to(outs["pool"]) for p in outs["pool"].rglob("*") if p.suffix in (".csv", ".md", ".png"))
    assert any(f.suffix == ".png" for f in files)
    for f in files:
        assert (outs["pool"] / f).read_bytes() == (outs["dask"] / f).read_bytes(), f


def test_a_rewritten_time_series_is_read_afresh(tmp_path: Path) -> None:
    """The mehta readings cache time series per results object: a run stored again in the same process
    (a resumed or overwritten sweep, loaded again) is read afresh, even when the file keeps its size and
    time stamp (a cache keyed by path, modification time and size served the old series)."""
    from ccsim.studies.mehta import reading  # noqa: PLC0415 (a study's private module, only here)
    from ccsim.sweep.store import SweepResults  # noqa: PLC0415

    path = tmp_path / "ts.parquet"

    def write(value: float) -> int:
        frame = {"time_s": [1.0], "entity_kind": ["flow"], "entity": ["f.0"], "metric": ["cwnd_pkts"], "value": [value]}
        pd.DataFrame(frame).to_parquet(path)
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
        return path.stat().st_size

    def loaded() -> SweepResults:
        runs = pd.DataFrame({"run_id": ["r"], "timeseries": [path.name]})
        empty = pd.DataFrame()
        return SweepResults(tmp_path, "s", [], ["c"], runs, empty, empty, empty, empty, empty)

    size = write(1.0)
    first = loaded()
    assert reading.series(first, "r").series("f.0", "cwnd_pkts").iloc[0] == 1.0
    assert write(2.0) == size  # the same size and time stamp: only the content tells the versions apart
    assert reading.series(loaded(), "r").series("f.0", "cwnd_pkts").iloc[0] == 2.0
