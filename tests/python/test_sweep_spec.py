"""Sweep files: key paths, grid expansion, cases, seeds and run ids (no run happens here)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from sweep_helpers import BASE, write_sweep

import ccsim
from ccsim.sweep import from_dict, load_sweep, plan
from ccsim.sweep.spec import RESERVED_COLUMNS, format_path, merge, parse_path, set_path
from ccsim.sweep.store import NOT_METRICS


def sweep_of(body: str, base: str = BASE) -> ccsim.sweep.Sweep:
    """A sweep from TOML text with an inline base."""
    data: dict[str, Any] = tomllib.loads(body)
    data["base"] = tomllib.loads(base)
    return from_dict(data, "s.toml", Path())


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("duration", ("duration",)),
        ("flows[0].count", ("flows", 0, "count")),
        ("flows.0.count", ("flows", 0, "count")),
        ("topology.bottleneck.queue.kind", ("topology", "bottleneck", "queue", "kind")),
        ("links[2].queue_ab.limit", ("links", 2, "queue_ab", "limit")),
        ("flows[1]", ("flows", 1)),
    ],
)
def test_key_paths_parse_both_spellings(path: str, segments: tuple[object, ...]) -> None:
    assert parse_path(path) == segments
    # The canonical spelling is the one the engine's messages use.
    assert parse_path(format_path(segments)) == segments
    assert format_path(parse_path("flows.0.count")) == "flows[0].count"


@pytest.mark.parametrize("path", ["", ".a", "a.", "a..b", "[0].a", "a[x]", "a[0]b", "a[]"])
def test_malformed_key_paths_are_errors(path: str) -> None:
    with pytest.raises(ValueError, match="malformed key path"):
        parse_path(path)


def test_set_path_creates_tables_but_not_list_entries() -> None:
    doc: dict[str, Any] = {"flows": [{"rate": "1Mbps"}], "duration": "2s"}
    set_path(doc, parse_path("topology.bottleneck.loss.rate"), 0.01)
    assert doc["topology"] == {"bottleneck": {"loss": {"rate": 0.01}}}
    set_path(doc, parse_path("flows[0].rate"), "2Mbps")
    assert doc["flows"] == [{"rate": "2Mbps"}]
    with pytest.raises(ValueError, match=r"flows\[3\]: flows has 1 entries \(index 3\)"):
        set_path(doc, parse_path("flows[3].rate"), "1Mbps")
    with pytest.raises(ValueError, match=r'duration.x: duration is the value "2s", not a table'):
        set_path(doc, parse_path("duration.x"), 1)
    with pytest.raises(ValueError, match=r"topology\[0\]: topology is a table, not a list"):
        set_path(doc, parse_path("topology[0]"), 1)
    with pytest.raises(ValueError, match=r"nodes: no such list in the scenario"):
        set_path(doc, parse_path("nodes[0].name"), "a")


def test_case_overrides_merge_tables_and_replace_values() -> None:
    doc: dict[str, Any] = {"topology": {"bottleneck": {"rate": "10Mbps", "queue": {"kind": "droptail", "limit": 20}}}}
    doc["flows"] = [{"app": "bulk"}, {"app": "cbr"}]
    merge(doc, {"topology": {"bottleneck": {"queue": {"kind": "red", "min_th": 3}}}, "flows[1].rate": "1Mbps"})
    # Tables merge key by key: the base's limit stays, kind is replaced, min_th is added.
    assert doc["topology"]["bottleneck"] == {"rate": "10Mbps", "queue": {"kind": "red", "limit": 20, "min_th": 3}}
    assert doc["flows"] == [{"app": "bulk"}, {"app": "cbr", "rate": "1Mbps"}]
    # A list (or any value) replaces what was there.
    merge(doc, {"flows": [{"app": "poisson"}]})
    assert doc["flows"] == [{"app": "poisson"}]


def test_grid_expansion_counts_and_order() -> None:
    s = sweep_of(
        """
        replicates = 4
        [grid]
        "flows[0].rate" = ["1Mbps", "2Mbps", "3Mbps"]
        topology.bottleneck.queue.limit = [10, 20]
        [[cases]]
        label = "a"
        [[cases]]
        label = "b"
        "flows[0].count" = 1
        """
    )
    # Bare dotted keys in [grid] (nested tables in TOML) are key paths too.
    assert s.grid_columns == ["flows[0].rate", "topology.bottleneck.queue.limit"]
    assert len(s) == 2 * 3 * 2 * 4
    runs = s.runs()
    assert len(runs) == 48
    assert len({r.run_id for r in runs}) == 48
    assert len({r.seed for r in runs}) == 48
    # Replicate-major: all 12 points of replicate 0 first; within it, cases outermost, grid row-major.
    assert [r.replicate for r in runs[:12]] == [0] * 12
    first = [(r.point.case, *r.point.params.values()) for r in runs[:3]]
    assert first == [("a", "1Mbps", 10), ("a", "1Mbps", 20), ("a", "2Mbps", 10)]
    r = runs[12 + 6]
    assert r.replicate == 1
    assert r.point.case == "b"
    assert r.scenario["flows"][0]["count"] == 1
    assert r.scenario["seed"] == r.seed
    assert r.source == "s.toml [case=b, flows[0].rate=1Mbps, topology.bottleneck.queue.limit=10, replicate=1]"


def test_no_grid_no_cases_is_one_point() -> None:
    s = sweep_of("replicates = 3")
    runs = s.runs()
    assert len(runs) == 3
    assert {r.point.case for r in runs} == {"base"}
    assert runs[0].source == "s.toml [base, replicate=0]"


def test_seeds_stay_when_the_grid_grows() -> None:
    small = sweep_of(
        """
        replicates = 2
        [grid]
        "flows[0].rate" = ["1Mbps", "2Mbps"]
        [[cases]]
        label = "a"
        """
    )
    grown = sweep_of(
        """
        replicates = 5
        [grid]
        "flows[0].rate" = ["0.5Mbps", "1Mbps", "2Mbps", "4Mbps"]
        [[cases]]
        label = "z"
        [[cases]]
        label = "a"
        """
    )
    old = {(r.point.case, r.point.params["flows[0].rate"], r.replicate): (r.seed, r.run_id) for r in small.runs()}
    new = {(r.point.case, r.point.params["flows[0].rate"], r.replicate): (r.seed, r.run_id) for r in grown.runs()}
    # More grid values, more replicates and another case: every old run keeps its seed and identity.
    assert len(old) == 4
    assert len(new) == 40
    assert {k: new[k] for k in old} == old


def test_seeds_do_not_depend_on_the_order_of_the_grid_keys() -> None:
    a = sweep_of('[grid]\n"flows[0].rate" = ["1Mbps"]\n"topology.bottleneck.rate" = ["5Mbps", "10Mbps"]')
    b = sweep_of('[grid]\n"topology.bottleneck.rate" = ["5Mbps", "10Mbps"]\n"flows[0].rate" = ["1Mbps"]')
    assert sorted(r.seed for r in a.runs()) == sorted(r.seed for r in b.runs())


def test_the_sweep_seed_changes_every_seed() -> None:
    a = sweep_of("seed = 1\nreplicates = 3")
    b = sweep_of("seed = 2\nreplicates = 3")
    assert not {r.seed for r in a.runs()} & {r.seed for r in b.runs()}
    # Seeds fit TOML's integers (so one can be pasted into a scenario file).
    assert all(0 <= r.seed < 2**63 for r in a.runs())


def test_base_path_is_relative_to_the_sweep_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_sweep(tmp_path / "study", 'base = "base.toml"\nreplicates = 2\n')
    monkeypatch.chdir(tmp_path)
    s = load_sweep(Path("study") / "sweep.toml")
    assert s.name == "sweep"
    assert s.base["name"] == "tiny"
    assert s.base_source == str(Path("study") / "base.toml")
    # Without a sweep seed, the base's seed is the sweep's.
    assert s.seed == 3
    assert len(plan(s)) == 2
    assert path.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[grid]\nduration = '2s'", r"s.toml: grid.duration: expected a list of values, got the value \"2s\""),
        ("[grid]\nduration = []", r"s.toml: grid.duration: expected a list of values, got an empty list"),
        ("[grid]\nduration = ['1s', '1s']", r'grid.duration: the value "1s" is listed twice'),
        ("[grid]\nseed = [1, 2]", r"grid.seed: not a grid parameter: the run's seed is derived"),
        ('[grid]\n"flows[0]..rate" = [1]', r"grid.flows\[0\]..rate: malformed key path"),
        (
            '[grid]\n"topology.bottleneck" = [{rate = "1Mbps"}]\n"topology.bottleneck.rate" = ["2Mbps"]',
            r"grid.topology.bottleneck.rate: overlaps grid.topology.bottleneck",
        ),
        ("[grid]\nstatus = [1]", r"grid.status: the name of a column of the runs table"),
        ("replicates = 0", r"s.toml: replicates: expected an integer in 1..1000000, got 0"),
        ("replicat = 2", r"s.toml: replicat: unknown key; a sweep has name, description, base"),
        ("[[cases]]\nduration = '1s'", r"s.toml: cases\[0\].label: expected a non-empty string"),
        ("[[cases]]\nlabel = 'a'\n[[cases]]\nlabel = 'a'", r"cases\[1\].label: the label 'a' is used twice"),
        ("[[cases]]\nlabel = 'a'\nseed = 4", r"cases\[0\].seed: not set by a case"),
        ("timeseries = 1", r"s.toml: timeseries: expected true or false"),
    ],
)
def test_sweep_file_errors_name_the_key(body: str, message: str) -> None:
    with pytest.raises(ccsim.ScenarioError, match=message):
        sweep_of(body)


def test_missing_base_and_unreadable_base(tmp_path: Path) -> None:
    with pytest.raises(ccsim.ScenarioError, match=r'missing key "base"'):
        from_dict({"replicates": 2}, "s.toml", tmp_path)
    path = tmp_path / "s.toml"
    path.write_text('base = "nowhere.toml"\n')
    with pytest.raises(ccsim.ScenarioError, match=r"s\.toml: base: .*nowhere\.toml: cannot read the base scenario"):
        load_sweep(path)


def test_key_paths_that_do_not_fit_the_base_name_the_grid_point() -> None:
    s = sweep_of('[grid]\n"flows[2].rate" = ["1Mbps"]')
    with pytest.raises(ccsim.ScenarioError) as e:
        plan(s)
    assert "s.toml [flows[2].rate=1Mbps]: grid: flows[2]: flows has 1 entries (index 2)" in str(e.value)


def test_every_invalid_point_is_reported_with_the_engines_message() -> None:
    s = sweep_of(
        """
        [grid]
        "flows[0].rate" = ["1Mbps", "2Mbs", "3Mbps"]
        [[cases]]
        label = "ok"
        [[cases]]
        label = "typo"
        topology.bottleneck.queue.limitt = 5
        """
    )
    with pytest.raises(ccsim.ScenarioError) as e:
        plan(s)
    text = str(e.value)
    assert text.startswith("s.toml: 4 of 6 grid points are invalid; nothing was run:\n")
    # The engine's key path and expectation, prefixed by the grid point.
    assert "s.toml [case=ok, flows[0].rate=2Mbs]: flows[0].rate: expected a rate" in text
    assert "s.toml [case=typo, flows[0].rate=1Mbps]: topology.bottleneck.queue" in text
    assert "limitt" in text
    assert "[case=ok, flows[0].rate=1Mbps]" not in text


def test_an_error_shared_by_grid_points_is_one_line() -> None:
    # A typo in a case is wrong at every grid point: one line, at the first point, with how many more.
    s = sweep_of(
        """
        [grid]
        "flows[0].rate" = ["1Mbps", "2Mbps", "3Mbps"]
        [[cases]]
        label = "typo"
        topology.bottleneck.queue.limitt = 5
        """
    )
    with pytest.raises(ccsim.ScenarioError) as e:
        plan(s)
    lines = str(e.value).splitlines()
    assert lines[0] == "s.toml: 3 of 3 grid points are invalid; nothing was run:"
    assert len(lines) == 2
    assert lines[1].startswith("  s.toml [case=typo, flows[0].rate=1Mbps]: topology.bottleneck.queue.limitt: ")
    assert lines[1].endswith(" (and 2 more grid points)")


def test_every_fixed_column_of_runs_is_reserved() -> None:
    # A grid parameter may not take the name of a column the store writes itself.
    assert NOT_METRICS <= RESERVED_COLUMNS
