"""`ccsim reproduce`: run a study's sweeps, then write its tables, claims and report."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ccsim.studies import report as study_report
from ccsim.studies.core import Study, StudyData
from ccsim.studies.tables import StudyTables, compute

if TYPE_CHECKING:
    from ccsim.sweep.progress import Progress
    from ccsim.sweep.runner import Backend, SweepReport


def default_out(study: Study, quick: bool) -> Path:
    """`results/<name>/`, or `results/<name>-quick/` for the quick variant (its own stores)."""
    return Path("results") / (f"{study.name}-quick" if quick else study.name)


def load(study: Study, out_dir: str | os.PathLike[str]) -> StudyData:
    """A study's results folder: the store of each of its parts (ccsim.sweep.load)."""
    from ccsim._core import ScenarioError  # noqa: PLC0415
    from ccsim.sweep import load as load_sweep  # noqa: PLC0415
    from ccsim.sweep.store import DB_FILE  # noqa: PLC0415

    for p in study.parts:
        if not (study.part_dir(out_dir, p.name) / DB_FILE).is_file():
            raise ScenarioError(
                f"{out_dir}: no stored runs of study {study.name} (part {p.name!r}); "
                f"run `ccsim reproduce {study.name} --out {out_dir}` first"
            )
    return StudyData({p.name: load_sweep(study.part_dir(out_dir, p.name)) for p in study.parts})


@dataclass
class Reproduction:
    """What `reproduce` did: the sweeps' reports, the tables (with the claims), the files written."""

    sweeps: dict[str, SweepReport]
    tables: StudyTables
    files: list[Path]
    report: Path

    @property
    def total(self) -> int:
        """Runs in the study's sweeps."""
        return sum(r.total for r in self.sweeps.values())

    @property
    def failed_total(self) -> int:
        """Runs whose stored status is an error."""
        return sum(r.failed_total for r in self.sweeps.values())


def reproduce(
    study: Study,
    out_dir: str | os.PathLike[str],
    backend: Callable[[], Backend] | None = None,
    *,
    quick: bool = False,
    resume: bool = False,
    overwrite: bool = False,
    max_wall_s: float | None = None,
    progress: Progress | None = None,
    pdf: bool = False,
    command: str = "",
) -> Reproduction:
    """Run every part's sweep into `out_dir/<part>/`, then write the tables, claims.md and report.html.

    `backend` makes a fresh backend for each part (a sweep closes its
    backend when it ends); None runs serially.
    """
    from ccsim import sweep as sw  # noqa: PLC0415

    sweeps: dict[str, SweepReport] = {}
    for part in study.parts:
        spec = sw.load_sweep(study.folder() / (part.quick if quick else part.sweep))
        sweeps[part.name] = sw.run_sweep(
            spec,
            study.part_dir(out_dir, part.name),
            backend() if backend is not None else None,
            resume=resume,
            overwrite=overwrite,
            max_wall_s=max_wall_s,
            progress=progress,
        )
    data = load(study, out_dir)
    result = compute(study, data)
    files = result.write(out_dir)
    page, plots = study_report.write(study, data, result, out_dir, pdf=pdf, command=command)
    files += [page, *(p.path("png") for p in plots)]
    return Reproduction(sweeps, result, files, page)


def report_only(study: Study, out_dir: str | os.PathLike[str], *, pdf: bool = False, command: str = "") -> Reproduction:
    """Recompute the tables, claims and report from the stored runs (nothing is run)."""
    data = load(study, out_dir)
    result = compute(study, data)
    files = result.write(out_dir)
    page, plots = study_report.write(study, data, result, out_dir, pdf=pdf, command=command)
    return Reproduction({}, result, [*files, page, *(p.path("png") for p in plots)], page)
