"""The scaling table of docs/performance.md: cost per packet hop as flows and link rates grow.

    python benches/scaling.py [--bin target/release/ccsim-bench] [--quick]

Writes one dumbbell scenario per row (NewReno bulk flows, 1040-byte
packets, DropTail buffer of one bandwidth-delay product), runs the engine's
own benchmark binary on it under `/usr/bin/time` (peak resident memory) and
prints a markdown table: flows, bottleneck rate, simulated seconds, events,
wall seconds, events/s, hops/s, events per hop, peak MB. Each row's duration
is chosen so that it forwards a few million packets. Timings vary from run
to run on a shared machine: the table is a measurement, never a test.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

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
    (100_000, 10_000, 0.5),
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
    a = ap.parse_args()
    rows = ROWS[:3] if a.quick else ROWS
    print("| flows | bottleneck | simulated s | events | wall s | events/s | hops/s | events/hop | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for flows, mbps, seconds in rows:
            path = Path(tmp) / f"scale_{flows}_{mbps}.toml"
            path.write_text(scenario(flows, mbps, seconds), encoding="utf-8")
            r = run(a.bin, path)
            print(
                f"| {flows:,} | {mbps:g} Mbps | {seconds:g} | {r['events']:,.0f} | {r['wall_s']:.2f} | "
                f"{r['events_per_s'] / 1e6:.1f} M | {r['hops_per_s'] / 1e6:.1f} M | {r['events_per_hop']:.2f} | "
                f"{r['peak_mb']:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
