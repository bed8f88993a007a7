"""The mehta study's definition: its parts, tables, figures and claims."""

from __future__ import annotations

from ccsim.studies.core import Part, Study
from ccsim.studies.mehta.claims import claims
from ccsim.studies.mehta.figures import figures
from ccsim.studies.mehta.setup import FLASH, MAIN, SQUARE
from ccsim.studies.mehta.tables import tables

STUDY = Study(
    "mehta-slowcc",
    "Mehta et al.: slowly-responsive congestion control (TCP(b), SQRT, IIAD, TFRC(n) with and without "
    "self-clocking) against a CBR restart, a flash crowd and a square-wave CBR over RED",
    "mehta-slowcc-tfrc-aimd-binomial-ns2.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(MAIN, "sweep.toml", "quick.toml", "main: CBR restart (Table 1, Figure 6)"),
        Part(FLASH, "flash.toml", "flash_quick.toml", "flash: flash crowd (Figures 7-14)"),
        Part(SQUARE, "square.toml", "square_quick.toml", "square: square-wave CBR (Table 7.2, Figures 17-19)"),
    ),
    missing=(),
)
