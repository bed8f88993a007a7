//! The SACK scoreboard and the RFC 6675 routines that read it: IsLost,
//! SetPipe and NextSeg (section 4), in segments.
//!
//! One entry per outstanding segment [snd_una, snd_max): whether it has been
//! selectively acknowledged, and whether it has been deemed lost (for the
//! loss count handed to congestion control). With segment sequence numbers,
//! RFC 6675's byte rules become: IsLost(s) is true when at least DupThresh
//! segments above s have been SACKed ("DupThresh discontiguous SACKed
//! sequences" or "more than (DupThresh - 1) * SMSS bytes"). HighRxt is kept
//! as an exclusive bound: segments below `high_rxt_end` have been
//! retransmitted in this recovery.
//!
//! With `sacked_retransmit_in_pipe` (ns-3) a retransmitted segment that is
//! SACKed afterwards stays in the pipe until the cumulative ACK covers it or
//! a timeout ([`Scoreboard::with_sacked_retransmits_in_pipe`]).

use std::collections::VecDeque;

/// What NextSeg() returns (RFC 6675 section 4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Rule 1: retransmit this segment, deemed lost.
    Lost(u64),
    /// Rule 2: send new data.
    NewData,
    /// Rule 3: retransmit this unSACKed segment (not yet deemed lost).
    Unsacked(u64),
    /// Rule 4: the rescue retransmission of this segment.
    Rescue(u64),
}

/// Per-segment SACK state of the outstanding window.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Sequence number of the first entry (snd_una).
    base: u64,
    sacked: VecDeque<bool>,
    lost: VecDeque<bool>,
    count: usize,
    /// Retransmitted since it was first sent (and since the last timeout).
    rtx: VecDeque<bool>,
    /// Segments both SACKed and flagged in `rtx`.
    sacked_rtx: usize,
    /// Count `sacked_rtx` in the pipe (ns-3).
    keep_sacked_rtx: bool,
    /// `rtx` marks a segment retransmitted across recoveries (ns-3).
    persist_rtx: bool,
}

impl Scoreboard {
    /// An empty scoreboard starting at sequence number 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// ns-3's pipe: a retransmitted segment stays in it once SACKed.
    /// `TcpTxBuffer::BytesInFlight` is `m_sentSize - m_sackedOut -
    /// m_lostOut + m_retrans` (`tcp-tx-buffer.cc`), and while `Update` clears an item's
    /// `m_lost` when a SACK block covers it, it keeps `m_retrans` (set by
    /// `GetTransmittedSegment`), which only `DiscardUpTo` (the cumulative
    /// ACK) and `SetSentListLost` (a timeout) take away: such a segment
    /// counts 1 - 1 + 1 = 1 where RFC 6675's SetPipe counts nothing
    /// (checked against the ns-3.44 wheel: segments 0-9 sent, 1 and 3-6
    /// SACKed, 0 and 2 retransmitted, then 2 SACKed: `BytesInFlight` stays
    /// 5 segments, SetPipe gives 4).
    pub fn with_sacked_retransmits_in_pipe(mut self, on: bool) -> Self {
        self.keep_sacked_rtx = on;
        self
    }

    /// ns-3's retransmitted flag: a segment retransmitted in one recovery
    /// and lost again stays retransmitted in the next one, until the
    /// cumulative ACK covers it or a timeout. `TcpTxBuffer`'s `m_retrans`
    /// outlives the recovery that set it (only `DiscardUpTo` and
    /// `SetSentListLost` clear it), `NextSeg`'s rule 1 takes only an item
    /// with `!m_retrans`, and `BytesInFlight` counts it (lost and
    /// retransmitted: 1), where RFC 6675's HighRxt starts again at each
    /// recovery (`tcp-tx-buffer.cc`). With this, [`Scoreboard::pipe`]
    /// counts and [`Scoreboard::next_hole`] skips every segment flagged by
    /// [`Scoreboard::note_retransmit`], not only those below `high_rxt_end`.
    pub fn with_retransmit_flags(mut self, on: bool) -> Self {
        self.persist_rtx = on;
        self
    }

    /// A new segment was sent for the first time (at snd_max).
    pub fn push(&mut self) {
        self.sacked.push_back(false);
        self.lost.push_back(false);
        self.rtx.push_back(false);
    }

