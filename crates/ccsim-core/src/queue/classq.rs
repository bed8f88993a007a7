//! Per-class queues shared by the schedulers `rr` and `drr`.
//!
//! A packet is classified by its flow id (`classify = "flow"`, one queue per
//! flow, no hash collisions) or by its precedence `Packet::class`
//! (`classify = "class"`). Each class holds a plain FIFO, or, when the
//! scheduler's table has a nested `class_queue = { kind = "...", ... }`, its
//! own discipline built through [`super::registry::build`] (so RED, WRED,
//! ModRED, CoDel, ... can run inside each class, as in the ramachendra study's
//! ModRED under round robin). A nested table takes `kind` (required),
//! `limit` / `limit_bytes` (default: the scheduler's limit) and that
//! discipline's own keys.
//!
//! Nested disciplines are created when their class first sees a packet.
//! Their periodic timers are multiplexed onto the scheduler's one timer, and
//! packets travelling the other way (ModRED's ACK rewriting) are shown to the
//! class they classify into.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::flowq::over_limit;
use super::registry::{self, QueueArgs};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::compat::Profile;
use crate::packet::{Packet, PacketRef};
use crate::params::{ParamError, Params};
use crate::time::SimTime;
use crate::units::Bytes;
use serde::Deserialize;
use serde_json::Value;

/// What a packet is classified by.
#[derive(Deserialize, serde::Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Classify {
    /// One queue per flow.
    #[default]
    Flow,
    /// One queue per precedence value (`Packet::class`).
    Class,
}

/// A validated nested `class_queue` table.
#[derive(Clone, Debug)]
pub struct ClassSpec {
    kind: String,
    limit: Limit,
    params: Params,
    compat: Profile,
    link_rate_bps: u64,
}

impl ClassSpec {
    /// Parse and validate a nested table (errors carry the `class_queue.` prefix).
    pub fn parse(table: &Params, outer: Limit, link_rate_bps: u64, compat: Profile) -> Result<Self, ParamError> {
        let pfx = |e: ParamError| {
            let path = if e.path.is_empty() {
                "class_queue".to_string()
            } else {
                format!("class_queue.{}", e.path)
            };
            ParamError::at(path, e.message)
        };
        let mut params = table.clone();
        let kind = match params.remove("kind") {
            Some(Value::String(s)) => s,
            Some(_) => return Err(ParamError::at("class_queue.kind", "expected a string")),
            None => return Err(ParamError::at("class_queue.kind", "a nested class queue needs a kind")),
        };
        let mut limit = outer;
        if let Some(v) = params.remove("limit") {
            match v.as_u64() {
                Some(l) if l >= 1 => {
                    limit.packets = Some(l);
                    if !table.contains_key("limit_bytes") {
                        limit.bytes = None;
                    }
                }
                _ => {
                    return Err(ParamError::at(
                        "class_queue.limit",
                        "expected an integer >= 1 (packets)",
                    ))
                }
            }
        }
        if let Some(v) = params.remove("limit_bytes") {
            let b: Bytes =
                serde_json::from_value(v).map_err(|e| ParamError::at("class_queue.limit_bytes", e.to_string()))?;
            if b.0 == 0 {
                return Err(ParamError::at("class_queue.limit_bytes", "must be at least 1 byte"));
            }
            limit.bytes = Some(b.0);
            if !table.contains_key("limit") {
                limit.packets = None;
            }
        }
        let spec = ClassSpec {
            kind,
            limit,
            params,
            compat,
            link_rate_bps,
        };
        let (built, mut resolved) = spec.build_resolved();
        built.map_err(pfx)?;
        // The scheduler's resolved configuration holds its classes' under
        // `class_queue`, in place of the table as given.
        resolved.insert("kind".into(), spec.kind.clone().into());
        let mut class_queue = Params::new();
        class_queue.insert("class_queue".into(), serde_json::Value::Object(resolved));
        crate::params::record(class_queue);
        Ok(spec)
    }

    /// Build one instance.
    pub fn build(&self) -> Result<Box<dyn QueueDisc>, ParamError> {
        self.build_resolved().0
    }

    /// Build one instance, with the configuration it resolved (kept apart
    /// from the scheduler's own: [`crate::params::resolving`]).
    fn build_resolved(&self) -> (Result<Box<dyn QueueDisc>, ParamError>, Params) {
        crate::params::resolving(|| {
            registry::build(
                &self.kind,
                &QueueArgs {
                    limit: self.limit,
                    params: &self.params,
                    link_rate_bps: self.link_rate_bps,
                    compat: self.compat,
                },
            )
        })
    }
}

/// The queue of one class.
pub enum ClassQueue {
    /// A plain FIFO (the scheduler manages the shared buffer).
    Fifo(Fifo),
    /// A nested discipline (which manages its own buffer).
    Disc(Box<dyn QueueDisc>),
}

