//! A WLAN's scenario table (`[[wlans]]`), typed and checked: the PHY, the
//! DCF parameters, RTS/CTS, the frame error model and the members, with
//! every error at its key (relative to the table, as every `*Config`'s).
//!
//! The builder resolves the members' nodes and builds each interface's
//! queue discipline from the table it names ([`WlanConfig::iface_queue`]);
//! the WLAN does the rest itself ([`Wlan::from_config`],
//! [`Wlan::add_member`]) and tells the builder which links it needs for
//! routing ([`Wlan::hops`]).

use super::dcf::DcfParams;
use super::phy::{Phy, Standard, LONG_RETRY_LIMIT, SHORT_RETRY_LIMIT};
use super::{FrameErrors, Wlan};
use crate::packet::NodeId;
use crate::params::ParamError;
use crate::queue::{Queue, QueueDisc};
use crate::rng::stream;
use crate::scenario::{QueueSpec, WlanLossSpec, WlanSpec};
use serde_json::Value;

/// Default limit of a WLAN interface queue, packets (as ns-3's WifiMacQueue
/// default of 500 would hide the AP bottleneck behind seconds of delay at
/// 802.11b rates, ccsim uses its usual 100-packet default here too).
pub const QUEUE_LIMIT: u64 = 100;

/// A WLAN's parsed configuration.
#[derive(Clone, Debug)]
pub struct WlanConfig {
    /// Its name ("wlan<index>" by default).
    pub name: String,
    /// The PHY: standard, data and basic rates.
    pub phy: Phy,
    /// The DCF's slot, DIFS, contention windows and retry limits.
    pub params: DcfParams,
    /// MPDUs longer than this many bytes use RTS/CTS (`u64::MAX`: never).
    pub rts_threshold: u64,
    /// Frame errors on top of collisions.
    pub errors: Option<FrameErrors>,
}

impl WlanConfig {
    /// Parse `spec`, the `index`-th WLAN of the scenario. Errors are at
    /// keys of its table.
    pub fn parse(spec: &WlanSpec, index: usize) -> Result<WlanConfig, ParamError> {
        let name = spec.name.clone().unwrap_or_else(|| format!("wlan{index}"));
        if name.is_empty() || name.contains(':') {
            return Err(ParamError::at("name", "a WLAN name must be non-empty and without ':'"));
        }
        check_members(spec)?;
        let standard = Standard::parse(&spec.standard).ok_or_else(|| {
            ParamError::at(
                "standard",
                format!(
                    "unknown standard \"{}\"; expected \"802.11b\", \"802.11a\", \"802.11g\" or \"802.11n\"",
                    spec.standard
                ),
            )
        })?;
        let phy = Phy::new(standard, spec.data_rate.map(|r| r.0), spec.basic_rate.map(|r| r.0))?;
        let cw_min = contention_window(spec.cw_min, phy.cw_min, "cw_min")?;
        let cw_max = contention_window(spec.cw_max, phy.cw_max.max(cw_min), "cw_max")?;
        if cw_max < cw_min {
            return Err(ParamError::at(
                "cw_max",
                format!("cw_max ({cw_max}) must not be below cw_min ({cw_min})"),
            ));
        }
        let (short_limit, long_limit) = retry_limits(spec.retry_limit.as_ref())?;
        let errors = spec.loss.as_ref().map(frame_errors).transpose()?;
        let params = DcfParams {
            slot: phy.slot,
            difs: phy.difs(),
            cw_min,
            cw_max,
            short_limit,
            long_limit,
        };
        Ok(WlanConfig {
            name,
            phy,
            params,
            rts_threshold: spec.rts_threshold.map(|b| b.0).unwrap_or(u64::MAX),
            errors,
        })
    }

    /// The queue table of the interface of member `k` (0: the AP, then the
    /// stations in order) and its key: `ap_queue` for the AP when given,
    /// else `queue` (DropTail of [`QUEUE_LIMIT`] packets when absent).
    pub fn iface_queue(spec: &WlanSpec, k: usize) -> (Option<&QueueSpec>, &'static str) {
        match (&spec.ap_queue, k) {
            (Some(q), 0) => (Some(q), "ap_queue"),
            _ => (spec.queue.as_ref(), "queue"),
        }
    }
}

