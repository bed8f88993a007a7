//! Queue disciplines: one trait, one bookkeeping wrapper, one file per algorithm.
//!
//! The shape follows ns-3's `QueueDisc`: the kernel calls [`Queue::enqueue`]
//! and [`Queue::dequeue`], which do all the counting and then call the
//! discipline's own [`QueueDisc::enqueue`] / [`QueueDisc::dequeue`]. A
//! discipline only decides; it never counts. Its drops are reported with a
//! [`DropReason`] and land in one [`QueueStats`] whose identities
//! (`arrivals = enqueued + drops_on_arrival`,
//! `enqueued + backlog_start = dequeued + drops_in_queue + backlog_end`)
//! are checked by the tests.
//!
//! A new discipline is one file implementing [`QueueDisc`] plus one line in
//! [`registry`]; the kernel is not touched.

pub mod droptail;
pub mod registry;
pub mod step_mark;

// RED family and price/rate-based AQMs: red, gred, ared, nlred, lired, wred,
// rio, modred, rem, avq, pi. Modules go below this line.
pub mod ared;
pub mod avq;
pub mod modred;
pub mod pi;
pub mod prob_drop;
pub mod red;
pub mod red_buffer;
pub mod red_core;
pub mod rem;
pub mod rio;
pub mod wred;

// Fair queueing, schedulers and delay-based AQMs: blue, sfb, sred, fred,
// choke, sfq, drr, rr, codel, cobalt, cake, fq_codel, pie. Modules go below this line.
pub mod blue;
pub mod cake;
pub mod choke;
pub mod classq;
pub mod cobalt;
pub mod codel;
pub mod drr;
pub mod dualpi2;
pub mod flowq;
pub mod fq_codel;
pub mod fred;
pub mod pie;
pub mod rr;
pub mod sfb;
pub mod sfq;
pub mod sred;
#[cfg(test)]
pub(crate) mod testutil;

use crate::packet::{Ecn, PacketArena, PacketRef};
use crate::rng::SimRng;
use crate::time::SimTime;

/// Why a packet was dropped by a queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full (tail drop, or push-out to make room).
    Overflow,
    /// An AQM dropped it unconditionally (e.g. RED above max_th).
    Forced,
    /// An AQM dropped it at random before the buffer filled ("early" drop).
    Early,
}

/// What the discipline did with an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The packet is now in the queue (possibly marked CE).
    Enqueued,
    /// The arriving packet is dropped; the wrapper frees it.
    Dropped(DropReason),
}

/// Everything a discipline may use while deciding. Time is an argument, so a
/// discipline is a pure state machine that unit tests can drive directly.
pub struct QueueCtx<'a> {
    /// Current simulated time.
    pub now: SimTime,
    /// The packets (read sizes, flows, classes; set CE).
    pub arena: &'a mut PacketArena,
    /// The discipline's own random stream.
    pub rng: &'a mut SimRng,
    /// Rate of the link this queue feeds, in bits per second.
    pub link_rate_bps: u64,
    /// Packets that were already in the queue and are dropped now (push-out,
    /// head drop, CoDel's dequeue drops). Filled through [`QueueCtx::drop_queued`].
    dropped: &'a mut Vec<(PacketRef, DropReason)>,
    marks: u64,
}

impl<'a> QueueCtx<'a> {
    /// A context (used by the wrapper and by unit tests of disciplines).
    pub fn new(
        now: SimTime,
        arena: &'a mut PacketArena,
        rng: &'a mut SimRng,
        link_rate_bps: u64,
        dropped: &'a mut Vec<(PacketRef, DropReason)>,
    ) -> Self {
        QueueCtx {
            now,
            arena,
            rng,
            link_rate_bps,
            dropped,
            marks: 0,
        }
    }

    /// Report that a packet that had been enqueued is dropped now.
    pub fn drop_queued(&mut self, pkt: PacketRef, reason: DropReason) {
        self.dropped.push((pkt, reason));
    }

    /// Mark a packet Congestion Experienced if it is ECN-capable; returns
    /// whether it was marked (false means the caller should drop instead).
    pub fn mark(&mut self, pkt: PacketRef) -> bool {
        let p = self.arena.get_mut(pkt);
        match p.ecn {
            Ecn::Ect | Ecn::Ect1 => {
                p.ecn = Ecn::Ce;
                self.marks += 1;
                true
            }
            Ecn::Ce => true,
            Ecn::NotEct => false,
        }
    }

