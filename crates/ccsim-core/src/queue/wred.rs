//! Weighted RED: one average queue, a separate RED curve per precedence.
//!
//! Source: Cisco IOS "Configuring Weighted Random Early Detection" (WRED
//! drops by IP precedence with per-precedence minimum threshold, maximum
//! threshold and mark-probability denominator; the average queue is one for
//! the whole interface, "calculated for all packets in the queue, regardless
//! of the precedence"); the RED test itself is Floyd and Jacobson's (see
//! [`super::red_core`]). ns-2 has no WRED queue (its dsRED module is a
//! DiffServ framework), so the defaults are Cisco's: max threshold 40
//! packets, mark probability 1/10, minimum threshold for precedence p
//! floor(40 (9 + p) / 18) = 20, 22, 24, 26, 28, 31, 33, 35, exponential
//! weighting constant 9 (w_q = 2^-9).
//!
//! The precedence of a packet is [`crate::packet::Packet::class`]; a class
//! above the last configured level uses the last level. Each level keeps its
//! own RED count (its own gap uniformisation).

use super::droptail::Limit;
use super::red_buffer::RedBuffer;
use super::red_core::{check, Curve, Ewma, RedRules, RedTest, Shape};
use super::registry::QueueArgs;
use super::{QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use serde::Deserialize;

/// A scalar broadcast to every level, or one value per level.
#[derive(Deserialize, serde::Serialize, Clone, Debug)]
#[serde(untagged)]
enum PerLevel {
    One(f64),
    Many(Vec<f64>),
}

impl PerLevel {
    fn len(&self) -> Option<usize> {
        match self {
            PerLevel::One(_) => None,
            PerLevel::Many(v) => Some(v.len()),
        }
    }
    fn get(&self, i: usize) -> f64 {
        match self {
            PerLevel::One(x) => *x,
            PerLevel::Many(v) => v[i],
        }
    }
}

#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct WredConfig {
    min_th: Option<PerLevel>,
    max_th: Option<PerLevel>,
    max_p: Option<PerLevel>,
    weight: Option<f64>,
    wait: Option<bool>,
    gentle: Option<bool>,
    bytes: Option<bool>,
    mean_pkt_size: Option<u32>,
    ecn: Option<bool>,
    small_queue_rule: Option<bool>,
    spare_first: Option<bool>,
}

/// One precedence level's thresholds, packets.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Level {
    /// Lower threshold.
    pub min_th: f64,
    /// Upper threshold.
    pub max_th: f64,
    /// Probability at max_th.
    pub max_p: f64,
}

/// Cisco's default minimum threshold for precedence `p` given the maximum.
pub fn cisco_min_th(max_th: f64, p: usize) -> f64 {
    (max_th * (9 + p) as f64 / 18.0).floor()
}

/// A WRED queue.
pub struct Wred {
    buf: RedBuffer,
    ewma: Ewma,
    curves: Vec<Curve>,
    tests: Vec<RedTest>,
}

const PROBES: [&str; 9] = [
    "avg",
    "drop_prob_0",
    "drop_prob_1",
    "drop_prob_2",
    "drop_prob_3",
    "drop_prob_4",
    "drop_prob_5",
    "drop_prob_6",
    "drop_prob_7",
];

