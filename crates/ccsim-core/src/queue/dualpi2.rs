//! DualPI2, the Dual-Queue Coupled AQM of L4S (RFC 9332, the pseudocode of
//! its Appendix A.1): a low-latency queue (L) for scalable, ECT(1) traffic
//! and a classic queue (C) for the rest, coupled so that both kinds of
//! flow get about the same rate.
//!
//! - Classifier (Figure 3, `dualpi2_enqueue`): ECT(1) and CE go to L,
//!   Not-ECT and ECT(0) to C; one buffer limit covers both.
//! - Base PI (Figure 8, `dualpi2_update`, every `Tupdate`): from the
//!   queueing time of the classic queue's head, `p' += alpha (curq -
//!   target) + beta (curq - prev_q)`, clamped to [0, 1]; the classic
//!   probability is `p_C = p'^2` (squared: drop or ECN-mark), the coupled
//!   L4S probability `p_CL = k p'` (at most 1).
//! - L queue (Figure 4, `dualpi2_dequeue`): each packet is marked with
//!   `p_L = max(laqm(qdelay_L), p_CL)`, where the native L4S AQM is a ramp
//!   from `min_th` to `min_th + range` of the L queue's sojourn (Figure 5);
//!   C queue: drop (Not-ECT) or mark (ECT(0)) with `p_C`. Both use the
//!   RFC's `recur()`, which accumulates the probability and fires each time
//!   the sum passes 1: marks are spread evenly, not drawn at random.
//! - Scheduler: a time-shifted FIFO, L first unless C's head has waited
//!   `tshift` longer than L's (the RFC names it as one choice; `tshift = 2
//!   target` as ns-3's `DualQCoupledPiSquareQueueDisc`).
//!
//! Defaults are the RFC's (Figure 2): target 15 ms, RTT_max 100 ms, Tupdate
//! = min(target, RTT_max / 3) = 15 ms, alpha = 0.1 Tupdate / RTT_max^2 =
//! 0.15 Hz, beta = 0.3 / RTT_max = 3 Hz, k = 2, min_th 800 us, range 400 us,
//! Th_len 1 packet. Readings: `Th_len` is checked on the L queue's length
//! when the packet is dequeued (the native ramp marks nothing while it held
//! at most `Th_len` packets); the overload rules of section 4.2.3 and ECN
//! in the classic queue beyond RFC 3168 marking are not modelled.

use super::droptail::{Fifo, Limit};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::{Ecn, PacketRef};
use crate::params::{self, ParamError, Params};
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// Scenario parameters of `dualpi2` (RFC 9332 Figure 2).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct DualPi2Config {
    /// Classic queue delay target (15 ms).
    pub target: Time,
    /// Worst-case RTT expected (100 ms); sets the defaults of the gains.
    pub rtt_max: Time,
    /// PI sampling interval (default min(target, rtt_max / 3)).
    pub tupdate: Option<Time>,
    /// Integral gain, Hz (default 0.1 Tupdate / rtt_max^2).
    pub alpha: Option<f64>,
    /// Proportional gain, Hz (default 0.3 / rtt_max).
    pub beta: Option<f64>,
    /// Coupling factor (2).
    pub k: f64,
    /// Start of the L4S marking ramp, L queue sojourn (800 us).
    pub min_th: Time,
    /// Width of the ramp (400 us).
    pub range: Time,
    /// No native L4S marking while the L queue holds at most this many packets (1).
    pub th_len: u64,
    /// Time shift of the scheduler (default 2 target).
    pub tshift: Option<Time>,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target: Time(SimTime::from_millis(15)),
            rtt_max: Time(SimTime::from_millis(100)),
            tupdate: None,
            alpha: None,
            beta: None,
            k: 2.0,
            min_th: Time(SimTime::from_micros(800)),
            range: Time(SimTime::from_micros(400)),
            th_len: 1,
            tshift: None,
        }
    }
}

/// The constants after defaults are resolved.
#[derive(Copy, Clone, Debug)]
struct Consts {
    target: f64,
    tupdate: SimTime,
    alpha: f64,
    beta: f64,
    k: f64,
    min_th: f64,
    range: f64,
    th_len: u64,
    tshift: SimTime,
}

