//! The buffer side shared by the single-FIFO RED queues (`red` and its
//! variants, `wred`, `rio`): what Floyd and Jacobson's Figure 2 does with the
//! test's outcome for an arriving packet, and the idle-time bookkeeping at
//! departures. The test itself and the average are in [`super::red_core`].
//!
//! An arrival in the forced region is dropped; one chosen in the early region
//! is ECN-marked when `ecn` is on and the packet is ECN-capable, and dropped
//! otherwise; a packet that passes but does not fit the buffer is dropped as
//! an overflow, which restarts the test's count like a forced drop (ns-2's
//! `red.cc`).

use super::droptail::{Fifo, Limit};
use super::red_core::{Curve, EarlyOpts, Ewma, Outcome, RedRules, RedTest};
use super::{DropReason, QueueCtx, Verdict};
use crate::packet::PacketRef;
use crate::rng::uniform01;

/// A RED queue's FIFO, its limit and the options of its early test.
pub struct RedBuffer {
    /// The buffer's limit.
    pub limit: Limit,
    /// The packets waiting.
    pub fifo: Fifo,
    /// Options of the early test (byte mode, `wait`).
    pub opts: EarlyOpts,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
}

impl RedBuffer {
    /// An empty buffer; `wait`, `byte_mode`, `mean_pkt_size` and `rules`
    /// are the early test's options (see [`EarlyOpts`]).
    pub fn new(limit: Limit, wait: bool, byte_mode: bool, mean_pkt_size: u32, ecn: bool, rules: RedRules) -> Self {
        RedBuffer {
            limit,
            fifo: Fifo::default(),
            opts: EarlyOpts {
                wait,
                byte_mode,
                mean_pkt_size,
                rules,
            },
            ecn,
        }
    }

    /// What the average follows: the packets waiting, or their bytes in byte mode.
    pub fn qlen(&self) -> f64 {
        if self.opts.byte_mode {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// The RED test of an arrival of `size` bytes against `curve` at average
    /// `avg` (one uniform draw from `ctx.rng`, only in the early region).
    pub fn decide(&self, test: &mut RedTest, curve: &Curve, avg: f64, size: u32, ctx: &mut QueueCtx) -> Outcome {
        let rng = &mut *ctx.rng;
        test.decide(curve, avg, self.qlen(), size, &self.opts, || uniform01(rng))
    }

    /// Act on `outcome` for the arrival `pkt` of `size` bytes; a queued
    /// packet tells `avg` the queue is no longer empty.
    pub fn admit(
        &mut self,
        outcome: Outcome,
        test: &mut RedTest,
        avg: &mut Ewma,
        pkt: PacketRef,
        size: u32,
        ctx: &mut QueueCtx,
    ) -> Verdict {
        match outcome {
            Outcome::Forced => return Verdict::Dropped(DropReason::Forced),
            Outcome::Early => {
                if !(self.ecn && ctx.mark(pkt)) {
                    return Verdict::Dropped(DropReason::Early);
                }
            }
            Outcome::Pass => {}
        }
        if !self.limit.fits(self.fifo.len(), self.fifo.bytes(), size) {
            test.on_forced();
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(pkt, size);
        avg.on_accept();
        Verdict::Enqueued
    }

    /// The head packet; when it leaves the buffer empty, `avg`'s idle time
    /// starts at the end of its transmission.
    pub fn dequeue(&mut self, avg: &mut Ewma, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.fifo.pop_front(ctx)?;
        if self.fifo.is_empty() {
            avg.on_empty(ctx.now, ctx.arena.get(p).size, ctx.link_rate_bps);
        }
        Some(p)
    }
}
