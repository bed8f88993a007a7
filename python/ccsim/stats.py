"""Statistics over replicates: confidence intervals per grid point, and which cases differ significantly.

    >>> import ccsim
    >>> from ccsim import stats
    >>> s = stats.summarize("results/sweep_aqm", rank="goodput_bps")
    >>> s.table      # per (case, grid point, metric): n, mean, std, ci_low, ci_high
    >>> s.ranking    # per grid point: the cases ordered by mean, with their significance rank
    >>> s.pairwise   # per grid point and pair of cases: Welch's t-test, Holm-adjusted p-value

Methods (docs/sweeps.md, "Statistics"):

- Confidence interval of a mean, Student t: mean +- t_{(1+c)/2, n-1} s / sqrt(n),
  with s the sample standard deviation (n - 1 in the denominator). Exact
  for normal data; for other data it rests on the central limit theorem.
- Bootstrap (option): the percentile interval of the resampled means
  (Efron and Tibshirani, "An Introduction to the Bootstrap", 1993, section
  13.3), from a seeded generator so the same data give the same interval.
  With few replicates it is narrower than it should be (it ignores the
  uncertainty of s; with n = 5 its 95% interval covers about 85%), so the
  t interval is the default.
- Pairwise comparison of two cases at one grid point: Welch's t-test
  (unequal variances; Welch 1947), two-sided, by scipy.
- The k(k-1)/2 tests at one grid point are one family, corrected with
  Holm's step-down method (Holm 1979), which holds the family-wise error
  rate at alpha under any dependence between the tests.
- Significance rank: 1 + the number of cases significantly better, so
  cases that cannot be told apart from the best share rank 1.

Replicates must be independent runs (their seeds are): the tests assume it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats as sps

from ccsim.sweep.store import STATUS_OK, SweepResults, load

Method = Literal["t", "bootstrap"]
CASE = "case_label"
DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0

# Metrics where less is better; any other metric is taken as more-is-better (goodput, fairness, utilization).
_LOWER_IS_BETTER = re.compile(r"loss|lost|drop|delay|sojourn|queue|len_|jitter|fct|retransmit|timeout|rtt|wait")


def higher_is_better(metric: str) -> bool:
    """Whether a larger value of `metric` is better (false for losses, delays, queue lengths, ...)."""
    return _LOWER_IS_BETTER.search(metric) is None


def _clean(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    x = np.asarray(values, dtype=np.float64)
    return x[~np.isnan(x)]


def t_interval(values: npt.ArrayLike, confidence: float = 0.95) -> tuple[float, float]:
    """Student t confidence interval of the mean; (nan, nan) with fewer than 2 values."""
    x = _clean(values)
    n = len(x)
    if n < 2:
        return (math.nan, math.nan)
    mean = float(x.mean())
    half = float(sps.t.ppf((1 + confidence) / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return (mean - half, mean + half)


def bootstrap_interval(
    values: npt.ArrayLike,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean; (nan, nan) with fewer than 2 values."""
    x = _clean(values)
    n = len(x)
    if n < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    alpha = 1 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return (float(low), float(high))


