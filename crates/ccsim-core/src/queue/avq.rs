//! AVQ, the Adaptive Virtual Queue.
//!
//! Source: S. Kunniyur and R. Srikant, "Analysis and Design of an Adaptive
//! Virtual Queue (AVQ) Algorithm for Active Queue Management", ACM SIGCOMM
//! 2001, Section 3 (the algorithm box): a virtual queue of the same buffer
//! size B is served at a virtual capacity C~ <= C. At each arrival of b
//! units at time t (last arrival at s):
//!
//! ```text
//! VQ <- max(VQ - C~ (t - s), 0)
//! if VQ + b > B: mark or drop the packet (in the real queue)
//! else:          VQ <- VQ + b
//! C~ <- max(min(C~ + alpha gamma C (t - s), C) - alpha b, 0)
//! s <- t
//! ```
//!
//! so that C~ settles where the arrival rate is gamma C (the desired
//! utilization). Defaults are the authors' ns-2 `Queue/Vq`: gamma 0.98,
//! alpha 0.15, C~ starts at 0.8 C (`ecnlim_`), the virtual buffer is the
//! real one (`buflim_` 1.0), lengths in bytes (`queue_in_bytes_`). As in
//! ns-2, when a packet is dropped (not marked) C~ is not adapted and s is
//! not advanced, so that the adaptation sees the accepted rate ("the
//! arrival rate that is taken into the adaptation algorithm is the accepted
//! rate and not the offered rate"). The real queue tail-drops on overflow.

use super::droptail::{Fifo, Limit};
use super::red_core::check;
use super::registry::QueueArgs;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use crate::time::SimTime;
use serde::Deserialize;

/// AVQ's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AvqParams {
    /// Desired utilization.
    pub gamma: f64,
    /// Damping factor of the capacity adaptation.
    pub alpha: f64,
    /// Initial virtual capacity as a fraction of the link rate.
    pub initial_ratio: f64,
    /// Virtual buffer as a fraction of the real buffer.
    pub buffer_ratio: f64,
    /// Count in bytes (else in packets of `mean_pkt_size`).
    pub bytes: bool,
    /// Mean packet size, bytes (packet mode; buffer in bytes from a packet limit).
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of dropping.
    pub ecn: bool,
}

impl Default for AvqParams {
    fn default() -> Self {
        AvqParams {
            gamma: 0.98,
            alpha: 0.15,
            initial_ratio: 0.8,
            buffer_ratio: 1.0,
            bytes: true,
            mean_pkt_size: 1000,
            ecn: false,
        }
    }
}

/// The virtual queue and its capacity, in units (bytes or packets) and
/// units per second. Pure state machine, unit-tested directly.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualQueue {
    /// Virtual backlog.
    pub vq: f64,
    /// Virtual capacity C~.
    pub ctilde: f64,
    /// Link capacity C.
    pub c: f64,
    /// Virtual buffer B.
    pub buffer: f64,
    /// Last arrival: the virtual queue has been drained up to here.
    pub last_drain: Option<SimTime>,
    /// Last arrival that adapted C~ (the paper's s; ns-2's `prev_time`).
    pub last_adapt: Option<SimTime>,
}

impl VirtualQueue {
    /// A virtual queue with capacity `ctilde` of `c` and buffer `buffer`.
    pub fn new(ctilde: f64, c: f64, buffer: f64) -> Self {
        VirtualQueue {
            vq: 0.0,
            ctilde,
            c,
            buffer,
            last_drain: None,
            last_adapt: None,
        }
    }

    /// Process an arrival of `b` units at `now`; true means mark or drop.
    /// `dropped_if_signalled`: the packet will be dropped (not marked) when
    /// signalled, in which case C~ is left alone and s is not advanced
    /// (ns-2), so the adaptation sees only accepted packets; the virtual
    /// queue itself is drained up to every arrival.
    pub fn arrive(&mut self, p: &AvqParams, now: SimTime, b: f64, dropped_if_signalled: bool) -> bool {
        let drained_to = *self.last_drain.get_or_insert(now);
        self.vq = (self.vq - self.ctilde * (now - drained_to).secs_f64()).max(0.0);
        self.last_drain = Some(now);
        let signal = self.vq + b > self.buffer;
        if !signal {
            self.vq += b;
        }
        if signal && dropped_if_signalled {
            return true;
        }
        let s = *self.last_adapt.get_or_insert(now);
        let dt = (now - s).secs_f64();
        self.ctilde = ((self.ctilde + p.alpha * p.gamma * self.c * dt).min(self.c) - p.alpha * b).max(0.0);
        self.last_adapt = Some(now);
        signal
    }
}

