"""Algorithms written in Python (docs/extending.md): same results as the built-in twins, counting, errors, sweeps."""

from __future__ import annotations

import shutil
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sweep_helpers import cli, comparable, timeseries_bytes

import ccsim
from ccsim.sweep import DaskCluster, LocalPool, load_sweep, run_sweep

EXAMPLES = Path(ccsim.__file__).resolve().parent / "examples"

# Helpers written in Python: a drop-front FIFO (queued drops through QueueDisc.drop), a step
# marker (QueueDisc.mark) with a probe, and faulty classes for the error messages.
HELPERS = """
from collections import deque

import ccsim

MARKED = []


class DropFront(ccsim.QueueDisc):
    def __init__(self):
        self.q = deque()

    def enqueue(self, now, pkt):
        while not self.fits(pkt.size):
            if not self.q:
                return "overflow"
            self.drop(self.q.popleft(), "overflow")
        self.q.append(pkt)
        return True

    def dequeue(self, now):
        return self.q.popleft() if self.q else None


class StepMark(DropFront):
    probes = ("len", "marked")

    def __init__(self, k=5):
        super().__init__()
        self.k, self.marked = k, 0

    def enqueue(self, now, pkt):
        if self.len_pkts >= self.k and self.mark(pkt):
            self.marked += 1
        return super().enqueue(now, pkt)

    def probe(self):
        return (float(self.len_pkts), float(self.marked))


class Ticks(DropFront):
    # A timer every 100 ms that counts its firings and drops the head packet when more than 5 wait.

    probes = ("ticks",)

    def __init__(self):
        super().__init__()
        self.ticks = 0

    def initial_timer(self):
        return 100_000_000

    def on_timer(self, now):
        self.ticks += 1
        if self.len_pkts > 5:
            self.drop(self.q.popleft(), "early")
        return 100_000_000

    def probe(self):
        return (float(self.ticks),)


class BadTimer(DropFront):
    def initial_timer(self):
        return 0


class Raises(DropFront):
    def enqueue(self, now, pkt):
        if now > 1_000_000_000:
            return {}["missing"]
        return super().enqueue(now, pkt)


class CtrlC(DropFront):
    def enqueue(self, now, pkt):
        if now > 500_000_000:
            raise KeyboardInterrupt
        return super().enqueue(now, pkt)


class BadVerdict(DropFront):
    def enqueue(self, now, pkt):
        return 3


class SendsTwice(DropFront):
    def dequeue(self, now):
        return self.q[0] if self.q else None


class DropsStranger(DropFront):
    def enqueue(self, now, pkt):
        self.drop(pkt)
        return True


class NotAQueue:
    pass


class NoDequeue(ccsim.QueueDisc):
    def enqueue(self, now, pkt):
        return False


class NanWindow(ccsim.CongestionControl):
    def on_ack(self, now, ack):
        self.cwnd = float("nan")

    def on_congestion_event(self, ev):
        pass

    def on_rto(self, ev):
        pass


class NoRto(NanWindow):
    on_rto = None


class LossRaises(NanWindow):
    def on_ack(self, now, ack):
        self.cwnd += 1.0 / self.cwnd

    def on_congestion_event(self, ev):
        raise RuntimeError("no loss handling yet")
"""

SCENARIO = """\
name = "ext"
duration = "4s"
warmup = "1s"
seed = 5

[topology]
kind = "dumbbell"
pairs = 4
access = {{ rate = "100Mbps", delay = "1ms" }}

[topology.bottleneck]
rate = "5Mbps"
delay = "10ms"
queue = {{ kind = "{queue}", limit = 20 {queue_params}}}

[[flows]]
group = "tcp"
count = 4
transport = "tcp"
app = "bulk"
cc = "{cc}"
{flow_params}
"""


