//! A flow group's application: its keys (`AppKeys`: the keys the
//! applications read, taken out of the group before the transport parses
//! the rest), the start time, the application itself (`build_app`), and a
//! `web` group's plan of short transfers (`web_plan`).

use super::{err, Builder, MAX_FLOWS};
use crate::app::web::SizeDist;
use crate::app::{Application, Bulk, Dist, Finite, OnOff, Paced, Schedule};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::{stream, uniform01};
use crate::scenario::FlowGroupSpec;
use crate::time::SimTime;
use crate::units::{parse_size, parse_time};
use serde_json::Value;

/// Keys of a flow group read by the applications (the rest go to the transport).
pub(super) const APP_KEYS: &[&str] = &[
    "rate",
    "packet_size",
    "size_dist",
    "on",
    "off",
    "on_dist",
    "shape",
    "period",
    "duty",
    "size",
    "arrival_rate",
    "size_cdf",
    "pool",
];

/// Transports whose `packet_size` key is their own (not an application's).
pub(super) const RATE_BASED: &[&str] = &["tfrc", "rap"];

/// A `web` group's short flows, drawn at build time (see [`crate::app::web`]).
pub(super) struct WebPlan {
    /// (start, packets) per flow.
    pub(super) flows: Vec<(SimTime, u64)>,
    /// Bytes per packet (the transport's MSS).
    pub(super) mss: u64,
    /// The group's first global flow index, and how many dumbbell pairs its flows rotate over.
    pub(super) base: usize,
    pub(super) pool: usize,
    /// The transport's keys.
    pub(super) rest: Params,
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

/// The application keys of a flow group, parsed.
pub(super) struct AppKeys<'a> {
    pub(super) file: &'a str,
    pub(super) path: &'a str,
    pub(super) keys: Params,
}

impl<'a> AppKeys<'a> {
    fn take(&mut self, k: &str) -> Option<Value> {
        self.keys.remove(k)
    }
    fn e(&self, key: &str, msg: impl Into<String>) -> Error {
        err(self.file, format!("{}.{key}", self.path), msg)
    }
    fn rate(&mut self, required: bool) -> Result<Option<u64>> {
        match self.take("rate") {
            None if required => Err(self.e("rate", "missing key \"rate\" (e.g. rate = \"1Mbps\")")),
            None => Ok(None),
            Some(Value::String(s)) => crate::units::parse_rate(&s).map(Some).map_err(|m| self.e("rate", m)),
            Some(v) => Err(self.e("rate", format!("expected a rate like \"10Mbps\", got {v}"))),
        }
    }
    fn packet_size(&mut self) -> Result<u32> {
        match self.take("packet_size") {
            None => Ok(1000),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) if (1..=u32::MAX as u64).contains(&v) => Ok(v as u32),
                _ => Err(self.e("packet_size", format!("expected a positive size in bytes, got {n}"))),
            },
            Some(Value::String(s)) => match parse_size(&s) {
                Ok(v) if v >= 1 && v <= u32::MAX as u64 => Ok(v as u32),
                Ok(_) => Err(self.e("packet_size", "a packet must be at least 1 byte")),
                Err(m) => Err(self.e("packet_size", m)),
            },
            Some(v) => Err(self.e("packet_size", format!("expected a size in bytes, got {v}"))),
        }
    }
    fn dist(&mut self, key: &str, default: Dist) -> Result<Dist> {
        let shape = match self.keys.get("shape") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(v) => return Err(self.e("shape", format!("expected a number > 1, got {v}"))),
            None => None,
        };
        match self.take(key) {
            None => Ok(default),
            Some(Value::String(s)) => match s.as_str() {
                "constant" | "fixed" => Ok(Dist::Constant),
                "exponential" => Ok(Dist::Exponential),
                "pareto" => {
                    self.keys.remove("shape");
                    let sh = shape.unwrap_or(1.5);
                    if sh <= 1.0 {
                        return Err(self.e(
                            "shape",
                            format!("a Pareto shape must be > 1 for a finite mean, got {sh}"),
                        ));
                    }
                    Ok(Dist::Pareto(sh))
                }
                other => Err(self.e(
                    key,
                    format!("expected \"constant\", \"exponential\" or \"pareto\", got \"{other}\""),
                )),
            },
            Some(v) => Err(self.e(key, format!("expected a distribution name, got {v}"))),
        }
    }
    fn time(&mut self, key: &str) -> Result<Option<SimTime>> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => time_value(&v, self.file, &format!("{}.{key}", self.path)).map(Some),
        }
    }
    fn schedule(&mut self, start: SimTime) -> Result<Schedule> {
        let period = self.time("period")?;
        let duty = match self.take("duty") {
            None => None,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(d) if d > 0.0 && d <= 1.0 => Some(d),
                _ => return Err(self.e("duty", format!("expected a fraction in (0, 1], got {n}"))),
            },
            Some(v) => return Err(self.e("duty", format!("expected a fraction in (0, 1], got {v}"))),
        };
        let on = self.take("on");
        match (period, on) {
            (Some(p), None) => {
                if p == SimTime::ZERO {
                    return Err(self.e("period", "the period must be positive"));
                }
                let d = duty.unwrap_or(0.5);
                Ok(Schedule::Square {
                    period: p,
                    on: SimTime((p.0 as f64 * d).round() as u64),
                })
            }
            (None, Some(Value::Array(iv))) => {
                if duty.is_some() {
                    return Err(self.e("duty", "\"duty\" goes with \"period\""));
                }
                let mut out = Vec::new();
                for (i, pair) in iv.iter().enumerate() {
                    let p = format!("{}.on[{i}]", self.path);
                    let arr = pair.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                        err(
                            self.file,
                            &p,
                            "expected an interval [start, stop], e.g. [\"0s\", \"100s\"]",
                        )
                    })?;
                    let a = time_value(&arr[0], self.file, &format!("{p}[0]"))?;
                    let b = time_value(&arr[1], self.file, &format!("{p}[1]"))?;
                    if b <= a {
                        return Err(err(self.file, &p, "an interval's stop must be after its start"));
                    }
                    if out.last().is_some_and(|&(_, pb)| a < pb) {
                        return Err(err(self.file, &p, "intervals must be in order and not overlap"));
                    }
                    out.push((a, b));
                }
                let _ = start;
                Ok(Schedule::Intervals(out))
            }
            (None, None) => {
                if duty.is_some() {
                    return Err(self.e("duty", "\"duty\" goes with \"period\""));
                }
                Ok(Schedule::Always)
            }
            (Some(_), Some(_)) => Err(self.e("on", "give either \"on\" intervals or a \"period\", not both")),
            (None, Some(v)) => Err(self.e("on", format!("expected a list of [start, stop] intervals, got {v}"))),
        }
    }
    pub(super) fn finish(self, app: &str, transport: &str) -> Result<Params> {
        for k in APP_KEYS {
            // The rate-based transports read their own `packet_size` (docs/algorithms.md, tfrc and rap):
            // left over by an app that does not use it (bulk), it is theirs.
            if *k == "packet_size" && RATE_BASED.contains(&transport) {
                continue;
            }
            if self.keys.contains_key(*k) {
                return Err(self.e(k, format!("key \"{k}\" is not used by app \"{app}\"")));
            }
        }
        Ok(self.keys)
    }
}

