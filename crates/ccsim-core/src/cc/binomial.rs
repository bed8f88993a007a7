//! Binomial congestion control (Bansal and Balakrishnan, "Binomial Congestion
//! Control Algorithms", IEEE INFOCOM 2001, section 2):
//!
//! - Increase: w <- w + a / w^k per RTT (cwnd += a / cwnd^(k+1) per ACK).
//! - Decrease on loss or ECN: w <- w - b * w^l.
//!
//! TCP is (k, l) = (0, 1); the algorithms with k + l = 1 are TCP-compatible
//! (their throughput scales as 1/sqrt(p)); `iiad` is (1, 0) and `sqrt` is
//! (1/2, 1/2). The mehta seed uses IIAD(1/2) and SQRT(1/2), i.e. b = 1/2,
//! which is the default here.
//!
//! The default `a` when k + l = 1 is ccsim's reading, since the paper gives
//! the compatibility condition only up to constants: with small decreases
//! (b w^(l-1) << 1) the deterministic sawtooth gives a mean window
//! sqrt(a / (b p)) (packets per cycle b w^(k+l+1) / a = 1/p), so matching
//! TCP's sqrt(3 / (2p)) needs a = 1.5 b. For k + l != 1 no constant makes
//! the algorithm TCP-compatible and `a` defaults to 1.
//!
//! Slow start, timeouts and recovery are standard. As ns-2's binomial
//! controls (`wnd_option_ 6` in `TcpAgent::slowdown`), the decrease applies
//! to min(cwnd, receiver window) (`windowd()`), on losses and timeouts
//! alike, except that the first decrease, one that ends slow start and one
//! following a timeout halve the window (see [`super::HalveFirst`]); the
//! window rather than the integer FlightSize is reduced because for IIAD
//! the decrease (half a segment) is smaller than FlightSize's rounding.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, DecreaseRule, HalveFirst, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// Binomial parameters.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields, default)]
pub struct BinomialConfig {
    /// Increase exponent k (binomial only; default 0).
    pub k: Option<f64>,
    /// Decrease exponent l (binomial only; default 1).
    pub l: Option<f64>,
    /// Increase constant (default 1.5 b when k + l = 1, else 1).
    pub a: Option<f64>,
    /// Decrease constant (default 1/2).
    pub b: Option<f64>,
    /// Which decreases halve the window (default from the profile:
    /// "halve_first", or "ns2" under `ns2`; see [`DecreaseRule`]).
    pub decrease_rule: Option<DecreaseRule>,
}

/// The named binomial algorithms.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preset {
    /// Inverse increase, additive decrease: k = 1, l = 0.
    Iiad,
    /// k = l = 1/2.
    Sqrt,
}

/// The TCP-compatible increase constant for k + l = 1 (see the module docs).
pub fn tcp_compatible_a(b: f64) -> f64 {
    1.5 * b
}

/// A binomial controller.
pub struct Binomial {
    name: &'static str,
    k: f64,
    l: f64,
    a: f64,
    b: f64,
    w: Window,
    first: HalveFirst,
}

impl Binomial {
    /// Build from a config, optionally as a named preset (which fixes k and l).
    pub fn new(cfg: BinomialConfig, init: &CcInit, preset: Option<Preset>) -> Result<Self, ParamError> {
        let (name, k, l) = match preset {
            Some(p) => {
                if cfg.k.is_some() {
                    return Err(ParamError::at(
                        "k",
                        "k is fixed by this preset; use cc = \"binomial\" to set k and l",
                    ));
                }
                if cfg.l.is_some() {
                    return Err(ParamError::at(
                        "l",
                        "l is fixed by this preset; use cc = \"binomial\" to set k and l",
                    ));
                }
                match p {
                    Preset::Iiad => ("iiad", 1.0, 0.0),
                    Preset::Sqrt => ("sqrt", 0.5, 0.5),
                }
            }
            None => (
                "binomial",
                check_range("k", cfg.k.unwrap_or(0.0), 0.0, 10.0)?,
                check_range("l", cfg.l.unwrap_or(1.0), 0.0, 1.0)?,
            ),
        };
        let b = check_range("b", cfg.b.unwrap_or(0.5), 1e-9, 1e6)?;
        if l == 1.0 && b >= 1.0 {
            return Err(ParamError::at("b", format!("with l = 1, b must be below 1, got {b}")));
        }
        let a = match cfg.a {
            Some(a) => check_range("a", a, 1e-9, 1e6)?,
            None if (k + l - 1.0).abs() < 1e-12 => tcp_compatible_a(b),
            None => 1.0,
        };
        let first = HalveFirst::new(cfg.decrease_rule, init);
        // A preset's k and l are its own (the keys are refused): reported as used.
        crate::params::resolved(&BinomialConfig {
            k: Some(k),
            l: Some(l),
            a: Some(a),
            b: Some(b),
            decrease_rule: Some(first.rule()),
        });
        Ok(Binomial {
            name,
            k,
            l,
            a,
            b,
            w: Window::new(init),
            first,
        })
    }

