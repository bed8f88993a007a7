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
//!   Linux's `tcp_cong_avoid_ai`: one whole segment each time the count
//!   reaches w = cwnd in whole segments, at least 1; its `SlowStart` adds
//!   the segments acknowledged up to ssthresh only and passes the rest on,
//!   as Linux's `tcp_slow_start`).
//!
//! - The floor of every reduction (`min_ssthresh`): 2 segments, Linux's
//!   `dctcp_ssthresh` (`max(cwnd - ((cwnd * alpha) >> 11), 2U)`) and RFC
//!   5681's; 0 under `compat = "ns3"`, whose `TcpDctcp::GetSsThresh`
//!   returns `uint32((1 - alpha/2) cwnd)` with no floor, so a window of a
//!   segment or two falls below one segment after consecutive marks. The
//!   `ns3` sender then sends nothing until its retransmission timer
//!   expires (`sub_segment_window`, [`crate::tcp`]); below one segment
//!   congestion avoidance adds a segment per segment acknowledged
//!   (`TcpLinuxReno::CongestionAvoidance` floors `w` at 1).
//!
//! - ns-3's estimator (`estimator = "ns3"`, the default under `compat =
//!   "ns3"`): `TcpDctcp::PktsAcked` (`tcp-dctcp.cc`) starts the first window
//!   at the first ACK (`m_nextSeqFlag`) and closes a window once the ACK
//!   reaches `m_nextSeq` (`m_lastAckedSeq >= m_nextSeq`), one segment
//!   earlier than RFC 8257's "passes WindowEnd"; a duplicate ACK counts one
//!   segment acknowledged (`TcpSocketBase::ProcessAck`: "Artificially call
//!   PktsAcked"); and a segment counts as marked while the sender's ECN
//!   state is `ECN_ECE_RCVD`: from an ACK of new data with ECN-Echo until an
//!   ACK without it, or until the first new segment sent once the echo has
//!   passed the last segment sent with CWR (`SendDataPacket` then enters
//!   `ECN_CWR_SENT`), so a duplicate ACK with ECN-Echo counts as marked only
//!   while no new data has gone out since (`TcpSocketBase::ReceivedAck`).
//!   ns-3's receiver sends such duplicates on changes of CE state
//!   ([`crate::tcp::receiver`], `ce_change_ack`).
//! - ns-3's CWR state (`grow_in_cwr = false`, the default under `ns3`):
//!   after the reaction to an ECN-Echo (`TcpSocketBase::EnterCwr`) the
//!   window does not grow until an ACK passes the highest segment sent
//!   before it (`m_recover`; `ProcessAck`'s `CA_CWR` branch calls
//!   `PktsAcked` but not `IncreaseWindow`; `ReceivedAck` leaves `CA_CWR`
//!   when `ackNumber > m_recover`, and that ACK grows the window).
//!
//! Defaults: `g = 1/16` (RFC 8257 section 4.2; Linux `dctcp_shift_g = 4`,
//! ns-3 `DctcpShiftG = 0.0625`); initial alpha 1 (RFC 8257 leaves it to the
//! implementation; Linux's `dctcp_alpha_on_init` and ns-3's
//! `DctcpAlphaOnInit` are 1, the cautious choice for a new flow).
//!
//! A DCTCP flow is always ECN-capable and its receiver echoes every CE mark
//! (RFC 8257 section 3.2; [`crate::tcp::receiver`]), which the controller's
//! table row declares.
//!
//! `prague` is the same controller as an L4S scalable sender (TCP Prague's
//! essentials, RFC 9331 section 4 and draft-briscoe-iccrg-prague-congestion-control):
//! its packets carry ECT(1), so a DualPI2 queue ([`crate::queue::dualpi2`])
//! classifies them as L4S, and with `rtt_target` its additive increase is
//! RTT-independent: below the target RTT, the increase per round trip is
//! scaled by (srtt / rtt_target)^2, so that its rate grows as fast as a
//! flow's at the target RTT (the window of a Reno-like flow grows by one
//! segment per round trip, its rate by 1/RTT^2 per second).

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, Window, MIN_SSTHRESH};
use crate::compat::Profile;
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use crate::units::Time;
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
    /// Smallest ssthresh and window after a reduction, segments (default 2,
    /// Linux's `dctcp_ssthresh`; 0 under `ns3`: `TcpDctcp::GetSsThresh`
    /// has no floor).
    pub min_ssthresh: Option<f64>,
    /// The estimator updates alpha from an ACK before the window reacts
    /// to its ECN-Echo (default true: RFC 8257's steps and Linux's
    /// `tcp_ack`; false under `ns3`, whose `TcpSocketBase::ReceivedAck`
    /// enters CWR, calling `GetSsThresh`, before `ProcessAck` reaches
    /// `TcpDctcp::PktsAcked`).
    pub estimate_first: Option<bool>,
    /// RTT independence (Prague): scale the additive increase by
    /// (srtt / rtt_target)^2 while srtt is below it (default none).
    pub rtt_target: Option<Time>,
    /// The marked-fraction estimator: "rfc8257" (default) or "ns3"
    /// (ns-3's `TcpDctcp::PktsAcked` with the socket's ECN states; the
    /// default under `ns3`).
    pub estimator: Option<Estimator>,
    /// Grow the window in the round trip after a reaction to ECN-Echo
    /// (default true; false under `ns3`, whose `CA_CWR` state does not
    /// grow it).
    pub grow_in_cwr: Option<bool>,
}

