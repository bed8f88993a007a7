//! Congestion control: the window (and, for BBR, the pacing rate) of a TCP
//! sender, as one trait with one implementation per algorithm.
//!
//! The TCP sender ([`crate::tcp`]) owns loss detection and recovery (which
//! segment to retransmit, when); a [`CongestionControl`] owns `cwnd` and
//! `ssthresh` and decides how they move:
//! - [`CongestionControl::on_ack`] on every acknowledgement, with the RTT
//!   sample, the segments newly acknowledged and a delivery-rate sample;
//! - [`CongestionControl::on_congestion_event`] when a loss is detected by
//!   duplicate ACKs or SACK (once per recovery episode);
//! - [`CongestionControl::on_ecn`] on an ECN-Echo (at most once per RTT);
//! - [`CongestionControl::on_rto`] on a retransmission timeout.
//! - [`CongestionControl::on_packet_lost`] for each segment deemed lost,
//!   with what was in flight and lost when it was sent (BBR v3).
//!
//! Windows are in segments (packets of one MSS) as `f64`, so the fractional
//! per-ACK increases of RFC 5681 accumulate exactly as in ns-2's `cwnd_`.
//! Every controller is a pure state machine: time arrives as an argument and
//! the only randomness (BBR's gain-cycle phase, BBR v3's probe wait) comes
//! from the flow's stream.

pub mod aimd;
pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod binomial;
pub mod copa;
pub mod cubic;
pub mod cubic_linux;
pub mod cubic_ns3;
pub mod dctcp;
pub mod filter;
pub mod highspeed;
pub mod hystart;
pub mod linux2622;
pub mod reno;
pub mod vegas;
pub mod vivace;

use crate::params::{parse, ParamError, Params};
use crate::rng::SimRng;
use crate::time::SimTime;
use serde::de::DeserializeOwned;

/// A controller's constructor: from the flow's `cc_params` and the initial window.
pub type BuildFn = fn(&Params, &CcInit) -> Result<Box<dyn CongestionControl>, ParamError>;

/// One congestion controller: its `cc` name, its constructor, and whether
/// it comes from Linux (and so negotiates SACK unless a flow says otherwise).
pub struct Controller {
    /// The `cc` name.
    pub name: &'static str,
    /// Build it from the flow's `cc_params`.
    pub build: BuildFn,
    /// Taken from Linux: SACK is on by default for it.
    pub sack_by_default: bool,
    /// Needs every CE mark echoed: its flows are ECN-capable and their
    /// receivers echo the CE state of each segment (DCTCP, RFC 8257
    /// section 3.2) instead of RFC 3168's ECE-until-CWR.
    pub accurate_ecn: bool,
    /// An L4S scalable sender: its packets carry ECT(1) (RFC 9331 section 4).
    pub l4s: bool,
}

/// Every controller, one row each: a new one is its file plus a row here.
pub const CONTROLLERS: &[Controller] = &[
    row(
        "tahoe",
        |p, i| boxed(reno::Reno::new("tahoe", parse_params(p)?, i)),
        false,
    ),
    row(
        "reno",
        |p, i| boxed(reno::Reno::new("reno", parse_params(p)?, i)),
        false,
    ),
    row(
        "newreno",
        |p, i| boxed(reno::Reno::new("newreno", parse_params(p)?, i)),
        false,
    ),
    row(
        "sack",
        |p, i| boxed(reno::Reno::new("sack", parse_params(p)?, i)),
        false,
    ),
    row("aimd", |p, i| boxed(aimd::Aimd::new(parse_params(p)?, i)), false),
    row(
        "binomial",
        |p, i| boxed(binomial::Binomial::new(parse_params(p)?, i, None)),
        false,
    ),
    row(
        "iiad",
        |p, i| {
            boxed(binomial::Binomial::new(
                parse_params(p)?,
                i,
                Some(binomial::Preset::Iiad),
            ))
        },
        false,
    ),
    row(
        "sqrt",
        |p, i| {
            boxed(binomial::Binomial::new(
                parse_params(p)?,
                i,
                Some(binomial::Preset::Sqrt),
            ))
        },
        false,
    ),
    row("vegas", |p, i| boxed(vegas::Vegas::new(parse_params(p)?, i)), false),
    row("bic", |p, i| bic::build(parse_params(p)?, i), true),
    row("cubic", |p, i| cubic::build(parse_params(p)?, i), true),
    row("highspeed", |p, i| highspeed::build(parse_params(p)?, i), false),
    row("bbr", |p, i| boxed(bbr::Bbr::new(parse_params(p)?, i)), true),
    row("bbr3", |p, i| boxed(bbr3::Bbr3::new(parse_params(p)?, i)), true),
    row("dctcp", |p, i| boxed(dctcp::Dctcp::new(parse_params(p)?, i)), true).with_accurate_ecn(),
    row("copa", |p, i| boxed(copa::Copa::new(parse_params(p)?, i)), true),
    // SACK by default: PCC's sender runs over QUIC, whose ACK frames carry ranges.
    row("vivace", |p, i| boxed(vivace::Vivace::new(parse_params(p)?, i)), true),
    row("prague", |p, i| boxed(dctcp::Dctcp::prague(parse_params(p)?, i)), true)
        .with_accurate_ecn()
        .with_l4s(),
];

