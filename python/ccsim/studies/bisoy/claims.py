"""The bisoy study's claims (abstract, Section 4, conclusion) beside what ccsim finds."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from ccsim import stats
from ccsim.studies import claims as cl
from ccsim.studies.bisoy.setup import FLOWS, LENGTH, MAIN_CASES, MAXP, MAXP_CASES, NAMES, SAME_P, TIME_PART
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.tables import StudyTables

WELCH = "Welch"
ONE_SAMPLE = "one-sample t"
CONTRAST = "Welch-Satterthwaite contrast"


@dataclass(frozen=True)
class Check:
    """One comparison a claim makes: whether the claimed direction holds in the means, and its raw p-value."""

    text: str
    holds: bool
    p: float
    pair: str = ""
    """'A vs B' when the check compares two cases (the finding then says where A is better or worse)."""
    at: str = ""
    """the point compared at ('N=20', 'T=25')."""


def holm_significant(checks: Sequence[Check]) -> list[bool]:
    """Which of a claim's comparisons are significant at ALPHA after Holm's adjustment over all of them."""
    adjusted = stats.holm([c.p for c in checks]) if checks else []
    return [cl.significant(p) for p in adjusted]


def decide(checks: Sequence[Check], test: str = WELCH) -> tuple[str, str]:
    """(verdict, significance) of a claim from its comparisons, Holm-adjusted together (`claims.judge`)."""
    if not checks:
        return cl.UNTESTED, "-"
    sig = holm_significant(checks)
    n = len(checks)
    n_for = sum(c.holds and s for c, s in zip(checks, sig, strict=True))
    n_against = sum((not c.holds) and s for c, s in zip(checks, sig, strict=True))
    verdict = cl.judge([c.holds for c in checks], sig)
    if n == 1:
        word = "no" if not sig[0] else "yes" if checks[0].holds else "yes, the opposite way"
        return verdict, f"{word} ({test} p = {checks[0].p:.2g})"
    text = (
        f"the claimed way in {n_for} of {n} comparisons, the opposite way in {n_against} "
        f"({test} tests, Holm-adjusted over the {n}; alpha {cl.ALPHA:g})"
    )
    return verdict, text


def by_pair(checks: Sequence[Check]) -> str:
    """Where each compared pair goes the claimed way significantly, the opposite way, or neither."""
    groups: dict[str, list[tuple[str, bool, bool]]] = {}
    for c, s in zip(checks, holm_significant(checks), strict=True):
        if c.pair:
            groups.setdefault(c.pair, []).append((c.at, c.holds, s))
    parts = []
    for pair, items in groups.items():
        kinds = (
            ("as claimed", [at for at, h, s in items if h and s]),
            ("the opposite", [at for at, h, s in items if s and not h]),
            ("not significant", [at for at, _, s in items if not s]),
        )
        said = [(k, ats) for k, ats in kinds if ats]
        if len(said) == 1 and len(items) > 1:
            parts.append(f"{pair}: {said[0][0]} at all {len(items)}")
        else:
            parts.append(f"{pair}: " + ", ".join(f"{k} at {' '.join(ats)}" for k, ats in said))
    return "; ".join(parts)


def welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """Welch's two-sided p-value (NaN with fewer than 2 values on a side)."""
    return float(stats.welch(a, b).p)


def contrast(groups: Sequence[tuple[np.ndarray, float]]) -> tuple[float, float]:
    """A linear contrast sum c_i mean_i of independent samples: (estimate, two-sided p), Welch-Satterthwaite df."""
    if any(len(x) < 2 for x, _ in groups):
        return math.nan, math.nan
    est = sum(c * float(x.mean()) for x, c in groups)
    terms = [c * c * float(x.var(ddof=1)) / len(x) for x, c in groups]
    var = sum(terms)
    if var == 0:
        return est, (1.0 if est == 0 else 0.0)
    df = var * var / sum(t * t / (len(x) - 1) for t, (x, _) in zip(terms, groups, strict=True) if t > 0)
    return est, float(2 * sps.t.sf(abs(est) / math.sqrt(var), df))


