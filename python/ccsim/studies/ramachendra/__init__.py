"""The ramachendra study (docs/studies/ramachendra-modred.md): RED, WRED, AVQ and ModRED under round robin.

The paper's configurations are (n nodes, load, queue size): n = 16, 32, 64;
load 25-100%, where "25% load means we have divided the number of nodes
with 4"; queues of 25, 100 and 250 packets. The sweep runs the number of
active saturated connections n x load (4 .. 64) and the queue size; the
tables report every configuration (n, load, queue) with the runs of its
connection count (`configurations`), so one run stands for every (n, load)
with the same product. Change NODES and LOADS (and the sweep's counts) for
another network.

The modules, as every study's: `setup` (the cases and the paper's
configurations), `tables` (per-run metrics and the tables), `figures`,
`claims`, and `study` (STUDY).
"""

from ccsim.studies.ramachendra.study import STUDY

__all__ = ["STUDY"]
