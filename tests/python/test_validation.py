"""The differential validation suite (validation/): its comparison code, and
the fast regression subset of twins against the stored peer results.

The regression test runs ccsim's side of every twin with `regression = true`
(under the peer's compatibility profile) and compares it with the peer's
per-seed metrics stored in validation/peer_results/, so no peer is needed.
The metrics known to be out of tolerance are listed in
validation/known_out.toml; the test requires exactly that set, so a
regression and a fix both show (a fix: remove the entry).
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
sys.path.insert(0, str(VALIDATION))

import ccsim_side  # noqa: E402
import compare  # noqa: E402
import run as runner  # noqa: E402
from params import DEFAULTS, OPTIONAL, access_delays, peer_args, resolve, shared_starts  # noqa: E402


def _runs(**metrics: float) -> list[dict]:
    """Three seeds of made-up metrics: each value x becomes x * (0.98, 1, 1.02)."""
    return [{k: v * f for k, v in metrics.items()} for f in (0.98, 1.0, 1.02)]


BASE = {
    "utilization": 0.95,
    "drop_rate": 0.02,
    "avg_queue_pkts": 20.0,
    "jain": 0.97,
    "timeouts": 10.0,
    "retransmissions": 400.0,
    "goodput_bps": 9.0e6,
}


def test_identical_results_are_within_tolerance() -> None:
    rows = compare.compare(_runs(**BASE), _runs(**BASE))
    assert {r.metric for r in rows} >= set(BASE)
    assert all(r.ok for r in rows), rows


@pytest.mark.parametrize(
    ("metric", "shifted", "ok"),
    [
        ("utilization", 0.95 + 0.019, True),
        ("utilization", 0.95 - 0.03, False),
        ("drop_rate", 0.02 * 1.14, True),
        ("drop_rate", 0.02 * 1.25, False),
        ("avg_queue_pkts", 20.0 * 1.14, True),
        ("avg_queue_pkts", 20.0 * 1.20, False),
        ("jain", 0.97 - 0.05, False),
        ("timeouts", 10.0 * 1.5, False),
        ("retransmissions", 400.0 * 0.75, True),
        ("retransmissions", 400.0 * 0.6, False),
    ],
)
def test_a_shifted_result_fails(metric: str, shifted: float, ok: bool) -> None:
    ccsim = _runs(**dict(BASE, **{metric: shifted}))
    rows = {r.metric: r for r in compare.compare(ccsim, _runs(**BASE))}
    assert rows[metric].ok is ok, rows[metric]
    assert all(r.ok for m, r in rows.items() if m != metric)


def test_small_queues_get_two_packets() -> None:
    # 15 % of 2 packets is less than the 2-packet floor
    assert compare.within("avg_queue_pkts", 3.9, 2.0)
    assert not compare.within("avg_queue_pkts", 4.1, 2.0)


def test_goodput_series_judged_for_transient_twins_only() -> None:
    ramp = [float(i) for i in range(20)]
    flat = [5.0 + (i % 2) for i in range(20)]
    c = [dict(BASE, goodput_series=ramp)] * 3
    p = [dict(BASE, goodput_series=flat)] * 3
    row = {r.metric: r for r in compare.compare(c, p, transient=True)}["goodput_series"]
    assert row.verdict == "OUT"
    row = {r.metric: r for r in compare.compare(c, p, transient=False)}["goodput_series"]
    assert row.verdict == "n/a"
    same = [dict(BASE, goodput_series=ramp)] * 3
    row = {r.metric: r for r in compare.compare(same, same, transient=True)}["goodput_series"]
    assert row.verdict == "ok"


def test_params_vocabulary() -> None:
    p = resolve({"flows": 3, "access_delay": "1,10"})
    assert access_delays(p) == [1.0, 10.0, 1.0]
    args = peer_args({"flows": 3}, 7)
    assert "--flows=3" in args
    assert args[-1] == "--seed=7"
    # the keys added after the ns-3 program go to peers only when a twin sets them
    assert len(args) == len(DEFAULTS) - len(OPTIONAL) + 1
    args = peer_args({"flows2": 2, "cc2": "tfrc"}, 7)
    assert "--flows2=2" in args
    assert "--cc2=tfrc" in args
    assert "--cc_a=1.0" not in args
    assert access_delays(resolve({"flows": 2, "flows2": 1, "access_delay": "1,10"})) == [1.0, 10.0, 1.0]
    with pytest.raises(ValueError, match="unknown twin parameters"):
        resolve({"flow": 3})
    with pytest.raises(ValueError, match="flows2 and two_way"):
        resolve({"flows2": 1, "two_way": 1})


def test_shared_start_times() -> None:
    # Park-Miller, x <- 48271 x mod 2^31 - 1, from seed * 7919 + 1 after 10
    # steps: the generator dumbbell.tcl's `start_time` computes in Tcl.
    p = resolve({"flows": 2, "flows2": 1, "start_max": 2, "start_times": "shared"})
    x = 7920
    for _ in range(10):
        x = x * 48271 % 2147483647
    want = []
    for _ in range(3):
        x = x * 48271 % 2147483647
        want.append(x / 2147483647 * 2)
    assert shared_starts(p, 1) == want
    assert shared_starts(p, 2) != want
    # ccsim: one group per flow, started at those instants, in the ns-2
    # script's order (the first group's flows, then the second's)
    sc = ccsim_side.scenario({"flows": 2, "flows2": 1, "start_max": 2, "start_times": "shared"}, 1)
    assert [(g["group"], g["count"], g["start"]) for g in sc["flows"]] == [
        ("fwd.0", 1, f"{want[0]!r}s"),
        ("fwd.1", 1, f"{want[1]!r}s"),
        ("fwd2.0", 1, f"{want[2]!r}s"),
    ]
    # two-way: per pair, forward then reverse
    sc = ccsim_side.scenario({"flows": 2, "two_way": 1, "start_times": "shared"}, 1)
    starts = shared_starts(resolve({"flows": 2, "two_way": 1}), 1)
    got = {g["group"]: g["start"] for g in sc["flows"]}
    assert got == {
        "fwd.0": f"{starts[0]!r}s",
        "rev.0": f"{starts[1]!r}s",
        "fwd.1": f"{starts[2]!r}s",
        "rev.1": f"{starts[3]!r}s",
    }
    with pytest.raises(ValueError, match="start_times"):
        resolve({"start_times": "same"})


def test_shared_start_metrics_cover_every_flow() -> None:
    params = {"flows": 3, "duration": 3, "warmup": 1, "start_times": "shared"}
    m = ccsim_side.run(params, 1)
    assert len(m["per_flow_goodput_bps"]) == 3
    assert m["goodput_bps"] == pytest.approx(sum(m["per_flow_goodput_bps"]))
    assert len(m["goodput_series"]) == 3
    assert max(m["goodput_series"]) > 0


def test_peer_seeds_override_seeds_per_peer(tmp_path: Path) -> None:
    twin = {"name": "t", "peers": ["ns2", "ns3"], "seeds": 3, "peer_seeds": {"ns2": 10}}
    assert runner.seeds_for(twin, "ns2") == 10
    assert runner.seeds_for(twin, "ns3") == 3
    bad = tmp_path / "twins.toml"
    bad.write_text('[[twin]]\nname = "t"\nfamily = "f"\npeers = ["ns2"]\npeer_seeds = { ns3 = 5 }\n')
    with pytest.raises(ValueError, match="peer_seeds for peers it does not list"):
        runner.load_twins(bad)


def test_fq_cobalt_twin_is_cake_as_flow_isolating_cobalt() -> None:
    # ns-3's FqCobaltQueueDisc: ccsim's cake with per-flow queues, no
    # shaper; ns-3's flow queues given only under the ns3 profile (whose
    # cake variant takes them), Linux's CAKE hashes every flow itself.
    params = {"flows": 3, "queue": "fq_cobalt", "buffer": 50, "fq_queues": "4,4,9"}
    q = ccsim_side.scenario(params, 1, "ns3")["topology"]["bottleneck"]["queue"]
    assert q == {"kind": "cake", "limit": 50, "flow_mode": "flows", "ecn": False, "flow_queues": [4, 4, 9]}
    q = ccsim_side.scenario(params, 1, None)["topology"]["bottleneck"]["queue"]
    assert "flow_queues" not in q
    assert q["kind"] == "cake"
    m = ccsim_side.run(dict(params, duration=3, warmup=1), 1, "ns3")
    assert m["goodput_bps"] > 0


def test_manifest_is_valid() -> None:
    twins = runner.load_twins()
    assert len(twins) >= 20
    for t in twins:
        resolve(t["params"])
        assert set(t["peers"]) <= {"ns2", "ns3"}
        assert t["seeds"] >= 3
        assert all(runner.seeds_for(t, p) >= 3 for p in t["peers"])


def _regression_cases() -> list:
    cases = []
    for t in runner.load_twins():
        if not t["regression"]:
            continue
        for peer in t["peers"]:
            if runner.load_peer(peer, t) is not None:
                cases.append(pytest.param(t, peer, id=f"{t['name']}-{peer}"))
    return cases


KNOWN_OUT = tomllib.loads((VALIDATION / "known_out.toml").read_text())


@pytest.mark.parametrize(("twin", "peer"), _regression_cases())
def test_regression_twin_against_stored_peer(twin: dict, peer: str) -> None:
    stored = runner.load_peer(peer, twin)
    seeds = range(1, runner.seeds_for(twin, peer) + 1)
    peer_runs = [stored["seeds"][str(s)] for s in seeds]
    ccsim_runs = [ccsim_side.run(twin["params"], s, compat=peer) for s in seeds]
    rows = compare.compare(ccsim_runs, peer_runs, twin["transient"])
    out = sorted(r.metric for r in rows if not r.ok)
    known = sorted(KNOWN_OUT.get(twin["name"], {}).get(peer, []))
    detail = json.dumps({r.metric: [round(r.ccsim, 4), round(r.peer, 4)] for r in rows}, indent=0)
    assert out == known, (
        f"{twin['name']} vs {peer}: out of tolerance {out}, expected {known} (validation/known_out.toml)\n{detail}"
    )
