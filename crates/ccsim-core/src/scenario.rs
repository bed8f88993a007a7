//! The scenario file schema (TOML, or the same structure as JSON).
//!
//! Parsing is two steps: serde reads the structure (unknown keys, wrong types
//! and bad units are reported with their key path), then [`crate::build`]
//! checks the meaning (routes exist, warmup < duration, ...) and builds the
//! simulation. docs/scenarios.md documents every key.

use crate::compat::{Profile, TieOrder};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::units::{Bytes, Rate, Time};
use serde::Deserialize;

/// A whole scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Name of the scenario (used for the output folder).
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Simulated duration.
    pub duration: Time,
    /// Start of the metrics window (default 0s).
    #[serde(default)]
    pub warmup: Option<Time>,
    /// Seed of all random streams (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Compatibility profile: "ccsim" (default), "ns2", "ns3", "linux" or
    /// "rfc" (docs/compat.md).
    #[serde(default)]
    pub compat: Option<Profile>,
    /// Order of simultaneous events: "kind", "fifo" or "uid" (default from `compat`).
    #[serde(default)]
    pub tie_order: Option<TieOrder>,
    /// Packets the transmitter's device queue holds below every link's
    /// queue discipline (default from `compat`: 1 under `ns3`, else 0).
    #[serde(default)]
    pub device_queue: Option<u32>,
    /// Link-layer framing bytes every packet adds to its transmission time
    /// on wired links (default from `compat`: 2 under `ns3`, else 0).
    #[serde(default)]
    pub framing_bytes: Option<u32>,
    /// A generated topology (`kind = "dumbbell"`).
    #[serde(default)]
    pub topology: Option<TopologySpec>,
    /// Explicit nodes.
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    /// Explicit links (duplex).
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Wireless LANs (802.11 DCF) among the explicit nodes.
    #[serde(default)]
    pub wlans: Vec<WlanSpec>,
    /// Flow groups.
    #[serde(default)]
    pub flows: Vec<FlowGroupSpec>,
    /// Output settings.
    #[serde(default)]
    pub output: OutputSpec,
    /// Run guards.
    #[serde(default)]
    pub limits: LimitsSpec,
}

/// `[topology]`: a generated topology.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Only "dumbbell" for now.
    pub kind: String,
    /// Number of sender/receiver pairs.
    pub pairs: u32,
    /// The access links (s_i - r1 and r2 - d_i).
    pub access: AccessSpec,
    /// The bottleneck r1 - r2.
    pub bottleneck: BottleneckSpec,
}

/// Access link parameters of a dumbbell.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    /// Rate of every access link.
    pub rate: Rate,
    /// Propagation delay of every access link.
    pub delay: Time,
    /// Per-pair delays (overrides `delay` for pair i), for RTT-heterogeneity studies.
    #[serde(default)]
    pub delays: Option<Vec<Time>>,
    /// Queue on every access link direction.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
}

/// The dumbbell bottleneck.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BottleneckSpec {
    /// Rate (required unless both directions follow traces).
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Propagation delay.
    pub delay: Time,
    /// Queue of r1->r2.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// Queue of r2->r1 (default: DropTail with the forward queue's limit).
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    /// Random loss on r1->r2.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// A packet-delivery trace for r1->r2 instead of a fixed rate: a
    /// shipped trace's name or a file in Mahimahi's format
    /// ([`crate::link_trace`]).
    #[serde(default)]
    pub trace: Option<String>,
    /// A packet-delivery trace for r2->r1.
    #[serde(default)]
    pub reverse_trace: Option<String>,
}

/// A queue discipline and its parameters.
#[derive(Debug, Deserialize, Clone)]
pub struct QueueSpec {
    /// Discipline name (default "droptail").
    #[serde(default)]
    pub kind: Option<String>,
    /// Compatibility profile of this queue (default: the scenario's).
    #[serde(default)]
    pub compat: Option<Profile>,
    /// Limit in packets waiting.
    #[serde(default)]
    pub limit: Option<i64>,
    /// Limit in bytes waiting.
    #[serde(default)]
    pub limit_bytes: Option<Bytes>,
    /// The discipline's own parameters.
    #[serde(flatten)]
    pub params: Params,
}

