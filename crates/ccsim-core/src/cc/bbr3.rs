//! BBR v3, as specified by the IETF congestion control working group's
//! draft-ietf-ccwg-bbr-06 (Cardwell, Swett, Beshay, "BBR Congestion
//! Control", 6 July 2026; "the draft" below, section numbers are its own).
//! Where the draft leaves a detail open, ccsim follows the reference
//! implementation it names, Linux `net/ipv4/tcp_bbr.c` of google/bbr branch
//! v3 ("Linux" below, function names given).
//!
//! - Model (2.9, 5.5): `max_bw` = windowed max of delivery-rate samples over
//!   2 ProbeBW cycles (Nichols' filter, [`super::filter::MaxFilter`], with
//!   the cycle count as its clock; app-limited samples only when they raise
//!   it); `min_rtt` over 10 s, refreshed through ProbeRTT's 5 s
//!   `probe_rtt_min_delay` (5.3.4.3); the short-term model `bw_shortterm`,
//!   `inflight_shortterm` (the older drafts' and Linux's `bw_lo`,
//!   `inflight_lo`) and the long-term `inflight_longterm` (`inflight_hi`);
//!   `bw = min(max_bw, bw_shortterm)`, `bdp = bw * min_rtt`; `extra_acked`
//!   (5.5.9, max filter over 10 rounds, 1 in Startup).
//! - Startup (5.3.1): pacing gain 2.77, cwnd gain 2; exits when
//!   `max_bw` grew less than 25% for 3 non-app-limited rounds (the full-pipe
//!   estimator, 5.3.1.2), or on loss (5.3.1.3): with SACK, at the end of a
//!   round of fast recovery with at least 6 loss events and a loss rate
//!   above `loss_thresh` (Linux `bbr_check_loss_too_high_in_startup`,
//!   which counts ACKs that mark losses as the draft's "discontiguous lost
//!   ranges"); without SACK, on any loss in fast recovery. A loss exit sets
//!   `inflight_longterm = max(bdp, inflight_latest)`.
//! - Drain (5.3.2): pacing gain 0.5 until in flight <= `Inflight(1.0)` or
//!   3 rounds have passed.
//! - ProbeBW (5.3.3): DOWN (pacing 0.90) until in flight is at most the
//!   headroom target `(1 - 0.15) inflight_longterm` and the BDP; CRUISE
//!   (1.0) until it is time to probe: a uniformly random 2-3 s since the
//!   cycle began, or `min(bdp, cwnd, 63)` rounds (the round counter starts
//!   at a random 0 or 1) for Reno coexistence (5.3.3.8, `PickProbeWait`
//!   with the flow's random stream); REFILL (1.0) for one round after
//!   resetting the short-term model; UP (pacing 1.25, cwnd gain 2.25),
//!   raising `inflight_longterm` by 1, 2, 4, ... segments per round while
//!   cwnd-limited by it, until the bandwidth plateaus (the full-pipe
//!   estimator again), the loss rate exceeds `loss_thresh`, or, after a
//!   probe that went too high, in flight reaches `inflight_longterm`
//!   (precautionary probing, 5.3.3.6).
//! - Loss response: while probing (REFILL/UP samples) a loss rate over the
//!   round trip above `loss_thresh` (2%), `RS.lost > RS.tx_in_flight *
//!   loss_thresh` (any loss without SACK), sets `inflight_longterm =
//!   max(RS.tx_in_flight, beta * min(bdp, cwnd))` and ends UP (5.5.10.2);
//!   when not probing, each round with a loss sets `bw_shortterm =
//!   max(bw_latest, beta bw_shortterm)` and `inflight_shortterm =
//!   max(inflight_latest, beta inflight_shortterm)` with beta = 0.7
//!   (5.5.10.3). The loss rate is evaluated for each lost segment
//!   (`HandleLostPacket`, [`CongestionControl::on_packet_lost`]) with the
//!   in-flight and loss counts the sender recorded when it was sent, and
//!   `inflight_longterm` starts from `InflightAtLoss`, the in-flight level
//!   at which the loss rate crossed the threshold (Linux
//!   `bbr_inflight_hi_from_lost_skb` clamps a negative prefix to 0; the
//!   draft's formula does not, nor does ccsim).
//! - ProbeRTT (5.3.4): entered when `probe_rtt_min_delay` is 5 s old; cwnd
//!   capped at `max(0.5 bdp, 4)` for max(200 ms, one round) after in flight
//!   reaches it; exits to ProbeBW (DOWN then at once CRUISE) or Startup.
//! - Control (5.6): pacing rate `gain * bw * 0.99`, never lowered before the
//!   pipe is full, initially `2.77 * InitialCwnd / (srtt or 1 ms)` and
//!   re-initialised from the first srtt (Linux `bbr_set_pacing_rate`);
//!   send quantum `clamp(pacing_rate * 1 ms, 2 SMSS, 64 KB)`; cwnd grows by
//!   the segments delivered towards `max_inflight = QuantizationBudget(bdp *
//!   cwnd_gain + extra_acked)` (offload budget 3 quanta, floor 4, +2 in UP),
//!   then is bounded by the state's volume cap (5.6.4.7: `inflight_longterm`
//!   in DOWN/REFILL/UP, its headroom target in CRUISE and ProbeRTT,
//!   `inflight_shortterm` always).
//! - Recovery (5.6.4.4): cwnd is saved when fast recovery or a timeout
//!   starts and restored on exit; a timeout sets cwnd to in flight + 1,
//!   i.e. 1 (the sender deems everything outstanding lost). The draft has
//!   no packet conservation (its BBRv1-era predecessor,
//!   draft-cardwell-iccrg-bbr-congestion-control-00 section 4.2.3.4, and
//!   Linux v1 had it): key `packet_conservation = true` restores it (cwnd =
//!   in flight + delivered for the first round of fast recovery).
//! - ECN (3.7): the draft specifies no ECN response but requires CE marks
//!   to be treated as congestion; ccsim counts an ECN-Echo as a loss event
//!   of the round (`NoteLoss`), so the short-term model backs off by beta
//!   once per round. Linux v3's DCTCP-style `ecn_alpha` response (its own,
//!   for low-RTT ECN paths only) is not modelled.
//!
//! Not modelled: the restart from idle (5.4: the controller has no
//! per-transmit hook), `MarkConnectionAppLimited` in ProbeRTT (the
//! controller cannot mark the sender's estimator), and the undo of spurious
//! recoveries (5.5.11: ccsim's sender detects none).

use super::filter::MaxFilter;
use super::{check_range, AckInfo, CaState, CcInit, CongestionControl, CongestionEvent, LostPacket, RateSample};
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use crate::units::Time;
use rand::Rng;
use serde::Deserialize;

/// BBR.MinPipeCwnd (2.8): 4 segments.
pub const MIN_PIPE_CWND: f64 = 4.0;

