//! The TFRC receiver (RFC 5348 sections 5 and 6): loss detection, loss
//! events, the loss event rate, the receive rate and feedback once per RTT.
//!
//! - **Loss detection** (section 5.1): a packet is lost once `ndupack` (3)
//!   packets with higher sequence numbers have arrived. A late packet fills
//!   its hole. A CE-marked packet counts as a loss at once (section 5.1's
//!   treatment of ECN marks).
//! - **Loss events** (section 5.2): a lost packet's sending time is
//!   interpolated between the packets received before and after the gap;
//!   it starts a new loss event when it was sent more than one RTT (the
//!   sender's estimate R, carried in every data packet) after the first
//!   loss of the current event, otherwise it belongs to that event.
//! - **Loss event rate**: [`LossHistory`] (sections 5.3 to 5.5); the first
//!   loss interval is 1/p for the p at which the throughput equation gives
//!   the rate received over the last RTT (section 6.3.1).
//! - **Feedback** (section 6.2): on the first data packet; then when the
//!   feedback timer, set to the sender's R, expires and data arrived since
//!   the last report (if none did, the next data packet triggers the
//!   report); and at once when a new loss event raises p (section 6.1 step
//!   3). While the sender has no RTT estimate, every data packet is answered.
//! - **Receive rate** X_recv: the bytes received since the previous report
//!   over the time since it when that is at least one RTT, otherwise the
//!   bytes received in the last RTT divided by R (as ns-2's
//!   `TfrcSinkAgent::est_thput`); 0 ("not measured") in the first report.
//!
//! A feedback packet carries: `ts_echo` = the timestamp of the latest data
//! packet (t_recvdata), `ts_val` = the time since that packet arrived
//! (t_delay), `info[0]` = X_recv in bytes/s, `info[1]` = p, `ack` = the
//! number of lost packets detected so far (the sender compares it with the
//! previous report to see whether losses happened since: ns-2's
//! `losses_since_last_report`, used by self-clocking), `seq` = the highest
//! sequence number received.

use super::equation;
use super::loss_history::{LossHistory, PartialHistory};
use crate::event::Endpoint;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::time::SimTime;
use crate::transport::{FlowCtx, Receiver};
use std::collections::VecDeque;

/// Receiver timer: feedback.
pub const TIMER_FEEDBACK: u32 = 1;

/// The receiver's settings.
#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    /// Feedback packet size, bytes.
    pub feedback_size: u32,
    /// Packets above a hole that confirm its loss.
    pub ndupack: u32,
    /// Loss intervals averaged.
    pub history: usize,
    /// History discounting (section 5.5).
    pub discounting: bool,
    /// Smallest discount factor.
    pub min_discount: f64,
    /// I_tot0 while fewer than `history` intervals are closed.
    pub partial_history: PartialHistory,
}

/// A gap in the sequence numbers, waiting for `ndupack` packets above it.
#[derive(Copy, Clone, Debug)]
struct Hole {
    /// First missing sequence number.
    start: u64,
    /// One past the last missing sequence number.
    end: u64,
    /// The packets around the gap (sequence number, send timestamp), for interpolation.
    before: (u64, SimTime),
    after: (u64, SimTime),
    /// Packets received above the gap since it opened.
    seen_after: u32,
}

impl Hole {
    /// Interpolated sending time of sequence number `s` (section 5.2).
    fn send_time(&self, s: u64) -> SimTime {
        let (s0, t0) = self.before;
        let (s1, t1) = self.after;
        let f = (s - s0) as f64 / (s1 - s0) as f64;
        t0 + SimTime((t1.0.saturating_sub(t0.0) as f64 * f).round() as u64)
    }
}

/// The receiving end of a TFRC flow.
pub struct TfrcReceiver {
    cfg: ReceiverConfig,
    history: LossHistory,
    max_seq: Option<u64>,
    max_ts: SimTime,
    /// Timestamp and arrival time of the latest data packet.
    last_ts: SimTime,
    last_arrival: SimTime,
    /// The sender's RTT estimate from the latest data packet, s (0: none yet).
    rtt: f64,
    holes: VecDeque<Hole>,
    /// Interpolated sending time of the first loss of the latest loss event.
    event_time: Option<SimTime>,
    loss_events: u64,
    lost_packets: u64,
    p_prev: f64,
    last_feedback: Option<SimTime>,
    bytes_since_feedback: u64,
    /// Arrivals (time, bytes) of the last RTT.
    recent: VecDeque<(SimTime, u32)>,
    recent_bytes: u64,
    data_since_feedback: bool,
    timer_armed: bool,
    token: u64,
}

