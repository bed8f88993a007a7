"""The results store of a sweep: `results.duckdb` and `timeseries/*.parquet` in the output folder.

Only the driver process writes the database. Each finished run is committed
in one transaction (its `runs` row with its `flows`, `groups`, `queues`,
`links` and `wlans` rows), so a sweep killed at any instant leaves every finished run complete
and no run half-written; a time-series file is written (to a temporary name,
then renamed) before its run is committed, so a committed run's file exists.
`runs.run_id` is the primary key: a run is stored at most once.

docs/sweeps.md documents the tables and their columns.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from ccsim._core import ScenarioError
from ccsim.results import TABLES
from ccsim.sweep.columns import sql_type, sql_type_of, sql_value, widen
from ccsim.sweep.spec import RESERVED_COLUMNS, Run, Sweep

if TYPE_CHECKING:
    import duckdb

    from ccsim.sweep.runner import Outcome

DB_FILE = "results.duckdb"
TIMESERIES_DIR = "timeseries"

# The fixed columns of `runs`, before the grid parameters; the summary block's keys
# (goodput_bps, ...) are added after them from the first finished run.
RUN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "VARCHAR PRIMARY KEY"),
    ("sweep", "VARCHAR NOT NULL"),
    ("case_label", "VARCHAR NOT NULL"),
    ("replicate", "INTEGER NOT NULL"),
    ("seed", "BIGINT NOT NULL"),
)
RUN_TAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("status", "VARCHAR NOT NULL"),
    ("error", "VARCHAR"),
    ("wall_s", "DOUBLE"),
    ("cpu_s", "DOUBLE"),
    ("engine_wall_s", "DOUBLE"),
    ("events", "BIGINT"),
    ("version", "VARCHAR"),
    ("worker", "VARCHAR"),
    ("finished_at", "TIMESTAMP"),
    ("timeseries", "VARCHAR"),
    ("scenario", "VARCHAR"),
)
RUN_INFO_COLUMNS: tuple[tuple[str, str], ...] = (
    ("duration_s", "DOUBLE"),
    ("warmup_s", "DOUBLE"),
    ("components", "VARCHAR"),
)
"""What the engine resolved of a run's set-up (its results' `duration_s`, `warmup_s`, and `components` as JSON):
added after the summary columns by the first finished run, so that readers (the report's metrics window, the
studies' set-ups) never parse the scenario."""
NOT_METRICS = frozenset(name for name, _ in RUN_COLUMNS + RUN_TAIL_COLUMNS + RUN_INFO_COLUMNS)
"""Columns of `runs` that are not results of the simulation (wall times are wall-clock)."""
STATUS_OK = "ok"
STATUS_ERROR = "error"


def quote(name: str) -> str:
    """An SQL identifier, quoted: grid columns are key paths like "flows[0].count"."""
    return '"' + name.replace('"', '""') + '"'


@dataclass
class _Table:
    """What the driver knows of a table's columns (name -> type), to add or widen columns as rows come."""

    name: str
    columns: dict[str, str] = field(default_factory=dict)


class Store:
    """The output folder's database, opened for writing by the driver."""

    def __init__(self, out_dir: Path, con: duckdb.DuckDBPyConnection, sweep: Sweep) -> None:
        self.out_dir = out_dir
        self.con = con
        self.sweep = sweep
        self.tables = {name: _Table(name, self._columns(name)) for name in ("runs", *TABLES)}
        self.status: dict[str, str] = dict(
            self.con.execute("SELECT run_id, status FROM runs").fetchall() if self.tables["runs"].columns else []
        )

    # ---- opening ----

    @classmethod
    def open(cls, out_dir: str | os.PathLike[str], sweep: Sweep, *, resume: bool, overwrite: bool) -> Store:
        """Open (or create) the store of `sweep` in `out_dir`.

        An existing store is an error unless `resume` (carry on: its runs are
        kept) or `overwrite` (start afresh: it is deleted, with its time series).
        """
        import duckdb  # noqa: PLC0415 (half a second to import: only when a store is opened)

        out = Path(out_dir)
        db = out / DB_FILE
        if db.exists() and not resume:
            if not overwrite:
                raise ScenarioError(f"{db} exists: add --resume to run what is missing, or --overwrite to start afresh")
            for stale in (db, out / f"{DB_FILE}.wal"):
                stale.unlink(missing_ok=True)
            ts = out / TIMESERIES_DIR
            if ts.is_dir():
                for f in ts.glob("*.parquet"):
                    f.unlink()
        out.mkdir(parents=True, exist_ok=True)
        (out / TIMESERIES_DIR).mkdir(exist_ok=True)
        try:
            con = duckdb.connect(os.fspath(db))
        except duckdb.IOException as e:
            raise ScenarioError(f"{db}: cannot open the results store: {e}") from e
        store = cls(out, con, sweep)
        store._prepare()
        return store

    def _columns(self, table: str) -> dict[str, str]:
        rows = self.con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = ? ORDER BY ordinal_position",
            [table],
        ).fetchall()
        return {name: str(kind) for name, kind in rows}

    def _prepare(self) -> None:
        """Create the tables, or check that a resumed store is the same sweep, and fit the grid columns."""
        sweep = self.sweep
        self.con.execute("CREATE TABLE IF NOT EXISTS sweep_info (key VARCHAR PRIMARY KEY, value VARCHAR)")
        info = dict(self.con.execute("SELECT key, value FROM sweep_info").fetchall())
        grid = sweep.grid_columns
        if info:
            stored = json.loads(info.get("grid", "[]"))
            if sorted(stored) != sorted(grid):
                raise ScenarioError(
                    f"{self.out_dir / DB_FILE}: the stored sweep's grid parameters ({', '.join(stored) or 'none'}) "
                    f"differ from this sweep's ({', '.join(grid) or 'none'}); use another --out folder"
                )
        self.con.begin()
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        for key, value in (
            ("name", sweep.name),
            ("source", sweep.source),
            ("text", sweep.text),
            ("grid", json.dumps(grid)),
            ("cases", json.dumps(sweep.case_labels)),
            ("replicates", str(sweep.replicates)),
            ("updated_at", now),
        ):
            self.con.execute("INSERT OR REPLACE INTO sweep_info VALUES (?, ?)", [key, value])
        if "created_at" not in info:
            self.con.execute("INSERT OR REPLACE INTO sweep_info VALUES ('created_at', ?)", [now])
        runs = self.tables["runs"]
        types = {p.path: sql_type(p.values) for p in sweep.parameters}
        if not runs.columns:
            cols = [*RUN_COLUMNS, *((p, types[p]) for p in grid), *RUN_TAIL_COLUMNS]
            self.con.execute(f"CREATE TABLE runs ({', '.join(f'{quote(n)} {t}' for n, t in cols)})")
            runs.columns = {n: t.split()[0] for n, t in cols}
        else:
            for p in grid:
                self._fit_column(runs, p, types[p])
        self.con.commit()

    def _fit_column(self, table: _Table, name: str, kind: str) -> None:
        """Make sure `table` has a column `name` that holds values of type `kind` (adding or widening it)."""
        old = table.columns.get(name)
        if old is None:
            self.con.execute(f"ALTER TABLE {table.name} ADD COLUMN {quote(name)} {kind}")
            table.columns[name] = kind
        elif (wider := widen(old, kind)) != old:
            self.con.execute(f"ALTER TABLE {table.name} ALTER COLUMN {quote(name)} TYPE {wider}")
            table.columns[name] = wider

    # ---- queries ----

    def finished(self, *, retry_failed: bool = False) -> set[str]:
        """Run ids already stored (only the successful ones with `retry_failed`)."""
        if retry_failed:
            return {rid for rid, status in self.status.items() if status == STATUS_OK}
        return set(self.status)

    # ---- writing ----

    def commit(self, done: Sequence[tuple[Run, Outcome]]) -> None:
        """Store finished runs (their rows, tables and time series) in one transaction.

        The driver hands over every run that finished while it stored the
        previous ones: one transaction for all of them costs about what one
        costs, so a driver that falls behind catches up.
        """
        rows = [self._row(run, outcome) for run, outcome in done]
        self.con.begin()
        try:
            stale = [run.run_id for run, _ in done if run.run_id in self.status]
            for name in ("runs", *TABLES) if stale else ():
                if self.tables[name].columns:
                    marks = ", ".join("?" for _ in stale)
                    self.con.execute(f"DELETE FROM {name} WHERE run_id IN ({marks})", stale)
            for name in TABLES:
                parts = [o.tables[name] for _, o in done if o.tables is not None and o.tables[name].num_rows]
                if len({p.schema for p in parts}) == 1:
                    self._insert_table(name, pa.concat_tables(parts))
                else:
                    for part in parts:
                        self._insert_table(name, part)
            for row in rows:
                names = list(row)
                self.con.execute(
                    f"INSERT INTO runs ({', '.join(quote(n) for n in names)}) VALUES ({', '.join('?' for _ in names)})",
                    [row[n] for n in names],
                )
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise
        for run, outcome in done:
            self.status[run.run_id] = outcome.status

    def _row(self, run: Run, outcome: Outcome) -> dict[str, Any]:
        """The run's `runs` row (adding summary columns as needed); writes its time-series file first."""
        ts_rel: str | None = None
        if outcome.timeseries is not None:
            ts_rel = f"{TIMESERIES_DIR}/{run.run_id}.parquet"
            final = self.out_dir / ts_rel
            tmp = final.with_name(f".{final.name}.tmp")
            tmp.write_bytes(outcome.timeseries)
            os.replace(tmp, final)
        row: dict[str, Any] = {
            "run_id": run.run_id,
            "sweep": self.sweep.name,
            "case_label": run.point.case,
            "replicate": run.replicate,
            "seed": run.seed,
            "status": outcome.status,
            "error": outcome.error,
            "wall_s": outcome.wall_s,
            "cpu_s": outcome.cpu_s,
            "version": outcome.version,
            "worker": outcome.worker,
            "finished_at": dt.datetime.now(dt.UTC).replace(tzinfo=None),
            "timeseries": ts_rel,
            "scenario": run.scenario_json(),
        }
        runs = self.tables["runs"]
        for path, value in run.point.values:
            row[path] = sql_value(value, runs.columns[path])
        if outcome.perf is not None:
            row["events"] = outcome.perf["events"]
            row["engine_wall_s"] = outcome.perf["wall_s"]
        kinds = dict(RUN_INFO_COLUMNS)
        for key, value in (outcome.window or {}).items():
            self._fit_column(runs, key, kinds[key])
            row[key] = value
        if outcome.components is not None:
            self._fit_column(runs, "components", kinds["components"])
            row["components"] = json.dumps(outcome.components)
        for key, value in (outcome.summary or {}).items():
            # A summary key never shadows a fixed or grid column (none does today).
            col = f"summary_{key}" if key in NOT_METRICS or key in self.sweep.grid_columns else key
            if value is not None or col not in runs.columns:
                self._fit_column(runs, col, sql_type([value]))
            row[col] = sql_value(value, runs.columns[col])
        return row

    def _insert_table(self, name: str, arrow: pa.Table) -> None:
        """Insert a run's rows; columns are created, added or widened as the rows need."""
        table = self.tables[name]
        schema = [(f.name, sql_type_of(f.type)) for f in arrow.schema]
        if not table.columns:
            self.con.execute(f"CREATE TABLE {name} ({', '.join(f'{quote(c)} {t}' for c, t in schema)})")
            table.columns = dict(schema)
        if list(table.columns.items()) == schema:
            # The usual case: the same columns as the runs before (by position, which is cheaper).
            self.con.from_arrow(arrow).insert_into(name)
            return
        for c, kind in schema:
            if c not in table.columns or arrow.column(c).null_count < arrow.num_rows:
                self._fit_column(table, c, kind)
        self.con.register("_ccsim_rows", arrow)
        try:
            self.con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM _ccsim_rows")
        finally:
            self.con.unregister("_ccsim_rows")

    def close(self) -> None:
        """Checkpoint and close the database."""
        try:
            self.con.execute("CHECKPOINT")
        finally:
            self.con.close()


