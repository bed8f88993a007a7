//! BIC-TCP (Xu, Harfoush and Rhee, "Binary Increase Congestion Control for
//! Fast, Long Distance Networks", IEEE INFOCOM 2004, section 3), as in Linux
//! `net/ipv4/tcp_bic.c` (`bictcp_update`, `bictcp_recalc_ssthresh`):
//!
//! - Below `low_window` (14) segments BIC is Reno.
//! - Otherwise, once per `cnt` ACKs cwnd grows by one segment, where cnt
//!   encodes the binary search towards the last maximum W_max:
//!   below W_max, the increase per RTT is (W_max - cwnd)/B (B = 4), clamped
//!   to at most `max_increment` (16, additive increase when far) and at
//!   least B/smooth_part (close to W_max); above W_max ("max probing") the
//!   increase mirrors the search: slow near W_max, (cwnd - W_max)/(B-1) up
//!   to `max_increment`.
//! - Before the first loss, cnt is capped at 20 (5% growth per RTT).
//! - cnt is scaled by the measured ACKs-per-packet ratio (Linux's
//!   `delayed_ack` estimate, an EWMA with gain 1/16 starting at 2 packets
//!   per ACK), so delayed ACKs do not halve the growth.
//! - On loss: W_max = cwnd, or cwnd (1 + beta)/2 with fast convergence when
//!   cwnd is below the previous W_max; ssthresh = cwnd * beta (beta =
//!   819/1024 ~ 0.8), or cwnd/2 below `low_window`.
//! - A timeout resets all BIC state (Linux `bictcp_state` on TCP_CA_Loss).
//!
//! Linux computes with integer windows; so does this implementation (the
//! window is floored before computing cnt and ssthresh).
//!
//! `variant = "ns3"` (the default under `compat = "ns3"`) is ns-3.44's
//! `TcpBic` (`src/internet/model/tcp-bic.cc`) where it differs from Linux:
//! its defaults `Beta` 0.8 and `SmoothPart` 5 (read from the wheel's
//! attributes); Reno below `LowWnd` only while cwnd < 14 (Linux: <= 14);
//! slow start while cwnd < ssthresh, one segment per ACK, the rest of the
//! ACK's segments counted in congestion avoidance; there the segments
//! acknowledged are counted (`m_cWndCnt += segmentsAcked`, no delayed-ACK
//! ratio) and cwnd grows by one segment once the count exceeds cnt
//! (`m_cWndCnt > cnt`), which then restarts from 0; fast convergence sets
//! W_max = beta x cwnd (Linux: (1 + beta) / 2 x cwnd); ssthresh = beta x
//! cwnd in bytes, not whole segments, or the pipe / 2 below `LowWnd`
//! (`GetSsThresh`); and a timeout keeps the BIC state (no `CongestionStateSet`).

use super::{check_range, AckInfo, CaState, CcInit, CongestionControl, CongestionEvent, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// The binary search divisor B of `bictcp_update`.
pub const BICTCP_B: f64 = 4.0;

/// BIC parameters (Linux module defaults).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct BicConfig {
    /// Multiplicative decrease factor (default 819/1024; ns-3's `Beta` 0.8
    /// with the ns3 variant).
    pub beta: Option<f64>,
    /// Largest increase per RTT, segments (default 16).
    pub max_increment: u32,
    /// Below this window BIC behaves like Reno (default 14).
    pub low_window: u32,
    /// RTTs spent from W_max - B to W_max (default 20; ns-3's `SmoothPart`
    /// 5 with the ns3 variant).
    pub smooth_part: Option<u32>,
    /// Fast convergence (default true).
    pub fast_convergence: bool,
    /// Which BIC: "ccsim" (this module: the kernel's rules on a real-valued
    /// window), "linux-2.6.22" (the integer module ns-2.35's
    /// `Agent/TCP/Linux` runs, [`super::linux2622::LinuxBic`]) or "ns3"
    /// (this module with ns-3.44's `TcpBic` rules: module documentation).
    /// Default "ccsim"; "linux-2.6.22" with `linux_agent` (under `compat =
    /// "ns2"`); "ns3" under `compat = "ns3"`.
    pub variant: Option<BicVariant>,
}

/// The BIC implementations (key `variant` of `bic`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum BicVariant {
    /// This module.
    #[serde(rename = "ccsim")]
    Ccsim,
    /// Linux 2.6.22's `tcp_bic.c` in integers (ns-2.35 `tcp/linux/src/tcp_bic.c`).
    #[serde(rename = "linux-2.6.22")]
    Linux2622,
    /// ns-3.44's `TcpBic` (`src/internet/model/tcp-bic.cc`).
    #[serde(rename = "ns3")]
    Ns3,
}

