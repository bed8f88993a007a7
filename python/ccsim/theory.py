"""Closed forms that the tests compare simulations with.

Queueing (Kendall notation; the *capacity* K counts every packet in the
system, the one in service included). A ccsim queue `limit` counts only the
packets waiting (the ns-2 and Linux convention), so a DropTail link with
`limit = L` is a single-server system of capacity K = L + 1, and ccsim's
`avg_len_pkts` and `avg_sojourn_s` are the waiting-room figures `lq` and `wq`.

TCP: the Mathis et al. square-root law and the Padhye-Firoiu-Towsley-Kurose
(PFTK) model of steady-state Reno throughput.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class QueueMetrics:
    """Steady-state figures of a single-server queue.

    `p_block`: probability that an arrival is refused (PASTA: the time-average
    probability that the system is full). `l_system`/`lq`: mean number in the
    system / in the waiting room. `w_system`/`wq`: mean time in the system / waiting,
    of accepted customers. `probs`: time-average distribution of the number
    in the system, 0..K (None for infinite capacity).
    """

    rho: float
    p_block: float
    l_system: float
    lq: float
    w_system: float
    wq: float
    probs: npt.NDArray[np.float64] | None = None


def _check_positive(**values: float) -> None:
    for name, v in values.items():
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a positive number, got {v}")


def _check_capacity(capacity: int) -> None:
    if capacity < 1:
        raise ValueError(f"capacity must be at least 1, got {capacity}")


def md1(arrival_rate: float, service_s: float) -> QueueMetrics:
    """M/D/1 by the Pollaczek-Khinchine mean-value formula.

    For M/G/1, Lq = lambda^2 E[S^2] / (2 (1 - rho)); with a deterministic
    service time D, E[S^2] = D^2, so Lq = rho^2 / (2 (1 - rho)) and, by
    Little's law, Wq = Lq / lambda = rho D / (2 (1 - rho)).
    Source: Gross & Harris, Fundamentals of Queueing Theory, ch. 5 (M/G/1,
    the Pollaczek-Khinchine formula); Kleinrock, Queueing Systems vol. I (1975), ch. 5.
    Requires rho = lambda D < 1.
    """
    _check_positive(arrival_rate=arrival_rate, service_s=service_s)
    rho = arrival_rate * service_s
    if rho >= 1:
        raise ValueError(f"M/D/1 needs rho < 1 for a steady state, got {rho}")
    lq = rho * rho / (2 * (1 - rho))
    wq = lq / arrival_rate
    return QueueMetrics(rho=rho, p_block=0.0, l_system=lq + rho, lq=lq, w_system=wq + service_s, wq=wq)


def mm1k(arrival_rate: float, service_s: float, capacity: int) -> QueueMetrics:
    """M/M/1/K: Poisson arrivals, exponential service of mean `service_s`, at most K in the system.

    p_n = (1 - rho) rho^n / (1 - rho^(K+1)) for rho != 1 and 1 / (K + 1) for
    rho = 1 (n = 0..K); p_block = p_K; Lq = L - (1 - p_0); Wq = Lq / (lambda (1 - p_K))
    by Little's law over accepted customers.
    Source: Gross & Harris, Fundamentals of Queueing Theory, ch. 2 (the
    M/M/1/K model); Kleinrock, Queueing Systems vol. I (1975), sec. 3.6.
    """
    _check_positive(arrival_rate=arrival_rate, service_s=service_s)
    _check_capacity(capacity)
    rho = arrival_rate * service_s
    n = np.arange(capacity + 1, dtype=np.float64)
    if math.isclose(rho, 1.0, rel_tol=1e-12):
        probs = np.full(capacity + 1, 1.0 / (capacity + 1))
    else:
        # Normalise rho^n by its sum in a form that stays finite for rho > 1.
        weights = np.exp(n * math.log(rho) - capacity * max(0.0, math.log(rho)))
        probs = weights / weights.sum()
    return _finish(arrival_rate, service_s, rho, probs)


def md1k(arrival_rate: float, service_s: float, capacity: int) -> QueueMetrics:
    """M/D/1/K: Poisson arrivals, constant service time D, at most K in the system.

    Solved through the Markov chain embedded at departure epochs (states
    0..K-1, the number left behind), with a_k = e^-rho rho^k / k! the
    probability of k arrivals during one service. The time-average
    probabilities follow from the departure-epoch ones pi_j:
    p_j = pi_j / (pi_0 + rho) for j < K and p_K = 1 - 1 / (pi_0 + rho).
    The mean waiting-room occupancy is Lq = L - (1 - p_0) and the mean wait
    Wq = Lq / (lambda (1 - p_K)) by Little's law over accepted packets.
    Source: the M/G/1/K solution of Keilson, "The ergodic queue length
    distribution for queueing systems with finite capacity", JRSS B 28
    (1966); Gross & Harris, Fundamentals of Queueing Theory, ch. 5 (M/G/1/K);
    for M/D/1/K specifically, Brun & Garcia, "Analytical solution of finite
    capacity M/D/1 queues", J. Appl. Prob. 37 (2000).
    """
    _check_positive(arrival_rate=arrival_rate, service_s=service_s)
    _check_capacity(capacity)
    rho = arrival_rate * service_s
    return mg1k(arrival_rate, service_s, capacity, poisson_arrivals(rho, capacity))


def poisson_arrivals(rho: float, n: int) -> npt.NDArray[np.float64]:
    """a_k = e^-rho rho^k / k! for k = 0..n-1: k Poisson arrivals during a constant service (mean rho)."""
    k = np.arange(n, dtype=np.float64)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n, dtype=np.float64)))))
    return np.exp(-rho + k * math.log(rho) - log_fact[:n])


def geometric_arrivals(rho: float, n: int) -> npt.NDArray[np.float64]:
    """a_k = rho^k / (1 + rho)^(k+1), k = 0..n-1: Poisson arrivals during an exponential service (mean rho)."""
    k = np.arange(n, dtype=np.float64)
    return np.exp(k * math.log(rho) - (k + 1) * math.log1p(rho))


def mg1k(arrival_rate: float, service_s: float, capacity: int, a: npt.NDArray[np.float64]) -> QueueMetrics:
    """M/G/1/K from a_k, the distribution of the number of arrivals during one service (k = 0..K-1).

    The embedded chain at departures has transitions P[0, j] = a_j and
    P[i, j] = a_(j-i+1) for i >= 1, the last column (K-1) taking the rest of
    each row's mass (arrivals that find the system full are lost).
    See `md1k` for the source and the time-average conversion.
    """
    _check_capacity(capacity)
    rho = arrival_rate * service_s
    pi = departure_chain(np.asarray(a, dtype=np.float64), capacity)
    denom = pi[0] + rho
    probs = np.append(pi / denom, 1.0 - 1.0 / denom)
    return _finish(arrival_rate, service_s, rho, probs)


def departure_chain(a: npt.NDArray[np.float64], capacity: int) -> npt.NDArray[np.float64]:
    """The stationary distribution of the M/G/1/K chain embedded at departures (states 0..K-1)."""
    k = capacity
    if len(a) < k:
        raise ValueError(f"need a_0..a_{k - 1}, got {len(a)} values")
    p = np.zeros((k, k))
    for i in range(k):
        lo = max(i - 1, 0)
        # Row i reaches j = lo..K-2 with a_(j - lo) (i = 0 and i = 1 both start from a_0) ...
        span = k - 1 - lo
        p[i, lo : k - 1] = a[:span]
        # ... and the last state with the remaining mass.
        p[i, k - 1] = max(0.0, 1.0 - a[:span].sum())
    # pi (P - I) = 0 with sum(pi) = 1: replace one balance equation by the normalisation.
    m = p.T - np.eye(k)
    m[-1, :] = 1.0
    rhs = np.zeros(k)
    rhs[-1] = 1.0
    pi = np.linalg.solve(m, rhs)
    return np.clip(pi, 0.0, None) / np.clip(pi, 0.0, None).sum()


def _finish(arrival_rate: float, service_s: float, rho: float, probs: npt.NDArray[np.float64]) -> QueueMetrics:
    """Means from the time-average distribution of the number in the system (0..K)."""
    n = np.arange(len(probs), dtype=np.float64)
    l_sys = float(n @ probs)
    p_block = float(probs[-1])
    lq = l_sys - (1.0 - float(probs[0]))
    accepted = arrival_rate * (1.0 - p_block)
    wq = lq / accepted
    return QueueMetrics(rho=rho, p_block=p_block, l_system=l_sys, lq=lq, w_system=wq + service_s, wq=wq, probs=probs)


def mathis_bps(mss_bytes: float, rtt_s: float, loss: float, *, acked_per_ack: int = 1) -> float:
    """TCP Reno's steady-state throughput by the square-root law, bits per second.

    BW = (MSS / RTT) * C / sqrt(p) with C = sqrt(3 / (2 b)), b packets
    acknowledged per ACK: C = sqrt(3/2) ~ 1.22 with an ACK per packet and
    sqrt(3/4) ~ 0.87 with delayed ACKs (b = 2).
    Source: Mathis, Semke, Mahdavi & Ott, "The Macroscopic Behavior of the
    TCP Congestion Avoidance Algorithm", ACM CCR 27(3), 1997 (the periodic
    loss model and its constant C).
    """
    _check_positive(mss_bytes=mss_bytes, rtt_s=rtt_s, loss=loss)
    c = math.sqrt(3.0 / (2.0 * acked_per_ack))
    return mss_bytes * 8.0 / rtt_s * c / math.sqrt(loss)


def pftk_bps(
    mss_bytes: float,
    rtt_s: float,
    loss: float,
    *,
    rto_s: float | None = None,
    acked_per_ack: int = 1,
    wmax_pkts: float | None = None,
) -> float:
    """TCP Reno's steady-state throughput with timeouts (the PFTK model), bits per second.

    B(p) = min(Wmax / RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))
    packets per second, times the segment size. Without `wmax_pkts` there
    is no receiver-window cap; without `rto_s`, T0 = 4 RTT (RFC 5348's
    simplification).
    Source: Padhye, Firoiu, Towsley & Kurose, "Modeling TCP Throughput: A
    Simple Model and its Empirical Validation", ACM SIGCOMM 1998 (the
    approximate model); the same equation is TFRC's throughput equation,
    RFC 5348 sec. 3.1.
    """
    _check_positive(mss_bytes=mss_bytes, rtt_s=rtt_s, loss=loss)
    t0 = 4.0 * rtt_s if rto_s is None else rto_s
    _check_positive(rto_s=t0)
    b, p = acked_per_ack, loss
    denom = rtt_s * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    pkts_per_s = 1.0 / denom
    if wmax_pkts is not None:
        pkts_per_s = min(pkts_per_s, wmax_pkts / rtt_s)
    return pkts_per_s * mss_bytes * 8.0
