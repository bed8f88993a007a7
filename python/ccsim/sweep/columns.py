"""Column types of the results store, shared by the workers (which build the tables) and the driver (which stores them).

A run's `flows`, `groups`, `queues`, `links` and `wlans` rows become Arrow tables in the
worker, typed by the engine's schema (`SCHEMA_SQL`), so that the driver only hands them to DuckDB;
`sql_type` types the grid parameters and the summary block, which the schema does not cover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from ccsim.sweep.spec import canonical_json

ARROW = {"BOOLEAN": pa.bool_(), "BIGINT": pa.int64(), "DOUBLE": pa.float64(), "VARCHAR": pa.string()}
SCHEMA_SQL = {"int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN", "text": "VARCHAR"}
"""The column type of each type of the engine's schema (summary.json's `schema`)."""
SQL = {str(t): name for name, t in ARROW.items()}

# How a column widens when its values need a wider type (a grid that gains a float, a resumed sweep
# whose results have a column of another type): integers -> doubles -> text.
_WIDER = {("BIGINT", "DOUBLE"): "DOUBLE", ("DOUBLE", "BIGINT"): "DOUBLE"}


def sql_type(values: Sequence[Any]) -> str:
    """The column type holding every value: BOOLEAN, BIGINT, DOUBLE, else VARCHAR (JSON for non-strings).

    A column of nothing but nulls is DOUBLE (the optional numbers of the results are).
    """
    present = [v for v in values if v is not None]
    if not present:
        return "DOUBLE"
    if all(isinstance(v, bool) for v in present):
        return "BOOLEAN"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "BIGINT" if all(-(2**63) <= v < 2**63 for v in present) else "VARCHAR"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return "DOUBLE"
    return "VARCHAR"


def sql_value(value: object, column_type: str) -> object:
    """A value as stored in a column of `column_type` (text columns hold JSON for anything but strings)."""
    if value is None or column_type != "VARCHAR" or isinstance(value, str):
        return value
    return canonical_json(value)


def widen(old: str, new: str) -> str:
    """The type of a column of type `old` that must also hold values of type `new`."""
    if old == new:
        return old
    return _WIDER.get((old, new), "VARCHAR")


def sql_type_of(arrow_type: pa.DataType) -> str:
    """The column type of an Arrow column built by `arrow_table`."""
    return SQL.get(str(arrow_type), "VARCHAR")


def arrow_table(run_id: str, rows: Sequence[Mapping[str, Any]], declared: Sequence[Mapping[str, Any]]) -> pa.Table:
    """A run's result rows as an Arrow table: `run_id` first, then the `declared` columns (one table of the
    engine's schema) in order, typed by their declared type; no rows, no columns but `run_id`."""
    arrays: dict[str, pa.Array] = {"run_id": pa.array([run_id] * len(rows), type=pa.string())}
    for c in declared if rows else ():
        name, kind = c["name"], SCHEMA_SQL[c["type"]]
        arrays[name] = pa.array([r.get(name) for r in rows], type=ARROW[kind])
    return pa.table(arrays)