const fn row(name: &'static str, build: BuildFn, sack_by_default: bool) -> Controller {
    Controller {
        name,
        build,
        sack_by_default,
        accurate_ecn: false,
        l4s: false,
    }
}

impl Controller {
    /// The row of a controller that needs every CE mark echoed.
    const fn with_accurate_ecn(mut self) -> Self {
        self.accurate_ecn = true;
        self
    }

    /// The row of an L4S sender (ECT(1)).
    const fn with_l4s(mut self) -> Self {
        self.l4s = true;
        self
    }
}

fn boxed<T: CongestionControl + 'static>(r: Result<T, ParamError>) -> Result<Box<dyn CongestionControl>, ParamError> {
    r.map(|c| Box::new(c) as Box<dyn CongestionControl>)
}

/// The controller named `name`, if there is one.
pub fn lookup(name: &str) -> Option<&'static Controller> {
    CONTROLLERS.iter().find(|c| c.name == name)
}

/// Names accepted as `cc`.
pub fn kinds() -> Vec<&'static str> {
    CONTROLLERS.iter().map(|c| c.name).collect()
}

/// The error for an unknown `cc` name.
pub fn unknown(name: &str) -> ParamError {
    ParamError::at(
        "cc",
        format!(
            "unknown congestion control \"{name}\"; expected one of: {}, or SCHEME:NAME from an extension (python:module.Class)",
            kinds().join(", ")
        ),
    )
}

/// The sender's loss-recovery state when an ACK is processed (Linux's
/// `icsk_ca_state`, reduced to what the controllers need).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaState {
    /// No recovery under way.
    Open,
    /// Fast recovery after a loss detected by duplicate ACKs or SACK.
    Recovery,
    /// Retransmitting after a timeout, until everything outstanding at the
    /// timeout is acknowledged.
    Loss,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation;
/// draft-ietf-ccwg-bbr-06 section 4.1.2), in segments: `delivered` segments
/// over `interval`, from the newest segment an ACK delivered. An ACK that
/// delivers something always carries one; its `interval` is zero when it
/// gives no reliable rate (shorter than the minimum RTT: the draft's
/// `GenerateRateSample` then leaves `RS.delivery_rate` unset), and
/// [`RateSample::rate_pps`] is then None.
#[derive(Copy, Clone, Debug, Default)]
pub struct RateSample {
    /// Segments delivered (acked or SACKed) over the interval.
    pub delivered: u64,
    /// max(send elapsed, ack elapsed) of the sampled segment; zero when no
    /// reliable rate could be taken.
    pub interval: SimTime,
    /// Total delivered when the sampled segment was sent.
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application had nothing to send.
    pub app_limited: bool,
    /// Segments in flight just after the sampled segment was sent,
    /// including it (the draft's `RS.tx_in_flight`, `P.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments deemed lost (by duplicate ACKs or SACK) between the sampled
    /// segment's transmission and this ACK (`RS.lost = C.lost - P.lost`).
    pub lost: u64,
}

impl RateSample {
    /// Delivery rate in segments per second, if the interval is positive.
    pub fn rate_pps(&self) -> Option<f64> {
        (self.interval > SimTime::ZERO).then(|| self.delivered as f64 / self.interval.secs_f64())
    }
}

