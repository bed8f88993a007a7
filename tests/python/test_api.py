"""The Python API: ccsim.run / ccsim.validate and the Result object."""

from __future__ import annotations

import json
import pickle
import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from contract import (
    FLOW_KEYS,
    LINK_KEYS,
    PERF_KEYS,
    QUEUE_KEYS,
    RESULT_FILES,
    SUMMARY_KEYS,
    TIMESERIES_COLUMNS,
    TOP_KEYS,
)

import ccsim
from ccsim.results import WLAN_COLUMNS


def test_version_is_the_engines() -> None:
    assert ccsim.__version__ == ccsim._core.version()
    assert ccsim.__version__.count(".") == 2


def test_run_returns_tables_with_the_required_columns(small_scenario: Path) -> None:
    r = ccsim.run(small_scenario)
    assert set(TOP_KEYS) <= set(r.data)
    assert isinstance(r.flows, pd.DataFrame)
    assert set(FLOW_KEYS) <= set(r.flows.columns)
    assert set(QUEUE_KEYS) <= set(r.queues.columns)
    assert set(LINK_KEYS) <= set(r.links.columns)
    assert set(SUMMARY_KEYS) <= set(r.summary)
    assert set(PERF_KEYS) <= set(r.perf)
    # 2 flows; a 2-pair dumbbell has 2 bottleneck directions + 8 access directions.
    assert len(r.flows) == 2
    assert len(r.queues) == len(r.links) == 10
    assert list(r.flows["name"]) == ["p.0", "p.1"]


def test_wlans_table_is_the_json_with_the_queue_flattened(wlan_scenario: Path, tmp_path: Path) -> None:
    r = ccsim.run(wlan_scenario)
    # The AP first, then the stations in the order listed.
    assert list(r.wlans["interface"]) == ["wlan0:ap", "wlan0:s1", "wlan0:s2"]
    assert tuple(r.wlans.columns) == WLAN_COLUMNS
    for row, iface in zip(r.wlans.to_dict("records"), r.data["wlans"], strict=True):
        queue = iface.pop("queue")
        assert row == {**iface, **{f"queue_{k}": v for k, v in queue.items()}}
    assert r.wlans["tx_attempts"].dtype == np.int64
    assert r.wlans["collision_rate"].dtype == np.float64
    out = r.write(tmp_path / "out")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "wlans.parquet"), r.wlans)
    pd.testing.assert_frame_equal(pd.read_csv(out / "wlans.csv"), r.wlans)


def test_wlans_table_without_wlans_has_the_columns_and_no_rows(small_scenario: Path, tmp_path: Path) -> None:
    r = ccsim.run(small_scenario)
    assert r.data["wlans"] == []
    assert r.wlans.empty
    assert tuple(r.wlans.columns) == WLAN_COLUMNS
    out = r.write(tmp_path / "out")
    assert tuple(pd.read_csv(out / "wlans.csv").columns) == WLAN_COLUMNS
    assert tuple(pd.read_parquet(out / "wlans.parquet").columns) == WLAN_COLUMNS


def test_tables_have_one_type_per_column(small_scenario: Path) -> None:
    r = ccsim.run(small_scenario)
    flows = r.flows
    assert flows["sent_packets"].dtype == np.int64
    assert flows["goodput_bps"].dtype == np.float64
    # Optional numbers (null in JSON: UDP has no congestion window) are float columns of NaN, not objects.
    assert flows["cwnd_mean_pkts"].dtype == np.float64
    assert flows["cwnd_mean_pkts"].isna().all()
    assert r.queues["avg_len_pkts"].dtype == np.float64


def test_tables_match_the_json(small_scenario: Path) -> None:
    r = ccsim.run(small_scenario)
    for name in ("flows", "queues", "links"):
        df: pd.DataFrame = getattr(r, name)
        assert list(df.columns) == list(r.data[name][0])
        assert (
            df.to_dict("records")[0]["name" if name == "flows" else "link"]
            == r.data[name][0]["name" if name == "flows" else "link"]
        )


def test_timeseries_is_long_format(small_scenario: Path) -> None:
    r = ccsim.run(small_scenario)
    ts = r.timeseries
    assert tuple(ts.columns) == TIMESERIES_COLUMNS
    assert ts["time_s"].dtype == np.float64
    assert ts["value"].dtype == np.float64
    assert set(ts["entity_kind"].unique()) == {"queue", "flow", "group"}
    q = ts[(ts["entity"] == "r1->r2") & (ts["metric"] == "len_pkts")]
    # Default sample interval 100 ms over a 2 s run.
    assert len(q) == 20
    assert np.all(np.diff(q["time_s"].to_numpy()) > 0)
    # The bottleneck is overloaded (12 Mbps into 10 Mbps): its queue cannot exceed the limit of 20.
    assert q["value"].max() <= 20
    s = r.series("r1->r2", "len_pkts")
    np.testing.assert_array_equal(s.to_numpy(), q["value"].to_numpy())
    with pytest.raises(KeyError):
        r.series("r1->r2", "no_such_metric")