/// One class: its queue plus the scheduler's per-class state.
pub struct Slot {
    /// The packets.
    pub q: ClassQueue,
    /// DRR deficit counter, bytes.
    pub deficit: i64,
    /// DRR: the quantum of the current round has been added.
    pub turn: bool,
    /// On the scheduler's active list.
    pub active: bool,
    timer_due: Option<SimTime>,
    timer_kind: u32,
}

/// All classes of a scheduler, indexed by class key.
pub struct Classes {
    classify: Classify,
    spec: Option<ClassSpec>,
    template_timer: Option<(SimTime, u32)>,
    wants_reverse: bool,
    slots: Vec<Option<Slot>>,
    pkts: usize,
    bytes: u64,
}

impl Classes {
    /// Classes with FIFOs, or with nested disciplines built from `spec`.
    pub fn new(classify: Classify, spec: Option<ClassSpec>) -> Self {
        let (template_timer, wants_reverse) = match spec.as_ref().and_then(|s| s.build().ok()) {
            Some(d) => (d.initial_timer(), d.wants_reverse()),
            None => (None, false),
        };
        Classes {
            classify,
            spec,
            template_timer,
            wants_reverse,
            slots: Vec::new(),
            pkts: 0,
            bytes: 0,
        }
    }

    /// Whether the classes hold nested disciplines.
    pub fn nested(&self) -> bool {
        self.spec.is_some()
    }

    /// The class key of a packet.
    #[inline]
    pub fn key(&self, p: &Packet) -> usize {
        match self.classify {
            Classify::Flow => p.flow.0 as usize,
            Classify::Class => p.class as usize,
        }
    }

    /// Number of class slots (keys below this may exist).
    pub fn n_keys(&self) -> usize {
        self.slots.len()
    }

    /// The slot of `key`, creating it (and its nested discipline) if needed.
    /// None only if a nested discipline could not be built, which validation
    /// at construction rules out.
    pub fn slot_mut(&mut self, key: usize, now: SimTime) -> Option<&mut Slot> {
        if key >= self.slots.len() {
            self.slots.resize_with(key + 1, || None);
        }
        if self.slots[key].is_none() {
            let q = match &self.spec {
                None => ClassQueue::Fifo(Fifo::default()),
                Some(s) => ClassQueue::Disc(s.build().ok()?),
            };
            let (timer_due, timer_kind) = match self.template_timer {
                Some((d, k)) => (Some(now + d), k),
                None => (None, 0),
            };
            self.slots[key] = Some(Slot {
                q,
                deficit: 0,
                turn: false,
                active: false,
                timer_due,
                timer_kind,
            });
        }
        self.slots[key].as_mut()
    }

    /// The slot of `key` if it exists.
    pub fn slot(&mut self, key: usize) -> Option<&mut Slot> {
        self.slots.get_mut(key).and_then(|s| s.as_mut())
    }

    /// Packets waiting in class `key`.
    pub fn len_of(&self, key: usize) -> usize {
        match self.slots.get(key).and_then(|s| s.as_ref()) {
            Some(s) => match &s.q {
                ClassQueue::Fifo(f) => f.len(),
                ClassQueue::Disc(d) => d.len_pkts(),
            },
            None => 0,
        }
    }

    /// Bytes waiting in class `key`.
    pub fn bytes_of(&self, key: usize) -> u64 {
        match self.slots.get(key).and_then(|s| s.as_ref()) {
            Some(s) => match &s.q {
                ClassQueue::Fifo(f) => f.bytes(),
                ClassQueue::Disc(d) => d.len_bytes(),
            },
            None => 0,
        }
    }

    /// Size of the head packet of a FIFO class (None for nested disciplines,
    /// whose next packet is only known when they dequeue).
    pub fn head_size(&self, key: usize, ctx: &QueueCtx) -> Option<u32> {
        match &self.slots.get(key)?.as_ref()?.q {
            ClassQueue::Fifo(f) => f.front().map(|p| ctx.arena.get(p).size),
            ClassQueue::Disc(_) => None,
        }
    }

    /// Offer `pkt` to class `key` (created if needed).
    pub fn enqueue(&mut self, key: usize, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        let now = ctx.now;
        let Some(slot) = self.slot_mut(key, now) else {
            return Verdict::Dropped(super::DropReason::Forced);
        };
        // (packets before, packets after, bytes before, bytes after)
        let (v, bp, ap, bb, ab) = match &mut slot.q {
            ClassQueue::Fifo(f) => {
                f.push(pkt, size);
                (Verdict::Enqueued, 0, 1, 0, size as u64)
            }
            ClassQueue::Disc(d) => {
                let (bp, bb) = (d.len_pkts(), d.len_bytes());
                let v = d.enqueue(pkt, ctx);
                (v, bp, d.len_pkts(), bb, d.len_bytes())
            }
        };
        self.pkts = self.pkts + ap - bp;
        self.bytes = self.bytes + ab - bb;
        v
    }

