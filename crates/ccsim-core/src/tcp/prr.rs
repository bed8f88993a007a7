//! Proportional Rate Reduction (PRR): how much a SACK sender may send on
//! each ACK during fast recovery (key `prr` of a TCP flow group).
//!
//! RFC 6937 section 3 (Mathis, Dukkipati, Cheng 2013), per recovery:
//!
//! ```text
//! at the start:   prr_delivered = prr_out = 0; RecoverFS = snd.nxt - snd.una
//! on every ACK:   DeliveredData = change_in(snd.una) + change_in(SACKd)
//!                 prr_delivered += DeliveredData
//!                 if pipe > ssthresh:  sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
//!                 else:                limit = prr_delivered - prr_out                          (PRR-CRB)
//!                                      limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS (PRR-SSRB)
//!                                      sndcnt = MIN(ssthresh - pipe, limit)
//! on every (re)transmission: prr_out += data sent
//! ```
//!
//! While pipe exceeds ssthresh the sender thus sends ssthresh/RecoverFS
//! segments per segment delivered, spreading the window reduction over the
//! whole round trip instead of RFC 6675's half-window of silence; once
//! losses took pipe below ssthresh the reduction bound lets it climb back
//! by at most one segment per delivered one (CRB) or one more (SSRB, the
//! RFC's recommendation, section 6). The sender applies `sndcnt` as the
//! window of RFC 6675's step (C): segments leave while pipe < pipe at the
//! ACK + sndcnt, chosen by NextSeg as before; the fast retransmit itself
//! (RFC 6675 section 5 step 4.3) is always sent and counted in `prr_out`.
//!
//! `prr = "ns3"` is ns-3.44's `TcpPrrRecovery` (`tcp-prr-recovery.cc`, the
//! RFC 6937bis-08 version ns-3 took in its merge request 2059, read from
//! the source and checked against the wheel's `libns3.44-internet.so`),
//! its `RecoveryType` default:
//! - `EnterRecovery`: RecoverFS = `m_bytesInFlight`, the pipe after
//!   `MarkHeadAsLost` (not snd.nxt - snd.una), then `DoRecovery(..., true)`
//!   before the fast retransmit;
//! - `DoRecovery(tcb, deliveredBytes, isDupAck)`: on a duplicate ACK one
//!   more segment counts as delivered while `m_prrDelivered <
//!   m_recoveryFlightSize`, even with SACK, where `deliveredBytes` already
//!   holds the newly SACKed data; an ACK that delivers nothing changes
//!   nothing (cwnd keeps its last value);
//! - pipe > ssthresh: `sendCount = int(ceil(m_prrDelivered * m_ssThresh *
//!   1.0 / m_recoveryFlightSize) - m_prrOut)`, the product taken in
//!   `uint32_t` bytes before the conversion to double (so it wraps at 2^32);
//! - otherwise CRB, plus one segment on a "safe ACK", which ns-3
//!   approximates by `m_isRetransDataAcked` (a partial ACK whose cumulative
//!   part covers a retransmitted segment): `limit =
//!   std::max(m_prrDelivered - m_prrOut, deliveredBytes)` in `uint32_t`, so when more was sent than
//!   delivered the difference wraps and, cast to `int`, is negative: the
//!   limit is then prr_delivered - prr_out, not DeliveredData;
//! - `sendCount = max(sendCount, prr_out > 0 ? 0 : 1 segment)`, then
//!   `m_cWnd = m_bytesInFlight + sendCount`;
//! - `TcpSocketBase::DupAck` calls `DoRecovery(tcb, delivered, true)` on
//!   every duplicate ACK in recovery (with SACK: an ACK that SACKs new
//!   data) and `ProcessAck` calls `DoRecovery(tcb, delivered, false)` on a
//!   partial ACK that covers at least one segment, before its
//!   `DoRetransmit`: an advancing ACK that also SACKs new data is counted
//!   twice; `SendDataPacket` calls `UpdateBytesSent` for everything sent
//!   in `CA_RECOVERY`, retransmissions included.
//!
//! Here the window (`pipe + sndcnt`) is the sender's own during recovery:
//! the controller's cwnd stays at ssthresh (ns-3 writes `m_cWnd`, which
//! only matters if a timeout comes during recovery with a controller that
//! takes ssthresh from cwnd, ns-3's CUBIC). ns-3 also runs PRR in
//! `CA_CWR` after an ECN-Echo; ccsim does not (ECN reductions keep their
//! own rule). Linux's `tcp_cwnd_reduction` (`net/ipv4/tcp_input.c`) is
//! RFC 9937's version (RecoverFS = the window before the reduction, one
//! more segment when the ACK advances snd.una and marks nothing lost):
//! not modelled; `ssrb` is the closest.

use super::sender::TcpSender;
use crate::cc::{CaState, CongestionControl};
use serde::Deserialize;

/// Which PRR, if any (key `prr`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrMode {
    /// No PRR: RFC 6675's window, cwnd = ssthresh during recovery.
    Off,
    /// RFC 6937 with the Slow Start Reduction Bound (its recommendation).
    Ssrb,
    /// RFC 6937 with the Conservative Reduction Bound.
    Crb,
    /// ns-3.44's `TcpPrrRecovery` (module documentation).
    Ns3,
}

