//! The AQMs whose controller keeps a drop probability between its periodic
//! updates (PI and REM): a FIFO ([`ProbQueue`]) whose controller
//! ([`Controller`]) sets the probability every period, and the arrival test
//! ([`ProbDrop`]): a packet that does not fit the buffer is an overflow;
//! otherwise it is dropped (or ECN-marked) with the controller's
//! probability, scaled by size / `mean_pkt_size` in byte mode (as both
//! authors' ns-2 queues do, `PIQueue::enque` and `REMQueue::enque`; see
//! pi.rs and rem.rs).

use super::droptail::{Fifo, Limit};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::rng::uniform01;
use crate::time::SimTime;

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

/// The controller of a [`ProbQueue`]: what differs between PI and REM.
pub trait Controller: Send {
    /// The discipline's name.
    const KIND: &'static str;
    /// Its probes, in order: [`Controller::probe_values`] pushes one value
    /// each.
    const PROBES: &'static [&'static str];
    /// The time between updates (the first is one period after the start).
    fn period(&self) -> SimTime;
    /// A packet of `size` bytes arrives, before it is tested (whether it is
    /// then queued or not).
    fn on_arrival(&mut self, size: u32) {
        let _ = size;
    }
    /// A period is over: the new probability, from the old one `prob` and
    /// the queue `fifo` (and the link's rate, `ctx.link_rate_bps`).
    fn update(&mut self, prob: f64, fifo: &Fifo, ctx: &QueueCtx) -> f64;
    /// The probes' values now (the probability is `prob`).
    fn probe_values(&self, prob: f64, out: &mut Vec<f64>);
}

/// A FIFO whose arrivals are dropped with a probability that its
/// controller updates every period.
pub struct ProbQueue<C> {
    /// The controller.
    pub ctl: C,
    test: ProbDrop,
    limit: Limit,
    fifo: Fifo,
    prob: f64,
}

impl<C: Controller> ProbQueue<C> {
    /// An empty queue with probability 0.
    pub fn with(ctl: C, test: ProbDrop, limit: Limit) -> Self {
        ProbQueue {
            ctl,
            test,
            limit,
            fifo: Fifo::default(),
            prob: 0.0,
        }
    }

    /// Current drop probability.
    pub fn prob(&self) -> f64 {
        self.prob
    }
}

impl<C: Controller> QueueDisc for ProbQueue<C> {
    fn kind(&self) -> &'static str {
        C::KIND
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        self.ctl.on_arrival(ctx.arena.get(pkt).size);
        self.test.enqueue(self.prob, &self.limit, &mut self.fifo, pkt, ctx)
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.fifo.pop_front(ctx)
    }

    super::droptail::fifo_lens!(fifo);

    fn probe_names(&self) -> &'static [&'static str] {
        C::PROBES
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        self.ctl.probe_values(self.prob, out);
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        Some((self.ctl.period(), 0))
    }

    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        self.prob = self.ctl.update(self.prob, &self.fifo, ctx);
        Some(self.ctl.period())
    }
}
