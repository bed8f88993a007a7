"""The vyshnavi study's set-up: its cases, the grid's keys, the readings of the paper's two networks."""

from __future__ import annotations

NAME = "vyshnavi-tcp"
ALGORITHMS = ("tahoe", "reno", "bic", "cubic")
APPS_KEY = "flows[0].count"

# --- The wireless reading (the wlan-* parts) ---------------------------------------------------------------
WLAN_NETWORKS: tuple[tuple[int, int], ...] = ((6, 30), (6, 60), (12, 30))
"""(applications, access Mbps) of the paper's three networks (its "three combinations")."""
WIRELESS_APPS: dict[int, tuple[int, ...]] = {6: (3, 5, 6), 12: (3, 5, 6, 10, 11)}
"""Applications whose receiver is a wireless PC. In the paper's tables these get 0.4-2.5 Mbps each and
together 4.8-4.9 Mbps (6 applications) or 3.4 Mbps (12) whatever the algorithm and the link speed: the
mark of one shared channel of about 5 Mbps of TCP goodput, an 802.11b channel."""
WLAN_STANDARD = "802.11b"
BUFFER_PKTS = 1000
"""DropTail limit of every wired queue (the paper gives none; as the wired reading's routers)."""
AP_BUFFER_PKTS = 100
"""DropTail limit of the WLAN interfaces' queues (the paper gives none): ccsim's default for WLAN interfaces
(ns-3's 100-packet FIFO). With 1000 packets the access point holds 2.5 s of 802.11b traffic, the wireless
connections time out and their total falls to ~3 Mbps, away from the paper's 4.8 Mbps; with 50 or 100
packets it is ~4.2 Mbps whatever the algorithm."""
APP_RATE = "29.2Mbps"
APP_PACKET = 1460
DURATION = "10s"
QUICK_DURATION = "2s"
WIRELESS_PAPER_MBPS = {(6, 30): (4.85, 4.83, 4.82), (6, 60): (4.85, 4.87), (12, 30): (3.39, 3.41, 3.38, 3.42)}
"""The paper's wireless applications' total throughput (Mbps) in its Tables 1-9 (one value per table)."""


def wlan_part(apps: int, access_mbps: int) -> str:
    """The part name of a wireless network: `wlan-6x30`."""
    return f"wlan-{apps}x{access_mbps}"


def wlan_files(apps: int, access_mbps: int) -> tuple[str, str]:
    """The (sweep, quick) file names of a wireless network's part."""
    part = wlan_part(apps, access_mbps)
    return f"{part}.toml", f"{part}.quick.toml"
