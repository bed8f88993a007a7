"""The `ccsim` command: run, validate and benchmark scenarios, run sweeps and summarize them; plot and report results
(docs/cli.md).

Bad input prints `error: <message>` on stderr and exits with status 2; an
interrupt exits with 130. No input prints a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import os
import shlex
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import ccsim
from ccsim.paths import DEFAULT_RESULTS, META_FILE, default_results_dir, safe_dirname
from ccsim.scenario import ScenarioText, load

if TYPE_CHECKING:
    from rich.console import Console

    from ccsim.results import Result

# The heavy libraries (pandas, pyarrow, matplotlib, rich, DuckDB, scipy) are
# imported inside the commands that use them, so that `ccsim --help` and
# `ccsim validate` start in a few tens of milliseconds (docs/performance.md,
# "Start-up"; tests/python/test_startup.py keeps it so).

__all__ = ["DEFAULT_RESULTS", "main", "safe_dirname"]

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_RUNS_FAILED = 10
"""`ccsim sweep` exits with 10 + n when n of its runs failed (n capped at MAX_FAILED_STATUS)."""
MAX_FAILED_STATUS = 100

DEFAULT_BENCHES = "benches/*.toml"
MAX_TRACE_BYTES = 10**9
"""`ccsim run` refuses a packet trace estimated larger than this (1 GB) without --allow-large."""
# Wide enough for the flow table when output goes to a file or a pipe (rich would otherwise use 80 columns).
PIPE_WIDTH = 132


def seed_arg(text: str) -> int:
    """argparse type of --seed: an integer in [0, 2**64)."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in 0..2^64-1, got {text}")
    return value


