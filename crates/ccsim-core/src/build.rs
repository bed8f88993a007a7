//! From a parsed [`ScenarioSpec`] to a ready [`Simulation`]: name the nodes,
//! create both directions of every link with their queues, compute routes,
//! instantiate flows. Every check that needs more than one key lives here,
//! and every error names the key path.

use crate::app::web::SizeDist;
use crate::app::{Application, Bulk, Dist, Finite, OnOff, Paced, Schedule};
use crate::compat::Profile;
use crate::error::{Error, Result};
use crate::link::{Link, Loss, LossModel};
use crate::link_trace::LinkTrace;
use crate::meter::TokenBucket;
use crate::packet::{LinkId, NodeId};
use crate::params::{ParamError, Params};
use crate::queue::droptail::{DropTail, Limit};
use crate::queue::{registry as queues, Queue, QueueDisc};
use crate::rng::{stream, uniform01};
use crate::routing::{Routes, NO_ROUTE};
use crate::sampler::{Sampler, FLOW_METRICS, GROUP_METRICS};
use crate::scenario::{FlowGroupSpec, LossSpec, QueueSpec, ScenarioSpec, WlanSpec};
use crate::sim::{Flow, Guards, Node, Simulation};
use crate::time::SimTime;
use crate::trace::{estimate, TraceFormat, TracePlan, MAX_PCAP_FILES};
use crate::transport::registry::{self as transports, TransportArgs};
use crate::units::{parse_size, parse_time};
use crate::wlan::dcf::DcfParams;
use crate::wlan::phy::{Phy, Standard, LONG_RETRY_LIMIT, SHORT_RETRY_LIMIT};
use crate::wlan::{FrameErrors, Medium, Wlan};
use serde_json::Value;
use std::collections::HashMap;

/// Default limit of access-link queues, packets.
pub const ACCESS_QUEUE_LIMIT: u64 = 1000;
/// Default limit of a bottleneck queue when none is given, packets.
pub const BOTTLENECK_QUEUE_LIMIT: u64 = 100;
/// Default limit of explicit-graph link queues, packets.
pub const LINK_QUEUE_LIMIT: u64 = 100;
/// Default limit of a WLAN interface queue, packets (as ns-3's WifiMacQueue
/// default of 500 would hide the AP bottleneck behind seconds of delay at
/// 802.11b rates, ccsim uses its usual 100-packet default here too).
pub const WLAN_QUEUE_LIMIT: u64 = 100;
/// Largest dumbbell (a guard against typos that would exhaust memory).
pub const MAX_PAIRS: u32 = 100_000;
/// Most flows in one scenario.
pub const MAX_FLOWS: usize = 1_000_000;
/// Most samples per time series.
pub const MAX_SAMPLES: u64 = 10_000_000;
/// Most sampled values of all the time series together (8 bytes each: 1.6 GB).
pub const MAX_SAMPLE_VALUES: u64 = 200_000_000;
/// Default time-series sampling interval.
pub const SAMPLE_INTERVAL: SimTime = SimTime::from_millis(100);

/// Keys of a flow group read by the applications (the rest go to the transport).
const APP_KEYS: &[&str] = &[
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
const RATE_BASED: &[&str] = &["tfrc", "rap"];

/// A `web` group's short flows, drawn at build time (see [`crate::app::web`]).
struct WebPlan {
    /// (start, packets) per flow.
    flows: Vec<(SimTime, u64)>,
    /// Bytes per packet (the transport's MSS).
    mss: u64,
    /// The group's first global flow index, and how many dumbbell pairs its flows rotate over.
    base: usize,
    pool: usize,
    /// The transport's keys.
    rest: Params,
}

struct Builder<'a> {
    file: &'a str,
    seed: u64,
    /// The scenario's compatibility profile.
    compat: Profile,
    names: HashMap<String, NodeId>,
    nodes: Vec<Node>,
    links: Vec<Link>,
    wlans: Vec<Wlan>,
}

fn err(file: &str, path: impl Into<String>, msg: impl Into<String>) -> Error {
    Error::Scenario {
        file: file.to_string(),
        path: path.into(),
        message: msg.into(),
    }
}

impl<'a> Builder<'a> {
    fn e(&self, path: impl Into<String>, msg: impl Into<String>) -> Error {
        err(self.file, path, msg)
    }

    fn param_err(&self, base: &str, e: ParamError) -> Error {
        let path = if e.path.is_empty() {
            base.to_string()
        } else {
            format!("{base}.{}", e.path)
        };
        self.e(path, e.message)
    }

    fn add_node(&mut self, name: &str, path: &str) -> Result<NodeId> {
        if name.is_empty() {
            return Err(self.e(path, "a node name must not be empty"));
        }
        if self.names.contains_key(name) {
            return Err(self.e(path, format!("duplicate node name \"{name}\"")));
        }
        let id = NodeId(self.nodes.len() as u32);
        self.names.insert(name.to_string(), id);
        self.nodes.push(Node { name: name.to_string() });
        Ok(id)
    }

