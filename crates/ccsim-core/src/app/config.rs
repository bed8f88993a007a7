//! The applications' scenario keys, typed: one `*Config` struct per
//! application (serde, unknown keys refused), as every algorithm has.
//!
//! A flow group's table mixes flow keys, application keys ([`APP_KEYS`]) and
//! the transport's keys. The builder hands the application keys to
//! [`AppConfig::parse`] (the row of [`super::APPS`] for the group's `app`),
//! the rest to the transport, and then builds each flow's application with
//! [`AppConfig::build`] from the config and what it learned from the flow's
//! built transport ([`AppCtx`]: the sender's segment size).

use super::web::SizeDist;
use super::{Application, Bulk, Dist, Finite, OnOff, Paced, Schedule};
use crate::params::{parse, ParamError, Params};
use crate::time::SimTime;
use crate::units::{parse_size, parse_time, Rate, Time};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Keys of a flow group that belong to applications (the rest go to the transport).
pub const APP_KEYS: &[&str] = &[
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

/// A value type read from a scenario value by a function whose error is
/// the message (serde adds the key path).
macro_rules! from_value {
    ($ty:ty, $f:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = Value::deserialize(d)?;
                let f: fn(&Value) -> Result<$ty, String> = $f;
                f(&v).map_err(D::Error::custom)
            }
        }
    };
}

/// A packet size in bytes: a positive integer or a size with a unit ("1KB").
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct PacketSize(pub u32);

from_value!(PacketSize, |v| match v {
    Value::Number(n) => match n.as_u64() {
        Some(x) if (1..=u32::MAX as u64).contains(&x) => Ok(PacketSize(x as u32)),
        _ => Err(format!("expected a positive size in bytes, got {n}")),
    },
    Value::String(s) => match parse_size(s) {
        Ok(x) if x >= 1 && x <= u32::MAX as u64 => Ok(PacketSize(x as u32)),
        Ok(_) => Err("a packet must be at least 1 byte".into()),
        Err(m) => Err(m),
    },
    other => Err(format!("expected a size in bytes, got {other}")),
});

/// A fraction in (0, 1].
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Duty(pub f64);

from_value!(Duty, |v| match v.as_f64() {
    Some(d) if d > 0.0 && d <= 1.0 => Ok(Duty(d)),
    _ => Err(format!("expected a fraction in (0, 1], got {v}")),
});

/// A Pareto shape (checked to be > 1 where a Pareto distribution is chosen).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Shape(pub f64);

from_value!(Shape, |v| v
    .as_f64()
    .map(Shape)
    .ok_or_else(|| format!("expected a number > 1, got {v}")));

/// A distribution's name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DistName {
    /// "constant" (or "fixed").
    Constant,
    /// "exponential".
    Exponential,
    /// "pareto" (its shape is the key `shape`).
    Pareto,
    /// "empirical" (web transfer sizes only: the key `size_cdf`).
    Empirical,
}

from_value!(DistName, |v| match v.as_str() {
    Some("constant" | "fixed") => Ok(DistName::Constant),
    Some("exponential") => Ok(DistName::Exponential),
    Some("pareto") => Ok(DistName::Pareto),
    Some("empirical") => Ok(DistName::Empirical),
    Some(other) => Err(format!(
        "expected \"constant\", \"exponential\" or \"pareto\", got \"{other}\""
    )),
    None => Err(format!("expected a distribution name, got {v}")),
});

/// One interval [start, stop) of an on schedule.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Interval(pub SimTime, pub SimTime);

from_value!(Interval, |v| {
    let expect = "expected an interval [start, stop], e.g. [\"0s\", \"100s\"]";
    let arr = v.as_array().filter(|a| a.len() == 2).ok_or(expect)?;
    let t = |x: &Value, which: &str| match x {
        Value::String(s) => parse_time(s).map_err(|m| format!("its {which}: {m}")),
        other => Err(format!("its {which}: expected a time like \"20ms\", got {other}")),
    };
    let (a, b) = (t(&arr[0], "start")?, t(&arr[1], "stop")?);
    if b <= a {
        return Err("an interval's stop must be after its start".into());
    }
    Ok(Interval(a, b))
});

