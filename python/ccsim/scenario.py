"""Reading scenarios: a TOML or JSON file, or a dict, into the text the engine parses.

The engine (Rust) does all the parsing and validation, so a scenario reaches it
as text plus a format and a source label; error messages then name the file as
the user gave it ("examples/x.toml: flows[0].rate: ...").
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ccsim import _core
from ccsim._core import ScenarioError

Format = Literal["toml", "json"]

DICT_SOURCE = "<dict>"
"""The source label of a scenario given as a mapping."""


class ScenarioText(NamedTuple):
    """A scenario ready for the engine.

    A NamedTuple rather than a frozen dataclass: `dataclasses` imports `inspect`, about a tenth of the
    CLI's start-up (docs/performance.md, "Start-up"), and every command reads a scenario.
    """

    text: str
    source: str
    fmt: Format
    plugin_dirs: tuple[str, ...] = ()
    """Folders searched first for the modules of `python:` algorithms (the scenario file's folder)."""

    def parsed(self) -> dict[str, Any] | None:
        """The scenario as a dict, read by the engine's parser; None if it does not parse (the run reports why)."""
        try:
            data = json.loads(_core.parse_scenario(self.text, self.source, self.fmt))
        except (ScenarioError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def trace_name(self) -> str | None:
        """The scenario's name if it asks for a packet trace (`[output] trace` other than "none"), else None."""
        data = self.parsed()
        if data is None:
            return None
        output = data.get("output")
        name = data.get("name")
        if not isinstance(output, dict) or not isinstance(name, str):
            return None
        trace = output.get("trace")
        return name if isinstance(trace, str) and trace != "none" else None


ScenarioInput = str | os.PathLike[str] | Mapping[str, Any] | ScenarioText
"""A path to a .toml or .json file, a scenario as a mapping (the TOML structure), or one already read."""


def format_of(path: Path) -> Format:
    """The format of a scenario file by its extension: ".json" is JSON, anything else TOML."""
    return "json" if path.suffix.lower() == ".json" else "toml"


MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest scenario or sweep file read (the shipped ones are a few KB; /dev/zero is endless)."""


def read_text(path: str | os.PathLike[str], what: str = "scenario") -> str:
    """A scenario or sweep file's text; unreadable, not UTF-8 or too large raises ScenarioError naming it."""
    source = os.fspath(path)
    try:
        with Path(source).open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        reason = e.strerror or str(e)
        raise ScenarioError(f"{source}: cannot read the {what}: {reason}") from e
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(f"{source}: cannot read the {what}: larger than {MAX_FILE_BYTES // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{source}: cannot read the {what}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def read_file(path: str | os.PathLike[str]) -> ScenarioText:
    """Read a scenario file; an unreadable file raises ScenarioError naming it."""
    source = os.fspath(path)
    folder = os.fspath(Path(source).resolve().parent)
    return ScenarioText(text=read_text(source), source=source, fmt=format_of(Path(source)), plugin_dirs=(folder,))


def from_mapping(scenario: Mapping[str, Any], source: str = DICT_SOURCE) -> ScenarioText:
    """Serialize a mapping as JSON for the engine; values JSON cannot hold raise ScenarioError."""
    try:
        text = json.dumps(scenario, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"{source}: the scenario cannot be written as JSON: {e}") from e
    return ScenarioText(text=text, source=source, fmt="json")


def load(scenario: ScenarioInput) -> ScenarioText:
    """A scenario given as a path or a mapping, as text for the engine (a ScenarioText as it is: read once)."""
    if isinstance(scenario, ScenarioText):
        return scenario
    if isinstance(scenario, Mapping):
        return from_mapping(scenario)
    if isinstance(scenario, str | os.PathLike):
        return read_file(scenario)
    raise TypeError(f"expected a path or a mapping, got {type(scenario).__name__}")


def check_seed(seed: int | None) -> int | None:
    """Check a seed override: an integer in [0, 2**64)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ScenarioError(f"seed: expected an integer in 0..2^64-1, got {seed!r}")
    return seed


def is_sweep_file(path: str | os.PathLike[str]) -> bool:
    """Whether a file is a sweep (a TOML table with a `base` key, which no scenario has).

    Here rather than in ccsim.sweep.spec so that `ccsim validate` of a scenario loads not the sweep
    spec's imports (hashlib, OpenSSL's among them; docs/performance.md, "Start-up").
    """
    import tomllib  # noqa: PLC0415 (only `ccsim validate` asks)

    p = Path(path)
    if p.suffix.lower() == ".json":
        return False
    try:
        return "base" in tomllib.loads(read_text(p))
    except (ScenarioError, tomllib.TOMLDecodeError, RecursionError):
        return False  # reading it as a scenario reports the problem