def seconds_arg(text: str) -> float:
    """argparse type of --max-wall: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text}")
    return value


def positive_int(text: str) -> int:
    """argparse type of --jobs: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def level_arg(text: str) -> float:
    """argparse type of --alpha / --confidence: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text}")
    return value


def add_run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`ccsim run`'s arguments."""
    run = sub.add_parser("run", help="run a scenario and write its results")
    run.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (.toml or .json)")
    run.add_argument("--example", metavar="NAME", help="run a scenario shipped with ccsim (ccsim examples lists them)")
    run.add_argument("--out", metavar="DIR", type=Path, help="results folder (default: results/<name>/)")
    run.add_argument("--json", action="store_true", help="print the summary JSON to stdout instead of tables")
    run.add_argument("--seed", type=seed_arg, metavar="N", help="override the scenario's seed")
    run.add_argument("--max-wall", type=seconds_arg, metavar="SECONDS", help="stop a run after this wall time")
    run.add_argument("--quiet", "-q", action="store_true", help="print nothing but errors")
    run.add_argument("--flows", action="store_true", help="print every flow's row too")
    run.add_argument("--queues", action="store_true", help="print every queue that saw traffic")
    run.add_argument("--verbose", "-v", action="store_true", help="print every flow and every queue (--flows --queues)")
    run.add_argument("--plots", action="store_true", help="draw the run's figures into DIR/plots")
    run.add_argument("--pdf", action="store_true", help="with --plots: PDF files too")
    run.add_argument(
        "--allow-large", action="store_true", help="write a packet trace even if it is estimated over 1 GB"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(prog="ccsim", description="Packet-level network simulation.")
    parser.add_argument("--version", action="version", version=f"ccsim {ccsim.__version__}")
    parser.add_argument("--traceback", action="store_true", help="show a traceback on internal errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_run_parser(sub)

    ex = sub.add_parser("examples", help="list the example scenarios shipped with ccsim, or copy one")
    ex.add_argument("name", nargs="?", metavar="NAME", help="print this example's path (with --copy: copy it)")
    ex.add_argument("--copy", nargs="?", const=Path(), type=Path, metavar="DIR", help="copy NAME into DIR (default .)")

    val = sub.add_parser("validate", help="check scenarios (or sweep files) without running them")
    val.add_argument("scenarios", nargs="+", metavar="SCENARIO")

    bench = sub.add_parser("bench", help="run benchmark scenarios and print events/s")
    bench.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=f"default: {DEFAULT_BENCHES}")
    bench.add_argument("--json", action="store_true", help="print the measurements as JSON")
    bench.add_argument("--max-wall", type=seconds_arg, metavar="SECONDS", help="stop a run after this wall time")
    bench.add_argument(
        "--against",
        choices=["ns2"],
        help="time whole processes of ccsim and ns-2 alternately on benches/against_ns2.toml (a source checkout)",
    )
    bench.add_argument("--runs", type=positive_int, default=3, metavar="N", help="runs of each side (--against)")

    sweep = sub.add_parser("sweep", help="run a sweep (grid x cases x replicates) into a results store")
    sweep.add_argument("sweep", metavar="SWEEP", help="sweep file (.toml), see docs/sweeps.md")
    sweep.add_argument("--out", metavar="DIR", type=Path, help="results folder (default: results/<sweep name>/)")
    where = sweep.add_mutually_exclusive_group()
    where.add_argument("--jobs", "-j", type=positive_int, metavar="N", help="worker processes (default: all cores)")
    where.add_argument(
        "--cluster", metavar="ADDRESS", help="run on Dask: tcp://HOST:8786 (a scheduler) or local:N (a LocalCluster)"
    )
    again = sweep.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="keep the stored runs and run only what is missing")
    again.add_argument("--overwrite", action="store_true", help="delete an existing results store and start afresh")
    sweep.add_argument("--retry-failed", action="store_true", help="with --resume: run the failed runs again too")
    sweep.add_argument("--max-wall", type=seconds_arg, metavar="SECONDS", help="stop each run after this wall time")
    sweep.add_argument("--dry-run", action="store_true", help="check the sweep and count its runs; run nothing")
    sweep.add_argument("--quiet", "-q", action="store_true", help="no progress output")

    summ = sub.add_parser("summarize", help="statistics of a sweep's replicates; rank the cases on a metric")
    summ.add_argument("results", metavar="DIR", type=Path, help="a sweep's results folder")
    summ.add_argument("--metric", "-m", action="append", metavar="NAME", help="a metric to show (repeatable)")
    summ.add_argument("--rank", metavar="METRIC", help="rank the cases on METRIC at each grid point")
    direction = summ.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_true", default=None)
    direction.add_argument("--lower-is-better", dest="higher", action="store_false")
    summ.add_argument("--alpha", type=level_arg, default=0.05, metavar="A", help="significance level (default 0.05)")
    summ.add_argument("--confidence", type=level_arg, default=0.95, metavar="C", help="CI level (default 0.95)")
    summ.add_argument("--bootstrap", action="store_true", help="percentile bootstrap intervals instead of Student t")
    summ.add_argument(
        "--resamples", type=positive_int, default=10_000, metavar="N", help="bootstrap resamples (default 10000)"
    )
    summ.add_argument("--csv-dir", metavar="DIR", type=Path, help="where the CSV files go (default: DIR)")
    summ.add_argument("--quiet", "-q", action="store_true", help="write the CSV files, print nothing")
    add_reproduce_parser(sub)
    add_view_commands(sub)
    return parser


def add_reproduce_parser(sub: Any) -> None:  # noqa: ANN401 (argparse's subparsers action has a private type)
    """`ccsim reproduce`'s arguments."""
    rep = sub.add_parser("reproduce", help="run a built-in study (a paper's experiments) and write its tables")
    rep.add_argument("study", metavar="NAME", nargs="?", help="a study (see --list), or 'all'")
    rep.add_argument("--list", action="store_true", help="list the studies")
    rep.add_argument("--quick", action="store_true", help="the quick variant: shorter runs, fewer points")
    rep.add_argument("--out", metavar="DIR", type=Path, help="results folder (default: results/<NAME>[-quick]/)")
    rwhere = rep.add_mutually_exclusive_group()
    rwhere.add_argument("--jobs", "-j", type=positive_int, metavar="N", help="worker processes (default: all cores)")
    rwhere.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler address, or local:N")
    ragain = rep.add_mutually_exclusive_group()
    ragain.add_argument("--resume", action="store_true", help="keep the stored runs and run only what is missing")
    ragain.add_argument("--overwrite", action="store_true", help="delete an existing results store and start afresh")
    rep.add_argument("--max-wall", type=seconds_arg, metavar="SECONDS", help="stop each run after this wall time")
    rep.add_argument("--quiet", "-q", action="store_true", help="no progress output and no tables")
    rep.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: recompute the tables, claims and report.html from the stored runs in --out",
    )
    rep.add_argument("--pdf", action="store_true", help="PDF figures too (PNG and SVG always)")


