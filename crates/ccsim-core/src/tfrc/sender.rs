//! The TFRC sender (RFC 5348 section 4).
//!
//! - **Start** (section 4.2): the allowed rate X starts at one packet per
//!   second and the no-feedback timer at 2 s. ccsim has no handshake, so
//!   the first RTT sample comes with the first feedback; X is then raised to
//!   the initial rate W_init / R, W_init = min(4 s, max(2 s, 4380 bytes))
//!   (RFC 3390), through step 4 below.
//! - **On feedback** (section 4.3): R_sample = (t_now - t_recvdata) -
//!   t_delay; R = R_sample for the first sample, then R = q R + (1 - q)
//!   R_sample (q = `rtt_filter`, 0.9); RTO = max(4R, 2s/X); X_recv joins
//!   X_recv_set (reports of the last two RTTs) and recv_limit = 2 max(X_recv_set);
//!   then if p > 0: X = max(min(X_Bps, recv_limit), s/t_mbi) with X_Bps the
//!   equation ([`super::equation::x_bps`]); else, at most once per R (slow
//!   start): X = max(min(2X, recv_limit), W_init/R).
//! - **No-feedback timer** (section 4.4), set to RTO after each report: with
//!   no feedback yet, or while p = 0, X = max(X/2, s/t_mbi); otherwise the
//!   limit becomes X_recv when X_Bps > 2 X_recv, else X_Bps/2 (at least
//!   s/t_mbi), X_recv_set is replaced by half that limit and X is recomputed
//!   as in step 4 (X = max(min(X_Bps, limit), s/t_mbi)).
//! - **Sending** (section 4.6): one packet every s/X seconds, exactly (no
//!   send-timer granularity in a simulator). A rate change takes effect at
//!   once: the pending send moves earlier when the new gap ends sooner.
//! - **Oscillation prevention** (section 4.5, optional, `oscillation_prevention`):
//!   packets leave at X_inst = X R_sqmean / sqrt(R_sample), with
//!   R_sqmean a moving average (factor q2 = `sqrt_rtt_filter`, 0.9) of
//!   sqrt(R_sample).
//! - **Self-clocking** (`self_clocking`; Bansal, Balakrishnan, Floyd and
//!   Shenker, SIGCOMM 2001, section 3.2; ns-2's `Agent/TFRC conservative_`):
//!   once a loss has been seen (p > 0), a report that announces losses
//!   since the previous report limits X to the rate received in the last
//!   RTT, X_recv, and any
//!   other report limits it to `self_clocking_mult` (ns-2's `scmult_`, 1.5)
//!   times X_recv, instead of TFRC's 2 X_recv.
//!
//! Not implemented: the data-limited and idle rules of sections 4.3 and 4.4
//! (ccsim's TFRC senders always have data) and section 4.6's send-timer
//! granularity.

use super::equation;
use crate::event::Endpoint;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::time::SimTime;
use crate::transport::{FlowCtx, Sender, SenderProbe};

/// Sender timer: send the next packet.
pub const TIMER_SEND: u32 = 1;
/// Sender timer: no feedback.
pub const TIMER_NOFEEDBACK: u32 = 2;

/// The sender's settings.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Packet size on the wire, bytes (the equation's s).
    pub packet_size: u32,
    /// Header bytes (payload = packet_size - header).
    pub header: u32,
    /// RTT filter constant q.
    pub rtt_filter: f64,
    /// Filter constant q2 of oscillation prevention's mean sqrt(RTT).
    pub sqrt_rtt_filter: f64,
    /// Maximum back-off interval t_mbi, s.
    pub t_mbi: f64,
    /// The conservative (self-clocking) option.
    pub self_clocking: bool,
    /// Its limit without a new loss, times X_recv.
    pub self_clocking_mult: f64,
    /// Section 4.5.
    pub oscillation_prevention: bool,
    /// ns-2's rate update once p > 0 instead of RFC 5348's step 4
    /// (`rate_update = "ns2"`).
    pub ns2_rate_update: bool,
    /// ns-2's equation (`p_to_b`: t_RTO from the TCP tick estimator,
    /// `equation_rto = "ns2"`) instead of RFC 5348's t_RTO = 4R.
    pub ns2_equation_rto: bool,
    /// The no-feedback timer in RTTs (RFC 5348 section 4.3: max(4R, 2s/X);
    /// ns-2: max(2R, 2s/X)).
    pub nofeedback_rtts: f64,
    /// Mark packets ECT.
    pub ecn: bool,
}

