"""The mehta study (docs/studies/mehta-slowcc.md): slowly-responsive congestion control in three experiments.

Mehta, Sharma and Verma's seed repeats, in ns-2, the experiments of Bansal,
Balakrishnan, Floyd and Shenker ("Dynamic Behavior of Slowly-Responsive
Congestion Control Algorithms", SIGCOMM 2001). Three parts:

- `main` (Table 1, Figure 6): 15 long-lived flows of one kind against a CBR
  source on during [0, 100] s and again from 150 s, over RED: the drop rate
  after the CBR restarts (how high, how long: Bansal et al.'s stabilization
  time and cost), the drop rate while it is off, and how fast the flows take
  up the bandwidth it leaves (f(k));
- `flash` (Figures 7-14): a flash crowd of 1000 ten-packet TCP transfers at
  100 flows/s against 15 long-lived flows of one kind: the aggregate
  throughput of both against time, the crowd's share and completion times;
- `square` (Table 7.2, Figures 15-19): 7 TCP and 7 flows of another kind
  (TFRC(8), TCP(1/8), SQRT(1/2)) under a square-wave CBR source: throughput
  against time at one period, and normalized by the fair share against the
  period.

The claims and their readings (what "negligible", "respond earlier",
"TCP-compatible" are taken to mean) are listed in docs/studies/mehta-slowcc.md.

Every window in these modules is taken from each run's own set-up as the
engine resolved it (its results' `components`: the CBR schedule, the crowd's
start and size), so the quick variants, which
compress the schedules, are measured the same way. The measures are ccsim.measures'
(docs/measures.md), fed from the stored time series.

The modules, as every study's: `setup` (the parts, flow groups, kinds and
their names), `tables`, `figures`, `claims` and `study` (STUDY); and its own:
`reading` (a run's set-up and time series), `restart`, `flash` and
`square` (each part's per-run measures), `draw` (the figures' helpers).
"""

from ccsim.studies.mehta.study import STUDY

__all__ = ["STUDY"]
