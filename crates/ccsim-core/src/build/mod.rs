//! From a parsed [`ScenarioSpec`] to a ready [`Simulation`]: name the nodes,
//! create both directions of every link with their queues, compute routes,
//! instantiate flows. Every check that needs more than one key lives here,
//! and every error names the key path.
//!
//! Topology and wiring live here; a flow group's application keys, start
//! time, application and `web` plan in `apps.rs`; the packet-trace plan in
//! `trace_plan.rs`; a WLAN's table and its members' interfaces in
//! [`crate::wlan::config`].

use crate::app::config::{AppConfig, AppCtx};
use crate::app::{Application, Finite};
use crate::compat::Profile;
use crate::error::{Error, Result};
use crate::link::{Egress, Link, Loss, LossModel};
use crate::link_trace::{LinkTrace, TraceMedium};
use crate::medium::{Medium, Port};
use crate::meter::TokenBucket;
use crate::packet::{LinkId, NodeId};
use crate::params::{ParamError, Params};
use crate::queue::droptail::Limit;
use crate::queue::{registry as queues, Queue, QueueDisc};
use crate::rng::stream;
use crate::routing::{Routes, NO_ROUTE};
use crate::sampler::{Sampler, FLOW_METRICS, GROUP_METRICS};
use crate::scenario::{FlowGroupSpec, LossSpec, QueueSpec, ScenarioSpec, WlanSpec};
use crate::sim::{Flow, Guards, Node, Simulation};
use crate::time::SimTime;
use crate::transport::registry::{self as transports, TransportArgs};
use crate::wlan::config::{self as wlan_config, WlanConfig};
use crate::wlan::Wlan;
use std::collections::HashMap;

mod apps;
mod trace_plan;

use apps::{app_config, split_keys, start_time, web_plan};
use trace_plan::trace_plan;

/// Default limit of access-link queues, packets.
pub const ACCESS_QUEUE_LIMIT: u64 = 1000;
/// Default limit of a bottleneck queue when none is given, packets.
pub const BOTTLENECK_QUEUE_LIMIT: u64 = 100;
/// Default limit of explicit-graph link queues, packets.
pub const LINK_QUEUE_LIMIT: u64 = 100;
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

