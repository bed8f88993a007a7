//! Trace-driven link capacity: a link direction that delivers packets at the
//! delivery opportunities a packet-delivery trace lists, in Mahimahi's format
//! (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX
//! ATC 2015; the emulator's `LinkQueue`, src/packet/link_queue.cc).
//!
//! The format: one line per delivery opportunity, its time in whole
//! milliseconds from the start of the run, non-decreasing (several lines
//! with the same time are several opportunities in that millisecond); no
//! empty lines; the last time stamp, which must be positive, is the period:
//! the trace repeats from then on (`LinkQueue::use_a_delivery_opportunity`
//! adds `schedule_.back()` to the base time stamp on wrap-around).
//!
//! The service, as `LinkQueue::rationalize` does it:
//! - each opportunity carries [`OPPORTUNITY_BYTES`] (1504: Mahimahi's
//!   `PACKET_SIZE`, the largest TUN payload) and each packet costs its size
//!   plus [`TUN_HEADER_BYTES`] (Mahimahi's TUN device is opened without
//!   `IFF_NO_PI`, src/util/netdevice.cc, so every packet it reads carries the
//!   4-byte packet-information header): a 1500-byte packet fills one
//!   opportunity, and small packets share one;
//! - the packet at the head takes the bytes of the current opportunity; a
//!   packet larger than what is left continues in the next opportunities and
//!   leaves at the opportunity that carries its last byte; what an
//!   opportunity has left after a packet goes to the next packet in the queue;
//! - an opportunity that finds the queue empty is wasted, and so are the
//!   bytes left in one when the queue runs empty; a packet that arrives at
//!   the very time of an opportunity does not use it (Mahimahi emulates the
//!   link up to the present before it enqueues a packet; in ccsim,
//!   departures come before arrivals at the same instant);
//! - a packet leaves the queue at the first opportunity that carries any of
//!   its bytes (Mahimahi's `packet_in_transit_`), so queue lengths and
//!   sojourn times count the wait for an opportunity.
//!
//! Mahimahi's traces are what an application sees above the link: there is
//! no further serialization; the link's propagation delay follows.

use std::sync::Arc;

use crate::event::{ns_as_secs, EventKind};
use crate::medium::{Medium, MediumCtx};
use crate::packet::{LinkId, PacketRef};
use crate::time::SimTime;

/// Bytes one delivery opportunity carries (Mahimahi's `LinkQueue::PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;

/// Bytes each packet costs on top of its size (the TUN packet-information header).
pub const TUN_HEADER_BYTES: u32 = 4;

/// The bytes of a full-size IP packet that one opportunity carries: the
/// trace's nominal rate counts these.
pub const OPPORTUNITY_IP_BYTES: u32 = OPPORTUNITY_BYTES - TUN_HEADER_BYTES;

const NS_PER_MS: u64 = 1_000_000;

/// A parsed trace: its delivery opportunities, milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// The time stamps, non-decreasing, the last one positive.
    pub ms: Arc<[u64]>,
}

/// The shipped traces, by name: the files of the Python package's
/// `ccsim/traces/` folder (made by `ccsim/linktraces.py`), embedded so that
/// the engine knows them wherever it runs.
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "cellular-synthetic",
        include_str!("../../../python/ccsim/traces/cellular-synthetic.trace"),
    ),
    (
        "constant-12mbps",
        include_str!("../../../python/ccsim/traces/constant-12mbps.trace"),
    ),
    (
        "steps-24-6-0-12mbps",
        include_str!("../../../python/ccsim/traces/steps-24-6-0-12mbps.trace"),
    ),
];

