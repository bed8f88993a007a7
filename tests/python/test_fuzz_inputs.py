"""Fuzzing the input files: mutated shipped scenarios and sweep files give status 0 or 2, never a traceback.

Each example takes a shipped file (examples/, benches/, studies/), mutates
it (a value of another type, a unit nobody knows, a missing, extra or renamed key,
huge, negative, NaN and infinite numbers, unicode, random bytes, a
truncated file) and checks `ccsim validate` on it in-process, and `ccsim
run` on a few in a subprocess with a wall-time cap. A file either passes or
fails with exit status 2 and `error: <file>: ...` on stderr: never a
traceback, a Rust panic or an internal error (status 1).

The examples are derandomized (the same ones on every run); to look for new
bugs run with more of them, e.g. `CCSIM_FUZZ_EXAMPLES=2000 pytest
tests/python/test_fuzz_inputs.py` with CCSIM_FUZZ_RANDOM=1 (new examples each
time). Every bug found that way keeps its input
as an `@example` below.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from ccsim.cli import main

REPO = Path(__file__).resolve().parents[2]

# The shipped files the fuzzer starts from (paths relative to the repository).
CORPUS = (
    "examples/dumbbell_udp.toml",
    "examples/slowcc_cbr_restart.toml",
    "examples/slowcc_flash_crowd.toml",
    "examples/sweep_aqm.toml",
    "benches/tcp_newreno_100.toml",
    "benches/wlan_20_saturated.toml",
    "benches/udp_cbr_saturated.toml",
    "benches/sweeps/short_100.toml",
    "studies/patel-red-sfq-rem/base.toml",
    "studies/patel-red-sfq-rem/quick.toml",
    "studies/bisoy-aqm/quick.toml",
    "studies/vyshnavi-tcp/wlan-6x30.quick.toml",
    "studies/mehta-slowcc/square_quick.toml",
    "studies/ramachendra-modred/quick.toml",
)

EXAMPLES = int(os.environ.get("CCSIM_FUZZ_EXAMPLES", "400"))
DERANDOMIZE = "CCSIM_FUZZ_RANDOM" not in os.environ
"""The same examples on every run, unless CCSIM_FUZZ_RANDOM is set (to look for new bugs)."""
RUN_EXAMPLES = int(os.environ.get("CCSIM_FUZZ_RUNS", "6"))
RUN_TIMEOUT_S = 120
"""A subprocess `ccsim run` is given --max-wall 2: it ends long before this."""
MAX_STDERR = 4000
"""A sweep lists at most 20 bad grid points; anything longer is not a short message."""

Path_ = tuple[str | int, ...]

WEIRD_UNITS = ("parsecs", "Mbs", "", " ", "MBPS", "ms ms", "µs", "Gbit/s", "%", "e3")
WEIRD_STRINGS = (
    "10 parsecs",
    "-5Mbps",
    "1e999Mbps",
    "nan s",
    "infms",
    "-1s",
    "0s",
    "0bps",
    "1e308s",
    "18446744073709551616",
    "99999999999999999999h",
    "1.5.5ms",
    "",
    "<script>alert(1)</script>",
    "../../../etc/passwd",
    "r1->r1",
    "\u202e\u0000\ud7ff",
)
WEIRD_KEYS = ("", " ", "flows[0].rate", "flows[99]", "a..b", "[", "]", "0", "-1", "base", "name", "ü\u0301", "\n")
HUGE = (2**63 - 1, 2**63, 2**64, -(2**63), -1, 0, 10**30, 4294967296, 1e308, -1e308, 5e-324)

weird_value = st.one_of(
    st.sampled_from(WEIRD_STRINGS),
    st.sampled_from(HUGE),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.booleans(),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=2),
    st.just([]),
    st.just({}),
)


# ---------------------------------------------------------------- TOML out


def toml_string(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; lone surrogates are escaped out)."""
    return json.dumps(s.encode("utf-8", "replace").decode("utf-8"), ensure_ascii=False)


def toml_float(v: float) -> str:
    """A TOML float, NaN and the infinities included."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def toml_value(v: object) -> str:
    """A TOML value on one line: tables become inline tables."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return toml_float(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_string(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    return str(v) if isinstance(v, int) else toml_string(str(v))


def toml_text(doc: dict[str, Any]) -> str:
    """A document as TOML, one top-level key a line."""
    return "".join(f"{toml_string(str(k))} = {toml_value(v)}\n" for k, v in doc.items())


# ---------------------------------------------------------------- mutations


def paths(node: object, here: Path_ = ()) -> Iterator[Path_]:
    """Every key path in a document (tables and arrays included)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield (*here, k)
            yield from paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield (*here, i)
            yield from paths(v, (*here, i))


def parent_of(doc: dict[str, Any], path: Path_) -> Any:
    """The table or array that holds `path`'s last key."""
    node: Any = doc
    for seg in path[:-1]:
        node = node[seg]
    return node


