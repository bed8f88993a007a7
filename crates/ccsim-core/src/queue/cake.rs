//! CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht and
//! Morton, "Piece of CAKE: A Comprehensive Queue Management Solution for Home
//! Gateways", IEEE LANMAN 2018; Linux `net/sched/sch_cake.c`, whose functions
//! are named below): a shaper, flow and host isolation, and COBALT per flow.
//!
//! - **Shaper** (the paper's bandwidth shaping; `cake_advance_shaper`, the "global hard
//!   shaper" of `cake_dequeue`): with `bandwidth` set, each sent packet moves
//!   `time_next_packet` on by its serialization time at that rate, and
//!   nothing is released before it (deficit mode: no burst parameter; a late
//!   dequeue is followed by catch-up sends until the schedule is met). A
//!   `failsafe_next_packet` advancing at 1.5 times the cost lets a packet out
//!   if the schedule ever runs far ahead. A packet arriving at an empty queue
//!   resets a schedule left in the past to now (`cake_enqueue`). The cost of
//!   a packet is its size plus `overhead`, at least `mpu`, and with `atm`
//!   the ATM cell (48 bytes in 53) or PTM (one byte per 64) framing
//!   (`cake_calc_overhead`). While the shaper holds packets back the kernel
//!   is told when to come back ([`QueueDisc::next_release`], Linux's
//!   watchdog).
//! - **Flow isolation** (the paper's flow isolation and hashing; `cake_hash`): a packet's queue is
//!   chosen by `flow_mode` among 1024 queues with 8-way set-associative
//!   hashing: the hash's own queue if its tag matches, else another queue of
//!   the same 8-queue set tagged for it, else an empty queue of the set, else
//!   a collision in its own queue. `flows` hashes the flow, `srchost` /
//!   `dsthost` / `hosts` the source, destination or both hosts (one queue
//!   per host or host pair), `flowblind` puts everything in one queue.
//!   The dual and triple modes hash the flow and also tag the source and/or
//!   destination host (its own set-associative table); a flow's DRR quantum
//!   is then divided by the number of bulk flows of its host (the larger of
//!   the two counts in `triple-isolate`; `cake_get_flow_quantum`, with the
//!   random dither of Linux), so each host gets an equal share whatever its
//!   number of flows.
//! - **DRR++** (`cake_dequeue`): new (sparse) queues are served
//!   before old (bulk) ones; a queue that spends its quantum moves to the
//!   bulk list; an emptied queue whose COBALT state has not decayed to rest
//!   waits on a decaying list, visited once per dequeue, before it is freed.
//! - **COBALT per queue** (the paper's AQM): [`super::cobalt::CobaltVars`], with
//!   Linux's extra condition that a sojourn counts as over target only past
//!   four MTU serialization times; the last packet of a queue is never
//!   dropped (marked only).
//! - **Overflow** (`cake_drop`): while the bytes queued exceed the buffer
//!   limit, the head packet of the queue with the largest backlog is
//!   dropped and that queue's BLUE is told the buffer was full.
//!
//! Readings and omissions: a packet's flow is ccsim's flow id (Linux hashes
//! the 5-tuple), its hosts its source and destination nodes; hashes are
//! SplitMix64 with a salt drawn from the queue's stream at the first arrival.
//! The buffer counts packet bytes (Linux counts `skb->truesize`). Only the
//! `besteffort` tin is modelled (Linux defaults to `diffserv3`); the ACK
//! filter, `ingress` mode, `autorate-ingress`, NAT lookup, `wash`, GSO
//! splitting and the per-tin delay statistics are not. The largest backlog
//! is found by a scan (Linux keeps a heap; ties go to the lowest queue index
//! here). Linux also rearms its watchdog while decaying queues remain after
//! the queue empties; that call finds the queue empty and returns at once,
//! so it changes no state and is not modelled.

//!
//! **ns-3's FqCobalt** (`variant = "ns3"`, the default under `compat =
//! "ns3"`): ns-3.44 has no CAKE; its `FqCobaltQueueDisc`
//! (`fq-cobalt-queue-disc.cc`) is FQ-CoDel's scheduler with a
//! `CobaltQueueDisc` per flow queue, the part of CAKE without shaper,
//! tins and host isolation. This variant is that queue disc, so a CAKE
//! configured as flow-isolating COBALT (`flow_mode = "flows"`, no
//! `bandwidth`) is its twin; the shaper, if set, still runs in front.
//! Where it differs from Linux's CAKE (defaults read from the wheel's
//! attributes):
//! - the flow queue is the 5-tuple's hash modulo `Flows` (1024), without
//!   set association (`EnableSetAssociativeHash` false), or `flow_queues`;
//!   `flow_mode` can only be `flows` (the default);
//! - FQ-CoDel's rotations (`DoDequeue`): an arrival at an inactive queue
//!   puts it at the tail of the new list with a deficit of one quantum (the
//!   device MTU, `mtu`: 1500 for ns-3's `PointToPointNetDevice`), a queue
//!   whose deficit is spent gets another quantum and goes to the tail of
//!   the old list, and a queue found empty goes from the new list to the old
//!   one (even when the old list is empty) or, from the old list, becomes
//!   inactive; no decaying list, no quantum dither;
//! - COBALT per queue is `CobaltQueueDisc`: unscaled `target` and
//!   `interval`, `blue_threshold` 400 ms (`BlueThreshold`: BLUE also rises
//!   for a sojourn above it), no four-MTU condition, and the last packet of a
//!   queue is dropped like any other;
//! - the buffer counts packets (`MaxSize`, the queue's `limit`, default
//!   10240p; `limit_bytes` or `memlimit` in bytes): a flow queue refuses an
//!   arrival when it alone holds the whole limit (its `CobaltQueueDisc` has
//!   the parent's `MaxSize` and calls `CobaltQueueFull`), and once the total
//!   exceeds the limit `FqCobaltDrop` drops up to 64 packets
//!   (`DropBatchSize`) from the head of the queue with the most bytes (the
//!   first such queue in the order the queues were created) until half its
//!   bytes are gone, without telling its BLUE.
//!
//! Readings of the variant: ns-3 hashes the 5-tuple with murmur3, ccsim the
//! flow id with a salt drawn per run (give `flow_queues` for ns-3's
//! mapping). ns-3 also runs `DoDequeue` when the device asks while the disc
//! is empty, retiring the emptied queues then; ccsim's links do not ask an
//! empty queue, so they are retired at the next dequeue after an arrival.

use super::cobalt::{CobaltParams, CobaltVars};
use super::droptail::{Fifo, Limit};
use super::flowq::{over_limit, FlowQueues};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::compat::Profile;
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::rng::mix64;
use crate::time::SimTime;
use crate::units::{Bytes, Rate, Time};
use rand::Rng;
use serde::Deserialize;

/// Flow queues (`CAKE_QUEUES`).
pub const QUEUES: usize = 1024;
/// Ways of the set-associative hash (`CAKE_SET_WAYS`).
pub const WAYS: usize = 8;
/// Linux's default packet limit of the qdisc (`sch->limit = 10240` in
/// `cake_init`), used when the queue table gives none.
const DEFAULT_LIMIT_PKTS: u64 = 10240;
/// Lower bound of the automatic buffer limit when shaping (`4U << 20` in
/// `cake_reconfigure`).
const MIN_AUTO_BUFFER: u64 = 4 << 20;
/// ns-3's `FqCobaltQueueDisc::DropBatchSize` (64, read from the wheel).
const NS3_DROP_BATCH: u32 = 64;
/// ns-3's `FqCobaltQueueDisc::BlueThreshold` (400 ms, read from the wheel).
const NS3_BLUE_THRESHOLD_MS: u64 = 400;
/// The MTU of ns-3's `PointToPointNetDevice` (`Mtu` 1500), which
/// `FqCobaltQueueDisc::CheckConfig` takes as the quantum.
const NS3_MTU: u64 = 1500;