impl serde::Serialize for Interval {
    /// [start, stop] in seconds.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.0.secs_f64(), self.1.secs_f64()].serialize(s)
    }
}

/// A finite transfer's size.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransferSize {
    /// Bytes, written with a unit ("1MB").
    Bytes(u64),
    /// Packets of the sender's segment size, written as an integer.
    Packets(u64),
}

from_value!(TransferSize, |v| match v {
    Value::String(s) => match parse_size(s)? {
        0 => Err("a finite transfer needs at least 1 byte".into()),
        b => Ok(TransferSize::Bytes(b)),
    },
    Value::Number(n) => n
        .as_u64()
        .filter(|&p| p >= 1)
        .map(TransferSize::Packets)
        .ok_or_else(|| format!("expected a positive number of packets, got {n}")),
    other => Err(format!("expected a size, got {other}")),
});

/// Flows per second, > 0.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct ArrivalRate(pub f64);

from_value!(ArrivalRate, |v| match v {
    Value::Number(n) => match n.as_f64() {
        Some(r) if r > 0.0 && r.is_finite() => Ok(ArrivalRate(r)),
        _ => Err(format!("expected flows per second > 0, got {n}")),
    },
    other => Err(format!("expected flows per second (a number), got {other}")),
});

/// A web transfer's mean size in packets, >= 1.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct WebSize(pub f64);

from_value!(WebSize, |v| match v {
    Value::Number(n) => match n.as_f64() {
        Some(x) if x >= 1.0 && x.is_finite() => Ok(WebSize(x)),
        _ => Err(format!("expected a number of packets >= 1, got {n}")),
    },
    other => Err(format!(
        "expected a number of packets (web sizes count packets), got {other}"
    )),
});

/// One step of an empirical size CDF: (packets, cumulative probability).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct CdfStep(pub u64, pub f64);

from_value!(CdfStep, |v| {
    let pair = v.as_array().filter(|p| p.len() == 2);
    pair.and_then(|p| Some(CdfStep(p[0].as_u64()?, p[1].as_f64()?)))
        .ok_or_else(|| "expected [packets, cumulative probability], e.g. [10, 0.5]".into())
});

/// A number of sender/receiver pairs, >= 1 (at most the dumbbell's pairs: checked by the builder).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Pool(pub u64);

from_value!(Pool, |v| v
    .as_u64()
    .filter(|&p| p >= 1)
    .map(Pool)
    .ok_or_else(|| format!("expected a number of pairs >= 1, got {v}")));

/// `app = "bulk"`: no keys.
#[derive(Deserialize, serde::Serialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct BulkConfig {}

/// `app = "finite"`.
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct FiniteConfig {
    /// Bytes ("1MB") or packets of the sender's segment size (an integer). Required.
    pub size: Option<TransferSize>,
}

/// The keys every source of packets at a rate has (`cbr`, `poisson`,
/// `onoff`): the rate and the packet size.
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// Sending rate: the (mean) rate of `cbr` and `poisson`, the rate while
    /// on of `onoff` (required).
    pub rate: Option<Rate>,
    /// (Mean) packet size (1000 bytes).
    pub packet_size: Option<PacketSize>,
}

impl SourceConfig {
    const KEYS: &'static [&'static str] = &["rate", "packet_size"];

    /// The rate (bit/s, required) and the packet size (bytes).
    fn rate_and_size(&self) -> Result<(u64, u32), ParamError> {
        let rate = self
            .rate
            .map(|r| r.0)
            .ok_or_else(|| ParamError::at("rate", "missing key \"rate\" (e.g. rate = \"1Mbps\")"))?;
        let size = self.packet_size.map_or(PACKET_SIZE, |s| s.0);
        // The results' `components` report the size that runs (1000 bytes when not given).
        crate::params::resolved(&SourceConfig {
            rate: self.rate,
            packet_size: Some(PacketSize(size)),
        });
        Ok((rate, size))
    }
}