# ---- reading ----


@dataclass
class SweepResults:
    """A sweep's results as pandas DataFrames (`ccsim.load`).

    `runs` has one row per run (its case, grid parameters, seed, status,
    error, the summary metrics, ...); `flows`, `groups`, `queues`, `links`, `wlans`
    the per-run tables keyed by `run_id` (`wlans` has rows only for runs with WLANs).
    `parameters` names the grid columns of `runs`.
    """

    out_dir: Path
    name: str
    parameters: list[str]
    cases: list[str]
    runs: pd.DataFrame
    flows: pd.DataFrame
    queues: pd.DataFrame
    links: pd.DataFrame
    groups: pd.DataFrame
    wlans: pd.DataFrame

    @property
    def metrics(self) -> list[str]:
        """The numeric result columns of `runs` (the summary block: goodput_bps, jain_index, ...)."""
        return [
            c
            for c in self.runs.columns
            if c not in NOT_METRICS
            and c not in self.parameters
            and pd.api.types.is_numeric_dtype(self.runs[c])
            and not pd.api.types.is_bool_dtype(self.runs[c])
        ]

    def components(self, run_id: str) -> dict[str, Any]:
        """One run's components as the engine configured them (its summary.json's `components`: every queue,
        flow group and loss model with its resolved configuration; docs/results.md)."""
        row = self.runs.loc[self.runs["run_id"] == run_id]
        if row.empty:
            raise KeyError(f"no run {run_id!r}")
        text = row["components"].iloc[0] if "components" in row else None
        if not isinstance(text, str):
            raise ScenarioError(
                f"{self.out_dir / DB_FILE}: run {run_id!r} has no stored components (it failed, or the store was "
                "written by an older ccsim): run the sweep again with --overwrite"
            )
        return dict(json.loads(text))

    def timeseries(self, run_id: str) -> pd.DataFrame:
        """One run's time series (long format, as `Result.timeseries`)."""
        row = self.runs.loc[self.runs["run_id"] == run_id]
        if row.empty:
            raise KeyError(f"no run {run_id!r}")
        rel = row["timeseries"].iloc[0]
        if not isinstance(rel, str):
            raise KeyError(f"run {run_id!r} has no time series (it failed, or the sweep has timeseries = false)")
        return pd.read_parquet(self.out_dir / rel)


