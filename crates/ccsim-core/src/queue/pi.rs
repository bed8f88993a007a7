//! The PI (proportional-integral) AQM controller.
//!
//! Source: C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "On Designing
//! Improved Controllers for AQM Routers Supporting TCP Flows", IEEE INFOCOM
//! 2001, Section V (the discretised controller): sampled at frequency w,
//!
//! ```text
//! p(kT) = a (q(kT) - q_ref) - b (q((k-1)T) - q_ref) + p((k-1)T),  T = 1/w
//! ```
//!
//! clamped to [0, 1]; each arrival is dropped (or ECN-marked) with
//! probability p. Defaults are the authors' ns-2 `Queue/PI`: a = 1.822e-5,
//! b = 1.816e-5, w = 170 Hz, q_ref = 50 packets, mean packet size 500 bytes
//! (used only in byte mode, where q is bytes / mean_pkt_size and p is scaled
//! by size / mean_pkt_size). As in ns-2 the first update is at 1/w.

use super::droptail::{Fifo, Limit};
use super::prob_drop::ProbDrop;
use super::red_core::check;
use super::registry::QueueArgs;
use super::{QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{parse, ParamError};
use crate::time::SimTime;
use serde::Deserialize;

/// PI's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PiParams {
    /// Coefficient of the current error.
    pub a: f64,
    /// Coefficient of the previous error.
    pub b: f64,
    /// Sampling frequency, Hz.
    pub w: f64,
    /// Target queue, packets.
    pub q_ref: f64,
    /// Byte mode.
    pub bytes: bool,
    /// Mean packet size, bytes.
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of dropping.
    pub ecn: bool,
}

impl Default for PiParams {
    fn default() -> Self {
        PiParams {
            a: 0.00001822,
            b: 0.00001816,
            w: 170.0,
            q_ref: 50.0,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
        }
    }
}

/// The control law: new probability from the current and previous queue
/// samples and the previous probability.
pub fn control(p: &PiParams, q: f64, q_old: f64, prob: f64) -> f64 {
    (p.a * (q - p.q_ref) - p.b * (q_old - p.q_ref) + prob).clamp(0.0, 1.0)
}

/// A PI queue.
pub struct Pi {
    p: PiParams,
    limit: Limit,
    fifo: Fifo,
    prob: f64,
    q_old: f64,
    period: SimTime,
}

const PROBES: &[&str] = &["drop_prob"];

impl Pi {
    /// A PI queue.
    pub fn new(limit: Limit, p: PiParams) -> Self {
        Pi {
            p,
            limit,
            fifo: Fifo::default(),
            prob: 0.0,
            q_old: 0.0,
            period: SimTime::from_secs_f64(1.0 / p.w).max(SimTime(1)),
        }
    }

    /// Current drop probability.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    fn q(&self) -> f64 {
        if self.p.bytes {
            self.fifo.bytes() as f64 / self.p.mean_pkt_size as f64
        } else {
            self.fifo.len() as f64
        }
    }
}

impl QueueDisc for Pi {
    fn kind(&self) -> &'static str {
        "pi"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let test = ProbDrop {
            bytes: self.p.bytes,
            mean_pkt_size: self.p.mean_pkt_size,
            ecn: self.p.ecn,
        };
        test.enqueue(self.prob, &self.limit, &mut self.fifo, pkt, ctx)
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.fifo.pop_front(ctx)
    }

    super::droptail::fifo_lens!(fifo);

    fn probe_names(&self) -> &'static [&'static str] {
        PROBES
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.prob);
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        Some((self.period, 0))
    }

    fn on_timer(&mut self, _kind: u32, _ctx: &mut QueueCtx) -> Option<SimTime> {
        let q = self.q();
        self.prob = control(&self.p, q, self.q_old, self.prob);
        self.q_old = q;
        Some(self.period)
    }
}

#[derive(Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct PiConfig {
    a: Option<f64>,
    b: Option<f64>,
    w: Option<f64>,
    q_ref: Option<f64>,
    bytes: Option<bool>,
    mean_pkt_size: Option<u32>,
    ecn: Option<bool>,
}

/// Parse and build a PI queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let c: PiConfig = parse(args.params)?;
    let d = PiParams::default();
    let p = PiParams {
        a: check::non_negative("a", c.a.unwrap_or(d.a))?,
        b: check::non_negative("b", c.b.unwrap_or(d.b))?,
        w: check::positive("w", c.w.unwrap_or(d.w))?,
        q_ref: check::non_negative("q_ref", c.q_ref.unwrap_or(d.q_ref))?,
        bytes: c.bytes.unwrap_or(d.bytes),
        mean_pkt_size: check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(d.mean_pkt_size))?,
        ecn: c.ecn.unwrap_or(d.ecn),
    };
    crate::params::resolved(&PiConfig {
        a: Some(p.a),
        b: Some(p.b),
        w: Some(p.w),
        q_ref: Some(p.q_ref),
        bytes: Some(p.bytes),
        mean_pkt_size: Some(p.mean_pkt_size),
        ecn: Some(p.ecn),
    });
    Ok(Box::new(Pi::new(args.limit, p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::stream;

    #[test]
    fn control_law_by_hand() {
        let p = PiParams::default();
        // q = 150, q_old = 100, p_old = 0.01:
        // 1.822e-5 * 100 - 1.816e-5 * 50 + 0.01 = 0.001822 - 0.000908 + 0.01
        let got = control(&p, 150.0, 100.0, 0.01);
        assert!((got - 0.010914).abs() < 1e-12, "{got}");
        // steady at q_ref: p keeps its value (integral action)
        assert!((control(&p, 50.0, 50.0, 0.2) - 0.2).abs() < 1e-15);
        // steady error e: p grows by (a - b) e per sample
        assert!((control(&p, 60.0, 60.0, 0.0) - 6e-7).abs() < 1e-15);
        // clamped
        assert_eq!(control(&p, 0.0, 1000.0, 0.0), 0.0);
        assert_eq!(control(&p, 1e9, 0.0, 0.9), 1.0);
    }

    #[test]
    fn timer_samples_the_queue() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "pi");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut q = Pi::new(
            Limit {
                packets: Some(300),
                bytes: None,
            },
            PiParams::default(),
        );
        // 1/170 s, rounded to the nanosecond
        assert_eq!(q.initial_timer(), Some((SimTime::from_nanos(5_882_353), 0)));
        for _ in 0..150 {
            let r = ctx.arena.alloc(Packet {
                size: 500,
                ..Packet::default()
            });
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
        }
        q.on_timer(0, &mut ctx);
        // a (150 - 50) - b (0 - 50) + 0
        assert!((q.prob() - (1.822e-5 * 100.0 + 1.816e-5 * 50.0)).abs() < 1e-15);
        q.on_timer(0, &mut ctx);
        let p1 = 1.822e-5 * 100.0 + 1.816e-5 * 50.0;
        assert!((q.prob() - (p1 + (1.822e-5 - 1.816e-5) * 100.0)).abs() < 1e-15);
    }
}