/// When a paced source (`cbr`, `poisson`) sends: `period` and `duty` (a
/// square wave), `on` (intervals), or always.
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ScheduleConfig {
    /// Period of a square-wave schedule.
    pub period: Option<Time>,
    /// Its on fraction (0.5).
    pub duty: Option<Duty>,
    /// On intervals [start, stop), absolute times.
    pub on: Option<Vec<Interval>>,
}

impl ScheduleConfig {
    const KEYS: &'static [&'static str] = &["period", "duty", "on"];

    /// The schedule the keys describe.
    fn schedule(&self) -> Result<Schedule, ParamError> {
        match (self.period, &self.on) {
            (Some(_), Some(_)) => Err(ParamError::at(
                "on",
                "give either \"on\" intervals or a \"period\", not both",
            )),
            (Some(p), None) => {
                if p.0 == SimTime::ZERO {
                    return Err(ParamError::at("period", "the period must be positive"));
                }
                let d = self.duty.map_or(0.5, |d| d.0);
                crate::params::resolved(&ScheduleConfig {
                    period: self.period,
                    duty: Some(Duty(d)),
                    on: None,
                });
                Ok(Schedule::Square {
                    period: p.0,
                    on: SimTime((p.0 .0 as f64 * d).round() as u64),
                })
            }
            (None, _) if self.duty.is_some() => Err(ParamError::at("duty", "\"duty\" goes with \"period\"")),
            (None, Some(iv)) => {
                for (i, w) in iv.windows(2).enumerate() {
                    if w[1].0 < w[0].1 {
                        return Err(ParamError::at(
                            format!("on[{}]", i + 1),
                            "intervals must be in order and not overlap",
                        ));
                    }
                }
                Ok(Schedule::Intervals(iv.iter().map(|x| (x.0, x.1)).collect()))
            }
            (None, None) => Ok(Schedule::Always),
        }
    }
}

/// Take the keys `names` out of `keys` and parse them as `T` (one part of
/// an application's keys; the rest are parsed by the next part). The parts
/// (`SourceConfig`, `ScheduleConfig`, `PoissonSizes`, `OnOffTimes`) are
/// separate structs because serde's `flatten` cannot be combined with
/// `deny_unknown_fields`; their field lists look alike (an `Option` per key
/// with its doc) but hold different keys, which is why `duplicates` pairs
/// them: a shape, not repeated logic.
fn take<T: DeserializeOwned + serde::Serialize>(keys: &mut Params, names: &[&str]) -> Result<T, ParamError> {
    let part: Params = names
        .iter()
        .filter_map(|&k| keys.remove(k).map(|v| (k.to_string(), v)))
        .collect();
    parse(&part)
}

/// A distribution from its name and the `shape` key (Pareto's, default 1.5).
fn dist(key: &str, name: Option<DistName>, shape: Option<Shape>, default: Dist) -> Result<Dist, ParamError> {
    let d = match name {
        None => default,
        Some(DistName::Constant) => Dist::Constant,
        Some(DistName::Exponential) => Dist::Exponential,
        Some(DistName::Pareto) => {
            let sh = shape.map_or(1.5, |s| s.0);
            if sh <= 1.0 {
                return Err(ParamError::at(
                    "shape",
                    format!("a Pareto shape must be > 1 for a finite mean, got {sh}"),
                ));
            }
            return Ok(Dist::Pareto(sh));
        }
        Some(DistName::Empirical) => {
            return Err(ParamError::at(
                key,
                "expected \"constant\", \"exponential\" or \"pareto\", got \"empirical\"",
            ))
        }
    };
    if shape.is_some() {
        return Err(ParamError::at(
            "shape",
            format!("\"shape\" goes with {key} = \"pareto\""),
        ));
    }
    Ok(d)
}