@dataclass(frozen=True)
class Mutation:
    """One change to a document: `op` at the `pick`-th key path, with `value`."""

    op: str
    pick: int
    value: object = None

    def apply(self, doc: dict[str, Any]) -> None:
        """Change `doc` in place (with a copy of the value: st.just({}) draws one object every time)."""
        value = copy.deepcopy(self.value)
        every = list(paths(doc))
        if not every:
            doc["extra"] = value
            return
        path = every[self.pick % len(every)]
        parent = parent_of(doc, path)
        key = path[-1]
        old = parent[key]
        if self.op == "delete":
            del parent[key]
        elif self.op == "extra":
            target = old if isinstance(old, dict) else parent if isinstance(parent, dict) else doc
            target[f"extra_{self.pick % 7}"] = value
        elif self.op == "rename" and isinstance(parent, dict):
            parent[str(value)] = parent.pop(key)
        elif self.op == "unit" and isinstance(old, str):
            parent[key] = re.sub(r"[A-Za-z%]*$", str(value), old, count=1)
        elif self.op == "number" and isinstance(old, int | float | str):
            parent[key] = value
        else:  # "retype", or an op that does not fit the value
            parent[key] = value


mutations = st.one_of(
    st.builds(Mutation, st.just("delete"), st.integers(0, 10_000)),
    st.builds(Mutation, st.just("extra"), st.integers(0, 10_000), weird_value),
    st.builds(Mutation, st.just("unit"), st.integers(0, 10_000), st.sampled_from(WEIRD_UNITS)),
    st.builds(Mutation, st.just("number"), st.integers(0, 10_000), st.sampled_from(HUGE)),
    st.builds(Mutation, st.just("retype"), st.integers(0, 10_000), weird_value),
    st.builds(Mutation, st.just("rename"), st.integers(0, 10_000), st.one_of(st.sampled_from(WEIRD_KEYS), st.text())),
)


@dataclass(frozen=True)
class Damage:
    """A change to the file's bytes after the mutations: truncate, or insert random bytes."""

    op: str
    at: float
    data: bytes = b""

    def apply(self, raw: bytes) -> bytes:
        """The damaged bytes."""
        i = int(self.at * len(raw))
        if self.op == "truncate":
            return raw[:i]
        return raw[:i] + self.data + raw[i:]


DEEP = b"\nnested = " + b"[" * 5000 + b"]" * 5000 + b"\n"
"""Arrays nested deeper than Python's recursion limit (tomllib and json recurse per level)."""

damages = st.one_of(
    st.none(),
    st.builds(Damage, st.just("insert"), st.floats(0, 1), st.just(DEEP)),
    st.builds(Damage, st.just("truncate"), st.floats(0, 1)),
    st.builds(Damage, st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=8)),
    st.builds(Damage, st.just("insert"), st.floats(0, 1), st.text(min_size=1, max_size=4).map(str.encode)),
)


@dataclass(frozen=True)
class Case:
    """A fuzzed input: a shipped file, mutations, optional damage, and the format to write."""

    source: str
    changes: tuple[Mutation, ...]
    damage: Damage | None = None
    as_json: bool = False

    def original(self) -> dict[str, Any]:
        """The shipped file, parsed."""
        return tomllib.loads((REPO / self.source).read_text(encoding="utf-8"))

    def json_out(self) -> bool:
        """Whether the mutated file is written as JSON (a sweep file is TOML only)."""
        return self.as_json and "base" not in self.original()

    def text(self) -> bytes:
        """The mutated file's bytes."""
        doc = self.original()
        for m in self.changes:
            m.apply(doc)
        raw = json.dumps(doc, default=str) if self.json_out() else toml_text(doc)
        data = raw.encode("utf-8", "replace")
        return data if self.damage is None else self.damage.apply(data)

    def write(self, workdir: Path) -> Path:
        """Write the mutated file into the copy of its folder (a sweep's `base` is relative to it)."""
        path = workdir / Path(self.source).parent / ("fuzz.json" if self.json_out() else "fuzz.toml")
        path.write_bytes(self.text())
        return path


cases = st.builds(
    Case,
    st.sampled_from(CORPUS),
    st.lists(mutations, min_size=1, max_size=3).map(tuple),
    damages,
    st.booleans(),
)