    /// Marks made through this context.
    pub fn marks(&self) -> u64 {
        self.marks
    }
}

/// A queue discipline: decides which packets to keep, drop, mark and send next.
pub trait QueueDisc: Send {
    /// The discipline's name as written in scenarios (`kind`).
    fn kind(&self) -> &'static str;
    /// Offer an arriving packet.
    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict;
    /// Take the next packet to transmit, if any. May drop queued packets
    /// through [`QueueCtx::drop_queued`].
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef>;
    /// Packets waiting.
    fn len_pkts(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// Packets and bytes waiting, in one call: the wrapper ([`Queue`])
    /// reads them once after each call that may change them and keeps
    /// them, instead of calling through the vtable whenever it needs them.
    fn lengths(&self) -> (usize, u64) {
        (self.len_pkts(), self.len_bytes())
    }
    /// Names of the internal quantities this discipline exposes as time
    /// series (e.g. RED's `avg`, `drop_prob`). Empty by default.
    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Current values of the probes, in the order of [`QueueDisc::probe_names`].
    fn probe_values(&self, _out: &mut Vec<f64>) {}
    /// For a discipline that is not work-conserving (CAKE's shaper): after
    /// a dequeue that released nothing while packets wait, the time at
    /// which it will release one. The kernel tries the transmitter again
    /// then, as Linux's `qdisc_watchdog_schedule_ns` does. Default: `None`
    /// (a discipline that holds packets always releases one).
    fn next_release(&self) -> Option<SimTime> {
        None
    }
    /// Whether the discipline may hold packets back while the transmitter
    /// is idle (a shaper; see [`QueueDisc::next_release`]). Checked once when
    /// the simulation is built: a WLAN interface, whose MAC does not wait
    /// for a release time, refuses such a discipline.
    fn shapes(&self) -> bool {
        false
    }
    /// First periodic timer the discipline wants (e.g. REM's price update),
    /// relative to the start of the run: (delay, kind).
    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        None
    }
    /// A timer fired; return the delay until the next one of this kind, if any.
    fn on_timer(&mut self, _kind: u32, _ctx: &mut QueueCtx) -> Option<SimTime> {
        None
    }
    /// If this discipline is a plain tail-drop FIFO, its limit. The kernel
    /// then bypasses it (see [`Queue::fast_offer`]): a FIFO fixes each
    /// packet's transmission start when the packet is accepted, so a hop
    /// costs one event instead of two. Default: not a plain FIFO.
    fn as_tail_drop_fifo(&self) -> Option<droptail::Limit> {
        None
    }
    /// Whether the discipline wants to see packets travelling the opposite
    /// direction (arrivals over the reverse link of the same duplex pair).
    /// Checked once when the simulation is built.
    fn wants_reverse(&self) -> bool {
        false
    }
    /// A packet arrived at this queue's node over the reverse link (for
    /// example an ACK on its way back to a sender). The discipline may rewrite
    /// it (ModRED rewrites the advertised window); return true if it did.
    fn on_reverse_arrival(&mut self, _pkt: PacketRef, _ctx: &mut QueueCtx) -> bool {
        false
    }
}

