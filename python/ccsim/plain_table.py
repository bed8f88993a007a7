"""Tables as text: what `ccsim run` prints, drawn without rich when rich would draw the same characters.

rich takes about 50 ms to import, a third of what `ccsim run` may add to a
small run (docs/performance.md, "Run overhead"). Off a terminal rich draws
no colours, and a table that fits the width is only box characters and
padded cells; `render` draws exactly that, and returns None for anything
else (a cell to wrap, markup or emoji codes rich would interpret, wide
characters), which is then left to rich (`to_rich`).
tests/python/test_plain_table.py compares the two.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.table import Table

Justify = Literal["left", "right"]

# What rich would read as markup ("[bold]") or an emoji code (":smile:") in a string it prints.
_RICH_SYNTAX = re.compile(r"\[|:\S*?:")


class TextTable:
    """A table to print: a title above, a caption below, columns with their justification, rows of text.

    A plain class rather than a dataclass: `dataclasses` imports `inspect`, about a tenth of `ccsim run`'s
    start-up (docs/performance.md, "Start-up").
    """

    def __init__(self, title: str | None = None, caption: str | None = None, show_header: bool = True) -> None:
        self.title = title
        self.columns: list[tuple[str, Justify]] = []
        self.rows: list[list[str]] = []
        self.caption = caption
        self.show_header = show_header

    def add_column(self, header: str, justify: Justify = "left") -> None:
        """A column, its header (lines separated by newlines) and how its cells are justified."""
        self.columns.append((header, justify))

    def add_row(self, *cells: str) -> None:
        """A row: one text per column."""
        self.rows.append(list(cells))


def to_rich(t: TextTable) -> Table:
    """The same table as a rich Table (title and caption left-justified)."""
    from rich.table import Table  # noqa: PLC0415

    r = Table(title=t.title, title_justify="left", show_header=t.show_header)
    for header, justify in t.columns:
        r.add_column(header, justify=justify)
    for row in t.rows:
        r.add_row(*row)
    if t.caption is not None:
        r.caption = t.caption
        r.caption_justify = "left"
    return r


def _plain(text: str) -> bool:
    """Whether rich prints `text` as it is: printable ASCII, no markup, no emoji code."""
    return text.isascii() and text.isprintable() and not _RICH_SYNTAX.search(text)


def render(t: TextTable, width: int) -> str | None:
    """The table as rich draws it on a console `width` columns wide without colours, or None if rich
    would draw it otherwise (too wide, a title or caption to wrap, text rich would interpret).

    rich's table (box.HEAVY_HEAD, one space of padding each side of a cell): the title and the
    caption padded to the table's width; a heavy header box, its cells bottom-aligned; light rules
    around the body; a light top edge when the table has no header.
    """
    headers = [h.split("\n") for h, _ in t.columns] if t.show_header else []
    if not t.columns or any(len(r) != len(t.columns) for r in t.rows):
        return None
    texts = [line for h in headers for line in h] + [c for r in t.rows for c in r]
    # rich draws no empty title or caption.
    notes = [x for x in (t.title, t.caption) if x]
    texts += notes
    if not all(_plain(x) for x in texts):
        return None
    widths = [max([len(line) for line in h] if headers else [0]) for h in headers] or [0] * len(t.columns)
    for row in t.rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    total = sum(widths) + 3 * len(widths) + 1
    if not all(widths):  # rich gives an empty column a width of its own
        return None
    if total > width or any(len(x) > total for x in notes):
        return None

    def line(cells: list[str], edge: str, sep: str) -> str:
        padded = [
            c.ljust(w) if j == "left" else c.rjust(w) for c, w, (_, j) in zip(cells, widths, t.columns, strict=True)
        ]
        return edge + sep.join(f" {c} " for c in padded) + edge

    def rule(left: str, fill: str, sep: str, right: str) -> str:
        return left + sep.join(fill * (w + 2) for w in widths) + right

    out = [t.title.ljust(total)] if t.title else []
    if t.show_header:
        height = max(len(h) for h in headers)
        out.append(rule("┏", "━", "┳", "┓"))
        bottom_aligned = [[""] * (height - len(h)) + h for h in headers]
        out += [line([h[i] for h in bottom_aligned], "┃", "┃") for i in range(height)]
        out.append(rule("┡", "━", "╇", "┩"))
    else:
        out.append(rule("┌", "─", "┬", "┐"))
    out += [line(r, "│", "│") for r in t.rows]
    out.append(rule("└", "─", "┴", "┘"))
    if t.caption:
        out.append(t.caption.ljust(total))
    return "\n".join(out) + "\n"