def test_a_dict_runs_like_its_file(small_scenario: Path) -> None:
    from_file = ccsim.run(small_scenario)
    from_dict = ccsim.run(tomllib.loads(small_scenario.read_text()))
    a, b = from_file.data, from_dict.data
    a.pop("perf")
    b.pop("perf")
    assert a == b


def test_seed_overrides_the_scenario(small_scenario: Path) -> None:
    base = ccsim.run(small_scenario)
    same = ccsim.run(small_scenario, seed=3)
    other = ccsim.run(small_scenario, seed=4)
    assert base.seed == same.seed == 3
    assert other.seed == 4
    assert base.data["flows"] == same.data["flows"]
    assert base.data["flows"] != other.data["flows"]


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "3"])
def test_a_bad_seed_is_a_scenario_error(small_scenario: Path, seed: object) -> None:
    with pytest.raises(ccsim.ScenarioError, match=r"^seed: expected an integer in 0\.\.2\^64-1"):
        ccsim.run(small_scenario, seed=seed)  # type: ignore[arg-type]


def test_the_largest_seed_is_accepted(small_scenario: Path) -> None:
    assert ccsim.run(small_scenario, seed=2**64 - 1).seed == 2**64 - 1


def test_validate(small_scenario: Path, write_scenario: object) -> None:
    ccsim.validate(small_scenario)
    ccsim.validate(tomllib.loads(small_scenario.read_text()))
    with pytest.raises(ccsim.ScenarioError, match=r'^<dict>: \(top level\): missing key "name"$'):
        ccsim.validate({"duration": "1s"})


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(ccsim.ScenarioError, ValueError)
    assert issubclass(ccsim.SimulationError, RuntimeError)


def test_a_dict_that_is_not_json_is_a_scenario_error() -> None:
    with pytest.raises(ccsim.ScenarioError, match=r"^<dict>: the scenario cannot be written as JSON"):
        ccsim.run({"name": "x", "duration": object()})


def test_a_json_file(small_scenario: Path, tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_text(json.dumps(tomllib.loads(small_scenario.read_text())))
    assert ccsim.run(path).data["flows"] == ccsim.run(small_scenario).data["flows"]


def test_guard_raises_simulation_error(small_scenario: Path) -> None:
    # The engine checks its guards every 65536 events, so the run must be longer than that:
    # 60 s of this scenario is about 400k events.
    text = (
        small_scenario.read_text().replace('duration = "2s"', 'duration = "60s"') + "\n[limits]\nmax_events = 100000\n"
    )
    small_scenario.write_text(text)
    # The message names the scenario like every other error.
    where = re.escape(str(small_scenario))
    with pytest.raises(
        ccsim.SimulationError,
        match=rf"^{where}: run stopped: more than 100000 events \(limits\.max_events, or --max-events\)",
    ):
        ccsim.run(small_scenario)
    with pytest.raises(ccsim.SimulationError, match=rf"^{where}: run stopped: more than 70000 events"):
        ccsim.run(small_scenario, max_events=70000)


def test_write_creates_every_file(small_scenario: Path, tmp_path: Path) -> None:
    r = ccsim.run(small_scenario)
    out = r.write(tmp_path / "deep" / "out")
    assert sorted(p.name for p in out.iterdir()) == sorted(RESULT_FILES)
    assert sorted(r.files()) == sorted(RESULT_FILES)
    assert json.loads((out / "summary.json").read_text()) == r.data
    flows = pd.read_parquet(out / "flows.parquet")
    pd.testing.assert_frame_equal(flows, r.flows, check_dtype=False)
    assert list(pd.read_csv(out / "queues.csv").columns) == list(r.queues.columns)
    ts = pd.read_parquet(out / "timeseries.parquet")
    assert tuple(ts.columns) == TIMESERIES_COLUMNS
    assert len(ts) == len(r.timeseries)
    np.testing.assert_array_equal(ts["value"].to_numpy(), r.timeseries["value"].to_numpy())


def test_writing_a_run_needs_no_parse_of_its_summary(
    small_scenario: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `ccsim run --quiet` writes the files and meta.json (name, seed) from the
    # engine's results; the summary's Python objects are made only when asked for.
    loads = json.loads

    def loads_but_no_summary(text: str, **kwargs: object) -> object:
        if '"schema"' in text and '"perf"' in text:  # the summary's keys (a scenario's JSON has neither)
            raise AssertionError("the summary was parsed")
        return loads(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "loads", loads_but_no_summary)
    r = ccsim.run(small_scenario)
    r.write(tmp_path / "out")
    name, seed = r.name, r.seed
    monkeypatch.undo()
    assert (name, seed) == (r.data["name"], r.data["seed"])
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["name"] == name


def test_a_result_built_from_parts_knows_its_name_and_seed(small_scenario: Path) -> None:
    r = pickle.loads(pickle.dumps(ccsim.run(small_scenario, seed=7)))
    run_data = r._run_data()  # built from the parts, as for a Result read back
    assert (run_data.name, run_data.seed) == (r.data["name"], 7)
