"""The bisoy study's Figures 8-9 reading: a simulation of length T is the first T seconds of a longer run.

The study runs each replicate once for 150 s and reports the goodput and
loss rate of "a simulation of length T" (T = 25, ..., 150 s) from the
cumulative sums of that run's 1 s samples (ccsim.studies.bisoy.tables.cumulative).
That is only right if a run does not depend on its own duration and if the
samples add up to what the run's summary reports; here both are checked
against separate runs of 25 s and 50 s with the same seed (the paper's first
two lengths), on the study's own scenario with NLRED (random drops) and 20
flows.
"""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import pandas as pd
import pytest

import ccsim
from ccsim.studies.bisoy import STUDY
from ccsim.studies.bisoy.setup import LENGTH
from ccsim.studies.bisoy.tables import cumulative, lengths, packet_factor

SEED = 7
FLOWS = 20


def scenario(duration: str) -> dict[str, Any]:
    """The study's base scenario with NLRED at the bottleneck, 20 flows, the given duration."""
    with (STUDY.folder() / "base.toml").open("rb") as f:
        s = copy.deepcopy(tomllib.load(f))
    s["duration"] = duration
    s["seed"] = SEED
    s["flows"][0]["count"] = FLOWS
    s["topology"]["bottleneck"]["queue"] = {
        "kind": "nlred",
        "min_th": 5,
        "max_th": 15,
        "max_p": 0.1,
        "weight": 0.002,
        "mean_pkt_size": 512,
    }
    return s


@pytest.fixture(scope="module")
def runs() -> dict[int, ccsim.Result]:
    return {t: ccsim.run(scenario(f"{t}s")) for t in (25, 50)}


def bottleneck(result: ccsim.Result) -> pd.Series:
    q = result.queues
    return q[q.link == result.summary["bottleneck_link"]].iloc[0]


def test_a_cut_run_is_the_shorter_run(runs: dict[int, ccsim.Result]) -> None:
    long = runs[50]
    cut = cumulative(long.timeseries, [25.0, 50.0], long.summary["bottleneck_link"]).set_index(LENGTH)
    for t, short in runs.items():
        row = cut.loc[float(t)]
        q = bottleneck(short)
        # Counts are integers: the first t seconds of the 50 s run drop and admit exactly what the t-second run does.
        assert (row.drops, row.arrivals) == (q.drops, q.arrivals)
        assert row.loss_rate == pytest.approx(q.loss_rate, rel=1e-12)
        # Goodput: the samples are bytes x 8 / interval, summed back x interval: equal up to float rounding.
        assert row.goodput_bps == pytest.approx(short.summary["goodput_bps"], rel=1e-9)
    # and the runs did something: a loaded link that NLRED drops from
    assert cut.loc[25.0].drops > 0
    assert cut.loc[50.0].goodput_bps > 0.5 * 10e6


def test_the_loss_rate_of_the_cut_is_the_flows_loss_rate(runs: dict[int, ccsim.Result]) -> None:
    """Only the bottleneck drops in this set-up, so drops / arrivals differs from the paper's lost / sent
    only by the data packets sent but not yet at the bottleneck at T (on the access links)."""
    short = runs[25]
    flows = short.flows
    q = bottleneck(short)
    assert int(flows.lost_packets.sum()) == int(q.drops)
    in_transit = int(flows.sent_packets.sum()) - int(q.arrivals)
    # those are in flight at the end, and fewer than what is in flight (the bottleneck's queue is too)
    assert 0 <= in_transit <= int(flows.in_flight_end.sum()) - int(q.backlog_end_pkts)
    # so the two loss rates differ by in_transit / sent: tens of packets in tens of thousands, under 1%
    assert short.summary["loss_rate"] == pytest.approx(q.loss_rate, rel=0.01)


def test_lengths_are_the_papers() -> None:
    assert lengths(150.0) == [25.0, 50.0, 75.0, 100.0, 125.0, 150.0]


def test_a_length_between_samples_is_refused(runs: dict[int, ccsim.Result]) -> None:
    with pytest.raises(ValueError, match="not a sampling time"):
        cumulative(runs[25].timeseries, [12.5], runs[25].summary["bottleneck_link"])


def test_goodput_counts_packets_with_their_headers(runs: dict[int, ccsim.Result]) -> None:
    """The paper's goodput counts packets: ns-2's 512-byte segments (packetSize_) plus the 40 header bytes the
    engine configured (the run's components: the study does not know TCP's default header itself)."""
    assert packet_factor(runs[25].components) == pytest.approx(552 / 512)