/// Counters of one queue. In [`Queue::stats`] the counters are running
/// totals since the queue was built (they only grow) and the extrema
/// (`max_len_pkts`, `min_len_pkts`, `sojourn_max_ns`) are over the metrics
/// window; [`Queue::window_stats`] gives everything over the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueStats {
    /// Packets offered to the queue.
    pub arrivals: u64,
    /// Packets accepted.
    pub enqueued: u64,
    /// Packets handed to the link for transmission.
    pub dequeued: u64,
    /// All drops (on arrival and from inside the queue).
    pub drops: u64,
    /// Drops of arriving packets (so `arrivals = enqueued + drops_on_arrival`).
    pub drops_on_arrival: u64,
    /// Drops of packets that had been enqueued (push-out, head drop, CoDel).
    pub drops_in_queue: u64,
    /// Random (early) AQM drops.
    pub early_drops: u64,
    /// Unconditional drops: buffer overflow or an AQM's forced region.
    pub forced_drops: u64,
    /// ECN CE marks.
    pub marks: u64,
    /// Packets travelling the other way that the discipline rewrote (ModRED).
    pub rewrites: u64,
    /// Bytes offered.
    pub arrival_bytes: u64,
    /// Bytes dropped.
    pub drop_bytes: u64,
    /// Sum of sojourn times (enqueue to start of transmission) of dequeued packets, ns.
    pub sojourn_sum_ns: u128,
    /// Largest sojourn seen, ns.
    pub sojourn_max_ns: u64,
    /// Packets waiting when the window opened (0 in the running totals).
    pub backlog_start: u64,
    /// Integral of the length in packets over time, packet-ns.
    pub len_pkts_integral: u128,
    /// Integral of the length in bytes over time, byte-ns.
    pub len_bytes_integral: u128,
    /// Largest length seen, packets.
    pub max_len_pkts: u64,
    /// Smallest length seen, packets.
    pub min_len_pkts: u64,
}

/// A packet accepted by a bypassed FIFO: when it arrived, when its
/// transmission starts, its size.
#[derive(Copy, Clone, Debug)]
struct Scheduled {
    enqueued: SimTime,
    start: SimTime,
    size: u32,
}

/// The FIFO fast path: packets whose transmission start is already fixed
/// and still in the future, i.e. the packets waiting.
struct FastFifo {
    limit: droptail::Limit,
    waiting: std::collections::VecDeque<Scheduled>,
    bytes: u64,
}

/// A discipline plus its bookkeeping: statistics, time-averaged length, its
/// random stream. This is what a link holds.
///
/// For a plain tail-drop FIFO the wrapper takes the fast path: the kernel
/// asks [`Queue::fast_offer`] at arrival, which either drops the packet or
/// records when its transmission will start; the packet's departure is
/// then retired lazily by [`Queue::sync`], which replays the departures in
/// time order so every statistic (lengths, their time integrals, sojourn,
/// minimum and maximum) is exactly what the slow path would count.
pub struct Queue {
    disc: Box<dyn QueueDisc>,
    /// The discipline's length (packets, bytes) since the last call into
    /// it that may have changed it ([`Queue::refresh_len`]).
    disc_len: (usize, u64),
    fast: Option<FastFifo>,
    /// For a plain tail-drop FIFO, its limit, also on the general path (see
    /// [`Queue::try_pass_through`]).
    pass_limit: Option<droptail::Limit>,
    rng: SimRng,
    /// Running counters (see [`QueueStats`]).
    pub stats: QueueStats,
    /// `stats` when the metrics window opened, with `backlog_start` the
    /// length then ([`Queue::window_stats`]).
    window_start: QueueStats,
    last_change: SimTime,
    counting: bool,
    /// How the scenario configured this queue (set by the builder for the
    /// results' `components`).
    pub config: Option<Box<crate::results::QueueComponent>>,
}

impl Queue {
    /// Wrap a discipline.
    pub fn new(disc: Box<dyn QueueDisc>, rng: SimRng) -> Self {
        let pass_limit = disc.as_tail_drop_fifo();
        let fast = pass_limit.map(|limit| FastFifo {
            limit,
            waiting: std::collections::VecDeque::new(),
            bytes: 0,
        });
        Queue {
            disc_len: disc.lengths(),
            disc,
            fast,
            pass_limit,
            rng,
            stats: QueueStats::default(),
            window_start: QueueStats::default(),
            last_change: SimTime::ZERO,
            counting: true,
            config: None,
        }
    }

    /// Wrap a discipline for a transmitter that is not a plain serializer
    /// (an 802.11 interface, whose MAC decides when the next packet leaves):
    /// always the general path, even for a tail-drop FIFO.
    pub fn general(disc: Box<dyn QueueDisc>, rng: SimRng) -> Self {
        let mut q = Queue::new(disc, rng);
        q.fast = None;
        q.pass_limit = None;
        q
    }

    /// Take the general path from now on (the scenario's tie order is
    /// `fifo`, under which the fast path's precomputed departures would not
    /// meet same-instant arrivals in scheduling order).
    pub fn disable_fast_path(&mut self) {
        self.fast = None;
    }

