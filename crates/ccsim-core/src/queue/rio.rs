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
//! Defaults are ns-2's `Queue/RED/RIO` (read with `ns`: `in_thresh_ 15`,
//! `in_maxthresh_ 30`, `in_linterm_ 50`, `out_thresh_ 5`, `out_maxthresh_
//! 15`, `q_weight_ 0.002`, `wait_ 1`, `gentle_ 0`, `mean_pktsize_ 500`),
//! except OUT's max_p 0.2: ns-2 has no `out_linterm_` and judges OUT
//! packets with RED's `linterm_` (10, max_p 0.1), the default under
//! `variant = "ns2"`.
//!
//! `variant = "paper"` (the default) is the paper's RIO: every arrival
//! updates avg_total, the IN average's idle correction starts when the last
//! IN packet leaves. `variant = "ns2"` (the default under `compat = "ns2"`)
//! is ns-2.35's `RIOQueue` (`queue/rio.cc`, `enque` and `deque`):
//! - the total average is updated only when an IN packet arrives (an OUT
//!   arrival reads the last value: the bug reported in the file's header,
//!   "RIO does not calculate a new average queue length when an OUT packet
//!   arrives"), and an OUT packet accepted into an idle queue ends the idle
//!   period without decaying it (`REDQueue::deque` clears `idle_` when it
//!   sends the packet);
//! - the IN average's idle correction (`in_idle_`, with RED's `idletime_`)
//!   runs from the last time the whole queue went empty, not the IN packets;
//! - the IN test's small-queue rule counts the IN packets queued (`in_qlen >
//!   1`), the OUT test's all packets (`qlen > 1`);
//! - a forced or overflow drop of an OUT packet leaves OUT's `count`
//!   running (only the IN branch has the "bug-fix from Philip Liu" reset).

use super::droptail::Limit;
use super::red_buffer::RedBuffer;
use super::red_core::{check, Curve, Ewma, Outcome, RedRules, RedTest, Shape};
use super::registry::QueueArgs;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use crate::rng::uniform01;
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

/// Which RIO: the paper's or ns-2.35's (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RioVariant {
    /// Clark and Fang, Section III-B.
    Paper,
    /// ns-2.35's `Queue/RED/RIO` (`queue/rio.cc`).
    Ns2,
}

/// Everything that defines a RIO queue.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RioParams {
    /// The paper's RIO or ns-2's.
    pub variant: RioVariant,
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
            variant: RioVariant::Paper,
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
    ns2: bool,
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
            ns2: p.variant == RioVariant::Ns2,
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
        // ns-2 runs the total average's estimator only in the IN branch.
        let avg_total = if inp || !self.ns2 {
            self.total.on_arrival(ctx.now, self.buf.qlen(), ctx.link_rate_bps)
        } else {
            self.total.avg
        };
        let q_in = if bytes {
            self.in_bytes as f64
        } else {
            self.in_pkts as f64
        };
        let (avg, curve, test) = if inp {
            let a = self.inq.on_arrival(ctx.now, q_in, ctx.link_rate_bps);
            (a, &self.curve_in, &mut self.test_in)
        } else {
            (avg_total, &self.curve_out, &mut self.test_out)
        };
        // ns-2's OUT branch keeps its count through forced and overflow drops.
        let keep_count = (self.ns2 && !inp).then_some(test.count);
        let outcome = if !self.early_drops {
            if avg >= curve.forced_above() {
                Outcome::Forced
            } else {
                Outcome::Pass
            }
        } else if self.ns2 && inp {
            // ns-2's IN test: `in_qlen > 1` counts the IN packets queued.
            let rng = &mut *ctx.rng;
            test.decide(curve, avg, q_in, size, &self.buf.opts, || uniform01(rng))
        } else {
            self.buf.decide(test, curve, avg, size, ctx)
        };
        let verdict = self.buf.admit(outcome, test, &mut self.total, pkt, size, ctx);
        if let (Some(c), Verdict::Dropped(DropReason::Forced | DropReason::Overflow)) = (keep_count, verdict) {
            test.count = if c < 0 { -1 } else { c + 1 };
        }
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
        }
        // The IN average's idle period: from the last IN departure (paper),
        // from the queue going empty (ns-2's `in_idle_`, set in `deque`).
        let idle = if self.ns2 {
            self.buf.fifo.is_empty()
        } else {
            is_in(class) && self.in_pkts == 0
        };
        if idle {
            self.inq.on_empty(ctx.now, size, ctx.link_rate_bps);
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
#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct RioConfig {
    // RIO's only (absent from ModRED's resolved config).
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<RioVariant>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) early_drops: Option<bool>,
}