/// BBR v3 parameters (draft-ietf-ccwg-bbr-06 defaults; section in brackets).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct Bbr3Config {
    /// BBR.StartupPacingGain, 4 ln 2 = 2.77 [2.5].
    pub startup_pacing_gain: f64,
    /// BBR.DefaultCwndGain, 2 [2.6].
    pub cwnd_gain: f64,
    /// BBR.DrainPacingGain, 0.5 [2.5] (Linux v3: 1/2.885).
    pub drain_pacing_gain: f64,
    /// ProbeBW_DOWN pacing gain, 0.90 [5.3.3.1] (Linux v3: 0.91).
    pub down_pacing_gain: f64,
    /// ProbeBW_UP pacing gain, 1.25 [5.3.3.5].
    pub up_pacing_gain: f64,
    /// ProbeBW_UP cwnd gain, 2.25 [5.3.3.5].
    pub up_cwnd_gain: f64,
    /// BBR.LossThresh, the highest loss rate per round trip tolerated
    /// while probing, 0.02 [2.8].
    pub loss_thresh: f64,
    /// BBR.Beta, the multiplicative decrease per lossy round, 0.7 [2.8].
    pub beta: f64,
    /// BBR.Headroom, the fraction of `inflight_longterm` left free, 0.15 [2.8].
    pub headroom: f64,
    /// BBR.MinRTTFilterLen, 10 s [2.16.1].
    pub min_rtt_win: Time,
    /// BBR.ProbeRTTInterval, 5 s [2.16.2].
    pub probe_rtt_interval: Time,
    /// BBR.ProbeRTTDuration, 200 ms [2.16.2].
    pub probe_rtt_duration: Time,
    /// BBR.ProbeRTTCwndGain, 0.5 [2.16.2].
    pub probe_rtt_cwnd_gain: f64,
    /// BBRStartupFullLossCnt, loss events in a round of recovery that may
    /// end Startup, 6 [5.3.1.3].
    pub startup_full_loss_cnt: u32,
    /// Most rounds between bandwidth probes (T_reno bound), 63 [5.3.3.8].
    pub bw_probe_max_rounds: u64,
    /// Least wall-clock time between bandwidth probes (T_bbr), 2 s [5.3.3.8].
    pub bw_probe_base: Time,
    /// Random spread added to `bw_probe_base`, uniform over [0, 1 s) [5.3.3.8].
    pub bw_probe_rand: Time,
    /// BBR.ExtraAckedFilterLen, rounds, 10 [2.12] (Linux v3: 5).
    pub extra_acked_rounds: u64,
    /// Packet conservation in the first round of fast recovery (not in the
    /// draft; its predecessor's and Linux v1's), default false.
    pub packet_conservation: bool,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            startup_pacing_gain: 2.77,
            cwnd_gain: 2.0,
            drain_pacing_gain: 0.5,
            down_pacing_gain: 0.90,
            up_pacing_gain: 1.25,
            up_cwnd_gain: 2.25,
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            min_rtt_win: Time(SimTime::from_secs(10)),
            probe_rtt_interval: Time(SimTime::from_secs(5)),
            probe_rtt_duration: Time(SimTime::from_millis(200)),
            probe_rtt_cwnd_gain: 0.5,
            startup_full_loss_cnt: 6,
            bw_probe_max_rounds: 63,
            bw_probe_base: Time(SimTime::from_secs(2)),
            bw_probe_rand: Time(SimTime::from_secs(1)),
            extra_acked_rounds: 10,
            packet_conservation: false,
        }
    }
}

/// BBR.state (5.1.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Exponential search for the bandwidth.
    Startup,
    /// Drain the Startup queue.
    Drain,
    /// ProbeBW_DOWN: decelerate to drain and leave headroom.
    ProbeBwDown,
    /// ProbeBW_CRUISE: send at the estimated bandwidth.
    ProbeBwCruise,
    /// ProbeBW_REFILL: refill the pipe for one round before probing.
    ProbeBwRefill,
    /// ProbeBW_UP: accelerate to probe for bandwidth.
    ProbeBwUp,
    /// ProbeRTT: cut in flight to half the BDP to measure min_rtt.
    ProbeRtt,
}

impl State {
    fn is_probe_bw(self) -> bool {
        matches!(
            self,
            State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp
        )
    }
}

/// BBR.ack_phase (2.14): what the ACKs arriving now say about bandwidth probing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBR v3.
pub struct Bbr3 {
    cfg: Bbr3Config,
    init_cwnd: f64,
    mss: u32,
    wire_size: u32,
    sack: bool,
    cwnd: f64,
    ssthresh: f64,
    state: State,
    /// C.pacing_rate, segments per second.
    pacing_pps: f64,
    has_seen_rtt: bool,
    // Round counting (5.5.1).
    next_round_delivered: u64,
    round_start: bool,
    round_count: u64,
    rounds_since_probe_up: u64,
    delivered: u64,
    // The model (2.9).
    max_bw_filter: MaxFilter,
    cycle_count: u64,
    bw: f64,
    bw_shortterm: f64,
    inflight_shortterm: f64,
    inflight_longterm: f64,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: Option<SimTime>,
    extra_acked_filter: MaxFilter,
    extra_acked_interval_start: Option<SimTime>,
    extra_acked_delivered: f64,
    // Startup (2.13).
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: f64,
    full_bw_count: u32,
    drain_start_round: u64,
    loss_events_in_round: u32,
    // ProbeBW (2.14).
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    bw_probe_up_acked: f64,
    probe_up_acked_per_inc: f64,
    bw_probe_up_rounds: u32,
    bw_probe_wait: SimTime,
    cycle_stamp: SimTime,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,
    // Congestion signals (2.10, 5.5.10.3).
    is_loss_in_round: bool,
    loss_round_delivered: u64,
    loss_round_start: bool,
    bw_latest: f64,
    inflight_latest: f64,
    // ProbeRTT (2.16).
    probe_rtt_min_delay: Option<SimTime>,
    probe_rtt_min_stamp: Option<SimTime>,
    probe_rtt_expired: bool,
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    // Recovery (5.6.4.4).
    prior_cwnd: f64,
    prev_ca_state: CaState,
    packet_conservation: bool,
}

impl Bbr3 {
    /// Build from a config; `init.sack` tells whether losses can be
    /// counted per round (C.has_selective_acks).
    pub fn new(cfg: Bbr3Config, init: &CcInit) -> Result<Self, ParamError> {
        check_range("startup_pacing_gain", cfg.startup_pacing_gain, 1.0, 100.0)?;
        check_range("cwnd_gain", cfg.cwnd_gain, 1.0, 100.0)?;
        check_range("drain_pacing_gain", cfg.drain_pacing_gain, 0.01, 1.0)?;
        check_range("down_pacing_gain", cfg.down_pacing_gain, 0.01, 1.0)?;
        check_range("up_pacing_gain", cfg.up_pacing_gain, 1.0, 100.0)?;
        check_range("up_cwnd_gain", cfg.up_cwnd_gain, 1.0, 100.0)?;
        check_range("loss_thresh", cfg.loss_thresh, 0.0, 0.99)?;
        check_range("beta", cfg.beta, 0.0, 1.0)?;
        check_range("headroom", cfg.headroom, 0.0, 0.99)?;
        check_range("probe_rtt_cwnd_gain", cfg.probe_rtt_cwnd_gain, 0.0, 100.0)?;
        if cfg.probe_rtt_interval.0 > cfg.min_rtt_win.0 {
            return Err(ParamError::at(
                "probe_rtt_interval",
                "expected at most min_rtt_win (the min_rtt filter must cover a ProbeRTT interval, section 5.3.4.2)",
            ));
        }
        if cfg.extra_acked_rounds == 0 {
            return Err(ParamError::at("extra_acked_rounds", "expected at least 1 round"));
        }
        let mut b = Bbr3 {
            init_cwnd: init.initial_cwnd,
            mss: init.mss,
            wire_size: init.wire_size,
            sack: init.sack,
            cwnd: init.initial_cwnd,
            ssthresh: f64::INFINITY,
            state: State::Startup,
            pacing_pps: 0.0,
            has_seen_rtt: false,
            next_round_delivered: 0,
            round_start: false,
            round_count: 0,
            rounds_since_probe_up: 0,
            delivered: 0,
            max_bw_filter: MaxFilter::default(),
            cycle_count: 0,
            bw: 0.0,
            bw_shortterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            inflight_longterm: f64::INFINITY,
            min_rtt: None,
            min_rtt_stamp: None,
            extra_acked_filter: MaxFilter::default(),
            extra_acked_interval_start: None,
            extra_acked_delivered: 0.0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_count: 0,
            drain_start_round: 0,
            loss_events_in_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0.0,
            probe_up_acked_per_inc: f64::INFINITY,
            bw_probe_up_rounds: 0,
            bw_probe_wait: SimTime::ZERO,
            cycle_stamp: SimTime::ZERO,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            is_loss_in_round: false,
            loss_round_delivered: 0,
            loss_round_start: false,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: None,
            probe_rtt_expired: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            cfg,
        };
        b.init_pacing_rate(None);
        Ok(b)
    }

