//! ns-2.35's `Agent/TCP/Linux` (`tcp/linux/tcp-linux.cc`, with its
//! scoreboard `tcp/scoreboard1.cc`): the sender ns-2 runs its Linux
//! congestion-control modules in (CUBIC, BIC, HighSpeed, ...). ccsim's
//! recovery `rate_halving` (the default with `linux_agent`, which is on
//! under `compat = "ns2"` for those controllers). What it does, per ACK
//! (`LinuxTcpAgent::recv`):
//!
//! 1. ACKs beyond the highest segment sent or below the cumulative ACK are
//!    ignored. The cumulative ACK and the SACK blocks update the scoreboard
//!    (`ScoreBoard1::UpdateScoreBoard`): `fack` is the highest SACKed
//!    segment; a segment never retransmitted is lost once `fack` is
//!    `dupthresh + 1` or more above it (`lost_seq_threshold = fack_ -
//!    (dupack_threshold + 1)`), so a single loss needs four duplicate ACKs;
//!    a retransmitted segment is lost again once a segment sent after its
//!    retransmission is SACKed (`GetSndNxt() <= fack_`). The scoreboard is
//!    forgotten when the cumulative ACK passes all of it.
//! 2. RTT and timer (`time_processing`, with `rtt_sampling`,
//!    `rto_restart_every_ack`): a sample from every ACK's echoed timestamp,
//!    duplicates included, and the RTO timer restarted on every ACK while
//!    data is outstanding (`renew_timer`).
//! 3. The congestion controller sees the ACK before recovery processing,
//!    with the state before it (`pkts_acked`, `cong_avoid` with the flight
//!    before the ACK; `tcp_may_raise_cwnd` excludes Recovery).
//! 4. `tcp_fastretrans_alert`: out of Recovery or Loss once everything
//!    sent at its start is acknowledged: the scoreboard is cleared, cwnd
//!    raised to ssthresh if below but not beyond the flight + 3
//!    (`tcp_moderate_cwnd`, `tcp_max_burst` 3 in `ns-linux-param.c`).
//!    Otherwise (Open or Loss) a newly lost segment starts Recovery:
//!    ssthresh and cwnd from the module (`ssthresh`, cwnd = ssthresh), and
//!    rate halving from the old window (`next_pkts_in_flight_ = snd_cwnd`).
//! 5. `send_much`: while the flight (segments sent, not SACKed and not
//!    deemed lost, retransmissions included: `packets_in_flight`) is below
//!    max(cwnd, `next_pkts_in_flight_`), send the lowest lost segment
//!    (`GetNextRetran`) or new data; `next_pkts_in_flight_` starts at most
//!    one above the flight and drops to one below it after each
//!    transmission, so during Recovery one segment leaves per two ACKs
//!    until the flight reaches cwnd (rate halving).
//!
//! A timeout (`LinuxTcpAgent::timeout`, `enter_loss`): ssthresh from the
//! module and cwnd = 1 (the module resets on the Loss state), state Loss
//! until everything sent so far is acknowledged, every outstanding segment
//! not SACKed marked lost (`ScoreBoard1::MarkLoss`, the scoreboard kept),
//! the RTO backed off and the timer restarted, rate halving stopped. A new
//! loss found in the Loss state enters Recovery (ns-2 lets `TCP_CA_Loss`
//! fall through to the loss test).
//!
//! Not modelled: ECN (the twins' agents have `ecn_ 0`); the receiver
//! window clamps cwnd in ns-2 (`snd_cwnd_clamp = wnd_`), here it limits the
//! segments outstanding as for every ccsim sender.

use super::sender::TcpSender;
use crate::cc::{AckInfo, CaState, CongestionControl, CongestionEvent};
use crate::packet::Packet;
use crate::transport::FlowCtx;

/// `tcp_max_burst` of ns-2's Linux shim (`tcp/linux/ns-linux-param.c`).
pub const MAX_BURST: u64 = 3;

/// The agent's scoreboard summary and rate-halving state.
#[derive(Clone, Debug, Default)]
pub struct LaState {
    /// Highest SACKed segment (`fack_`), while the scoreboard exists.
    pub fack: Option<u64>,
    /// One past the scoreboard's last entry.
    pub board_end: u64,
    /// Segments deemed lost and not retransmitted since (`fack_out_`).
    pub lost_out: u64,
    /// `next_pkts_in_flight_` (rate halving; 0 when off).
    pub nif: u64,
}

