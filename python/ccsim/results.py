"""The results of a run: the summary JSON, its tables as DataFrames, the time series.

docs/results.md documents every file, key and column with its unit.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ccsim import output

if TYPE_CHECKING:
    import pandas as pd

SUMMARY_FILE = "summary.json"
TABLES = ("flows", "groups", "queues", "links", "wlans")
# The columns of the wlans table (docs/results.md, `wlans[]` with its `queue` flattened), so that a run
# without WLANs still writes a table with them; a test checks them against the engine's.
WLAN_COLUMNS = (
    "wlan",
    "interface",
    "node",
    "role",
    "standard",
    "data_rate_bps",
    "basic_rate_bps",
    "tx_attempts",
    "rts_attempts",
    "collisions",
    "collision_rate",
    "frame_errors",
    "retries",
    "delivered_packets",
    "delivered_bytes",
    "mac_throughput_bps",
    "mac_drops",
    "mac_drops_delivered",
    "in_service_start",
    "in_service_end",
    "airtime_fraction",
    "channel_busy_fraction",
    "queue_link",
    "queue_kind",
    "queue_arrivals",
    "queue_enqueued",
    "queue_dequeued",
    "queue_drops",
    "queue_drops_on_arrival",
    "queue_drops_in_queue",
    "queue_early_drops",
    "queue_forced_drops",
    "queue_marks",
    "queue_rewrites",
    "queue_loss_rate",
    "queue_avg_len_pkts",
    "queue_avg_len_bytes",
    "queue_max_len_pkts",
    "queue_min_len_pkts",
    "queue_avg_sojourn_s",
    "queue_max_sojourn_s",
    "queue_backlog_start_pkts",
    "queue_backlog_end_pkts",
)
# The text columns of the wlans table (the others are numbers), for the empty table of a run without WLANs.
WLAN_TEXT_COLUMNS = frozenset({"wlan", "interface", "node", "role", "standard", "queue_link", "queue_kind"})
TIMESERIES_FILE = "timeseries.parquet"
TIMESERIES_COLUMNS = ("time_s", "entity_kind", "entity", "metric", "value")
DELAYS_FILE = "delays.parquet"
DELAYS_COLUMNS = ("flow", "delay_s", "count")

Series = tuple[str, str, str, npt.NDArray[np.float64]]
Delays = tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def flat_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows with their nested objects spread into `<key>_<inner key>` columns (a WLAN interface's `queue`)."""
    out: list[dict[str, Any]] = []
    for row in rows:
        flat: dict[str, Any] = {}
        for key, value in row.items():
            if isinstance(value, Mapping):
                flat.update({f"{key}_{inner}": v for inner, v in value.items()})
            else:
                flat[key] = value
        out.append(flat)
    return out


