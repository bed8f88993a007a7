//! The RAP sender (Rejaie, Handley and Estrin, "RAP: An End-to-end
//! Rate-based Congestion Control Mechanism for Realtime Streams in the
//! Internet", IEEE INFOCOM 1999, section 3), with ns-2's `Agent/RAP`
//! (rap/rap.cc) for the details the paper leaves open.
//!
//! - **Rate**: one packet every IPG (inter-packet gap) seconds.
//! - **Additive increase** (section 3.3): once per SRTT ("step"),
//!   IPG <- IPG * SRTT / (IPG + SRTT), i.e. one more packet per SRTT
//!   (1/IPG' = 1/IPG + 1/SRTT), but only if at least `dpthresh` percent
//!   (50) of the packets the rate allowed in that SRTT were sent
//!   (ns-2's check; ccsim's senders are backlogged, so it always holds).
//! - **Multiplicative decrease** on a loss: IPG <- IPG / `beta` (beta = 1/2
//!   halves the rate). Cluster losses (section 3.2): every packet in flight
//!   at the back-off is marked inactive and its loss does not cause another
//!   back-off; the increase timer restarts one SRTT later.
//! - **Loss detection** (section 3.1): ACK-based, a packet is lost when an
//!   ACK shows it missing with at least 3 packets received above it (the
//!   last-hole fields of the ACK, see [`super::receiver`]); and timeout-based,
//!   checked before each transmission, for packets outstanding longer than
//!   timeout = mu SRTT + phi VarRTT (mu = 1.2, phi = 4). A timer tick that
//!   detects a loss backs off instead of sending (ns-2's `IpgTimeout`).
//! - **RTT** (Jacobson/Karels with ns-2's gain `delta` = 1/2 for both the
//!   mean and the mean deviation); before the first ACK IPG = SRTT = 2 s
//!   (ns-2's `ipg_`, `srtt_`); the first ACK sets IPG = SRTT.
//! - **Fine-grain adaptation** (section 3.4, `fine_grain`): the gap used is
//!   IPG * FRTT / XRTT, with FRTT a short-term (gain `kfrtt` = 0.9) and XRTT
//!   a long-term (gain `kxrtt` = 0.01) average of the RTT samples, so the rate
//!   eases off as queueing delay builds (ns-2's `useFineGrain_`).
//!
//! Readings: ns-2 keeps the "first RTT sample" flag in a static shared by
//! every RAP agent of the simulation; ccsim keeps one per flow.

use crate::event::Endpoint;
use crate::packet::{Packet, PacketKind};
use crate::time::SimTime;
use crate::transport::{FlowCtx, Sender, SenderProbe};
use std::collections::VecDeque;

/// Sender timer: next transmission (IPG).
pub const TIMER_IPG: u32 = 1;
/// Sender timer: once-per-SRTT increase.
pub const TIMER_RTT: u32 = 2;

/// The sender's settings.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Packet size on the wire, bytes.
    pub packet_size: u32,
    /// Header bytes.
    pub header: u32,
    /// Decrease factor.
    pub beta: f64,
    /// RTT estimator gain.
    pub delta: f64,
    /// Timeout = mu SRTT + phi VarRTT.
    pub mu: f64,
    /// See `mu`.
    pub phi: f64,
    /// IPG and SRTT before the first ACK, s.
    pub initial_ipg: f64,
    /// Fine-grain adaptation.
    pub fine_grain: bool,
    /// Short-term RTT gain.
    pub kfrtt: f64,
    /// Long-term RTT gain.
    pub kxrtt: f64,
    /// Percent of the allowed packets that must have been sent to increase.
    pub dpthresh: f64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Sent,
    /// In flight at a back-off: its loss is part of that cluster.
    Inactive,
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    seq: u64,
    sent_at: SimTime,
    state: State,
}

/// The sending end of a RAP flow.
pub struct RapSender {
    cfg: SenderConfig,
    ipg: f64,
    srtt: f64,
    var: f64,
    timeout: f64,
    frtt: f64,
    xrtt: f64,
    any_ack: bool,
    rtt_sampled: bool,
    history: VecDeque<Entry>,
    seq: u64,
    /// Packets sent since the last increase step.
    dctr: u64,
    backlog: bool,
    running: bool,
    stopped: bool,
    ipg_token: u64,
    rtt_token: u64,
    /// Back-offs so far.
    backoffs: u64,
}

impl RapSender {
    /// A sender with the given settings.
    pub fn new(cfg: SenderConfig) -> Self {
        RapSender {
            ipg: cfg.initial_ipg,
            srtt: cfg.initial_ipg,
            var: 0.0,
            timeout: cfg.initial_ipg,
            frtt: cfg.initial_ipg,
            xrtt: cfg.initial_ipg,
            cfg,
            any_ack: false,
            rtt_sampled: false,
            history: VecDeque::new(),
            seq: 0,
            dctr: 0,
            backlog: false,
            running: false,
            stopped: false,
            ipg_token: 0,
            rtt_token: 0,
            backoffs: 0,
        }
    }