/// Build the BIC that `variant` names (default: Linux 2.6.22's under
/// ns-2's `Agent/TCP/Linux`).
pub fn build(cfg: BicConfig, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    let variant = cfg.variant.unwrap_or(if init.linux_agent {
        BicVariant::Linux2622
    } else if init.compat == crate::compat::Profile::Ns3 {
        BicVariant::Ns3
    } else {
        BicVariant::Ccsim
    });
    let bic = Bic::new(
        BicConfig {
            variant: Some(variant),
            ..cfg
        },
        init,
    )?;
    Ok(match variant {
        BicVariant::Ccsim | BicVariant::Ns3 => Box::new(bic),
        BicVariant::Linux2622 => {
            let c = &bic.cfg;
            // The module's beta is an integer over 1024 (`tcp_bic.c`): the
            // results report the one it runs, not the fraction given.
            let beta = (bic.beta * 1024.0).round() as u32;
            crate::params::resolved(&BicConfig {
                beta: Some(beta as f64 / 1024.0),
                smooth_part: Some(bic.smooth_part as u32),
                ..c.clone()
            });
            Box::new(super::linux2622::LinuxBic::new(
                init,
                super::linux2622::BicParams {
                    fast_convergence: c.fast_convergence,
                    max_increment: c.max_increment,
                    low_window: c.low_window,
                    beta,
                    smooth_part: bic.smooth_part as u32,
                },
            ))
        }
    })
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            beta: None,
            max_increment: 16,
            low_window: 14,
            smooth_part: None,
            fast_convergence: true,
            variant: None,
        }
    }
}

/// BIC-TCP.
pub struct Bic {
    cfg: BicConfig,
    ns3: bool,
    beta: f64,
    smooth_part: f64,
    /// ns3 variant: segments acknowledged since the last increase.
    seg_count: u64,
    /// Payload bytes per segment (ns-3 keeps ssthresh in bytes).
    mss: f64,
    w: Window,
    /// ACKs per cwnd increment.
    cnt: f64,
    last_max_cwnd: f64,
    loss_cwnd: f64,
    /// Packets per ACK << 4 (Linux fixed point kept as a float).
    delayed_ack: f64,
}

impl Bic {
    /// Build from a config.
    pub fn new(cfg: BicConfig, init: &CcInit) -> Result<Self, ParamError> {
        let ns3 = cfg
            .variant
            .map_or(init.compat == crate::compat::Profile::Ns3, |v| v == BicVariant::Ns3);
        let beta = cfg.beta.unwrap_or(if ns3 { 0.8 } else { 819.0 / 1024.0 });
        let smooth_part = cfg.smooth_part.unwrap_or(if ns3 { 5 } else { 20 });
        crate::params::resolved(&BicConfig {
            beta: Some(beta),
            smooth_part: Some(smooth_part),
            ..cfg.clone()
        });
        check_range("beta", beta, 0.01, 0.99)?;
        if cfg.max_increment == 0 {
            return Err(ParamError::at("max_increment", "expected at least 1"));
        }
        if smooth_part == 0 {
            return Err(ParamError::at("smooth_part", "expected at least 1"));
        }
        let mut b = Bic {
            cfg,
            ns3,
            beta,
            smooth_part: smooth_part as f64,
            seg_count: 0,
            mss: init.mss.max(1) as f64,
            w: Window::new(init),
            cnt: 0.0,
            last_max_cwnd: 0.0,
            loss_cwnd: 0.0,
            delayed_ack: 0.0,
        };
        b.reset();
        Ok(b)
    }

    fn reset(&mut self) {
        self.cnt = 0.0;
        self.last_max_cwnd = 0.0;
        self.loss_cwnd = 0.0;
        self.delayed_ack = 2.0 * 16.0;
    }

    /// The last maximum window W_max.
    pub fn last_max(&self) -> f64 {
        self.last_max_cwnd
    }