/// An AVQ queue.
pub struct Avq {
    p: AvqParams,
    limit: Limit,
    fifo: Fifo,
    v: VirtualQueue,
}

const PROBES: &[&str] = &["virtual_capacity_bps", "virtual_queue"];

impl Avq {
    /// An AVQ queue on a link of `link_rate_bps`.
    pub fn new(limit: Limit, p: AvqParams, link_rate_bps: u64) -> Self {
        let mean = p.mean_pkt_size as f64;
        let c = if p.bytes {
            link_rate_bps as f64 / 8.0
        } else {
            link_rate_bps as f64 / (8.0 * mean)
        };
        // The real buffer in the virtual queue's units.
        let real = match (limit.packets, limit.bytes, p.bytes) {
            (_, Some(b), true) => b as f64,
            (Some(n), _, true) => n as f64 * mean,
            (Some(n), _, false) => n as f64,
            (None, Some(b), false) => b as f64 / mean,
            (None, None, _) => f64::INFINITY,
        };
        Avq {
            p,
            limit,
            fifo: Fifo::default(),
            v: VirtualQueue::new(c * p.initial_ratio, c, real * p.buffer_ratio),
        }
    }

    /// The virtual queue state.
    pub fn virtual_queue(&self) -> &VirtualQueue {
        &self.v
    }

    fn to_bps(&self, units_per_s: f64) -> f64 {
        if self.p.bytes {
            units_per_s * 8.0
        } else {
            units_per_s * 8.0 * self.p.mean_pkt_size as f64
        }
    }
}

impl QueueDisc for Avq {
    fn kind(&self) -> &'static str {
        "avq"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (size, markable) = {
            let p = ctx.arena.get(pkt);
            (p.size, self.p.ecn && p.ecn != crate::packet::Ecn::NotEct)
        };
        let b = if self.p.bytes { size as f64 } else { 1.0 };
        if self.v.arrive(&self.p, ctx.now, b, !markable) && !(markable && ctx.mark(pkt)) {
            return Verdict::Dropped(DropReason::Early);
        }
        if !self.limit.fits(self.fifo.len(), self.fifo.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.fifo.pop_front(ctx)
    }

    super::droptail::fifo_lens!(fifo);

    fn probe_names(&self) -> &'static [&'static str] {
        PROBES
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.to_bps(self.v.ctilde));
        out.push(self.v.vq);
    }
}

#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct AvqConfig {
    gamma: Option<f64>,
    alpha: Option<f64>,
    initial_ratio: Option<f64>,
    buffer_ratio: Option<f64>,
    bytes: Option<bool>,
    mean_pkt_size: Option<u32>,
    ecn: Option<bool>,
}

