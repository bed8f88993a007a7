"""Figures of runs and sweeps in one house style (docs/plots.md).

    >>> from ccsim import plots
    >>> for p in plots.plot_run("results/dumbbell_udp"):   # RUN_DIR/plots/*.png, *.svg
    ...     print(p.name, p.caption)

Modules: `style` (palette, sizes, saving), `labels` (legend names), `run`
(the figures of one run).
"""

from __future__ import annotations

from ccsim.plots.run import Plot, plot_result, plot_run

__all__ = ["Plot", "plot_result", "plot_run"]
