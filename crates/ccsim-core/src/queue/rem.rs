//! REM, Random Exponential Marking.
//!
//! Source: S. Athuraliya, S. H. Low, V. H. Li, Q. Yin, "REM: Active Queue
//! Management", IEEE Network 15(3), 2001, Section "REM", equations (1) and
//! (2): every update period the link price moves with the backlog mismatch
//! and the rate mismatch,
//!
//! ```text
//! p(t+1) = [ p(t) + gamma ( alpha (b(t) - b*) + x(t) - c ) ]^+
//! ```
//!
//! and an arriving packet is marked (or dropped) with probability
//! `1 - phi^(-p(t))`. ccsim follows the authors' ns-2 implementation
//! (`queue/rem.cc`, `Queue/REM` defaults): x(t) is the number of packets
//! that arrived during the last period (dropped ones included), low-pass
//! filtered with weight `inw` (1 = no filtering); c is the number of packets
//! of `mean_pkt_size` bytes the link can send in one period; b(t) is the
//! number of packets waiting at the update. ns-2 hard-codes alpha = 0.1;
//! ccsim exposes it. In byte mode b and x are counted in bytes and divided
//! by `mean_pkt_size`, and the probability is scaled by size / mean_pkt_size.

use super::droptail::{Fifo, Limit};
use super::prob_drop::{Controller, ProbDrop, ProbQueue};
use super::red_core::check;
use super::registry::{LimitMode, QueueArgs};
use super::{QueueCtx, QueueDisc};
use crate::params::{parse, ParamError};
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// REM's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RemParams {
    /// Step size of the price update.
    pub gamma: f64,
    /// Weight of the backlog mismatch.
    pub alpha: f64,
    /// Base of the marking function (> 1).
    pub phi: f64,
    /// Target backlog b*, packets.
    pub b_ref: f64,
    /// Update period.
    pub update_interval: SimTime,
    /// EWMA weight of the input-rate estimate (1: the last period only).
    pub inw: f64,
    /// Mean packet size, bytes (capacity in packets; byte mode).
    pub mean_pkt_size: u32,
    /// Byte mode.
    pub bytes: bool,
    /// Mark ECN-capable packets instead of dropping.
    pub ecn: bool,
}

impl Default for RemParams {
    fn default() -> Self {
        RemParams {
            gamma: 0.001,
            alpha: 0.1,
            phi: 1.001,
            b_ref: 20.0,
            update_interval: SimTime::from_millis(2),
            inw: 1.0,
            mean_pkt_size: 1000,
            bytes: false,
            ecn: false,
        }
    }
}

/// One price update: the new price from the old one, the (filtered)
/// arrivals in the period `x`, the backlog `b` and the capacity per period `c`.
pub fn next_price(p: &RemParams, price: f64, x: f64, b: f64, c: f64) -> f64 {
    (price + p.gamma * (p.alpha * (b - p.b_ref) + x - c)).max(0.0)
}

/// The marking probability 1 - phi^(-price).
pub fn mark_prob(phi: f64, price: f64) -> f64 {
    1.0 - phi.powf(-price)
}

/// REM's controller: the link price and the arrivals it counts.
pub struct RemControl {
    p: RemParams,
    price: f64,
    /// Arrivals in the current period (packets, or bytes in byte mode).
    arrived: f64,
    /// Filtered arrivals per period, packets.
    in_avg: f64,
}

/// A REM queue: a FIFO whose marking probability REM's price sets.
pub type Rem = ProbQueue<RemControl>;

impl Rem {
    /// A REM queue.
    pub fn new(limit: Limit, p: RemParams) -> Self {
        let ctl = RemControl {
            p,
            price: 0.0,
            arrived: 0.0,
            in_avg: 0.0,
        };
        let test = ProbDrop {
            bytes: p.bytes,
            mean_pkt_size: p.mean_pkt_size,
            ecn: p.ecn,
        };
        ProbQueue::with(ctl, test, limit)
    }

    /// Current price.
    pub fn price(&self) -> f64 {
        self.ctl.price
    }
}