/// The name of a distribution (the results report the one that runs).
fn dist_name(d: Dist) -> DistName {
    match d {
        Dist::Constant => DistName::Constant,
        Dist::Exponential => DistName::Exponential,
        Dist::Pareto(_) => DistName::Pareto,
    }
}

/// A Pareto distribution's shape (none for the others).
fn dist_shape(d: Dist) -> Option<Shape> {
    match d {
        Dist::Pareto(sh) => Some(Shape(sh)),
        _ => None,
    }
}

/// `app = "cbr"`: constant bit rate.
#[derive(Debug)]
pub struct CbrConfig {
    /// Rate and packet size.
    pub source: SourceConfig,
    /// When it sends.
    pub schedule: ScheduleConfig,
}

/// `app = "poisson"`: exponential gaps.
#[derive(Debug)]
pub struct PoissonConfig {
    /// Mean rate and (mean) packet size.
    pub source: SourceConfig,
    /// When it sends.
    pub schedule: ScheduleConfig,
    /// The packet sizes.
    pub sizes: PoissonSizes,
}

/// The keys of `poisson` of its own: the distribution of its packet sizes.
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PoissonSizes {
    /// Packet size distribution (constant).
    pub size_dist: Option<DistName>,
    /// Pareto shape of the sizes.
    pub shape: Option<Shape>,
}

/// `app = "onoff"`: CBR bursts with random ON and OFF times.
#[derive(Debug)]
pub struct OnOffConfig {
    /// Rate while on and packet size.
    pub source: SourceConfig,
    /// The ON and OFF times.
    pub times: OnOffTimes,
}

/// The keys of `onoff` of its own: its ON and OFF times.
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct OnOffTimes {
    /// Mean ON time (500 ms).
    pub on: Option<Time>,
    /// Mean OFF time (500 ms).
    pub off: Option<Time>,
    /// Distribution of the ON and OFF times (exponential).
    pub on_dist: Option<DistName>,
    /// Pareto shape of the ON and OFF times.
    pub shape: Option<Shape>,
}

/// `app = "web"`: short TCP transfers arriving as a Poisson process
/// ([`super::web`]).
#[derive(Deserialize, serde::Serialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Flows per second (required).
    pub arrival_rate: Option<ArrivalRate>,
    /// Packets per transfer (the mean if random; required unless empirical).
    pub size: Option<WebSize>,
    /// Size distribution (constant).
    pub size_dist: Option<DistName>,
    /// Pareto shape of the sizes.
    pub shape: Option<Shape>,
    /// The CDF of an empirical size distribution.
    pub size_cdf: Option<Vec<CdfStep>>,
    /// Sender/receiver pairs the flows rotate over (all the dumbbell's).
    pub pool: Option<Pool>,
}

impl WebConfig {
    /// The flows per second.
    pub fn arrival_rate(&self) -> Result<f64, ParamError> {
        self.arrival_rate.map(|r| r.0).ok_or_else(|| {
            ParamError::at(
                "arrival_rate",
                "missing key \"arrival_rate\" (flows per second, e.g. 100)",
            )
        })
    }

