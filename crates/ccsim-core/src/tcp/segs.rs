//! The sender's outstanding segments, `[snd_una, snd_max)`: a 16-byte
//! record each (payload, transmissions, latest send time), with the two
//! kinds of state only some senders read in queues of their own, kept in
//! step with it only for those senders:
//!
//! - the delivery-rate estimator's state of the latest transmission
//!   ([`TxInfo`], 56 bytes), for a controller that reads rate samples
//!   ([`crate::cc::CongestionControl::uses_rate_samples`]); for the others
//!   it is never computed, and reads answer [`TxInfo::default`], which is
//!   what their records held when it lived in them;
//! - the ns-2 Linux agent's loss marks ([`LaMark`], recovery
//!   `rate_halving`, [`super::linux_agent`]).
//!
//! A segment taken off the front takes its entries in the other queues
//! with it.

use super::rate::TxInfo;
use crate::time::SimTime;
use std::collections::VecDeque;

/// One outstanding segment.
#[derive(Copy, Clone, Debug)]
pub(super) struct Seg {
    /// Payload bytes.
    pub payload: u32,
    /// Transmissions so far.
    pub tx_count: u16,
    /// Time of the latest transmission.
    pub sent_at: SimTime,
}

/// The ns-2 Linux agent's marks of an outstanding segment.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct LaMark {
    /// Deemed lost and not retransmitted since.
    pub lost: bool,
    /// Retransmitted when snd_max was this (the scoreboard's `SndNxt`);
    /// lost again once a segment at or above it is SACKed.
    pub rtx_nxt: Option<u64>,
}

/// The outstanding segments (see the module's documentation).
#[derive(Debug)]
pub(super) struct Segs {
    segs: VecDeque<Seg>,
    tx: VecDeque<TxInfo>,
    la: VecDeque<LaMark>,
    keeps_tx: bool,
    keeps_la: bool,
}

impl Segs {
    /// Empty, keeping the rate state with `keeps_tx` and the Linux agent's
    /// marks with `keeps_la`.
    pub fn new(keeps_tx: bool, keeps_la: bool) -> Self {
        Segs {
            segs: VecDeque::new(),
            tx: VecDeque::new(),
            la: VecDeque::new(),
            keeps_tx,
            keeps_la,
        }
    }

    /// Segment `i` from the front.
    #[inline]
    pub fn get(&self, i: usize) -> &Seg {
        &self.segs[i]
    }

    /// Segment `i` from the front, to update.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut Seg {
        &mut self.segs[i]
    }

    /// The oldest segment.
    #[inline]
    pub fn front(&self) -> Option<&Seg> {
        self.segs.front()
    }

    /// A new segment at the back (its rate state the default, no marks).
    /// The side queues' part out of line, so that a sender without them
    /// inlines one push and a test.
    #[inline]
    pub fn push_back(&mut self, seg: Seg) {
        self.segs.push_back(seg);
        if self.keeps_tx || self.keeps_la {
            self.push_back_sides();
        }
    }

    /// [`Segs::push_back`]'s entries in the side queues.
    #[inline(never)]
    fn push_back_sides(&mut self) {
        if self.keeps_tx {
            self.tx.push_back(TxInfo::default());
        }
        if self.keeps_la {
            self.la.push_back(LaMark::default());
        }
    }

    /// Take the oldest segment off, with its entries in the side queues
    /// (read them first: [`Segs::tx`], [`Segs::la`]); the side queues'
    /// part out of line, as in [`Segs::push_back`].
    #[inline]
    pub fn pop_front(&mut self) -> Option<Seg> {
        let seg = self.segs.pop_front()?;
        if self.keeps_tx || self.keeps_la {
            self.pop_front_sides();
        }
        Some(seg)
    }

    /// [`Segs::pop_front`]'s entries in the side queues.
    #[inline(never)]
    fn pop_front_sides(&mut self) {
        if self.keeps_tx {
            self.tx.pop_front();
        }
        if self.keeps_la {
            self.la.pop_front();
        }
    }

    /// The rate state of segment `i` from the front.
    #[inline]
    pub fn tx(&self, i: usize) -> TxInfo {
        if self.keeps_tx {
            self.tx[i]
        } else {
            TxInfo::default()
        }
    }

    /// Record the rate state of segment `i`'s latest transmission (kept
    /// only with rate samples).
    #[inline]
    pub fn set_tx(&mut self, i: usize, tx: TxInfo) {
        if self.keeps_tx {
            self.tx[i] = tx;
        }
    }

    /// The Linux agent's marks of segment `i` from the front (only with
    /// that recovery).
    pub fn la(&self, i: usize) -> LaMark {
        self.la[i]
    }

    /// The Linux agent's marks of segment `i` from the front, to update
    /// (only with that recovery).
    pub fn la_mut(&mut self, i: usize) -> &mut LaMark {
        &mut self.la[i]
    }

    /// The Linux agent's marks, oldest first.
    pub fn la_iter_mut(&mut self) -> impl Iterator<Item = &mut LaMark> {
        self.la.iter_mut()
    }

    /// The first segment the Linux agent has marked lost, from the front.
    pub fn la_first_lost(&self) -> Option<usize> {
        self.la.iter().position(|m| m.lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(payload: u32) -> Seg {
        Seg {
            payload,
            tx_count: 1,
            sent_at: SimTime::from_secs(1),
        }
    }

    #[test]
    fn a_record_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Seg>(), 16);
    }

    #[test]
    fn the_side_queues_move_with_the_segments_when_kept() {
        let mut q = Segs::new(true, true);
        q.push_back(seg(10));
        q.push_back(seg(20));
        let tx = TxInfo {
            delivered: 7,
            ..TxInfo::default()
        };
        q.set_tx(1, tx);
        q.la_mut(1).lost = true;
        assert_eq!(q.la_first_lost(), Some(1));
        assert_eq!((q.tx(0).delivered, q.la(0).lost), (0, false));
        assert_eq!(q.pop_front().unwrap().payload, 10);
        assert_eq!((q.tx(0).delivered, q.la(0).lost), (7, true));
        assert_eq!(q.la_first_lost(), Some(0));
        assert_eq!(q.pop_front().unwrap().payload, 20);
        assert!(q.pop_front().is_none());
    }

    #[test]
    fn without_rate_samples_the_rate_state_reads_as_the_default() {
        let mut q = Segs::new(false, false);
        q.push_back(seg(10));
        q.set_tx(
            0,
            TxInfo {
                delivered: 7,
                ..TxInfo::default()
            },
        );
        assert_eq!(q.tx(0).delivered, 0);
        assert_eq!(q.pop_front().unwrap().payload, 10);
    }
}
