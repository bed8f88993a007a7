"""CAKE on the shipped home-gateway example (docs/algorithms.md, cake).

Host "laptop" uploads with one TCP flow and makes a 64 kbit/s call, host
"nas" uploads with eight TCP flows; the gateway's CAKE shapes to 9.5 Mbit/s
in front of a modem whose 10 Mbit/s line has a 500-packet FIFO. The checks
are the shape of the paper's claims (Hoiland-Jorgensen, Taht and Morton,
LANMAN 2018): equal host shares under triple-isolate for backlogged hosts,
per-flow shares under `flows`; the queue kept in CAKE rather than in the
modem; the call's packets barely delayed. Tolerances are stated beside each
assertion.
"""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import pytest

import ccsim
from ccsim import shipped


@pytest.fixture(scope="module")
def scenario() -> dict[str, Any]:
    with open(shipped.example("home_gateway_cake").path, "rb") as f:
        return tomllib.load(f)


def cake_table(s: dict[str, Any]) -> dict[str, Any]:
    """The gateway's queue table (gw->modem)."""
    link = next(lk for lk in s["links"] if (lk["a"], lk["b"]) == ("gw", "modem"))
    table: dict[str, Any] = link["queue_ab"]
    return table


def laptop_share(r: ccsim.Result) -> float:
    by_group = r.flows.groupby("group")["goodput_bps"].sum()
    return float(by_group["laptop"] / (by_group["laptop"] + by_group["nas"]))


def call_queueing_s(s: dict[str, Any], r: ccsim.Result) -> float:
    """The call's mean one-way delay less its delay on the idle path."""
    alone = copy.deepcopy(s)
    alone["flows"] = [f for f in s["flows"] if f["group"] == "call"]
    base = ccsim.run(alone).flows.set_index("group").loc["call", "delay_mean_s"]
    return float(r.flows.set_index("group").loc["call", "delay_mean_s"] - base)


def test_the_example_keeps_the_queue_in_cake_and_the_call_fast(scenario: dict[str, Any]) -> None:
    r = ccsim.run(scenario)
    queues = r.queues.set_index("link")
    links = r.links.set_index("link")
    window_s = r.duration_s - r.warmup_s
    shaped_bps = links.loc["gw->modem", "tx_bytes"] * 8 / window_s
    # The modem's FIFO stays empty (< 1 packet on average); CAKE sends at
    # its 9.5 Mbit/s (at least 97% of it with TCP's sawtooth).
    assert queues.loc["modem->isp", "avg_len_pkts"] < 1.0
    assert 0.97 * 9.5e6 < shaped_bps <= 9.5e6 * 1.001
    # The call, a sparse flow, waits less than 2 ms.
    assert call_queueing_s(scenario, r) < 0.002


def test_triple_isolate_gives_a_backlogged_host_half(scenario: dict[str, Any]) -> None:
    # The scheduler's share, with the laptop's upload always backlogged (an
    # unresponsive 9 Mbit/s stream in place of its TCP flow): half the
    # uplink against the nas's eight TCP flows, 0.5 +- 0.02.
    s = copy.deepcopy(scenario)
    s["flows"][0] = {
        "group": "laptop",
        "src": "laptop",
        "dst": "server1",
        "transport": "udp",
        "app": "cbr",
        "rate": "9Mbps",
        "packet_size": 1500,
    }
    assert abs(laptop_share(ccsim.run(s)) - 0.5) < 0.02


def test_host_isolation_against_per_flow_queueing(scenario: dict[str, Any]) -> None:
    # With TCP, as shipped: per-flow queueing (`flows`) gives the laptop's
    # one flow a ninth of nine (+- 0.03); triple-isolate gives the laptop
    # more than three times that (its fair half, less what a single TCP
    # flow's sawtooth leaves unused and the nas's flows take up).
    per_host = laptop_share(ccsim.run(scenario))
    s = copy.deepcopy(scenario)
    cake_table(s)["flow_mode"] = "flows"
    per_flow = laptop_share(ccsim.run(s))
    assert abs(per_flow - 1 / 9) < 0.03
    assert per_host > 3 * per_flow


def test_without_the_shaper_the_modem_fifo_fills(scenario: dict[str, Any]) -> None:
    s = copy.deepcopy(scenario)
    del cake_table(s)["bandwidth"]
    r = ccsim.run(s)
    # The bottleneck is now the modem: its FIFO holds a standing queue
    # (> 100 packets) that the call waits behind (> 100 ms).
    assert r.queues.set_index("link").loc["modem->isp", "avg_len_pkts"] > 100
    assert call_queueing_s(s, r) > 0.1


def test_a_bad_flow_mode_is_one_line_naming_the_key(scenario: dict[str, Any]) -> None:
    s = copy.deepcopy(scenario)
    cake_table(s)["flow_mode"] = "triple"
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(s)
    msg = str(e.value)
    assert "flow_mode" in msg
    assert "triple-isolate" in msg
    assert "\n" not in msg