/// Whose CAKE (key `variant`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Linux's `sch_cake.c` (the default).
    Linux,
    /// ns-3's `FqCobaltQueueDisc` (the default under `compat = "ns3"`;
    /// module documentation).
    Ns3,
}

/// How packets are assigned to queues (`tc-cake`'s flow isolation keywords;
/// the `CAKE_FLOW_*` values of `pkt_sched.h`: bit 1 source host, bit 2
/// destination host, bit 4 flows).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FlowMode {
    /// One queue for everything (`CAKE_FLOW_NONE`).
    Flowblind,
    /// One queue per source host.
    Srchost,
    /// One queue per destination host.
    Dsthost,
    /// One queue per source and destination host pair.
    Hosts,
    /// One queue per flow.
    Flows,
    /// Per-flow queues, fairness among source hosts first.
    DualSrchost,
    /// Per-flow queues, fairness among destination hosts first.
    DualDsthost,
    /// Per-flow queues, fairness among source and destination hosts (Linux's default).
    TripleIsolate,
}

impl FlowMode {
    fn bits(self) -> u8 {
        match self {
            FlowMode::Flowblind => 0,
            FlowMode::Srchost => 1,
            FlowMode::Dsthost => 2,
            FlowMode::Hosts => 3,
            FlowMode::Flows => 4,
            FlowMode::DualSrchost => 5,
            FlowMode::DualDsthost => 6,
            FlowMode::TripleIsolate => 7,
        }
    }
}

/// Priority tins. Only best effort is modelled.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Diffserv {
    /// One tin for all traffic (`CAKE_DIFFSERV_BESTEFFORT`).
    Besteffort,
}

/// Link-layer framing compensation of the shaper (`tc-cake` `atm` / `ptm`).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Framing {
    /// None (`noatm`).
    None,
    /// ATM cells: 48 payload bytes in 53 (ADSL).
    Atm,
    /// PTM 64b/65b: one byte per 64 or part (VDSL2).
    Ptm,
}

/// Scenario parameters of `cake`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CakeConfig {
    /// Shaper rate; absent: unlimited (Linux `rate_bps = 0` in `cake_init`).
    pub bandwidth: Option<Rate>,
    /// Whose CAKE: "linux" or "ns3" (default from the profile: "ns3"
    /// under `compat = "ns3"`).
    pub variant: Option<Variant>,
    /// Flow isolation (Linux default `CAKE_FLOW_TRIPLE`; `flows`, the
    /// only mode, under `variant = "ns3"`).
    pub flow_mode: Option<FlowMode>,
    /// Priority tins (Linux default `diffserv3`; only `besteffort` here).
    pub diffserv: Diffserv,
    /// COBALT's target (5 ms: `q->target = 5000` us in `cake_init`).
    pub target: Time,
    /// COBALT's interval, `tc-cake`'s `rtt` (100 ms: `q->interval = 100000` us).
    #[serde(alias = "rtt")]
    pub interval: Time,
    /// Bytes added to each packet's size for the shaper (`overhead`; 0).
    pub overhead: i32,
    /// Smallest cost of a packet for the shaper, bytes (`mpu`; 0).
    pub mpu: u32,
    /// Link-layer framing for the shaper (none).
    pub atm: Framing,
    /// The MTU the shaper scales target and the quantum by (1514:
    /// `psched_mtu` of an Ethernet device, 1500 + its 14-byte header); under
    /// `variant = "ns3"` the DRR quantum (1500: the `Mtu` of ns-3's
    /// `PointToPointNetDevice`).
    pub mtu: Option<Bytes>,
    /// Buffer limit in bytes (`memlimit`; default from the rate, see
    /// [`buffer_limit`]).
    pub memlimit: Option<Bytes>,
    /// Mark ECN-capable packets instead of dropping them (Linux CAKE
    /// always does).
    pub ecn: bool,
    /// Sojourn beyond which BLUE's drop probability rises too (none: only
    /// when the buffer overflows, Linux; 400 ms under `variant = "ns3"`,
    /// ns-3's `BlueThreshold`).
    pub blue_threshold: Option<Time>,
    /// Under `variant = "ns3"`: the flow queue of each flow, by flow id, as
    /// `fq_codel`'s key (flows past the list are hashed).
    pub flow_queues: Vec<u32>,
}

impl Default for CakeConfig {
    fn default() -> Self {
        CakeConfig {
            bandwidth: None,
            variant: None,
            flow_mode: None,
            diffserv: Diffserv::Besteffort,
            target: Time(SimTime::from_millis(5)),
            interval: Time(SimTime::from_millis(100)),
            overhead: 0,
            mpu: 0,
            atm: Framing::None,
            mtu: None,
            memlimit: None,
            ecn: true,
            blue_threshold: None,
            flow_queues: Vec::new(),
        }
    }
}

/// Serialization time of `bytes` at `rate_bps`, truncated to the
/// nanosecond (Linux: `(len * rate_ns) >> rate_shft`).
fn ser_time(bytes: u64, rate_bps: u64) -> SimTime {
    SimTime((bytes as u128 * 8 * 1_000_000_000 / rate_bps as u128) as u64)
}

/// The buffer limit in bytes (`cake_reconfigure`): `memlimit` if given,
/// else four times the rate times the interval but at least 4 MiB when
/// shaping, else unlimited; in every case at most `limit_pkts * mtu` unless
/// `memlimit` is larger.
pub fn buffer_limit(memlimit: Option<u64>, rate_bps: Option<u64>, interval: SimTime, limit_pkts: u64, mtu: u64) -> u64 {
    let auto = match (memlimit, rate_bps) {
        (Some(m), _) => m,
        (None, Some(r)) => {
            let t = (r / 8) as u128 * (interval.0 / 1000) as u128 / 250_000;
            (t.min(u64::MAX as u128) as u64).max(MIN_AUTO_BUFFER)
        }
        (None, None) => u64::MAX,
    };
    auto.min(limit_pkts.saturating_mul(mtu).max(memlimit.unwrap_or(0)))
}

/// Which set a queue is in (`CAKE_SET_*`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
enum Set {
    #[default]
    None,
    Sparse,
    /// Counted as sparse, actually in the bulk rotation.
    SparseWait,
    Bulk,
    Decaying,
}

/// The three rotations of a tin.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
    Decaying,
}

const NIL: u32 = u32::MAX;

#[derive(Default)]
struct FlowQueue {
    q: Fifo,
    deficit: i64,
    cvars: CobaltVars,
    srchost: usize,
    dsthost: usize,
    set: Set,
    /// The queue has held a packet (ns-3 creates a flow's class then).
    created: bool,
    /// Links of the rotation the queue is on (an intrusive list, so that a
    /// queue can leave the middle of the decaying list in O(1)).
    list: Option<List>,
    prev: u32,
    next: u32,
}

#[derive(Default, Clone)]
struct Host {
    srchost_tag: u32,
    dsthost_tag: u32,
    srchost_bulk_flow_count: u16,
    dsthost_bulk_flow_count: u16,
}

#[derive(Clone, Copy)]
struct Ends {
    head: u32,
    tail: u32,
}

/// A CAKE queue (one best-effort tin).
pub struct Cake {
    mode: u8,
    cparams: CobaltParams,
    rate_bps: Option<u64>,
    overhead: i32,
    mpu: u32,
    framing: Framing,
    flow_quantum: u32,
    buffer_limit: u64,
    flows: Vec<FlowQueue>,
    tags: Vec<u32>,
    hosts: Vec<Host>,
    lists: [Ends; 3],
    sparse_flow_count: u16,
    bulk_flow_count: u16,
    decaying_flow_count: u16,
    unresponsive_flow_count: u16,
    time_next_packet: SimTime,
    failsafe_next_packet: SimTime,
    /// When a throttled dequeue said the shaper will release a packet.
    release_at: Option<SimTime>,
    salt: Option<u64>,
    pkts: usize,
    bytes: u64,
    /// `variant = "ns3"`: ns-3's FqCobalt (module documentation).
    ns3: Option<Ns3Fq>,
}

