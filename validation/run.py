"""Runner of the differential validation suite (validation/README.md).

    python validation/run.py [--peers ns2,ns3] [--twins NAME,...] [--jobs N]
                             [--refresh-peers] [--compat peer|none|PROFILE]
                             [--regression] [--no-docs] [--strict]

Runs every twin x seed on ccsim and on each selected peer in a process pool,
stores each peer's per-seed metrics in validation/peer_results/<peer>/<twin>.json
(committed: `make test` compares against them without the peers), compares the
means (validation/compare.py) and writes docs/validation.md and the figures
docs/validation/<family>.png.

A peer's stored results are reused when their params equal the manifest's;
they are recomputed when missing or stale (and the peer is installed), or for
every twin with --refresh-peers. ccsim runs under `compat = <peer>` (the
default, `--compat peer`), without a profile (`--compat none`), or under one
named profile for every peer.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import tomllib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import ccsim_side  # noqa: E402
import compare  # noqa: E402
import peers  # noqa: E402

MANIFEST = HERE / "twins.toml"
PEER_RESULTS = HERE / "peer_results"
CCSIM_RESULTS = ROOT / "results" / "validation"
DOC = ROOT / "docs" / "validation.md"
FIGURES = ROOT / "docs" / "validation"


def load_twins(path: Path = MANIFEST) -> list[dict]:
    with open(path, "rb") as f:
        twins = tomllib.load(f)["twin"]
    names = set()
    for t in twins:
        if t["name"] in names:
            raise ValueError(f"duplicate twin {t['name']}")
        names.add(t["name"])
        t.setdefault("seeds", 3)
        t.setdefault("regression", False)
        t.setdefault("transient", False)
        t.setdefault("params", {})
        t.setdefault("peer_seeds", {})
        if min([t["seeds"], *t["peer_seeds"].values()]) < 3:
            raise ValueError(f"{t['name']}: at least 3 seeds per side")
        unknown = set(t["peer_seeds"]) - set(t["peers"])
        if unknown:
            raise ValueError(f"{t['name']}: peer_seeds for peers it does not list: {sorted(unknown)}")
    return twins


def seeds_for(twin: dict, peer: str) -> int:
    """How many seeds a twin runs against `peer` (its `peer_seeds`, else `seeds`)."""
    return int(twin.get("peer_seeds", {}).get(peer, twin["seeds"]))


def peer_file(peer: str, twin: str) -> Path:
    return PEER_RESULTS / peer / f"{twin}.json"


def load_peer(peer: str, twin: dict) -> dict | None:
    """The stored results of a twin on a peer, or None (missing or stale)."""
    f = peer_file(peer, twin["name"])
    if not f.exists():
        return None
    data = json.loads(f.read_text())
    if data.get("params") != twin["params"]:
        return None
    if len(data.get("seeds", {})) < seeds_for(twin, peer):
        return None
    return data


def ccsim_compat(mode: str, peer: str) -> str | None:
    if mode == "peer":
        return peer
    if mode == "none":
        return None
    return mode


# ---- jobs (top-level functions: they run in the pool's processes) -----------
def _peer_job(peer: str, params: dict, seed: int) -> dict:
    return peers.get(peer).run(params, seed)


def _ccsim_job(params: dict, seed: int, compat: str | None) -> dict:
    return ccsim_side.run(params, seed, compat)


def run_all(  # noqa: PLR0912
    twins: list[dict],
    peer_names: list[str],
    *,
    jobs: int,
    refresh: bool,
    compat_mode: str,
    baseline: bool = False,
    log: Callable[[str], None] = print,
) -> dict:
    """Run what is needed; return {twin: {"ccsim:<peer>": [...], "<peer>": [...]}}."""
    results: dict[str, dict[str, list]] = {t["name"]: {} for t in twins}
    todo = []  # (key, fn, args)
    peer_meta = {}
    for t in twins:
        for peer in [p for p in t["peers"] if p in peer_names]:
            mod = peers.get(peer)
            stored = None if refresh else load_peer(peer, t)
            seeds = range(1, seeds_for(t, peer) + 1)
            if stored is not None:
                results[t["name"]][peer] = [stored["seeds"][str(s)] for s in seeds]
            elif mod.available():
                peer_meta[peer] = mod.version()
                for s in seeds:
                    todo.append(((t["name"], peer, s), _peer_job, (peer, t["params"], s)))
            else:
                log(f"  {t['name']}: {peer} has no stored results and is not installed: skipped")
                continue
            compats = [ccsim_compat(compat_mode, peer)] + ([None] if baseline else [])
            for compat in compats:
                key = f"ccsim:{compat or 'none'}"
                if key not in results[t["name"]]:
                    results[t["name"]][key] = []
                    for s in seeds:
                        todo.append(((t["name"], key, s), _ccsim_job, (t["params"], s, compat)))
    log(f"{len(todo)} runs on {jobs} processes")
    raw: dict = {}
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(fn, *args): key for key, fn, args in todo}
        for i, fut in enumerate(as_completed(futs), 1):
            key = futs[fut]
            try:
                raw[key] = fut.result()
            except Exception as e:  # a failed run is reported, not fatal
                log(f"  FAILED {key}: {e}")
                raw[key] = None
            if i % 10 == 0 or i == len(todo):
                log(f"  {i}/{len(todo)} done ({time.time() - t0:.0f} s)")
    by_twin = {t["name"]: t for t in twins}
    for (name, side, _seed), m in sorted(raw.items(), key=lambda kv: kv[0][2]):
        if m is None:
            continue
        results[name].setdefault(side, []).append(m)
    # store fresh peer results
    for (name, side, _), _m in raw.items():
        if side.startswith("ccsim:") or side not in peer_meta:
            continue
        t = by_twin[name]
        runs = {str(s): raw.get((name, side, s)) for s in range(1, seeds_for(t, side) + 1)}
        if any(v is None for v in runs.values()):
            continue
        f = peer_file(side, name)
        f.parent.mkdir(parents=True, exist_ok=True)
        data = {"twin": name, "peer": side, "version": peer_meta[side], "params": t["params"], "seeds": runs}
        f.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    # keep ccsim's runs for inspection (results/ is not committed)
    CCSIM_RESULTS.mkdir(parents=True, exist_ok=True)
    (CCSIM_RESULTS / "ccsim_runs.json").write_text(json.dumps(results, indent=1) + "\n")
    return results


def comparisons(twins: list[dict], results: dict, peer_names: list[str], compat_mode: str) -> list[tuple]:
    """[(twin, peer, compat, rows)] for every twin and peer with results on both sides."""
    out = []
    for t in twins:
        for peer in [p for p in t["peers"] if p in peer_names]:
            compat = ccsim_compat(compat_mode, peer)
            c = results[t["name"]].get(f"ccsim:{compat or 'none'}")
            p = results[t["name"]].get(peer)
            if not c or not p:
                continue
            out.append((t, peer, compat, compare.compare(c, p, t["transient"])))
    return out


def baseline_rows(twins: list[dict], results: dict, peer_names: list[str]) -> dict:
    """{(twin, peer): {metric: Row}} of ccsim without a profile against the peer."""
    out = {}
    for t in twins:
        for peer in [p for p in t["peers"] if p in peer_names]:
            c = results[t["name"]].get("ccsim:none")
            p = results[t["name"]].get(peer)
            if c and p:
                out[(t["name"], peer)] = {r.metric: r for r in compare.compare(c, p, t["transient"])}
    return out


# ---- docs -------------------------------------------------------------------
def fmt(metric: str, x: float) -> str:
    if math.isnan(x):
        return "—"
    if metric.endswith("_bps"):
        return f"{x / 1e6:.3f} M"
    if metric in ("timeouts", "retransmissions"):
        return f"{x:.1f}"
    if metric in ("drop_rate", "rev_drop_rate"):
        return f"{x:.4f}"
    return f"{x:.3f}"


def write_figures(comps: list[tuple]) -> list[tuple]:
    import matplotlib  # noqa: PLC0415 (only for the figures)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    FIGURES.mkdir(parents=True, exist_ok=True)
    families: dict[str, list] = {}
    for t, peer, compat, rows in comps:
        families.setdefault(t["family"], []).append((t, peer, compat, rows))
    metrics = ["utilization", "drop_rate", "avg_queue_pkts", "jain", "timeouts", "retransmissions"]
    written = []
    for fam, items in sorted(families.items()):
        fig, axes = plt.subplots(2, 3, figsize=(13, 6.5))
        labels = [f"{t['name']}\n({peer})" for t, peer, _, _ in items]
        x = range(len(items))
        for ax, m in zip(axes.flat, metrics, strict=False):
            cv, ce, pv, pe = [], [], [], []
            for _, _, _, rows in items:
                r = next((r for r in rows if r.metric == m), None)
                cv.append(r.ccsim if r else float("nan"))
                ce.append(r.ccsim_sd if r else 0)
                pv.append(r.peer if r else float("nan"))
                pe.append(r.peer_sd if r else 0)
            w = 0.38
            ax.bar([i - w / 2 for i in x], cv, w, yerr=ce, label="ccsim", color="#1f77b4")
            ax.bar([i + w / 2 for i in x], pv, w, yerr=pe, label="peer", color="#ff7f0e")
            ax.set_title(m)
            ax.set_xticks(list(x))
            ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        axes.flat[0].legend(fontsize=8)
        fig.suptitle(f"validation family '{fam}': ccsim vs peer (mean ± sd over seeds)")
        fig.tight_layout()
        path = FIGURES / f"{fam}.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append((fam, path))
    return written


def write_doc(  # noqa: PLR0912
    twins: list[dict], comps: list[tuple], compat_mode: str, figures: list[tuple], base: dict
) -> None:
    n_twins = len(comps)
    judged = [r for _, _, _, rows in comps for r in rows if r.verdict in ("ok", "OUT")]
    n_ok = sum(r.verdict == "ok" for r in judged)
    twins_ok = sum(all(r.ok for r in rows) for _, _, _, rows in comps)
    lines = [
        "# Differential validation: ccsim against ns-2 and ns-3",
        "",
        "Generated by `make validate` (`python validation/run.py`); do not edit by hand.",
        "The twins, the peers' programs and how to add a twin: validation/README.md.",
        "Each twin is run with seeds 1..n on each side; the table compares the means",
        "(± the standard deviation over seeds). ccsim runs under "
        + (
            'the peer\'s compatibility profile (`compat = "ns2"` against ns-2, docs/compat.md).'
            if compat_mode == "peer"
            else f"`--compat {compat_mode}`."
        ),
        "Tolerances (issue 13; never widened to hide a difference): utilization ±0.02",
        "absolute, drop rate ±15 %, average queue ±15 % or ±2 packets, Jain's index ±0.03,",
        "timeouts and retransmissions ±30 %, goodput time series correlated ≥ 0.9 (transient",
        "twins only). Goodput is shown for information.",
        "",
        f"**{twins_ok} of {n_twins} twin comparisons are within tolerance on every metric;"
        f" {n_ok} of {len(judged)} judged metrics are.**",
        "",
        "## Summary",
        "",
        "| twin | family | peer | seeds | verdict | metrics out of tolerance |"
        + (" out of tolerance without a profile |" if base else ""),
        "|---|---|---|---|---|---|" + ("---|" if base else ""),
    ]
    for t, peer, _, rows in comps:
        bad = [r.metric for r in rows if not r.ok]
        verdict = "ok" if not bad else "OUT"
        line = f"| {t['name']} | {t['family']} | {peer} | {seeds_for(t, peer)} | {verdict} | {', '.join(bad)} |"
        if base:
            brows = base.get((t["name"], peer), {})
            line += " " + ", ".join(m for m, r in brows.items() if not r.ok) + " |"
        lines.append(line)
    done = {(c[0]["name"], c[1]) for c in comps}
    missing = [f"{t['name']} ({p})" for t in twins for p in t["peers"] if (t["name"], p) not in done]
    if missing:
        lines += ["", "Not compared (no stored or fresh results on a side): " + ", ".join(missing) + "."]
    lines += [
        "",
        "## Every metric",
        "",
        "| twin | metric | ccsim | peer | spread (sd ccsim / peer) | tolerance | verdict |"
        + (" ccsim, no profile | verdict, no profile |" if base else ""),
        "|---|---|---|---|---|---|---|" + ("---|---|" if base else ""),
    ]
    for t, peer, _, rows in comps:
        for r in rows:
            if r.metric == "goodput_series":
                c, p, spread = f"r = {r.ccsim:.3f}", "", ""
            else:
                c, p = fmt(r.metric, r.ccsim), fmt(r.metric, r.peer)
                spread = f"{fmt(r.metric, r.ccsim_sd)} / {fmt(r.metric, r.peer_sd)}"
            line = f"| {t['name']} ({peer}) | {r.metric} | {c} | {p} | {spread} | {r.tolerance} | {r.verdict} |"
            b = base.get((t["name"], peer), {}).get(r.metric)
            if base:
                if b is None:
                    line += " | |"
                elif r.metric == "goodput_series":
                    line += f" r = {b.ccsim:.3f} | {b.verdict} |"
                else:
                    line += f" {fmt(r.metric, b.ccsim)} | {b.verdict} |"
            lines.append(line)
    findings = HERE / "findings.md"
    if findings.exists():
        lines += ["", findings.read_text().rstrip()]
    lines += ["", "## Figures", ""]
    for fam, path in figures:
        lines += [f"### {fam}", "", f"![{fam}]({path.relative_to(DOC.parent).as_posix()})", ""]
    lines += ["## Twins", "", "| twin | family | peers | regression | params |", "|---|---|---|---|---|"]
    for t in twins:
        ps = ", ".join(f"{k}={v}" for k, v in t["params"].items())
        lines.append(
            f"| {t['name']} | {t['family']} | {', '.join(t['peers'])} | {'yes' if t['regression'] else ''} | {ps} |"
        )
    DOC.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", default="ns2,ns3")
    ap.add_argument("--twins", default="", help="comma-separated names (default: all)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--refresh-peers", action="store_true")
    ap.add_argument("--compat", default="peer", help="peer (default), none, or a profile name")
    ap.add_argument("--regression", action="store_true", help="only the regression twins")
    ap.add_argument("--no-docs", action="store_true")
    ap.add_argument(
        "--no-baseline",
        action="store_true",
        help="do not also run ccsim without a profile (the docs' 'no profile' columns)",
    )
    ap.add_argument("--strict", action="store_true", help="exit 1 if a metric is out of tolerance")
    a = ap.parse_args(argv)
    twins = load_twins()
    if a.twins:
        want = set(a.twins.split(","))
        unknown = want - {t["name"] for t in twins}
        if unknown:
            ap.error(f"unknown twins: {sorted(unknown)}")
        twins = [t for t in twins if t["name"] in want]
    if a.regression:
        twins = [t for t in twins if t["regression"]]
    peer_names = [p for p in a.peers.split(",") if p]
    for p in peer_names:
        peers.get(p)
    baseline = not a.no_baseline and a.compat != "none"
    results = run_all(twins, peer_names, jobs=a.jobs, refresh=a.refresh_peers, compat_mode=a.compat, baseline=baseline)
    comps = comparisons(twins, results, peer_names, a.compat)
    base = baseline_rows(twins, results, peer_names) if baseline else {}
    for t, peer, _, rows in comps:
        bad = [f"{r.metric} {fmt(r.metric, r.ccsim)} vs {fmt(r.metric, r.peer)}" for r in rows if not r.ok]
        print(f"{t['name']:28s} {peer}: {'ok' if not bad else 'OUT: ' + '; '.join(bad)}")
    if not a.no_docs:
        figs = write_figures(comps)
        write_doc(load_twins() if not a.twins and not a.regression else twins, comps, a.compat, figs, base)
        print(f"wrote {DOC.relative_to(ROOT)} and {len(figs)} figures")
    out = any(not r.ok for _, _, _, rows in comps for r in rows)
    return 1 if a.strict and out else 0


if __name__ == "__main__":
    sys.exit(main())