/// A segment just deemed lost, as the sender recorded it when it was sent
/// (draft-ietf-ccwg-bbr-06 section 5.5.10.2, `HandleLostPacket(P)`).
#[derive(Copy, Clone, Debug, Default)]
pub struct LostPacket {
    /// Segments in flight just after it was sent, itself included
    /// (`P.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments deemed lost since it was sent, itself included
    /// (`C.lost - P.lost`).
    pub lost: u64,
    /// It was sent while application-limited (`P.is_app_limited`).
    pub app_limited: bool,
}

/// What a controller learns from one acknowledgement.
#[derive(Copy, Clone, Debug)]
pub struct AckInfo {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// Segments newly acknowledged by the cumulative ACK.
    pub acked: u64,
    /// Segments newly selectively acknowledged.
    pub sacked: u64,
    /// Segments newly delivered: SACKed now, or cumulatively acknowledged
    /// without having been SACKed before.
    pub newly_delivered: u64,
    /// Payload bytes newly acknowledged by the cumulative ACK.
    pub acked_bytes: u64,
    /// RTT sample taken from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimTime>,
    /// Smoothed RTT after this ACK (RFC 6298), if any sample yet.
    pub srtt: Option<SimTime>,
    /// Smallest RTT sample seen so far, if any.
    pub min_rtt: Option<SimTime>,
    /// ns-3's `m_tcb->m_lastRtt` after this ACK (`TcpSocketBase::EstimateRtt`):
    /// the RTT of the latest-sent segment a cumulative ACK covered, SACKed
    /// or not, unless it was retransmitted (or sent before the last timeout);
    /// it keeps its value over ACKs that give no such sample. None from
    /// senders that do not track it.
    pub last_rtt: Option<SimTime>,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u64,
    /// Segments in flight after this ACK.
    pub in_flight: u64,
    /// The sender was limited by cwnd (not by the receiver window or the
    /// application) when it last sent: growing cwnd is useful (RFC 7661).
    pub cwnd_limited: bool,
    /// Recovery state after this ACK was processed.
    pub state: CaState,
    /// This ACK ended a recovery episode (cwnd was just restored to ssthresh).
    pub exited_recovery: bool,
    /// The sender lets the ACK that ended recovery grow the window as any
    /// new ACK would (flow-group key `recovery_exit_growth`: ns-3's
    /// `TcpSocketBase::ProcessAck` calls `IncreaseWindow` on that ACK for
    /// every congestion control, ns-2's Reno and NewReno `opencwnd` on it;
    /// RFC 5681 section 3.2 step 6, RFC 6582 section 3.2 step 3 and
    /// Linux's `tcp_may_raise_cwnd` leave cwnd at ssthresh). Only set
    /// together with `exited_recovery`.
    pub exit_growth: bool,
    /// The ACK carried ECN-Echo (RFC 3168); the window must not grow on it.
    pub ece: bool,
    /// The cumulative ACK (next segment the receiver expects).
    pub ack: u64,
    /// Next new segment the sender will send (one past the highest sent).
    pub snd_max: u64,
    /// Segments delivered since the start (acked or SACKed).
    pub delivered: u64,
    /// Segments newly deemed lost while processing this ACK.
    pub losses: u64,
    /// Delivery-rate sample, if this ACK delivered anything.
    pub rate: Option<RateSample>,
}

impl AckInfo {
    /// Segments newly delivered (Linux's `acked_sacked`).
    pub fn acked_sacked(&self) -> u64 {
        self.newly_delivered
    }

    /// Whether a loss-based controller may open its window on this ACK: new
    /// data acknowledged, not in fast recovery (slow start after a timeout
    /// is allowed) nor just leaving it unless the sender allows growth
    /// there ([`AckInfo::exit_growth`]), no ECN-Echo, and the sender was
    /// using its window (RFC 5681 section 3, RFC 3168 section 6.1.2, RFC
    /// 7661).
    pub fn may_raise_cwnd(&self) -> bool {
        self.acked > 0
            && self.state != CaState::Recovery
            && (!self.exited_recovery || self.exit_growth)
            && !self.ece
            && self.cwnd_limited
    }
}