/// A random loss model on a link direction.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// "bernoulli", "gilbert-elliott" or "drop_list".
    pub model: String,
    /// Bernoulli loss probability.
    #[serde(default)]
    pub rate: Option<f64>,
    /// Gilbert-Elliott: P(good -> bad) per packet.
    #[serde(default)]
    pub p_gb: Option<f64>,
    /// Gilbert-Elliott: P(bad -> good) per packet.
    #[serde(default)]
    pub p_bg: Option<f64>,
    /// Gilbert-Elliott: loss probability in the good state (default 0).
    #[serde(default)]
    pub loss_good: Option<f64>,
    /// Gilbert-Elliott: loss probability in the bad state (default 1).
    #[serde(default)]
    pub loss_bad: Option<f64>,
    /// drop_list: the data packets to drop, numbered from 1 in the order they cross the link.
    #[serde(default)]
    pub packets: Option<Vec<i64>>,
}

/// `[[nodes]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name.
    pub name: String,
    /// "host" or "router" (informational).
    #[serde(default)]
    pub kind: Option<String>,
}

/// `[[links]]`: a duplex link between `a` and `b`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
    /// Rate of each direction (required unless both directions follow traces).
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Propagation delay of each direction.
    pub delay: Time,
    /// Queue of both directions.
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// Queue of a->b (overrides `queue`).
    #[serde(default)]
    pub queue_ab: Option<QueueSpec>,
    /// Queue of b->a (overrides `queue`).
    #[serde(default)]
    pub queue_ba: Option<QueueSpec>,
    /// Loss on both directions.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Loss on a->b.
    #[serde(default)]
    pub loss_ab: Option<LossSpec>,
    /// Loss on b->a.
    #[serde(default)]
    pub loss_ba: Option<LossSpec>,
    /// A packet-delivery trace for both directions instead of a fixed
    /// rate: a shipped trace's name or a file in Mahimahi's format
    /// ([`crate::link_trace`]).
    #[serde(default)]
    pub trace: Option<String>,
    /// A trace for a->b (overrides `trace`).
    #[serde(default)]
    pub trace_ab: Option<String>,
    /// A trace for b->a (overrides `trace`).
    #[serde(default)]
    pub trace_ba: Option<String>,
    /// This link's a->b direction is the scenario's bottleneck: the
    /// summary's `bottleneck_*` figures are its (at most one link; default
    /// false: the most utilized wired link direction is taken).
    #[serde(default)]
    pub bottleneck: bool,
}

/// `[[wlans]]`: an 802.11 access point and its stations sharing one channel.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanSpec {
    /// Name, used in results ("wlan<index>" by default).
    #[serde(default)]
    pub name: Option<String>,
    /// The access point (a node name).
    pub ap: String,
    /// The associated stations (node names).
    pub stations: Vec<String>,
    /// "802.11b", "802.11a", "802.11g" or "802.11n".
    pub standard: String,
    /// Rate of data frames (default: the standard's highest single-stream rate).
    #[serde(default)]
    pub data_rate: Option<Rate>,
    /// Rate of control frames: RTS, CTS, ACK (default: the lowest mandatory rate).
    #[serde(default)]
    pub basic_rate: Option<Rate>,
    /// Queue of every interface (default DropTail, 100 packets).
    #[serde(default)]
    pub queue: Option<QueueSpec>,
    /// Queue of the AP's interface (overrides `queue`).
    #[serde(default)]
    pub ap_queue: Option<QueueSpec>,
    /// Frame errors on top of collisions.
    #[serde(default)]
    pub loss: Option<WlanLossSpec>,
    /// MPDUs longer than this use RTS/CTS (default: never).
    #[serde(default)]
    pub rts_threshold: Option<Bytes>,
    /// Retry limits: an integer for both, or { short = 7, long = 4 }.
    #[serde(default)]
    pub retry_limit: Option<serde_json::Value>,
    /// CWmin override (default: the standard's aCWmin).
    #[serde(default)]
    pub cw_min: Option<i64>,
    /// CWmax override (default: the standard's aCWmax).
    #[serde(default)]
    pub cw_max: Option<i64>,
}