    fn node(&self, name: &str, path: &str) -> Result<NodeId> {
        self.names.get(name).copied().ok_or_else(|| {
            let mut known: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).take(12).collect();
            if self.nodes.len() > 12 {
                known.push("...");
            }
            self.e(
                path,
                format!("unknown node \"{name}\"; nodes are: {}", known.join(", ")),
            )
        })
    }

    fn queue(&self, spec: Option<&QueueSpec>, default_limit: u64, rate: u64, path: &str, label: &str) -> Result<Queue> {
        let disc = self.queue_disc(spec, default_limit, rate, path)?;
        Ok(Queue::new(disc, stream(self.seed, &format!("queue:{label}"))))
    }

    fn queue_disc(
        &self,
        spec: Option<&QueueSpec>,
        default_limit: u64,
        rate: u64,
        path: &str,
    ) -> Result<Box<dyn QueueDisc>> {
        let default = QueueSpec {
            kind: None,
            compat: None,
            limit: None,
            limit_bytes: None,
            params: Params::new(),
        };
        let spec = spec.unwrap_or(&default);
        let kind = spec.kind.clone().unwrap_or_else(|| "droptail".into());
        let packets = match spec.limit {
            Some(l) if l < 1 => {
                return Err(self.e(
                    format!("{path}.limit"),
                    format!("a queue limit must be at least 1 packet, got {l}"),
                ))
            }
            Some(l) => Some(l as u64),
            None if spec.limit_bytes.is_some() => None,
            None => Some(default_limit),
        };
        let bytes = match spec.limit_bytes {
            Some(b) if b.0 == 0 => {
                return Err(self.e(
                    format!("{path}.limit_bytes"),
                    "a queue byte limit must be at least 1 byte",
                ))
            }
            Some(b) => Some(b.0),
            None => None,
        };
        let args = queues::QueueArgs {
            limit: Limit { packets, bytes },
            params: &spec.params,
            link_rate_bps: rate,
            compat: spec.compat.unwrap_or(self.compat),
        };
        let built = if crate::plugin::is_external(&kind) {
            crate::plugin::with_key(path, || queues::build(&kind, &args))
        } else {
            queues::build(&kind, &args)
        };
        built.map_err(|mut e| {
            if e.message.starts_with("unknown key") {
                e.message = format!("{} (queue kind \"{kind}\")", e.message);
            }
            self.param_err(path, e)
        })
    }

    fn loss(&self, spec: Option<&LossSpec>, path: &str, label: &str) -> Result<Option<Loss>> {
        let Some(s) = spec else { return Ok(None) };
        let prob = |v: Option<f64>, key: &str, default: Option<f64>| -> Result<f64> {
            match v.or(default) {
                Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
                Some(p) => Err(self.e(
                    format!("{path}.{key}"),
                    format!("expected a probability in [0, 1], got {p}"),
                )),
                None => Err(self.e(
                    format!("{path}.{key}"),
                    format!("missing key \"{key}\" for loss model \"{}\"", s.model),
                )),
            }
        };
        let model = match s.model.as_str() {
            "bernoulli" => LossModel::Bernoulli {
                rate: prob(s.rate, "rate", None)?,
            },
            "gilbert-elliott" | "gilbert_elliott" => LossModel::GilbertElliott {
                p_gb: prob(s.p_gb, "p_gb", None)?,
                p_bg: prob(s.p_bg, "p_bg", None)?,
                loss_good: prob(s.loss_good, "loss_good", Some(0.0))?,
                loss_bad: prob(s.loss_bad, "loss_bad", Some(1.0))?,
            },
            "drop_list" => {
                let Some(list) = &s.packets else {
                    return Err(self.e(
                        format!("{path}.packets"),
                        "missing key \"packets\" for loss model \"drop_list\" (data packet numbers, from 1)",
                    ));
                };
                let mut packets = Vec::with_capacity(list.len());
                for (i, &n) in list.iter().enumerate() {
                    if n < 1 {
                        return Err(self.e(
                            format!("{path}.packets[{i}]"),
                            format!("expected a data packet number counting from 1, got {n}"),
                        ));
                    }
                    packets.push(n as u64);
                }
                packets.sort_unstable();
                packets.dedup();
                LossModel::DropList { packets }
            }
            other => {
                return Err(self.e(
                    format!("{path}.model"),
                    format!(
                        "unknown loss model \"{other}\"; expected \"bernoulli\", \"gilbert-elliott\" or \"drop_list\""
                    ),
                ))
            }
        };
        if s.packets.is_some() && s.model != "drop_list" {
            return Err(self.e(
                format!("{path}.packets"),
                format!(
                    "key \"packets\" is only used by loss model \"drop_list\", not \"{}\"",
                    s.model
                ),
            ));
        }
        Ok(Some(Loss::new(model, stream(self.seed, &format!("loss:{label}")))))
    }

    /// The rate and trace of each direction of a link: a direction with a
    /// trace (`traces[i]` = (spec, key path)) runs at its trace's nominal
    /// rate and follows it ([`crate::link_trace`]); `rate` (at `rate_key`)
    /// is required for a direction without one and refused when both have one.
    fn directions(
        &self,
        rate_key: &str,
        rate: Option<crate::units::Rate>,
        traces: [(Option<&String>, String); 2],
    ) -> Result<[(u64, Option<Box<LinkTrace>>); 2]> {
        let both = traces.iter().all(|(t, _)| t.is_some());
        if both && rate.is_some() {
            return Err(self.e(
                rate_key,
                "unused: both directions follow traces (their rates are the traces'); remove \"rate\"",
            ));
        }
        let mut dirs = crate::link_trace::search_dirs();
        if let Some(d) = std::path::Path::new(self.file).parent() {
            if std::path::Path::new(self.file).is_file() {
                dirs.push(d.to_path_buf());
            }
        }
        let one = |(spec, key): &(Option<&String>, String)| -> Result<(u64, Option<Box<LinkTrace>>)> {
            match (spec, rate) {
                (Some(s), _) => {
                    let sched = crate::link_trace::load(s, &dirs).map_err(|m| self.e(key.clone(), m))?;
                    Ok((sched.mean_rate_bps(), Some(Box::new(LinkTrace::new(sched)))))
                }
                (None, Some(r)) => Ok((r.0, None)),
                (None, None) => Err(self.e(
                    rate_key,
                    format!(
                        "missing key \"rate\" (e.g. rate = \"10Mbps\"; or a trace for each direction: {})",
                        traces.iter().map(|(_, k)| k.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )),
            }
        };
        Ok([one(&traces[0])?, one(&traces[1])?])
    }

    /// Make link `id` follow `trace`, if any: it then takes the general
    /// path (the FIFO fast path fixes departures at the link's rate).
    fn set_trace(&mut self, id: LinkId, trace: Option<Box<LinkTrace>>) {
        let l = &mut self.links[id.0 as usize];
        if trace.is_some() {
            l.queue.disable_fast_path();
        }
        l.trace = trace;
    }

    #[allow(clippy::too_many_arguments)]
    fn add_link(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: u64,
        delay: SimTime,
        queue: Queue,
        loss: Option<Loss>,
    ) -> LinkId {
        let id = LinkId(self.links.len() as u32);
        let name = format!("{}->{}", self.nodes[a.0 as usize].name, self.nodes[b.0 as usize].name);
        self.links.push(Link {
            id,
            name,
            from: a,
            to: b,
            rate_bps: rate,
            delay,
            queue,
            loss,
            busy_until: SimTime::ZERO,
            free_pending: false,
            free_seq: 0,
            free_t64: 0.0,
            stats: Default::default(),
            notify_reverse: None,
            medium: None,
            device: Default::default(),
            device_cap: 0,
            framing: 0,
            trace: None,
        });
        id
    }

    fn dumbbell(&mut self, spec: &ScenarioSpec) -> Result<()> {
        let Some(t) = &spec.topology else {
            return Ok(());
        };
        if t.kind != "dumbbell" {
            return Err(self.e(
                "topology.kind",
                format!(
                    "unknown topology \"{}\"; expected \"dumbbell\" (or use [[nodes]] and [[links]])",
                    t.kind
                ),
            ));
        }
        if t.pairs > MAX_PAIRS {
            return Err(self.e("topology.pairs", format!("at most {MAX_PAIRS} pairs, got {}", t.pairs)));
        }
        if t.pairs == 0 {
            return Err(self.e("topology.pairs", "a dumbbell needs at least 1 pair"));
        }
        if !spec.nodes.is_empty() || !spec.links.is_empty() {
            return Err(self.e("topology", "give either [topology] or [[nodes]]/[[links]], not both"));
        }
        if let Some(d) = &t.access.delays {
            if d.len() != t.pairs as usize {
                return Err(self.e(
                    "topology.access.delays",
                    format!("expected {} delays (one per pair), got {}", t.pairs, d.len()),
                ));
            }
        }
        let n = t.pairs as usize;
        let s: Vec<NodeId> = (0..n)
            .map(|i| self.add_node(&format!("s{i}"), "topology"))
            .collect::<Result<_>>()?;
        let r1 = self.add_node("r1", "topology")?;
        let r2 = self.add_node("r2", "topology")?;
        let d: Vec<NodeId> = (0..n)
            .map(|i| self.add_node(&format!("d{i}"), "topology"))
            .collect::<Result<_>>()?;
        let b = &t.bottleneck;
        let [(fwd_rate, fwd_trace), (rev_rate, rev_trace)] = self.directions(
            "topology.bottleneck.rate",
            b.rate,
            [
                (b.trace.as_ref(), "topology.bottleneck.trace".into()),
                (b.reverse_trace.as_ref(), "topology.bottleneck.reverse_trace".into()),
            ],
        )?;
        let fwd_q = self.queue(
            b.queue.as_ref(),
            BOTTLENECK_QUEUE_LIMIT,
            fwd_rate,
            "topology.bottleneck.queue",
            "r1->r2",
        )?;
        // The reverse direction defaults to DropTail with the forward queue's limit.
        let rev_default = b.queue.as_ref().map(|q| QueueSpec {
            kind: None,
            compat: q.compat,
            limit: q.limit,
            limit_bytes: q.limit_bytes,
            params: Params::new(),
        });
        let rev_spec = b.reverse_queue.as_ref().or(rev_default.as_ref());
        let rev_q = self.queue(
            rev_spec,
            BOTTLENECK_QUEUE_LIMIT,
            rev_rate,
            "topology.bottleneck.reverse_queue",
            "r2->r1",
        )?;
        let loss = self.loss(b.loss.as_ref(), "topology.bottleneck.loss", "r1->r2")?;
        let fwd = self.add_link(r1, r2, fwd_rate, b.delay.0, fwd_q, loss);
        self.set_trace(fwd, fwd_trace);
        let rev = self.add_link(r2, r1, rev_rate, b.delay.0, rev_q, None);
        self.set_trace(rev, rev_trace);
        let a = &t.access;
        for i in 0..n {
            let delay = a.delays.as_ref().map(|v| v[i].0).unwrap_or(a.delay.0);
            for (x, y) in [(s[i], r1), (r1, s[i]), (r2, d[i]), (d[i], r2)] {
                let label = format!("{}->{}", self.nodes[x.0 as usize].name, self.nodes[y.0 as usize].name);
                let q = self.queue(
                    a.queue.as_ref(),
                    ACCESS_QUEUE_LIMIT,
                    a.rate.0,
                    "topology.access.queue",
                    &label,
                )?;
                self.add_link(x, y, a.rate.0, delay, q, None);
            }
        }
        Ok(())
    }

    fn graph(&mut self, spec: &ScenarioSpec) -> Result<()> {
        for (i, n) in spec.nodes.iter().enumerate() {
            if let Some(k) = &n.kind {
                if k != "host" && k != "router" {
                    return Err(self.e(
                        format!("nodes[{i}].kind"),
                        format!("expected \"host\" or \"router\", got \"{k}\""),
                    ));
                }
            }
            self.add_node(&n.name, &format!("nodes[{i}].name"))?;
        }
        for (i, l) in spec.links.iter().enumerate() {
            let p = format!("links[{i}]");
            let a = self.node(&l.a, &format!("{p}.a"))?;
            let b = self.node(&l.b, &format!("{p}.b"))?;
            if a == b {
                return Err(self.e(format!("{p}.b"), "a link must join two different nodes"));
            }
            let (na, nb) = (l.a.clone(), l.b.clone());
            let key = |k: &str, over: bool| format!("{p}.{}", if over { k } else { "trace" });
            let [(rate_ab, trace_ab), (rate_ba, trace_ba)] = self.directions(
                &format!("{p}.rate"),
                l.rate,
                [
                    (
                        l.trace_ab.as_ref().or(l.trace.as_ref()),
                        key("trace_ab", l.trace_ab.is_some()),
                    ),
                    (
                        l.trace_ba.as_ref().or(l.trace.as_ref()),
                        key("trace_ba", l.trace_ba.is_some()),
                    ),
                ],
            )?;
            let qab = self.queue(
                l.queue_ab.as_ref().or(l.queue.as_ref()),
                LINK_QUEUE_LIMIT,
                rate_ab,
                &format!("{p}.{}", if l.queue_ab.is_some() { "queue_ab" } else { "queue" }),
                &format!("{na}->{nb}"),
            )?;
            let qba = self.queue(
                l.queue_ba.as_ref().or(l.queue.as_ref()),
                LINK_QUEUE_LIMIT,
                rate_ba,
                &format!("{p}.{}", if l.queue_ba.is_some() { "queue_ba" } else { "queue" }),
                &format!("{nb}->{na}"),
            )?;
            let lab = self.loss(
                l.loss_ab.as_ref().or(l.loss.as_ref()),
                &format!("{p}.loss_ab"),
                &format!("{na}->{nb}"),
            )?;
            let lba = self.loss(
                l.loss_ba.as_ref().or(l.loss.as_ref()),
                &format!("{p}.loss_ba"),
                &format!("{nb}->{na}"),
            )?;
            let ab = self.add_link(a, b, rate_ab, l.delay.0, qab, lab);
            self.set_trace(ab, trace_ab);
            let ba = self.add_link(b, a, rate_ba, l.delay.0, qba, lba);
            self.set_trace(ba, trace_ba);
        }
        Ok(())
    }
}

impl<'a> Builder<'a> {
    fn wlans(&mut self, spec: &ScenarioSpec) -> Result<()> {
        if !spec.wlans.is_empty() && spec.topology.is_some() {
            return Err(self.e(
                "wlans",
                "[[wlans]] join nodes of the explicit form ([[nodes]] and [[links]]), not of [topology]",
            ));
        }
        for (wi, w) in spec.wlans.iter().enumerate() {
            self.wlan(wi, w)?;
        }
        Ok(())
    }

    fn wlan(&mut self, wi: usize, w: &WlanSpec) -> Result<()> {
        let p = format!("wlans[{wi}]");
        let name = w.name.clone().unwrap_or_else(|| format!("wlan{wi}"));
        if name.is_empty() || name.contains(':') {
            return Err(self.e(format!("{p}.name"), "a WLAN name must be non-empty and without ':'"));
        }
        if self.wlans.iter().any(|x| x.name == name) {
            return Err(self.e(format!("{p}.name"), format!("duplicate WLAN name \"{name}\"")));
        }
        let ap = self.node(&w.ap, &format!("{p}.ap"))?;
        if w.stations.is_empty() {
            return Err(self.e(format!("{p}.stations"), "a WLAN needs at least one station"));
        }
        let mut stations: Vec<NodeId> = Vec::new();
        for (k, s) in w.stations.iter().enumerate() {
            let sp = format!("{p}.stations[{k}]");
            let id = self.node(s, &sp)?;
            if id == ap {
                return Err(self.e(sp, format!("\"{s}\" is the WLAN's access point")));
            }
            if stations.contains(&id) {
                return Err(self.e(sp, format!("station \"{s}\" is listed twice")));
            }
            stations.push(id);
        }
        let standard = Standard::parse(&w.standard).ok_or_else(|| {
            self.e(
                format!("{p}.standard"),
                format!(
                    "unknown standard \"{}\"; expected \"802.11b\", \"802.11a\", \"802.11g\" or \"802.11n\"",
                    w.standard
                ),
            )
        })?;
        let phy = Phy::new(standard, w.data_rate.map(|r| r.0), w.basic_rate.map(|r| r.0))
            .map_err(|e| self.param_err(&p, e))?;
        let cw = |v: Option<i64>, default: u32, key: &str| -> Result<u32> {
            match v {
                None => Ok(default),
                Some(c) if (1..=65535).contains(&c) => Ok(c as u32),
                Some(c) => Err(self.e(
                    format!("{p}.{key}"),
                    format!("expected a contention window of 1 to 65535 slots, got {c}"),
                )),
            }
        };
        let cw_min = cw(w.cw_min, phy.cw_min, "cw_min")?;
        let cw_max = cw(w.cw_max, phy.cw_max.max(cw_min), "cw_max")?;
        if cw_max < cw_min {
            return Err(self.e(
                format!("{p}.cw_max"),
                format!("cw_max ({cw_max}) must not be below cw_min ({cw_min})"),
            ));
        }
        let (short_limit, long_limit) = self.retry_limits(w.retry_limit.as_ref(), &p)?;
        let errors = match &w.loss {
            None => None,
            Some(l) => {
                let lp = format!("{p}.loss");
                let ok = match l.model.as_str() {
                    "fer" => (0.0..=1.0).contains(&l.rate),
                    "ber" => (0.0..1.0).contains(&l.rate),
                    other => {
                        return Err(self.e(
                            format!("{lp}.model"),
                            format!("unknown frame error model \"{other}\"; expected \"fer\" or \"ber\""),
                        ))
                    }
                };
                if !ok {
                    return Err(self.e(
                        format!("{lp}.rate"),
                        format!("expected a probability in [0, 1) for \"{}\", got {}", l.model, l.rate),
                    ));
                }
                Some(if l.model == "fer" {
                    FrameErrors::Fer(l.rate)
                } else {
                    FrameErrors::Ber(l.rate)
                })
            }
        };
        let params = DcfParams {
            slot: phy.slot,
            difs: phy.difs(),
            cw_min,
            cw_max,
            short_limit,
            long_limit,
        };
        let id = self.wlans.len() as u32;
        let rate = phy.data_rate_bps;
        let rts_threshold = w.rts_threshold.map(|b| b.0).unwrap_or(u64::MAX);
        let err_rng = stream(self.seed, &format!("wlan-errors:{name}"));
        let mut wlan = Wlan::new(id, name.clone(), phy, params, rts_threshold, errors, err_rng);
        for (k, &node) in std::iter::once(&ap).chain(&stations).enumerate() {
            let node_name = self.nodes[node.0 as usize].name.clone();
            let iface = format!("{name}:{node_name}");
            let (qspec, qpath) = match (&w.ap_queue, k) {
                (Some(q), 0) => (Some(q), format!("{p}.ap_queue")),
                _ => (w.queue.as_ref(), format!("{p}.queue")),
            };
            let disc = self.queue_disc(qspec, WLAN_QUEUE_LIMIT, rate, &qpath)?;
            if disc.wants_reverse() {
                return Err(self.e(
                    format!("{qpath}.kind"),
                    format!(
                        "queue discipline \"{}\" acts on packets of the reverse direction of a duplex link, \
                         which a WLAN interface does not have",
                        disc.kind()
                    ),
                ));
            }
            if disc.shapes() {
                return Err(self.e(
                    format!("{qpath}.kind"),
                    format!(
                        "queue discipline \"{}\" is shaping (it holds packets back until its schedule allows), \
                         which a WLAN interface's MAC does not wait for; leave its rate out here",
                        disc.kind()
                    ),
                ));
            }
            let queue = Queue::general(disc, stream(self.seed, &format!("queue:{iface}")));
            let rng = stream(self.seed, &format!("dcf:{iface}"));
            wlan.add_iface(node, &node_name, k == 0, queue, rng);
        }
        // For routing, the WLAN is a star of links AP <-> station.
        for (k, &sta) in stations.iter().enumerate() {
            let si = k as u32 + 1;
            for (a, b, tx, rx) in [(ap, sta, 0, si), (sta, ap, si, 0)] {
                let unused = Queue::general(
                    Box::new(DropTail::new(
                        Limit {
                            packets: Some(1),
                            bytes: None,
                        },
                        false,
                    )),
                    stream(self.seed, "unused"),
                );
                let l = self.add_link(a, b, rate, SimTime::ZERO, unused, None);
                self.links[l.0 as usize].medium = Some(Medium { wlan: id, tx, rx });
                let f = &mut wlan.ifaces[tx as usize];
                if f.timer_link.0 == u32::MAX {
                    f.timer_link = l;
                }
            }
        }
        self.wlans.push(wlan);
        Ok(())
    }

    fn retry_limits(&self, v: Option<&Value>, p: &str) -> Result<(u32, u32)> {
        let key = format!("{p}.retry_limit");
        let lim = |x: &Value, k: &str| -> Result<u32> {
            x.as_u64()
                .filter(|n| (1..=255).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| self.e(k, format!("expected a number of attempts from 1 to 255, got {x}")))
        };
        match v {
            None => Ok((SHORT_RETRY_LIMIT, LONG_RETRY_LIMIT)),
            Some(n @ Value::Number(_)) => lim(n, &key).map(|n| (n, n)),
            Some(Value::Object(m)) => {
                if let Some(k) = m.keys().find(|k| *k != "short" && *k != "long") {
                    return Err(self.e(
                        format!("{key}.{k}"),
                        "unknown key; retry_limit takes \"short\" and \"long\"",
                    ));
                }
                let short = match m.get("short") {
                    Some(x) => lim(x, &format!("{key}.short"))?,
                    None => SHORT_RETRY_LIMIT,
                };
                let long = match m.get("long") {
                    Some(x) => lim(x, &format!("{key}.long"))?,
                    None => LONG_RETRY_LIMIT,
                };
                Ok((short, long))
            }
            Some(other) => Err(self.e(
                key,
                format!("expected a number of attempts or {{ short = 7, long = 4 }}, got {other}"),
            )),
        }
    }
}

fn time_value(v: &Value, file: &str, path: &str) -> Result<SimTime> {
    match v {
        Value::String(s) => parse_time(s).map_err(|m| err(file, path, m)),
        other => Err(err(file, path, format!("expected a time like \"20ms\", got {other}"))),
    }
}

fn start_time(v: Option<&Value>, file: &str, path: &str, rng: &mut crate::rng::SimRng) -> Result<SimTime> {
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
struct AppKeys<'a> {
    file: &'a str,
    path: &'a str,
    keys: Params,
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
    fn finish(self, app: &str, transport: &str) -> Result<Params> {
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

fn build_app(app: &str, keys: &mut AppKeys, start: SimTime, transport: &str) -> Result<Box<dyn Application>> {
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
fn web_plan(
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

fn add_flows(
    b: &Builder,
    spec: &ScenarioSpec,
    duration: SimTime,
    pairs: Option<u32>,
) -> Result<(Vec<Flow>, Vec<usize>)> {
    let file = b.file;
    let mut flows = Vec::new();
    let mut group_of = Vec::new();
    let mut global = 0usize;
    for (gi, g) in spec.flows.iter().enumerate() {
        let path = format!("flows[{gi}]");
        let count = match g.count {
            None => 1,
            Some(c) if c > MAX_FLOWS as i64 || global + c as usize > MAX_FLOWS => {
                return Err(err(
                    file,
                    format!("{path}.count"),
                    format!("at most {MAX_FLOWS} flows in a scenario, got {c} more"),
                ))
            }
            Some(c) if c >= 1 => c as usize,
            Some(c) => {
                return Err(err(
                    file,
                    format!("{path}.count"),
                    format!("expected at least 1 flow, got {c}"),
                ))
            }
        };
        let group = g.group.clone().unwrap_or_else(|| format!("g{gi}"));
        let transport = g.transport.clone().unwrap_or_else(|| "udp".into());
        let Some(app) = g.app.clone() else {
            return Err(err(
                file,
                format!("{path}.app"),
                "missing key \"app\" (bulk, finite, web, cbr, poisson or onoff)",
            ));
        };
        let class = match g.class {
            None => 0,
            Some(c) if (0..=255).contains(&c) => c as u8,
            Some(c) => {
                return Err(err(
                    file,
                    format!("{path}.class"),
                    format!("expected a class in 0..255, got {c}"),
                ))
            }
        };
        if let Some(pr) = &g.profile {
            if g.class.is_some() {
                return Err(err(
                    file,
                    format!("{path}.profile"),
                    "give either \"class\" or \"profile\" (the profile meter sets the class)",
                ));
            }
            if pr.burst.0 == 0 {
                return Err(err(
                    file,
                    format!("{path}.profile.burst"),
                    "the bucket must hold at least 1 byte",
                ));
            }
        }
        let stop = match &g.stop {
            None => duration,
            Some(t) => t.0,
        };
        let web = if app == "web" {
            Some(web_plan(b, g, &path, &group, &transport, duration, pairs, global)?)
        } else {
            None
        };
        let n_flows = web.as_ref().map_or(count, |w| w.flows.len());
        for k in 0..n_flows {
            let i = match &web {
                Some(w) => w.base + k % w.pool,
                None => global + k,
            };
            let (src, dst) = flow_ends(b, g, pairs, i, &path)?;
            if src == dst {
                return Err(err(
                    file,
                    format!("{path}.dst"),
                    "a flow's source and destination must differ",
                ));
            }
            let name = format!("{group}.{k}");
            let mut rng = stream(b.seed, &format!("flow:{name}"));
            let start = match &web {
                Some(w) => w.flows[k].0,
                None => start_time(g.start.as_ref(), file, &format!("{path}.start"), &mut rng)?,
            };
            // A web group's stop ends its arrivals; each short flow runs to completion.
            let stop = if web.is_some() { duration } else { stop };
            if start >= duration {
                return Err(err(
                    file,
                    format!("{path}.start"),
                    format!("the flow starts at {start}, not before the end of the run ({duration})"),
                ));
            }
            if stop <= start {
                return Err(err(file, format!("{path}.stop"), "a flow must stop after it starts"));
            }
            let mut keys = AppKeys {
                file,
                path: &path,
                keys: g.params.clone(),
            };
            let (application, rest): (Box<dyn Application>, Params) = match &web {
                Some(w) => (
                    Box::new(Finite {
                        bytes: w.flows[k].1 * w.mss,
                        label: "web",
                    }),
                    w.rest.clone(),
                ),
                None => {
                    let a = build_app(&app, &mut keys, start, &transport)?;
                    (a, keys.finish(&app, &transport)?)
                }
            };
            let args = TransportArgs {
                params: &rest,
                app: &app,
                compat: g.compat.unwrap_or(b.compat),
            };
            let external_cc = rest
                .get("cc")
                .and_then(Value::as_str)
                .is_some_and(crate::plugin::is_external);
            let built = if external_cc {
                crate::plugin::with_key(&format!("{path}.cc"), || transports::build(&transport, &args))
            } else {
                transports::build(&transport, &args)
            };
            let (sender, receiver) = built.map_err(|e| {
                let p = if e.path == "transport" || e.path == "app" {
                    format!("{path}.{}", e.path)
                } else if e.path.is_empty() {
                    path.clone()
                } else {
                    format!("{path}.{}", e.path)
                };
                let message = match e.message.split_once(", expected ") {
                    Some((head, keys)) if head.starts_with("unknown key") => format!(
                        "{head} for a flow group with transport \"{transport}\" and app \"{app}\"; \
                         the transport's own keys are {keys} (flow and application keys: docs/scenarios.md)"
                    ),
                    _ => e.message,
                };
                err(file, p, message)
            })?;
            let fairness = g.fairness.unwrap_or(application.greedy());
            flows.push(Flow {
                name,
                group: group.clone(),
                src,
                dst,
                sender,
                receiver,
                app: application,
                rng,
                stats: Default::default(),
                fairness,
                start,
                stop,
                class,
                meter: g.profile.as_ref().map(|p| TokenBucket::new(p.rate.0, p.burst.0)),
            });
            group_of.push(gi);
        }
        global += match &web {
            Some(w) => w.pool,
            None => count,
        };
    }
    Ok((flows, group_of))
}

fn flow_ends(b: &Builder, g: &FlowGroupSpec, pairs: Option<u32>, i: usize, path: &str) -> Result<(NodeId, NodeId)> {
    let reverse = g.reverse.unwrap_or(false);
    let (src, dst) = match (&g.src, &g.dst, pairs) {
        (Some(s), Some(d), _) => (b.node(s, &format!("{path}.src"))?, b.node(d, &format!("{path}.dst"))?),
        (None, None, Some(n)) => {
            let p = i % n as usize;
            (b.node(&format!("s{p}"), path)?, b.node(&format!("d{p}"), path)?)
        }
        (Some(s), None, Some(n)) => {
            let p = i % n as usize;
            (b.node(s, &format!("{path}.src"))?, b.node(&format!("d{p}"), path)?)
        }
        (None, Some(d), Some(n)) => {
            let p = i % n as usize;
            (b.node(&format!("s{p}"), path)?, b.node(d, &format!("{path}.dst"))?)
        }
        (None, _, None) => {
            return Err(err(
                b.file,
                format!("{path}.src"),
                "missing key \"src\" (required outside a dumbbell)",
            ))
        }
        (_, None, None) => {
            return Err(err(
                b.file,
                format!("{path}.dst"),
                "missing key \"dst\" (required outside a dumbbell)",
            ))
        }
    };
    Ok(if reverse { (dst, src) } else { (src, dst) })
}

/// Build a simulation from a parsed scenario. `file` labels error messages.
pub fn build(spec: &ScenarioSpec, file: &str) -> Result<Simulation> {
    let duration = spec.duration.0;
    if duration == SimTime::ZERO {
        return Err(err(file, "duration", "the duration must be positive"));
    }
    let warmup = spec.warmup.map(|w| w.0).unwrap_or(SimTime::ZERO);
    if warmup >= duration {
        return Err(err(
            file,
            "warmup",
            format!("the warmup ({warmup}) must be shorter than the duration ({duration})"),
        ));
    }
    if spec.topology.is_none() && spec.nodes.is_empty() {
        return Err(err(
            file,
            "topology",
            "no topology: give [topology] (kind = \"dumbbell\") or [[nodes]] and [[links]]",
        ));
    }
    let seed = spec.seed.unwrap_or(1);
    let mut b = Builder {
        file,
        seed,
        compat: spec.compat.unwrap_or_default(),
        names: HashMap::new(),
        nodes: Vec::new(),
        links: Vec::new(),
        wlans: Vec::new(),
    };
    b.dumbbell(spec)?;
    b.graph(spec)?;
    b.wlans(spec)?;
    if spec.flows.is_empty() {
        return Err(err(file, "flows", "no flows: add at least one [[flows]] group"));
    }
    let pairs = spec.topology.as_ref().map(|t| t.pairs);
    let (flows, group_of) = add_flows(&b, spec, duration, pairs)?;
    // Duplex pairs are created one after the other (a->b, then b->a).
    for i in (0..b.links.len()).step_by(2) {
        if b.links[i + 1].queue.wants_reverse() {
            b.links[i].notify_reverse = Some(LinkId(i as u32 + 1));
        }
        if b.links[i].queue.wants_reverse() {
            b.links[i + 1].notify_reverse = Some(LinkId(i as u32));
        }
    }
    let routes = Routes::new(b.nodes.len(), &b.links);
    for (i, f) in flows.iter().enumerate() {
        for (x, y) in [(f.src, f.dst), (f.dst, f.src)] {
            if routes.next(x.0 as usize, y.0 as usize) == NO_ROUTE {
                let gi = group_of[i];
                return Err(err(
                    file,
                    format!("flows[{gi}]"),
                    format!(
                        "no route from {} to {} (flow {})",
                        b.nodes[x.0 as usize].name, b.nodes[y.0 as usize].name, f.name
                    ),
                ));
            }
        }
    }
    let out = &spec.output;
    let trace = trace_plan(spec, file, &b, &flows, &routes)?;
    let interval = out.sample_interval.map(|t| t.0).unwrap_or(SAMPLE_INTERVAL);
    let samples = duration.0 / interval.0.max(1);
    let sampler = if interval == SimTime::ZERO {
        return Err(err(
            file,
            "output.sample_interval",
            "the sampling interval must be positive",
        ));
    } else if samples > MAX_SAMPLES {
        return Err(err(
            file,
            "output.sample_interval",
            format!(
                "{interval} would take {samples} samples of every series; at most {MAX_SAMPLES}: sample less often"
            ),
        ));
    } else {
        // Wireless hops have no queue of their own: their interfaces' queues are sampled instead.
        let wired = |i: &usize| b.links[*i].medium.is_none();
        let ifaces: Vec<(usize, usize)> = b
            .wlans
            .iter()
            .enumerate()
            .flat_map(|(w, x)| (0..x.ifaces.len()).map(move |f| (w, f)))
            .collect();
        let (links, ifaces) = match &out.sample_links {
            None => ((0..b.links.len()).filter(wired).collect(), ifaces),
            Some(names) => {
                let mut links = Vec::new();
                let mut picked = Vec::new();
                for (i, nm) in names.iter().enumerate() {
                    if let Some(l) = (0..b.links.len()).filter(wired).find(|&l| &b.links[l].name == nm) {
                        links.push(l);
                    } else if let Some(&f) = ifaces.iter().find(|&&(w, f)| &b.wlans[w].ifaces[f].name == nm) {
                        picked.push(f);
                    } else {
                        return Err(err(
                            file,
                            format!("output.sample_links[{i}]"),
                            format!("unknown link \"{nm}\" (links are named \"a->b\", WLAN interfaces \"wlan:node\")"),
                        ));
                    }
                }
                (links, picked)
            }
        };
        let (sample_flows, sample_groups) = (out.sample_flows.unwrap_or(true), out.sample_groups.unwrap_or(true));
        // At least this many series (congestion windows, RTTs and AQM probes come on top).
        let series = 2 * (links.len() + ifaces.len()) as u64
            + if sample_flows {
                (FLOW_METRICS.len() * flows.len()) as u64
            } else {
                0
            }
            + if sample_groups {
                (GROUP_METRICS.len() * spec.flows.len()) as u64
            } else {
                0
            };
        if series.saturating_mul(samples) > MAX_SAMPLE_VALUES {
            return Err(err(
                file,
                "output.sample_interval",
                format!(
                    "{samples} samples (every {interval}) of at least {series} series would keep more than \
                     {MAX_SAMPLE_VALUES} values; sample less often, or fewer series (sample_links, \
                     sample_flows = false, sample_groups = false)"
                ),
            ));
        }
        Sampler::new(interval, links, sample_flows, sample_groups, warmup)
            .with_ifaces(ifaces)
            .with_duration(duration)
    };
    let mut guards = Guards::default();
    if let Some(m) = spec.limits.max_events {
        guards.max_events = m;
    }
    if let Some(w) = spec.limits.max_wall {
        guards.max_wall_s = w.0.secs_f64();
    }
    let wlans = std::mem::take(&mut b.wlans);
    let mut sim = Simulation::new(
        spec.name.clone(),
        seed,
        b.nodes,
        b.links,
        flows,
        routes,
        warmup,
        duration,
        sampler,
        guards,
    );
    sim.trace_plan = trace;
    sim.wlans = wlans;
    let tie_order = spec.tie_order.unwrap_or(b.compat.tie_order());
    sim.set_tie_order(tie_order);
    sim.set_device_queue(
        spec.device_queue.unwrap_or(b.compat.device_queue()),
        spec.framing_bytes.unwrap_or(b.compat.framing_bytes()),
    );
    Ok(sim)
}

/// The size of the planned trace ([`crate::trace::estimate`]): each flow's
/// data path and acknowledgement path from the routes, its data packet size
/// from `packet_size` (else its segment plus a 40-byte header).
fn trace_estimate(
    spec: &ScenarioSpec,
    b: &Builder,
    flows: &[Flow],
    routes: &Routes,
    mss: &[u32],
    plan: &TracePlan,
) -> estimate::TraceEstimate {
    let n = b.nodes.len();
    let path = |from: usize, to: usize| {
        let mut hops = Vec::new();
        let mut at = from;
        while at != to && hops.len() <= n {
            let l = routes.next(at, to);
            if l == NO_ROUTE {
                break;
            }
            hops.push(l as usize);
            at = b.links[l as usize].to.0 as usize;
        }
        hops
    };
    let sizes: Vec<Option<u64>> = spec
        .flows
        .iter()
        .flat_map(|g| {
            let size = g.params.get("packet_size").and_then(|v| v.as_u64());
            std::iter::repeat_n(size, g.count.unwrap_or(1).max(1) as usize)
        })
        .collect();
    let demands: Vec<estimate::Demand> = flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (src, dst) = (f.src.0 as usize, f.dst.0 as usize);
            let feedback = f.sender.name() != "udp";
            estimate::Demand {
                path: path(src, dst),
                back: if feedback { path(dst, src) } else { Vec::new() },
                packet_bytes: sizes
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or(u64::from(mss.get(i).copied().unwrap_or(crate::DEFAULT_MSS)) + estimate::ACK_BYTES),
            }
        })
        .collect();
    let capacity: Vec<f64> = b.links.iter().map(|l| l.rate_bps as f64).collect();
    estimate::estimate(
        plan.format,
        &plan.links,
        &capacity,
        &demands,
        spec.duration.0.secs_f64(),
    )
}

/// `[output] trace` and `trace_links`: the trace to write, checked now
/// (files are only created when the run starts, in its output folder).
fn trace_plan(
    spec: &ScenarioSpec,
    file: &str,
    b: &Builder,
    flows: &[Flow],
    routes: &Routes,
) -> Result<Option<TracePlan>> {
    let out = &spec.output;
    let format = match out.trace.as_deref().unwrap_or("none") {
        "none" => {
            if out.trace_links.is_some() {
                return Err(err(
                    file,
                    "output.trace_links",
                    "trace_links selects the links of a trace: set trace = \"ns2\" or \"pcap\" too",
                ));
            }
            return Ok(None);
        }
        "ns2" => TraceFormat::Ns2,
        "pcap" => TraceFormat::Pcap,
        other => {
            return Err(err(
                file,
                "output.trace",
                format!("unknown trace format \"{other}\"; expected \"none\", \"ns2\" or \"pcap\""),
            ))
        }
    };
    // Hops over a wireless LAN go through its MAC, not a link queue: they are
    // not traced (by default they are left out; naming one is an error).
    let mut traced: Vec<bool> = b
        .links
        .iter()
        .map(|l| out.trace_links.is_none() && l.medium.is_none())
        .collect();
    for (i, nm) in out.trace_links.iter().flatten().enumerate() {
        let li = b.links.iter().position(|l| &l.name == nm).ok_or_else(|| {
            err(
                file,
                format!("output.trace_links[{i}]"),
                format!("unknown link \"{nm}\" (links are named \"a->b\")"),
            )
        })?;
        if b.links[li].medium.is_some() {
            return Err(err(
                file,
                format!("output.trace_links[{i}]"),
                format!("\"{nm}\" is a wireless LAN hop; traces cover wired links only"),
            ));
        }
        traced[li] = true;
    }
    // Segment payload of each flow, for pcap byte sequence numbers: asked
    // of each built sender (a `web` group makes more flows than its
    // `count`, so the flow groups' keys cannot be lined up with the flows).
    let mss: Vec<u32> = flows
        .iter()
        .map(|f| f.sender.segment_payload().unwrap_or(crate::DEFAULT_MSS))
        .collect();
    let mut plan = TracePlan::new(format, traced, &b.nodes, &b.links, flows, &mss);
    plan.estimate = trace_estimate(spec, b, flows, routes, &mss, &plan);
    if format == TraceFormat::Pcap {
        let names: Vec<&String> = plan.files.iter().flatten().collect();
        if names.len() > MAX_PCAP_FILES {
            return Err(err(
                file,
                "output.trace_links",
                format!(
                    "trace = \"pcap\" writes one file per link direction: {} here, at most {MAX_PCAP_FILES}; \
                     list the links to capture in trace_links",
                    names.len()
                ),
            ));
        }
        let mut seen = std::collections::BTreeMap::new();
        for (li, f) in plan.files.iter().enumerate() {
            if let Some(f) = f {
                if let Some(prev) = seen.insert(f.clone(), li) {
                    return Err(err(
                        file,
                        "output.trace_links",
                        format!(
                            "links \"{}\" and \"{}\" would both be captured to {f}; rename a node",
                            b.links[prev].name, b.links[li].name
                        ),
                    ));
                }
            }
        }
    }
    Ok(Some(plan))
}
