"""`ccsim run`'s tables drawn without rich (ccsim.plain_table) are what rich draws off a terminal."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console

import ccsim
from ccsim import display
from ccsim.plain_table import TextTable, render, to_rich

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 132


def rich_text(t: TextTable, width: int = WIDTH) -> str:
    """What `ccsim run` printed with rich on a pipe (its console off a terminal)."""
    buf = io.StringIO()
    Console(file=buf, highlight=False, width=width, no_color=True).print(to_rich(t))
    return buf.getvalue()


@pytest.mark.parametrize(
    "scenario", ["examples/dumbbell_udp.toml", "examples/slowcc_cbr_restart.toml", "benches/wlan_20_saturated.toml"]
)
def test_run_tables_are_drawn_as_rich_draws_them(scenario: str) -> None:
    doc = ccsim.scenario.load(ROOT / scenario).parsed()
    doc["duration"] = "2s"
    doc.pop("warmup", None)
    result = ccsim.run(doc)
    drawn = 0
    for flows, queues in ((False, False), (True, True)):
        for t in display.run_tables(result, flows=flows, queues=queues):
            plain = render(t, WIDTH)
            if plain is not None:
                assert plain == rich_text(t)
                drawn += 1
    assert drawn >= 3  # the compact output (summary, groups, busiest queues) needs no rich


def random_table(rng: random.Random) -> TextTable:
    def word() -> str:
        return "".join(rng.choice("abc xyz019.-%*>") for _ in range(rng.randint(0, 12))).strip()

    t = TextTable(title=word() or None, caption=rng.choice([None, word()]), show_header=rng.random() < 0.8)
    for _ in range(rng.randint(1, 6)):
        header = "\n".join(word() for _ in range(rng.randint(1, 3)))
        t.add_column(header, rng.choice(["left", "right"]))
    for _ in range(rng.randint(0, 5)):
        t.add_row(*(word() for _ in t.columns))
    return t


def test_random_tables_are_drawn_as_rich_draws_them() -> None:
    rng = random.Random(5)
    drawn = 0
    for _ in range(300):
        t = random_table(rng)
        width = rng.choice([20, 40, WIDTH])
        plain = render(t, width)
        if plain is not None:
            assert plain == rich_text(t, width), t
            drawn += 1
    assert drawn > 100


@pytest.mark.parametrize(
    "cell", ["[bold]x", "a:smile:b", "é", "a\tb", "x" * 200], ids=["markup", "emoji", "non-ascii", "tab", "too-wide"]
)
def test_what_rich_would_draw_otherwise_is_left_to_rich(cell: str) -> None:
    t = TextTable(title="T")
    t.add_column("c")
    t.add_row(cell)
    assert render(t, WIDTH) is None
