"""The run's files, written by the extension (crates/ccsim-output), are what Python and pandas wrote.

The CSV files must be byte for byte those of `DataFrame.to_csv(index=False)`
of the `Result` tables, summary.json that of `json.dumps(indent=2)`, and the
Parquet files must read back as the same DataFrames: every column's type is
the one the engine's schema declares (summary.json's `schema`), nothing is
inferred from the values.
"""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ccsim
from ccsim.results import TABLES, Result, columns, schema, table

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ["examples/dumbbell_udp.toml", "examples/slowcc_cbr_restart.toml", "benches/wlan_20_saturated.toml"]


@pytest.fixture(scope="module", params=SCENARIOS, ids=lambda p: Path(p).stem)
def written(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    doc = ccsim.scenario.load(ROOT / request.param).parsed()
    doc["duration"] = "4s"  # short runs: every table, series and histogram still has rows
    doc.pop("warmup", None)
    result = ccsim.run(doc)
    out = tmp_path_factory.mktemp(Path(request.param).stem)
    result.write(out)
    return result, out


@pytest.mark.parametrize("name", TABLES)
def test_csv_is_what_pandas_writes(written: tuple[Result, Path], name: str) -> None:
    result, out = written
    expected = getattr(result, name).to_csv(index=False)
    assert (out / f"{name}.csv").read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("name", TABLES)
def test_parquet_reads_back_as_the_result_table(written: tuple[Result, Path], name: str) -> None:
    result, out = written
    back = pd.read_parquet(out / f"{name}.parquet")
    frame = getattr(result, name)
    assert list(back.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(back, frame, check_dtype=len(frame) > 0)


def test_series_and_delays_read_back(written: tuple[Result, Path]) -> None:
    result, out = written
    back = Result.read(out)
    assert len(result.timeseries) > 0
    pd.testing.assert_frame_equal(back.timeseries, result.timeseries)
    pd.testing.assert_frame_equal(back.delays, result.delays)
    for label in ("entity_kind", "entity", "metric"):
        assert isinstance(result.timeseries[label].dtype, pd.CategoricalDtype)


def test_summary_json_is_pythons_indented_dump(written: tuple[Result, Path]) -> None:
    result, out = written
    text = (out / "summary.json").read_text(encoding="utf-8")
    assert text == json.dumps(result.data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert result.summary_json() == text


def test_the_files_written_are_the_results_files(written: tuple[Result, Path]) -> None:
    result, out = written
    assert sorted(p.name for p in out.iterdir()) == sorted(result.files())


def test_read_back_and_written_again_the_files_are_the_same(written: tuple[Result, Path], tmp_path: Path) -> None:
    """`Result.read` then `write` (the extension's writer fed from Python data) gives the same bytes."""
    _, out = written
    Result.read(out).write(tmp_path)
    for name in sorted(p.name for p in out.iterdir()):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_a_pickled_result_writes_the_same_files(written: tuple[Result, Path], tmp_path: Path) -> None:
    """A Result crosses processes (pickle) with its series: the engine's data is kept in Rust, not pickled."""
    result, out = written
    back = pickle.loads(pickle.dumps(result))
    back.write(tmp_path)
    for name in sorted(p.name for p in out.iterdir()):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name
    pd.testing.assert_frame_equal(back.timeseries, result.timeseries)


def col(name: str, kind: str, nullable: bool = False) -> dict[str, object]:
    """A column of a schema, as the engine declares them."""
    return {"name": name, "unit": "", "type": kind, "nullable": nullable}


def write_rows(rows: list[dict[str, object]], declared: list[dict[str, object]], out: Path) -> Path:
    """A Result whose flows table is `rows` with the columns `declared` (nothing else), written into `out`."""
    Result({"flows": rows, "schema": {**schema(), "flows": declared}}, np.empty(0), []).write(out)
    return out


@pytest.mark.parametrize(
    ("values", "declared", "kind"),
    [
        ([1, 2, 3], col("c", "int"), "int"),
        ([1, None, 3], col("c", "int", nullable=True), "float"),  # a nullable int column is float (NaN), as in pandas
        ([1, 2], col("c", "float"), "float"),  # whole numbers in a float column: still float
        ([1, 2.5], col("c", "float"), "float"),
        ([None, None], col("c", "float", nullable=True), "float"),
        ([True, False], col("c", "bool"), "bool"),
        ([True, None], col("c", "bool", nullable=True), "text"),
        (["a", None], col("c", "text", nullable=True), "text"),
        (["a,b", 'say "hi"', "two\nlines", ""], col("c", "text"), "text"),
    ],
)
def test_column_types_are_the_schemas(
    values: list[object], declared: dict[str, object], kind: str, tmp_path: Path
) -> None:
    """The CSV cells and the Parquet types are the declared ones, as `results.table` makes the DataFrame."""
    rows = [{"c": v} for v in values]
    out = write_rows(rows, [declared], tmp_path)
    frame = table(rows, [declared])
    assert (out / "flows.csv").read_text(encoding="utf-8") == frame.to_csv(index=False)
    back = pq.read_table(out / "flows.parquet")
    if kind == "text":  # Python objects: Parquet holds their text, as the CSV does
        assert back.column("c").to_pylist() == [None if v is None else str(v) for v in values]
        return
    assert str(frame["c"].dtype) == {"int": "int64", "float": "float64", "bool": "bool"}[kind]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "flows.parquet"), frame)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"c": 1, "x": 2}, r"flows\[0\]\.x: not a column of the schema"),
        ({"c": 1.5}, r"flows\[0\]\.c: 1\.5 is not of the column's type"),
        ({"c": None}, r"flows\[0\]\.c: missing \(the column is not nullable\)"),
        ({"c": "1"}, r"flows\[0\]\.c: \"1\" is not of the column's type"),
    ],
)
def test_a_cell_that_breaks_the_schema_is_an_error_naming_it(
    row: dict[str, object], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=message):
        write_rows([row], [col("c", "int")], tmp_path)


