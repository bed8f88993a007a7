"""Figures and the HTML report of a sweep: lines with confidence bands, grouped bars, FCT CDFs, Tables 2 and 3."""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import pandas as pd
import pytest

from ccsim import sweep
from ccsim.cli import main
from ccsim.plots import PlotError, style
from ccsim.plots.sweep import grouped_bars, numeric_values, plot_sweep, successful_runs

BASE = """\
name = "aqm_small"
duration = "2s"
warmup = "0.5s"
seed = 5

[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "100Mbps", delay = "2ms" }

[topology.bottleneck]
rate = "4Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = 30 }

[[flows]]
group = "bulk"
count = 2
transport = "tcp"
app = "bulk"
start = { uniform = ["0s", "0.3s"] }

[[flows]]
group = "short"
count = 4
transport = "tcp"
app = "finite"
size = 20
start = { uniform = ["0.5s", "1s"] }
"""

# 2 cases x 2 rates x 3 replicates = 12 runs of 2 simulated seconds.
SWEEP = """\
name = "viz_sweep"
description = "<script>alert(1)</script> & 'q'"
base = "base.toml"
seed = 3
replicates = 3

[grid]
"topology.bottleneck.rate" = ["2Mbps", "4Mbps"]

[[cases]]
label = "droptail"

[[cases]]
label = "red <1>"
topology.bottleneck.queue = { kind = "red", limit = 30 }
"""


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("sweep")
    (d / "base.toml").write_text(BASE)
    (d / "sweep.toml").write_text(SWEEP)
    out = d / "out"
    report = sweep.run_sweep(sweep.load_sweep(d / "sweep.toml"), out, sweep.Serial())
    assert report.failed_total == 0
    return out


def test_units_become_numbers() -> None:
    values, unit = numeric_values(pd.Series(["2Mbps", "500kbps"]))
    assert (list(values), unit) == ([2.0, 0.5], "Mbit/s")
    assert numeric_values(pd.Series(["red", "codel"])) is None
    assert numeric_values(pd.Series([10, 20]))[1] == ""


def test_an_empty_column_is_not_numeric() -> None:
    # No value to take a unit from: categorical (it used to fail an internal assert).
    assert numeric_values(pd.Series([], dtype=object)) is None


def test_sweep_plots_lines_bars_and_fct(sweep_dir: Path, tmp_path: Path) -> None:
    plots = plot_sweep(sweep_dir, tmp_path, pdf=True)
    names = [p.name for p in plots]
    assert "goodput_bps_vs_topology.bottleneck.rate" in names
    assert "fct_cdf" in names
    for p in plots:
        for ext in ("png", "svg", "pdf"):
            assert p.path(ext).stat().st_size > 1000
        assert png_size(p.path("png").read_bytes()) == style.pixel_size()
    goodput = next(p for p in plots if p.name.startswith("goodput"))
    assert "3 replicates per point" in goodput.caption
    assert "95% confidence bands" in goodput.caption
    assert "Holm-adjusted p" in goodput.caption
    # Grouped bars: one bar per case with its confidence interval.
    res = sweep.load(sweep_dir)
    bars = grouped_bars(
        successful_runs(res), res, None, "loss_rate", by="case_label", out=tmp_path, pdf=False, name="b"
    )
    assert bars is not None
    assert png_size(bars.path("png").read_bytes()) == style.pixel_size()
    assert "95% confidence intervals" in bars.caption


def test_cli_plot_of_a_sweep_with_x_y_by(sweep_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["plot", str(sweep_dir), "--x", "topology.bottleneck.rate", "--y", "jain_index", "--out", str(tmp_path)]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "jain_index_vs_topology.bottleneck.rate:" in out
    assert (tmp_path / "jain_index_vs_topology.bottleneck.rate.png").exists()
    assert main(["plot", str(sweep_dir), "--y", "no_such_metric"]) == 2
    assert "error: --y: no metric 'no_such_metric'" in capsys.readouterr().err


def test_sweep_report_has_the_summary_and_ranking(sweep_dir: Path) -> None:
    assert main(["report", str(sweep_dir)]) == 0
    page = (sweep_dir / "report.html").read_text()
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) >= 5
    for b64 in images:
        assert png_size(base64.b64decode(b64)) == style.pixel_size()
    assert not re.search(r'(src|href)="(?!data:|#)', page)
    # The summary per case, escaped case labels, the ranking per grid point with letters.
    assert "Queue length max (packets)" in page
    assert "red &lt;1&gt;" in page
    assert "red <1>" not in page
    # The sweep's description too (no script gets in).
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#x27;q&#x27;" in page
    assert "<script" not in page.lower()
    assert "topology.bottleneck.rate = 2Mbps" in page
    assert re.search(r"<td>[A-B]\*? \(", page), "significance letters in the ranking"
    assert "Holm" in page
    for text in ("a sweep (ccsim sweep)", "replicates", "viz_sweep", "12 (12 ok, 0 failed)"):
        assert text in page


def test_unknown_parameter_is_a_clear_error(sweep_dir: Path) -> None:
    with pytest.raises(PlotError, match="no grid parameter 'flows'"):
        plot_sweep(sweep_dir, x="flows")
    with pytest.raises(PlotError, match="no metric 'nope'"):
        plot_sweep(sweep_dir, y=["nope"])
