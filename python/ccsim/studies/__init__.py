"""Built-in studies: the papers of docs/studies/ reproduced by one command (`ccsim reproduce NAME`).

A study is a folder `studies/<name>/` holding base scenarios and, for each
of its parts (a paper's separate experiments), a sweep file (the full run,
every point at least 5 replicates) and a quick variant (shorter runs, fewer
points, 2 replicates), plus a package here (`patel/`, ...) that makes the
paper's tables and figures from the results and states the paper's claims
beside what ccsim finds. Every package has the same modules: `setup` (the
parts, cases, their names and the paper's constants), `tables`, `figures`,
`claims` (every verdict from ccsim.studies.claims.judge) and `study` (its
`STUDY`), exported by its `__init__`. `reproduce` runs the sweeps
(ccsim.sweep), then writes into the results folder:

- `<part>/`: each part's results store (`results.duckdb`, time series);
- `<table>.csv`, `<table>_ranking.csv`, `summary.md`, `claims.md`
  (ccsim.studies.tables, ccsim.studies.claims);
- `report.html` and `figures/*.png|svg` (ccsim.studies.report).
"""

from __future__ import annotations

from ccsim.studies import bisoy, mehta, patel, ramachendra, vyshnavi
from ccsim.studies.claims import Claim
from ccsim.studies.core import ENV_DIR, Part, Study, StudyData, Table, studies_dir
from ccsim.studies.run import Reproduction, default_out, load, report_only, reproduce
from ccsim.studies.tables import StudyTables, compute

STUDIES: dict[str, Study] = {
    s.name: s for s in (patel.STUDY, bisoy.STUDY, vyshnavi.STUDY, ramachendra.STUDY, mehta.STUDY)
}


def get(name: str) -> Study:
    """The study called `name` (ValueError naming the known ones otherwise)."""
    try:
        return STUDIES[name]
    except KeyError:
        raise ValueError(f"unknown study {name!r}; the studies are: {', '.join(STUDIES)}") from None


__all__ = [
    "ENV_DIR",
    "STUDIES",
    "Claim",
    "Part",
    "Reproduction",
    "Study",
    "StudyData",
    "StudyTables",
    "Table",
    "compute",
    "default_out",
    "get",
    "load",
    "report_only",
    "reproduce",
    "studies_dir",
]
