//! The TCP receiver: cumulative ACKs, SACK blocks (RFC 2018), delayed ACKs
//! (RFC 1122 section 4.2.3.2, RFC 5681 section 4.2) and the ECN echo (RFC
//! 3168 section 6.1.3).
//!
//! - In-order data is delivered to the application at once (the
//!   application reads immediately, so the advertised window is constant).
//! - Without delayed ACKs every data segment is acknowledged at once.
//!   With them, an ACK is sent for every `count` in-order segments, or when
//!   the timer (`timeout` after the first unacknowledged segment) fires;
//!   out-of-order segments, segments that fill a hole and duplicates are
//!   acknowledged at once (RFC 5681 section 4.2), and so is a SYN (the
//!   SYN-ACK of a handshake is never delayed). With `first_at_once` the
//!   first data segment after the SYN is acknowledged at once too (ns-3:
//!   "Always respond to first data packet to speed up the connection",
//!   `m_delAckCount = m_delAckMaxCount` when `TcpSocketBase::ProcessSynRcvd`
//!   completes the handshake), so the pairs that later ACKs cover start
//!   one segment later.
//! - SACK blocks: the first block holds the segment that triggered the ACK
//!   (unless it advanced the cumulative ACK), the others repeat the most
//!   recently reported blocks that are not subsets of one already included
//!   (RFC 2018 section 4).
//! - ECN: after a CE-marked segment every ACK carries ECE until a segment
//!   with CWR arrives (RFC 3168 section 6.1.3). With accurate echo (DCTCP,
//!   RFC 8257 section 3.2) ECE is instead the CE state of the latest
//!   segment, CWR is ignored, and when the state changes while a delayed
//!   ACK is pending, the segments received before the change are
//!   acknowledged at once with the old state (the two-state machine of
//!   RFC 8257 Figure 1; Linux `dctcp_ece_ack_update`), so the sender
//!   counts marked bytes exactly.
//! - ns-3's DCTCP receiver (`ce_change_ack = "ns3"`, [`CeChangeAck::Ns3`]):
//!   `TcpSocketBase::ForwardUp` raises the CE event before `DoForwardUp`
//!   adds the segment, so `TcpDctcp::CeState0to1`/`CeState1to0` record
//!   `m_priorRcvNxt` as the cumulative ACK *before* each segment; on a
//!   change of CE state, while `m_delayedAckReserved` is set, they send an
//!   ACK of that older value with the old state. That ACK leaves the
//!   delayed segment unacknowledged (usually it duplicates the last ACK),
//!   and `SendEmptyPacket` resets the delayed-ACK count and timer, so the
//!   delayed segment waits for two more or for the timer (the next ACK
//!   then covers three segments and echoes the new state for all of them).
//!   `m_delayedAckReserved` is set by every `CA_EVENT_DELAYED_ACK` (an
//!   in-order segment left waiting, and the delayed-ACK timer's expiry,
//!   `DelAckTimeout`) and cleared by `CA_EVENT_NON_DELAYED_ACK` (an ACK the
//!   count or a gap sends at once), not by the CE-change ACK itself, so
//!   after a timer ACK the change ACK may even go backwards. A CE mark on a
//!   segment not above the highest CE-marked one seen (`m_ecnCESeq`) counts
//!   as not marked. The SYN reaches ns-3's listening socket, whose DCTCP
//!   state the connection's socket copies (`Fork`), but `CompleteFork` sets
//!   `ECN_IDLE`: its ACK never echoes CE.

use super::sender::TIMER_DELACK;
use crate::event::Endpoint;
use crate::packet::{flags, Ecn, Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::time::SimTime;
use crate::transport::{FlowCtx, Receiver};
use std::collections::VecDeque;

/// Largest gap (segments) the receiver buffers above the cumulative ACK;
/// a well-behaved sender stays within the advertised window, far below it.
const MAX_REORDER: u64 = 1 << 20;

/// How a DCTCP receiver acknowledges when the CE state of the arriving
/// segments changes (key `ce_change_ack`, flow group).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CeChangeAck {
    /// The segments delayed so far are acknowledged at once with the old
    /// state (RFC 8257 section 3.2 and Figure 1; Linux `dctcp_ece_ack_update`,
    /// `net/ipv4/tcp_dctcp.h`).
    #[default]
    Delayed,
    /// ns-3.44's `TcpDctcp::CeState0to1`/`CeState1to0` (`tcp-dctcp.cc`) as
    /// `TcpSocketBase::ForwardUp` drives them (module documentation).
    Ns3,
}

