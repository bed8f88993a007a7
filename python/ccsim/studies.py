"""Built-in studies: the papers of docs/studies/ reproduced by one command (`ccsim reproduce NAME`).

A study is a folder `studies/<name>/` holding a base scenario, a sweep file
(`sweep.toml`: the full run, every point at least 5 replicates) and a quick
variant (`quick.toml`: shorter runs, fewer points, 2 replicates). `reproduce`
runs the sweep through the sweep driver (ccsim.sweep) and then writes the
study's tables, the paper's tables made from ccsim's data, each metric with
its mean and 95% confidence interval over the replicates (ccsim.stats):

- `<table>.csv`: long format, one row per (case, grid point, metric):
  the grouping columns, `metric`, `n`, `mean`, `std`, `ci_low`, `ci_high`,
  `half_width`;
- `<table>_ranking.csv`: for the metrics a paper ranks, the cases compared at
  each grid point (Welch t-tests, Holm-corrected: ccsim.stats.compare);
- `summary.md`: every table as Markdown (`mean ± half-width`) and the rankings.

The HTML report with figures (`ccsim report`) is not part of this module yet.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ccsim import stats
from ccsim.sweep.store import SweepResults

BOTTLENECK = "r1->r2"
CASE = "case_label"
ENV_DIR = "CCSIM_STUDIES"
"""Environment variable naming the folder of the studies (default: `studies/` of the source tree)."""


@dataclass(frozen=True)
class Table:
    """One table of a study: per-run metrics (one row per run, or per flow), summarized per group."""

    name: str
    title: str
    metrics: dict[str, str]
    """column -> label with its unit (the order of the Markdown table)."""
    rank: Sequence[str] = ()
    """metrics whose cases are compared at each grid point (a paper's ranking)."""
    extra_by: Sequence[str] = ()
    """grouping columns besides the case and the grid parameters (e.g. the application)."""


@dataclass(frozen=True)
class Study:
    """A built-in study: its folder, the paper it reproduces and how its tables are made from a sweep."""

    name: str
    summary: str
    paper: str
    build: Callable[[SweepResults], list[tuple[Table, pd.DataFrame]]]
    missing: Sequence[str] = field(default_factory=tuple)
    """Parts of the paper the study does not reproduce (yet), said in every summary."""

    def folder(self) -> Path:
        """The study's folder (`studies/<name>/`)."""
        return studies_dir() / self.name

    def sweep_file(self, quick: bool = False) -> Path:
        """The full sweep file, or the quick variant."""
        return self.folder() / ("quick.toml" if quick else "sweep.toml")


def studies_dir() -> Path:
    """Where the study folders are: $CCSIM_STUDIES, else `studies/` beside the `python/` source folder."""
    env = os.environ.get(ENV_DIR)
    return Path(env) if env else Path(__file__).resolve().parents[2] / "studies"


# --- per-run metrics --------------------------------------------------------------------------------------


def _base(res: SweepResults) -> pd.DataFrame:
    """The successful runs with their case and grid parameters."""
    runs = res.runs[res.runs.status == "ok"]
    return runs[
        [
            "run_id",
            CASE,
            *res.parameters,
            "goodput_bps",
            "throughput_bps",
            "jain_index",
            "loss_rate",
            "bottleneck_utilization",
            "bottleneck_avg_queue_pkts",
        ]
    ].copy()


def _queue(res: SweepResults, link: str = BOTTLENECK) -> pd.DataFrame:
    """The bottleneck queue's row of every run."""
    return res.queues[res.queues.link == link].set_index("run_id")


def _link(res: SweepResults, link: str = BOTTLENECK) -> pd.DataFrame:
    return res.links[res.links.link == link].set_index("run_id")


def _rate_bps(runs: pd.DataFrame, links: pd.DataFrame) -> pd.Series:
    return runs.run_id.map(links.rate_bps)


def patel_tables(res: SweepResults) -> list[tuple[Table, pd.DataFrame]]:
    """Table 2 (per algorithm and bandwidth) and the ranking of Table 3; Figure 4 is its loss column."""
    df = _base(res)
    q, link = _queue(res), _link(res)
    fwd = res.flows[res.flows.group == "fwd"].groupby("run_id")
    df["queue_max_pkts"] = df.run_id.map(q.max_len_pkts)
    df["queue_min_pkts"] = df.run_id.map(q.min_len_pkts)
    df["queue_avg_pkts"] = df.run_id.map(q.avg_len_pkts)
    df["flow_throughput_max_mbps"] = df.run_id.map(fwd.goodput_bps.max()) / 1e6
    df["flow_throughput_min_mbps"] = df.run_id.map(fwd.goodput_bps.min()) / 1e6
    df["delay_max_ms"] = df.run_id.map(fwd.delay_max_s.max()) * 1e3
    df["delay_min_ms"] = df.run_id.map(fwd.delay_min_s.min()) * 1e3
    df["delay_mean_ms"] = df.run_id.map(fwd.delay_mean_s.mean()) * 1e3
    df["sent_packets"] = df.run_id.map(q.arrivals)
    df["lost_packets"] = df.run_id.map(q.drops)
    df["loss_ratio"] = df.run_id.map(q.loss_rate)
    df["utilization"] = df.run_id.map(link.utilization)
    table = Table(
        "table2",
        "Table 2: RED, SFQ and REM on R1->R2 (forward flows; sent/lost = packets offered to/dropped by R1->R2)",
        {
            "queue_max_pkts": "queue max (pkts)",
            "queue_min_pkts": "queue min (pkts)",
            "queue_avg_pkts": "queue avg (pkts)",
            "flow_throughput_max_mbps": "flow goodput max (Mbps)",
            "flow_throughput_min_mbps": "flow goodput min (Mbps)",
            "delay_max_ms": "delay max (ms)",
            "delay_min_ms": "delay min (ms)",
            "delay_mean_ms": "delay mean (ms)",
            "sent_packets": "sent (pkts)",
            "lost_packets": "lost (pkts)",
            "loss_ratio": "loss ratio",
            "utilization": "utilization",
        },
        rank=("delay_mean_ms", "queue_avg_pkts", "utilization", "loss_ratio"),
    )
    return [(table, df)]


def bisoy_tables(res: SweepResults) -> list[tuple[Table, pd.DataFrame]]:
    """Figures 2-7 and 10: goodput, queue, delay, loss, utilization and Jain's index against the flows."""
    df = _base(res)
    link = _link(res)
    delay = res.flows.groupby("run_id").delay_mean_s.mean()
    df["goodput_norm"] = df.goodput_bps / _rate_bps(df, link)
    df["avg_queue_pkts"] = df.bottleneck_avg_queue_pkts
    df["delay_ms"] = df.run_id.map(delay) * 1e3
    df["utilization"] = df.bottleneck_utilization
    table = Table(
        "flows",
        "Figures 2-7 (and 10 for the max_p cases): metrics against the number of flows",
        {
            "goodput_norm": "goodput / link rate",
            "avg_queue_pkts": "avg queue (pkts)",
            "delay_ms": "delay (ms)",
            "loss_rate": "loss rate",
            "utilization": "utilization",
            "jain_index": "Jain's index",
        },
        rank=("goodput_norm", "loss_rate", "jain_index"),
    )
    return [(table, df)]


def vyshnavi_tables(res: SweepResults) -> list[tuple[Table, pd.DataFrame]]:
    """Tables 1-9 (per application) and Figures 5-9 (averages over the applications)."""
    ok = res.runs[res.runs.status == "ok"][["run_id", CASE, *res.parameters]]
    flows = res.flows.merge(ok, on="run_id")
    flows["application"] = flows.name.str.split(".").str[-1].astype(int) + 1
    flows["payload_sent_bytes"] = flows.sent_bytes
    flows["payload_received_bytes"] = flows.delivered_bytes
    flows["throughput_mbps"] = flows.goodput_bps / 1e6
    flows["delay_us"] = flows.delay_mean_s * 1e6
    flows["jitter_us"] = flows.jitter_s * 1e6
    per_app = Table(
        "applications",
        "Tables 1-9: per application (payload in bytes of the window; throughput = goodput)",
        {
            "payload_sent_bytes": "payload sent (B)",
            "payload_received_bytes": "payload received (B)",
            "throughput_mbps": "throughput (Mbps)",
            "delay_us": "delay (us)",
            "jitter_us": "jitter (us)",
        },
        extra_by=("application",),
    )
    g = flows.groupby("run_id")
    avg = ok.copy()
    avg["avg_throughput_mbps"] = avg.run_id.map(g.throughput_mbps.mean())
    avg["avg_delay_us"] = avg.run_id.map(g.delay_us.mean())
    avg["avg_jitter_us"] = avg.run_id.map(g.jitter_us.mean())
    avg["jain_index"] = avg.run_id.map(res.runs.set_index("run_id").jain_index)
    averages = Table(
        "averages",
        "Figures 5-9: average throughput, delay and jitter of the applications",
        {
            "avg_throughput_mbps": "avg throughput (Mbps)",
            "avg_delay_us": "avg delay (us)",
            "avg_jitter_us": "avg jitter (us)",
            "jain_index": "Jain's index",
        },
        rank=("avg_throughput_mbps", "avg_delay_us"),
    )
    return [(averages, avg), (per_app, flows)]


def ramachendra_tables(res: SweepResults) -> list[tuple[Table, pd.DataFrame]]:
    """The paper's eight metrics per AQM, active connections and queue size."""
    df = _base(res)
    q = _queue(res)
    g = res.flows.groupby("run_id")
    df["packets_received"] = df.run_id.map(g.received_packets.sum())
    df["enqueued"] = df.run_id.map(q.enqueued)
    df["dequeued"] = df.run_id.map(q.dequeued)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["avg_time_in_queue_ms"] = df.run_id.map(q.avg_sojourn_s) * 1e3
    df["packets_sent"] = df.run_id.map(g.sent_packets.sum())
    df["jitter_ms"] = df.run_id.map(g.jitter_s.mean()) * 1e3
    df["throughput_mbps"] = df.throughput_bps / 1e6
    df["utilization"] = df.bottleneck_utilization
    table = Table(
        "metrics",
        "Packets received, enqueued, dequeued, loss rate, time in queue, sent, jitter, throughput",
        {
            "packets_received": "received (pkts)",
            "enqueued": "enqueued (pkts)",
            "dequeued": "dequeued (pkts)",
            "queue_loss_rate": "loss rate",
            "avg_time_in_queue_ms": "avg time in queue (ms)",
            "packets_sent": "sent (pkts)",
            "jitter_ms": "jitter (ms)",
            "throughput_mbps": "throughput (Mbps)",
            "utilization": "utilization",
        },
        rank=("throughput_mbps", "queue_loss_rate", "avg_time_in_queue_ms"),
    )
    return [(table, df)]


def mehta_tables(res: SweepResults) -> list[tuple[Table, pd.DataFrame]]:
    """Figure 6's loss rate per kind of flow, and how the bandwidth is shared with the CBR source."""
    df = _base(res)
    q, link = _queue(res), _link(res)
    flows = res.flows
    slow = flows[flows.group == "slowcc"].groupby("run_id")
    cbr = flows[flows.group == "cbr"].groupby("run_id")
    rate = _rate_bps(df, link)
    df["queue_loss_rate"] = df.run_id.map(q.loss_rate)
    df["slowcc_loss_rate"] = df.run_id.map(slow.lost_packets.sum() / slow.sent_packets.sum())
    df["slowcc_goodput_norm"] = df.run_id.map(slow.goodput_bps.sum()) / rate
    df["cbr_goodput_norm"] = df.run_id.map(cbr.goodput_bps.sum()) / rate
    df["utilization"] = df.bottleneck_utilization
    df["jain_index"] = df.jain_index
    table = Table(
        "loss",
        "Figure 6: loss rate of each kind of flow against the on/off CBR source over RED (whole run)",
        {
            "queue_loss_rate": "RED loss rate",
            "slowcc_loss_rate": "flows' loss rate",
            "slowcc_goodput_norm": "flows' goodput / link",
            "cbr_goodput_norm": "CBR goodput / link",
            "utilization": "utilization",
            "jain_index": "Jain's index (the 15 flows)",
        },
        rank=("slowcc_loss_rate", "slowcc_goodput_norm"),
    )
    return [(table, df)]


NO_FIGURES = "the time-series figures (the HTML report with figures, `ccsim report`, is on branch viz)"

STUDIES: dict[str, Study] = {
    s.name: s
    for s in (
        Study(
            "patel-red-sfq-rem",
            "Patel et al.: RED vs SFQ vs REM, 2-packet buffer, bottleneck bandwidth swept (Table 2, Figure 4)",
            "patel-red-sfq-rem-ns2.md",
            patel_tables,
            missing=(NO_FIGURES + " (Figures 5-7)",),
        ),
        Study(
            "bisoy-aqm",
            "Bisoy et al.: DropTail vs GRED vs NLRED vs REM, 20-120 FTP flows (Figures 2-7, 10)",
            "bisoy-aqm-droptail-gred-nlred-rem-ns2.md",
            bisoy_tables,
            missing=("goodput and loss against the simulation time (Figures 8-9)", NO_FIGURES),
        ),
        Study(
            "vyshnavi-tcp",
            "Vyshnavi et al.: Tahoe, Reno, BIC, CUBIC with 6/12 applications, 30/60 Mbps access (Tables 1-9)",
            "vyshnavi-tcp-tahoe-reno-bic-cubic-netsim.md",
            vyshnavi_tables,
            missing=("the wireless end devices", NO_FIGURES),
        ),
        Study(
            "ramachendra-modred",
            "Ramachendra et al.: RED, WRED, AVQ, ModRED under round robin; connections x queue size",
            "ramachendra-modred-round-robin-qualnet.md",
            ramachendra_tables,
            missing=(NO_FIGURES,),
        ),
        Study(
            "mehta-slowcc",
            "Mehta et al.: TCP, AIMD(1/8), AIMD(1/256), SQRT(1/256), IIAD vs an on/off CBR over RED (Figure 6)",
            "mehta-slowcc-tfrc-aimd-binomial-ns2.md",
            mehta_tables,
            missing=(
                "TFRC with and without self-clocking (not in ccsim yet: branch slowcc)",
                "the flash crowd of 1000 ten-packet flows and the square-wave CBR experiment (Figures 15-19)",
                "loss rate and throughput against time (" + NO_FIGURES + ")",
            ),
        ),
    )
}


def get(name: str) -> Study:
    """The study called `name` (ValueError naming the known ones otherwise)."""
    try:
        return STUDIES[name]
    except KeyError:
        raise ValueError(f"unknown study {name!r}; the studies are: {', '.join(STUDIES)}") from None


# --- tables -----------------------------------------------------------------------------------------------


@dataclass
class StudyTables:
    """A study's tables computed from its results: (table, long-format statistics, rankings)."""

    study: Study
    tables: list[tuple[Table, pd.DataFrame, list[pd.DataFrame]]]
    parameters: list[str]
    runs_ok: int
    runs_failed: int

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write `<table>.csv`, `<table>_ranking.csv` and `summary.md` into `out_dir`; return the files."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        files: list[Path] = []
        for table, long, rankings in self.tables:
            path = out / f"{table.name}.csv"
            long.to_csv(path, index=False)
            files.append(path)
            if rankings:
                path = out / f"{table.name}_ranking.csv"
                pd.concat(rankings, ignore_index=True).to_csv(path, index=False)
                files.append(path)
        path = out / "summary.md"
        path.write_text(self.markdown())
        files.append(path)
        return files

    def markdown(self) -> str:
        """Every table as Markdown: one row per case and grid point, each cell `mean ± half-width`."""
        lines = [f"# {self.study.summary}", ""]
        failed = f", {self.runs_failed} failed (left out)" if self.runs_failed else ""
        lines += [
            f"{self.runs_ok} runs{failed}. Each cell: mean ± half-width of the 95% Student t interval over "
            "the replicates (n per cell in the CSV files).",
            "",
        ]
        if self.study.missing:
            lines += ["Not reproduced: " + "; ".join(self.study.missing) + ".", ""]
        for table, long, rankings in self.tables:
            lines += [f"## {table.title}", "", *_markdown_table(long, table), ""]
            for r in rankings:
                metric = str(r.metric.iloc[0]) if len(r) else ""
                lines += [
                    f"### Ranking on {table.metrics.get(metric, metric)}",
                    "",
                    "rank = 1 + cases significantly better (Welch t-tests, Holm-corrected, alpha 0.05)",
                    "",
                ]
                lines += _ranking_markdown(r)
                lines.append("")
        return "\n".join(lines)


def _fmt(mean: float, half: float) -> str:
    if not np.isfinite(mean):
        return "-"
    scale = max(abs(mean), abs(half) if np.isfinite(half) else 0.0)
    digits = 0 if scale >= 1000 else 2 if scale >= 10 else 4
    if not np.isfinite(half):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def _markdown_table(long: pd.DataFrame, table: Table) -> list[str]:
    keys = [c for c in long.columns if c not in ("metric", "n", "mean", "std", "ci_low", "ci_high", "half_width")]
    cells = long.assign(cell=[_fmt(m, h) for m, h in zip(long["mean"], long["half_width"], strict=True)])
    wide = cells.pivot_table(index=keys, columns="metric", values="cell", aggfunc="first", sort=False)
    metrics = [m for m in table.metrics if m in wide.columns]
    header = [*keys, *(table.metrics[m] for m in metrics)]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for idx, row in wide.iterrows():
        idx_t = idx if isinstance(idx, tuple) else (idx,)
        out.append("| " + " | ".join([*(str(v) for v in idx_t), *(str(row[m]) for m in metrics)]) + " |")
    return out


def _ranking_markdown(r: pd.DataFrame) -> list[str]:
    keys = [
        c
        for c in r.columns
        if c
        not in (
            "metric",
            "order",
            "rank",
            "case",
            "n",
            "mean",
            "std",
            "ci_low",
            "ci_high",
            "better_than",
            "indistinguishable_from",
        )
    ]
    out = ["| " + " | ".join([*keys, "rank", "case", "mean", "95% CI"]) + " |", "|" + "---|" * (len(keys) + 4)]
    for _, row in r.iterrows():
        ci = f"[{row.ci_low:.4g}, {row.ci_high:.4g}]" if np.isfinite(row.ci_low) else "-"
        out.append(
            "| "
            + " | ".join([*(str(row[k]) for k in keys), str(row["rank"]), str(row.case), f"{row['mean']:.4g}", ci])
            + " |"
        )
    return out


def tables(study: Study, res: SweepResults, confidence: float = 0.95) -> StudyTables:
    """The study's tables from its sweep results: statistics per case and grid point, and the rankings."""
    # Grid parameters with one value (the quick variants' shorter duration, say) are not table columns.
    params = [p for p in res.parameters if res.runs[p].nunique(dropna=False) > 1]
    out: list[tuple[Table, pd.DataFrame, list[pd.DataFrame]]] = []
    for table, df in study.build(res):
        by = [CASE, *params, *table.extra_by]
        long = stats.describe(df, by=by, metrics=list(table.metrics), confidence=confidence)
        rankings = []
        for metric in table.rank:
            c = stats.compare(df, metric, by=[*params, *table.extra_by], confidence=confidence)
            rankings.append(c.ranking.assign(metric=metric))
        out.append((table, long, rankings))
    ok = int((res.runs.status == "ok").sum())
    return StudyTables(study, out, params, ok, len(res.runs) - ok)


def default_out(study: Study, quick: bool) -> Path:
    """`results/<name>/`, or `results/<name>-quick/` for the quick variant (its own store)."""
    return Path("results") / (f"{study.name}-quick" if quick else study.name)


def reproduce(
    study: Study,
    out_dir: str | os.PathLike[str],
    backend: object | None = None,
    *,
    quick: bool = False,
    resume: bool = False,
    overwrite: bool = False,
    max_wall_s: float | None = None,
    progress: object | None = None,
) -> tuple[object, StudyTables, list[Path]]:
    """Run the study's sweep into `out_dir` (through ccsim.sweep.run_sweep) and write its tables there."""
    from ccsim import sweep as sw  # noqa: PLC0415

    spec = sw.load_sweep(study.sweep_file(quick))
    report = sw.run_sweep(
        spec,
        out_dir,
        backend,  # type: ignore[arg-type]
        resume=resume,
        overwrite=overwrite,
        max_wall_s=max_wall_s,
        progress=progress,  # type: ignore[arg-type]
    )
    result = tables(study, sw.load(out_dir))
    files = result.write(out_dir)
    return report, result, files


def sweep_load(out_dir: str | os.PathLike[str]) -> SweepResults:
    """A study's results folder (ccsim.sweep.load)."""
    from ccsim.sweep import load  # noqa: PLC0415

    return load(out_dir)