def add_view_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`ccsim plot` and `ccsim report`: figures and the HTML report of a run or a sweep."""
    plot = sub.add_parser("plot", help="draw the figures of a run or a sweep")
    report = sub.add_parser("report", help="write DIR/report.html: one self-contained page about a run or a sweep")
    for p in (plot, report):
        p.add_argument("dir", metavar="DIR", type=Path, help="a run's (ccsim run) or a sweep's (ccsim sweep) folder")
        p.add_argument("--pdf", action="store_true", help="PDF figures too (PNG and SVG always)")
        p.add_argument("--x", metavar="PARAM", help="sweeps: the grid parameter on the x axis (default: the first)")
        p.add_argument("--y", metavar="METRIC", action="append", help="sweeps: a metric to plot (repeatable)")
        p.add_argument("--by", metavar="COLUMN", default="case_label", help="sweeps: one line per (default: case)")
    plot.add_argument("--out", metavar="DIR", type=Path, help="where the figures go (default: DIR/plots)")
    report.add_argument("--open", action="store_true", help="open the report in the web browser")


def console(stream: TextIO) -> Console:
    """A rich console on `stream`, wide enough for the tables when it is not a terminal."""
    from rich.console import Console  # noqa: PLC0415

    c = Console(file=stream, highlight=False)
    if not c.is_terminal:
        c = Console(file=stream, highlight=False, width=PIPE_WIDTH, no_color=True)
    return c


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Let Ctrl-C end the process while the engine runs.

    The engine runs without returning to Python, so Python's SIGINT handler
    (which only sets a flag) would wait for the run to finish. Inside this
    block SIGINT has its default action: the process ends at once with
    status 130, before any result file is written; the handler is restored
    afterwards so an interrupt while writing becomes KeyboardInterrupt.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # Started with interrupts ignored (nohup, a background job): keep it that way.
        yield
        return
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread (e.g. main() called from a worker): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def scenario_of(args: argparse.Namespace) -> str:
    """`ccsim run`'s scenario: the file given, or the shipped example named by --example."""
    if (args.scenario is None) == (args.example is None):
        raise ccsim.ScenarioError("give a scenario file or --example NAME (one of the two)")
    if args.example is None:
        return str(args.scenario)
    from ccsim import shipped  # noqa: PLC0415

    return str(shipped.example(args.example).path)


