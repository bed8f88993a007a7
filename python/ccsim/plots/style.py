"""The house style of ccsim's figures: one look for every plot, sized for a paper.

- Colours: the Okabe-Ito palette (Okabe and Ito, "Color Universal Design",
  2008), distinguishable with every common form of colour blindness. An
  algorithm or case name always gets the same colour (and line style and
  marker), in every figure of every run: known names (queue disciplines,
  congestion controllers) have fixed slots; other names get a slot from a
  stable hash of the name (CRC-32, never Python's per-process `hash`).
- Size: 3.5 in wide (one column of a two-column paper) at 300 dpi, 8-point
  text; `WIDE` (7.16 in) for the grouped bars of many cases.
- Files: PNG and SVG always, PDF on request, written without timestamps in
  their metadata so that the same data give the same bytes.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import matplotlib as mpl

# No `mpl.use(...)`: figures are `Figure` objects, never pyplot's, and
# `Figure.savefig` picks the renderer for the file format itself, so the
# user's backend (a Jupyter notebook's, say) is left as it was.
from matplotlib.axes import Axes
from matplotlib.figure import Figure

# Okabe-Ito, in their published order without black (kept for "aggregate").
OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow (last: weakest on white)
)
BLACK = "#000000"
GREY = "#999999"
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")

# Fixed slots: names studied together get different colours. Slot k has colour
# k mod 7 and line style k // 7, so the first 7 names of each list are told
# apart by colour alone.
KNOWN = (
    # queue disciplines
    "droptail",
    "red",
    "rem",
    "pie",
    "codel",
    "fq_codel",
    "sfq",
    "ared",
    "gred",
    "nlred",
    "wred",
    "rio",
    "modred",
    "avq",
    "pi",
    "blue",
    "sfb",
    "sred",
    "fred",
    "choke",
    "drr",
    "rr",
    "dropfront",
    "lired",
)
# Congestion controllers and transports: their own slots (a figure compares
# either queue disciplines or transports), the commonest first and apart.
KNOWN_CC = {
    "udp": 0,
    "tfrc": 1,
    "bbr": 2,
    "newreno": 3,
    "cubic": 4,
    "reno": 5,
    "vegas": 6,
    "tahoe": 7,
    "sack": 8,
    "bic": 9,
    "highspeed": 10,
    "aimd": 11,
    "binomial": 12,
}

WIDTH_IN = 3.5
HEIGHT_IN = 2.8
WIDE_IN = 7.16
DPI = 300
FONT_PT = 8

RC = {
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "font.size": FONT_PT,
    "axes.titlesize": FONT_PT + 1,
    "axes.labelsize": FONT_PT,
    "legend.fontsize": FONT_PT - 1,
    "xtick.labelsize": FONT_PT - 1,
    "ytick.labelsize": FONT_PT - 1,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO)),
    "lines.linewidth": 1.2,
    "legend.frameon": False,
    "svg.hashsalt": "ccsim",  # stable ids inside SVG files
    "svg.fonttype": "path",  # text as paths: the SVG needs no fonts
    "pdf.fonttype": 42,
}


@dataclass(frozen=True)
class Look:
    """How one named series is drawn."""

    color: str
    linestyle: str
    marker: str


def _key(name: str) -> str:
    """The algorithm part of a label: lower case, up to the first separator ("RED (limit 50)" -> "red")."""
    m = re.match(r"[a-z0-9_]+", name.strip().lower())
    return m.group(0) if m else name.strip().lower()


def look(name: str) -> Look:
    """The colour, line style and marker of `name` (an algorithm or case), the same in every figure."""
    key = _key(name)
    if key in KNOWN:
        slot = KNOWN.index(key)
    elif key in KNOWN_CC:
        slot = KNOWN_CC[key]
    else:
        slot = zlib.crc32(name.encode("utf-8"))
    n = len(OKABE_ITO)
    return Look(
        color=OKABE_ITO[slot % n],
        linestyle=LINESTYLES[(slot // n) % len(LINESTYLES)],
        marker=MARKERS[slot % len(MARKERS)],
    )


def color(name: str) -> str:
    """The colour of `name` (see `look`)."""
    return look(name).color


@contextmanager
def house_style() -> Iterator[None]:
    """Apply the house style to the figures made inside the block."""
    with mpl.rc_context(RC):
        yield


def figure(width: float = WIDTH_IN, height: float = HEIGHT_IN) -> tuple[Figure, Axes]:
    """A new figure with one axes, in the house style (call inside `house_style`)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot()
    return fig, ax


def legend_below(ax: Axes, ncol: int = 2) -> None:
    """The legend under the axes, outside the data (constrained layout makes room for it)."""
    handles, names = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=ncol, handlelength=1.8)


FORMATS = ("png", "svg")


def save(fig: Figure, base: Path, pdf: bool = False) -> list[Path]:
    """Write `fig` as base.png and base.svg (and base.pdf), without creation dates; return the paths."""
    base.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in (*FORMATS, *(("pdf",) if pdf else ())):
        path = base.parent / f"{base.name}.{ext}"
        metadata: dict[str, str | None] = {"Software": None} if ext == "png" else {"Date": None}
        if ext == "pdf":
            metadata = {"CreationDate": None, "ModDate": None}
        fig.savefig(path, format=ext, dpi=DPI, metadata=metadata)
        paths.append(path)
    return paths


def pixel_size(width: float = WIDTH_IN, height: float = HEIGHT_IN) -> tuple[int, int]:
    """The size in pixels of a PNG written by `save` for a figure of this size (in inches)."""
    return round(width * DPI), round(height * DPI)