impl Schedule {
    /// Parse a trace's text; `name` labels it in errors, which name the
    /// line and what was expected (`cell.trace line 7: ...`).
    pub fn parse(text: &str, name: &str) -> Result<Schedule, String> {
        let mut ms: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let t = line.trim_end_matches('\r');
            if t.trim().is_empty() {
                return Err(format!(
                    "{name} line {n}: empty line; expected a time in whole milliseconds (Mahimahi's format: one time stamp a line)"
                ));
            }
            let v: u64 = t.trim().parse().map_err(|_| {
                format!("{name} line {n}: expected a time in whole milliseconds (a non-negative integer), got \"{t}\"")
            })?;
            if let Some(&prev) = ms.last() {
                if v < prev {
                    return Err(format!(
                        "{name} line {n}: time stamps must be non-decreasing, got {v} after {prev}"
                    ));
                }
            }
            ms.push(v);
        }
        match ms.last() {
            None => Err(format!("{name}: no time stamps; expected one delivery opportunity a line")),
            Some(0) => Err(format!(
                "{name}: the last time stamp is 0; a trace must last a positive time (its last time stamp is its period)"
            )),
            Some(_) => Ok(Schedule { ms: ms.into() }),
        }
    }

    /// The period: the last time stamp.
    pub fn period(&self) -> SimTime {
        SimTime(self.ms[self.ms.len() - 1] * NS_PER_MS)
    }

    /// The nominal rate: full-size packets in every opportunity, bit/s
    /// (rounded; at least 1).
    pub fn mean_rate_bps(&self) -> u64 {
        let bits = self.ms.len() as f64 * OPPORTUNITY_IP_BYTES as f64 * 8.0;
        ((bits / self.period().secs_f64()).round() as u64).max(1)
    }

    /// Opportunities at times in `[0, x]`, over the repetitions.
    fn count_le(&self, x: SimTime) -> u64 {
        let p = self.period().0;
        self.ms
            .iter()
            .map(|&s| {
                let s = s * NS_PER_MS;
                if s > x.0 {
                    0
                } else {
                    (x.0 - s) / p + 1
                }
            })
            .sum()
    }

    /// Opportunities at times in `[from, to]`.
    pub fn count_between(&self, from: SimTime, to: SimTime) -> u64 {
        let below = if from.0 == 0 {
            0
        } else {
            self.count_le(SimTime(from.0 - 1))
        };
        self.count_le(to).saturating_sub(below)
    }
}

/// A trace-driven transmitter's state.
#[derive(Clone, Debug)]
pub struct LinkTrace {
    schedule: Schedule,
    /// Index of the next opportunity not yet begun.
    next: usize,
    /// Start of the current repetition.
    base: SimTime,
    /// The time of the opportunity being used...
    cur: SimTime,
    /// ... and its bytes left (0: none in use).
    left: u32,
}

impl LinkTrace {
    /// A transmitter at the start of its trace.
    pub fn new(schedule: Schedule) -> Self {
        LinkTrace {
            schedule,
            next: 0,
            base: SimTime::ZERO,
            cur: SimTime::ZERO,
            left: 0,
        }
    }

    /// The trace.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The time of the next opportunity not yet begun.
    #[inline]
    pub fn next_time(&self) -> SimTime {
        self.base + SimTime(self.schedule.ms[self.next] * NS_PER_MS)
    }