impl Wred {
    /// A WRED queue with the given levels (thresholds in packets).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        limit: Limit,
        levels: &[Level],
        weight: f64,
        gentle: bool,
        wait: bool,
        bytes: bool,
        mean_pkt_size: u32,
        ecn: bool,
    ) -> Self {
        let unit = if bytes { mean_pkt_size as f64 } else { 1.0 };
        let shape = if gentle { Shape::Gentle } else { Shape::Linear };
        Wred {
            buf: RedBuffer::new(limit, wait, bytes, mean_pkt_size, ecn, RedRules::PAPER),
            ewma: Ewma::new(weight, mean_pkt_size),
            curves: levels
                .iter()
                .map(|l| Curve {
                    min_th: l.min_th * unit,
                    max_th: l.max_th * unit,
                    max_p: l.max_p,
                    shape,
                })
                .collect(),
            tests: vec![RedTest::default(); levels.len()],
        }
    }

    /// With the peers' small-queue and first-arrival rules set to `rules`.
    pub fn with_rules(mut self, rules: RedRules) -> Self {
        self.buf.opts.rules = rules;
        self
    }

    /// The shared average.
    pub fn avg(&self) -> f64 {
        self.ewma.avg
    }

    /// The curve used for packets of class `class`.
    pub fn curve_for(&self, class: u8) -> &Curve {
        &self.curves[(class as usize).min(self.curves.len() - 1)]
    }
}

impl QueueDisc for Wred {
    fn kind(&self) -> &'static str {
        "wred"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (size, class) = {
            let p = ctx.arena.get(pkt);
            (p.size, p.class)
        };
        let avg = self.ewma.on_arrival(ctx.now, self.buf.qlen(), ctx.link_rate_bps);
        let level = (class as usize).min(self.curves.len() - 1);
        let test = &mut self.tests[level];
        let outcome = self.buf.decide(test, &self.curves[level], avg, size, ctx);
        self.buf.admit(outcome, test, &mut self.ewma, pkt, size, ctx)
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.buf.dequeue(&mut self.ewma, ctx)
    }

    fn len_pkts(&self) -> usize {
        self.buf.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.buf.fifo.bytes()
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &PROBES[..1 + self.curves.len().min(8)]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.ewma.avg);
        for c in self.curves.iter().take(8) {
            out.push(c.pb(self.ewma.avg));
        }
    }
}

