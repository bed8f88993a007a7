"""The Dask backend: a LocalCluster gives the local pool's results; without Dask, --cluster says how to get it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import pytest
from sweep_helpers import cli, comparable, timeseries_bytes

import ccsim
from ccsim.sweep import DaskCluster, load_sweep, run_sweep

pytest.importorskip("distributed")


def test_a_local_dask_cluster_equals_the_local_pool(twelve: tuple[Path, Path, Path], tmp_path: Path) -> None:
    path, _, pool = twelve
    out = tmp_path / "dask"
    report = run_sweep(load_sweep(path), out, DaskCluster("local:2"))
    assert (report.ran, report.failed) == (12, 0)
    a, b = comparable(ccsim.load(pool)), comparable(ccsim.load(out))
    for name in ("runs", "flows", "queues", "links"):
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)
    assert timeseries_bytes(pool) == timeseries_bytes(out)
    # Two Dask worker processes ran them, none of them this one.
    workers = set(ccsim.load(out).runs["worker"])
    assert len(workers) == 2


def listening(pid: int) -> set[str]:
    """The addresses process `pid` listens on (TCP)."""
    import psutil  # noqa: PLC0415 (a dependency of distributed)

    conns = psutil.Process(pid).net_connections(kind="tcp")
    return {c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN}


def test_a_local_cluster_listens_on_loopback_only() -> None:
    # The scheduler (in this process) and every worker process listen on 127.0.0.1 alone: their
    # connections and the scheduler's HTTP server (health and metrics; the Bokeh dashboard is off).
    before = listening(os.getpid())
    backend = DaskCluster("local:1")
    backend.warm_up(1)
    try:
        cluster, client = backend._cluster, backend._client
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        info = client.scheduler_info()
        assert len(info["workers"]) == 1
        assert all(address.startswith("tcp://127.0.0.1:") for address in info["workers"])
        assert listening(os.getpid()) - before == {"127.0.0.1"}
        for pid in client.run(os.getpid).values():
            assert listening(pid) == {"127.0.0.1"}
    finally:
        backend.close()


def test_bad_cluster_addresses(tmp_path: Path) -> None:
    for address, message in (
        ("local:0", "expected local:N with N >= 1"),
        ("host:8786", "expected a scheduler address like tcp://HOST:8786, or local:N"),
    ):
        with pytest.raises(ccsim.ScenarioError, match=message):
            DaskCluster(address)


def test_without_dask_cluster_says_how_to_install_it(
    twelve: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _, _ = twelve
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now raises ImportError
    status, out, err = cli("sweep", str(path), "--cluster", "local:2", "--out", str(tmp_path / "o"))
    assert (status, out) == (2, "")
    assert err == "error: --cluster needs Dask: pip install 'ccsim[dask]' (or pip install 'dask[distributed]')\n"
    assert not (tmp_path / "o").exists()
