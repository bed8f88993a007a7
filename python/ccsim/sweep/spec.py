"""Sweep files: parse, check and expand a sweep into runs (docs/sweeps.md).

A sweep is a base scenario, a grid of key paths to lists of values (their
cartesian product), optional named cases merged into the base and crossed
with the grid, and a number of replicates. Each run's seed is a hash of the
sweep's seed, the case label, the grid point and the replicate index, so a
run's seed (and so its result) does not depend on which other runs the
sweep holds: adding a grid value, a case or replicates leaves every existing
run as it was. A run's identity (`run_id`) is a hash of its fully expanded
scenario, seed included.

Everything here is pure data manipulation: nothing runs and nothing is
validated by the engine (see `validate` in ccsim.sweep for that).
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
import re
import tomllib
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim._core import ScenarioError
from ccsim.scenario import is_sweep_file, read_text  # noqa: F401 (is_sweep_file: kept as sweep.spec.is_sweep_file)

DEFAULT_SEED = 1
NO_CASE = "base"
"""The case label of every run of a sweep without [[cases]]."""

SWEEP_KEYS = ("name", "description", "base", "seed", "replicates", "grid", "cases", "timeseries")
# Columns of the `runs` table that a grid parameter may not shadow (store.py); the summary
# metrics are there too because they become columns of `runs`.
RESERVED_COLUMNS = frozenset(
    {
        "run_id",
        "sweep",
        "case_label",
        "replicate",
        "seed",
        "status",
        "error",
        "wall_s",
        "cpu_s",
        "engine_wall_s",
        "events",
        "version",
        "worker",
        "finished_at",
        "duration_s",
        "warmup_s",
        "components",
        "timeseries",
        "scenario",
        "goodput_bps",
        "throughput_bps",
        "jain_index",
        "loss_rate",
        "bottleneck_utilization",
        "bottleneck_avg_queue_pkts",
        "bottleneck_link",
    }
)
# Top-level scenario keys the sweep sets itself.
NOT_SWEEPABLE = {"seed": "the run's seed is derived from the sweep's `seed`; use `replicates` for more seeds"}

Segment = str | int
"""One step of a key path: a table key or a list index."""

_NAME = r"[^.\[\]]+"
_PATH = re.compile(rf"({_NAME})((?:\.{_NAME}|\[\d+\])*)")
_STEP = re.compile(rf"\[(\d+)\]|\.({_NAME})")


def parse_path(path: str) -> tuple[Segment, ...]:
    """A dotted key path as segments: "flows[0].count" and "flows.0.count" -> ("flows", 0, "count").

    A segment (after the first) that is all digits is a list index: scenario
    keys are never numbers. Raises ValueError for a malformed path.
    """
    m = _PATH.fullmatch(path) if isinstance(path, str) else None
    if m is None:
        raise ValueError(f"malformed key path {path!r} (expected keys joined by dots, e.g. flows[0].count)")
    segments: list[Segment] = [m.group(1)]
    for index, name in _STEP.findall(m.group(2)):
        segments.append(int(index) if index else (int(name) if name.isdigit() else name))
    return tuple(segments)


def format_path(segments: Sequence[Segment]) -> str:
    """Segments as the canonical key path, the form the engine's errors use: "flows[0].count"."""
    out = ""
    for s in segments:
        out += f"[{s}]" if isinstance(s, int) else (f".{s}" if out else s)
    return out


def _describe(value: object) -> str:
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return f"the value {json.dumps(value)}"


def set_path(doc: dict[str, Any], segments: Sequence[Segment], value: object) -> None:
    """Set `value` at the key path in `doc`, creating missing tables on the way.

    A list index must exist (`flows[3]` of a base with two flow groups is an
    error); going through a value that is not a table or a list is an error.
    Raises ValueError naming the path.
    """
    node: Any = doc
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        here = format_path(segments[: i + 1])
        if isinstance(seg, int):
            if not isinstance(node, list):
                raise ValueError(f"{here}: {format_path(segments[:i])} is {_describe(node)}, not a list")
            if seg >= len(node):
                raise ValueError(f"{here}: {format_path(segments[:i])} has {len(node)} entries (index {seg})")
        elif not isinstance(node, dict):
            raise ValueError(f"{here}: {format_path(segments[:i])} is {_describe(node)}, not a table")
        if last:
            node[seg] = copy.deepcopy(value)
            return
        if isinstance(seg, str) and seg not in node:
            if isinstance(segments[i + 1], int):
                raise ValueError(f"{here}: no such list in the scenario (index {segments[i + 1]})")
            node[seg] = {}
        node = node[seg]


