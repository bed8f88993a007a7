"""The shared parameter vocabulary of the twins (validation/README.md).

Every key is optional; DEFAULTS holds the documented default of each. Both
sides of a twin read their parameters through `resolve`, so a twin that omits
a key gets the same value in ccsim and in every peer.
"""

from __future__ import annotations

DEFAULTS: dict[str, object] = {
    "duration": 60,  # s
    "warmup": 10,  # s: metrics over [warmup, duration]
    "flows": 10,  # forward flows (and as many reverse ones with two_way)
    "cc": "newreno",  # tahoe|reno|newreno|sack|vegas|cubic|bic|highspeed|bbr|dctcp (ns-3 only)
    "packet_size": 1040,  # bytes on the wire, 40 header bytes included
    "bottleneck_rate": 10,  # Mbps
    "bottleneck_delay": 20,  # ms
    "access_rate": 100,  # Mbps
    "access_delay": "2",  # ms, or "1,10,30": cycled over the pairs
    "queue": "droptail",
    "buffer": 100,  # packets, both directions of the bottleneck
    "min_th": 5,  # RED family, packets
    "max_th": 15,
    "max_p": 0.1,
    "w_q": 0.002,
    "gentle": 0,  # red only: gred and ared are gentle
    "mark_threshold": 0,  # droptail: step ECN marking at K packets (0: none); ns-3 only
    "rem_gamma": 0.001,
    "rem_phi": 1.001,
    "rem_b_ref": 20,  # packets
    "rem_update": 0.002,  # s
    "pi_a": 1.822e-05,
    "pi_b": 1.816e-05,
    "pi_w": 170,  # Hz
    "pi_q_ref": 50,  # packets
    "vq_gamma": 0.98,
    "vq_ecnlim": 0.8,
    "sfq_buckets": 16,
    "drr_quantum": 0,  # bytes; 0 = packet_size
    "two_way": 0,
    "loss": 0.0,  # random loss probability after the bottleneck r1->r2
    "start_max": 1,  # s: flows start uniformly in [0, start_max]
    "window": 20,  # receiver / maximum window, packets
    # A second group of forward flows on pairs flows..flows+flows2-1 (0: none).
    "flows2": 0,
    "cc2": "newreno",
    # AIMD(a, b) and binomial(k, l, a, b) (cc = "aimd" or "binomial"; ns-2:
    # increase_num_ = a, decrease_num_ = 1 - b, k_parameter_, l_parameter_)
    "cc_a": 1.0,
    "cc_b": 0.5,
    "cc_k": 0.0,
    "cc_l": 1.0,
    # RIO (queue = "rio"): the drop precedence of each forward group's data
    # packets, 1 = IN, 0 = OUT (ns-2: the agents' fid_ with the queue's
    # priority_method_ 1; ccsim: the flow group's `class`), and the IN
    # thresholds; OUT packets take min_th, max_th and max_p.
    "prio": 0,
    "prio2": 0,
    "rio_in_min_th": 15,
    "rio_in_max_th": 30,
    "rio_in_max_p": 0.02,
    # "random": each side draws the start times from its own generator;
    # "shared": both take them from `shared_starts` (the same instants).
    "start_times": "random",
    # fq_codel, fq_cobalt: the flow queue of each forward flow, "q0,q1,..."
    # ("": hashed). ns-3's FqCoDelQueueDisc and FqCobaltQueueDisc hash the
    # 5-tuple with Perturbation 0, so the
    # same flows share a queue in every run (dumbbell.cc --cc_trace prints
    # the mapping; given one, it checks it); ccsim takes it as `flow_queues`.
    "fq_queues": "",
}

# Keys a peer program gets only when a twin sets them to something other
# than their default (added after the ns-3 program, which knows none of them).
OPTIONAL = (
    "flows2",
    "cc2",
    "cc_a",
    "cc_b",
    "cc_k",
    "cc_l",
    "prio",
    "prio2",
    "rio_in_min_th",
    "rio_in_max_th",
    "rio_in_max_p",
    "start_times",
    "fq_queues",
)

METRICS = (
    "utilization",
    "drop_rate",
    "avg_queue_pkts",
    "goodput_bps",
    "jain",
    "timeouts",
    "retransmissions",
)
REV_METRICS = ("rev_utilization", "rev_drop_rate", "rev_goodput_bps")


def resolve(params: dict) -> dict:
    """The twin's parameters with every default filled in."""
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown twin parameters: {sorted(unknown)}")
    out = dict(DEFAULTS)
    out.update(params)
    if int(out["flows2"]) > 0 and int(out["two_way"]):
        raise ValueError("flows2 and two_way cannot be combined")
    if out["start_times"] not in ("random", "shared"):
        raise ValueError(f'start_times: expected "random" or "shared", got {out["start_times"]!r}')
    return out


def access_delays(p: dict) -> list[float]:
    """Per-pair access delays (ms), the list cycled over the flows."""
    raw = [float(x) for x in str(p["access_delay"]).split(",") if x.strip()]
    return [raw[i % len(raw)] for i in range(int(p["flows"]) + int(p["flows2"]))]


def shared_starts(p: dict, seed: int) -> list[float]:
    """Start times (s) for `start_times = "shared"`, in the order the ns-2
    script creates its flows (per pair: forward, then reverse with two_way):
    a Park-Miller generator (x <- 48271 x mod 2^31 - 1) seeded with
    seed * 7919 + 1 and run 10 steps, scaled to [0, start_max)."""
    m = 2147483647
    x = (seed * 7919 + 1) % m
    for _ in range(10):
        x = x * 48271 % m
    n = (int(p["flows"]) + int(p["flows2"])) * (2 if int(p["two_way"]) else 1)
    out = []
    for _ in range(n):
        x = x * 48271 % m
        out.append(x / m * float(p["start_max"]))
    return out


def peer_args(params: dict, seed: int) -> list[str]:
    """`--key=value` arguments for a peer program (ns-3 CommandLine style)."""
    p = resolve(params)
    keep = {k: v for k, v in p.items() if k not in OPTIONAL or v != DEFAULTS[k]}
    return [f"--{k}={v}" for k, v in sorted(keep.items())] + [f"--seed={seed}"]