impl TfrcReceiver {
    /// A receiver with the given settings.
    pub fn new(cfg: ReceiverConfig) -> Self {
        TfrcReceiver {
            history: LossHistory::new(cfg.history, cfg.discounting, cfg.min_discount).with_partial(cfg.partial_history),
            cfg,
            max_seq: None,
            max_ts: SimTime::ZERO,
            last_ts: SimTime::ZERO,
            last_arrival: SimTime::ZERO,
            rtt: 0.0,
            holes: VecDeque::new(),
            event_time: None,
            loss_events: 0,
            lost_packets: 0,
            p_prev: 0.0,
            last_feedback: None,
            bytes_since_feedback: 0,
            recent: VecDeque::new(),
            recent_bytes: 0,
            data_since_feedback: false,
            timer_armed: false,
            token: 0,
        }
    }

    /// The loss history.
    pub fn history(&self) -> &LossHistory {
        &self.history
    }

    /// Loss events seen so far.
    pub fn loss_events(&self) -> u64 {
        self.loss_events
    }

    /// Lost (or CE-marked) packets detected so far.
    pub fn lost_packets(&self) -> u64 {
        self.lost_packets
    }

    /// The current loss event rate.
    pub fn loss_event_rate(&self) -> f64 {
        self.max_seq.map_or(0.0, |m| self.history.loss_event_rate(m))
    }

    /// The window over which `recent` keeps arrivals: one RTT (1 s before
    /// the sender has an estimate).
    fn rate_window(&self) -> SimTime {
        if self.rtt > 0.0 {
            SimTime::from_secs_f64(self.rtt)
        } else {
            SimTime::from_secs(1)
        }
    }

    fn prune_recent(&mut self, now: SimTime) {
        let w = self.rate_window();
        while let Some(&(t, b)) = self.recent.front() {
            if t + w > now {
                break;
            }
            self.recent.pop_front();
            self.recent_bytes -= b as u64;
        }
    }

    /// Bytes per second received over the last RTT.
    fn last_rtt_rate(&mut self, now: SimTime) -> f64 {
        self.prune_recent(now);
        self.recent_bytes as f64 / self.rate_window().secs_f64()
    }

    /// A lost (or CE-marked) packet `seq` sent at `t_loss`: start a loss
    /// event unless it falls within one RTT of the current one.
    fn on_loss(&mut self, now: SimTime, seq: u64, t_loss: SimTime, size: u32) -> bool {
        self.lost_packets += 1;
        if let Some(t_old) = self.event_time {
            if t_loss <= t_old + SimTime::from_secs_f64(self.rtt) {
                return false;
            }
        }
        self.event_time = Some(t_loss);
        self.loss_events += 1;
        if self.history.has_loss() {
            self.history.loss_event(seq);
        } else {
            // Section 6.3.1: the interval that would give the rate received
            // in the last RTT. Without an RTT (a loss before the sender's
            // first feedback) the packets received so far stand in.
            let first = if self.rtt > 0.0 {
                let x = self.last_rtt_rate(now);
                1.0 / equation::p_for_rate(x, size as f64, self.rtt)
            } else {
                seq.max(1) as f64
            };
            self.history.first_loss_event(seq, first);
        }
        true
    }

    /// Holes with `ndupack` packets above them are losses.
    fn confirm_holes(&mut self, now: SimTime, size: u32) -> bool {
        let mut new_event = false;
        while let Some(&h) = self.holes.front() {
            if h.seen_after < self.cfg.ndupack {
                break;
            }
            self.holes.pop_front();
            for s in h.start..h.end {
                new_event |= self.on_loss(now, s, h.send_time(s), size);
            }
        }
        new_event
    }

