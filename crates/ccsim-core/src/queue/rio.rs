//! RIO, RED with In and Out: two drop precedences in one FIFO.
//!
//! Source: D. D. Clark and W. Fang, "Explicit Allocation of Best-Effort
//! Packet Delivery Service", IEEE/ACM ToN 6(4), 1998, Section III-B and
//! Figure 4: packets marked IN (inside their service profile) are judged by
//! a RED test on the average of the IN packets queued (avg_in, updated when
//! an IN packet arrives), packets marked OUT by a second RED test with
//! lower thresholds on the average of all packets queued (avg_total,
//! updated on every arrival). OUT packets are therefore dropped first and
//! IN packets only when the IN traffic itself congests the link.
//!
//! IN is `class >= 1`, OUT is `class == 0` (see the `profile` meter of flow
//! groups, which stamps data packets 1 when they conform and 0 otherwise).
//! Defaults are ns-2's `Queue/RED/RIO`: IN 15 / 30 packets with max_p 1/50,
//! OUT 5 / 15 with max_p 1/5 (`out_linterm_`), w_q 0.002, wait, not gentle.
//! ns-2's `rio.cc` updates the total average only on IN arrivals and judges
//! OUT packets with the common `linterm_`; ccsim follows the paper (every
//! arrival updates avg_total) and uses `out_max_p`, and says so in
//! docs/algorithms.md.

use super::droptail::Limit;
use super::red_buffer::RedBuffer;
use super::red_core::{check, Curve, Ewma, Outcome, RedRules, RedTest, Shape};
use super::registry::QueueArgs;
use super::{QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use serde::Deserialize;

/// Thresholds (packets) and max_p of one precedence.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Precedence {
    /// Lower threshold.
    pub min_th: f64,
    /// Upper threshold.
    pub max_th: f64,
    /// Probability at max_th.
    pub max_p: f64,
}

/// Everything that defines a RIO queue.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RioParams {
    /// IN packets, judged on avg_in.
    pub in_: Precedence,
    /// OUT packets, judged on avg_total.
    pub out: Precedence,
    /// EWMA weight of both averages.
    pub weight: f64,
    /// ns-2's `wait` uniformisation.
    pub wait: bool,
    /// Gentle curves for both precedences.
    pub gentle: bool,
    /// Byte mode.
    pub bytes: bool,
    /// Mean packet size, bytes.
    pub mean_pkt_size: u32,
    /// ECN marking instead of early drops.
    pub ecn: bool,
    /// The peers' small-queue and first-arrival rules.
    pub rules: RedRules,
}

impl Default for RioParams {
    fn default() -> Self {
        RioParams {
            in_: Precedence {
                min_th: 15.0,
                max_th: 30.0,
                max_p: 0.02,
            },
            out: Precedence {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.2,
            },
            weight: 0.002,
            wait: true,
            gentle: false,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
            rules: RedRules::resolve(crate::compat::Profile::Ccsim, None, None),
        }
    }
}

/// A RIO queue. With `early_drops = false` the random early test is
/// skipped (ModRED signals congestion by rewriting ACKs instead) and only
/// the forced regions and overflow drop.
pub struct Rio {
    kind: &'static str,
    buf: RedBuffer,
    total: Ewma,
    inq: Ewma,
    in_pkts: usize,
    in_bytes: u64,
    curve_in: Curve,
    curve_out: Curve,
    test_in: RedTest,
    test_out: RedTest,
    early_drops: bool,
}

const PROBES: &[&str] = &["avg", "avg_in", "drop_prob_in", "drop_prob_out"];

/// Whether a packet of this class is IN profile.
#[inline]
pub fn is_in(class: u8) -> bool {
    class >= 1
}

impl Rio {
    /// A RIO queue named `kind`.
    pub fn new(kind: &'static str, limit: Limit, p: &RioParams, early_drops: bool) -> Self {
        let unit = if p.bytes { p.mean_pkt_size as f64 } else { 1.0 };
        let shape = if p.gentle { Shape::Gentle } else { Shape::Linear };
        let curve = |pr: &Precedence| Curve {
            min_th: pr.min_th * unit,
            max_th: pr.max_th * unit,
            max_p: pr.max_p,
            shape,
        };
        Rio {
            kind,
            buf: RedBuffer::new(limit, p.wait, p.bytes, p.mean_pkt_size, p.ecn, p.rules),
            total: Ewma::new(p.weight, p.mean_pkt_size),
            inq: Ewma::new(p.weight, p.mean_pkt_size),
            in_pkts: 0,
            in_bytes: 0,
            curve_in: curve(&p.in_),
            curve_out: curve(&p.out),
            test_in: RedTest::default(),
            test_out: RedTest::default(),
            early_drops,
        }
    }