    /// The discipline's name.
    pub fn kind(&self) -> &'static str {
        self.disc.kind()
    }

    /// The discipline (for probes).
    pub fn disc(&self) -> &dyn QueueDisc {
        self.disc.as_ref()
    }

    /// Packets waiting.
    #[inline]
    pub fn len_pkts(&self) -> usize {
        match &self.fast {
            Some(f) => f.waiting.len(),
            None => self.disc_len.0,
        }
    }

    /// Bytes waiting.
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        match &self.fast {
            Some(f) => f.bytes,
            None => self.disc_len.1,
        }
    }

    /// Whether the kernel should use the FIFO fast path for this queue.
    #[inline]
    pub fn is_fast_fifo(&self) -> bool {
        self.fast.is_some()
    }

    /// Fast path: retire the packets whose transmission has started by `now`,
    /// in time order, as their dequeues. A no-op for other disciplines.
    #[inline]
    pub fn sync(&mut self, now: SimTime) {
        // Most calls find nothing to retire: test that inline, so the loop's
        // call (and its register saves) is paid only when a packet departs.
        if self
            .fast
            .as_ref()
            .and_then(|f| f.waiting.front())
            .is_some_and(|e| e.start <= now)
        {
            self.retire(now, true);
        }
    }

    /// Retire departures strictly before `now` (or up to and including it).
    /// The window opens before the departures of its own instant, as the
    /// event order puts `WindowStart` before `LinkFree`. Out of line, as
    /// before the departure itself was ([`Queue::sync`] tests inline whether
    /// there is one).
    #[inline(never)]
    fn retire(&mut self, now: SimTime, inclusive: bool) {
        loop {
            let Some(f) = self.fast.as_mut() else { return };
            let Some(&e) = f.waiting.front() else { return };
            if e.start > now || (!inclusive && e.start == now) {
                return;
            }
            self.depart(e);
        }
    }

    /// Fast path: the transmission of `e`, the oldest waiting packet, has
    /// started: its dequeue. Out of line: inlined into the loop above,
    /// LLVM kept every counter in a register across it, loading and storing
    /// them all for the one or two departures a call usually finds.
    #[inline(never)]
    fn depart(&mut self, e: Scheduled) {
        self.integrate(e.start);
        let f = self
            .fast
            .as_mut()
            .expect("retire calls depart only when the fast path exists");
        f.waiting.pop_front();
        f.bytes -= e.size as u64;
        if self.counting {
            self.stats.dequeued += 1;
            let s = (e.start - e.enqueued).0;
            self.stats.sojourn_sum_ns += s as u128;
            self.stats.sojourn_max_ns = self.stats.sojourn_max_ns.max(s);
        }
        self.note_len();
    }

    /// Fast path: offer a packet whose transmission would start at `start`
    /// (when the transmitter is free of everything accepted before it).
    /// Returns false, and counts the drop, if the buffer is full; the caller
    /// frees the packet. `size` is the packet's (read once by the caller).
    pub fn fast_offer(&mut self, pkt: PacketRef, size: u32, now: SimTime, start: SimTime, arena: &PacketArena) -> bool {
        self.sync(now);
        if start == now
            && self
                .fast
                .as_ref()
                .is_some_and(|f| f.waiting.is_empty() && f.limit.fits(0, 0, size))
        {
            self.pass_through(size, now);
            return true;
        }
        self.integrate(now);
        if self.counting {
            self.stats.arrivals += 1;
            self.stats.arrival_bytes += size as u64;
        }
        let f = self
            .fast
            .as_mut()
            .expect("the kernel calls fast_offer only when is_fast_fifo()");
        if !f.limit.fits(f.waiting.len(), f.bytes, size) {
            self.count_drop(arena, pkt, DropReason::Overflow);
            if self.counting {
                self.stats.drops_on_arrival += 1;
            }
            return false;
        }
        f.waiting.push_back(Scheduled {
            enqueued: now,
            start,
            size,
        });
        f.bytes += size as u64;
        if self.counting {
            self.stats.enqueued += 1;
        }
        self.note_len();
        // A packet that starts at once is dequeued at once, as on the slow path.
        self.sync(now);
        true
    }

    /// Fast path, idle transmitter: a packet accepted into the empty queue
    /// starts at once. What the general case below counts for it, without
    /// the queue entry: its arrival, enqueue and dequeue (sojourn zero), the
    /// length's excursion to one and back to zero, no length integral (the
    /// queue was and stays empty, so only the integral's start moves).
    #[inline]
    fn pass_through(&mut self, size: u32, now: SimTime) {
        if self.counting {
            self.last_change = now;
            self.stats.arrivals += 1;
            self.stats.arrival_bytes += size as u64;
            self.stats.enqueued += 1;
            self.stats.dequeued += 1;
        }
        self.stats.max_len_pkts = self.stats.max_len_pkts.max(1);
        self.stats.min_len_pkts = 0;
    }

    /// General path of a plain tail-drop FIFO (the fast path is off under the
    /// `fifo` tie order), transmitter idle: if the queue is empty and the
    /// packet fits, count its arrival, enqueue and immediate dequeue as
    /// [`Queue::enqueue`] and [`Queue::dequeue`] would (the discipline's FIFO
    /// would hold it for no time, so it is not touched) and return true: the
    /// caller transmits the packet at once. Otherwise false, nothing done.
    #[inline]
    pub fn try_pass_through(&mut self, pkt: PacketRef, now: SimTime, arena: &mut PacketArena) -> bool {
        let Some(limit) = self.pass_limit else { return false };
        let p = arena.get_mut(pkt);
        if self.fast.is_some() || self.disc_len.0 != 0 || !limit.fits(0, 0, p.size) {
            return false;
        }
        p.enqueued_at = now;
        let size = p.size;
        self.pass_through(size, now);
        true
    }

    /// Fast path: bytes and packets accepted whose transmission starts at or
    /// after `now` and no later than `end` (for the link counters when the window opens).
    pub fn fast_pending(&self, now: SimTime, end: SimTime) -> (u64, u64) {
        match &self.fast {
            Some(f) => f
                .waiting
                .iter()
                .filter(|e| e.start >= now && e.start <= end)
                .fold((0, 0), |(p, b), e| (p + 1, b + e.size as u64)),
            None => (0, 0),
        }
    }

    /// The metrics window opens: snapshot the counters (the length
    /// integrals brought up to `now`) and restart the extrema (the queue's
    /// contents stay, counted as `backlog_start`).
    pub fn open_window(&mut self, now: SimTime) {
        self.retire(now, false);
        self.integrate(now);
        let len = self.len_pkts() as u64;
        self.stats.max_len_pkts = len;
        self.stats.min_len_pkts = len;
        self.stats.sojourn_max_ns = 0;
        self.window_start = QueueStats {
            backlog_start: len,
            ..self.stats.clone()
        };
        self.last_change = now;
        self.counting = true;
    }

    /// The statistics over the metrics window: the running counters less
    /// their snapshot at its opening, the extrema, the backlog at the
    /// opening. (Before the window opens: since the queue was built.)
    pub fn window_stats(&self) -> QueueStats {
        let (s, w) = (&self.stats, &self.window_start);
        QueueStats {
            arrivals: s.arrivals - w.arrivals,
            enqueued: s.enqueued - w.enqueued,
            dequeued: s.dequeued - w.dequeued,
            drops: s.drops - w.drops,
            drops_on_arrival: s.drops_on_arrival - w.drops_on_arrival,
            drops_in_queue: s.drops_in_queue - w.drops_in_queue,
            early_drops: s.early_drops - w.early_drops,
            forced_drops: s.forced_drops - w.forced_drops,
            marks: s.marks - w.marks,
            rewrites: s.rewrites - w.rewrites,
            arrival_bytes: s.arrival_bytes - w.arrival_bytes,
            drop_bytes: s.drop_bytes - w.drop_bytes,
            sojourn_sum_ns: s.sojourn_sum_ns - w.sojourn_sum_ns,
            sojourn_max_ns: s.sojourn_max_ns,
            backlog_start: w.backlog_start,
            len_pkts_integral: s.len_pkts_integral - w.len_pkts_integral,
            len_bytes_integral: s.len_bytes_integral - w.len_bytes_integral,
            max_len_pkts: s.max_len_pkts,
            min_len_pkts: s.min_len_pkts,
        }
    }

    /// Stop counting at the end of the window (closes the length integral).
    pub fn close_window(&mut self, now: SimTime) {
        self.sync(now);
        self.integrate(now);
        self.counting = false;
    }

    #[inline]
    fn integrate(&mut self, now: SimTime) {
        if !self.counting {
            return;
        }
        let dt = (now - self.last_change).0 as u128;
        self.stats.len_pkts_integral += dt * self.len_pkts() as u128;
        self.stats.len_bytes_integral += dt * self.len_bytes() as u128;
        self.last_change = now;
    }

    #[inline]
    fn note_len(&mut self) {
        let l = self.len_pkts() as u64;
        if l > self.stats.max_len_pkts {
            self.stats.max_len_pkts = l;
        }
        if l < self.stats.min_len_pkts {
            self.stats.min_len_pkts = l;
        }
    }

    fn count_drop(&mut self, arena: &PacketArena, pkt: PacketRef, reason: DropReason) {
        if !self.counting {
            return;
        }
        let p = arena.get(pkt);
        self.stats.drops += 1;
        self.stats.drop_bytes += p.size as u64;
        match reason {
            DropReason::Early => self.stats.early_drops += 1,
            DropReason::Forced | DropReason::Overflow => self.stats.forced_drops += 1,
        }
    }

    fn count_queued_drops(&mut self, arena: &PacketArena, drops: &[(PacketRef, DropReason)]) {
        for &(p, r) in drops {
            self.count_drop(arena, p, r);
            if self.counting {
                self.stats.drops_in_queue += 1;
            }
        }
    }

    /// Offer a packet. Dropped packets (the arriving one or others pushed
    /// out) are appended to `dropped`; the caller accounts and frees them.
    pub fn enqueue(
        &mut self,
        pkt: PacketRef,
        now: SimTime,
        arena: &mut PacketArena,
        link_rate_bps: u64,
        dropped: &mut Vec<(PacketRef, DropReason)>,
    ) -> bool {
        self.integrate(now);
        arena.get_mut(pkt).enqueued_at = now;
        let first_new = dropped.len();
        let (verdict, marks) = {
            let mut ctx = QueueCtx::new(now, arena, &mut self.rng, link_rate_bps, dropped);
            let v = self.disc.enqueue(pkt, &mut ctx);
            (v, ctx.marks())
        };
        self.refresh_len();
        let counting = self.counting;
        if counting {
            self.stats.arrivals += 1;
            self.stats.arrival_bytes += arena.get(pkt).size as u64;
            self.stats.marks += marks;
        }
        self.count_queued_drops(arena, &dropped[first_new..]);
        let accepted = match verdict {
            Verdict::Enqueued => {
                if counting {
                    self.stats.enqueued += 1;
                }
                true
            }
            Verdict::Dropped(r) => {
                self.count_drop(arena, pkt, r);
                if counting {
                    self.stats.drops_on_arrival += 1;
                }
                dropped.push((pkt, r));
                false
            }
        };
        self.note_len();
        accepted
    }

    /// Take the next packet to transmit. Packets the discipline drops on the
    /// way are appended to `dropped`.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        arena: &mut PacketArena,
        link_rate_bps: u64,
        dropped: &mut Vec<(PacketRef, DropReason)>,
    ) -> Option<PacketRef> {
        self.integrate(now);
        let first_new = dropped.len();
        let (out, marks) = {
            let mut ctx = QueueCtx::new(now, arena, &mut self.rng, link_rate_bps, dropped);
            let o = self.disc.dequeue(&mut ctx);
            (o, ctx.marks())
        };
        self.refresh_len();
        if self.counting {
            self.stats.marks += marks;
        }
        self.count_queued_drops(arena, &dropped[first_new..]);
        if let Some(p) = out {
            if self.counting {
                self.stats.dequeued += 1;
                let s = (now - arena.get(p).enqueued_at).0;
                self.stats.sojourn_sum_ns += s as u128;
                self.stats.sojourn_max_ns = self.stats.sojourn_max_ns.max(s);
            }
        }
        self.note_len();
        out
    }

    /// When a discipline that released nothing although packets wait will
    /// release one ([`QueueDisc::next_release`]).
    pub fn next_release(&self) -> Option<SimTime> {
        self.disc.next_release()
    }

    /// The discipline's first periodic timer.
    pub fn initial_timer(&self) -> Option<(SimTime, u32)> {
        self.disc.initial_timer()
    }

    /// Read the discipline's length after a call into it that may have
    /// changed it (its state changes only through such calls).
    #[inline]
    fn refresh_len(&mut self) {
        self.disc_len = self.disc.lengths();
    }

    /// Whether the discipline wants reverse-direction arrivals.
    pub fn wants_reverse(&self) -> bool {
        self.disc.wants_reverse()
    }

    /// Show the discipline a packet travelling the opposite direction.
    pub fn on_reverse_arrival(&mut self, pkt: PacketRef, now: SimTime, arena: &mut PacketArena, link_rate_bps: u64) {
        let mut none = Vec::new();
        let rewrote = {
            let mut ctx = QueueCtx::new(now, arena, &mut self.rng, link_rate_bps, &mut none);
            self.disc.on_reverse_arrival(pkt, &mut ctx)
        };
        self.refresh_len();
        if rewrote && self.counting {
            self.stats.rewrites += 1;
        }
    }

    /// Run a discipline timer; returns the delay to the next one.
    pub fn on_timer(
        &mut self,
        kind: u32,
        now: SimTime,
        arena: &mut PacketArena,
        link_rate_bps: u64,
        dropped: &mut Vec<(PacketRef, DropReason)>,
    ) -> Option<SimTime> {
        self.integrate(now);
        let first_new = dropped.len();
        let next = {
            let mut ctx = QueueCtx::new(now, arena, &mut self.rng, link_rate_bps, dropped);
            self.disc.on_timer(kind, &mut ctx)
        };
        self.refresh_len();
        self.count_queued_drops(arena, &dropped[first_new..]);
        self.note_len();
        next
    }
}