impl TcpSender {
    /// `packets_in_flight`: sent, not SACKed, not lost-and-unretransmitted.
    pub(super) fn la_pif(&self) -> u64 {
        (self.snd_max - self.snd_una)
            .saturating_sub(self.board.count() as u64)
            .saturating_sub(self.la.lost_out)
    }

    fn la_event(&self, now: crate::time::SimTime) -> CongestionEvent {
        let w = self.cc.cwnd();
        CongestionEvent {
            now,
            flight: w,
            window: w,
            collapse: false,
            repeated: false,
            srtt: self.rtt.srtt(),
            int_ssthresh: false,
        }
    }

    /// Forget the scoreboard (`ClearScoreBoard`).
    fn la_clear(&mut self) {
        self.board.clear();
        for m in self.segs.la_iter_mut() {
            *m = Default::default();
        }
        self.la.fack = None;
        self.la.lost_out = 0;
        self.la.board_end = self.snd_una;
    }

    /// `LinuxTcpAgent::recv`.
    pub(super) fn la_on_ack(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        let now = ctx.now;
        let ack = pkt.ack;
        if ack > self.snd_max || ack < self.snd_una {
            return;
        }
        self.rwnd = (pkt.wnd as u64).max(1);
        let prior_in_flight = self.la_pif();
        let prior_state = self.state;

        // The cumulative ACK (`ack_processing`, `CleanRtxQueue`).
        let mut acked = 0u64;
        let mut acked_bytes = 0u64;
        // Without timestamps: Karn's sample from the cumulative ACK.
        let mut cum_rtt: Option<crate::time::SimTime> = None;
        let mut retrans_acked = false;
        for s in self.snd_una..ack {
            let la = self.segs.la(0);
            let seg = self
                .segs
                .pop_front()
                .expect("segs holds every seq in [snd_una, snd_max) and ack <= snd_max");
            acked += 1;
            acked_bytes += seg.payload as u64;
            let sacked = self.board.is_sacked(s);
            if la.lost && !sacked {
                self.la.lost_out -= 1;
            }
            if seg.tx_count > 1 {
                retrans_acked = true;
            } else if !sacked && cum_rtt.is_none_or(|r| now - seg.sent_at < r) {
                cum_rtt = Some(now - seg.sent_at);
            }
        }
        let advanced = acked > 0;
        if advanced {
            self.board.advance(ack);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.rto_streak = 0;
        }

        // SACK blocks (D-SACKs below the cumulative ACK are filtered).
        let mut newly_sacked = 0u64;
        for &(a, b) in &pkt.sack[..(pkt.n_sack as usize).min(pkt.sack.len())] {
            let lo = a.max(ack);
            let hi = b.min(self.snd_max);
            if lo >= hi {
                continue;
            }
            for s in lo..hi {
                if self.board.mark(s) {
                    newly_sacked += 1;
                    let m = self.segs.la_mut((s - self.snd_una) as usize);
                    if m.lost {
                        m.lost = false;
                        self.la.lost_out -= 1;
                    }
                }
            }
            self.la.fack = Some(self.la.fack.map_or(hi - 1, |f| f.max(hi - 1)));
            self.la.board_end = self.la.board_end.max(hi);
        }
        if self.snd_una >= self.la.board_end {
            // `head_ == NULL`: the cumulative ACK passed the whole scoreboard.
            self.la.fack = None;
        }

        // Loss marking.
        let mut newly_lost = 0u64;
        if let Some(fack) = self.la.fack {
            let gap = self.cfg.dupthresh as u64 + 1;
            let end = (fack + 1).min(self.snd_max);
            for s in self.snd_una..end {
                if self.board.is_sacked(s) {
                    continue;
                }
                let m = self.segs.la_mut((s - self.snd_una) as usize);
                if m.lost {
                    continue;
                }
                let lost = match m.rtx_nxt {
                    Some(nxt) => nxt <= fack,
                    None => s + gap <= fack,
                };
                if lost {
                    m.lost = true;
                    m.rtx_nxt = None;
                    self.la.lost_out += 1;
                    newly_lost += 1;
                }
            }
        }

        // RTT sample and timer (`time_processing`).
        // (With `rtt_sampling` "timed" or "every_ack" instead of
        // timestamps, the samples of the other senders.)
        let ts_rtt = if self.cfg.ts_rtt {
            Some(now.saturating_sub(pkt.ts_echo))
        } else if self.cfg.timed_rtt {
            match self.rtt_timing {
                Some((seq, at)) if ack > seq => {
                    self.rtt_timing = None;
                    Some(now - at)
                }
                _ => None,
            }
        } else if retrans_acked {
            None
        } else {
            cum_rtt
        };
        if let Some(r) = ts_rtt {
            self.rtt.on_sample(r, now - r);
        }
        if self.snd_una < self.snd_max {
            if advanced || self.cfg.rto_restart_every_ack {
                let at = now + self.rtt.rto();
                self.arm_rto(ctx, at);
            }
        } else {
            self.rto_deadline = None;
        }
        if self.syn_pending && self.snd_una >= 1 {
            self.syn_pending = false;
        }

        // The congestion controller, before recovery processing.
        let cwnd = self.cc.cwnd().floor() as u64;
        let info = AckInfo {
            now,
            acked,
            sacked: newly_sacked,
            newly_delivered: acked + newly_sacked,
            acked_bytes,
            rtt: ts_rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            last_rtt: None,
            prior_in_flight,
            in_flight: self.la_pif(),
            // ns-2's `tcp_is_cwnd_limited`: in_flight >= snd_cwnd.
            cwnd_limited: prior_in_flight >= cwnd,
            state: prior_state,
            exited_recovery: false,
            exit_growth: false,
            ece: false,
            ack: self.snd_una,
            snd_max: self.snd_max,
            delivered: self.rate.delivered(),
            losses: newly_lost,
            rate: None,
        };
        self.cc.on_ack(&info, ctx.rng);

        // `tcp_fastretrans_alert`.
        if self.state != CaState::Open && self.snd_una >= self.recover {
            self.la_clear();
            let ss = self.cc.ssthresh();
            if self.cc.cwnd() < ss {
                let moderated = ss.min((self.la_pif() + MAX_BURST) as f64);
                self.cc.set_cwnd(moderated);
            }
            self.state = CaState::Open;
            self.la.nif = 0;
        } else if self.state != CaState::Recovery && newly_lost > 0 {
            ctx.stats.on_fast_retransmit();
            self.recover = self.snd_max;
            self.recovery_point = self.snd_max;
            self.la.nif = self.cc.cwnd().floor() as u64;
            let ev = self.la_event(now);
            self.cc.on_congestion_event(&ev);
            self.state = CaState::Recovery;
        }
        self.la_send_much(ctx);
    }

