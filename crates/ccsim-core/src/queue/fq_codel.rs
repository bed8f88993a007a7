//! FQ-CoDel, the Flow Queue CoDel packet scheduler and AQM (Hoeiland-
//! Joergensen, McKenney, Taht, Gettys, Dumazet, RFC 8290).
//!
//! Arriving packets are hashed into one of `flows` queues (section 4.1);
//! a queue that was not on either list joins the tail of the *new* list
//! with a deficit of one `quantum`. Dequeue (section 4.2) serves the head of
//! the new list, else the old list, with deficit round robin: a queue whose
//! deficit is spent gets another quantum and moves to the tail of the old
//! list; an emptied new queue moves to the old list (so it cannot re-enter
//! the new list at once and starve the others), an emptied old queue leaves.
//! Each queue runs its own CoDel ([`super::codel::CodelVars`]) with shared
//! parameters. When the buffer is full (section 4.1) packets are dropped from the
//! head of the queue with the largest byte backlog; as in Linux and ns-3 up
//! to `drop_batch` packets are dropped at once, stopping when half of that
//! queue's bytes are gone.
//!
//! Readings: the hash salt is drawn from the queue's random stream on the
//! first arrival (Linux draws `perturbation` at init), so hashing is
//! deterministic per seed. CoDel's "bytes left" test (`MAXPACKET`) uses the
//! flow's own backlog, as ns-3's per-flow CoDel child queue does (Linux
//! passes the whole qdisc's backlog).

use super::codel::{CodelConfig, CodelParams, CodelVars};
use super::droptail::Fifo;
use super::droptail::Limit;
use super::flowq::{over_limit, FlowQueues};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::units::{Bytes, Time};
use rand::Rng;
use serde::Deserialize;
use std::collections::VecDeque;

/// Scenario parameters of `fq_codel`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// CoDel target (RFC 8290 / RFC 8289: 5 ms).
    pub target: Time,
    /// CoDel interval (100 ms).
    pub interval: Time,
    /// Number of flow queues (RFC 8290 and Linux: 1024).
    pub flows: u32,
    /// DRR quantum in bytes (RFC 8290 and Linux: 1514, one
    /// Ethernet MTU with its header).
    pub quantum: Bytes,
    /// Most packets dropped from the fattest flow at one overflow (Linux and
    /// ns-3 `DropBatchSize`: 64).
    pub drop_batch: u32,
    /// Mark ECN-capable packets instead of dropping (Linux default on; ccsim
    /// defaults to off so that drop-based comparisons are like for like).
    pub ecn: bool,
    /// The flow queue of each flow, by flow id (the scenario's flows in
    /// order, a group's flows one after another): a packet of flow i joins
    /// queue `flow_queues[i]`, and flows past the list are hashed. For a
    /// mapping known from elsewhere, as a packet filter classifies flows
    /// (ns-3's `QueueDisc::Classify`, Linux `tc filter`): ns-3's
    /// `FqCoDelQueueDisc::DoEnqueue` hashes the 5-tuple with `Perturbation`
    /// 0 (`Ipv4QueueDiscItem::Hash`), so the same flows share a queue in
    /// every run, and the validation twins pass that mapping. Default: none
    /// (every flow hashed).
    pub flow_queues: Vec<u32>,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        let c = CodelConfig::default();
        FqCodelConfig {
            target: c.target,
            interval: c.interval,
            flows: 1024,
            quantum: Bytes(1514),
            drop_batch: 64,
            ecn: false,
            flow_queues: Vec::new(),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

struct FlowQueue {
    q: Fifo,
    codel: CodelVars,
    deficit: i64,
    list: List,
}

/// FQ-CoDel.
pub struct FqCodel {
    limit: Limit,
    codel: CodelParams,
    quantum: i64,
    drop_batch: u32,
    flows: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    salt: Option<u64>,
    flow_queues: FlowQueues,
    pkts: usize,
    bytes: u64,
    maxpacket: u32,
}

impl FqCodel {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: FqCodelConfig = params::parse(params)?;
        let codel = CodelConfig {
            target: cfg.target,
            interval: cfg.interval,
            ecn: cfg.ecn,
        }
        .params()?;
        if cfg.flows == 0 {
            return Err(ParamError::at("flows", "must be at least 1"));
        }
        if cfg.quantum.0 == 0 {
            return Err(ParamError::at("quantum", "must be at least 1 byte"));
        }
        if cfg.drop_batch == 0 {
            return Err(ParamError::at("drop_batch", "must be at least 1"));
        }
        let flow_queues = FlowQueues::new(cfg.flow_queues, cfg.flows as usize)?;
        let mut q = FqCodel::new(limit, codel, cfg.flows as usize, cfg.quantum.0, cfg.drop_batch);
        q.flow_queues = flow_queues;
        Ok(q)
    }

    /// The flow queue of `flow`: from `flow_queues`, else hashed.
    fn queue_of(&self, flow: u32, salt: u64) -> usize {
        self.flow_queues.queue_of(flow, salt, self.flows.len())
    }

    /// An FQ-CoDel queue.
    pub fn new(limit: Limit, codel: CodelParams, flows: usize, quantum: u64, drop_batch: u32) -> Self {
        FqCodel {
            limit,
            codel,
            quantum: quantum as i64,
            drop_batch,
            flows: (0..flows)
                .map(|_| FlowQueue {
                    q: Fifo::default(),
                    codel: CodelVars::default(),
                    deficit: 0,
                    list: List::None,
                })
                .collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            salt: None,
            flow_queues: FlowQueues::default(),
            pkts: 0,
            bytes: 0,
            maxpacket: 0,
        }
    }

    /// Drop a batch from the head of the queue with the largest backlog
    /// (RFC 8290 section 4.1, batch as Linux `fq_codel_drop`); returns the
    /// index of that queue.
    fn drop_from_fattest(&mut self, arrival: PacketRef, ctx: &mut QueueCtx) -> (usize, bool) {
        let mut fattest = 0;
        let mut max = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.q.bytes() > max {
                max = f.q.bytes();
                fattest = i;
            }
        }
        let threshold = max / 2;
        let mut dropped_bytes = 0;
        let mut n = 0;
        let mut arrival_dropped = false;
        let f = &mut self.flows[fattest];
        while let Some(p) = f.q.pop_front(ctx) {
            let size = ctx.arena.get(p).size as u64;
            dropped_bytes += size;
            self.pkts -= 1;
            self.bytes -= size;
            if p == arrival {
                arrival_dropped = true;
            }
            ctx.drop_queued(p, DropReason::Overflow);
            n += 1;
            if n >= self.drop_batch || dropped_bytes >= threshold {
                break;
            }
        }
        (fattest, arrival_dropped)
    }
}

