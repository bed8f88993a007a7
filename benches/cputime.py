"""CPU time (user + system) of whole commands, alternated, as docs/performance.md measures.

    python benches/cputime.py --runs 15 -- '.venv/bin/ccsim --help' 'other/ccsim --help'

Runs each command in turn, `--runs` times round (after one unmeasured
round), with its output to /dev/null, and prints per command the median
and minimum CPU time of the child (`os.wait4`'s user + system) and its
median wall time. On a machine that others load, the wall clock measures
the wait for a core; the CPU time of a single-threaded process that waits
for nothing is what its wall time is on an idle core.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import time


def measure(command: list[str]) -> tuple[float, float]:
    """(CPU time, wall time) of one run of `command`, s."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{shlex.join(command)} failed (exit status {os.waitstatus_to_exitcode(status)})")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="measured runs of each command (default 15)")
    parser.add_argument("commands", nargs="+", help="the commands, each one shell-quoted string")
    args = parser.parse_args()
    commands = [shlex.split(c) for c in args.commands]
    cpu: list[list[float]] = [[] for _ in commands]
    wall: list[list[float]] = [[] for _ in commands]
    for round_ in range(args.runs + 1):
        for i, command in enumerate(commands):
            c, w = measure(command)
            if round_ > 0:
                cpu[i].append(c)
                wall[i].append(w)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.runs} alternating runs each")
    for command, c, w in zip(args.commands, cpu, wall, strict=True):
        print(
            f"CPU median {statistics.median(c):.3f} s (min {min(c):.3f}), "
            f"wall median {statistics.median(w):.3f} s: {command}"
        )


if __name__ == "__main__":
    main()
