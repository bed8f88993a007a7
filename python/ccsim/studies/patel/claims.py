"""The patel study's claims (Sections 3.2-3.5, Tables 2-3, the conclusion) beside ccsim's findings.

Every verdict is `claims.judge`'s (ccsim.studies.claims).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence

import numpy as np

from ccsim import stats
from ccsim.studies import claims as cl
from ccsim.studies.core import StudyData
from ccsim.studies.patel.setup import (
    ALSO_RATE,
    BUFFER50,
    CASES,
    PAPER_BUFFER_PKTS,
    PAPER_RATE,
    PAPER_TABLE3,
    RATE,
    label,
    mbps,
    mbps_text,
    queue_limit,
)
from ccsim.studies.patel.tables import means_text, order_text
from ccsim.studies.tables import StudyTable, StudyTables


def _order_verdict(
    t: StudyTable, metric: str, paper: Sequence[str], rate: str
) -> tuple[str, list[cl.Pair], list[float], list[bool]]:
    """The verdict on the paper's order `paper` (best first): every pair compared, Holm-adjusted (`claims.judge`)."""
    point = {RATE: rate}
    higher = t.comparisons[metric].higher_is_better
    pairs = [cl.pair(t, metric, a, b, **point) for i, a in enumerate(paper) for b in paper[i + 1 :]]
    adjusted = cl.holm_all(pairs)
    agree = [p.a_higher == higher for p in pairs]
    sig = [cl.significant(a) for a in adjusted]
    return cl.judge(agree, sig), pairs, adjusted, agree


def _order_claim(
    t: StudyTable,
    claim: str,
    metric: str,
    *,
    paper: Sequence[str],
    rate: str,
    what: str,
    alt: StudyTable | None = None,
) -> cl.Claim:
    """The paper ranks `paper` best first on `metric` at `rate` (`_order_verdict`).

    The order at Table 1's 10 Mbps, and the order and verdict with a 50-packet buffer (`alt`, the
    sensitivity part), are added to the finding; the verdict is the paper's set-up's.
    """
    verdict, pairs, adjusted, agree = _order_verdict(t, metric, paper, rate)
    finding = f"{mbps_text(rate)}, {what}, best first: {order_text(t, metric, rate)}"
    if ALSO_RATE in set(t.rows[RATE]) and rate != ALSO_RATE:
        r = cl.best(t, metric, **{RATE: ALSO_RATE})
        order = ", ".join(label(str(c)) for c in r.case)
        ranks = ", ".join(str(int(k)) for k in r["rank"])
        finding += f". At {mbps_text(ALSO_RATE)} (Table 1): {order} (ranks {ranks})"
    if alt is not None and metric in alt.comparisons and rate in set(alt.rows[RATE]):
        alt_verdict = _order_verdict(alt, metric, paper, rate)[0]
        finding += f". With a 50-packet buffer: {order_text(alt, metric, rate)}; agrees? {alt_verdict}"
    tests = "; ".join(
        f"{label(p.a)} vs {label(p.b)}: {'' if g else 'reversed, '}{cl.p_text(a, adjusted=True)}"
        for p, g, a in zip(pairs, agree, adjusted, strict=True)
    )
    return cl.Claim(claim, finding, verdict, tests)


def _ranking_claims(t: StudyTable, rate: str, alt: StudyTable | None) -> list[cl.Claim]:
    """Section 3.3's throughput claim, Table 3 column by column, Section 3.4's maximum delay."""
    out = [
        _order_claim(
            t,
            "REM has the best throughput and RED the least at 5 Mbps (Section 3.3; Table 2: utilization "
            "78.58% REM, 68.08% SFQ, 59.45% RED)",
            "goodput_mbps",
            paper=("rem", "sfq", "red"),
            rate=rate,
            what="goodput of the forward flows (Mbps)",
            alt=alt,
        )
    ]
    what = {
        "delay_mean_ms": "mean one-way delay of the forward packets (ms)",
        "queue_avg_pkts": "time-averaged queue at R1->R2 (pkts)",
        "utilization": "utilization of R1->R2",
        "loss_ratio": "loss ratio at R1->R2",
    }
    for metric, (column, order) in PAPER_TABLE3.items():
        letters = ", ".join(f"{label(x)} {'ABC'[i]}" for i, x in enumerate(order))
        extra = " (conclusion: SFQ has the minimum loss ratio, RED the maximum)" if metric == "loss_ratio" else ""
        extra = " (conclusion: RED achieves the best delay)" if metric == "delay_mean_ms" else extra
        claim = f"Table 3, {column}: {letters}{extra}"
        out.append(_order_claim(t, claim, metric, paper=order, rate=rate, what=what[metric], alt=alt))
    out.append(
        _order_claim(
            t,
            "The maximum delay is reached with REM, the least with RED (Section 3.4; Table 2: 92.96, 90.01, 67.25 ms)",
            "delay_max_ms",
            paper=("red", "sfq", "rem"),
            rate=rate,
            what="largest one-way delay of a forward packet (ms)",
            alt=alt,
        )
    )
    return out


