"""Figures of runs and sweeps in one house style (docs/plots.md).

    >>> from ccsim import plots
    >>> for p in plots.plot_run("results/dumbbell_udp"):   # RUN_DIR/plots/*.png, *.svg
    ...     print(p.name, p.caption)

Modules: `style` (palette, sizes, saving), `labels` (legend names), `run`
(the figures of one run), `sweep` (the figures of a sweep: `plot_sweep`;
imported on demand, it needs DuckDB and scipy).
"""

from __future__ import annotations

from ccsim.plots.run import Plot, PlotError, plot_result, plot_run

__all__ = ["Plot", "PlotError", "plot_result", "plot_run"]
