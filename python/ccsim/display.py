"""Readable tables of a run's results and of benchmark runs.

A run's tables are `TextTable`s (`ccsim.plain_table`: printed without rich
off a terminal); the others are rich Tables, rich imported when one is made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ccsim.plain_table import TextTable

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ccsim.bench_peer import Row as BenchRow
    from ccsim.results import Result


def si(value: float | None, unit: str) -> str:
    """A number with an SI prefix, e.g. 9.87 Mbps; "-" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def ms(seconds: float | None) -> str:
    """Seconds shown as milliseconds; "-" for a missing value."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    return f"{seconds * 1e3:.3f}"


def pct(fraction: float) -> str:
    """A fraction as a percentage."""
    return f"{fraction * 100:.2f}%"


def flows_table(flows: Sequence[Mapping[str, Any]]) -> TextTable:
    """Per-flow results."""
    t = TextTable(title="Flows")
    for col in ("flow", "path", "transport", "sent", "recv", "lost", "loss", "goodput"):
        t.add_column(col, "left" if col in ("flow", "path", "transport") else "right")
    for col in ("delay ms", "p99 ms", "jitter ms"):
        t.add_column(col, "right")
    t.caption = (
        "counts of events inside the metrics window: sent + in flight at its start = recv + lost + in flight at its end"
    )
    for f in flows:
        t.add_row(
            f["name"],
            f"{f['src']}->{f['dst']}",
            f["transport"],
            str(f["sent_packets"]),
            str(f["received_packets"]),
            str(f["lost_packets"]),
            pct(f["loss_rate"]),
            si(f["goodput_bps"], "bps"),
            ms(f["delay_mean_s"]),
            ms(f["delay_p99_s"]),
            ms(f["jitter_s"]),
        )
    return t


def queues_table(queues: Sequence[Mapping[str, Any]], bottleneck: str) -> TextTable:
    """Per-queue results of the queues that saw traffic; the bottleneck is marked with *."""
    t = TextTable(title="Queues (with arrivals; * = bottleneck)")
    for col in ("link", "kind"):
        t.add_column(col)
    for col in ("arrivals", "drops", "loss", "avg q", "max q", "wait ms"):
        t.add_column(col, "right")
    for q in queues:
        if q["arrivals"] == 0:
            continue
        mark = "*" if q["link"] == bottleneck else ""
        t.add_row(
            f"{q['link']}{mark}",
            q["kind"],
            str(q["arrivals"]),
            str(q["drops"]),
            pct(q["loss_rate"]),
            f"{q['avg_len_pkts']:.3f}",
            str(q["max_len_pkts"]),
            ms(q["avg_sojourn_s"]),
        )
    return t


def summary_table(result: Result) -> TextTable:
    """The summary block and the run's performance counters."""
    s, p = result.summary, result.perf
    t = TextTable(title="Summary", show_header=False)
    t.add_column("key")
    t.add_column("value", "right")
    rows = [
        ("scenario", f"{result.name} (seed {result.seed})"),
        ("metrics window", f"{result.warmup_s:g} s .. {result.duration_s:g} s"),
        ("goodput", si(s["goodput_bps"], "bps")),
        ("Jain's index", f"{s['jain_index']:.4f}"),
        ("loss rate", pct(s["loss_rate"])),
        (f"bottleneck {s.get('bottleneck_link', '')} utilization", pct(s["bottleneck_utilization"])),
        ("bottleneck avg queue", f"{s['bottleneck_avg_queue_pkts']:.3f} pkts"),
        ("events", f"{p['events']:,} in {p['wall_s']:.3f} s wall ({si(p['events_per_s'], 'events/s')})"),
    ]
    for key, value in rows:
        t.add_row(key, value)
    return t


