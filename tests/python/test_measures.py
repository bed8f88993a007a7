"""ccsim.measures: the dynamic measures (docs/measures.md) on hand-made series, and on runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ccsim
from ccsim import measures
from ccsim.results import Result

DT = 0.1
T = np.round(np.arange(1, 201) * DT, 10)  # samples at 0.1 .. 20.0 s


def _steps(values: dict[tuple[float, float], float], default: float) -> np.ndarray:
    """A per-sample column: `value` for samples in (a, b], `default` elsewhere."""
    t = T
    out = np.full(len(t), default)
    for (a, b), v in values.items():
        out[(t > a + 1e-9) & (t <= b + 1e-9)] = v
    return out


def synthetic() -> Result:
    """A bottleneck with 100 arrivals per sample; 30 drops per sample in (10, 11] s, 10 in (11, 12], 5 otherwise."""
    arrivals = np.full(len(T), 100.0)
    drops = _steps({(10.0, 11.0): 30.0, (11.0, 12.0): 10.0}, 5.0)
    # The long flows send 10 Mbit/s, fall linearly to 5 Mbit/s over (10, 12], then stay.
    send = np.where(T <= 10.0, 10e6, np.where(T >= 12.0, 5e6, 10e6 - 2.5e6 * (T - 10.0)))
    thr = _steps({(5.0, 20.0): 8e6}, 4e6)
    series = [
        ("queue", "r1->r2", "arrivals", arrivals),
        ("queue", "r1->r2", "drops", drops),
        ("queue", "r1->r2", "drop_rate", drops / arrivals),
        ("group", "long", "send_bps", send),
        ("group", "long", "throughput_bps", thr),
        ("group", "other", "throughput_bps", np.full(len(T), 1e6)),
        ("flow", "long.0", "send_bps", np.tile([1.0, 2.0], len(T) // 2)),
    ]
    data = {
        "flows": [{"name": f"web.{i}", "group": "web", "fct_s": fct} for i, fct in enumerate([0.5, 0.2, None, 0.3])],
        "groups": [{"group": "long", "goodput_per_flow_bps": 2e6}],
    }
    return Result(data, T, series)


def test_pooled_and_windowed_drop_rates() -> None:
    r = synthetic()
    # (10, 12]: (10 x 30 + 10 x 10) / (20 x 100).
    assert measures.drop_rate_over(r, "r1->r2", 10.0, 12.0) == pytest.approx(0.2)
    w = measures.windowed_drop_rate(r, "r1->r2", 1.0)
    assert len(w) == 20
    assert w.loc[11.0] == pytest.approx(0.3)
    assert w.loc[12.0] == pytest.approx(0.1)
    assert w.loc[20.0] == pytest.approx(0.05)


def test_stabilization_by_hand() -> None:
    r = synthetic()
    # Steady state 0.05; 10-RTT windows of 0.5 s from 10 s: 0.3, 0.3, 0.1, 0.1,
    # then 0.05 <= 1.5 x 0.05 at 12.5 s. Time 2.5 s = 50 RTTs; drop rate over
    # (10, 12.5]: (300 + 100 + 25) / 2500 = 0.17; cost 50 x 0.17 = 8.5.
    s = measures.stabilization(r, "r1->r2", t0=10.0, rtt=0.05, steady=(15.0, 20.0))
    assert s is not None
    assert s.time_s == pytest.approx(2.5)
    assert s.time_rtts == pytest.approx(50.0)
    assert s.drop_rate == pytest.approx(0.17)
    assert s.cost == pytest.approx(8.5)
    assert s.steady_drop_rate == pytest.approx(0.05)
    # A factor of 2.5 accepts the 0.1 windows: 1.5 s.
    s2 = measures.stabilization(r, "r1->r2", t0=10.0, rtt=0.05, steady=(15.0, 20.0), factor=2.5)
    assert s2 is not None
    assert s2.time_s == pytest.approx(1.5)
    # No steady state to compare with (nothing arrived then): None.
    assert measures.stabilization(r, "r1->r2", t0=10.0, rtt=0.05, steady=(30.0, 40.0)) is None
    # Never within a factor of 0.5 of the steady state.
    assert measures.stabilization(r, "r1->r2", t0=10.0, rtt=0.05, steady=(15.0, 20.0), factor=0.5) is None


def test_response_time_by_hand() -> None:
    r = synthetic()
    send = measures.group_series(r, "long", "send_bps")
    # The trailing 0.5-s mean of 10 - 2.5 (t - 10) Mbit/s over (t - 0.5, t] is
    # 10 - 2.5 (t - 10.2) Mbit/s for samples at 0.1 s steps: <= 6.25 first at t = 11.7.
    assert measures.response_time(send, t0=10.0, target=6.25e6, window=0.5) == pytest.approx(1.7)
    assert measures.response_time(send, t0=10.0, target=1e6, window=0.5) is None


def test_f_k_and_normalized_throughput() -> None:
    r = synthetic()
    # After t1 = 5 s the long flows carry 8 Mbit/s of 10 available.
    assert measures.f_k(r, "long", t1=5.0, k=20, rtt=0.05, available_bps=10e6) == pytest.approx(0.8)
    assert measures.f_k(r, ["long", "other"], t1=5.0, k=20, rtt=0.05, available_bps=10e6) == pytest.approx(0.9)
    assert measures.normalized_throughput(r, "long", fair_share_bps=2.5e6) == pytest.approx(0.8)


def test_smoothness_and_cov() -> None:
    r = synthetic()
    s = measures.smoothness(r.series("long.0", "send_bps"))
    # Alternating 1 and 2: sd 0.5 over mean 1.5, consecutive ratio 2.
    assert s.cov == pytest.approx(1 / 3)
    assert s.max_ratio == pytest.approx(2.0)
    assert measures.cov([3.0, 3.0, 3.0]) == 0.0
    assert math.isnan(measures.smoothness(r.series("long.0", "send_bps"), start=19.95).max_ratio)


def test_fct_distribution() -> None:
    r = synthetic()
    assert measures.fct_distribution(r, "web").tolist() == [0.2, 0.3, 0.5]


CROWD = {
    "name": "crowd",
    "duration": "40s",
    "seed": 2,
    "output": {"sample_interval": "500ms"},
    "topology": {
        "kind": "dumbbell",
        "pairs": 6,
        "access": {"rate": "100Mbps", "delay": "1ms"},
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "23ms",
            "queue": {"kind": "gred", "limit": 300, "min_th": 10, "max_th": 30},
        },
    },
    "flows": [
        {"group": "long", "count": 2, "transport": "tcp", "app": "bulk", "window": 1000},
        {"group": "tfrc", "count": 2, "transport": "tfrc", "app": "bulk"},
        {
            "group": "web",
            "transport": "tcp",
            "app": "web",
            "count": 200,
            "arrival_rate": 50,
            "size": 10,
            "start": "10s",
        },
    ],
}


def test_measures_on_a_run() -> None:
    r = ccsim.run(CROWD)
    g = r.groups.set_index("group")
    assert list(g.index) == ["long", "tfrc", "web"]
    assert g.loc["web", "flows"] == 200
    assert g.loc["web", "completed"] == 200
    assert g.loc["tfrc", "transport"] == "tfrc"
    fct = measures.fct_distribution(r, "web")
    assert len(fct) == 200
    assert fct.is_monotonic_increasing
    assert g.loc["web", "fct_max_s"] == pytest.approx(fct.iloc[-1])
    # A group's series is the sum of its flows' series.
    for group, n in (("long", 2), ("tfrc", 2)):
        total = sum(r.series(f"{group}.{i}", "throughput_bps").to_numpy() for i in range(n))
        np.testing.assert_allclose(measures.group_series(r, group).to_numpy(), total)
    # The per-interval drop rate is drops / arrivals, 0 where nothing arrived.
    q = r.series("r1->r2", "drops") / r.series("r1->r2", "arrivals")
    np.testing.assert_allclose(r.series("r1->r2", "drop_rate").to_numpy(), q.fillna(0.0).to_numpy())
    # The whole run's pooled drop rate is the queue's loss rate (no warmup).
    qrow = r.queues.set_index("link").loc["r1->r2"]
    assert measures.drop_rate_over(r, "r1->r2", 0.0, 40.0) == pytest.approx(qrow["loss_rate"])
    # The crowd's active flows rise and all are gone by the end.
    active = measures.group_series(r, "web", "active_flows")
    assert active.max() > 10
    assert active.iloc[-1] == 0
    # TFRC reports its rate and RTT.
    assert r.series("tfrc.0", "rate_bps").iloc[-1] > 0
    assert r.flows.set_index("name").loc["tfrc.0", "srtt_mean_s"] > 0.048