    /// `LinuxTcpAgent::timeout` and `enter_loss`.
    pub(super) fn la_on_timeout(&mut self, ctx: &mut FlowCtx) {
        ctx.stats.on_timeout();
        let ev = self.la_event(ctx.now);
        self.cc.on_rto(&ev);
        self.recover = self.snd_max;
        self.recovery_point = self.snd_max;
        self.state = CaState::Loss;
        // `MarkLoss(highest_ack_ + 1, t_seqno_)`.
        for (i, m) in self.segs.la_iter_mut().enumerate() {
            if self.board.is_sacked(self.snd_una + i as u64) {
                continue;
            }
            if !m.lost {
                m.lost = true;
                self.la.lost_out += 1;
            }
            m.rtx_nxt = None;
        }
        self.la.board_end = self.snd_max;
        self.rtt.back_off();
        self.rtt_timing = None;
        self.rto_streak += 1;
        let at = ctx.now + self.rtt.rto();
        self.arm_rto(ctx, at);
        self.la.nif = 0;
        self.la_send_much(ctx);
    }

    /// `LinuxTcpAgent::send_much`.
    pub(super) fn la_send_much(&mut self, ctx: &mut FlowCtx) {
        let mut pif = self.la_pif();
        self.la.nif = self.la.nif.min(pif + 1);
        loop {
            let win = (self.cc.cwnd().floor() as u64).max(1);
            if pif >= win.max(self.la.nif) {
                return;
            }
            match self.segs.la_first_lost() {
                Some(i) => {
                    // `GetNextRetran`, `MarkRetran`.
                    let seq = self.snd_una + i as u64;
                    let snd_max = self.snd_max;
                    let m = self.segs.la_mut(i);
                    m.lost = false;
                    m.rtx_nxt = Some(snd_max);
                    self.la.lost_out -= 1;
                    self.transmit(ctx, seq);
                }
                None => {
                    // Nothing but the SYN until it is acknowledged.
                    if (self.syn_pending && self.snd_max > 0)
                        || !self.has_new_data()
                        || self.snd_max - self.snd_una >= self.rwnd
                    {
                        return;
                    }
                    let seq = self.snd_max;
                    self.transmit(ctx, seq);
                    self.snd_nxt = self.snd_max;
                }
            }
            pif = self.la_pif();
            self.la.nif = self.la.nif.min(pif.saturating_sub(1).max(1));
        }
    }
}