    /// A late packet `seq` fills its place in a hole.
    fn fill(&mut self, seq: u64) {
        let Some(i) = self.holes.iter().position(|h| h.start <= seq && seq < h.end) else {
            return;
        };
        let h = self.holes[i];
        match (seq == h.start, seq + 1 == h.end) {
            (true, true) => {
                self.holes.remove(i);
            }
            (true, false) => self.holes[i].start += 1,
            (false, true) => self.holes[i].end -= 1,
            (false, false) => {
                self.holes[i].end = seq;
                let upper = Hole { start: seq + 1, ..h };
                self.holes.insert(i + 1, upper);
            }
        }
    }

    fn send_feedback(&mut self, ctx: &mut FlowCtx) {
        let now = ctx.now;
        let x_recv = match self.last_feedback {
            None => 0.0,
            Some(lf) => {
                let elapsed = (now - lf).secs_f64();
                if self.rtt > 0.0 && elapsed >= self.rtt {
                    self.bytes_since_feedback as f64 / elapsed
                } else {
                    self.last_rtt_rate(now)
                }
            }
        };
        let p = self.loss_event_rate();
        ctx.send(Packet {
            kind: PacketKind::Ack,
            size: self.cfg.feedback_size,
            seq: self.max_seq.unwrap_or(0),
            ack: self.lost_packets,
            ts_echo: self.last_ts,
            ts_val: now - self.last_arrival,
            info: [x_recv, p],
            ..Packet::default()
        });
        self.last_feedback = Some(now);
        self.bytes_since_feedback = 0;
        self.data_since_feedback = false;
        self.p_prev = p;
        self.token += 1;
        self.timer_armed = self.rtt > 0.0;
        if self.timer_armed {
            let at = now + SimTime::from_secs_f64(self.rtt);
            ctx.set_timer(at, Endpoint::Receiver, TIMER_FEEDBACK, self.token);
        }
    }
}