    /// Take the next packet of class `key` (FIFO head, or the nested
    /// discipline's choice, which may drop on the way).
    pub fn dequeue(&mut self, key: usize, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let slot = self.slots.get_mut(key)?.as_mut()?;
        match &mut slot.q {
            ClassQueue::Fifo(f) => {
                let p = f.pop_front(ctx)?;
                self.pkts -= 1;
                self.bytes -= ctx.arena.get(p).size as u64;
                Some(p)
            }
            ClassQueue::Disc(d) => {
                let (bp, bb) = (d.len_pkts(), d.len_bytes());
                let out = d.dequeue(ctx);
                self.pkts = self.pkts + d.len_pkts() - bp;
                self.bytes = self.bytes + d.len_bytes() - bb;
                out
            }
        }
    }

    /// The FIFO class with the most bytes (`by_bytes`) or packets; None if
    /// all are empty or the classes are nested.
    pub fn longest(&self, by_bytes: bool) -> Option<usize> {
        let mut best: Option<(usize, (u64, u64))> = None;
        for (k, s) in self.slots.iter().enumerate() {
            if let Some(Slot {
                q: ClassQueue::Fifo(f), ..
            }) = s
            {
                if f.is_empty() {
                    continue;
                }
                let m = if by_bytes {
                    (f.bytes(), f.len() as u64)
                } else {
                    (f.len() as u64, f.bytes())
                };
                if best.is_none_or(|(_, b)| m > b) {
                    best = Some((k, m));
                }
            }
        }
        best.map(|(k, _)| k)
    }

    /// Make room in the shared buffer of FIFO classes after the arrival
    /// `pkt` was queued (nested disciplines manage their own buffers: nothing
    /// to do): while the classes hold more than `limit`, drop the head packet
    /// of the longest class, by bytes or by packets (ns-2 DRR's "drop from
    /// the longest queue"). `emptied` is told each class the drops leave
    /// empty. Returns the arrival's verdict when the arrival itself was
    /// pushed out.
    pub fn push_out(
        &mut self,
        limit: &Limit,
        by_bytes: bool,
        pkt: PacketRef,
        ctx: &mut QueueCtx,
        mut emptied: impl FnMut(&mut Self, usize),
    ) -> Option<Verdict> {
        if self.nested() {
            return None;
        }
        while over_limit(limit, self.pkts, self.bytes) {
            let longest = self.longest(by_bytes)?;
            let victim = self.dequeue(longest, ctx)?;
            if self.len_of(longest) == 0 {
                emptied(self, longest);
            }
            if victim == pkt {
                return Some(Verdict::Dropped(DropReason::Overflow));
            }
            ctx.drop_queued(victim, DropReason::Overflow);
        }
        None
    }

    /// Packets waiting in all classes.
    pub fn pkts(&self) -> usize {
        self.pkts
    }

    /// Bytes waiting in all classes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The scheduler's first timer: the nested discipline's period, if it has one.
    pub fn initial_timer(&self) -> Option<(SimTime, u32)> {
        self.template_timer.map(|(d, _)| (d, 0))
    }

    /// Run the nested timers that are due; returns the delay to the next one
    /// (or the template period while no class exists yet).
    pub fn on_timer(&mut self, ctx: &mut QueueCtx) -> Option<SimTime> {
        let (period, _) = self.template_timer?;
        let now = ctx.now;
        let mut next: Option<SimTime> = None;
        for slot in self.slots.iter_mut().flatten() {
            if let ClassQueue::Disc(d) = &mut slot.q {
                if slot.timer_due.is_some_and(|t| t <= now) {
                    let (bp, bb) = (d.len_pkts(), d.len_bytes());
                    let r = d.on_timer(slot.timer_kind, ctx);
                    self.pkts = self.pkts + d.len_pkts() - bp;
                    self.bytes = self.bytes + d.len_bytes() - bb;
                    slot.timer_due = r.map(|x| now + x.max(SimTime(1)));
                }
                if let Some(t) = slot.timer_due {
                    next = Some(next.map_or(t, |n: SimTime| n.min(t)));
                }
            }
        }
        Some(next.map_or(period, |t| t - now))
    }

    /// Whether nested disciplines want reverse-direction packets.
    pub fn wants_reverse(&self) -> bool {
        self.wants_reverse
    }

    /// Show a reverse-direction packet to the class it classifies into.
    pub fn on_reverse_arrival(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> bool {
        let key = self.key(ctx.arena.get(pkt));
        match self.slots.get_mut(key).and_then(|s| s.as_mut()) {
            Some(Slot {
                q: ClassQueue::Disc(d), ..
            }) => d.on_reverse_arrival(pkt, ctx),
            _ => false,
        }
    }
}