/// Parse and build a WRED queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let c: WredConfig = parse(args.params)?;
    let lens: Vec<(&str, usize)> = [("min_th", &c.min_th), ("max_th", &c.max_th), ("max_p", &c.max_p)]
        .iter()
        .filter_map(|(k, v)| v.as_ref().and_then(|v| v.len()).map(|n| (*k, n)))
        .collect();
    let n = lens.iter().map(|&(_, n)| n).max().unwrap_or(8);
    if n == 0 || n > 256 {
        return Err(ParamError::at(
            lens.first().map(|l| l.0).unwrap_or("min_th"),
            "expected between 1 and 256 precedence levels",
        ));
    }
    for &(k, len) in &lens {
        if len != n {
            return Err(ParamError::at(
                k,
                format!("expected {n} values (one per precedence level, as in the other arrays), got {len}"),
            ));
        }
    }
    let max_th = c.max_th.unwrap_or(PerLevel::One(40.0));
    let max_p = c.max_p.unwrap_or(PerLevel::One(0.1));
    let mut levels = Vec::with_capacity(n);
    for i in 0..n {
        let hi = max_th.get(i);
        let lo = match &c.min_th {
            Some(v) => v.get(i),
            None => cisco_min_th(hi, i),
        };
        let key = |k: &str| if n > 1 { format!("{k}[{i}]") } else { k.to_string() };
        check::thresholds(&key("min_th"), &key("max_th"), lo, hi)?;
        let mp = check::prob(&key("max_p"), max_p.get(i))?;
        levels.push(Level {
            min_th: lo,
            max_th: hi,
            max_p: mp,
        });
    }
    let weight = check::prob("weight", c.weight.unwrap_or(1.0 / 512.0))?;
    let mean = check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(500))?;
    let rules = RedRules::resolve(args.compat, c.small_queue_rule, c.spare_first);
    let per_level = |f: fn(&Level) -> f64| Some(PerLevel::Many(levels.iter().map(f).collect()));
    let resolved = WredConfig {
        min_th: per_level(|l| l.min_th),
        max_th: per_level(|l| l.max_th),
        max_p: per_level(|l| l.max_p),
        weight: Some(weight),
        wait: Some(c.wait.unwrap_or(true)),
        gentle: Some(c.gentle.unwrap_or(false)),
        bytes: Some(c.bytes.unwrap_or(false)),
        mean_pkt_size: Some(mean),
        ecn: Some(c.ecn.unwrap_or(false)),
        small_queue_rule: Some(rules.small_queue),
        spare_first: Some(rules.spare_first),
    };
    crate::params::resolved(&resolved);
    Ok(Box::new(
        Wred::new(
            args.limit,
            &levels,
            weight,
            resolved.gentle.unwrap_or(false),
            resolved.wait.unwrap_or(true),
            resolved.bytes.unwrap_or(false),
            mean,
            resolved.ecn.unwrap_or(false),
        )
        .with_rules(rules),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::params::Params;
    use crate::queue::DropReason;
    use crate::rng::stream;
    use crate::time::SimTime;

    fn build_from(json: &str) -> Result<Box<dyn QueueDisc>, ParamError> {
        let params: Params = serde_json::from_str(json).unwrap();
        build(&QueueArgs {
            limit: Limit {
                packets: Some(100),
                bytes: None,
            },
            params: &params,
            link_rate_bps: 10_000_000,
            compat: crate::compat::Profile::Ccsim,
        })
    }

    #[test]
    fn cisco_defaults() {
        let mins: Vec<f64> = (0..8).map(|p| cisco_min_th(40.0, p)).collect();
        assert_eq!(mins, vec![20.0, 22.0, 24.0, 26.0, 28.0, 31.0, 33.0, 35.0]);
        let q = build_from("{}").unwrap();
        assert_eq!(q.probe_names().len(), 9);
    }

    #[test]
    fn per_class_thresholds_on_one_average() {
        let levels = [
            Level {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.1,
            },
            Level {
                min_th: 10.0,
                max_th: 30.0,
                max_p: 0.05,
            },
        ];
        let mut q = Wred::new(
            Limit {
                packets: Some(100),
                bytes: None,
            },
            &levels,
            0.002,
            false,
            false,
            false,
            500,
            false,
        );
        assert_eq!(q.curve_for(0).max_th, 15.0);
        assert_eq!(q.curve_for(1).min_th, 10.0);
        assert_eq!(q.curve_for(7).min_th, 10.0); // above the last level
                                                 // avg 12: class 0 pb = 0.07, class 1 pb = 0.05 * 2 / 20 = 0.005
        q.ewma.avg = 12.0;
        assert!((q.curve_for(0).pb(12.0) - 0.07).abs() < 1e-12);
        assert!((q.curve_for(1).pb(12.0) - 0.005).abs() < 1e-12);
        // avg 20: class 0 is forced, class 1 still early-region
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "wred");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        q.ewma.avg = 20.0;
        q.ewma.on_accept();
        let p0 = ctx.arena.alloc(Packet {
            size: 500,
            class: 0,
            ..Packet::default()
        });
        assert_eq!(q.enqueue(p0, &mut ctx), Verdict::Dropped(DropReason::Forced));
        let mut forced = 0;
        for _ in 0..20 {
            let p1 = ctx.arena.alloc(Packet {
                size: 500,
                class: 1,
                ..Packet::default()
            });
            if q.enqueue(p1, &mut ctx) == Verdict::Dropped(DropReason::Forced) {
                forced += 1;
            }
        }
        assert_eq!(forced, 0);
    }

    #[test]
    fn array_lengths_must_agree() {
        let e = build_from(r#"{"min_th": [5, 10], "max_th": [15, 20, 30]}"#)
            .err()
            .unwrap();
        assert_eq!(e.path, "min_th");
        let e = build_from(r#"{"min_th": [5, 40], "max_th": 30}"#).err().unwrap();
        assert_eq!(e.path, "max_th[1]");
        let q = build_from(r#"{"min_th": [5, 10], "max_th": [15, 20]}"#).unwrap();
        assert_eq!(q.probe_names(), &["avg", "drop_prob_0", "drop_prob_1"]);
    }
}
