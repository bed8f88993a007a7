"""The engine reports every component's configuration and the scenario is read once (issue 14, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim import scenario as scenario_mod
from ccsim import units
from ccsim.cli import main
from ccsim.plots import labels

SCENARIO = """
name = "components"
duration = "2min"
warmup = "1min"
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
[topology.bottleneck.queue]
kind = "red"
min_th = 5
max_th = 15
[[flows]]
group = "tcp"
transport = "tcp"
app = "bulk"
stop = "1s"
[[flows]]
group = "cubic"
transport = "tcp"
app = "bulk"
cc = "cubic"
sack = true
stop = "1s"
[output]
sample_interval = "10s"
"""


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> ccsim.Result:
    path = tmp_path_factory.mktemp("components") / "s.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    return ccsim.run(path)


def test_a_2min_time_is_the_same_in_python_and_in_the_engine(result: ccsim.Result) -> None:
    # Bit for bit: both are the engine's nanoseconds times 1e-9 (120.00000000000001).
    assert result.duration_s == units.seconds("2min") == pytest.approx(120.0)
    assert result.warmup_s == units.seconds("1min") == pytest.approx(60.0)


def test_queues_resolved_per_link(result: ccsim.Result) -> None:
    queues = {q["link"]: q for q in result.components["queues"]}
    fwd = queues["r1->r2"]
    assert (fwd["key"], fwd["kind"], fwd["compat"]) == ("topology.bottleneck.queue", "red", "ccsim")
    assert fwd["params"] == {"min_th": 5, "max_th": 15}
    assert fwd["limit_pkts"] is not None  # the bottleneck's default limit, filled in
    # The reverse direction and the access links: defaulted, with the key that would configure them.
    assert queues["r2->r1"]["key"] == "topology.bottleneck.reverse_queue"
    assert all(q["kind"] == "droptail" for link, q in queues.items() if link != "r1->r2")
    assert set(queues) == set(result.links["link"])
    assert labels.queue_spec(result.components, "r1->r2") == {"limit": fwd["limit_pkts"], "min_th": 5, "max_th": 15}


def test_flow_groups_with_the_engine_defaults(result: ccsim.Result) -> None:
    groups = {g["group"]: g for g in result.components["flow_groups"]}
    assert groups["tcp"]["cc"] == "newreno"  # not given: the engine's default
    assert (groups["cubic"]["cc"], groups["cubic"]["params"]) == ("cubic", {"sack": True})
    assert [g["flows"] for g in result.components["flow_groups"]] == [1, 1]  # count defaults to 1
    assert labels.group_label("tcp", "tcp", labels.group_specs(result.components)["tcp"]) == "tcp: tcp newreno"


def test_components_reach_summary_json(result: ccsim.Result, tmp_path: Path) -> None:
    result.write(tmp_path)
    on_disk = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert on_disk["components"] == result.components
    assert ccsim.Result.read(tmp_path).components == result.components
    # The resolved configuration: RED's max_p and w_q, not in the scenario, are there with their defaults
    # (docs/algorithms.md), the times in seconds; the TCP group's controller under cc_params.
    red = next(q for q in on_disk["components"]["queues"] if q["link"] == "r1->r2")
    assert "max_p" not in red["params"]
    assert (red["config"]["max_p"], red["config"]["weight"], red["config"]["min_th"]) == (0.1, 0.002, 5.0)
    cubic = next(g for g in on_disk["components"]["flow_groups"] if g["group"] == "cubic")
    assert (cubic["config"]["sack"], cubic["config"]["cc_params"]["beta"]) == (True, 0.7)


def test_ccsim_run_reads_the_scenario_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO.replace('"2min"', '"2s"').replace('"1min"', '"1s"'), encoding="utf-8")
    reads = []
    real = scenario_mod.read_text

    def counting(p: object, what: str = "scenario") -> str:
        reads.append(p)
        return real(p, what)  # type: ignore[arg-type]

    monkeypatch.setattr(scenario_mod, "read_text", counting)
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert len(reads) == 1
    meta = json.loads((tmp_path / "out" / "meta.json").read_text(encoding="utf-8"))
    assert meta["scenario"]["topology"]["bottleneck"]["queue"]["kind"] == "red"


def test_parsed_is_the_engines_reading() -> None:
    text = scenario_mod.ScenarioText(text='name = "x"\nduration = "2min"\n', source="<t>", fmt="toml")
    assert text.parsed() == {"name": "x", "duration": "2min"}
    assert scenario_mod.ScenarioText(text="name = [", source="<t>", fmt="toml").parsed() is None


def test_a_sweep_report_reads_the_metrics_window_from_the_results(twelve: tuple[Path, Path, Path]) -> None:
    """The runs table keeps what the engine resolved (`duration_s`, `warmup_s`: not metrics), and the sweep
    report's figures use it, never the stored scenario."""
    from ccsim import report  # noqa: PLC0415

    _, serial, _ = twelve
    res = ccsim.load(serial)
    ok = res.runs[res.runs.status == "ok"]
    assert (ok.warmup_s == 0.5).all()
    assert (ok.duration_s == 2.0).all()
    assert not {"warmup_s", "duration_s"} & set(res.metrics)
    want = report.sweep_run_metrics(res, ok)
    # The same figures with the stored scenario emptied: it is not read.
    pd.testing.assert_frame_equal(report.sweep_run_metrics(res, ok.assign(scenario="{}")), want)
    # ... and the window is used: counted from 0, the mean throughput differs.
    assert not report.sweep_run_metrics(res, ok.assign(warmup_s=0.0)).equals(want)


def test_studies_take_each_runs_bottleneck_from_its_results(twelve: tuple[Path, Path, Path]) -> None:
    """The studies' bottleneck rows are those of the link each run's results name (`bottleneck_link`)."""
    from ccsim.studies import common  # noqa: PLC0415

    _, serial, _ = twelve
    res = ccsim.load(serial)
    q = common.bottleneck_queue(res)
    assert sorted(q.index) == sorted(res.runs.run_id)
    assert set(q.link) == {"r1->r2"}
    assert common.bottleneck_of(res) == "r1->r2"
    # A run whose results name another link is read there.
    first = res.runs.run_id.iloc[0]
    res.runs.loc[res.runs.run_id == first, "bottleneck_link"] = "r2->d0"
    assert common.bottleneck_queue(res).loc[first, "link"] == "r2->d0"
    assert common.bottleneck_link(res).loc[first, "link"] == "r2->d0"
    assert common.bottleneck_of(res, first) == "r2->d0"
    with pytest.raises(ValueError, match="do not share one bottleneck link"):
        common.bottleneck_of(res)