/// Which marked-fraction estimator DCTCP runs (key `estimator`).
#[derive(Deserialize, Copy, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// RFC 8257 section 3.3 steps 1-8.
    Rfc8257,
    /// ns-3.44's `TcpDctcp::PktsAcked` (module documentation).
    Ns3,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            loss_response: None,
            growth_per_segment: None,
            min_ssthresh: None,
            estimate_first: None,
            rtt_target: None,
            estimator: None,
            grow_in_cwr: None,
        }
    }
}

/// ns-3's sender-side ECN state as `TcpDctcp::PktsAcked` reads it
/// (`estimator = "ns3"`).
#[derive(Copy, Clone, Debug, Default)]
struct Ns3EcnState {
    /// The first window has begun (`m_nextSeqFlag`).
    started: bool,
    /// `ECN_ECE_RCVD`.
    ece_rcvd: bool,
    /// `m_ecnEchoSeq`: the last ACK that carried a valid ECN-Echo.
    echo_seq: u64,
    /// `m_ecnCWRSeq`: the last segment sent with CWR.
    cwr_seq: Option<u64>,
    /// The highest segment sent (+1) when the previous ACK was processed.
    prev_snd_max: u64,
}

/// The DCTCP controller (and TCP Prague's).
pub struct Dctcp {
    name: &'static str,
    w: Window,
    rtt_target: Option<SimTime>,
    g: f64,
    alpha: f64,
    loss_response: LossResponse,
    per_segment: bool,
    /// Floor of every reduction, segments (`min_ssthresh`).
    min_ssthresh: f64,
    /// Segments acknowledged towards the next increase (`m_cWndCnt`).
    cwnd_cnt: f64,
    /// The estimator sees an ACK before the reaction to its ECN-Echo.
    estimate_first: bool,
    /// `DCTCP.WindowEnd`: the window closes when the cumulative ACK passes it (segments).
    window_end: u64,
    /// `DCTCP.BytesAcked` of the current window.
    bytes_acked: u64,
    /// `DCTCP.BytesMarked` of the current window.
    bytes_marked: u64,
    /// An ECN-Echo arrived on the ACK being processed: reduce after the
    /// estimator has seen that ACK.
    reduce_pending: Option<CongestionEvent>,
    /// ns-3's estimator state, if it runs.
    ns3: Option<Ns3EcnState>,
    /// Payload bytes of a segment (a duplicate ACK's count under `ns3`).
    mss: u64,
    /// Grow in the round trip after a reaction.
    grow_in_cwr: bool,
    /// In ns-3's `CA_CWR` until the cumulative ACK passes this (segments).
    cwr_until: Option<u64>,
}

