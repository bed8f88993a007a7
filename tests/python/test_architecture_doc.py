"""docs/architecture.md names only files, folders and modules that exist (issue 14, item 8).

The guide for a new engineer is true only while the paths it names are: a
module moved or split (a study's `patel.py` becoming the package `patel/`)
must take the document with it. Every path in backquotes is checked: a
path with a folder or a source suffix must be the end of a path in the
repository (a placeholder such as NAME, SHORT or `<name>` matches any one
name), and a dotted `ccsim.x` must be a module or package of python/ccsim/.
The files a run, a sweep or a study writes are outputs, not repository
files, and are not looked for.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
SKIP_DIRS = {".git", ".venv", ".venv-ns3", "target", "node_modules", "__pycache__"}
SKIP_TOP = {"results", "build"}
"""Folders of outputs at the root (the source folder `crates/ccsim-core/src/build/` is kept)."""
SOURCE_SUFFIXES = (".rs", ".py", ".pyi", ".toml", ".tcl", ".cc", ".sh", ".md")
PLACEHOLDER = re.compile(r"<[^>]*>|\bNAME\b|\bSHORT\b|\*")
# Written by runs, sweeps and studies (the table "The files a run, a sweep and a study write").
OUTPUTS = {
    "claims.md",
    "summary.md",
    "meta.json",
    "summary.json",
    "plots/*.png",
    "results/<name>/",
    "timeseries/",
    "timeseries/<run_id>.parquet",
}


def _repository_paths() -> list[str]:
    """Every file and folder of the repository (folders end in '/'), relative to its root."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        rel = Path(folder).relative_to(ROOT).as_posix()
        skip = SKIP_DIRS | (SKIP_TOP if rel == "." else set())
        dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
        prefix = "" if rel == "." else rel + "/"
        out += [prefix + d + "/" for d in dirs]
        out += [prefix + f for f in files]
    return out


def _named() -> list[str]:
    """The backquoted words of the document that are paths or ccsim modules."""
    words = re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8"))
    named = []
    for w in words:
        if " " in w or w in OUTPUTS:
            continue
        if w.startswith("ccsim.") or "/" in w or w.endswith(SOURCE_SUFFIXES):
            named.append(w)
    return sorted(set(named))


def _exists(word: str, paths: list[str]) -> bool:
    if word.startswith("ccsim.") and "/" not in word:
        parts = word.removesuffix("()").split(".")
        base = ROOT / "python" / "ccsim"
        first = base / parts[1]
        if len(parts) == 2 and not (first.with_suffix(".py").is_file() or first.is_dir()):
            # A name of the package itself (`ccsim.run`, `ccsim.Result`): defined or imported in __init__.py.
            init = (base / "__init__.py").read_text(encoding="utf-8")
            return re.search(rf"\b{re.escape(parts[1])}\b", init) is not None
        # The module is the longest prefix that is a file or package; what follows are names in it.
        for i in range(len(parts), 1, -1):
            target = base.joinpath(*parts[1:i])
            if target.with_suffix(".py").is_file() or target.with_suffix(".pyi").is_file() or target.is_dir():
                return True
        return False
    pattern = PLACEHOLDER.sub("*", word)
    candidates = [*paths, *(p.rstrip("/") for p in paths if p.endswith("/"))]
    return any(fnmatch.fnmatchcase(p, pattern) or fnmatch.fnmatchcase(p, "*/" + pattern) for p in candidates)


def test_the_paths_in_the_architecture_doc_exist() -> None:
    paths = _repository_paths()
    named = _named()
    assert len(named) > 50, "the document names its modules in backquotes"
    missing = [w for w in named if not _exists(w, paths)]
    assert missing == [], f"docs/architecture.md names paths that do not exist: {missing}"


def test_a_moved_module_is_caught() -> None:
    """The check itself: a study module that became a package is not found, its package is."""
    paths = _repository_paths()
    assert not _exists("studies/patel.py", paths)
    assert _exists("studies/patel/claims.py", paths)
    assert _exists("python/ccsim/studies/data/NAME/", paths)
    assert not _exists("ccsim.no_such_module", paths)
    assert _exists("ccsim.studies.claims", paths)


RECIPES = ("**A queue discipline.**", "**A congestion controller.**", "**A metric.**", "**A study.**")


def _rust_sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "crates").rglob("*.rs")))


def _defined(name: str, sources: str) -> bool:
    """Whether the Rust item, field or variant `name` is defined in the crates."""
    n = re.escape(name)
    item = rf"\b(fn|struct|enum|trait|const|static|mod|type)\s+{n}\b|macro_rules!\s*{n}\b"
    member = rf"(?m)^\s*(pub(\([a-z]+\))?\s+)?{n}\s*[:,({{]"
    return re.search(item, sources) is not None or re.search(member, sources) is not None


def test_the_recipes_for_a_new_engineer_are_there() -> None:
    """The section a new engineer follows exists, with a recipe for each kind of part the issue names."""
    text = DOC.read_text(encoding="utf-8")
    head = "## Adding a queue discipline, congestion controller, metric or study: what a new engineer touches"
    assert head in text
    section = text[text.index(head) :]
    assert all(r in section for r in RECIPES), [r for r in RECIPES if r not in section]


def test_the_rust_names_in_the_architecture_doc_are_defined() -> None:
    """Every `a::b` the document names (a module's or type's item: `registry::every_kind`, `Queue::window_stats`)
    is defined in the crates: its module or type and its last name."""
    sources = _rust_sources()
    names = sorted(set(re.findall(r"`([A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)+)`", DOC.read_text("utf-8"))))
    assert len(names) > 30
    missing = []
    for name in names:
        first, *_, last = name.split("::")
        module = (ROOT / "crates").rglob(f"{first}.rs") if first.islower() else iter(())
        if not (_defined(first, sources) or any(True for _ in module)) or not _defined(last, sources):
            missing.append(name)
    assert missing == [], f"docs/architecture.md names Rust items that are not defined: {missing}"
    assert not _defined("no_such_item_anywhere", sources)


def test_the_kernel_never_names_the_wlan() -> None:
    """Issue 14, item 3: the event loop drives media through the `Medium` trait; `sim.rs` and `event.rs` name
    neither 802.11 nor the WLAN in code (no `EventKind::Mac`, no WLAN hand-off; a comment may cite one as an
    example of a medium)."""
    src = ROOT / "crates" / "ccsim-core" / "src"
    for name in ("sim.rs", "event.rs"):
        text = re.sub(r"//.*", "", (src / name).read_text(encoding="utf-8"))
        assert re.search(r"802\.11|\bwlan\b|\bWlan\b|EventKind::Mac|\bMac\b", text, re.IGNORECASE) is None, name