/// A congestion signal: loss, ECN-Echo or timeout.
#[derive(Copy, Clone, Debug)]
pub struct CongestionEvent {
    /// When it happened.
    pub now: SimTime,
    /// FlightSize for ssthresh (RFC 5681 eq. 4): segments outstanding,
    /// excluding those sent by Limited Transmit (RFC 5681 section 3.2 step 2).
    pub flight: f64,
    /// min(cwnd, receiver window): the window ns-2 and Linux reduce.
    pub window: f64,
    /// Tahoe recovery: restart from a loss window of one segment after
    /// setting ssthresh.
    pub collapse: bool,
    /// A timeout after which ssthresh must be held, not reduced again: it
    /// repeats an earlier one for the same data (RFC 5681 section 3.1), or
    /// it happened during fast recovery, which already reduced ssthresh.
    pub repeated: bool,
    /// Smoothed RTT, if known.
    pub srtt: Option<SimTime>,
    /// ssthresh is a whole number of segments, rounded down (ns-2 keeps
    /// `ssthresh_` in an int).
    pub int_ssthresh: bool,
}

impl CongestionEvent {
    /// `ssthresh` as the sender stores it (rounded down with `int_ssthresh`).
    pub fn whole(&self, ssthresh: f64) -> f64 {
        if self.int_ssthresh {
            ssthresh.floor()
        } else {
            ssthresh
        }
    }
}

/// How a controller is initialised.
#[derive(Copy, Clone, Debug)]
pub struct CcInit {
    /// Initial window, segments.
    pub initial_cwnd: f64,
    /// Initial slow-start threshold, segments (infinity: RFC 5681 "arbitrarily high").
    pub initial_ssthresh: f64,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Wire bytes per full segment (payload + header).
    pub wire_size: u32,
    /// The flow group's compatibility profile (defaults that differ
    /// between ns-2, ns-3, Linux and the RFCs; docs/compat.md).
    pub compat: crate::compat::Profile,
    /// The sender is ns-2's `Agent/TCP/Linux` (key `linux_agent`): the
    /// Linux modules it runs are Linux 2.6.22's.
    pub linux_agent: bool,
    /// The flow uses SACK, so several losses per round trip can be seen
    /// (BBR's `C.has_selective_acks`).
    pub sack: bool,
}

/// A congestion controller. It owns `cwnd` and `ssthresh` (segments).
pub trait CongestionControl: Send {
    /// The algorithm's name as written in scenarios.
    fn name(&self) -> &'static str;
    /// Congestion window, segments.
    fn cwnd(&self) -> f64;
    /// Slow-start threshold, segments (may be infinite).
    fn ssthresh(&self) -> f64;
    /// An ACK arrived (every ACK, also during recovery; loss-based
    /// controllers grow only when [`AckInfo::may_raise_cwnd`]).
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng);
    /// A loss was detected by duplicate ACKs or SACK (fast retransmit):
    /// set ssthresh and the window to use during recovery.
    fn on_congestion_event(&mut self, ev: &CongestionEvent);
    /// An ECN-Echo arrived (RFC 3168 section 6.1.2): by default the same
    /// reduction as a loss.
    fn on_ecn(&mut self, ev: &CongestionEvent) {
        self.on_congestion_event(ev);
    }
    /// A retransmission timeout.
    fn on_rto(&mut self, ev: &CongestionEvent);
    /// A segment was deemed lost (by SACK, or by duplicate ACKs or a
    /// partial ACK without SACK), before the ACK that revealed it reaches
    /// [`CongestionControl::on_ack`]; by default ignored.
    fn on_packet_lost(&mut self, _now: SimTime, _p: &LostPacket, _rng: &mut SimRng) {}
    /// Recovery ended (the sender has already set nothing; a controller that
    /// saved state at the congestion event restores it here).
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// The ACK of the SYN opened the connection (flow groups with `syn`):
    /// `snd_max` is 1 (the SYN) and `rtt` the SYN's round trip. The sender
    /// starts the window at its initial value without the controller, so
    /// the default ignores it; ns-2's Vegas runs its per-round logic on it
    /// (`cc/vegas.rs`).
    fn on_syn_ack(&mut self, _now: SimTime, _snd_max: u64, _rtt: Option<SimTime>) {}
    /// The connection opened (right after [`CongestionControl::on_syn_ack`]),
    /// with the sender's smoothed RTT and smallest RTT (`min_rtt_basis`) at
    /// that moment; by default ignored. ns-3's BBR initialises its model from
    /// them (`TcpBbr::CongestionStateSet` to CA_OPEN, `cc/bbr.rs`).
    fn on_open(&mut self, _now: SimTime, _srtt: Option<SimTime>, _min_rtt: Option<SimTime>) {}
    /// A NewReno partial ACK deflated the window by more than the
    /// inflation held: take `segments` off cwnd itself (ns-2's
    /// `partialnewack` with `partial_window_deflation_`). Window-based
    /// controllers override it; the default ignores it.
    fn deflate(&mut self, _segments: f64) {}
    /// Set cwnd (segments) from outside: ns-2's `Agent/TCP/Linux` raises
    /// `snd_cwnd` to ssthresh when a recovery or a timeout's loss state
    /// ends (`tcp_fastretrans_alert`, moderated by `tcp_moderate_cwnd`).
    /// Window-based controllers override it; the default ignores it.
    fn set_cwnd(&mut self, _cwnd: f64) {}
    /// Pacing rate in bits per second on the wire, for rate-based
    /// controllers (BBR); None lets the sender decide.
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
    /// Whether the controller reads the delivery-rate sample
    /// ([`AckInfo::rate`]) or the per-packet loss reports
    /// ([`CongestionControl::on_packet_lost`]). Asked once, when the sender
    /// is built: a controller that answers false gets `rate: None` and
    /// reports without their send-time fields, and the sender skips the
    /// rate estimator's per-segment work (draft-ietf-ccwg-bbr-06 section
    /// 4.1's bookkeeping, `tcp/rate.rs`). True by default (Python
    /// controllers, BBR, Vivace); the window-only controllers that read
    /// neither override it.
    fn uses_rate_samples(&self) -> bool {
        true
    }
    /// The controller if it is ccsim's Reno family ([`reno::Reno`]: Tahoe,
    /// Reno, NewReno, SACK), so that the TCP sender can hold a copy of it
    /// and call it without the vtable (`tcp::sender::Controller`); None
    /// for every other.
    fn as_reno(&self) -> Option<&reno::Reno> {
        None
    }
}