impl Dctcp {
    /// Build from a config.
    pub fn new(cfg: DctcpConfig, init: &CcInit) -> Result<Self, ParamError> {
        let g = check_range("g", cfg.g, 1e-6, 1.0)?;
        let alpha = check_range("alpha_init", cfg.alpha_init, 0.0, 1.0)?;
        let ns3 = init.compat == Profile::Ns3;
        let min_ssthresh = check_range(
            "min_ssthresh",
            cfg.min_ssthresh.unwrap_or(if ns3 { 0.0 } else { MIN_SSTHRESH }),
            0.0,
            1e6,
        )?;
        if cfg.rtt_target.is_some_and(|t| t.0 == SimTime::ZERO) {
            return Err(ParamError::at("rtt_target", "must be greater than 0"));
        }
        Ok(Dctcp {
            name: "dctcp",
            w: Window::new(init),
            rtt_target: cfg.rtt_target.map(|t| t.0),
            g,
            alpha,
            loss_response: cfg
                .loss_response
                .unwrap_or(if ns3 { LossResponse::Alpha } else { LossResponse::Halve }),
            per_segment: cfg
                .growth_per_segment
                .unwrap_or(matches!(init.compat, Profile::Ns3 | Profile::Linux)),
            min_ssthresh,
            cwnd_cnt: 0.0,
            estimate_first: cfg.estimate_first.unwrap_or(!ns3),
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            reduce_pending: None,
            ns3: (cfg
                .estimator
                .unwrap_or(if ns3 { Estimator::Ns3 } else { Estimator::Rfc8257 })
                == Estimator::Ns3)
                .then(Ns3EcnState::default),
            mss: init.mss as u64,
            grow_in_cwr: cfg.grow_in_cwr.unwrap_or(!ns3),
            cwr_until: None,
        })
    }

    /// TCP Prague: the same controller, named `prague` (its row makes the
    /// flow send ECT(1)).
    pub fn prague(cfg: DctcpConfig, init: &CcInit) -> Result<Self, ParamError> {
        Dctcp::new(cfg, init).map(|d| Dctcp { name: "prague", ..d })
    }