    /// Move past the next opportunity (wrapping around to the next repetition).
    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.schedule.ms.len() {
            self.next = 0;
            self.base += self.schedule.period();
        }
    }

    /// Begin the next opportunity: it has all its bytes.
    fn begin_next(&mut self) {
        self.cur = self.next_time();
        self.left = OPPORTUNITY_BYTES;
        self.advance();
    }

    /// A packet arrives at an idle transmitter at `now`: the opportunities
    /// up to and including `now` passed with the queue empty and are
    /// wasted, and so is whatever the last one used had left.
    pub fn idle_until(&mut self, now: SimTime) {
        self.left = 0;
        let p = self.schedule.period();
        let t = self.next_time();
        if t + p <= now {
            // Whole repetitions passed: skip them at once.
            let k = (now - t).0 / p.0;
            self.base += SimTime(k * p.0);
        }
        while self.next_time() <= now {
            self.advance();
        }
    }

    /// When the packet at the head of the queue can start at `now` or
    /// later: now if the opportunity in use has bytes left at this very
    /// instant, otherwise the next opportunity's time.
    #[inline]
    pub fn ready_at(&self, now: SimTime) -> SimTime {
        if self.left > 0 && self.cur == now {
            now
        } else {
            self.next_time().max(now)
        }
    }

    /// The busy time that makes a link's utilization (busy time / window)
    /// the share of the bytes of the window's opportunities, `[from, to]`,
    /// that its `packets` packets of `bytes` bytes used.
    pub fn busy_ns(&self, bytes: u64, packets: u64, from: SimTime, to: SimTime) -> u64 {
        let offered = self.schedule.count_between(from, to) * OPPORTUNITY_BYTES as u64;
        if offered == 0 {
            return 0;
        }
        let used = (bytes + packets * TUN_HEADER_BYTES as u64).min(offered);
        ((used as f64 / offered as f64) * (to - from).0 as f64).round() as u64
    }

    /// Send a packet of `size` bytes that starts at `now` (= `ready_at(now)`):
    /// the time it leaves, at the opportunity that carries its last byte.
    pub fn send(&mut self, now: SimTime, size: u32) -> SimTime {
        if !(self.left > 0 && self.cur == now) {
            self.begin_next();
        }
        let mut need = size + TUN_HEADER_BYTES;
        loop {
            let take = need.min(self.left);
            need -= take;
            self.left -= take;
            if need == 0 {
                return self.cur;
            }
            self.begin_next();
        }
    }
}

/// The egress of a trace-driven link: the link's own queue (in
/// [`crate::link::Egress::Medium`]) served at the trace's delivery
/// opportunities, as a [`Medium`] with one port. The link's `rate_bps` is
/// the trace's nominal rate; its `busy_until` and `free_pending` are the
/// transmitter's state, as on a wire.
pub struct TraceMedium {
    /// "trace:<link name>".
    name: String,
    /// The link.
    link: LinkId,
    trace: LinkTrace,
}

impl TraceMedium {
    /// The egress of `link` following `trace`.
    pub fn new(link: LinkId, link_name: &str, trace: LinkTrace) -> Self {
        TraceMedium {
            name: format!("trace:{link_name}"),
            link,
            trace,
        }
    }

    /// The trace's state.
    pub fn trace(&self) -> &LinkTrace {
        &self.trace
    }

    /// The transmitter may send: the head of the queue leaves at the
    /// opportunity that carries its last byte, if the current opportunity
    /// (or one due now) has bytes left; otherwise wake up at the next
    /// opportunity.
    fn start_tx(&mut self, ctx: &mut MediumCtx) {
        let link = self.link;
        let now = ctx.now;
        let l = &mut ctx.links[link.0 as usize];
        let rate = l.rate_bps;
        let Some(q) = l.queue_mut().filter(|q| q.len_pkts() > 0) else {
            return;
        };
        let at = self.trace.ready_at(now);
        if at > now {
            l.free_pending = true;
            ctx.events.push(at, EventKind::LinkFree { link });
            return;
        }
        let next = q.dequeue(now, ctx.arena, rate, ctx.dropped);
        if !ctx.dropped.is_empty() {
            ctx.drops(link);
        }
        let Some(p) = next else { return };
        ctx.observe_dequeue(link, p);
        let size = ctx.arena.get(p).size;
        let done = self.trace.send(now, size);
        let l = &mut ctx.links[link.0 as usize];
        l.busy_until = done;
        if now >= ctx.warmup {
            l.stats.tx_bytes += size as u64;
            l.stats.tx_packets += 1;
        }
        *ctx.hops += 1;
        let arrive = done + l.delay;
        ctx.events
            .push_arrival(arrive, ns_as_secs(arrive), link, p, ctx.arena.get(p).uid);
        if l.queue().is_some_and(|q| q.len_pkts() > 0) {
            l.free_pending = true;
            ctx.events.push(done, EventKind::LinkFree { link });
        }
    }
}

