//! ccsim-output: writes the files of a run (docs/results.md) from the
//! engine's results, without Python's data libraries.
//!
//! `ccsim run` used to write them from Python with numpy and pyarrow, whose
//! imports alone took longer than a small run takes to simulate
//! (docs/performance.md, "Run overhead"). The files are those Python wrote:
//! summary.json as `json.dumps(indent=2)` printed it, the CSV files byte for
//! byte as pandas' `to_csv`, and Parquet files that pandas reads back as the
//! same DataFrames (tests/python/test_output.py checks all three).

#![warn(missing_docs)]

pub mod parquet_file;
pub mod table;
pub mod value;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use parquet_file::Block;
use table::Kind;
pub use value::{pretty_json, py_float, Value};

/// What can go wrong writing the files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The summary is not valid JSON.
    #[error("summary JSON: {0}")]
    Json(#[from] value::ParseError),
    /// A value JSON cannot hold.
    #[error("summary JSON: {0}")]
    NotJson(#[from] value::NotJson),
    /// The Parquet encoder failed (a file's path is added by `write_run`).
    #[error("Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A value the files cannot hold.
    #[error("{0}")]
    Unsupported(String),
}

/// The summary JSON file.
pub const SUMMARY_FILE: &str = "summary.json";
/// The tables: each written as `<name>.csv` and `<name>.parquet`.
pub const TABLES: [&str; 5] = ["flows", "groups", "queues", "links", "wlans"];
/// The time series file.
pub const TIMESERIES_FILE: &str = "timeseries.parquet";
/// The delays file.
pub const DELAYS_FILE: &str = "delays.parquet";

/// One sampled series.
pub struct Series<'a> {
    /// "queue", "flow" or "group".
    pub entity_kind: &'a str,
    /// The entity's name.
    pub entity: &'a str,
    /// The metric.
    pub metric: &'a str,
    /// One value per sample time, from the first.
    pub values: &'a [f64],
}

/// One flow's delay histogram: its non-empty buckets.
pub struct Delays<'a> {
    /// The flow.
    pub flow: &'a str,
    /// Each bucket's upper edge, s.
    pub upper_s: &'a [f64],
    /// Packets per bucket.
    pub counts: &'a [f64],
}

/// Everything a run's files hold.
pub struct Run<'a> {
    /// The summary (summary.json's content, the tables' rows).
    pub summary: &'a Value,
    /// The sample times, s.
    pub time_s: &'a [f64],
    /// The sampled series.
    pub series: &'a [Series<'a>],
    /// The delay histograms.
    pub delays: &'a [Delays<'a>],
}

/// The time series in long format (time_s, entity_kind, entity, metric,
/// value), one block of rows per series, as Parquet.
pub fn timeseries_parquet<W: Write + Send>(out: W, time_s: &[f64], series: &[Series]) -> Result<W, Error> {
    let mut blocks = Vec::with_capacity(series.len());
    for s in series {
        let Some(times) = time_s.get(..s.values.len()) else {
            return Err(Error::Unsupported(format!(
                "series {}:{} has {} values for {} sample times",
                s.entity,
                s.metric,
                s.values.len(),
                time_s.len()
            )));
        };
        blocks.push(Block {
            labels: vec![s.entity_kind, s.entity, s.metric],
            rows: times.len(),
            after: vec![(s.values, Kind::Float)],
        });
    }
    let fields = [
        ("time_s", Kind::Float),
        ("entity_kind", Kind::Text),
        ("entity", Kind::Text),
        ("metric", Kind::Text),
        ("value", Kind::Float),
    ];
    parquet_file::long_table(
        out,
        &fields,
        Some(time_s),
        &blocks,
        parquet_file::TIMESERIES_ARROW_SCHEMA,
    )
}

/// The delay histograms (flow, delay_s, count), one row per non-empty bucket, as Parquet.
pub fn delays_parquet<W: Write + Send>(out: W, delays: &[Delays]) -> Result<W, Error> {
    let mut blocks = Vec::with_capacity(delays.len());
    for d in delays {
        if d.upper_s.len() != d.counts.len() {
            return Err(Error::Unsupported(format!(
                "delays of {}: {} bucket edges for {} counts",
                d.flow,
                d.upper_s.len(),
                d.counts.len()
            )));
        }
        blocks.push(Block {
            labels: vec![d.flow],
            rows: d.counts.len(),
            after: vec![(d.upper_s, Kind::Float), (d.counts, Kind::Int)],
        });
    }
    let fields = [("flow", Kind::Text), ("delay_s", Kind::Float), ("count", Kind::Int)];
    parquet_file::long_table(out, &fields, None, &blocks, parquet_file::DELAYS_ARROW_SCHEMA)
}

fn create(path: &Path) -> Result<BufWriter<File>, Error> {
    File::create(path)
        .map(|f| BufWriter::with_capacity(1 << 16, f))
        .map_err(|e| io(path, e))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// The file at `path` written by `write` (its errors named with the path), flushed.
fn write_file(path: &Path, write: impl FnOnce(BufWriter<File>) -> Result<BufWriter<File>, Error>) -> Result<(), Error> {
    let w = write(create(path)?).map_err(|e| match e {
        Error::Parquet(e) => Error::Unsupported(format!("{}: Parquet: {e}", path.display())),
        other => other,
    })?;
    w.into_inner().map_err(|e| io(path, e.into_error()))?;
    Ok(())
}

/// Write summary.json, the tables (CSV and Parquet), timeseries.parquet and
/// delays.parquet into `dir` (created if missing); returns the files written.
/// The tables' columns are those of the summary's `schema` (the engine's
/// declaration of every table: names, units, types).
pub fn write_run(dir: &Path, run: &Run) -> Result<Vec<PathBuf>, Error> {
    let Some(schema) = run.summary.get("schema") else {
        return Err(Error::Unsupported(
            "summary JSON: no `schema` (the tables' columns, which the engine declares)".into(),
        ));
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut written = Vec::new();
    let path = dir.join(SUMMARY_FILE);
    std::fs::write(&path, pretty_json(run.summary)?).map_err(|e| io(&path, e))?;
    written.push(path);
    for name in TABLES {
        let rows = match run.summary.get(name) {
            Some(Value::List(rows)) => rows.as_slice(),
            _ => &[],
        };
        let cols = table::columns(name, rows, &table::declared(schema, name)?)?;
        let path = dir.join(format!("{name}.csv"));
        std::fs::write(&path, table::csv(&cols)).map_err(|e| io(&path, e))?;
        written.push(path);
        let path = dir.join(format!("{name}.parquet"));
        write_file(&path, |w| parquet_file::table(w, name, &cols))?;
        written.push(path);
    }
    let path = dir.join(TIMESERIES_FILE);
    write_file(&path, |w| timeseries_parquet(w, run.time_s, run.series))?;
    written.push(path);
    let path = dir.join(DELAYS_FILE);
    write_file(&path, |w| delays_parquet(w, run.delays))?;
    written.push(path);
    Ok(written)
}
