//! Standard TCP congestion control (RFC 5681 section 3.1): slow start and
//! congestion avoidance, shared by `tahoe`, `reno`, `newreno` and `sack`.
//! The four differ only in loss recovery, which the sender implements
//! (see [`crate::tcp::recovery`]).
//!
//! - Slow start (cwnd < ssthresh): cwnd += min(N, SMSS) per ACK of new data,
//!   RFC 5681 eq. (2), i.e. one segment per ACK (as ns-2; no Appropriate Byte
//!   Counting, so delayed ACKs slow the growth, which the PFTK model's `b` captures).
//! - Congestion avoidance: cwnd += SMSS*SMSS/cwnd per ACK, RFC 5681 eq. (3).
//!   With `byte_arithmetic` (ns-3's `TcpNewReno::CongestionAvoidance`, whose
//!   cwnd is a whole number of bytes) the increase is truncated to whole
//!   bytes, at least one: floor(max(1, SMSS*SMSS/cwnd)), which grows about
//!   `cwnd / (2 SMSS)` percent slower at large windows.
//! - Loss detected by duplicate ACKs: ssthresh = max(FlightSize/2, 2*SMSS),
//!   RFC 5681 eq. (4); the window during recovery is ssthresh (plus the
//!   sender's inflation for Reno and NewReno; one segment for Tahoe).
//! - Timeout: ssthresh as above, cwnd = 1 segment (the loss window).
//! - The ACK that ends fast recovery leaves cwnd at ssthresh (RFC 6582
//!   section 3.2 step 3), unless the sender lets it grow the window as any
//!   new ACK does (the flow group's `recovery_exit_growth`, ns-3's and
//!   ns-2's behaviour: [`AckInfo::exit_growth`]).

use super::{AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// Standard TCP's one option.
#[derive(Deserialize, serde::Serialize, Default, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct RenoConfig {
    /// Congestion avoidance in whole bytes, as ns-3 (default false; true
    /// under `compat = "ns3"`).
    pub byte_arithmetic: Option<bool>,
}

/// RFC 5681 congestion control.
#[derive(Clone, Debug)]
pub struct Reno {
    name: &'static str,
    w: Window,
    /// The segment size when congestion avoidance counts whole bytes.
    byte_mss: Option<f64>,
}

impl Reno {
    /// A controller reporting itself as `name` (tahoe, reno, newreno or sack).
    pub fn new(name: &str, cfg: RenoConfig, init: &CcInit) -> Result<Self, ParamError> {
        let name = match name {
            "tahoe" => "tahoe",
            "reno" => "reno",
            "sack" => "sack",
            _ => "newreno",
        };
        let ns3 = init.compat == crate::compat::Profile::Ns3;
        let bytes = cfg.byte_arithmetic.unwrap_or(ns3);
        crate::params::resolved(&RenoConfig {
            byte_arithmetic: Some(bytes),
        });
        Ok(Reno {
            name,
            w: Window::new(init),
            byte_mss: bytes.then_some(init.mss as f64),
        })
    }
}

impl CongestionControl for Reno {
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
        } else if let Some(mss) = self.byte_mss {
            // ns-3: m_cWnd += uint32(max(1.0, mss * mss / m_cWnd)), bytes.
            let cwnd_bytes = (self.w.cwnd * mss).round();
            let adder = (mss * mss / cwnd_bytes).max(1.0).floor();
            self.w.cwnd = (cwnd_bytes + adder) / mss;
        } else {
            self.w.additive_increase(1.0);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.reduce(ev.flight / 2.0, ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.w.timeout(ev.flight / 2.0, ev);
    }
    fn deflate(&mut self, segments: f64) {
        self.w.deflate(segments);
    }
    fn uses_rate_samples(&self) -> bool {
        false
    }
    fn as_reno(&self) -> Option<&Reno> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    #[test]
    fn grows_on_the_ack_that_ends_recovery_only_when_the_sender_says_so() {
        // ns-3's ProcessAck: cwnd = ssthresh, then IncreaseWindow on the
        // same ACK (m_cWnd += uint32(max(1, 1000 * 1000 / 5000)) = 200 B).
        let mut rng = stream(1, "t");
        let mut i = init(5.0);
        i.mss = 1000;
        i.initial_ssthresh = 5.0;
        i.compat = crate::compat::Profile::Ns3;
        let mut a = ack(0, 100);
        a.exited_recovery = true;
        for (grow, want) in [(true, 5.2), (false, 5.0)] {
            a.exit_growth = grow;
            let mut c = Reno::new("newreno", RenoConfig::default(), &i).unwrap();
            c.on_ack(&a, &mut rng);
            assert!((c.cwnd() - want).abs() < 1e-9, "{grow}: {}", c.cwnd());
        }
    }

    #[test]
    fn slow_start_then_linear() {
        let mut rng = stream(1, "t");
        let mut c = Reno::new("newreno", RenoConfig::default(), &init(2.0)).unwrap();
        for _ in 0..6 {
            c.on_ack(&ack(0, 100), &mut rng);
        }
        assert_eq!(c.cwnd(), 8.0);
        c.on_congestion_event(&loss(0, 8.0));
        assert_eq!((c.cwnd(), c.ssthresh()), (4.0, 4.0));
        // one window of ACKs in congestion avoidance adds about one segment
        for _ in 0..4 {
            c.on_ack(&ack(0, 100), &mut rng);
        }
        assert!((c.cwnd() - 4.0 - (1.0 / 4.0 + 1.0 / 4.25 + 1.0 / 4.485 + 1.0 / 4.708)).abs() < 1e-3);
        let mut rto = loss(0, 9.0);
        c.on_rto(&rto);
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 4.5));
        rto.repeated = true;
        rto.flight = 1.0;
        c.on_rto(&rto);
        assert_eq!(
            (c.cwnd(), c.ssthresh()),
            (1.0, 4.5),
            "ssthresh held on a repeated timeout"
        );
    }

    #[test]
    fn ns3_byte_arithmetic_truncates_the_increase() {
        // MSS 1000 at cwnd 60 segments: RFC 5681 adds 1000 * 1000 / 60000 =
        // 16.67 bytes per ACK, ns-3's uint32 cast 16.
        let mut rng = stream(1, "t");
        let mut i = init(60.0);
        i.initial_ssthresh = 30.0;
        i.mss = 1000;
        let cfg = |b| RenoConfig {
            byte_arithmetic: Some(b),
        };
        let mut float = Reno::new("newreno", cfg(false), &i).unwrap();
        let mut bytes = Reno::new("newreno", cfg(true), &i).unwrap();
        float.on_ack(&ack(0, 100), &mut rng);
        bytes.on_ack(&ack(0, 100), &mut rng);
        assert!((float.cwnd() - (60.0 + 1.0 / 60.0)).abs() < 1e-12);
        assert!((bytes.cwnd() - 60.016).abs() < 1e-12);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery() {
        let mut rng = stream(1, "t");
        let mut c = Reno::new("reno", RenoConfig::default(), &init(2.0)).unwrap();
        let mut a = ack(0, 100);
        a.cwnd_limited = false;
        c.on_ack(&a, &mut rng);
        a.cwnd_limited = true;
        a.state = super::super::CaState::Recovery;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 2.0);
    }
}
