//! A flow group's application: its keys (split from the transport's, then
//! parsed into the application's typed config, [`crate::app::config`]), the
//! start time, and a `web` group's plan of short transfers (`web_plan`).

use super::{err, Builder, MAX_FLOWS};
use crate::app::config::{AppConfig, Pool, WebConfig, APP_KEYS};
use crate::error::Result;
use crate::params::Params;
use crate::rng::{stream, uniform01};
use crate::scenario::FlowGroupSpec;
use crate::time::SimTime;
use crate::units::parse_time;
use serde_json::Value;

/// Transports whose `packet_size` key is their own (not an application's).
pub(super) const RATE_BASED: &[&str] = &["tfrc", "rap"];

/// A `web` group's short flows, drawn at build time (see [`crate::app::web`]).
pub(super) struct WebPlan {
    /// (start, packets) per flow; a flow's bytes are its packets times its
    /// sender's segment size.
    pub(super) flows: Vec<(SimTime, u64)>,
    /// The group's first global flow index, and how many dumbbell pairs its flows rotate over.
    pub(super) base: usize,
    pub(super) pool: usize,
}

pub(super) fn time_value(v: &Value, file: &str, path: &str) -> Result<SimTime> {
    match v {
        Value::String(s) => parse_time(s).map_err(|m| err(file, path, m)),
        other => Err(err(file, path, format!("expected a time like \"20ms\", got {other}"))),
    }
}

pub(super) fn start_time(v: Option<&Value>, file: &str, path: &str, rng: &mut crate::rng::SimRng) -> Result<SimTime> {
    match v {
        None => Ok(SimTime::ZERO),
        Some(Value::String(_)) => time_value(v.unwrap_or(&Value::Null), file, path),
        Some(Value::Object(m)) => {
            let Some(u) = m.get("uniform") else {
                return Err(err(
                    file,
                    path,
                    "expected a time like \"1s\" or a table { uniform = [\"0s\", \"1s\"] }",
                ));
            };
            if m.len() != 1 {
                return Err(err(file, path, "the start table takes only the key \"uniform\""));
            }
            let arr = u.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                err(
                    file,
                    format!("{path}.uniform"),
                    "expected two times [low, high], e.g. [\"0s\", \"1s\"]",
                )
            })?;
            let lo = time_value(&arr[0], file, &format!("{path}.uniform[0]"))?;
            let hi = time_value(&arr[1], file, &format!("{path}.uniform[1]"))?;
            if hi < lo {
                return Err(err(
                    file,
                    format!("{path}.uniform"),
                    "the upper bound is below the lower bound",
                ));
            }
            let x = lo.0 as f64 + uniform01(rng) * (hi.0 - lo.0) as f64;
            Ok(SimTime(x.round() as u64))
        }
        Some(other) => Err(err(
            file,
            path,
            format!("expected a time like \"1s\" or {{ uniform = [\"0s\", \"1s\"] }}, got {other}"),
        )),
    }
}

/// Split a flow group's keys into the application's ([`APP_KEYS`]) and the
/// transport's. The rate-based transports read their own `packet_size`
/// (docs/algorithms.md, tfrc and rap; they carry only `bulk`, which has none).
pub(super) fn split_keys(params: &Params, transport: &str) -> (Params, Params) {
    let (mut app, mut rest) = (Params::new(), Params::new());
    for (k, v) in params {
        let own = APP_KEYS.contains(&k.as_str()) && !(k == "packet_size" && RATE_BASED.contains(&transport));
        if own { &mut app } else { &mut rest }.insert(k.clone(), v.clone());
    }
    (app, rest)
}

/// Parse the application keys of group `path` as app `app`'s config.
pub(super) fn app_config(b: &Builder, app: &str, keys: &Params, path: &str) -> Result<AppConfig> {
    AppConfig::parse(app, keys).map_err(|e| b.param_err(path, e))
}

/// Parse a `web` group's keys and draw its flows.
#[allow(clippy::too_many_arguments)]
pub(super) fn web_plan(
    b: &Builder,
    g: &FlowGroupSpec,
    cfg: &WebConfig,
    path: &str,
    group: &str,
    transport: &str,
    duration: SimTime,
    pairs: Option<u32>,
    base: usize,
) -> Result<WebPlan> {
    let file = b.file;
    if transport != "tcp" {
        return Err(err(
            file,
            format!("{path}.transport"),
            format!("app \"web\" sends short reliable transfers: use transport \"tcp\", not \"{transport}\""),
        ));
    }
    let start = match &g.start {
        None => SimTime::ZERO,
        Some(Value::String(_)) => time_value(g.start.as_ref().unwrap_or(&Value::Null), file, &format!("{path}.start"))?,
        Some(_) => {
            return Err(err(
                file,
                format!("{path}.start"),
                "for app \"web\", start is when arrivals begin: a time like \"20s\"",
            ))
        }
    };
    let stop = g.stop.map(|t| t.0).unwrap_or(duration).min(duration);
    if stop <= start {
        return Err(err(file, format!("{path}.stop"), "arrivals must stop after they start"));
    }
    let e = |e| b.param_err(path, e);
    let rate = cfg.arrival_rate().map_err(e)?;
    let sizes = cfg.sizes().map_err(e)?;
    let pool = match cfg.pool {
        None => pairs.unwrap_or(1) as usize,
        Some(Pool(v)) if pairs.is_none_or(|p| v <= p as u64) => v as usize,
        Some(Pool(v)) => {
            return Err(err(
                file,
                format!("{path}.pool"),
                format!("expected 1 to {} sender/receiver pairs, got {v}", pairs.unwrap_or(1)),
            ))
        }
    };
    let arrivals = crate::app::web::Arrivals {
        start,
        stop,
        count: g.count.map(|c| c.max(0) as u64),
        rate,
    };
    let mut rng = stream(b.seed, &format!("web:{group}"));
    let flows = crate::app::web::draw(&arrivals, &sizes, &mut rng, MAX_FLOWS.saturating_sub(base)).map_err(|m| {
        err(
            file,
            format!("{path}.arrival_rate"),
            format!("the arrivals would make more than {m} flows in the scenario"),
        )
    })?;
    Ok(WebPlan { flows, base, pool })
}
