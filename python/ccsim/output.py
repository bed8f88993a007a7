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

    arrays = []
    for name, values in columns.items():
        kind: ColumnType = column_type(values) if values else ("text" if name in text else "float")
        arrays.append(_KINDS[kind](values))
    return pa.Table.from_arrays(arrays, names=list(columns))


# The arrays are assembled from their buffers (Arrow's columnar layout) rather
# than with `pa.array`, because `pa.array` and `pa.table` import pandas (0.3 s,
# more than a small run takes) to check whether they were given a DataFrame.


def _validity(present: npt.NDArray[np.bool_]) -> pa.Buffer | None:
    """Arrow's validity bitmap (bit i set: value i present), or None when every value is."""
    import pyarrow as pa  # noqa: PLC0415

    return None if present.all() else pa.py_buffer(np.packbits(present, bitorder="little"))


def numbers_array(values: npt.ArrayLike, dtype: type[np.generic]) -> pa.Array:
    """Whole numbers or floats as an Arrow array; NaN (a missing value in pandas) is null."""
    import pyarrow as pa  # noqa: PLC0415

    data = np.ascontiguousarray(values, dtype=dtype)
    types = {np.int64: pa.int64(), np.int32: pa.int32(), np.float64: pa.float64()}
    present = ~np.isnan(data) if dtype is np.float64 else np.ones(len(data), dtype=np.bool_)
    return pa.Array.from_buffers(types[dtype], len(data), [_validity(present), pa.py_buffer(data)])


def _ints(values: Sequence[Any]) -> pa.Array:
    return numbers_array(np.fromiter(values, dtype=np.int64, count=len(values)), np.int64)


def _floats(values: Sequence[Any]) -> pa.Array:
    floats = (math.nan if v is None else float(v) for v in values)
    return numbers_array(np.fromiter(floats, dtype=np.float64, count=len(values)), np.float64)


def _bools(values: Sequence[Any]) -> pa.Array:
    import pyarrow as pa  # noqa: PLC0415

    bits = np.packbits(np.fromiter(values, dtype=np.bool_, count=len(values)), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def strings_array(values: Sequence[object]) -> pa.Array:
    """Text as an Arrow string array: `str(value)` of each, None as null."""
    import pyarrow as pa  # noqa: PLC0415

    encoded = [b"" if v is None else str(v).encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int32, count=len(encoded)), out=offsets[1:])
    present = np.fromiter((v is not None for v in values), dtype=np.bool_, count=len(values))
    buffers = [_validity(present), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(values), buffers)


_KINDS = {"int": _ints, "float": _floats, "bool": _bools, "text": strings_array}


def _dictionary(labels: Sequence[str], lengths: npt.NDArray[np.int64]) -> pa.DictionaryArray:
    """One label per block, repeated over its length, dictionary-encoded (values in first-seen order)."""
    import pyarrow as pa  # noqa: PLC0415

    values = list(dict.fromkeys(labels))
    index = {v: i for i, v in enumerate(values)}
    codes = np.repeat(np.fromiter((index[v] for v in labels), dtype=np.int32, count=len(labels)), lengths)
    return pa.DictionaryArray.from_arrays(numbers_array(codes, np.int32), strings_array(values))


def timeseries_table(time_s: npt.NDArray[np.float64], series: Sequence[tuple[str, str, str, Any]]) -> pa.Table:
    """The sampled series in long format (time_s, entity_kind, entity, metric, value); one step per series."""
    import pyarrow as pa  # noqa: PLC0415

    time_s = np.asarray(time_s, dtype=np.float64)
    values = [np.asarray(s[3], dtype=np.float64) for s in series]
    lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    empty = np.empty(0, dtype=np.float64)
    labels = [_dictionary([s[i] for s in series], lengths) for i in range(len(SERIES_LABELS))]
    times = np.concatenate([time_s[: len(v)] for v in values]) if values else empty
    value = np.concatenate(values) if values else empty
    arrays = [_plain_floats(times), *labels, _plain_floats(value)]
    return pa.Table.from_arrays(arrays, names=["time_s", *SERIES_LABELS, "value"])


def _plain_floats(values: npt.NDArray[np.float64]) -> pa.Array:
    """Floats where NaN is a value, not a missing one (a sampled series can be NaN)."""
    import pyarrow as pa  # noqa: PLC0415

    data = np.ascontiguousarray(values, dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), len(data), [None, pa.py_buffer(data)])


def delays_table(delays: Sequence[tuple[str, Any, Any]]) -> pa.Table:
    """The delay histograms: flow, delay_s (a bucket's upper edge), count; one row per non-empty bucket."""
    import pyarrow as pa  # noqa: PLC0415

    lengths = np.fromiter((len(d[1]) for d in delays), dtype=np.int64, count=len(delays))
    edges = [np.asarray(d[1], dtype=np.float64) for d in delays]
    counts = [np.asarray(d[2]).astype(np.int64) for d in delays]
    arrays = [
        _dictionary([d[0] for d in delays], lengths),
        _plain_floats(np.concatenate(edges) if delays else np.empty(0, dtype=np.float64)),
        numbers_array(np.concatenate(counts) if delays else np.empty(0, dtype=np.int64), np.int64),
    ]
    return pa.Table.from_arrays(arrays, names=["flow", "delay_s", "count"])


def write_parquet(table: pa.Table, path: Path | io.BytesIO) -> None:
    """One Parquet file (pyarrow's defaults: snappy compression)."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    pq.write_table(table, path)
