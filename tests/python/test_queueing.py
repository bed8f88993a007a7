"""Simulated queues against queueing theory (issue 2, "Validation").

Poisson UDP arrivals into one DropTail link: fixed-size packets are M/D/1/K
(or M/D/1 with a buffer too large to fill), exponentially distributed sizes
M/M/1/K. A ccsim `limit` of L waiting packets is a system capacity K = L + 1,
and the queue's avg_len_pkts, avg_sojourn_s and loss_rate are the waiting-room
figures Lq, Wq and the blocking probability.

Tolerance: each case runs R independent replications (distinct seeds) and
compares their mean with the closed form within Z standard errors of that
mean, estimated from the replications themselves (so the autocorrelation of
queue lengths within a run is accounted for). With R = 8 the mean over
standard error follows Student's t with 7 degrees of freedom, and
P(|t| > 5) ~ 0.0016, so a correct engine fails a given comparison about once
in 600 seeds -- and the seeds are fixed, so the outcome is reproducible. Each
case also asserts that the standard error is small (below PRECISION of the
predicted value), so the test keeps the power to see a wrong result: at most
a 5 x 1.5% = 7.5% deviation could pass for Lq and Wq. Measured: |z| < 2.5 in
every case, and over 40 replications of 500k packets the means agree within
0.3% (M/D/1/K at rho 0.9 and 1.2, M/M/1/K at 1.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ccsim
from ccsim import theory

RATE_BPS = 10_000_000
PACKET_BYTES = 1000
SERVICE_S = PACKET_BYTES * 8 / RATE_BPS  # 0.8 ms, an exact number of ns
LIMIT = 10  # waiting room: K = 11
REPLICATIONS = 8
PACKETS = 200_000  # per replication, after the warmup
WARMUP_S = 10.0  # > 10^4 service times: far beyond the relaxation time at rho = 0.9
Z = 5.0
PRECISION = {"lq": 0.015, "wq": 0.015, "p_block": 0.10}
# Loss is compared only where enough drops are expected for its mean to be measured.
MIN_EXPECTED_DROPS = 100

Model = Callable[..., theory.QueueMetrics]


def single_link(rho: float, limit: int, exponential_sizes: bool, seed: int, packets: int) -> dict[str, Any]:
    """One Poisson UDP source on host a sending over a->b (rate 10 Mbps) to b."""
    duration = WARMUP_S + packets * SERVICE_S / rho
    flow: dict[str, Any] = {
        "transport": "udp",
        "app": "poisson",
        "src": "a",
        "dst": "b",
        "rate": f"{round(rho * RATE_BPS)}bps",
        "packet_size": PACKET_BYTES,
    }
    if exponential_sizes:
        flow["size_dist"] = "exponential"
    return {
        "name": "single_link",
        "seed": seed,
        "duration": f"{duration:.6f}s",
        "warmup": f"{WARMUP_S}s",
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [
            {
                "a": "a",
                "b": "b",
                "rate": f"{RATE_BPS}bps",
                "delay": "1ms",
                "queue": {"kind": "droptail", "limit": limit},
            }
        ],
        "flows": [flow],
        "output": {"sample_interval": "1s", "sample_flows": False},
    }


def replicate(rho: float, limit: int, exponential_sizes: bool, packets: int) -> dict[str, np.ndarray]:
    """Lq, Wq and the loss fraction of the a->b queue over independent replications."""
    rows = []
    for seed in range(1, REPLICATIONS + 1):
        q = ccsim.run(single_link(rho, limit, exponential_sizes, seed, packets)).data["queues"][0]
        assert q["link"] == "a->b"
        rows.append((q["avg_len_pkts"], q["avg_sojourn_s"], q["loss_rate"], q["arrivals"]))
    v = np.array(rows)
    return {"lq": v[:, 0], "wq": v[:, 1], "p_block": v[:, 2], "arrivals": v[:, 3]}


def assert_agrees(name: str, samples: np.ndarray, predicted: float) -> None:
    mean = float(samples.mean())
    se = float(samples.std(ddof=1) / np.sqrt(len(samples)))
    assert se <= PRECISION[name] * predicted, f"{name}: standard error {se:.3g} too large to test {predicted:.4g}"
    assert abs(mean - predicted) <= Z * se, f"{name}: measured {mean:.5g} +- {se:.2g}, theory {predicted:.5g}"


@pytest.mark.parametrize("rho", [0.5, 0.9, 1.2])
@pytest.mark.parametrize(
    ("model", "exponential_sizes"),
    [pytest.param(theory.md1k, False, id="M/D/1/K"), pytest.param(theory.mm1k, True, id="M/M/1/K")],
)
def test_finite_queue_matches_theory(model: Model, exponential_sizes: bool, rho: float) -> None:
    m = replicate(rho, LIMIT, exponential_sizes, PACKETS)
    predicted = model(arrival_rate=rho / SERVICE_S, service_s=SERVICE_S, capacity=LIMIT + 1)
    assert_agrees("lq", m["lq"], predicted.lq)
    assert_agrees("wq", m["wq"], predicted.wq)
    if predicted.p_block * m["arrivals"].sum() >= MIN_EXPECTED_DROPS:
        assert_agrees("p_block", m["p_block"], predicted.p_block)
    else:
        # Too few drops expected to measure the mean (M/D/1/K at rho 0.5: p = 1.2e-6): it must stay tiny.
        assert m["p_block"].mean() < 1e-4


@pytest.mark.parametrize(("rho", "packets"), [(0.5, PACKETS), (0.9, 2 * PACKETS)])
def test_infinite_queue_matches_pollaczek_khinchine(rho: float, packets: int) -> None:
    # A 100000-packet buffer never fills at these loads: M/D/1. At 0.9 the queue is strongly
    # autocorrelated, so each replication runs twice as long for the same precision.
    m = replicate(rho, 100_000, False, packets)
    predicted = theory.md1(arrival_rate=rho / SERVICE_S, service_s=SERVICE_S)
    assert_agrees("lq", m["lq"], predicted.lq)
    assert_agrees("wq", m["wq"], predicted.wq)
    assert m["p_block"].max() == 0.0


def test_cbr_below_capacity_has_exact_delay() -> None:
    """A CBR flow below capacity never queues: each packet's delay is serialization + propagation, in integer ns."""
    scenario = {
        "name": "cbr",
        "duration": "5s",
        "warmup": "1s",
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "access": {"rate": "100Mbps", "delay": "1ms"},
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 5}},
        },
        "flows": [{"transport": "udp", "app": "cbr", "rate": "8Mbps", "packet_size": 1250, "start": "0.1s"}],
    }
    f = ccsim.run(scenario).data["flows"][0]
    # 1250 B = 10000 bits: 100 us on each 100 Mbps access link, 1 ms on the 10 Mbps bottleneck.
    expected_ns = 100_000 + 1_000_000 + 1_000_000 + 10_000_000 + 100_000 + 1_000_000
    assert f["lost_packets"] == 0
    assert f["delay_min_s"] == f["delay_max_s"] == f["delay_mean_s"] == f["delay_p99_s"] == expected_ns * 1e-9
    assert f["jitter_s"] == 0.0
    # 8 Mbps of 1250 B packets is one packet per 1.25 ms: 3200 in the 4 s window.
    assert f["sent_packets"] == 3200