/// The window state shared by the loss-based controllers, with the RFC 5681
/// rules they have in common.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Window {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
}

/// Smallest ssthresh after a reduction (RFC 5681 eq. 4: 2*SMSS).
pub const MIN_SSTHRESH: f64 = 2.0;

impl Window {
    /// The initial window.
    pub fn new(init: &CcInit) -> Self {
        Window {
            cwnd: init.initial_cwnd,
            ssthresh: init.initial_ssthresh,
        }
    }

    /// cwnd < ssthresh (RFC 5681 section 3.1).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start, RFC 5681 eq. (2): cwnd += min(N, SMSS) per ACK, i.e. one
    /// segment per ACK that acknowledges new data.
    pub fn slow_start(&mut self, acked: u64) {
        if acked > 0 {
            self.cwnd += 1.0;
        }
    }

    /// Congestion avoidance with an increase of `a` segments per window of
    /// ACKs: cwnd += a / cwnd per ACK (RFC 5681 eq. (3) with a = 1).
    pub fn additive_increase(&mut self, a: f64) {
        self.cwnd += a / self.cwnd;
    }

    /// A loss or ECN reduction to `ssthresh` (floored at 2 segments); the
    /// window becomes ssthresh, or one segment for Tahoe.
    pub fn reduce(&mut self, ssthresh: f64, ev: &CongestionEvent) {
        self.reduce_to(ssthresh, ssthresh, ev);
    }

    /// A reduction of ssthresh to `ssthresh` and of cwnd to `cwnd` (the same
    /// value but for ns-2's binomial and AIMD rule, [`DecreaseRule::Ns2`]).
    pub fn reduce_to(&mut self, ssthresh: f64, cwnd: f64, ev: &CongestionEvent) {
        self.ssthresh = ev.whole(ssthresh).max(MIN_SSTHRESH);
        self.cwnd = if ev.collapse {
            1.0
        } else if ev.int_ssthresh {
            // ns-2's `slowdown(CLOSE_CWND_HALF)`: cwnd_ = halfwin (or
            // decreasewin), neither rounded nor raised to the 2-segment
            // floor of ssthresh_.
            cwnd.max(1.0)
        } else {
            cwnd.max(MIN_SSTHRESH)
        };
    }

    /// Take `segments` off cwnd (at least one segment remains).
    pub fn deflate(&mut self, segments: f64) {
        self.cwnd = (self.cwnd - segments).max(1.0);
    }