/// Delayed-ACK settings.
#[derive(Copy, Clone, Debug)]
pub struct DelAck {
    /// ACK every this many in-order segments.
    pub count: u32,
    /// Longest delay of an ACK.
    pub timeout: SimTime,
    /// Acknowledge the first in-order segment after a SYN at once (ns-3).
    pub first_at_once: bool,
}

/// The receiving end.
pub struct TcpReceiver {
    window: u32,
    header: u32,
    sack: bool,
    max_blocks: usize,
    /// ACKs carrying SACK blocks are longer by the option's bytes.
    option_bytes: bool,
    /// Option bytes of the SYN-ACK beyond `header` (`syn_option_bytes`).
    syn_option_bytes: u32,
    /// The next ACK answers a SYN.
    syn_ack_due: bool,
    /// Echo timestamps by RFC 1323's rule.
    rfc1323_echo: bool,
    delack: Option<DelAck>,
    /// Next segment expected.
    rcv_nxt: u64,
    /// Payload of buffered segments: index i is segment rcv_nxt + i (0 = missing).
    ooo: VecDeque<u32>,
    /// SACK blocks in the order last reported (most recent first).
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    n_blocks: usize,
    /// In-order segments not yet acknowledged.
    pending: u32,
    ece: bool,
    /// Echo each segment's CE state (DCTCP) instead of RFC 3168's latch.
    accurate_ecn: bool,
    /// ns-3's CE-change ACK ([`CeChangeAck::Ns3`]).
    ns3_ce: bool,
    /// ns-3 `m_ceState`: the CE state of the last ECN-capable segment.
    ce_state: bool,
    /// ns-3 `m_priorRcvNxt`: the cumulative ACK before that segment.
    prior_rcv_nxt: Option<u64>,
    /// ns-3 `m_delayedAckReserved`.
    delack_reserved: bool,
    /// ns-3 `m_ecnCESeq`: the highest CE-marked segment seen.
    ce_seq_max: Option<u64>,
    /// The ECN field of the ACKs sent (Not-ECT unless `ect_every_packet`).
    ack_ecn: Ecn,
    last_ts: SimTime,
    timer_deadline: Option<SimTime>,
    timer_event: Option<SimTime>,
    token: u64,
}

impl TcpReceiver {
    /// A receiver advertising `window` segments.
    pub fn new(window: u32, header: u32, sack: bool, max_blocks: usize, delack: Option<DelAck>) -> Self {
        TcpReceiver {
            window,
            header,
            sack,
            max_blocks: max_blocks.clamp(1, MAX_SACK_BLOCKS),
            option_bytes: false,
            syn_option_bytes: 0,
            syn_ack_due: false,
            rfc1323_echo: false,
            delack,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            blocks: [(0, 0); MAX_SACK_BLOCKS],
            n_blocks: 0,
            pending: 0,
            ece: false,
            accurate_ecn: false,
            ns3_ce: false,
            ce_state: false,
            prior_rcv_nxt: None,
            delack_reserved: false,
            ce_seq_max: None,
            ack_ecn: Ecn::NotEct,
            last_ts: SimTime::ZERO,
            timer_deadline: None,
            timer_event: None,
            token: 0,
        }
    }

    /// The cumulative ACK (next segment expected).
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    fn has(&self, seq: u64) -> bool {
        seq >= self.rcv_nxt && self.ooo.get((seq - self.rcv_nxt) as usize).is_some_and(|&p| p > 0)
    }

    /// The contiguous block of received segments containing `seq` (above rcv_nxt).
    fn block_of(&self, seq: u64) -> (u64, u64) {
        let mut a = seq;
        while a > self.rcv_nxt && self.has(a - 1) {
            a -= 1;
        }
        let mut b = seq + 1;
        while self.has(b) {
            b += 1;
        }
        (a, b)
    }

    /// Put `first` in front of the reported blocks (RFC 2018 section 4).
    fn report_first(&mut self, first: (u64, u64)) {
        let mut out = [(0u64, 0u64); MAX_SACK_BLOCKS];
        out[0] = first;
        let mut n = 1;
        for &(a, b) in &self.blocks[..self.n_blocks] {
            if n == self.max_blocks {
                break;
            }
            if b <= self.rcv_nxt || (a >= first.0 && b <= first.1) {
                continue;
            }
            // A block may have grown since it was reported: report it whole.
            let cur = self.block_of(a.max(self.rcv_nxt));
            if out[..n].iter().any(|&(x, y)| cur.0 >= x && cur.1 <= y) {
                continue;
            }
            out[n] = cur;
            n += 1;
        }
        self.blocks = out;
        self.n_blocks = n;
    }