    /// The distribution of transfer sizes, packets.
    pub fn sizes(&self) -> Result<SizeDist, ParamError> {
        if self.size_dist == Some(DistName::Empirical) {
            if self.size.is_some() {
                return Err(ParamError::at(
                    "size",
                    "an empirical size distribution takes \"size_cdf\", not \"size\"",
                ));
            }
            let Some(cdf) = &self.size_cdf else {
                return Err(ParamError::at(
                    "size_cdf",
                    "missing key \"size_cdf\" for size_dist = \"empirical\"",
                ));
            };
            let cdf: Vec<(u64, f64)> = cdf.iter().map(|s| (s.0, s.1)).collect();
            if let Err((i, m)) = SizeDist::check_cdf(&cdf) {
                return Err(ParamError::at(format!("size_cdf[{i}]"), m));
            }
            return Ok(SizeDist::Empirical(cdf));
        }
        if self.size_cdf.is_some() {
            return Err(ParamError::at(
                "size_cdf",
                "\"size_cdf\" goes with size_dist = \"empirical\"",
            ));
        }
        let Some(WebSize(mean)) = self.size else {
            return Err(ParamError::at(
                "size",
                "missing key \"size\": packets per transfer (the mean if random)",
            ));
        };
        Ok(match dist("size_dist", self.size_dist, self.shape, Dist::Constant)? {
            Dist::Constant => SizeDist::Fixed(mean.round() as u64),
            Dist::Exponential => SizeDist::Exponential(mean),
            Dist::Pareto(shape) => SizeDist::Pareto { mean, shape },
        })
    }
}

/// An application's parsed configuration.
#[derive(Debug)]
pub enum AppConfig {
    /// `bulk`.
    Bulk(BulkConfig),
    /// `finite`: the size, resolved.
    Finite(TransferSize),
    /// `cbr`: rate, packet size, schedule.
    Cbr(u64, u32, Schedule),
    /// `poisson`: rate, packet size, size distribution, schedule.
    Poisson(u64, u32, Dist, Schedule),
    /// `onoff`: rate, packet size, mean ON and OFF times, their distribution.
    OnOff(u64, u32, SimTime, SimTime, Dist),
    /// `web`: a workload of `finite` transfers, planned by the builder.
    Web(WebConfig),
}

/// What an application is built from besides its keys: what the builder
/// asked the flow's built transport.
#[derive(Copy, Clone, Debug)]
pub struct AppCtx {
    /// The sender's segment payload, bytes (packets of a `finite` size).
    pub mss: u32,
}

const PACKET_SIZE: u32 = 1000;

impl AppConfig {
    /// Parse `keys` (the group's application keys) as app `name`'s config.
    /// An unknown name is an error at `app` listing the applications.
    pub fn parse(name: &str, keys: &Params) -> Result<AppConfig, ParamError> {
        let Some(row) = super::APPS.iter().find(|a| a.name == name) else {
            return Err(ParamError::at(
                "app",
                format!("unknown app \"{name}\"; expected one of: {}", super::names().join(", ")),
            ));
        };
        (row.parse)(keys).map_err(|e| match e.message.strip_prefix("unknown key `") {
            // Another application's key (the table holds only application keys).
            Some(rest) => {
                let k = rest.split('`').next().unwrap_or_default();
                ParamError::at(k, format!("key \"{k}\" is not used by app \"{name}\""))
            }
            None => e,
        })
    }

    /// Build a flow's application.
    pub fn build(&self, ctx: &AppCtx) -> Box<dyn Application> {
        match *self {
            AppConfig::Bulk(_) => Box::new(Bulk),
            AppConfig::Finite(TransferSize::Bytes(bytes)) => Box::new(Finite { bytes, label: "finite" }),
            AppConfig::Finite(TransferSize::Packets(p)) => Box::new(Finite {
                bytes: p * ctx.mss as u64,
                label: "finite",
            }),
            AppConfig::Cbr(rate, size, ref schedule) => Box::new(Paced::cbr(rate, size, schedule.clone())),
            AppConfig::Poisson(rate, size, sizes, ref schedule) => {
                Box::new(Paced::poisson(rate, size, sizes, schedule.clone()))
            }
            AppConfig::OnOff(rate, size, on, off, dist) => Box::new(OnOff::new(rate, size, on, off, dist)),
            // The builder makes a web group's flows (`finite` transfers of its plan).
            AppConfig::Web(_) => Box::new(Bulk),
        }
    }
}

pub(super) fn parse_bulk(keys: &Params) -> Result<AppConfig, ParamError> {
    parse::<BulkConfig>(keys).map(AppConfig::Bulk)
}