impl QueueDisc for FqCodel {
    fn kind(&self) -> &'static str {
        "fq_codel"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let salt = *self.salt.get_or_insert_with(|| ctx.rng.random());
        let (flow, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow.0, p.size)
        };
        let i = self.queue_of(flow, salt);
        let f = &mut self.flows[i];
        f.q.push(pkt, size);
        if f.list == List::None {
            f.list = List::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        self.pkts += 1;
        self.bytes += size as u64;
        self.maxpacket = self.maxpacket.max(size);
        if over_limit(&self.limit, self.pkts, self.bytes) {
            // The arrival is accepted and the fattest flow pays; if the batch
            // reached the arrival itself it is reported as a queued drop.
            self.drop_from_fattest(pkt, ctx);
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let f = &mut self.flows[i];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                f.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i);
                continue;
            }
            let (before_p, before_b) = (f.q.len(), f.q.bytes());
            let out = f.codel.dequeue(&self.codel, self.maxpacket, &mut f.q, ctx);
            self.pkts -= before_p - f.q.len();
            self.bytes -= before_b - f.q.bytes();
            match out {
                Some(p) => {
                    f.deficit -= ctx.arena.get(p).size as i64;
                    return Some(p);
                }
                None => {
                    // Empty: a new queue moves to the old list (if that list is
                    // not empty), an old one becomes inactive.
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            f.list = List::Old;
                            self.old_flows.push_back(i);
                        } else {
                            f.list = List::None;
                        }
                    } else {
                        self.old_flows.pop_front();
                        f.list = List::None;
                    }
                }
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["new_flows", "old_flows"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.new_flows.len() as f64);
        out.push(self.old_flows.len() as f64);
    }
}