    /// `bictcp_update`: ACKs needed per one-segment increase at window `cwnd`.
    pub fn update_cnt(&mut self, cwnd: f64) -> f64 {
        let cwnd = cwnd.floor();
        let (b, maxinc, smooth) = (BICTCP_B, self.cfg.max_increment as f64, self.smooth_part);
        // ns-3: `if (segCwnd < m_lowWnd)`; Linux: `cwnd <= low_window`.
        let reno = if self.ns3 {
            cwnd < self.cfg.low_window as f64
        } else {
            cwnd <= self.cfg.low_window as f64
        };
        let mut cnt = if reno {
            cwnd
        } else if cwnd < self.last_max_cwnd {
            let dist = ((self.last_max_cwnd - cwnd) / b).floor();
            if dist > maxinc {
                (cwnd / maxinc).floor()
            } else if dist <= 1.0 {
                (cwnd * smooth / b).floor()
            } else {
                (cwnd / dist).floor()
            }
        } else if cwnd < self.last_max_cwnd + b {
            (cwnd * smooth / b).floor()
        } else if cwnd < self.last_max_cwnd + maxinc * (b - 1.0) {
            (cwnd * (b - 1.0) / (cwnd - self.last_max_cwnd)).floor()
        } else {
            (cwnd / maxinc).floor()
        };
        if self.loss_cwnd == 0.0 && cnt > 20.0 {
            cnt = 20.0;
        }
        if !self.ns3 {
            cnt = (cnt * 16.0 / self.delayed_ack).floor();
        }
        if cnt < 1.0 {
            cnt = 1.0;
        }
        self.cnt = cnt;
        cnt
    }

    /// `bictcp_recalc_ssthresh` for window `cwnd`.
    fn recalc_ssthresh(&mut self, cwnd: f64) -> f64 {
        self.recalc_ssthresh_with(cwnd, cwnd)
    }