pub(super) fn parse_finite(keys: &Params) -> Result<AppConfig, ParamError> {
    let c: FiniteConfig = parse(keys)?;
    c.size
        .map(AppConfig::Finite)
        .ok_or_else(|| ParamError::at("size", "missing key \"size\": bytes (\"1MB\") or packets (an integer)"))
}

pub(super) fn parse_cbr(keys: &Params) -> Result<AppConfig, ParamError> {
    let mut keys = keys.clone();
    let c = CbrConfig {
        source: take(&mut keys, SourceConfig::KEYS)?,
        schedule: take(&mut keys, ScheduleConfig::KEYS)?,
    };
    // No keys of its own: any other is refused.
    parse::<BulkConfig>(&keys)?;
    let (rate, size) = c.source.rate_and_size()?;
    Ok(AppConfig::Cbr(rate, size, c.schedule.schedule()?))
}

pub(super) fn parse_poisson(keys: &Params) -> Result<AppConfig, ParamError> {
    let mut keys = keys.clone();
    let c = PoissonConfig {
        source: take(&mut keys, SourceConfig::KEYS)?,
        schedule: take(&mut keys, ScheduleConfig::KEYS)?,
        sizes: parse(&keys)?,
    };
    let (rate, size) = c.source.rate_and_size()?;
    let sizes = dist("size_dist", c.sizes.size_dist, c.sizes.shape, Dist::Constant)?;
    crate::params::resolved(&PoissonSizes {
        size_dist: Some(dist_name(sizes)),
        shape: dist_shape(sizes),
    });
    Ok(AppConfig::Poisson(rate, size, sizes, c.schedule.schedule()?))
}

pub(super) fn parse_onoff(keys: &Params) -> Result<AppConfig, ParamError> {
    let mut keys = keys.clone();
    let c = OnOffConfig {
        source: take(&mut keys, SourceConfig::KEYS)?,
        times: parse(&keys)?,
    };
    let (rate, size) = c.source.rate_and_size()?;
    let t = &c.times;
    let on = t.on.map_or(SimTime::from_millis(500), |t| t.0);
    let off = t.off.map_or(SimTime::from_millis(500), |t| t.0);
    if on == SimTime::ZERO {
        return Err(ParamError::at("on", "the mean ON time must be positive"));
    }
    let d = dist("on_dist", t.on_dist, t.shape, Dist::Exponential)?;
    crate::params::resolved(&OnOffTimes {
        on: Some(Time(on)),
        off: Some(Time(off)),
        on_dist: Some(dist_name(d)),
        shape: dist_shape(d),
    });
    Ok(AppConfig::OnOff(rate, size, on, off, d))
}

