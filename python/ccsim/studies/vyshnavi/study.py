"""The vyshnavi study's definition: its parts (the wired reading, the wireless networks), tables, figures, claims."""

from __future__ import annotations

from ccsim.studies.core import MAIN, Part, Study
from ccsim.studies.vyshnavi.claims import claims
from ccsim.studies.vyshnavi.figures import figures
from ccsim.studies.vyshnavi.setup import NAME, WIRELESS_APPS, WLAN_NETWORKS, WLAN_STANDARD, wlan_files, wlan_part
from ccsim.studies.vyshnavi.tables import tables

STUDY = Study(
    NAME,
    "Vyshnavi: Tahoe, Reno, BIC, CUBIC with 6/12 CBR applications over 30/60 Mbps links, wired and "
    "wireless readings (Tables 1-9, Figures 5-9)",
    "vyshnavi-tcp-tahoe-reno-bic-cubic-netsim.md",
    tables,
    figures=figures,
    claims=claims,
    parts=(
        Part(MAIN, "sweep.toml", "quick.toml", "wired reading: a dumbbell, every application on its own PCs"),
        *(
            Part(
                wlan_part(a, r),
                *wlan_files(a, r),
                f"wireless reading: {a} applications at {r} Mbps, {len(WIRELESS_APPS[a])} of them to {WLAN_STANDARD}",
            )
            for a, r in WLAN_NETWORKS
        ),
    ),
    missing=(
        "the network of the paper's Figures 1, 2 and 4 (not legible in the seed): which PCs share switches, "
        "and where the wireless PCs are, are readings",
    ),
)
