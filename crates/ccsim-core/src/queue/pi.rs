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
use super::prob_drop::{Controller, ProbDrop, ProbQueue};
use super::red_core::check;
use super::registry::QueueArgs;
use super::{QueueCtx, QueueDisc};
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

/// PI's controller: the last queue sample and the sampling period.
pub struct PiControl {
    p: PiParams,
    q_old: f64,
    period: SimTime,
}

/// A PI queue: a FIFO whose drop probability PI's controller updates.
pub type Pi = ProbQueue<PiControl>;

impl Pi {
    /// A PI queue.
    pub fn new(limit: Limit, p: PiParams) -> Self {
        let ctl = PiControl {
            p,
            q_old: 0.0,
            period: SimTime::from_secs_f64(1.0 / p.w).max(SimTime(1)),
        };
        let test = ProbDrop {
            bytes: p.bytes,
            mean_pkt_size: p.mean_pkt_size,
            ecn: p.ecn,
        };
        ProbQueue::with(ctl, test, limit)
    }
}

impl Controller for PiControl {
    const KIND: &'static str = "pi";
    const PROBES: &'static [&'static str] = &["drop_prob"];

    fn period(&self) -> SimTime {
        self.period
    }

    fn update(&mut self, prob: f64, fifo: &Fifo, _ctx: &QueueCtx) -> f64 {
        let q = if self.p.bytes {
            fifo.bytes() as f64 / self.p.mean_pkt_size as f64
        } else {
            fifo.len() as f64
        };
        let prob = control(&self.p, q, self.q_old, prob);
        self.q_old = q;
        prob
    }

    fn probe_values(&self, prob: f64, out: &mut Vec<f64>) {
        out.push(prob);
    }
}

#[derive(Deserialize, Default)]
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
    Ok(Box::new(Pi::new(args.limit, p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testutil::{packets, pkt, Env};
    use crate::queue::Verdict;

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
        let mut env = Env::new(1, "pi");
        let mut ctx = env.ctx(10_000_000);
        let mut q = Pi::new(packets(300), PiParams::default());
        // 1/170 s, rounded to the nanosecond
        assert_eq!(q.initial_timer(), Some((SimTime::from_nanos(5_882_353), 0)));
        for _ in 0..150 {
            let r = pkt(ctx.arena, 0, 500);
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