def cmd_examples(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim examples [NAME] [--copy [DIR]]`: list, locate or copy the shipped examples."""
    from ccsim import shipped  # noqa: PLC0415

    if args.name is None:
        if args.copy is not None:
            raise ccsim.ScenarioError("--copy needs the NAME of an example")
        for e in shipped.examples():
            print(f"{e.name:<22} {e.summary}", file=stdout)
        return EXIT_OK
    if args.copy is None:
        print(shipped.example(args.name).path, file=stdout)
        return EXIT_OK
    print(f"copied to {shipped.copy_example(args.name, args.copy)}", file=stdout)
    return EXIT_OK


def check_trace_size(args: argparse.Namespace, scenario: ScenarioText) -> None:
    """Refuse a packet trace estimated over MAX_TRACE_BYTES unless --allow-large (ScenarioError, one line)."""
    if args.allow_large or scenario.trace_name() is None:
        return
    estimate = ccsim.trace_estimate(scenario, seed=args.seed)
    if estimate is None:
        return
    fmt, packets, size = estimate
    if size > MAX_TRACE_BYTES:
        raise ccsim.ScenarioError(
            f"{args.scenario}: output.trace: the {fmt} trace would take about {size / 1e9:.1f} GB "
            f"({packets:.2g} packet hops on traced links), over the {MAX_TRACE_BYTES / 1e9:g} GB limit: "
            "add --allow-large to write it, or trace fewer links (output.trace_links) or a shorter run"
        )


def cmd_run(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim run`."""
    args.scenario = scenario_of(args)
    scenario = load(args.scenario)  # the file is read once; the engine parses it
    check_trace_size(args, scenario)
    from ccsim.run_progress import progress_bar  # noqa: PLC0415 (rich, only on a terminal)

    with interruptible(), progress_bar(enabled=not (args.quiet or args.json)) as progress:
        # A packet trace goes into the results folder (default results/<name>/, as below).
        result = ccsim.run(scenario, seed=args.seed, max_wall_s=args.max_wall, trace_dir=args.out, progress=progress)
    out_dir = args.out if args.out is not None else default_results_dir(result.name)
    result.write(out_dir)
    write_meta(out_dir, args, result, scenario)
    plots = []
    if args.plots:
        from ccsim.plots import plot_run  # noqa: PLC0415 (matplotlib: only with --plots)

        plots = plot_run(out_dir, pdf=args.pdf)
    if args.json:
        stdout.write(result.summary_json())
    elif not args.quiet:
        show_run(result, out_dir, stdout, flows=args.flows or args.verbose, queues=args.queues or args.verbose)
        if plots:
            print(f"figures written to {out_dir / 'plots'}/", file=stdout)
    return EXIT_OK


def write_meta(out_dir: Path, args: argparse.Namespace, result: Result, text: ScenarioText) -> None:
    """meta.json: how the run was made (command line, date, scenario); read by `ccsim report`."""
    import datetime as dt  # noqa: PLC0415 (`ccsim --help` and `ccsim validate` need no date)

    scenario = text.parsed()
    meta = {
        "command": "ccsim " + shlex.join(args.argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "version": ccsim.__version__,
        "scenario_file": str(args.scenario),
        "seed": result.seed,
        "scenario": scenario,
    }
    (out_dir / META_FILE).write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")


def results_folder(path: Path) -> str:
    """What `path` holds: "run" (summary.json) or "sweep" (results.duckdb); else FileNotFoundError naming it."""
    from ccsim import report  # noqa: PLC0415

    if not path.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(path))
    if report.is_run(path):
        return "run"
    if report.is_sweep(path):
        return "sweep"
    raise FileNotFoundError(errno.ENOENT, "not a ccsim results folder (no summary.json, no results.duckdb)", str(path))


def sweep_plot_args(args: argparse.Namespace) -> dict[str, Any]:
    """The --x/--y/--by options of plot and report, for a sweep."""
    return {"x": args.x, "y": args.y, "by": args.by}


def cmd_plot(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim plot DIR`."""
    kind = results_folder(args.dir)
    out = args.out if args.out is not None else args.dir / "plots"
    if kind == "run":
        from ccsim.plots import plot_run  # noqa: PLC0415

        plots = plot_run(args.dir, out, pdf=args.pdf)
    else:
        from ccsim.plots.sweep import plot_sweep  # noqa: PLC0415 (DuckDB and scipy: sweeps only)

        plots = plot_sweep(args.dir, out, pdf=args.pdf, **sweep_plot_args(args))
    for p in plots:
        print(f"{p.name}: {', '.join(str(x) for x in p.paths)}", file=stdout)
    return EXIT_OK


def cmd_report(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim report DIR`."""
    import webbrowser  # noqa: PLC0415

    from ccsim import report  # noqa: PLC0415

    if results_folder(args.dir) == "run":
        path = report.report_run(args.dir, pdf=args.pdf)
    else:
        path = report.report_sweep(args.dir, pdf=args.pdf, **sweep_plot_args(args))
    print(f"report written to {path}", file=stdout)
    if args.open:
        webbrowser.open(path.resolve().as_uri())
    return EXIT_OK


def show_run(result: Result, out_dir: Path, stdout: TextIO, *, flows: bool = False, queues: bool = False) -> None:
    """Print a run's tables (compact unless `flows` or `queues`) and where its results went.

    Off a terminal the tables are drawn without importing rich when they come out the same
    (`ccsim.plain_table.render`); on a terminal rich draws them, in colour.
    """
    from ccsim import display, plain_table  # noqa: PLC0415

    tables = display.run_tables(result, flows=flows, queues=queues)
    where = f"results written to {out_dir}{'' if str(out_dir).endswith('/') else '/'}"
    if not rich_needed(stdout):
        drawn = [plain_table.render(t, PIPE_WIDTH) for t in tables]
        if all(d is not None for d in drawn):
            stdout.write("".join(d for d in drawn if d is not None) + where + "\n")
            return
    out = console(stdout)
    for t in tables:
        out.print(plain_table.to_rich(t))
    out.print(where, soft_wrap=True, markup=False, emoji=False)


def rich_needed(stream: TextIO) -> bool:
    """Whether rich would draw on `stream` as on a terminal (or in an encoding without box characters)."""
    if any(v in os.environ for v in ("FORCE_COLOR", "TTY_COMPATIBLE")):
        return True
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return stream.isatty() or encoding != "utf8"


def cmd_validate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """`ccsim validate`: check each scenario, report each, fail if any is malformed."""
    from ccsim import sweep  # noqa: PLC0415 (as in cmd_sweep)
    from ccsim.scenario import is_sweep_file  # noqa: PLC0415 (the sweep spec's hashlib only for sweep files)

    status = EXIT_OK
    for path in args.scenarios:
        try:
            if is_sweep_file(path):
                sweep.plan(sweep.load_sweep(path))  # every grid point of a sweep file
            else:
                ccsim.validate(path)
        except ccsim.ScenarioError as e:
            print(f"error: {e}", file=stderr)
            status = EXIT_USAGE
        else:
            print(f"{path}: ok", file=stdout)
    return status


def bench_paths(given: Sequence[str]) -> list[str]:
    """The scenarios to benchmark: those given, or benches/*.toml."""
    if given:
        return list(given)
    found = sorted(str(p) for p in Path().glob(DEFAULT_BENCHES))
    if not found:
        raise ccsim.ScenarioError(f"no scenarios given and none found in {DEFAULT_BENCHES}")
    return found


def bench_row(path: str, max_wall: float | None) -> dict[str, Any]:
    """Run one benchmark scenario and return its measurements."""
    with interruptible():
        perf = ccsim.run(path, max_wall_s=max_wall).perf
    wall = perf["wall_s"]
    hops = perf["packets_forwarded"]
    return {
        "scenario": path,
        "events": perf["events"],
        "wall_s": wall,
        "events_per_s": perf["events_per_s"],
        "packets_forwarded": hops,
        "packets_forwarded_per_s": hops / wall if wall > 0 else 0.0,
        "events_per_hop": perf["events"] / hops if hops else 0.0,
    }


def cmd_bench(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim bench`."""
    from ccsim import display  # noqa: PLC0415

    if args.against is not None:
        from ccsim import bench_peer  # noqa: PLC0415

        with interruptible():
            against = bench_peer.bench_against_ns2(Path(), args.runs, args.scenarios)
        if args.json:
            stdout.write(json.dumps([r.as_dict() for r in against], indent=2) + "\n")
        else:
            console(stdout).print(display.against_table(against))
        return EXIT_OK
    rows = [bench_row(p, args.max_wall) for p in bench_paths(args.scenarios)]
    if args.json:
        stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        console(stdout).print(display.bench_table(rows))
    return EXIT_OK


def sweep_status(failed: int) -> int:
    """The exit status of a sweep with `failed` failed runs: 0, else 10 + failed (capped at 110)."""
    return EXIT_OK if failed == 0 else EXIT_RUNS_FAILED + min(failed, MAX_FAILED_STATUS)


def cmd_sweep(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """`ccsim sweep`: validate everything, run what is missing, store each run as it finishes."""
    # Imported here, not at the top, so that `ccsim run` does not pay for the sweep's modules.
    from ccsim import sweep as sw  # noqa: PLC0415
    from ccsim.sweep import progress  # noqa: PLC0415

    spec = sw.load_sweep(args.sweep)
    backend: sw.runner.Backend = sw.DaskCluster(args.cluster) if args.cluster is not None else sw.LocalPool(args.jobs)
    out_dir = args.out if args.out is not None else DEFAULT_RESULTS / safe_dirname(spec.name)
    if args.retry_failed and not args.resume:
        raise ccsim.ScenarioError("--retry-failed goes with --resume")
    if args.dry_run:
        runs = sw.plan(spec)
        points = len(runs) // spec.replicates
        print(
            f"{args.sweep}: ok: {len(runs)} runs ({points} grid points and cases x {spec.replicates} replicates)",
            file=stdout,
        )
        return EXIT_OK
    try:
        report = sw.run_sweep(
            spec,
            out_dir,
            backend,
            resume=args.resume,
            overwrite=args.overwrite,
            retry_failed=args.retry_failed,
            max_wall_s=args.max_wall,
            progress=progress.for_stream(stdout, quiet=args.quiet),
        )
    except KeyboardInterrupt:
        print(f"interrupted: the finished runs are stored in {out_dir}; add --resume to run the rest", file=stderr)
        return EXIT_INTERRUPTED
    if not args.quiet:
        stored = f", {report.skipped} already stored" if report.skipped else ""
        print(
            f"{report.ran} runs in {report.wall_s:.1f} s: {report.ran - report.failed} ok, {report.failed} failed"
            f"{stored}; results in {out_dir}{'' if str(out_dir).endswith('/') else '/'}",
            file=stdout,
        )
    write_sweep_meta(out_dir, args)
    if report.failed_total:
        print(f"error: {report.failed_total} of {report.total} runs failed (see the error column of runs)", file=stderr)
    return sweep_status(report.failed_total)


def write_sweep_meta(out_dir: Path, args: argparse.Namespace) -> None:
    """meta.json of a sweep's folder: the command line and date of its last `ccsim sweep` (for `ccsim report`)."""
    import datetime as dt  # noqa: PLC0415

    meta = {
        "command": "ccsim " + shlex.join(args.argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "version": ccsim.__version__,
        "sweep_file": str(args.sweep),
    }
    (out_dir / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def cmd_summarize(args: argparse.Namespace, stdout: TextIO) -> int:
    """`ccsim summarize`: per grid point statistics of every metric; with --rank, the cases compared."""
    from ccsim import display, stats  # noqa: PLC0415 (scipy takes seconds to import)

    try:
        summary = stats.summarize(
            args.results,
            metrics=args.metric,
            rank=args.rank,
            higher=args.higher,
            alpha=args.alpha,
            confidence=args.confidence,
            method="bootstrap" if args.bootstrap else "t",
            resamples=args.resamples,
        )
    except ValueError as e:
        if isinstance(e, ccsim.ScenarioError):
            raise
        raise ccsim.ScenarioError(f"{args.results}: {e}") from e
    files = summary.write_csv(args.csv_dir if args.csv_dir is not None else args.results)
    if args.quiet:
        return EXIT_OK
    out = console(stdout)
    level = f"{summary.confidence * 100:g}%"
    kind = "Student t" if summary.method == "t" else "percentile bootstrap"
    shape = "mean ± half-width" if summary.method == "t" else "mean [low, high]"
    failed = f" ({summary.failed} failed runs left out)" if summary.failed else ""
    out.print(
        f"{args.results}: {summary.runs - summary.failed} runs{failed}; each cell: {shape} of the {level} "
        f"confidence interval ({kind}) over the replicates",
        soft_wrap=True,
        markup=False,
    )
    for title, t in display.sweep_stats_tables(
        summary.table, summary.parameters, summary.metrics, symmetric=summary.method == "t"
    ):
        out.print(title, soft_wrap=True, markup=False)
        out.print(t)
    c = summary.comparison
    if c is not None:
        better = "higher" if c.higher_is_better else "lower"
        title = (
            f"Cases ranked on {c.metric} ({better} is better); rank = 1 + cases significantly better "
            f"(Welch t-tests, Holm-corrected, alpha {c.alpha:g})"
        )
        out.print(title, soft_wrap=True, markup=False)
        out.print(display.ranking_table(c.ranking, summary.parameters))
    out.print("written: " + ", ".join(str(f) for f in files), soft_wrap=True)
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """`ccsim reproduce`: run a study's sweep (or every study's) and write its tables."""
    from ccsim import studies  # noqa: PLC0415
    from ccsim import sweep as sw  # noqa: PLC0415
    from ccsim.sweep import progress  # noqa: PLC0415

    if args.list:
        for s in studies.STUDIES.values():
            print(f"{s.name:20}  {s.summary}", file=stdout)
        return EXIT_OK
    if args.study is None:
        raise ccsim.ScenarioError("reproduce: name a study (ccsim reproduce --list shows them) or 'all'")
    try:
        chosen = list(studies.STUDIES.values()) if args.study == "all" else [studies.get(args.study)]
    except ValueError as e:
        raise ccsim.ScenarioError(str(e)) from e
    if args.out is not None and len(chosen) > 1:
        outs = {s.name: args.out / s.name for s in chosen}
    else:
        outs = {s.name: args.out if args.out is not None else studies.default_out(s, args.quick) for s in chosen}
    failed = 0
    command = "ccsim " + shlex.join(args.argv)
    for study in chosen:
        out_dir = outs[study.name]

        def backend() -> sw.runner.Backend:
            return sw.DaskCluster(args.cluster) if args.cluster is not None else sw.LocalPool(args.jobs)

        try:
            if args.report_only:
                done = studies.report_only(study, out_dir, pdf=args.pdf, command=command)
            else:
                done = studies.reproduce(
                    study,
                    out_dir,
                    backend,
                    quick=args.quick,
                    resume=args.resume,
                    overwrite=args.overwrite,
                    max_wall_s=args.max_wall,
                    progress=progress.for_stream(stdout, quiet=args.quiet),
                    pdf=args.pdf,
                    command=command,
                )
        except KeyboardInterrupt:
            print(f"interrupted: the finished runs are stored in {out_dir}; add --resume to run the rest", file=stderr)
            return EXIT_INTERRUPTED
        failed += done.failed_total
        if not args.quiet:
            stdout.write(done.tables.markdown() + "\n")
            print(
                f"{study.name}: {done.total} runs ({done.failed_total} failed); tables in {out_dir}/; "
                f"report: {done.report}",
                file=stdout,
            )
        if done.failed_total:
            print(f"error: {study.name}: {done.failed_total} of {done.total} runs failed", file=stderr)
    return sweep_status(failed)


def dispatch(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run the chosen command."""
    if args.command == "reproduce":
        return cmd_reproduce(args, stdout, stderr)
    if args.command == "validate":
        return cmd_validate(args, stdout, stderr)
    if args.command == "sweep":
        return cmd_sweep(args, stdout, stderr)
    commands = {
        "run": cmd_run,
        "examples": cmd_examples,
        "summarize": cmd_summarize,
        "plot": cmd_plot,
        "report": cmd_report,
    }
    return commands.get(args.command, cmd_bench)(args, stdout)


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of the `ccsim` command; returns the exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return dispatch(args, out, err)
    except usage_errors() as e:
        print(f"error: {e}", file=err)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`ccsim run x.toml --json | head`): nothing left to tell it.
        return EXIT_OK
    except OSError as e:
        print(f"error: {describe_os_error(e)}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return EXIT_INTERRUPTED
    except BaseException as e:
        if isinstance(e, SystemExit | GeneratorExit) or args.traceback:
            raise
        print(f"error: internal error ({type(e).__name__}: {e}); rerun with --traceback and report it", file=err)
        return EXIT_INTERNAL


def usage_errors() -> tuple[type[Exception], ...]:
    """The exceptions that are the user's input, not ccsim's fault: they print one line and exit 2.

    PlotError joins them once the plotting module has been imported (only a
    command that imported it can raise it).
    """
    errors: tuple[type[Exception], ...] = (ccsim.ScenarioError, ccsim.SimulationError)
    plots = sys.modules.get("ccsim.plots.run")
    return errors if plots is None else (*errors, plots.PlotError)


def describe_os_error(e: OSError) -> str:
    """An OSError as "path: reason" (the form of the engine's messages)."""
    reason = e.strerror or str(e)
    if e.filename is not None:
        return f"{e.filename}: {reason}"
    return reason


if __name__ == "__main__":
    sys.exit(main())