#[cfg(test)]
mod tests {
    use super::droptail::{DropTail, Limit};
    use super::*;
    use crate::packet::Packet;

    /// The wrapper's kept length is the discipline's after every call that
    /// changes it: arrivals that fit, arrivals that push the head out
    /// (drop-front), departures, down to empty.
    #[test]
    fn kept_length_follows_the_discipline() {
        let limit = Limit {
            packets: Some(3),
            bytes: None,
        };
        let mut q = Queue::general(Box::new(DropTail::new(limit, true)), crate::rng::stream(1, "q"));
        let mut arena = PacketArena::new();
        let mut dropped = Vec::new();
        let same = |q: &Queue| {
            assert_eq!(q.len_pkts(), q.disc().len_pkts());
            assert_eq!(q.len_bytes(), q.disc().len_bytes());
        };
        for (i, size) in [100, 200, 300, 400, 500].into_iter().enumerate() {
            let p = arena.alloc(Packet {
                size,
                ..Packet::default()
            });
            q.enqueue(p, SimTime(i as u64), &mut arena, 8, &mut dropped);
            same(&q);
        }
        assert_eq!(
            (q.len_pkts(), q.len_bytes()),
            (3, 1200),
            "the head was pushed out twice"
        );
        while let Some(p) = q.dequeue(SimTime(10), &mut arena, 8, &mut dropped) {
            arena.free(p);
            same(&q);
        }
        assert_eq!((q.len_pkts(), q.len_bytes()), (0, 0));
    }