# ---------------------------------------------------------------- checks


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the folders the corpus lives in (sweep files name their base relative to themselves)."""
    root = tmp_path_factory.mktemp("fuzz")
    for folder in {Path(s).parent for s in CORPUS}:
        shutil.copytree(REPO / folder, root / folder, dirs_exist_ok=True)
    return root


def check_outcome(status: int, stderr: str, path: str, *, one_line: bool = True) -> None:
    """Status 0, or 2 with a short `error: <path>...` message; never a traceback or a panic.

    The message is one line, but for a sweep file: it lists its errors, one a line.
    """
    assert "Traceback" not in stderr, stderr
    assert "panicked" not in stderr, stderr
    assert status in (0, 2), f"status {status}: {stderr}"
    if status == 2:
        assert stderr.startswith(f"error: {path}"), stderr
        assert len(stderr) < MAX_STDERR, stderr
        if one_line:
            assert stderr.count("\n") == 1, stderr
        else:  # a sweep: each distinct error once, at its first grid point
            errors = [line.split("]: ", 1)[-1] for line in stderr.splitlines()[1:]]
            assert len(errors) == len(set(errors)), stderr


def validate(path: Path) -> tuple[int, str]:
    """`ccsim validate PATH` in this process: (status, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        status = main(["validate", str(path)], stdout=out, stderr=err)
    except SystemExit as e:  # argparse; not expected for these arguments
        status = e.code if isinstance(e.code, int) else 1
    return status, err.getvalue()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=DERANDOMIZE, database=None)
@given(case=cases)
@example(case=Case("examples/dumbbell_udp.toml", (Mutation("retype", 0, "x"),)))
# A TOML error quoted the whole offending line (kilobytes for an inline array of flows).
@example(case=Case("benches/wlan_20_saturated.toml", (Mutation("delete", 0),), Damage("truncate", 0.75)))
# A sweep whose base file is missing named only the base file, not the sweep.
@example(case=Case("studies/patel-red-sfq-rem/quick.toml", (Mutation("unit", 0, "parsecs"),)))
# A sweep listed the same error once per grid point (kilobytes when a case's every point has it).
@example(case=Case("studies/ramachendra-modred/quick.toml", (Mutation("extra", 18, []),)))
# Deep nesting raised RecursionError in Python's TOML and JSON parsers (internal error, status 1).
@example(case=Case("examples/dumbbell_udp.toml", (Mutation("delete", 0),), Damage("insert", 0.0, DEEP)))
@example(case=Case("examples/sweep_aqm.toml", (Mutation("delete", 10_000),), Damage("insert", 0.0, DEEP)))
# A key named "\n" broke the one-line message (engine and sweep labels now escape control characters).
@example(case=Case("examples/dumbbell_udp.toml", (Mutation("rename", 0, "\n"),)))
@example(case=Case("studies/patel-red-sfq-rem/quick.toml", (Mutation("rename", 1604, "\n"),)))
def test_validate_mutated_files(workdir: Path, case: Case) -> None:
    """`ccsim validate` on a mutated file: ok or one clear error line, never a traceback."""
    path = case.write(workdir)
    status, stderr = validate(path)
    event(f"status {status}")
    check_outcome(status, stderr, str(path), one_line="base" not in case.original())


def run_cli(path: Path, out: Path) -> tuple[int, str]:
    """`ccsim run PATH` in a subprocess with a 2 s wall-time cap: (status, stderr)."""
    cmd = [sys.executable, "-m", "ccsim.cli", "run", str(path), "--out", str(out), "--quiet", "--max-wall", "2"]
    env = {**os.environ, "PYTHONPATH": str(Path(main.__code__.co_filename).parents[1])}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=env, check=False)
    return done.returncode, done.stderr


# Scenarios only (a run of a sweep file is an error anyway), and only the small ones.
RUN_CORPUS = ("examples/dumbbell_udp.toml", "benches/udp_cbr_saturated.toml", "studies/patel-red-sfq-rem/base.toml")


@settings(max_examples=RUN_EXAMPLES, deadline=None, derandomize=DERANDOMIZE, database=None)
@given(
    case=st.builds(Case, st.sampled_from(RUN_CORPUS), st.lists(mutations, min_size=1, max_size=2).map(tuple)),
)
def test_run_mutated_scenarios(workdir: Path, tmp_path_factory: pytest.TempPathFactory, case: Case) -> None:
    """`ccsim run` on a mutated scenario: ends within the timeout with status 0 or 2 and a clear message."""
    path = case.write(workdir)
    status, stderr = run_cli(path, tmp_path_factory.mktemp("run"))
    event(f"status {status}")
    check_outcome(status, stderr, str(path))


@pytest.mark.parametrize("suffix", [".toml", ".json"])
@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_deeply_nested_files_are_one_error_line(tmp_path: Path, suffix: str, command: str) -> None:
    # Nested deeper than Python's recursion limit: tomllib and json raised RecursionError (status 1).
    path = tmp_path / f"deep{suffix}"
    depth = 100_000
    if suffix == ".json":
        path.write_text('{"name": ' + "[" * depth + "]" * depth + "}")
    else:
        path.write_text("name = " + "[" * depth + "]" * depth + "\n")
    extra = {"validate": [], "run": ["--out", str(tmp_path / "out")], "sweep": ["--dry-run"]}[command]
    err = io.StringIO()
    status = main([command, str(path), *extra], stdout=io.StringIO(), stderr=err)
    check_outcome(status, err.getvalue(), str(path))
    assert status == 2