/// Parse and build an AVQ queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let c: AvqConfig = parse(args.params)?;
    let d = AvqParams::default();
    let p = AvqParams {
        gamma: check::prob("gamma", c.gamma.unwrap_or(d.gamma))?,
        alpha: check::positive("alpha", c.alpha.unwrap_or(d.alpha))?,
        initial_ratio: check::prob("initial_ratio", c.initial_ratio.unwrap_or(d.initial_ratio))?,
        buffer_ratio: check::positive("buffer_ratio", c.buffer_ratio.unwrap_or(d.buffer_ratio))?,
        bytes: c.bytes.unwrap_or(d.bytes),
        mean_pkt_size: check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(d.mean_pkt_size))?,
        ecn: c.ecn.unwrap_or(d.ecn),
    };
    crate::params::resolved(&AvqConfig {
        gamma: Some(p.gamma),
        alpha: Some(p.alpha),
        initial_ratio: Some(p.initial_ratio),
        buffer_ratio: Some(p.buffer_ratio),
        bytes: Some(p.bytes),
        mean_pkt_size: Some(p.mean_pkt_size),
        ecn: Some(p.ecn),
    });
    Ok(Box::new(Avq::new(args.limit, p, args.link_rate_bps)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_capacity_update_by_hand() {
        let p = AvqParams::default();
        // 8 Mbps = 1e6 bytes/s, buffer 100 000 bytes, C~ = 0.8e6.
        let mut v = VirtualQueue::new(0.8e6, 1e6, 100_000.0);
        // First arrival: dt = 0; C~ = 0.8e6 - 0.15 * 1000
        assert!(!v.arrive(&p, SimTime::ZERO, 1000.0, true));
        assert_eq!(v.vq, 1000.0);
        assert!((v.ctilde - (0.8e6 - 150.0)).abs() < 1e-9);
        // 1 ms later: VQ drains by C~ * 1e-3 = 799.85 bytes, then + 1000;
        // C~ += 0.15 * 0.98 * 1e6 * 1e-3 = 147, then - 150.
        assert!(!v.arrive(&p, SimTime::from_millis(1), 1000.0, true));
        assert!((v.vq - (1000.0 - 799.85 + 1000.0)).abs() < 1e-9, "{}", v.vq);
        assert!((v.ctilde - (0.8e6 - 150.0 + 147.0 - 150.0)).abs() < 1e-9);
        // A long quiet spell pushes C~ up to the cap C.
        v.arrive(&p, SimTime::from_secs(100), 1000.0, true);
        assert!((v.ctilde - (1e6 - 150.0)).abs() < 1e-9);
    }

    #[test]
    fn overflowing_the_virtual_buffer_signals_and_freezes_on_drop() {
        let p = AvqParams::default();
        let mut v = VirtualQueue::new(1000.0, 1e6, 100_000.0);
        v.vq = 99_500.0;
        v.last_drain = Some(SimTime::ZERO);
        v.last_adapt = Some(SimTime::ZERO);
        // C~ = 1000 B/s drains 1 byte in 1 ms; 1000 more bytes do not fit.
        assert!(v.arrive(&p, SimTime::from_millis(1), 1000.0, true));
        assert!((v.vq - 99_499.0).abs() < 1e-9, "drained up to the drop, nothing added");
        assert_eq!(v.ctilde, 1000.0, "a dropped packet does not adapt C~");
        assert_eq!(v.last_adapt, Some(SimTime::ZERO));
        assert_eq!(v.last_drain, Some(SimTime::from_millis(1)));
        // 1 ms later, marking instead: drained by 1 more byte, signalled, C~
        // adapted over the 2 ms since the last adaptation.
        assert!(v.arrive(&p, SimTime::from_millis(2), 1000.0, false));
        assert!((v.vq - 99_498.0).abs() < 1e-9);
        let want = (1000.0f64 + 0.15 * 0.98 * 1e6 * 2e-3 - 150.0).max(0.0);
        assert!((v.ctilde - want).abs() < 1e-9);
        assert_eq!(v.last_adapt, Some(SimTime::from_millis(2)));
    }

    #[test]
    fn capacity_moves_toward_arrival_rate_gamma_c() {
        // Per accepted arrival C~ changes by alpha (gamma C dt - b) (below the
        // cap C): it rises while the arrival rate b/dt is below gamma C and
        // falls while it is above.
        let p = AvqParams::default();
        let mut v = VirtualQueue::new(1e6, 1.25e6, 100_000.0);
        // 1000 bytes per ms = 1e6 B/s < gamma C = 1.225e6 B/s: up to the cap.
        for k in 0..10_000u64 {
            assert!(!v.arrive(&p, SimTime::from_millis(k), 1000.0, true));
        }
        assert!((v.ctilde - (1.25e6 - 150.0)).abs() < 1e-6, "{}", v.ctilde);
        // 2000 bytes per ms: each arrival lowers C~ by 0.15 (2000 - 1225) = 116.25
        // until the virtual buffer overflows.
        let mut prev = v.ctilde;
        let mut k = 10_000u64;
        loop {
            let signalled = v.arrive(&p, SimTime::from_millis(k), 2000.0, true);
            if signalled {
                break;
            }
            let expect = ((prev + 0.15 * 0.98 * 1.25e6 * 1e-3).min(1.25e6) - 300.0).max(0.0);
            assert!((v.ctilde - expect).abs() < 1e-6);
            assert!(v.ctilde < prev || v.ctilde == 0.0);
            prev = v.ctilde;
            k += 1;
            assert!(k < 20_000, "the virtual queue never overflowed");
        }
    }
}
