"""Malformed scenarios: each gives one exact error line on stderr and exit status 2, never a traceback.

The texts are the engine's (Rust) messages, "file: key.path: what was
expected", as the user sees them. A change of wording is a change of the
interface: update the table on purpose.
"""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from scenarios import small_dumbbell

import ccsim
from ccsim.cli import main

BASE = small_dumbbell("bad", 'count = 2\ntransport = "udp"\napp = "cbr"\nrate = "1Mbps"\npacket_size = 1000\n')

GRAPH = """\
name = "g"
duration = "1s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[nodes]]
name = "c"

[[links]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "1ms"

[[flows]]
src = "a"
dst = "c"
app = "cbr"
rate = "100kbps"
"""


def edit(text: str, old: str, new: str) -> str:
    """Replace `old` (which must occur once) by `new`."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


TOP_FIELDS = (
    "`name`, `description`, `duration`, `warmup`, `seed`, `compat`, `tie_order`, `device_queue`, `framing_bytes`, "
    "`topology`, `nodes`, `links`, `wlans`, `flows`, `output`, `limits`"
)

# (id, scenario text, expected message after "error: bad.toml: ")
CASES = [
    (
        "unknown key",
        edit(BASE, "seed = 3", "seed = 3\nbogus = 1"),
        f"bogus: unknown key `bogus`, expected one of {TOP_FIELDS}",
    ),
    (
        "unknown nested key",
        edit(BASE, 'delay = "10ms"', 'delay = "10ms"\nspeed = "1Mbps"'),
        "topology.bottleneck.speed: unknown key `speed`, "
        "expected one of `rate`, `delay`, `queue`, `reverse_queue`, `loss`, `trace`, `reverse_trace`",
    ),
    (
        "wrong rate unit",
        edit(BASE, 'rate = "10Mbps"', 'rate = "10Mbs"'),
        'topology.bottleneck.rate: expected a rate like "10Mbps" (units bps, kbps, Mbps, Gbps), got "10Mbs"',
    ),
    (
        "time without unit",
        edit(BASE, 'delay = "10ms"', 'delay = "10"'),
        'topology.bottleneck.delay: expected a time like "20ms" (units ns, us, ms, s, min), got "10"',
    ),
    (
        "rate as a number",
        edit(BASE, 'rate = "10Mbps"', "rate = 10"),
        'topology.bottleneck.rate: expected a rate like "10Mbps" (a string with a unit), got the number 10',
    ),
    (
        "negative rate",
        edit(BASE, 'rate = "10Mbps"', 'rate = "-10Mbps"'),
        'topology.bottleneck.rate: a rate must be at least 1bps, got "-10Mbps"',
    ),
    (
        "negative flow rate",
        edit(BASE, 'rate = "1Mbps"', 'rate = "-1Mbps"'),
        'flows[0].rate: a rate must be at least 1bps, got "-1Mbps"',
    ),
    (
        "negative delay",
        edit(BASE, 'delay = "10ms"', 'delay = "-1ms"'),
        'topology.bottleneck.delay: a time must not be negative, got "-1ms"',
    ),
    (
        "warmup equal to duration",
        edit(BASE, 'warmup = "0.5s"', 'warmup = "2s"'),
        "warmup: the warmup (2s) must be shorter than the duration (2s)",
    ),
    (
        "zero duration",
        edit(BASE, 'duration = "2s"', 'duration = "0s"'),
        "duration: the duration must be positive",
    ),
    (
        "queue limit of 0",
        edit(BASE, "limit = 20", "limit = 0"),
        "topology.bottleneck.queue.limit: a queue limit must be at least 1 packet, got 0",
    ),
    (
        "byte limit of 0",
        edit(BASE, "limit = 20", 'limit_bytes = "0B"'),
        "topology.bottleneck.queue.limit_bytes: a queue byte limit must be at least 1 byte",
    ),
    (
        "unknown queue kind",
        edit(BASE, 'kind = "droptail"', 'kind = "fancy"'),
        'topology.bottleneck.queue.kind: unknown queue discipline "fancy"; expected one of: '
        "droptail, dropfront, red, gred, nlred, ared, wred, rio, modred, rem, avq, pi, "
        "blue, sfb, sred, fred, choke, sfq, drr, rr, codel, cobalt, cake, fq_codel, pie, dualpi2, "
        "or SCHEME:NAME from an extension (python:module.Class)",
    ),
    (
        "unknown compatibility profile",
        edit(BASE, "seed = 3", 'seed = 3\ncompat = "ns-2"'),
        "compat: unknown variant `ns-2`, expected one of `ccsim`, `ns2`, `ns3`, `linux`, `rfc`",
    ),
    (
        "queue parameter of another discipline",
        edit(BASE, "limit = 20", "limit = 20\nmaxth = 5"),
        "topology.bottleneck.queue.maxth: unknown key `maxth`, "
        'expected one of `fast_path`, `limit_mode`, `mark_threshold`, `mark_threshold_bytes` (queue kind "droptail")',
    ),
    (
        "TOML syntax error",
        edit(BASE, "pairs = 2", "pairs = "),
        "invalid TOML at line 8, column 9: string values must be quoted, expected literal string",
    ),
    (
        "start table with one bound",
        BASE + 'start = { uniform = ["0s"] }\n',
        'flows[0].start.uniform: expected two times [low, high], e.g. ["0s", "1s"]',
    ),
    (
        "start table with another key",
        BASE + 'start = { normal = ["0s", "1s"] }\n',
        'flows[0].start: expected a time like "1s" or a table { uniform = ["0s", "1s"] }',
    ),
    (
        "start bounds reversed",
        BASE + 'start = { uniform = ["1s", "0s"] }\n',
        "flows[0].start.uniform: the upper bound is below the lower bound",
    ),
    (
        "start after the end",
        BASE + 'start = "5s"\n',
        "flows[0].start: the flow starts at 5s, not before the end of the run (2s)",
    ),
    (
        "unknown app",
        edit(BASE, 'app = "cbr"', 'app = "video"'),
        'flows[0].app: unknown app "video"; expected one of: bulk, finite, web, cbr, poisson, onoff',
    ),
    (
        "unknown transport",
        edit(BASE, 'transport = "udp"', 'transport = "sctp"'),
        'flows[0].transport: unknown transport "sctp"; expected one of: udp, tcp, tfrc, rap',
    ),
    (
        "unknown flow key",
        BASE + 'colour = "red"\n',
        'flows[0].colour: unknown key `colour` for a flow group with transport "udp" and app "cbr"; '
        "the transport's own keys are `ecn` (flow and application keys: docs/scenarios.md)",
    ),
    ("zero flows in a group", edit(BASE, "count = 2", "count = 0"), "flows[0].count: expected at least 1 flow, got 0"),
    (
        "zero packet size",
        edit(BASE, "packet_size = 1000", "packet_size = 0"),
        "flows[0].packet_size: expected a positive size in bytes, got 0",
    ),
    ("no flows", BASE.split("[[flows]]", maxsplit=1)[0], "flows: no flows: add at least one [[flows]] group"),
    ("missing duration", edit(BASE, 'duration = "2s"\n', ""), '(top level): missing key "duration"'),
    ("empty file", "", '(top level): missing key "name"'),
    ("zero pairs", edit(BASE, "pairs = 2", "pairs = 0"), "topology.pairs: a dumbbell needs at least 1 pair"),
    (
        "unknown topology",
        edit(BASE, 'kind = "dumbbell"', 'kind = "star"'),
        'topology.kind: unknown topology "star"; expected "dumbbell" (or use [[nodes]] and [[links]])',
    ),
    (
        "loss probability above 1",
        edit(
            BASE,
            "[topology.bottleneck.queue]",
            'loss = { model = "bernoulli", rate = 1.5 }\n[topology.bottleneck.queue]',
        ),
        "topology.bottleneck.loss.rate: expected a probability in [0, 1], got 1.5",
    ),
    (
        "sampling interval of 0",
        BASE + '\n[output]\nsample_interval = "0s"\n',
        "output.sample_interval: the sampling interval must be positive",
    ),
    (
        "sampling interval giving too many samples of one series",
        BASE + '\n[output]\nsample_interval = "100ns"\n',
        "output.sample_interval: 0.0000001s would take 20000000 samples of every series; at most 10000000: "
        "sample less often",
    ),
    (
        "time series holding too many values in all",
        BASE + '\n[output]\nsample_interval = "250ns"\n',
        "output.sample_interval: 8000000 samples (every 0.00000025s) of at least 33 series would keep more than "
        "200000000 values; sample less often, or fewer series (sample_links, sample_flows = false, "
        "sample_groups = false)",
    ),
    ("no route between the flow's nodes", GRAPH, "flows[0]: no route from a to c (flow g0.0)"),
    ("unknown node in a link", edit(GRAPH, 'b = "b"', 'b = "z"'), 'links[0].b: unknown node "z"; nodes are: a, b, c'),
    (
        "unknown node in a flow",
        edit(GRAPH, 'dst = "c"', 'dst = "q"'),
        'flows[0].dst: unknown node "q"; nodes are: a, b, c',
    ),
    ("link to itself", edit(GRAPH, 'b = "b"', 'b = "a"'), "links[0].b: a link must join two different nodes"),
    ("duplicate node", edit(GRAPH, 'name = "c"', 'name = "b"'), 'nodes[2].name: duplicate node name "b"'),
    (
        "graph flow without src",
        edit(GRAPH, 'src = "a"\n', ""),
        'flows[0].src: missing key "src" (required outside a dumbbell)',
    ),
]


@pytest.mark.parametrize(("text", "expected"), [pytest.param(t, e, id=i) for i, t, e in CASES])
def test_malformed_scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.toml").write_text(text)
    for command in ("run", "validate"):
        out, err = io.StringIO(), io.StringIO()
        status = main([command, "bad.toml"], stdout=out, stderr=err)
        assert (status, out.getvalue(), err.getvalue()) == (2, "", f"error: bad.toml: {expected}\n")
    assert not Path("results").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2]", "a scenario must be a table"),
        ("{", "invalid JSON: EOF while parsing an object at line 1 column 1"),
        ('{"name": "x", "duration": "1s", "seed": -1}', "seed: expected a whole number >= 0, got -1"),
    ],
)
def test_malformed_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.json").write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", "bad.json"], stdout=out, stderr=err) == 2
    assert err.getvalue() == f"error: bad.json: {expected}\n"


def test_unreadable_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("binary.toml").write_bytes(b"\xff\xfe\x00")
    Path("dir.toml").mkdir()
    cases = {
        "missing.toml": "missing.toml: cannot read the scenario: No such file or directory",
        "binary.toml": "binary.toml: cannot read the scenario: not UTF-8 text (invalid start byte at byte 0)",
        "dir.toml": "dir.toml: cannot read the scenario: Is a directory",
    }
    for path, expected in cases.items():
        err = io.StringIO()
        assert main(["run", path], stdout=io.StringIO(), stderr=err) == 2
        assert err.getvalue() == f"error: {expected}\n"


def test_the_whole_table_in_one_process(tmp_path: Path) -> None:
    """The installed command on every malformed file: one error line each, status 2, no traceback."""
    paths = []
    for k, (_, text, _) in enumerate(CASES):
        (tmp_path / f"bad{k}.toml").write_text(text)
        paths.append(f"bad{k}.toml")
    exe = Path(sys.executable).with_name("ccsim")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccsim.cli"]
    p = subprocess.run(
        [*cmd, "validate", *paths], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    expected = "".join(f"error: bad{k}.toml: {e}\n" for k, (_, _, e) in enumerate(CASES))
    assert (p.returncode, p.stdout, p.stderr) == (2, "", expected)


@pytest.mark.parametrize("error", [ccsim.ScenarioError, ccsim.SimulationError])
def test_the_errors_cross_process_boundaries(error: type[Exception]) -> None:
    """A worker of the user's own pool (multiprocessing, concurrent.futures) sends its exception back pickled:
    the class must be importable by its module name (`ccsim._core`, not the bare `_core`)."""
    sent = error("scenario.toml: flows[0].cc: unknown controller")
    back = pickle.loads(pickle.dumps(sent))
    assert type(back) is error
    assert str(back) == str(sent)