impl Receiver for TfrcReceiver {
    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        let now = ctx.now;
        ctx.deliver(pkt.payload as u64);
        if pkt.info[0] > 0.0 {
            self.rtt = pkt.info[0];
        }
        self.bytes_since_feedback += pkt.size as u64;
        self.recent.push_back((now, pkt.size));
        self.recent_bytes += pkt.size as u64;
        self.prune_recent(now);
        self.last_ts = pkt.ts_val;
        self.last_arrival = now;
        self.data_since_feedback = true;
        let first = self.max_seq.is_none();
        let seq = pkt.seq;
        match self.max_seq {
            None => {
                self.max_seq = Some(seq);
                self.max_ts = pkt.ts_val;
            }
            Some(m) if seq > m => {
                for h in self.holes.iter_mut() {
                    h.seen_after += 1;
                }
                if seq > m + 1 {
                    self.holes.push_back(Hole {
                        start: m + 1,
                        end: seq,
                        before: (m, self.max_ts),
                        after: (seq, pkt.ts_val),
                        seen_after: 1,
                    });
                }
                self.max_seq = Some(seq);
                self.max_ts = pkt.ts_val;
            }
            Some(_) => {
                self.fill(seq);
                for h in self.holes.iter_mut().filter(|h| h.end <= seq) {
                    h.seen_after += 1;
                }
            }
        }
        let mut new_event = self.confirm_holes(now, pkt.size);
        if pkt.ecn == Ecn::Ce {
            new_event |= self.on_loss(now, seq, pkt.ts_val, pkt.size);
        }
        let expedite = new_event && self.loss_event_rate() > self.p_prev;
        if first || expedite || self.rtt <= 0.0 || !self.timer_armed {
            self.send_feedback(ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut FlowCtx, kind: u32, token: u64) {
        if kind != TIMER_FEEDBACK || token != self.token {
            return;
        }
        if self.data_since_feedback {
            self.send_feedback(ctx);
        } else {
            // Nothing to report: the next data packet sends the report.
            self.timer_armed = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::testenv::TestEnv;

    fn rx() -> TfrcReceiver {
        TfrcReceiver::new(ReceiverConfig {
            feedback_size: 40,
            ndupack: 3,
            history: 8,
            discounting: true,
            min_discount: 0.5,
            partial_history: PartialHistory::Dccp,
        })
    }

    /// Packet `i` is sent at 10 i ms and arrives 50 ms later; the sender's R is 100 ms.
    fn arrive(r: &mut TfrcReceiver, env: &mut TestEnv, i: u64) {
        let sent = SimTime::from_millis(10 * i);
        let p = Packet {
            kind: PacketKind::Data,
            size: 1000,
            payload: 960,
            seq: i,
            ts_val: sent,
            info: [0.1, 0.0],
            ..Packet::default()
        };
        let mut ctx = env.ctx(sent + SimTime::from_millis(50));
        r.on_packet(&mut ctx, &p);
    }

    #[test]
    fn losses_need_ndupack_packets_and_merge_within_one_rtt() {
        let (mut env, mut r) = (TestEnv::new(), rx());
        for i in 0..20 {
            arrive(&mut r, &mut env, i);
        }
        // The first packet is answered at once.
        let fb = env.sent();
        assert_eq!(fb.len(), 1);
        assert_eq!(fb[0].kind, PacketKind::Ack);
        // 20 is lost: two later packets do not yet make it a loss, the third does.
        arrive(&mut r, &mut env, 21);
        arrive(&mut r, &mut env, 22);
        assert_eq!(r.lost_packets(), 0);
        arrive(&mut r, &mut env, 23);
        assert_eq!((r.lost_packets(), r.loss_events()), (1, 1));
        // Section 6.3.1: the first interval is 1/p for the rate received in
        // the last RTT: packets 14..=23 but 20 arrived within (180, 280] ms,
        // 9 x 1000 bytes in 0.1 s.
        let first = r.history().closed().next().unwrap();
        let expect = 1.0 / equation::p_for_rate(90_000.0, 1000.0, 0.1);
        assert!((first / expect - 1.0).abs() < 1e-9, "{first} vs {expect}");
        // A new loss event raises p: the report goes out at once.
        let fb = env.sent();
        assert_eq!(fb.len(), 1);
        assert!((fb[0].info[1] - 1.0 / first).abs() < 1e-12);
        assert_eq!(fb[0].ack, 1);
        // 25 was sent 50 ms after 20, within one RTT: same loss event.
        arrive(&mut r, &mut env, 24);
        for i in 26..40 {
            arrive(&mut r, &mut env, i);
        }
        assert_eq!((r.lost_packets(), r.loss_events()), (2, 1));
        // 40 was sent 200 ms after 20: a new event, closing an interval of 20 packets.
        for i in 41..45 {
            arrive(&mut r, &mut env, i);
        }
        assert_eq!((r.lost_packets(), r.loss_events()), (3, 2));
        assert_eq!(r.history().closed().next(), Some(20.0));
    }

    #[test]
    fn a_late_packet_fills_its_hole() {
        let (mut env, mut r) = (TestEnv::new(), rx());
        for i in [0, 1, 2, 4, 3, 5, 6, 7, 8] {
            arrive(&mut r, &mut env, i);
        }
        assert_eq!(r.lost_packets(), 0);
    }

    #[test]
    fn feedback_once_per_rtt_with_the_receive_rate() {
        let (mut env, mut r) = (TestEnv::new(), rx());
        arrive(&mut r, &mut env, 0);
        assert_eq!(env.sent().len(), 1);
        // The feedback timer is set one R (100 ms) after the report.
        let timers = env.timers();
        assert_eq!(timers.len(), 1);
        let (at, kind, token) = timers[0];
        assert_eq!((at, kind), (SimTime::from_millis(150), TIMER_FEEDBACK));
        for i in 1..10 {
            arrive(&mut r, &mut env, i);
        }
        assert!(env.sent().is_empty(), "no report before the timer");
        let mut ctx = env.ctx(at);
        r.on_timer(&mut ctx, kind, token);
        let fb = env.sent();
        assert_eq!(fb.len(), 1);
        // 9 packets since the report at 50 ms, over 100 ms: 90 kB/s; the
        // latest packet (9) arrived at 140 ms, 10 ms before the report.
        assert!((fb[0].info[0] - 90_000.0).abs() < 1e-6, "{}", fb[0].info[0]);
        assert_eq!(fb[0].ts_echo, SimTime::from_millis(90));
        assert_eq!(fb[0].ts_val, SimTime::from_millis(10));
        assert_eq!(fb[0].info[1], 0.0);
        // No data before the next expiry: no report, and the next packet triggers one.
        let (at, kind, token) = env.timers()[0];
        let mut ctx = env.ctx(at);
        r.on_timer(&mut ctx, kind, token);
        assert!(env.sent().is_empty());
        arrive(&mut r, &mut env, 30);
        assert_eq!(env.sent().len(), 1);
    }
}