    /// Drop reported blocks that the cumulative ACK has covered.
    fn prune_blocks(&mut self) {
        let mut n = 0;
        for i in 0..self.n_blocks {
            let (a, b) = self.blocks[i];
            if b > self.rcv_nxt {
                self.blocks[n] = (a.max(self.rcv_nxt), b);
                n += 1;
            }
        }
        self.n_blocks = n;
    }

    /// Echo timestamps by RFC 1323's rule (section 3.4; ns-2's
    /// `Acker::update_ts` with `ts_echo_rfc1323_`): the timestamp of the
    /// segment that advanced the cumulative ACK, or of an older duplicate
    /// with a later timestamp; out-of-order segments leave it alone, so
    /// duplicate ACKs echo the last in-order segment's.
    pub fn with_rfc1323_echo(mut self, on: bool) -> Self {
        self.rfc1323_echo = on;
        self
    }

    /// The SYN-ACK carries `n` option bytes beyond the header (ns-3's
    /// window-scale and SACK-permitted options, `syn_option_bytes`).
    pub fn with_syn_option_bytes(mut self, n: u32) -> Self {
        self.syn_option_bytes = n;
        self
    }

    /// Count the SACK option in the size of the ACKs that carry blocks.
    pub fn with_sack_option_bytes(mut self, on: bool) -> Self {
        self.option_bytes = on;
        self
    }

    /// Echo the CE state of every segment (DCTCP, RFC 8257 section 3.2).
    pub fn with_accurate_ecn(mut self, on: bool) -> Self {
        self.accurate_ecn = on;
        self
    }

    /// The ECN field of every ACK sent (`ect_every_packet`: ns-3's
    /// `DctcpEcn` mode makes pure ACKs ECT; RFC 3168 section 6.1.4 keeps
    /// them Not-ECT).
    pub fn with_ack_ecn(mut self, ecn: Ecn) -> Self {
        self.ack_ecn = ecn;
        self
    }

    /// How the CE-change ACK is sent (DCTCP's receivers only).
    pub fn with_ce_change_ack(mut self, how: CeChangeAck) -> Self {
        self.ns3_ce = how == CeChangeAck::Ns3;
        self
    }