    /// A timeout: ssthresh becomes `ssthresh` (unless the timeout repeats an
    /// earlier one) and cwnd the loss window of one segment (RFC 5681 section 3.1).
    pub fn timeout(&mut self, ssthresh: f64, ev: &CongestionEvent) {
        if !ev.repeated {
            self.ssthresh = ev.whole(ssthresh).max(MIN_SSTHRESH);
        }
        self.cwnd = 1.0;
    }
}

/// ns-2's rule for non-standard decreases (`TcpAgent::slowdown`): "for the
/// first decrease, decrease by half even for non-standard values of
/// decrease_num_", and also when the loss ends slow start or follows a
/// timeout. Slowly-responsive controllers (AIMD with small b, binomial)
/// would otherwise keep most of a slow-start overshoot of up to twice the
/// path's capacity and lose packets for many round trips.
#[derive(Copy, Clone, Debug, Default)]
pub struct HalveFirst {
    decreased: bool,
    after_timeout: bool,
    rule: Option<DecreaseRule>,
}

/// Which decreases of a slowly-responsive controller (`aimd`, the binomial
/// ones) are standard halvings (their `cc_params` key `decrease_rule`;
/// default from the compatibility profile: `ns2` under `ns2`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecreaseRule {
    /// The first decrease, one that ends slow start and one following a
    /// timeout halve ssthresh and cwnd alike; a timeout otherwise sets
    /// ssthresh by the controller's own decrease.
    HalveFirst,
    /// ns-2.35's `TcpAgent::slowdown` (`tcp/tcp.cc`): ssthresh_ halves on
    /// the first decrease, in slow start and after a timeout
    /// (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`, which `timeout` sets
    /// before its own `slowdown`, so every timeout halves it); cwnd_ halves
    /// on the first decrease, in slow start, and whenever `decrease_num_ ==
    /// 0.5` (b = 1/2: IIAD(1/2) and SQRT(1/2) then halve cwnd like TCP and
    /// only ssthresh_ keeps the binomial decrease).
    Ns2,
}

/// What a decrease halves ([`HalveFirst::decide`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Halving {
    /// ssthresh is set to half the window.
    pub ssthresh: bool,
    /// cwnd is set to half the window.
    pub cwnd: bool,
}

impl HalveFirst {
    /// The rule `rule`, or the profile's default for it.
    pub fn new(rule: Option<DecreaseRule>, init: &CcInit) -> Self {
        let rule = rule.unwrap_or(if init.compat == crate::compat::Profile::Ns2 {
            DecreaseRule::Ns2
        } else {
            DecreaseRule::HalveFirst
        });
        HalveFirst {
            rule: Some(rule),
            ..Self::default()
        }
    }

    /// The rule in force (the key's, or the profile's default).
    pub fn rule(&self) -> DecreaseRule {
        self.rule.unwrap_or(DecreaseRule::HalveFirst)
    }

    /// Whether this decrease must be a standard halving; records it.
    pub fn standard(&mut self, w: &Window, timeout: bool) -> bool {
        self.decide(w, timeout, false).ssthresh
    }

    /// What this decrease (`timeout`: a retransmission timeout) halves,
    /// with `half_b` when the controller's decrease factor is exactly 1/2
    /// (ns-2's `decrease_num_ == 0.5`); records it.
    pub fn decide(&mut self, w: &Window, timeout: bool, half_b: bool) -> Halving {
        let first = !self.decreased;
        let ss = w.in_slow_start();
        let h = match self.rule.unwrap_or(DecreaseRule::HalveFirst) {
            DecreaseRule::HalveFirst => {
                let x = first || ss || self.after_timeout;
                Halving { ssthresh: x, cwnd: x }
            }
            DecreaseRule::Ns2 => Halving {
                ssthresh: first || ss || self.after_timeout || timeout,
                cwnd: first || ss || half_b,
            },
        };
        self.decreased = true;
        self.after_timeout = timeout;
        h
    }
}

/// Parse an algorithm's `cc_params` into its config, failing on unknown keys.
pub fn parse_params<T: DeserializeOwned + serde::Serialize>(params: &Params) -> Result<T, ParamError> {
    parse(params)
}

/// Check that `v` is finite and inside [lo, hi].
pub fn check_range(key: &str, v: f64, lo: f64, hi: f64) -> Result<f64, ParamError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(ParamError::at(
            key,
            format!("expected a number in [{lo}, {hi}], got {v}"),
        ))
    }
}