    /// `bictcp_recalc_ssthresh`, or ns-3's `TcpBic::GetSsThresh` with the
    /// pipe `flight` (segments) it takes below `LowWnd`.
    fn recalc_ssthresh_with(&mut self, cwnd: f64, flight: f64) -> f64 {
        let cwnd = cwnd.floor();
        let fast = cwnd < self.last_max_cwnd && self.cfg.fast_convergence;
        self.last_max_cwnd = match (fast, self.ns3) {
            (true, false) => (cwnd * (1.0 + self.beta) / 2.0).floor(),
            (true, true) => (cwnd * self.beta).floor(),
            (false, _) => cwnd,
        };
        self.loss_cwnd = cwnd;
        self.seg_count = 0;
        if self.ns3 {
            let mss = self.mss;
            return if cwnd < self.cfg.low_window as f64 {
                // max(2 MSS, bytesInFlight / 2), in bytes
                ((flight * mss / 2.0).floor() / mss).max(2.0)
            } else {
                ((cwnd * self.beta).max(2.0) * mss).floor() / mss
            };
        }
        if cwnd <= self.cfg.low_window as f64 {
            (cwnd / 2.0).floor().max(2.0)
        } else {
            (cwnd * self.beta).floor().max(2.0)
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        // bictcp_acked: track packets per ACK in the open state
        if ack.acked > 0 && ack.state == CaState::Open {
            self.delayed_ack += ack.acked as f64 - self.delayed_ack / 16.0;
        }
        if !ack.may_raise_cwnd() {
            return;
        }
        if self.ns3 {
            // `TcpBic::IncreaseWindow`
            let mut acked = ack.acked;
            if self.w.cwnd < self.w.ssthresh {
                self.w.cwnd += 1.0;
                acked -= 1;
            }
            if self.w.cwnd >= self.w.ssthresh && acked > 0 {
                self.seg_count += acked;
                let cnt = self.update_cnt(self.w.cwnd);
                if self.seg_count as f64 > cnt {
                    self.w.cwnd += 1.0;
                    self.seg_count = 0;
                }
            }
            return;
        }
        if self.w.cwnd <= self.w.ssthresh {
            // Linux tcp_slow_start (BIC tests cwnd <= ssthresh)
            self.w.slow_start(ack.acked);
        } else {
            let cnt = self.update_cnt(self.w.cwnd);
            self.w.cwnd += 1.0 / cnt;
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let s = self.recalc_ssthresh_with(ev.window, ev.flight);
        self.w.reduce(s, ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        if self.ns3 {
            // ns-3's ReTxTimeout calls GetSsThresh unless repeated; TcpBic
            // keeps its state.
            let s = if ev.repeated {
                self.w.ssthresh
            } else {
                self.recalc_ssthresh_with(ev.window, ev.flight)
            };
            self.w.timeout(s, ev);
            return;
        }
        let s = self.recalc_ssthresh(ev.window);
        self.w.timeout(s, ev);
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn bic() -> Bic {
        let mut b = Bic::new(BicConfig::default(), &init(10.0)).unwrap();
        assert!(!b.ns3);
        // one ACK per packet (no delayed ACKs): ratio 1 << 4
        b.delayed_ack = 16.0;
        b
    }

    #[test]
    fn binary_search_steps() {
        let mut b = bic();
        // A loss at 100 sets W_max = 100 and ssthresh = floor(100 * 819/1024) = 79.
        assert_eq!(b.recalc_ssthresh(100.0), 79.0);
        assert_eq!(b.last_max(), 100.0);
        // At 79, dist = floor(21/4) = 5: increase 5 per RTT -> cnt = 79/5 = 15.
        assert_eq!(b.update_cnt(79.0), 15.0);
        // At 96, dist = 1 (<= 1): smoothed binary search: cnt = 96*20/4 = 480.
        assert_eq!(b.update_cnt(96.0), 480.0);
        // Just above W_max: slow start of max probing: 101*20/4 = 505.
        assert_eq!(b.update_cnt(101.0), 505.0);
        // W_max + 10: cnt = 110*3/10 = 33.
        assert_eq!(b.update_cnt(110.0), 33.0);
        // Far above W_max (>= W_max + 48): linear, max_increment per RTT: 200/16.
        assert_eq!(b.update_cnt(200.0), 12.0);
        // Far below: a loss at 1000 then window 500: dist = 125 > 16: cnt = 500/16.
        b.recalc_ssthresh(1000.0);
        assert_eq!(b.update_cnt(500.0), 31.0);
        // Reno below low_window.
        assert_eq!(b.update_cnt(10.0), 10.0);
    }

    #[test]
    fn fast_convergence_and_first_loss_cap() {
        let mut b = bic();
        // Before any loss cnt is capped at 20 (5% per RTT).
        assert_eq!(b.update_cnt(1000.0), 20.0);
        b.recalc_ssthresh(100.0);
        // A loss below the previous maximum: W_max = 90 * (1 + 0.8)/2 = 80.
        b.recalc_ssthresh(90.0);
        assert_eq!(b.last_max(), (90.0 * (1.0 + 819.0 / 1024.0) / 2.0_f64).floor());
        // Delayed ACKs (2 packets per ACK) halve cnt.
        b.delayed_ack = 32.0;
        assert_eq!(b.update_cnt(10.0), 5.0);
    }

    #[test]
    fn ns3_variant_counts_segments_and_converges_to_beta() {
        let cfg = BicConfig {
            variant: Some(BicVariant::Ns3),
            ..BicConfig::default()
        };
        let mut b = Bic::new(cfg, &init(10.0)).unwrap();
        assert_eq!((b.beta, b.smooth_part), (0.8, 5.0));
        // ssthresh = 0.8 x 100 (bytes: fractional segments allowed), W_max = 100.
        assert_eq!(b.recalc_ssthresh_with(100.0, 90.0), 80.0);
        // Fast convergence: W_max = 0.8 x 90 (Linux: 0.9 x 90); ssthresh
        // 0.8 x 90 segments in whole bytes.
        assert_eq!(
            b.recalc_ssthresh_with(90.5, 90.0),
            (90.0 * 0.8 * 1460.0f64).floor() / 1460.0
        );
        assert_eq!(b.last_max(), 72.0);
        // Below LowWnd (14): the pipe / 2.
        assert_eq!(b.recalc_ssthresh_with(13.0, 9.0), 4.5);
        // No delayed-ACK scaling of cnt: Reno below LowWnd, cnt = cwnd.
        b.delayed_ack = 32.0;
        assert_eq!(b.update_cnt(10.0), 10.0);
        // Near W_max = 72: smoothed binary search with SmoothPart 5: 70 x 5 / 4.
        b.last_max_cwnd = 72.0;
        assert_eq!(b.update_cnt(70.0), 87.0);
    }

    #[test]
    fn ns3_grows_on_the_ack_that_ends_recovery() {
        // ns-3.44's `TcpSocketBase::ProcessAck`: on the ACK that ends fast
        // recovery cwnd = ssthresh, then `TcpBic::IncreaseWindow` with every
        // segment the cumulative ACK covers (SACKed ones included): a loss
        // at 12 segments (below `LowWnd`: ssthresh = the pipe / 2 = 6), then
        // Reno mode with cnt = 6, which the exit ACK's 12 segments exceed,
        // so one segment is added at once. Whether that ACK may grow the
        // window is the sender's (`recovery_exit_growth`, on under ns3).
        let grow = |exit_growth: bool| {
            let cfg = BicConfig {
                variant: Some(BicVariant::Ns3),
                ..BicConfig::default()
            };
            let mut b = Bic::new(cfg, &init(10.0)).unwrap();
            b.on_congestion_event(&loss(0, 12.0));
            assert_eq!((b.cwnd(), b.ssthresh()), (6.0, 6.0));
            let mut a = ack(100, 100);
            a.acked = 12;
            a.newly_delivered = 1;
            a.exited_recovery = true;
            a.exit_growth = exit_growth;
            b.on_ack(&a, &mut crate::rng::stream(1, "bic"));
            b.cwnd()
        };
        assert_eq!(grow(true), 7.0);
        assert_eq!(grow(false), 6.0);
    }
}