    /// Track the ECN state a data segment brings, before it is processed.
    fn ecn_on_arrival(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        let ce = pkt.ecn == Ecn::Ce;
        if self.accurate_ecn && self.ns3_ce {
            self.ns3_ecn_on_arrival(ctx, pkt);
            return;
        }
        if !self.accurate_ecn {
            if pkt.flags & flags::CWR != 0 {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
            return;
        }
        if ce != self.ece && self.pending > 0 {
            // RFC 8257 Figure 1: the delayed segments are acknowledged now,
            // with the state they arrived in.
            self.send_ack(ctx);
        }
        self.ece = ce;
    }

    /// ns-3's `TcpSocketBase::ForwardUp` and `TcpDctcp::CeState0to1` /
    /// `CeState1to0` (module documentation).
    fn ns3_ecn_on_arrival(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        if pkt.ecn == Ecn::NotEct {
            return;
        }
        let ce = pkt.ecn == Ecn::Ce && self.ce_seq_max.is_none_or(|m| pkt.seq > m);
        if ce {
            self.ce_seq_max = Some(pkt.seq);
        }
        if ce != self.ce_state && self.delack_reserved {
            if let Some(prior) = self.prior_rcv_nxt {
                // The previous state's ACK of `m_priorRcvNxt`.
                self.send_ack_of(ctx, prior, self.ce_state);
            }
        }
        self.prior_rcv_nxt = Some(self.rcv_nxt);
        self.ce_state = ce;
        // `CompleteFork` leaves the connection in `ECN_IDLE` after the SYN.
        self.ece = ce && pkt.flags & flags::SYN == 0;
    }

    fn send_ack(&mut self, ctx: &mut FlowCtx) {
        self.send_ack_of(ctx, self.rcv_nxt, self.ece);
    }

    /// Send an ACK of `ack` (with ECN-Echo if `ece`); it ends the delayed
    /// ACK, as every ACK sent does (ns-3's `SendEmptyPacket`).
    fn send_ack_of(&mut self, ctx: &mut FlowCtx, ack: u64, ece: bool) {
        self.pending = 0;
        self.timer_deadline = None;
        let syn_options = if std::mem::take(&mut self.syn_ack_due) {
            self.syn_option_bytes
        } else {
            0
        };
        ctx.send_in(|p| {
            *p = Packet {
                kind: PacketKind::Ack,
                size: self.header + syn_options,
                ack,
                wnd: self.window,
                flags: flags::ACK | if ece { flags::ECE } else { 0 },
                ecn: self.ack_ecn,
                ts_echo: self.last_ts,
                ..Packet::default()
            };
            if self.sack {
                p.n_sack = self.n_blocks as u8;
                p.sack[..self.n_blocks].copy_from_slice(&self.blocks[..self.n_blocks]);
                if self.option_bytes {
                    p.size += sack_option_len(self.n_blocks);
                }
            }
        });
    }

    fn arm_timer(&mut self, ctx: &mut FlowCtx, at: SimTime) {
        self.timer_deadline = Some(at);
        if self.timer_event.is_none_or(|e| e > at) {
            self.token += 1;
            self.timer_event = Some(at);
            ctx.set_timer(at, Endpoint::Receiver, TIMER_DELACK, self.token);
        }
    }
}

/// Bytes a SACK option of `blocks` blocks adds to a header: kind, length
/// and 8 bytes per block (RFC 2018 section 3), padded to a 4-byte boundary
/// (ns-3 pads with NOPs/EOL in `TcpHeader::Serialize`); none without blocks.
pub fn sack_option_len(blocks: usize) -> u32 {
    if blocks == 0 {
        0
    } else {
        (2 + 8 * blocks as u32).div_ceil(4) * 4
    }
}

impl Receiver for TcpReceiver {
    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        // A pure ACK (the handshake's third segment, `handshake_ack`)
        // carries nothing to deliver or acknowledge.
        if pkt.kind != PacketKind::Data || (pkt.payload == 0 && pkt.flags == flags::ACK) {
            return;
        }
        self.ecn_on_arrival(ctx, pkt);
        // A SYN, first or resent, is answered by a SYN-ACK.
        self.syn_ack_due = pkt.flags & flags::SYN != 0;
        let seq = pkt.seq;
        if !self.rfc1323_echo || seq == self.rcv_nxt || (seq < self.rcv_nxt && pkt.ts_val >= self.last_ts) {
            self.last_ts = pkt.ts_val;
        }
        let payload = pkt.payload.max(1);
        if seq < self.rcv_nxt {
            // A duplicate: acknowledge at once.
            self.send_ack(ctx);
            return;
        }
        let off = seq - self.rcv_nxt;
        if off >= MAX_REORDER {
            return;
        }
        if seq == self.rcv_nxt {
            let had_gap = self.ooo.len() > 1;
            let mut delivered = payload as u64;
            self.rcv_nxt += 1;
            self.ooo.pop_front();
            while let Some(&p) = self.ooo.front() {
                if p == 0 {
                    break;
                }
                delivered += p as u64;
                self.rcv_nxt += 1;
                self.ooo.pop_front();
            }
            ctx.deliver(delivered);
            self.prune_blocks();
            // A SYN is answered at once (the SYN-ACK is never delayed).
            let syn = pkt.flags & flags::SYN != 0;
            match self.delack {
                Some(d) if !had_gap && !syn => {
                    self.pending += 1;
                    // ns-3's CA_EVENT_NON_DELAYED_ACK / CA_EVENT_DELAYED_ACK.
                    self.delack_reserved = self.pending < d.count;
                    if self.pending >= d.count {
                        self.send_ack(ctx);
                    } else if self.timer_deadline.is_none() {
                        self.arm_timer(ctx, ctx.now + d.timeout);
                    }
                }
                Some(d) if syn && d.first_at_once => {
                    self.send_ack(ctx);
                    // The next in-order segment reaches the count at once.
                    self.pending = d.count.saturating_sub(1);
                }
                _ => {
                    if !syn {
                        self.delack_reserved = false;
                    }
                    self.send_ack(ctx);
                }
            }
            return;
        }
        // Out of order: buffer, update SACK blocks, acknowledge at once.
        let i = off as usize;
        if self.ooo.len() <= i {
            self.ooo.resize(i + 1, 0);
        }
        if self.ooo[i] == 0 {
            self.ooo[i] = payload;
        }
        if self.sack {
            let b = self.block_of(seq);
            self.report_first(b);
        }
        self.delack_reserved = false;
        self.send_ack(ctx);
    }