/// The state of `variant = "ns3"` beyond CAKE's.
struct Ns3Fq {
    /// `MaxSize`: packets and/or bytes.
    limit: Limit,
    flow_queues: FlowQueues,
    /// Queues in the order ns-3 created their classes (`FqCobaltDrop`
    /// scans them in that order).
    created: Vec<usize>,
}

impl Cake {
    /// Build from scenario parameters (`compat` sets the default
    /// `variant`); errors name the key.
    pub fn from_params(limit: Limit, params: &Params, compat: Profile) -> Result<Self, ParamError> {
        let cfg: CakeConfig = params::parse(params)?;
        let ns3 = cfg.variant.unwrap_or(if compat == Profile::Ns3 {
            Variant::Ns3
        } else {
            Variant::Linux
        }) == Variant::Ns3;
        let flow_mode = cfg
            .flow_mode
            .unwrap_or(if ns3 { FlowMode::Flows } else { FlowMode::TripleIsolate });
        if ns3 && flow_mode != FlowMode::Flows {
            return Err(ParamError::at(
                "flow_mode",
                "ns-3's FqCobaltQueueDisc (variant \"ns3\") isolates flows only: expected \"flows\"",
            ));
        }
        if !ns3 && !cfg.flow_queues.is_empty() {
            return Err(ParamError::at(
                "flow_queues",
                "only with variant = \"ns3\" (Linux's CAKE hashes every flow through its set-associative table)",
            ));
        }
        let mtu = cfg.mtu.map_or(if ns3 { NS3_MTU } else { 1514 }, |m| m.0);
        for (key, t) in [("target", cfg.target), ("interval", cfg.interval)] {
            if t.0 == SimTime::ZERO {
                return Err(ParamError::at(key, "must be greater than 0"));
            }
        }
        if cfg.bandwidth.is_some_and(|r| r.0 == 0) {
            return Err(ParamError::at(
                "bandwidth",
                "must be greater than 0 (leave it out for no shaping)",
            ));
        }
        if mtu == 0 || mtu > 65535 {
            return Err(ParamError::at("mtu", "expected 1 to 65535 bytes"));
        }
        if !(-64..=256).contains(&cfg.overhead) {
            return Err(ParamError::at(
                "overhead",
                format!("expected -64 to 256 bytes (tc-cake's range), got {}", cfg.overhead),
            ));
        }
        let memlimit = match (cfg.memlimit, limit.bytes) {
            (Some(_), Some(_)) => {
                return Err(ParamError::at(
                    "memlimit",
                    "give either memlimit or the queue's limit_bytes, not both",
                ))
            }
            (m, b) => m.map(|m| m.0).or(b),
        };
        if memlimit == Some(0) {
            return Err(ParamError::at("memlimit", "must be at least 1 byte"));
        }
        let rate_bps = cfg.bandwidth.map(|r| r.0);
        // cake_set_rate: the quantum and COBALT's parameters scale with the
        // rate, so that one MTU's serialization never exceeds the target.
        // (ns-3 scales nothing: the quantum is the device's MTU.)
        let (flow_quantum, mtu_time) = match rate_bps {
            _ if ns3 => (mtu as u32, SimTime::ZERO),
            Some(r) => (((r / 8) >> 12).clamp(300, 1514) as u32, ser_time(mtu, r)),
            None => (1514, SimTime::ZERO),
        };
        let target = cfg.target.0.max(SimTime(mtu_time.0 * 3 / 2));
        let interval = (cfg.interval.0 + target - cfg.target.0).max(SimTime(target.0 * 2));
        let blue_threshold = cfg.blue_threshold.map(|t| t.0).or(if ns3 {
            Some(SimTime::from_millis(NS3_BLUE_THRESHOLD_MS))
        } else {
            None
        });
        let cparams = CobaltParams {
            target,
            interval,
            ecn: cfg.ecn,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            blue_threshold,
            mtu_time,
        };
        let limit_pkts = limit.packets.unwrap_or(DEFAULT_LIMIT_PKTS);
        let ns3 = if ns3 {
            Some(Ns3Fq {
                // MaxSize: the queue's limit, else 10240p (ns-3's default).
                limit: Limit {
                    packets: limit.packets.or(memlimit.is_none().then_some(DEFAULT_LIMIT_PKTS)),
                    bytes: memlimit,
                },
                flow_queues: FlowQueues::new(cfg.flow_queues, QUEUES)?,
                created: Vec::new(),
            })
        } else {
            None
        };
        Ok(Cake {
            ns3,
            mode: flow_mode.bits(),
            cparams,
            rate_bps,
            overhead: cfg.overhead,
            mpu: cfg.mpu,
            framing: cfg.atm,
            flow_quantum,
            buffer_limit: buffer_limit(memlimit, rate_bps, cfg.interval.0, limit_pkts, mtu),
            flows: (0..QUEUES)
                .map(|_| FlowQueue {
                    prev: NIL,
                    next: NIL,
                    ..FlowQueue::default()
                })
                .collect(),
            tags: vec![0; QUEUES],
            hosts: vec![Host::default(); QUEUES],
            lists: [Ends { head: NIL, tail: NIL }; 3],
            sparse_flow_count: 0,
            bulk_flow_count: 0,
            decaying_flow_count: 0,
            unresponsive_flow_count: 0,
            time_next_packet: SimTime::ZERO,
            failsafe_next_packet: SimTime::ZERO,
            release_at: None,
            salt: None,
            pkts: 0,
            bytes: 0,
        })
    }

    /// The buffer limit in force, bytes.
    pub fn buffer_limit(&self) -> u64 {
        self.buffer_limit
    }

    /// COBALT's parameters after the rate scaling of `cake_set_rate`.
    pub fn cobalt_params(&self) -> &CobaltParams {
        &self.cparams
    }

    /// The DRR quantum before the host division, bytes.
    pub fn flow_quantum(&self) -> u32 {
        self.flow_quantum
    }

    // ---- the rotations -------------------------------------------------

    fn ends(&mut self, l: List) -> &mut Ends {
        &mut self.lists[l as usize]
    }

    fn front(&self, l: List) -> Option<usize> {
        let h = self.lists[l as usize].head;
        (h != NIL).then_some(h as usize)
    }

    fn unlink(&mut self, i: usize) {
        let Some(l) = self.flows[i].list.take() else { return };
        let (prev, next) = (self.flows[i].prev, self.flows[i].next);
        if prev == NIL {
            self.ends(l).head = next;
        } else {
            self.flows[prev as usize].next = next;
        }
        if next == NIL {
            self.ends(l).tail = prev;
        } else {
            self.flows[next as usize].prev = prev;
        }
        self.flows[i].prev = NIL;
        self.flows[i].next = NIL;
    }

    /// `list_move_tail` (also `list_add_tail` for a queue on no list).
    fn move_tail(&mut self, i: usize, l: List) {
        self.unlink(i);
        let tail = self.ends(l).tail;
        self.flows[i].prev = tail;
        self.flows[i].next = NIL;
        self.flows[i].list = Some(l);
        if tail == NIL {
            self.ends(l).head = i as u32;
        } else {
            self.flows[tail as usize].next = i as u32;
        }
        self.ends(l).tail = i as u32;
    }

    // ---- hosts -----------------------------------------------------------

    fn dsrc(&self) -> bool {
        self.mode & 5 == 5
    }

    fn ddst(&self) -> bool {
        self.mode & 6 == 6
    }

