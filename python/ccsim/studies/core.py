"""What a built-in study is: its folder, its sweeps (parts), its tables, figures and claims."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ccsim.sweep.store import SweepResults

if TYPE_CHECKING:
    from ccsim.plots.run import Plot
    from ccsim.studies.claims import Claim
    from ccsim.studies.tables import StudyTables

CASE = "case_label"
MAIN = "main"
ENV_DIR = "CCSIM_STUDIES"
"""Environment variable naming the folder of the studies (default: the package's own `studies/data/`)."""


def studies_dir() -> Path:
    """Where the study folders are: $CCSIM_STUDIES, else the package's `ccsim/studies/data/`.

    The sweep and scenario files ship inside the package (an installed wheel
    has them); `studies/` at the repository's root is a link to the same folder.
    """
    env = os.environ.get(ENV_DIR)
    return Path(env) if env else Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class Part:
    """One sweep of a study (a paper often runs several experiments on different set-ups).

    `sweep` and `quick` are file names in the study's folder; the part's
    results go to `<out>/<name>/` (its own DuckDB store).
    """

    name: str = MAIN
    sweep: str = "sweep.toml"
    quick: str = "quick.toml"
    title: str = ""


@dataclass(frozen=True)
class Table:
    """One table of a study: per-run metrics (one row per run, or per flow), summarized per group."""

    name: str
    title: str
    metrics: dict[str, str]
    """column -> label with its unit (the order of the Markdown table)."""
    rank: Sequence[str] = ()
    """metrics whose cases are compared at each grid point (a paper's ranking)."""
    extra_by: Sequence[str] = ()
    """grouping columns besides the case and the grid parameters (e.g. the application)."""
    part: str = MAIN
    """the part (sweep) the rows come from: its varying grid parameters are the table's columns."""
    higher: dict[str, bool] = field(default_factory=dict)
    """metric -> whether higher is better, for metrics whose name does not say (ccsim.stats.higher_is_better)."""


@dataclass
class StudyData:
    """A study's results: one SweepResults per part."""

    parts: dict[str, SweepResults]

    def __getitem__(self, part: str) -> SweepResults:
        return self.parts[part]

    @property
    def main(self) -> SweepResults:
        """The first part's results."""
        return next(iter(self.parts.values()))


TablesFn = Callable[[StudyData], list[tuple[Table, pd.DataFrame]]]
FiguresFn = Callable[[StudyData, "StudyTables", Path, bool], "list[Plot]"]
"""(results, the computed tables and claims, the figures' folder, whether to write PDF too) -> the figures."""
ClaimsFn = Callable[[StudyData, "StudyTables"], "list[Claim]"]


def _no_figures(data: StudyData, tables: StudyTables, out: Path, pdf: bool) -> list[Plot]:
    return []


def _no_claims(data: StudyData, tables: StudyTables) -> list[Claim]:
    return []


@dataclass(frozen=True)
class Study:
    """A built-in study: its folder, the paper it reproduces and how its tables, figures and claims are made."""

    name: str
    summary: str
    paper: str
    """the seed's file name (../shared/seeds/) or reference."""
    build: TablesFn
    figures: FiguresFn = _no_figures
    claims: ClaimsFn = _no_claims
    parts: Sequence[Part] = (Part(),)
    missing: Sequence[str] = field(default_factory=tuple)
    """Parts of the paper the study does not reproduce, said in every summary and report."""

    def folder(self) -> Path:
        """The study's folder (`studies/<name>/`)."""
        return studies_dir() / self.name

    def part(self, name: str = MAIN) -> Part:
        """The part called `name`."""
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(f"{self.name}: no part {name!r}")

    def sweep_file(self, quick: bool = False, part: str | None = None) -> Path:
        """A part's full sweep file, or its quick variant (the first part by default)."""
        p = self.parts[0] if part is None else self.part(part)
        return self.folder() / (p.quick if quick else p.sweep)

    def part_dir(self, out_dir: str | os.PathLike[str], part: str) -> Path:
        """Where a part's results store is inside the study's results folder."""
        return Path(out_dir) / part
