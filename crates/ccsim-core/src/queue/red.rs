//! Random Early Detection and its single-queue variants: `red`, `gred`
//! (gentle), `nlred` (nonlinear) and `ared` (adaptive). One implementation
//! with options; each kind is a preset of the options.
//!
//! Sources: Floyd and Jacobson 1993, Figure 2 (see [`super::red_core`]);
//! Floyd 2000, "Recommendation on using the gentle variant of RED" (`gred`);
//! Zhou, Yeung and Li 2006, Section 3 (`nlred`); Floyd, Gummadi and Shenker
//! 2001 (`ared`, see [`super::ared`]). Defaults are ns-2's `Queue/RED`
//! (`tcl/lib/ns-default.tcl`): for `red`, `gred` and `nlred` the fixed values
//! ns-2 used before its automatic configuration of Dec 2001 (5 / 15 packets,
//! max_p 0.1, w_q 0.002), with `wait` on as in ns-2; for `ared` ns-2.35's
//! automatic settings. docs/algorithms.md lists each with its source.
//!
//! Per arrival: the average is updated from the number of packets (bytes in
//! byte mode) waiting, the RED test decides pass / early / forced, an early
//! decision marks an ECN-capable packet when `ecn = true` and drops it
//! otherwise, and a packet that does not fit the buffer is dropped as an
//! overflow.

use super::ared::{self, MaxPController};
use super::droptail::Limit;
use super::red_buffer::RedBuffer;
use super::red_core::{check, Curve, Ewma, RedRules, RedTest, Shape};
use super::registry::QueueArgs;
use super::step_mark::StepMark;
use super::{QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// Everything that defines a RED queue (thresholds in packets).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Lower threshold, packets (of `mean_pkt_size` bytes in byte mode).
    pub min_th: f64,
    /// Upper threshold, packets.
    pub max_th: f64,
    /// Drop probability at max_th (initial value for Adaptive RED).
    pub max_p: f64,
    /// EWMA weight w_q.
    pub weight: f64,
    /// Shape of the curve.
    pub shape: Shape,
    /// ns-2's `wait` uniformisation.
    pub wait: bool,
    /// Byte mode: average and thresholds in bytes, pb scaled by size.
    pub bytes: bool,
    /// Mean packet size, bytes (idle correction, byte mode).
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
    /// Adaptive RED's max_p controller.
    pub adaptive: Option<MaxPController>,
    /// The peers' small-queue and first-arrival rules.
    pub rules: RedRules,
    /// Step ECN marking of the instantaneous queue on top of RED's own
    /// test (`mark_threshold`; DCTCP's switch, [`super::step_mark`]).
    pub step: StepMark,
}

impl RedParams {
    /// Floyd and Jacobson's classic setting as in ns-2 before its automatic
    /// configuration (Dec 2001): 5 / 15 packets, max_p 0.1, w_q 0.002, wait.
    pub fn classic() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.002,
            shape: Shape::Linear,
            wait: true,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
            adaptive: None,
            rules: RedRules::resolve(crate::compat::Profile::Ccsim, None, None),
            step: StepMark::default(),
        }
    }
}

/// A RED-family queue.
pub struct Red {
    kind: &'static str,
    buf: RedBuffer,
    ewma: Ewma,
    curve: Curve,
    test: RedTest,
    adaptive: Option<MaxPController>,
    step: StepMark,
}

const PROBES: &[&str] = &["avg", "drop_prob"];
const ARED_PROBES: &[&str] = &["avg", "drop_prob", "max_p"];

impl Red {
    /// A queue of kind `kind` (its name in results) with the given parameters.
    pub fn new(kind: &'static str, limit: Limit, p: RedParams) -> Self {
        let unit = if p.bytes { p.mean_pkt_size as f64 } else { 1.0 };
        Red {
            kind,
            buf: RedBuffer::new(limit, p.wait, p.bytes, p.mean_pkt_size, p.ecn, p.rules),
            ewma: Ewma::new(p.weight, p.mean_pkt_size),
            curve: Curve {
                min_th: p.min_th * unit,
                max_th: p.max_th * unit,
                max_p: p.max_p,
                shape: p.shape,
            },
            test: RedTest::default(),
            adaptive: p.adaptive,
            step: p.step,
        }
    }

    /// The average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.ewma.avg
    }

    /// The current max_p (adapted by Adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.curve.max_p
    }

    /// The curve in queue units.
    pub fn curve(&self) -> &Curve {
        &self.curve
    }
}