def one_sample_p(x: np.ndarray, value: float) -> float:
    """Two-sided p of the t-test of mean(x) = value."""
    if len(x) < 2:
        return math.nan
    if x.var(ddof=1) == 0:
        return 1.0 if x.mean() == value else 0.0
    return float(sps.ttest_1samp(x, value).pvalue)


def _v(rows: pd.DataFrame, metric: str, case: str, at: object, col: str = FLOWS) -> np.ndarray:
    return cl.values(rows, metric, case, **{col: at})


def _ci(x: np.ndarray) -> str:
    return cl.ci(float(x.mean()), cl.half_width(x)) if len(x) else "-"


def _num(x: float) -> str:
    return cl.num(float(x))


def _present(rows: pd.DataFrame, cases: Iterable[str]) -> list[str]:
    have = set(rows[CASE])
    return [c for c in cases if c in have]


def _mean(rows: pd.DataFrame, metric: str, case: str) -> float:
    """A case's mean over all its runs (all grid points)."""
    return float(rows[rows[CASE] == case][metric].mean())


def short(col: str) -> str:
    return "N" if col == FLOWS else "T" if col == LENGTH else col


def beats(
    rows: pd.DataFrame,
    metric: str,
    a: str,
    others: Sequence[str],
    *,
    points: Sequence[object],
    higher: bool,
    col: str = FLOWS,
) -> tuple[str, list[Check]]:
    """`a` better than each of `others` on `metric` at each point: (finding, checks).

    The finding gives every case's mean at the first and the last point
    (`claim` adds where each pair differs significantly).
    """
    checks, parts = [], []
    done = [at for at in points if len(_v(rows, metric, a, at, col))]
    for at in done:
        xa = _v(rows, metric, a, at, col)
        label = f"{short(col)}={_num(float(at))}"
        for o in others:
            xo = _v(rows, metric, o, at, col)
            if len(xo):
                holds = xa.mean() > xo.mean() if higher else xa.mean() < xo.mean()
                checks.append(
                    Check(f"{at}: {a} vs {o}", bool(holds), welch_p(xa, xo), f"{NAMES[a]} vs {NAMES[o]}", label)
                )
        if at in (done[0], done[-1]):
            means = [f"{NAMES[c]} {_ci(_v(rows, metric, c, at, col))}" for c in (a, *others)]
            parts.append(f"{label}: " + ", ".join(means))
    return "; ".join(dict.fromkeys(parts)), checks


def trend(
    rows: pd.DataFrame, metric: str, cases: Sequence[str], *, lo: object, hi: object, up: bool
) -> tuple[str, list[Check]]:
    """Each case's metric higher (up) or lower at `hi` flows than at `lo` flows."""
    checks, parts = [], []
    for c in cases:
        x0, x1 = _v(rows, metric, c, lo), _v(rows, metric, c, hi)
        if len(x0) == 0 or len(x1) == 0:
            continue
        holds = x1.mean() > x0.mean() if up else x1.mean() < x0.mean()
        checks.append(Check(c, bool(holds), welch_p(x1, x0)))
        parts.append(f"{NAMES[c]} {_ci(x0)} -> {_ci(x1)}")
    return f"N = {lo} -> {hi}: " + "; ".join(parts), checks


def threshold(
    rows: pd.DataFrame, metric: str, cases: Sequence[str], *, points: Sequence[object], value: float, above: bool
) -> tuple[str, list[Check]]:
    """Each case's mean above (or below) `value` at each point (one-sample t-tests)."""
    checks, parts = [], []
    for c in cases:
        for at in points:
            x = _v(rows, metric, c, at)
            if len(x) == 0:
                continue
            holds = x.mean() > value if above else x.mean() < value
            checks.append(Check(f"{c} {at}", bool(holds), one_sample_p(x, value)))
            parts.append(f"{NAMES[c]} N={at}: {_ci(x)}")
    return "; ".join(parts), checks


def claim(text: str, finding: str, checks: Sequence[Check], test: str = WELCH) -> cl.Claim:
    """A Claim from its comparisons; UNTESTED when the run has none of the points it needs."""
    if not checks:
        return cl.Claim(text, "the run has none of the points this claim needs", cl.UNTESTED, "-")
    verdict, sig = decide(checks, test)
    pairs = by_pair(checks)
    return cl.Claim(text, f"{pairs}. Means: {finding}" if pairs else finding, verdict, sig)


