"""The bisoy study (docs/studies/bisoy-aqm.md): DropTail, GRED, NLRED and REM under 20-120 FTP flows.

Two parts: `main` (100 s runs, the flow count swept: the paper's Figures
2-7, and Figure 10 with GRED and NLRED at max_p 0.1, 0.3 and 0.5) and
`time` (one flow count, 150 s runs: Figures 8-9, goodput and loss rate of a
simulation of length T = 25, 50, ..., 150 s).

Figures 8-9 from one run per replicate: a run is deterministic and nothing
in it depends on its duration, so a run of length T is the first T seconds
of a longer run with the same seed. The goodput and the loss rate of "a
simulation of length T" are therefore the cumulative sums of the longer
run's 1 s samples up to T: the group's goodput (bit/s x interval) summed
over (0, T] and divided by T, and the bottleneck queue's drops over its
arrivals summed over (0, T]. tests/python/test_study_bisoy.py checks this
against separate runs of 25 s and 50 s.

Goodput is the paper's: non-duplicate packets delivered per unit time over
the link capacity, so packets count with their headers (a delivered 512-byte
segment, ns-2's packetSize_, is a 552-byte packet): the payload rate times (mss + header) / mss.

The modules, as every study's: `setup` (the parts, cases, their names and
looks), `tables` (per-run metrics and the tables), `figures`, `claims`, and
`study` (STUDY).
"""

from ccsim.studies.bisoy.study import STUDY

__all__ = ["STUDY"]