    /// The general path's arrival: enqueue, and start transmitting at once
    /// (for `tx`) if the transmitter is free at `now`.
    fn offer(q: &mut Queue, p: PacketRef, now: SimTime, arena: &mut PacketArena, free: &mut SimTime, tx: SimTime) {
        let mut d = Vec::new();
        q.enqueue(p, now, arena, 8, &mut d);
        if *free <= now && q.len_pkts() > 0 {
            let out = q.dequeue(now, arena, 8, &mut d).expect("queued");
            arena.free(out);
            *free = now + tx;
        }
    }

    /// The stats of a fast-path queue, a general-path queue and a
    /// general-path queue that passes packets through when it is empty and
    /// its transmitter idle (as the kernel does under the `fifo` tie order),
    /// offered the same packets ((arrival ns, size)), with the window opened
    /// at arrival `window_at`; 100 ns transmissions, three packets of buffer.
    fn three_paths(arrivals: &[(u64, u32)], window_at: usize) -> (QueueStats, QueueStats, QueueStats) {
        let limit = Limit {
            packets: Some(3),
            bytes: None,
        };
        let rng = || crate::rng::stream(1, "q");
        let mut fast = Queue::new(Box::new(DropTail::new(limit, false)), rng());
        let mut slow = Queue::general(Box::new(DropTail::new(limit, false)), rng());
        let mut pass = Queue::new(Box::new(DropTail::new(limit, false)), rng());
        pass.disable_fast_path();
        assert!(fast.is_fast_fifo() && !slow.is_fast_fifo() && !pass.is_fast_fifo());
        let mut arena = PacketArena::new();
        let mut dropped = Vec::new();
        let tx = SimTime(100);
        let mut busy_until = SimTime::ZERO;
        let mut slow_free = SimTime::ZERO;
        let mut drain = |slow: &mut Queue, arena: &mut PacketArena, before: SimTime, free: &mut SimTime| {
            while slow.len_pkts() > 0 && *free < before {
                let at = *free;
                let p = slow.dequeue(at, arena, 8, &mut dropped).expect("queued");
                arena.free(p);
                *free = at + tx;
            }
        };
        let mut pass_free = SimTime::ZERO;
        let mut passed = 0;
        for (i, &(t, size)) in arrivals.iter().enumerate() {
            let now = SimTime(t);
            drain(&mut slow, &mut arena, now, &mut slow_free);
            drain(&mut pass, &mut arena, now, &mut pass_free);
            if i == window_at {
                fast.open_window(now);
                slow.open_window(now);
                pass.open_window(now);
            }
            let pp = arena.alloc(Packet {
                size,
                ..Packet::default()
            });
            if pass_free <= now && pass.try_pass_through(pp, now, &mut arena) {
                passed += 1;
                arena.free(pp);
                pass_free = now + tx;
            } else {
                offer(&mut pass, pp, now, &mut arena, &mut pass_free, tx);
            }
            let pf = arena.alloc(Packet {
                size,
                ..Packet::default()
            });
            let ps = arena.alloc(Packet {
                size,
                ..Packet::default()
            });
            let start = busy_until.max(now);
            if fast.fast_offer(pf, arena.get(pf).size, now, start, &arena) {
                busy_until = start + tx;
            }
            offer(&mut slow, ps, now, &mut arena, &mut slow_free, tx);
        }
        let end = SimTime(10_000);
        drain(&mut slow, &mut arena, end, &mut slow_free);
        drain(&mut pass, &mut arena, end, &mut pass_free);
        fast.close_window(end);
        slow.close_window(end);
        pass.close_window(end);
        assert!(passed > 0, "no packet passed through");
        (fast.window_stats(), slow.window_stats(), pass.window_stats())
    }

    /// The fast path's idle-transmitter shortcut (`pass_through`) and the
    /// general path's ([`Queue::try_pass_through`]) count exactly what the
    /// discipline's enqueue and dequeue count for a packet that arrives at an
    /// empty queue and leaves at once: alone in a window, and mixed with
    /// packets that wait and a drop.
    #[test]
    fn shortcuts_count_as_the_general_path() {
        let idle = [(0u64, 50u32), (500, 60), (900, 40), (2000, 70)];
        let burst = [
            (0u64, 50u32),
            (500, 60),
            (1000, 40),
            (1010, 40),
            (1020, 40),
            (1030, 40),
            (1040, 40),
            (5000, 70),
        ];
        let (fast, slow, pass) = three_paths(&idle, 1);
        assert_eq!(fast, slow);
        assert_eq!(pass, slow);
        let counts = (fast.arrivals, fast.dequeued, fast.max_len_pkts, fast.min_len_pkts);
        assert_eq!(counts, (3, 3, 1, 0));
        let (fast, slow, pass) = three_paths(&burst, 3);
        assert_eq!(fast, slow);
        assert_eq!(pass, slow);
        assert_eq!((fast.arrivals, fast.drops, fast.max_len_pkts), (5, 1, 3));
    }
}
