//! HighSpeed TCP (RFC 3649).
//!
//! At windows up to Low_Window (38 segments) HighSpeed TCP is standard TCP.
//! Above it the congestion-avoidance increase a(w) per RTT and the decrease
//! fraction b(w) follow from the HighSpeed response function, which joins
//! (Low_Window, Low_P = 10^-3) to (High_Window = 83000, High_P = 10^-7)
//! (RFC 3649 sections 5 and 6):
//!
//! - b(w) = (High_Decrease - 0.5) (log w - log Low_Window) /
//!   (log High_Window - log Low_Window) + 0.5
//! - p(w) = 0.078 / w^1.2, the RFC's closed form of the response function
//!   w = 0.12 / p^0.835 with its default parameters
//! - a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//!
//! These closed forms reproduce every row of the RFC's Appendix B table
//! (a(w) to the integer, b(w) to two decimals); the interpolation through
//! (Low_P, High_P) that section 5 describes drifts from it by up to 3% at
//! large windows because the RFC rounded 0.078 and 1.2, so ccsim follows the
//! closed form (as Linux `tcp_highspeed.c` follows the table). On each ACK
//! cwnd += a(w) / w; on loss cwnd = (1 - b(w)) w. a(w) is cached per integer
//! window. Slow start is RFC 5681's (Limited Slow-Start, RFC 3742, is not
//! implemented).
//!
//! `variant = "ns3"` (the default under `compat = "ns3"`) is ns-3.44's
//! `TcpHighSpeed` ([`HighSpeedNs3`]): the Appendix B table in whole
//! segments instead of the closed forms.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// HighSpeed TCP parameters (RFC 3649 section 5).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedConfig {
    /// Low_Window, segments (default 38).
    pub low_window: f64,
    /// High_Window, segments (default 83000).
    pub high_window: f64,
    /// High_Decrease (default 0.1).
    pub high_decrease: f64,
    /// Which HighSpeed: "rfc3649" (this module's closed forms) or
    /// "linux-2.6.22" (the kernel's Appendix B table in integers, cwnd =
    /// ssthresh / 2 at a loss, as ns-2.35's `Agent/TCP/Linux` runs it:
    /// [`super::linux2622::LinuxHighSpeed`]; its table fixes the other
    /// parameters). Default "rfc3649"; "linux-2.6.22" with `linux_agent`
    /// (under `compat = "ns2"`); "ns3" ([`HighSpeedNs3`], ns-3.44's
    /// `TcpHighSpeed`, whose table also fixes them) under `compat = "ns3"`.
    pub variant: Option<HighSpeedVariant>,
}

/// The HighSpeed implementations (key `variant` of `highspeed`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum HighSpeedVariant {
    /// RFC 3649's closed forms.
    #[serde(rename = "rfc3649")]
    Rfc3649,
    /// Linux 2.6.22's `tcp_highspeed.c` (ns-2.35 `tcp/linux/src/tcp_highspeed.c`).
    #[serde(rename = "linux-2.6.22")]
    Linux2622,
    /// ns-3.44's `TcpHighSpeed` (`src/internet/model/tcp-highspeed.cc`).
    #[serde(rename = "ns3")]
    Ns3,
}

/// Build the HighSpeed that `variant` names (default: Linux 2.6.22's under
/// ns-2's `Agent/TCP/Linux`, ns-3's under `compat = "ns3"`).
pub fn build(cfg: HighSpeedConfig, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    let variant = cfg.variant.unwrap_or(if init.linux_agent {
        HighSpeedVariant::Linux2622
    } else if init.compat == crate::compat::Profile::Ns3 {
        HighSpeedVariant::Ns3
    } else {
        HighSpeedVariant::Rfc3649
    });
    let d = HighSpeedConfig::default();
    let tabled = match variant {
        HighSpeedVariant::Rfc3649 => None,
        HighSpeedVariant::Linux2622 => Some("linux-2.6.22"),
        HighSpeedVariant::Ns3 => Some("ns3"),
    };
    if let Some(name) = tabled {
        if cfg.low_window != d.low_window || cfg.high_window != d.high_window || cfg.high_decrease != d.high_decrease {
            return Err(ParamError::at(
                "variant",
                format!("variant \"{name}\" follows a fixed table: drop low_window, high_window and high_decrease"),
            ));
        }
    }
    crate::params::resolved(&HighSpeedConfig {
        variant: Some(variant),
        ..cfg.clone()
    });
    let hs = HighSpeed::new(cfg, init)?;
    Ok(match variant {
        HighSpeedVariant::Rfc3649 => Box::new(hs),
        HighSpeedVariant::Linux2622 => Box::new(super::linux2622::LinuxHighSpeed::new(init)),
        HighSpeedVariant::Ns3 => Box::new(HighSpeedNs3::new(init)),
    })
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83000.0,
            high_decrease: 0.1,
            variant: None,
        }
    }
}

