"""The examples shipped inside the package: `ccsim examples` and `ccsim run --example`."""

from __future__ import annotations

import io
from pathlib import Path

from ccsim import shipped
from ccsim.cli import main

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_the_examples_are_the_packages_files() -> None:
    names = [e.name for e in shipped.examples()]
    assert "dumbbell_udp" in names
    assert "sweep_aqm" in names
    assert all(e.summary for e in shipped.examples()), "each example opens with a comment saying what it is"
    # examples/ at the repository's root is the same folder
    assert (ROOT / "examples" / "dumbbell_udp.toml").resolve() == shipped.example("dumbbell_udp").path


def test_list_locate_and_copy(tmp_path: Path) -> None:
    status, out, _ = cli("examples")
    assert status == 0
    assert out.splitlines()[0].startswith("dumbbell_udp ")
    status, out, _ = cli("examples", "dumbbell_udp.toml")
    assert (status, Path(out.strip())) == (0, shipped.example("dumbbell_udp").path)
    status, out, _ = cli("examples", "dumbbell_udp", "--copy", str(tmp_path / "mine"))
    assert status == 0
    copied = tmp_path / "mine" / "dumbbell_udp.toml"
    assert copied.read_bytes() == shipped.example("dumbbell_udp").path.read_bytes()
    status, _, err = cli("examples", "dumbbell_udp", "--copy", str(tmp_path / "mine"))
    assert status == 2
    assert "already exists" in err


def test_run_an_example_by_name(tmp_path: Path) -> None:
    status, _, err = cli("run", "--example", "dumbbell_udp", "--quiet", "--out", str(tmp_path / "o"))
    assert (status, err) == (0, "")
    assert (tmp_path / "o" / "summary.json").is_file()


def test_bad_requests_are_one_line_and_status_2() -> None:
    for argv, words in [
        (("run", "--example", "nope"), "no shipped example named 'nope'; expected one of dumbbell_udp"),
        (("run",), "give a scenario file or --example NAME"),
        (("run", "x.toml", "--example", "dumbbell_udp"), "give a scenario file or --example NAME"),
        (("examples", "--copy"), "--copy needs the NAME"),
    ]:
        status, _, err = cli(*argv)
        assert status == 2, argv
        assert words in err, err
        assert len(err.strip().splitlines()) == 1


def test_an_example_with_a_python_algorithm_is_copied_with_its_module(tmp_path: Path) -> None:
    status, _, err = cli("examples", "python_reno", "--copy", str(tmp_path / "mine"))
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["python_reno.py", "python_reno.toml"]
    # The copy runs from its folder: the module is found next to the scenario.
    status, _, err = cli("run", str(tmp_path / "mine" / "python_reno.toml"), "--quiet", "--out", str(tmp_path / "o"))
    assert (status, err) == (0, "")
    status, _, err = cli("run", "--example", "python_red", "--quiet", "--out", str(tmp_path / "r"))
    assert (status, err) == (0, "")
