//! DropTail (FIFO with tail drop) and its drop-from-front variant.
//!
//! The reference behaviour is ns-2's `Queue/DropTail` (`drop_front_` option)
//! and ns-3's `FifoQueueDisc`: a limit on the packets waiting (the packet on
//! the wire does not count) or on their bytes; an arrival that does not fit
//! is dropped, or, with drop-front, the packet at the head is dropped to make
//! room for it. With a marking threshold it is also DCTCP's step-marking
//! switch ([`super::step_mark`]).

use super::step_mark::StepMark;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use std::collections::VecDeque;

/// Limits shared by the FIFO-based disciplines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    /// Maximum packets waiting (None: unlimited by count).
    pub packets: Option<u64>,
    /// Maximum bytes waiting (None: unlimited by bytes).
    pub bytes: Option<u64>,
}

impl Limit {
    /// Would a packet of `size` bytes fit on top of the current contents?
    #[inline]
    pub fn fits(&self, len_pkts: usize, len_bytes: u64, size: u32) -> bool {
        self.packets.is_none_or(|l| (len_pkts as u64) < l) && self.bytes.is_none_or(|l| len_bytes + size as u64 <= l)
    }
}

/// A FIFO buffer of packets with its byte count, which also allows dropping
/// from the tail and from the middle (SFQ drops the tail of the longest
/// bucket, CHOKe removes a random packet).
#[derive(Default, Debug)]
pub struct Fifo {
    q: VecDeque<PacketRef>,
    bytes: u64,
}

impl Fifo {
    /// Append at the tail.
    #[inline]
    pub fn push(&mut self, p: PacketRef, size: u32) {
        self.q.push_back(p);
        self.bytes += size as u64;
    }
    /// Remove the head.
    #[inline]
    pub fn pop_front(&mut self, ctx: &QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_front()?;
        self.bytes -= ctx.arena.get(p).size as u64;
        Some(p)
    }
    /// Remove the tail.
    #[inline]
    pub fn pop_back(&mut self, ctx: &QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_back()?;
        self.bytes -= ctx.arena.get(p).size as u64;
        Some(p)
    }
    /// Remove the packet at position `i` (0 = head).
    #[inline]
    pub fn remove(&mut self, i: usize, ctx: &QueueCtx) -> Option<PacketRef> {
        let p = self.q.remove(i)?;
        self.bytes -= ctx.arena.get(p).size as u64;
        Some(p)
    }
    /// The packet at position `i` (0 = head).
    #[inline]
    pub fn get(&self, i: usize) -> Option<PacketRef> {
        self.q.get(i).copied()
    }
    /// The head packet.
    #[inline]
    pub fn front(&self) -> Option<PacketRef> {
        self.q.front().copied()
    }
    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Move every packet out, head first (used when SFQ rehashes).
    pub fn drain(&mut self) -> std::collections::vec_deque::Drain<'_, PacketRef> {
        self.bytes = 0;
        self.q.drain(..)
    }
}

/// The `len_pkts` and `len_bytes` of a [`QueueDisc`] whose packets all wait
/// in its [`Fifo`] field `$fifo` (written once here rather than in every
/// discipline).
macro_rules! fifo_lens {
    ($fifo:ident) => {
        fn len_pkts(&self) -> usize {
            self.$fifo.len()
        }

        fn len_bytes(&self) -> u64 {
            self.$fifo.bytes()
        }
    };
}
pub(crate) use fifo_lens;

/// FIFO with tail drop or drop-from-front.
pub struct DropTail {
    limit: Limit,
    drop_front: bool,
    fast_path: bool,
    step: StepMark,
    fifo: Fifo,
}

impl DropTail {
    /// A DropTail queue; `drop_front` selects ns-2's drop-from-front policy.
    pub fn new(limit: Limit, drop_front: bool) -> Self {
        DropTail {
            limit,
            drop_front,
            fast_path: true,
            step: StepMark::default(),
            fifo: Fifo::default(),
        }
    }

    /// Mark ECN-capable arrivals above a threshold (DCTCP's switch).
    pub fn with_step_mark(mut self, step: StepMark) -> Self {
        self.step = step;
        self
    }

    /// Allow or forbid the kernel's FIFO fast path (results are identical;
    /// forbidding it exists to test exactly that).
    pub fn with_fast_path(mut self, allowed: bool) -> Self {
        self.fast_path = allowed;
        self
    }
}

impl QueueDisc for DropTail {
    fn kind(&self) -> &'static str {
        if self.drop_front {
            "dropfront"
        } else {
            "droptail"
        }
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.drop_front {
            if !self.limit.fits(self.fifo.len(), self.fifo.bytes(), size) {
                return Verdict::Dropped(DropReason::Overflow);
            }
        } else {
            while !self.limit.fits(self.fifo.len(), self.fifo.bytes(), size) {
                match self.fifo.pop_front(ctx) {
                    Some(head) => ctx.drop_queued(head, DropReason::Overflow),
                    None => return Verdict::Dropped(DropReason::Overflow),
                }
            }
        }
        self.step.apply(pkt, self.fifo.len(), self.fifo.bytes(), ctx);
        self.fifo.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.fifo.pop_front(ctx)
    }

    fn as_tail_drop_fifo(&self) -> Option<Limit> {
        // The fast path never looks at a packet, so it cannot mark one.
        (!self.drop_front && self.fast_path && !self.step.is_set()).then_some(self.limit)
    }

    fifo_lens!(fifo);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::stream;
    use crate::time::SimTime;

    fn pkt(arena: &mut PacketArena, size: u32) -> PacketRef {
        arena.alloc(Packet {
            size,
            ..Packet::default()
        })
    }

    #[test]
    fn tail_drop_by_packets_and_bytes() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "q");
        let mut dropped = Vec::new();
        let mut q = DropTail::new(
            Limit {
                packets: Some(2),
                bytes: None,
            },
            false,
        );
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        let a = pkt(ctx.arena, 100);
        let b = pkt(ctx.arena, 100);
        let c = pkt(ctx.arena, 100);
        assert_eq!(q.enqueue(a, &mut ctx), Verdict::Enqueued);
        assert_eq!(q.enqueue(b, &mut ctx), Verdict::Enqueued);
        assert_eq!(q.enqueue(c, &mut ctx), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.dequeue(&mut ctx), Some(a));
        assert_eq!(q.len_bytes(), 100);

        let mut qb = DropTail::new(
            Limit {
                packets: None,
                bytes: Some(250),
            },
            false,
        );
        assert_eq!(qb.enqueue(a, &mut ctx), Verdict::Enqueued);
        assert_eq!(qb.enqueue(b, &mut ctx), Verdict::Enqueued);
        assert_eq!(qb.enqueue(c, &mut ctx), Verdict::Dropped(DropReason::Overflow));
    }

    #[test]
    fn drop_front_pushes_out_head() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "q");
        let mut dropped = Vec::new();
        let mut q = DropTail::new(
            Limit {
                packets: Some(2),
                bytes: None,
            },
            true,
        );
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        let a = pkt(ctx.arena, 100);
        let b = pkt(ctx.arena, 100);
        let c = pkt(ctx.arena, 100);
        q.enqueue(a, &mut ctx);
        q.enqueue(b, &mut ctx);
        assert_eq!(q.enqueue(c, &mut ctx), Verdict::Enqueued);
        assert_eq!(dropped, vec![(a, DropReason::Overflow)]);
    }
}
