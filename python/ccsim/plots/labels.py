"""Names for legends and captions: an algorithm with its key parameters, from the scenario."""

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


def queue_spec(scenario: Mapping[str, Any] | None, link: str) -> dict[str, Any]:
    """The queue table of `link` ("a->b") in the scenario, {} when it is not given or defaulted."""
    if not scenario:
        return {}
    topo = scenario.get("topology")
    if isinstance(topo, Mapping):
        b = topo.get("bottleneck", {})
        if link == "r1->r2" and isinstance(b.get("queue"), Mapping):
            return dict(b["queue"])
        if link == "r2->r1" and isinstance(b.get("reverse_queue"), Mapping):
            return dict(b["reverse_queue"])
        return {}
    a, _, c = link.partition("->")
    for spec in scenario.get("links", []) or []:
        if not isinstance(spec, Mapping):
            continue
        if (spec.get("a"), spec.get("b")) == (a, c):
            q = spec.get("queue_ab") or spec.get("queue")
        elif (spec.get("a"), spec.get("b")) == (c, a):
            q = spec.get("queue_ba") or spec.get("queue")
        else:
            continue
        return dict(q) if isinstance(q, Mapping) else {}
    return {}


def queue_label(kind: str, spec: Mapping[str, Any]) -> str:
    """'RED (limit 50, min_th 5, max_th 15)': the discipline and its key parameters."""
    p = params_text(spec, QUEUE_KEYS)
    name = kind.upper() if len(kind) <= 4 else kind
    return f"{name} ({p})" if p else name


def group_specs(scenario: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Flow group label -> its table in the scenario (labels default to g<index>, as the engine names them)."""
    out: dict[str, dict[str, Any]] = {}
    if not scenario:
        return out
    for i, g in enumerate(scenario.get("flows", []) or []):
        if isinstance(g, Mapping):
            label = g.get("group", g.get("name", f"g{i}"))
            out[str(label)] = dict(g)
    return out


def group_label(group: str, transport: str, spec: Mapping[str, Any]) -> str:
    """'g0: tcp newreno' or 'cbr: udp, rate 1Mbps': a flow group with its transport and key parameters."""
    p = params_text(spec, FLOW_KEYS, skip=("app",) if transport == "tcp" else ())
    head = f"{group}: {transport}"
    if transport == "tcp":
        head += f" {spec.get('cc', 'newreno')}"
        p = params_text(spec, FLOW_KEYS, skip=("cc", "app"))
    return f"{head}, {p}" if p else head
