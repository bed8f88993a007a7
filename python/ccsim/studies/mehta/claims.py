"""The mehta study's claims: every headline claim of the seed, computed from the tables."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from ccsim import stats
from ccsim.studies.claims import (
    UNTESTED,
    Claim,
    ci,
    holm_all,
    judge,
    num,
    p_text,
    pair,
)
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.mehta.setup import (
    COMPATIBLE,
    EARLY_FLASH,
    FLASH,
    LABELS,
    LATE_FLASH,
    MAIN,
    MID_PERIODS,
    NEGLIGIBLE,
    SLOW_MAIN,
    SQUARE,
    label,
)
from ccsim.studies.tables import StudyTable, StudyTables


def _has(t: StudyTable, *cases: str) -> bool:
    present = set(t.rows[CASE].astype(str))
    return all(c in present for c in cases)


def _untested(claim: str, why: str) -> Claim:
    return Claim(claim, why, UNTESTED, "-")


def _pairs_claim(
    claim: str,
    t: StudyTable,
    metric: str,
    pairs: Sequence[tuple[str, str]],
    *,
    a_higher: bool,
    what: str,
) -> Claim:
    """A claim that, on `metric`, a > b (or a < b) for every (a, b) pair; Holm over the pairs."""
    pairs = [(a, b) for a, b in pairs if _has(t, a, b)]
    if not pairs:
        return _untested(claim, "the cases it compares are not in this run")
    ps = [pair(t, metric, a, b) for a, b in pairs]
    adj = holm_all(ps)
    holds = [(p.mean_a > p.mean_b) == a_higher for p in ps]
    sig = [q < 0.05 for q in adj]
    text = "; ".join(
        f"{label(p.a)} {ci(p.mean_a, p.half_a)} vs {label(p.b)} {ci(p.mean_b, p.half_b)}" + ("" if h else " (reversed)")
        for p, h in zip(ps, holds, strict=True)
    )
    signif = "; ".join(
        f"{label(p.a)} vs {label(p.b)}: {_sig_text(h, q, len(ps) > 1)}" for p, h, q in zip(ps, holds, adj, strict=True)
    )
    return Claim(claim, f"{what}: {text}", judge(holds, sig), signif)


def _sig_text(holds: bool, p: float, adjusted: bool) -> str:
    """'yes (p)' when the claimed direction holds significantly, 'reversed (p)' when the opposite does."""
    text = p_text(p, adjusted)
    if not holds and np.isfinite(p) and p < 0.05:
        return "reversed " + text.removeprefix("yes ")
    return text


def main_claims(tables: StudyTables) -> list[Claim]:
    """The CBR-restart experiment's claims (the seed's section III with Figure 6, Bansal et al. 4.1-4.2)."""
    loss, stab = tables.get("loss"), tables.get("stabilization")
    out = [
        _pairs_claim(
            "Slowly-responsive flows (TCP(1/256), SQRT(1/256), TFRC(256)) cause a higher loss rate than TCP "
            "when the CBR source restarts (Figure 6; Bansal et al. 4.1)",
            loss,
            "restart_peak_drop_rate",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="peak drop rate over 10-RTT windows in the first 5 s after the restart",
        ),
        _pairs_claim(
            "... and the loss stays high longer after the restart (Figure 6: drop rate over the first seconds)",
            loss,
            "restart_drop_rate",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="drop rate pooled over the first 5 s (5% of the on-period) after the restart",
        ),
        _pairs_claim(
            "... and takes longer to settle, at a higher stabilization cost (Bansal et al. 4.1)",
            stab,
            "stab_cost",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=True,
            what="stabilization cost (RTTs x drop rate; 10-RTT windows)",
        ),
        _pairs_claim(
            "TFRC without self-clocking responds worse to the restart than TFRC with self-clocking "
            "(Table 1; Bansal et al. 4.1)",
            stab,
            "stab_cost",
            [("tfrc_256", "tfrc_256_sc")],
            a_higher=True,
            what="stabilization cost",
        ),
        _pairs_claim(
            "... with a higher peak drop rate after the restart",
            loss,
            "restart_peak_drop_rate",
            [("tfrc_256", "tfrc_256_sc")],
            a_higher=True,
            what="peak drop rate over 10-RTT windows after the restart",
        ),
    ]
    out.append(_idle_claim(loss))
    out.append(
        _pairs_claim(
            "Slowly-responsive TCP-compatible algorithms do not use the whole bottleneck when bandwidth "
            "becomes available (section IV; Bansal et al. 4.2: f(20) after the CBR stops below TCP's)",
            stab,
            "f20",
            [(c, "tcp") for c in SLOW_MAIN],
            a_higher=False,
            what="f(20), fraction of the link in the first 20 RTTs after the CBR stops",
        )
    )
    return out


def _idle_claim(loss: StudyTable) -> Claim:
    claim = (
        "While the CBR source is off (100-150 s) the drop rate is negligible (section III; our reading: below "
        f"{num(NEGLIGIBLE * 100)}%, and below the drop rate with the CBR on)"
    )
    rows = loss.rows
    kinds = _cases_of(rows)
    if not kinds:
        return _untested(claim, "no runs")
    parts, holds, sig, worst = [], [], [], ("", -1.0)
    for k in kinds:
        sel = rows[rows[CASE] == k]
        idle = sel.idle_drop_rate.to_numpy(dtype=float)
        steady = sel.steady_drop_rate.to_numpy(dtype=float)
        m = float(idle.mean())
        low, high = stats.t_interval(idle)
        holds.append(m < NEGLIGIBLE and m < float(steady.mean()))
        sig.append(bool(np.isfinite(high) and high < NEGLIGIBLE))
        parts.append(f"{label(k)} {ci(m, (high - low) / 2 if np.isfinite(high) else math.nan)}")
        if m > worst[1]:
            worst = (k, m)
    steady_all = float(rows.steady_drop_rate.mean())
    finding = (
        f"pooled drop rate while the CBR is off: {'; '.join(parts)} (with the CBR on, steady: "
        f"{num(steady_all)} over all kinds); highest {label(worst[0])}"
    )
    n_sig = sum(sig)
    return Claim(
        claim,
        finding,
        judge(holds, sig),
        f"{n_sig} of {len(kinds)} kinds have the 95% interval's upper end below {num(NEGLIGIBLE)}",
    )


def _cases_of(rows: pd.DataFrame) -> list[str]:
    present = list(dict.fromkeys(rows[CASE].astype(str)))
    return [c for c in LABELS if c in present] + [c for c in present if c not in LABELS]


def flash_claims(tables: StudyTables) -> list[Claim]:
    """The flash-crowd claims (the seed's section III after Figures 8-14; Bansal et al. 4.1)."""
    t = tables.get("flash")
    return [
        _pairs_claim(
            "TFRC with self-clocking, SQRT and IIAD respond earlier to the flash crowd (section III; our reading: "
            "than TCP(1/256) and TFRC(256) without self-clocking, the other slowly-responsive kinds of its "
            "Figures 8-14, so the crowd's transfers complete sooner)",
            t,
            "crowd_fct_mean_s",
            [(a, b) for a in EARLY_FLASH for b in LATE_FLASH],
            a_higher=False,
            what="crowd's mean FCT (s)",
        ),
        _pairs_claim(
            "Slowly-responsive long-lived flows (TCP(1/256), TFRC(256)) give bandwidth to a flash crowd more "
            "slowly than TCP: the crowd's transfers take longer (Bansal et al. 4.1)",
            t,
            "crowd_fct_mean_s",
            [(c, "tcp") for c in LATE_FLASH],
            a_higher=True,
            what="crowd's mean FCT (s)",
        ),
    ]


def _paired(runs: pd.DataFrame, case: str, period: float) -> tuple[float, float, float, int]:
    """TCP's minus the other kind's normalized throughput in the same runs: mean, half-width, paired t p, n."""
    sel = runs[(runs[CASE] == case) & np.isclose(runs.period_s, period)]
    d = (sel.tcp_norm - sel.other_norm).to_numpy(dtype=float)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return (float(d.mean()) if len(d) else math.nan, math.nan, math.nan, len(d))
    low, high = stats.t_interval(d)
    p = float(sps.ttest_1samp(d, 0.0).pvalue) if np.std(d) > 0 else math.nan
    return float(d.mean()), (high - low) / 2, p, len(d)


def _square_claim(claim: str, runs: pd.DataFrame, cases: Sequence[str]) -> Claim:
    periods = sorted(set(runs.period_s))
    mid = [p for p in periods if any(math.isclose(p, m) for m in MID_PERIODS)]
    cases = [c for c in cases if (runs[CASE] == c).any()]
    if not cases or not mid:
        return _untested(claim, "the kinds or periods it compares are not in this run")
    results = [(c, p, *_paired(runs, c, p)) for c in cases for p in mid]
    adj = stats.holm([r[4] if np.isfinite(r[4]) else 1.0 for r in results])
    holds = [r[2] > 0 for r in results]
    sig = [bool(q < 0.05) for q in adj]
    text = "; ".join(
        f"{label(c)} {num(p)} s: {ci(m, h)}" + ("" if m > 0 else " (reversed)") for c, p, m, h, _, _ in results
    )
    n_ok = sum(h and s for h, s in zip(holds, sig, strict=True))
    return Claim(
        claim,
        f"TCP's minus the other kind's normalized throughput in the same runs, at each period: {text}",
        judge(holds, sig),
        f"{n_ok} of {len(results)} (kind, period) points significant in the claimed direction (paired t-test on "
        f"the runs' differences, Holm-adjusted over the points, alpha 0.05)",
    )


def square_claims(tables: StudyTables) -> list[Claim]:
    """The square-wave claims (the seed's section IV; Bansal et al. 4.3)."""
    runs = tables.get("square_link").rows
    out = [
        _square_claim(
            "When the square wave's period is between 1 and 10 s, TCP gets more throughput than TFRC: the "
            "oscillating bandwidth favours TCP (Figure 17; Bansal et al. 4.3)",
            runs,
            ["tfrc_8"],
        ),
        _square_claim(
            "TCP-compatible slowly-responsive AIMD and binomial flows (TCP(1/8), SQRT(1/2)) get less than TCP "
            "under the square wave (section IV; Figures 18-19)",
            runs,
            ["aimd_1_8", "sqrt_1_2"],
        ),
    ]
    out.append(_utilization_claim(runs))
    out.append(_compatible_claim(runs))
    return out


def _compatible_claim(runs: pd.DataFrame) -> Claim:
    claim = (
        "TFRC, AIMD with a = 4(2b - b^2)/3 (TCP(1/8)) and binomial SQRT with k + l = 1 are TCP-compatible: "
        "in a steady state they get about TCP's throughput (section II; our reading: TCP's over theirs within "
        f"{num(1 / COMPATIBLE)}-{num(COMPATIBLE)} at the longest period, where the bandwidth changes least often)"
    )
    if runs.empty:
        return _untested(claim, "no runs")
    longest = float(runs.period_s.max())
    sel = runs[np.isclose(runs.period_s, longest)]
    cases = [c for c in _cases_of(sel) if c in LABELS]
    parts, holds, sig = [], [], []
    for c in cases:
        r = sel[sel[CASE] == c].tcp_to_other.to_numpy(dtype=float)
        low, high = stats.t_interval(r)
        m = float(r.mean())
        holds.append(1 / COMPATIBLE <= m <= COMPATIBLE)
        sig.append(bool(np.isfinite(low) and low >= 1 / COMPATIBLE and high <= COMPATIBLE))
        parts.append(f"{label(c)} {ci(m, (high - low) / 2 if np.isfinite(high) else math.nan)}")
    if not cases:
        return _untested(claim, "no runs")
    return Claim(
        claim,
        f"TCP's normalized throughput over the other kind's in the same runs, period {num(longest)} s: "
        + "; ".join(parts),
        judge(holds, sig),
        f"{sum(sig)} of {len(cases)} kinds have the ratio's 95% interval inside the band",
    )


def _utilization_claim(runs: pd.DataFrame) -> Claim:
    claim = (
        "With a 0.2 s period (4 RTTs) the bottleneck is used efficiently (section IV; our reading: its "
        "utilization is higher than at the periods of 1-10 s)"
    )
    periods = sorted(set(runs.period_s))
    short = [p for p in periods if math.isclose(p, 0.2)]
    mid = [p for p in periods if any(math.isclose(p, m) for m in MID_PERIODS)]
    if not short or not mid:
        return _untested(claim, "the periods it compares are not in this run")
    rows = runs.assign(**{CASE: runs.period_s.map(lambda p: f"{num(p)} s")})
    ps = [pair(rows, "utilization", f"{num(short[0])} s", f"{num(p)} s") for p in mid]
    adj = holm_all(ps)
    holds = [p.mean_a > p.mean_b for p in ps]
    sig = [q < 0.05 for q in adj]
    u = runs.groupby("period_s").utilization.mean()
    text = "; ".join(f"{p.b} {ci(p.mean_b, p.half_b)}" for p in ps)
    return Claim(
        claim,
        f"utilization at 0.2 s {ci(ps[0].mean_a, ps[0].half_a)} vs {text} (all kinds pooled); highest at "
        f"{num(float(u.idxmax()))} s ({num(float(u.max()))})",
        judge(holds, sig),
        "; ".join(f"0.2 s vs {p.b}: {_sig_text(h, q, True)}" for p, h, q in zip(ps, holds, adj, strict=True)),
    )


def claims(data: StudyData, tables: StudyTables) -> list[Claim]:
    """Every headline claim of the seed, computed from the runs of the parts present."""
    out: list[Claim] = []
    if MAIN in data.parts:
        out += main_claims(tables)
    if FLASH in data.parts:
        out += flash_claims(tables)
    if SQUARE in data.parts:
        out += square_claims(tables)
    return out
