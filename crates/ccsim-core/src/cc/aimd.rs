//! Generalized AIMD, "TCP(b)" in the slowly-responsive congestion control
//! literature (Floyd, Handley and Padhye, "A Comparison of Equation-Based and
//! AIMD Congestion Control", 2000; Bansal, Balakrishnan, Floyd and Shenker,
//! "Dynamic Behavior of Slowly-Responsive Congestion Control Algorithms",
//! SIGCOMM 2001; the mehta seed in ../shared/seeds).
//!
//! - Increase: `a` segments per RTT in congestion avoidance (cwnd += a/cwnd per ACK).
//! - Decrease on loss or ECN: the window is multiplied by (1 - b).
//! - When `a` is omitted it takes the TCP-compatible value
//!   a = 4(2b - b^2)/3 given in the mehta seed (Floyd et al.'s formula):
//!   AIMD(1, 1/2) is standard TCP, TCP(1/8) has a = 0.3125 and TCP(1/256)
//!   a = 0.0104.
//!
//! Slow start, timeouts and recovery are standard (RFC 5681). As in ns-2
//! (`TcpAgent::slowdown` with `decrease_num_` = 1 - b), the reduction is
//! (1 - b) of min(cwnd, receiver window) (`windowd()`), on losses and
//! timeouts alike, except that the first decrease, one that ends slow start
//! and one following a timeout halve the window (see [`super::HalveFirst`]).
//! The window rather than the integer FlightSize is reduced so that small b
//! are not swamped by rounding.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, DecreaseRule, HalveFirst, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// AIMD parameters.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct AimdConfig {
    /// Increase per RTT, segments (default: the TCP-compatible value for `b`).
    pub a: Option<f64>,
    /// Decrease fraction (default 1/2, standard TCP).
    pub b: f64,
    /// Which decreases halve the window (default from the profile:
    /// "halve_first", or "ns2" under `ns2`; see [`DecreaseRule`]).
    pub decrease_rule: Option<DecreaseRule>,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig {
            a: None,
            b: 0.5,
            decrease_rule: None,
        }
    }
}

/// The TCP-compatible increase for decrease fraction `b` (mehta seed; Floyd,
/// Handley and Padhye 2000): a = 4(2b - b^2)/3.
pub fn tcp_compatible_a(b: f64) -> f64 {
    4.0 * (2.0 * b - b * b) / 3.0
}

/// AIMD(a, b).
pub struct Aimd {
    a: f64,
    b: f64,
    w: Window,
    first: HalveFirst,
}

impl Aimd {
    /// Build from a config.
    pub fn new(cfg: AimdConfig, init: &CcInit) -> Result<Self, ParamError> {
        let b = check_range("b", cfg.b, 1e-6, 1.0 - 1e-6)?;
        let a = match cfg.a {
            Some(a) => check_range("a", a, 1e-6, 1e6)?,
            None => tcp_compatible_a(b),
        };
        let first = HalveFirst::new(cfg.decrease_rule, init);
        crate::params::resolved(&AimdConfig {
            a: Some(a),
            b,
            decrease_rule: Some(first.rule()),
        });
        Ok(Aimd {
            a,
            b,
            w: Window::new(init),
            first,
        })
    }

    /// The increase per RTT in use.
    pub fn a(&self) -> f64 {
        self.a
    }
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if !ack.may_raise_cwnd() {
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(ack.acked);
        } else {
            self.w.additive_increase(self.a);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let h = self.first.decide(&self.w, false, self.b == 0.5);
        let f = |halve: bool| if halve { 0.5 } else { 1.0 - self.b };
        self.w.reduce_to(f(h.ssthresh) * ev.window, f(h.cwnd) * ev.window, ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let h = self.first.decide(&self.w, true, self.b == 0.5);
        let f = if h.ssthresh { 0.5 } else { 1.0 - self.b };
        self.w.timeout(f * ev.window, ev);
    }
    fn deflate(&mut self, segments: f64) {
        self.w.deflate(segments);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    /// TCP(1/8) with the defaults it derives from b.
    fn tcp8(init: &CcInit) -> Aimd {
        Aimd::new(
            AimdConfig {
                b: 0.125,
                ..Default::default()
            },
            init,
        )
        .unwrap()
    }

    #[test]
    fn tcp_compatible_increase() {
        // Standard TCP is AIMD(1, 1/2).
        assert!((tcp_compatible_a(0.5) - 1.0).abs() < 1e-12);
        // TCP(1/8): 4(1/4 - 1/64)/3 = 0.3125; TCP(1/256): 4(2/256 - 1/65536)/3.
        assert!((tcp_compatible_a(0.125) - 0.3125).abs() < 1e-12);
        assert!((tcp_compatible_a(1.0 / 256.0) - 4.0 * (2.0 / 256.0 - 1.0 / 65536.0) / 3.0).abs() < 1e-15);
    }

    #[test]
    fn increase_and_decrease() {
        let mut rng = stream(1, "t");
        let mut init = init(20.0);
        init.initial_ssthresh = 10.0;
        let mut c = tcp8(&init);
        c.on_ack(&ack(0, 100), &mut rng);
        assert!((c.cwnd() - (20.0 + 0.3125 / 20.0)).abs() < 1e-12);
        // The first decrease halves (ns-2); later ones remove b.
        c.on_congestion_event(&loss(0, 16.0));
        assert_eq!(c.cwnd(), 8.0);
        c.on_congestion_event(&loss(0, 16.0));
        assert_eq!(c.cwnd(), 14.0);
        assert!(
            AimdConfig {
                b: 1.5,
                ..Default::default()
            }
            .b > 1.0
                && Aimd::new(
                    AimdConfig {
                        b: 1.5,
                        ..Default::default()
                    },
                    &init
                )
                .is_err()
        );
    }

    #[test]
    fn ns2_slowdown_halves_ssthresh_after_a_timeout_but_not_cwnd() {
        // ns-2's `slowdown` (tcp/tcp.cc): every timeout sets ssthresh_ to
        // half the window; the fast retransmit that follows halves ssthresh_
        // again (last_cwnd_action_ is still the timeout) but sets cwnd_ to
        // decrease_num_ * windowd(), 0.875 of it for TCP(1/8).
        let mut init = init(20.0);
        init.initial_ssthresh = 10.0;
        init.compat = crate::compat::Profile::Ns2;
        let mut ev = loss(0, 16.0);
        ev.int_ssthresh = true;
        let mut c = tcp8(&init);
        c.on_congestion_event(&ev); // the first decrease halves
        assert_eq!((c.cwnd(), c.ssthresh()), (8.0, 8.0));
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (14.0, 14.0));
        c.on_rto(&ev); // not the first, not in slow start: still halves
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 8.0));
        c.w.cwnd = 16.0;
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (14.0, 8.0));
        // ccsim's rule: the timeout takes b off, the loss after it halves both.
        init.compat = crate::compat::Profile::Ccsim;
        let mut c = tcp8(&init);
        c.on_congestion_event(&ev);
        c.on_congestion_event(&ev);
        c.on_rto(&ev);
        assert_eq!(c.ssthresh(), 14.0);
        c.w.cwnd = 16.0;
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (8.0, 8.0));
    }
}