impl Medium for TraceMedium {
    fn name(&self) -> &str {
        &self.name
    }

    /// A packet enters the link's queue. If the transmitter is idle, the
    /// opportunities up to now went by with the queue empty and are
    /// wasted; the packet waits for the next one.
    fn enqueue(&mut self, _port: u32, pkt: PacketRef, ctx: &mut MediumCtx) {
        let link = self.link;
        let now = ctx.now;
        ctx.observe_enqueue(link, pkt);
        let l = &mut ctx.links[link.0 as usize];
        let idle = !l.free_pending && l.busy_until <= now;
        let rate = l.rate_bps;
        let Some(q) = l.queue_mut() else { return };
        q.enqueue(pkt, now, ctx.arena, rate, ctx.dropped);
        ctx.drops(link);
        let l = &mut ctx.links[link.0 as usize];
        if idle {
            self.trace.idle_until(now);
            self.start_tx(ctx);
        } else if !l.free_pending {
            // A packet still in transmission (it spans opportunities): the
            // next one may start when it has left.
            l.free_pending = true;
            let at = l.busy_until;
            ctx.events.push(at, EventKind::LinkFree { link });
        }
    }

    fn on_link_free(&mut self, _port: u32, ctx: &mut MediumCtx) {
        self.start_tx(ctx);
    }

