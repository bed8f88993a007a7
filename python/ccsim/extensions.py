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

import contextlib
import importlib
import importlib.util
import json
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType, TracebackType

__all__ = ["describe", "instantiate", "load_class", "plugin_dirs_of"]


class ExtensionError(Exception):
    """A `python:` name that cannot be loaded: the message says why (one line)."""


def describe(exc: BaseException, tb: TracebackType | None = None) -> str:
    """One line for an exception raised by user code: `Type: message (file.py, line N, in function)`.

    The place is the innermost frame outside this module (the user's code,
    not the loading machinery).
    """
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    here = Path(__file__).name
    frames = [f for f in traceback.extract_tb(tb or exc.__traceback__) if Path(f.filename).name != here]
    if frames:
        last = frames[-1]
        text += f" ({Path(last.filename).name}, line {last.lineno}, in {last.name})"
    return " ".join(text.split())


_LOADED: dict[str, tuple[str, int, int]] = {}
"""Modules loaded from a scenario's folder: name -> (file, modification time and size when loaded)."""


def _from_folder(module: str, dirs: Sequence[str]) -> ModuleType | None:
    """`module` loaded from `<dir>/<module>.py` of the first folder that has it, or None.

    A module of that name imported before from another file, or from this
    file before it changed, is loaded afresh: two scenarios in two folders
    may each have their own `aqm.py`, and an edited class takes effect on
    the next run (in a notebook, say) without restarting Python.
    """
    if "." in module:
        return None
    for d in dirs:
        path = Path(d) / f"{module}.py"
        if not path.is_file():
            continue
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
        current = sys.modules.get(module)
        if current is not None and _LOADED.get(module) == key:
            return current
        spec = importlib.util.spec_from_file_location(module, path)
        if spec is None or spec.loader is None:
            return None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[module] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[module]
            _LOADED.pop(module, None)
            raise
        _LOADED[module] = key
        return mod
    return None


def _import(module: str, dirs: Sequence[str]) -> ModuleType:
    """Import `module`: from the scenario's folders first (`dirs`), else from sys.path."""
    found = _from_folder(module, dirs)
    if found is not None:
        return found
    if _LOADED.pop(module, None) is not None:  # another scenario's folder had it, this one has not
        sys.modules.pop(module, None)
    added = [d for d in dirs if d not in sys.path]  # a package in a scenario folder
    sys.path[:0] = added
    try:
        return importlib.import_module(module)
    finally:
        for d in added:
            with contextlib.suppress(ValueError):  # the module's own code changed sys.path
                sys.path.remove(d)


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
            raise ExtensionError(f"no module named {e.name!r} (searched {where}, then sys.path/PYTHONPATH)") from None
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
    """The folders of the given scenario or sweep files (absolute, no repeats): `python:` modules are looked for there.

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
