"""Names for legends and captions: an algorithm with its key parameters, from the components the engine configured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Parameters worth naming in a legend, per queue kind (the rest stay in the report's tables).
QUEUE_KEYS = ("limit", "limit_bytes", "min_th", "max_th", "max_p", "target", "interval", "alpha", "beta", "ecn")
FLOW_KEYS = ("cc", "recovery", "rate", "app", "ecn", "sack")


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def params_text(spec: Mapping[str, Any], keys: tuple[str, ...], skip: tuple[str, ...] = ()) -> str:
    """'k v, k v' for the keys of `keys` present in `spec`, in that order."""
    return ", ".join(f"{k} {_value(spec[k])}" for k in keys if k in spec and k not in skip)


def queue_spec(components: Mapping[str, Any] | None, link: str) -> dict[str, Any]:
    """The queue of `link` ("a->b") as the engine configured it (summary.json's `components`), {} if unknown.

    The engine resolved which scenario key applies to the link and its defaults (kind, limit); the
    discipline's own parameters are those given.
    """
    for q in (components or {}).get("queues", []) or []:
        if isinstance(q, Mapping) and q.get("link") == link:
            spec: dict[str, Any] = {"limit": q.get("limit_pkts"), "limit_bytes": q.get("limit_bytes")}
            spec = {k: v for k, v in spec.items() if v is not None}
            return spec | dict(q.get("params") or {})
    return {}


def queue_label(kind: str, spec: Mapping[str, Any]) -> str:
    """'RED (limit 50, min_th 5, max_th 15)': the discipline and its key parameters."""
    p = params_text(spec, QUEUE_KEYS)
    name = kind.upper() if len(kind) <= 4 else kind
    return f"{name} ({p})" if p else name


def group_specs(components: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Flow group label -> its configuration as the engine resolved it (summary.json's `components`): the
    group's keys as given, its application and, for TCP, its congestion control (the engine's default filled in)."""
    out: dict[str, dict[str, Any]] = {}
    for g in (components or {}).get("flow_groups", []) or []:
        if isinstance(g, Mapping):
            spec = dict(g.get("params") or {}) | {"app": g.get("app")}
            if g.get("cc") is not None:
                spec["cc"] = g["cc"]
            out[str(g.get("group"))] = spec
    return out


def group_label(group: str, transport: str, spec: Mapping[str, Any]) -> str:
    """'g0: tcp newreno' or 'cbr: udp, rate 1Mbps': a flow group with its transport and key parameters."""
    p = params_text(spec, FLOW_KEYS, skip=("app",) if transport == "tcp" else ())
    head = f"{group}: {transport}"
    if transport == "tcp" and "cc" in spec:
        head += f" {spec['cc']}"
        p = params_text(spec, FLOW_KEYS, skip=("cc", "app"))
    return f"{head}, {p}" if p else head