    fn inc_bulk_hosts(&mut self, i: usize) {
        let (s, d) = (self.flows[i].srchost, self.flows[i].dsthost);
        if self.dsrc() && (self.hosts[s].srchost_bulk_flow_count as usize) < QUEUES {
            self.hosts[s].srchost_bulk_flow_count += 1;
        }
        if self.ddst() && (self.hosts[d].dsthost_bulk_flow_count as usize) < QUEUES {
            self.hosts[d].dsthost_bulk_flow_count += 1;
        }
    }

    fn dec_bulk_hosts(&mut self, i: usize) {
        let (s, d) = (self.flows[i].srchost, self.flows[i].dsthost);
        if self.dsrc() {
            let c = &mut self.hosts[s].srchost_bulk_flow_count;
            *c = c.saturating_sub(1);
        }
        if self.ddst() {
            let c = &mut self.hosts[d].dsthost_bulk_flow_count;
            *c = c.saturating_sub(1);
        }
    }

    /// `cake_get_flow_quantum`: the flow quantum divided by its host's bulk
    /// flows (65535 / load in 16-bit fixed point), dithered by a random
    /// 16-bit value so that rounding does not accumulate.
    fn flow_quantum_of(&self, i: usize, rng: &mut crate::rng::SimRng) -> i64 {
        let mut host_load: u32 = 1;
        if self.dsrc() {
            host_load = host_load.max(self.hosts[self.flows[i].srchost].srchost_bulk_flow_count as u32);
        }
        if self.ddst() {
            host_load = host_load.max(self.hosts[self.flows[i].dsthost].dsthost_bulk_flow_count as u32);
        }
        let div = 65535 / host_load;
        ((self.flow_quantum * div + rng.random::<u16>() as u32) >> 16) as i64
    }

    /// The host table slot for `hash` (`cake_hash`'s `found_src` /
    /// `found_dst`): its tagged slot in its 8-way set, else the first slot
    /// with no bulk flows, else the last one tried; the slot is retagged.
    fn host_slot(&mut self, hash: u32, src: bool) -> usize {
        let idx = hash as usize % QUEUES;
        let inner = idx % WAYS;
        let outer = idx - inner;
        let mut k = inner;
        let tag = |h: &Host| if src { h.srchost_tag } else { h.dsthost_tag };
        let count = |h: &Host| {
            if src {
                h.srchost_bulk_flow_count
            } else {
                h.dsthost_bulk_flow_count
            }
        };
        for _ in 0..WAYS {
            if tag(&self.hosts[outer + k]) == hash {
                return outer + k;
            }
            k = (k + 1) % WAYS;
        }
        for _ in 0..WAYS {
            if count(&self.hosts[outer + k]) == 0 {
                break;
            }
            k = (k + 1) % WAYS;
        }
        let h = &mut self.hosts[outer + k];
        if src {
            h.srchost_tag = hash;
        } else {
            h.dsthost_tag = hash;
        }
        outer + k
    }

    /// `cake_hash`: the queue of a packet of `flow` from node `src` to node
    /// `dst`.
    fn hash(&mut self, flow: u32, src: u32, dst: u32, salt: u64) -> usize {
        if self.mode == 0 {
            return 0;
        }
        let h = |x: u32, lane: u64| mix64(x as u64 ^ mix64(salt ^ lane)) as u32;
        let srchost_hash = h(src, 1);
        let dsthost_hash = h(dst, 2);
        let mut flow_hash = if self.mode & 4 != 0 { h(flow, 3) } else { 0 };
        if self.mode & 4 == 0 {
            if self.mode & 1 != 0 {
                flow_hash ^= srchost_hash;
            }
            if self.mode & 2 != 0 {
                flow_hash ^= dsthost_hash;
            }
        }
        let reduced = flow_hash as usize % QUEUES;
        if self.tags[reduced] == flow_hash && self.flows[reduced].set != Set::None {
            return reduced;
        }
        let inner = reduced % WAYS;
        let outer = reduced - inner;
        let mut k = inner;
        let mut allocate = false;
        let mut found = false;
        // A queue of the set already reserved for this flow.
        for _ in 0..WAYS {
            if self.tags[outer + k] == flow_hash {
                allocate = self.flows[outer + k].set == Set::None;
                found = true;
                break;
            }
            k = (k + 1) % WAYS;
        }
        // Else an empty queue of the set.
        if !found {
            for _ in 0..WAYS {
                if self.flows[outer + k].set == Set::None {
                    found = true;
                    break;
                }
                k = (k + 1) % WAYS;
            }
            allocate = true;
        }
        // Else a collision: the queue changes hands, and its host counts too.
        if !found && self.flows[outer + k].set == Set::Bulk {
            self.dec_bulk_hosts(outer + k);
        }
        let q = outer + k;
        self.tags[q] = flow_hash;
        if allocate && self.dsrc() {
            self.flows[q].srchost = self.host_slot(srchost_hash, true);
            if self.flows[q].set == Set::Bulk
                && (self.hosts[self.flows[q].srchost].srchost_bulk_flow_count as usize) < QUEUES
            {
                self.hosts[self.flows[q].srchost].srchost_bulk_flow_count += 1;
            }
        }
        if allocate && self.ddst() {
            self.flows[q].dsthost = self.host_slot(dsthost_hash, false);
            if self.flows[q].set == Set::Bulk
                && (self.hosts[self.flows[q].dsthost].dsthost_bulk_flow_count as usize) < QUEUES
            {
                self.hosts[self.flows[q].dsthost].dsthost_bulk_flow_count += 1;
            }
        }
        q
    }

    // ---- the shaper ------------------------------------------------------

    /// `cake_calc_overhead`: a packet's cost for the shaper, bytes.
    fn adjusted_len(&self, size: u32) -> u64 {
        let len = (size as i64 + self.overhead as i64).max(self.mpu as i64).max(0) as u64;
        match self.framing {
            Framing::None => len,
            Framing::Atm => len.div_ceil(48) * 53,
            Framing::Ptm => len + len.div_ceil(64),
        }
    }

    /// `cake_advance_shaper` for a packet of `size` bytes sent.
    fn advance_shaper(&mut self, size: u32) {
        if let Some(r) = self.rate_bps {
            let dur = ser_time(self.adjusted_len(size), r);
            self.time_next_packet += dur;
            self.failsafe_next_packet += SimTime(dur.0 + dur.0 / 2);
        }
    }

    /// The shaper holds packets back until then (`None`: it does not).
    fn shaper_hold(&self, now: SimTime) -> Option<SimTime> {
        self.rate_bps?;
        (self.time_next_packet > now && self.failsafe_next_packet > now)
            .then(|| self.time_next_packet.min(self.failsafe_next_packet))
    }

    // ---- overflow --------------------------------------------------------

