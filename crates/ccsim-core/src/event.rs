//! The event queue: a calendar queue ordered by (time, tie-break key).
//!
//! Events due at the same nanosecond are taken in a fixed order of kinds,
//! then by a key that does not depend on when the event was scheduled:
//!
//! 1. `WindowStart`: the metrics window opens before anything happens at its instant;
//! 2. `LinkFree`, by link: a transmitter that becomes free hands over its next
//!    packet before anything else happens at that instant (departures before
//!    arrivals, the convention of queueing theory);
//! 3. `Arrive`, by packet uid (emission order);
//! 4. timers (flow, queue and medium timers), by insertion order;
//! 5. `Sample`: observation comes after everything else at its instant.
//!
//! With the tie order `fifo` (the `ns2` and `ns3` compatibility profiles)
//! every event between the window's opening and the samples is instead taken
//! in the order it was scheduled, as ns-2's and ns-3's schedulers do; a
//! transmitter becoming free then takes the place in that order of the
//! moment its transmission started (ns-2's `LinkDelay::recv` schedules the
//! queue's resume event then, even when ccsim schedules `LinkFree` later):
//! see [`EventQueue::reserve`]. Decisive in small buffers, where a packet
//! arriving at the instant the link frees up meets a full or an empty buffer
//! depending on this order.
//!
//! ns-2 keeps time in a double, so events that are simultaneous in exact
//! arithmetic (and in ccsim's integer nanoseconds) often are not there: their
//! order is decided by how each time stamp was rounded. Under `fifo` the
//! queue therefore also carries each event's time as ns-2 would compute it
//! (`clock + delay` in f64, [`EventQueue::now64`]), as an offset in units in
//! the last place from the nanosecond's own f64 value, and orders equal
//! nanoseconds by it before scheduling order. The kernel computes a
//! transmission's arrival and end as ns-2's `LinkDelay::recv` does
//! (`clock + (txt + delay)` and `clock + txt`, `txt = 8 size / bandwidth`);
//! other events take `clock + delay`.
//!
//! Because the key of links and packets does not depend on insertion order,
//! the kernel's FIFO fast path (which schedules a packet's arrival when it is
//! accepted, not when it starts transmitting) takes simultaneous events in
//! exactly the same order as the general path. The order is fixed by the
//! program, never by the heap's layout. Events are small `Copy` values
//! carrying indices, not closures.

use crate::packet::{FlowId, LinkId, PacketRef};
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which endpoint of a flow a timer belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// The flow's application.
    App,
    /// The sending transport.
    Sender,
    /// The receiving transport.
    Receiver,
}

/// What happens at an event.
#[derive(Copy, Clone, Debug)]
pub enum EventKind {
    /// A packet finished propagating over `link` and reaches the link's far node.
    Arrive {
        /// The link it crossed.
        link: LinkId,
        /// The packet.
        pkt: PacketRef,
    },
    /// The link finished serializing a packet and may start the next one.
    LinkFree {
        /// The link.
        link: LinkId,
    },
    /// A timer of a flow's application or transport.
    Timer {
        /// The flow.
        flow: FlowId,
        /// Which part of the flow.
        endpoint: Endpoint,
        /// The timer's kind, defined by the owner (16 bits keep events at 32 bytes).
        kind: u16,
        /// Token the owner compares against to ignore cancelled timers.
        token: u64,
    },
    /// A timer owned by a queue discipline (periodic updates, e.g. REM, AVQ, PIE).
    QueueTimer {
        /// The link whose queue owns it.
        link: LinkId,
        /// The timer's kind.
        kind: u32,
    },
    /// An event of a medium ([`crate::medium`]), e.g. a WLAN's contention,
    /// or a transmitter learning the outcome of its attempt.
    Medium {
        /// The medium (its index in `Simulation::media`).
        medium: u32,
        /// The event's kind, defined by the medium.
        kind: u16,
        /// Defined by the medium (e.g. compared against to ignore superseded events).
        token: u64,
    },
    /// Take a time-series sample.
    Sample,
    /// The metrics window opens (end of warmup).
    WindowStart,
}

/// A scheduled event.
#[derive(Copy, Clone, Debug)]
pub struct Event {
    /// When it fires.
    pub time: SimTime,
    /// Tie-break key among events at the same time: the kind's rank in the
    /// top 3 bits, then a link index, packet uid or insertion sequence.
    pub seq: u64,
    /// What it does.
    pub kind: EventKind,
}

