"""Statistics over replicates: intervals, Welch's test, Holm's correction, rankings, `ccsim summarize`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sweep_helpers import cli, write_sweep

import ccsim
from ccsim import stats
from ccsim.sweep import Serial, load_sweep, run_sweep


def test_t_interval_against_the_table() -> None:
    # x = 1..5: mean 3, s = sqrt(2.5); t_{0.975, 4} = 2.776 (any t table), so the half-width is
    # 2.776 * sqrt(2.5) / sqrt(5) = 1.963 (3 decimals: the table's precision).
    low, high = stats.t_interval([1, 2, 3, 4, 5])
    assert (low + high) / 2 == pytest.approx(3.0)
    assert (high - low) / 2 == pytest.approx(1.963, abs=5e-4)
    # 99%: t_{0.995, 4} = 4.604.
    low, high = stats.t_interval([1, 2, 3, 4, 5], confidence=0.99)
    assert (high - low) / 2 == pytest.approx(4.604 * math.sqrt(0.5), abs=5e-4)
    assert all(math.isnan(v) for v in stats.t_interval([7.0]))


def test_t_interval_covers_the_mean_95_percent_of_the_time() -> None:
    # 4000 samples of 5 normal values: the coverage is binomial with p = 0.95, standard deviation
    # sqrt(0.95 * 0.05 / 4000) = 0.0034; the tolerance is 3 of those.
    rng = np.random.default_rng(2024)
    data = rng.normal(10.0, 2.0, size=(4000, 5))
    covered = 0
    for x in data:
        low, high = stats.t_interval(x)
        covered += low <= 10.0 <= high
    assert covered / 4000 == pytest.approx(0.95, abs=0.0103)


def test_bootstrap_interval_coverage_and_determinism() -> None:
    # The percentile bootstrap of a mean undercovers a little for small n (it ignores the
    # uncertainty of the spread): with n = 20 normal values its 95% interval covers about 93%.
    # 600 samples: binomial standard deviation about 0.01, so 0.90..0.97 holds it with room.
    rng = np.random.default_rng(7)
    data = rng.normal(0.0, 1.0, size=(600, 20))
    covered = sum(lo <= 0.0 <= hi for lo, hi in (stats.bootstrap_interval(x, resamples=2000) for x in data))
    assert 0.90 <= covered / 600 <= 0.97
    x = data[0]
    assert stats.bootstrap_interval(x) == stats.bootstrap_interval(x)
    assert stats.bootstrap_interval(x, seed=1) != stats.bootstrap_interval(x, seed=2)


def test_welch_against_its_formula() -> None:
    a = np.array([10.1, 9.8, 10.4, 10.0, 9.9, 10.3])
    b = np.array([9.0, 9.9, 8.7, 9.6, 9.2, 9.8, 9.1, 9.5])
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))  # Welch-Satterthwaite
    w = stats.welch(a, b)
    assert w.t == pytest.approx(t, rel=1e-12)
    assert w.df == pytest.approx(df, rel=1e-12)
    # t = 4.18 with 11.3 degrees of freedom: between t_{0.995, 11} = 3.106 and t_{0.9995, 11} = 4.437
    # (t tables), so the two-sided p is between 0.001 and 0.01.
    assert w.t == pytest.approx(4.1833, abs=1e-4)
    assert 0.001 < w.p < 0.01
    # No spread at all: the difference is certain, or there is none.
    assert stats.welch([1, 1, 1], [2, 2, 2]).p == 0.0
    assert stats.welch([1, 1, 1], [1, 1, 1]).p == 1.0
    assert math.isnan(stats.welch([1], [2, 3]).p)


def test_holm_by_hand() -> None:
    # Sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> max so far 0.06.
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm([0.5, np.nan, 0.01]), [0.5, np.nan, 0.02])
    assert stats.holm([0.9, 0.8]).max() <= 1.0


def synthetic(rng: np.random.Generator, means: dict[str, float], n: int, sd: float, point: int) -> pd.DataFrame:
    """n normal replicates per case with the given means, at one grid point."""
    rows = [
        {"case_label": case, "load": point, "replicate": r, "metric": rng.normal(mu, sd)}
        for case, mu in means.items()
        for r in range(n)
    ]
    return pd.DataFrame(rows)


def test_a_known_difference_is_ranked_correctly() -> None:
    rng = np.random.default_rng(99)
    # At load 1, "fast" is 2 standard deviations better than "mid" and "twin", which are equal;
    # at load 2, all three are equal. With 12 replicates a 2-sd difference gives |t| about 5
    # (p < 1e-3 even after Holm's factor 3); the equal pairs have a 5% chance each of looking
    # different, a chance fixed with the seed (here they do not).
    df = pd.concat(
        [
            synthetic(rng, {"mid": 8.0, "fast": 10.0, "twin": 8.0}, 12, 1.0, 1),
            synthetic(rng, {"mid": 5.0, "fast": 5.0, "twin": 5.0}, 12, 1.0, 2),
        ]
    )
    c = stats.compare(df, "metric", ["load"], higher=True)
    r1 = c.ranking[c.ranking["load"] == 1].set_index("case")
    assert r1.loc["fast", "order"] == 1
    assert r1["rank"].to_dict() == {"fast": 1, "mid": 2, "twin": 2}
    assert r1.loc["fast", "better_than"] in ("mid, twin", "twin, mid")
    assert r1.loc["mid", "better_than"] == ""
    assert r1.loc["mid", "indistinguishable_from"] == "twin"
    p1 = c.pairwise[c.pairwise["load"] == 1]
    assert p1["significant"].tolist().count(True) == 2
    assert set(p1.loc[p1["significant"], "better"]) == {"fast"}
    assert (p1["p_holm"] >= p1["p"]).all()
    r2 = c.ranking[c.ranking["load"] == 2]
    assert r2["rank"].tolist() == [1, 1, 1]
    assert not c.pairwise.loc[c.pairwise["load"] == 2, "significant"].any()
    # Lower is better: the order flips, and "fast" is now significantly worse than both.
    low = stats.compare(df, "metric", ["load"], higher=False)
    l1 = low.ranking[low.ranking["load"] == 1].set_index("case")
    assert l1["rank"].to_dict() == {"fast": 3, "mid": 1, "twin": 1}
    assert l1.loc["fast", "order"] == 3


def test_metric_direction_from_the_name() -> None:
    assert stats.higher_is_better("goodput_bps")
    assert stats.higher_is_better("jain_index")
    assert stats.higher_is_better("bottleneck_utilization")
    assert not stats.higher_is_better("loss_rate")
    assert not stats.higher_is_better("bottleneck_avg_queue_pkts")
    assert not stats.higher_is_better("delay_mean_s")


NOISY = """\
name = "noisy"
base = "base.toml"
replicates = 40
timeseries = false
"""


def test_ci_width_shrinks_as_replicates_grow(tmp_path: Path) -> None:
    # Goodput at 80% load with Poisson arrivals varies from seed to seed. A run's seed does not depend
    # on how many replicates the sweep has, so the first n replicates of this 40-replicate sweep are
    # exactly a sweep with replicates = n.
    path = write_sweep(tmp_path, NOISY)
    assert run_sweep(load_sweep(path), tmp_path / "out", Serial()).failed == 0
    runs = ccsim.load(tmp_path / "out").runs
    assert runs["goodput_bps"].std() > 0
    widths = []
    for n in (5, 10, 20, 40):
        d = stats.describe(runs[runs["replicate"] < n], ["case_label"], ["goodput_bps"])
        assert d["n"].tolist() == [n]
        widths.append(float(d["half_width"].iloc[0]))
    # The half-width is t_{n-1} s / sqrt(n): in expectation it halves (and more, as t falls) from
    # n = 5 to 20 and again to about 0.7 from 20 to 40. s varies too, so only the order and a
    # factor 2 over 5 -> 40 (expected: 3.9) are asserted. For a random seed the chance that
    # s_5 / s_40 falls low enough to break the factor is about 1%.
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 2


def test_summarize_cli_writes_csv_and_ranks(twelve: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, _, pool = twelve
    status, out, err = cli("summarize", str(pool), "--rank", "loss_rate", "--csv-dir", str(tmp_path))
    assert (status, err) == (0, "")
    # One table per metric: a row per case, a column per grid value, n in the title.
    head = "each cell: mean ± half-width of the 95% confidence interval (Student t) over the replicates"
    assert out.startswith(f"{pool}: 12 runs; {head}\n")
    assert "goodput_bps (n = 3 per cell)" in out
    assert "┃ case     ┃ flows[0].rate = 3Mbps ┃ flows[0].rate = 5Mbps ┃" in out
    assert "Cases ranked on loss_rate (lower is better)" in out
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary.columns) == [
        "case_label",
        "flows[0].rate",
        "metric",
        "n",
        "mean",
        "std",
        "ci_low",
        "ci_high",
        "half_width",
    ]
    assert set(summary["metric"]) >= {"goodput_bps", "loss_rate", "jain_index"}
    assert (summary["n"] == 3).all()
    ranking = pd.read_csv(tmp_path / "ranking.csv")
    assert len(ranking) == 4  # 2 grid points x 2 cases
    pairwise = pd.read_csv(tmp_path / "pairwise.csv")
    assert len(pairwise) == 2
    # The CSV holds what the API gives.
    api = stats.summarize(pool, rank="loss_rate")
    pd.testing.assert_frame_equal(api.table, summary, check_dtype=False)
    # Bootstrap intervals, a chosen metric.
    status, out, _ = cli("summarize", str(pool), "-m", "goodput_bps", "--bootstrap", "--csv-dir", str(tmp_path))
    assert status == 0
    assert "percentile bootstrap" in out
    assert pd.read_csv(tmp_path / "summary.csv")["metric"].unique().tolist() == ["goodput_bps"]


def test_summarize_errors(twelve: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, _, pool = twelve
    status, _, err = cli("summarize", str(pool), "--rank", "goodput", "--csv-dir", str(tmp_path))
    assert status == 2
    assert err.startswith(f"error: {pool}: no metric 'goodput' in the runs table; the metrics are: goodput_bps")
    status, _, err = cli("summarize", str(tmp_path / "none"))
    assert status == 2
    assert "no results store" in err