/// A WLAN has an AP and at least one station, none of them twice (node
/// names are unique, so names compare as nodes).
fn check_members(spec: &WlanSpec) -> Result<(), ParamError> {
    if spec.stations.is_empty() {
        return Err(ParamError::at("stations", "a WLAN needs at least one station"));
    }
    for (k, s) in spec.stations.iter().enumerate() {
        let key = format!("stations[{k}]");
        if *s == spec.ap {
            return Err(ParamError::at(key, format!("\"{s}\" is the WLAN's access point")));
        }
        if spec.stations[..k].contains(s) {
            return Err(ParamError::at(key, format!("station \"{s}\" is listed twice")));
        }
    }
    Ok(())
}

/// A contention window override (`cw_min`, `cw_max`), or the default.
fn contention_window(v: Option<i64>, default: u32, key: &str) -> Result<u32, ParamError> {
    match v {
        None => Ok(default),
        Some(c) if (1..=65535).contains(&c) => Ok(c as u32),
        Some(c) => Err(ParamError::at(
            key,
            format!("expected a contention window of 1 to 65535 slots, got {c}"),
        )),
    }
}

/// `retry_limit`: a number of attempts for both limits, or `{ short, long }`
/// (each defaulting to the standard's: [`SHORT_RETRY_LIMIT`],
/// [`LONG_RETRY_LIMIT`]).
fn retry_limits(v: Option<&Value>) -> Result<(u32, u32), ParamError> {
    let lim = |x: &Value, k: &str| -> Result<u32, ParamError> {
        x.as_u64()
            .filter(|n| (1..=255).contains(n))
            .map(|n| n as u32)
            .ok_or_else(|| ParamError::at(k, format!("expected a number of attempts from 1 to 255, got {x}")))
    };
    match v {
        None => Ok((SHORT_RETRY_LIMIT, LONG_RETRY_LIMIT)),
        Some(n @ Value::Number(_)) => lim(n, "retry_limit").map(|n| (n, n)),
        Some(Value::Object(m)) => {
            if let Some(k) = m.keys().find(|k| *k != "short" && *k != "long") {
                return Err(ParamError::at(
                    format!("retry_limit.{k}"),
                    "unknown key; retry_limit takes \"short\" and \"long\"",
                ));
            }
            let one = |k: &str, default: u32| m.get(k).map_or(Ok(default), |x| lim(x, &format!("retry_limit.{k}")));
            Ok((one("short", SHORT_RETRY_LIMIT)?, one("long", LONG_RETRY_LIMIT)?))
        }
        Some(other) => Err(ParamError::at(
            "retry_limit",
            format!("expected a number of attempts or {{ short = 7, long = 4 }}, got {other}"),
        )),
    }
}

/// The frame error model of `loss` (`fer`: per data frame, in [0, 1];
/// `ber`: per bit, in [0, 1)).
fn frame_errors(l: &WlanLossSpec) -> Result<FrameErrors, ParamError> {
    let ok = match l.model.as_str() {
        "fer" => (0.0..=1.0).contains(&l.rate),
        "ber" => (0.0..1.0).contains(&l.rate),
        other => {
            return Err(ParamError::at(
                "loss.model",
                format!("unknown frame error model \"{other}\"; expected \"fer\" or \"ber\""),
            ))
        }
    };
    if !ok {
        return Err(ParamError::at(
            "loss.rate",
            format!("expected a probability in [0, 1) for \"{}\", got {}", l.model, l.rate),
        ));
    }
    Ok(if l.model == "fer" {
        FrameErrors::Fer(l.rate)
    } else {
        FrameErrors::Ber(l.rate)
    })
}

impl Wlan {
    /// A WLAN without members, from its configuration: `id` is its index
    /// among the simulation's media, `seed` the scenario's (its frame
    /// errors draw from their own stream).
    pub fn from_config(id: u32, cfg: WlanConfig, seed: u64) -> Wlan {
        let err_rng = stream(seed, &format!("wlan-errors:{}", cfg.name));
        Wlan::new(
            id,
            cfg.name,
            cfg.phy,
            cfg.params,
            cfg.rts_threshold,
            cfg.errors,
            err_rng,
        )
    }

