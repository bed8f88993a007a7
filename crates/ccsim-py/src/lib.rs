//! Thin PyO3 bindings of ccsim-core: scenario text in, summary JSON and a
//! handle on the run's time series out. Everything per packet stays in Rust;
//! the files of a run are written from here (ccsim-output) without going
//! through Python objects, and numpy arrays are made only when asked for.

use ccsim_core::{Error, GuardOverrides, RunOutput};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

mod ext;

create_exception!(
    ccsim._core,
    ScenarioError,
    PyValueError,
    "A scenario file is malformed."
);
create_exception!(
    ccsim._core,
    SimulationError,
    PyRuntimeError,
    "A run was stopped by a guard."
);

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Guard(m) => SimulationError::new_err(one_line(&m)),
        Error::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("simulation interrupted"),
        Error::Io(m) => pyo3::exceptions::PyOSError::new_err(m),
        Error::Extension(m) => SimulationError::new_err(one_line(&m)),
        other => ScenarioError::new_err(one_line(&other.to_string())),
    }
}

/// A message on one line: control characters (a key named "\n" in the
/// scenario, say) written as escapes, so the error stays one line.
fn one_line(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

thread_local! {
    /// The progress callback of the run on this thread, if its caller gave
    /// one: `callback(simulated_s, duration_s, events)`. The engine's hook is a plain
    /// function (no state crosses into the core), so the callable waits here.
    static PROGRESS: std::cell::RefCell<Option<Py<PyAny>>> = const { std::cell::RefCell::new(None) };
}

/// Polled by the engine every 65536 events: whether Python has a pending
/// signal (Ctrl-C), so a long run stays interruptible from a shell or
/// Jupyter; and the progress callback, if any. An exception in the callback
/// stops the run as an interruption would.
fn python_interrupted(now: ccsim_core::time::SimTime, duration: ccsim_core::time::SimTime, events: u64) -> bool {
    Python::attach(|py| {
        if py.check_signals().is_err() {
            return true;
        }
        PROGRESS.with(|p| match p.borrow().as_ref() {
            Some(cb) => cb.call1(py, (now.secs_f64(), duration.secs_f64(), events)).is_err(),
            None => false,
        })
    })
}

/// Holds the progress callback for the duration of one run.
struct ProgressGuard;

impl ProgressGuard {
    fn set(cb: Option<Py<PyAny>>) -> Self {
        PROGRESS.with(|p| *p.borrow_mut() = cb);
        ProgressGuard
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        PROGRESS.with(|p| *p.borrow_mut() = None);
    }
}

fn guards(max_events: Option<u64>, max_wall_s: Option<f64>) -> GuardOverrides {
    GuardOverrides {
        max_events,
        max_wall_s,
        interrupt: Some(python_interrupted),
    }
}

/// Parse scenario text into the common data model and apply a seed override
/// (the command line's `--seed`), so the override goes through the same
/// validation as a seed written in the file.
fn scenario_value(text: &str, source: &str, fmt: &str, seed: Option<u64>) -> Result<serde_json::Value, Error> {
    let mut v = match fmt {
        "json" => ccsim_core::scenario::json_text_to_value(text, source)?,
        "toml" => ccsim_core::scenario::toml_text_to_value(text, source)?,
        other => {
            return Err(Error::Syntax {
                file: source.to_string(),
                message: format!("unknown scenario format \"{other}\"; expected \"toml\" or \"json\""),
            })
        }
    };
    if let (Some(s), Some(obj)) = (seed, v.as_object_mut()) {
        obj.insert("seed".into(), serde_json::Value::from(s));
    }
    Ok(v)
}

/// One sampled series, owned.
struct OwnedSeries {
    entity_kind: String,
    entity: String,
    metric: String,
    values: Vec<f64>,
}

/// A finished run's results, held in Rust until Python asks for them:
/// the summary (JSON text), the time series and the delay histograms.
/// `write` writes the run's files from here; `timeseries` makes numpy
/// arrays (and imports numpy) only when called.
#[pyclass(frozen, module = "ccsim._core")]
struct RunData {
    summary_json: String,
    /// The summary's `name` and `seed`, so that a run that only writes its
    /// files (`ccsim run --quiet`) never parses the summary in Python.
    name: String,
    seed: u64,
    time_s: Vec<f64>,
    series: Vec<OwnedSeries>,
    delays: Vec<ccsim_core::results::DelayHistogram>,
}

impl RunData {
    fn from_output(out: RunOutput) -> Result<Self, serde_json::Error> {
        let (name, seed) = (out.result.name.clone(), out.result.seed);
        let mut summary_json = serde_json::to_string(&out.result)?;
        // The components and the tables' column schema go last, after the
        // result's keys (whose order summary.json keeps).
        if summary_json.ends_with('}') {
            summary_json.pop();
            summary_json.push_str(",\"components\":");
            summary_json.push_str(&serde_json::to_string(&out.components)?);
            summary_json.push_str(",\"schema\":");
            summary_json.push_str(&schema_json()?);
            summary_json.push('}');
        }
        let ts = out.timeseries;
        let series = ts
            .series
            .into_iter()
            .map(|s| OwnedSeries {
                entity_kind: s.entity_kind.to_string(),
                entity: s.entity,
                metric: s.metric,
                values: s.values,
            })
            .collect();
        Ok(RunData {
            summary_json,
            name,
            seed,
            time_s: ts.time_s,
            series,
            delays: ts.delays,
        })
    }

    fn series_refs(&self) -> Vec<ccsim_output::Series<'_>> {
        self.series
            .iter()
            .map(|s| ccsim_output::Series {
                entity_kind: &s.entity_kind,
                entity: &s.entity,
                metric: &s.metric,
                values: &s.values,
            })
            .collect()
    }

    fn delay_refs(&self) -> Vec<ccsim_output::Delays<'_>> {
        self.delays
            .iter()
            .map(|d| ccsim_output::Delays {
                flow: &d.flow,
                upper_s: &d.upper_s,
                counts: &d.counts,
            })
            .collect()
    }
}

