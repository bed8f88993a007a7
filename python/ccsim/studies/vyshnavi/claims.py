"""The vyshnavi study's claims (abstract, Figures 5-9, conclusion), under each reading."""

from __future__ import annotations

import warnings

import numpy as np

from ccsim import stats
from ccsim.studies import figures as fig
from ccsim.studies.claims import UNTESTED, Claim, Pair, across, ci, direction_text, holm_all, judge, pair, significant
from ccsim.studies.core import CASE, StudyData
from ccsim.studies.tables import StudyTable, StudyTables
from ccsim.studies.vyshnavi.figures import DELAY, THROUGHPUT
from ccsim.studies.vyshnavi.setup import ALGORITHMS, WIRELESS_PAPER_MBPS


def _networks(t: StudyTable) -> list[tuple[int, int]]:
    return sorted({(int(a), int(r)) for a, r in zip(t.rows.apps, t.rows.access_mbps, strict=True)})


def _best_claim(t: StudyTable, y: fig.Y, *, high: bool, unit: str, claim: str) -> Claim:
    """CUBIC best on a metric at every network: its mean best, and significantly so against each other case."""
    holds, sig, parts = [], [], []
    pairs: list[Pair] = []
    others = [c for c in ALGORITHMS if c != "cubic"]
    for apps, access in _networks(t):
        ps = [pair(t, y.metric, "cubic", other, apps=apps, access_mbps=access) for other in others]
        pairs += ps
        holds.append(all((p.mean_a > p.mean_b) if high else (p.mean_a < p.mean_b) for p in ps))
        first = sorted(ps, key=lambda p: -p.mean_b if high else p.mean_b)[0]
        parts.append(
            f"{apps} apps/{access} Mbps: cubic {ci(first.mean_a, first.half_a, unit=unit)}, "
            f"best other {first.b} {ci(first.mean_b, first.half_b, unit=unit)}"
        )
    adj = holm_all(pairs)
    n = len(others)
    sig = [all(significant(p) for p in adj[k : k + n]) for k in range(0, len(adj), n)]
    significance = direction_text(holds, sig, "networks (CUBIC against all three)")
    return Claim(claim, "; ".join(parts), judge(holds, sig), significance)


def _trend_claim(t: StudyTable, y: fig.Y, *, a: dict, b: dict, up: bool, unit: str, claim: str) -> Claim:
    """Every algorithm's metric higher (up) or lower at point a than at point b."""
    pairs = [across(t, y.metric, cc, a, b) for cc in ALGORITHMS]
    adj = holm_all(pairs)
    holds = [(p.mean_a > p.mean_b) if up else (p.mean_a < p.mean_b) for p in pairs]
    sig = [significant(p) for p in adj]
    finding = "; ".join(
        f"{cc} {ci(p.mean_b, p.half_b, unit=unit)} -> {ci(p.mean_a, p.half_a, unit=unit)}"
        for cc, p in zip(ALGORITHMS, pairs, strict=True)
    )
    significance = direction_text(holds, sig, "algorithms")
    return Claim(claim, finding, judge(holds, sig), significance)


def _reading_claims(t: StudyTable, reading: str) -> list[Claim]:
    out = [
        _best_claim(
            t,
            THROUGHPUT,
            high=True,
            unit="Mbps",
            claim=f"Fig. 8 / conclusion: CUBIC has the highest average throughput ({reading})",
        ),
        _best_claim(
            t,
            DELAY,
            high=False,
            unit="ms",
            claim=f"Fig. 9 / conclusion: CUBIC has the lowest average delay ({reading}; generation to reception)",
        ),
    ]
    nets = _networks(t)
    six30, six60, twelve30 = (
        {"apps": 6, "access_mbps": 30},
        {"apps": 6, "access_mbps": 60},
        {"apps": 12, "access_mbps": 30},
    )
    if (6, 30) in nets and (6, 60) in nets:
        out += [
            _trend_claim(
                t,
                THROUGHPUT,
                a=six60,
                b=six30,
                up=True,
                unit="Mbps",
                claim=f"Fig. 5: 60 Mbps links give a higher average throughput than 30 Mbps (6 apps; {reading})",
            ),
            _trend_claim(
                t,
                DELAY,
                a=six60,
                b=six30,
                up=False,
                unit="ms",
                claim=f"Fig. 6: 60 Mbps links give a lower delay than 30 Mbps (6 apps; {reading})",
            ),
        ]
    if (6, 30) in nets and (12, 30) in nets:
        out += [
            _trend_claim(
                t,
                THROUGHPUT,
                a=twelve30,
                b=six30,
                up=False,
                unit="Mbps",
                claim=f"Fig. 5b: 12 applications get a lower average throughput than 6 (30 Mbps; {reading})",
            ),
            _trend_claim(
                t,
                DELAY,
                a=twelve30,
                b=six30,
                up=True,
                unit="ms",
                claim=f"Fig. 7: 12 applications see a higher delay than 6 (30 Mbps; {reading})",
            ),
        ]
    return out


def _wireless_claim(t: StudyTable) -> Claim:
    """The reading's evidence: the wireless applications' total throughput, paper against ccsim."""
    parts, holds = [], []
    for (apps, access), paper in WIRELESS_PAPER_MBPS.items():
        sel = t.rows[(t.rows.apps == apps) & (t.rows.access_mbps == access)]
        if sel.empty:
            continue
        x = sel.wireless_total_mbps.to_numpy(dtype=float)
        lo, hi = stats.t_interval(x)
        mean = float(np.nanmean(x))
        spread = [float(sel[sel[CASE] == cc].wireless_total_mbps.mean()) for cc in ALGORITHMS]
        parts.append(
            f"{apps} apps/{access} Mbps: paper {min(paper):.2f}-{max(paper):.2f}, ccsim {ci(mean, (hi - lo) / 2)} "
            f"(per algorithm {min(spread):.2f}-{max(spread):.2f})"
        )
        holds.append(max(spread) - min(spread) < 0.25 * mean)
    return Claim(
        "Tables 1-9 (this study's reading): the wireless applications share one ~5 Mbps channel, "
        "whatever the algorithm and link speed",
        "; ".join(parts) + " Mbps",
        judge(holds, [True] * len(holds)) if holds else UNTESTED,
        "- (a reading, not a test: the per-algorithm means within 25% of each other count as 'the same')",
    )


def claims(data: StudyData, result: StudyTables) -> list[Claim]:
    """The paper's claims (abstract, Figures 5-9, conclusion), under each reading."""
    with warnings.catch_warnings():
        # scipy warns of precision loss when replicates are (nearly) identical (the uncongested
        # wired applications of the wireless reading all get 29.2 Mbps); the tests stand anyway.
        warnings.simplefilter("ignore", RuntimeWarning)
        return _claims(result)


def _claims(result: StudyTables) -> list[Claim]:
    out: list[Claim] = []
    names = [t.table.name for t in result.tables]
    if "averages" in names:
        out += _reading_claims(result.get("averages"), "wired")
    if "averages_wlan" in names:
        t = result.get("averages_wlan")
        out += _reading_claims(t, "wireless")
        out.append(_wireless_claim(t))
    return out