def scenario(
    folder: Path, queue: str = "droptail", cc: str = "newreno", queue_params: str = "", flow_params: str = ""
) -> Path:
    """Write helpers.py and a scenario using them into `folder`; return the scenario's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "helpers.py").write_text(HELPERS)
    path = folder / "s.toml"
    qp = f", {queue_params} " if queue_params else " "
    path.write_text(SCENARIO.format(queue=queue, cc=cc, queue_params=qp, flow_params=flow_params))
    return path


def example(name: str) -> dict[str, Any]:
    with (EXAMPLES / f"{name}.toml").open("rb") as f:
        return tomllib.load(f)


def same_results(a: ccsim.Result, b: ccsim.Result) -> None:
    """Every table equal but for the algorithm's name, and every time series both runs have, sample by sample."""
    pd.testing.assert_frame_equal(a.flows, b.flows, check_exact=True)
    pd.testing.assert_frame_equal(a.queues.drop(columns=["kind"]), b.queues.drop(columns=["kind"]), check_exact=True)
    pd.testing.assert_frame_equal(a.links, b.links, check_exact=True)
    pd.testing.assert_frame_equal(a.groups, b.groups, check_exact=True)
    ta, tb = a.timeseries, b.timeseries
    shared = set(ta["metric"]) & set(tb["metric"])
    assert {"cwnd_pkts", "len_pkts"} <= shared

    def common(t: pd.DataFrame) -> pd.DataFrame:
        t = t[t["metric"].isin(shared)].reset_index(drop=True)
        return t.astype(dict.fromkeys(("entity_kind", "entity", "metric"), str))

    pd.testing.assert_frame_equal(common(ta), common(tb), check_exact=True)


def test_python_red_gives_the_builtin_reds_results() -> None:
    python = ccsim.run(EXAMPLES / "python_red.toml")
    s = example("python_red")
    s["topology"]["bottleneck"]["queue"]["kind"] = "red"
    builtin = ccsim.run(s)
    q = python.queues.iloc[0]
    assert q["kind"] == "python:python_red.Red"
    assert builtin.queues.iloc[0]["kind"] == "red"
    # Early and forced drops both happen, so the test covers the random test and the forced region.
    assert q["early_drops"] > 100
    assert q["forced_drops"] > 10
    assert q["drops"] == builtin.queues.iloc[0]["drops"]
    same_results(python, builtin)


