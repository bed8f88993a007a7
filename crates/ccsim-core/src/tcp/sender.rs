//! The TCP sender: segmentation, the send window, ACK processing, the
//! retransmission timer (RFC 6298), ECN (RFC 3168) and pacing. Loss recovery
//! lives in [`super::recovery`], congestion control behind
//! [`CongestionControl`].
//!
//! Sending (RFC 5681): outside SACK recovery a segment may be sent when the
//! data outstanding below the next segment to send is less than
//! min(cwnd, receiver window) (plus up to two segments of Limited Transmit,
//! RFC 3042, on the first duplicate ACKs; plus the inflation of Reno and
//! NewReno fast recovery). After a timeout, and after Tahoe's fast
//! retransmit, the sender goes back to the first unacknowledged segment and
//! resends from there (go-back-N, as ns-2 and BSD; a SACK sender skips the
//! segments the receiver has SACKed: it keeps its scoreboard across the
//! timeout, as Linux, since ccsim's receiver never reneges); with
//! `rto_resend = "below_high_sack"` (ns-3.44) a SACK sender resends only
//! the holes below the highest SACKed segment and sends new data before the
//! rest ([`super::RtoResend::BelowHighSack`]). During SACK recovery the pipe
//! rule of RFC 6675 decides.
//!
//! Timers: the retransmission timer follows RFC 6298 section 5 (started when
//! data is sent and none is running, restarted on each ACK of new data,
//! stopped when nothing is outstanding). Timers are cancelled lazily: a
//! deadline is kept and one kernel event is outstanding at a time; when it
//! fires early it is re-armed for the deadline. This keeps the event count
//! per ACK at zero.
//!
//! RTT samples (RFC 6298 section 3, Karn's algorithm): on each ACK, from the
//! most recently sent segment it newly acknowledges, unless the cumulative
//! part acknowledges a retransmitted segment; otherwise from the most
//! recently sent newly SACKed segment that was sent once. With
//! `rtt_sampling = "oldest"` (ns-3's `EstimateRtt`) only the oldest segment
//! the cumulative ACK newly covers is timed, if it was sent once and after
//! the last timeout; with `"timed"` (ns-2) one segment at a time.
//!
//! Pacing: with a controller that sets a pacing rate (BBR), or with
//! `pacing = true` for the others (at Linux's default rate: cwnd / SRTT
//! times 2 in slow start, 1.2 otherwise), consecutive segments leave at
//! least size / rate apart. Fast retransmissions are not delayed by pacing.

use super::rate::{RateEstimator, TxInfo};
use super::recovery::Recovery;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::segs::{Seg, Segs};
use super::SenderConfig;
use crate::cc::reno::Reno;
use crate::cc::{AckInfo, CaState, CongestionControl, CongestionEvent, LostPacket};
use crate::event::Endpoint;
use crate::packet::{flags, Ecn, Packet, PacketKind};
use crate::rng::SimRng;
use crate::time::{tx_time, SimTime};
use crate::transport::{FlowCtx, Sender, SenderProbe};

/// Sender timer: retransmission timeout.
pub const TIMER_RTO: u32 = 1;
/// Sender timer: pacing.
pub const TIMER_PACE: u32 = 2;
/// Receiver timer: delayed ACK.
pub const TIMER_DELACK: u32 = 1;

/// What the cumulative ACK's walk over the segments it newly covers adds
/// up ([`TcpSender::ack_segment`]): segments and payload bytes covered,
/// those newly delivered (not SACKed before), the RTT of the most recently
/// sent one sent once, whether a retransmitted one is among them, and
/// ns-3's sample of the oldest one in its RTT history.
#[derive(Default)]
struct CumAck {
    acked: u64,
    bytes: u64,
    delivered: u64,
    rtt: Option<SimTime>,
    retrans: bool,
    oldest_rtt: Option<SimTime>,
}

/// Declares the rule switches that the plain sender's instance of the ACK
/// and send paths reads as constants ([`TcpSender::plain`]), with their
/// values there (ccsim's own rules: none of the ns-2 or ns-3 ones, no ECN,
/// no pacing, no handshake), once for both [`PLAIN`] and
/// [`has_plain_rules`], so that a switch read through [`rule!`] is always
/// one that the test covers.
macro_rules! plain_rules {
    ($($f:ident: $t:ty = $v:expr),* $(,)?) => {
        /// The rule switches of [`PLAIN`].
        struct PlainRules {
            $($f: $t),*
        }
        /// The plain sender's rule switches.
        const PLAIN: PlainRules = PlainRules { $($f: $v),* };
        /// Whether every rule switch of `cfg` is at its [`PLAIN`] value.
        fn has_plain_rules(cfg: &SenderConfig) -> bool {
            true $(&& cfg.$f == PLAIN.$f)*
        }
    };
}

plain_rules! {
    ns2_recovery: bool = false,
    pipe_window: bool = false,
    lt_after_loss: bool = false,
    timed_rtt: bool = false,
    oldest_rtt: bool = false,
    min_rtt_from_srtt: bool = false,
    sack_dupack: bool = false,
    loss_exit_beyond_recover: bool = false,
    sub_segment_window: bool = false,
    cwnd_validation: bool = true,
    exit_growth: bool = false,
    ecn: bool = false,
    pacing: bool = false,
    pace_initial_window: bool = true,
    syn: bool = false,
    syn_timeout: Option<SimTime> = None,
}

