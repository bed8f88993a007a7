"""A study's tables: per (case, grid point) mean and 95% confidence interval of every metric, and rankings.

Files written into the study's results folder:

- `<table>.csv`: long format, one row per (case, grid point, metric):
  the grouping columns, `metric`, `n`, `mean`, `std`, `ci_low`, `ci_high`,
  `half_width`;
- `<table>_ranking.csv`: for the metrics a paper ranks, the cases compared at
  each grid point (Welch t-tests, Holm-corrected: ccsim.stats.compare);
- `summary.md`: every table as Markdown (`mean ± half-width`), the rankings
  and the paper's claims beside ccsim's findings.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.studies.core import CASE, Study, StudyData, Table

if TYPE_CHECKING:
    from ccsim.studies.claims import Claim

STAT_COLUMNS = ("metric", "n", "mean", "std", "ci_low", "ci_high", "half_width")


@dataclass
class StudyTable:
    """One computed table: its definition, the per-run rows, the statistics and the rankings."""

    table: Table
    rows: pd.DataFrame
    long: pd.DataFrame
    rankings: list[pd.DataFrame]
    comparisons: dict[str, stats.Comparison]
    parameters: list[str]

    def stat(self, metric: str, case: str, **point: object) -> pd.Series:
        """The statistics row (n, mean, ci_low, ci_high, half_width) of one case at one grid point."""
        sel = self.long[(self.long.metric == metric) & (self.long[CASE] == case)]
        for k, v in point.items():
            sel = sel[sel[k] == v]
        if len(sel) != 1:
            raise KeyError(f"{self.table.name}: {metric} of {case} at {point}: {len(sel)} rows")
        return sel.iloc[0]


@dataclass
class StudyTables:
    """A study's tables computed from its results, and the claims evaluated on them."""

    study: Study
    tables: list[StudyTable]
    runs_ok: int
    runs_failed: int
    claims: list[Claim] = field(default_factory=list)

    def get(self, name: str) -> StudyTable:
        """The table called `name`."""
        for t in self.tables:
            if t.table.name == name:
                return t
        raise KeyError(f"{self.study.name}: no table {name!r}")

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write `<table>.csv`, `<table>_ranking.csv`, `claims.md` and `summary.md` into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        files: list[Path] = []
        for t in self.tables:
            path = out / f"{t.table.name}.csv"
            t.long.to_csv(path, index=False)
            files.append(path)
            if t.rankings:
                path = out / f"{t.table.name}_ranking.csv"
                pd.concat(t.rankings, ignore_index=True).to_csv(path, index=False)
                files.append(path)
        if self.claims:
            path = out / "claims.md"
            path.write_text("\n".join(self.claims_markdown()) + "\n")
            files.append(path)
        path = out / "summary.md"
        path.write_text(self.markdown())
        files.append(path)
        return files

    def claims_markdown(self) -> list[str]:
        """The claims table (paper's claim | ccsim | agrees? | significant?) as Markdown lines."""
        out = ["| paper's claim | ccsim finds | agrees? | significant? |", "|---|---|---|---|"]
        for c in self.claims:
            out.append(f"| {c.claim} | {c.finding} | {c.verdict} | {c.significance} |")
        return out

    def markdown(self) -> str:
        """Every table as Markdown: one row per case and grid point, each cell `mean ± half-width`."""
        lines = [f"# {self.study.summary}", ""]
        failed = f", {self.runs_failed} failed (left out)" if self.runs_failed else ""
        lines += [
            f"{self.runs_ok} runs{failed}. Each cell: mean ± half-width of the 95% Student t interval over "
            "the replicates (n per cell in the CSV files).",
            "",
        ]
        if self.study.missing:
            lines += ["Not reproduced: " + "; ".join(self.study.missing) + ".", ""]
        if self.claims:
            lines += ["## The paper's claims", "", *self.claims_markdown(), ""]
        for t in self.tables:
            lines += [f"## {t.table.title}", "", *markdown_table(t.long, t.table), ""]
            for r in t.rankings:
                metric = str(r.metric.iloc[0]) if len(r) else ""
                lines += [
                    f"### Ranking on {t.table.metrics.get(metric, metric)}",
                    "",
                    "rank = 1 + cases significantly better (Welch t-tests, Holm-corrected, alpha 0.05)",
                    "",
                ]
                lines += ranking_markdown(r)
                lines.append("")
        return "\n".join(lines)