def test_python_red_writes_the_builtin_reds_packet_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trace hooks (enqueue, dequeue, drop, receive) see the same events, byte for byte."""
    monkeypatch.syspath_prepend(str(EXAMPLES))  # a scenario given as a dict has no folder
    traces = []
    for kind in ("python:python_red.Red", "red"):
        s = example("python_red")
        s["duration"], s["warmup"] = "6s", "1s"
        s["topology"]["bottleneck"]["queue"]["kind"] = kind
        s["output"] = {"trace": "ns2", "trace_links": ["r1->r2"]}
        out = tmp_path / kind.replace(":", "_")
        ccsim.run(s, trace_dir=out)
        traces.append((out / "trace.tr").read_bytes())
    assert traces[0].count(b"\nd ") > 50  # drops are in it
    assert traces[0] == traces[1]


def test_python_reno_gives_the_builtin_renos_results() -> None:
    python = ccsim.run(EXAMPLES / "python_reno.toml")
    s = example("python_reno")
    s["flows"][0]["cc"] = "reno"
    del s["flows"][0]["recovery"]
    builtin = ccsim.run(s)
    assert python.flows["fast_retransmits"].sum() > 50
    same_results(python, builtin)


def test_a_python_drop_front_counts_as_the_builtin_dropfront(tmp_path: Path) -> None:
    python = ccsim.run(scenario(tmp_path, "python:helpers.DropFront"))
    builtin = ccsim.run(scenario(tmp_path / "b", "dropfront"))
    q = python.queues.iloc[0]
    assert q["drops_in_queue"] > 0
    assert q["drops_on_arrival"] == 0
    same_results(python, builtin)


def test_a_python_fifo_as_a_wlan_interface_queue(wlan_scenario: Path) -> None:
    """An 802.11 interface queue (the MAC decides when a packet leaves) takes a Python discipline too."""
    text = wlan_scenario.read_text()
    assert 'standard = "802.11b"' in text
    (wlan_scenario.parent / "helpers.py").write_text(HELPERS)
    results = []
    for kind in ("python:helpers.DropFront", "dropfront"):
        path = wlan_scenario.parent / f"{kind.replace(':', '_')}.toml"
        path.write_text(text.replace('standard = "802.11b"', f'standard = "802.11b"\nqueue = {{ kind = "{kind}" }}'))
        results.append(ccsim.run(path))
    pd.testing.assert_frame_equal(results[0].flows, results[1].flows, check_exact=True)
    pd.testing.assert_frame_equal(
        results[0].wlans.drop(columns=["queue_kind"], errors="ignore"),
        results[1].wlans.drop(columns=["queue_kind"], errors="ignore"),
        check_exact=True,
    )
    assert results[0].flows["goodput_bps"].sum() > 0
    assert set(results[0].wlans["queue_kind"]) == {"python:helpers.DropFront"}
    assert results[0].wlans["queue_arrivals"].sum() > 100


def test_marks_and_probes_reach_the_tables_and_series(tmp_path: Path) -> None:
    r = ccsim.run(scenario(tmp_path, "python:helpers.StepMark", queue_params="k = 5", flow_params="ecn = true"))
    q = r.queues.iloc[0]
    assert q["marks"] > 0
    # Conservation: what arrived was queued or dropped; what was queued left, was dropped or waits.
    assert q["arrivals"] == q["enqueued"] + q["drops_on_arrival"]
    assert q["enqueued"] + q["backlog_start_pkts"] == q["dequeued"] + q["drops_in_queue"] + q["backlog_end_pkts"]
    marked = r.series("r1->r2", "marked", "queue")
    assert marked.iloc[-1] > 0
    assert marked.is_monotonic_increasing
    assert r.series("r1->r2", "len", "queue").max() <= 20


def test_timers_fire_on_time_and_may_drop(tmp_path: Path) -> None:
    r = ccsim.run(scenario(tmp_path, "python:helpers.Ticks"))
    ticks = r.series("r1->r2", "ticks", "queue")
    # Timers come before samples at the same instant: at t the timer fired round(t / 100 ms) times.
    assert len(ticks) > 30
    assert all(v == round(t / 0.1) for t, v in ticks.items())
    q = r.queues.iloc[0]
    assert q["early_drops"] > 0  # the timer's drops (the push-outs are "overflow")
    assert q["early_drops"] <= q["drops_in_queue"]
    assert q["enqueued"] + q["backlog_start_pkts"] == q["dequeued"] + q["drops_in_queue"] + q["backlog_end_pkts"]


def test_a_class_runs_outside_the_engine_with_defaults() -> None:
    import importlib  # noqa: PLC0415
    import sys  # noqa: PLC0415

    sys.path.insert(0, str(EXAMPLES))
    try:
        red = importlib.import_module("python_red").Red()
    finally:
        sys.path.remove(str(EXAMPLES))
    assert (red.len_pkts, red.limit, red.link_rate_bps) == (0, 100, 10_000_000)
    draws = [red.random() for _ in range(3)]
    assert all(0.0 <= d < 1.0 for d in draws)
    assert len(set(draws)) == 3
    assert red.tx_time(1250) == 1_000_000  # 10,000 bits at 10 Mbit/s
    assert red.dequeue(0) is None


ERRORS = [
    ({"queue": "python:helpers.Nope"}, "topology.bottleneck.queue.kind: \"python:helpers.Nope\": module 'helpers' ("),
    (
        {"queue": "python:nosuchmodule.X"},
        "topology.bottleneck.queue.kind: \"python:nosuchmodule.X\": no module named 'nosuchmodule' (searched ",
    ),
    ({"queue": "python:helpers"}, 'expected "python:module.Class" naming a subclass of ccsim.QueueDisc'),
    ({"queue": "python:helpers.NotAQueue"}, "helpers.NotAQueue is not a subclass of ccsim.QueueDisc"),
    ({"queue": "python:helpers.NoDequeue"}, '"python:helpers.NoDequeue" defines no method dequeue()'),
    (
        {"queue": "python:helpers.DropFront", "queue_params": "size = 3"},
        "topology.bottleneck.queue: helpers.DropFront(...) raised TypeError: "
        "DropFront.__init__() got an unexpected keyword argument 'size'",
    ),
    ({"queue": "nosuch:helpers.X"}, 'no extension provides the scheme "nosuch:"'),
    (
        {"queue": "python:helpers.BadTimer"},
        "helpers.BadTimer.initial_timer() returned 0; expected a delay in integer nanoseconds > 0, or None",
    ),
    ({"cc": "python:helpers.NoRto"}, 'flows[0].cc: "python:helpers.NoRto" defines no method on_rto()'),
    ({"cc": "python:helpers.DropFront"}, "helpers.DropFront is not a subclass of ccsim.CongestionControl"),
]


@pytest.mark.parametrize(("keys", "message"), ERRORS)
def test_build_errors_name_the_key_and_the_cause(tmp_path: Path, keys: dict[str, str], message: str) -> None:
    path = scenario(tmp_path, **keys)
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.validate(path)
    assert message in str(e.value)
    assert str(e.value).startswith(str(path))
    assert "\n" not in str(e.value)


RAISE_LINE = HELPERS.splitlines().index('            return {}["missing"]') + 1

RUN_ERRORS = [
    (
        {"queue": "python:helpers.Raises"},
        "topology.bottleneck.queue: \"python:helpers.Raises\" enqueue: raised KeyError: 'missing' "
        f"(helpers.py, line {RAISE_LINE}, in enqueue)",
    ),
    ({"queue": "python:helpers.BadVerdict"}, "enqueue: returned 3; expected True (queued), False"),
    ({"queue": "python:helpers.SendsTwice"}, "dequeue: returned Packet(uid="),
    ({"queue": "python:helpers.DropsStranger"}, "enqueue: raised ValueError: drop(): Packet(uid=0,"),
    ({"cc": "python:helpers.NanWindow"}, 'flows[0].cc: "python:helpers.NanWindow" on_ack: set cwnd = NaN'),
    (
        {"cc": "python:helpers.LossRaises"},
        'flows[0].cc: "python:helpers.LossRaises" on_congestion_event: '
        "raised RuntimeError: no loss handling yet (helpers.py",
    ),
]


@pytest.mark.parametrize(("keys", "message"), RUN_ERRORS)
def test_errors_in_user_code_stop_the_run_with_one_line(tmp_path: Path, keys: dict[str, str], message: str) -> None:
    path = scenario(tmp_path, **keys)
    ccsim.validate(path)  # the classes load and construct
    with pytest.raises(ccsim.SimulationError) as e:
        ccsim.run(path)
    text = str(e.value)
    assert text.startswith(f"{path}: "), text
    assert message in text, text
    assert "\n" not in text
    # The command line says the same on one line, without a traceback.
    status, _, err = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert status != 0
    assert message in err
    assert "Traceback" not in err


def test_each_scenario_folder_has_its_own_module_and_edits_take_effect(tmp_path: Path) -> None:
    """Two folders with their own `aqm.py`; a module edited between two runs."""
    fifo = "import ccsim\nclass Q(ccsim.QueueDisc):\n    def enqueue(self, now, pkt):\n        return {verdict}\n"
    fifo += "    def dequeue(self, now):\n        return None\n"
    a, b = scenario(tmp_path / "a", "python:aqm.Q"), scenario(tmp_path / "b", "python:aqm.Q")
    (tmp_path / "a" / "aqm.py").write_text(fifo.format(verdict='"early"'))
    (tmp_path / "b" / "aqm.py").write_text(fifo.format(verdict='"forced"'))
    assert ccsim.run(a).queues.iloc[0]["early_drops"] > 0
    assert ccsim.run(b).queues.iloc[0]["early_drops"] == 0
    (tmp_path / "a" / "aqm.py").write_text(fifo.format(verdict='"forced"') + "\n# edited\n")
    assert ccsim.run(a).queues.iloc[0]["early_drops"] == 0


def test_ctrl_c_in_user_code_interrupts_the_run(tmp_path: Path) -> None:
    """Ctrl-C while the algorithm's code runs interrupts the run (the CLI says so); it is not the algorithm's error."""
    with pytest.raises(KeyboardInterrupt):
        ccsim.run(scenario(tmp_path, "python:helpers.CtrlC"))
    assert ccsim.run(scenario(tmp_path / "after", "python:helpers.DropFront")).queues.iloc[0]["arrivals"] > 0


def test_a_run_after_a_failed_one_is_clean(tmp_path: Path) -> None:
    with pytest.raises(ccsim.SimulationError):
        ccsim.run(scenario(tmp_path / "bad", "python:helpers.Raises"))
    r = ccsim.run(scenario(tmp_path / "good", "python:helpers.DropFront"))
    assert r.queues.iloc[0]["arrivals"] > 0


def python_red_sweep(folder: Path, module: str = "my_red") -> Path:
    """A sweep of the built-in and the Python RED with python_red.py next to the sweep file (not on sys.path)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "python_red.py", folder / f"{module}.py")
    base = (EXAMPLES / "python_red.toml").read_text()
    for old, new in [('"20s"', '"3s"'), ('"5s"', '"1s"'), ("= 20", "= 6"), ("python:python_red.Red", "red")]:
        assert old in base
        base = base.replace(old, new)
    (folder / "base.toml").write_text(base)
    path = folder / "sweep.toml"
    path.write_text(
        textwrap.dedent(
            """\
            name = "pyred"
            base = "base.toml"
            replicates = 2

            [grid]
            "topology.bottleneck.queue.max_p" = [0.1, 0.2]

            [[cases]]
            label = "builtin"

            [[cases]]
            label = "python"
            topology.bottleneck.queue.kind = "python:MODULE.Red"
            """
        ).replace("MODULE", module)
    )
    return path