def database_path(path: str | os.PathLike[str]) -> Path:
    """The database of a sweep's output folder (or the database file itself)."""
    p = Path(path)
    return p if p.is_file() else p / DB_FILE


def load(path: str | os.PathLike[str]) -> SweepResults:
    """Read a sweep's results (its output folder, or its results.duckdb) into DataFrames.

    Open it after the sweep has finished: DuckDB lets one process write a
    database file and then no other may open it, even to read.
    """
    import duckdb  # noqa: PLC0415 (as in Store.open)

    db = database_path(path)
    if not db.exists():
        raise ScenarioError(f"{db}: no results store (run `ccsim sweep` with --out {Path(path)})")
    try:
        con = duckdb.connect(os.fspath(db), read_only=True)
    except duckdb.Error as e:
        raise ScenarioError(f"{db}: cannot open the results store (is a sweep still writing it?): {e}") from e
    try:
        info = dict(con.execute("SELECT key, value FROM sweep_info").fetchall())
        params: list[str] = json.loads(info.get("grid", "[]"))
        order = ", ".join(["r.case_label", *(f"r.{quote(p)}" for p in params), "r.replicate", "r.run_id"])
        runs = con.execute(f"SELECT * FROM runs r ORDER BY {order}").df()
        tables: dict[str, pd.DataFrame] = {}
        present = {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        for name in TABLES:
            if name in present:
                tables[name] = con.execute(
                    f"SELECT t.* FROM {name} t JOIN runs r USING (run_id) ORDER BY {order}, t.rowid"
                ).df()
            else:
                tables[name] = pd.DataFrame({"run_id": pd.Series([], dtype="str")})
    finally:
        con.close()
    return SweepResults(
        out_dir=db.parent,
        name=info.get("name", ""),
        parameters=params,
        cases=json.loads(info.get("cases", "[]")),
        runs=runs,
        flows=tables["flows"],
        queues=tables["queues"],
        links=tables["links"],
        groups=tables["groups"],
        wlans=tables["wlans"],
    )


__all__ = ["DB_FILE", "RESERVED_COLUMNS", "Store", "SweepResults", "load"]