def merge(doc: dict[str, Any], overrides: Mapping[str, Any], at: tuple[Segment, ...] = ()) -> None:
    """Merge a case's overrides into `doc`: tables merge key by key, anything else (values, lists) replaces.

    A key may be a key path ("topology.bottleneck.queue.kind", "flows[0].cc").
    """
    for key, value in overrides.items():
        try:
            segments = at + parse_path(key)
        except ValueError as e:
            raise ValueError(f"{format_path(at) + '.' if at else ''}{key}: {e}") from None
        if isinstance(value, Mapping):
            target = _get(doc, segments)
            if isinstance(target, dict):
                merge(doc, value, segments)
                continue
            set_path(doc, segments, {})
            merge(doc, value, segments)
        else:
            set_path(doc, segments, value)


def _get(doc: object, segments: Sequence[Segment]) -> object:
    node = doc
    for seg in segments:
        if isinstance(seg, int):
            if not isinstance(node, list) or seg >= len(node):
                return None
        elif not isinstance(node, dict) or seg not in node:
            return None
        node = node[seg]
    return node


def canonical_json(value: object) -> str:
    """Compact JSON with sorted keys: the text that is hashed for seeds and run ids."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def derive_seed(sweep_seed: int, case: str, point: Mapping[str, Any], replicate: int) -> int:
    """The seed of one run: the first 63 bits of SHA-256 over (sweep seed, case, grid point, replicate).

    The grid point enters as a mapping from key path to value (sorted), so
    neither the other points of the grid nor the order of the grid's keys
    matter. 63 bits keep the seed inside TOML's integers, so it can be
    pasted into a scenario file.
    """
    key = canonical_json({"case": case, "point": dict(point), "replicate": replicate, "seed": sweep_seed})
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def run_id_of(scenario: Mapping[str, Any]) -> str:
    """A run's identity: 16 hex digits of SHA-256 over its fully expanded scenario (which holds the seed)."""
    return hashlib.sha256(canonical_json(scenario).encode()).hexdigest()[:16]


def _value_text(value: object) -> str:
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_.+\-/:]+", value):
        return value
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Case:
    """A named variant of the base: `overrides` are merged into it."""

    label: str
    overrides: Mapping[str, Any]


@dataclass(frozen=True)
class Parameter:
    """One grid dimension: a key path and its values."""

    path: str
    segments: tuple[Segment, ...]
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Point:
    """One (case, grid point): the scenario every replicate of it runs, seed aside."""

    case: str
    values: tuple[tuple[str, Any], ...]
    """(key path, value) per grid parameter, in grid order."""
    label: str
    """Where the point comes from, for messages: "sweep.toml [case=red, flows[0].count=20]"."""

    @property
    def params(self) -> dict[str, Any]:
        """The grid point as a mapping from key path to value."""
        return dict(self.values)