    /// `cake_drop`: drop the head of the queue with the most bytes; returns
    /// that queue.
    fn drop_fattest(&mut self, ctx: &mut QueueCtx) -> Option<usize> {
        let mut fattest = None;
        let mut max = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.q.bytes() > max {
                max = f.q.bytes();
                fattest = Some(i);
            }
        }
        let i = fattest?;
        let p = self.flows[i].q.pop_front(ctx)?;
        if self.flows[i].cvars.queue_full(&self.cparams, ctx.now) {
            self.unresponsive_flow_count = self.unresponsive_flow_count.saturating_add(1);
        }
        self.pkts -= 1;
        self.bytes -= ctx.arena.get(p).size as u64;
        ctx.drop_queued(p, DropReason::Overflow);
        Some(i)
    }

    // ---- ns-3's FqCobalt (variant = "ns3") --------------------------------

    /// `FqCobaltQueueDisc::DoEnqueue`: classify, activate an inactive
    /// queue on the new list, let the flow's `CobaltQueueDisc` take the
    /// packet, and drop from the fattest queue once the total is over the
    /// limit.
    fn ns3_enqueue(&mut self, pkt: PacketRef, flow: u32, size: u32, salt: u64, ctx: &mut QueueCtx) -> Verdict {
        let Some(st) = self.ns3.as_mut() else {
            return Verdict::Dropped(DropReason::Overflow);
        };
        let i = st.flow_queues.queue_of(flow, salt, QUEUES);
        let limit = st.limit;
        if !self.flows[i].created {
            self.flows[i].created = true;
            st.created.push(i);
        }
        if self.flows[i].set == Set::None {
            self.move_tail(i, List::New);
            self.flows[i].set = Set::Sparse;
            self.sparse_flow_count += 1;
            self.flows[i].deficit = self.flow_quantum as i64;
        }
        // The flow's CobaltQueueDisc has the parent's MaxSize
        // (`CobaltQueueDisc::DoEnqueue`: full -> `CobaltQueueFull`, drop).
        let f = &mut self.flows[i];
        if !limit.fits(f.q.len(), f.q.bytes(), size) {
            f.cvars.queue_full(&self.cparams, ctx.now);
            return Verdict::Dropped(DropReason::Overflow);
        }
        f.q.push(pkt, size);
        self.pkts += 1;
        self.bytes += size as u64;
        if over_limit(&limit, self.pkts, self.bytes) {
            self.ns3_drop_fattest(ctx);
        }
        Verdict::Enqueued
    }

    /// `FqCobaltQueueDisc::FqCobaltDrop`: the first queue (in creation
    /// order) with the most bytes loses packets from its head, up to
    /// `DropBatchSize`, until half its bytes are gone; its BLUE is not told.
    fn ns3_drop_fattest(&mut self, ctx: &mut QueueCtx) {
        let Some(st) = self.ns3.as_ref() else { return };
        let mut fattest = None;
        let mut max = 0;
        for &i in &st.created {
            if self.flows[i].q.bytes() > max {
                max = self.flows[i].q.bytes();
                fattest = Some(i);
            }
        }
        let Some(i) = fattest else { return };
        let threshold = max >> 1;
        let (mut len, mut count) = (0, 0);
        while let Some(p) = self.flows[i].q.pop_front(ctx) {
            let size = ctx.arena.get(p).size as u64;
            self.pkts -= 1;
            self.bytes -= size;
            ctx.drop_queued(p, DropReason::Overflow);
            len += size;
            count += 1;
            if count >= NS3_DROP_BATCH || len >= threshold {
                break;
            }
        }
    }

    /// `FqCobaltQueueDisc::DoDequeue`: DRR over the new list, then the old
    /// one; the flow's `CobaltQueueDisc::DoDequeue` drops (even the last
    /// packet) until one passes or the queue is empty, which moves a new
    /// queue to the old list and makes an old one inactive.
    fn ns3_dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let now = ctx.now;
        if let Some(at) = self.shaper_hold(now).filter(|_| self.pkts > 0) {
            self.release_at = Some(at);
            return None;
        }
        loop {
            let (i, from_new) = match (self.front(List::New), self.front(List::Old)) {
                (Some(i), _) => (i, true),
                (None, Some(i)) => (i, false),
                (None, None) => return None,
            };
            if self.flows[i].deficit <= 0 {
                self.flows[i].deficit += self.flow_quantum as i64;
                if from_new {
                    self.ns3_new_to_old(i);
                } else {
                    self.move_tail(i, List::Old);
                }
                continue;
            }
            let pkt = loop {
                let Some(p) = self.flows[i].q.pop_front(ctx) else {
                    break None;
                };
                self.pkts -= 1;
                self.bytes -= ctx.arena.get(p).size as u64;
                if !self.flows[i].cvars.should_drop(&self.cparams, p, ctx) {
                    break Some(p);
                }
                ctx.drop_queued(p, DropReason::Early);
            };
            let Some(p) = pkt else {
                let _ = self.flows[i].cvars.queue_empty(&self.cparams, now);
                if from_new {
                    self.ns3_new_to_old(i);
                } else {
                    self.unlink(i);
                    self.flows[i].set = Set::None;
                    self.bulk_flow_count -= 1;
                }
                continue;
            };
            let size = ctx.arena.get(p).size;
            self.advance_shaper(size);
            self.flows[i].deficit -= size as i64;
            return Some(p);
        }
    }

    /// A new queue becomes an old one (`FqCobaltFlow::OLD_FLOW`).
    fn ns3_new_to_old(&mut self, i: usize) {
        self.move_tail(i, List::Old);
        self.flows[i].set = Set::Bulk;
        self.sparse_flow_count -= 1;
        self.bulk_flow_count += 1;
    }

    /// A dequeue found queue `i` empty: park it on the decaying list while
    /// its COBALT state is not at rest, else free it.
    fn retire_empty(&mut self, i: usize, now: SimTime) {
        if self.flows[i].cvars.queue_empty(&self.cparams, now) {
            self.unresponsive_flow_count = self.unresponsive_flow_count.saturating_sub(1);
        }
        let v = &self.flows[i].cvars;
        let set = self.flows[i].set;
        if v.p_drop > 0.0 || v.count > 0 || now < v.drop_next {
            self.move_tail(i, List::Decaying);
            match set {
                Set::Bulk => {
                    self.bulk_flow_count -= 1;
                    self.dec_bulk_hosts(i);
                    self.decaying_flow_count += 1;
                }
                Set::Sparse | Set::SparseWait => {
                    self.sparse_flow_count -= 1;
                    self.decaying_flow_count += 1;
                }
                Set::Decaying | Set::None => {}
            }
            self.flows[i].set = Set::Decaying;
        } else {
            self.unlink(i);
            match set {
                Set::Sparse | Set::SparseWait => self.sparse_flow_count -= 1,
                Set::Bulk => {
                    self.bulk_flow_count -= 1;
                    self.dec_bulk_hosts(i);
                }
                Set::Decaying => self.decaying_flow_count -= 1,
                Set::None => {}
            }
            self.flows[i].set = Set::None;
        }
    }
}

