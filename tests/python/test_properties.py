"""Property tests: random small topologies and UDP loads run without error and conserve packets."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import ccsim

RATES_KBPS = st.integers(min_value=200, max_value=20_000)


@st.composite
def links(draw: st.DrawFn, n: int) -> list[dict[str, Any]]:
    """A random connected graph on n nodes: a random spanning tree plus up to 3 extra links."""
    pairs = [(draw(st.integers(0, i - 1)), i) for i in range(1, n)]
    others = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in pairs]
    if others:
        pairs += draw(st.lists(st.sampled_from(others), max_size=3, unique=True))
    return [link(draw, a, b) for a, b in pairs]


def queue(draw: st.DrawFn) -> dict[str, Any]:
    """A DropTail, drop-front or CAKE queue limited in packets, bytes or both; a CAKE
    queue sometimes shapes (then the kernel comes back at the shaper's release times)."""
    q: dict[str, Any] = {"kind": draw(st.sampled_from(["droptail", "dropfront", "cake"]))}
    if q["kind"] == "cake" and draw(st.booleans()):
        q["bandwidth"] = f"{draw(RATES_KBPS)}kbps"
    bound = draw(st.sampled_from(["packets", "bytes", "both"]))
    if bound in ("packets", "both"):
        q["limit"] = draw(st.integers(1, 50))
    if bound in ("bytes", "both"):
        q["limit_bytes"] = f"{draw(st.integers(1500, 60_000))}B"
    return q


def link(draw: st.DrawFn, a: int, b: int) -> dict[str, Any]:
    """A duplex link with random rate, delay, queues and sometimes random loss."""
    spec: dict[str, Any] = {
        "a": f"n{a}",
        "b": f"n{b}",
        "rate": f"{draw(RATES_KBPS)}kbps",
        "delay": f"{draw(st.integers(0, 50))}ms",
    }
    if draw(st.booleans()):
        spec["queue"] = queue(draw)
    else:
        spec["queue_ab"], spec["queue_ba"] = queue(draw), queue(draw)
    if draw(st.integers(0, 3)) == 0:
        spec["loss"] = {"model": "bernoulli", "rate": draw(st.floats(0.0, 0.2))}
    return spec


def flow(draw: st.DrawFn, n: int, duration_ms: int) -> dict[str, Any]:
    """A UDP flow group between two distinct nodes with a CBR, Poisson or ON/OFF source."""
    src = draw(st.integers(0, n - 1))
    dst = draw(st.integers(0, n - 2))
    dst += dst >= src
    app = draw(st.sampled_from(["cbr", "poisson", "onoff"]))
    spec: dict[str, Any] = {
        "count": draw(st.integers(1, 3)),
        "transport": "udp",
        "app": app,
        "src": f"n{src}",
        "dst": f"n{dst}",
        "rate": f"{draw(st.integers(50, 10_000))}kbps",
        "packet_size": draw(st.integers(40, 1500)),
    }
    start_ms = draw(st.integers(0, duration_ms // 2))
    spec["start"] = {"uniform": [f"{start_ms}ms", f"{duration_ms // 2}ms"]} if draw(st.booleans()) else f"{start_ms}ms"
    if draw(st.booleans()):
        spec["stop"] = f"{draw(st.integers(duration_ms // 2 + 1, duration_ms))}ms"
    if app == "onoff":
        spec["on"] = f"{draw(st.integers(10, 300))}ms"
        spec["off"] = f"{draw(st.integers(10, 300))}ms"
    if app == "poisson" and draw(st.booleans()):
        spec["size_dist"] = "exponential"
    return spec


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A random small scenario: 2-6 nodes, 1-4 flow groups, at most 2 s."""
    n = draw(st.integers(2, 6))
    duration_ms = draw(st.integers(200, 2000))
    return {
        "name": "prop",
        "seed": draw(st.integers(0, 2**63 - 1)),
        "duration": f"{duration_ms}ms",
        "warmup": f"{draw(st.integers(0, duration_ms - 1))}ms",
        "nodes": [{"name": f"n{i}"} for i in range(n)],
        "links": draw(links(n)),
        "flows": [flow(draw, n, duration_ms) for _ in range(draw(st.integers(1, 4)))],
        "output": {"sample_interval": f"{draw(st.integers(10, 500))}ms"},
    }


def check_queue(q: dict[str, Any]) -> None:
    link = q["link"]
    assert q["drops"] == q["drops_on_arrival"] + q["drops_in_queue"], link
    assert q["arrivals"] == q["enqueued"] + q["drops_on_arrival"], link
    assert q["enqueued"] + q["backlog_start_pkts"] == q["dequeued"] + q["drops_in_queue"] + q["backlog_end_pkts"], link
    assert q["min_len_pkts"] <= q["avg_len_pkts"] <= q["max_len_pkts"], link
    assert q["marks"] == 0, link


def check_flow(f: dict[str, Any]) -> None:
    name = f["name"]
    assert f["sent_packets"] + f["in_flight_start"] == f["received_packets"] + f["lost_packets"] + f["in_flight_end"], (
        name
    )
    # UDP delivers every datagram that arrives, once.
    assert f["goodput_bps"] == f["throughput_bps"], name
    # loss_rate (lost / sent in the window) may exceed 1 in a short window: packets sent before it opened
    # can be lost inside it. Only its sign is certain.
    assert f["loss_rate"] >= 0.0, name


@settings(max_examples=30, deadline=None)
@given(scenarios())
def test_random_topologies_run_and_conserve_packets(scenario: dict[str, Any]) -> None:
    result = ccsim.run(scenario)
    data = result.data
    for q in data["queues"]:
        check_queue(q)
    for f in data["flows"]:
        check_flow(f)
    # Each link transmits exactly what its queue hands it.
    tx = {link["link"]: link["tx_packets"] for link in data["links"]}
    for q in data["queues"]:
        assert q["dequeued"] == tx[q["link"]], q["link"]
    # Every packet a flow lost was dropped by a queue or a link's loss model (UDP sends only data).
    dropped = sum(q["drops"] for q in data["queues"]) + sum(link["lost_packets"] for link in data["links"])
    assert sum(f["lost_packets"] for f in data["flows"]) == dropped
    # Time series: every series has one value per sample time.
    ts = result.timeseries
    assert ts.groupby(["entity", "metric"], observed=True).size().nunique() <= 1