impl Event {
    /// The ordering key: time, then insertion sequence, as one 128-bit number.
    #[inline]
    fn key(&self) -> u128 {
        ((self.time.0 as u128) << 64) | self.seq as u128
    }
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    // Reversed so that BinaryHeap (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Buckets of the [`Calendar`]'s wheel (a power of two).
const BUCKETS: usize = 1 << 16;
/// Pops between two looks at the bucket width.
const ADAPT_EVERY: u64 = 1 << 14;
/// Events this late or later stay in the overflow heap (no wheel arithmetic
/// near the end of time).
const FAR: u64 = 1 << 62;

/// A calendar queue (R. Brown, "Calendar queues: a fast O(1) priority queue
/// implementation for the simulation event set problem", CACM 31(10),
/// 1988), in the form of a timing wheel with an overflow heap:
///
/// - the wheel has [`BUCKETS`] buckets of `2^shift` ns each and covers the
///   times `[start, start + BUCKETS << shift)`, `start` being the start of
///   the current bucket; an event goes to the bucket of its time or, beyond
///   the wheel's end, to the overflow heap;
/// - a bucket is a list through a pool of nodes, sorted earliest first,
///   with its first and last node: an event later than the last (most are:
///   events are mostly scheduled in time order) is appended, the others are
///   inserted in order by a walk from the first; the earliest pending event
///   is the current bucket's first, taken from the list as it is;
/// - when the current bucket is empty the wheel advances one bucket, taking
///   the overflow's events that now fall inside it; an empty wheel jumps to
///   the overflow's earliest event;
/// - every [`ADAPT_EVERY`] events the bucket width is set to about four
///   times the mean time between events (everything is re-filed), so that
///   buckets hold a few events whatever the link rates, and the wheel spans
///   about 130,000 events: far enough for the arrivals the FIFO fast path
///   schedules a full queue ahead (with a quarter of that span, 10,000
///   flows behind a bandwidth-delay product of buffer spent 13% of their
///   instructions in the overflow heap).
///
/// Nothing is allocated per event once the pool has grown to the largest
/// number of pending events. Events come out in exactly the order of their
/// keys (time, tie-break), whatever the bucket width, as from a binary heap:
/// no two pending events share a key.
struct Calendar {
    /// Each bucket's list ([`NIL`]: empty); an array, so that the masked
    /// indices need no bounds check.
    buckets: Box<[Bucket; BUCKETS]>,
    /// The lists' nodes; free ones are chained from `free`.
    nodes: Vec<Node>,
    free: u32,
    shift: u32,
    /// Start of the current bucket, ns (a multiple of the width).
    start: u64,
    /// End of the wheel (`start + BUCKETS << shift`, at most [`FAR`]).
    wheel_end: u64,
    /// Index of the current bucket.
    cur: usize,
    /// Events in the wheel.
    in_wheel: usize,
    overflow: BinaryHeap<Event>,
    /// Adaptation: pops and the first pop's time in this period.
    pops: u64,
    period_start: u64,
}

/// A bucket's list: its first and last node, [`NIL`] when empty.
#[derive(Copy, Clone)]
struct Bucket {
    first: u32,
    last: u32,
}

const EMPTY: Bucket = Bucket { first: NIL, last: NIL };

/// A bucket list's node.
#[derive(Copy, Clone)]
struct Node {
    ev: Event,
    next: u32,
}

/// No node.
const NIL: u32 = u32::MAX;

impl Default for Calendar {
    fn default() -> Self {
        Calendar {
            buckets: vec![EMPTY; BUCKETS]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!("BUCKETS buckets")),
            nodes: Vec::new(),
            free: NIL,
            shift: 16,
            start: 0,
            wheel_end: ((BUCKETS as u64) << 16).min(FAR),
            cur: 0,
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            pops: 0,
            period_start: 0,
        }
    }
}

impl Calendar {
    /// Start the current bucket at `start` (a multiple of the width).
    #[inline]
    fn set_start(&mut self, start: u64) {
        self.start = start;
        self.wheel_end = start.saturating_add((BUCKETS as u64) << self.shift).min(FAR);
    }

    #[inline]
    fn len(&self) -> usize {
        self.in_wheel + self.overflow.len()
    }