    /// The inter-packet gap, s.
    pub fn ipg(&self) -> f64 {
        self.ipg
    }

    /// Back-offs so far.
    pub fn backoffs(&self) -> u64 {
        self.backoffs
    }

    /// The gap actually waited before the next packet, s.
    fn wait(&self) -> f64 {
        if self.cfg.fine_grain && self.xrtt > 0.0 {
            self.frtt / self.xrtt * self.ipg
        } else {
            self.ipg
        }
    }

    fn update_rtt(&mut self, sample: f64) {
        if !self.rtt_sampled {
            self.rtt_sampled = true;
            self.srtt = sample;
            self.frtt = sample;
            self.xrtt = sample;
            self.var = 0.0;
        }
        let diff = sample - self.srtt;
        self.srtt += self.cfg.delta * diff;
        self.var += self.cfg.delta * (diff.abs() - self.var);
        self.timeout = self.cfg.mu * self.srtt + self.cfg.phi * self.var;
        if self.cfg.fine_grain {
            self.frtt = (1.0 - self.cfg.kfrtt) * self.frtt + self.cfg.kfrtt * sample;
            self.xrtt = (1.0 - self.cfg.kxrtt) * self.xrtt + self.cfg.kxrtt * sample;
        }
    }

    fn arm_rtt_timer(&mut self, ctx: &mut FlowCtx) {
        self.rtt_token += 1;
        let at = ctx.now + SimTime::from_secs_f64(self.srtt).max(SimTime(1));
        ctx.set_timer(at, Endpoint::Sender, TIMER_RTT, self.rtt_token);
    }

    /// Once per SRTT: additive increase.
    fn rtt_timeout(&mut self, ctx: &mut FlowCtx) {
        if 100.0 * self.dctr as f64 * (self.ipg / self.srtt) >= self.cfg.dpthresh {
            self.ipg *= self.srtt / (self.ipg + self.srtt);
        }
        self.dctr = 0;
        self.arm_rtt_timer(ctx);
    }

    /// A loss: multiplicative decrease, the cluster marked, the increase restarted.
    fn back_off(&mut self, ctx: &mut FlowCtx) {
        self.ipg /= self.cfg.beta;
        self.backoffs += 1;
        for e in self.history.iter_mut() {
            e.state = State::Inactive;
        }
        self.arm_rtt_timer(ctx);
    }

    /// Timeout-based detection: packets outstanding for longer than the timeout.
    fn timer_losses(&mut self, now: SimTime) -> bool {
        let timeout = SimTime::from_secs_f64(self.timeout);
        let mut lost = false;
        while let Some(e) = self.history.front() {
            if e.sent_at + timeout > now {
                break;
            }
            lost |= e.state == State::Sent;
            self.history.pop_front();
        }
        lost
    }

    /// ACK-based detection from the last-hole fields.
    fn ack_losses(&mut self, last_recv: u64, prev_recv: u64, last_miss: u64) -> bool {
        let mut lost = false;
        let mut i = 0;
        while i < self.history.len() {
            let e = self.history[i];
            if e.seq > last_recv {
                break;
            }
            if e.seq > last_miss || e.seq == prev_recv {
                self.history.remove(i);
            } else if last_recv - e.seq >= 3 {
                lost |= e.state == State::Sent;
                self.history.remove(i);
            } else {
                i += 1;
            }
        }
        lost
    }

    fn ipg_timeout(&mut self, ctx: &mut FlowCtx) {
        if self.timer_losses(ctx.now) {
            self.back_off(ctx);
        } else if self.backlog {
            self.seq += 1;
            ctx.send(Packet {
                kind: PacketKind::Data,
                size: self.cfg.packet_size,
                payload: self.cfg.packet_size - self.cfg.header,
                seq: self.seq,
                ts_val: ctx.now,
                ..Packet::default()
            });
            self.history.push_back(Entry {
                seq: self.seq,
                sent_at: ctx.now,
                state: State::Sent,
            });
            self.dctr += 1;
        }
        self.ipg_token += 1;
        let at = ctx.now + SimTime::from_secs_f64(self.wait()).max(SimTime(1));
        ctx.set_timer(at, Endpoint::Sender, TIMER_IPG, self.ipg_token);
    }
}