    /// Add a member (the AP first, then the stations): node `node` named
    /// `node_name`, whose interface queue runs `disc` (built from the table
    /// [`WlanConfig::iface_queue`] names). A discipline the interface cannot
    /// run is an error at that table's `kind`: one that acts on the reverse
    /// direction of a duplex link (a WLAN interface has none), or one that
    /// shapes (the MAC does not wait for its schedule).
    pub fn add_member(
        &mut self,
        node: NodeId,
        node_name: &str,
        disc: Box<dyn QueueDisc>,
        seed: u64,
    ) -> Result<u32, ParamError> {
        if disc.wants_reverse() {
            return Err(ParamError::at(
                "kind",
                format!(
                    "queue discipline \"{}\" acts on packets of the reverse direction of a duplex link, \
                     which a WLAN interface does not have",
                    disc.kind()
                ),
            ));
        }
        if disc.shapes() {
            return Err(ParamError::at(
                "kind",
                format!(
                    "queue discipline \"{}\" is shaping (it holds packets back until its schedule allows), \
                     which a WLAN interface's MAC does not wait for; leave its rate out here",
                    disc.kind()
                ),
            ));
        }
        let iface = format!("{}:{node_name}", self.name);
        let queue = Queue::general(disc, stream(seed, &format!("queue:{iface}")));
        let rng = stream(seed, &format!("dcf:{iface}"));
        let ap = self.ifaces.is_empty();
        Ok(self.add_iface(node, node_name, ap, queue, rng))
    }

    /// The hops the WLAN needs links for, in the order their ports are to
    /// be added ([`Wlan::add_port`]): for routing, the WLAN is a star of
    /// links AP <-> station; per station, (AP, station) then (station, AP),
    /// each as (from node, to node, transmitting interface, receiving
    /// interface).
    pub fn hops(&self) -> Vec<(NodeId, NodeId, u32, u32)> {
        let ap = self.ifaces.first().map(|f| f.node);
        let Some(ap) = ap else { return Vec::new() };
        (1..self.ifaces.len() as u32)
            .flat_map(|si| {
                let sta = self.ifaces[si as usize].node;
                [(ap, sta, 0, si), (sta, ap, si, 0)]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(extra: serde_json::Value) -> WlanSpec {
        let mut v = serde_json::json!({"ap": "ap", "stations": ["a", "b"], "standard": "802.11b"});
        if let (Some(m), Some(x)) = (v.as_object_mut(), extra.as_object()) {
            m.extend(x.clone());
        }
        serde_json::from_value(v).expect("a WLAN table")
    }

    #[test]
    fn defaults_are_the_standards() {
        let c = WlanConfig::parse(&spec(serde_json::json!({})), 2).expect("valid");
        assert_eq!(c.name, "wlan2");
        assert_eq!((c.params.cw_min, c.params.cw_max), (c.phy.cw_min, c.phy.cw_max));
        assert_eq!(
            (c.params.short_limit, c.params.long_limit),
            (SHORT_RETRY_LIMIT, LONG_RETRY_LIMIT)
        );
        assert_eq!(c.rts_threshold, u64::MAX);
        assert_eq!(c.errors, None);
    }

    #[test]
    fn errors_are_at_their_keys() {
        let e = |x| WlanConfig::parse(&spec(x), 0).unwrap_err();
        assert_eq!(e(serde_json::json!({"stations": ["a", "ap"]})).path, "stations[1]");
        assert_eq!(
            e(serde_json::json!({"stations": ["a", "a"]})),
            ParamError::at("stations[1]", "station \"a\" is listed twice")
        );
        assert_eq!(e(serde_json::json!({"cw_min": 64, "cw_max": 32})).path, "cw_max");
        assert_eq!(
            e(serde_json::json!({"retry_limit": {"long": 0}})).path,
            "retry_limit.long"
        );
        assert_eq!(
            e(serde_json::json!({"retry_limit": {"medium": 3}})).path,
            "retry_limit.medium"
        );
        assert_eq!(
            e(serde_json::json!({"loss": {"model": "ber", "rate": 1.0}})).path,
            "loss.rate"
        );
        assert_eq!(e(serde_json::json!({"name": "a:b"})).path, "name");
    }

    #[test]
    fn retry_limits_one_number_or_both() {
        let c = |x| WlanConfig::parse(&spec(x), 0).expect("valid").params;
        let p = c(serde_json::json!({"retry_limit": 3}));
        assert_eq!((p.short_limit, p.long_limit), (3, 3));
        let p = c(serde_json::json!({"retry_limit": {"short": 5}}));
        assert_eq!((p.short_limit, p.long_limit), (5, LONG_RETRY_LIMIT));
    }
}
