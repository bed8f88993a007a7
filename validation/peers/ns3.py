"""ns-3 peer: HOOK for the ns-3 side (written by its engineer).

Contract (validation/README.md): compile validation/ns3/dumbbell.cc against
the ns-3 wheel installed by validation/peers/install_ns3.sh into its own
virtualenv, run it with `--key=value` arguments (params.peer_args(params,
seed)) and parse the JSON object on the last stdout line. Until then this
peer reports itself unavailable, and the runner uses the stored results in
validation/peer_results/ns3/ if there are any.
"""

from __future__ import annotations

NAME = "ns3"


def available() -> bool:
    return False


def version() -> str:
    return "ns-3 (not installed)"


def run(params: dict, seed: int) -> dict:
    raise NotImplementedError("the ns-3 peer is not implemented yet (validation/ns3/)")