    /// Outstanding segment `seq` was retransmitted.
    pub fn note_retransmit(&mut self, seq: u64) {
        if let Some(i) = self.idx(seq) {
            if !self.rtx[i] {
                self.rtx[i] = true;
                if self.sacked[i] {
                    self.sacked_rtx += 1;
                }
            }
        }
    }

    /// A timeout: no segment counts as retransmitted any more (ns-3's
    /// `TcpTxBuffer::SetSentListLost` clears every `m_retrans`).
    pub fn forget_retransmits(&mut self) {
        for r in self.rtx.iter_mut() {
            *r = false;
        }
        self.sacked_rtx = 0;
    }

    /// The SACKed retransmissions the pipe still counts: none unless
    /// [`Scoreboard::with_sacked_retransmits_in_pipe`].
    pub fn sacked_retransmits_in_pipe(&self) -> u64 {
        if self.keep_sacked_rtx {
            self.sacked_rtx as u64
        } else {
            0
        }
    }

    /// The cumulative ACK moved to `ack`: forget everything below it.
    pub fn advance(&mut self, ack: u64) {
        while self.base < ack {
            match self.sacked.pop_front() {
                Some(s) => {
                    let r = self.rtx.pop_front().unwrap_or(false);
                    if s {
                        self.count -= 1;
                        if r {
                            self.sacked_rtx -= 1;
                        }
                    }
                    self.lost.pop_front();
                }
                None => {
                    self.base = ack;
                    break;
                }
            }
            self.base += 1;
        }
    }

    fn idx(&self, seq: u64) -> Option<usize> {
        let i = seq.checked_sub(self.base)? as usize;
        (i < self.sacked.len()).then_some(i)
    }

    /// Record a SACK of `seq`; true if it was not SACKed before.
    pub fn mark(&mut self, seq: u64) -> bool {
        match self.idx(seq) {
            Some(i) if !self.sacked[i] => {
                self.sacked[i] = true;
                self.count += 1;
                if self.rtx[i] {
                    self.sacked_rtx += 1;
                }
                true
            }
            _ => false,
        }
    }