struct Builder<'a> {
    file: &'a str,
    seed: u64,
    /// The scenario's compatibility profile.
    compat: Profile,
    names: HashMap<String, NodeId>,
    nodes: Vec<Node>,
    links: Vec<Link>,
    /// The media of the links that are not plain wires (trace-driven links, WLANs).
    media: Vec<Box<dyn Medium>>,
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
        let (disc, config) = crate::params::resolving(|| self.queue_disc(spec, default_limit, rate, path));
        let mut q = Queue::new(disc?, stream(self.seed, &format!("queue:{label}")));
        let bytes = spec.and_then(|s| s.limit_bytes).map(|b| b.0);
        q.config = Some(Box::new(crate::results::QueueComponent {
            link: label.to_string(),
            key: path.to_string(),
            kind: q.kind().to_string(),
            compat: spec.and_then(|s| s.compat).unwrap_or(self.compat).name(),
            limit_pkts: match spec.and_then(|s| s.limit) {
                Some(l) => Some(l as u64),
                None if bytes.is_some() => None,
                None => Some(default_limit),
            },
            limit_bytes: bytes,
            params: spec.map(|s| s.params.clone()).unwrap_or_default(),
            config,
            bottleneck: false,
        }));
        Ok(q)
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

    /// Make link `id` follow `trace`, if any: its queue is then served by a
    /// [`TraceMedium`], on the general path (the FIFO fast path fixes
    /// departures at the link's rate).
    fn set_trace(&mut self, id: LinkId, trace: Option<Box<LinkTrace>>) {
        let Some(trace) = trace else { return };
        let medium = self.media.len() as u32;
        let l = &mut self.links[id.0 as usize];
        self.media.push(Box::new(TraceMedium::new(id, &l.name, *trace)));
        let port = Port { medium, port: 0 };
        let egress = std::mem::replace(&mut l.egress, Egress::Medium { port, queue: None });
        if let (Egress::Wire(mut q), Egress::Medium { queue, .. }) = (egress, &mut l.egress) {
            q.disable_fast_path();
            *queue = Some(q);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_link(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: u64,
        delay: SimTime,
        egress: Egress,
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
            derived: crate::link::Derived::of(rate, delay),
            egress,
            loss,
            busy_until: SimTime::ZERO,
            free_pending: false,
            free_seq: 0,
            free_t64: 0.0,
            stats: Default::default(),
            notify_reverse: None,
            device: Default::default(),
            device_cap: 0,
            framing: 0,
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
        let mut fwd_q = self.queue(
            b.queue.as_ref(),
            BOTTLENECK_QUEUE_LIMIT,
            fwd_rate,
            "topology.bottleneck.queue",
            "r1->r2",
        )?;
        if let Some(c) = fwd_q.config.as_mut() {
            c.bottleneck = true;
        }
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
        let fwd = self.add_link(r1, r2, fwd_rate, b.delay.0, Egress::Wire(fwd_q), loss);
        self.set_trace(fwd, fwd_trace);
        let rev = self.add_link(r2, r1, rev_rate, b.delay.0, Egress::Wire(rev_q), None);
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
                self.add_link(x, y, a.rate.0, delay, Egress::Wire(q), None);
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
        let marked: Vec<usize> = (0..spec.links.len()).filter(|&i| spec.links[i].bottleneck).collect();
        if let [first, second, ..] = marked[..] {
            return Err(self.e(
                format!("links[{second}].bottleneck"),
                format!("only one link can be the bottleneck; links[{first}] is already marked"),
            ));
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
            let mut qab = self.queue(
                l.queue_ab.as_ref().or(l.queue.as_ref()),
                LINK_QUEUE_LIMIT,
                rate_ab,
                &format!("{p}.{}", if l.queue_ab.is_some() { "queue_ab" } else { "queue" }),
                &format!("{na}->{nb}"),
            )?;
            if let Some(c) = qab.config.as_mut() {
                c.bottleneck = l.bottleneck;
            }
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
            let ab = self.add_link(a, b, rate_ab, l.delay.0, Egress::Wire(qab), lab);
            self.set_trace(ab, trace_ab);
            let ba = self.add_link(b, a, rate_ba, l.delay.0, Egress::Wire(qba), lba);
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

    /// The `wi`-th WLAN: the WLAN builds itself from its table
    /// ([`WlanConfig`], [`Wlan::add_member`]); here its members' nodes are
    /// resolved, their interface queues built from the tables it names, and
    /// a link made for each of its hops.
    fn wlan(&mut self, wi: usize, w: &WlanSpec) -> Result<()> {
        let p = format!("wlans[{wi}]");
        let cfg = WlanConfig::parse(w, wi).map_err(|e| self.param_err(&p, e))?;
        if self.media.iter().any(|x| x.name() == cfg.name) {
            return Err(self.e(format!("{p}.name"), format!("duplicate WLAN name \"{}\"", cfg.name)));
        }
        let mut members = vec![self.node(&w.ap, &format!("{p}.ap"))?];
        for (k, s) in w.stations.iter().enumerate() {
            members.push(self.node(s, &format!("{p}.stations[{k}]"))?);
        }
        let id = self.media.len() as u32;
        let rate = cfg.phy.data_rate_bps;
        let mut wlan = Wlan::from_config(id, cfg, self.seed);
        for (k, &node) in members.iter().enumerate() {
            let (qspec, key) = WlanConfig::iface_queue(w, k);
            let qpath = format!("{p}.{key}");
            let disc = self.queue_disc(qspec, wlan_config::QUEUE_LIMIT, rate, &qpath)?;
            let name = &self.nodes[node.0 as usize].name;
            wlan.add_member(node, name, disc, self.seed)
                .map_err(|e| self.param_err(&qpath, e))?;
        }
        for (a, b, tx, rx) in wlan.hops() {
            let port = wlan.add_port(LinkId(self.links.len() as u32), tx, rx);
            let egress = Egress::Medium {
                port: Port { medium: id, port },
                queue: None,
            };
            self.add_link(a, b, rate, SimTime::ZERO, egress, None);
        }
        self.media.push(Box::new(wlan));
        Ok(())
    }
}

/// The flow groups as configured (the results' `components`): `group_of`
/// gives each flow's group index, `configs` each group's resolved
/// configuration.
fn flow_group_components(
    spec: &ScenarioSpec,
    flows: &[Flow],
    group_of: &[usize],
    mut configs: Vec<Params>,
    compat: crate::compat::Profile,
    duration: SimTime,
) -> Vec<crate::results::FlowGroupComponent> {
    spec.flows
        .iter()
        .enumerate()
        .map(|(gi, g)| {
            let transport = g.transport.clone().unwrap_or_else(|| "udp".into());
            let mut params = g.params.clone();
            let given_cc = params.remove("cc");
            let cc = (transport == "tcp").then(|| match given_cc.as_ref().and_then(|v| v.as_str()) {
                Some(c) => c.to_string(),
                None => crate::tcp::TcpConfig::default().cc,
            });
            let first = group_of.iter().position(|&x| x == gi);
            crate::results::FlowGroupComponent {
                group: first.map_or_else(
                    || g.group.clone().unwrap_or_else(|| format!("g{gi}")),
                    |i| flows[i].group.clone(),
                ),
                key: format!("flows[{gi}]"),
                flows: group_of.iter().filter(|&&x| x == gi).count(),
                count: g.count.map_or(1, |c| c.max(0) as u64),
                start: start_seconds(g.start.as_ref()),
                stop: g.stop.map_or(duration, |t| t.0).min(duration).secs_f64(),
                transport,
                app: g.app.clone().unwrap_or_default(),
                cc,
                compat: g.compat.unwrap_or(compat).name(),
                params,
                config: configs.get_mut(gi).map(std::mem::take).unwrap_or_default(),
            }
        })
        .collect()
}

/// A flow group's `start` in seconds (checked by the builder already): a
/// time, or `{"uniform": [low, high]}`.
fn start_seconds(v: Option<&serde_json::Value>) -> serde_json::Value {
    use serde_json::{json, Value};
    let secs = |t: &Value| {
        t.as_str()
            .and_then(|s| crate::units::parse_time(s).ok())
            .map(SimTime::secs_f64)
    };
    match v {
        None => json!(0.0),
        Some(Value::Object(m)) => match m.get("uniform").and_then(Value::as_array).map(|a| a.as_slice()) {
            Some([lo, hi]) => json!({ "uniform": [secs(lo), secs(hi)] }),
            _ => Value::Null,
        },
        Some(t) => json!(secs(t)),
    }
}

fn add_flows(
    b: &Builder,
    spec: &ScenarioSpec,
    duration: SimTime,
    pairs: Option<u32>,
) -> Result<(Vec<Flow>, Vec<usize>, Vec<Params>)> {
    let file = b.file;
    let mut flows = Vec::new();
    let mut group_of = Vec::new();
    // Each group's resolved configuration: its application's, then its
    // first flow's transport's (the results' `components`).
    let mut configs = Vec::new();
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
        let (app_keys, rest) = split_keys(&g.params, &transport);
        let (app_cfg, mut config) = crate::params::resolving(|| app_config(b, &app, &app_keys, &path));
        let app_cfg = app_cfg?;
        let web = match &app_cfg {
            AppConfig::Web(cfg) => Some(web_plan(b, g, cfg, &path, &group, &transport, duration, pairs, global)?),
            _ => None,
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
            let args = TransportArgs {
                params: &rest,
                app: &app,
                compat: g.compat.unwrap_or(b.compat),
            };
            let external_cc = rest
                .get("cc")
                .and_then(serde_json::Value::as_str)
                .is_some_and(crate::plugin::is_external);
            let build = || {
                if external_cc {
                    crate::plugin::with_key(&format!("{path}.cc"), || transports::build(&transport, &args))
                } else {
                    transports::build(&transport, &args)
                }
            };
            let built = if k == 0 {
                let (built, transport_config) = crate::params::resolving(build);
                config.extend(transport_config);
                built
            } else {
                build()
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
            // The application, from its config and what the built sender says.
            let mss = sender.segment_payload().unwrap_or(crate::DEFAULT_MSS);
            let application: Box<dyn Application> = match &web {
                Some(w) => Box::new(Finite {
                    bytes: w.flows[k].1 * mss as u64,
                    label: "web",
                }),
                None => app_cfg.build(&AppCtx { mss }),
            };
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
        configs.push(config);
        global += match &web {
            Some(w) => w.pool,
            None => count,
        };
    }
    Ok((flows, group_of, configs))
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
        media: Vec::new(),
    };
    b.dumbbell(spec)?;
    b.graph(spec)?;
    b.wlans(spec)?;
    if spec.flows.is_empty() {
        return Err(err(file, "flows", "no flows: add at least one [[flows]] group"));
    }
    let pairs = spec.topology.as_ref().map(|t| t.pairs);
    let (flows, group_of, configs) = add_flows(&b, spec, duration, pairs)?;
    // Duplex pairs are created one after the other (a->b, then b->a).
    for i in (0..b.links.len()).step_by(2) {
        let wants_reverse = |l: &Link| l.queue().is_some_and(|q| q.wants_reverse());
        if wants_reverse(&b.links[i + 1]) {
            b.links[i].notify_reverse = Some(LinkId(i as u32 + 1));
        }
        if wants_reverse(&b.links[i]) {
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
        // Wireless hops have no queue of their own: their interfaces' queues
        // (the queues their media keep) are sampled instead.
        let wired = |i: &usize| b.links[*i].queue().is_some();
        let ifaces: Vec<(usize, usize)> = b
            .media
            .iter()
            .enumerate()
            .flat_map(|(m, x)| (0..).map_while(move |q| x.queue(q).map(|_| (m, q))))
            .collect();
        let (links, ifaces) = match &out.sample_links {
            None => ((0..b.links.len()).filter(wired).collect(), ifaces),
            Some(names) => {
                let mut links = Vec::new();
                let mut picked = Vec::new();
                for (i, nm) in names.iter().enumerate() {
                    if let Some(l) = (0..b.links.len()).filter(wired).find(|&l| &b.links[l].name == nm) {
                        links.push(l);
                    } else if let Some(&f) = ifaces
                        .iter()
                        .find(|&&(m, q)| b.media[m].queue(q).is_some_and(|(name, _)| name == nm))
                    {
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
        Sampler::new(interval, links, sample_flows, sample_groups)
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
    let media = std::mem::take(&mut b.media);
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
    sim.media = media;
    sim.flow_groups = flow_group_components(spec, &sim.flows, &group_of, configs, b.compat, duration);
    let tie_order = spec.tie_order.unwrap_or(b.compat.tie_order());
    sim.set_tie_order(tie_order);
    sim.set_device_queue(
        spec.device_queue.unwrap_or(b.compat.device_queue()),
        spec.framing_bytes.unwrap_or(b.compat.framing_bytes()),
    );
    Ok(sim)
}
