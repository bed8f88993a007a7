"""One definition of a claim's verdict for every study (issue 14, item 7)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from ccsim import studies
from ccsim.studies import claims as cl

PACKAGES = ("patel", "bisoy", "vyshnavi", "ramachendra", "mehta")


@pytest.mark.parametrize(
    ("holds", "significant", "expected"),
    [
        ([True, True], [True, True], cl.AGREES),
        ([True, True], [True, False], cl.DIRECTION),
        ([True, True], [False, False], cl.DIRECTION),
        ([True, False], [True, False], cl.PARTLY),
        ([True, False], [True, True], cl.PARTLY),
        # holding somewhere without significance is not "partly": nothing supports the claim
        ([True, False], [False, False], cl.DISAGREES),
        ([False, False], [True, True], cl.DISAGREES),
        ([], [], cl.DISAGREES),
    ],
)
def test_judge(holds: list[bool], significant: list[bool], expected: str) -> None:
    assert cl.judge(holds, significant) == expected


def test_single_comparison_is_judge_of_one() -> None:
    for h in (True, False):
        for s in (True, False):
            assert cl.verdict(h, s) == cl.judge([h], [s])


def test_exact_and_same_are_judge() -> None:
    """Claims without spread and claims of no difference are judged by `judge` too."""
    assert cl.exact(True) == cl.AGREES
    assert cl.exact(False) == cl.DISAGREES
    assert cl.same([False, False]) == cl.AGREES
    assert cl.same([True, False]) == cl.PARTLY
    assert cl.same([True, True]) == cl.DISAGREES


VERDICTS = {"AGREES", "DISAGREES", "PARTLY", "DIRECTION"}
STUDY_MODULES = ("setup", "tables", "figures", "claims", "study")


def _package(study: str) -> Path:
    return Path(studies.__file__).parent / study


@pytest.mark.parametrize("study", PACKAGES)
def test_every_study_has_the_one_layout(study: str) -> None:
    """A package per study with the same modules, and its STUDY built from them (issue 14, item 7)."""
    folder = _package(study)
    assert {p.stem for p in folder.glob("*.py")} >= {"__init__", *STUDY_MODULES}
    pkg = importlib.import_module(f"ccsim.studies.{study}")
    mods = {m: importlib.import_module(f"ccsim.studies.{study}.{m}") for m in STUDY_MODULES}
    assert pkg.STUDY is mods["study"].STUDY
    assert pkg.STUDY.build is mods["tables"].tables
    assert pkg.STUDY.figures is mods["figures"].figures
    assert pkg.STUDY.claims is mods["claims"].claims
    assert pkg.STUDY in studies.STUDIES.values()


def test_every_registered_study_is_a_package() -> None:
    assert sorted(s.build.__module__.split(".")[2] for s in studies.STUDIES.values()) == sorted(PACKAGES)


@pytest.mark.parametrize("study", PACKAGES)
def test_every_study_uses_the_one_definition(study: str) -> None:
    """No study sets a verdict itself: every yes / partly / direction only / no comes from `claims.judge`
    (or `verdict`, `exact`, `same`, which call it). A study naming a verdict constant, as patel's
    claims once did with their own rule for "partly", fails here."""
    used = []
    for path in sorted(_package(study).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            if name in VERDICTS:
                used.append(f"{path.name}:{node.lineno} {name}")
            if isinstance(node, ast.FunctionDef) and node.name in ("judge", "verdict"):
                used.append(f"{path.name}:{node.lineno} def {node.name}")
    assert used == []
    claims_source = (_package(study) / "claims.py").read_text(encoding="utf-8")
    assert any(f"{f}(" in claims_source for f in ("judge", "verdict", "exact", "same"))


SHARED = ("claims.py", "core.py", "common.py", "tables.py", "figures.py", "report.py", "run.py")
PAPER_WORDS = (*PACKAGES, "table 2", "table 3", "seed paper", "fig. ")


@pytest.mark.parametrize("path", [f"studies/{m}" for m in SHARED] + ["report.py"])
def test_the_generic_code_names_no_paper(path: str) -> None:
    """What every study shares, and `ccsim report`, hold no study's paper: the generic report was once
    shaped around the patel paper's Tables 2 and 3 (issue 14, item 7); a paper's shape is its package's."""
    text = (Path(studies.__file__).parents[1] / path).read_text(encoding="utf-8").lower()
    assert [w for w in PAPER_WORDS if w in text] == []