impl DualPi2Config {
    fn consts(&self) -> Result<Consts, ParamError> {
        let target = self.target.0;
        let rtt_max = self.rtt_max.0.secs_f64();
        if target == SimTime::ZERO {
            return Err(ParamError::at("target", "must be greater than 0"));
        }
        if rtt_max <= 0.0 {
            return Err(ParamError::at("rtt_max", "must be greater than 0"));
        }
        let tupdate = self
            .tupdate
            .map(|t| t.0)
            .unwrap_or_else(|| target.min(SimTime((self.rtt_max.0 .0) / 3)));
        if tupdate == SimTime::ZERO {
            return Err(ParamError::at("tupdate", "must be greater than 0"));
        }
        let alpha = self.alpha.unwrap_or(0.1 * tupdate.secs_f64() / (rtt_max * rtt_max));
        let beta = self.beta.unwrap_or(0.3 / rtt_max);
        for (key, v) in [("alpha", alpha), ("beta", beta), ("k", self.k)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ParamError::at(key, format!("expected a number >= 0, got {v}")));
            }
        }
        if self.range.0 == SimTime::ZERO {
            return Err(ParamError::at("range", "must be greater than 0"));
        }
        let tshift = self.tshift.map(|t| t.0).unwrap_or(target.times(2));
        crate::params::resolved(&DualPi2Config {
            tupdate: Some(Time(tupdate)),
            alpha: Some(alpha),
            beta: Some(beta),
            tshift: Some(Time(tshift)),
            ..self.clone()
        });
        Ok(Consts {
            target: target.secs_f64(),
            tupdate,
            alpha,
            beta,
            k: self.k,
            min_th: self.min_th.0.secs_f64(),
            range: self.range.0.secs_f64(),
            th_len: self.th_len,
            tshift,
        })
    }
}

/// The RFC's `recur()`: returns true each time the accumulated likelihood passes 1.
#[derive(Clone, Debug, Default)]
struct Recur(f64);

