//! DCTCP, Data Center TCP (RFC 8257; Alizadeh et al., "Data Center TCP
//! (DCTCP)", SIGCOMM 2010): the window shrinks in proportion to the
//! fraction of data that met congestion, estimated from ECN marks.
//!
//! - The estimator (RFC 8257 section 3.3, steps 1-8): over each window of
//!   data (until the cumulative ACK passes `WindowEnd`, the highest sequence
//!   sent when the window began), count the bytes acknowledged and those
//!   acknowledged by ACKs carrying ECN-Echo; at the window's end
//!   `alpha = (1 - g) alpha + g M` with `M` the marked fraction.
//! - The reaction (section 3.3, steps 9-11): on an ECN-Echo, at most once
//!   per window (the sender's RFC 3168 gate), `cwnd = cwnd (1 - alpha/2)`
//!   and ssthresh the same. The estimator runs before the reaction on the
//!   same ACK, as the RFC's steps and Linux's `tcp_ack` order them
//!   (`tcp_in_ack_event` calls `dctcp_update_alpha` before `tcp_enter_cwr`).
//! - Loss and timeout (section 3.4): as standard TCP, ssthresh = FlightSize/2
//!   (`loss_response = "halve"`, Linux's `dctcp_react_to_loss`). ns-3's
//!   `TcpDctcp::GetSsThresh` returns `(1 - alpha/2) cwnd` for every
//!   reduction, losses and timeouts included (`loss_response = "alpha"`,
//!   the default under `compat = "ns3"`).
//! - Growth: slow start and congestion avoidance of RFC 5681, per ACK as
//!   ccsim's `reno`, or per segment acknowledged (`growth_per_segment`,
//!   default under `ns3` and `linux`: ns-3's `TcpDctcp` derives from
//!   `TcpLinuxReno`, whose `CongestionAvoidance` counts `segmentsAcked` as
//!   Linux's `tcp_cong_avoid_ai`).
//!
//! Defaults: `g = 1/16` (RFC 8257 section 4.2; Linux `dctcp_shift_g = 4`,
//! ns-3 `DctcpShiftG = 0.0625`); initial alpha 1 (RFC 8257 leaves it to the
//! implementation; Linux's `dctcp_alpha_on_init` and ns-3's
//! `DctcpAlphaOnInit` are 1, the cautious choice for a new flow).
//!
//! A DCTCP flow is always ECN-capable and its receiver echoes every CE mark
//! (RFC 8257 section 3.2; [`crate::tcp::receiver`]), which the controller's
//! table row declares.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::compat::Profile;
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// How DCTCP reduces its window on a loss or a timeout.
#[derive(Deserialize, Copy, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// ssthresh = FlightSize / 2, as standard TCP (RFC 8257 section 3.4).
    Halve,
    /// ssthresh = (1 - alpha/2) cwnd, as for an ECN-Echo (ns-3's `GetSsThresh`).
    Alpha,
}

/// DCTCP's options (`cc_params`).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// Estimation gain g (default 1/16).
    pub g: f64,
    /// alpha before the first estimate (default 1).
    pub alpha_init: f64,
    /// Reduction on loss and timeout (default "halve"; "alpha" under `ns3`).
    pub loss_response: Option<LossResponse>,
    /// Grow per segment acknowledged instead of per ACK (default false;
    /// true under `ns3` and `linux`).
    pub growth_per_segment: Option<bool>,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            loss_response: None,
            growth_per_segment: None,
        }
    }
}

/// The DCTCP controller.
pub struct Dctcp {
    w: Window,
    g: f64,
    alpha: f64,
    loss_response: LossResponse,
    per_segment: bool,
    /// `DCTCP.WindowEnd`: the window closes when the cumulative ACK passes it (segments).
    window_end: u64,
    /// `DCTCP.BytesAcked` of the current window.
    bytes_acked: u64,
    /// `DCTCP.BytesMarked` of the current window.
    bytes_marked: u64,
    /// An ECN-Echo arrived on the ACK being processed: reduce after the
    /// estimator has seen that ACK.
    reduce_pending: Option<CongestionEvent>,
}

impl Dctcp {
    /// Build from a config.
    pub fn new(cfg: DctcpConfig, init: &CcInit) -> Result<Self, ParamError> {
        let g = check_range("g", cfg.g, 1e-6, 1.0)?;
        let alpha = check_range("alpha_init", cfg.alpha_init, 0.0, 1.0)?;
        let ns3 = init.compat == Profile::Ns3;
        Ok(Dctcp {
            w: Window::new(init),
            g,
            alpha,
            loss_response: cfg
                .loss_response
                .unwrap_or(if ns3 { LossResponse::Alpha } else { LossResponse::Halve }),
            per_segment: cfg
                .growth_per_segment
                .unwrap_or(matches!(init.compat, Profile::Ns3 | Profile::Linux)),
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            reduce_pending: None,
        })
    }

    /// The current estimate of the fraction of marked data.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RFC 8257 section 3.3 steps 1-8 on one ACK.
    fn estimate(&mut self, ack: &AckInfo) {
        self.bytes_acked += ack.acked_bytes;
        if ack.ece {
            self.bytes_marked += ack.acked_bytes;
        }
        if ack.ack <= self.window_end {
            return;
        }
        let m = if self.bytes_acked > 0 {
            self.bytes_marked as f64 / self.bytes_acked as f64
        } else {
            0.0
        };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
        self.window_end = ack.snd_max;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }

