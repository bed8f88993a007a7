//! SFQ, Stochastic Fairness Queueing (McKenney, "Stochastic Fairness
//! Queueing", INFOCOM 1990).
//!
//! Flows are hashed into `buckets` FIFO queues that are served packet by
//! packet in round robin (McKenney section 3; ns-2's `Queue/SFQ` serves its
//! active buckets the same way). The hash function is perturbed every
//! `perturb` so that flows that collide do not stay together (McKenney
//! section 3.2). When the shared buffer is full the packet at the tail of
//! the longest bucket is dropped (McKenney's buffer stealing; Linux
//! `sfq_drop`), which may be the arriving packet itself.
//!
//! Readings: the salt is drawn from the queue's random stream at the first
//! arrival and at each perturbation; on a perturbation the queued packets are
//! re-bucketed in order (as Linux `sfq_rehash`), so a flow's packets are never
//! reordered. A bucket that becomes active joins the tail of the round.
//! ns-2's SFQ (`queue/sfq.cc`) differs; `variant = "ns2"` (the default
//! under `compat = "ns2"`) follows it: buckets are chosen by ns-2's hash of
//! the source and destination node addresses (`saddr + daddr`, no
//! perturbation, so a flow's data and the ACKs of the reverse flow between
//! the same nodes share a bucket), and an arrival is refused when its bucket
//! holds at least half the free space, or more than `limit / buckets` once
//! fewer than `buckets` places are free, or no place is free; nothing queued
//! is ever dropped. Its buffer is `maxqueue_` (`maxqueue`, 40 by default):
//! ns-2's `queue-limit` sets the generic `limit_`, which its SFQ ignores, so
//! under this variant the queue's `limit` is ignored too (as a script that
//! sets `queue-limit 2` on an SFQ link gets 40 places in ns-2). ccsim's
//! default follows McKenney.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::flowq::{bucket, over_limit};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::compat::Profile;
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::time::SimTime;
use crate::units::Time;
use rand::Rng;
use serde::Deserialize;
use std::collections::VecDeque;

/// Scenario parameters of `sfq`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct SfqConfig {
    /// Number of hash buckets (ns-2 `Queue/SFQ buckets_`: 16).
    pub buckets: u32,
    /// Hash perturbation period; "0s" disables it (Linux `tc-sfq` recommends
    /// 10 s; ns-2 has no perturbation).
    pub perturb: Option<Time>,
    /// "mckenney" (buffer stealing from the longest bucket, hashed flows) or
    /// "ns2" (ns-2's hash and admission rule); default from the profile.
    pub variant: Option<SfqVariant>,
    /// ns-2's `maxqueue_` (variant "ns2" only; default 40).
    pub maxqueue: Option<u32>,
}

/// Which SFQ: the paper's or ns-2's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SfqVariant {
    /// McKenney 1990 with Linux's buffer stealing.
    Mckenney,
    /// ns-2.35's `Queue/SFQ`.
    Ns2,
}

impl Default for SfqConfig {
    fn default() -> Self {
        SfqConfig {
            buckets: 16,
            perturb: None,
            variant: None,
            maxqueue: None,
        }
    }
}

/// ns-2's `SFQ::hash` of a packet's source and destination addresses.
fn ns2_hash(src: u32, dst: u32, n: usize) -> usize {
    let k = (src + dst) as i32;
    let h = (k.wrapping_add(k >> 8).wrapping_add(!(k >> 4))) % ((2 << 19) - 1);
    (h.rem_euclid(n as i32)) as usize
}

/// Stochastic Fairness Queueing.
pub struct Sfq {
    limit: Limit,
    perturb: SimTime,
    ns2: bool,
    buckets: Vec<Fifo>,
    /// Round-robin order of the non-empty buckets.
    ring: VecDeque<usize>,
    salt: Option<u64>,
    pkts: usize,
    bytes: u64,
}

