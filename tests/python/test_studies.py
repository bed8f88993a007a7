"""`ccsim reproduce NAME --quick` for every built-in study: the tables exist, have their columns, and are sane.

Each quick run is a handful of short simulations (studies/<name>/quick.toml);
the checks are on quantities bounded by definition (fractions in [0, 1],
non-negative counts and delays, n = the quick variant's 2 replicates) and on
the setup every paper fixes (patel's minimum one-way delay of 60 ms, its
2-packet buffer), so a wrong table or a mis-read scenario fails.
"""

from __future__ import annotations

import io
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
        # one-way propagation 10 + 40 + 10 ms plus transmission: at least the paper's 60 ms
        assert (mean_of(long, "delay_min_ms") >= 60).all()
        # a 4 KB buffer of 2 KB packets holds 2 packets
        assert (mean_of(long, "queue_max_pkts") <= 2).all()
    elif name == "bisoy-aqm":
        assert set(long["flows[0].count"]) == {20, 60}
    elif name == "vyshnavi-tcp":
        assert set(long.case_label) == {"tahoe", "reno", "bic", "cubic"}
    elif name == "ramachendra-modred":
        # the buffer caps the waiting time: 100 packets of 1500 B at 10 Mbps = 120 ms
        assert (mean_of(long, "avg_time_in_queue_ms") <= 120).all()
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


def test_report_only_without_runs_says_what_to_run(tmp_path: Path) -> None:
    err = io.StringIO()
    status = cli.main(
        ["reproduce", "bisoy-aqm", "--report-only", "--out", str(tmp_path / "none")], stdout=io.StringIO(), stderr=err
    )
    assert status == cli.EXIT_USAGE
    assert "ccsim reproduce bisoy-aqm --out" in err.getvalue()