impl QueueDisc for Cake {
    fn kind(&self) -> &'static str {
        "cake"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let salt = *self.salt.get_or_insert_with(|| ctx.rng.random());
        let now = ctx.now;
        let (flow, src, dst, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow.0, p.src.0, p.dst.0, p.size)
        };
        // Ensure the shaper's schedule is not stale.
        if self.pkts == 0 && self.time_next_packet < now {
            self.time_next_packet = now;
            self.failsafe_next_packet = now;
        }
        if self.ns3.is_some() {
            return self.ns3_enqueue(pkt, flow, size, salt, ctx);
        }
        let i = self.hash(flow, src, dst, salt);
        self.flows[i].q.push(pkt, size);
        self.pkts += 1;
        self.bytes += size as u64;
        match self.flows[i].set {
            Set::None | Set::Decaying => {
                if self.flows[i].set == Set::Decaying {
                    self.decaying_flow_count -= 1;
                }
                self.move_tail(i, List::New);
                self.flows[i].set = Set::Sparse;
                self.sparse_flow_count += 1;
                self.flows[i].deficit = self.flow_quantum_of(i, ctx.rng);
            }
            Set::SparseWait => {
                self.flows[i].set = Set::Bulk;
                self.sparse_flow_count -= 1;
                self.bulk_flow_count += 1;
                self.inc_bulk_hosts(i);
            }
            Set::Sparse | Set::Bulk => {}
        }
        // The arrival is accepted and the fattest queue pays, possibly
        // with the arrival itself (reported as a queued drop).
        while self.bytes > self.buffer_limit {
            if self.drop_fattest(ctx).is_none() {
                break;
            }
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let now = ctx.now;
        self.release_at = None;
        if self.ns3.is_some() {
            return self.ns3_dequeue(ctx);
        }
        let mut first_flow = true;
        'begin: loop {
            if self.pkts == 0 {
                return None;
            }
            if let Some(at) = self.shaper_hold(now) {
                self.release_at = Some(at);
                return None;
            }
            if self.sparse_flow_count + self.bulk_flow_count == 0 {
                return None;
            }
            loop {
                // retry: the decaying rotation first (once per call), then
                // new, old and decaying.
                let pick = if first_flow { self.front(List::Decaying) } else { None };
                let Some(i) = pick
                    .or_else(|| self.front(List::New))
                    .or_else(|| self.front(List::Old))
                    .or_else(|| self.front(List::Decaying))
                else {
                    continue 'begin;
                };
                first_flow = false;
                // DRR++: a queue that spent its quantum goes to the bulk
                // rotation with a new one.
                if self.flows[i].deficit <= 0 {
                    if self.flows[i].set == Set::Sparse {
                        if self.flows[i].q.is_empty() {
                            self.flows[i].set = Set::SparseWait;
                        } else {
                            self.sparse_flow_count -= 1;
                            self.bulk_flow_count += 1;
                            self.flows[i].set = Set::Bulk;
                            self.inc_bulk_hosts(i);
                        }
                    }
                    self.flows[i].deficit += self.flow_quantum_of(i, ctx.rng);
                    self.move_tail(i, List::Old);
                    continue;
                }
                // Retrieve a packet through COBALT.
                let pkt = loop {
                    let Some(p) = self.flows[i].q.pop_front(ctx) else {
                        self.retire_empty(i, now);
                        continue 'begin;
                    };
                    self.pkts -= 1;
                    self.bytes -= ctx.arena.get(p).size as u64;
                    let drop = self.flows[i].cvars.should_drop(&self.cparams, p, ctx);
                    // The last packet of a queue may be marked, never dropped.
                    if !drop || self.flows[i].q.is_empty() {
                        break p;
                    }
                    ctx.drop_queued(p, DropReason::Early);
                };
                let size = ctx.arena.get(pkt).size;
                self.advance_shaper(size);
                self.flows[i].deficit -= self.adjusted_len(size) as i64;
                return Some(pkt);
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn next_release(&self) -> Option<SimTime> {
        self.release_at
    }

    fn shapes(&self) -> bool {
        self.rate_bps.is_some()
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["sparse_flows", "bulk_flows", "unresponsive_flows"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        // As `tc -s qdisc` shows them: decaying queues count as sparse.
        out.push((self.sparse_flow_count + self.decaying_flow_count) as f64);
        out.push(self.bulk_flow_count as f64);
        out.push(self.unresponsive_flow_count as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{FlowId, NodeId, Packet, PacketArena};
    use crate::rng::{stream, SimRng};

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn build(params: &str) -> Result<Cake, ParamError> {
        let v: serde_json::Value = serde_json::from_str(params).unwrap();
        let serde_json::Value::Object(p) = v else {
            unreachable!()
        };
        let no_limit = Limit {
            packets: None,
            bytes: None,
        };
        Cake::from_params(no_limit, &p, Profile::Ccsim)
    }

    fn cake(params: &str) -> Cake {
        build(params).unwrap()
    }

    /// ns-3's FqCobalt: `variant = "ns3"` by the profile, `limit` packets.
    fn ns3(params: &str, limit: u64) -> Result<Cake, ParamError> {
        let v: serde_json::Value = serde_json::from_str(params).unwrap();
        let serde_json::Value::Object(p) = v else {
            unreachable!()
        };
        let limit = Limit {
            packets: Some(limit),
            bytes: None,
        };
        Cake::from_params(limit, &p, Profile::Ns3)
    }

    fn err(params: &str) -> ParamError {
        build(params).err().expect("expected an error")
    }

    /// A test bench: the arena, the stream and the drops.
    struct Bench {
        arena: PacketArena,
        rng: SimRng,
        dropped: Vec<(PacketRef, DropReason)>,
    }

    impl Bench {
        fn new() -> Self {
            Bench {
                arena: PacketArena::new(),
                rng: stream(7, "cake"),
                dropped: Vec::new(),
            }
        }

        /// Offer a packet of `size` bytes of `flow` from `src` to `dst` at `now`.
        fn offer(&mut self, q: &mut Cake, now: SimTime, flow: u32, src: u32, dst: u32, size: u32) -> PacketRef {
            let p = self.arena.alloc(Packet {
                flow: FlowId(flow),
                src: NodeId(src),
                dst: NodeId(dst),
                size,
                enqueued_at: now,
                ..Packet::default()
            });
            let mut ctx = QueueCtx::new(now, &mut self.arena, &mut self.rng, 100_000_000, &mut self.dropped);
            assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
            p
        }

        /// Dequeue at `now`: the packet's (flow, src).
        fn take(&mut self, q: &mut Cake, now: SimTime) -> Option<(u32, u32)> {
            let mut ctx = QueueCtx::new(now, &mut self.arena, &mut self.rng, 100_000_000, &mut self.dropped);
            let p = q.dequeue(&mut ctx)?;
            let pk = self.arena.get(p);
            Some((pk.flow.0, pk.src.0))
        }
    }

    #[test]
    fn shaper_releases_at_the_rate_and_catches_up_in_deficit_mode() {
        // 1250-byte packets at 10 Mbit/s: one per millisecond.
        let mut q = cake(r#"{"bandwidth": "10Mbps"}"#);
        let mut b = Bench::new();
        for _ in 0..20 {
            b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1250);
        }
        assert!(b.take(&mut q, SimTime::ZERO).is_some());
        assert!(
            b.take(&mut q, SimTime::ZERO).is_none(),
            "the second packet is due at 1 ms"
        );
        assert_eq!(q.next_release(), Some(ms(1)));
        assert!(b.take(&mut q, ms(1)).is_some());
        // Asked late, at 5 ms: the packets due at 2, 3, 4 and 5 ms go at once
        // (deficit mode, no burst parameter), then the schedule holds again.
        let mut n = 0;
        while b.take(&mut q, ms(5)).is_some() {
            n += 1;
        }
        assert_eq!(n, 4);
        assert_eq!(q.next_release(), Some(ms(6)));
    }

    #[test]
    fn an_arrival_at_an_empty_queue_restarts_a_stale_schedule() {
        let mut q = cake(r#"{"bandwidth": "10Mbps"}"#);
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1250);
        assert!(b.take(&mut q, SimTime::ZERO).is_some());
        // Idle for a second: no credit is saved up for a burst.
        for _ in 0..3 {
            b.offer(&mut q, ms(1000), 1, 1, 2, 1250);
        }
        assert!(b.take(&mut q, ms(1000)).is_some());
        assert!(b.take(&mut q, ms(1000)).is_none());
        assert_eq!(q.next_release(), Some(ms(1001)));
    }

    #[test]
    fn overhead_mpu_and_framing_set_a_packets_cost() {
        let q = cake(r#"{"overhead": 18, "mpu": 64}"#);
        assert_eq!(q.adjusted_len(40), 64);
        assert_eq!(q.adjusted_len(1000), 1018);
        let atm = cake(r#"{"atm": "atm"}"#);
        assert_eq!(atm.adjusted_len(100), 3 * 53);
        let ptm = cake(r#"{"atm": "ptm"}"#);
        assert_eq!(ptm.adjusted_len(100), 102);
        // The shaper charges the cost: 1232 + 18 = 1250 bytes at 10 Mbit/s is 1 ms.
        let mut q = cake(r#"{"bandwidth": "10Mbps", "overhead": 18}"#);
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1232);
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1232);
        assert!(b.take(&mut q, SimTime::ZERO).is_some());
        assert!(b.take(&mut q, SimTime::ZERO).is_none());
        assert_eq!(q.next_release(), Some(ms(1)));
    }

    #[test]
    fn rate_scales_target_interval_quantum_and_buffer() {
        // cake_set_rate at 1 Mbit/s: one 1514-byte MTU takes 12.112 ms, so
        // target = 1.5 MTU times = 18.168 ms, interval = 100 + 13.168 ms,
        // quantum = max(min(125000 >> 12, 1514), 300) = 300.
        let q = cake(r#"{"bandwidth": "1Mbps"}"#);
        let p = q.cobalt_params();
        assert_eq!(p.mtu_time, SimTime(12_112_000));
        assert_eq!(p.target, SimTime(18_168_000));
        assert_eq!(p.interval, SimTime(113_168_000));
        assert_eq!(q.flow_quantum(), 300);
        // At 100 Mbit/s the configured 5 ms / 100 ms stand; quantum 1514.
        let q = cake(r#"{"bandwidth": "100Mbps"}"#);
        assert_eq!(q.cobalt_params().target, ms(5));
        assert_eq!(q.cobalt_params().interval, ms(100));
        assert_eq!(q.flow_quantum(), 1514);
        // Buffer: 4 x rate x interval, at least 4 MiB, at most limit x MTU.
        assert_eq!(
            buffer_limit(None, Some(1_000_000_000), ms(100), 10240, 1514),
            10240 * 1514
        );
        assert_eq!(
            buffer_limit(None, Some(800_000_000), ms(100), 1_000_000, 1514),
            40_000_000
        );
        assert_eq!(buffer_limit(None, Some(10_000_000), ms(100), 10240, 1514), 4 << 20);
        assert_eq!(buffer_limit(None, None, ms(100), 100, 1514), 151_400);
        assert_eq!(buffer_limit(Some(1_000_000), None, ms(100), 100, 1514), 1_000_000);
    }

    /// Bytes sent per source host over `n` dequeues of a standing backlog:
    /// host 1 sends one flow, host 2 eight, to hosts 11 and 12 (`n` at most 4000).
    fn host_shares(mode: &str, n: usize) -> (f64, f64) {
        let mut q = cake(&format!(r#"{{"flow_mode": "{mode}"}}"#));
        let mut b = Bench::new();
        for _ in 0..600 {
            b.offer(&mut q, SimTime::ZERO, 0, 1, 11, 1000);
            for f in 1..=8 {
                b.offer(&mut q, SimTime::ZERO, f, 2, 12, 1000);
            }
        }
        // Enough for host 1 to take half of `n` on its own.
        for _ in 0..1800 {
            b.offer(&mut q, SimTime::ZERO, 0, 1, 11, 1000);
        }
        let mut by_host = [0u64; 3];
        for _ in 0..n {
            let (_, src) = b.take(&mut q, SimTime::ZERO).unwrap();
            by_host[src as usize] += 1000;
        }
        let total = (by_host[1] + by_host[2]) as f64;
        (by_host[1] as f64 / total, by_host[2] as f64 / total)
    }

    #[test]
    fn host_aware_modes_share_per_host_and_flows_mode_per_flow() {
        // The quantum of each of host 2's flows is divided by its 8 bulk
        // flows: the two hosts get equal shares.
        for mode in ["triple-isolate", "dual-srchost", "dual-dsthost"] {
            let (a, _) = host_shares(mode, 4000);
            assert!((a - 0.5).abs() < 0.01, "{mode}: host 1 share {a}");
        }
        // One queue per host (pair): equal shares too.
        for mode in ["srchost", "dsthost", "hosts"] {
            let (a, _) = host_shares(mode, 4000);
            assert!((a - 0.5).abs() < 0.01, "{mode}: host 1 share {a}");
        }
        // Per-flow fairness: one ninth.
        let (a, _) = host_shares("flows", 4000);
        assert!((a - 1.0 / 9.0).abs() < 0.01, "flows: host 1 share {a}");
        // One queue: first come, first served (host 1's packets were offered
        // first in each round of nine).
        let (a, _) = host_shares("flowblind", 900);
        assert!((a - 1.0 / 9.0).abs() < 1e-9, "flowblind: host 1 share {a}");
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_the_bulk_backlog() {
        let mut q = cake("{}");
        let mut b = Bench::new();
        for _ in 0..50 {
            b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1500);
        }
        for _ in 0..5 {
            b.take(&mut q, ms(1)).unwrap();
        }
        b.offer(&mut q, ms(2), 9, 3, 2, 100);
        assert_eq!(b.take(&mut q, ms(2)), Some((9, 3)));
        assert_eq!(q.bulk_flow_count, 1);
    }

    #[test]
    fn set_associative_hashing_separates_colliding_flows_until_the_set_is_full() {
        let mut q = cake(r#"{"flow_mode": "flows"}"#);
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 0, 1, 2, 100);
        let salt = q.salt.unwrap();
        let h = |f: u32| mix64(f as u64 ^ mix64(salt ^ 3)) as u32 as usize % QUEUES;
        // Ten more flows whose hash selects the same queue as flow 0.
        let same: Vec<u32> = (1..).filter(|&f| h(f) == h(0)).take(10).collect();
        let mut queues = vec![q.hash(0, 1, 2, salt)];
        for &f in &same {
            b.offer(&mut q, SimTime::ZERO, f, 1, 2, 100);
            queues.push(q.hash(f, 1, 2, salt));
        }
        let set = h(0) - h(0) % WAYS;
        assert!(queues.iter().all(|&i| (set..set + WAYS).contains(&i)), "{queues:?}");
        // The first eight flows get the eight ways; later ones collide.
        let mut first8 = queues[..8].to_vec();
        first8.sort_unstable();
        first8.dedup();
        assert_eq!(first8.len(), 8, "{queues:?}");
        assert!(queues[8..].iter().all(|i| queues[..8].contains(i)));
        // A flow keeps its way while active.
        assert_eq!(q.hash(same[3], 1, 2, salt), queues[4]);
    }

    #[test]
    fn overflow_drops_the_head_of_the_fattest_queue_and_raises_its_blue() {
        let mut q = cake(r#"{"flow_mode": "flows", "memlimit": 10000}"#);
        let mut b = Bench::new();
        let mut fat = Vec::new();
        for _ in 0..6 {
            fat.push(b.offer(&mut q, ms(10), 1, 1, 2, 1000));
        }
        for _ in 0..4 {
            b.offer(&mut q, ms(10), 2, 1, 2, 1000);
        }
        assert!(b.dropped.is_empty());
        b.offer(&mut q, ms(10), 2, 1, 2, 1000);
        let got: Vec<PacketRef> = b.dropped.iter().map(|d| d.0).collect();
        assert_eq!(got, vec![fat[0]]);
        assert_eq!(q.len_bytes(), 10_000);
        let i = q.hash(1, 1, 2, q.salt.unwrap());
        assert_eq!(q.flows[i].cvars.p_drop, 1.0 / 256.0);
        assert!(q.flows[i].cvars.dropping);
        assert_eq!(q.unresponsive_flow_count, 1);
    }

    #[test]
    fn the_last_packet_of_a_queue_is_never_dropped() {
        let mut q = cake(r#"{"flow_mode": "flows"}"#);
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1000);
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1000);
        let i = q.hash(1, 1, 2, q.salt.unwrap());
        q.flows[i].cvars.p_drop = 1.0;
        // BLUE drops the first; the second is the queue's last and is sent.
        assert!(b.take(&mut q, ms(1)).is_some());
        assert_eq!(b.dropped.len(), 1);
        assert_eq!(q.len_pkts(), 0);
    }

    #[test]
    fn an_emptied_queue_decays_before_it_is_freed() {
        let mut q = cake(r#"{"flow_mode": "flows"}"#);
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1000);
        assert!(b.take(&mut q, ms(1)).is_some());
        let i = q.hash(1, 1, 2, q.salt.unwrap());
        // A dequeue with nothing queued returns at once (as Linux's does):
        // flow 1's queue stays on the new list, empty.
        assert!(b.take(&mut q, ms(2)).is_none());
        assert_eq!(q.flows[i].set, Set::Sparse);
        // The next dequeue finds it empty: COBALT's activity timeout
        // (drop_next = 1 ms + interval) has not passed, so it waits on the
        // decaying list.
        b.offer(&mut q, ms(2), 2, 1, 2, 1000);
        assert_eq!(b.take(&mut q, ms(2)), Some((2, 1)));
        assert_eq!(q.flows[i].set, Set::Decaying);
        assert_eq!(q.decaying_flow_count, 1);
        // A packet of the flow brings it back as a new, sparse flow.
        b.offer(&mut q, ms(3), 1, 1, 2, 1000);
        assert_eq!((q.flows[i].set, q.decaying_flow_count), (Set::Sparse, 0));
        assert_eq!(b.take(&mut q, ms(3)), Some((1, 1)));
        // Found empty after the timeout, both queues are freed.
        b.offer(&mut q, ms(300), 3, 1, 2, 1000);
        assert_eq!(b.take(&mut q, ms(300)), Some((3, 1)));
        assert_eq!(q.flows[i].set, Set::None);
        assert_eq!(q.decaying_flow_count + q.sparse_flow_count + q.bulk_flow_count, 1);
    }

    #[test]
    fn ns3_variant_is_fq_cobalt_under_the_ns3_profile() {
        let q = ns3("{}", 1000).unwrap();
        assert!(q.ns3.is_some() && build("{}").unwrap().ns3.is_none());
        assert_eq!(q.mode, FlowMode::Flows.bits());
        // FqCobaltQueueDisc's quantum is the device MTU (1500); its
        // CobaltQueueDisc raises BLUE past BlueThreshold (400 ms).
        assert_eq!(q.flow_quantum(), 1500);
        assert_eq!(q.cobalt_params().blue_threshold, Some(ms(400)));
        assert_eq!(cake("{}").cobalt_params().blue_threshold, None);
        assert_eq!(
            ns3(r#"{"flow_mode": "triple-isolate"}"#, 10).err().unwrap().path,
            "flow_mode"
        );
        assert_eq!(err(r#"{"flow_queues": [1]}"#).path, "flow_queues");
        assert_eq!(ns3(r#"{"flow_queues": [1024]}"#, 10).err().unwrap().path, "flow_queues");
        assert!(ns3(r#"{"variant": "linux"}"#, 10).unwrap().ns3.is_none());
        // Flows mapped to one queue share it (no set association).
        let mut q = ns3(r#"{"flow_queues": [5, 5]}"#, 100).unwrap();
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 0, 1, 2, 1000);
        b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1000);
        assert_eq!(q.flows[5].q.len(), 2);
        assert_eq!(q.sparse_flow_count, 1);
    }

    #[test]
    fn ns3_drops_the_last_packet_of_a_queue_too() {
        // CobaltQueueDisc::DoDequeue drops whatever CobaltShouldDrop says,
        // the queue's last packet included (Linux's CAKE sends it).
        let mut q = ns3(r#"{"flow_queues": [3]}"#, 100).unwrap();
        let mut b = Bench::new();
        b.offer(&mut q, SimTime::ZERO, 0, 1, 2, 1000);
        b.offer(&mut q, SimTime::ZERO, 0, 1, 2, 1000);
        q.flows[3].cvars.p_drop = 1.0;
        assert_eq!(b.take(&mut q, ms(1)), None);
        assert_eq!(b.dropped.len(), 2);
        assert_eq!(q.len_pkts(), 0);
    }

    #[test]
    fn ns3_rotations_are_fq_codels() {
        // Flow 1 (queue 1) has a backlog, flow 0 (queue 0) one packet.
        let mut q = ns3(r#"{"flow_queues": [0, 1]}"#, 100).unwrap();
        let mut b = Bench::new();
        for _ in 0..10 {
            b.offer(&mut q, SimTime::ZERO, 1, 1, 2, 1000);
        }
        assert_eq!(b.take(&mut q, ms(1)), Some((1, 1)));
        assert_eq!(b.take(&mut q, ms(1)), Some((1, 1)));
        b.offer(&mut q, ms(1), 0, 1, 2, 100);
        // Queue 1 spent its quantum (1500 - 2000): to the old list with
        // another; queue 0 is new and served first.
        assert_eq!(b.take(&mut q, ms(1)), Some((0, 1)));
        assert_eq!(q.flows[1].list, Some(List::Old));
        // Queue 0 is found empty: from the new list it goes to the old one
        // (DoDequeue), no decaying list; queue 1 is served.
        assert_eq!(b.take(&mut q, ms(2)), Some((1, 1)));
        assert_eq!((q.flows[0].set, q.flows[0].list), (Set::Bulk, Some(List::Old)));
        assert_eq!(
            (q.sparse_flow_count, q.bulk_flow_count, q.decaying_flow_count),
            (0, 2, 0)
        );
        // An arrival there does not make it new again.
        b.offer(&mut q, ms(2), 0, 1, 2, 100);
        assert_eq!(q.flows[0].list, Some(List::Old));
        assert_eq!(b.take(&mut q, ms(3)), Some((0, 1)));
        // Found empty on the old list, it becomes inactive.
        assert_eq!(b.take(&mut q, ms(3)), Some((1, 1)));
        assert_eq!((q.flows[0].set, q.flows[0].list), (Set::None, None));
        b.offer(&mut q, ms(4), 0, 1, 2, 100);
        assert_eq!(q.flows[0].list, Some(List::New));
        assert_eq!(q.flows[0].deficit, 1500);
    }

    #[test]
    fn ns3_overflow_drops_half_the_fattest_queue_without_raising_its_blue() {
        let mut q = ns3(r#"{"flow_queues": [0, 1]}"#, 10).unwrap();
        let mut b = Bench::new();
        let fat: Vec<PacketRef> = (0..6).map(|_| b.offer(&mut q, ms(10), 0, 1, 2, 1000)).collect();
        for _ in 0..4 {
            b.offer(&mut q, ms(10), 1, 1, 2, 1000);
        }
        assert!(b.dropped.is_empty());
        // The 11th packet: queue 0 (6000 bytes) loses its head until 3000
        // bytes are gone (FqCobaltDrop), BLUE untouched.
        b.offer(&mut q, ms(10), 1, 1, 2, 1000);
        let got: Vec<PacketRef> = b.dropped.iter().map(|d| d.0).collect();
        assert_eq!(got, fat[..3].to_vec());
        assert_eq!(q.len_pkts(), 8);
        assert_eq!(q.flows[0].cvars.p_drop, 0.0);
        assert!(!q.flows[0].cvars.dropping);
        // A flow that alone holds the limit: its CobaltQueueDisc refuses the
        // arrival and raises BLUE (CobaltQueueFull).
        let mut q = ns3(r#"{"flow_queues": [0]}"#, 4).unwrap();
        for _ in 0..4 {
            b.offer(&mut q, ms(10), 0, 1, 2, 1000);
        }
        let p = b.arena.alloc(Packet {
            flow: FlowId(0),
            size: 1000,
            enqueued_at: ms(10),
            ..Packet::default()
        });
        let mut ctx = QueueCtx::new(ms(10), &mut b.arena, &mut b.rng, 100_000_000, &mut b.dropped);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.flows[0].cvars.p_drop, 1.0 / 256.0);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        assert_eq!(err(r#"{"flow_mode": "triple"}"#).path, "flow_mode");
        assert_eq!(err(r#"{"diffserv": "diffserv3"}"#).path, "diffserv");
        assert_eq!(err(r#"{"bandwidth": "0Mbps"}"#).path, "bandwidth");
        assert_eq!(err(r#"{"target": "0ms"}"#).path, "target");
        assert_eq!(err(r#"{"overhead": 1000}"#).path, "overhead");
        assert_eq!(err(r#"{"memlimit": 0}"#).path, "memlimit");
        assert_eq!(err(r#"{"bandwith": "1Mbps"}"#).path, "bandwith");
        // tc-cake's name for the interval is accepted.
        assert_eq!(cake(r#"{"rtt": "50ms"}"#).cobalt_params().interval, ms(50));
    }
}
