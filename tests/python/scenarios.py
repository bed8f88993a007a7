"""Scenario texts shared by the Python tests (imported like sweep_helpers and contract)."""

from __future__ import annotations

# 2 s (0.5 s warmup) on a 2-pair dumbbell: 100 Mbit/s, 1 ms access links; a 10 Mbit/s, 10 ms
# bottleneck with a 20-packet DropTail. A run takes a few hundredths of a second.
_SMALL = """\
name = "{name}"
duration = "2s"
warmup = "0.5s"
seed = 3

[topology]
kind = "dumbbell"
pairs = 2

[topology.access]
rate = "100Mbps"
delay = "1ms"

[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"

[topology.bottleneck.queue]
kind = "droptail"
limit = 20

[[flows]]
"""


def small_dumbbell(name: str, flows: str) -> str:
    """The small dumbbell scenario named `name`, its one flow group's keys `flows` (the `[[flows]]` line is given)."""
    return _SMALL.format(name=name) + flows


def poisson_pair(rate: str) -> str:
    """Flow keys: group "p", 2 Poisson UDP flows of 1000-byte packets at `rate` each, starting within 0.2 s."""
    return f"""\
group = "p"
count = 2
transport = "udp"
app = "poisson"
rate = "{rate}"
packet_size = 1000
start = {{ uniform = ["0s", "0.2s"] }}
"""


def compact_dumbbell(bottleneck_rate: str, bottleneck_delay: str, queue: str) -> str:
    """The `[topology]` of a 2-pair dumbbell with 100 Mbit/s, 2 ms access links and the bottleneck given,
    its queue an inline table (`{ kind = "red", limit = 30 }`); flows and other tables follow."""
    return f"""\
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "{bottleneck_rate}"
delay = "{bottleneck_delay}"
queue = {queue}
"""
