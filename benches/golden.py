"""Golden hashes of ccsim's outputs: an engine optimisation must change none of them.

    python benches/golden.py [--engine-only] [--bin target/release/ccsim-bench] > hashes.txt
    diff hashes-before.txt hashes-after.txt

Runs a fixed set of scenarios and prints one line per scenario and output with
a hash of its contents:

- engine: `ccsim-bench --digest` (a hash of the run's tables, time series and
  delay histograms, bit for bit, wall time excluded) on every `benches/*.toml`,
  every `examples/*.toml` that is a single run (not a sweep, not
  `against_ns2.toml`'s list), and a set of validation
  twins (validation/ccsim_side.py's scenarios, written out as JSON) under the
  `ns2` and `ns3` compatibility profiles, whose `fifo` tie order and ns-2
  double-clock keys take the event queue's other path;
- unless `--engine-only`: the same benches and examples through `ccsim run
  --out DIR` (every file it writes: CSV and JSON as bytes, with the wall-clock
  figures of summary.json and the date of meta.json left out; Parquet by its
  decoded contents, so that a change of the Parquet writer alone does not
  count), and the twins' metrics through validation/ccsim_side.py's `run`.

Identical output before and after a change is the check; the hashes
themselves are not meant to be stable across versions of ccsim.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

# Twins (validation/twins.toml's parameters, shortened: 30 s with a 5 s
# warmup unless given): each kind of queue the validation suite covers,
# one-way and two-way, random loss.
TWINS_KV = [
    "flows=10 cc=newreno queue=droptail buffer=116 window=64",
    "flows=5 cc=tahoe queue=droptail buffer=58",
    "flows=1 cc=newreno queue=droptail buffer=30 window=100 duration=20 warmup=0 start_max=0",
    "flows=20 cc=newreno queue=red buffer=100 min_th=5 max_th=15 max_p=0.1 w_q=0.002 window=64",
    "flows=20 cc=newreno queue=gred buffer=100 min_th=5 max_th=15 max_p=0.1 w_q=0.002 window=64",
    "flows=12 cc=sack queue=red buffer=100 min_th=5 max_th=15 max_p=0.1 w_q=0.002 access_delay=1,10,30,60 window=64",
    "flows=20 cc=newreno queue=rem buffer=100 rem_b_ref=20 rem_gamma=0.001 rem_phi=1.001 rem_update=0.002 window=64",
    "flows=20 cc=newreno queue=pi buffer=116 pi_q_ref=50 window=64",
    "flows=20 cc=newreno queue=avq buffer=58 vq_gamma=0.98 vq_ecnlim=0.8 window=64",
    "flows=10 cc=newreno queue=sfq buffer=30 window=64",
    "flows=10 cc=newreno queue=drr buffer=30 access_delay=1,10,30 window=64",
    "flows=20 cc=cubic queue=droptail buffer=58 window=200",
    "flows=5 two_way=1 cc=tahoe queue=droptail buffer=2 packet_size=2000 access_delay=10 bottleneck_delay=40"
    " window=20 duration=40",
    "flows=10 two_way=1 cc=reno queue=red buffer=30 min_th=5 max_th=15 max_p=0.1 w_q=0.002 window=64",
    "flows=6 cc=sack queue=droptail buffer=58 loss=0.005 access_delay=1,20 window=64",
    "flows=60 cc=tahoe packet_size=512 window=8000 queue=gred buffer=100 min_th=5 max_th=15 max_p=0.1 w_q=0.002",
    "flows=40 cc=cubic queue=pie buffer=200 window=1000 start_max=5",
    "flows=40 cc=cubic queue=fq_codel buffer=1000 window=1000 start_max=5",
    "flows=20 cc=newreno queue=codel buffer=1000 window=1000",
    "flows=20 cc=bic queue=droptail buffer=100 window=1000",
]


def twin_params(kv: str) -> dict[str, object]:
    """`key=value ...` as validation/ccsim_side.py's command line types it."""
    from params import resolve  # noqa: PLC0415

    defaults = resolve({})
    pairs = dict(a.split("=", 1) for a in kv.split())
    pairs.setdefault("duration", "30")
    pairs.setdefault("warmup", "5")
    return {k: type(defaults[k])(v) if k in defaults else v for k, v in pairs.items()}


