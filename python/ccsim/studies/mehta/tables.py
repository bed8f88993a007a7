"""The mehta study's tables, one or two per part."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.core import StudyData, Table
from ccsim.studies.mehta.flash import flash_rows
from ccsim.studies.mehta.restart import main_rows
from ccsim.studies.mehta.setup import FLASH, MAIN, SQUARE
from ccsim.studies.mehta.square import square_rows


def tables(data: StudyData) -> list[tuple[Table, pd.DataFrame]]:
    """The tables of the three parts."""
    out: list[tuple[Table, pd.DataFrame]] = []
    if MAIN in data.parts:
        rows = main_rows(data[MAIN])
        out.append(
            (
                Table(
                    "loss",
                    "Figure 6: drop rate at RED and the flows' shares, per kind of the 15 long-lived flows "
                    "(after the restart: the first 5% of the second CBR period, pooled, and its highest 10-RTT "
                    "window; steady: the period's second half; CBR off: the gap between the periods)",
                    {
                        "restart_peak_drop_rate": "peak drop rate after the restart (10 RTTs)",
                        "restart_drop_rate": "drop rate after the restart",
                        "steady_drop_rate": "drop rate, steady (CBR on)",
                        "idle_drop_rate": "drop rate, CBR off",
                        "queue_loss_rate": "drop rate, whole run",
                        "slowcc_loss_rate": "flows' loss rate",
                        "slowcc_goodput_norm": "flows' goodput / link",
                        "cbr_goodput_norm": "CBR goodput / link",
                        "utilization": "utilization",
                        "jain_index": "Jain's index (the 15 flows)",
                    },
                    rank=("restart_peak_drop_rate", "restart_drop_rate"),
                    part=MAIN,
                ),
                rows,
            )
        )
        out.append(
            (
                Table(
                    "stabilization",
                    "After the CBR restarts: stabilization time and cost (Bansal et al. 4.1; 10-RTT windows, "
                    "within 1.5 x the steady drop rate); after it stops: f(20) and f(200), the fraction of "
                    "the link the flows use in the first 20 and 200 RTTs (4.2)",
                    {
                        "stab_time_s": "stabilization time (s)",
                        "stab_cost": "stabilization cost (RTTs x drop rate)",
                        "f20": "f(20)",
                        "f200": "f(200)",
                    },
                    rank=("stab_cost", "f20"),
                    part=MAIN,
                    higher={"stab_time_s": False, "stab_cost": False, "f20": True, "f200": True},
                ),
                rows,
            )
        )
    if FLASH in data.parts:
        out.append(
            (
                Table(
                    "flash",
                    "Figures 7-14: the flash crowd against 15 long-lived flows of each kind (shares of the link "
                    "over the crowd's arrival window, and the 10 s before it for the long flows)",
                    {
                        "crowd_share": "crowd's share during the crowd",
                        "crowd_fct_mean_s": "crowd's mean FCT (s)",
                        "crowd_fct_p90_s": "crowd's 90th pct FCT (s)",
                        "crowd_completed": "crowd flows completed",
                        "long_share_before": "long flows' share before",
                        "long_share_during": "long flows' share during",
                        "crowd_drop_rate": "drop rate during the crowd",
                        "utilization": "utilization",
                    },
                    rank=("crowd_fct_mean_s", "crowd_drop_rate"),
                    part=FLASH,
                    higher={"crowd_share": True, "long_share_before": True, "long_share_during": False},
                ),
                flash_rows(data[FLASH]),
            )
        )
    if SQUARE in data.parts:
        groups, runs = square_rows(data[SQUARE])
        out.append(
            (
                Table(
                    "square",
                    "Figures 17-19: throughput per flow normalized by the fair share ((15 - 10 x 0.5) Mbps / 14), "
                    "TCP and the other kind, against the square wave's period",
                    {"norm_throughput": "normalized throughput"},
                    extra_by=("group",),
                    part=SQUARE,
                ),
                groups,
            )
        )
        out.append(
            (
                Table(
                    "square_link",
                    "Square wave: the bottleneck's utilization and drop rate, and TCP's normalized throughput "
                    "over the other kind's",
                    {
                        "utilization": "utilization",
                        "queue_loss_rate": "drop rate",
                        "tcp_to_other": "TCP / other",
                    },
                    part=SQUARE,
                ),
                runs,
            )
        )
    return out