#[cfg(test)]
thread_local! {
    /// Tests: senders built on this thread take the general instance of
    /// the ACK and send paths even when plain, to compare the two.
    pub(super) static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests: how many senders built on this thread took the plain instance.
    pub(super) static PLAIN_BUILT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether a sender that may be plain takes the plain instance (always,
/// but in the tests that compare it with the general one,
/// [`GENERAL_ONLY`]).
fn plain_allowed(plain: bool) -> bool {
    #[cfg(test)]
    {
        let plain = plain && !GENERAL_ONLY.with(|g| g.get());
        PLAIN_BUILT.with(|n| n.set(n.get() + plain as u32));
        plain
    }
    #[cfg(not(test))]
    plain
}

/// A rule switch of `$self.cfg` in the instance `$P` of a generic ACK or
/// send path: [`PLAIN`]'s value, a constant, in the plain sender's.
macro_rules! rule {
    ($P:ident, $self:ident . $f:ident) => {
        if $P {
            PLAIN.$f
        } else {
            $self.cfg.$f
        }
    };
}

/// The sender's congestion controller: the Reno family (Tahoe, Reno,
/// NewReno, SACK), held by value and called without the vtable (its
/// `cwnd`, `on_ack` and the others are called several times per ACK and
/// are a few instructions each), or any other behind the trait object.
/// Every method of [`CongestionControl`] is forwarded, so the sender sees
/// the same controller either way.
pub(super) enum Controller {
    /// [`crate::cc::reno::Reno`], statically dispatched.
    Reno(Reno),
    /// Any other controller.
    Dyn(Box<dyn CongestionControl>),
}

impl Controller {
    fn new(cc: Box<dyn CongestionControl>) -> Self {
        match cc.as_reno() {
            Some(r) => Controller::Reno(r.clone()),
            None => Controller::Dyn(cc),
        }
    }

    fn as_dyn(&self) -> &dyn CongestionControl {
        match self {
            Controller::Reno(c) => c,
            Controller::Dyn(c) => c.as_ref(),
        }
    }
}

/// Forward a method to the controller, statically for the Reno family.
macro_rules! forward {
    ($self:ident, $c:ident => $call:expr) => {
        match $self {
            Controller::Reno($c) => $call,
            Controller::Dyn($c) => $call,
        }
    };
}

impl CongestionControl for Controller {
    fn name(&self) -> &'static str {
        forward!(self, c => c.name())
    }
    #[inline]
    fn cwnd(&self) -> f64 {
        forward!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> f64 {
        forward!(self, c => c.ssthresh())
    }
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        forward!(self, c => c.on_ack(ack, rng))
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        forward!(self, c => c.on_congestion_event(ev))
    }
    fn on_ecn(&mut self, ev: &CongestionEvent) {
        forward!(self, c => c.on_ecn(ev))
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        forward!(self, c => c.on_rto(ev))
    }
    fn on_packet_lost(&mut self, now: SimTime, p: &LostPacket, rng: &mut SimRng) {
        forward!(self, c => c.on_packet_lost(now, p, rng))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        forward!(self, c => c.on_recovery_exit(now))
    }
    fn on_syn_ack(&mut self, now: SimTime, snd_max: u64, rtt: Option<SimTime>) {
        forward!(self, c => c.on_syn_ack(now, snd_max, rtt))
    }
    fn on_open(&mut self, now: SimTime, srtt: Option<SimTime>, min_rtt: Option<SimTime>) {
        forward!(self, c => c.on_open(now, srtt, min_rtt))
    }
    fn deflate(&mut self, segments: f64) {
        forward!(self, c => c.deflate(segments))
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        forward!(self, c => c.set_cwnd(cwnd))
    }
    #[inline]
    fn pacing_rate_bps(&self) -> Option<f64> {
        forward!(self, c => c.pacing_rate_bps())
    }
    fn uses_rate_samples(&self) -> bool {
        forward!(self, c => c.uses_rate_samples())
    }
    fn as_reno(&self) -> Option<&Reno> {
        forward!(self, c => c.as_reno())
    }
}

/// The sending end of a TCP flow.
pub struct TcpSender {
    pub(super) cfg: SenderConfig,
    pub(super) cc: Controller,
    /// Whether the probe includes the pacing rate, decided once: the
    /// sampler's series are laid out at the start, so a controller that
    /// starts pacing later (a Python one, say) must not add a value.
    probes_rate: bool,
    /// Whether the scoreboard is kept, decided once: only the SACK and the
    /// ns-2 Linux (`rate_halving`) recoveries mark or read SACKed and lost
    /// segments. Without them every segment of the scoreboard would stay
    /// unSACKed and not lost, which its empty state answers as well, so
    /// the three per-segment pushes and pops are skipped.
    keeps_board: bool,
    /// Whether the controller reads rate samples
    /// ([`CongestionControl::uses_rate_samples`]), decided once: without
    /// them the rate estimator only counts delivered segments.
    rate_samples: bool,
    /// The plain window-based sender, decided once: Tahoe, Reno or NewReno
    /// recovery (no scoreboard, no PRR, which needs SACK), a controller
    /// that reads no rate samples, and every rule switch at its [`PLAIN`]
    /// value. Its ACK and send paths are the generic ones (`on_ack_as`,
    /// `send_much_as`, `transmit_as`) instantiated with those switches as
    /// constants, so that none of the others' tests is made per ACK or
    /// per segment; the behaviour is the same as the general instance's.
    plain: bool,
    pub(super) rtt: RttEstimator,
    pub(super) board: Scoreboard,
    pub(super) rate: RateEstimator,
    pub(super) segs: Segs,
    /// Oldest unacknowledged segment.
    pub(super) snd_una: u64,
    /// Next segment to (re)transmit in window order.
    pub(super) snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub(super) snd_max: u64,
    app_bytes: u64,
    app_assigned: u64,
    pub(super) stopped: bool,
    /// Receiver window, segments.
    pub(super) rwnd: u64,
    pub(super) state: CaState,
    /// Fast retransmit is allowed only once snd_una reaches this (RFC 6582 "recover").
    pub(super) recover: u64,
    /// The recovery (or post-timeout) episode ends when snd_una reaches this.
    pub(super) recovery_point: u64,
    pub(super) dupacks: u32,
    /// A duplicate ACK is being processed (ns-2 calls `send_one` from
    /// `TcpAgent::recv` on a duplicate ACK only).
    pub(super) on_dupack: bool,
    /// Reno/NewReno fast-recovery window inflation, segments.
    pub(super) inflation: f64,
    pub(super) partial_acks: u32,
    /// Segments below this were retransmitted in this SACK recovery (HighRxt + 1).
    pub(super) high_rxt_end: u64,
    /// RFC 6675 RescueRxt (a segment number).
    pub(super) rescue_rxt: Option<u64>,
    /// ns-2's Sack1 state (`sack_recovery = "ns2"`).
    pub(super) s1: super::recovery::Sack1State,
    /// Proportional Rate Reduction's state (`prr`, [`super::prr`]).
    pub(super) prr: super::prr::PrrState,
    /// Segments sent by Limited Transmit since the last cumulative ACK.
    pub(super) lt_sent: u64,
    /// Consecutive timeouts without progress.
    pub(super) rto_streak: u32,
    /// With `timed_rtt` (ns-2): the one segment being timed and when it
    /// was sent (ns-2's `rtt_seq_` and `rtt_ts_` while `rtt_active_`).
    pub(super) rtt_timing: Option<(u64, SimTime)>,
    /// With `syn`: the connection-opening segment (seq 0, no payload) has
    /// not been acknowledged yet.
    pub(super) syn_pending: bool,
    /// With `oldest_rtt` (ns-3): segments below this were sent before the
    /// last timeout, so ns-3's RTT history holds none of them.
    rtt_hist_start: u64,
    /// When the SYN was first sent (`syn_rtt_first_send`).
    syn_first_sent: Option<SimTime>,
    /// The smallest SRTT so far (`min_rtt_basis = "srtt"`).
    min_srtt: Option<SimTime>,
    /// ns-3's `m_lastRtt` ([`crate::cc::AckInfo::last_rtt`]).
    last_rtt: Option<SimTime>,
    /// ns-2 Linux agent state (recovery "rate_halving").
    pub(super) la: super::linux_agent::LaState,
    ecn_recover: Option<u64>,
    cwr_pending: bool,
    pub(super) cwnd_limited: bool,
    /// The segments the last SACK update declared lost (reused buffer).
    newly_lost: Vec<u64>,
    pub(super) rto_deadline: Option<SimTime>,
    rto_event: Option<SimTime>,
    rto_token: u64,
    pace_next: SimTime,
    pace_event: Option<SimTime>,
    pace_token: u64,
    token: u64,
}

impl TcpSender {
    /// A sender with the given settings and controller.
    pub fn new(cfg: SenderConfig, cc: Box<dyn CongestionControl>) -> Self {
        let rate = if cfg.ns3_rate_sample {
            RateEstimator::ns3()
        } else {
            RateEstimator::new()
        };
        TcpSender {
            probes_rate: cfg.pacing || cc.pacing_rate_bps().is_some(),
            keeps_board: matches!(cfg.recovery, Recovery::Sack | Recovery::RateHalving),
            rate_samples: cc.uses_rate_samples(),
            plain: plain_allowed(
                has_plain_rules(&cfg)
                    && matches!(cfg.recovery, Recovery::Tahoe | Recovery::Reno | Recovery::NewReno)
                    && !cc.uses_rate_samples(),
            ),
            rtt: RttEstimator::with_rules(cfg.min_rto, cfg.max_rto, cfg.initial_rto, cfg.rto_rules),
            rtt_timing: None,
            syn_pending: cfg.syn,
            rtt_hist_start: 0,
            syn_first_sent: None,
            min_srtt: None,
            last_rtt: None,
            la: Default::default(),
            rwnd: cfg.window as u64,
            board: Scoreboard::new()
                .with_sacked_retransmits_in_pipe(cfg.sacked_rtx_in_pipe)
                .with_retransmit_flags(cfg.rtx_flags),
            segs: Segs::new(cc.uses_rate_samples(), cfg.recovery == Recovery::RateHalving),
            cfg,
            cc: Controller::new(cc),
            rate,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_bytes: 0,
            app_assigned: 0,
            stopped: false,
            state: CaState::Open,
            recover: 0,
            recovery_point: 0,
            dupacks: 0,
            on_dupack: false,
            inflation: 0.0,
            partial_acks: 0,
            high_rxt_end: 0,
            rescue_rxt: None,
            s1: Default::default(),
            prr: Default::default(),
            lt_sent: 0,
            rto_streak: 0,
            ecn_recover: None,
            cwr_pending: false,
            cwnd_limited: false,
            newly_lost: Vec::new(),
            rto_deadline: None,
            rto_event: None,
            rto_token: 0,
            pace_next: SimTime::ZERO,
            pace_event: None,
            pace_token: 0,
            token: 0,
        }
    }

    /// The controller (for tests and probes).
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_dyn()
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// The window used for sending, segments: cwnd plus the fast-recovery
    /// inflation (what ns-2 reports as `cwnd_`), at least one segment
    /// (NewReno's partial-ACK deflation may take the sum lower) unless
    /// `sub_segment_window`.
    pub fn effective_cwnd(&self) -> f64 {
        self.effective_cwnd_as::<false>()
    }

    /// [`TcpSender::effective_cwnd`] in the instance `P` (see [`TcpSender::plain`]).
    #[inline]
    fn effective_cwnd_as<const P: bool>(&self) -> f64 {
        let w = self.cc.cwnd() + self.inflation;
        if rule!(P, self.sub_segment_window) {
            // ns-3 (`sub_segment_window`): a window below one segment sends
            // nothing, `SendPendingData` will not send less than a segment
            // while more data waits (its silly-window check).
            w.max(0.0)
        } else {
            w.max(1.0)
        }
    }

    /// The loss-recovery state.
    pub fn state(&self) -> CaState {
        self.state
    }

    pub(super) fn uses_sack(&self) -> bool {
        self.cfg.recovery == Recovery::Sack
    }

    /// [`TcpSender::uses_sack`] in the instance `P`: never in the plain one.
    #[inline]
    pub(super) fn uses_sack_as<const P: bool>(&self) -> bool {
        !P && self.uses_sack()
    }

    /// In the recovery after a timeout with `rto_resend =
    /// "below_high_sack"` ([`super::RtoResend::BelowHighSack`]), whose
    /// flags are those of the last timeout, when snd_max was `recover`.
    #[inline]
    fn resends_below_high_sack(&self) -> bool {
        self.state == CaState::Loss && self.cfg.rto_resend == super::RtoResend::BelowHighSack
    }

    pub(super) fn seg(&self, seq: u64) -> &Seg {
        self.segs.get((seq - self.snd_una) as usize)
    }

    /// Outstanding segment `seq` is deemed lost (before any retransmission
    /// of it): count it in the rate estimator's `C.lost` and tell the
    /// controller what was in flight and lost when it was sent
    /// (draft-ietf-ccwg-bbr-06 section 5.2.4, `HandleLostPacket`).
    pub(super) fn note_lost(&mut self, ctx: &mut FlowCtx, seq: u64) {
        let tx = self.segs.tx((seq - self.snd_una) as usize);
        self.rate.on_lost(1);
        let p = LostPacket {
            tx_in_flight: tx.tx_in_flight,
            lost: self.rate.lost() - tx.lost,
            app_limited: tx.app_limited,
        };
        self.cc.on_packet_lost(ctx.now, &p, ctx.rng);
    }

    /// A segment sent with `tx` was delivered: a rate sample candidate, or
    /// only counted for a controller that reads no rate samples.
    #[inline]
    fn on_delivered<const P: bool>(&mut self, now: SimTime, tx: &TxInfo) {
        if !P && self.rate_samples {
            self.rate.on_delivered(now, tx);
        } else {
            self.rate.count_delivered();
        }
    }

    /// The connection's smallest RTT: the smallest sample, or with
    /// `min_rtt_basis = "srtt"` the smallest SRTT (ns-3's `m_tcb->m_minRtt`).
    fn conn_min_rtt<const P: bool>(&self) -> Option<SimTime> {
        if rule!(P, self.min_rtt_from_srtt) {
            self.min_srtt
        } else {
            self.rtt.min_rtt()
        }
    }

    /// Segments in the network (for congestion control and rate sampling):
    /// RFC 6675's pipe during SACK recovery; otherwise the segments sent
    /// below snd_nxt that are not SACKed.
    /// Without SACK a subtraction, inlined (several calls per ACK); the
    /// SACK variant out of line.
    #[inline]
    pub(super) fn in_flight(&self) -> u64 {
        self.in_flight_as::<false>()
    }

    /// [`TcpSender::in_flight`] in the instance `P`.
    #[inline]
    fn in_flight_as<const P: bool>(&self) -> u64 {
        if self.uses_sack_as::<P>() {
            return self.in_flight_sack();
        }
        self.snd_nxt - self.snd_una
    }

    /// [`TcpSender::in_flight`] with SACK.
    #[inline(never)]
    fn in_flight_sack(&self) -> u64 {
        if self.state == CaState::Recovery {
            return self.board.pipe(self.high_rxt_end, self.cfg.dupthresh);
        }
        if self.resends_below_high_sack() {
            return self.board.pipe_after_timeout(self.recover);
        }
        let out = self.snd_nxt - self.snd_una;
        if self.board.count() > 0 {
            out - self.board.sacked_below(self.snd_nxt).min(out) + self.board.sacked_retransmits_in_pipe()
        } else {
            out
        }
    }

    /// RFC 6675's pipe now (ns-3's `BytesInFlight`): outstanding segments
    /// less the SACKed and the lost ones not retransmitted; without SACK, less
    /// one segment per duplicate ACK (ns-3's `AddRenoSack`).
    pub(super) fn pipe_now(&self) -> u64 {
        if self.resends_below_high_sack() {
            self.board.pipe_after_timeout(self.recover)
        } else if self.uses_sack() {
            self.board.pipe(self.high_rxt_end, self.cfg.dupthresh)
        } else {
            (self.snd_max - self.snd_una).saturating_sub(self.dupacks as u64)
        }
    }

    pub(super) fn window(&self) -> u64 {
        self.window_as::<false>()
    }

    /// [`TcpSender::window`] in the instance `P`.
    #[inline]
    fn window_as<const P: bool>(&self) -> u64 {
        // `effective_cwnd` is never negative nor NaN, so the cast (which
        // truncates towards zero) is its floor, without the call to `floor`
        // that the baseline x86-64 target (no SSE4.1 `roundsd`) makes.
        self.effective_cwnd_as::<P>() as u64
    }

    pub(super) fn has_new_data(&self) -> bool {
        !self.stopped && self.app_assigned < self.app_bytes
    }

    /// Current pacing rate, bits per second, if pacing. The controller's
    /// rate and the common "no pacing" inline (a test per segment sent);
    /// the sender's own rate out of line.
    #[inline]
    pub fn pacing_rate(&self) -> Option<f64> {
        self.pacing_rate_as::<false>()
    }

    /// [`TcpSender::pacing_rate`] in the instance `P`.
    #[inline]
    fn pacing_rate_as<const P: bool>(&self) -> Option<f64> {
        if let Some(r) = self.cc.pacing_rate_bps() {
            return Some(r);
        }
        if !rule!(P, self.pacing) {
            return None;
        }
        self.default_pacing_rate()
    }

    /// [`TcpSender::pacing_rate`] with `pacing = true` and a controller that
    /// sets no rate: Linux's default.
    #[inline(never)]
    fn default_pacing_rate(&self) -> Option<f64> {
        let srtt = self.rtt.srtt()?.secs_f64();
        if srtt <= 0.0 {
            return None;
        }
        let gain = if self.cc.cwnd() < self.cc.ssthresh() / 2.0 {
            2.0
        } else {
            1.2
        };
        Some(gain * self.effective_cwnd() * (self.cfg.mss + self.cfg.header) as f64 * 8.0 / srtt)
    }

    /// Whether pacing applies to the next transmission: always, unless
    /// `pace_initial_window` is off (ns-3's `TcpSocketBase::IsPacingEnabled`
    /// with `PaceInitialWindow` false: not while `m_highTxMark`, one past
    /// the highest data byte sent, is at most `InitialCwnd` segments, so
    /// the first `InitialCwnd` data segments are neither held back nor
    /// start the pacing timer, and retransmissions are paced once they
    /// have all been sent).
    #[inline]
    fn paces_next<const P: bool>(&self) -> bool {
        rule!(P, self.pace_initial_window)
            || self.snd_max.saturating_sub(self.cfg.syn as u64) as f64 >= self.cfg.initial_window
    }

    /// True (and the pacing timer armed) when pacing forbids sending now.
    /// The common answer (the next paced departure has come, always so
    /// without pacing) inline; the rest out of line.
    #[inline]
    fn pace_blocked(&mut self, ctx: &mut FlowCtx) -> bool {
        ctx.now < self.pace_next && self.pace_wait(ctx)
    }

    /// [`TcpSender::pace_blocked`] before the next paced departure.
    #[inline(never)]
    fn pace_wait(&mut self, ctx: &mut FlowCtx) -> bool {
        if self.pacing_rate().is_none() || !self.paces_next::<false>() {
            return false;
        }
        let at = self.pace_next;
        if self.pace_event.is_none_or(|e| e > at) {
            self.token += 1;
            self.pace_token = self.token;
            self.pace_event = Some(at);
            ctx.set_timer(at, Endpoint::Sender, TIMER_PACE, self.token);
        }
        true
    }

    pub(super) fn arm_rto(&mut self, ctx: &mut FlowCtx, at: SimTime) {
        self.rto_deadline = Some(at);
        if self.rto_event.is_none_or(|e| e > at) {
            self.token += 1;
            self.rto_token = self.token;
            self.rto_event = Some(at);
            ctx.set_timer(at, Endpoint::Sender, TIMER_RTO, self.token);
        }
    }

    /// (Re)transmit outstanding segment `seq`, or the new segment at snd_max.
    pub(super) fn transmit(&mut self, ctx: &mut FlowCtx, seq: u64) {
        if self.plain {
            self.transmit_as::<true>(ctx, seq);
        } else {
            self.transmit_as::<false>(ctx, seq);
        }
    }

    /// [`TcpSender::transmit`] in the instance `P` ([`TcpSender::plain`]).
    fn transmit_as<const P: bool>(&mut self, ctx: &mut FlowCtx, seq: u64) {
        let now = ctx.now;
        let retransmission = seq < self.snd_max;
        let paced = self.paces_next::<P>();
        // `syn_pending` is only ever set with `syn`.
        let syn_pending = rule!(P, self.syn) && self.syn_pending;
        if seq == self.snd_max {
            let payload = if syn_pending {
                0
            } else {
                (self.app_bytes - self.app_assigned).min(self.cfg.mss as u64) as u32
            };
            self.app_assigned += payload as u64;
            self.segs.push_back(Seg {
                payload,
                tx_count: 0,
                sent_at: now,
            });
            if !P && self.keeps_board {
                self.board.push();
            }
            self.snd_max += 1;
            if rule!(P, self.timed_rtt) && self.rtt_timing.is_none() {
                self.rtt_timing = Some((seq, now));
            }
        }
        if self.state == CaState::Recovery {
            self.prr.on_sent();
        }
        let tx = if !P && self.rate_samples {
            let in_flight = self.in_flight();
            self.rate.on_send(now, in_flight)
        } else {
            TxInfo::default()
        };
        if !P && retransmission && self.keeps_board {
            self.board.note_retransmit(seq);
        }
        let i = (seq - self.snd_una) as usize;
        self.segs.set_tx(i, tx);
        let s = self.segs.get_mut(i);
        s.tx_count = s.tx_count.saturating_add(1);
        s.sent_at = now;
        let first = s.tx_count == 1;
        if seq == 0 && first {
            self.syn_first_sent = Some(now);
        }
        let size = if seq == 0 && syn_pending && self.cfg.syn_full_size {
            self.cfg.mss + self.cfg.header
        } else if seq == 0 && syn_pending {
            self.cfg.header + self.cfg.syn_option_bytes
        } else {
            s.payload + self.cfg.header
        };
        let (payload, tx_count) = (s.payload, s.tx_count - 1);
        // The SYN (seq 0 while the connection opens) carries its flag,
        // so that the receiver answers it at once, as a SYN-ACK.
        let mut pkt_flags = if syn_pending && seq == 0 {
            flags::SYN
        } else {
            flags::ACK
        };
        let mut ecn = Ecn::NotEct;
        // RFC 3168 section 6.1.5: retransmissions are not ECN-capable
        // (unless `ect_every_packet`: ns-3's DctcpEcn mode).
        if rule!(P, self.ecn) && (first || self.cfg.ect_every_packet) {
            ecn = if self.cfg.ect1 { Ecn::Ect1 } else { Ecn::Ect };
        }
        if rule!(P, self.ecn) && first && self.cwr_pending {
            pkt_flags |= flags::CWR;
            self.cwr_pending = false;
        }
        let wnd = self.cfg.window;
        ctx.send_with(|| Packet {
            kind: PacketKind::Data,
            size,
            payload,
            seq,
            tx_count,
            wnd,
            ts_val: now,
            flags: pkt_flags,
            ecn,
            ..Packet::default()
        });
        if let Some(rate) = self.pacing_rate_as::<P>().filter(|_| paced) {
            let gap = tx_time(size, rate.max(1.0) as u64);
            self.pace_next = self.pace_next.max(now) + gap;
        }
        if self.rto_deadline.is_none() {
            let at = match rule!(P, self.syn_timeout) {
                // ns-3: `m_rto = m_cnTimeout * 2^(retries so far)`.
                Some(t) if syn_pending && seq == 0 => {
                    now + SimTime(t.0.saturating_mul(1u64 << (self.seg(0).tx_count - 1).min(30)))
                }
                _ => now + self.rtt.rto(),
            };
            self.arm_rto(ctx, at);
        }
    }

    /// Send as much as the window, the receiver window, pacing and the
    /// application allow.
    pub(super) fn send_much(&mut self, ctx: &mut FlowCtx) {
        if self.plain {
            self.send_much_as::<true>(ctx);
        } else {
            self.send_much_as::<false>(ctx);
        }
    }

    /// [`TcpSender::send_much`] in the instance `P` ([`TcpSender::plain`]).
    fn send_much_as<const P: bool>(&mut self, ctx: &mut FlowCtx) {
        if !P && self.cfg.recovery == Recovery::RateHalving {
            self.la_send_much(ctx);
            return;
        }
        // ns-2's NewReno sends at most two segments per ACK during fast
        // recovery (`send_much(0, 0, 2)` while `dupacks_` has not been reset;
        // a partial ACK does not reset it).
        let burst =
            if rule!(P, self.ns2_recovery) && self.cfg.recovery == Recovery::NewReno && self.state == CaState::Recovery
            {
                2
            } else {
                u32::MAX
            };
        // Only ns-2's Sack1 holds.
        if !P && self.sack1_holds() {
            return;
        }
        let mut sent = 0u32;
        // The window, read once per call: sending changes neither the
        // controller's window nor the inflation.
        let mut window: Option<u64> = None;
        loop {
            if sent >= burst {
                return;
            }
            if rule!(P, self.syn) && self.syn_pending && self.snd_nxt > 0 {
                // Nothing but the SYN (and its retransmissions after a
                // timeout) until it is acknowledged.
                return;
            }
            if self.state == CaState::Recovery && self.uses_sack_as::<P>() {
                let sent = if self.cfg.sack1 {
                    self.sack1_step(ctx)
                } else {
                    self.sack_recovery_step(ctx)
                };
                if !sent {
                    return;
                }
                continue;
            }
            if !P && self.resends_below_high_sack() {
                if !self.after_timeout_step(ctx) {
                    return;
                }
                continue;
            }
            if self.uses_sack_as::<P>() {
                while self.snd_nxt < self.snd_max && self.board.is_sacked(self.snd_nxt) {
                    self.snd_nxt += 1;
                }
            }
            let go_back = self.snd_nxt < self.snd_max;
            let out = self.snd_nxt - self.snd_una;
            if out >= self.rwnd {
                self.cwnd_limited = false;
                return;
            }
            let cwnd = *window.get_or_insert_with(|| self.window_as::<P>());
            // ns-3 (`pipe_window`): cwnd - pipe in every state, the SACKed
            // segments left out; Limited Transmit is then implicit.
            let pipe_rule = rule!(P, self.pipe_window) && self.uses_sack_as::<P>();
            let used = if pipe_rule { self.in_flight_as::<P>() } else { out };
            // ns-2's `send_one` runs on every first and second duplicate
            // ACK outside fast recovery, also after a timeout or Tahoe's
            // fast retransmit and for go-back-N segments; only on the
            // duplicate ACK itself (`TcpAgent::recv`), never from a timeout
            // that finds a Tahoe sender's count still at 1 or 2.
            let lt_state = if rule!(P, self.lt_after_loss) {
                self.state != CaState::Recovery && self.on_dupack
            } else {
                self.state == CaState::Open && !go_back
            };
            let lt = if self.cfg.limited_transmit
                && lt_state
                && !pipe_rule
                && self.dupacks > 0
                && self.dupacks < self.cfg.dupthresh
            {
                (self.dupacks as u64).min(2)
            } else {
                0
            };
            if used >= cwnd + lt {
                self.cwnd_limited = true;
                return;
            }
            if !go_back && !self.has_new_data() {
                self.cwnd_limited = false;
                let f = self.in_flight_as::<P>();
                self.rate.mark_app_limited(f);
                return;
            }
            if self.pace_blocked(ctx) {
                return;
            }
            if !go_back && out >= cwnd {
                self.lt_sent += 1;
            }
            let seq = self.snd_nxt;
            self.transmit_as::<P>(ctx, seq);
            self.snd_nxt = seq + 1;
            sent += 1;
        }
    }

    /// Whether new data may be sent now under the receiver window.
    pub(super) fn new_data_allowed(&self) -> bool {
        self.has_new_data() && self.snd_max < self.snd_una + self.rwnd
    }

    /// RFC 6675 step (C): send one segment chosen by NextSeg() if
    /// cwnd - pipe >= 1; false when nothing was sent.
    fn sack_recovery_step(&mut self, ctx: &mut FlowCtx) -> bool {
        use super::scoreboard::NextSeg;
        let pipe = self.board.pipe(self.high_rxt_end, self.cfg.dupthresh);
        // With PRR (RFC 6937), pipe at the ACK + sndcnt instead of cwnd.
        let cwnd = self.prr_window().unwrap_or_else(|| self.cc.cwnd());
        if cwnd - (pipe as f64) < 1.0 {
            self.cwnd_limited = true;
            return false;
        }
        let rescue_ok = self.cfg.rescue_rxt && self.rescue_rxt.is_none_or(|r| self.snd_una > r + 1);
        let next = self.board.next_seg(
            self.high_rxt_end,
            self.cfg.dupthresh,
            self.new_data_allowed(),
            rescue_ok,
            self.snd_max,
        );
        // `rwnd_stops_next_seg` (ns-3): with unsent data held back by the
        // receiver window, NextSeg returns nothing after rule 1.
        let next = match next {
            Some(NextSeg::Unsacked(_) | NextSeg::Rescue(_)) if self.cfg.rwnd_stops_next_seg && self.has_new_data() => {
                None
            }
            n => n,
        };
        let Some(next) = next else {
            self.cwnd_limited = false;
            return false;
        };
        if self.pace_blocked(ctx) {
            return false;
        }
        match next {
            NextSeg::Lost(s) | NextSeg::Unsacked(s) => {
                self.transmit(ctx, s);
                self.high_rxt_end = self.high_rxt_end.max(s + 1);
            }
            NextSeg::NewData => {
                let s = self.snd_max;
                self.transmit(ctx, s);
                self.snd_nxt = self.snd_max;
            }
            NextSeg::Rescue(s) => {
                self.transmit(ctx, s);
                self.rescue_rxt = Some(self.recovery_point.saturating_sub(1));
            }
        }
        true
    }

    /// One segment after a timeout with `rto_resend = "below_high_sack"`
    /// (ns-3.44's `SendPendingData` in CA_LOSS): while the window exceeds
    /// `BytesInFlight`, what `TcpTxBuffer::NextSeg` without rule 3 returns
    /// ([`super::RtoResend::BelowHighSack`]); false when nothing was sent.
    fn after_timeout_step(&mut self, ctx: &mut FlowCtx) -> bool {
        if self.board.pipe_after_timeout(self.recover) >= self.window() {
            self.cwnd_limited = true;
            return false;
        }
        let seq = match self.board.next_after_timeout(self.recover) {
            Some(s) => s,
            None if self.new_data_allowed() => self.snd_max,
            None => {
                self.cwnd_limited = false;
                if !self.has_new_data() {
                    let f = self.in_flight();
                    self.rate.mark_app_limited(f);
                }
                return false;
            }
        };
        if self.pace_blocked(ctx) {
            return false;
        }
        self.transmit(ctx, seq);
        // New data moves snd_nxt to snd_max, so it is there when the
        // episode ends (a resent segment lies below it).
        self.snd_nxt = self.snd_nxt.max(seq + 1);
        true
    }

    /// Remember a window reduction: no ECN reaction until the data now
    /// outstanding is acknowledged, and CWR on the next new segment.
    pub(super) fn note_reduction(&mut self) {
        self.ecn_recover = Some(self.snd_max);
        self.cwr_pending = self.cfg.ecn;
    }

    /// A loss event detected by duplicate ACKs or SACK.
    pub(super) fn congestion_event_for_loss(&self, now: SimTime, flight: u64, collapse: bool) -> CongestionEvent {
        self.congestion_event(now, flight, false, collapse)
    }

    pub(super) fn congestion_event(
        &self,
        now: SimTime,
        flight: u64,
        repeated: bool,
        collapse: bool,
    ) -> CongestionEvent {
        let window = self.cc.cwnd().min(self.rwnd as f64);
        let ns2 = self.cfg.ssthresh_from_window;
        CongestionEvent {
            now,
            // ns-2's `slowdown` halves `windowd()` = min(cwnd, wnd), not
            // FlightSize, and does so again on a repeated timeout.
            flight: if ns2 { window } else { flight as f64 },
            window,
            collapse,
            repeated: repeated && !ns2,
            srtt: self.rtt.srtt(),
            int_ssthresh: ns2,
        }
    }

    /// Retransmission timeout (RFC 6298 section 5.4-5.6, RFC 5681 section 3.1).
    fn on_timeout(&mut self, ctx: &mut FlowCtx) {
        // With `sub_segment_window` (ns-3) the timer also runs while unsent
        // data waits behind a window below one segment, and its expiry is a
        // timeout that sends the next new segment (`TcpSocketBase::ReTxTimeout`
        // proceeds while the send buffer holds data).
        if self.snd_una >= self.snd_max && !(self.cfg.sub_segment_window && self.has_new_data()) {
            return;
        }
        if self.syn_pending && self.cfg.syn_timeout.is_some() {
            // ns-3 resends the SYN from `SendEmptyPacket`'s own timer: no
            // RTO backoff, no congestion response, not a data timeout.
            self.snd_nxt = 1;
            self.transmit(ctx, 0);
            return;
        }
        if self.cfg.recovery == Recovery::RateHalving {
            self.la_on_timeout(ctx);
            return;
        }
        ctx.stats.on_timeout();
        // ssthresh is held on a repeated timeout (RFC 5681 section 3.1) and
        // on a timeout during fast recovery, which already reduced it for
        // this loss (Linux `tcp_enter_loss`): FlightSize then counts the
        // new data that window inflation sent and would raise ssthresh.
        // ns-3 (`ssthresh_from_pipe`) takes the pipe before the timeout and
        // holds ssthresh only when it is already in loss with the head
        // retransmitted (`TcpSocketBase::ReTxTimeout`).
        let (flight, hold) = if self.cfg.ssthresh_from_pipe {
            let head_resent = self.segs.front().is_some_and(|s| s.tx_count > 1);
            (self.pipe_now(), self.state == CaState::Loss && head_resent)
        } else {
            (
                self.snd_max - self.snd_una,
                self.rto_streak > 0 || self.state == CaState::Recovery,
            )
        };
        let ev = self.congestion_event(ctx.now, flight, hold, false);
        self.cc.on_rto(&ev);
        self.rtt.back_off();
        // Karn: nothing sent before the timeout is timed any more (ns-2's
        // `reset_rtx_timer` clears `rtt_active_`).
        self.rtt_timing = None;
        // ns-3's `ReTxTimeout` clears its RTT history (`m_history.clear ()`).
        self.rtt_hist_start = self.snd_max;
        self.rto_streak += 1;
        self.state = CaState::Loss;
        self.recover = self.snd_max;
        self.recovery_point = self.snd_max;
        self.inflation = 0.0;
        // ns-2's Tahoe keeps counting duplicate ACKs across a timeout
        // (`TcpAgent::timeout` leaves `dupacks_` alone).
        if self.cfg.timeout_resets_dupacks {
            self.dupacks = 0;
        }
        self.lt_sent = 0;
        self.partial_acks = 0;
        // The SACK scoreboard is kept (RFC 6675 section 5.1 allows it when
        // reneging is detected; ccsim's receiver never reneges), so the
        // go-back-N after the timeout skips what the receiver holds, as Linux.
        self.high_rxt_end = self.snd_una;
        self.rescue_rxt = None;
        self.sack1_on_timeout();
        self.board.forget_retransmits();
        self.snd_nxt = self.snd_una;
        self.note_reduction();
        self.send_much(ctx);
    }

    /// The cumulative ACK `ack` newly covers segment `s` (the oldest
    /// outstanding one): take it off, and add what it brings to `cum`.
    /// Out of line: inlined into the loop over the covered segments, LLVM
    /// kept the sender's fields it reads in registers across the loop,
    /// loading them all for the one or two segments an ACK usually covers.
    #[inline(never)]
    fn ack_segment<const P: bool>(&mut self, s: u64, ack: u64, oldest: u64, now: SimTime, cum: &mut CumAck) {
        // Its rate state is read only for a controller that reads rate samples.
        let tx = if !P && self.rate_samples {
            self.segs.tx(0)
        } else {
            TxInfo::default()
        };
        let seg = self
            .segs
            .pop_front()
            .expect("segs holds every seq in [snd_una, snd_max) and ack <= snd_max");
        cum.acked += 1;
        cum.bytes += seg.payload as u64;
        if s + 1 == ack && s >= self.rtt_hist_start && seg.tx_count == 1 {
            // ns-3's `m_lastRtt`: the latest-sent covered segment.
            self.last_rtt = Some(now - seg.sent_at);
        }
        if s == oldest && seg.tx_count == 1 {
            cum.oldest_rtt = Some(now - seg.sent_at);
        } else if s == 0 && rule!(P, self.syn) && self.syn_pending && self.cfg.syn_rtt_first_send {
            // ns-3: a resent SYN adds no entry to the RTT history,
            // which still holds the first one, so the SYN-ACK is
            // timed from the first SYN (`DoForwardUp` ->
            // `EstimateRtt`): no Karn's rule for the handshake.
            cum.oldest_rtt = self.syn_first_sent.map(|t| now - t);
            self.last_rtt = cum.oldest_rtt;
        }
        if !P && self.keeps_board && self.board.is_sacked(s) {
            return;
        }
        cum.delivered += 1;
        self.on_delivered::<P>(now, &tx);
        if seg.tx_count > 1 {
            cum.retrans = true;
        } else if cum.rtt.is_none_or(|r| now - seg.sent_at < r) {
            cum.rtt = Some(now - seg.sent_at);
        }
    }

    /// Handle an acknowledgement.
    fn on_ack(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if self.plain {
            self.on_ack_as::<true>(ctx, pkt);
        } else {
            self.on_ack_as::<false>(ctx, pkt);
        }
    }

    /// [`TcpSender::on_ack`] in the instance `P` ([`TcpSender::plain`]).
    fn on_ack_as<const P: bool>(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if !P && self.cfg.recovery == Recovery::RateHalving {
            self.la_on_ack(ctx, pkt);
            return;
        }
        let now = ctx.now;
        let ack = pkt.ack.min(self.snd_max);
        if ack < self.snd_una {
            return;
        }
        self.rwnd = (pkt.wnd as u64).max(1);
        let prior_in_flight = self.in_flight_as::<P>();
        let prior_una = self.snd_una;
        self.rate.begin_ack();

        // SACK blocks (RFC 6675 Update()).
        let mut newly_sacked = 0u64;
        let mut newly_delivered = 0u64;
        let mut sack_rtt: Option<SimTime> = None;
        if self.uses_sack_as::<P>() && self.takes_sack_blocks(ack) {
            for &(a, b) in &pkt.sack[..(pkt.n_sack as usize).min(pkt.sack.len())] {
                let lo = a.max(ack);
                let hi = b.min(self.snd_max);
                for s in lo..hi {
                    if self.board.mark(s) {
                        newly_sacked += 1;
                        newly_delivered += 1;
                        let seg = *self.seg(s);
                        let tx = self.segs.tx((s - self.snd_una) as usize);
                        self.on_delivered::<P>(now, &tx);
                        if seg.tx_count == 1 && sack_rtt.is_none_or(|r| now - seg.sent_at < r) {
                            sack_rtt = Some(now - seg.sent_at);
                        }
                    }
                }
            }
        }

        // The cumulative ACK.
        let mut cum = CumAck::default();
        if ack > self.snd_una {
            let oldest = self.snd_una.max(self.rtt_hist_start);
            for s in self.snd_una..ack {
                self.ack_segment::<P>(s, ack, oldest, now, &mut cum);
            }
            if !P && self.keeps_board {
                self.board.advance(ack);
            }
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.rto_streak = 0;
            self.rtt.on_new_ack();
        }
        let CumAck {
            acked,
            bytes: acked_bytes,
            delivered,
            rtt: cum_rtt,
            retrans: retrans_acked,
            oldest_rtt,
        } = cum;
        newly_delivered += delivered;
        // The RTT this ACK measures (RFC 6298 section 3: the most recent
        // segment sent once that it newly acknowledges, none across a
        // retransmission), which the congestion controller sees.
        let ack_rtt = if retrans_acked { sack_rtt } else { cum_rtt.or(sack_rtt) };
        // The RTO's sample: the same, or with `timed_rtt` ns-2's one timed
        // segment at a time, sampled when the cumulative ACK covers it
        // (`recv_newack_helper`). ns-2's delay-based agents (Vegas) time
        // every packet themselves, so the controller still sees `ack_rtt`.
        let rtt_sample = if rule!(P, self.timed_rtt) {
            match self.rtt_timing {
                Some((seq, at)) if ack > seq => {
                    self.rtt_timing = None;
                    Some(now - at)
                }
                _ => None,
            }
        } else if rule!(P, self.oldest_rtt) {
            oldest_rtt
        } else {
            ack_rtt
        };
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(r, now - r);
            // Read only by `conn_min_rtt` under `min_rtt_basis = "srtt"`.
            if rule!(P, self.min_rtt_from_srtt) {
                if let Some(s) = self.rtt.srtt() {
                    self.min_srtt = Some(self.min_srtt.map_or(s, |m| m.min(s)));
                }
            }
        }

        let mut losses = 0;
        if self.uses_sack_as::<P>() {
            let mut newly_lost = std::mem::take(&mut self.newly_lost);
            losses = self.board.mark_lost(self.cfg.dupthresh, &mut newly_lost);
            for &seq in &newly_lost {
                self.note_lost(ctx, seq);
            }
            self.newly_lost = newly_lost;
        }
        let advanced = ack > prior_una;
        // `sack_dupack` (ns-3): with SACK, new SACK information makes an ACK
        // a duplicate even when it also advances.
        let is_dup = (!advanced || rule!(P, self.sack_dupack) && self.uses_sack_as::<P>())
            && self.snd_una < self.snd_max
            && (!self.uses_sack_as::<P>() || newly_sacked > 0);
        let prior_state = self.state;
        let out = self.recovery_on_ack::<P>(ctx, advanced, is_dup, acked, newly_delivered, retrans_acked);
        losses += out.losses;
        // `loss_exit_beyond_recover` (ns-3): the ACK that ends the recovery
        // after a timeout counts only what lies beyond its recovery point.
        let loss_exit =
            (rule!(P, self.loss_exit_beyond_recover) && prior_state == CaState::Loss && self.state == CaState::Open)
                .then(|| self.snd_una.saturating_sub(self.recovery_point));

        if advanced {
            if self.snd_una >= self.snd_max && rule!(P, self.sub_segment_window) && self.has_new_data() {
                // ns-3's `NewAck` restarts the timer on every new ACK and
                // cancels it only when the send buffer is empty.
                let at = now + self.rtt.rto();
                self.arm_rto(ctx, at);
            } else if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
            } else if out.restart_timer {
                let at = now + self.rtt.rto();
                self.arm_rto(ctx, at);
            }
        }

        // ECN-Echo (RFC 3168 section 6.1.2): at most one reduction per
        // window of data, none during recovery.
        let ece = rule!(P, self.ecn) && pkt.flags & flags::ECE != 0;
        if ece && self.state == CaState::Open && self.ecn_recover.is_none_or(|r| self.snd_una > r) {
            let flight = self.snd_max - self.snd_una;
            let ev = self.congestion_event(now, flight, false, false);
            self.cc.on_ecn(&ev);
            self.ecn_recover = Some(self.snd_max);
            self.cwr_pending = true;
        }

        // The ACK of the SYN opens the connection: the window starts at its
        // initial value (ns-2 sets cwnd = initial_window() when `last_ack_`
        // becomes 0 with `delay_growth_`), so the controller does not see it.
        if rule!(P, self.syn) && self.syn_pending && self.snd_una >= 1 {
            self.syn_pending = false;
            if self.cfg.handshake_ack {
                // ns-3's `ProcessSynSent`: `SendEmptyPacket (ACK)`, then data.
                ctx.send(Packet {
                    size: self.cfg.header,
                    seq: self.snd_max,
                    wnd: self.cfg.window,
                    ts_val: now,
                    flags: flags::ACK,
                    ecn: self.cfg.pure_ack_ecn(),
                    ..Packet::default()
                });
            }
            self.cc.on_syn_ack(now, self.snd_max, ack_rtt);
            self.cc.on_open(now, self.rtt.srtt(), self.conn_min_rtt::<P>());
            self.send_much_as::<P>(ctx);
            return;
        }
        self.on_dupack = is_dup;
        // ns-3 grows cwnd (`IncreaseWindow`) only in CA_OPEN: not on an
        // advancing duplicate (CA_DISORDER) before fast recovery; a
        // controller with `CongControl` (BBR) still sees what it delivered.
        let hold =
            rule!(P, self.sack_dupack) && advanced && is_dup && self.state == CaState::Open && loss_exit.is_none();
        let min_rtt = self.conn_min_rtt::<P>();
        let in_flight = self.in_flight_as::<P>();
        // The ACK's summary for the controller, built in each arm below:
        // the Reno family's `on_ack` is inlined there and reads a few of
        // its fields, so the others are never stored.
        macro_rules! info {
            () => {
                AckInfo {
                    now,
                    acked: if hold { 0 } else { loss_exit.unwrap_or(acked) },
                    sacked: newly_sacked,
                    newly_delivered: loss_exit.unwrap_or(newly_delivered),
                    acked_bytes,
                    rtt: ack_rtt,
                    srtt: self.rtt.srtt(),
                    min_rtt,
                    last_rtt: self.last_rtt,
                    prior_in_flight,
                    in_flight,
                    cwnd_limited: self.cwnd_limited || !rule!(P, self.cwnd_validation),
                    state: self.state,
                    exited_recovery: out.exited_recovery,
                    // `recovery_exit_growth`: ns-3 and ns-2 (but its Sack1, `newack`
                    // only) open cwnd on the ACK that ends fast recovery too.
                    exit_growth: out.exited_recovery && rule!(P, self.exit_growth),
                    ece,
                    ack: self.snd_una,
                    snd_max: self.snd_max,
                    delivered: self.rate.delivered(),
                    losses,
                    rate: if !P && self.rate_samples {
                        self.rate.end_ack(min_rtt)
                    } else {
                        None
                    },
                }
            };
        }
        match &mut self.cc {
            Controller::Reno(c) => c.on_ack(&info!(), ctx.rng),
            Controller::Dyn(c) => c.on_ack(&info!(), ctx.rng),
        }
        self.send_much_as::<P>(ctx);
        self.on_dupack = false;
    }
}