impl Recur {
    fn fire(&mut self, likelihood: f64) -> bool {
        self.0 += likelihood;
        if self.0 > 1.0 {
            self.0 -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A DualPI2 queue.
pub struct DualPi2 {
    limit: Limit,
    c: Consts,
    lq: Fifo,
    cq: Fifo,
    lq_recur: Recur,
    cq_recur: Recur,
    /// The base probability p'.
    p_base: f64,
    p_c: f64,
    p_cl: f64,
    prev_q: f64,
    /// The last L packet's native ramp probability (a probe).
    p_l_native: f64,
}

impl DualPi2 {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: DualPi2Config = params::parse(params)?;
        Ok(DualPi2 {
            limit,
            c: cfg.consts()?,
            lq: Fifo::default(),
            cq: Fifo::default(),
            lq_recur: Recur::default(),
            cq_recur: Recur::default(),
            p_base: 0.0,
            p_c: 0.0,
            p_cl: 0.0,
            prev_q: 0.0,
            p_l_native: 0.0,
        })
    }

    /// The base probability p'.
    pub fn p_base(&self) -> f64 {
        self.p_base
    }

    /// Sojourn of the head of `q` at `now`, seconds (0 when empty).
    fn head_time(q: &Fifo, ctx: &QueueCtx) -> f64 {
        q.front()
            .map_or(0.0, |p| (ctx.now - ctx.arena.get(p).enqueued_at).secs_f64())
    }

    /// Figure 5: the native L4S AQM's ramp.
    fn laqm(&self, qdelay: f64) -> f64 {
        if qdelay >= self.c.min_th + self.c.range {
            1.0
        } else if qdelay > self.c.min_th {
            (qdelay - self.c.min_th) / self.c.range
        } else {
            0.0
        }
    }

    /// The time-shifted FIFO: serve L unless C's head is older by more than tshift.
    fn serve_l(&self, ctx: &QueueCtx) -> bool {
        match (self.lq.front(), self.cq.front()) {
            (Some(_), None) => true,
            (None, _) => false,
            (Some(l), Some(c)) => {
                let (l_at, c_at) = (ctx.arena.get(l).enqueued_at, ctx.arena.get(c).enqueued_at);
                l_at <= c_at + self.c.tshift
            }
        }
    }
}

impl QueueDisc for DualPi2 {
    fn kind(&self) -> &'static str {
        "dualpi2"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (size, ecn) = {
            let p = ctx.arena.get(pkt);
            (p.size, p.ecn)
        };
        let (n, bytes) = (self.lq.len() + self.cq.len(), self.lq.bytes() + self.cq.bytes());
        if !self.limit.fits(n, bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        // ECN field modulo 2 == 1: ECT(1) or CE (RFC 9332 Figure 3).
        if matches!(ecn, Ecn::Ect1 | Ecn::Ce) {
            self.lq.push(pkt, size);
        } else {
            self.cq.push(pkt, size);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        loop {
            if self.serve_l(ctx) {
                let held = self.lq.len() as u64;
                let qdelay = Self::head_time(&self.lq, ctx);
                let pkt = self.lq.pop_front(ctx)?;
                self.p_l_native = if held > self.c.th_len { self.laqm(qdelay) } else { 0.0 };
                let p_l = self.p_l_native.max(self.p_cl);
                if self.lq_recur.fire(p_l) {
                    ctx.mark(pkt);
                }
                return Some(pkt);
            }
            let pkt = self.cq.pop_front(ctx)?;
            if self.cq_recur.fire(self.p_c) && !ctx.mark(pkt) {
                ctx.drop_queued(pkt, DropReason::Early);
                continue;
            }
            return Some(pkt);
        }
    }

    fn len_pkts(&self) -> usize {
        self.lq.len() + self.cq.len()
    }

    fn len_bytes(&self) -> u64 {
        self.lq.bytes() + self.cq.bytes()
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        Some((self.c.tupdate, 0))
    }

    /// Figure 8, `dualpi2_update`.
    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        let curq = Self::head_time(&self.cq, ctx);
        let p = self.p_base + self.c.alpha * (curq - self.c.target) + self.c.beta * (curq - self.prev_q);
        self.p_base = p.clamp(0.0, 1.0);
        self.p_cl = (self.c.k * self.p_base).min(1.0);
        self.p_c = self.p_base * self.p_base;
        self.prev_q = curq;
        Some(self.c.tupdate)
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p_base", "p_c", "p_cl", "l_pkts", "c_pkts"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.p_base);
        out.push(self.p_c);
        out.push(self.p_cl);
        out.push(self.lq.len() as f64);
        out.push(self.cq.len() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::stream;

    fn q(params: &str) -> DualPi2 {
        DualPi2::from_params(
            Limit {
                packets: Some(1000),
                bytes: None,
            },
            &serde_json::from_str(params).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn rfc_defaults_for_the_gains() {
        let d = q("{}");
        assert_eq!(d.c.tupdate, SimTime::from_millis(15));
        assert!((d.c.alpha - 0.15).abs() < 1e-12 && (d.c.beta - 3.0).abs() < 1e-12);
        assert_eq!(d.c.tshift, SimTime::from_millis(30));
    }

    #[test]
    fn recur_spreads_marks_evenly() {
        let mut r = Recur::default();
        let fired: Vec<bool> = (0..8).map(|_| r.fire(0.25)).collect();
        // 0.25, 0.5, 0.75, 1.0 (not > 1), 1.25 -> fire ...
        assert_eq!(fired, [false, false, false, false, true, false, false, false]);
        assert_eq!((0..4000).filter(|_| r.fire(0.25)).count(), 1000);
    }

    #[test]
    fn classifier_ramp_and_coupling() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "dualpi2");
        let mut dropped = Vec::new();
        let mut d = q("{}");
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut add = |ecn: Ecn, ctx: &mut QueueCtx| {
            let r = ctx.arena.alloc(Packet {
                size: 1000,
                ecn,
                ..Packet::default()
            });
            assert_eq!(d.enqueue(r, ctx), Verdict::Enqueued);
        };
        for e in [Ecn::Ect1, Ecn::Ce, Ecn::Ect, Ecn::NotEct, Ecn::Ect1] {
            add(e, &mut ctx);
        }
        assert_eq!((d.lq.len(), d.cq.len()), (3, 2));
        // The ramp: 0 below 0.8 ms, 0.5 at 1 ms, 1 from 1.2 ms.
        assert_eq!(d.laqm(0.0007), 0.0);
        assert!((d.laqm(0.001) - 0.5).abs() < 1e-9);
        assert_eq!(d.laqm(0.0013), 1.0);
        // A classic head 25 ms old after one update: p' = 0.15 (0.010) + 3 (0.025).
        let mut ctx = QueueCtx::new(SimTime::from_millis(25), &mut arena, &mut rng, 10_000_000, &mut dropped);
        d.on_timer(0, &mut ctx);
        let p = 0.15 * 0.010 + 3.0 * 0.025;
        assert!((d.p_base() - p).abs() < 1e-12);
        assert!((d.p_c - p * p).abs() < 1e-12 && (d.p_cl - 2.0 * p).abs() < 1e-12);
    }
}
