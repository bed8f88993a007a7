"""The patel study's definition: its parts, tables, figures and claims."""

from __future__ import annotations

from ccsim.studies.core import Part, Study
from ccsim.studies.patel.claims import claims
from ccsim.studies.patel.figures import figures
from ccsim.studies.patel.setup import BUFFER50, NAME
from ccsim.studies.patel.tables import tables

STUDY = Study(
    NAME,
    "Patel et al.: RED vs SFQ vs REM, 2-packet buffer, bottleneck bandwidth swept (Tables 2-3, Figures 4-7)",
    "patel-red-sfq-rem-ns2.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(title="the paper's set-up: a 2-packet buffer"),
        Part(BUFFER50, "buffer50.toml", "buffer50_quick.toml", "sensitivity: a 50-packet buffer"),
    ),
    missing=(),
)