    /// BBR.state.
    pub fn state(&self) -> State {
        self.state
    }
    /// BBR.max_bw, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.max_bw_filter.get()
    }
    /// BBR.bw = min(max_bw, bw_shortterm), segments per second.
    pub fn bw(&self) -> f64 {
        self.bw
    }
    /// BBR.min_rtt.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
    /// BBR.inflight_longterm, segments (infinite until a probe loses too much).
    pub fn inflight_longterm(&self) -> f64 {
        self.inflight_longterm
    }
    /// BBR.inflight_shortterm, segments (infinite outside lossy rounds).
    pub fn inflight_shortterm(&self) -> f64 {
        self.inflight_shortterm
    }
    /// BBR.bw_shortterm, segments per second.
    pub fn bw_shortterm(&self) -> f64 {
        self.bw_shortterm
    }
    /// BBR.full_bw_reached.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// BBR.round_count.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    /// (BBR.pacing_gain, BBR.cwnd_gain) of a state (5.6.1's table).
    fn gains(&self) -> (f64, f64) {
        let c = &self.cfg;
        match self.state {
            State::Startup => (c.startup_pacing_gain, c.cwnd_gain),
            State::Drain => (c.drain_pacing_gain, c.cwnd_gain),
            State::ProbeBwDown => (c.down_pacing_gain, c.cwnd_gain),
            State::ProbeBwCruise | State::ProbeBwRefill => (1.0, c.cwnd_gain),
            State::ProbeBwUp => (c.up_pacing_gain, c.up_cwnd_gain),
            State::ProbeRtt => (1.0, c.probe_rtt_cwnd_gain),
        }
    }

    // ---- Pacing and volume (5.6) ----

    /// `InitPacingRate` (5.6.2).
    fn init_pacing_rate(&mut self, srtt: Option<SimTime>) {
        let rtt = match srtt {
            Some(r) => {
                self.has_seen_rtt = true;
                r.secs_f64().max(1e-6)
            }
            None => 1e-3,
        };
        self.pacing_pps = self.cfg.startup_pacing_gain * self.init_cwnd / rtt;
    }

    /// `SetPacingRateWithGain` (5.6.2), with Linux's re-initialisation from
    /// the first srtt (`bbr_set_pacing_rate`).
    fn set_pacing_rate(&mut self, gain: f64, srtt: Option<SimTime>) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(srtt);
        }
        let rate = gain * self.bw * 0.99;
        if self.full_bw_reached || rate > self.pacing_pps {
            self.pacing_pps = rate;
        }
    }

    /// C.send_quantum in segments (5.6.3): pacing rate * 1 ms within [2 SMSS, 64 KB].
    fn send_quantum(&self) -> f64 {
        (self.pacing_pps * 1e-3).min(65536.0 / self.mss as f64).max(2.0)
    }

    /// BBR.bdp = bw * min_rtt, or the initial window before an RTT sample.
    fn bdp_of(&self, bw: f64) -> f64 {
        match self.min_rtt {
            Some(r) => bw * r.secs_f64(),
            None => self.init_cwnd,
        }
    }

    /// `BDPMultiple(gain)` (5.6.4.2) with the bandwidth `bw`.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            Some(_) => gain * self.bdp_of(bw),
            None => self.init_cwnd,
        }
    }

    /// `QuantizationBudget` (5.6.4.2; TCP offload budget 3 quanta, 5.5.8.1).
    fn quantization_budget(&self, cap: f64) -> f64 {
        let mut c = cap.max(3.0 * self.send_quantum()).max(MIN_PIPE_CWND);
        if self.state == State::ProbeBwUp {
            c += 2.0;
        }
        c
    }

    /// `Inflight(bw, gain)` (5.6.4.2).
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// `TargetInflight` (5.3.3.8): min(bdp, cwnd).
    fn target_inflight(&self) -> f64 {
        self.bdp_of(self.bw).min(self.cwnd)
    }

    /// `InflightWithHeadroom` (5.3.3.9).
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.cfg.headroom * self.inflight_longterm).max(1.0);
        (self.inflight_longterm - headroom).max(MIN_PIPE_CWND)
    }

    /// `ProbeRTTCwnd` (5.6.4.5).
    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, self.cfg.probe_rtt_cwnd_gain)
            .max(MIN_PIPE_CWND)
    }

    // ---- Rounds and the bandwidth model (5.5) ----

    /// `StartRound` (5.5.1).
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// `UpdateRound` (5.5.1).
    fn update_round(&mut self, rs: &RateSample) {
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
        } else {
            self.round_start = false;
        }
    }

    /// `UpdateMaxBw` (5.5.5): windowed max over BBR.MaxBwFilterLen = 2 cycles.
    fn update_max_bw(&mut self, rs: &RateSample, rate: f64) {
        self.update_round(rs);
        if rate > 0.0 && (rate >= self.max_bw() || !rs.app_limited) {
            self.max_bw_filter.update(2, self.cycle_count, rate);
        }
    }

    /// `UpdateACKAggregation` (5.5.9).
    fn update_ack_aggregation(&mut self, now: SimTime, newly_acked: f64) {
        let start = *self.extra_acked_interval_start.get_or_insert(now);
        let mut expected = self.bw * (now - start).secs_f64();
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = Some(now);
            expected = 0.0;
        }
        self.extra_acked_delivered += newly_acked;
        let extra = (self.extra_acked_delivered - expected).min(self.cwnd);
        let len = if self.full_bw_reached {
            self.cfg.extra_acked_rounds
        } else {
            1
        };
        self.extra_acked_filter.update(len, self.round_count, extra);
    }

    // ---- Congestion signals (5.5.10) ----

    /// `NoteLoss` (5.5.10.2).
    fn note_loss(&mut self) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.delivered;
            self.save_cwnd();
        }
        self.is_loss_in_round = true;
    }

    /// `IsInflightTooHigh` (5.5.10.2).
    fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        rs.lost as f64 > rs.tx_in_flight as f64 * self.cfg.loss_thresh || (rs.lost > 0 && !self.sack)
    }

    /// `HandleInflightTooHigh` (5.5.10.2), `tx_in_flight` the in-flight
    /// level found too high.
    fn handle_inflight_too_high(&mut self, tx_in_flight: f64, app_limited: bool, now: SimTime, rng: &mut SimRng) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !app_limited {
            self.inflight_longterm = tx_in_flight.max(self.target_inflight() * self.cfg.beta);
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(now, rng);
        }
    }

    /// `UpdateLatestDeliverySignals` (5.5.10.3).
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, rate: f64) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// `AdvanceLatestDeliverySignals` (5.5.10.3).
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample, rate: f64) {
        if self.loss_round_start {
            self.bw_latest = rate;
            self.inflight_latest = rs.delivered as f64;
        }
    }

    /// `ResetCongestionSignals` (5.5.10.3).
    fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// `ResetShortTermModel` (5.5.10.3).
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }

    /// `UpdateCongestionSignals` with `AdaptLowerBoundsFromCongestion`,
    /// `InitLowerBounds` and `LossLowerBounds` (5.5.10.3).
    fn update_congestion_signals(&mut self, rs: &RateSample, rate: f64) {
        self.update_max_bw(rs, rate);
        if !self.loss_round_start {
            return;
        }
        let probing = matches!(self.state, State::Startup | State::ProbeBwRefill | State::ProbeBwUp);
        if !probing && self.is_loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm.is_infinite() {
                self.inflight_shortterm = self.cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.cfg.beta * self.bw_shortterm);
            self.inflight_shortterm = self.inflight_latest.max(self.cfg.beta * self.inflight_shortterm);
        }
        self.is_loss_in_round = false;
    }

    // ---- Startup and Drain (5.3.1, 5.3.2) ----

    /// `ResetFullBW` (5.3.1.2).
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// `CheckFullBWReached` (5.3.1.2).
    fn check_full_bw_reached(&mut self, rs: &RateSample, rate: f64) {
        if self.full_bw_now || !self.round_start || rs.app_limited {
            return;
        }
        if rate >= self.full_bw * 1.25 {
            self.reset_full_bw();
            self.full_bw = rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= 3;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// `CheckStartupHighLoss` (5.3.1.3), as Linux's
    /// `bbr_check_loss_too_high_in_startup`.
    fn check_startup_high_loss(&mut self, ack: &AckInfo, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if ack.losses > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        let in_recovery = ack.state == CaState::Recovery;
        let too_high = if self.sack {
            self.loss_round_start
                && in_recovery
                && self.loss_events_in_round >= self.cfg.startup_full_loss_cnt
                && self.is_inflight_too_high(rs)
        } else {
            in_recovery && ack.losses > 0
        };
        if too_high {
            self.full_bw_reached = true;
            self.inflight_longterm = self.bdp_of(self.bw).max(self.inflight_latest);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `CheckStartupDone` and `EnterDrain` (5.3.1, 5.3.2).
    fn check_startup_done(&mut self, ack: &AckInfo, rs: &RateSample) {
        self.check_startup_high_loss(ack, rs);
        if self.state == State::Startup && self.full_bw_reached {
            self.state = State::Drain;
            self.drain_start_round = self.round_count;
            // Exported for monitoring only, as Linux's `bbr_check_drain`.
            self.ssthresh = self.inflight(self.max_bw(), 1.0);
        }
    }

    /// `CheckDrainDone` (5.3.2).
    fn check_drain_done(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        if self.state == State::Drain
            && (ack.in_flight as f64 <= self.inflight(self.bw, 1.0) || self.round_count > self.drain_start_round + 3)
        {
            self.start_probe_bw_down(ack.now, rng);
        }
    }

    // ---- ProbeBW (5.3.3) ----

    /// `PickProbeWait` (5.3.3.8): 0 or 1 rounds already counted, and a
    /// wall-clock wait uniform in [base, base + rand).
    fn pick_probe_wait(&mut self, rng: &mut SimRng) {
        self.rounds_since_probe_up = rng.random_range(0..2u64);
        let spread = self.cfg.bw_probe_rand.0.secs_f64() * rng.random::<f64>();
        self.bw_probe_wait = self.cfg.bw_probe_base.0 + SimTime::from_secs_f64(spread);
    }

    /// `EnterProbeBW` and `StartProbeBW_DOWN` (5.3.3.9).
    fn start_probe_bw_down(&mut self, now: SimTime, rng: &mut SimRng) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = f64::INFINITY;
        self.pick_probe_wait(rng);
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.state = State::ProbeBwDown;
    }

    /// `StartProbeBW_REFILL` (5.3.3.9).
    fn start_probe_bw_refill(&mut self) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0.0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.state = State::ProbeBwRefill;
    }

    /// `StartProbeBW_UP` (5.3.3.9).
    fn start_probe_bw_up(&mut self, rate: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = rate;
        self.state = State::ProbeBwUp;
        self.raise_inflight_longterm_slope();
    }

    /// `RaiseInflightLongtermSlope` (5.3.3.9).
    fn raise_inflight_longterm_slope(&mut self) {
        let growth_this_round = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = (self.cwnd / growth_this_round).max(1.0);
    }

    /// `ProbeInflightLongtermUpward` (5.3.3.9).
    fn probe_inflight_longterm_upward(&mut self, ack: &AckInfo) {
        if !ack.cwnd_limited || self.cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += ack.acked_sacked() as f64;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = (self.bw_probe_up_acked / self.probe_up_acked_per_inc).floor();
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope();
        }
    }

    /// `AdaptLongTermModel` (5.3.3.9); true if it decided a transition.
    fn adapt_long_term_model(&mut self, ack: &AckInfo, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !rs.app_limited {
                self.cycle_count += 1; // AdvanceMaxBwFilter (5.5.6)
            }
            if self.state.is_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high {
                self.start_probe_bw_refill();
                return true;
            }
        }
        if self.is_inflight_too_high(rs) || self.inflight_longterm.is_infinite() {
            return false;
        }
        if rs.tx_in_flight as f64 > self.inflight_longterm {
            self.inflight_longterm = rs.tx_in_flight as f64;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_longterm_upward(ack);
        }
        false
    }

    /// `IsTimeToProbeBW` with `IsRenoCoexistenceProbeTime` (5.3.3.8).
    fn is_time_to_probe_bw(&mut self, now: SimTime) -> bool {
        let rounds = self.target_inflight().min(self.cfg.bw_probe_max_rounds as f64);
        if now > self.cycle_stamp + self.bw_probe_wait || self.rounds_since_probe_up as f64 >= rounds {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    /// `IsTimeToCruise` (5.3.3.9).
    fn is_time_to_cruise(&self, inflight: f64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0)
    }

    /// `IsTimeToGoDown` (5.3.3.9).
    fn is_time_to_go_down(&mut self, ack: &AckInfo, rate: f64) -> bool {
        if self.prev_probe_too_high && ack.in_flight as f64 >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if ack.cwnd_limited && self.cwnd >= self.inflight_longterm {
            self.reset_full_bw();
            self.full_bw = rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// `UpdateProbeBWCyclePhase` (5.3.3.9).
    fn update_probe_bw_cycle_phase(&mut self, ack: &AckInfo, rs: &RateSample, rate: f64, rng: &mut SimRng) {
        if !self.full_bw_reached || self.adapt_long_term_model(ack, rs) {
            return;
        }
        let state = self.state;
        match state {
            // IsTimeToProbeBW first: it may start REFILL.
            State::ProbeBwDown
                if !self.is_time_to_probe_bw(ack.now) && self.is_time_to_cruise(ack.in_flight as f64) =>
            {
                self.state = State::ProbeBwCruise;
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw(ack.now);
            }
            // After one round of REFILL, start UP.
            State::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(rate);
            }
            State::ProbeBwUp if self.is_time_to_go_down(ack, rate) => {
                self.prev_probe_too_high = false;
                self.start_probe_bw_down(ack.now, rng);
            }
            _ => {}
        }
    }

    // ---- ProbeRTT (5.3.4) ----

    /// `UpdateMinRTT` (5.3.4.3).
    fn update_min_rtt(&mut self, ack: &AckInfo) {
        let now = ack.now;
        let stamp = *self.probe_rtt_min_stamp.get_or_insert(now);
        self.probe_rtt_expired = now > stamp + self.cfg.probe_rtt_interval.0;
        if let Some(r) = ack.rtt {
            if self.probe_rtt_min_delay.is_none_or(|d| r < d) || self.probe_rtt_expired {
                self.probe_rtt_min_delay = Some(r);
                self.probe_rtt_min_stamp = Some(now);
            }
        }
        let min_stamp = *self.min_rtt_stamp.get_or_insert(now);
        let min_rtt_expired = now > min_stamp + self.cfg.min_rtt_win.0;
        if let Some(d) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.min_rtt = Some(d);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// `CheckProbeRTT`, `EnterProbeRTT` and `HandleProbeRTT` (5.3.4.3).
    fn check_probe_rtt(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        if self.state != State::ProbeRtt && self.probe_rtt_expired {
            self.state = State::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state != State::ProbeRtt {
            return;
        }
        match self.probe_rtt_done_stamp {
            None if ack.in_flight as f64 <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done_stamp = Some(ack.now + self.cfg.probe_rtt_duration.0);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && ack.now > done {
                    // CheckProbeRTTDone: schedule the next ProbeRTT, RestoreCwnd, ExitProbeRTT.
                    self.probe_rtt_min_stamp = Some(ack.now);
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    self.reset_short_term_model();
                    if self.full_bw_reached {
                        self.start_probe_bw_down(ack.now, rng);
                        self.state = State::ProbeBwCruise;
                    } else {
                        self.state = State::Startup;
                    }
                }
            }
            None => {}
        }
    }

    // ---- cwnd (5.6.4) ----

    /// `SaveCwnd` (5.6.4.4).
    fn save_cwnd(&mut self) {
        if self.prev_ca_state == CaState::Open && self.state != State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Recovery entry and exit seen on this ACK: `RestoreCwnd` on exit
    /// (5.6.4.4); with `packet_conservation`, cwnd = in flight + delivered
    /// for the first round of fast recovery.
    fn handle_recovery(&mut self, ack: &AckInfo) {
        let (prev, now) = (self.prev_ca_state, ack.state);
        let delivered = ack.acked_sacked() as f64;
        if self.cfg.packet_conservation && now == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.start_round();
            self.cwnd = ack.in_flight as f64 + delivered.max(1.0);
        } else if prev != CaState::Open && now == CaState::Open {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = now;
    }

    /// `SetCwnd` with `UpdateMaxInflight`, `BoundCwndForProbeRTT` and
    /// `BoundCwndForModel` (5.6.4).
    fn set_cwnd(&mut self, ack: &AckInfo) {
        let newly_acked = ack.acked_sacked() as f64;
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(ack.in_flight as f64 + newly_acked);
        } else if newly_acked > 0.0 {
            let cap = self.bdp_multiple(self.bw, self.gains().1) + self.extra_acked_filter.get();
            let max_inflight = self.quantization_budget(cap);
            if self.full_bw_reached {
                self.cwnd = (self.cwnd + newly_acked).min(max_inflight);
            } else if self.cwnd < max_inflight || (ack.delivered as f64) < self.init_cwnd {
                self.cwnd += newly_acked;
            }
            self.cwnd = self.cwnd.max(MIN_PIPE_CWND);
        }
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        let mut cap = f64::INFINITY;
        if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom();
        }
        let cap = cap.min(self.inflight_shortterm).max(MIN_PIPE_CWND);
        self.cwnd = self.cwnd.min(cap);
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    /// `UpdateOnACK` (5.2.3): `UpdateModelAndState` then `UpdateControlParameters`.
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        self.delivered = ack.delivered;
        if ack.losses > 0 {
            self.note_loss();
        }
        self.handle_recovery(ack);
        if let Some(rs) = ack.rate {
            let rate = rs.rate_pps().unwrap_or(0.0);
            self.update_latest_delivery_signals(&rs, rate);
            self.update_congestion_signals(&rs, rate);
            if self.packet_conservation && self.round_start {
                self.packet_conservation = false;
            }
            self.update_ack_aggregation(ack.now, ack.acked_sacked() as f64);
            self.check_full_bw_reached(&rs, rate);
            self.check_startup_done(ack, &rs);
            self.check_drain_done(ack, rng);
            self.update_probe_bw_cycle_phase(ack, &rs, rate, rng);
            self.update_min_rtt(ack);
            self.check_probe_rtt(ack, rng);
            self.advance_latest_delivery_signals(&rs, rate);
            self.bw = self.max_bw().min(self.bw_shortterm);
        } else {
            self.round_start = false;
        }
        let pacing_gain = self.gains().0;
        self.set_pacing_rate(pacing_gain, ack.srtt);
        self.set_cwnd(ack);
    }
    /// `OnEnterFastRecovery` (5.6.4.4): SaveCwnd and SaveStateUponLoss.
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.save_cwnd();
    }
    /// `HandleLostPacket` with `InflightAtLoss` (5.5.10.2).
    fn on_packet_lost(&mut self, now: SimTime, p: &LostPacket, rng: &mut SimRng) {
        self.note_loss();
        if !self.is_bw_probe_sample {
            return;
        }
        let rs = RateSample {
            tx_in_flight: p.tx_in_flight,
            lost: p.lost,
            app_limited: p.app_limited,
            ..RateSample::default()
        };
        if self.is_inflight_too_high(&rs) {
            // InflightAtLoss: the prefix of this one-segment "packet" at
            // which the loss rate crossed loss_thresh.
            let t = self.cfg.loss_thresh;
            let inflight_prev = p.tx_in_flight as f64 - 1.0;
            let lost_prev = p.lost as f64 - 1.0;
            let lost_prefix = (t * inflight_prev - lost_prev) / (1.0 - t);
            self.handle_inflight_too_high(inflight_prev + lost_prefix, p.app_limited, now, rng);
        }
    }
    /// Section 3.7: a CE mark is congestion; it counts as a loss of the round.
    fn on_ecn(&mut self, _ev: &CongestionEvent) {
        self.note_loss();
    }
    /// `OnEnterRTO` (5.6.4.4): cwnd = in flight + 1 with everything
    /// outstanding deemed lost, i.e. 1.
    fn on_rto(&mut self, _ev: &CongestionEvent) {
        self.save_cwnd();
        self.note_loss();
        self.prev_ca_state = CaState::Loss;
        self.packet_conservation = false;
        self.cwnd = 1.0;
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.pacing_pps * self.wire_size as f64 * 8.0)
    }
}

