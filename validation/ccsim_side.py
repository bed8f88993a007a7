"""ccsim side of a twin: the shared parameters -> a ccsim scenario -> metrics.

`scenario(params, seed, compat)` builds the scenario dict (the dumbbell of
validation/ns2/dumbbell.tcl and validation/ns3/dumbbell.cc); `run` runs it
and returns the metrics every peer prints (validation/README.md), measured
on r1->r2 over [warmup, duration].

`compat` is the scenario's compatibility profile ("ns2", "ns3", ...; docs/
compat.md), or None to run ccsim's own defaults.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from params import access_delays, resolve, shared_starts

import ccsim

CC = {
    "tahoe",
    "reno",
    "newreno",
    "sack",
    "vegas",
    "cubic",
    "bic",
    "highspeed",
    "bbr",
    "dctcp",
    "aimd",
    "binomial",
    "tfrc",
}
# ns-2's Agent/TFRC adds headersize_ 32 bytes to packetSize_ (tcp/tfrc.cc
# `sendpkt`, useHeaders_ 1): the twin keeps the wire size `packet_size`.
TFRC_HEADER = 32


def _flow_group(p: dict, cc: str, count: int, group: str, prio: int = 0) -> dict:
    """A flow group of `count` flows of `cc` (a TCP controller or "tfrc");
    `prio` is the class of its data packets (RIO's drop precedence)."""
    if cc not in CC:
        raise ValueError(f"unknown cc {cc!r}")
    start = {"uniform": ["0s", f"{float(p['start_max']):g}s"]}
    if cc == "tfrc":
        return {
            "group": group,
            "count": count,
            "transport": "tfrc",
            "packet_size": int(p["packet_size"]),
            "header": TFRC_HEADER,
            "app": "bulk",
            "start": start,
        }
    flow: dict = {
        "group": group,
        "count": count,
        "transport": "tcp",
        "cc": cc,
        "mss": int(p["packet_size"]) - 40,
        "window": int(p["window"]),
        "app": "bulk",
        "start": start,
        # ns-3's RecoveryType, explicit on both sides (the ns3 profile's
        # default is ns-3's, PRR; most twins select TcpClassicRecovery).
        "prr": "ns3" if p["recovery"] == "prr" else "off",
    }
    if prio:
        flow["class"] = prio
    if cc == "aimd":
        flow["cc_params"] = {"a": float(p["cc_a"]), "b": float(p["cc_b"])}
    elif cc == "binomial":
        flow["cc_params"] = {k: float(p[f"cc_{k}"]) for k in ("k", "l", "a", "b")}
    return flow


def _queue(p: dict, compat: str | None) -> dict:
    kind = p["queue"]
    q: dict = {"limit": int(p["buffer"])}
    size = int(p["packet_size"])
    if kind == "droptail":
        q["kind"] = "droptail"
        k = int(p["mark_threshold"])
        if k > 0:
            # ns-3 marks when K packets wait in its queue disc; the packet its
            # device queue holds below the disc is ccsim's `device_queue`
            # under the ns3 profile, outside the queue's count, so K as is.
            q["mark_threshold"] = k
    elif kind in ("red", "gred", "ared", "nlred"):
        q.update(
            kind=kind,
            min_th=float(p["min_th"]),
            max_th=float(p["max_th"]),
            max_p=float(p["max_p"]),
            weight=float(p["w_q"]),
            mean_pkt_size=size,
        )
        if kind in ("red", "nlred"):
            q["gentle"] = bool(int(p["gentle"]))
    elif kind == "rem":
        q.update(
            kind="rem",
            gamma=float(p["rem_gamma"]),
            phi=float(p["rem_phi"]),
            b_ref=float(p["rem_b_ref"]),
            update_interval=f"{float(p['rem_update'])}s",
            mean_pkt_size=size,
        )
    elif kind == "pi":
        q.update(
            kind="pi",
            a=float(p["pi_a"]),
            b=float(p["pi_b"]),
            w=float(p["pi_w"]),
            q_ref=float(p["pi_q_ref"]),
            mean_pkt_size=size,
        )
    elif kind == "sfq":
        # ns-2's SFQ never perturbs its hash; under the ns2 profile it is ns-2's
        # Queue/SFQ, whose buffer is maxqueue_ (the Tcl side sets it to `buffer`).
        q.update(kind="sfq", buckets=int(p["sfq_buckets"]), perturb="0s")
        if compat == "ns2":
            q["maxqueue"] = int(p["buffer"])
    elif kind == "drr":
        quantum = int(p["drr_quantum"]) or size
        q.update(kind="drr", quantum=quantum)
    elif kind == "rio":
        q.update(
            kind="rio",
            in_min_th=float(p["rio_in_min_th"]),
            in_max_th=float(p["rio_in_max_th"]),
            in_max_p=float(p["rio_in_max_p"]),
            out_min_th=float(p["min_th"]),
            out_max_th=float(p["max_th"]),
            out_max_p=float(p["max_p"]),
            weight=float(p["w_q"]),
            gentle=bool(int(p["gentle"])),
            mean_pkt_size=size,
        )
    elif kind in ("avq", "vq"):
        q.update(
            kind="avq",
            gamma=float(p["vq_gamma"]),
            initial_ratio=float(p["vq_ecnlim"]),
            mean_pkt_size=size,
        )
    else:
        q.update(_flow_queueing(p, kind, compat))
    return q


def _flow_queueing(p: dict, kind: str, compat: str | None) -> dict:
    """The other queues' keys: fq_codel with ns-3's flow queues, fq_cobalt.

    ns-3's FqCobaltQueueDisc is FQ-CoDel's scheduler with COBALT per flow
    queue: ccsim's CAKE without shaper, tins or host isolation, and under
    the ns3 profile CAKE's `variant = "ns3"` is that queue disc
    (queue/cake.rs). Without the profile it is Linux's CAKE, whose
    set-associative hash takes no flow_queues."""
    if kind == "fq_cobalt":
        q = {"kind": "cake", "flow_mode": "flows", "ecn": False}
        return q | (_flow_queues(p) if compat == "ns3" else {})
    return {"kind": kind} | (_flow_queues(p) if kind == "fq_codel" else {})


def _flow_queues(p: dict) -> dict:
    """fq_codel's `flow_queues` from the twin's `fq_queues` ("": every flow hashed)."""
    raw = str(p["fq_queues"])
    return {"flow_queues": [int(x) for x in raw.split(",")]} if raw else {}


def _split_shared_starts(p: dict, groups: list[dict], seed: int) -> list[dict]:
    """One group per flow, `GROUP.k`, started at `params.shared_starts`
    (drawn in the ns-2 script's order: per pair, forward then reverse)."""
    starts = shared_starts(p, seed)
    two_way = bool(int(p["two_way"]))
    n = int(p["flows"])
    out = []
    for g in groups:
        for k in range(int(g["count"])):
            if g["group"] == "rev":
                i = 2 * k + 1
            elif two_way:
                i = 2 * k
            else:
                i = k + (n if g["group"] == "fwd2" else 0)
            out.append(dict(g, group=f"{g['group']}.{k}", count=1, start=f"{starts[i]!r}s"))
    return out


def scenario(params: dict, seed: int, compat: str | None = "ns2") -> dict:
    """The ccsim scenario (a dict with the TOML structure) of a twin."""
    p = resolve(params)
    n = int(p["flows"])
    n2 = int(p["flows2"])
    delays = [f"{d:g}ms" for d in access_delays(p)]
    queue = _queue(p, compat)
    bottleneck: dict = {
        "rate": f"{float(p['bottleneck_rate']):g}Mbps",
        "delay": f"{float(p['bottleneck_delay']):g}ms",
        "queue": queue,
        "reverse_queue": dict(queue),
    }
    if float(p["loss"]) > 0:
        bottleneck["loss"] = {"model": "bernoulli", "rate": float(p["loss"])}
    flows = [_flow_group(p, str(p["cc"]), n, "fwd", int(p["prio"]))]
    if n2 > 0:
        flows.append(_flow_group(p, str(p["cc2"]), n2, "fwd2", int(p["prio2"])))
    if int(p["two_way"]):
        flows.append(dict(_flow_group(p, str(p["cc"]), n, "rev"), reverse=True))
    if p["start_times"] == "shared":
        flows = _split_shared_starts(p, flows, seed)
    sc: dict = {
        "name": "twin",
        "duration": f"{float(p['duration']):g}s",
        "warmup": f"{float(p['warmup']):g}s",
        "seed": int(seed),
        "topology": {
            "kind": "dumbbell",
            "pairs": n + n2,
            "access": {
                "rate": f"{float(p['access_rate']):g}Mbps",
                "delay": delays[0],
                "delays": delays,
                "queue": {"kind": "droptail", "limit": 1000},
            },
            "bottleneck": bottleneck,
        },
        "flows": flows,
        "output": {
            "sample_interval": "1s",
            "sample_links": ["r1->r2"],
            "sample_flows": False,
            "sample_groups": True,
        },
    }
    if compat:
        sc["compat"] = compat
    elif p["recovery"] == "prr":
        # Without a profile ccsim's recovery is NewReno's; ns-3's PRR runs in its
        # SACK recovery (RFC 6675), which ccsim then needs said explicitly.
        for f in flows:
            if f.get("prr") == "ns3":
                f.update(recovery="sack", sack_recovery="rfc6675")
    return sc


def _num(x: object) -> float:
    x = float(x)
    return x if math.isfinite(x) else float("nan")


def metrics(result: ccsim.Result, two_way: bool = False, second_group: bool = False) -> dict:
    """The twin metrics of a ccsim.Result (docs/results.md); with
    `second_group` the forward metrics cover both forward groups."""
    links = result.links.set_index("link")
    queues = result.queues.set_index("link")
    flows = result.flows
    groups = result.groups.set_index("group")
    out: dict = {}
    # with start_times = "shared" every flow is a group `GROUP.k`
    base = flows["group"].str.split(".").str[0]
    split = bool((flows["group"] != base).any())
    for pre, link, group in (("", "r1->r2", "fwd"), ("rev_", "r2->r1", "rev")):
        if pre and not two_way:
            break
        mine = flows[base.isin([group, "fwd2"] if group == "fwd" and second_group else [group])]
        out[pre + "utilization"] = _num(links.loc[link, "utilization"])
        out[pre + "drop_rate"] = _num(queues.loc[link, "loss_rate"])
        out[pre + "goodput_bps"] = _num(mine["goodput_bps"].sum())
        if pre:
            out["rev_avg_queue_pkts"] = _num(queues.loc[link, "avg_len_pkts"])
            out["rev_timeouts"] = int(mine["timeouts"].sum())
            out["rev_retransmissions"] = int(mine["retransmits"].sum())
        else:
            out["avg_queue_pkts"] = _num(queues.loc[link, "avg_len_pkts"])
            if second_group or split:  # Jain's index over all the forward flows
                g = mine["goodput_bps"].to_numpy(dtype=float)
                out["jain"] = _num(g.sum() ** 2 / (len(g) * (g**2).sum()) if (g**2).sum() > 0 else 1.0)
            else:
                out["jain"] = _num(groups.loc[group, "jain_index"])
            out["timeouts"] = int(mine["timeouts"].sum())
            out["retransmissions"] = int(mine["retransmits"].sum())
            out["per_flow_goodput_bps"] = [float(g) for g in mine["goodput_bps"]]
    names = [g for g, b in zip(flows["group"], base, strict=True) if b == "fwd" or (second_group and b == "fwd2")]
    series = sum(result.series(g, "goodput_bps", kind="group") for g in dict.fromkeys(names))
    out["goodput_series"] = [float(v) for v in series.to_numpy()]
    return out


def run(params: dict, seed: int, compat: str | None = "ns2") -> dict:
    """Run the ccsim side of a twin for one seed: its metrics."""
    p = resolve(params)
    result = ccsim.run(scenario(params, seed, compat))
    return metrics(result, two_way=bool(int(p["two_way"])), second_group=int(p["flows2"]) > 0)


if __name__ == "__main__":  # quick look: python validation/ccsim_side.py key=value ...
    import json

    kv = dict(a.split("=", 1) for a in sys.argv[1:])
    seed = int(kv.pop("seed", 1))
    compat = kv.pop("compat", "ns2") or None
    defaults = resolve({})

    def typed_value(k: str, v: str) -> object:
        if k not in defaults:
            return v
        try:
            return type(defaults[k])(v)
        except ValueError:  # an int default given as a fraction (start_max=0.5)
            return float(v)

    typed = {k: typed_value(k, v) for k, v in kv.items()}
    m = run(typed, seed, compat)
    m.pop("goodput_series")
    print(json.dumps(m))