    /// (k, l, a, b).
    pub fn params(&self) -> (f64, f64, f64, f64) {
        (self.k, self.l, self.a, self.b)
    }

    /// The window after a decrease from `w`: w - b w^l.
    pub fn decreased(&self, w: f64) -> f64 {
        w - self.b * w.powf(self.l)
    }

    /// The increase per RTT at window `w`: a / w^k.
    pub fn increase_per_rtt(&self, w: f64) -> f64 {
        self.a / w.powf(self.k)
    }
}

impl CongestionControl for Binomial {
    fn name(&self) -> &'static str {
        self.name
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
            let inc = self.increase_per_rtt(self.w.cwnd);
            self.w.additive_increase(inc);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let h = self.first.decide(&self.w, false, self.b == 0.5);
        let target = |halve: bool| {
            if halve {
                ev.window / 2.0
            } else {
                self.decreased(ev.window)
            }
        };
        self.w.reduce_to(target(h.ssthresh), target(h.cwnd), ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let h = self.first.decide(&self.w, true, self.b == 0.5);
        let target = if h.ssthresh {
            ev.window / 2.0
        } else {
            self.decreased(ev.window)
        };
        self.w.timeout(target, ev);
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

    #[test]
    fn presets_and_tcp() {
        let i = init(10.0);
        let iiad = Binomial::new(BinomialConfig::default(), &i, Some(Preset::Iiad)).unwrap();
        assert_eq!(iiad.params(), (1.0, 0.0, 0.75, 0.5));
        assert_eq!(iiad.decreased(20.0), 19.5);
        assert!((iiad.increase_per_rtt(20.0) - 0.75 / 20.0).abs() < 1e-12);
        let sqrt = Binomial::new(BinomialConfig::default(), &i, Some(Preset::Sqrt)).unwrap();
        assert!((sqrt.decreased(16.0) - 14.0).abs() < 1e-12);
        assert!((sqrt.increase_per_rtt(16.0) - 0.75 / 4.0).abs() < 1e-12);
        // (k, l) = (0, 1) with a = 1, b = 1/2 is standard TCP's AIMD.
        let tcp = Binomial::new(
            BinomialConfig {
                k: Some(0.0),
                l: Some(1.0),
                a: Some(1.0),
                b: Some(0.5),
                ..Default::default()
            },
            &i,
            None,
        )
        .unwrap();
        assert_eq!(tcp.decreased(20.0), 10.0);
        assert_eq!(tcp.increase_per_rtt(20.0), 1.0);
        assert!(Binomial::new(
            BinomialConfig {
                k: Some(1.0),
                ..Default::default()
            },
            &i,
            Some(Preset::Sqrt)
        )
        .is_err());
    }

    #[test]
    fn per_ack_increase() {
        let mut rng = stream(1, "t");
        let mut i = init(16.0);
        i.initial_ssthresh = 8.0;
        let mut c = Binomial::new(BinomialConfig::default(), &i, Some(Preset::Sqrt)).unwrap();
        c.on_ack(&ack(0, 100), &mut rng);
        // a / w^k per RTT spread over w ACKs: 0.75 / (16 * 4)
        assert!((c.cwnd() - (16.0 + 0.75 / 64.0)).abs() < 1e-12);
    }

    #[test]
    fn ns2_iiad_half_halves_cwnd_and_keeps_ssthresh_binomial() {
        // ns-2's `slowdown` (tcp/tcp.cc) halves cwnd_ whenever
        // `decrease_num_ == 0.5`: IIAD(1/2) after its first decrease sets
        // ssthresh_ = int(w - 1/2) but cwnd_ = w / 2, and slow-starts back.
        let mut i = init(20.0);
        i.initial_ssthresh = 10.0;
        i.compat = crate::compat::Profile::Ns2;
        let mut ev = loss(0, 20.0);
        ev.int_ssthresh = true;
        let mut c = Binomial::new(BinomialConfig::default(), &i, Some(Preset::Iiad)).unwrap();
        c.on_congestion_event(&ev); // the first decrease halves both
        assert_eq!((c.cwnd(), c.ssthresh()), (10.0, 10.0));
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (10.0, 19.0));
        assert!(c.w.in_slow_start());
        // ccsim's rule: w - b w^l for both.
        i.compat = crate::compat::Profile::Ccsim;
        let mut c = Binomial::new(BinomialConfig::default(), &i, Some(Preset::Iiad)).unwrap();
        c.on_congestion_event(&ev);
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (19.5, 19.0));
        // The key overrides the profile.
        let cfg = BinomialConfig {
            decrease_rule: Some(DecreaseRule::HalveFirst),
            ..Default::default()
        };
        i.compat = crate::compat::Profile::Ns2;
        let mut c = Binomial::new(cfg, &i, Some(Preset::Iiad)).unwrap();
        c.on_congestion_event(&ev);
        c.on_congestion_event(&ev);
        assert_eq!((c.cwnd(), c.ssthresh()), (19.5, 19.0));
    }
}