/// The frame error model of a WLAN.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct WlanLossSpec {
    /// "fer" (per data frame) or "ber" (per bit of every frame).
    pub model: String,
    /// The error rate.
    pub rate: f64,
}

/// `[[flows]]`: a group of `count` identical flows. Application and
/// transport parameters sit flat beside `app` and `transport`.
#[derive(Debug, Deserialize)]
pub struct FlowGroupSpec {
    /// Number of flows in the group (default 1).
    #[serde(default)]
    pub count: Option<i64>,
    /// Group label (default "g<index>"); flows are named "<group>.<k>".
    #[serde(default, alias = "name")]
    pub group: Option<String>,
    /// Source node (dumbbell default: s{i mod N}).
    #[serde(default)]
    pub src: Option<String>,
    /// Destination node (dumbbell default: d{i mod N}).
    #[serde(default)]
    pub dst: Option<String>,
    /// Dumbbell: run d -> s instead of s -> d.
    #[serde(default)]
    pub reverse: Option<bool>,
    /// Compatibility profile of this group (default: the scenario's).
    #[serde(default)]
    pub compat: Option<Profile>,
    /// "udp" (default), "tcp", ...
    #[serde(default)]
    pub transport: Option<String>,
    /// "bulk", "finite", "cbr", "poisson", "onoff".
    #[serde(default)]
    pub app: Option<String>,
    /// Start time: "1s" or { uniform = ["0s", "1s"] } (default 0s).
    #[serde(default)]
    pub start: Option<serde_json::Value>,
    /// Stop time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Time>,
    /// Include in Jain's index (default: true for bulk flows).
    #[serde(default)]
    pub fairness: Option<bool>,
    /// Precedence/class carried by the data packets (default 0).
    #[serde(default)]
    pub class: Option<i64>,
    /// Edge profile meter: data packets conforming to the token bucket are
    /// class 1 (IN), the others class 0 (OUT). Exclusive with `class`.
    #[serde(default)]
    pub profile: Option<ProfileSpec>,
    /// Every other key: application and transport parameters.
    #[serde(flatten)]
    pub params: Params,
}

/// `profile = { rate = "1Mbps", burst = "15KB" }` of a flow group: one
/// token bucket per flow (see [`crate::meter`]).
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct ProfileSpec {
    /// Token rate.
    pub rate: Rate,
    /// Bucket depth.
    pub burst: Bytes,
}

/// `[output]`.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Time-series sampling interval (default 100ms).
    #[serde(default)]
    pub sample_interval: Option<Time>,
    /// Links whose queues are sampled (default: all).
    #[serde(default)]
    pub sample_links: Option<Vec<String>>,
    /// Sample per-flow series (default true).
    #[serde(default)]
    pub sample_flows: Option<bool>,
    /// Sample per-group series (default true).
    #[serde(default)]
    pub sample_groups: Option<bool>,
    /// Packet trace format: "none" (default), "ns2" or "pcap" (see [`crate::trace`]).
    #[serde(default)]
    pub trace: Option<String>,
    /// Link directions traced ("a->b"; default: all).
    #[serde(default)]
    pub trace_links: Option<Vec<String>>,
}

/// `[limits]`: guards against runaway runs.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Maximum events processed (default 2e10).
    #[serde(default)]
    pub max_events: Option<u64>,
    /// Maximum wall-clock time (default "1h").
    #[serde(default)]
    pub max_wall: Option<Time>,
}

/// Reword serde's generic messages in the terms of a scenario file.
pub fn friendly_message(msg: &str) -> String {
    let between = |s: &str, a: &str, b: &str| -> Option<String> {
        let i = s.find(a)? + a.len();
        let j = s[i..].find(b)? + i;
        Some(s[i..j].to_string())
    };
    if msg.starts_with("invalid value: integer") && (msg.ends_with("expected u32") || msg.ends_with("expected u64")) {
        if let Some(v) = between(msg, "`", "`") {
            return format!("expected a whole number >= 0, got {v}");
        }
    }
    if msg.starts_with("invalid type: floating point") && msg.contains("expected i64") || msg.ends_with("expected u64")
    {
        if let Some(v) = between(msg, "`", "`") {
            return format!("expected a whole number, got {v}");
        }
    }
    if let Some(k) = msg.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        return format!("missing key \"{k}\"");
    }
    msg.replace("unknown field", "unknown key")
        .replace("invalid type: ", "wrong type: ")
}

