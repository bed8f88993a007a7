"""The ramachendra study's reading of "load": x% load of n nodes is n x / 100 active connections."""

from __future__ import annotations

import pandas as pd

from ccsim.studies.ramachendra.setup import configurations
from ccsim.studies.ramachendra.tables import config_rows


def test_every_configuration_of_the_paper_is_one_connection_count() -> None:
    """n = 16, 32, 64 at 25-100% load: 12 configurations over the sweep's 8 connection counts."""
    counts = [4, 8, 12, 16, 24, 32, 48, 64]
    configs = [c for k in counts for c in configurations(k)]
    assert sorted(configs) == sorted((n, load) for n in (16, 32, 64) for load in (25, 50, 75, 100))
    # equal products are one scenario: 16 = 16 at 100% = 32 at 50% = 64 at 25%
    assert sorted(configurations(16)) == [(16, 100), (32, 50), (64, 25)]
    assert configurations(12) == [(16, 75)]
    assert configurations(5) == []


def test_config_rows_repeat_a_run_for_each_configuration_it_stands_for() -> None:
    runs = pd.DataFrame({"run_id": ["a", "b", "c"], "active": [16, 12, 5], "x": [1.0, 2.0, 3.0]})
    rows = config_rows(runs)
    assert sorted(zip(rows.run_id, rows.nodes, rows.load_pct, strict=True)) == [
        ("a", 16, 100),
        ("a", 32, 50),
        ("a", 64, 25),
        ("b", 16, 75),
    ]
