"""Algorithms written in Python: the classes a scenario names as `python:module.Class` (docs/extending.md).

A queue discipline subclasses `ccsim.QueueDisc` and a congestion controller
`ccsim.CongestionControl` (both defined by the engine, `ccsim._core`); the
engine calls them through the same traits as its own algorithms. This
module is the Python half of the loading: the engine calls `load_class`,
`instantiate` and `describe` while it builds a scenario and when user code
raises; nothing here runs per packet.

Where `module` is found: first among the folders the scenario comes with
(the scenario file's folder, and a sweep file's and its base scenario's
folders), then on `sys.path` (the working directory in an interactive
session, PYTHONPATH, installed packages).
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["describe", "instantiate", "load_class", "plugin_dirs_of"]


class ExtensionError(Exception):
    """A `python:` name that cannot be loaded: the message says why (one line)."""


def describe(exc: BaseException) -> str:
    """One line for an exception raised by user code: `Type: message (file.py, line N)`."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        text += f" ({Path(last.filename).name}, line {last.lineno}, in {last.name})"
    return " ".join(text.split())


def _import(module: str, dirs: Sequence[str]) -> Any:
    """Import `module`, looking first in `dirs`, then on sys.path."""
    added = [d for d in dirs if d not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(module)
    finally:
        for d in added:
            try:
                sys.path.remove(d)
            except ValueError:  # the module's own code changed sys.path
                pass


def load_class(spec: str, dirs: Sequence[str], base: type) -> type:
    """The class `spec` ("module.Class", "package.module.Class") names, a subclass of `base`.

    Raises ExtensionError with one line saying what is missing.
    """
    module, _, name = spec.rpartition(".")
    kind = base.__name__
    if not module or not name:
        raise ExtensionError(f'expected "python:module.Class" naming a subclass of ccsim.{kind}, got "python:{spec}"')
    where = ", ".join(dirs) if dirs else "no scenario folder"
    try:
        mod = _import(module, dirs)
    except ModuleNotFoundError as e:
        if e.name is not None and module.startswith(e.name):
            raise ExtensionError(
                f"no module named {e.name!r} (searched {where}, then sys.path/PYTHONPATH)"
            ) from None
        raise ExtensionError(f"importing {module!r} failed: {describe(e)}") from None
    except Exception as e:  # the module's own code raised while importing
        raise ExtensionError(f"importing {module!r} failed: {describe(e)}") from None
    cls = getattr(mod, name, None)
    if cls is None:
        raise ExtensionError(f"module {module!r} ({getattr(mod, '__file__', '?')}) has no attribute {name!r}")
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise ExtensionError(f"{spec} is not a subclass of ccsim.{kind}")
    return cls


def instantiate(cls: type, params_json: str) -> object:
    """`cls(**params)`, the parameters being the scenario table's other keys (JSON text)."""
    params = json.loads(params_json)
    return cls(**params)


def plugin_dirs_of(*paths: str | Path | None) -> list[str]:
    """The folders of the given scenario or sweep files (absolute, without repeats), where `python:` modules are looked for first.

    Labels that are not files (a scenario given as a dict) add nothing.
    """
    dirs: list[str] = []
    for p in paths:
        if p is None or not Path(p).is_file():
            continue
        d = str(Path(p).resolve().parent)
        if d not in dirs:
            dirs.append(d)
    return dirs