#[cfg(test)]
mod tests {
    //! Scripted tests: synthetic ACKs with delivery-rate samples drive the
    //! state machine through each transition the draft specifies.
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    /// One ACK per millisecond, each delivering one segment; the sampled
    /// segment left one RTT (`rtt_ms` ACKs) earlier, so a packet-timed
    /// round lasts `rtt_ms` ACKs.
    struct Drive {
        b: Bbr3,
        rng: SimRng,
        t_ms: u64,
        delivered: u64,
        rtt_ms: u64,
        states: Vec<(u64, State)>,
    }

    impl Drive {
        fn new(cfg: Bbr3Config, rtt_ms: u64, seed: u64) -> Self {
            Drive {
                b: Bbr3::new(cfg, &init(10.0)).unwrap(),
                rng: stream(seed, "bbr3"),
                t_ms: 0,
                delivered: 0,
                rtt_ms,
                states: vec![(0, State::Startup)],
            }
        }

        /// An ACK whose rate sample says `rate` segments/s; `tweak` edits it
        /// (in flight, losses, state...) before the controller sees it.
        fn step(&mut self, rate: f64, tweak: impl FnOnce(&mut AckInfo, &mut RateSample)) {
            self.t_ms += 1;
            self.delivered += 1;
            let mut a = ack(self.t_ms, self.rtt_ms);
            a.delivered = self.delivered;
            let span = rate * self.rtt_ms as f64 / 1000.0;
            let mut rs = RateSample {
                delivered: span.round() as u64,
                interval: SimTime::from_secs_f64(span.round() / rate),
                prior_delivered: self.delivered.saturating_sub(self.rtt_ms),
                app_limited: false,
                tx_in_flight: self.rtt_ms,
                lost: 0,
            };
            a.in_flight = self.b.cwnd().min(span) as u64;
            a.prior_in_flight = a.in_flight;
            tweak(&mut a, &mut rs);
            a.rate = Some(rs);
            self.b.on_ack(&a, &mut self.rng);
            self.record();
        }

