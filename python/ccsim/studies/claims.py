"""A paper's headline claims beside what ccsim finds, with the numbers and a significance test.

Each study states its paper's claims as functions of the study's tables, so
the claims table of the report and of docs/studies/NAME.md is recomputed
from the data every time: nothing in it is typed in by hand. The test for a
claim that one case beats another is Welch's two-sided t-test over the
replicates (ccsim.stats.welch; the replicates are independent seeds); when a
claim is about several points or several cases, the p-values are
Holm-corrected over the comparisons the claim makes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.studies.core import CASE
from ccsim.studies.tables import StudyTable

ALPHA = 0.05
AGREES = "yes"
DISAGREES = "no"
PARTLY = "partly"
DIRECTION = "direction only"
UNTESTED = "not tested"


@dataclass(frozen=True)
class Claim:
    """One row of the claims table."""

    claim: str
    """the paper's claim (its words, or a close paraphrase with the figure or table it comes from)."""
    finding: str
    """what ccsim finds, with the numbers (mean ± 95% CI half-width)."""
    verdict: str
    """AGREES, DIRECTION, PARTLY or DISAGREES (as `judge` defines them), or UNTESTED."""
    significance: str
    """whether the difference the verdict rests on is significant, with the test's p-value."""


@dataclass(frozen=True)
class Pair:
    """Case a against case b on one metric at one grid point."""

    a: str
    b: str
    mean_a: float
    mean_b: float
    half_a: float
    half_b: float
    n_a: int
    n_b: int
    p: float

    @property
    def a_higher(self) -> bool:
        """Whether a's mean is above b's."""
        return self.mean_a > self.mean_b

    @property
    def significant(self) -> bool:
        """Welch's test at ALPHA (False when it cannot be computed)."""
        return significant(self.p)

    @property
    def ratio(self) -> float:
        """mean_a / mean_b (NaN when b's mean is 0)."""
        return self.mean_a / self.mean_b if self.mean_b else math.nan


def select(rows: pd.DataFrame, case: str | None = None, **point: object) -> pd.DataFrame:
    """The per-run rows of one case (all cases when None) at a grid point (keyword: column = value)."""
    sel = rows if case is None else rows[rows[CASE] == case]
    for k, v in point.items():
        sel = sel[sel[k] == v]
    return sel


def values(rows: pd.DataFrame, metric: str, case: str, **point: object) -> np.ndarray:
    """The replicates' values of `metric` (NaN dropped)."""
    x = select(rows, case, **point)[metric].to_numpy(dtype=np.float64, na_value=np.nan)
    return x[np.isfinite(x)]


def significant(p: float) -> bool:
    """Whether a test's p-value is below ALPHA (False when it could not be computed)."""
    return bool(np.isfinite(p) and p < ALPHA)


def half_width(x: np.ndarray) -> float:
    """The 95% Student t half-width of the mean of x (NaN with fewer than 2 values)."""
    low, high = stats.t_interval(x)
    return (high - low) / 2 if np.isfinite(low) else math.nan


def pair(t: StudyTable | pd.DataFrame, metric: str, a: str, b: str, **point: object) -> Pair:
    """Compare cases a and b on `metric` at a grid point (Welch's t-test on the replicates)."""
    rows = t.rows if isinstance(t, StudyTable) else t
    xa, xb = values(rows, metric, a, **point), values(rows, metric, b, **point)
    if len(xa) == 0 or len(xb) == 0:
        raise KeyError(f"{metric}: no runs of {a if len(xa) == 0 else b} at {point}")
    w = stats.welch(xa, xb)
    return Pair(a, b, float(xa.mean()), float(xb.mean()), half_width(xa), half_width(xb), len(xa), len(xb), w.p)


def holm_all(pairs: Sequence[Pair]) -> list[float]:
    """Holm-adjusted p-values of several pairs (one claim making several comparisons)."""
    return [float(p) for p in stats.holm([x.p for x in pairs])] if pairs else []


def num(x: float, digits: int = 3) -> str:
    """A number with `digits` significant digits ('-' for NaN)."""
    if not np.isfinite(x):
        return "-"
    if x != 0 and (abs(x) >= 10 ** (digits + 2) or abs(x) < 10 ** (-digits)):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def ci(mean: float, half: float, scale: float = 1.0, unit: str = "", digits: int = 3) -> str:
    """`mean ± half unit` (the 95% CI half-width)."""
    u = f" {unit}" if unit else ""
    if not np.isfinite(half):
        return f"{num(mean * scale, digits)}{u}"
    return f"{num(mean * scale, digits)} ± {num(half * scale, 2)}{u}"


