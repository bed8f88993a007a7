"""Writing a run's files (the tables as CSV and Parquet, the time series and delays as Parquet) without pandas.

`ccsim run` writes these for every run, so their cost is part of what a user
waits for (docs/performance.md). pandas alone takes longer to import than a
small run takes to simulate; here the rows of the summary JSON go straight to
Python's csv module and to Arrow arrays. The files are what
`Result.flows.to_csv(...)` and `to_parquet(...)` wrote before, byte for byte
for the CSV files (tests/python/test_output.py), and the same DataFrames when
pandas reads the Parquet files back: the column types follow pandas' own
inference, kept in one place (`column_type`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pyarrow as pa

ColumnType = Literal["int", "float", "bool", "text"]

# The label columns of the long time series and of the delays (categoricals in pandas).
SERIES_LABELS = ("entity_kind", "entity", "metric")


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def column_type(values: Sequence[object]) -> ColumnType:
    """The type pandas gives a column of these JSON values (as `ccsim.results.table` builds it).

    Whole numbers stay integers unless a value is missing or a float (then
    the column is float, missing values NaN); true/false stay booleans unless
    a value is missing; a column of nothing but missing values is float;
    anything else is text (Python objects written as `str(value)`).
    """
    present = [v for v in values if v is not None]
    if all(_is_number(v) for v in present):
        if len(present) == len(values) and all(isinstance(v, int) for v in present):
            return "int"
        return "float"
    if len(present) == len(values) and all(isinstance(v, bool) for v in present):
        return "bool"
    return "text"


def _csv_cell(value: object, kind: ColumnType) -> str:
    """One CSV cell as pandas' `to_csv` writes it (missing and NaN as the empty string)."""
    if value is None:
        return ""
    if kind == "float":
        f = float(value)  # type: ignore[arg-type]
        return "" if math.isnan(f) else repr(f)
    return str(value)


def columns_of(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> dict[str, list[Any]]:
    """The rows as columns, in the first row's key order (a key a row lacks is missing there)."""
    names = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    return {c: [r.get(c) for r in rows] for c in names}


def csv_text(columns: Mapping[str, Sequence[Any]]) -> str:
    """The columns as CSV text: a header, then one line per row (pandas' quoting and line ends)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(list(columns))
    kinds = [column_type(v) for v in columns.values()]
    cells = [[_csv_cell(v, k) for v in values] for values, k in zip(columns.values(), kinds, strict=True)]
    writer.writerows(zip(*cells, strict=True))
    return buf.getvalue()


def arrow_columns(columns: Mapping[str, Sequence[Any]], text: frozenset[str] = frozenset()) -> pa.Table:
    """The columns as an Arrow table with the types pandas would give them.

    A column with no rows is text if its name is in `text`, else float (the
    empty wlans table of a run without WLANs).
    """
    import pyarrow as pa  # noqa: PLC0415 (only commands that write files need it)

    types: dict[ColumnType, pa.DataType] = {
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "text": pa.string(),
    }
    arrays = {}
    for name, values in columns.items():
        kind: ColumnType = column_type(values) if values else ("text" if name in text else "float")
        data = [None if v is None else str(v) for v in values] if kind == "text" else list(values)
        if kind == "float":
            data = [None if v is None or math.isnan(float(v)) else float(v) for v in data]
        arrays[name] = pa.array(data, type=types[kind])
    return pa.table(arrays)


def _dictionary(labels: Sequence[str], lengths: npt.NDArray[np.int64]) -> pa.DictionaryArray:
    """One label per block, repeated over its length, dictionary-encoded (values in first-seen order)."""
    import pyarrow as pa  # noqa: PLC0415

    values = list(dict.fromkeys(labels))
    index = {v: i for i, v in enumerate(values)}
    codes = np.repeat(np.fromiter((index[v] for v in labels), dtype=np.int32, count=len(labels)), lengths)
    return pa.DictionaryArray.from_arrays(pa.array(codes, type=pa.int32()), pa.array(values, type=pa.string()))


def timeseries_table(time_s: npt.NDArray[np.float64], series: Sequence[tuple[str, str, str, Any]]) -> pa.Table:
    """The sampled series in long format (time_s, entity_kind, entity, metric, value); one step per series."""
    import pyarrow as pa  # noqa: PLC0415

    time_s = np.asarray(time_s, dtype=np.float64)
    values = [np.asarray(s[3], dtype=np.float64) for s in series]
    lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    empty = np.empty(0, dtype=np.float64)
    labels = {name: _dictionary([s[i] for s in series], lengths) for i, name in enumerate(SERIES_LABELS)}
    return pa.table(
        {
            "time_s": np.concatenate([time_s[: len(v)] for v in values]) if values else empty,
            **labels,
            "value": np.concatenate(values) if values else empty,
        }
    )


def delays_table(delays: Sequence[tuple[str, Any, Any]]) -> pa.Table:
    """The delay histograms: flow, delay_s (a bucket's upper edge), count; one row per non-empty bucket."""
    import pyarrow as pa  # noqa: PLC0415

    lengths = np.fromiter((len(d[1]) for d in delays), dtype=np.int64, count=len(delays))
    return pa.table(
        {
            "flow": _dictionary([d[0] for d in delays], lengths),
            "delay_s": np.concatenate([np.asarray(d[1], dtype=np.float64) for d in delays])
            if delays
            else np.empty(0, dtype=np.float64),
            "count": np.concatenate([np.asarray(d[2]) for d in delays]).astype(np.int64)
            if delays
            else np.empty(0, dtype=np.int64),
        }
    )


def write_parquet(table: pa.Table, path: Path | io.BytesIO) -> None:
    """One Parquet file (pyarrow's defaults: snappy compression)."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    pq.write_table(table, path)