/// The per-recovery state (RFC 6937 section 3), in segments.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct PrrState {
    /// Data delivered in this recovery, segments (ns-3: whole segments of
    /// its byte count).
    delivered: u64,
    /// Segments sent in this recovery, retransmissions included.
    out: u64,
    /// RecoverFS, segments.
    recover_fs: u64,
    /// The send window this recovery's last step set: pipe + sndcnt.
    window: Option<f64>,
}

impl PrrState {
    /// A transmission during recovery (`prr_out += data sent`).
    pub(super) fn on_sent(&mut self) {
        self.out += 1;
    }
}

/// One step of RFC 6937's per-ACK computation: `sndcnt` in segments, for
/// `delivered` segments newly delivered by the ACK, `pipe` (RFC 6675's,
/// after the ACK and before anything is sent on it) and `ssthresh`.
/// `prr_delivered` must already include `delivered`.
pub(super) fn sndcnt_rfc6937(
    mode: PrrMode,
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    delivered: u64,
    pipe: u64,
    ssthresh: f64,
) -> f64 {
    let (pd, po, pipe) = (prr_delivered as f64, prr_out as f64, pipe as f64);
    if pipe > ssthresh {
        // Proportional Rate Reduction.
        (pd * ssthresh / recover_fs.max(1) as f64).ceil() - po
    } else {
        let limit = match mode {
            PrrMode::Crb => pd - po,
            _ => (pd - po).max(delivered as f64) + 1.0,
        };
        (ssthresh - pipe).min(limit)
    }
}

/// ns-3.44's `TcpPrrRecovery::DoRecovery` on byte counts (`uint32_t` as
/// there): the new `m_cWnd` in bytes, or None when the ACK delivered
/// nothing (`deliveredBytes == 0`: cwnd left as it was). `st` is updated
/// (`m_prrDelivered`, in segments of `seg` bytes).
pub(super) fn do_recovery_ns3(
    st: &mut PrrState,
    seg: u32,
    delivered_segs: u64,
    is_dup_ack: bool,
    pipe_segs: u64,
    ssthresh_bytes: u32,
    safe_ack: bool,
) -> Option<i64> {
    let mut delivered = (delivered_segs as u32).wrapping_mul(seg);
    let prr_delivered = |st: &PrrState| (st.delivered as u32).wrapping_mul(seg);
    let recover_fs = (st.recover_fs as u32).wrapping_mul(seg);
    if is_dup_ack && prr_delivered(st) < recover_fs {
        delivered = delivered.wrapping_add(seg);
    }
    if delivered == 0 {
        return None;
    }
    st.delivered += u64::from(delivered / seg.max(1));
    let (pd, po) = (prr_delivered(st), (st.out as u32).wrapping_mul(seg));
    let in_flight = (pipe_segs as u32).wrapping_mul(seg);
    let mut send: i64 = if in_flight > ssthresh_bytes {
        // `std::ceil(m_prrDelivered * tcb->m_ssThresh * 1.0 / m_recoveryFlightSize) - m_prrOut`,
        // the product in `uint32_t`, the result truncated to `int`.
        let x = f64::from(pd.wrapping_mul(ssthresh_bytes)) / f64::from(recover_fs);
        (x.ceil() - f64::from(po)) as i32 as i64
    } else {
        // `int limit = std::max(m_prrDelivered - m_prrOut, deliveredBytes)`.
        let mut limit = pd.wrapping_sub(po).max(delivered) as i32 as i64;
        if safe_ack {
            limit += i64::from(seg);
        }
        limit.min(i64::from(ssthresh_bytes - in_flight) as i32 as i64)
    };
    // "Force a fast retransmit upon entering fast recovery".
    send = send.max(if po > 0 { 0 } else { i64::from(seg) });
    Some(i64::from(in_flight) + send)
}

impl TcpSender {
    /// The PRR window while in fast recovery, if PRR is on.
    pub(super) fn prr_window(&self) -> Option<f64> {
        if self.state == CaState::Recovery {
            self.prr.window
        } else {
            None
        }
    }

    /// Whether this flow recovers with PRR: it is on and the recovery is
    /// RFC 6675's (not ns-2's `Sack1`, which has its own pipe counter).
    pub(super) fn prr_on(&self) -> bool {
        self.cfg.prr != PrrMode::Off && self.uses_sack() && !self.sack1()
    }

    /// Fast recovery starts (before the fast retransmit): RFC 6937's
    /// initialisation and the first step, on the ACK that started it.
    /// `pipe` is RFC 6675's pipe with the head deemed lost.
    pub(super) fn prr_enter(&mut self, pipe: u64, delivered: u64) {
        if !self.prr_on() {
            return;
        }
        let recover_fs = if self.cfg.prr == PrrMode::Ns3 {
            pipe
        } else {
            self.snd_max - self.snd_una
        };
        self.prr = PrrState {
            recover_fs,
            ..PrrState::default()
        };
        self.prr_step(delivered, true, false, pipe);
    }