/// ns-2.35's TCP-style estimator in `TfrcAgent::update_rtt` (`tcp/tfrc.cc`),
/// whose `t_rtxcur_` is the equation's t_RTO (`tzero_`; `minrto_` 0): the
/// `Agent/TFRC` defaults `tcp_tick_` 0.1 s, `srtt_init_` 0, `rttvar_init_`
/// 12, `rtxcur_init_` 6, `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2, `rttvar_exp_` 2
/// (read from `ns`); samples are rounded to the nearest tick, at least 1.
#[derive(Copy, Clone, Debug)]
struct Ns2Tick {
    srtt8: i64,
    rttvar4: i64,
    rtxcur: f64,
}

const NS2_TFRC_TICK: f64 = 0.1;

impl Default for Ns2Tick {
    fn default() -> Self {
        Ns2Tick {
            srtt8: 0,
            rttvar4: ((12.0 / NS2_TFRC_TICK) as i64) << 2,
            rtxcur: 6.0,
        }
    }
}

impl Ns2Tick {
    fn update(&mut self, sample: f64) {
        // (TfrcAgent rounds the sample to the nearest tick, TcpAgent down.)
        let rtt = ((sample / NS2_TFRC_TICK + 0.5) as i64).max(1);
        let ticks = crate::tcp::rtt::ns2_rtt_update(&mut self.srtt8, &mut self.rttvar4, rtt, false);
        self.rtxcur = ticks as f64 * NS2_TFRC_TICK;
    }
}

/// The sending end of a TFRC flow.
pub struct TfrcSender {
    cfg: SenderConfig,
    /// Allowed sending rate, bytes/s.
    x: f64,
    /// RTT estimate R, s.
    r: Option<f64>,
    r_sqmean: f64,
    /// X_inst / X (section 4.5); 1 without oscillation prevention.
    inst_factor: f64,
    p: f64,
    x_recv_set: Vec<(SimTime, f64)>,
    /// Time of the last doubling in slow start.
    tld: Option<SimTime>,
    /// ns-2's `last_change_`: the time of the last rate change.
    last_change: SimTime,
    /// ns-2's `rate_change_ != SLOW_START`: a report with p > 0 was seen.
    left_slow_start: bool,
    /// ns-2's TCP-style RTT estimator of `TfrcAgent::update_rtt`.
    tick: Ns2Tick,
    losses_seen: u64,
    feedback_seen: bool,
    seq: u64,
    backlog: bool,
    stopped: bool,
    last_send: Option<SimTime>,
    next_send: Option<SimTime>,
    send_token: u64,
    nofb_deadline: SimTime,
    nofb_event: Option<SimTime>,
    nofb_token: u64,
}

impl TfrcSender {
    /// A sender with the given settings.
    pub fn new(cfg: SenderConfig) -> Self {
        TfrcSender {
            x: cfg.packet_size as f64,
            cfg,
            r: None,
            r_sqmean: 0.0,
            inst_factor: 1.0,
            p: 0.0,
            x_recv_set: Vec::with_capacity(8),
            tld: None,
            last_change: SimTime::ZERO,
            left_slow_start: false,
            tick: Ns2Tick::default(),
            losses_seen: 0,
            feedback_seen: false,
            seq: 0,
            backlog: false,
            stopped: false,
            last_send: None,
            next_send: None,
            send_token: 0,
            nofb_deadline: SimTime::ZERO,
            nofb_event: None,
            nofb_token: 0,
        }
    }

    /// The allowed sending rate X, bytes/s.
    pub fn rate(&self) -> f64 {
        self.x
    }