impl Sender for RapSender {
    fn name(&self) -> &'static str {
        "rap"
    }

    fn app_data(&mut self, ctx: &mut FlowCtx, bytes: u64) {
        if bytes == 0 || self.stopped {
            return;
        }
        self.backlog = true;
        if !self.running {
            // ns-2's start(): the increase timer, then the first packet.
            self.running = true;
            self.rtt_timeout(ctx);
            self.ipg_timeout(ctx);
        }
    }

    fn stop(&mut self, _ctx: &mut FlowCtx) {
        self.stopped = true;
        self.backlog = false;
        self.ipg_token += 1;
        self.rtt_token += 1;
    }

    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if pkt.kind != PacketKind::Ack || self.stopped {
            return;
        }
        if let Some(i) = self.history.iter().position(|e| e.seq == pkt.seq) {
            let e = self
                .history
                .remove(i)
                .expect("position() returned an index inside the deque");
            self.update_rtt((ctx.now - e.sent_at).secs_f64());
        }
        if !self.any_ack {
            self.any_ack = true;
            self.ipg = self.srtt;
        }
        let (prev_recv, last_miss) = pkt.sack[0];
        if self.ack_losses(pkt.ack, prev_recv, last_miss) {
            self.back_off(ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut FlowCtx, kind: u32, token: u64) {
        if self.stopped {
            return;
        }
        match kind {
            TIMER_IPG if token == self.ipg_token => self.ipg_timeout(ctx),
            TIMER_RTT if token == self.rtt_token => self.rtt_timeout(ctx),
            _ => {}
        }
    }

    fn probe(&self) -> SenderProbe {
        SenderProbe {
            srtt_s: if self.rtt_sampled { self.srtt } else { f64::NAN },
            rate_bps: self.cfg.packet_size as f64 * 8.0 / self.wait(),
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

    fn rap() -> RapSender {
        RapSender::new(SenderConfig {
            packet_size: 1000,
            header: 40,
            beta: 0.5,
            delta: 0.5,
            mu: 1.2,
            phi: 4.0,
            initial_ipg: 2.0,
            fine_grain: false,
            kfrtt: 0.9,
            kxrtt: 0.01,
            dpthresh: 50.0,
        })
    }

    fn ack(seq: u64, last_recv: u64, prev_recv: u64, last_miss: u64) -> Packet {
        let mut p = Packet {
            kind: PacketKind::Ack,
            seq,
            ack: last_recv,
            n_sack: 1,
            ..Packet::default()
        };
        p.sack[0] = (prev_recv, last_miss);
        p
    }

    #[test]
    fn first_ack_sets_the_gap_and_each_srtt_adds_a_packet() {
        let (mut env, mut s) = (TestEnv::new(), rap());
        let mut ctx = env.ctx(SimTime::ZERO);
        s.app_data(&mut ctx, u64::MAX);
        assert_eq!(env.sent().len(), 1);
        let mut ctx = env.ctx(SimTime::from_millis(100));
        s.on_packet(&mut ctx, &ack(1, 1, 0, 0));
        // IPG = SRTT = the first sample.
        assert!((s.ipg() - 0.1).abs() < 1e-12);
        // One packet sent in the last SRTT at IPG = SRTT: 100% >= 50%, so
        // IPG <- IPG SRTT / (IPG + SRTT) = 0.05 (one more packet per SRTT).
        let mut ctx = env.ctx(SimTime::from_millis(200));
        s.rtt_timeout(&mut ctx);
        assert!((s.ipg() - 0.05).abs() < 1e-12);
        // Nothing sent since: no increase.
        let mut ctx = env.ctx(SimTime::from_millis(300));
        s.rtt_timeout(&mut ctx);
        assert!((s.ipg() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn one_back_off_per_cluster_of_losses() {
        let (mut env, mut s) = (TestEnv::new(), rap());
        let mut ctx = env.ctx(SimTime::ZERO);
        s.app_data(&mut ctx, u64::MAX);
        let mut ctx = env.ctx(SimTime::from_millis(100));
        s.on_packet(&mut ctx, &ack(1, 1, 0, 0));
        // Send packets 2..=9 10 ms apart.
        for k in 2..=9u64 {
            let mut ctx = env.ctx(SimTime::from_millis(100 + 10 * k));
            s.ipg_timeout(&mut ctx);
        }
        let ipg = s.ipg();
        // 3 and 4 are lost: the ACKs of 5 and 6 carry the hole (2, 4]; 3 is
        // lost once 3 packets above it arrived (ACK of 6), 4 one ACK later.
        for (seq, prev, miss) in [(2, 0, 0), (5, 2, 4)] {
            let mut ctx = env.ctx(SimTime::from_millis(250 + 10 * seq));
            s.on_packet(&mut ctx, &ack(seq, seq, prev, miss));
        }
        assert_eq!(s.backoffs(), 0);
        let mut ctx = env.ctx(SimTime::from_millis(310));
        s.on_packet(&mut ctx, &ack(6, 6, 2, 4));
        assert_eq!(s.backoffs(), 1);
        assert!((s.ipg() - 2.0 * ipg).abs() < 1e-12);
        // 4 was in flight at the back-off: its loss is part of the cluster.
        let mut ctx = env.ctx(SimTime::from_millis(320));
        s.on_packet(&mut ctx, &ack(7, 7, 2, 4));
        assert_eq!(s.backoffs(), 1);
        assert!((s.ipg() - 2.0 * ipg).abs() < 1e-12);
    }
}