@dataclass(frozen=True)
class Run:
    """One run of a sweep."""

    run_id: str
    point: Point
    replicate: int
    seed: int
    scenario: dict[str, Any] = field(repr=False, compare=False, hash=False)
    """The fully expanded scenario (the seed written in)."""

    @property
    def source(self) -> str:
        """How the run is named in error messages."""
        return f"{self.point.label[:-1]}, replicate={self.replicate}]"

    def scenario_json(self) -> str:
        """The expanded scenario as JSON text for the engine."""
        return canonical_json(self.scenario)


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file."""

    name: str
    source: str
    """The sweep file as given (used in messages)."""
    base: dict[str, Any] = field(repr=False)
    base_source: str
    seed: int
    replicates: int
    parameters: tuple[Parameter, ...]
    cases: tuple[Case, ...]
    timeseries: bool = True
    description: str = ""
    text: str = field(default="", repr=False)
    """The sweep file's text (kept in the results store)."""

    @property
    def plugin_dirs(self) -> tuple[str, ...]:
        """Folders searched first for `python:` algorithms' modules: the sweep file's, then its base scenario file's."""
        from ccsim.extensions import plugin_dirs_of  # noqa: PLC0415 (only sweeps need it)

        return tuple(plugin_dirs_of(self.source, self.base_source))

    @property
    def grid_columns(self) -> list[str]:
        """The key paths of the grid, one column each in the `runs` table."""
        return [p.path for p in self.parameters]

    @property
    def case_labels(self) -> list[str]:
        """The cases' labels (["base"] without [[cases]])."""
        return [c.label for c in self.cases] if self.cases else [NO_CASE]

    def __len__(self) -> int:
        n = self.replicates * max(1, len(self.cases))
        for p in self.parameters:
            n *= len(p.values)
        return n

    def points(self) -> Iterator[Point]:
        """Every (case, grid point), cases outermost, the grid in row-major order."""
        cases = self.cases or (Case(NO_CASE, {}),)
        for case in cases:
            for combo in itertools.product(*(p.values for p in self.parameters)):
                values = tuple((p.path, v) for p, v in zip(self.parameters, combo, strict=True))
                parts = ([f"case={case.label}"] if self.cases else []) + [f"{k}={_value_text(v)}" for k, v in values]
                label = _printable(f"{self.source} [{', '.join(parts)}]" if parts else f"{self.source} [base]")
                yield Point(case=case.label, values=values, label=label)

    def point_scenario(self, point: Point) -> dict[str, Any]:
        """The base with the case's overrides merged in and the grid values set (seed not set).

        Raises ScenarioError naming the point when a key path does not fit the scenario.
        """
        doc = copy.deepcopy(self.base)
        case = next((c for c in self.cases if c.label == point.case), None)
        try:
            if case is not None:
                merge(doc, case.overrides)
        except ValueError as e:
            raise ScenarioError(f"{point.label}: cases[{point.case}]: {e}") from None
        for p, (_, value) in zip(self.parameters, point.values, strict=True):
            try:
                set_path(doc, p.segments, value)
            except ValueError as e:
                raise ScenarioError(f"{point.label}: grid: {e}") from None
        return doc

    def run_at(self, point: Point, scenario: Mapping[str, Any], replicate: int) -> Run:
        """Replicate `replicate` of a point whose scenario is `scenario` (from point_scenario)."""
        seed = derive_seed(self.seed, point.case, point.params, replicate)
        full = dict(scenario)
        full["seed"] = seed
        return Run(run_id=run_id_of(full), point=point, replicate=replicate, seed=seed, scenario=full)

    def runs(self) -> list[Run]:
        """Every run, replicate-major: all points of replicate 0 first, so a partial sweep covers the grid.

        Raises ScenarioError at the first point whose key paths do not fit.
        """
        scenarios = [(pt, self.point_scenario(pt)) for pt in self.points()]
        return [self.run_at(pt, sc, r) for r in range(self.replicates) for pt, sc in scenarios]


def _fail(source: str, key: str, message: str) -> ScenarioError:
    return ScenarioError(f"{source}: {_printable(key)}: {message}")


def _printable(text: str) -> str:
    """`text` with control characters escaped (a key named "\\n" keeps the message on one line)."""
    return "".join(c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) == "Cc" else c for c in text)