impl Sfq {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params, compat: Profile) -> Result<Self, ParamError> {
        let cfg: SfqConfig = params::parse(params)?;
        if cfg.buckets == 0 {
            return Err(ParamError::at("buckets", "must be at least 1"));
        }
        let variant = cfg.variant.unwrap_or(if compat == Profile::Ns2 {
            SfqVariant::Ns2
        } else {
            SfqVariant::Mckenney
        });
        let ns2 = variant == SfqVariant::Ns2;
        if !ns2 && cfg.maxqueue.is_some() {
            return Err(ParamError::at(
                "maxqueue",
                "\"maxqueue\" is ns-2's SFQ buffer: set variant = \"ns2\" (or use limit)",
            ));
        }
        let default_perturb = if ns2 { SimTime::ZERO } else { SimTime::from_secs(10) };
        let perturb = cfg.perturb.map_or(default_perturb, |t| t.0);
        let limit = if ns2 {
            Limit {
                packets: Some(cfg.maxqueue.unwrap_or(40) as u64),
                bytes: None,
            }
        } else {
            limit
        };
        let mut q = Sfq::new(limit, cfg.buckets as usize, perturb);
        q.ns2 = ns2;
        Ok(q)
    }

    /// An SFQ queue.
    pub fn new(limit: Limit, buckets: usize, perturb: SimTime) -> Self {
        Sfq {
            limit,
            perturb,
            ns2: false,
            buckets: (0..buckets).map(|_| Fifo::default()).collect(),
            ring: VecDeque::new(),
            salt: None,
            pkts: 0,
            bytes: 0,
        }
    }

    /// The bucket of a flow under the current salt.
    pub fn bucket_of(&self, flow: u32) -> Option<usize> {
        self.salt.map(|s| bucket(flow, s, self.buckets.len()))
    }

    /// ns-2's `SFQ::enque`: the bucket by address hash, the arrival refused
    /// when its bucket holds at least half the free places (`used >= left >>
    /// 1`), or more than the fair share once fewer places than buckets are
    /// free, or none is free.
    fn enqueue_ns2(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (src, dst, size) = {
            let p = ctx.arena.get(pkt);
            (p.src.0, p.dst.0, p.size)
        };
        let n = self.buckets.len();
        let b = ns2_hash(src, dst, n);
        let max = self.limit.packets.unwrap_or(u64::MAX).min(i64::MAX as u64) as i64;
        let used = self.buckets[b].len() as i64;
        let left = max - self.pkts as i64;
        let fairshare = max / n as i64;
        if used >= (left >> 1) || (left < n as i64 && used > fairshare) || left <= 0 {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.buckets[b].is_empty() {
            self.ring.push_back(b);
        }
        self.buckets[b].push(pkt, size);
        self.pkts += 1;
        self.bytes += size as u64;
        Verdict::Enqueued
    }

    /// Re-hash with a new salt, moving queued packets to their new buckets in order.
    fn rehash(&mut self, salt: u64, ctx: &QueueCtx) {
        self.salt = Some(salt);
        let n = self.buckets.len();
        let mut old = std::mem::replace(&mut self.buckets, (0..n).map(|_| Fifo::default()).collect());
        let order: Vec<usize> = self.ring.drain(..).collect();
        for b in order {
            for p in old[b].drain() {
                let pk = ctx.arena.get(p);
                let nb = bucket(pk.flow.0, salt, n);
                if self.buckets[nb].is_empty() {
                    self.ring.push_back(nb);
                }
                self.buckets[nb].push(p, pk.size);
            }
        }
    }
}