/// Deficit of the flow queue that `flow` hashes to (for tests).
#[cfg(test)]
impl FqCodel {
    fn deficit_of(&self, flow: u32) -> i64 {
        let i = self.queue_of(flow, self.salt.unwrap());
        self.flows[i].deficit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, Packet, PacketArena};
    use crate::rng::stream;
    use crate::time::SimTime;

    fn fq(limit: u64, quantum: u64) -> FqCodel {
        FqCodel::new(
            Limit {
                packets: Some(limit),
                bytes: None,
            },
            CodelConfig::default().params().unwrap(),
            1024,
            quantum,
            64,
        )
    }

    fn pkt(arena: &mut PacketArena, flow: u32, size: u32) -> PacketRef {
        arena.alloc(Packet {
            flow: FlowId(flow),
            size,
            ..Packet::default()
        })
    }

    #[test]
    fn new_flow_served_before_old_flows_and_gets_quantum() {
        let mut arena = PacketArena::new();
        let mut rng = stream(3, "fq");
        let mut dropped = Vec::new();
        let mut q = fq(1000, 1514);
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        // Flow 1 builds a backlog and becomes an old flow after its quantum.
        for _ in 0..10 {
            let p = pkt(ctx.arena, 1, 1000);
            q.enqueue(p, &mut ctx);
        }
        assert_eq!(q.deficit_of(1), 1514);
        let a = q.dequeue(&mut ctx).unwrap();
        assert_eq!(ctx.arena.get(a).flow, FlowId(1));
        let b = q.dequeue(&mut ctx).unwrap();
        assert_eq!(ctx.arena.get(b).flow, FlowId(1));
        // Deficit now 1514 - 2000 < 0: next dequeue would rotate flow 1.
        assert_eq!(q.deficit_of(1), -486);
        // A new flow arrives: it is served next, ahead of the old flow.
        let n = pkt(ctx.arena, 2, 100);
        q.enqueue(n, &mut ctx);
        let c = q.dequeue(&mut ctx).unwrap();
        assert_eq!(ctx.arena.get(c).flow, FlowId(2));
        assert_eq!(q.old_flows.len(), 1);
    }

    #[test]
    fn flow_queues_put_the_listed_flows_in_one_queue() {
        // Flows 0 and 1 listed into queue 7 share it (one deficit, one FIFO),
        // flow 2 past the list is hashed.
        let params: Params = serde_json::from_str(r#"{"flow_queues": [7, 7]}"#).unwrap();
        let limit = Limit {
            packets: Some(100),
            bytes: None,
        };
        let mut q = FqCodel::from_params(limit, &params).unwrap();
        let mut arena = PacketArena::new();
        let mut rng = stream(3, "fq");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        for flow in [0, 1, 2] {
            let p = pkt(ctx.arena, flow, 1000);
            q.enqueue(p, &mut ctx);
        }
        assert_eq!(q.flows[7].q.len(), 2);
        assert_eq!(q.new_flows.len(), 2, "queue 7 and flow 2's hashed queue");
        let bad: Params = serde_json::from_str(r#"{"flow_queues": [7, 1024]}"#).unwrap();
        let err = FqCodel::from_params(limit, &bad).err().unwrap();
        assert_eq!(err.path, "flow_queues");
    }

    #[test]
    fn overflow_drops_from_fattest_flow_head() {
        let mut arena = PacketArena::new();
        let mut rng = stream(3, "fq");
        let mut dropped = Vec::new();
        let mut q = fq(10, 1514);
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        let mut fat = Vec::new();
        for _ in 0..8 {
            let p = pkt(ctx.arena, 1, 1000);
            fat.push(p);
            q.enqueue(p, &mut ctx);
        }
        for _ in 0..2 {
            let p = pkt(ctx.arena, 2, 1000);
            q.enqueue(p, &mut ctx);
        }
        assert_eq!(q.len_pkts(), 10);
        let p = pkt(ctx.arena, 2, 1000);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        // Fattest = flow 1 with 8000 bytes: its head packets are dropped until
        // half of its bytes (4000) are gone: 4 packets.
        let got: Vec<PacketRef> = dropped.iter().map(|d| d.0).collect();
        assert_eq!(got, fat[..4].to_vec());
        assert_eq!(q.len_pkts(), 7);
        assert_eq!(q.len_bytes(), 7000);
    }
}
