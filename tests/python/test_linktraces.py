"""The shipped link traces (ccsim/traces/, made by ccsim.linktraces) and trace files next to a scenario."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scenarios import compact_dumbbell

import ccsim
from ccsim import linktraces

SCENARIO = (
    'name = "traced"\nduration = "2s"\nseed = 1\n'
    + compact_dumbbell("100Mbps", "10ms", '{{ kind = "droptail", limit = 100 }}')
    + 'trace = "{trace}"\n'
    + '[[flows]]\ngroup = "udp"\ntransport = "udp"\napp = "cbr"\nrate = "30Mbps"\npacket_size = 1500\n'
)


def test_the_committed_traces_are_what_the_script_makes() -> None:
    files = sorted(p.stem for p in linktraces.TRACES_DIR.glob("*.trace"))
    assert files == linktraces.names()
    for name in linktraces.names():
        assert linktraces.path(name).read_text(encoding="ascii") == linktraces.text(name), name


@pytest.mark.parametrize("name", linktraces.names())
def test_the_engine_knows_each_shipped_trace_by_name(name: str, tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(trace=name), encoding="utf-8")
    ccsim.validate(scenario)


def test_a_relative_trace_is_found_next_to_the_scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "study"
    (folder / "traces").mkdir(parents=True)
    # 6 opportunities every 2 ms: 36 Mbit/s, above the 30 Mbit/s offered.
    (folder / "traces" / "fast.txt").write_text("".join(f"{t}\n" for t in [1, 1, 1, 2, 2, 2]), encoding="ascii")
    scenario = folder / "s.toml"
    scenario.write_text(SCENARIO.format(trace="traces/fast.txt"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    result = ccsim.run(scenario)
    link = result.links.set_index("link").loc["r1->r2"]
    assert link["rate_bps"] == 36_000_000
    assert result.flows["goodput_bps"].iloc[0] > 25e6


def test_a_malformed_trace_names_the_file_and_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("1\n2\n\n3\n", encoding="ascii")
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(trace="bad.txt"), encoding="utf-8")
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(scenario)
    message = str(e.value)
    assert message.startswith(f"{scenario}: topology.bottleneck.trace: {tmp_path / 'bad.txt'} line 3: empty line")
    assert os.linesep not in message.strip()