def _overall(t: StudyTable, rate: str) -> tuple[dict[str, float], dict[str, float], bool, bool]:
    """Mean position and mean significance rank over Table 3's columns; whether REM leads on each."""
    positions: dict[str, list[int]] = {c: [] for c in CASES}
    sig_ranks: dict[str, list[int]] = {c: [] for c in CASES}
    for metric in PAPER_TABLE3:
        for i, row in enumerate(cl.best(t, metric, **{RATE: rate}).itertuples()):
            positions[str(row.case)].append(i + 1)
            sig_ranks[str(row.case)].append(int(row.rank))
    mean_pos = {k: float(np.mean(v)) for k, v in positions.items() if v}
    mean_sig = {k: float(np.mean(v)) for k, v in sig_ranks.items() if v}
    holds = all(v > mean_pos["rem"] for k, v in mean_pos.items() if k != "rem")
    ahead = all(v > mean_sig["rem"] for k, v in mean_sig.items() if k != "rem")
    return mean_pos, mean_sig, holds, ahead


def _overall_claim(t: StudyTable, rate: str, alt: StudyTable | None) -> cl.Claim:
    """Conclusion: with equal weight to each parameter, REM is the best of the three."""
    mean_pos, mean_sig, holds, ahead = _overall(t, rate)
    finding = (
        f"{mbps_text(rate)}, mean position over Table 3's four columns (1 best): "
        + ", ".join(f"{label(k)} {v:.2f}" for k, v in mean_pos.items())
        + "; mean significance rank (1 + cases significantly better): "
        + ", ".join(f"{label(k)} {v:.2f}" for k, v in mean_sig.items())
    )
    if alt is not None and rate in set(alt.rows[RATE]):
        pos2, sig2, holds2, ahead2 = _overall(alt, rate)
        finding += (
            ". With a 50-packet buffer: positions "
            + ", ".join(f"{label(k)} {v:.2f}" for k, v in pos2.items())
            + ", significance ranks "
            + ", ".join(f"{label(k)} {v:.2f}" for k, v in sig2.items())
            + f"; agrees? {cl.verdict(holds2, ahead2)}"
        )
    return cl.Claim(
        "With equal weight to delay, queue length, throughput and loss, REM is the best of the three "
        "(conclusion; Table 3)",
        finding,
        cl.verdict(holds, ahead),
        "yes (REM has the lowest mean significance rank)"
        if ahead
        else "no (REM's mean significance rank is not the lowest)",
    )


def _setup_claims(t: StudyTable, st: StudyTable, rates: Sequence[str], rate: str) -> list[cl.Claim]:
    """Section 3.4's equal minimum delay, Table 2's queue bounds, Figure 7's time at two packets."""
    spreads = []
    for r in rates:
        mins = [float(t.stat("delay_min_ms", c, **{RATE: r})["mean"]) for c in CASES]
        spreads.append((r, min(mins), max(mins)))
    worst = max(hi - lo for _, lo, hi in spreads)
    limit = queue_limit()
    qmax, qmin = float(t.rows.queue_max_pkts.max()), float(t.rows.queue_min_pkts.min())
    pairs = [cl.pair(st, "queue_full_frac", "rem", b, **{RATE: rate}) for b in ("red", "sfq")]
    adj = cl.holm_all(pairs)
    return [
        cl.Claim(
            "The minimum delay is the same for every algorithm (Section 3.4; Table 2: 60.03 ms each)",
            "smallest one-way delay of a forward packet: "
            + ", ".join(f"{mbps_text(r)} {lo:.2f}-{hi:.2f} ms" for r, lo, hi in spreads)
            + " over the algorithms (60 ms propagation + a 2000-byte packet's transmission on the three links)",
            cl.exact(worst < 0.01),
            f"- (deterministic: the largest spread between the algorithms is {worst:.4f} ms)",
        ),
        cl.Claim(
            "The queue length is at most 2 packets and at least 0 for every algorithm (Table 2; Section 3.5)",
            f"largest queue of any run {qmax:.0f}, smallest {qmin:.0f} packets (buffer: {limit:g} packets)",
            cl.exact(qmax == PAPER_BUFFER_PKTS and qmin == 0),
            "- (fixed by the buffer)",
        ),
        cl.Claim(
            "REM holds the queue at two packets for a longer time than RED and SFQ (Section 3.5, Figure 7)",
            f"{mbps_text(rate)}, fraction of the samples at a full buffer: {means_text(st, 'queue_full_frac', rate)}",
            cl.verdict(all(p.a_higher for p in pairs), all(cl.significant(a) for a in adj)),
            "; ".join(f"REM vs {label(p.b)}: {cl.p_text(a, adjusted=True)}" for p, a in zip(pairs, adj, strict=True)),
        ),
    ]


def _monotone(t: StudyTable, metric: str, case: str, rates: Sequence[str]) -> tuple[bool, list[float], list[float]]:
    """Whether the mean falls at every step of the bandwidth, the means, and the Holm-adjusted p of each step."""
    means = [float(t.stat(metric, case, **{RATE: r})["mean"]) for r in rates]
    ps = [
        stats.welch(cl.values(t.rows, metric, case, **{RATE: r0}), cl.values(t.rows, metric, case, **{RATE: r1})).p
        for r0, r1 in itertools.pairwise(rates)
    ]
    adjusted = [float(p) for p in stats.holm(ps)] if ps else []
    return all(b < a for a, b in itertools.pairwise(means)), means, adjusted