    /// Schedule `e`: into the wheel inline, into the overflow out of line.
    #[inline(always)]
    fn push(&mut self, e: Event) {
        let t = e.time.0;
        if t < self.wheel_end {
            self.in_wheel += 1;
            // Times before the current bucket's start (none in practice:
            // events are scheduled at the current time or later) are the
            // earliest: the current bucket is theirs too.
            let i = if t >= self.start {
                t >> self.shift
            } else {
                self.cur as u64
            };
            let i = i as usize & (BUCKETS - 1);
            self.file(i, e);
        } else {
            self.push_far(e);
        }
    }

    #[inline(never)]
    fn push_far(&mut self, e: Event) {
        self.overflow.push(e);
    }

    /// Put `ev` in order on bucket `i`'s list: appended when it is the
    /// latest, as usual, or put first when it is the earliest, as most
    /// others are; otherwise inserted by [`Calendar::insert`].
    #[inline(always)]
    fn file(&mut self, i: usize, ev: Event) {
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = Node { ev, next: NIL };
            n
        } else {
            self.nodes.push(Node { ev, next: NIL });
            (self.nodes.len() - 1) as u32
        };
        let b = self.buckets[i];
        let k = ev.key();
        if b.last == NIL {
            self.buckets[i] = Bucket { first: n, last: n };
        } else if self.nodes[b.last as usize].ev.key() < k {
            self.nodes[b.last as usize].next = n;
            self.buckets[i].last = n;
        } else if k < self.nodes[b.first as usize].ev.key() {
            self.nodes[n as usize].next = b.first;
            self.buckets[i].first = n;
        } else {
            self.insert(b.first, n, k);
        }
    }

    /// Insert node `n` (key `k`) in order into the list whose first node,
    /// `p`, is earlier and whose last is later.
    #[inline(never)]
    fn insert(&mut self, mut p: u32, n: u32, k: u128) {
        loop {
            let q = self.nodes[p as usize].next;
            if k < self.nodes[q as usize].ev.key() {
                self.nodes[n as usize].next = q;
                self.nodes[p as usize].next = n;
                return;
            }
            p = q;
        }
    }

    /// The earliest event, removed.
    #[inline]
    fn pop(&mut self) -> Option<Event> {
        loop {
            let cur = self.cur & (BUCKETS - 1);
            let b = self.buckets[cur];
            if b.first != NIL {
                let Node { ev, next } = self.nodes[b.first as usize];
                self.buckets[cur] = if next == NIL {
                    EMPTY
                } else {
                    Bucket {
                        first: next,
                        last: b.last,
                    }
                };
                self.nodes[b.first as usize].next = self.free;
                self.free = b.first;
                self.in_wheel -= 1;
                self.pops += 1;
                if self.pops == ADAPT_EVERY {
                    self.adapt(ev.time.0);
                }
                return Some(ev);
            }
            if self.in_wheel == 0 {
                let t = self.overflow.peek()?.time.0;
                if t >= FAR {
                    return self.overflow.pop();
                }
                self.jump(t);
            } else {
                self.advance();
            }
        }
    }

    /// The earliest event's time.
    fn peek_time(&self) -> Option<SimTime> {
        let mut keys: Vec<u128> = Vec::new();
        for b in self.buckets.iter() {
            let mut n = b.first;
            while n != NIL {
                keys.push(self.nodes[n as usize].ev.key());
                n = self.nodes[n as usize].next;
            }
        }
        keys.extend(self.overflow.peek().map(|e| e.key()));
        keys.into_iter().min().map(|k| SimTime((k >> 64) as u64))
    }

    /// Move to the next bucket, taking the overflow's events that the
    /// wheel's new end reaches.
    #[inline]
    fn advance(&mut self) {
        let width = 1 << self.shift;
        self.start += width;
        // (The wheel's end is at most FAR, 2^62, and the width at most 2^40.)
        self.wheel_end = (self.wheel_end + width).min(FAR);
        self.cur = (self.cur + 1) & (BUCKETS - 1);
        if self.overflow.peek().is_some_and(|e| e.time.0 < self.wheel_end) {
            self.take_overflow();
        }
    }

    /// The wheel is empty: start it at the bucket of time `t`.
    fn jump(&mut self, t: u64) {
        self.set_start((t >> self.shift) << self.shift);
        self.cur = ((t >> self.shift) as usize) & (BUCKETS - 1);
        self.take_overflow();
    }

    #[inline(never)]
    fn take_overflow(&mut self) {
        let end = self.wheel_end;
        while self.overflow.peek().is_some_and(|e| e.time.0 < end) {
            let e = self.overflow.pop().expect("peeked");
            self.push(e);
        }
    }

    /// Set the bucket width from the mean time between the last
    /// [`ADAPT_EVERY`] events (`now`: the last one's time).
    fn adapt(&mut self, now: u64) {
        let gap = (now.saturating_sub(self.period_start) / ADAPT_EVERY).max(1);
        self.pops = 0;
        self.period_start = now;
        // About four events per bucket: 2^shift close to 4 gap.
        let want = (64 - (2 * gap).leading_zeros()).clamp(4, 40);
        if want.abs_diff(self.shift) < 2 {
            return;
        }
        // Re-file every event under the new width, all through the overflow.
        let mut all: Vec<Event> = std::mem::take(&mut self.overflow).into_vec();
        for b in self.buckets.iter_mut() {
            let mut n = std::mem::replace(b, EMPTY).first;
            while n != NIL {
                all.push(self.nodes[n as usize].ev);
                n = self.nodes[n as usize].next;
            }
        }
        self.nodes.clear();
        self.free = NIL;
        self.overflow = BinaryHeap::from(all);
        self.in_wheel = 0;
        self.shift = want;
        self.jump(now);
    }
}