def goodput_claims(rows: pd.DataFrame, ns: list[int]) -> list[cl.Claim]:
    """Figure 2 and the conclusion's 'all variants better than DropTail'."""
    main = _present(rows, MAIN_CASES)
    others = [c for c in main if c != "nlred"]
    out = []
    f, c = beats(rows, "goodput_norm", "nlred", others, points=ns, higher=True)
    out.append(claim("NLRED achieves (slightly) higher goodput than GRED, REM and DropTail (Fig. 2, abstract)", f, c))
    f, c = trend(rows, "goodput_norm", main, lo=ns[0], hi=ns[-1], up=True)
    out.append(claim("Goodput increases with the number of flows for all algorithms (Fig. 2)", f, c))
    f, c = threshold(rows, "goodput_norm", ["nlred"], points=[n for n in ns if n > 60], value=0.95, above=True)
    text = "Above 60 flows NLRED's goodput converges to the link bandwidth (Fig. 2; read: above 0.95 of it)"
    out.append(claim(text, f, c, ONE_SAMPLE))
    checks: list[Check] = []
    for a in _present(rows, ("gred", "nlred", "rem")):
        checks += beats(rows, "goodput_norm", a, ["droptail"], points=ns, higher=True)[1]
    means = ", ".join(f"{NAMES[a]} {_num(_mean(rows, 'goodput_norm', a))}" for a in main)
    if SAME_P in set(rows[CASE]):
        f, c = beats(rows, "goodput_norm", SAME_P, others, points=ns, higher=True)
        text = (
            "NLRED achieves higher goodput than GRED, REM and DropTail, with NLRED's curve read as 0.1 x^2 "
            "(Section 2.3: 'with the same max_p NLRED drops less than RED at every load')"
        )
        out.append(claim(text, f, c))
    text = "All variants of RED and REM perform better than DropTail (conclusion; read: higher goodput at each N)"
    out.append(claim(text, f"goodput averaged over the flow counts: {means}", checks))
    return out


def queue_claims(rows: pd.DataFrame, ns: list[int]) -> list[cl.Claim]:
    """Figures 3 and 4: the average queue and the delay."""
    main = _present(rows, MAIN_CASES)
    others = [c for c in main if c != "nlred"]
    out = []
    small = [n for n in ns if n <= 50]
    checks: list[Check] = []
    finding = ""
    if len(small) >= 2 and "nlred" in main:
        a, b = small[0], small[-1]
        rise = {c: (_v(rows, "avg_queue_pkts", c, a), _v(rows, "avg_queue_pkts", c, b)) for c in main}
        n0, n1 = rise["nlred"]
        for o in others:
            o0, o1 = rise[o]
            est, p = contrast([(n1, 1.0), (n0, -1.0), (o1, -1.0), (o0, 1.0)])
            checks.append(Check(o, bool(est > 0), p))
        finding = f"rise of the average queue from {a} to {b} flows: " + "; ".join(
            f"{NAMES[c]} {_num(rise[c][1].mean() - rise[c][0].mean())}" for c in main
        )
    text = "With few flows (up to 50) NLRED lets the average queue grow faster than the others (Fig. 3)"
    out.append(claim(text, finding + " packets", checks, CONTRAST))
    f, c = beats(rows, "avg_queue_pkts", "nlred", others, points=[n for n in ns if n >= 60], higher=False)
    text = "From 60 flows on NLRED keeps the average queue smaller than GRED, REM and DropTail (Fig. 3, conclusion)"
    out.append(claim(text, f + " (packets)", c))
    f, c = trend(rows, "queue_delay_ms", main, lo=ns[0], hi=ns[-1], up=False)
    text = "The queueing delay decreases for all algorithms as the flows increase (Fig. 4; bottleneck sojourn time)"
    out.append(claim(text, f + " (ms)", c))
    f, c = beats(rows, "delay_ms", "nlred", others, points=ns, higher=False)
    out.append(claim("NLRED has a lower delay than GRED, REM and DropTail (conclusion; one-way delay)", f + " (ms)", c))
    return out