/// An error of the file writer: OSError(errno, strerror, path) for a file
/// that cannot be written (as Python's own file functions raise it),
/// ValueError otherwise.
fn output_err(py: Python<'_>, e: ccsim_output::Error) -> PyErr {
    match e {
        ccsim_output::Error::Io { path, source } => match source.raw_os_error() {
            Some(errno) => {
                let strerror = py
                    .import("os")
                    .and_then(|os| os.call_method1("strerror", (errno,)))
                    .and_then(|s| s.extract::<String>())
                    .unwrap_or_else(|_| source.to_string());
                pyo3::exceptions::PyOSError::new_err((errno, strerror, path))
            }
            None => pyo3::exceptions::PyOSError::new_err(one_line(&format!("{}: {source}", path.display()))),
        },
        other => PyValueError::new_err(one_line(&other.to_string())),
    }
}

#[pymethods]
impl RunData {
    /// Results built from Python data (`ccsim.Result` read back or built by
    /// hand): the summary as JSON text, the sample times, the series
    /// (kind, entity, metric, values) and the delays (flow, upper edges, counts).
    #[staticmethod]
    fn from_parts(
        summary_json: String,
        time_s: PyReadonlyArray1<'_, f64>,
        series: Vec<(String, String, String, PyReadonlyArray1<'_, f64>)>,
        delays: Vec<(String, PyReadonlyArray1<'_, f64>, PyReadonlyArray1<'_, f64>)>,
    ) -> PyResult<Self> {
        let series = series
            .into_iter()
            .map(|(entity_kind, entity, metric, v)| {
                Ok(OwnedSeries {
                    entity_kind,
                    entity,
                    metric,
                    values: v.as_slice()?.to_vec(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let delays = delays
            .into_iter()
            .map(|(flow, upper, counts)| {
                Ok(ccsim_core::results::DelayHistogram {
                    flow,
                    upper_s: upper.as_slice()?.to_vec(),
                    counts: counts.as_slice()?.to_vec(),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let head = serde_json::from_str::<serde_json::Value>(&summary_json)
            .map_err(|e| PyValueError::new_err(format!("summary JSON: {e}")))?;
        let name = head
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let seed = head.get("seed").and_then(serde_json::Value::as_u64).unwrap_or_default();
        Ok(RunData {
            summary_json,
            name,
            seed,
            time_s: time_s.as_slice()?.to_vec(),
            series,
            delays,
        })
    }

    /// The summary as compact JSON text.
    fn summary_json(&self) -> &str {
        &self.summary_json
    }

    /// The summary's `name` (the scenario's).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The summary's `seed` (the seed the run used).
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Write summary.json, the tables (CSV, Parquet), timeseries.parquet and
    /// delays.parquet into `out_dir`, the tables' columns from the summary's
    /// `schema`. Returns the paths written.
    fn write(&self, py: Python<'_>, out_dir: std::path::PathBuf) -> PyResult<Vec<String>> {
        let written = py.detach(|| {
            let summary = ccsim_output::Value::parse(&self.summary_json)?;
            let (series, delays) = (self.series_refs(), self.delay_refs());
            let run = ccsim_output::Run {
                summary: &summary,
                time_s: &self.time_s,
                series: &series,
                delays: &delays,
            };
            ccsim_output::write_run(&out_dir, &run)
        });
        let written = written.map_err(|e| output_err(py, e))?;
        Ok(written.iter().map(|p| p.display().to_string()).collect())
    }

    /// The time series as timeseries.parquet holds it (bytes).
    fn timeseries_parquet<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| ccsim_output::timeseries_parquet(Vec::new(), &self.time_s, &self.series_refs()))
            .map_err(|e| output_err(py, e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The delay histograms as delays.parquet holds them (bytes).
    fn delays_parquet<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| ccsim_output::delays_parquet(Vec::new(), &self.delay_refs()))
            .map_err(|e| output_err(py, e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// {"time_s": array, "series": [(kind, entity, metric, values)],
    /// "delays": [(flow, upper_s, counts)]}, as numpy arrays (copies).
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ts = PyDict::new(py);
        ts.set_item("time_s", PyArray1::from_slice(py, &self.time_s))?;
        let series = PyList::empty(py);
        for s in &self.series {
            let values = PyArray1::from_slice(py, &s.values);
            series.append((&s.entity_kind, &s.entity, &s.metric, values))?;
        }
        ts.set_item("series", series)?;
        let delays = PyList::empty(py);
        for d in &self.delays {
            delays.append((
                &d.flow,
                PyArray1::from_slice(py, &d.upper_s),
                PyArray1::from_slice(py, &d.counts),
            ))?;
        }
        ts.set_item("delays", delays)?;
        Ok(ts)
    }
}

/// summary.json's text for a summary given as JSON text: indented as
/// Python's `json.dumps(indent=2, ensure_ascii=False)`, ending in a newline.
#[pyfunction]
fn pretty_json(text: &str) -> PyResult<String> {
    let v = ccsim_output::Value::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    ccsim_output::pretty_json(&v).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Run a scenario given as `text` in `fmt` ("toml" or "json"); `source` names
/// it in error messages; `seed` overrides the scenario's seed; `trace_dir` is
/// the folder for the packet trace the scenario may ask for; `progress`, a
/// callable, is called as `progress(simulated_s, duration_s, events)` every 65536
/// events. Returns (summary_json, RunData).
#[pyfunction]
#[pyo3(signature = (text, source, fmt="toml", max_events=None, max_wall_s=None, seed=None, trace_dir=None, progress=None, plugin_dirs=None))]
#[allow(clippy::too_many_arguments)]
fn run_scenario(
    py: Python<'_>,
    text: &str,
    source: &str,
    fmt: &str,
    max_events: Option<u64>,
    max_wall_s: Option<f64>,
    seed: Option<u64>,
    trace_dir: Option<std::path::PathBuf>,
    progress: Option<Py<PyAny>>,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<(String, RunData)> {
    let g = guards(max_events, max_wall_s);
    let _progress = ProgressGuard::set(progress);
    let _dirs = ext::DirsGuard::set(plugin_dirs.unwrap_or_default());
    // A scenario naming a Python algorithm calls into Python on every packet
    // or ACK of it: such a run keeps the GIL (taking it back per call would
    // cost a quarter of each call; docs/performance.md), which the
    // interpreter still hands to other threads while the algorithms' code
    // runs. Any other run releases it, so other threads run meanwhile.
    let uses_python = text.contains("python:");
    let text = text.to_string();
    let source = source.to_string();
    let fmt = fmt.to_string();
    let run = move || {
        let v = scenario_value(&text, &source, &fmt, seed)?;
        // Guard messages do not name the scenario; errors here all start with it.
        ccsim_core::run_value_in(v, &source, g, trace_dir.as_deref()).map_err(|e| match e {
            Error::Guard(m) => Error::Guard(format!("{source}: {m}")),
            other => other,
        })
    };
    ext::take_interrupted(); // forget a Ctrl-C seen while another call built a scenario
    let out = if uses_python { run() } else { py.detach(run) };
    if ext::take_interrupted() {
        return Err(to_py(Error::Interrupted));
    }
    let data = RunData::from_output(out.map_err(to_py)?).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((data.summary_json.clone(), data))
}

/// Check a scenario without running it; raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, source, fmt="toml", seed=None, plugin_dirs=None))]
fn validate_scenario(
    text: &str,
    source: &str,
    fmt: &str,
    seed: Option<u64>,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<()> {
    let _dirs = ext::DirsGuard::set(plugin_dirs.unwrap_or_default());
    let v = scenario_value(text, source, fmt, seed).map_err(to_py)?;
    ccsim_core::validate_value(v, source).map_err(to_py)
}

/// The tables' column schema as JSON text: {table: [{name, unit, type,
/// nullable}, ...]}, the tables in file order, the columns in row order.
fn schema_json() -> Result<String, serde_json::Error> {
    let mut out = String::from("{");
    for (i, (table, cols)) in ccsim_core::results::schema().into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(table)?);
        out.push(':');
        out.push_str(&serde_json::to_string(&cols)?);
    }
    out.push('}');
    Ok(out)
}

/// The column schema of the result tables (summary.json's `schema`), as
/// JSON text.
#[pyfunction]
fn result_schema() -> PyResult<String> {
    schema_json().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A scenario's text read by the engine's own parser (TOML or JSON) into
/// its data model, as JSON text: what Python reads when it needs a key of
/// the scenario (`ScenarioText.parsed`), so it never parses one itself.
/// ScenarioError on a syntax error.
#[pyfunction]
#[pyo3(signature = (text, source, fmt="toml"))]
fn parse_scenario(text: &str, source: &str, fmt: &str) -> PyResult<String> {
    let v = scenario_value(text, source, fmt, None).map_err(to_py)?;
    serde_json::to_string(&v).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A time as scenarios write it ("20ms", "1.5s", "2min"), in seconds, read
/// by the engine's own parser; ValueError naming the accepted units otherwise.
#[pyfunction]
fn parse_time_s(text: &str) -> PyResult<f64> {
    ccsim_core::units::parse_time(text)
        .map(|t| t.secs_f64())
        .map_err(PyValueError::new_err)
}

/// A rate as scenarios write it ("10Mbps"), in bit/s (the engine's parser).
#[pyfunction]
fn parse_rate_bps(text: &str) -> PyResult<f64> {
    ccsim_core::units::parse_rate(text)
        .map(|r| r as f64)
        .map_err(PyValueError::new_err)
}

/// A size as scenarios write it ("1500B", "64KB"), in bytes (the engine's parser).
#[pyfunction]
fn parse_size_bytes(text: &str) -> PyResult<f64> {
    ccsim_core::units::parse_size(text)
        .map(|b| b as f64)
        .map_err(PyValueError::new_err)
}

/// The packet trace a scenario asks for, estimated without running it:
/// (format, packet crossings of traced links, bytes), or None without a trace.
#[pyfunction]
#[pyo3(signature = (text, source, fmt="toml", seed=None, plugin_dirs=None))]
fn trace_estimate(
    text: &str,
    source: &str,
    fmt: &str,
    seed: Option<u64>,
    plugin_dirs: Option<Vec<String>>,
) -> PyResult<Option<(&'static str, f64, f64)>> {
    let _dirs = ext::DirsGuard::set(plugin_dirs.unwrap_or_default());
    let v = scenario_value(text, source, fmt, seed).map_err(to_py)?;
    let estimate = ccsim_core::trace_estimate_value(v, source).map_err(to_py)?;
    Ok(estimate.map(|(format, e)| {
        let name = match format {
            ccsim_core::trace::TraceFormat::Ns2 => "ns2",
            ccsim_core::trace::TraceFormat::Pcap => "pcap",
        };
        (name, e.packets, e.bytes)
    }))
}

/// The engine's version.
#[pyfunction]
fn version() -> &'static str {
    ccsim_core::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(trace_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(pretty_json, m)?)?;
    m.add_class::<RunData>()?;
    m.add_function(wrap_pyfunction!(parse_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(result_schema, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time_s, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    ext::add_classes(m)?;
    ccsim_core::plugin::register("python", &ext::PROVIDER);
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