const SUB_MASK: u64 = (1 << 61) - 1;
const RANK_WINDOW: u64 = 0;
const RANK_LINK_FREE: u64 = 1 << 61;
const RANK_ARRIVE: u64 = 2 << 61;
const RANK_TIMER: u64 = 3 << 61;
const RANK_SAMPLE: u64 = 4 << 61;
/// Every event but the window's opening and the samples, under `fifo`.
const RANK_FIFO: u64 = RANK_LINK_FREE;
/// Under `fifo`: the low bits of the key hold the scheduling order, the
/// 16 bits above it the ns-2 clock's offset from the nanosecond, in ulps.
const ORDER_BITS: u32 = 40;
const ORDER_MASK: u64 = (1 << ORDER_BITS) - 1;
const ULP_SPAN: i64 = (1 << 15) - 1;

/// `t` in seconds, correctly rounded (as ns-2 reads "20ms" or a start time).
#[inline]
pub fn ns_as_secs(t: SimTime) -> f64 {
    crate::time::u64_as_f64(t.0) / 1e9
}

/// The pending events of a simulation.
#[derive(Default)]
pub struct EventQueue {
    heap: Calendar,
    seq: u64,
    /// Ties in scheduling order (`fifo`) instead of by kind.
    fifo: bool,
    /// Under `fifo`: equal nanoseconds are ordered first by ns-2's double
    /// clock (ns-2), or only by scheduling order (ns-3's integer clock).
    double_clock: bool,
    /// Under `fifo`: the time of the event being processed, in nanoseconds
    /// and as ns-2's double clock.
    now: SimTime,
    now64: f64,
    /// Under `fifo`: the tie-break key of the event being processed.
    now_seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Take simultaneous events in scheduling order (`true`) or by kind.
    pub fn set_fifo(&mut self, fifo: bool) {
        self.fifo = fifo;
        self.double_clock = fifo;
    }

    /// Under `fifo`: order equal nanoseconds by ns-2's double clock first
    /// (`true`, the default of [`EventQueue::set_fifo`]) or by scheduling
    /// order alone (`false`: ns-3's `Time` is an integer count of
    /// nanoseconds and `DefaultSimulatorImpl` orders equal times by uid).
    pub fn set_double_clock(&mut self, on: bool) {
        self.double_clock = on;
    }

    /// Whether simultaneous events are taken in scheduling order.
    pub fn is_fifo(&self) -> bool {
        self.fifo
    }

    /// Under `fifo`: the current event's time as ns-2's double clock.
    #[inline]
    pub fn now64(&self) -> f64 {
        self.now64
    }