def describe(
    df: pd.DataFrame,
    by: Sequence[str],
    metrics: Sequence[str],
    *,
    confidence: float = 0.95,
    method: Method = "t",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Per group of `by` and per metric: n, mean, std, ci_low, ci_high, half_width (long format).

    NaN values are left out (n counts the others); with n < 2 the standard
    deviation and the interval are NaN.
    """
    _check_confidence(confidence)
    rows: list[dict[str, object]] = []
    groups = df.groupby(list(by), sort=False, dropna=False) if by else [((), df)]
    for key, group in groups:
        keys = key if isinstance(key, tuple) else (key,)
        for metric in metrics:
            x = _clean(group[metric].to_numpy(dtype=np.float64, na_value=np.nan))
            n = len(x)
            if method == "t":
                low, high = t_interval(x, confidence)
            elif method == "bootstrap":
                low, high = bootstrap_interval(x, confidence, resamples, seed)
            else:
                raise ValueError(f"method: expected 't' or 'bootstrap', got {method!r}")
            rows.append(
                {
                    **dict(zip(by, keys, strict=True)),
                    "metric": metric,
                    "n": n,
                    "mean": float(x.mean()) if n else math.nan,
                    "std": float(x.std(ddof=1)) if n > 1 else math.nan,
                    "ci_low": low,
                    "ci_high": high,
                    "half_width": (high - low) / 2,
                }
            )
    columns = [*by, "metric", "n", "mean", "std", "ci_low", "ci_high", "half_width"]
    return pd.DataFrame(rows, columns=columns)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: expected a level between 0 and 1 (e.g. 0.95), got {confidence}")


def holm(pvalues: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Holm-adjusted p-values: reject hypothesis i at level alpha iff adjusted[i] < alpha.

    Sorted ascending, p_(j) becomes max over i <= j of min(1, (m - i + 1) p_(i))
    (Holm 1979; the adjusted-value form of Wright 1992). NaN stays NaN and
    does not count in m.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    idx = np.flatnonzero(ok)[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[idx])
    out[idx] = np.maximum.accumulate(scaled)
    return out


@dataclass(frozen=True)
class Welch:
    """Welch's two-sided t-test of mean(a) = mean(b)."""

    t: float
    df: float
    p: float


def welch(a: npt.ArrayLike, b: npt.ArrayLike) -> Welch:
    """Welch's t-test (scipy); NaN with fewer than 2 values on a side.

    Two samples without any spread are certain: p = 1 if their means are
    equal, else 0 (scipy would return NaN).
    """
    x, y = _clean(a), _clean(b)
    if len(x) < 2 or len(y) < 2:
        return Welch(math.nan, math.nan, math.nan)
    if x.var(ddof=1) == 0 and y.var(ddof=1) == 0:
        diff = float(x.mean() - y.mean())
        if diff == 0:
            return Welch(0.0, math.nan, 1.0)
        return Welch(math.copysign(math.inf, diff), math.nan, 0.0)
    r = sps.ttest_ind(x, y, equal_var=False)
    return Welch(float(r.statistic), float(r.df), float(r.pvalue))


def _compare_point(
    samples: dict[str, npt.NDArray[np.float64]], better_high: bool, alpha: float, confidence: float
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The ranking rows and the pairwise rows of one grid point (`compare`)."""
    means = {c: float(x.mean()) if len(x) else math.nan for c, x in samples.items()}
    sign = -1.0 if better_high else 1.0
    order = sorted(samples, key=lambda c: (math.isnan(means[c]), 0.0 if math.isnan(means[c]) else sign * means[c]))
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    tests = [welch(samples[a], samples[b]) for a, b in pairs]
    adjusted = holm([t.p for t in tests])
    wins: set[tuple[str, str]] = set()  # (better, worse), significant pairs only
    ties: set[tuple[str, str]] = set()  # both orders of the pairs not told apart
    pair_rows: list[dict[str, object]] = []
    for (a, b), t, p_adj in zip(pairs, tests, adjusted, strict=True):
        sig = bool(p_adj < alpha) and means[a] != means[b]
        winner = a if (means[a] > means[b]) == better_high else b
        if sig:
            wins.add((winner, b if winner == a else a))
        else:
            ties |= {(a, b), (b, a)}
        pair_rows.append(
            {
                "case_a": a,
                "case_b": b,
                "mean_a": means[a],
                "mean_b": means[b],
                "diff": means[a] - means[b],
                "t": t.t,
                "df": t.df,
                "p": t.p,
                "p_holm": float(p_adj),
                "significant": sig,
                "better": winner if sig else "",
            }
        )
    rank_rows: list[dict[str, object]] = []
    for position, c in enumerate(order, start=1):
        x = samples[c]
        low, high = t_interval(x, confidence)
        rank_rows.append(
            {
                "order": position,
                "rank": 1 + sum((o, c) in wins for o in order),
                "case": c,
                "n": len(x),
                "mean": means[c],
                "std": float(x.std(ddof=1)) if len(x) > 1 else math.nan,
                "ci_low": low,
                "ci_high": high,
                "better_than": ", ".join(o for o in order if (c, o) in wins),
                "indistinguishable_from": ", ".join(o for o in order if (c, o) in ties),
            }
        )
    return rank_rows, pair_rows


@dataclass
class Comparison:
    """The cases compared on one metric at every grid point."""

    metric: str
    higher_is_better: bool
    alpha: float
    ranking: pd.DataFrame
    pairwise: pd.DataFrame


def compare(
    df: pd.DataFrame,
    metric: str,
    by: Sequence[str] = (),
    *,
    case: str = CASE,
    higher: bool | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> Comparison:
    """Rank the cases (`case` column) on `metric` at each group of `by` (the grid point).

    `ranking`: per point, the cases in order of their mean (best first; best
    is the largest unless `higher` is false, by default decided by the
    metric's name), with n, mean, std, the t interval, `rank` = 1 + the
    number of cases significantly better, and the cases it is significantly
    better than / not distinguishable from. `pairwise`: per point, every
    pair (a ranked above b) with the difference of means, Welch's t, its
    degrees of freedom, p, Holm-adjusted p and whether the difference is
    significant at `alpha`.
    """
    _check_confidence(confidence)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a level between 0 and 1, got {alpha}")
    better_high = higher_is_better(metric) if higher is None else higher
    rank_rows: list[dict[str, object]] = []
    pair_rows: list[dict[str, object]] = []
    groups = df.groupby(list(by), sort=False, dropna=False) if by else [((), df)]
    for key, group in groups:
        keys = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        samples = {
            str(label): _clean(g[metric].to_numpy(dtype=np.float64, na_value=np.nan))
            for label, g in group.groupby(case, sort=False, dropna=False)
        }
        ranks, pairs = _compare_point(samples, better_high, alpha, confidence)
        rank_rows += [{**keys, **r} for r in ranks]
        pair_rows += [{**keys, **r} for r in pairs]
    rank_cols = [*by, "order", "rank", "case", "n", "mean", "std", "ci_low", "ci_high", "better_than"]
    pair_cols = [*by, "case_a", "case_b", "mean_a", "mean_b", "diff", "t", "df", "p", "p_holm", "significant"]
    return Comparison(
        metric=metric,
        higher_is_better=better_high,
        alpha=alpha,
        ranking=pd.DataFrame(rank_rows, columns=[*rank_cols, "indistinguishable_from"]),
        pairwise=pd.DataFrame(pair_rows, columns=[*pair_cols, "better"]),
    )


@dataclass
class Summary:
    """`summarize`'s result: the per-point statistics and, with `rank`, the comparison of the cases."""

    parameters: list[str]
    metrics: list[str]
    confidence: float
    method: Method
    table: pd.DataFrame
    comparison: Comparison | None = None
    runs: int = 0
    failed: int = 0
    files: list[Path] = field(default_factory=list)

    @property
    def ranking(self) -> pd.DataFrame | None:
        """The ranking table (None without `rank`)."""
        return self.comparison.ranking if self.comparison else None

    @property
    def pairwise(self) -> pd.DataFrame | None:
        """The pairwise tests (None without `rank`)."""
        return self.comparison.pairwise if self.comparison else None

    def write_csv(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write summary.csv (and ranking.csv, pairwise.csv with a comparison) into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [out / "summary.csv"]
        self.table.to_csv(written[0], index=False)
        if self.comparison is not None:
            written += [out / "ranking.csv", out / "pairwise.csv"]
            self.comparison.ranking.to_csv(written[1], index=False)
            self.comparison.pairwise.to_csv(written[2], index=False)
        self.files = written
        return written


def summarize(
    results: SweepResults | str | os.PathLike[str],
    *,
    metrics: Sequence[str] | None = None,
    rank: str | None = None,
    higher: bool | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    method: Method = "t",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Summary:
    """Aggregate a sweep's successful runs per (case, grid point); optionally rank the cases on `rank`.

    `results` is a sweep's output folder or what `ccsim.load` returned.
    `metrics` defaults to every numeric summary metric of the runs table.
    """
    res = results if isinstance(results, SweepResults) else load(results)
    ok = res.runs[res.runs["status"] == STATUS_OK]
    chosen = list(metrics) if metrics is not None else res.metrics
    for m in [*chosen, *([rank] if rank else [])]:
        if m not in res.runs.columns:
            known = ", ".join(res.metrics) or "none (no run succeeded)"
            raise ValueError(f"no metric {m!r} in the runs table; the metrics are: {known}")
    by = [CASE, *res.parameters]
    table = describe(ok, by, chosen, confidence=confidence, method=method, resamples=resamples, seed=seed)
    comparison = compare(ok, rank, res.parameters, higher=higher, alpha=alpha, confidence=confidence) if rank else None
    return Summary(
        parameters=list(res.parameters),
        metrics=chosen,
        confidence=confidence,
        method=method,
        table=table,
        comparison=comparison,
        runs=len(res.runs),
        failed=int((res.runs["status"] != STATUS_OK).sum()),
    )
