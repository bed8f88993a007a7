"""Trace twins: ccsim under `compat = "ns2"` replays ns-2.35 packet by packet.

Each twin is one TCP flow (Tahoe, Reno or NewReno) over a small DropTail
bottleneck (validation/traces/). Its ns-2 trace of the bottleneck queue was
recorded with Debian's ns2 2.35 (`validation/traces/refresh.sh`) and is
stored, so this test needs no ns-2. ccsim's ns-2-format trace of the same
queue must hold the same events (enqueue, dequeue, receive, drop: time to the
microsecond as ns-2 prints it, packet type, size and sequence number): one
difference in any rule (the SYN, the RTO's tick arithmetic, DropTail's
limit, Limited Transmit after a loss, ssthresh rounding, NewReno's partial
window deflation, the order of simultaneous events, down to ns-2's
floating-point clock breaking ties) shifts every later event. The two-way
twins put one flow's data and the other's ACKs in the same two-packet
buffer, where the order of an arrival and a departure at the same instant
decides every drop. Events at the same printed instant are compared as a
multiset (ns-2 prints six decimals).
"""

from __future__ import annotations

import gzip
import tomllib
from collections import Counter
from pathlib import Path

import pytest

import ccsim

TRACES = Path(__file__).resolve().parents[2] / "validation" / "traces"


def twins() -> list[tuple[str, str, int, int, str]]:
    """(name, cc, limit, duration, script) of every twin in twins.txt."""
    rows = []
    for line in (TRACES / "twins.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _agent, cc, limit, duration, *script = line.split()
            rows.append((name, cc, int(limit), int(duration), script[0] if script else "single_flow"))
    return rows


def events(lines: list[str]) -> list[tuple[str, Counter[tuple[str, ...]]]]:
    """Per printed time stamp, the multiset of (event, type, size, flow, seq)."""
    out: list[tuple[str, Counter[tuple[str, ...]]]] = []
    for line in lines:
        f = line.split()
        key = (f[0], f[4], f[5], f[7], f[10])
        if out and out[-1][0] == f[1]:
            out[-1][1][key] += 1
        else:
            out.append((f[1], Counter([key])))
    return out


@pytest.mark.parametrize("twin", twins(), ids=lambda t: t[0])
def test_ccsim_replays_the_ns2_trace(twin: tuple[str, str, int, int, str], tmp_path: Path) -> None:
    name, cc, limit, duration, script = twin
    spec = tomllib.loads((TRACES / f"{script}.toml").read_text())
    spec["duration"] = f"{duration}s"
    for flow in spec["flows"]:
        flow["cc"] = cc
    if "topology" in spec:  # a dumbbell: the bottleneck's queues both ways
        for q in ("queue", "reverse_queue"):
            spec["topology"]["bottleneck"][q]["limit"] = limit
    else:
        spec["links"][0]["queue"]["limit"] = limit
    ccsim.run(spec, trace_dir=tmp_path)
    ours = (tmp_path / "trace.tr").read_text().splitlines()
    with gzip.open(TRACES / f"{name}.ns2.tr.gz", "rt") as f:
        theirs = f.read().splitlines()
    drops = sum(1 for line in theirs if line.startswith("d "))
    assert drops > 0, "a twin without losses would not test recovery"
    a, b = events(theirs), events(ours)
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        assert x == y, f"{name}: first difference at ns-2 instant {x[0]} (group {i}): ns-2 {x[1]}, ccsim {y}"
    assert len(a) == len(b), f"{name}: {len(a)} instants in ns-2's trace, {len(b)} in ccsim's"


def test_the_default_profile_does_not_replay_ns2(tmp_path: Path) -> None:
    # The twins pass because of the ns2 profile, not by accident: ccsim's own
    # semantics (no SYN, DropTail holding `limit` packets) diverge at once.
    spec = tomllib.loads((TRACES / "single_flow.toml").read_text())
    del spec["compat"]
    ccsim.run(spec, trace_dir=tmp_path)
    ours = events((tmp_path / "trace.tr").read_text().splitlines())
    with gzip.open(TRACES / "tahoe_l4.ns2.tr.gz", "rt") as f:
        theirs = events(f.read().splitlines())
    assert ours[0] != theirs[0]
