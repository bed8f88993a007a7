"""The example scenarios and sweeps that ship inside the package (`ccsim examples`, `ccsim run --example`).

They live in `ccsim/examples/` so that an installed wheel has them;
`examples/` at the repository's root is a link to the same folder.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from ccsim.scenario import ScenarioError

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"


@dataclass(frozen=True)
class Example:
    """One shipped example: its name (the file's stem), path and first comment line."""

    name: str
    path: Path
    summary: str


def _summary(path: Path) -> str:
    """The first comment line of a TOML file, without the '#'."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip():
            break
    return ""


def examples() -> list[Example]:
    """Every shipped example, by name."""
    return [Example(p.stem, p, _summary(p)) for p in sorted(EXAMPLES_DIR.glob("*.toml"))]


def example(name: str) -> Example:
    """The shipped example `name` (with or without `.toml`); ScenarioError naming the known ones otherwise."""
    stem = name.removesuffix(".toml")
    for e in examples():
        if e.name == stem:
            return e
    known = ", ".join(e.name for e in examples())
    raise ScenarioError(f"no shipped example named {name!r}; expected one of {known} (ccsim examples lists them)")


def copy_example(name: str, folder: Path) -> Path:
    """Copy a shipped example into `folder` (created if missing); the copy's path. An existing file is kept.

    An example with a Python module of its name beside it (`python_red.toml`
    and `python_red.py`: an algorithm written in Python) is copied with it,
    so that the copy finds its module next to it.
    """
    e = example(name)
    folder.mkdir(parents=True, exist_ok=True)
    module = e.path.with_suffix(".py")
    files = [e.path, module] if module.is_file() else [e.path]
    for f in files:
        target = folder / f.name
        if target.exists():
            raise ScenarioError(f"{target}: already exists; remove it or copy elsewhere (--copy DIR)")
    for f in files:
        shutil.copyfile(f, folder / f.name)
    return folder / e.path.name