pub(super) fn build_app(
    app: &str,
    keys: &mut AppKeys,
    start: SimTime,
    transport: &str,
) -> Result<Box<dyn Application>> {
    Ok(match app {
        "bulk" => Box::new(Bulk),
        "finite" => {
            let bytes = match keys.take("size") {
                None => return Err(keys.e("size", "missing key \"size\": bytes (\"1MB\") or packets (an integer)")),
                Some(Value::String(s)) => parse_size(&s).map_err(|m| keys.e("size", m))?,
                Some(Value::Number(n)) => {
                    let pkts = n
                        .as_u64()
                        .filter(|&v| v >= 1)
                        .ok_or_else(|| keys.e("size", format!("expected a positive number of packets, got {n}")))?;
                    // Packets of one MSS; the transport's MSS is read from the remaining keys.
                    let mss = keys
                        .keys
                        .get("mss")
                        .and_then(|v| v.as_u64())
                        .unwrap_or(crate::DEFAULT_MSS as u64);
                    pkts * mss
                }
                Some(v) => return Err(keys.e("size", format!("expected a size, got {v}"))),
            };
            if bytes == 0 {
                return Err(keys.e("size", "a finite transfer needs at least 1 byte"));
            }
            Box::new(Finite { bytes, label: "finite" })
        }
        "cbr" => {
            let rate = keys.rate(true)?.unwrap_or(1);
            let size = keys.packet_size()?;
            let schedule = keys.schedule(start)?;
            Box::new(Paced::cbr(rate, size, schedule))
        }
        "poisson" => {
            let rate = keys.rate(true)?.unwrap_or(1);
            let size = keys.packet_size()?;
            let sizes = keys.dist("size_dist", Dist::Constant)?;
            let schedule = keys.schedule(start)?;
            Box::new(Paced::poisson(rate, size, sizes, schedule))
        }
        "onoff" => {
            let rate = keys.rate(true)?.unwrap_or(1);
            let size = keys.packet_size()?;
            let on = match keys.take("on") {
                None => SimTime::from_millis(500),
                Some(v) => time_value(&v, keys.file, &format!("{}.on", keys.path))?,
            };
            let off = keys.time("off")?.unwrap_or(SimTime::from_millis(500));
            if on == SimTime::ZERO {
                return Err(keys.e("on", "the mean ON time must be positive"));
            }
            let dist = keys.dist("on_dist", Dist::Exponential)?;
            Box::new(OnOff::new(rate, size, on, off, dist))
        }
        other => {
            let _ = transport;
            return Err(keys.e(
                "app",
                format!(
                    "unknown app \"{other}\"; expected one of: {}",
                    crate::app::names().join(", ")
                ),
            ));
        }
    })
}

