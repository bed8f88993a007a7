"""The ramachendra study's claims beside what ccsim finds."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from ccsim.studies.claims import UNTESTED, Claim, Pair, across, ci, direction_text, holm_all, judge, pair, significant
from ccsim.studies.core import StudyData
from ccsim.studies.ramachendra.setup import ACTIVE, AQMS, BASELINE_LIMIT, LIMIT, configurations
from ccsim.studies.tables import StudyTable, StudyTables


def _points(t: StudyTable) -> list[tuple[int, int]]:
    return sorted({(int(a), int(q)) for a, q in zip(t.rows.active, t.rows.queue_pkts, strict=True)})


def _beats(
    t: StudyTable,
    metric: str,
    *,
    high: bool,
    others: Sequence[str],
    points: Sequence[tuple[int, int]],
    unit: str,
    scale: float = 1.0,
    claim: str,
) -> Claim:
    """ModRED better than each of `others` on `metric` at every point (active, queue): Holm over all tests."""
    pairs: list[Pair] = []
    holds: list[bool] = []
    for active, limit in points:
        ps = [pair(t, metric, "modred", o, **{ACTIVE: active, LIMIT: limit}) for o in others]
        pairs += ps
        holds.append(all((p.mean_a > p.mean_b) if high else (p.mean_a < p.mean_b) for p in ps))
    if not pairs:
        return Claim(claim, "no runs at the claim's points", UNTESTED, "-")
    adj = holm_all(pairs)
    n = len(others)
    sig = [all(significant(p) for p in adj[i : i + n]) for i in range(0, len(adj), n)]

    # the points where ModRED is furthest behind and furthest ahead of the best other
    def gap(i: int) -> tuple[float, Pair]:
        ps = pairs[i * n : (i + 1) * n]
        best = max(ps, key=lambda p: p.mean_b) if high else min(ps, key=lambda p: p.mean_b)
        return ((best.mean_a - best.mean_b) if high else (best.mean_b - best.mean_a)), best

    gaps = [gap(i) for i in range(len(points))]
    worst_i = min(range(len(points)), key=lambda i: gaps[i][0])
    best_i = max(range(len(points)), key=lambda i: gaps[i][0])

    def where(i: int) -> str:
        a, q = points[i]
        p = gaps[i][1]
        return (
            f"{a} conn./queue {q}: modred {ci(p.mean_a, p.half_a, scale)} vs {p.b} {ci(p.mean_b, p.half_b, scale)}"
            f"{' ' + unit if unit else ''}"
        )

    finding = (
        f"modred {'above' if high else 'below'} all of {', '.join(others)} at {sum(holds)} of {len(points)} points "
        f"(active connections x queue size); worst {where(worst_i)}; best {where(best_i)}"
    )
    significance = direction_text(holds, sig, f"points ({len(pairs)} tests)")
    return Claim(claim, finding, judge(holds, sig), significance)


def _queue_trend(
    t: StudyTable,
    metric: str,
    *,
    up: bool,
    small: int,
    large: int,
    actives: Sequence[int],
    unit: str,
    scale: float = 1.0,
    claim: str,
) -> Claim:
    """Every AQM's metric higher (up) or lower with the large queue than with the small one, at each count."""
    pairs: list[Pair] = []
    labels: list[str] = []
    for active in actives:
        for aqm in AQMS:
            pairs.append(across(t, metric, aqm, {LIMIT: large, ACTIVE: active}, {LIMIT: small, ACTIVE: active}))
            labels.append(aqm)
    if not pairs:
        return Claim(claim, "no runs at the claim's points", UNTESTED, "-")
    adj = holm_all(pairs)
    holds = [(p.mean_a > p.mean_b) if up else (p.mean_a < p.mean_b) for p in pairs]
    sig = [significant(p) for p in adj]
    shown = actives[-1]
    detail = "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, scale)} -> {ci(p.mean_a, p.half_a, scale)}"
        for aqm, p in zip(labels[-len(AQMS) :], pairs[-len(AQMS) :], strict=True)
    )
    finding = (
        f"holds for {sum(holds)} of {len(pairs)} (AQM, connections) pairs; at {shown} connections, queue "
        f"{small} -> {large}: {detail}{' ' + unit if unit else ''}"
    )
    significance = direction_text(holds, sig, "(AQM, connections) pairs")
    return Claim(claim, finding, judge(holds, sig), significance)