        /// A segment is deemed lost that was sent with `tx_in_flight` in
        /// flight, `lost` lost since (itself included).
        fn lose(&mut self, tx_in_flight: u64, lost: u64) {
            let p = LostPacket {
                tx_in_flight,
                lost,
                app_limited: false,
            };
            self.b
                .on_packet_lost(SimTime::from_millis(self.t_ms), &p, &mut self.rng);
            self.record();
        }

        /// Note the state if it changed.
        fn record(&mut self) {
            if self.states.last().map(|s| s.1) != Some(self.b.state()) {
                self.states.push((self.t_ms, self.b.state()));
            }
        }

        fn steps(&mut self, n: u64, rate: f64) {
            for _ in 0..n {
                self.step(rate, |_, _| {});
            }
        }

        /// Run until the state is `s` (at most `limit` ACKs); the time, ms.
        fn until(&mut self, s: State, rate: f64, limit: u64) -> u64 {
            for _ in 0..limit {
                if self.b.state() == s {
                    return self.t_ms;
                }
                self.step(rate, |_, _| {});
            }
            panic!("no {s:?} within {limit} ACKs; states {:?}", self.states);
        }

        /// Run until the flow enters ProbeBW (DOWN, or CRUISE on the same
        /// ACK when in flight is already low); the time, ms.
        fn until_probe_bw(&mut self, rate: f64, limit: u64) -> u64 {
            for _ in 0..limit {
                if self.b.state().is_probe_bw() {
                    return self.t_ms;
                }
                self.step(rate, |_, _| {});
            }
            panic!("no ProbeBW within {limit} ACKs; states {:?}", self.states);
        }

