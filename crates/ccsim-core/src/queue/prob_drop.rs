//! The arrival test of the AQMs whose controller keeps a drop probability
//! between its periodic updates (PI and REM): a packet that does not fit the
//! buffer is an overflow; otherwise it is dropped (or ECN-marked) with the
//! controller's probability, scaled by size / `mean_pkt_size` in byte mode
//! (as both authors' ns-2 queues do; see pi.rs and rem.rs).

use super::droptail::{Fifo, Limit};
use super::{DropReason, QueueCtx, Verdict};
use crate::packet::PacketRef;
use crate::rng::uniform01;

/// How an arrival is tested against the controller's probability.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ProbDrop {
    /// Byte mode: the probability is scaled by size / `mean_pkt_size`.
    pub bytes: bool,
    /// Mean packet size, bytes.
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl ProbDrop {
    /// Queue `pkt` in `fifo` unless it overflows `limit` or is dropped with
    /// probability `prob` (one uniform draw, only when `prob > 0`).
    pub fn enqueue(&self, prob: f64, limit: &Limit, fifo: &mut Fifo, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !limit.fits(fifo.len(), fifo.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        let mut prob = prob;
        if self.bytes {
            prob = (prob * size as f64 / self.mean_pkt_size as f64).min(1.0);
        }
        if prob > 0.0 && uniform01(ctx.rng) < prob && !(self.ecn && ctx.mark(pkt)) {
            return Verdict::Dropped(DropReason::Early);
        }
        fifo.push(pkt, size);
        Verdict::Enqueued
    }
}
