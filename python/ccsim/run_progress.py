"""The progress bar of `ccsim run` on a terminal: simulated time and events per second.

The engine calls back every 65536 events (`ccsim.run(progress=...)`); the bar
appears only after the run has taken `DELAY_S` of wall time, so short runs
print nothing extra, and only when stderr is a terminal (never on a pipe or
in a file). It is transient: the summary tables replace it.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

# Runs shorter than this show no bar (most runs: the bar would only flicker).
DELAY_S = 0.5

Callback = Callable[[float, float, int], None]


@contextlib.contextmanager
def progress_bar(enabled: bool = True, stream: TextIO | None = None) -> Iterator[Callback | None]:
    """A callback for `ccsim.run(progress=...)` drawing a bar on `stream` (stderr); None if not
    `enabled` or off a terminal."""
    stream = sys.stderr if stream is None else stream
    if not enabled or not stream.isatty():
        yield None
        return
    from rich.console import Console  # noqa: PLC0415 (only runs on a terminal draw a bar)
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415

    bar = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.fields[sim]:>9} of {task.fields[end]}"),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=Console(file=stream),
        transient=True,
    )
    task = bar.add_task("run", total=1.0, sim="", end="", rate="", visible=False)
    started = time.perf_counter()

    def update(sim_s: float, duration_s: float, events: int) -> None:
        wall = time.perf_counter() - started
        if wall < DELAY_S:
            return
        if not bar.live.is_started:
            bar.start()
        rate = events / wall if wall > 0 else 0.0
        bar.update(
            task,
            completed=sim_s / duration_s if duration_s > 0 else 1.0,
            sim=f"{sim_s:.1f} s",
            end=f"{duration_s:g} s",
            rate=f"{rate / 1e6:.1f} M events/s",
            visible=True,
        )

    try:
        yield update
    finally:
        if bar.live.is_started:
            bar.stop()