def loss_claims(rows: pd.DataFrame, ns: list[int]) -> list[cl.Claim]:
    """Figure 5: the loss rate."""
    main = _present(rows, MAIN_CASES)
    others = [c for c in main if c != "nlred"]
    out = []
    f, c = trend(rows, "loss_rate", main, lo=ns[0], hi=ns[-1], up=True)
    out.append(claim("The loss rate increases with the number of flows for all algorithms (Fig. 5)", f, c))
    f, c = threshold(rows, "loss_rate", ["nlred"], points=[n for n in ns if n == 120], value=0.10, above=False)
    out.append(claim("NLRED's loss rate stays below 10% at 120 flows (Fig. 5)", f, c, ONE_SAMPLE))
    f, c = beats(rows, "loss_rate", "nlred", others, points=ns, higher=False)
    out.append(claim("NLRED has a lower packet loss rate than GRED, REM and DropTail (abstract, conclusion)", f, c))
    over = [n for n in ns if n >= 60]
    checks: list[Check] = []
    parts = []
    if len(over) >= 4:
        steps = (over[0], over[1], over[-2], over[-1])
        for case in main:
            x = [_v(rows, "loss_rate", case, n) for n in steps]
            est, p = contrast([(x[3], 1.0), (x[2], -1.0), (x[1], -1.0), (x[0], 1.0)])
            checks.append(Check(case, bool(est > 0), p))
            parts.append(
                f"{NAMES[case]} +{_num(x[1].mean() - x[0].mean())} ({steps[0]}->{steps[1]}), "
                f"+{_num(x[3].mean() - x[2].mean())} ({steps[2]}->{steps[3]})"
            )
    text = (
        "Above 60 flows the loss rate grows more than linearly with the flows (Fig. 5; read: its rise over the "
        "last step of the flow count exceeds that over the first)"
    )
    out.append(claim(text, "; ".join(parts), checks, CONTRAST))
    return out


def link_claims(rows: pd.DataFrame, ns: list[int]) -> list[cl.Claim]:
    """Figures 6 and 7: utilization and fairness."""
    main = _present(rows, MAIN_CASES)
    others = [c for c in main if c != "nlred"]
    out = []
    near = [n for n in ns if n >= 100]
    f1, c1 = threshold(rows, "utilization", ["nlred"], points=near, value=0.99, above=True)
    f2, c2 = threshold(rows, "utilization", others, points=near, value=0.90, above=True)
    text = (
        "Near 100 flows NLRED yields full link utilization (read: above 0.99) and GRED, REM and DropTail more "
        "than 90% (Fig. 6)"
    )
    out.append(claim(text, f"{f1}; {f2}", [*c1, *c2], ONE_SAMPLE))
    f, c = threshold(rows, "utilization", ["nlred"], points=ns, value=0.90, above=True)
    out.append(claim("NLRED's link utilization is always above 90% (conclusion)", f, c, ONE_SAMPLE))
    f, c = trend(rows, "jain_index", main, lo=ns[0], hi=ns[-1], up=True)
    out.append(claim("Jain's index increases with the number of flows for all algorithms (Fig. 7)", f, c))
    f, c = beats(rows, "jain_index", "nlred", others, points=ns, higher=True)
    out.append(claim("NLRED is significantly fairer (Jain's index) than GRED, REM and DropTail (Fig. 7)", f, c))
    f, c = beats(rows, "jain_index", "gred", _present(rows, ("rem", "droptail")), points=ns, higher=True)
    out.append(claim("GRED is fairer than REM and DropTail (Fig. 7)", f, c))
    return out