        fn seen(&self) -> Vec<State> {
            self.states.iter().map(|s| s.1).collect()
        }
    }

    /// 1000 segments/s, RTT 20 ms: BDP 20 segments.
    fn steady() -> Drive {
        Drive::new(Bbr3Config::default(), 20, 1)
    }

    #[test]
    fn startup_exits_on_bandwidth_plateau_after_three_rounds() {
        let mut d = steady();
        // In flight stays at 2 BDP (40), so Drain does not end at once.
        let round = |d: &mut Drive| {
            for _ in 0..20 {
                d.step(1000.0, |a, _| a.in_flight = 40);
            }
        };
        // The first round sets full_bw; then three rounds without 25% growth.
        round(&mut d);
        assert_eq!(d.b.round_count(), 1);
        for n in 2..=3 {
            round(&mut d);
            assert_eq!(d.b.round_count(), n);
            assert_eq!(d.b.state(), State::Startup, "round {n}");
        }
        round(&mut d);
        assert_eq!(d.b.round_count(), 4);
        assert!(d.b.full_bw_reached());
        assert_ne!(
            d.b.state(),
            State::Startup,
            "the third round without growth ends Startup"
        );
        assert_eq!(d.seen()[..2], [State::Startup, State::Drain]);
        assert!((d.b.max_bw() - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn startup_continues_while_bandwidth_grows_by_a_quarter() {
        let mut d = steady();
        let mut rate = 100.0;
        for _ in 0..8 {
            d.steps(20, rate);
            rate *= 1.3;
        }
        assert_eq!(d.b.state(), State::Startup);
        // Startup paces at 2.77 x bw (margin 1%) and sizes cwnd by gain 2.
        let bw = d.b.bw();
        assert!((d.b.pacing_rate_bps().unwrap() / (1500.0 * 8.0) - 2.77 * 0.99 * bw).abs() < 1e-6 * bw);
    }

    #[test]
    fn startup_exits_on_loss_rate_above_threshold_with_six_loss_events() {
        for (events, lost, exits) in [(6u64, 3u64, true), (5, 3, false), (6, 0, false)] {
            let mut d = steady();
            let mut rate = 100.0;
            for _ in 0..4 {
                d.steps(20, rate);
                rate *= 2.0;
            }
            assert_eq!(d.b.state(), State::Startup);
            // One round of fast recovery: `events` ACKs mark a loss, and the
            // newest delivered segment saw `lost` of its 20 in flight lost.
            for i in 0..20 {
                d.step(rate, |a, rs| {
                    a.state = CaState::Recovery;
                    a.in_flight = 1000;
                    a.losses = u64::from(i < events);
                    rs.lost = if i < events { 0 } else { lost };
                });
            }
            // The round of loss ends on the next round start.
            for _ in 0..20 {
                d.step(rate, |a, rs| {
                    a.state = CaState::Recovery;
                    a.in_flight = 1000;
                    rs.lost = lost;
                });
            }
            if exits {
                assert!(d.b.full_bw_reached(), "{events} events, {lost} lost");
                assert_eq!(d.seen()[1], State::Drain);
                // inflight_longterm = max(bdp, inflight_latest)
                let bdp = d.b.bw() * 0.020;
                assert!(d.b.inflight_longterm() >= bdp - 1e-9 && d.b.inflight_longterm().is_finite());
            } else {
                assert_eq!(d.b.state(), State::Startup, "{events} events, {lost} lost");
                assert!(d.b.inflight_longterm().is_infinite());
            }
        }
    }

    /// A flow whose Startup just ended at 1000 segments/s, in Drain.
    fn in_drain() -> Drive {
        let mut d = steady();
        for _ in 0..200 {
            // in flight stays at 2 BDP (40) while draining, as after Startup
            d.step(1000.0, |a, _| a.in_flight = 40);
            if d.b.state() == State::Drain {
                return d;
            }
        }
        panic!("no Drain: {:?}", d.seen());
    }

    #[test]
    fn drain_exits_when_in_flight_falls_to_the_bdp() {
        let mut d = in_drain();
        // BDP 20 segments; Inflight(1.0) adds the offload budget (3 quanta
        // of 2 segments at 1000 pps x 0.5) but is still below 40.
        for _ in 0..30 {
            d.step(1000.0, |a, _| a.in_flight = 40);
        }
        assert_eq!(d.b.state(), State::Drain);
        d.step(1000.0, |a, _| a.in_flight = 20);
        // ProbeBW_DOWN, which in flight at the BDP also ends on the same ACK.
        assert!(d.b.state().is_probe_bw(), "{:?}", d.b.state());
    }

    #[test]
    fn drain_exits_after_three_rounds_regardless() {
        let mut d = in_drain();
        let start = d.b.round_count();
        while d.b.state() == State::Drain {
            d.step(1000.0, |a, _| a.in_flight = 40);
        }
        assert_eq!(d.b.round_count(), start + 4, "round_count > drain_start_round + 3");
        assert_eq!(
            d.b.state(),
            State::ProbeBwDown,
            "in flight 40 is above the BDP: DOWN holds"
        );
    }

    /// ProbeBW cycles DOWN -> CRUISE -> REFILL -> UP -> DOWN, REFILL
    /// lasting one round and UP ending on a bandwidth plateau.
    #[test]
    fn probe_bw_cycles_through_its_four_phases_in_order() {
        let mut d = steady();
        let refill = d.until(State::ProbeBwRefill, 1000.0, 10_000);
        let up = d.until(State::ProbeBwUp, 1000.0, 1000);
        assert!(
            (20..=40).contains(&(up - refill)),
            "REFILL lasts one round: {} ms",
            up - refill
        );
        // UP holds while the bandwidth grows, ends 3 rounds after it stops.
        for rate in [1300.0, 1700.0, 2200.0] {
            for _ in 0..20 {
                d.step(rate, |a, _| a.in_flight = 30);
            }
        }
        assert_eq!(d.b.state(), State::ProbeBwUp);
        // A plateau: DOWN, held while in flight exceeds the BDP.
        for _ in 0..80 {
            d.step(2200.0, |a, _| a.in_flight = 200);
        }
        assert_eq!(d.b.state(), State::ProbeBwDown);
        d.step(2200.0, |a, _| a.in_flight = 30);
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        let s = d.seen();
        let i = s.iter().position(|&x| x == State::ProbeBwRefill).unwrap();
        assert_eq!(
            s[i - 1..],
            [
                State::ProbeBwCruise,
                State::ProbeBwRefill,
                State::ProbeBwUp,
                State::ProbeBwDown,
                State::ProbeBwCruise
            ]
        );
        assert!((d.b.max_bw() - 2200.0).abs() < 1e-9, "UP found the higher bandwidth");
    }

    /// REFILL starts a uniformly random 2-3 s after the cycle began when the
    /// Reno bound is longer: BDP 100 segments, 63 rounds of 100 ms = 6.3 s.
    #[test]
    fn bandwidth_probe_waits_two_to_three_seconds() {
        let mut d = Drive::new(Bbr3Config::default(), 100, 5);
        let start = d.until_probe_bw(1000.0, 10_000);
        let refill = d.until(State::ProbeBwRefill, 1000.0, 10_000);
        assert!(
            (2000..=3000).contains(&(refill - start)),
            "REFILL {} ms after the cycle began",
            refill - start
        );
    }

    #[test]
    fn probe_wait_is_random_per_seed_and_repeatable() {
        let wait = |seed| {
            let mut d = Drive::new(Bbr3Config::default(), 100, seed);
            let start = d.until_probe_bw(1000.0, 10_000);
            d.until(State::ProbeBwRefill, 1000.0, 10_000) - start
        };
        assert_eq!(wait(11), wait(11));
        let waits: Vec<u64> = (1..6).map(wait).collect();
        assert!(waits.iter().any(|&w| w != waits[0]), "waits {waits:?}");
        assert!(waits.iter().all(|w| (2000..=3000).contains(w)), "waits {waits:?}");
    }

    #[test]
    fn reno_coexistence_bound_starts_the_probe_after_bdp_rounds() {
        // BDP 20 segments < 63: at most 20 rounds (0.4 s at 20 ms) of DOWN/CRUISE.
        let mut d = steady();
        let start = d.until_probe_bw(1000.0, 10_000);
        let refill = d.until(State::ProbeBwRefill, 1000.0, 10_000);
        assert!((19 * 20..=21 * 20).contains(&(refill - start)), "{} ms", refill - start);
    }

    /// A flow in ProbeBW_UP receiving samples from its probe (RTT 100 ms,
    /// BDP 100 segments; ProbeRTT every 10 s instead of 5 so that it does
    /// not interrupt the cycles these tests follow).
    fn in_probe_up() -> Drive {
        let cfg = Bbr3Config {
            probe_rtt_interval: Time(SimTime::from_secs(10)),
            ..Bbr3Config::default()
        };
        let mut d = Drive::new(cfg, 100, 5);
        d.until(State::ProbeBwUp, 1000.0, 10_000);
        d
    }

    #[test]
    fn loss_rate_above_two_percent_in_probe_up_cuts_inflight_longterm() {
        for (lost, cut) in [(3u64, true), (2, false)] {
            let mut d = in_probe_up();
            assert!(d.b.inflight_longterm().is_infinite());
            d.lose(100, lost);
            if cut {
                // max(InflightAtLoss, beta * min(bdp, cwnd)): 99 in flight
                // and 2 lost before this segment, so the threshold was
                // crossed at 99 + (0.02 x 99 - 2) / 0.98 = 98.98.
                let at_loss = 99.0 + (0.02 * 99.0 - 2.0) / 0.98;
                assert!(
                    (d.b.inflight_longterm() - at_loss).abs() < 1e-9,
                    "{}",
                    d.b.inflight_longterm()
                );
                assert_eq!(d.b.state(), State::ProbeBwDown);
                // The next ACK (of a segment sent with 50 in flight) caps cwnd.
                d.step(1000.0, |_, rs| rs.tx_in_flight = 50);
                assert!(d.b.cwnd() <= at_loss, "cwnd {}", d.b.cwnd());
            } else {
                assert!(d.b.inflight_longterm().is_infinite(), "2 of 100 is not above 2%");
                assert_eq!(d.b.state(), State::ProbeBwUp);
            }
        }
    }

    #[test]
    fn losses_outside_bandwidth_probes_leave_inflight_longterm_alone() {
        let mut d = steady();
        d.until(State::ProbeBwCruise, 1000.0, 10_000);
        d.lose(20, 5);
        assert!(d.b.inflight_longterm().is_infinite());
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        // A probe reacts once: its second loss changes nothing.
        let mut d = in_probe_up();
        d.lose(100, 3);
        let hi = d.b.inflight_longterm();
        d.lose(200, 50);
        assert_eq!(d.b.inflight_longterm(), hi);
    }

    #[test]
    fn any_loss_is_too_high_without_sack() {
        let mut d = in_probe_up();
        d.b.sack = false;
        d.lose(100, 1);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        assert!(d.b.inflight_longterm().is_finite());
    }

    #[test]
    fn precautionary_probe_stops_at_inflight_longterm_then_refills() {
        let mut d = in_probe_up();
        d.lose(100, 5);
        assert_eq!(d.b.state(), State::ProbeBwDown);
        // The next UP ends as soon as in flight reaches inflight_longterm.
        d.until(State::ProbeBwUp, 1000.0, 10_000);
        let hi = d.b.inflight_longterm();
        d.step(1000.0, |a, _| a.in_flight = hi as u64 + 1);
        assert_eq!(d.b.state(), State::ProbeBwDown, "precautionary stop");
        // A round of feedback without excess loss: back to REFILL at once.
        let t = d.t_ms;
        let refill = d.until(State::ProbeBwRefill, 1000.0, 1000);
        assert!(
            refill - t <= 2 * 100,
            "REFILL {} ms after the stop; {:?}",
            refill - t,
            &d.states[d.states.len() - 8..]
        );
    }

    #[test]
    fn probe_up_raises_inflight_longterm_exponentially_when_limited_by_it() {
        let mut d = in_probe_up();
        d.lose(100, 3);
        d.until(State::ProbeBwRefill, 1000.0, 10_000);
        let start = d.b.inflight_longterm();
        // Probe again; no loss, cwnd-limited at inflight_longterm: growth of
        // 1, 2, 4... segments per round.
        d.until(State::ProbeBwUp, 1000.0, 1000);
        let mut highs = vec![];
        for _ in 0..4 {
            for _ in 0..100 {
                d.step(1000.0, |a, rs| {
                    a.cwnd_limited = true;
                    a.in_flight = 50;
                    rs.tx_in_flight = 0;
                });
            }
            highs.push(d.b.inflight_longterm() - start);
        }
        assert!(
            highs.windows(2).all(|w| w[1] > w[0]),
            "{highs:?} {:?} hi {} cwnd {}",
            &d.states[d.states.len() - 6..],
            d.b.inflight_longterm(),
            d.b.cwnd()
        );
        let growth: Vec<f64> = highs.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(growth.windows(2).all(|w| w[1] >= 1.5 * w[0]), "per round {growth:?}");
    }

    #[test]
    fn loss_in_cruise_cuts_the_short_term_model_by_beta_once_per_round() {
        let mut d = steady();
        d.until(State::ProbeBwCruise, 1000.0, 10_000);
        assert!(d.b.bw_shortterm().is_infinite());
        // Samples fall to 500 segments/s; a loss; the round of the loss ends.
        d.steps(40, 500.0);
        d.step(500.0, |a, _| a.losses = 1);
        d.steps(40, 500.0);
        // bw_shortterm = max(bw_latest, 0.7 max_bw) = 700; bw follows it.
        assert!((d.b.bw_shortterm() - 700.0).abs() < 1e-6, "{}", d.b.bw_shortterm());
        assert!((d.b.bw() - 700.0).abs() < 1e-6);
        assert!(d.b.inflight_shortterm().is_finite());
        // Without further loss it stays: the next cut needs a lossy round.
        d.steps(40, 500.0);
        assert!((d.b.bw_shortterm() - 700.0).abs() < 1e-6);
    }

    /// Section 3.7: an ECN-Echo is congestion, one loss event of its round.
    #[test]
    fn ecn_echo_counts_as_a_loss_of_the_round() {
        let mut d = steady();
        d.until(State::ProbeBwCruise, 1000.0, 10_000);
        d.steps(40, 500.0);
        d.b.on_ecn(&loss(d.t_ms, d.b.cwnd()));
        d.steps(40, 500.0);
        assert!((d.b.bw_shortterm() - 700.0).abs() < 1e-6, "{}", d.b.bw_shortterm());
    }

    #[test]
    fn probe_rtt_after_five_seconds_without_a_lower_rtt() {
        let mut d = steady();
        let down = d.until_probe_bw(1000.0, 10_000);
        // A lower RTT sample restarts the 5 s clock.
        d.step(1000.0, |a, _| a.rtt = Some(SimTime::from_millis(19)));
        let fresh = d.t_ms;
        let entry = d.until(State::ProbeRtt, 1000.0, 20_000);
        assert!(
            entry > fresh + 5000 && entry <= fresh + 5002,
            "ProbeRTT at {entry}, min at {fresh}"
        );
        assert!(down < fresh);
        // cwnd = max(0.5 BDP, 4) while in ProbeRTT.
        let cap = (0.5 * d.b.bw() * 0.019).max(MIN_PIPE_CWND);
        d.step(1000.0, |a, _| a.in_flight = 8);
        assert!(d.b.cwnd() <= cap + 1e-9, "cwnd {} cap {cap}", d.b.cwnd());
        // 200 ms and a round later it leaves for CRUISE.
        let mut exit = 0;
        for _ in 0..400 {
            d.step(1000.0, |a, _| a.in_flight = 8);
            if d.b.state() != State::ProbeRtt {
                exit = d.t_ms;
                break;
            }
        }
        assert_eq!(d.b.state(), State::ProbeBwCruise);
        assert!(
            exit > entry + 200 && exit <= entry + 230,
            "left ProbeRTT at {exit}, entered {entry}"
        );
    }

    #[test]
    fn timeout_and_recovery_restore_the_window() {
        let mut d = steady();
        d.until(State::ProbeBwCruise, 1000.0, 10_000);
        let before = d.b.cwnd();
        d.b.on_rto(&loss(d.t_ms, before));
        assert_eq!(d.b.cwnd(), 1.0);
        d.step(1000.0, |a, _| a.state = CaState::Loss);
        d.step(1000.0, |a, _| a.state = CaState::Open);
        assert!(d.b.cwnd() >= before.min(d.b.inflight_with_headroom()) - 1e-9);
    }

    #[test]
    fn packet_conservation_is_optional() {
        for on in [false, true] {
            let cfg = Bbr3Config {
                packet_conservation: on,
                ..Bbr3Config::default()
            };
            let mut d = Drive::new(cfg, 20, 1);
            d.until(State::ProbeBwCruise, 1000.0, 10_000);
            d.b.on_congestion_event(&loss(d.t_ms, d.b.cwnd()));
            d.b.cwnd = 10.0;
            d.step(1000.0, |a, _| {
                a.state = CaState::Recovery;
                a.in_flight = 30;
            });
            // with conservation: in flight + delivered = 31; without, the
            // window grows by the segment delivered.
            assert_eq!(d.b.cwnd(), if on { 31.0 } else { 11.0 });
        }
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let bad = Bbr3Config {
            loss_thresh: 1.5,
            ..Bbr3Config::default()
        };
        let e = Bbr3::new(bad, &init(10.0)).err().unwrap();
        assert_eq!(e.path, "loss_thresh");
        let bad = Bbr3Config {
            probe_rtt_interval: Time(SimTime::from_secs(20)),
            ..Bbr3Config::default()
        };
        assert_eq!(Bbr3::new(bad, &init(10.0)).err().unwrap().path, "probe_rtt_interval");
    }
}