impl QueueDisc for Red {
    fn kind(&self) -> &'static str {
        self.kind
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        let avg = self.ewma.on_arrival(ctx.now, self.buf.qlen(), ctx.link_rate_bps);
        let outcome = self.buf.decide(&mut self.test, &self.curve, avg, size, ctx);
        let (qlen, qbytes) = (self.buf.fifo.len(), self.buf.fifo.bytes());
        let verdict = self.buf.admit(outcome, &mut self.test, &mut self.ewma, pkt, size, ctx);
        if verdict == Verdict::Enqueued {
            self.step.apply(pkt, qlen, qbytes, ctx);
        }
        verdict
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
        if self.adaptive.is_some() {
            ARED_PROBES
        } else {
            PROBES
        }
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.ewma.avg);
        out.push(self.curve.pb(self.ewma.avg));
        if self.adaptive.is_some() {
            out.push(self.curve.max_p);
        }
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        self.adaptive.map(|a| (a.interval, 0))
    }

    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        let a = self.adaptive?;
        let avg = self.ewma.peek(ctx.now, ctx.link_rate_bps);
        self.curve.max_p = a.adapt(self.curve.max_p, avg, self.curve.min_th, self.curve.max_th);
        Some(a.interval)
    }
}

/// The scenario keys of the RED kinds.
#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct RedConfig {
    min_th: Option<f64>,
    max_th: Option<f64>,
    max_p: Option<f64>,
    weight: Option<f64>,
    wait: Option<bool>,
    gentle: Option<bool>,
    bytes: Option<bool>,
    mean_pkt_size: Option<u32>,
    ecn: Option<bool>,
    mark_threshold: Option<u64>,
    mark_threshold_bytes: Option<u64>,
    // Adaptive RED's keys (absent from other kinds' resolved configs).
    #[serde(skip_serializing_if = "Option::is_none")]
    interval: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    beta: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target_delay: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bottom: Option<f64>,
    small_queue_rule: Option<bool>,
    spare_first: Option<bool>,
}

/// Kinds built here.
pub const KINDS: &[&str] = &["red", "gred", "nlred", "ared"];

/// Parse and validate the parameters of `kind` (one of [`KINDS`]).
pub fn params_for(kind: &str, args: &QueueArgs) -> Result<RedParams, ParamError> {
    let c: RedConfig = parse(args.params)?;
    let adaptive = kind == "ared";
    if !adaptive {
        for (key, set) in [
            ("interval", c.interval.is_some()),
            ("alpha", c.alpha.is_some()),
            ("beta", c.beta.is_some()),
            ("target_delay", c.target_delay.is_some()),
            ("top", c.top.is_some()),
            ("bottom", c.bottom.is_some()),
        ] {
            if set {
                return Err(ParamError::at(
                    key,
                    format!("\"{key}\" is an Adaptive RED parameter; use kind = \"ared\""),
                ));
            }
        }
    }
    let mut p = RedParams::classic();
    // `c` with every default filled in, recorded for the results' `components`.
    let mut resolved = RedConfig::default();
    p.rules = RedRules::resolve(args.compat, c.small_queue_rule, c.spare_first);
    p.mean_pkt_size = check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(p.mean_pkt_size))?;
    p.wait = c.wait.unwrap_or(true);
    p.bytes = c.bytes.unwrap_or(false);
    p.ecn = c.ecn.unwrap_or(false);
    p.step = StepMark::new(c.mark_threshold, c.mark_threshold_bytes)?;
    // NLRED is not gentle in the paper; ns-3's NLRED is RED's `NLRED`
    // option and takes RED's `Gentle` (true by default there).
    let nlred_gentle = args.compat == crate::compat::Profile::Ns3;
    let gentle = c
        .gentle
        .unwrap_or(matches!(kind, "gred" | "ared") || (kind == "nlred" && nlred_gentle));
    p.shape = match kind {
        "nlred" if gentle => Shape::QuadraticGentle,
        "nlred" => Shape::Quadratic,
        _ if gentle => Shape::Gentle,
        _ => Shape::Linear,
    };
    if adaptive {
        let ptc = ared::packets_per_second(args.link_rate_bps, p.mean_pkt_size);
        let target = c.target_delay.map(|t| t.0).unwrap_or(SimTime::from_millis(5));
        resolved.target_delay = Some(Time(target));
        let min_th = c.min_th.unwrap_or_else(|| ared::auto_min_th(target, ptc));
        p.min_th = min_th;
        p.max_th = c.max_th.unwrap_or(3.0 * min_th);
        p.weight = c.weight.unwrap_or_else(|| ared::auto_weight(ptc));
        let interval = c.interval.map(|t| t.0).unwrap_or(SimTime::from_millis(500));
        if interval == SimTime::ZERO {
            return Err(ParamError::at("interval", "the adaptation interval must be positive"));
        }
        let alpha = check::positive("alpha", c.alpha.unwrap_or(0.01))?;
        let beta = c.beta.unwrap_or(0.9);
        if !(beta > 0.0 && beta < 1.0) {
            return Err(ParamError::at(
                "beta",
                format!("expected a factor in (0, 1), got {beta}"),
            ));
        }
        let top = check::prob("top", c.top.unwrap_or(0.5))?;
        let bottom = check::prob(
            "bottom",
            c.bottom.unwrap_or_else(|| ared::auto_bottom(args.link_rate_bps)),
        )?;
        if bottom > top {
            return Err(ParamError::at(
                "bottom",
                format!("bottom ({bottom}) must not exceed top ({top})"),
            ));
        }
        p.adaptive = Some(MaxPController {
            interval,
            alpha,
            beta,
            top,
            bottom,
        });
    } else {
        p.min_th = c.min_th.unwrap_or(p.min_th);
        p.max_th = c.max_th.unwrap_or(p.max_th);
        p.weight = c.weight.unwrap_or(p.weight);
    }
    p.max_p = check::prob("max_p", c.max_p.unwrap_or(p.max_p))?;
    check::thresholds("min_th", "max_th", p.min_th, p.max_th)?;
    check::prob("weight", p.weight)?;
    if let Some(a) = &p.adaptive {
        resolved.interval = Some(Time(a.interval));
        resolved.alpha = Some(a.alpha);
        resolved.beta = Some(a.beta);
        resolved.top = Some(a.top);
        resolved.bottom = Some(a.bottom);
    }
    crate::params::resolved(&RedConfig {
        min_th: Some(p.min_th),
        max_th: Some(p.max_th),
        max_p: Some(p.max_p),
        weight: Some(p.weight),
        wait: Some(p.wait),
        gentle: Some(gentle),
        bytes: Some(p.bytes),
        mean_pkt_size: Some(p.mean_pkt_size),
        ecn: Some(p.ecn),
        mark_threshold: p.step.packets,
        mark_threshold_bytes: p.step.bytes,
        small_queue_rule: Some(p.rules.small_queue),
        spare_first: Some(p.rules.spare_first),
        ..resolved
    });
    Ok(p)
}