def table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows of the summary JSON as a DataFrame, columns in the JSON's key order.

    Optional numbers (null in JSON, e.g. the delay of a flow that received
    nothing) become float64 columns with NaN rather than object columns, so
    every column has one type in CSV and Parquet whatever the run
    (`ccsim.output.column_type` writes the files by the same rule).
    """
    import pandas as pd  # noqa: PLC0415 (the DataFrame API only; writing the files does without it)

    df = pd.DataFrame.from_records(list(rows), columns=list(rows[0]) if rows else None)
    for col in df.columns:
        values = [v for v in df[col].tolist() if v is not None]
        has_null = len(values) < len(df)
        if has_null and all(_is_number(v) for v in values):
            df[col] = df[col].astype("float64")
    return df


class Result:
    """The outcome of one run.

    `data` is the whole summary JSON (as `summary.json` holds it); `summary`
    its `summary` block; `flows`, `groups`, `queues`, `links`, `wlans` its tables as DataFrames;
    `timeseries` the sampled series in long format.
    """

    def __init__(
        self,
        data: Mapping[str, Any],
        time_s: npt.NDArray[np.float64],
        series: Sequence[Series],
        delays: Sequence[Delays] = (),
    ) -> None:
        self._data = dict(data)
        self._time_s = np.asarray(time_s, dtype=np.float64)
        self._series = list(series)
        self._delays = list(delays)

    @classmethod
    def from_engine(cls, summary_json: str, timeseries: Mapping[str, Any]) -> Result:
        """Build from what `ccsim._core.run_scenario` returns."""
        return cls(json.loads(summary_json), timeseries["time_s"], timeseries["series"], timeseries.get("delays", ()))

    @classmethod
    def read(cls, out_dir: str | Path) -> Result:
        """Read a run's results back from the folder `write` (or `ccsim run`) filled.

        Needs summary.json and timeseries.parquet; delays.parquet is optional
        (older runs have none).
        """
        import pandas as pd  # noqa: PLC0415

        out = Path(out_dir)
        data = json.loads((out / SUMMARY_FILE).read_text(encoding="utf-8"))
        ts = pd.read_parquet(out / TIMESERIES_FILE)
        time_s = np.sort(ts["time_s"].unique()) if len(ts) else np.empty(0)
        series: list[Series] = []
        keys = ["entity_kind", "entity", "metric"]
        for (kind, entity, metric), g in ts.groupby(keys, sort=False, observed=True):
            series.append((str(kind), str(entity), str(metric), g["value"].to_numpy(dtype=np.float64)))
        delays: list[Delays] = []
        if (out / DELAYS_FILE).exists():
            d = pd.read_parquet(out / DELAYS_FILE)
            for flow, g in d.groupby("flow", sort=False, observed=True):
                delays.append(
                    (str(flow), g["delay_s"].to_numpy(dtype=np.float64), g["count"].to_numpy(dtype=np.float64))
                )
        return cls(data, time_s, series, delays)

    def __repr__(self) -> str:
        return f"<ccsim.Result {self.name!r}: {len(self._data.get('flows', []))} flows, seed {self.seed}>"

    @property
    def data(self) -> dict[str, Any]:
        """The whole result, as in summary.json: a copy, so that changing it changes neither the tables nor `write`."""
        return copy.deepcopy(self._data)

    @property
    def name(self) -> str:
        """The scenario's name."""
        return str(self._data["name"])

    @property
    def seed(self) -> int:
        """The seed the run used."""
        return int(self._data["seed"])

    @property
    def summary(self) -> dict[str, Any]:
        """The summary block (goodput_bps, jain_index, loss_rate, bottleneck_utilization, ...)."""
        return dict(self._data["summary"])

    @property
    def perf(self) -> dict[str, Any]:
        """Performance counters (events, wall_s, events_per_s, packets_forwarded); wall-clock dependent."""
        return dict(self._data["perf"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow."""
        return table(self._data["flows"])

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per flow group (flows aggregated by their `group` label)."""
        return table(self._data.get("groups", []))

    @cached_property
    def queues(self) -> pd.DataFrame:
        """One row per queue (one per link direction)."""
        return table(self._data["queues"])

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return table(self._data["links"])

    @cached_property
    def wlans(self) -> pd.DataFrame:
        """One row per WLAN interface (`wlans[]`, its `queue` as `queue_*` columns); no rows without WLANs."""
        rows = flat_rows(self._data.get("wlans", []))
        if not rows:
            import pandas as pd  # noqa: PLC0415

            return pd.DataFrame(
                {c: pd.Series([], dtype=object if c in WLAN_TEXT_COLUMNS else "float64") for c in WLAN_COLUMNS}
            )
        return table(rows)

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """The sampled series, long format: time_s, entity_kind, entity, metric, value."""
        return output.timeseries_table(self._time_s, self._series).to_pandas()

    def series(self, entity: str, metric: str, kind: str | None = None) -> pd.Series:
        """One sampled series indexed by time, e.g. `series("r1->r2", "len_pkts")`.

        `kind` ("queue", "flow" or "group") picks among entities that share a name.
        """
        import pandas as pd  # noqa: PLC0415

        for k, ent, met, values in self._series:
            if ent == entity and met == metric and (kind is None or k == kind):
                index = pd.Index(self._time_s[: len(values)], name="time_s")
                return pd.Series(np.asarray(values, dtype=np.float64), index=index, name=f"{entity}:{metric}")
        raise KeyError(f"no series {metric!r} for {entity!r}")

    @cached_property
    def delays(self) -> pd.DataFrame:
        """One-way delay distributions: flow, delay_s (a bucket's upper edge, within 0.4%), count.

        One row per non-empty bucket of each flow's delay histogram over the
        metrics window (flows that received nothing have no rows).
        """
        return output.delays_table(self._delays).to_pandas()

    def delay_cdf(self, flow: str | None = None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The empirical CDF of the one-way delay of `flow` (all flows pooled when None): (delay_s, P[D <= d])."""
        d = self.delays
        if flow is not None:
            d = d[d["flow"] == flow]
        if d.empty:
            return np.empty(0), np.empty(0)
        g = d.groupby("delay_s", sort=True)["count"].sum()
        x = g.index.to_numpy(dtype=np.float64)
        c = np.cumsum(g.to_numpy(dtype=np.float64))
        return x, c / c[-1]

    def summary_json(self) -> str:
        """The whole result as pretty-printed JSON (key order as the engine gives it), ending in a newline."""
        return json.dumps(self._data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    def write(self, out_dir: str | Path) -> Path:
        """Write summary.json, the tables (CSV and Parquet) and timeseries.parquet into `out_dir`."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / SUMMARY_FILE).write_text(self.summary_json(), encoding="utf-8")
        for name in TABLES:
            columns = self._columns(name)
            (out / f"{name}.csv").write_text(output.csv_text(columns), encoding="utf-8")
            output.write_parquet(output.arrow_columns(columns, WLAN_TEXT_COLUMNS), out / f"{name}.parquet")
        output.write_parquet(output.timeseries_table(self._time_s, self._series), out / TIMESERIES_FILE)
        output.write_parquet(output.delays_table(self._delays), out / DELAYS_FILE)
        return out

    def _columns(self, name: str) -> dict[str, list[Any]]:
        """Table `name` (one of TABLES) as columns, as `write` writes it."""
        if name == "wlans":
            return output.columns_of(
                flat_rows(self._data.get("wlans", [])), None if self._data.get("wlans") else WLAN_COLUMNS
            )
        return output.columns_of(self._data.get(name, []))

    def files(self) -> list[str]:
        """The names of the files `write` creates."""
        names = [SUMMARY_FILE]
        for name in TABLES:
            names += [f"{name}.csv", f"{name}.parquet"]
        return [*names, TIMESERIES_FILE, DELAYS_FILE]