    /// Whether `seq` has been SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        self.idx(seq).is_some_and(|i| self.sacked[i])
    }

    /// Segments currently SACKed.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Forget all SACK information (RFC 2018 section 8's advice after a
    /// timeout, for receivers that renege; ccsim's do not, so the sender keeps it).
    pub fn clear(&mut self) {
        for s in self.sacked.iter_mut() {
            *s = false;
        }
        for l in self.lost.iter_mut() {
            *l = false;
        }
        self.count = 0;
        self.sacked_rtx = 0;
    }

    /// One past the highest SACKed segment, if any.
    pub fn high_sacked_end(&self) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        self.sacked.iter().rposition(|&s| s).map(|i| self.base + i as u64 + 1)
    }

    /// RFC 6675 IsLost(seq).
    pub fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        let Some(i) = self.idx(seq) else { return false };
        let above = self.sacked.iter().skip(i + 1).filter(|&&s| s).count();
        above >= dupthresh as usize
    }

    /// SACKed segments in [base, end).
    pub fn sacked_below(&self, end: u64) -> u64 {
        let n = end.saturating_sub(self.base).min(self.sacked.len() as u64) as usize;
        self.sacked.iter().take(n).filter(|&&s| s).count() as u64
    }

    /// RFC 6675 SetPipe(): segments not SACKed and not deemed lost, plus
    /// those retransmitted in this recovery (below `high_rxt_end`); plus the
    /// SACKed retransmissions with [`Scoreboard::with_sacked_retransmits_in_pipe`].
    pub fn pipe(&self, high_rxt_end: u64, dupthresh: u32) -> u64 {
        let mut pipe = self.sacked_retransmits_in_pipe();
        let mut above = 0usize;
        for (i, &s) in self.sacked.iter().enumerate().rev() {
            if s {
                above += 1;
                continue;
            }
            let seq = self.base + i as u64;
            if above < dupthresh as usize {
                pipe += 1;
            }
            if seq < high_rxt_end || self.persist_rtx && self.rtx[i] {
                pipe += 1;
            }
        }
        pipe
    }

    /// Mark the segments that IsLost() now declares lost; return how many
    /// were not marked before, and put their sequence numbers in `newly_lost`
    /// (cleared first; highest first).
    pub fn mark_lost(&mut self, dupthresh: u32, newly_lost: &mut Vec<u64>) -> u64 {
        newly_lost.clear();
        if self.count < dupthresh as usize {
            return 0;
        }
        let mut newly = 0;
        let mut above = 0usize;
        for i in (0..self.sacked.len()).rev() {
            if self.sacked[i] {
                above += 1;
            } else if above >= dupthresh as usize && !self.lost[i] {
                self.lost[i] = true;
                newly_lost.push(self.base + i as u64);
                newly += 1;
            }
        }
        newly
    }

    /// The smallest segment at or above `from` (and snd_una) that is not
    /// SACKed while a segment above it is: ns-2's
    /// `ScoreBoardRQ::GetNextRetran` (`tcp/scoreboard-rq.cc`, through
    /// `ReassemblyQueue::nexthole`: a hole with a SACK block above it).
    /// With [`Scoreboard::with_retransmit_flags`], not one retransmitted.
    pub fn next_hole(&self, from: u64) -> Option<u64> {
        let high_sacked = self.high_sacked_end()?;
        (from.max(self.base)..high_sacked)
            .find(|&s| !(self.is_sacked(s) || self.persist_rtx && self.idx(s).is_some_and(|i| self.rtx[i])))
    }

    /// Whether the segment at index `i` is flagged lost after a timeout
    /// whose snd_max was `flag_end` (ns-3.44's `SetSentListLost` flags
    /// every unSACKed segment then outstanding; one sent later only when
    /// [`Scoreboard::mark_lost`] finds DupThresh SACKed segments above it,
    /// as `UpdateLostCount`).
    fn flagged_after_timeout(&self, i: usize, flag_end: u64) -> bool {
        !self.sacked[i] && (self.base + (i as u64) < flag_end || self.lost[i])
    }

    /// After a timeout, with `rto_resend = "below_high_sack"` (ns-3.44's
    /// `TcpTxBuffer::NextSeg` rule 1 after `SetSentListLost`): the first
    /// segment flagged lost, not SACKed and not retransmitted since the
    /// timeout ([`Scoreboard::forget_retransmits`] cleared every flag),
    /// below the highest SACKed segment, or anywhere when none is SACKed
    /// (go-back-N). `flag_end`: snd_max at the timeout.
    pub fn next_after_timeout(&self, flag_end: u64) -> Option<u64> {
        let n = match self.high_sacked_end() {
            Some(end) => (end - self.base) as usize,
            None => self.sacked.len(),
        };
        (0..n)
            .find(|&i| !self.rtx[i] && self.flagged_after_timeout(i, flag_end))
            .map(|i| self.base + i as u64)
    }

    /// ns-3.44's `TcpTxBuffer::BytesInFlight` after a timeout whose snd_max
    /// was `flag_end`, in segments: `m_sentSize - m_sackedOut - m_lostOut +
    /// m_retrans`, the unSACKed segments not flagged lost plus those
    /// retransmitted since the timeout (plus the SACKed retransmissions
    /// with [`Scoreboard::with_sacked_retransmits_in_pipe`]).
    pub fn pipe_after_timeout(&self, flag_end: u64) -> u64 {
        let mut pipe = self.sacked_retransmits_in_pipe();
        for i in 0..self.sacked.len() {
            if !self.sacked[i] && (self.rtx[i] || !self.flagged_after_timeout(i, flag_end)) {
                pipe += 1;
            }
        }
        pipe
    }

    /// RFC 6675 NextSeg(). `high_rxt_end`: one past HighRxt; `new_data`:
    /// unsent data exists and the receiver window allows it; `rescue`:
    /// rule 4 is allowed (HighACK > RescueRxt); `snd_max`: one past HighData.
    pub fn next_seg(
        &self,
        high_rxt_end: u64,
        dupthresh: u32,
        new_data: bool,
        rescue: bool,
        snd_max: u64,
    ) -> Option<NextSeg> {
        // The smallest unSACKed segment above HighRxt and below the highest
        // SACKed one (rules 1.a, 1.b). IsLost is monotone, so if it is not
        // lost no larger one is (rule 1.c).
        let candidate = self.next_hole(high_rxt_end);
        if let Some(c) = candidate {
            if self.is_lost(c, dupthresh) {
                return Some(NextSeg::Lost(c));
            }
        }
        if new_data {
            return Some(NextSeg::NewData);
        }
        if let Some(c) = candidate {
            return Some(NextSeg::Unsacked(c));
        }
        if rescue {
            // The highest outstanding unSACKed segment.
            let mut s = snd_max;
            while s > self.base {
                s -= 1;
                if !self.is_sacked(s) {
                    return Some(NextSeg::Rescue(s));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: usize, sacked: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::new();
        for _ in 0..n {
            b.push();
        }
        for &s in sacked {
            assert!(b.mark(s));
        }
        b
    }

    #[test]
    fn is_lost_and_pipe() {
        // Window 0..10; 0 and 2 lost, 1 and 3..=9 SACKed.
        let b = board(10, &[1, 3, 4, 5, 6, 7, 8, 9]);
        assert!(b.is_lost(0, 3) && b.is_lost(2, 3));
        // Only two SACKed segments above 7.
        assert!(!b.is_lost(7, 3));
        // Unsacked 0 and 2 are lost: pipe 0; after retransmitting 0, pipe 1.
        assert_eq!(b.pipe(0, 3), 0);
        assert_eq!(b.pipe(1, 3), 1);
        assert_eq!(b.pipe(3, 3), 2);
        assert_eq!(b.high_sacked_end(), Some(10));
        assert_eq!(b.sacked_below(4), 2);
    }

    #[test]
    fn ns3_keeps_a_sacked_retransmission_in_the_pipe() {
        // The ns-3.44 wheel's TcpTxBuffer: segments 0-9 sent, 1 and 3-6
        // SACKed (0 and 2 deemed lost), 0 and 2 retransmitted; the
        // retransmission of 2 arrives and is SACKed, that of 0 is lost.
        // `BytesInFlight` stays 5 (7, 8, 9, the retransmitted 0 and the
        // SACKed retransmission of 2); RFC 6675's SetPipe gives 4.
        let pipe_after = |ns3: bool| {
            let mut b = board(10, &[1, 3, 4, 5, 6]);
            b = b.with_sacked_retransmits_in_pipe(ns3);
            assert_eq!(b.pipe(0, 3), 3);
            b.note_retransmit(0);
            b.note_retransmit(2);
            assert_eq!(b.pipe(3, 3), 5);
            assert!(b.mark(2));
            let p = b.pipe(3, 3);
            // The cumulative ACK passes the SACKed retransmission: gone in both.
            b.advance(3);
            assert_eq!(b.pipe(3, 3), 3);
            p
        };
        assert_eq!(pipe_after(true), 5);
        assert_eq!(pipe_after(false), 4);
        // A timeout forgets which segments were retransmitted.
        let mut b = board(10, &[1, 3, 4, 5, 6]).with_sacked_retransmits_in_pipe(true);
        b.note_retransmit(2);
        b.mark(2);
        assert_eq!(b.sacked_retransmits_in_pipe(), 1);
        b.forget_retransmits();
        assert_eq!(b.sacked_retransmits_in_pipe(), 0);
    }

    #[test]
    fn ns3_remembers_retransmissions_across_recoveries() {
        // 0-9 sent; 1 and 3-9 SACKed; 0 and 2 retransmitted in an earlier
        // recovery and lost again; the new recovery starts with HighRxt at
        // 0. ns-3 (`m_retrans` kept): 2 is not resent (rule 1 skips it) and
        // counts in the pipe, as 0 does; RFC 6675 resends 2 after 0.
        for ns3 in [true, false] {
            let mut b = board(10, &[1, 3, 4, 5, 6, 7, 8, 9]).with_retransmit_flags(ns3);
            b.note_retransmit(0);
            b.note_retransmit(2);
            let high_rxt_end = 1; // the new recovery resent the head
            assert_eq!(b.pipe(high_rxt_end, 3), if ns3 { 2 } else { 1 });
            let next = b.next_seg(high_rxt_end, 3, true, false, 10);
            assert_eq!(next, Some(if ns3 { NextSeg::NewData } else { NextSeg::Lost(2) }));
        }
    }

    #[test]
    fn ns3_after_a_timeout_resends_only_below_the_highest_sack() {
        // The ns-3.44 wheel's `TcpTxBuffer` (1000-byte segments, DupThresh
        // 3), step by step: 0-19 sent, a SACK of 2-9 (`BytesInFlight` 10),
        // `SetSentListLost ()` (0), then each segment `NextSeg` returns
        // sent with `CopyFromSequence`, new data pushed when it returns
        // new data: 0, 1, 20, 21 (4); a SACK of 15 (4): 10-14, 22 (10);
        // 23-25 (13); a SACK of 22 (12): 16-19 (16), not 20 and 21, sent
        // after the timeout with one SACK above; SACKs of 23 and 24 (12):
        // 20, 21 (`UpdateLostCount`), then new data. Without any SACK:
        // 0, 1, 2, ... (go-back-N).
        let recover = 20;
        let mut b = board(20, &[2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(b.pipe(0, 3), 10);
        b.forget_retransmits();
        let mut lost = vec![];
        // Send what the rule picks, new data when it picks none, `n` in
        // all; the segments and the pipe after them.
        let mut send = |b: &mut Scoreboard, sacks: &[u64], n: usize| {
            for &s in sacks {
                assert!(b.mark(s));
            }
            b.mark_lost(3, &mut lost);
            let before = b.pipe_after_timeout(recover);
            let mut sent = vec![];
            for _ in 0..n {
                let s = match b.next_after_timeout(recover) {
                    Some(s) => {
                        b.note_retransmit(s);
                        s
                    }
                    None => {
                        b.push();
                        b.base + b.sacked.len() as u64 - 1
                    }
                };
                sent.push(s);
            }
            (before, sent, b.pipe_after_timeout(recover))
        };
        assert_eq!(send(&mut b, &[], 4), (0, vec![0, 1, 20, 21], 4));
        assert_eq!(send(&mut b, &[15], 6), (4, vec![10, 11, 12, 13, 14, 22], 10));
        assert_eq!(send(&mut b, &[], 3), (10, vec![23, 24, 25], 13));
        assert_eq!(send(&mut b, &[22], 5), (12, vec![16, 17, 18, 19, 26], 17));
        assert_eq!(send(&mut b, &[23, 24], 3), (13, vec![20, 21, 27], 16));
        let mut b = board(20, &[]);
        b.forget_retransmits();
        assert_eq!(send(&mut b, &[], 6), (0, vec![0, 1, 2, 3, 4, 5], 6));
    }

    #[test]
    fn next_seg_rules() {
        let b = board(10, &[1, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(b.next_seg(0, 3, true, false, 10), Some(NextSeg::Lost(0)));
        assert_eq!(b.next_seg(1, 3, true, false, 10), Some(NextSeg::Lost(2)));
        assert_eq!(b.next_seg(3, 3, true, false, 10), Some(NextSeg::NewData));
        // Only two SACKed above 5: segment 5 is not lost; rule 3 sends it.
        let b = board(10, &[6, 7]);
        assert_eq!(b.next_seg(0, 3, true, false, 10), Some(NextSeg::NewData));
        assert_eq!(b.next_seg(0, 3, false, false, 10), Some(NextSeg::Unsacked(0)));
        // Rule 4: nothing below the highest SACK left, rescue the last segment.
        let b = board(10, &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(b.next_seg(8, 3, false, true, 10), Some(NextSeg::Rescue(9)));
        assert_eq!(b.next_seg(8, 3, false, false, 10), None);
    }

    #[test]
    fn next_hole_needs_a_sack_above() {
        let b = board(10, &[2, 3, 6]);
        assert_eq!(b.next_hole(0), Some(0));
        assert_eq!(b.next_hole(2), Some(4));
        assert_eq!(b.next_hole(5), Some(5));
        // Nothing SACKed above 7.
        assert_eq!(b.next_hole(7), None);
        assert_eq!(board(10, &[]).next_hole(0), None);
    }

    #[test]
    fn advance_and_mark_lost() {
        let mut b = board(10, &[1, 3, 4, 5]);
        let mut lost = vec![];
        assert_eq!(b.mark_lost(3, &mut lost), 2);
        assert_eq!(lost, [2, 0]);
        assert_eq!(b.mark_lost(3, &mut lost), 0);
        assert!(lost.is_empty());
        b.advance(4);
        assert_eq!(b.count(), 2);
        assert!(b.is_sacked(5) && !b.is_sacked(6));
        assert!(!b.mark(2), "below the window");
        b.clear();
        assert_eq!(b.count(), 0);
    }
}