def pair_text(p: Pair, scale: float = 1.0, unit: str = "") -> str:
    """`a m ± h vs b m ± h unit`."""
    return f"{p.a} {ci(p.mean_a, p.half_a, scale)} vs {p.b} {ci(p.mean_b, p.half_b, scale)}" + (
        f" {unit}" if unit else ""
    )


def p_text(p: float, adjusted: bool = False) -> str:
    """'yes (p = 0.003)' or 'no (p = 0.41)' at ALPHA."""
    if not np.isfinite(p):
        return "- (no spread or too few runs)"
    word = "yes" if p < ALPHA else "no"
    kind = "Holm-adjusted p" if adjusted else "Welch p"
    return f"{word} ({kind} = {p:.2g})"


def best(t: StudyTable, metric: str, **point: object) -> pd.DataFrame:
    """The ranking of the cases on a ranked metric at a grid point (ccsim.stats.compare: best first)."""
    r = t.comparisons[metric].ranking
    for k, v in point.items():
        r = r[r[k] == v]
    return r.sort_values("order")


def judge(holds: Sequence[bool], significant: Sequence[bool]) -> str:
    """The one definition of a verdict, for every study: a claim checked by one or more comparisons.

    `holds[i]`: comparison i goes the claimed way; `significant[i]`: it is significant (after Holm's
    adjustment over the claim's comparisons when there are several).

    - AGREES ("yes"): every comparison goes the claimed way, significantly;
    - DIRECTION ("direction only"): every one goes the claimed way, not all significantly;
    - PARTLY: not every one goes the claimed way, but at least one does significantly;
    - DISAGREES ("no"): none goes the claimed way significantly and not all go it (or none is made).
    """
    pairs = list(zip(holds, significant, strict=True))
    if pairs and all(h and s for h, s in pairs):
        return AGREES
    if pairs and all(h for h, _ in pairs):
        return DIRECTION
    if any(h and s for h, s in pairs):
        return PARTLY
    return DISAGREES


def verdict(holds: bool, significant: bool) -> str:
    """`judge` of a claim that rests on one comparison (AGREES, DIRECTION or DISAGREES)."""
    return judge([holds], [significant])


def exact(holds: bool) -> str:
    """`judge` of a claim about a quantity without spread (fixed by the set-up, the same in every replicate).

    No test is needed: the one comparison counts as significant, so the verdict is AGREES or DISAGREES.
    """
    return judge([holds], [True])


def same(differ: Sequence[bool]) -> str:
    """`judge` of a claim that cases do not differ, from whether each comparison it makes is significant.

    A comparison goes the claimed way when it finds no significant difference (equal within the test's
    power), which is all a test can say, so it counts as decided: AGREES when no pair differs, PARTLY when
    some do and some do not, DISAGREES when every pair differs.
    """
    return judge([not d for d in differ], [True] * len(differ))


def across(t: StudyTable | pd.DataFrame, metric: str, case: str, a: dict[str, object], b: dict[str, object]) -> Pair:
    """One case at two grid points a and b (e.g. 60 against 30 Mbps): Welch's t-test on the replicates.

    The Pair's `a` and `b` name the points (`key=value` joined by ", ").
    """
    rows = t.rows if isinstance(t, StudyTable) else t
    xa, xb = values(rows, metric, case, **a), values(rows, metric, case, **b)
    if len(xa) == 0 or len(xb) == 0:
        raise KeyError(f"{metric}: no runs of {case} at {a if len(xa) == 0 else b}")
    w = stats.welch(xa, xb)
    name_a = ", ".join(f"{k}={v}" for k, v in a.items())
    name_b = ", ".join(f"{k}={v}" for k, v in b.items())
    return Pair(
        name_a, name_b, float(xa.mean()), float(xb.mean()), half_width(xa), half_width(xb), len(xa), len(xb), w.p
    )


def direction_text(holds: Sequence[bool], significant: Sequence[bool], what: str) -> str:
    """'significant in the claimed direction at a of n <what>, against it at b' (several tests of one claim)."""
    pairs = list(zip(holds, significant, strict=True))
    agree = sum(1 for h, s in pairs if h and s)
    against = sum(1 for h, s in pairs if s and not h)
    return f"significant in the claimed direction at {agree} of {len(pairs)} {what}, against it at {against} (Holm)"
