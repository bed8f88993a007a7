"""The results of a run: the summary JSON, its tables as DataFrames, the time series.

docs/results.md documents every file, key and column with its unit. The
files are written by the extension (crates/ccsim-output) from the engine's
results, so that `ccsim run` imports neither numpy nor pyarrow nor pandas
(docs/performance.md, "Run overhead"); the DataFrames are built on demand.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ccsim import _core

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd

SUMMARY_FILE = "summary.json"
TABLES = ("flows", "groups", "queues", "links", "wlans")


def schema() -> dict[str, list[dict[str, Any]]]:
    """The result tables' column schema, from the engine: {table: [{name, unit, type, nullable}, ...]}.

    Types are "int", "float", "bool" or "text" (docs/results.md); summary.json carries the same as `schema`.
    """
    return cast(dict[str, list[dict[str, Any]]], json.loads(_core.result_schema()))


def columns(table: str, *, kind: str | None = None) -> tuple[str, ...]:
    """The columns of `table` in the engine's schema (those of type `kind` only, if given)."""
    return tuple(c["name"] for c in schema()[table] if kind is None or c["type"] == kind)


# The columns of the wlans table (its `queue` flattened), which a run without WLANs has too: from the engine's schema.
WLAN_COLUMNS = columns("wlans")
TIMESERIES_FILE = "timeseries.parquet"
TIMESERIES_COLUMNS = ("time_s", "entity_kind", "entity", "metric", "value")
DELAYS_FILE = "delays.parquet"
DELAYS_COLUMNS = ("flow", "delay_s", "count")

Series = tuple[str, str, str, "npt.NDArray[np.float64]"]
Delays = tuple[str, "npt.NDArray[np.float64]", "npt.NDArray[np.float64]"]


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


def dtype(column: Mapping[str, Any], empty: bool = False) -> str | None:
    """The pandas dtype of a declared column (the engine's schema), as the files hold it (crates/ccsim-output).

    `int` is int64, float64 if nullable (missing values NaN); `float` float64; `bool` bool, object if
    nullable; `text` pandas' own type for text (None: as pandas makes it), object without rows. A table
    without rows has float64 columns but for its text ones.
    """
    kind, nullable = column["type"], bool(column.get("nullable"))
    if kind == "text":
        return "object" if empty else None
    if kind == "bool" and nullable:
        return "object"
    if empty or kind == "float" or (kind == "int" and nullable):
        return "float64"
    return "int64" if kind == "int" else "bool"