def _flatten_grid(table: Mapping[str, Any], source: str, prefix: tuple[Segment, ...] = ()) -> Iterator[Parameter]:
    """The grid's parameters; nested tables (TOML's bare dotted keys) become key paths."""
    for key, value in table.items():
        shown = f"grid.{format_path(prefix) + '.' if prefix else ''}{key}"
        try:
            segments = prefix + parse_path(key)
        except ValueError as e:
            raise _fail(source, shown, str(e)) from None
        path = format_path(segments)
        if isinstance(value, Mapping):
            yield from _flatten_grid(value, source, segments)
            continue
        if not isinstance(value, list):
            raise _fail(source, f"grid.{path}", f"expected a list of values, got {_describe(value)}")
        if not value:
            raise _fail(source, f"grid.{path}", "expected a list of values, got an empty list")
        seen: set[str] = set()
        for v in value:
            text = canonical_json(v)
            if text in seen:
                raise _fail(source, f"grid.{path}", f"the value {text} is listed twice")
            seen.add(text)
        yield Parameter(path=path, segments=segments, values=tuple(value))


def _check_parameters(params: Sequence[Parameter], source: str) -> None:
    for p in params:
        head = p.segments[0]
        if len(p.segments) == 1 and head in NOT_SWEEPABLE:
            raise _fail(source, f"grid.{p.path}", f"not a grid parameter: {NOT_SWEEPABLE[str(head)]}")
        if p.path in RESERVED_COLUMNS:
            raise _fail(source, f"grid.{p.path}", "the name of a column of the runs table; it cannot be a parameter")
    for a, b in itertools.combinations(params, 2):
        shorter, longer = sorted((a.segments, b.segments), key=len)
        if longer[: len(shorter)] == shorter:
            raise _fail(
                source, f"grid.{format_path(longer)}", f"overlaps grid.{format_path(shorter)} (one contains the other)"
            )


def _parse_cases(raw: object, source: str) -> tuple[Case, ...]:
    if not isinstance(raw, list) or not all(isinstance(c, Mapping) for c in raw):
        raise _fail(source, "cases", "expected an array of tables ([[cases]] with a label and overrides)")
    cases: list[Case] = []
    for i, c in enumerate(raw):
        label = c.get("label")
        if not isinstance(label, str) or not label.strip():
            raise _fail(source, f"cases[{i}].label", "expected a non-empty string naming the case")
        if any(label == other.label for other in cases):
            raise _fail(source, f"cases[{i}].label", f"the label {label!r} is used twice")
        overrides = {k: v for k, v in c.items() if k != "label"}
        for key in overrides:
            try:
                segments = parse_path(key)
            except ValueError as e:
                raise _fail(source, f"cases[{i}].{key}", str(e)) from None
            if segments[0] in NOT_SWEEPABLE:
                raise _fail(source, f"cases[{i}].{key}", f"not set by a case: {NOT_SWEEPABLE[str(segments[0])]}")
        cases.append(Case(label=label, overrides=overrides))
    return tuple(cases)


def _read_toml(path: Path, what: str) -> tuple[dict[str, Any], str]:
    source = os.fspath(path)
    text = read_text(path, what)
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ScenarioError(f"{source}: expected a JSON object")
        else:
            data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise ScenarioError(f"{source}: not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {e}") from e
    except RecursionError:
        raise ScenarioError(f"{source}: cannot read the {what}: tables or arrays nested too deeply") from None
    return data, text


