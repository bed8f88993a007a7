//! RR, plain packet round robin over per-flow or per-class queues, as the
//! ramachendra study (Ramachendra, Banu, Ali Ahammed, IJARCET 3(7) 2014,
//! section 4) describes its QualNet scheduler: "serving the first packet in
//! each priority queue in sequence according to their precedence till all
//! queues are served and then it restarts over".
//!
//! A round visits the non-empty queues in increasing key order (flow id or
//! precedence value) and takes one packet from each. Classes hold FIFOs or a
//! nested discipline per class (see [`super::classq`]); with FIFOs the shared
//! buffer drops the head packet of the queue holding the most packets when
//! full (the study does not say; ccsim uses the same longest-queue rule as
//! its DRR), with nested disciplines an arrival that does not fit the shared
//! buffer is dropped and each class's discipline manages its own buffer.

use super::classq::{ClassSpec, Classes, Classify};
use super::droptail::Limit;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::compat::Profile;
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::time::SimTime;
use serde::Deserialize;

/// Scenario parameters of `rr`.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RrConfig {
    /// `flow` (default: one queue per flow) or `class` (per `Packet::class`,
    /// the study's priority queues).
    pub classify: Classify,
    /// Optional nested discipline per class (`{ kind = "modred", ... }`).
    pub class_queue: Option<Params>,
}

/// Set or clear bit `k` of `bits`, growing it as needed.
fn set_busy(bits: &mut Vec<u64>, k: usize, on: bool) {
    let w = k / 64;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    if on {
        bits[w] |= 1 << (k % 64);
    } else {
        bits[w] &= !(1 << (k % 64));
    }
}

/// Packet round robin.
pub struct RoundRobin {
    limit: Limit,
    classes: Classes,
    /// One bit per class key: non-empty.
    busy: Vec<u64>,
    /// The key served last (the round continues after it).
    cursor: usize,
}

impl RoundRobin {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params, link_rate_bps: u64, compat: Profile) -> Result<Self, ParamError> {
        let cfg: RrConfig = params::parse(params)?;
        let spec = match &cfg.class_queue {
            Some(t) => Some(ClassSpec::parse(t, limit, link_rate_bps, compat)?),
            None => None,
        };
        Ok(RoundRobin::new(limit, cfg.classify, spec))
    }

    /// A round-robin scheduler.
    pub fn new(limit: Limit, classify: Classify, spec: Option<ClassSpec>) -> Self {
        RoundRobin {
            limit,
            classes: Classes::new(classify, spec),
            busy: Vec::new(),
            cursor: usize::MAX,
        }
    }

    /// First busy key strictly after `after` (wrapping), if any.
    fn next_busy(&self, after: usize) -> Option<usize> {
        let n = self.busy.len() * 64;
        if n == 0 {
            return None;
        }
        let start = if after == usize::MAX { 0 } else { (after + 1) % n };
        let find_from = |from: usize, to: usize| -> Option<usize> {
            let mut k = from;
            while k < to {
                let w = self.busy[k / 64] >> (k % 64);
                if w == 0 {
                    k = (k / 64 + 1) * 64;
                    continue;
                }
                let j = k + w.trailing_zeros() as usize;
                return (j < to).then_some(j);
            }
            None
        };
        find_from(start, n).or_else(|| find_from(0, start))
    }
}

impl QueueDisc for RoundRobin {
    fn kind(&self) -> &'static str {
        "rr"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let key = self.classes.key(ctx.arena.get(pkt));
        let size = ctx.arena.get(pkt).size;
        let nested = self.classes.nested();
        if nested && !self.limit.fits(self.classes.pkts(), self.classes.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        let v = self.classes.enqueue(key, pkt, ctx);
        // A nested discipline may also have pushed packets out.
        let busy = self.classes.len_of(key) > 0;
        set_busy(&mut self.busy, key, busy);
        let bits = &mut self.busy;
        let pushed_out = self.classes.push_out(&self.limit, false, pkt, ctx, |_, emptied| {
            set_busy(bits, emptied, false)
        });
        pushed_out.unwrap_or(v)
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let mut after = self.cursor;
        // At most one visit per busy class: each visit sends or clears a bit.
        while let Some(k) = self.next_busy(after) {
            let out = self.classes.dequeue(k, ctx);
            if self.classes.len_of(k) == 0 {
                set_busy(&mut self.busy, k, false);
            }
            if let Some(p) = out {
                self.cursor = k;
                return Some(p);
            }
            after = k;
        }
        None
    }

    fn len_pkts(&self) -> usize {
        self.classes.pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.classes.bytes()
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        self.classes.initial_timer()
    }

    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        let r = self.classes.on_timer(ctx);
        for k in 0..self.classes.n_keys() {
            let b = self.classes.len_of(k) > 0;
            if b || k / 64 < self.busy.len() {
                set_busy(&mut self.busy, k, b);
            }
        }
        r
    }

    fn wants_reverse(&self) -> bool {
        self.classes.wants_reverse()
    }

    fn on_reverse_arrival(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> bool {
        self.classes.on_reverse_arrival(pkt, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, Packet, PacketArena};
    use crate::rng::stream;

    #[test]
    fn one_packet_per_class_in_precedence_order() {
        let mut arena = PacketArena::new();
        let mut rng = stream(2, "rr");
        let mut dropped = Vec::new();
        let mut q = RoundRobin::new(
            Limit {
                packets: Some(100),
                bytes: None,
            },
            Classify::Class,
            None,
        );
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        // Class 2 gets 3 packets, class 0 gets 1, class 1 gets 2, arriving mixed.
        for (class, n) in [(2u8, 3), (0, 1), (1, 2)] {
            for _ in 0..n {
                let p = ctx.arena.alloc(Packet {
                    flow: FlowId(9),
                    class,
                    size: 100,
                    ..Packet::default()
                });
                q.enqueue(p, &mut ctx);
            }
        }
        let order: Vec<u8> = (0..6)
            .map(|_| {
                let p = q.dequeue(&mut ctx).unwrap();
                ctx.arena.get(p).class
            })
            .collect();
        assert_eq!(order, vec![0, 1, 2, 1, 2, 2]);
        assert!(q.dequeue(&mut ctx).is_none());
    }
}