    /// The RTT estimate, s.
    pub fn rtt(&self) -> Option<f64> {
        self.r
    }

    /// The loss event rate last reported.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }

    fn s(&self) -> f64 {
        self.cfg.packet_size as f64
    }

    fn min_rate(&self) -> f64 {
        self.s() / self.cfg.t_mbi
    }

    /// W_init / R (section 4.2, RFC 3390's initial window).
    fn initial_rate(&self, r: f64) -> f64 {
        let s = self.s();
        (4.0 * s).min((2.0 * s).max(4380.0)) / r
    }

    /// Gap to the next packet at the current rate.
    fn gap(&self) -> SimTime {
        let x = (self.x * self.inst_factor).max(1e-9);
        SimTime::from_secs_f64(self.s() / x).max(SimTime(1))
    }

    fn schedule_send(&mut self, ctx: &mut FlowCtx, at: SimTime) {
        self.send_token += 1;
        self.next_send = Some(at);
        ctx.set_timer(at, Endpoint::Sender, TIMER_SEND, self.send_token);
    }

    /// After a rate change: bring the pending send forward if the new gap ends sooner.
    fn reschedule_send(&mut self, ctx: &mut FlowCtx) {
        if let (Some(next), Some(last)) = (self.next_send, self.last_send) {
            let at = (last + self.gap()).max(ctx.now);
            if at < next {
                self.schedule_send(ctx, at);
            }
        }
    }

    fn send_packet(&mut self, ctx: &mut FlowCtx) {
        let p = Packet {
            kind: PacketKind::Data,
            size: self.cfg.packet_size,
            payload: self.cfg.packet_size - self.cfg.header,
            seq: self.seq,
            ts_val: ctx.now,
            info: [self.r.unwrap_or(0.0), 0.0],
            ecn: if self.cfg.ecn { Ecn::Ect } else { Ecn::NotEct },
            ..Packet::default()
        };
        self.seq += 1;
        ctx.send(p);
        self.last_send = Some(ctx.now);
        let at = ctx.now + self.gap();
        self.schedule_send(ctx, at);
    }

    /// ns-2.35's rate once the receiver reports losses (`tcp/tfrc.cc`,
    /// `TfrcAgent::recv`): the first such report leaves slow start at the
    /// equation's rate `x_eq` (`rcvrate`); later ones either raise the rate
    /// by s/R times the RTTs since the last change (at most 2), up to the
    /// smallest of `x_eq` and max(2 X_recv, s/R) (`increase_rate`), or set
    /// it to `x_eq`, at most max(2 X_recv, s/R) (`decrease_rate` with
    /// `maxHeavyRounds_ 0`). RFC 5348 instead sets X = min(X_Bps, 2 X_recv)
    /// on every report.
    fn ns2_rate(&mut self, now: SimTime, r: f64, x_eq: f64, x_recv: f64) -> f64 {
        let x = if !self.left_slow_start {
            self.left_slow_start = true;
            x_eq
        } else {
            let max_rate = (2.0 * x_recv).max(self.s() / r);
            if x_eq > self.x {
                let mult = ((now - self.last_change).secs_f64() / r).min(2.0);
                (self.x + self.s() / r * mult).min(max_rate.min(x_eq))
            } else {
                x_eq.min(max_rate)
            }
        };
        self.last_change = now;
        x
    }

    fn rto(&self) -> SimTime {
        let r = self.r.unwrap_or(0.0);
        SimTime::from_secs_f64((self.cfg.nofeedback_rtts * r).max(2.0 * self.s() / self.x))
    }

