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


CUSTOM = """
name = "custom"
duration = "2s"
[[nodes]]
name = "s"
[[nodes]]
name = "r"
[[nodes]]
name = "d"
[[links]]
a = "s"
b = "r"
rate = "1Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "d"
rate = "100Mbps"
delay = "1ms"
{mark}
[[flows]]
app = "cbr"
rate = "2Mbps"
src = "s"
dst = "d"
"""


def test_a_custom_topology_declares_its_bottleneck(tmp_path: Path) -> None:
    """`bottleneck = true` on a link makes its a->b direction the bottleneck, busier or not; unmarked, the most
    utilized link is taken; two marks, or a mark that is not a boolean, are errors naming the file and the key."""
    path = tmp_path / "custom.toml"
    path.write_text(CUSTOM.format(mark=""), encoding="utf-8")
    assert ccsim.run(path).summary["bottleneck_link"] == "s->r"
    path.write_text(CUSTOM.format(mark="bottleneck = true"), encoding="utf-8")
    result = ccsim.run(path)
    assert result.summary["bottleneck_link"] == "r->d"
    assert [q["link"] for q in result.components["queues"] if q["bottleneck"]] == ["r->d"]
    link = result.links.set_index("link").loc["r->d"]
    assert result.summary["bottleneck_utilization"] == link.utilization
    twice = CUSTOM.format(mark="bottleneck = true").replace('b = "r"\n', 'b = "r"\nbottleneck = true\n', 1)
    path.write_text(twice, encoding="utf-8")
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(path)
    assert str(e.value) == (
        f"{path}: links[1].bottleneck: only one link can be the bottleneck; links[0] is already marked"
    )
    path.write_text(CUSTOM.format(mark='bottleneck = "yes"'), encoding="utf-8")
    with pytest.raises(ccsim.ScenarioError, match=r"custom\.toml: links\[1\]\.bottleneck: .*boolean"):
        ccsim.run(path)


def test_a_sweep_keeps_each_runs_components(twelve: tuple[Path, Path, Path]) -> None:
    """The runs table keeps every run's `components` (not a metric), which the studies read for their set-ups."""
    _, serial, _ = twelve
    res = ccsim.load(serial)
    assert "components" not in res.metrics
    for run_id in res.runs.run_id[res.runs.status == "ok"]:
        c = res.components(run_id)
        assert {q["link"] for q in c["queues"]} == set(res.links[res.links.run_id == run_id].link)
        groups = c["flow_groups"]
        assert sum(g["flows"] for g in groups) == len(res.flows[res.flows.run_id == run_id])
        assert [(g["count"], g["flows"], g["start"], g["stop"]) for g in groups] == [
            (2, 2, {"uniform": [0.0, units.seconds("0.2s")]}, 2.0)
        ]
    res.runs["components"] = None
    with pytest.raises(ccsim.ScenarioError, match="has no stored components"):
        res.components(res.runs.run_id.iloc[0])


def test_studies_read_their_set_ups_from_the_results(twelve: tuple[Path, Path, Path]) -> None:
    """A study's set-up (a flow group's rate, size, count, start; a path's round-trip delay; the access links) comes
    from each run's results, never from the stored scenario: the same values with `scenario` emptied. No study
    module reads the stored scenario or parses a unit string itself."""
    from ccsim.studies import common  # noqa: PLC0415

    _, serial, _ = twelve
    res = ccsim.load(serial)
    res.runs["scenario"] = "{}"
    for run_id, rate in res.runs[["run_id", "flows[0].rate"]].itertuples(index=False):
        p = common.flow_groups(res, run_id)["p"]
        assert (p["app"], p["rate"], p["packet_size"], p["count"], p["stop"]) == (
            "poisson",
            {"3Mbps": 3e6, "5Mbps": 5e6}[rate],
            1000,
            2,
            2.0,
        )
        # 2 x (1 ms access + 10 ms bottleneck + 1 ms access), in the engine's seconds.
        assert common.path_rtt_s(res, run_id) == 2 * (2 * units.seconds("1ms") + units.seconds("10ms"))
        first, last = common.access_links(res, run_id)
        assert (first.rate_bps, last.rate_bps) == (100e6, 100e6)
        assert (first.link[-4:], last.link[:4]) == ("->r1", "r2->")
    studies = Path(common.__file__).parent
    readers = [
        str(f.relative_to(studies))
        for f in sorted(studies.rglob("*.py"))
        if any(w in f.read_text(encoding="utf-8") for w in (".scenario", '["scenario"]', "from ccsim import units"))
    ]
    assert readers == []