/// Build a RED-family queue of `kind`.
pub fn build(kind: &'static str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let p = params_for(kind, args)?;
    Ok(Box::new(Red::new(kind, args.limit, p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::params::Params;
    use crate::queue::DropReason;
    use crate::rng::stream;

    impl<'a> QueueArgs<'a> {
        fn clone_with(&self, compat: crate::compat::Profile) -> QueueArgs<'a> {
            QueueArgs {
                limit: self.limit,
                params: self.params,
                link_rate_bps: self.link_rate_bps,
                compat,
            }
        }
    }

    fn args(params: &Params) -> QueueArgs<'_> {
        QueueArgs {
            limit: Limit {
                packets: Some(100),
                bytes: None,
            },
            params,
            link_rate_bps: 10_000_000,
            compat: crate::compat::Profile::Ccsim,
        }
    }

    fn params(json: &str) -> Params {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn defaults_per_kind() {
        let empty = Params::new();
        let red = params_for("red", &args(&empty)).unwrap();
        assert_eq!(red, RedParams::classic());
        assert_eq!(params_for("gred", &args(&empty)).unwrap().shape, Shape::Gentle);
        assert_eq!(params_for("nlred", &args(&empty)).unwrap().shape, Shape::Quadratic);
        let a = params_for("ared", &args(&empty)).unwrap();
        // 10 Mbps, 500-byte packets: C = 2500/s, min_th = max(5, 0.005 * 2500 / 2)
        assert!((a.min_th - 6.25).abs() < 1e-12);
        assert!((a.max_th - 18.75).abs() < 1e-12);
        assert!((a.weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        assert_eq!(a.shape, Shape::Gentle);
        assert!(a.adaptive.is_some());
    }

    #[test]
    fn bad_parameters_are_rejected_with_their_key() {
        let e = params_for("red", &args(&params(r#"{"min_th": 20, "max_th": 10}"#))).unwrap_err();
        assert_eq!(e.path, "max_th");
        let e = params_for("red", &args(&params(r#"{"max_p": 1.5}"#))).unwrap_err();
        assert_eq!(e.path, "max_p");
        let e = params_for("red", &args(&params(r#"{"interval": "1s"}"#))).unwrap_err();
        assert_eq!(e.path, "interval");
        let e = params_for("red", &args(&params(r#"{"weigth": 0.1}"#))).unwrap_err();
        assert!(e.message.contains("unknown key"), "{}", e.message);
        let e = params_for("ared", &args(&params(r#"{"beta": 1.0}"#))).unwrap_err();
        assert_eq!(e.path, "beta");
    }

    fn pkt(arena: &mut PacketArena, size: u32, ecn: Ecn) -> PacketRef {
        arena.alloc(Packet {
            size,
            ecn,
            ..Packet::default()
        })
    }

    #[test]
    fn avg_tracks_queue_and_forced_drops_above_max_th() {
        let mut arena = PacketArena::new();
        let mut rng = stream(3, "red");
        let mut dropped = Vec::new();
        let mut p = RedParams::classic();
        p.weight = 0.5; // fast average so that a few arrivals cross the thresholds
        let mut q = Red::new(
            "red",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut verdicts = Vec::new();
        for _ in 0..40 {
            let r = pkt(ctx.arena, 1000, Ecn::NotEct);
            verdicts.push(q.enqueue(r, &mut ctx));
        }
        // With w = 0.5 the average is within a packet of the queue; once it
        // reaches 15 every arrival is a forced drop, so the queue stops near 15-16.
        assert!(q.avg() >= 15.0 - 1.0, "avg {}", q.avg());
        assert!(verdicts.contains(&Verdict::Dropped(DropReason::Forced)));
        assert!(q.len_pkts() <= 17, "len {}", q.len_pkts());
    }

    #[test]
    fn ecn_marks_instead_of_early_drop_but_forced_still_drops() {
        let mut arena = PacketArena::new();
        let mut rng = stream(4, "red");
        let mut dropped = Vec::new();
        let mut p = RedParams::classic();
        p.ecn = true;
        p.max_p = 1.0;
        p.wait = false;
        let mut q = Red::new(
            "red",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        q.ewma.avg = 14.9; // pb = 0.99, weight 0.002 keeps it there
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut marked = 0;
        for _ in 0..20 {
            let r = pkt(ctx.arena, 1000, Ecn::Ect);
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            if ctx.arena.get(r).ecn == Ecn::Ce {
                marked += 1;
            }
        }
        // pa >= 0.99 for every packet: nearly all are marked (P(miss) < 1%)
        assert!(marked >= 15, "marked {marked}");
        let r = pkt(ctx.arena, 1000, Ecn::NotEct);
        assert!(matches!(q.enqueue(r, &mut ctx), Verdict::Dropped(_)));
        q.ewma.avg = 16.0;
        let r = pkt(ctx.arena, 1000, Ecn::Ect);
        assert_eq!(q.enqueue(r, &mut ctx), Verdict::Dropped(DropReason::Forced));
    }

    #[test]
    fn mark_threshold_marks_the_instantaneous_queue_below_min_th() {
        // The average stays near 0 (w_q 0.002) so RED itself neither marks
        // nor drops; the step marks every ECN-capable arrival that finds 3
        // or more packets waiting, and leaves a Not-ECT one unmarked.
        let p = params_for("red", &args(&params(r#"{"mark_threshold": 3}"#))).unwrap();
        let mut q = Red::new(
            "red",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        let mut arena = PacketArena::new();
        let mut rng = stream(4, "red");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut ce = Vec::new();
        for _ in 0..6 {
            let r = pkt(ctx.arena, 1000, Ecn::Ect);
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            ce.push(ctx.arena.get(r).ecn == Ecn::Ce);
        }
        assert_eq!(ce, [false, false, false, true, true, true]);
        let r = pkt(ctx.arena, 1000, Ecn::NotEct);
        assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
        assert_eq!(ctx.arena.get(r).ecn, Ecn::NotEct);
        assert_eq!(ctx.marks(), 3);
    }

    #[test]
    fn nlred_takes_a_gentle_region() {
        let p = params_for("nlred", &args(&params(r#"{"gentle": true}"#))).unwrap();
        assert_eq!(p.shape, Shape::QuadraticGentle);
        let q = Red::new(
            "nlred",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        // Above max_th the gentle region rises linearly from max_p to 1 at
        // 2 max_th instead of dropping everything (ns-3's NLRED with Gentle).
        let c = q.curve();
        assert_eq!(c.forced_above(), 30.0);
        assert!((c.pb(15.0) - 0.1).abs() < 1e-12);
        assert!((c.pb(22.5) - 0.55).abs() < 1e-12);
        // Below max_th the curve is still the quadratic one.
        assert!((c.pb(10.0) - 0.0375).abs() < 1e-12);
        // The paper's NLRED, the default outside the ns3 profile, is not gentle.
        let empty = Params::new();
        let plain = params_for("nlred", &args(&empty)).unwrap();
        assert_eq!(plain.shape, Shape::Quadratic);
        let ns3 = args(&empty).clone_with(crate::compat::Profile::Ns3);
        assert_eq!(params_for("nlred", &ns3).unwrap().shape, Shape::QuadraticGentle);
    }

    /// Offer `n` packets to `q` with its average held at `avg`; the verdicts.
    fn offer_at_avg(q: &mut Red, avg: f64, n: usize) -> Vec<Verdict> {
        let mut arena = PacketArena::new();
        let mut rng = stream(6, "red");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        (0..n)
            .map(|_| {
                q.ewma.avg = avg;
                q.ewma.on_accept();
                let r = pkt(ctx.arena, 1000, Ecn::NotEct);
                q.enqueue(r, &mut ctx)
            })
            .collect()
    }

    #[test]
    fn no_test_while_at_most_one_packet_waits() {
        // ns-2 red.cc and ns-3 red-queue-disc.cc test an arrival only when
        // qlen > 1: with the average in the forced region, the first two
        // arrivals (queue 0 and 1) are queued, the third is dropped.
        let limit = Limit {
            packets: Some(100),
            bytes: None,
        };
        let empty = Params::new();
        let p = params_for("red", &args(&empty)).unwrap();
        assert!(p.rules.small_queue && p.rules.spare_first);
        let mut q = Red::new("red", limit, p);
        let v = offer_at_avg(&mut q, 20.0, 3);
        assert_eq!(v[..2], [Verdict::Enqueued, Verdict::Enqueued]);
        assert_eq!(v[2], Verdict::Dropped(DropReason::Forced));
        // Floyd and Jacobson's Figure 2 (the rfc profile) drops at once.
        let rfc = params_for("red", &args(&empty).clone_with(crate::compat::Profile::Rfc)).unwrap();
        let mut q = Red::new("red", limit, rfc);
        assert_eq!(offer_at_avg(&mut q, 20.0, 1)[0], Verdict::Dropped(DropReason::Forced));
    }

    #[test]
    fn first_arrival_over_min_th_is_spared() {
        // max_p = 1 and avg just below max_th: pb ~ 1, so every tested
        // arrival but the spared one is dropped early (wait off).
        let limit = Limit {
            packets: Some(100),
            bytes: None,
        };
        let mut p = params_for("red", &args(&params(r#"{"max_p": 1.0, "wait": false}"#))).unwrap();
        let mut q = Red::new("red", limit, p);
        // Two arrivals pass the small-queue rule, the third is the first tested.
        let v = offer_at_avg(&mut q, 14.99, 4);
        assert_eq!(v[2], Verdict::Enqueued, "the first tested arrival is spared");
        assert_eq!(v[3], Verdict::Dropped(DropReason::Early));
        p.rules.spare_first = false;
        let mut q = Red::new("red", limit, p);
        let v = offer_at_avg(&mut q, 14.99, 3);
        assert_eq!(v[2], Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn adaptive_timer_moves_max_p() {
        let empty = Params::new();
        let p = params_for("ared", &args(&empty)).unwrap();
        let mut q = Red::new(
            "ared",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        assert_eq!(q.initial_timer(), Some((SimTime::from_millis(500), 0)));
        let mut arena = PacketArena::new();
        let mut rng = stream(5, "ared");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        // Average far above the target band; the queue is not idle.
        q.ewma.avg = 18.0;
        q.ewma.on_accept();
        assert_eq!(q.on_timer(0, &mut ctx), Some(SimTime::from_millis(500)));
        assert!((q.max_p() - 0.11).abs() < 1e-12);
        q.ewma.avg = 1.0;
        q.on_timer(0, &mut ctx);
        assert!((q.max_p() - 0.099).abs() < 1e-12);
    }

    #[test]
    fn byte_mode_scales_thresholds() {
        let p = params_for("red", &args(&params(r#"{"bytes": true, "mean_pkt_size": 1000}"#))).unwrap();
        let q = Red::new(
            "red",
            Limit {
                packets: Some(100),
                bytes: None,
            },
            p,
        );
        assert_eq!(q.curve().min_th, 5000.0);
        assert_eq!(q.curve().max_th, 15000.0);
    }
}