    /// Average of all packets queued (packets or bytes).
    pub fn avg_total(&self) -> f64 {
        self.total.avg
    }

    /// Average of the IN packets queued.
    pub fn avg_in(&self) -> f64 {
        self.inq.avg
    }

    /// The total average decayed for idle time up to `now`.
    pub fn avg_total_at(&self, now: crate::time::SimTime, link_rate_bps: u64) -> f64 {
        self.total.peek(now, link_rate_bps)
    }

    /// The OUT curve (its thresholds apply to the total average).
    pub fn curve_out(&self) -> &Curve {
        &self.curve_out
    }

    /// The IN curve.
    pub fn curve_in(&self) -> &Curve {
        &self.curve_in
    }

    /// IN packets queued.
    pub fn in_pkts(&self) -> usize {
        self.in_pkts
    }

    #[cfg(test)]
    pub(crate) fn set_avgs(&mut self, total: f64, inq: f64) {
        self.total.avg = total;
        self.inq.avg = inq;
        self.total.on_accept();
        self.inq.on_accept();
    }
}

impl QueueDisc for Rio {
    fn kind(&self) -> &'static str {
        self.kind
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (size, class) = {
            let p = ctx.arena.get(pkt);
            (p.size, p.class)
        };
        let inp = is_in(class);
        let bytes = self.buf.opts.byte_mode;
        let avg_total = self.total.on_arrival(ctx.now, self.buf.qlen(), ctx.link_rate_bps);
        let (avg, curve, test) = if inp {
            let q_in = if bytes {
                self.in_bytes as f64
            } else {
                self.in_pkts as f64
            };
            let a = self.inq.on_arrival(ctx.now, q_in, ctx.link_rate_bps);
            (a, &self.curve_in, &mut self.test_in)
        } else {
            (avg_total, &self.curve_out, &mut self.test_out)
        };
        let outcome = if self.early_drops {
            self.buf.decide(test, curve, avg, size, ctx)
        } else if avg >= curve.forced_above() {
            Outcome::Forced
        } else {
            Outcome::Pass
        };
        let verdict = self.buf.admit(outcome, test, &mut self.total, pkt, size, ctx);
        if inp && verdict == Verdict::Enqueued {
            self.in_pkts += 1;
            self.in_bytes += size as u64;
            self.inq.on_accept();
        }
        verdict
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.buf.dequeue(&mut self.total, ctx)?;
        let (size, class) = {
            let pk = ctx.arena.get(p);
            (pk.size, pk.class)
        };
        if is_in(class) {
            self.in_pkts -= 1;
            self.in_bytes -= size as u64;
            if self.in_pkts == 0 {
                self.inq.on_empty(ctx.now, size, ctx.link_rate_bps);
            }
        }
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.buf.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.buf.fifo.bytes()
    }

    fn probe_names(&self) -> &'static [&'static str] {
        PROBES
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.total.avg);
        out.push(self.inq.avg);
        out.push(self.curve_in.pb(self.inq.avg));
        out.push(self.curve_out.pb(self.total.avg));
    }
}

/// The scenario keys of `rio` and `modred`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct RioConfig {
    in_min_th: Option<f64>,
    in_max_th: Option<f64>,
    in_max_p: Option<f64>,
    out_min_th: Option<f64>,
    out_max_th: Option<f64>,
    out_max_p: Option<f64>,
    weight: Option<f64>,
    wait: Option<bool>,
    gentle: Option<bool>,
    bytes: Option<bool>,
    mean_pkt_size: Option<u32>,
    ecn: Option<bool>,
    small_queue_rule: Option<bool>,
    spare_first: Option<bool>,
    /// ModRED only.
    pub(crate) early_drops: Option<bool>,
}