# Queues the compact output of `ccsim run` shows: the bottleneck, then the
# ones that dropped most; `--queues` shows them all.
BUSY_QUEUES = 4


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def groups_table(result: Result) -> TextTable:
    """One row per flow group: its goodput, the spread of its flows' goodput, Jain's index, loss, delay."""
    t = TextTable(title="Flow groups")
    t.add_column("group\n(transport, flows)")
    for col in ("goodput", "per flow\nmin med max", "Jain", "loss", "delay\nms"):
        t.add_column(col, "right")
    flows = result.rows("flows")
    for g in result.rows("groups"):
        members = [f for f in flows if f.get("group") == g["group"]]
        rates = [float(f["goodput_bps"]) for f in members]
        delays = [float(f["delay_mean_s"]) for f in members if f["delay_mean_s"] is not None]
        t.add_row(
            f"{g['group']} ({g['transport']}, {g['flows']})",
            si(g["goodput_bps"], "bps"),
            " ".join(num(v) for v in (min(rates), _median(rates), max(rates))) if rates else "-",
            f"{g['jain_index']:.3f}",
            pct(g["loss_rate"]),
            num(_median(delays) * 1e3) if delays else "-",
        )
    t.caption = "delay ms: the median of the flows' mean one-way delays"
    return t


def busy_queues(queues: Sequence[Mapping[str, Any]], bottleneck: str) -> tuple[list[Mapping[str, Any]], int]:
    """The queues worth a line: the bottleneck, then those that dropped most; and how many more saw traffic."""
    used = [q for q in queues if q["arrivals"] > 0]
    ranked = sorted(used, key=lambda q: (q["link"] != bottleneck, -q["drops"], -q["avg_len_pkts"]))
    shown = [q for q in ranked if q["link"] == bottleneck or q["drops"] > 0][:BUSY_QUEUES]
    return shown, len(used) - len(shown)


def run_tables(result: Result, *, flows: bool = False, queues: bool = False) -> list[TextTable]:
    """What `ccsim run` prints: the summary, the flow groups and the busiest queues; every flow and
    every queue with `flows` and `queues`."""
    bottleneck = str(result.summary.get("bottleneck_link", ""))
    tables = [summary_table(result), groups_table(result)]
    if queues:
        tables.append(queues_table(result.rows("queues"), bottleneck))
    else:
        shown, more = busy_queues(result.rows("queues"), bottleneck)
        t = queues_table(shown, bottleneck)
        t.title = "Busiest queues (* = bottleneck)"
        if more:
            t.caption = f"{more} more queue{'s' if more > 1 else ''} with traffic: --queues"
        tables.append(t)
    if flows:
        tables.append(flows_table(result.rows("flows")))
    return tables


def bench_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """Benchmark results: events/s and packets forwarded per wall second."""
    from rich.table import Table  # noqa: PLC0415

    t = Table(title="Benchmarks", title_justify="left")
    t.add_column("scenario")
    for col in ("events", "wall s", "events/s", "pkts fwd/s", "events/hop"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r["scenario"],
            f"{r['events']:,}",
            f"{r['wall_s']:.3f}",
            f"{r['events_per_s']:,.0f}",
            f"{r['packets_forwarded_per_s']:,.0f}",
            f"{r['events_per_hop']:.2f}",
        )
    return t