impl Sender for TcpSender {
    fn segment_payload(&self) -> Option<u32> {
        Some(self.cfg.mss)
    }
    fn name(&self) -> &'static str {
        "tcp"
    }

    fn app_data(&mut self, ctx: &mut FlowCtx, bytes: u64) {
        if self.stopped || bytes == 0 {
            return;
        }
        self.app_bytes = self.app_bytes.saturating_add(bytes);
        self.send_much(ctx);
    }

    fn stop(&mut self, _ctx: &mut FlowCtx) {
        self.stopped = true;
    }

    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if pkt.kind == PacketKind::Ack {
            self.on_ack(ctx, pkt);
        }
    }

    fn on_timer(&mut self, ctx: &mut FlowCtx, kind: u32, token: u64) {
        match kind {
            TIMER_RTO if token == self.rto_token => {
                self.rto_event = None;
                match self.rto_deadline {
                    Some(d) if ctx.now < d => self.arm_rto(ctx, d),
                    Some(_) => {
                        self.rto_deadline = None;
                        self.on_timeout(ctx);
                    }
                    None => {}
                }
            }
            TIMER_PACE if token == self.pace_token => {
                self.pace_event = None;
                self.send_much(ctx);
            }
            _ => {}
        }
    }

    fn probe(&self) -> SenderProbe {
        let ss = self.cc.ssthresh();
        SenderProbe {
            cwnd_pkts: self.effective_cwnd(),
            ssthresh_pkts: if ss.is_finite() { ss } else { f64::NAN },
            srtt_s: self.rtt.srtt().map_or(f64::NAN, |s| s.secs_f64()),
            // Only a sender that probes the rate has the series
            // (`probe_names`); the others skip the controller's call.
            rate_bps: if self.probes_rate {
                self.pacing_rate().unwrap_or(f64::NAN)
            } else {
                f64::NAN
            },
        }
    }

    fn cwnd_and_srtt(&self) -> (f64, f64) {
        let srtt = self.rtt.srtt().map_or(f64::NAN, |s| s.secs_f64());
        (self.effective_cwnd(), srtt)
    }

    fn probe_names(&self) -> &'static [&'static str] {
        if self.probes_rate {
            &["cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"]
        } else {
            &["cwnd_pkts", "ssthresh_pkts", "srtt_s"]
        }
    }
}