impl Controller for RemControl {
    const KIND: &'static str = "rem";
    const PROBES: &'static [&'static str] = &["price", "drop_prob"];

    fn period(&self) -> SimTime {
        self.p.update_interval
    }

    fn on_arrival(&mut self, size: u32) {
        self.arrived += if self.p.bytes { size as f64 } else { 1.0 };
    }

    fn update(&mut self, _prob: f64, fifo: &Fifo, ctx: &QueueCtx) -> f64 {
        let mean = self.p.mean_pkt_size as f64;
        let (x, b) = if self.p.bytes {
            (self.arrived / mean, fifo.bytes() as f64 / mean)
        } else {
            (self.arrived, fifo.len() as f64)
        };
        self.in_avg = self.in_avg * (1.0 - self.p.inw) + self.p.inw * x;
        let c = self.p.update_interval.secs_f64() * ctx.link_rate_bps as f64 / (8.0 * mean);
        self.price = next_price(&self.p, self.price, self.in_avg, b, c);
        self.arrived = 0.0;
        mark_prob(self.p.phi, self.price)
    }

    fn probe_values(&self, prob: f64, out: &mut Vec<f64>) {
        out.push(self.price);
        out.push(prob);
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct RemConfig {
    gamma: Option<f64>,
    alpha: Option<f64>,
    phi: Option<f64>,
    b_ref: Option<f64>,
    update_interval: Option<Time>,
    inw: Option<f64>,
    mean_pkt_size: Option<u32>,
    bytes: Option<bool>,
    ecn: Option<bool>,
    limit_mode: Option<LimitMode>,
}

/// Parse and build a REM queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let c: RemConfig = parse(args.params)?;
    let d = RemParams::default();
    let phi = c.phi.unwrap_or(d.phi);
    if !(phi.is_finite() && phi > 1.0) {
        return Err(ParamError::at("phi", format!("expected a base > 1, got {phi}")));
    }
    let update_interval = c.update_interval.map(|t| t.0).unwrap_or(d.update_interval);
    if update_interval == SimTime::ZERO {
        return Err(ParamError::at(
            "update_interval",
            "the update interval must be positive",
        ));
    }
    let p = RemParams {
        gamma: check::positive("gamma", c.gamma.unwrap_or(d.gamma))?,
        alpha: check::non_negative("alpha", c.alpha.unwrap_or(d.alpha))?,
        phi,
        b_ref: check::non_negative("b_ref", c.b_ref.unwrap_or(d.b_ref))?,
        update_interval,
        inw: check::prob("inw", c.inw.unwrap_or(d.inw))?,
        mean_pkt_size: check::pkt_size("mean_pkt_size", c.mean_pkt_size.unwrap_or(d.mean_pkt_size))?,
        bytes: c.bytes.unwrap_or(d.bytes),
        ecn: c.ecn.unwrap_or(d.ecn),
    };
    // ns-2's `REMQueue::enque` drops when the queue including the arrival
    // reaches qlim_, as its DropTail does.
    let mode = c.limit_mode.unwrap_or(args.compat.droptail_limit_mode());
    Ok(Box::new(Rem::new(mode.waiting(args.limit), p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testutil::{packets, pkt, Env};

    #[test]
    fn price_update_by_hand() {
        let p = RemParams::default();
        // 10 Mbps, 2 ms, 1000-byte packets: c = 2.5 packets per period.
        // 10 arrivals, 40 waiting: p = 0 + 0.001 (0.1 (40 - 20) + 10 - 2.5) = 0.0095
        let price = next_price(&p, 0.0, 10.0, 40.0, 2.5);
        assert!((price - 0.0095).abs() < 1e-15);
        // under-load with an empty queue pulls the price down, never below 0
        assert_eq!(next_price(&p, 0.001, 0.0, 0.0, 2.5), 0.0);
        let q = next_price(&p, 0.5, 2.0, 10.0, 2.5);
        assert!((q - (0.5 + 0.001 * (-1.0 - 0.5))).abs() < 1e-15);
    }

    #[test]
    fn probability_by_hand() {
        // 1 - 1.001^-100 = 0.095117...
        let m = mark_prob(1.001, 100.0);
        assert!((m - (1.0 - 1.0 / 1.001f64.powi(100))).abs() < 1e-15);
        assert!((m - 0.095_117).abs() < 1e-6);
        assert_eq!(mark_prob(1.001, 0.0), 0.0);
    }

    #[test]
    fn timer_counts_arrivals_and_backlog() {
        let mut env = Env::new(1, "rem");
        let mut ctx = env.ctx(10_000_000);
        let mut q = Rem::new(packets(30), RemParams::default());
        assert_eq!(q.initial_timer(), Some((SimTime::from_millis(2), 0)));
        // 40 arrivals: 30 fit, 10 overflow; all 40 count as input.
        for _ in 0..40 {
            let r = pkt(ctx.arena, 0, 1000);
            q.enqueue(r, &mut ctx);
        }
        assert_eq!(q.len_pkts(), 30);
        q.on_timer(0, &mut ctx);
        // p = 0.001 (0.1 (30 - 20) + 40 - 2.5) = 0.0385
        assert!((q.price() - 0.0385).abs() < 1e-12, "{}", q.price());
        assert!((q.prob() - mark_prob(1.001, 0.0385)).abs() < 1e-15);
        // next period: no arrivals, 30 waiting: 0.0385 + 0.001 (1 - 2.5)
        q.on_timer(0, &mut ctx);
        assert!((q.price() - 0.037).abs() < 1e-12, "{}", q.price());
    }
}