/// Parse the RIO keys (and ModRED's `early_drops`, returned separately).
pub(crate) fn parse_params(args: &QueueArgs, modred: bool) -> Result<(RioParams, Option<bool>), ParamError> {
    let c: RioConfig = parse(args.params)?;
    if !modred && c.early_drops.is_some() {
        return Err(ParamError::at("early_drops", "\"early_drops\" is a ModRED parameter"));
    }
    let d = RioParams::default();
    let in_ = Precedence {
        min_th: c.in_min_th.unwrap_or(d.in_.min_th),
        max_th: c.in_max_th.unwrap_or(d.in_.max_th),
        max_p: check::prob("in_max_p", c.in_max_p.unwrap_or(d.in_.max_p))?,
    };
    check::thresholds("in_min_th", "in_max_th", in_.min_th, in_.max_th)?;
    let out = Precedence {
        min_th: c.out_min_th.unwrap_or(d.out.min_th),
        max_th: c.out_max_th.unwrap_or(d.out.max_th),
        max_p: check::prob("out_max_p", c.out_max_p.unwrap_or(d.out.max_p))?,
    };
    check::thresholds("out_min_th", "out_max_th", out.min_th, out.max_th)?;
    let p = RioParams {
        in_,
        out,
        weight: check::prob("weight", c.weight.unwrap_or(d.weight))?,
        wait: c.wait.unwrap_or(d.wait),
        gentle: c.gentle.unwrap_or(d.gentle),
        bytes: c.bytes.unwrap_or(d.bytes),
        mean_pkt_size: check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(d.mean_pkt_size))?,
        ecn: c.ecn.unwrap_or(d.ecn),
        rules: RedRules::resolve(args.compat, c.small_queue_rule, c.spare_first),
    };
    Ok((p, c.early_drops))
}

/// Build a RIO queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let (p, _) = parse_params(args, false)?;
    Ok(Box::new(Rio::new("rio", args.limit, &p, true)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::queue::DropReason;
    use crate::rng::stream;
    use crate::time::SimTime;

    fn limit() -> Limit {
        Limit {
            packets: Some(100),
            bytes: None,
        }
    }

    fn offer(q: &mut Rio, ctx: &mut QueueCtx, class: u8) -> Verdict {
        let p = ctx.arena.alloc(Packet {
            size: 500,
            class,
            ..Packet::default()
        });
        q.enqueue(p, ctx)
    }

    #[test]
    fn in_judged_on_in_average_out_on_total() {
        let mut arena = PacketArena::new();
        let mut rng = stream(2, "rio");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let paper = RioParams {
            rules: RedRules::PAPER,
            ..RioParams::default()
        };
        let mut q = Rio::new("rio", limit(), &paper, true);
        // Total average 20 (above OUT's max_th 15), IN average 3 (below IN's min_th 15).
        q.set_avgs(20.0, 3.0);
        for _ in 0..10 {
            assert_eq!(offer(&mut q, &mut ctx, 0), Verdict::Dropped(DropReason::Forced));
            assert_eq!(offer(&mut q, &mut ctx, 1), Verdict::Enqueued);
        }
        assert_eq!(q.in_pkts(), 10);
        // IN average above IN's max_th: IN packets are forced out too.
        q.set_avgs(20.0, 31.0);
        assert_eq!(offer(&mut q, &mut ctx, 1), Verdict::Dropped(DropReason::Forced));
        // IN's early region uses IN's max_p: avg_in 22.5 -> pb = 0.02 * 7.5 / 15 = 0.01
        assert!((q.curve_in().pb(22.5) - 0.01).abs() < 1e-12);
        // OUT's: avg_total 10 -> pb = 0.2 * 5 / 10 = 0.1
        assert!((q.curve_out().pb(10.0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn in_dropped_later_than_out_as_the_queue_fills() {
        // No service: the queue only grows. With w = 0.05 the averages
        // follow the queue closely; the first OUT drop must come at a lower
        // total average than the first IN drop.
        let mut arena = PacketArena::new();
        let mut rng = stream(7, "rio");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let p = RioParams {
            weight: 0.05,
            ..RioParams::default()
        };
        let mut q = Rio::new("rio", limit(), &p, true);
        let mut first_out = None;
        let mut first_in = None;
        for i in 0..400 {
            let class = (i % 2) as u8;
            let v = offer(&mut q, &mut ctx, class);
            if matches!(v, Verdict::Dropped(_)) {
                let slot = if class == 0 { &mut first_out } else { &mut first_in };
                if slot.is_none() {
                    *slot = Some(q.avg_total());
                }
            }
        }
        let (o, i) = (first_out.unwrap(), first_in.unwrap());
        // OUT can only be dropped once avg_total >= 5; IN once avg_in >= 15,
        // and avg_in (half the packets are IN) is about half avg_total.
        assert!(o >= 5.0 && o < i, "first OUT drop at {o}, first IN drop at {i}");
        assert!(i >= 15.0, "first IN drop at total average {i}");
    }
}