    /// An ACK during fast recovery that did not end it: `delivered`
    /// segments newly delivered, `is_dup` (it SACKed new data), `partial`
    /// (it advanced the cumulative ACK), `safe` (its cumulative part
    /// covers a retransmitted segment).
    pub(super) fn prr_on_ack(&mut self, delivered: u64, is_dup: bool, partial: bool, safe: bool) {
        if !self.prr_on() {
            return;
        }
        let pipe = self.pipe_now();
        if self.cfg.prr == PrrMode::Ns3 {
            // `DupAck` then `ProcessAck`'s partial-ACK branch, each with
            // the ACK's delivered bytes.
            if is_dup {
                self.prr_step(delivered, true, safe, pipe);
            }
            if partial {
                self.prr_step(delivered, false, safe, pipe);
            }
        } else {
            self.prr_step(delivered, is_dup, safe, pipe);
        }
    }

    fn prr_step(&mut self, delivered: u64, is_dup: bool, safe: bool, pipe: u64) {
        let ssthresh = self.cc.ssthresh();
        if self.cfg.prr == PrrMode::Ns3 {
            let seg = self.cfg.mss;
            let ss = (ssthresh * f64::from(seg)).round().clamp(0.0, f64::from(u32::MAX)) as u32;
            if let Some(w) = do_recovery_ns3(&mut self.prr, seg, delivered, is_dup, pipe, ss, safe) {
                self.prr.window = Some(w as f64 / f64::from(seg));
            }
            return;
        }
        let p = &mut self.prr;
        p.delivered += delivered;
        let sndcnt = sndcnt_rfc6937(
            self.cfg.prr,
            p.delivered,
            p.out,
            p.recover_fs,
            delivered,
            pipe,
            ssthresh,
        );
        p.window = Some(pipe as f64 + sndcnt.max(0.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 section 3.1, the burst of 15 losses: 20 segments out, 0-14
    /// lost, Limited Transmit on the ACKs of 15 and 16, recovery on the
    /// ACK of 17 with pipe 4 and ssthresh 10. The figure's "sent" rows:
    /// PRR-CRB R R R (RB "b"), PRR-SSRB 2R 2R 2R (RB "bd", "d", "d"); its
    /// "pipe" rows (before sending): 4 4 4 and 4 5 6.
    #[test]
    fn rfc6937_burst_loss_example() {
        for (mode, sent, pipes) in [
            (PrrMode::Crb, [1.0, 1.0, 1.0], [4, 4, 4]),
            (PrrMode::Ssrb, [2.0, 2.0, 2.0], [4, 5, 6]),
        ] {
            let (mut delivered, mut out, mut pipe) = (0u64, 0u64, 4u64);
            for (i, want) in sent.iter().enumerate() {
                assert_eq!(pipe, pipes[i], "{mode:?} ack {}", 17 + i);
                delivered += 1;
                let n = sndcnt_rfc6937(mode, delivered, out, 22, 1, pipe, 10.0);
                assert_eq!(n, *want, "{mode:?} ack {}", 17 + i);
                out += n as u64;
                // The next ACK SACKs one more segment; what was sent is in flight.
                pipe = pipe + n as u64 - 1;
            }
        }
    }

    #[test]
    fn ns3_counts_a_duplicate_ack_as_one_more_segment_and_wraps_like_ns3() {
        // Entering recovery: pipe 19 segments of 1000 B, ssthresh 10, one
        // SACKed segment delivered; ns-3 adds one for the duplicate ACK:
        // prr_delivered = 2000 B, sendCount = ceil(2000 x 10000 / 19000) =
        // 1053 B (without the extra segment, 527 B).
        let mut st = PrrState {
            recover_fs: 19,
            ..PrrState::default()
        };
        let w = do_recovery_ns3(&mut st, 1000, 1, true, 19, 10_000, false);
        assert_eq!(w, Some(20_053));
        assert_eq!(st.delivered, 2);
        // An ACK that delivers nothing leaves the window alone.
        assert_eq!(do_recovery_ns3(&mut st, 1000, 0, false, 19, 10_000, false), None);
        // Below ssthresh with more sent than delivered: the uint32_t
        // difference wraps, so the limit is negative, not DeliveredData
        // (which would send one segment: window 6000 B).
        let mut st = PrrState {
            recover_fs: 19,
            delivered: 4,
            out: 6,
            window: None,
        };
        assert_eq!(do_recovery_ns3(&mut st, 1000, 1, false, 5, 10_000, false), Some(5_000));
        // The proportional product wraps at 2^32 bytes: 70 x 1460 B times
        // ssthresh 50 x 1460 B is 7.46e9, 3.17e9 after the wrap, so
        // ceil(3.17e9 / RecoverFS) = 21683 B is below prr_out (30 segments)
        // and nothing is sent; without the wrap, 35 - 30 = 5 segments.
        let mut st = PrrState {
            recover_fs: 100,
            delivered: 69,
            out: 30,
            window: None,
        };
        let w = do_recovery_ns3(&mut st, 1460, 1, false, 80, 50 * 1460, false);
        assert_eq!(w, Some(80 * 1460));
    }
}