#[cfg(test)]
mod controller_tests {
    use super::*;
    use crate::compat::Profile;

    fn sender(cc: &str, profile: Profile, tweak: impl FnOnce(&mut super::super::TcpConfig)) -> TcpSender {
        let mut cfg = super::super::TcpConfig {
            cc: cc.into(),
            ..Default::default()
        };
        tweak(&mut cfg);
        let (sc, _, _) = cfg.resolve(profile).unwrap();
        TcpSender::new(sc, crate::cc::build(cc, &Default::default(), &init(2.0)).unwrap())
    }

    #[test]
    fn the_plain_instance_is_taken_exactly_with_ccsims_rules_and_the_reno_family_without_sack() {
        for cc in ["tahoe", "reno", "newreno"] {
            assert!(sender(cc, Profile::Ccsim, |_| {}).plain, "{cc}");
            assert!(!sender(cc, Profile::Ns2, |_| {}).plain, "{cc} ns2");
            assert!(!sender(cc, Profile::Ns3, |_| {}).plain, "{cc} ns3");
            assert!(!sender(cc, Profile::Ccsim, |c| c.ecn = true).plain, "{cc} ecn");
            assert!(!sender(cc, Profile::Ccsim, |c| c.pacing = true).plain, "{cc} pacing");
            assert!(!sender(cc, Profile::Ccsim, |c| c.syn = Some(true)).plain, "{cc} syn");
            assert!(
                sender(cc, Profile::Ccsim, |c| c.limited_transmit = false).plain,
                "{cc} no LT"
            );
            let timed = |c: &mut super::super::TcpConfig| c.rtt_sampling = Some(super::super::RttSampling::Timed);
            assert!(!sender(cc, Profile::Ccsim, timed).plain, "{cc} timed");
        }
        assert!(!sender("sack", Profile::Ccsim, |_| {}).plain);
        assert!(!sender("cubic", Profile::Ccsim, |_| {}).plain);
    }
    use crate::cc::testutil::{ack, init, loss};
    use crate::rng::stream;

    #[test]
    fn the_reno_family_is_held_by_value_and_answers_as_behind_the_vtable() {
        let build = |name: &str| crate::cc::build(name, &Default::default(), &init(2.0)).unwrap();
        for name in ["tahoe", "reno", "newreno", "sack", "cubic"] {
            let mut held = Controller::new(build(name));
            let mut boxed = build(name);
            assert_eq!(matches!(held, Controller::Reno(_)), name != "cubic", "{name}");
            let (mut r1, mut r2) = (stream(1, "t"), stream(1, "t"));
            for i in 0..20 {
                held.on_ack(&ack(i, 100), &mut r1);
                boxed.on_ack(&ack(i, 100), &mut r2);
                assert_eq!(held.cwnd().to_bits(), boxed.cwnd().to_bits(), "{name}");
            }
            let ev = loss(1000, 10.0);
            held.on_congestion_event(&ev);
            boxed.on_congestion_event(&ev);
            assert_eq!(held.ssthresh().to_bits(), boxed.ssthresh().to_bits(), "{name}");
            assert_eq!(held.name(), boxed.name());
            assert_eq!(held.uses_rate_samples(), boxed.uses_rate_samples());
        }
    }
}
