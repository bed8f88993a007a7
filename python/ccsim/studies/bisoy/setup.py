"""The bisoy study's set-up: its parts, cases and their names and looks."""

from __future__ import annotations

from ccsim.plots import style

NAME = "bisoy-aqm"
FLOWS = "flows[0].count"
LENGTH = "sim_time_s"
"""The time table's column: the length T of the simulation the row stands for."""
TIME_PART = "time"
TIME_STEPS = 6
"""Figures 8-9 cut each run into this many equal lengths: 25, 50, ..., 150 s of the paper's 150 s."""

MAIN_CASES = ("droptail", "gred", "nlred", "rem")
MAXP_CASES = {"gred": ("gred", "gred_p0.3", "gred_p0.5"), "nlred": ("nlred", "nlred_p0.3", "nlred_p0.5")}
MAXP = (0.1, 0.3, 0.5)
NAMES = {
    "droptail": "DropTail",
    "gred": "GRED",
    "nlred": "NLRED",
    "rem": "REM",
    "gred_p0.3": "GRED (max_p 0.3)",
    "gred_p0.5": "GRED (max_p 0.5)",
    "nlred_p0.3": "NLRED (max_p 0.3)",
    "nlred_p0.5": "NLRED (max_p 0.5)",
    "nlred_same_p": "NLRED (0.1 x^2)",
}
SAME_P = "nlred_same_p"
"""NLRED with the curve 0.1 x^2 (max_p 0.1 / 1.5): the paper's Section 2.3 reading, a check of the main one."""
LOOKS = {
    # The house style gives REM and NLRED the same colour and marker (slots 2 and 9 of 7 colours):
    # NLRED, the paper's subject, gets the vermillion slot here so that the two are told apart at a glance.
    "nlred": style.Look(color=style.OKABE_ITO[4], linestyle="-.", marker="D"),
}
LABELS_P01 = {**NAMES, "gred": "GRED (max_p 0.1)", "nlred": "NLRED (max_p 0.1)"}


def short(col: str) -> str:
    """A grid column's letter in the findings: N (flows), T (simulation length)."""
    return "N" if col == FLOWS else "T" if col == LENGTH else col