/// Catch the commonest TOML slip: single vs double brackets.
fn check_brackets(v: &serde_json::Value, file: &str) -> Result<()> {
    let err = |key: &str, message: String| Error::Scenario {
        file: file.into(),
        path: key.into(),
        message,
    };
    for key in ["topology", "output", "limits"] {
        if v.get(key).is_some_and(|x| x.is_array()) {
            return Err(err(
                key,
                format!("expected one table: write [{key}] (single brackets), not [[{key}]]"),
            ));
        }
    }
    for key in ["nodes", "links", "wlans", "flows"] {
        if v.get(key).is_some_and(|x| x.is_object()) {
            return Err(err(
                key,
                format!("expected a list of tables: write [[{key}]] (double brackets) for each entry"),
            ));
        }
    }
    Ok(())
}

fn spec_from_value(v: serde_json::Value, file: &str) -> Result<ScenarioSpec> {
    check_brackets(&v, file)?;
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let msg = friendly_message(&e.into_inner().to_string());
        Error::Scenario {
            file: file.to_string(),
            path: if path == "." { "(top level)".into() } else { path },
            message: msg,
        }
    })
}

/// Convert a TOML value to the JSON data model (datetimes become strings).
/// TOML to the JSON model. TOML has `nan` and `inf`, which JSON cannot hold;
/// rather than read them as an absent value (and so a default), they are an
/// error at their key path.
fn toml_to_json(v: toml::Value, path: &mut String, file: &str) -> Result<serde_json::Value> {
    use serde_json::Value as J;
    Ok(match v {
        toml::Value::String(s) => J::String(s),
        toml::Value::Integer(i) => J::from(i),
        toml::Value::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => J::Number(n),
            None => {
                return Err(Error::Scenario {
                    file: file.to_string(),
                    path: path.clone(),
                    message: format!("expected a finite number, got {f}"),
                })
            }
        },
        toml::Value::Boolean(b) => J::Bool(b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            for (i, x) in a.into_iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                out.push(toml_to_json(x, path, file)?);
                path.truncate(len);
            }
            J::Array(out)
        }
        toml::Value::Table(t) => {
            let mut out = serde_json::Map::new();
            for (k, x) in t {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&k);
                let x = toml_to_json(x, path, file)?;
                path.truncate(len);
                out.insert(k, x);
            }
            J::Object(out)
        }
    })
}

/// Parse TOML text into a JSON value (the common data model).
pub fn toml_text_to_value(text: &str, file: &str) -> Result<serde_json::Value> {
    let t: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::Syntax {
        file: file.to_string(),
        message: toml_error_line(text, &e),
    })?;
    toml_to_json(toml::Value::Table(t), &mut String::new(), file)
}

/// A TOML syntax error on one line: "invalid TOML at line L, column C: what".
///
/// The toml crate's own message quotes the offending source line under a
/// caret, which for a long line (an inline array of 100 flows) runs to
/// kilobytes; the position says as much in a line.
fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().trim().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let before = text.get(..start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!("invalid TOML at line {line}, column {column}: {what}")
        }
        None => format!("invalid TOML: {what}"),
    }
}

/// Parse JSON text into a value.
pub fn json_text_to_value(text: &str, file: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| Error::Syntax {
        file: file.to_string(),
        message: format!("invalid JSON: {e}"),
    })
}

/// Read the structure of a scenario from a JSON-model value.
pub fn parse_value(v: serde_json::Value, file: &str) -> Result<ScenarioSpec> {
    if !v.is_object() {
        return Err(Error::Syntax {
            file: file.into(),
            message: "a scenario must be a table".into(),
        });
    }
    spec_from_value(v, file)
}