def test_floats_are_written_as_python_repr(tmp_path: Path) -> None:
    """Every float in the CSV files and summary.json is Python's repr of it, whatever its magnitude."""
    rng = np.random.default_rng(7)
    floats = [0.1, 1e-4, 1e-5, 1e15, 1e16, -2.5e-300, 5e-324, 1.7976931348623157e308, -0.0, 123456789.125]
    floats += list(rng.standard_normal(300) * 10.0 ** rng.integers(-30, 30, 300))
    rows = [{"x": x, "n": i} for i, x in enumerate(floats)]
    declared = [col("x", "float"), col("n", "int")]
    out = write_rows(rows, declared, tmp_path)
    assert (out / "flows.csv").read_text(encoding="utf-8") == table(rows, declared).to_csv(index=False)
    summary = {"flows": rows, "schema": {**schema(), "flows": declared}}
    assert (out / "summary.json").read_text(encoding="utf-8") == json.dumps(summary, indent=2) + "\n"


def test_results_without_a_schema_are_written_with_the_engines(tmp_path: Path) -> None:
    """Results made by hand (or read from an older run) get the engine's columns, even for a table without rows."""
    Result({}, np.empty(0), []).write(tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["schema"] == schema()
    for name in TABLES:
        assert (tmp_path / f"{name}.csv").read_text(encoding="utf-8") == ",".join(columns(name)) + "\n"


def test_a_sampled_nan_stays_a_number(tmp_path: Path) -> None:
    """In the time series NaN is a sample's value (not a missing one), as pandas wrote it before."""
    series = [("flow", "f.0", "cwnd", np.array([1.0, np.nan, 3.0]))]
    Result({}, np.array([0.1, 0.2, 0.3]), series).write(tmp_path)
    back = pq.read_table(tmp_path / "timeseries.parquet")
    assert back.column("value").null_count == 0
    assert np.isnan(back.column("value").to_numpy()).tolist() == [False, True, False]
    assert back.column("entity").to_pylist() == ["f.0"] * 3


def test_long_series_read_back(tmp_path: Path) -> None:
    """More sample times and distinct values than a dictionary page holds (the plain encoding), over
    more than one row group, with a shorter series and an empty one."""
    n = 140_000
    rng = np.random.default_rng(3)
    time_s = np.arange(1, n + 1) * 1e-3
    series = [
        ("flow", "f.0", "srtt_s", rng.random(n)),
        ("flow", "f.0", "cwnd_pkts", np.repeat(np.arange(7.0), n // 7)),
        ("queue", "a->b", "len_pkts", np.full(n // 2, np.nan)),
        ("queue", "a->b", "drops", np.empty(0)),
        *[("group", f"g{i}", "active_flows", np.full(n, float(i))) for i in range(5)],
    ]
    result = Result({}, time_s, series)
    result.write(tmp_path)
    back = pd.read_parquet(tmp_path / "timeseries.parquet")
    assert pq.read_metadata(tmp_path / "timeseries.parquet").num_row_groups == 2
    assert len(back) == sum(len(s[3]) for s in series)
    present = [(e, m, v) for _, e, m, v in series if len(v)]
    lengths = [len(v) for _, _, v in present]
    np.testing.assert_array_equal(back["time_s"].to_numpy(), np.concatenate([time_s[:k] for k in lengths]))
    np.testing.assert_array_equal(back["value"].to_numpy(), np.concatenate([v for _, _, v in present]))
    for col, i in (("entity", 0), ("metric", 1)):
        labels = back[col].cat
        got = np.asarray(labels.categories, dtype=object)[labels.codes.to_numpy()]
        np.testing.assert_array_equal(got, np.repeat(np.array([p[i] for p in present], dtype=object), lengths))


def test_label_columns_carry_pyarrows_arrow_schema(written: tuple[Result, Path]) -> None:
    """The Arrow schema stored in timeseries.parquet and delays.parquet (which makes the labels categoricals)
    is the one pyarrow writes for the same columns."""
    _, out = written
    label = pa.dictionary(pa.int32(), pa.string())
    schemas = {
        "timeseries.parquet": pa.schema(
            [
                ("time_s", pa.float64()),
                ("entity_kind", label),
                ("entity", label),
                ("metric", label),
                ("value", pa.float64()),
            ]
        ),
        "delays.parquet": pa.schema([("flow", label), ("delay_s", pa.float64()), ("count", pa.int64())]),
    }
    for name, arrow in schemas.items():
        buf = io.BytesIO()
        pq.write_table(arrow.empty_table(), buf)
        pyarrows = pq.read_metadata(io.BytesIO(buf.getvalue())).metadata[b"ARROW:schema"]
        assert pq.read_metadata(out / name).metadata[b"ARROW:schema"] == pyarrows, name
        assert pq.read_schema(out / name) == arrow