COMPATS = ["ns2", "ns3"]


def scenario_files() -> list[Path]:
    """Every benchmark, and every example that is a single run (not a sweep)."""
    files = sorted((ROOT / "benches").glob("*.toml")) + sorted((ROOT / "examples").glob("*.toml"))
    return [p for p in files if "[topology" in p.read_text()]


def engine_files(files: list[Path]) -> list[Path]:
    """The files `ccsim-bench` can run: not those naming a Python algorithm (`python:`), which run only
    under the Python package (their `ccsim run` hashes cover them)."""
    return [p for p in files if '"python:' not in p.read_text()]


def twin_files(tmp: Path) -> list[Path]:
    """The twins' ccsim scenarios as JSON files, one per twin and profile."""
    import ccsim_side  # noqa: PLC0415 (imports ccsim)

    out = []
    for i, kv in enumerate(TWINS_KV):
        params = twin_params(kv)
        for compat in COMPATS:
            path = tmp / f"twin{i:02}_{params['queue']}_{params['cc']}_{compat}.json"
            path.write_text(json.dumps(ccsim_side.scenario(params, 1, compat)))
            out.append(path)
    return out


def engine_hashes(binary: Path, files: list[Path]) -> list[str]:
    """`ccsim-bench --digest` over the files, one line each."""
    done = subprocess.run([str(binary), "--digest", *map(str, files)], capture_output=True, text=True, check=True)
    return [f"engine {Path(line.split()[0]).name} {' '.join(line.split()[1:])}" for line in done.stdout.splitlines()]


def decoded_parquet(path: Path) -> bytes:
    """A Parquet file's contents, independent of how it was encoded."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    table = pq.read_table(path)
    return repr((table.schema.names, [str(t) for t in table.schema.types], table.to_pydict())).encode()


def file_hash(path: Path) -> str:
    """A results file's hash (see the module's doc for what is left out)."""
    if path.suffix == ".parquet":
        data = decoded_parquet(path)
    elif path.name == "summary.json":
        summary = json.loads(path.read_text())
        for key in ("wall_s", "events_per_s"):
            summary.get("perf", {}).pop(key, None)
        data = json.dumps(summary, sort_keys=True).encode()
    elif path.name == "meta.json":
        meta = json.loads(path.read_text())
        meta.pop("date", None)
        meta.pop("command", None)
        data = json.dumps(meta, sort_keys=True, default=str).encode()
    else:
        data = path.read_bytes()
    return hashlib.sha256(data).hexdigest()[:16]


def run_hashes(files: list[Path], tmp: Path) -> list[str]:
    """`ccsim run --out DIR` over the files: one line per file written."""
    lines = []
    ccsim = Path(sys.executable).parent / "ccsim"
    for f in files:
        out = tmp / f"run_{f.stem}"
        subprocess.run([str(ccsim), "run", str(f), "--out", str(out), "--quiet"], check=True)
        for p in sorted(q for q in out.rglob("*") if q.is_file()):
            lines.append(f"run {f.name} {p.relative_to(out)} {file_hash(p)}")
    return lines


def twin_metric_hashes() -> list[str]:
    """validation/ccsim_side.py's metrics of each twin under each profile."""
    import ccsim_side  # noqa: PLC0415

    lines = []
    for i, kv in enumerate(TWINS_KV):
        params = twin_params(kv)
        for compat in COMPATS:
            m = ccsim_side.run(params, 1, compat)
            digest = hashlib.sha256(json.dumps(m, sort_keys=True, default=repr).encode()).hexdigest()[:16]
            lines.append(f"twin {i:02} {params['queue']} {params['cc']} {compat} {digest}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", type=Path, default=ROOT / "target/release/ccsim-bench")
    ap.add_argument("--engine-only", action="store_true", help="only ccsim-bench's digests (no Python extension)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        files = scenario_files()
        for line in engine_hashes(args.bin, engine_files(files) + twin_files(tmp)):
            print(line, flush=True)
        if not args.engine_only:
            for line in run_hashes(files, tmp) + twin_metric_hashes():
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