impl HighSpeedConfig {
    /// b(w), the decrease fraction (RFC 3649 section 5).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }

    /// p(w) = 0.078 / w^1.2, the loss rate at which the response function
    /// gives window w (RFC 3649 section 5).
    pub fn p(&self, w: f64) -> f64 {
        0.078 / w.powf(1.2)
    }

    /// a(w), the increase per RTT (RFC 3649 section 5).
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// HighSpeed TCP.
pub struct HighSpeed {
    cfg: HighSpeedConfig,
    w: Window,
    cached_w: f64,
    cached_a: f64,
}

impl HighSpeed {
    /// Build from a config.
    pub fn new(cfg: HighSpeedConfig, init: &CcInit) -> Result<Self, ParamError> {
        check_range("low_window", cfg.low_window, 1.0, 1e9)?;
        check_range("high_window", cfg.high_window, cfg.low_window + 1.0, 1e12)?;
        check_range("high_decrease", cfg.high_decrease, 0.001, 0.5)?;
        Ok(HighSpeed {
            cfg,
            w: Window::new(init),
            cached_w: 0.0,
            cached_a: 1.0,
        })
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
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
            let wi = self.w.cwnd.floor();
            if wi != self.cached_w {
                self.cached_w = wi;
                self.cached_a = self.cfg.a(wi);
            }
            self.w.additive_increase(self.cached_a);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let w = ev.window;
        self.w.reduce((1.0 - self.cfg.b(w)) * w, ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let w = ev.flight;
        self.w.timeout((1.0 - self.cfg.b(w)) * w, ev);
    }
}

/// ns-3.44's table (`TcpHighSpeed::TableLookupA` and `TableLookupB`,
/// `tcp-highspeed.cc`): (w, b(w) in hundredths) for windows up to w; a(w) is
/// the row's number (1 to 73). RFC 3649's Appendix B with ns-3's rounding
/// of b and one row more than Linux's `hstcp_aimd_vals` (whose 53677 reads
/// 53667 here).
const NS3_TABLE: [(u32, u8); 73] = [
    (38, 50),
    (118, 44),
    (221, 41),
    (347, 38),
    (495, 37),
    (663, 35),
    (851, 34),
    (1058, 33),
    (1284, 32),
    (1529, 31),
    (1793, 30),
    (2076, 29),
    (2378, 28),
    (2699, 28),
    (3039, 27),
    (3399, 27),
    (3778, 26),
    (4177, 26),
    (4596, 25),
    (5036, 25),
    (5497, 24),
    (5979, 24),
    (6483, 23),
    (7009, 23),
    (7558, 22),
    (8130, 22),
    (8726, 22),
    (9346, 21),
    (9991, 21),
    (10661, 21),
    (11358, 20),
    (12082, 20),
    (12834, 20),
    (13614, 19),
    (14424, 19),
    (15265, 19),
    (16137, 19),
    (17042, 18),
    (17981, 18),
    (18955, 18),
    (19965, 17),
    (21013, 17),
    (22101, 17),
    (23230, 17),
    (24402, 16),
    (25618, 16),
    (26881, 16),
    (28193, 16),
    (29557, 15),
    (30975, 15),
    (32450, 15),
    (33986, 15),
    (35586, 14),
    (37253, 14),
    (38992, 14),
    (40808, 14),
    (42707, 13),
    (44694, 13),
    (46776, 13),
    (48961, 13),
    (51258, 13),
    (53667, 12),
    (56230, 12),
    (58932, 12),
    (61799, 12),
    (64851, 11),
    (68113, 11),
    (71617, 11),
    (75401, 10),
    (79517, 10),
    (84035, 10),
    (89053, 10),
    (94717, 9),
];

/// The row of ns-3's table for a window of `w` segments (the last row
/// beyond it).
fn ns3_row(w: u64) -> usize {
    NS3_TABLE
        .iter()
        .position(|&(max_w, _)| w <= max_w as u64)
        .unwrap_or(NS3_TABLE.len() - 1)
}

/// ns-3.44's `TcpHighSpeed` (`src/internet/model/tcp-highspeed.cc`), a
/// `TcpNewReno` with its own `CongestionAvoidance` and `GetSsThresh`:
///
/// - Slow start is `TcpNewReno::SlowStart`: one segment per ACK that
///   delivers any (`segmentsAcked >= 1`), the rest of the ACK's segments
///   going to congestion avoidance once cwnd reaches ssthresh
///   (`TcpNewReno::IncreaseWindow`). `TcpSocketBase::ProcessAck` passes the
///   segments newly delivered (SACKed ones included), and calls it also on
///   the ACK that ends fast recovery, after cwnd = ssthresh, with the
///   segments that ACK cumulatively acknowledged.
/// - Congestion avoidance (`CongestionAvoidance`): with segCwnd = cwnd in
///   whole segments, `m_ackCnt += segmentsAcked x a(segCwnd)` from the
///   table; while `m_ackCnt >= segCwnd`, take segCwnd off it and add one
///   segment. cwnd stays a whole number of segments; `m_ackCnt` is never
///   reset.
/// - A loss or timeout (`GetSsThresh`): with segCwnd = bytesInFlight /
///   segment size (the pipe the socket passes), ssthresh = uint(max(2,
///   segCwnd (1 - b(segCwnd)))) segments.
pub struct HighSpeedNs3 {
    w: Window,
    ack_cnt: u64,
}

impl HighSpeedNs3 {
    /// ns-3's HighSpeed with the initial window of `init`.
    pub fn new(init: &CcInit) -> Self {
        HighSpeedNs3 {
            w: Window::new(init),
            ack_cnt: 0,
        }
    }