/// Parse the RIO keys (and ModRED's `early_drops`, returned separately).
pub(crate) fn parse_params(args: &QueueArgs, modred: bool) -> Result<(RioParams, Option<bool>), ParamError> {
    let c: RioConfig = parse(args.params)?;
    if !modred && c.early_drops.is_some() {
        return Err(ParamError::at("early_drops", "\"early_drops\" is a ModRED parameter"));
    }
    if modred && c.variant.is_some() {
        return Err(ParamError::at(
            "variant",
            "\"variant\" is a RIO parameter (ModRED has no ns-2 form)",
        ));
    }
    let variant = match c.variant {
        Some(v) => v,
        None if !modred && args.compat == crate::compat::Profile::Ns2 => RioVariant::Ns2,
        None => RioVariant::Paper,
    };
    let d = RioParams::default();
    // ns-2 judges OUT packets with RED's `linterm_` (default 10).
    let out_max_p_default = if variant == RioVariant::Ns2 { 0.1 } else { d.out.max_p };
    let in_ = Precedence {
        min_th: c.in_min_th.unwrap_or(d.in_.min_th),
        max_th: c.in_max_th.unwrap_or(d.in_.max_th),
        max_p: check::prob("in_max_p", c.in_max_p.unwrap_or(d.in_.max_p))?,
    };
    check::thresholds("in_min_th", "in_max_th", in_.min_th, in_.max_th)?;
    let out = Precedence {
        min_th: c.out_min_th.unwrap_or(d.out.min_th),
        max_th: c.out_max_th.unwrap_or(d.out.max_th),
        max_p: check::prob("out_max_p", c.out_max_p.unwrap_or(out_max_p_default))?,
    };
    check::thresholds("out_min_th", "out_max_th", out.min_th, out.max_th)?;
    let p = RioParams {
        variant,
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
    crate::params::resolved(&RioConfig {
        variant: (!modred).then_some(p.variant),
        in_min_th: Some(p.in_.min_th),
        in_max_th: Some(p.in_.max_th),
        in_max_p: Some(p.in_.max_p),
        out_min_th: Some(p.out.min_th),
        out_max_th: Some(p.out.max_th),
        out_max_p: Some(p.out.max_p),
        weight: Some(p.weight),
        wait: Some(p.wait),
        gentle: Some(p.gentle),
        bytes: Some(p.bytes),
        mean_pkt_size: Some(p.mean_pkt_size),
        ecn: Some(p.ecn),
        small_queue_rule: Some(p.rules.small_queue),
        spare_first: Some(p.rules.spare_first),
        // ModRED's default (`modred::build`): no early drops.
        early_drops: modred.then_some(c.early_drops.unwrap_or(false)),
    });
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

    fn ns2_params() -> RioParams {
        RioParams {
            variant: RioVariant::Ns2,
            out: Precedence {
                min_th: 5.0,
                max_th: 15.0,
                max_p: 0.1,
            },
            rules: RedRules::resolve(crate::compat::Profile::Ns2, None, None),
            ..RioParams::default()
        }
    }

    #[test]
    fn ns2_total_average_moves_only_on_in_arrivals() {
        // ns-2's rio.cc runs the total estimator in the IN branch only.
        let mut arena = PacketArena::new();
        let mut rng = stream(3, "rio");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let p = RioParams {
            weight: 0.1,
            ..ns2_params()
        };
        let mut ns2 = Rio::new("rio", limit(), &p, true);
        let paper_p = RioParams {
            variant: RioVariant::Paper,
            ..p
        };
        let mut paper = Rio::new("rio", limit(), &paper_p, true);
        for _ in 0..4 {
            assert_eq!(offer(&mut ns2, &mut ctx, 0), Verdict::Enqueued);
            assert_eq!(offer(&mut paper, &mut ctx, 0), Verdict::Enqueued);
        }
        assert_eq!(ns2.avg_total(), 0.0, "OUT arrivals leave ns-2's total average alone");
        assert!(paper.avg_total() > 0.0);
        // The next IN arrival samples the 4 packets queued: 0.9 * 0 + 0.1 * 4.
        assert_eq!(offer(&mut ns2, &mut ctx, 1), Verdict::Enqueued);
        assert!((ns2.avg_total() - 0.4).abs() < 1e-12, "{}", ns2.avg_total());
    }

    #[test]
    fn ns2_in_test_counts_in_packets_for_the_small_queue_rule() {
        // 10 OUT packets queued, none IN, the IN average in IN's forced
        // region: ns-2 tests IN only when `in_qlen > 1`, so the IN packet is
        // accepted; the paper variant (total qlen 10 > 1) forces it out.
        let mut arena = PacketArena::new();
        let mut rng = stream(4, "rio");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        for (variant, want) in [
            (RioVariant::Ns2, Verdict::Enqueued),
            (RioVariant::Paper, Verdict::Dropped(DropReason::Forced)),
        ] {
            let p = RioParams {
                variant,
                ..ns2_params()
            };
            let mut q = Rio::new("rio", limit(), &p, true);
            for _ in 0..10 {
                assert_eq!(offer(&mut q, &mut ctx, 0), Verdict::Enqueued);
            }
            q.set_avgs(0.0, 40.0);
            assert_eq!(offer(&mut q, &mut ctx, 1), want, "{variant:?}");
        }
    }

    #[test]
    fn ns2_out_count_survives_a_forced_drop() {
        // ns-2 resets the counts on a forced drop in the IN branch only.
        let mut arena = PacketArena::new();
        let mut rng = stream(5, "rio");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        for (variant, want) in [(RioVariant::Ns2, 4), (RioVariant::Paper, 0)] {
            let p = RioParams {
                variant,
                ..ns2_params()
            };
            let mut q = Rio::new("rio", limit(), &p, true);
            for _ in 0..3 {
                offer(&mut q, &mut ctx, 1);
            }
            q.set_avgs(20.0, 0.0);
            q.test_out.count = 3;
            assert_eq!(offer(&mut q, &mut ctx, 0), Verdict::Dropped(DropReason::Forced));
            assert_eq!(q.test_out.count, want, "{variant:?}");
        }
    }

    #[test]
    fn ns2_in_idle_correction_runs_from_the_queue_going_empty() {
        // An IN packet leaves while an OUT packet stays queued: the paper's
        // IN average starts its idle period, ns-2's waits for the queue to empty.
        for (variant, idle) in [(RioVariant::Paper, true), (RioVariant::Ns2, false)] {
            let mut arena = PacketArena::new();
            let mut rng = stream(6, "rio");
            let mut dropped = Vec::new();
            let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
            let p = RioParams {
                variant,
                ..ns2_params()
            };
            let mut q = Rio::new("rio", limit(), &p, true);
            offer(&mut q, &mut ctx, 1);
            offer(&mut q, &mut ctx, 0);
            q.set_avgs(10.0, 10.0);
            assert!(q.dequeue(&mut ctx).is_some());
            let later = SimTime::from_secs(1);
            let decayed = q.inq.idle_packets(later, 10_000_000) > 0.0;
            assert_eq!(decayed, idle, "{variant:?}");
            // ns-2: once the queue is empty the IN average decays too.
            assert!(q.dequeue(&mut ctx).is_some());
            assert!(q.inq.idle_packets(later, 10_000_000) > 0.0, "{variant:?}");
        }
    }
}
