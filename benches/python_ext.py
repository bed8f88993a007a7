"""The cost of an algorithm written in Python (docs/extending.md, docs/performance.md "Python extensions").

    python benches/python_ext.py [--repeat 5] [--seconds 20]

Runs pairs of scenarios that differ only in one algorithm, built in
(Rust) or written in Python, with identical results (checked here), and
divides the difference of the runs' CPU time (the thread's, around the
engine call: the build and the event loop; CPU rather than wall time, so
that other processes on a shared machine count less) by the number of
calls the Python side received:

- `fifo`: a 6-line Python FIFO against the built-in `droptail` on its
  general path (`fast_path = false`): the cost of crossing into Python and
  back with a packet, per enqueue or dequeue;
- `red`: examples/python_red.py against the built-in `red`;
- `reno`: examples/python_reno.py against the built-in `reno` (one call per
  ACK the senders receive, plus the rare loss and timeout calls).

Each run is repeated and the fastest kept. The numbers vary with the
machine and its load: they are a measurement, never a test.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
from ccsim import _core
from ccsim.results import Result
from ccsim.scenario import from_mapping

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "python" / "ccsim" / "examples"

FIFO = """
from collections import deque
import ccsim
from ccsim import _core
from ccsim.results import Result
from ccsim.scenario import from_mapping
class Fifo(ccsim.QueueDisc):
    def __init__(self):
        self.q = deque()
    def enqueue(self, now, pkt):
        if not self.fits(pkt.size):
            return False
        self.q.append(pkt)
        return True
    def dequeue(self, now):
        return self.q.popleft() if self.q else None
"""


def _scenario(name: str, seconds: float) -> dict[str, Any]:
    with (EXAMPLES / f"{name}.toml").open("rb") as f:
        s = tomllib.load(f)
    s["duration"] = f"{seconds}s"
    s["warmup"] = "0s"  # count every call
    return s


def _best(s: dict[str, Any], repeat: int) -> tuple[ccsim.Result, float]:
    """The result of scenario `s` and the least CPU time of `repeat` runs of it."""
    text = from_mapping(s)
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.thread_time()
        out = _core.run_scenario(text.text, text.source, text.fmt)
        best = min(best, time.thread_time() - start)
    assert out is not None
    return Result.from_engine(*out), best


def _row(
    label: str, rust: dict[str, Any], python: dict[str, Any], calls: Callable[[ccsim.Result], int], repeat: int
) -> str:
    (a, ta), (b, tb) = _best(rust, repeat), _best(python, repeat)
    same = a.flows.drop(columns=["cc"], errors="ignore").equals(b.flows.drop(columns=["cc"], errors="ignore"))
    same = same and a.queues.drop(columns=["kind"]).equals(b.queues.drop(columns=["kind"]))
    n = calls(b)
    per_call_us = (tb - ta) / n * 1e6
    return f"| {label} | {n:,} | {ta:.3f} | {tb:.3f} | {per_call_us:.2f} | {tb / ta:.1f}x | {'yes' if same else 'NO'} |"


def _queue_calls(r: ccsim.Result) -> int:
    q = r.queues.iloc[0]
    return int(q["arrivals"] + q["dequeued"])


def _ack_calls(r: ccsim.Result) -> int:
    return int((r.flows["acks_sent"] - r.flows["acks_lost"]).sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each scenario; the fastest is kept")
    ap.add_argument("--seconds", type=float, default=20.0, help="simulated seconds of each run")
    args = ap.parse_args(argv)

    import tempfile  # noqa: PLC0415

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bench_fifo.py").write_text(FIFO)
        sys.path.insert(0, tmp)
        red = _scenario("python_red", args.seconds)
        fifo_py = copy.deepcopy(red)
        fifo_py["topology"]["bottleneck"]["queue"] = {"kind": "python:bench_fifo.Fifo", "limit": 100}
        fifo_rust = copy.deepcopy(red)
        fifo_rust["topology"]["bottleneck"]["queue"] = {"kind": "droptail", "limit": 100, "fast_path": False}
        rows.append(_row("fifo (Python FIFO vs droptail)", fifo_rust, fifo_py, _queue_calls, args.repeat))
        sys.path.insert(0, str(EXAMPLES))
        red_rust = copy.deepcopy(red)
        red_rust["topology"]["bottleneck"]["queue"]["kind"] = "red"
        rows.append(_row("red (python_red.Red vs red)", red_rust, red, _queue_calls, args.repeat))
        reno = _scenario("python_reno", args.seconds)
        reno_rust = copy.deepcopy(reno)
        reno_rust["flows"][0]["cc"] = "reno"
        del reno_rust["flows"][0]["recovery"]
        rows.append(_row("reno (python_reno.Reno vs reno)", reno_rust, reno, _ack_calls, args.repeat))
    print("| pair | Python calls | Rust run, CPU s | Python run, CPU s | cost per call, us | slowdown | same results |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