def _bandwidth_claims(t: StudyTable, rates: Sequence[str]) -> list[cl.Claim]:
    """Section 3.2 / Figure 4: RED's loss falls smoothly with the bandwidth; SFQ's breaks at 15 Mbps."""
    mono = {c: _monotone(t, "loss_ratio", c, rates) for c in CASES}
    red_ok, _, red_p = mono["red"]
    # Three comparisons: RED falls at every step (significant when every step is, Holm over the steps);
    # SFQ and REM do not (read off the means, as the paper reads Figure 4: counted as decided).
    holds = [red_ok, not mono["sfq"][0], not mono["rem"][0]]
    verdict = cl.judge(holds, [all(cl.significant(p) for p in red_p), True, True])
    out = [
        cl.Claim(
            "RED's loss rate decreases smoothly as the bandwidth increases; SFQ's and REM's do not (Section 3.2, "
            "Figure 4)",
            f"mean loss ratio (%) from {mbps_text(rates[0])} to {mbps_text(rates[-1])}: "
            + "; ".join(f"{label(c)} " + ", ".join(f"{100 * m:.2f}" for m in mono[c][1]) for c in CASES)
            + ". Falling at every step: "
            + ", ".join(f"{label(c)} {'yes' if mono[c][0] else 'no'}" for c in CASES),
            verdict,
            "RED's steps significant (Welch, Holm over the steps): "
            + ", ".join("yes" if cl.significant(p) else "no" for p in red_p),
        )
    ]
    mid = "15Mbps"
    if mid in rates and 0 < rates.index(mid) < len(rates) - 1:
        i = rates.index(mid)
        nb = (rates[i - 1], rates[i + 1])
        x15 = cl.values(t.rows, "loss_ratio", "sfq", **{RATE: mid})
        adj = [
            float(p)
            for p in stats.holm([stats.welch(x15, cl.values(t.rows, "loss_ratio", "sfq", **{RATE: r})).p for r in nb])
        ]
        m = [float(t.stat("loss_ratio", "sfq", **{RATE: r})["mean"]) for r in (nb[0], mid, nb[1])]
        extreme = (m[1] > m[0] and m[1] > m[2]) or (m[1] < m[0] and m[1] < m[2])
        out.append(
            cl.Claim(
                "SFQ's loss rate changes drastically at 15 Mbps (Section 3.2, Figure 4)",
                f"SFQ's mean loss ratio {mbps_text(nb[0])} {100 * m[0]:.3f}%, {mbps_text(mid)} {100 * m[1]:.3f}%, "
                f"{mbps_text(nb[1])} {100 * m[2]:.3f}%: "
                + ("a local extreme at 15 Mbps" if extreme else "no break at 15 Mbps (between its neighbours)"),
                cl.verdict(extreme, all(cl.significant(p) for p in adj)),
                "; ".join(
                    f"15 vs {mbps(r):g} Mbps: {cl.p_text(p, adjusted=True)}" for r, p in zip(nb, adj, strict=True)
                ),
            )
        )
    return out


def _first_drop_claim(st: StudyTable, rate: str) -> cl.Claim:
    """Section 3.3: the throughput at the first drop is the same fraction of the maximum for every algorithm."""
    point = {RATE: rate}
    pairs = [cl.pair(st, "first_drop_ratio", a, b, **point) for a, b in itertools.combinations(CASES, 2)]
    adj = cl.holm_all(pairs)
    differs = [cl.significant(a) for a in adj]
    differ = any(differs)
    return cl.Claim(
        "The throughput where its growth first breaks (the first drop) is the same fraction of the maximum for "
        "each algorithm (Section 3.3)",
        f"{mbps_text(rate)}, forward throughput in the sample interval of the first drop at R1->R2 over its largest "
        f"value: {means_text(st, 'first_drop_ratio', rate)}; first drop in the interval ending at "
        f"{means_text(st, 'first_drop_s', rate, 1, 's')}",
        cl.same(differs),
        ("yes, some differ" if differ else "no pair differs significantly (equal within the test's power)")
        + f" (smallest Holm-adjusted Welch p = {min(adj):.2g})",
    )


def claims(data: StudyData, result: StudyTables) -> list[cl.Claim]:
    """The paper's claims (Sections 3.2-3.5, Tables 2-3, the conclusion) beside ccsim's findings."""
    t, st = result.get("table2"), result.get("fig5_7")
    alt = next((x for x in result.tables if x.table.part == BUFFER50), None)
    rates = sorted(set(t.rows[RATE]), key=mbps)
    rate = PAPER_RATE if PAPER_RATE in rates else rates[0]
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical; the means stand anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        return [
            *_ranking_claims(t, rate, alt),
            _overall_claim(t, rate, alt),
            *_setup_claims(t, st, rates, rate),
            *_bandwidth_claims(t, rates),
            _first_drop_claim(st, rate),
        ]
