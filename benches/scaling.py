"""The scaling table of docs/performance.md: cost per packet hop as flows and link rates grow.

    python benches/scaling.py [--bin target/release/ccsim-bench] [--quick]

Writes one dumbbell scenario per row (NewReno bulk flows, 1040-byte
packets, DropTail buffer of one bandwidth-delay product), and graph rows
(`GRAPHS`: a random connected mesh of routers, each with one host, flows
between random hosts, shortest-path routes), runs the engine's
own benchmark binary on it under `/usr/bin/time` (peak resident memory) and
prints a markdown table: flows, bottleneck rate, simulated seconds, events,
wall seconds, events/s, hops/s, events per hop, peak MB. Each row's duration
is chosen so that it forwards a few million packets. Timings vary from run
to run on a shared machine: the table is a measurement, never a test.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import tempfile
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parents[1]

# (flows, bottleneck Mbps, simulated seconds)
ROWS = [
    (10, 10, 200),
    (100, 10, 200),
    (1_000, 100, 20),
    (10_000, 1_000, 2),
    (100, 100, 20),
    (100, 1_000, 2),
    (100, 10_000, 2),
    (100, 100_000, 1),
    (100_000, 10_000, 0.5),
]

# (routers, extra links beyond a spanning tree, flows, simulated seconds)
GRAPHS = [
    (1_000, 500, 1_000, 1),
]

SCENARIO = """
name = "scale_{flows}_{mbps}"
duration = "{seconds}s"
warmup = "0s"
seed = 1
[topology]
kind = "dumbbell"
pairs = {flows}
[topology.access]
rate = "{access}Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "{mbps}Mbps"
delay = "20ms"
[topology.bottleneck.queue]
kind = "droptail"
limit = {buffer}
[[flows]]
count = {flows}
transport = "tcp"
app = "bulk"
cc = "newreno"
mss = 1000
window = 10000
start = {{ uniform = ["0s", "{start}s"] }}
[output]
sample_interval = "{seconds}s"
sample_flows = false
"""


def scenario(flows: int, mbps: float, seconds: float) -> str:
    bdp = int(mbps * 1e6 * 0.048 / 8 / 1040)  # packets in flight over a 48 ms RTT
    return SCENARIO.format(
        flows=flows,
        mbps=mbps,
        seconds=seconds,
        access=mbps * 10,
        buffer=max(bdp, 20),
        start=min(1.0, seconds / 4),
    )


def graph(routers: int, extra: int, flows: int, seconds: float, seed: int = 1) -> str:
    """A random connected mesh: router i > 0 joins a random earlier router (a spanning tree), `extra`
    more links join random pairs; every router has one host on a 1 Gbps, 0.1 ms link; mesh links are
    100 Mbps, 1 ms, DropTail 100 packets; each flow runs between two random hosts."""
    rng = random.Random(seed)
    queue = {"kind": "droptail", "limit": 100}
    nodes = [{"name": f"r{i}", "kind": "router"} for i in range(routers)]
    nodes += [{"name": f"h{i}"} for i in range(routers)]
    pairs = {(rng.randrange(i), i) for i in range(1, routers)}
    while len(pairs) < routers - 1 + extra:
        a, b = sorted(rng.sample(range(routers), 2))
        pairs.add((a, b))
    links = [{"a": f"r{a}", "b": f"r{b}", "rate": "100Mbps", "delay": "1ms", "queue": queue} for a, b in sorted(pairs)]
    links += [{"a": f"h{i}", "b": f"r{i}", "rate": "1Gbps", "delay": "100us", "queue": queue} for i in range(routers)]
    flow_specs = []
    for _ in range(flows):
        a, b = rng.sample(range(routers), 2)
        flow_specs.append(
            {
                "src": f"h{a}",
                "dst": f"h{b}",
                "transport": "tcp",
                "app": "bulk",
                "cc": "newreno",
                "mss": 1000,
                "window": 10000,
                "start": {"uniform": ["0s", f"{min(1.0, seconds / 4):g}s"]},
            }
        )
    return tomli_w.dumps(
        {
            "name": f"graph_{routers}",
            "duration": f"{seconds}s",
            "warmup": "0s",
            "seed": 1,
            "nodes": nodes,
            "links": links,
            "flows": flow_specs,
            "output": {"sample_interval": f"{seconds}s", "sample_flows": False},
        }
    )


def run(binary: Path, path: Path) -> dict[str, float]:
    done = subprocess.run(
        ["/usr/bin/time", "-f", "peak_kb %M", str(binary), str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    line = done.stdout.strip().splitlines()[-1].split()
    peak = re.search(r"peak_kb (\d+)", done.stderr)
    return {
        "events": float(line[1]),
        "wall_s": float(line[2]),
        "events_per_s": float(line[3]),
        "hops_per_s": float(line[4]),
        "events_per_hop": float(line[5]),
        "peak_mb": int(peak.group(1)) / 1024 if peak else float("nan"),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "ccsim-bench")
    ap.add_argument("--quick", action="store_true", help="only the first three rows")
    ap.add_argument("--graphs-only", action="store_true", help="only the graph rows")
    ap.add_argument("--flows", type=int, nargs="*", help="only the dumbbell rows with these flow counts")
    a = ap.parse_args()
    rows = [] if a.graphs_only else ROWS[:3] if a.quick else ROWS
    if a.flows:
        rows = [r for r in rows if r[0] in a.flows]
    graphs = [] if a.quick else GRAPHS
    print("| flows | network | simulated s | events | wall s | events/s | hops/s | events/hop | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(f"scale_{f}_{m}", f, f"dumbbell, {m:g} Mbps", sec, scenario(f, m, sec)) for f, m, sec in rows]
        cases += [
            (f"graph_{n}", f, f"{n:,}-router mesh ({n - 1 + x:,} links), 100 Mbps", sec, graph(n, x, f, sec))
            for n, x, f, sec in graphs
        ]
        for name, flows, network, seconds, text in cases:
            path = Path(tmp) / f"{name}.toml"
            path.write_text(text, encoding="utf-8")
            r = run(a.bin, path)
            print(
                f"| {flows:,} | {network} | {seconds:g} | {r['events']:,.0f} | {r['wall_s']:.2f} | "
                f"{r['events_per_s'] / 1e6:.1f} M | {r['hops_per_s'] / 1e6:.1f} M | {r['events_per_hop']:.2f} | "
                f"{r['peak_mb']:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