def against_table(rows: Sequence[BenchRow]) -> Table:
    """ccsim against ns-2, whole processes: median wall times, their ratio, peak memory."""
    from rich.table import Table  # noqa: PLC0415

    t = Table(title="ccsim run vs ns (whole process, median)", title_justify="left")
    t.add_column("benchmark")
    for col in ("ns-2 s", "ccsim s", "ratio", "event loop s", "ns-2 MB", "ccsim MB", "runs"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(
            r.name,
            f"{r.ns2_s:.2f}",
            f"{r.ccsim_s:.2f}",
            f"{r.ratio:.1f}x",
            f"{r.loop_s:.2f}",
            f"{r.ns2_mb:.0f}",
            f"{r.ccsim_mb:.0f}",
            str(r.runs),
        )
    return t


def num(value: float | None) -> str:
    """A number in 3 significant digits, with an SI prefix from 1000 up; "-" for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{prefix}"
    return f"{value:.3g}"


def estimate(mean: float, low: float, high: float, symmetric: bool) -> str:
    """A mean with its interval: "9.87M ± 12k" (t) or "9.87M [9.7M, 9.99M]" (bootstrap)."""
    if math.isnan(low):
        return num(mean)
    if symmetric:
        return f"{num(mean)} ± {num2((high - low) / 2)}"
    return f"{num(mean)} [{num(low)}, {num(high)}]"


def num2(value: float) -> str:
    """A spread in 2 significant digits (an interval's half-width needs no more)."""
    scale, prefix = next(((sc, p) for sc, p in ((1e9, "G"), (1e6, "M"), (1e3, "k")) if abs(value) >= sc), (1.0, ""))
    scaled = value / scale
    # .2g would print 124 as 1.2e+02.
    return f"{scaled:.2g}{prefix}" if abs(scaled) < 100 else f"{scaled:.0f}{prefix}"


def _value(v: object) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    return str(v)


def sweep_stats_tables(
    table: pd.DataFrame, parameters: Sequence[str], metrics: Sequence[str], *, symmetric: bool = True
) -> list[tuple[str, Table]]:
    """`ccsim summarize`: one table per metric, a row per case (and grid value but the last), a column per
    value of the last grid parameter; each cell the mean and its interval.

    `table` is `ccsim.stats.describe`'s long table; `symmetric` intervals
    (Student t) show as "mean ± half-width", others as "mean [low, high]".
    Returns (title, table) pairs: a title printed above its table is not
    wrapped to the table's width.
    """
    from rich.markup import escape  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    across = parameters[-1] if parameters else None
    down = ["case_label", *parameters[:-1]]
    tables: list[tuple[str, Table]] = []
    for m in metrics:
        sub = table[table["metric"] == m]
        counts = sub["n"].unique()
        same_n = len(counts) == 1
        title = f"{m} (n = {counts[0]} per cell)" if same_n else m
        t = Table()
        t.add_column("case")
        for p in down[1:]:
            t.add_column(escape(p), justify="right")
        columns = list(dict.fromkeys(sub[across])) if across else [None]
        for c in columns:
            t.add_column(escape(f"{across} = {_value(c)}") if across else "all", justify="right")
        for key, group in sub.groupby(down, sort=False, dropna=False):
            keys = key if isinstance(key, tuple) else (key,)
            cells: dict[object, str] = {}
            for i in range(len(group)):
                row = group.iloc[i]
                text = estimate(row["mean"], row["ci_low"], row["ci_high"], symmetric)
                cells[row[across] if across else None] = text if same_n else f"{text} (n={row['n']})"
            t.add_row(*(escape(_value(k)) for k in keys), *(escape(cells.get(c, "-")) for c in columns))
        tables.append((title, t))
    return tables


def ranking_table(ranking: pd.DataFrame, parameters: Sequence[str]) -> Table:
    """`ccsim summarize --rank`: per grid point, the cases best first with their significance rank."""
    from rich.markup import escape  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    t = Table()
    for p in parameters:
        t.add_column(escape(p), justify="right")
    for col in ("rank", "case", "n", "mean ± CI", "significantly better than"):
        t.add_column(col, justify="right" if col in ("rank", "n", "mean ± CI") else "left")
    previous: tuple[Any, ...] | None = None
    for _, row in ranking.iterrows():
        point = tuple(row[p] for p in parameters)
        shown = [escape(_value(v)) for v in point] if point != previous else [""] * len(parameters)
        if previous is not None and point != previous:
            t.add_section()
        previous = point
        t.add_row(
            *shown,
            str(row["rank"]),
            escape(str(row["case"])),
            str(row["n"]),
            estimate(row["mean"], row["ci_low"], row["ci_high"], True),
            escape(row["better_than"]) or "-",
        )
    return t
