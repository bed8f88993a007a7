"""The bisoy study's definition: its parts, tables, figures and claims."""

from __future__ import annotations

from ccsim.studies.bisoy.claims import claims
from ccsim.studies.bisoy.figures import figures
from ccsim.studies.bisoy.setup import NAME, TIME_PART
from ccsim.studies.bisoy.tables import tables
from ccsim.studies.core import MAIN, Part, Study

STUDY = Study(
    NAME,
    "Bisoy et al.: DropTail vs GRED vs NLRED vs REM, 20-120 FTP flows (Figures 2-10)",
    "bisoy-aqm-droptail-gred-nlred-rem-ns2.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(MAIN, "sweep.toml", "quick.toml", "Figures 2-7 and 10: 100 s runs, 20-120 flows"),
        Part(TIME_PART, "time.toml", "time-quick.toml", "Figures 8-9: 150 s runs cut at 25, 50, ..., 150 s"),
    ),
)