    /// The equation's rate at RTT `r` and the current p: RFC 5348's
    /// X_Bps, or ns-2's `p_to_b` (`tcp/tfrc.h`) with t_RTO = `tzero_` and
    /// its cap of 3 sqrt(3p/8) at 1.
    fn x_eq(&self, r: f64) -> f64 {
        if !self.cfg.ns2_equation_rto {
            return equation::x_bps(self.s(), r, self.p);
        }
        let p = self.p;
        let denom = r * (2.0 * p / 3.0).sqrt()
            + (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * self.tick.rtxcur * p * (1.0 + 32.0 * p * p);
        if denom > 0.0 {
            self.s() / denom
        } else {
            f64::INFINITY
        }
    }

    /// (Re)start the no-feedback timer `after` from now; one kernel event
    /// at a time, re-armed lazily when it fires before the deadline.
    fn restart_nofeedback(&mut self, ctx: &mut FlowCtx, after: SimTime) {
        self.nofb_deadline = ctx.now + after;
        if self.nofb_event.is_none_or(|t| t > self.nofb_deadline) {
            self.nofb_token += 1;
            self.nofb_event = Some(self.nofb_deadline);
            ctx.set_timer(self.nofb_deadline, Endpoint::Sender, TIMER_NOFEEDBACK, self.nofb_token);
        }
    }

    fn recv_limit(&self) -> f64 {
        match self.x_recv_set.iter().map(|e| e.1).reduce(f64::max) {
            Some(m) => 2.0 * m,
            None => f64::INFINITY,
        }
    }

    fn on_nofeedback(&mut self, ctx: &mut FlowCtx) {
        let floor = self.min_rate();
        match self.r {
            Some(r) if self.feedback_seen && self.p > 0.0 => {
                let x_recv = self.x_recv_set.iter().map(|e| e.1).reduce(f64::max).unwrap_or(self.x);
                let x_eq = self.x_eq(r);
                let limit = if x_eq > 2.0 * x_recv { x_recv } else { x_eq / 2.0 }.max(floor);
                self.x_recv_set.clear();
                self.x_recv_set.push((ctx.now, limit / 2.0));
                self.x = x_eq.min(limit).max(floor);
            }
            _ => self.x = (self.x / 2.0).max(floor),
        }
        let rto = self.rto();
        self.restart_nofeedback(ctx, rto);
        self.reschedule_send(ctx);
    }
}

impl Sender for TfrcSender {
    fn name(&self) -> &'static str {
        "tfrc"
    }

    fn start(&mut self, ctx: &mut FlowCtx) {
        self.restart_nofeedback(ctx, SimTime::from_secs(2));
    }

    fn app_data(&mut self, ctx: &mut FlowCtx, bytes: u64) {
        if bytes == 0 || self.stopped {
            return;
        }
        self.backlog = true;
        if self.next_send.is_none() {
            self.send_packet(ctx);
        }
    }