/// Parse a `web` group's keys and draw its flows.
#[allow(clippy::too_many_arguments)]
pub(super) fn web_plan(
    b: &Builder,
    g: &FlowGroupSpec,
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
    let mut keys = AppKeys {
        file,
        path,
        keys: g.params.clone(),
    };
    let rate = match keys.take("arrival_rate") {
        None => {
            return Err(keys.e(
                "arrival_rate",
                "missing key \"arrival_rate\" (flows per second, e.g. 100)",
            ))
        }
        Some(Value::Number(n)) => match n.as_f64() {
            Some(r) if r > 0.0 && r.is_finite() => r,
            _ => return Err(keys.e("arrival_rate", format!("expected flows per second > 0, got {n}"))),
        },
        Some(v) => return Err(keys.e("arrival_rate", format!("expected flows per second (a number), got {v}"))),
    };
    let mean = match keys.take("size") {
        None => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(v) if v >= 1.0 && v.is_finite() => Some(v),
            _ => return Err(keys.e("size", format!("expected a number of packets >= 1, got {n}"))),
        },
        Some(v) => {
            return Err(keys.e(
                "size",
                format!("expected a number of packets (web sizes count packets), got {v}"),
            ))
        }
    };
    let sizes = if keys.keys.get("size_dist").and_then(|v| v.as_str()) == Some("empirical") {
        keys.take("size_dist");
        if mean.is_some() {
            return Err(keys.e(
                "size",
                "an empirical size distribution takes \"size_cdf\", not \"size\"",
            ));
        }
        let cdf = match keys.take("size_cdf") {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let pair = e.as_array().filter(|p| p.len() == 2);
                    match pair.and_then(|p| Some((p[0].as_u64()?, p[1].as_f64()?))) {
                        Some(x) => Ok(x),
                        None => Err(keys.e(
                            &format!("size_cdf[{i}]"),
                            "expected [packets, cumulative probability], e.g. [10, 0.5]",
                        )),
                    }
                })
                .collect::<Result<Vec<_>>>()?,
            None => return Err(keys.e("size_cdf", "missing key \"size_cdf\" for size_dist = \"empirical\"")),
            Some(v) => {
                return Err(keys.e(
                    "size_cdf",
                    format!("expected a list of [packets, probability], got {v}"),
                ))
            }
        };
        if let Err((i, m)) = SizeDist::check_cdf(&cdf) {
            return Err(keys.e(&format!("size_cdf[{i}]"), m));
        }
        SizeDist::Empirical(cdf)
    } else {
        if keys.keys.contains_key("size_cdf") {
            return Err(keys.e("size_cdf", "\"size_cdf\" goes with size_dist = \"empirical\""));
        }
        let Some(mean) = mean else {
            return Err(keys.e(
                "size",
                "missing key \"size\": packets per transfer (the mean if random)",
            ));
        };
        match keys.dist("size_dist", Dist::Constant)? {
            Dist::Constant => SizeDist::Fixed(mean.round() as u64),
            Dist::Exponential => SizeDist::Exponential(mean),
            Dist::Pareto(shape) => SizeDist::Pareto { mean, shape },
        }
    };
    let pool = match keys.take("pool") {
        None => pairs.unwrap_or(1) as usize,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v >= 1 && pairs.is_none_or(|p| v <= p as u64) => v as usize,
            _ => {
                return Err(keys.e(
                    "pool",
                    format!("expected 1 to {} sender/receiver pairs, got {n}", pairs.unwrap_or(1)),
                ))
            }
        },
        Some(v) => return Err(keys.e("pool", format!("expected a number of pairs, got {v}"))),
    };
    let mss = keys
        .keys
        .get("mss")
        .and_then(|v| v.as_u64())
        .unwrap_or(crate::DEFAULT_MSS as u64);
    let rest = keys.finish("web", "tcp")?;
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
    Ok(WebPlan {
        flows,
        mss,
        base,
        pool,
        rest,
    })
}