/// Build the controller named `name` with its `cc_params`.
pub fn build(name: &str, params: &Params, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    if crate::plugin::is_external(name) {
        return crate::plugin::build_controller(name, params, init);
    }
    match lookup(name) {
        Some(c) => (c.build)(params, init),
        None => Err(unknown(name)),
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Helpers for the controllers' unit tests.
    use super::*;

    pub fn init(cwnd: f64) -> CcInit {
        CcInit {
            initial_cwnd: cwnd,
            initial_ssthresh: f64::INFINITY,
            mss: 1460,
            wire_size: 1500,
            compat: crate::compat::Profile::Ccsim,
            linux_agent: false,
            sack: true,
        }
    }

    /// An ACK of one new segment in the open state, cwnd-limited.
    pub fn ack(now_ms: u64, rtt_ms: u64) -> AckInfo {
        AckInfo {
            now: SimTime::from_millis(now_ms),
            acked: 1,
            sacked: 0,
            newly_delivered: 1,
            acked_bytes: 1460,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            srtt: Some(SimTime::from_millis(rtt_ms)),
            min_rtt: Some(SimTime::from_millis(rtt_ms)),
            last_rtt: Some(SimTime::from_millis(rtt_ms)),
            prior_in_flight: 10,
            in_flight: 9,
            cwnd_limited: true,
            state: CaState::Open,
            exited_recovery: false,
            exit_growth: false,
            ece: false,
            ack: 0,
            snd_max: 0,
            delivered: 0,
            losses: 0,
            rate: None,
        }
    }

    pub fn loss(now_ms: u64, w: f64) -> CongestionEvent {
        CongestionEvent {
            now: SimTime::from_millis(now_ms),
            flight: w,
            window: w,
            collapse: false,
            repeated: false,
            srtt: Some(SimTime::from_millis(100)),
            int_ssthresh: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::compat::Profile;
    use crate::rng::stream;

    /// A cumulative ACK of 150 segments (the end of a long SACK recovery or
    /// of a timeout's retransmissions) at cwnd 10, ssthresh 12: slow start
    /// stops at ssthresh and the rest of the ACK is congestion avoidance's
    /// (Linux `tcp_slow_start`/`tcp_cong_avoid_ai`, ns-3
    /// `TcpNewReno::SlowStart`, which adds one segment per ACK, and
    /// `TcpLinuxReno::SlowStart`, which stops at ssthresh). Congestion
    /// avoidance at w >= 12 gives at most 150 / 12 segments, so cwnd stays at
    /// or below 12 + 1 + 150 / 12; per-segment slow start without the cap
    /// would reach 160. The one exception is ns-3.44's `TcpCubic` (variant
    /// "ns3"), whose `IncreaseWindow` adds `segmentsAcked` whole in slow
    /// start ("Appropriate Byte Counting", no limit and no ssthresh cap).
    #[test]
    fn a_big_cumulative_ack_in_slow_start_stops_at_ssthresh() {
        let skip = ["bbr", "bbr3", "copa", "vivace"];
        let profiles = [Profile::Ccsim, Profile::Ns2, Profile::Ns3, Profile::Linux, Profile::Rfc];
        let mut checked = 0;
        for name in kinds().into_iter().filter(|n| !skip.contains(n)) {
            for compat in profiles {
                for linux_agent in [false, true] {
                    let mut i = init(10.0);
                    i.initial_ssthresh = 12.0;
                    i.compat = compat;
                    i.linux_agent = linux_agent;
                    let Ok(mut c) = build(name, &Params::new(), &i) else {
                        continue;
                    };
                    let mut a = ack(1000, 100);
                    a.acked = 150;
                    a.newly_delivered = 150;
                    a.acked_bytes = 150 * 1460;
                    a.prior_in_flight = 160;
                    a.ack = 151 * 1460;
                    a.snd_max = 200 * 1460;
                    c.on_ack(&a, &mut stream(1, "t"));
                    let ns3_cubic = name == "cubic" && compat == Profile::Ns3 && !linux_agent;
                    if ns3_cubic {
                        assert_eq!(c.cwnd(), 160.0, "ns-3.44 TcpCubic: uncapped");
                    } else {
                        let bound = 12.0 + 1.0 + 150.0 / 12.0;
                        assert!(
                            c.cwnd() <= bound,
                            "{name} {compat:?} linux_agent {linux_agent}: cwnd {} > {bound}",
                            c.cwnd()
                        );
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked >= 40, "only {checked} controllers built");
    }
}