impl QueueDisc for Sfq {
    fn kind(&self) -> &'static str {
        "sfq"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        if self.ns2 {
            return self.enqueue_ns2(pkt, ctx);
        }
        let salt = *self.salt.get_or_insert_with(|| ctx.rng.random());
        let (flow, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow.0, p.size)
        };
        let b = bucket(flow, salt, self.buckets.len());
        if self.buckets[b].is_empty() {
            self.ring.push_back(b);
        }
        self.buckets[b].push(pkt, size);
        self.pkts += 1;
        self.bytes += size as u64;
        while over_limit(&self.limit, self.pkts, self.bytes) {
            // Longest bucket in packets, then bytes; ties go to the arrival's
            // own bucket, then to the lowest index (deterministic).
            let mut longest = b;
            for (i, q) in self.buckets.iter().enumerate() {
                let l = &self.buckets[longest];
                if (q.len(), q.bytes()) > (l.len(), l.bytes()) {
                    longest = i;
                }
            }
            let Some(victim) = self.buckets[longest].pop_back(ctx) else {
                break;
            };
            let vsize = ctx.arena.get(victim).size as u64;
            self.pkts -= 1;
            self.bytes -= vsize;
            if self.buckets[longest].is_empty() {
                self.ring.retain(|&x| x != longest);
            }
            if victim == pkt {
                return Verdict::Dropped(DropReason::Overflow);
            }
            ctx.drop_queued(victim, DropReason::Overflow);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let b = self.ring.pop_front()?;
        let p = self.buckets[b].pop_front(ctx)?;
        self.pkts -= 1;
        self.bytes -= ctx.arena.get(p).size as u64;
        if !self.buckets[b].is_empty() {
            self.ring.push_back(b);
        }
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["active_buckets"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.ring.len() as f64);
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        (self.perturb > SimTime::ZERO).then_some((self.perturb, 0))
    }

    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        let salt = ctx.rng.random();
        self.rehash(salt, ctx);
        Some(self.perturb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testutil::{packets, pkt, Env};

    /// Two flows in distinct buckets (flow ids chosen so they do not collide
    /// under this seed, which the test asserts) are served alternately, and
    /// overflow drops from the tail of the longest bucket.
    #[test]
    fn round_robin_and_longest_bucket_drop() {
        let mut env = Env::new(11, "sfq");
        let mut q = Sfq::new(packets(6), 16, SimTime::ZERO);
        let mut ctx = env.ctx(1_000_000);
        let mut a = Vec::new();
        for _ in 0..5 {
            let p = pkt(ctx.arena, 1, 1000);
            a.push(p);
            assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        }
        let b_flow = (2..100).find(|&f| q.bucket_of(f) != q.bucket_of(1)).unwrap();
        let b1 = pkt(ctx.arena, b_flow, 1000);
        assert_eq!(q.enqueue(b1, &mut ctx), Verdict::Enqueued);
        // Full (6). Another packet of flow b: flow 1's bucket (5) is the
        // longest, so its tail packet is pushed out.
        let b2 = pkt(ctx.arena, b_flow, 1000);
        assert_eq!(q.enqueue(b2, &mut ctx), Verdict::Enqueued);
        assert_eq!(q.len_pkts(), 6);
        // An arrival of flow 1 now finds its own bucket longest: it is env.dropped.
        let a5 = pkt(ctx.arena, 1, 1000);
        assert_eq!(q.enqueue(a5, &mut ctx), Verdict::Dropped(DropReason::Overflow));
        // Service alternates between the two buckets.
        let order: Vec<u32> = (0..6)
            .map(|_| {
                let p = q.dequeue(&mut ctx).unwrap();
                ctx.arena.get(p).flow.0
            })
            .collect();
        assert_eq!(order, vec![1, b_flow, 1, b_flow, 1, 1]);
        assert_eq!(q.len_pkts(), 0);
        // The push-out victim was the tail of flow 1's bucket.
        assert_eq!(env.dropped, vec![(a[4], DropReason::Overflow)]);
    }

    #[test]
    fn perturbation_rehashes_without_reordering() {
        let mut env = Env::new(11, "sfq");
        let mut q = Sfq::new(packets(1000), 4, SimTime::from_secs(1));
        let mut ctx = env.ctx(1_000_000);
        let mut sent: Vec<Vec<PacketRef>> = vec![Vec::new(); 8];
        for k in 0..80 {
            let f = k % 8;
            let p = pkt(ctx.arena, f as u32, 1000);
            sent[f].push(p);
            q.enqueue(p, &mut ctx);
        }
        let before: Vec<Option<usize>> = (0..8).map(|f| q.bucket_of(f)).collect();
        q.on_timer(0, &mut ctx);
        let after: Vec<Option<usize>> = (0..8).map(|f| q.bucket_of(f)).collect();
        assert_ne!(before, after, "a new salt moves some flows");
        let mut got: Vec<Vec<PacketRef>> = vec![Vec::new(); 8];
        while let Some(p) = q.dequeue(&mut ctx) {
            got[ctx.arena.get(p).flow.0 as usize].push(p);
        }
        assert_eq!(got, sent);
    }
}