def fmt_ci(mean: float, half: float) -> str:
    """`mean ± half` with digits suited to the magnitude; '-' when missing."""
    if not np.isfinite(mean):
        return "-"
    scale = max(abs(mean), abs(half) if np.isfinite(half) else 0.0)
    digits = 0 if scale >= 1000 else 2 if scale >= 10 else 4
    if not np.isfinite(half):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def key_columns(long: pd.DataFrame) -> list[str]:
    """The grouping columns of a long-format statistics table."""
    return [c for c in long.columns if c not in STAT_COLUMNS]


def wide_cells(long: pd.DataFrame, table: Table) -> tuple[list[str], list[str], list[list[str]]]:
    """(key columns, metric labels, rows of cells `mean ± half-width`) of a table, in the table's metric order."""
    keys = key_columns(long)
    cells = long.assign(cell=[fmt_ci(m, h) for m, h in zip(long["mean"], long["half_width"], strict=True)])
    wide = cells.pivot_table(index=keys, columns="metric", values="cell", aggfunc="first", sort=False)
    metrics = [m for m in table.metrics if m in wide.columns]
    rows = []
    for idx, row in wide.iterrows():
        idx_t = idx if isinstance(idx, tuple) else (idx,)
        rows.append([*(str(v) for v in idx_t), *(str(row[m]) for m in metrics)])
    return keys, [table.metrics[m] for m in metrics], rows


def markdown_table(long: pd.DataFrame, table: Table) -> list[str]:
    """A table as Markdown lines."""
    keys, labels, rows = wide_cells(long, table)
    header = [*keys, *labels]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


RANKING_HIDDEN = (
    "metric",
    "order",
    "rank",
    "case",
    "n",
    "mean",
    "std",
    "ci_low",
    "ci_high",
    "better_than",
    "indistinguishable_from",
)


def ranking_rows(r: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a ranking: grid point, rank, case, mean, 95% CI."""
    keys = [c for c in r.columns if c not in RANKING_HIDDEN]
    rows = []
    for _, row in r.iterrows():
        ci = f"[{row.ci_low:.4g}, {row.ci_high:.4g}]" if np.isfinite(row.ci_low) else "-"
        rows.append([*(str(row[k]) for k in keys), str(row["rank"]), str(row.case), f"{row['mean']:.4g}", ci])
    return [*keys, "rank", "case", "mean", "95% CI"], rows


def ranking_markdown(r: pd.DataFrame) -> list[str]:
    """A ranking as Markdown lines."""
    header, rows = ranking_rows(r)
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def varying_parameters(data: StudyData, part: str) -> list[str]:
    """The grid parameters of a part with more than one value (the quick variants' one duration is not one)."""
    res = data[part]
    return [p for p in res.parameters if res.runs[p].nunique(dropna=False) > 1]


def compute(study: Study, data: StudyData, confidence: float = 0.95) -> StudyTables:
    """The study's tables from its results: statistics per case and grid point, rankings, and its claims."""
    out: list[StudyTable] = []
    for table, df in study.build(data):
        params = varying_parameters(data, table.part)
        by = [CASE, *params, *table.extra_by]
        long = stats.describe(df, by=by, metrics=list(table.metrics), confidence=confidence)
        comparisons: dict[str, stats.Comparison] = {}
        with warnings.catch_warnings():
            # scipy warns of precision loss when replicates are (nearly) identical; the means stand anyway.
            warnings.simplefilter("ignore", RuntimeWarning)
            for metric in table.rank:
                comparisons[metric] = stats.compare(
                    df, metric, by=[*params, *table.extra_by], higher=table.higher.get(metric), confidence=confidence
                )
        rankings = [c.ranking.assign(metric=m) for m, c in comparisons.items()]
        out.append(StudyTable(table, df, long, rankings, comparisons, params))
    ok = sum(int((r.runs.status == "ok").sum()) for r in data.parts.values())
    total = sum(len(r.runs) for r in data.parts.values())
    result = StudyTables(study, out, ok, total - ok)
    result.claims = study.claims(data, result)
    return result