def _int_key(data: Mapping[str, Any], key: str, *, default: int, low: int, high: int, source: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(source, key, f"expected an integer in {low}..{high}, got {json.dumps(value, default=str)}")
    return value


def from_dict(data: Mapping[str, Any], source: str, base_dir: Path, text: str = "") -> Sweep:
    """A sweep from its parsed TOML structure; `base_dir` is where a `base` path is relative to."""
    unknown = [k for k in data if k not in SWEEP_KEYS]
    if unknown:
        raise _fail(source, unknown[0], f"unknown key; a sweep has {', '.join(SWEEP_KEYS)}")
    raw_base = data.get("base")
    if isinstance(raw_base, str):
        base_path = Path(raw_base) if Path(raw_base).is_absolute() else base_dir / raw_base
        try:
            base, _ = _read_toml(base_path, "base scenario")
        except ScenarioError as e:  # name the sweep file first: it is the file the user gave
            raise _fail(source, "base", str(e)) from None
        base_source = os.fspath(base_path)
    elif isinstance(raw_base, Mapping):
        base, base_source = copy.deepcopy(dict(raw_base)), f"{source} [base]"
    elif raw_base is None:
        raise _fail(source, "(top level)", 'missing key "base": a scenario file path or a [base] table')
    else:
        raise _fail(source, "base", "expected a scenario file path or a [base] table")
    name = data.get("name", Path(source).stem if source else "sweep")
    if not isinstance(name, str) or not name.strip():
        raise _fail(source, "name", "expected a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail(source, "description", "expected a string")
    default_seed = base.get("seed", DEFAULT_SEED)
    if isinstance(default_seed, bool) or not isinstance(default_seed, int) or default_seed < 0:
        default_seed = DEFAULT_SEED
    seed = _int_key(data, "seed", default=default_seed, low=0, high=2**63 - 1, source=source)
    replicates = _int_key(data, "replicates", default=1, low=1, high=1_000_000, source=source)
    grid = data.get("grid", {})
    if not isinstance(grid, Mapping):
        raise _fail(source, "grid", "expected a table of key paths to lists of values")
    parameters = tuple(_flatten_grid(grid, source))
    _check_parameters(parameters, source)
    cases = _parse_cases(data["cases"], source) if "cases" in data else ()
    try:
        canonical_json([base, [list(p.values) for p in parameters], [dict(c.overrides) for c in cases]])
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"{source}: a value cannot be written as JSON (dates are not scenario values): {e}") from e
    timeseries = data.get("timeseries", True)
    if not isinstance(timeseries, bool):
        raise _fail(source, "timeseries", "expected true or false")
    return Sweep(
        name=name,
        source=source,
        base=base,
        base_source=base_source,
        seed=seed,
        replicates=replicates,
        parameters=parameters,
        cases=cases,
        timeseries=timeseries,
        description=description,
        text=text,
    )


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Read a sweep file (TOML); a `base` path is relative to the sweep file's folder."""
    p = Path(path)
    data, text = _read_toml(p, "sweep")
    return from_dict(data, os.fspath(path), p.parent, text)


MAX_ERRORS_SHOWN = 20
"""plan() lists at most this many distinct errors (each at the first grid point that has it)."""


def plan(sweep: Sweep) -> list[Run]:
    """Expand the sweep and check every (case, grid point) with the engine; run nothing.

    Raises one ScenarioError listing every invalid point (each message names
    the point) before anything has run.
    """
    errors: dict[str, list[str]] = {}  # what is wrong -> the points where it is, in grid order
    checked: list[tuple[Point, dict[str, object]]] = []
    points = list(sweep.points())
    dirs = list(sweep.plugin_dirs)
    for pt in points:
        try:
            scenario = sweep.point_scenario(pt)
            probe = sweep.run_at(pt, scenario, 0)
            _core.validate_scenario(probe.scenario_json(), pt.label, "json", plugin_dirs=dirs)
        except ScenarioError as e:
            text = str(e)
            what = text.removeprefix(f"{pt.label}: ")
            errors.setdefault(what, []).append(pt.label if what != text else "")
            continue
        checked.append((pt, scenario))
    if errors:
        raise ScenarioError(_plan_errors(sweep.source, errors, len(points)))
    return [sweep.run_at(pt, sc, r) for r in range(sweep.replicates) for pt, sc in checked]


def _plan_errors(source: str, errors: Mapping[str, Sequence[str]], points: int) -> str:
    """plan()'s message: one line per distinct error, at its first grid point, with how many more share it."""
    bad = sum(len(at) for at in errors.values())
    lines = []
    for what, at in list(errors.items())[:MAX_ERRORS_SHOWN]:
        same = f" (and {len(at) - 1} more grid point{'s' if len(at) > 2 else ''})" if len(at) > 1 else ""
        lines.append(f"{at[0]}: {what}{same}" if at[0] else f"{what}{same}")
    more = f"\n  ... and {len(errors) - MAX_ERRORS_SHOWN} more errors" if len(errors) > MAX_ERRORS_SHOWN else ""
    verb = "is" if bad == 1 else "are"
    return f"{source}: {bad} of {points} grid points {verb} invalid; nothing was run:\n  " + "\n  ".join(lines) + more
