"""Progress of a sweep: a rich progress bar on a terminal, one plain line per finished run otherwise."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

if TYPE_CHECKING:
    from ccsim.sweep.runner import Outcome
    from ccsim.sweep.spec import Run


class Progress(Protocol):
    """What the driver reports to."""

    def start(self, total: int, skipped: int) -> None:
        """`total` runs to do now; `skipped` already stored."""

    def advance(self, run: Run, outcome: Outcome) -> None:
        """One run finished (stored)."""

    def stop(self) -> None:
        """The sweep ended (or was interrupted)."""


def _eta(done: int, total: int, elapsed: float) -> str:
    if done == 0 or done >= total:
        return "-"
    left = int(elapsed / done * (total - done))
    return f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"


class Lines:
    """One line per finished run, for logs and pipes: "[ 3/12] ok    0.41 s  sweep.toml [..., replicate=0]"."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = self.done = self.failed = 0
        self.t0 = time.monotonic()

    def start(self, total: int, skipped: int) -> None:
        """Say what will run."""
        self.total, self.t0 = total, time.monotonic()
        note = f" ({skipped} already stored)" if skipped else ""
        print(f"running {total} runs{note}", file=self.stream, flush=True)

    def advance(self, run: Run, outcome: Outcome) -> None:
        """A line for the run; a failed run's line has its error."""
        self.done += 1
        self.failed += outcome.status != "ok"
        width = len(str(self.total))
        eta = _eta(self.done, self.total, time.monotonic() - self.t0)
        head = f"[{self.done:>{width}}/{self.total}] {outcome.status:<5} {outcome.wall_s:7.2f} s  {run.source}"
        tail = f"  (failed {self.failed}, ETA {eta})"
        line = head + tail
        if outcome.error:
            line += f"\n    {outcome.error}"
        print(line, file=self.stream, flush=True)

    def stop(self) -> None:
        """Nothing to close."""


class Bar:
    """A rich progress bar: runs done of total, failed, elapsed, ETA; failed runs are printed above it."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bar = RichProgress(
            TextColumn("[bold]sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.task: TaskID | None = None
        self.failed = 0

    def start(self, total: int, skipped: int) -> None:
        """Show the bar."""
        if skipped:
            self.console.print(f"{skipped} runs already stored; running the {total} missing")
        self.bar.start()
        self.task = self.bar.add_task("sweep", total=total, failed=0)

    def advance(self, run: Run, outcome: Outcome) -> None:
        """Move the bar; print a failed run's error."""
        if outcome.status != "ok":
            self.failed += 1
            self.console.print(f"[red]failed[/red] {escape(run.source)}: {escape(outcome.error or '')}", soft_wrap=True)
        if self.task is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def stop(self) -> None:
        """Leave the final bar on screen."""
        self.bar.stop()


class Silent:
    """No output (`--quiet`)."""

    def start(self, total: int, skipped: int) -> None:
        """Nothing."""

    def advance(self, run: Run, outcome: Outcome) -> None:
        """Nothing."""

    def stop(self) -> None:
        """Nothing."""


def for_stream(stream: TextIO, *, quiet: bool = False) -> Progress:
    """A bar on a terminal, lines otherwise, nothing when quiet."""
    if quiet:
        return Silent()
    console = Console(file=stream, highlight=False)
    return Bar(console) if console.is_terminal else Lines(stream)
