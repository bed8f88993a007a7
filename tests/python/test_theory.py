"""The closed forms in ccsim.theory against hand-derived values, limiting cases and each other."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ccsim import theory

# Closed forms evaluated in floating point: agreement to ~1e-9 is what double
# precision leaves after a K x K linear solve; anything looser would hide a wrong formula.
EXACT = 1e-9


@pytest.mark.parametrize(("rho", "lq"), [(0.5, 0.25), (0.9, 4.05)])
def test_md1_pollaczek_khinchine(rho: float, lq: float) -> None:
    # Lq = rho^2 / (2 (1 - rho)): 0.25 at rho = 0.5 and 4.05 at 0.9 (by hand).
    m = theory.md1(arrival_rate=rho / 0.002, service_s=0.002)
    assert m.lq == pytest.approx(lq, rel=EXACT)
    assert m.wq == pytest.approx(lq * 0.002 / rho, rel=EXACT)
    assert m.w_system == pytest.approx(m.wq + 0.002, rel=EXACT)
    assert m.p_block == 0.0


def test_md1_needs_rho_below_1() -> None:
    with pytest.raises(ValueError, match="rho < 1"):
        theory.md1(arrival_rate=1.2, service_s=1.0)


def test_mm1k_small_case_by_hand() -> None:
    # K = 2, rho = 0.5: p = (1, 1/2, 1/4) / (7/4) = (4/7, 2/7, 1/7); L = 4/7; Lq = L - (1 - p0) = 1/7.
    m = theory.mm1k(arrival_rate=0.5, service_s=1.0, capacity=2)
    assert m.probs is not None
    np.testing.assert_allclose(m.probs, [4 / 7, 2 / 7, 1 / 7], rtol=EXACT)
    assert m.p_block == pytest.approx(1 / 7, rel=EXACT)
    assert m.l_system == pytest.approx(4 / 7, rel=EXACT)
    assert m.lq == pytest.approx(1 / 7, rel=EXACT)
    # Wq = Lq / (lambda (1 - p_K)) = (1/7) / (0.5 * 6/7) = 1/3.
    assert m.wq == pytest.approx(1 / 3, rel=EXACT)


@pytest.mark.parametrize("rho", [0.3, 1.0, 2.5])
def test_mm1k_capacity_1_is_erlang_loss(rho: float) -> None:
    # One place, no waiting room: p_1 = rho / (1 + rho) (Erlang B, one server), nothing waits.
    m = theory.mm1k(arrival_rate=rho, service_s=1.0, capacity=1)
    assert m.p_block == pytest.approx(rho / (1 + rho), rel=EXACT)
    assert m.lq == pytest.approx(0.0, abs=EXACT)


def test_mm1k_rho_1_is_uniform() -> None:
    m = theory.mm1k(arrival_rate=1.0, service_s=1.0, capacity=9)
    assert m.probs is not None
    np.testing.assert_allclose(m.probs, np.full(10, 0.1), rtol=EXACT)
    assert m.l_system == pytest.approx(4.5, rel=EXACT)


@pytest.mark.parametrize("rho", [0.5, 0.9])
def test_mm1k_large_k_is_mm1(rho: float) -> None:
    # M/M/1: L = rho / (1 - rho), Lq = rho^2 / (1 - rho).
    m = theory.mm1k(arrival_rate=rho, service_s=1.0, capacity=400)
    assert m.l_system == pytest.approx(rho / (1 - rho), rel=1e-9)
    assert m.lq == pytest.approx(rho**2 / (1 - rho), rel=1e-9)
    assert m.p_block < 1e-15


def test_mm1k_overload_loses_the_excess() -> None:
    # With rho > 1 and a large buffer the server is always busy: the loss fraction tends to 1 - 1/rho.
    m = theory.mm1k(arrival_rate=1.2, service_s=1.0, capacity=400)
    assert m.p_block == pytest.approx(1 - 1 / 1.2, rel=1e-9)


@pytest.mark.parametrize("rho", [0.5, 1.0, 1.7])
def test_md1k_capacity_1_is_erlang_loss(rho: float) -> None:
    # M/G/1/1 is insensitive to the service distribution: p_1 = rho / (1 + rho).
    m = theory.md1k(arrival_rate=rho, service_s=1.0, capacity=1)
    assert m.p_block == pytest.approx(rho / (1 + rho), rel=EXACT)
    assert m.lq == pytest.approx(0.0, abs=EXACT)


@pytest.mark.parametrize("rho", [0.5, 0.9, 1.2])
def test_md1k_capacity_2_by_hand(rho: float) -> None:
    # Two states at departures, both leaving 0 behind with a_0 = e^-rho: pi_0 = e^-rho, so
    # p_2 = 1 - 1 / (e^-rho + rho); the waiting room holds one packet exactly when the system is full.
    m = theory.md1k(arrival_rate=rho, service_s=1.0, capacity=2)
    p2 = 1 - 1 / (math.exp(-rho) + rho)
    assert m.p_block == pytest.approx(p2, rel=EXACT)
    assert m.lq == pytest.approx(p2, rel=EXACT)


@pytest.mark.parametrize("rho", [0.5, 0.9])
def test_md1k_approaches_md1_as_k_grows(rho: float) -> None:
    md1 = theory.md1(arrival_rate=rho, service_s=1.0)
    errors = [abs(theory.md1k(arrival_rate=rho, service_s=1.0, capacity=k).lq - md1.lq) for k in (5, 20, 300)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-9 * md1.lq


def test_md1k_overload_loses_the_excess() -> None:
    m = theory.md1k(arrival_rate=1.2, service_s=1.0, capacity=300)
    assert m.p_block == pytest.approx(1 - 1 / 1.2, rel=1e-9)


@pytest.mark.parametrize(("rho", "capacity"), [(0.5, 3), (0.9, 11), (1.2, 51), (1.0, 7)])
def test_departure_chain_with_exponential_service_is_mm1k(rho: float, capacity: int) -> None:
    """The M/G/1/K machinery (used for M/D/1/K) fed exponential service reproduces the M/M/1/K closed form."""
    via_chain = theory.mg1k(rho, 1.0, capacity, theory.geometric_arrivals(rho, capacity))
    closed = theory.mm1k(arrival_rate=rho, service_s=1.0, capacity=capacity)
    assert via_chain.probs is not None
    assert closed.probs is not None
    np.testing.assert_allclose(via_chain.probs, closed.probs, rtol=1e-9, atol=1e-14)
    assert via_chain.lq == pytest.approx(closed.lq, rel=1e-9)
    assert via_chain.wq == pytest.approx(closed.wq, rel=1e-9)


@pytest.mark.parametrize("rho", [0.5, 0.9, 1.2])
@pytest.mark.parametrize("model", [theory.md1k, theory.mm1k])
def test_server_busy_fraction_is_accepted_load(model: object, rho: float) -> None:
    # Flow balance of any M/G/1/K: P(busy) = 1 - p_0 = rho (1 - p_K).
    m = model(arrival_rate=rho, service_s=1.0, capacity=10)  # type: ignore[operator]
    assert m.probs is not None
    assert 1 - m.probs[0] == pytest.approx(rho * (1 - m.p_block), rel=1e-9)
    assert m.probs.sum() == pytest.approx(1.0, rel=EXACT)


@pytest.mark.parametrize("rho", [0.5, 0.9, 1.2])
def test_constant_service_blocks_less_than_exponential(rho: float) -> None:
    # Less service variability: less blocking for the same load and buffer; below saturation also a
    # shorter queue (above it the queue of M/D/1/K sits nearer the full buffer, since it empties less often).
    d = theory.md1k(arrival_rate=rho, service_s=1.0, capacity=10)
    m = theory.mm1k(arrival_rate=rho, service_s=1.0, capacity=10)
    assert d.p_block < m.p_block
    if rho < 1:
        assert d.lq < m.lq


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="capacity"):
        theory.md1k(arrival_rate=1.0, service_s=1.0, capacity=0)
    with pytest.raises(ValueError, match="service_s"):
        theory.mm1k(arrival_rate=1.0, service_s=-1.0, capacity=3)


def test_mathis_by_hand() -> None:
    # 1460 B, 100 ms, 1% loss: 1460*8/0.1 * sqrt(3/2)/sqrt(0.01) = 116800 * 12.2474... = 1,430,502 bit/s.
    assert theory.mathis_bps(1460, 0.1, 0.01) == pytest.approx(1_430_502.0, rel=1e-6)
    # Delayed ACKs (b = 2): C = sqrt(3/4), a factor sqrt(2) less.
    assert theory.mathis_bps(1460, 0.1, 0.01, acked_per_ack=2) == pytest.approx(1_430_502.0 / math.sqrt(2), rel=1e-6)


def test_pftk_by_hand() -> None:
    # 1000 B, RTT 100 ms, p = 1%, T0 = 400 ms, b = 1:
    # RTT sqrt(2p/3) = 0.00816497; T0 * 3 sqrt(3p/8) * p * (1 + 32 p^2) = 0.00073720;
    # 1 / 0.00890217 = 112.332 packets/s = 898,660 bit/s.
    assert theory.pftk_bps(1000, 0.1, 0.01, rto_s=0.4) == pytest.approx(898_660.0, rel=1e-5)
    # T0 defaults to 4 RTT.
    assert theory.pftk_bps(1000, 0.1, 0.01) == theory.pftk_bps(1000, 0.1, 0.01, rto_s=0.4)


def test_pftk_tends_to_mathis_at_low_loss() -> None:
    # The timeout term is O(p^1.5) against O(p^0.5): at p = 1e-6 the relative difference is ~9p.
    for b in (1, 2):
        ratio = theory.pftk_bps(1460, 0.1, 1e-6, acked_per_ack=b) / theory.mathis_bps(1460, 0.1, 1e-6, acked_per_ack=b)
        assert ratio == pytest.approx(1.0, abs=1e-4)
        assert ratio < 1.0


def test_pftk_window_cap_and_monotonic() -> None:
    # A receiver window of 20 packets caps a low-loss flow at 20 packets per RTT.
    assert theory.pftk_bps(1000, 0.1, 1e-6, wmax_pkts=20) == pytest.approx(20 * 1000 * 8 / 0.1, rel=EXACT)
    rates = [theory.pftk_bps(1000, 0.1, p) for p in (1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.6)]
    assert all(a > b for a, b in itertools.pairwise(rates))
