"""The mehta study's set-up: parts, flow groups and kinds (names in the paper, looks), the readings' constants."""

from __future__ import annotations

from ccsim.plots import style

MAIN, FLASH, SQUARE = "main", "flash", "square"
LONG, CROWD, CBR, TCP_GROUP, OTHER = "slowcc", "crowd", "cbr", "tcp", "other"

LABELS = {
    "tcp": "TCP",
    "aimd_1_8": "TCP(1/8)",
    "aimd_1_256": "TCP(1/256)",
    "sqrt_1_256": "SQRT(1/256)",
    "sqrt_1_2": "SQRT(1/2)",
    "iiad_1_2": "IIAD(1/2)",
    "tfrc_8": "TFRC(8)",
    "tfrc_256": "TFRC(256)",
    "tfrc_256_sc": "TFRC(256) self-clocked",
}
"""The cases' names in the paper's notation (TCP(b) is AIMD with decrease b, TFRC(n) averages n loss intervals)."""

# One look per kind across every figure: Okabe-Ito colours, a second line style for a variant.
_LOOKS = {
    "tcp": (style.BLACK, "-"),
    "aimd_1_8": ("#56B4E9", "-"),
    "aimd_1_256": ("#0072B2", "--"),
    "sqrt_1_256": ("#E69F00", "-"),
    "sqrt_1_2": ("#E69F00", "--"),
    "iiad_1_2": ("#CC79A7", "-"),
    "tfrc_8": ("#009E73", "-"),
    "tfrc_256": ("#D55E00", "-"),
    "tfrc_256_sc": ("#D55E00", "--"),
}
TABLE1 = ("tcp", "aimd_1_256", "sqrt_1_256", "tfrc_256", "tfrc_256_sc")
"""The kinds of the paper's Table 1 (TCP AIMD(1/2) is TCP): the lines of its Figure 6."""
SLOW_MAIN = ("aimd_1_256", "sqrt_1_256", "tfrc_256")
"""The slowly-responsive kinds Bansal et al. compare with TCP after the CBR restarts."""
EARLY_FLASH = ("tfrc_256_sc", "sqrt_1_2", "iiad_1_2")
"""The kinds the paper says respond earlier to the flash crowd ..."""
LATE_FLASH = ("aimd_1_256", "tfrc_256")
"""... than these (our reading: the other slowly-responsive kinds of its Figures 8-14)."""
MID_PERIODS = (1.0, 2.0, 4.0, 10.0)
"""The square wave's periods 'between 1 and 10 s' where the paper says TCP gets more than TFRC."""
NEGLIGIBLE = 0.01
"""Our reading of a 'negligible' drop rate: below 1%."""
COMPATIBLE = 1.1
"""Our reading of 'about TCP's throughput' (TCP-compatible): the ratio within 1/1.1 and 1.1."""


def label(case: str) -> str:
    """A case's name in the paper's notation."""
    return LABELS.get(case, case)


def look(case: str) -> tuple[str, str]:
    """(colour, line style) of a case."""
    return _LOOKS.get(case, (style.color(case), "-"))