pub(super) fn parse_web(keys: &Params) -> Result<AppConfig, ParamError> {
    let c: WebConfig = parse(keys)?;
    c.arrival_rate()?;
    c.sizes()?;
    Ok(AppConfig::Web(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(toml_like: serde_json::Value) -> Params {
        toml_like.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn keys_of_another_app_are_named_with_the_app() {
        let e = AppConfig::parse("cbr", &keys(serde_json::json!({"rate": "1Mbps", "size": 5}))).unwrap_err();
        assert_eq!(e, ParamError::at("size", "key \"size\" is not used by app \"cbr\""));
    }

    #[test]
    fn values_are_checked_with_their_key() {
        let e = AppConfig::parse("cbr", &keys(serde_json::json!({"rate": "1Mbps", "packet_size": 0}))).unwrap_err();
        assert_eq!(
            e,
            ParamError::at("packet_size", "expected a positive size in bytes, got 0")
        );
        let e = AppConfig::parse("poisson", &keys(serde_json::json!({"rate": "1Mbps", "shape": 2}))).unwrap_err();
        assert_eq!(e.path, "shape");
        let e = AppConfig::parse(
            "cbr",
            &keys(serde_json::json!({"rate": "1Mbps", "on": [["1s", "2s"], ["1.5s", "3s"]]})),
        )
        .unwrap_err();
        assert_eq!(e, ParamError::at("on[1]", "intervals must be in order and not overlap"));
        let e = AppConfig::parse("onoff", &keys(serde_json::json!({}))).unwrap_err();
        assert_eq!(
            e,
            ParamError::at("rate", "missing key \"rate\" (e.g. rate = \"1Mbps\")")
        );
    }

    /// The parts of a source's keys: `on` is cbr's schedule (intervals) but
    /// onoff's mean ON time; a key of no part is refused with the app's name.
    #[test]
    fn each_part_reads_its_own_keys() {
        let c = AppConfig::parse(
            "cbr",
            &keys(serde_json::json!({"rate": "1Mbps", "packet_size": 500, "on": [["1s", "2s"]]})),
        )
        .unwrap();
        assert!(matches!(c, AppConfig::Cbr(1_000_000, 500, Schedule::Intervals(ref iv)) if iv.len() == 1));
        let c = AppConfig::parse("onoff", &keys(serde_json::json!({"rate": "2Mbps", "on": "1s"}))).unwrap();
        assert!(
            matches!(c, AppConfig::OnOff(2_000_000, 1000, on, _, Dist::Exponential) if on == SimTime::from_millis(1000))
        );
        let e = AppConfig::parse("poisson", &keys(serde_json::json!({"rate": "1Mbps", "off": "1s"}))).unwrap_err();
        assert_eq!(e, ParamError::at("off", "key \"off\" is not used by app \"poisson\""));
        let e = AppConfig::parse("onoff", &keys(serde_json::json!({"rate": "1Mbps", "period": "1s"}))).unwrap_err();
        assert_eq!(e.path, "period");
    }

    /// The applications report the defaults they run with (the results'
    /// `components`), not null: the packet size, a square wave's duty, the
    /// ON/OFF times and the distributions.
    #[test]
    fn defaults_are_reported_as_they_run() {
        let resolved = |app: &str, k: serde_json::Value| {
            let (c, config) = crate::params::resolving(|| AppConfig::parse(app, &keys(k)));
            assert!(c.is_ok(), "{app}");
            serde_json::Value::Object(config)
        };
        let cbr = resolved("cbr", serde_json::json!({"rate": "1Mbps", "period": "2s"}));
        assert_eq!(
            (&cbr["packet_size"], &cbr["duty"], &cbr["period"]),
            (&1000.into(), &0.5.into(), &2.0.into())
        );
        let cbr = resolved(
            "cbr",
            serde_json::json!({"rate": "1Mbps", "packet_size": 500, "on": [["1s", "2s"]]}),
        );
        assert_eq!(
            (&cbr["packet_size"], &cbr["duty"]),
            (&500.into(), &serde_json::Value::Null)
        );
        let onoff = resolved("onoff", serde_json::json!({"rate": "1Mbps"}));
        assert_eq!(
            (&onoff["on"], &onoff["off"], &onoff["on_dist"], &onoff["shape"]),
            (
                &0.5.into(),
                &0.5.into(),
                &"exponential".into(),
                &serde_json::Value::Null
            )
        );
        let poisson = resolved("poisson", serde_json::json!({"rate": "1Mbps", "size_dist": "pareto"}));
        assert_eq!(
            (&poisson["size_dist"], &poisson["shape"]),
            (&"pareto".into(), &1.5.into())
        );
    }

    #[test]
    fn finite_packets_take_the_senders_segment_size() {
        let c = AppConfig::parse("finite", &keys(serde_json::json!({"size": 10}))).unwrap();
        assert!(matches!(c, AppConfig::Finite(TransferSize::Packets(10))));
        let c = AppConfig::parse("finite", &keys(serde_json::json!({"size": "1MB"}))).unwrap();
        assert!(matches!(c, AppConfig::Finite(TransferSize::Bytes(1_000_000))));
    }
}