def table(rows: Sequence[Mapping[str, Any]], declared: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows of the summary JSON as a DataFrame with the `declared` columns (one table of the engine's schema).

    The columns, their order and their types are the schema's (`dtype`), never inferred from the values,
    so every column has one type in CSV and Parquet whatever the run; a nested object of a row (a WLAN
    interface's `queue`) is spread into `<key>_<inner key>` columns. Rows made by hand may leave columns
    out: they are missing values (an int column with one is float64, as in pandas; the files refuse them).
    """
    import pandas as pd  # noqa: PLC0415 (the DataFrame API only; writing the files does without it)

    names = [c["name"] for c in declared]
    df = pd.DataFrame.from_records(flat_rows(rows), columns=names)
    types = {c["name"]: dtype(c, empty=not rows) for c in declared}
    # Rows made by hand may lack a column the engine always fills: missing, as pandas has them.
    missing = {"int64": "float64", "bool": "object"}
    types = {n: missing.get(t, t) if t in missing and df[n].isna().any() else t for n, t in types.items()}
    return df.astype({name: t for name, t in types.items() if t is not None})


class Result:
    """The outcome of one run.

    `data` is the whole summary JSON (as `summary.json` holds it); `summary`
    its `summary` block; `flows`, `groups`, `queues`, `links`, `wlans` its tables as DataFrames;
    `timeseries` the sampled series in long format.
    """

    def __init__(
        self,
        data: Mapping[str, Any],
        time_s: npt.ArrayLike,
        series: Sequence[Series],
        delays: Sequence[Delays] = (),
    ) -> None:
        import numpy as np  # noqa: PLC0415 (a run's own results need no numpy until a series is asked for)

        self._parsed: dict[str, Any] | None = dict(data)
        self._summary_json: str | None = None
        self._engine: _core.RunData | None = None
        self._parts: tuple[npt.NDArray[np.float64], list[Series], list[Delays]] | None = (
            np.asarray(time_s, dtype=np.float64),
            list(series),
            list(delays),
        )

    @classmethod
    def from_engine(cls, summary_json: str, run: _core.RunData) -> Result:
        """Build from what `ccsim._core.run_scenario` returns: the summary JSON and the run's data, kept in Rust."""
        result = cls.__new__(cls)
        result._parsed = None  # parsed on first use: `ccsim run --quiet` writes the files without it
        result._summary_json = summary_json
        result._engine = run
        result._parts = None
        return result

    @property
    def _data(self) -> dict[str, Any]:
        """The summary as Python objects, parsed from the engine's JSON when first asked for."""
        if self._parsed is None:
            self._parsed = json.loads(self._summary_json or "{}")
        return self._parsed

    def __getstate__(self) -> dict[str, Any]:
        """What pickle keeps (a Result sent between processes): the summary and the series as numpy arrays."""
        time_s, series, delays = self._series_parts()
        return {"data": self._data, "time_s": time_s, "series": series, "delays": delays}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A Result back from `__getstate__`'s state."""
        self.__init__(state["data"], state["time_s"], state["series"], state["delays"])  # type: ignore[misc]

    def _run_data(self) -> _core.RunData:
        """The results as the extension holds them (what `write` writes from)."""
        if self._engine is None:
            import numpy as np  # noqa: PLC0415

            time_s, series, delays = self._series_parts()
            # The files' columns are the schema's: results made without one are written with the engine's.
            data = self._data if "schema" in self._data else {**self._data, "schema": schema()}
            self._engine = _core.RunData.from_parts(
                json.dumps(data, allow_nan=False, ensure_ascii=False),
                np.ascontiguousarray(time_s, dtype=np.float64),
                [(k, e, m, np.ascontiguousarray(v, dtype=np.float64)) for k, e, m, v in series],
                [
                    (f, np.ascontiguousarray(u, dtype=np.float64), np.ascontiguousarray(c, dtype=np.float64))
                    for f, u, c in delays
                ],
            )
        return self._engine

    def _series_parts(self) -> tuple[npt.NDArray[np.float64], list[Series], list[Delays]]:
        """The sample times, the series and the delay histograms as numpy arrays (made on first use)."""
        if self._parts is None:
            assert self._engine is not None  # one of the two is always set
            ts = self._engine.timeseries()
            self._parts = (ts["time_s"], list(ts["series"]), list(ts["delays"]))
        return self._parts

    @classmethod
    def read(cls, out_dir: str | Path) -> Result:
        """Read a run's results back from the folder `write` (or `ccsim run`) filled.

        Needs summary.json and timeseries.parquet; delays.parquet is optional
        (older runs have none).
        """
        import numpy as np  # noqa: PLC0415
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
        if self._parsed is None and self._engine is not None:
            return self._engine.name
        return str(self._data["name"])

    @property
    def seed(self) -> int:
        """The seed the run used."""
        if self._parsed is None and self._engine is not None:
            return self._engine.seed
        return int(self._data["seed"])

    @property
    def duration_s(self) -> float:
        """The simulated duration, s (the metrics window ends here)."""
        return float(self._data["duration_s"])

    @property
    def warmup_s(self) -> float:
        """The start of the metrics window, s."""
        return float(self._data["warmup_s"])

    @property
    def summary(self) -> dict[str, Any]:
        """The summary block (goodput_bps, jain_index, loss_rate, bottleneck_utilization, ...)."""
        return dict(self._data["summary"])

    @property
    def components(self) -> dict[str, Any]:
        """Every configured component as the engine resolved it: `queues` (one per wired link: its scenario key,
        kind, profile, limits and parameters) and `flow_groups` (transport, application, congestion control,
        parameters); {} for results written before the engine reported them (docs/results.md)."""
        c = self._data.get("components")
        return dict(c) if isinstance(c, dict) else {}

    @property
    def schema(self) -> dict[str, list[dict[str, Any]]]:
        """The tables' column schema (names, units, types), as the run's summary.json carries it."""
        s = self._data.get("schema")
        return dict(s) if isinstance(s, dict) else schema()

    @property
    def perf(self) -> dict[str, Any]:
        """Performance counters (events, wall_s, events_per_s, packets_forwarded); wall-clock dependent."""
        return dict(self._data["perf"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow."""
        return table(self._data["flows"], self.schema["flows"])

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per flow group (flows aggregated by their `group` label)."""
        return table(self._data.get("groups", []), self.schema["groups"])

    @cached_property
    def queues(self) -> pd.DataFrame:
        """One row per queue (one per link direction)."""
        return table(self._data["queues"], self.schema["queues"])

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return table(self._data["links"], self.schema["links"])

    @cached_property
    def wlans(self) -> pd.DataFrame:
        """One row per WLAN interface (`wlans[]`, its `queue` as `queue_*` columns); no rows without WLANs."""
        return table(self._data.get("wlans", []), self.schema["wlans"])

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """The sampled series, long format: time_s, entity_kind, entity, metric, value."""
        import pandas as pd  # noqa: PLC0415

        return pd.read_parquet(io.BytesIO(self._run_data().timeseries_parquet()))

    def series(self, entity: str, metric: str, kind: str | None = None) -> pd.Series:
        """One sampled series indexed by time, e.g. `series("r1->r2", "len_pkts")`.

        `kind` ("queue", "flow" or "group") picks among entities that share a name.
        """
        import numpy as np  # noqa: PLC0415
        import pandas as pd  # noqa: PLC0415

        time_s, series, _ = self._series_parts()
        for k, ent, met, values in series:
            if ent == entity and met == metric and (kind is None or k == kind):
                index = pd.Index(time_s[: len(values)], name="time_s")
                return pd.Series(np.asarray(values, dtype=np.float64), index=index, name=f"{entity}:{metric}")
        raise KeyError(f"no series {metric!r} for {entity!r}")

    @cached_property
    def delays(self) -> pd.DataFrame:
        """One-way delay distributions: flow, delay_s (a bucket's upper edge, within 0.4%), count.

        One row per non-empty bucket of each flow's delay histogram over the
        metrics window (flows that received nothing have no rows).
        """
        import pandas as pd  # noqa: PLC0415

        return pd.read_parquet(io.BytesIO(self._run_data().delays_parquet()))

    def delay_cdf(self, flow: str | None = None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The empirical CDF of the one-way delay of `flow` (all flows pooled when None): (delay_s, P[D <= d])."""
        import numpy as np  # noqa: PLC0415

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
        """The whole result as pretty-printed JSON (key order as the engine gives it), ending in a newline.

        The text of `json.dumps(data, indent=2, ensure_ascii=False)`, written by the extension.
        """
        text = self._summary_json
        if text is None:
            text = json.dumps(self._data, allow_nan=False, ensure_ascii=False)
        return _core.pretty_json(text)

    def write(self, out_dir: str | Path) -> Path:
        """Write summary.json, the tables (CSV and Parquet), timeseries.parquet and delays.parquet into `out_dir`."""
        out = Path(out_dir)
        self._run_data().write(out)
        return out

    def rows(self, name: str) -> list[dict[str, Any]]:
        """The rows of table `name` (flows, groups, queues, links, wlans) as the summary holds them.

        Not a copy (unlike `data`), for reading only: what `ccsim run` prints comes from here.
        """
        rows: list[dict[str, Any]] = self._data.get(name, [])
        return rows

    def files(self) -> list[str]:
        """The names of the files `write` creates."""
        names = [SUMMARY_FILE]
        for name in TABLES:
            names += [f"{name}.csv", f"{name}.parquet"]
        return [*names, TIMESERIES_FILE, DELAYS_FILE]
