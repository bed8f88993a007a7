"""One definition of a claim's verdict for every study (issue 14, item 7)."""

from __future__ import annotations

import inspect

import pytest

from ccsim.studies import bisoy, patel, ramachendra, vyshnavi
from ccsim.studies import claims as cl
from ccsim.studies.mehta import claims as mehta_claims


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


def test_every_study_uses_the_one_definition() -> None:
    """No study module defines its own yes/partly/no rule: each imports `claims.judge`."""
    for module in (bisoy, patel, ramachendra, vyshnavi, mehta_claims):
        source = inspect.getsource(module)
        assert "judge(" in source, module.__name__
        assert "verdict_all" not in source, module.__name__
        assert "def _verdict" not in source, module.__name__