    /// The current estimate of the fraction of marked data.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RFC 8257 section 3.3 steps 1-8 on one ACK (or ns-3's version).
    fn estimate(&mut self, ack: &AckInfo) {
        if let Some(st) = self.ns3.as_mut() {
            // `SendDataPacket`: the first new segment sent after a valid
            // echo newer than the last CWR leaves ECN_ECE_RCVD.
            if st.ece_rcvd && ack.snd_max > st.prev_snd_max && st.cwr_seq.is_none_or(|c| st.echo_seq > c) {
                st.ece_rcvd = false;
                st.cwr_seq = Some(st.prev_snd_max);
            }
            st.prev_snd_max = ack.snd_max;
            let advanced = ack.acked > 0;
            // `ReceivedAck`: ECE on an ACK of new data -> ECN_ECE_RCVD; an
            // ACK without it leaves that state.
            if advanced && ack.ece && ack.ack > st.echo_seq {
                st.echo_seq = ack.ack;
                st.ece_rcvd = true;
            } else if !ack.ece {
                st.ece_rcvd = false;
            }
            // `ProcessAck` passes a duplicate ACK to `PktsAcked` as one segment.
            let bytes = if advanced {
                ack.acked_bytes
            } else if ack.ack < ack.snd_max {
                self.mss
            } else {
                0
            };
            self.bytes_acked += bytes;
            if st.ece_rcvd {
                self.bytes_marked += bytes;
            }
            if !st.started {
                st.started = true;
                self.window_end = ack.snd_max;
            }
            if ack.ack < self.window_end {
                return;
            }
        } else {
            self.bytes_acked += ack.acked_bytes;
            if ack.ece {
                self.bytes_marked += ack.acked_bytes;
            }
            if ack.ack <= self.window_end {
                return;
            }
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

    /// ssthresh and cwnd = `s`, at least `min_ssthresh` (Linux's 2 segments
    /// through [`Window::reduce`]; below that ns-3's unfloored reduction).
    fn reduce(&mut self, s: f64, ev: &CongestionEvent) {
        if self.min_ssthresh >= MIN_SSTHRESH {
            self.w.reduce(s.max(self.min_ssthresh), ev);
        } else {
            self.w.ssthresh = s.max(self.min_ssthresh);
            self.w.cwnd = self.w.ssthresh;
        }
    }
}

impl CongestionControl for Dctcp {
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
        if self.estimate_first {
            self.estimate(ack);
        }
        if self.cwr_until.is_some_and(|r| ack.ack > r) {
            self.cwr_until = None;
        }
        if let Some(ev) = self.reduce_pending.take() {
            let s = self.scaled(&ev);
            self.reduce(s, &ev);
            if !self.grow_in_cwr {
                // `EnterCwr`: `m_recover = m_highTxMark`.
                self.cwr_until = Some(ack.snd_max);
            }
        }
        if !self.estimate_first {
            self.estimate(ack);
        }
        if !ack.may_raise_cwnd() || self.cwr_until.is_some() {
            return;
        }
        let mut n = if self.per_segment { ack.acked as f64 } else { 1.0 };
        if self.w.in_slow_start() && !self.per_segment {
            // RFC 5681 eq. (2).
            self.w.slow_start(ack.acked);
            return;
        }
        if self.w.in_slow_start() {
            // Per segment, up to ssthresh: Linux's `tcp_slow_start` (`cwnd
            // = min(cwnd + acked, ssthresh)`, the rest of `acked` returned
            // for `tcp_cong_avoid_ai`) and ns-3's `TcpLinuxReno::SlowStart`
            // (`min(cWnd + segmentsAcked x segmentSize, ssThresh)`, returning
            // `segmentsAcked - (cWnd - old) / segmentSize`, whole segments,
            // to `IncreaseWindow`'s congestion avoidance). Without the cap a
            // cumulative ACK after a long SACK recovery (hundreds of
            // segments) set cwnd to the whole receiver window.
            let before = self.w.cwnd;
            self.w.cwnd = (before + n).min(self.w.ssthresh);
            n -= (self.w.cwnd - before).floor();
            if self.w.in_slow_start() || n <= 0.0 {
                return;
            }
        }
        if let (Some(target), Some(srtt)) = (self.rtt_target, ack.srtt) {
            let r = (srtt.secs_f64() / target.secs_f64()).min(1.0);
            n *= r * r;
        }
        if self.per_segment && self.rtt_target.is_none() {
            // `TcpLinuxReno::CongestionAvoidance` (Linux's
            // `tcp_cong_avoid_ai`): a whole segment once the segments
            // acknowledged reach w = cwnd in whole segments, at least 1.
            let w = self.w.cwnd.floor().max(1.0);
            if self.cwnd_cnt >= w {
                self.cwnd_cnt = 0.0;
                self.w.cwnd += 1.0;
            }
            self.cwnd_cnt += n;
            if self.cwnd_cnt >= w {
                let delta = (self.cwnd_cnt / w).floor();
                self.cwnd_cnt -= delta * w;
                self.w.cwnd += delta;
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
        self.reduce(s, ev);
    }
    fn on_ecn(&mut self, ev: &CongestionEvent) {
        self.reduce_pending = Some(*ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.reduce_pending = None;
        self.cwr_until = None;
        let s = match self.loss_response {
            LossResponse::Halve => ev.flight / 2.0,
            LossResponse::Alpha => self.scaled(ev),
        };
        self.w.timeout(s.max(self.min_ssthresh), ev);
        if !ev.repeated {
            self.w.ssthresh = s.max(self.min_ssthresh);
        }
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
    fn prague_scales_its_increase_below_the_target_rtt() {
        let mut rng = stream(1, "t");
        let cfg = DctcpConfig {
            rtt_target: Some(Time(SimTime::from_millis(25))),
            ..DctcpConfig::default()
        };
        let mut i = init(10.0);
        i.initial_ssthresh = 5.0; // congestion avoidance from the start
        let mut p = Dctcp::prague(cfg, &i).unwrap();
        let mut d = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        assert_eq!((p.name(), d.name()), ("prague", "dctcp"));
        let mut a = ack(0, 5); // 5 ms RTT: (5/25)^2 = 1/25 of the increase
        a.srtt = Some(SimTime::from_millis(5));
        p.on_ack(&a, &mut rng);
        d.on_ack(&a, &mut rng);
        assert!((d.cwnd() - 10.1).abs() < 1e-12);
        assert!((p.cwnd() - (10.0 + 0.1 / 25.0)).abs() < 1e-12);
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

    #[test]
    fn ns3_reduction_has_no_floor_and_grows_by_whole_segments() {
        // ns-3's TcpDctcp::GetSsThresh: (1 - alpha/2) cwnd, no 2-segment
        // floor; TcpLinuxReno::CongestionAvoidance: +1 segment per w = max(
        // floor(cwnd), 1) segments acknowledged.
        let mut rng = stream(1, "t");
        let mut i = init(1.5);
        i.initial_ssthresh = 1.0;
        i.compat = Profile::Ns3;
        let mut c = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        let ev = loss(0, 1.5);
        c.on_ecn(&ev);
        c.on_ack(&acked(1, 2, true), &mut rng);
        // alpha 1 (the estimate runs after the reaction under ns3): 0.75.
        assert_eq!((c.cwnd(), c.ssthresh()), (0.75, 0.75));
        // Below one segment, w = 1: a whole segment per segment acknowledged
        // (by the ACK that passes the segments sent before the reaction).
        c.on_ack(&acked(3, 3, false), &mut rng);
        assert_eq!(c.cwnd(), 1.75);
        // Linux's floor of 2 segments by default.
        i.compat = Profile::Ccsim;
        let mut c = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        c.on_ecn(&ev);
        c.on_ack(&acked(1, 2, true), &mut rng);
        assert_eq!((c.cwnd(), c.ssthresh()), (2.0, 2.0));
    }

    #[test]
    fn per_segment_slow_start_stops_at_ssthresh_and_the_rest_goes_to_avoidance() {
        // A cumulative ACK of 150 segments (a long SACK recovery's end) in
        // slow start at cwnd 10, ssthresh 12: ns-3's TcpLinuxReno::SlowStart
        // sets cwnd = min(10 + 150, 12) and returns 150 - 2 = 148 segments
        // to CongestionAvoidance: w = 12, +floor(148 / 12) = 12 segments,
        // 4 counted over (Linux's tcp_slow_start and tcp_cong_avoid_ai alike).
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.initial_ssthresh = 12.0;
        i.compat = Profile::Ns3;
        let mut c = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        let mut a = acked(150, 200, false);
        a.acked = 150;
        a.acked_bytes = 150 * 1460;
        c.on_ack(&a, &mut rng);
        assert_eq!(c.cwnd(), 24.0);
        assert_eq!(c.cwnd_cnt, 4.0);
        // Within slow start, segment for segment.
        let mut c = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        c.on_ack(&acked(1, 200, false), &mut rng);
        assert_eq!(c.cwnd(), 11.0);
    }

    #[test]
    fn ns3_estimator_counts_duplicates_and_closes_at_the_window_end() {
        // ns-3's TcpDctcp::PktsAcked: the first ACK starts the window
        // (WindowEnd 3) without an update; a duplicate ACK counts one
        // segment, unmarked here; the ACK reaching 3 closes the window:
        // M = 2 marked of 1 + 1 + 2 segments.
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.compat = Profile::Ns3;
        let mut c = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        c.on_ack(&acked(1, 3, false), &mut rng);
        assert_eq!(c.alpha(), 1.0, "the first ACK only starts the window");
        let mut dup = acked(1, 3, false);
        dup.acked = 0;
        dup.acked_bytes = 0;
        c.on_ack(&dup, &mut rng);
        let mut last = acked(3, 5, true);
        last.acked = 2;
        last.acked_bytes = 2 * 1460;
        c.on_ack(&last, &mut rng);
        assert!((c.alpha() - (15.0 / 16.0 + 0.5 / 16.0)).abs() < 1e-12, "{}", c.alpha());
        // RFC 8257: the first ACK closes the initial window (WindowEnd 0),
        // duplicates count nothing, and ack 3 does not pass WindowEnd 3.
        i.compat = Profile::Ccsim;
        let mut r = Dctcp::new(DctcpConfig::default(), &i).unwrap();
        for a in [acked(1, 3, false), dup, last] {
            r.on_ack(&a, &mut rng);
        }
        assert_eq!(r.alpha(), 15.0 / 16.0);
    }

    #[test]
    fn ns3_does_not_grow_in_cwr() {
        // ns-3's CA_CWR: no IncreaseWindow until the ACK passes m_recover
        // (the highest segment sent at the reaction, 10 here).
        let mut rng = stream(1, "t");
        let mut i = init(4.0);
        i.initial_ssthresh = 2.0;
        i.compat = Profile::Ns3;
        let run = |grow_in_cwr: Option<bool>, rng: &mut SimRng| {
            let cfg = DctcpConfig {
                alpha_init: 0.0,
                grow_in_cwr,
                ..DctcpConfig::default()
            };
            let mut c = Dctcp::new(cfg, &i).unwrap();
            c.on_ecn(&loss(0, 4.0));
            c.on_ack(&acked(7, 10, true), rng);
            let mut seen = vec![c.cwnd()];
            for (a, m) in [(9, 12), (10, 12), (11, 13), (13, 15)] {
                let mut x = acked(a, m, false);
                x.acked = 2;
                x.acked_bytes = 2 * 1460;
                c.on_ack(&x, rng);
                seen.push(c.cwnd());
            }
            seen
        };
        // alpha 0: the reaction leaves 4 segments; whole-segment growth,
        // one per cwnd segments acknowledged, counting from the ACK that
        // passes 10 under ns3.
        assert_eq!(run(Some(true), &mut rng), vec![4.0, 4.0, 5.0, 5.0, 5.0]);
        assert_eq!(run(None, &mut rng), vec![4.0, 4.0, 4.0, 4.0, 5.0]);
    }

    #[test]
    fn ns3_reacts_to_ecn_echo_before_the_estimate() {
        // TcpSocketBase::ReceivedAck enters CWR (GetSsThresh with the old
        // alpha) before ProcessAck reaches TcpDctcp::PktsAcked.
        let mut rng = stream(1, "t");
        let mut i = init(10.0);
        i.initial_ssthresh = 5.0;
        let run = |compat: Profile, rng: &mut SimRng| {
            let mut i = i;
            i.compat = compat;
            let cfg = DctcpConfig {
                alpha_init: 0.0,
                ..DctcpConfig::default()
            };
            let mut c = Dctcp::new(cfg, &i).unwrap();
            let ev = loss(0, 10.0);
            c.on_ecn(&ev);
            // The first ACK closes the first window: alpha = 1/16 x 1.
            c.on_ack(&acked(1, 10, true), rng);
            c.ssthresh()
        };
        assert_eq!(run(Profile::Ccsim, &mut rng), 10.0 * (1.0 - 1.0 / 32.0));
        assert_eq!(run(Profile::Ns3, &mut rng), 10.0);
    }
}
