"""The committed full runs of the studies (docs/studies/NAME/) are complete, full-sized and match their pages.

`make studies` writes each study's report, figures, tables and claims into
docs/studies/NAME/; the page docs/studies/NAME.md copies the claims table.
These checks fail when a report is missing, when it comes from a quick run
(fewer than 5 replicates in a cell), or when the page's claims table is not
the one the committed run computed (the page went stale).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ccsim import studies

DOCS = Path(__file__).resolve().parents[2] / "docs" / "studies"
FULL_REPLICATES = 5


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_committed_full_run_is_complete(name: str) -> None:
    folder = DOCS / name
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert f"ccsim study: {name}" in page
    pngs = sorted((folder / "figures").glob("*.png"))
    assert pngs, f"{folder}/figures has no PNG"
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
        assert png.name.removesuffix(".png") in page  # every committed figure is in the report
    csvs = [p for p in folder.glob("*.csv") if not p.name.endswith("_ranking.csv")]
    assert csvs
    for csv in csvs:
        long = pd.read_csv(csv)
        # Every cell (case x grid point) ran the replicates; a metric may be undefined in some runs (patel's
        # first drop of a run without drops: its n counts the runs where it is defined).
        cells = [c for c in long.columns if c not in ("metric", "n", "mean", "std", "ci_low", "ci_high", "half_width")]
        runs = long.groupby(cells, dropna=False)["n"].max() if cells else long["n"]
        assert (runs >= FULL_REPLICATES).all(), f"{csv}: a cell has fewer than {FULL_REPLICATES} replicates"


@pytest.mark.parametrize("name", list(studies.STUDIES))
def test_page_shows_the_committed_claims(name: str) -> None:
    claims = (DOCS / name / "claims.md").read_text(encoding="utf-8").strip().splitlines()
    assert len(claims) > 2, "no claims"
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert "\n".join(claims) in page, f"docs/studies/{name}.md does not show docs/studies/{name}/claims.md"
    assert f"({name}/report.html)" in page