    /// `GetSsThresh` for a pipe of `flight` segments.
    fn ssthresh_for(flight: f64) -> f64 {
        let seg = flight.floor().max(0.0) as u64;
        let b = 1.0 - NS3_TABLE[ns3_row(seg)].1 as f64 / 100.0;
        (seg as f64 * b).max(2.0).floor()
    }

    /// `TcpHighSpeed::CongestionAvoidance`.
    fn congestion_avoidance(&mut self, acked: u64) {
        let mut seg = self.w.cwnd.floor().max(1.0) as u64;
        let old = seg;
        if acked > 0 {
            self.ack_cnt += acked * (ns3_row(seg) as u64 + 1);
        }
        while self.ack_cnt >= seg {
            self.ack_cnt -= seg;
            seg += 1;
        }
        if seg != old {
            self.w.cwnd = seg as f64;
        }
    }
}

impl CongestionControl for HighSpeedNs3 {
    fn name(&self) -> &'static str {
        "highspeed"
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
        // `ProcessAck`: the exit from recovery (when the sender lets it grow
        // the window, `AckInfo::exit_growth`) passes the cumulatively
        // acknowledged segments, other ACKs the newly delivered ones.
        let mut acked = if ack.exited_recovery {
            ack.acked
        } else {
            ack.newly_delivered
        };
        // `TcpNewReno::IncreaseWindow`
        if self.w.cwnd < self.w.ssthresh {
            if acked == 0 {
                return;
            }
            self.w.cwnd += 1.0;
            acked -= 1;
        }
        if self.w.cwnd >= self.w.ssthresh {
            self.congestion_avoidance(acked);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.reduce(Self::ssthresh_for(ev.flight), ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        // `ReTxTimeout` asks `GetSsThresh` unless ssthresh is kept.
        let s = if ev.repeated {
            self.w.ssthresh
        } else {
            Self::ssthresh_for(ev.flight)
        };
        self.w.timeout(s, ev);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn rfc3649_appendix_b_table() {
        // (w, a(w), b(w)) rows of RFC 3649 Appendix B (also Linux
        // tcp_highspeed.c's table): a rounded to an integer, b to 2 decimals.
        let rows = [
            (38.0, 1.0, 0.50),
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (663.0, 6.0, 0.35),
            (851.0, 7.0, 0.34),
            (1058.0, 8.0, 0.33),
            (1284.0, 9.0, 0.32),
            (1529.0, 10.0, 0.31),
            (5036.0, 20.0, 0.25),
            (10661.0, 30.0, 0.21),
            (84035.0, 71.0, 0.10),
            (89053.0, 72.0, 0.10),
        ];
        let c = HighSpeedConfig::default();
        for (w, a, b) in rows {
            assert_eq!(c.a(w).round(), a, "a({w}) = {}", c.a(w));
            assert!((c.b(w) - b).abs() <= 0.005 + 1e-9, "b({w}) = {}", c.b(w));
        }
        // Low_Window is standard TCP.
        assert_eq!((c.a(20.0), c.b(20.0)), (1.0, 0.5));
        // The response function gives about High_P = 1e-7 at High_Window
        // and Low_P = 1e-3 at Low_Window (the RFC's constants are rounded).
        assert!((c.p(83000.0) / 1e-7 - 1.0).abs() < 0.03);
        assert!((c.p(38.0) / 1e-3 - 1.0).abs() < 0.03);
    }

    fn ns3_hs(cwnd: f64) -> HighSpeedNs3 {
        let mut h = HighSpeedNs3::new(&init(cwnd));
        h.w.ssthresh = 2.0;
        h
    }

    #[test]
    fn ns3_table_rows() {
        // TableLookupA / TableLookupB of tcp-highspeed.cc at row edges.
        let ab = |w: u64| (ns3_row(w) + 1, NS3_TABLE[ns3_row(w)].1);
        assert_eq!(ab(38), (1, 50));
        assert_eq!(ab(39), (2, 44));
        assert_eq!(ab(118), (2, 44));
        assert_eq!(ab(119), (3, 41));
        assert_eq!(ab(53667), (62, 12));
        assert_eq!(ab(94717), (73, 9));
        assert_eq!(ab(1_000_000), (73, 9));
        // GetSsThresh from the pipe: uint(87 x 0.56) = 48 (the closed
        // forms give 87 (1 - b(87)) = 47.2); uint(38 x 0.5) = 19; at
        // least 2.
        assert_eq!(HighSpeedNs3::ssthresh_for(87.9), 48.0);
        assert_eq!(HighSpeedNs3::ssthresh_for(38.0), 19.0);
        assert_eq!(HighSpeedNs3::ssthresh_for(3.0), 2.0);
    }

    #[test]
    fn ns3_grows_by_whole_segments_weighted_by_a() {
        // At 50 segments a = 2: 25 segments acknowledged add one segment
        // (RFC 3649's closed forms: a(50) = 1.2, 0.6 of a segment).
        let mut rng = crate::rng::stream(1, "t");
        let mut h = ns3_hs(50.0);
        let a = ack(1000, 100);
        for _ in 0..24 {
            h.on_ack(&a, &mut rng);
        }
        assert_eq!(h.cwnd(), 50.0, "48 of 50 counted: not yet");
        h.on_ack(&a, &mut rng);
        assert_eq!(h.cwnd(), 51.0);
        assert_eq!(h.ack_cnt, 0);
        // Below Low_Window it is NewReno: one segment per window.
        let mut h = ns3_hs(30.0);
        for _ in 0..30 {
            h.on_ack(&a, &mut rng);
        }
        assert_eq!(h.cwnd(), 31.0);
    }

    #[test]
    fn ns3_slow_start_is_one_segment_per_ack_and_the_recovery_exit_grows() {
        let mut rng = crate::rng::stream(1, "t");
        let mut h = HighSpeedNs3::new(&init(10.0));
        h.w.ssthresh = 12.0;
        let mut a = ack(1000, 100);
        a.acked = 2;
        a.newly_delivered = 2;
        h.on_ack(&a, &mut rng);
        assert_eq!(h.cwnd(), 11.0, "TcpNewReno::SlowStart: one segment per ACK");
        h.on_ack(&a, &mut rng);
        // cwnd reaches ssthresh: the ACK's second segment is counted in
        // congestion avoidance.
        assert_eq!((h.cwnd(), h.ack_cnt), (12.0, 1));
        // A loss with a pipe of 40: ssthresh = cwnd = uint(40 x 0.56) = 22.
        h.on_congestion_event(&loss(0, 40.0));
        assert_eq!((h.cwnd(), h.ssthresh()), (22.0, 22.0));
        // The ACK that ends recovery counts its cumulatively acknowledged
        // segments (ProcessAck calls IncreaseWindow after cwnd = ssthresh).
        let mut exit = ack(1100, 100);
        exit.acked = 21;
        exit.newly_delivered = 1;
        exit.exited_recovery = true;
        exit.exit_growth = true;
        h.on_ack(&exit, &mut rng);
        assert_eq!(
            (h.cwnd(), h.ack_cnt),
            (23.0, 0),
            "1 left + 21 = 22 counted at 22 segments"
        );
    }

    #[test]
    fn ns3_is_the_default_under_the_ns3_profile() {
        let mut i = init(50.0);
        i.initial_ssthresh = 2.0;
        i.compat = crate::compat::Profile::Ns3;
        let mut h = build(HighSpeedConfig::default(), &i).unwrap();
        let mut rng = crate::rng::stream(1, "t");
        for _ in 0..25 {
            h.on_ack(&ack(1000, 100), &mut rng);
        }
        assert_eq!(h.cwnd(), 51.0, "ns-3's table: 25 ACKs x a = 2 make one segment");
        let bad = HighSpeedConfig {
            high_decrease: 0.2,
            ..HighSpeedConfig::default()
        };
        assert!(build(bad, &i).is_err());
    }
}
