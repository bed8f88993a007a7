"""The run's files written without pandas (ccsim.output) are what pandas itself writes.

The CSV files must be byte for byte those of `DataFrame.to_csv(index=False)`
of the `Result` tables, and the Parquet files must read back as the same
DataFrames: every column type follows pandas' inference (`column_type`).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccsim
from ccsim import output
from ccsim.results import TABLES, Result, table

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
    for label in output.SERIES_LABELS:
        assert isinstance(result.timeseries[label].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([1, 2, 3], "int"),
        ([1, None, 3], "float"),  # a missing number makes the column float (NaN), as pandas does
        ([1, 2.5], "float"),
        ([None, None], "float"),
        ([True, False], "bool"),
        ([True, None], "text"),
        ([1, True], "text"),
        (["a", None], "text"),
    ],
)
def test_column_type_follows_pandas(values: list[object], kind: str) -> None:
    """The type and the CSV cells agree with `results.table`, the pandas path of the Result tables."""
    assert output.column_type(values) == kind
    rows = [{"c": v} for v in values]
    assert output.csv_text(output.columns_of(rows)) == table(rows).to_csv(index=False)
    arrow = output.arrow_columns(output.columns_of(rows))
    if kind == "text":  # mixed Python objects: Parquet holds their text, as the CSV does
        assert arrow.column("c").to_pylist() == [None if v is None else str(v) for v in values]
        return
    buf = io.BytesIO()
    output.write_parquet(arrow, buf)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(buf.getvalue())), table(rows))


def test_a_sampled_nan_stays_a_number() -> None:
    """In the time series NaN is a sample's value (not a missing one), as pandas wrote it before."""
    series = [("flow", "f.0", "cwnd", np.array([1.0, np.nan, 3.0]))]
    back = output.timeseries_table(np.array([0.1, 0.2, 0.3]), series)
    assert back.column("value").null_count == 0
    assert np.isnan(back.column("value").to_numpy()).tolist() == [False, True, False]
    assert back.column("entity").to_pylist() == ["f.0"] * 3