    fn stop(&mut self, _ctx: &mut FlowCtx) {
        self.stopped = true;
        self.next_send = None;
        self.send_token += 1;
    }

    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if pkt.kind != PacketKind::Ack {
            return;
        }
        let now = ctx.now;
        // Section 4.3 step 1-2: the RTT.
        let sample = (now - pkt.ts_echo - pkt.ts_val).secs_f64().max(1e-6);
        let q = self.cfg.rtt_filter;
        let r = match self.r {
            None => {
                self.r_sqmean = sample.sqrt();
                sample
            }
            Some(r) => {
                let q2 = self.cfg.sqrt_rtt_filter;
                self.r_sqmean = q2 * self.r_sqmean + (1.0 - q2) * sample.sqrt();
                q * r + (1.0 - q) * sample
            }
        };
        self.r = Some(r);
        self.tick.update(sample);
        if self.cfg.oscillation_prevention {
            self.inst_factor = self.r_sqmean / sample.sqrt();
        }
        // Step 4: the allowed rate.
        let x_recv = pkt.info[0];
        self.p = pkt.info[1];
        let new_loss = pkt.ack > self.losses_seen;
        self.losses_seen = self.losses_seen.max(pkt.ack);
        let horizon = SimTime::from_secs_f64(2.0 * r);
        self.x_recv_set.retain(|&(t, _)| t + horizon > now);
        if x_recv > 0.0 {
            self.x_recv_set.push((now, x_recv));
        }
        let recv_limit = self.recv_limit();
        let floor = self.min_rate();
        if self.p > 0.0 {
            let x_eq = self.x_eq(r);
            if self.cfg.ns2_rate_update {
                self.x = self.ns2_rate(now, r, x_eq, x_recv).max(floor);
            } else {
                self.x = x_eq.min(recv_limit).max(floor);
            }
            if self.cfg.self_clocking && x_recv > 0.0 {
                let limit = if new_loss {
                    x_recv
                } else {
                    self.cfg.self_clocking_mult * x_recv
                };
                self.x = self.x.min(limit).max(floor);
            }
        } else if self.tld.is_none_or(|t| (now - t).secs_f64() >= r) {
            self.x = (2.0 * self.x).min(recv_limit).max(self.initial_rate(r));
            self.tld = Some(now);
            self.last_change = now;
        }
        self.feedback_seen = true;
        // Step 6: the no-feedback timer.
        let rto = self.rto();
        self.restart_nofeedback(ctx, rto);
        self.reschedule_send(ctx);
    }

    fn on_timer(&mut self, ctx: &mut FlowCtx, kind: u32, token: u64) {
        match kind {
            TIMER_SEND if token == self.send_token => {
                self.next_send = None;
                if self.backlog && !self.stopped {
                    self.send_packet(ctx);
                }
            }
            TIMER_NOFEEDBACK if token == self.nofb_token => {
                self.nofb_event = None;
                if ctx.now < self.nofb_deadline {
                    let after = self.nofb_deadline - ctx.now;
                    self.restart_nofeedback(ctx, after);
                } else if !self.stopped {
                    self.on_nofeedback(ctx);
                }
            }
            _ => {}
        }
    }

    fn probe(&self) -> SenderProbe {
        SenderProbe {
            srtt_s: self.r.unwrap_or(f64::NAN),
            rate_bps: self.x * 8.0,
            ..SenderProbe::default()
        }
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["rate_bps", "srtt_s"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::testenv::TestEnv;

    fn tx(self_clocking: bool) -> TfrcSender {
        TfrcSender::new(SenderConfig {
            packet_size: 1000,
            header: 40,
            rtt_filter: 0.9,
            sqrt_rtt_filter: 0.9,
            t_mbi: 64.0,
            self_clocking,
            self_clocking_mult: 1.5,
            oscillation_prevention: false,
            ns2_rate_update: false,
            ns2_equation_rto: false,
            nofeedback_rtts: 4.0,
            ecn: false,
        })
    }

    /// A report at `now` echoing a packet sent at `echo`, sent at once.
    fn report(s: &mut TfrcSender, env: &mut TestEnv, now_ms: u64, echo_ms: u64, x_recv: f64, p: f64, losses: u64) {
        let fb = Packet {
            kind: PacketKind::Ack,
            ts_echo: SimTime::from_millis(echo_ms),
            ts_val: SimTime::ZERO,
            info: [x_recv, p],
            ack: losses,
            ..Packet::default()
        };
        let mut ctx = env.ctx(SimTime::from_millis(now_ms));
        s.on_packet(&mut ctx, &fb);
    }

    #[test]
    fn start_then_slow_start_limited_by_the_receive_rate() {
        let (mut env, mut s) = (TestEnv::new(), tx(false));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        // Section 4.2: one packet at once, 1 packet/s, no-feedback timer at 2 s.
        assert_eq!(env.sent().len(), 1);
        assert_eq!(s.rate(), 1000.0);
        // First report after 100 ms: R = 0.1, X = W_init / R = 4000 / 0.1.
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        assert_eq!(s.rtt(), Some(0.1));
        assert!((s.rate() - 40_000.0).abs() < 1e-9);
        // Within one R of the last doubling: no change.
        report(&mut s, &mut env, 150, 50, 30_000.0, 0.0, 0);
        assert!((s.rate() - 40_000.0).abs() < 1e-9);
        // One R later: doubling, capped at 2 max(X_recv_set) = 60 kB/s.
        report(&mut s, &mut env, 250, 150, 30_000.0, 0.0, 0);
        assert!((s.rate() - 60_000.0).abs() < 1e-6, "{}", s.rate());
    }

    #[test]
    fn the_equation_rules_once_p_is_known() {
        let (mut env, mut s) = (TestEnv::new(), tx(false));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        // p = 0.01 with a large receive rate: X = X_Bps(s, R, p).
        report(&mut s, &mut env, 200, 100, 500_000.0, 0.01, 1);
        let x_eq = equation::x_bps(1000.0, 0.1, 0.01);
        assert!((s.rate() - x_eq).abs() < 1e-6, "{} vs {x_eq}", s.rate());
        // A small receive rate caps X at 2 max(X_recv_set) (the 500 kB/s
        // report is older than 2R by now).
        report(&mut s, &mut env, 500, 400, 20_000.0, 0.01, 1);
        assert!((s.rate() - 40_000.0).abs() < 1e-6, "{}", s.rate());
        // No feedback: X_Bps > 2 X_recv, so the limit becomes X_recv.
        let rto = s.rto();
        let mut ctx = env.ctx(SimTime::from_millis(500) + rto);
        s.nofb_event = None;
        s.nofb_deadline = ctx.now;
        s.on_nofeedback(&mut ctx);
        assert!((s.rate() - 20_000.0).abs() < 1e-6, "{}", s.rate());
    }

    #[test]
    fn no_feedback_at_all_halves_the_rate() {
        let (mut env, mut s) = (TestEnv::new(), tx(false));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        let timers = env.timers();
        let (at, kind, token) = *timers.iter().find(|t| t.1 == TIMER_NOFEEDBACK).unwrap();
        assert_eq!(at, SimTime::from_secs(2));
        let mut ctx = env.ctx(at);
        s.on_timer(&mut ctx, kind, token);
        assert_eq!(s.rate(), 500.0);
    }

    #[test]
    fn self_clocking_limits_the_rate_to_the_receive_rate_after_a_loss() {
        let (mut env, mut s) = (TestEnv::new(), tx(true));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        // Losses since the last report: X <= X_recv.
        report(&mut s, &mut env, 200, 100, 50_000.0, 0.001, 3);
        assert!((s.rate() - 50_000.0).abs() < 1e-6, "{}", s.rate());
        // No new loss: X <= 1.5 X_recv.
        report(&mut s, &mut env, 300, 200, 50_000.0, 0.001, 3);
        assert!((s.rate() - 75_000.0).abs() < 1e-6, "{}", s.rate());
        // Without the option the same reports allow 2 X_recv.
        let (mut env, mut s) = (TestEnv::new(), tx(false));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        report(&mut s, &mut env, 200, 100, 50_000.0, 0.001, 3);
        assert!((s.rate() - 100_000.0).abs() < 1e-6, "{}", s.rate());
    }

    #[test]
    fn packets_leave_every_s_over_x() {
        let (mut env, mut s) = (TestEnv::new(), tx(false));
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        assert_eq!(env.sent().len(), 1);
        env.timers();
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        // X = 40 kB/s: the pending send (1 s away) moves to 0 + 25 ms, i.e. now.
        let t = env.timers();
        let send = t.iter().rfind(|x| x.1 == TIMER_SEND).unwrap();
        assert_eq!(send.0, SimTime::from_millis(100));
        let mut ctx = env.ctx(send.0);
        s.on_timer(&mut ctx, send.1, send.2);
        assert_eq!(env.sent().len(), 1);
        let next = env.timers().into_iter().find(|x| x.1 == TIMER_SEND).unwrap();
        assert_eq!(next.0, SimTime::from_millis(125));
    }

    #[test]
    fn ns2_filters_the_rtt_with_df() {
        // ns-2's `TfrcAgent::update_rtt` (tcp/tfrc.cc): rtt_ = df_ rtt_ +
        // (1 - df_) sample and the same for sqrtrtt_, df_ 0.95 (`ns`);
        // RFC 5348 section 4.3 and 4.5: q = q2 = 0.9.
        let run = |profile: crate::compat::Profile| {
            let cfg = crate::tfrc::TfrcConfig {
                packet_size: 1000,
                ..Default::default()
            };
            let mut s = TfrcSender::new(crate::tfrc::sender_config(&cfg, profile));
            let mut env = TestEnv::new();
            let mut ctx = env.ctx(SimTime::ZERO);
            s.start(&mut ctx);
            s.app_data(&mut ctx, u64::MAX);
            report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
            report(&mut s, &mut env, 400, 200, 30_000.0, 0.0, 0);
            (s.rtt().unwrap(), s.r_sqmean)
        };
        let (r, sq) = run(crate::compat::Profile::Ns2);
        assert!((r - (0.95 * 0.1 + 0.05 * 0.2)).abs() < 1e-12, "{r}");
        assert!(
            (sq - (0.95 * 0.1f64.sqrt() + 0.05 * 0.2f64.sqrt())).abs() < 1e-12,
            "{sq}"
        );
        let (r, sq) = run(crate::compat::Profile::Ccsim);
        assert!((r - (0.9 * 0.1 + 0.1 * 0.2)).abs() < 1e-12, "{r}");
        assert!((sq - (0.9 * 0.1f64.sqrt() + 0.1 * 0.2f64.sqrt())).abs() < 1e-12, "{sq}");
    }

    #[test]
    fn ns2_rate_update_equation_rto_and_nofeedback_timer() {
        let ns2 = |profile| {
            let cfg = crate::tfrc::TfrcConfig {
                packet_size: 1000,
                rtt_filter: Some(0.9),
                sqrt_rtt_filter: Some(0.9),
                oscillation_prevention: Some(false),
                ..Default::default()
            };
            TfrcSender::new(crate::tfrc::sender_config(&cfg, profile))
        };
        let mut s = ns2(crate::compat::Profile::Ns2);
        let mut env = TestEnv::new();
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        // ns-2's tick estimator: a 100 ms sample is 1 tick of 0.1 s; t_RTO
        // = ((2 << 3) + 8) >> 3 = 3 ticks (RFC 5348: 4R = 0.4 s).
        assert!((s.tick.rtxcur - 0.3).abs() < 1e-12);
        // The first report with losses leaves slow start at the equation's
        // rate with t_RTO = 0.3 s (`rcvrate`), above 2 X_recv.
        report(&mut s, &mut env, 200, 100, 20_000.0, 0.01, 1);
        let x_eq = equation::throughput(1000.0, 0.1, 0.01, 1.0, 0.3);
        assert!((s.rate() - x_eq).abs() < 1e-6, "{} vs {x_eq}", s.rate());
        // The equation below the rate: X = min(x_eq, max(2 X_recv, s/R)).
        report(&mut s, &mut env, 300, 200, 20_000.0, 0.02, 2);
        assert!((s.rate() - 40_000.0).abs() < 1e-6, "{}", s.rate());
        // Above it again: X rises by s/R per R since the last change (one R
        // here), not at once to min(x_eq, 2 X_recv) as RFC 5348.
        report(&mut s, &mut env, 400, 300, 60_000.0, 0.01, 2);
        assert!((s.rate() - 50_000.0).abs() < 1e-6, "{}", s.rate());
        // The no-feedback timer: max(2R, 2 s/X) = 200 ms after the report.
        assert_eq!(s.nofb_deadline, SimTime::from_millis(600));
        // RFC 5348 on the same reports.
        let mut s = ns2(crate::compat::Profile::Ccsim);
        let mut env = TestEnv::new();
        let mut ctx = env.ctx(SimTime::ZERO);
        s.start(&mut ctx);
        s.app_data(&mut ctx, u64::MAX);
        report(&mut s, &mut env, 100, 0, 0.0, 0.0, 0);
        report(&mut s, &mut env, 200, 100, 20_000.0, 0.01, 1);
        report(&mut s, &mut env, 300, 200, 20_000.0, 0.02, 2);
        report(&mut s, &mut env, 400, 300, 60_000.0, 0.01, 2);
        let x_eq = equation::x_bps(1000.0, 0.1, 0.01);
        assert!((s.rate() - x_eq.min(120_000.0)).abs() < 1e-6, "{}", s.rate());
        assert_eq!(s.nofb_deadline, SimTime::from_millis(800));
    }
}