    /// The link's utilization is the share of the window's opportunities
    /// its packets used ([`LinkTrace::busy_ns`]).
    fn close_window(&mut self, ctx: &mut MediumCtx) {
        let l = &mut ctx.links[self.link.0 as usize];
        l.stats.busy_ns = self
            .trace
            .busy_ns(l.stats.tx_bytes, l.stats.tx_packets, ctx.warmup, ctx.end);
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The text of trace `spec`: a shipped trace's name, or a file path (an
/// absolute path; a relative one is looked for in `dirs`, then in the
/// current folder). Errors say what was tried.
pub fn load(spec: &str, dirs: &[std::path::PathBuf]) -> Result<Schedule, String> {
    if let Some((_, text)) = SHIPPED.iter().find(|(n, _)| *n == spec) {
        return Schedule::parse(text, spec);
    }
    let p = std::path::Path::new(spec);
    let mut tried: Vec<std::path::PathBuf> = Vec::new();
    if p.is_absolute() {
        tried.push(p.to_path_buf());
    } else {
        tried.extend(dirs.iter().map(|d| d.join(p)));
        tried.push(p.to_path_buf());
    }
    for t in &tried {
        if t.is_file() {
            let text = std::fs::read_to_string(t).map_err(|e| format!("cannot read trace {}: {e}", t.display()))?;
            return Schedule::parse(&text, &t.display().to_string());
        }
    }
    let names: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
    let tried: Vec<String> = tried.iter().map(|t| t.display().to_string()).collect();
    Err(format!(
        "no trace \"{spec}\": expected a shipped trace ({}) or a file (looked for {})",
        names.join(", "),
        tried.join(", ")
    ))
}

std::thread_local! {
    static DIRS: std::cell::RefCell<Vec<std::path::PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The folders relative trace paths are looked for in, on this thread.
pub fn search_dirs() -> Vec<std::path::PathBuf> {
    DIRS.with(|d| d.borrow().clone())
}

/// Holds the folders relative trace paths are looked for in (the folders
/// of the scenario or sweep files) for the duration of one call into the
/// engine; they are forgotten when it drops.
pub struct DirsGuard;

impl DirsGuard {
    /// Set this thread's search folders.
    pub fn set(dirs: Vec<std::path::PathBuf>) -> Self {
        DIRS.with(|d| *d.borrow_mut() = dirs);
        DirsGuard
    }
}

impl Drop for DirsGuard {
    fn drop(&mut self) {
        DIRS.with(|d| d.borrow_mut().clear());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched(text: &str) -> Schedule {
        Schedule::parse(text, "t.trace").unwrap()
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * NS_PER_MS)
    }

    #[test]
    fn parse_errors_name_the_line_and_the_expectation() {
        let e = |t: &str| Schedule::parse(t, "t.trace").unwrap_err();
        assert_eq!(
            e("1\n2\nx3\n"),
            "t.trace line 3: expected a time in whole milliseconds (a non-negative integer), got \"x3\""
        );
        assert_eq!(e("1\n\n2\n").split(':').next(), Some("t.trace line 2"));
        assert_eq!(
            e("5\n4\n"),
            "t.trace line 2: time stamps must be non-decreasing, got 4 after 5"
        );
        assert!(e("").contains("no time stamps"));
        assert!(e("0\n0\n").contains("last time stamp is 0"));
        assert!(e("1.5\n").contains("got \"1.5\""));
        assert!(e("-1\n").contains("got \"-1\""));
    }

    #[test]
    fn full_packets_take_one_opportunity_each_and_small_ones_share() {
        let mut t = LinkTrace::new(sched("1\n2\n3\n"));
        t.idle_until(SimTime::ZERO);
        assert_eq!(t.ready_at(SimTime::ZERO), ms(1));
        assert_eq!(t.send(ms(1), 1500), ms(1));
        // Nothing left at ms 1: the next packet waits for ms 2.
        assert_eq!(t.ready_at(ms(1)), ms(2));
        // Two 700-byte packets (704 with the header) share the opportunity at 2 ms.
        assert_eq!(t.send(ms(2), 700), ms(2));
        assert_eq!(t.ready_at(ms(2)), ms(2));
        assert_eq!(t.send(ms(2), 700), ms(2));
        // 96 bytes left at 2 ms: a 1000-byte packet takes them and finishes at 3 ms.
        assert_eq!(t.send(ms(2), 1000), ms(3));
    }

    #[test]
    fn the_trace_repeats_with_its_last_time_stamp_as_period() {
        let mut t = LinkTrace::new(sched("0\n5\n"));
        t.idle_until(SimTime(1));
        assert_eq!(t.next_time(), ms(5));
        t.send(ms(5), 1500);
        // Next repetition: 5 + 0 and 5 + 5 (Mahimahi's wrap-around).
        assert_eq!(t.ready_at(ms(5)), ms(5));
        t.send(ms(5), 1500);
        assert_eq!(t.next_time(), ms(10));
        // Idle for many periods: the skip lands on the right opportunity.
        t.idle_until(ms(1002));
        assert_eq!(t.next_time(), ms(1005));
    }

    #[test]
    fn an_idle_arrival_wastes_what_is_left_and_the_opportunity_at_its_instant() {
        let mut t = LinkTrace::new(sched("1\n1\n2\n"));
        t.idle_until(SimTime::ZERO);
        assert_eq!(t.send(ms(1), 100), ms(1));
        // The queue ran empty at 1 ms: the rest of that opportunity and the
        // other opportunity at 1 ms are gone for a packet arriving at 1 ms.
        t.idle_until(ms(1));
        assert_eq!(t.ready_at(ms(1)), ms(2));
    }

    #[test]
    fn opportunities_are_counted_over_repetitions() {
        let s = sched("1\n1\n4\n");
        assert_eq!(s.period(), ms(4));
        // [0, 8]: 1,1,4 then 5,5,8.
        assert_eq!(s.count_between(SimTime::ZERO, ms(8)), 6);
        assert_eq!(s.count_between(ms(2), ms(5)), 3);
        assert_eq!(s.mean_rate_bps(), 3 * 1500 * 8 * 250);
    }

    #[test]
    fn shipped_traces_parse_and_have_their_nominal_rates() {
        for (name, text) in SHIPPED {
            let s = Schedule::parse(text, name).unwrap();
            if *name != "cellular-synthetic" {
                assert_eq!(s.mean_rate_bps(), 12_000_000, "{name}");
            }
        }
        let e = load("nope.trace", &[]).unwrap_err();
        assert!(e.starts_with("no trace \"nope.trace\": expected a shipped trace (cellular-synthetic"));
    }
}
