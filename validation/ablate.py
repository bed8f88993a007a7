"""Which semantic of a compatibility profile moves a twin's metric?

    python validation/ablate.py TWIN [--peer ns2] [--seeds 1,2,3] [--metrics timeouts,jain]

Runs the ccsim side of a twin under the peer's profile, then once per
semantic of the profile with that one semantic set back to ccsim's default
(docs/compat.md), and prints the mean metrics beside the peer's stored ones.
A semantic whose reversal moves ccsim towards (or away from) the peer is a
suspect for the difference; an investigation tool, not part of the suite.
"""

from __future__ import annotations

import argparse
import copy
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccsim_side
import compare
import run as runner
from params import resolve

import ccsim

# (where, key, ccsim's default): where is "flow", "cc" (the flow's cc_params,
# CUBIC only), "la" (ns-2's Agent/TCP/Linux: the flows of cubic, bic and
# highspeed only; "la-cc" for their cc_params), "queue" or "top"
SEMANTICS = {
    "ns2": [
        ("top", "tie_order", "kind"),
        ("flow", "rto_floor", "variance"),
        ("flow", "initial_rto", "1s"),
        ("flow", "clock_granularity", "0s"),
        ("flow", "rtt_sampling", "every_ack"),
        ("flow", "syn", False),
        ("flow", "ssthresh_basis", "flight"),
        ("flow", "limited_transmit_after_loss", False),
        ("flow", "rto_restart_on_fast_retransmit", False),
        ("flow", "timeout_resets_dupacks", True),
        ("flow", "cwnd_validation", True),
        ("queue", "limit_mode", "waiting"),
        ("la", "recovery", "sack"),
        ("la", "rto_restart_every_ack", False),
        ("la", "rttvar_update", "rfc6298"),
        ("la", "timestamp_echo", "latest"),
        ("la-cc", "variant", "ccsim-own"),
    ],
    "ns3": [
        ("top", "tie_order", "kind"),
        ("flow", "rto_floor", "variance"),
        ("flow", "min_rto", "200ms"),
        ("flow", "clock_granularity", "0s"),
        ("flow", "rto_backoff_reset", "sample"),
        ("flow", "initial_cwnd", 2),
        ("flow", "delayed_ack", False),
        ("cc", "hystart", False),
        # ns-3's TcpCubic as a whole (its variant ignores growth_per_segment
        # and ssthresh_from_cwnd, so ablating those had no effect).
        ("cc", "variant", "rfc9438"),
        ("flow", "ack_first_segment", False),
        ("flow", "ssthresh_basis", "flight"),
        ("flow", "pipe_window", False),
        ("flow", "sacked_retransmit_in_pipe", False),
        ("flow", "rwnd_stops_next_seg", False),
        ("flow", "loss_exit_beyond_recover", False),
        ("flow", "retransmit_flags", False),
        ("flow", "rto_resend", "go_back_n"),
        ("flow", "pace_initial_window", True),
        ("flow", "rate_sample", "linux"),
        ("flow", "min_rtt_basis", "samples"),
        ("top", "device_queue", 0),
        ("top", "framing_bytes", 0),
    ],
}


# ccsim's own implementation of each of ns-2's Linux modules (`variant`).
LINUX_MODULES = {"cubic": "rfc9438", "bic": "ccsim", "highspeed": "rfc3649"}


def _revert_linux_agent(sc: dict, where: str, key: str, value: object) -> bool:
    """Revert one semantic of ns-2's Agent/TCP/Linux; False if the twin's cc is not one of its modules."""
    cc = sc["flows"][0]["cc"]
    if cc not in LINUX_MODULES:
        return False
    for f in sc["flows"]:
        if where == "la":
            f[key] = value
        else:
            # ccsim's own implementation of the module
            f.setdefault("cc_params", {})[key] = LINUX_MODULES[cc]
    return True


def variant(params: dict, seed: int, compat: str | None, change: tuple) -> dict:
    where, key, value = change
    sc = ccsim_side.scenario(params, seed, compat)
    sc = copy.deepcopy(sc)
    if where == "top":
        sc[key] = value
    elif where == "flow":
        for f in sc["flows"]:
            f[key] = value
    elif where == "cc":
        if sc["flows"][0]["cc"] != "cubic":
            return {}
        for f in sc["flows"]:
            f.setdefault("cc_params", {})[key] = value
    elif where in ("la", "la-cc"):
        if not _revert_linux_agent(sc, where, key, value):
            return {}
    elif where == "queue":
        q = sc["topology"]["bottleneck"]
        if q["queue"]["kind"] != "droptail":
            return {}
        q["queue"][key] = value
        q["reverse_queue"][key] = value
    r = ccsim.run(sc)
    return ccsim_side.metrics(r, two_way=bool(int(resolve(params)["two_way"])))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("twin")
    ap.add_argument("--peer", default="ns2")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--metrics", default="utilization,drop_rate,avg_queue_pkts,jain,timeouts,retransmissions")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    twin = next(t for t in runner.load_twins() if t["name"] == a.twin)
    seeds = [int(s) for s in a.seeds.split(",")]
    metrics = a.metrics.split(",")
    cases = [("profile", "top", "compat", a.peer), ("no profile", "top", "compat", "ccsim")]
    cases += [(f"{k} = {v!r}", w, k, v) for w, k, v in SEMANTICS[a.peer]]
    with ProcessPoolExecutor(a.jobs) as pool:
        futs = {
            (label, s): pool.submit(variant, twin["params"], s, a.peer, (w, k, v))
            for label, w, k, v in cases
            for s in seeds
        }
        res = {key: f.result() for key, f in futs.items()}
    stored = runner.load_peer(a.peer, twin)
    peer_runs = [stored["seeds"][str(s)] for s in seeds] if stored else []
    print(f"{a.twin}: mean over seeds {seeds}; each row: the {a.peer} profile with one semantic reverted")
    print(f"{'case':44s}" + "".join(f"{m[:14]:>15s}" for m in metrics))
    if peer_runs:
        print(
            f"{a.peer + ' (stored)':44s}" + "".join(f"{compare.mean(r[m] for r in peer_runs):15.4g}" for m in metrics)
        )
    for label, *_ in cases:
        runs = [res[(label, s)] for s in seeds if res[(label, s)]]
        if not runs:
            continue
        print(f"{label:44s}" + "".join(f"{compare.mean(r[m] for r in runs):15.4g}" for m in metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
