"""The built wheel works outside the checkout: the engine, the shipped examples and the studies' files.

The wheel is built as a release would be (`maturin build --release`, which
reuses the extension `make ext` compiled), unpacked with pip into a folder
of its own, and run from an empty directory with that folder first on the
path, so nothing of the checkout (the editable install, `studies/`,
`examples/`) can stand in for what the wheel lacks. The dependencies are
the test environment's (`pip install ccsim` resolves them from the wheel's
metadata; docs/install.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    maturin = Path(sys.executable).with_name("maturin")
    assert maturin.exists(), "maturin comes with the dev requirements (requirements-dev.lock)"
    subprocess.run([str(maturin), "build", "--release", "--quiet", "-o", str(out)], cwd=ROOT, check=True, timeout=1200)
    (whl,) = out.glob("*.whl")
    return whl


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site)]
    subprocess.run([*pip, str(wheel)], check=True, timeout=300)
    return site


def ccsim_from(site: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`ccsim ARGV` with the unpacked wheel first on the path, from `cwd`."""
    env = {k: v for k, v in os.environ.items() if k not in ("CCSIM_STUDIES", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    cmd = [sys.executable, "-m", "ccsim.cli", *argv]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_the_wheel_is_abi3_and_manylinux(wheel: Path) -> None:
    """One wheel for every CPython from 3.11, on any Linux with the glibc its tag names."""
    assert re.fullmatch(r"ccsim-[^-]+-cp311-abi3-manylinux_\d+_\d+_[a-z0-9_]+\.whl", wheel.name), wheel.name


def test_the_wheel_carries_the_studies_and_examples(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for study in ("patel-red-sfq-rem", "bisoy-aqm", "vyshnavi-tcp", "ramachendra-modred", "mehta-slowcc"):
        assert f"ccsim/studies/data/{study}/sweep.toml" in names, study
    assert "ccsim/examples/dumbbell_udp.toml" in names
    assert "ccsim/examples/python_red.py" in names  # an example's algorithm written in Python
    for trace in ("constant-12mbps", "steps-24-6-0-12mbps", "cellular-synthetic"):
        assert f"ccsim/traces/{trace}.trace" in names, trace  # the shipped link traces
    assert any(n.startswith("ccsim/_core") and n.endswith(".so") for n in names)


def test_the_installed_wheel_runs_from_anywhere(installed: Path, tmp_path: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import ccsim; print(ccsim.__file__)"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().startswith(str(installed)), "the unpacked wheel, not the checkout, is imported"
    version = ccsim_from(installed, tmp_path, "--version")
    assert (version.returncode, version.stdout.split()[0]) == (0, "ccsim")
    listed = ccsim_from(installed, tmp_path, "examples")
    assert listed.returncode == 0
    assert "dumbbell_udp" in listed.stdout
    run = ccsim_from(installed, tmp_path, "run", "--example", "dumbbell_udp", "--quiet")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "results" / "dumbbell_udp" / "summary.json").is_file()
    # An example whose queue discipline is Python finds its module inside the installed package.
    run = ccsim_from(installed, tmp_path, "run", "--example", "python_red", "--quiet")
    assert run.returncode == 0, run.stderr


def test_the_installed_wheel_reproduces_a_study(installed: Path, tmp_path: Path) -> None:
    done = ccsim_from(installed, tmp_path, "reproduce", "patel-red-sfq-rem", "--quick", "--quiet", "--out", "study")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "study" / "report.html").is_file()
    assert (tmp_path / "study" / "summary.md").is_file()