def test_a_sweep_with_a_python_discipline_on_two_workers_and_on_dask(tmp_path: Path) -> None:
    path = python_red_sweep(tmp_path / "sweep")
    serial = tmp_path / "serial"
    report = run_sweep(load_sweep(path), serial)
    assert (report.ran, report.failed) == (8, 0)
    pool = tmp_path / "pool"
    status, _, err = cli("sweep", str(path), "--jobs", "2", "--out", str(pool), "--quiet")
    assert status == 0, err
    a, b = comparable(ccsim.load(serial)), comparable(ccsim.load(pool))
    for name in ("runs", "flows", "queues", "links"):
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)
    assert set(b["queues"].query("link == 'r1->r2'")["kind"]) == {"red", "python:my_red.Red"}
    assert len(set(ccsim.load(pool).runs["worker"])) == 2
    pytest.importorskip("distributed")
    dask = tmp_path / "dask"
    report = run_sweep(load_sweep(path), dask, DaskCluster("local:2"))
    assert (report.ran, report.failed) == (8, 0)
    c = comparable(ccsim.load(dask))
    for name in ("runs", "flows", "queues", "links"):
        pd.testing.assert_frame_equal(a[name], c[name], check_exact=True, obj=name)
    assert timeseries_bytes(serial) == timeseries_bytes(dask)


def test_the_sweep_check_names_a_missing_module(tmp_path: Path) -> None:
    path = python_red_sweep(tmp_path)
    (tmp_path / "my_red.py").unlink()
    with pytest.raises(ccsim.ScenarioError, match=r"no module named 'my_red' \(searched "):
        run_sweep(load_sweep(path), tmp_path / "out", LocalPool(2))


def test_docs_show_the_shipped_examples_verbatim() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "extending.md").read_text()
    for name in ("python_red.py", "python_reno.py"):
        code = (EXAMPLES / name).read_text()
        body = code[code.index("import ") :].rstrip("\n")
        assert f"```python\n{body}\n```" in doc, name
    red = (EXAMPLES / "python_red.py").read_text()
    klass = red[red.index("class Red") :].rstrip("\n").splitlines()
    assert len(klass) <= 45, "RED in about 40 lines"
