"""The ramachendra study's definition: its tables, figures and claims."""

from __future__ import annotations

from ccsim.studies.core import Study
from ccsim.studies.ramachendra.claims import claims
from ccsim.studies.ramachendra.figures import figures
from ccsim.studies.ramachendra.setup import NAME
from ccsim.studies.ramachendra.tables import tables

STUDY = Study(
    NAME,
    "Ramachendra et al.: RED, WRED, AVQ, ModRED under round robin; n nodes x load x queue size",
    "ramachendra-modred-round-robin-qualnet.md",
    tables,
    figures=figures,
    claims=claims,
    missing=(
        "the wireless networks of the paper's Figures 5.1-5.5 (16-128 nodes; their layout and standard are not "
        "given): the study runs the text's wired bottleneck",
        "the 128-node network (Figure 5.5) is not in the text's n = 16, 32, 64",
    ),
)