def _loss_example(t: StudyTable) -> Claim:
    """The paper's example: loss 3.58% with 100 packets, 1.6% with 250, at 75% load of 64 nodes (48 conn.)."""
    claim = "Section 5: at 75% load of 64 nodes the loss rate is 3.58% with a queue of 100 packets, 1.6% with 250"
    points = _points(t)
    if (48, 100) not in points or (48, 250) not in points:
        return Claim(claim, "not run (48 connections, queues 100 and 250)", UNTESTED, "-")
    pairs = [across(t, "queue_loss_rate", aqm, {LIMIT: 250, ACTIVE: 48}, {LIMIT: 100, ACTIVE: 48}) for aqm in AQMS]
    adj = holm_all(pairs)
    holds = [p.mean_a < p.mean_b for p in pairs]
    sig = [significant(p) for p in adj]
    finding = "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, 100)}% -> {ci(p.mean_a, p.half_a, 100)}%"
        for aqm, p in zip(AQMS, pairs, strict=True)
    )
    significance = direction_text(holds, sig, "AQMs")
    return Claim(claim, finding + " (100 -> 250 packets)", judge(holds, sig), significance)


def _congestion(t: StudyTable) -> Claim:
    """'The larger the number of connections, the worse the congestion': loss at the most vs fewest connections."""
    points = _points(t)
    limits = sorted({q for _, q in points})
    limit = BASELINE_LIMIT if BASELINE_LIMIT in limits else limits[-1]
    actives = sorted(a for a, q in points if q == limit)
    claim = "Section 5: the more connections share the bottleneck, the worse the congestion (loss rate)"
    if len(actives) < 2:
        return Claim(claim, "one connection count only", UNTESTED, "-")
    lo, hi = actives[0], actives[-1]
    pairs = [across(t, "queue_loss_rate", aqm, {ACTIVE: hi, LIMIT: limit}, {ACTIVE: lo, LIMIT: limit}) for aqm in AQMS]
    adj = holm_all(pairs)
    holds = [p.mean_a > p.mean_b for p in pairs]
    sig = [significant(p) for p in adj]
    finding = f"queue {limit}, {lo} -> {hi} connections: " + "; ".join(
        f"{aqm} {ci(p.mean_b, p.half_b, 100)}% -> {ci(p.mean_a, p.half_a, 100)}%"
        for aqm, p in zip(AQMS, pairs, strict=True)
    )
    significance = direction_text(holds, sig, "AQMs")
    return Claim(claim, finding, judge(holds, sig), significance)


def _load_points(points: Sequence[tuple[int, int]], loads: Sequence[int]) -> list[tuple[int, int]]:
    """The (active, queue) points that stand for some n at one of `loads`."""
    return [(a, q) for a, q in points if any(load in loads for _, load in configurations(a))]


def claims(data: StudyData, result: StudyTables) -> list[Claim]:
    """The paper's claims (abstract, sections 3 and 5, conclusion) against ccsim's runs."""
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical (a saturated link
        # carries 10 Mbps in every replicate); the tests stand anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _claims(result)


def _claims(result: StudyTables) -> list[Claim]:
    t = result.get("metrics")
    points = _points(t)
    others = [a for a in AQMS if a != "modred"]
    limits = sorted({q for _, q in points})
    actives = sorted({a for a, _ in points})
    out = [
        _beats(
            t,
            "throughput_mbps",
            high=True,
            others=others,
            points=points,
            unit="Mbps",
            claim="Abstract: ModRED achieves higher throughput (and link utilization) than RED, WRED and AVQ",
        ),
        _beats(
            t,
            "queue_loss_rate",
            high=False,
            others=others,
            points=points,
            unit="%",
            scale=100,
            claim="Abstract: ModRED has a lower loss rate than RED, WRED and AVQ",
        ),
        _beats(
            t,
            "avg_time_in_queue_ms",
            high=False,
            others=["red"],
            points=points,
            unit="ms",
            claim="Section 3 / conclusion: ModRED reduces the queueing delay (average time in queue) of RED",
        ),
        _beats(
            t,
            "jitter_ms",
            high=False,
            others=["red"],
            points=points,
            unit="ms",
            claim="Section 3: ModRED reduces the delay jitter of RED",
        ),
        _beats(
            t,
            "throughput_mbps",
            high=True,
            others=others,
            points=_load_points(points, (75, 100)),
            unit="Mbps",
            claim="Section 5: at 75% and 100% load ModRED improves significantly on the dropping AQMs (throughput)",
        ),
    ]
    if len(limits) > 1:
        out += [
            _queue_trend(
                t,
                "queue_loss_rate",
                up=False,
                small=limits[0],
                large=limits[-1],
                actives=actives,
                unit="%",
                scale=100,
                claim=f"Section 5: larger queues reduce the loss rate ({limits[0]} -> {limits[-1]} packets: "
                "0.36% -> 0.0% in the paper)",
            ),
            _queue_trend(
                t,
                "avg_time_in_queue_ms",
                up=True,
                small=limits[0],
                large=limits[-1],
                actives=actives,
                unit="ms",
                claim=f"Section 5: a large queue subjects flows to more queueing delay ({limits[0]} -> {limits[-1]})",
            ),
        ]
    out += [_loss_example(t), _congestion(t)]
    return out
