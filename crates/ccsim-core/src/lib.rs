//! ccsim-core: a deterministic packet-level discrete-event network simulator
//! for comparing congestion control and queue management.
//!
//! The entry points are [`run_toml`] and [`run_json`] (scenario text in,
//! results out) and, for finer control, [`scenario::parse_value`] +
//! [`build::build`] + [`sim::Simulation::run`]. docs/architecture.md draws
//! the modules and a packet's path.

#![warn(missing_docs)]

pub mod app;
pub mod build;
pub mod cc;
pub mod compat;
pub mod error;
pub mod event;
pub mod histogram;
pub mod link;
pub mod link_trace;
pub mod medium;
pub mod meter;
pub mod metrics;
pub mod packet;
pub mod params;
pub mod plugin;
pub mod queue;
pub mod rap;
pub mod results;
pub mod rng;
pub mod routing;
pub mod sampler;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod tfrc;
pub mod time;
pub mod trace;
pub mod transport;
pub mod units;
pub mod wlan;

pub use error::{Error, Result};
pub use results::{RunResult, TimeSeries};

/// The crate version, reported in results.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Default TCP maximum segment size (payload bytes).
pub const DEFAULT_MSS: u32 = 1460;

/// Overrides of a scenario's run guards (from the command line).
#[derive(Copy, Clone, Debug, Default)]
pub struct GuardOverrides {
    /// Maximum events.
    pub max_events: Option<u64>,
    /// Maximum wall seconds.
    pub max_wall_s: Option<f64>,
    /// Polled during the run with the simulated time, the run's duration
    /// and the events so far; true stops it with [`Error::Interrupted`].
    pub interrupt: Option<fn(time::SimTime, time::SimTime, u64) -> bool>,
}

/// The outcome of a run.
pub struct RunOutput {
    /// Tables and summary.
    pub result: RunResult,
    /// Time series.
    pub timeseries: TimeSeries,
    /// Every configured component (queues, flow groups): summary.json's
    /// `components`. Kept beside `result`, whose serialization is the
    /// tables' and the summary's.
    pub components: results::Components,
}

/// Build a simulation from a JSON-model scenario value.
pub fn build_value(v: serde_json::Value, file: &str) -> Result<sim::Simulation> {
    let spec = scenario::parse_value(v, file)?;
    build::build(&spec, file)
}

/// Check a scenario without running it.
pub fn validate_value(v: serde_json::Value, file: &str) -> Result<()> {
    build_value(v, file).map(|_| ())
}

/// The size of the packet trace a scenario asks for (`[output] trace`),
/// estimated without running it ([`trace::estimate`]), with its format;
/// None without a trace.
pub fn trace_estimate_value(
    v: serde_json::Value,
    file: &str,
) -> Result<Option<(trace::TraceFormat, trace::estimate::TraceEstimate)>> {
    Ok(build_value(v, file)?.trace_plan.map(|p| (p.format, p.estimate)))
}

/// Run a scenario given as a JSON-model value.
///
/// A scenario that asks for a packet trace (`[output] trace`) needs an
/// output folder: use [`run_value_in`].
pub fn run_value(v: serde_json::Value, file: &str, guards: GuardOverrides) -> Result<RunOutput> {
    run_value_in(v, file, guards, None)
}

/// Run a scenario given as a JSON-model value, writing its packet trace, if
/// it asks for one, into `trace_dir` (created if missing).
pub fn run_value_in(
    v: serde_json::Value,
    file: &str,
    guards: GuardOverrides,
    trace_dir: Option<&std::path::Path>,
) -> Result<RunOutput> {
    let mut sim = build_value(v, file)?;
    if sim.trace_plan.is_some() {
        match trace_dir {
            Some(dir) => sim.open_trace(dir)?,
            None => {
                return Err(Error::Scenario {
                    file: file.to_string(),
                    path: "output.trace".into(),
                    message: "a packet trace needs an output folder (ccsim run --out DIR)".into(),
                })
            }
        }
    }
    if let Some(m) = guards.max_events {
        sim.guards.max_events = m;
    }
    if let Some(w) = guards.max_wall_s {
        sim.guards.max_wall_s = w;
    }
    sim.guards.interrupt = guards.interrupt;
    sim.run().map_err(|e| match e {
        Error::Extension(m) => Error::Extension(format!("{file}: {m}")),
        other => other,
    })?;
    let result = RunResult::collect(&sim);
    let components = results::Components::collect(&sim);
    let (time_s, series) = sim.sampler.take();
    let timeseries = TimeSeries {
        delays: results::DelayHistogram::collect(&sim),
        time_s,
        series,
    };
    Ok(RunOutput {
        result,
        timeseries,
        components,
    })
}

/// Run a scenario from TOML text; `file` labels error messages.
pub fn run_toml(text: &str, file: &str, guards: GuardOverrides) -> Result<RunOutput> {
    run_value(scenario::toml_text_to_value(text, file)?, file, guards)
}

/// Run a scenario from TOML text, writing its packet trace (if any) into `trace_dir`.
pub fn run_toml_in(text: &str, file: &str, guards: GuardOverrides, trace_dir: &std::path::Path) -> Result<RunOutput> {
    run_value_in(scenario::toml_text_to_value(text, file)?, file, guards, Some(trace_dir))
}

/// Run a scenario from JSON text; `file` labels error messages.
pub fn run_json(text: &str, file: &str, guards: GuardOverrides) -> Result<RunOutput> {
    run_value(scenario::json_text_to_value(text, file)?, file, guards)
}
