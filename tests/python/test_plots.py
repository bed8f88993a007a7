"""Figures and the HTML report of a single run: every file written, non-empty, of the promised size."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from scenarios import compact_dumbbell

from ccsim import plots
from ccsim.cli import main
from ccsim.plots import style
from ccsim.results import Result

# TCP and CBR through RED: every single-run figure has something to show.
RUN = (
    """
name = "fig <test> & 'run'"
duration = "3s"
warmup = "0.5s"
seed = 4
"""
    + compact_dumbbell("4Mbps", "10ms", '{ kind = "red", limit = 30 }')
    + """[[flows]]
group = "tcp<b>"
src = "s0"
dst = "d0"
transport = "tcp"
app = "bulk"
[[flows]]
group = "cbr"
src = "s1"
dst = "d1"
transport = "udp"
app = "cbr"
rate = "1Mbps"
"""
)

FIGURES = ("queue", "throughput", "cwnd", "drop_prob", "delay_cdf")


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", data[16:24])
    return w, h


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("run")
    scenario = d / "s.toml"
    scenario.write_text(RUN)
    out = d / "out"
    assert main(["run", str(scenario), "--out", str(out), "--plots", "--pdf", "--quiet"]) == 0
    return out


def test_run_plots_every_figure_in_every_format(run_dir: Path) -> None:
    for name in FIGURES:
        for ext in ("png", "svg", "pdf"):
            path = run_dir / "plots" / f"{name}.{ext}"
            assert path.stat().st_size > 1000, path
        assert png_size((run_dir / "plots" / f"{name}.png").read_bytes()) == style.pixel_size() == (1050, 840)
        svg = ET.parse(run_dir / "plots" / f"{name}.svg").getroot()
        assert svg.get("width") == "252pt"
        assert svg.get("height") == "201.6pt"
        assert (run_dir / "plots" / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"


def test_plots_are_deterministic(run_dir: Path, tmp_path: Path) -> None:
    again = plots.plot_run(run_dir, tmp_path, pdf=False)
    assert [p.name for p in again] == list(FIGURES)
    for p in again:
        for ext in ("png", "svg"):
            assert p.path(ext).read_bytes() == (run_dir / "plots" / f"{p.name}.{ext}").read_bytes(), (p.name, ext)


def test_captions_come_from_the_data(run_dir: Path, tmp_path: Path) -> None:
    by_name = {p.name: p for p in plots.plot_run(run_dir, tmp_path)}
    r = Result.read(run_dir)
    q = r.queues.set_index("link").loc["r1->r2"]
    assert f"{q['avg_len_pkts']:.1f} packets on average" in by_name["queue"].caption
    assert "RED" in by_name["queue"].caption
    assert f"Jain's index {r.summary['jain_index']:.3f}" in by_name["throughput"].caption
    best = r.flows.loc[r.flows["delay_mean_s"].idxmin(), "name"]
    assert f"Lowest mean delay: {best}" in by_name["delay_cdf"].caption


def test_colours_are_fixed_per_algorithm() -> None:
    assert style.look("red") == style.look("RED (limit 30)") == style.look("red")
    assert style.color("droptail") != style.color("red") != style.color("codel")
    assert style.color("cubic") != style.color("newreno")
    # Unknown names: stable across processes (CRC-32, not Python's salted hash).
    assert style.color("my-aqm") == style.OKABE_ITO[__import__("zlib").crc32(b"my-aqm") % 7]


def test_report_is_self_contained_and_escaped(run_dir: Path) -> None:
    assert main(["report", str(run_dir)]) == 0
    page = (run_dir / "report.html").read_text()
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == len(FIGURES)
    for b64 in images:
        assert png_size(base64.b64decode(b64)) == (1050, 840)
    # Nothing is fetched: no external URL in any src/href, no script.
    assert not re.search(r'(src|href)="(?!data:|#)', page)
    assert "<script" not in page.lower()
    # User-supplied names are escaped.
    assert "fig &lt;test&gt; &amp; &#x27;run&#x27;" in page
    assert "<test>" not in page
    assert "tcp<b>" not in page
    assert "tcp&lt;b&gt;" in page
    # What was run, and the summary table's rows.
    for text in ("ccsim run", "seed", "Queue length max (packets)", "Utilization (%)", "Loss ratio (%)"):
        assert text in page
    assert page.count("<figure") == len(FIGURES)


# Strings a user writes into a scenario, each with every character HTML treats specially.
HOSTILE = {
    "name": "<script>alert(1)</script>",
    "description": "\"quoted\" & 'single' <i>note</i>",
    "group": "&<>\"'",
}


def test_report_escapes_every_user_string(tmp_path: Path) -> None:
    text = RUN.replace("name = \"fig <test> & 'run'\"", f"name = {json.dumps(HOSTILE['name'])}")
    text = text.replace('group = "tcp<b>"', f"group = {json.dumps(HOSTILE['group'])}")
    text = text.replace("seed = 4", f"seed = 4\ndescription = {json.dumps(HOSTILE['description'])}")
    scenario = tmp_path / "s.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet"]) == 0
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "<script" not in page.lower()
    for key, value in HOSTILE.items():
        assert value not in page, key
        assert html.escape(value, quote=True) in page, key
    # The flow names are made from the group's: escaped too.
    assert f"{html.escape(HOSTILE['group'], quote=True)}.0" in page
    # Outside the escaped strings, the page has only ccsim's own tags.
    tags = {m.lower() for m in re.findall(r"<([A-Za-z][A-Za-z0-9]*)", page)}
    assert "i" not in tags
    assert tags <= {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "h1",
        "h2",
        "h3",
        "p",
        "section",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "figure",
        "img",
        "figcaption",
        "b",
        "ul",
        "li",
        "footer",
        "main",
        "code",
        "div",
        "span",
        "a",
        "nav",
        "em",
        "small",
        "br",
        "caption",
        "sup",
    }, tags


def test_plot_and_report_of_a_missing_folder_are_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(tmp_path / "nope")]) == 2
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'nope'}: no such folder" in err
    assert f"error: {tmp_path}: not a ccsim results folder (no summary.json, no results.duckdb)" in err


def test_drawing_leaves_the_users_matplotlib_backend_alone(tmp_path: Path) -> None:
    """`import ccsim.plots` once switched matplotlib to Agg, changing a notebook's backend: importing any
    module that draws (the plots, the reports, every study's figures), or drawing, leaves it alone."""
    drawing = [
        "ccsim.plots",
        "ccsim.plots.run",
        "ccsim.plots.sweep",
        "ccsim.report",
        "ccsim.studies",
        "ccsim.studies.report",
        *(f"ccsim.studies.{s}.figures" for s in ("patel", "bisoy", "vyshnavi", "ramachendra", "mehta")),
    ]
    code = (
        "import importlib, matplotlib, sys\n"
        f"for m in {drawing!r}: importlib.import_module(m)\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "from ccsim.plots import style\n"
        "fig, ax = style.figure()\n"
        "ax.plot([0, 1], [0, 1])\n"
        f"style.save(fig, __import__('pathlib').Path({str(tmp_path / 'f')!r}))\n"
        "print(matplotlib.get_backend())\n"
    )
    env = {**os.environ, "MPLBACKEND": "svg"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "svg"
    assert (tmp_path / "f.png").is_file()