    /// The `fifo` key of an event at `time` (ns-2 clock `t64`) placed
    /// `order`-th in scheduling order.
    #[inline]
    fn fifo_key(&self, time: SimTime, t64: f64, order: u64) -> u64 {
        let ulps = if self.double_clock {
            (t64.to_bits() as i64 - ns_as_secs(time).to_bits() as i64).clamp(-ULP_SPAN, ULP_SPAN)
        } else {
            0
        };
        RANK_FIFO | (((ulps + ULP_SPAN) as u64) << ORDER_BITS) | (order & ORDER_MASK)
    }

    /// Schedule `kind` at `time`. Packet arrivals should go through
    /// [`EventQueue::push_arrival`], which keys them by packet uid.
    #[inline]
    pub fn push(&mut self, time: SimTime, kind: EventKind) {
        self.seq += 1;
        let tie = match kind {
            EventKind::WindowStart => RANK_WINDOW | self.seq,
            EventKind::Sample => RANK_SAMPLE | self.seq,
            _ if self.fifo => self.fifo_key(time, self.clock64(time), self.seq),
            EventKind::LinkFree { link } => RANK_LINK_FREE | link.0 as u64,
            EventKind::Arrive { .. } => RANK_ARRIVE | self.seq,
            _ => RANK_TIMER | self.seq,
        };
        self.heap.push(Event { time, seq: tie, kind });
    }

    /// ns-2's `clock + delay` for an event at `time` scheduled now.
    #[inline]
    fn clock64(&self, time: SimTime) -> f64 {
        self.now64 + ns_as_secs(SimTime(time.0.saturating_sub(self.now.0)))
    }

    /// Schedule `kind` at `time`, at `t64` on ns-2's clock (used under `fifo`).
    #[inline]
    pub fn push_at(&mut self, time: SimTime, t64: f64, kind: EventKind) {
        if self.fifo {
            self.seq += 1;
            let seq = self.fifo_key(time, t64, self.seq);
            self.heap.push(Event { time, seq, kind });
        } else {
            self.push(time, kind);
        }
    }

    /// Schedule the arrival of packet `uid` over `link` at `time` (`t64` on
    /// ns-2's clock, used under `fifo`).
    #[inline(always)]
    pub fn push_arrival(&mut self, time: SimTime, t64: f64, link: LinkId, pkt: PacketRef, uid: u64) {
        let seq = if self.fifo {
            self.seq += 1;
            self.fifo_key(time, t64, self.seq)
        } else {
            RANK_ARRIVE | (uid & SUB_MASK)
        };
        self.heap.push(Event {
            time,
            seq,
            kind: EventKind::Arrive { link, pkt },
        });
    }

    /// A place in the scheduling order, taken now for an event that may be
    /// scheduled later with [`EventQueue::push_reserved`].
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Under `fifo`: whether an event for the current nanosecond, at `t64` on
    /// ns-2's clock and in the place `reserved` of the scheduling order,
    /// comes after the event being processed, so that in ns-2 it has not
    /// happened yet although its nanosecond has come. False under `kind`.
    #[inline]
    pub fn reserved_is_later(&self, time: SimTime, t64: f64, reserved: u64) -> bool {
        self.fifo && time == self.now && self.fifo_key(time, t64, reserved) > self.now_seq
    }