def time_claims(trows: pd.DataFrame) -> list[cl.Claim]:
    """Figures 8 and 9: goodput and loss against the simulation length."""
    ends = sorted(float(t) for t in trows[LENGTH].unique())
    others = [x for x in _present(trows, MAIN_CASES) if x != "nlred"]
    flows = ", ".join(str(n) for n in sorted(set(trows[FLOWS]))) if FLOWS in trows else "?"
    f, c = beats(trows, "goodput_norm", "nlred", others, points=ends, higher=True, col=LENGTH)
    text = f"NLRED achieves higher goodput than REM, GRED and DropTail at every simulation time (Fig. 8; {flows} flows)"
    out = [claim(text, f, c)]
    f, c = beats(trows, "loss_rate", "nlred", others, points=ends, higher=False, col=LENGTH)
    text = f"NLRED has fewer packet losses than REM, GRED and DropTail at every simulation time (Fig. 9; {flows} flows)"
    out.append(claim(text, f, c))
    return out


def maxp_claims(rows: pd.DataFrame, ns: list[int]) -> list[cl.Claim]:
    """Figure 10: GRED and NLRED at max_p 0.1, 0.3 and 0.5."""
    have = set(rows[CASE])
    out = []
    checks: list[Check] = []
    parts = []
    for p, g, n in zip(MAXP, MAXP_CASES["gred"], MAXP_CASES["nlred"], strict=True):
        if g in have and n in have:
            checks += beats(rows, "goodput_norm", n, [g], points=ns, higher=True)[1]
            parts.append(
                f"max_p {p}: NLRED {_num(_mean(rows, 'goodput_norm', n))} "
                f"vs GRED {_num(_mean(rows, 'goodput_norm', g))}"
            )
    text = "NLRED has higher goodput than GRED for max_p 0.1, 0.3 and 0.5 (Fig. 10)"
    out.append(claim(text, "goodput averaged over the flow counts: " + "; ".join(parts), checks))

    ends = {a: (g[0], g[-1]) for a, g in MAXP_CASES.items() if g[0] in have and g[-1] in have}
    checks, parts = [], []
    if len(ends) == len(MAXP_CASES):
        for n in ns:
            (g0, g1), (n0, n1) = ([_v(rows, "goodput_norm", c, n) for c in ends[a]] for a in ("gred", "nlred"))
            sg = 1.0 if g0.mean() >= g1.mean() else -1.0
            sn = 1.0 if n0.mean() >= n1.mean() else -1.0
            est, p = contrast([(g0, sg), (g1, -sg), (n0, -sn), (n1, sn)])
            checks.append(Check(str(n), bool(est > 0), p))
            parts.append(f"N={n}: GRED {_num(abs(g0.mean() - g1.mean()))}, NLRED {_num(abs(n0.mean() - n1.mean()))}")
    text = (
        "NLRED is less sensitive to max_p than GRED (Fig. 10, conclusion; read: a smaller gap between its goodput "
        "at max_p 0.1 and at 0.5)"
    )
    out.append(claim(text, "gap in goodput: " + "; ".join(parts), checks, CONTRAST))

    checks, parts = [], []
    for algo, (c0, c1) in ends.items():
        for n in ns:
            x0, x1 = _v(rows, "goodput_norm", c0, n), _v(rows, "goodput_norm", c1, n)
            checks.append(Check(f"{algo} {n}", bool(x1.mean() < x0.mean()), welch_p(x1, x0)))
        parts.append(
            f"{NAMES[algo]} {_num(_mean(rows, 'goodput_norm', c0))} -> {_num(_mean(rows, 'goodput_norm', c1))}"
        )
    text = "As max_p increases the goodput of NLRED and GRED decreases (Fig. 10; max_p 0.1 vs 0.5 at each flow count)"
    out.append(claim(text, "goodput averaged over the flow counts, max_p 0.1 -> 0.5: " + "; ".join(parts), checks))
    return out


def claims(data: StudyData, tables: StudyTables) -> list[cl.Claim]:
    """The paper's headline claims (abstract, Section 4, conclusion) beside what ccsim finds."""
    rows = tables.get("flows").rows
    ns = sorted(int(n) for n in rows[FLOWS].unique())
    out = [
        *goodput_claims(rows, ns),
        *queue_claims(rows, ns),
        *loss_claims(rows, ns),
        *link_claims(rows, ns),
    ]
    if TIME_PART in data.parts:
        out += time_claims(tables.get("time").rows)
    out += maxp_claims(rows, ns)
    return out