    /// ssthresh after an ECN reduction of `ev` (steps 9-10): (1 - alpha/2) cwnd.
    fn scaled(&self, ev: &CongestionEvent) -> f64 {
        ev.window * (1.0 - self.alpha / 2.0)
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        self.estimate(ack);
        if let Some(ev) = self.reduce_pending.take() {
            let s = self.scaled(&ev);
            self.w.reduce(s, &ev);
        }
        if !ack.may_raise_cwnd() {
            return;
        }
        let n = if self.per_segment { ack.acked as f64 } else { 1.0 };
        if self.w.in_slow_start() {
            // RFC 5681 eq. (2); per segment, Linux's tcp_slow_start.
            if self.per_segment {
                self.w.cwnd += n;
            } else {
                self.w.slow_start(ack.acked);
            }
        } else {
            self.w.additive_increase(n);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let s = match self.loss_response {
            LossResponse::Halve => ev.flight / 2.0,
            LossResponse::Alpha => self.scaled(ev),
        };
        self.w.reduce(s, ev);
    }
    fn on_ecn(&mut self, ev: &CongestionEvent) {
        self.reduce_pending = Some(*ev);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.reduce_pending = None;
        let s = match self.loss_response {
            LossResponse::Halve => ev.flight / 2.0,
            LossResponse::Alpha => self.scaled(ev),
        };
        self.w.timeout(s, ev);
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

    /// An ACK of one 1460-byte segment, with or without ECN-Echo, with
    /// `ack` the cumulative ACK and `snd_max` the next segment to send.
    fn acked(ack_no: u64, snd_max: u64, ece: bool) -> AckInfo {
        let mut a = ack(0, 1);
        a.acked_bytes = 1460;
        a.ack = ack_no;
        a.snd_max = snd_max;
        a.ece = ece;
        a
    }

    #[test]
    fn alpha_follows_the_marked_fraction_per_window() {
        // RFC 8257 section 3.3: one window of 4 ACKs, one of them marked:
        // alpha = (1 - 1/16) * 1 + 1/16 * 1/4 at the window's end.
        let mut rng = stream(1, "t");
        let mut c = Dctcp::new(DctcpConfig::default(), &init(10.0)).unwrap();
        c.on_ack(&acked(1, 10, false), &mut rng); // closes the initial window (WindowEnd 0)
        let a0 = c.alpha();
        assert_eq!(a0, 1.0 - 1.0 / 16.0); // M = 0 over the first window
        for (i, ece) in [false, true, false, false].into_iter().enumerate() {
            c.on_ack(&acked(2 + i as u64, 10, ece), &mut rng);
        }
        // WindowEnd is 10: the window has not closed yet.
        assert_eq!(c.alpha(), a0);
        c.on_ack(&acked(11, 20, false), &mut rng);
        let m = 1.0 / 5.0; // 1 marked of 5 ACKs of equal size
        assert!((c.alpha() - ((1.0 - 1.0 / 16.0) * a0 + m / 16.0)).abs() < 1e-12);
    }

    #[test]
    fn ecn_echo_scales_the_window_by_half_alpha_after_the_estimate() {
        let mut rng = stream(1, "t");
        let cfg = DctcpConfig {
            alpha_init: 0.5,
            ..DctcpConfig::default()
        };
        let mut c = Dctcp::new(cfg, &init(40.0)).unwrap();
        let mut ev = loss(0, 40.0);
        ev.window = 40.0;
        c.on_ecn(&ev);
        assert_eq!(c.cwnd(), 40.0, "the reduction waits for the ACK's estimate");
        // This ACK closes a window whose data were all marked: alpha first
        // becomes 15/16 * 0.5 + 1/16, then cwnd = 40 (1 - alpha/2).
        let mut a = acked(1, 50, true);
        a.ece = true;
        c.on_ack(&a, &mut rng);
        let alpha = 15.0 / 16.0 * 0.5 + 1.0 / 16.0;
        assert!((c.alpha() - alpha).abs() < 1e-12);
        assert!((c.cwnd() - 40.0 * (1.0 - alpha / 2.0)).abs() < 1e-9);
        assert_eq!(c.ssthresh(), c.cwnd());
    }

    #[test]
    fn without_marks_alpha_decays_geometrically() {
        let mut rng = stream(1, "t");
        let mut c = Dctcp::new(DctcpConfig::default(), &init(10.0)).unwrap();
        for i in 1..=32u64 {
            c.on_ack(&acked(i, i, false), &mut rng); // every ACK closes a window
        }
        assert!((c.alpha() - (15.0f64 / 16.0).powi(32)).abs() < 1e-12);
    }

    #[test]
    fn loss_halves_by_default_and_scales_by_alpha_under_ns3() {
        let mut ev = loss(0, 20.0);
        ev.window = 20.0;
        let mut rfc = Dctcp::new(DctcpConfig::default(), &init(20.0)).unwrap();
        rfc.on_congestion_event(&ev);
        assert_eq!(rfc.ssthresh(), 10.0);
        let mut i = init(20.0);
        i.compat = Profile::Ns3;
        let cfg = DctcpConfig {
            alpha_init: 0.2,
            ..DctcpConfig::default()
        };
        let mut ns3 = Dctcp::new(cfg, &i).unwrap();
        ns3.on_congestion_event(&ev);
        assert!((ns3.ssthresh() - 18.0).abs() < 1e-12);
    }

    #[test]
    fn bad_gain_is_an_error_naming_the_key() {
        let cfg = DctcpConfig {
            g: 2.0,
            ..DctcpConfig::default()
        };
        let e = Dctcp::new(cfg, &init(2.0)).err().unwrap();
        assert_eq!(e.path, "g");
    }
}