    fn on_timer(&mut self, ctx: &mut FlowCtx, kind: u32, token: u64) {
        if kind != TIMER_DELACK || token != self.token {
            return;
        }
        self.timer_event = None;
        match self.timer_deadline {
            Some(d) if ctx.now < d => self.arm_timer(ctx, d),
            Some(_) if self.pending > 0 => {
                // ns-3's `DelAckTimeout` raises CA_EVENT_DELAYED_ACK.
                self.delack_reserved = true;
                self.send_ack(ctx);
            }
            _ => self.timer_deadline = None,
        }
    }
}

#[cfg(test)]
mod option_tests {
    use super::sack_option_len;
    use super::TcpReceiver;
    use crate::time::SimTime;
    use crate::transport::Receiver;

    #[test]
    fn rfc1323_echo_keeps_the_last_in_order_timestamp() {
        // Segments 0 (t = 1 ms) and 2 (t = 3 ms, out of order) then 1 (t =
        // 5 ms): RFC 1323 echoes 1 ms on the duplicate ACK, 5 ms once 1
        // fills the hole; the plain rule echoes the latest segment's.
        for (rfc, want) in [(true, [1, 1, 5]), (false, [1, 3, 5])] {
            let mut r = TcpReceiver::new(64, 40, true, 3, None).with_rfc1323_echo(rfc);
            let mut env = crate::transport::testenv::TestEnv::new();
            let mut echoes = Vec::new();
            for (seq, ms) in [(0u64, 1u64), (2, 3), (1, 5)] {
                let p = crate::packet::Packet {
                    kind: crate::packet::PacketKind::Data,
                    seq,
                    payload: 1000,
                    size: 1040,
                    ts_val: SimTime::from_millis(ms),
                    ..Default::default()
                };
                r.on_packet(&mut env.ctx(SimTime::from_millis(ms)), &p);
                echoes.push(env.sent().last().expect("an ACK").ts_echo);
            }
            assert_eq!(echoes, want.map(SimTime::from_millis), "rfc1323 {rfc}");
        }
    }

    #[test]
    fn ns3_ce_change_ack_leaves_the_delayed_segment_unacknowledged() {
        // Segments 0 (ECT), 1 (CE), 2 (CE) with delayed ACKs every 2. The
        // CE change on 1 finds segment 0 delayed. RFC 8257 / Linux: ACK 1
        // (segment 0) without ECE at once, then ACK 3 with ECE for 1 and 2.
        // ns-3 (`TcpDctcp::CeState0to1` with `m_priorRcvNxt` recorded
        // before segment 0 was added): ACK 0 (a duplicate) without ECE,
        // which restarts the delayed ACK, so the next ACK (3, ECE) covers 0
        // too.
        use super::{CeChangeAck, DelAck};
        use crate::packet::{Ecn, Packet, PacketKind};
        let delack = DelAck {
            count: 2,
            timeout: SimTime::from_millis(200),
            first_at_once: false,
        };
        for (how, want) in [
            (CeChangeAck::Delayed, vec![(1, false), (3, true)]),
            (CeChangeAck::Ns3, vec![(0, false), (3, true)]),
        ] {
            let mut r = TcpReceiver::new(64, 40, true, 3, Some(delack))
                .with_accurate_ecn(true)
                .with_ce_change_ack(how);
            let mut env = crate::transport::testenv::TestEnv::new();
            let mut acks = Vec::new();
            for (seq, ecn) in [(0u64, Ecn::Ect), (1, Ecn::Ce), (2, Ecn::Ce)] {
                let p = Packet {
                    kind: PacketKind::Data,
                    seq,
                    payload: 1000,
                    size: 1040,
                    ecn,
                    ..Default::default()
                };
                r.on_packet(&mut env.ctx(SimTime::from_millis(seq)), &p);
                acks.extend(
                    env.sent()
                        .iter()
                        .map(|a| (a.ack, a.flags & crate::packet::flags::ECE != 0)),
                );
            }
            assert_eq!(acks, want, "{how:?}");
        }
    }

    #[test]
    fn sack_option_lengths_match_ns3_acks() {
        // ns-3's ACKs without timestamps: 40 + 12, 20, 28 bytes (52, 60,
        // 68 B on the wire), 36 for the fourth block the option space allows.
        let lens: Vec<u32> = (0..=4).map(sack_option_len).collect();
        assert_eq!(lens, vec![0, 12, 20, 28, 36]);
    }
}