    /// Schedule `kind` at `time` (`t64` on ns-2's clock) in the place
    /// `reserved` (under the `fifo` order; by kind otherwise, as
    /// [`EventQueue::push`]).
    #[inline]
    pub fn push_reserved(&mut self, time: SimTime, t64: f64, kind: EventKind, reserved: u64) {
        if self.fifo {
            self.heap.push(Event {
                time,
                seq: self.fifo_key(time, t64, reserved),
                kind,
            });
        } else {
            self.push(time, kind);
        }
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let ev = self.heap.pop()?;
        if self.fifo {
            self.now = ev.time;
            self.now_seq = ev.seq;
            let base = ns_as_secs(ev.time);
            self.now64 = if ev.seq & !SUB_MASK == RANK_FIFO {
                let ulps = ((ev.seq & SUB_MASK) >> ORDER_BITS) as i64 - ULP_SPAN;
                f64::from_bits((base.to_bits() as i64 + ulps) as u64)
            } else {
                base
            };
        }
        Some(ev)
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek_time()
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_stay_small() {
        // The heap moves events around on every push and pop.
        assert_eq!(std::mem::size_of::<Event>(), 32);
    }

    #[test]
    fn ties_break_by_kind_then_key() {
        let mut q = EventQueue::new();
        q.push(SimTime(3), EventKind::Sample);
        q.push(
            SimTime(3),
            EventKind::QueueTimer {
                link: LinkId(0),
                kind: 0,
            },
        );
        q.push_arrival(SimTime(3), 0.0, LinkId(0), PacketRef(0), 9);
        q.push_arrival(SimTime(3), 0.0, LinkId(0), PacketRef(1), 4);
        q.push(SimTime(3), EventKind::LinkFree { link: LinkId(2) });
        q.push(SimTime(3), EventKind::LinkFree { link: LinkId(1) });
        q.push(SimTime(3), EventKind::WindowStart);
        q.push(SimTime(1), EventKind::Sample);
        let order: Vec<String> = std::iter::from_fn(|| q.pop())
            .map(|e| match e.kind {
                EventKind::WindowStart => format!("{} window", e.time.0),
                EventKind::LinkFree { link } => format!("{} free{}", e.time.0, link.0),
                EventKind::Arrive { pkt, .. } => format!("{} arrive{}", e.time.0, pkt.0),
                EventKind::Sample => format!("{} sample", e.time.0),
                _ => format!("{} timer", e.time.0),
            })
            .collect();
        assert_eq!(
            order,
            [
                "1 sample",
                "3 window",
                "3 free1",
                "3 free2",
                "3 arrive1",
                "3 arrive0",
                "3 timer",
                "3 sample"
            ]
        );
    }

    /// The calendar pops exactly what a binary heap pops, through changes of
    /// density (the bucket width adapts), far events in the overflow, an
    /// emptied wheel, events at the current time and in the past.
    #[test]
    fn calendar_pops_in_key_order_like_a_heap() {
        let mut rng = crate::rng::stream(7, "calendar-test");
        let mut cal = Calendar::default();
        let mut heap = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let phases: [(u64, u64); 5] = [
            (1_000, 40_000),
            (1_000_000, 40_000),
            (50, 60_000),
            (0, 100),
            (2_000_000_000, 5_000),
        ];
        for (scale, steps) in phases {
            for _ in 0..steps {
                let u = crate::rng::uniform01(&mut rng);
                let n_push = if u < 0.45 {
                    2
                } else if u < 0.9 {
                    1
                } else {
                    0
                };
                for _ in 0..n_push {
                    let v = crate::rng::uniform01(&mut rng);
                    let time = if v < 0.02 {
                        now.saturating_sub(1 + (v * 1e6) as u64 % (scale * 20 + 1))
                    // in the past
                    } else if v < 0.1 {
                        now // same instant: the tie-break decides
                    } else if v < 0.12 {
                        now + (1 << 40) // far: the overflow
                    } else if v < 0.121 {
                        u64::MAX - seq // beyond the wheel's arithmetic
                    } else {
                        now + (crate::rng::uniform01(&mut rng) * (scale * 50) as f64) as u64
                    };
                    seq += 1;
                    let e = Event {
                        time: SimTime(time),
                        seq: seq ^ 0x5555,
                        kind: EventKind::Sample,
                    };
                    cal.push(e);
                    heap.push(e);
                }
                if crate::rng::uniform01(&mut rng) < 0.5 || n_push == 0 {
                    let (a, b) = (cal.pop(), heap.pop());
                    assert_eq!(a.map(|e| e.key()), b.map(|e| e.key()));
                    if let Some(e) = a {
                        now = now.max(e.time.0);
                    }
                }
                assert_eq!(cal.len(), heap.len());
            }
        }
        while let Some(b) = heap.pop() {
            assert_eq!(cal.pop().map(|e| e.key()), Some(b.key()));
        }
        assert!(cal.pop().is_none());
    }

    #[test]
    fn fifo_ties_follow_scheduling_order() {
        let mut q = EventQueue::new();
        q.set_fifo(true);
        q.push(SimTime(3), EventKind::Sample);
        let t = ns_as_secs(SimTime(3));
        q.push_arrival(SimTime(3), t, LinkId(0), PacketRef(0), 9);
        // A transmission starts: its free event's place is taken now...
        let place = q.reserve();
        q.push_arrival(SimTime(3), t, LinkId(0), PacketRef(1), 4);
        q.push(SimTime(3), EventKind::WindowStart);
        // ... and the event is scheduled later.
        q.push_reserved(SimTime(3), t, EventKind::LinkFree { link: LinkId(1) }, place);
        let order: Vec<String> = std::iter::from_fn(|| q.pop())
            .map(|e| match e.kind {
                EventKind::WindowStart => "window".to_string(),
                EventKind::LinkFree { link } => format!("free{}", link.0),
                EventKind::Arrive { pkt, .. } => format!("arrive{}", pkt.0),
                _ => "sample".to_string(),
            })
            .collect();
        assert_eq!(order, ["window", "arrive0", "free1", "arrive1", "sample"]);
    }

    #[test]
    fn fifo_ties_follow_ns2_clock_rounding() {
        // Two events at the same nanosecond whose double-clock times differ
        // in the last place: the earlier double comes first, whatever the
        // scheduling order; the popped event restores the double clock.
        let mut q = EventQueue::new();
        q.set_fifo(true);
        let t = SimTime::from_micros(299_504);
        let exact = ns_as_secs(t);
        let later = f64::from_bits(exact.to_bits() + 1);
        let earlier = f64::from_bits(exact.to_bits() - 1);
        q.push_arrival(t, later, LinkId(0), PacketRef(0), 1);
        q.push_at(t, earlier, EventKind::LinkFree { link: LinkId(0) });
        let first = q.pop().unwrap();
        assert!(matches!(first.kind, EventKind::LinkFree { .. }));
        assert_eq!(q.now64(), earlier);
        assert!(matches!(q.pop().unwrap().kind, EventKind::Arrive { .. }));
        assert_eq!(q.now64(), later);
        // (0.298672 + 0.000832) and (0.29742 + (0.0000832 + 0.002)) are the
        // same microsecond, but not the same double.
        let a: f64 = 0.298672 + 8.0 * 1040.0 / 1e7;
        let b: f64 = 0.29742 + (8.0 * 1040.0 / 1e8 + 0.002);
        assert_ne!(a.to_bits(), b.to_bits());
    }

    #[test]
    fn integer_clock_ties_follow_scheduling_order_alone() {
        // ns-3's clock is an integer count of nanoseconds: an arrival
        // scheduled before a transmitter's end at the same nanosecond comes
        // first even when ns-2's double clock would put it one ulp later.
        let mut q = EventQueue::new();
        q.set_fifo(true);
        q.set_double_clock(false);
        let t = SimTime::from_micros(299_504);
        let exact = ns_as_secs(t);
        let later = f64::from_bits(exact.to_bits() + 1);
        let earlier = f64::from_bits(exact.to_bits() - 1);
        q.push_arrival(t, later, LinkId(0), PacketRef(0), 1);
        q.push_at(t, earlier, EventKind::LinkFree { link: LinkId(0) });
        assert!(matches!(q.pop().unwrap().kind, EventKind::Arrive { .. }));
        assert!(matches!(q.pop().unwrap().kind, EventKind::LinkFree { .. }));
        // A reservation taken before the arrival comes before it.
        let reserved = q.reserve();
        q.push_arrival(t, exact, LinkId(0), PacketRef(0), 1);
        q.pop().unwrap();
        assert!(!q.reserved_is_later(t, later, reserved));
    }

    #[test]
    fn a_reserved_resume_later_on_the_double_clock_has_not_happened_yet() {
        // The arrival being processed and a transmission's end reserved
        // earlier fall in the same nanosecond; on ns-2's clock the end is
        // one ulp later, so ns-2 has not resumed the queue yet.
        let mut q = EventQueue::new();
        q.set_fifo(true);
        let t = SimTime::from_nanos(52_165_760);
        let exact = ns_as_secs(t);
        let reserved = q.reserve();
        q.push_arrival(t, exact, LinkId(0), PacketRef(0), 1);
        q.pop().unwrap();
        let later = f64::from_bits(exact.to_bits() + 1);
        assert!(q.reserved_is_later(t, later, reserved));
        // The same double: the reservation (scheduled first) came first.
        assert!(!q.reserved_is_later(t, exact, reserved));
        // Another nanosecond, or ties by kind: not this rule.
        assert!(!q.reserved_is_later(SimTime(t.0 + 1), later, reserved));
        let mut k = EventQueue::new();
        k.push_arrival(t, exact, LinkId(0), PacketRef(0), 1);
        k.pop().unwrap();
        assert!(!k.reserved_is_later(t, later, 0));
    }
}
