//! ns-2's wired trace format, as ns-2.35 writes it (trace/trace.cc,
//! `Trace::format`, the default `show_tcphdr_ = 0` branch):
//!
//! ```text
//! + 1.84375 0 2 tcp 1040 ------- 0 0.0 3.0 225 610
//! ```
//!
//! Twelve fields separated by one space: the event (`+` enqueue, `-`
//! dequeue, `r` receive, `d` drop), the time, the link's from and to node,
//! the packet type, the size in bytes, seven flag characters, the flow id,
//! source and destination as `node.port`, the sequence number and the
//! packet's unique id.
//!
//! - **Time** is printed as ns-2 does: rounded half up to the microsecond
//!   (`BaseTrace::round`, precision 1e6) and printed with `%.15g` (trailing
//!   zeros dropped, `1e-05` style below 0.0001 s). ccsim's integer
//!   nanoseconds make this exact, without floating point.
//! - **Flags** (`-------`): position 0 `C` ECN-Echo (an ACK with ECE),
//!   1 `P` priority (never set), 2 unused, 3 `A` congestion action (CWR),
//!   4 `E` congestion experienced (CE), 5 `F` fast start (never set),
//!   6 `N` ECN-capable transport (ECT or CE), as ns-2's hdr_flags.
//! - **Flow id** is the flow's index (ns-2's `fid_`).
//! - **Sequence number**: data packets carry their segment (TCP) or datagram
//!   (UDP) number, counted from 0 as in ns-2. A TCP ACK carries what an ns-2
//!   TcpSink puts there: the highest in-order segment received, i.e. ccsim's
//!   cumulative ACK minus one (-1 before anything arrived). Other feedback
//!   carries its own `seq`.
//! - **Packet id** is the packet's `uid` (emission order, unique in the run).

use super::{push_u64, FlowTrace, Sink, PAIRS};
use crate::error::Result;
use crate::packet::{flags, Ecn, Packet, PacketKind};
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One line's fields, copied from the packet (a deferred dequeue must not
/// read the arena later: the packet may be gone by then). The fields that
/// only depend on the link or on the flow are formatted once, up front.
#[derive(Copy, Clone, Debug)]
struct Record {
    time: SimTime,
    /// Tie-break of deferred records at the same time: the order they were deferred.
    order: u64,
    uid: u64,
    seq: i64,
    link: u32,
    flow: u32,
    size: u32,
    event: u8,
    ack: bool,
    flags: [u8; 7],
}

impl PartialEq for Record {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Record {}
impl PartialOrd for Record {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Record {
    /// Reversed, so that the max-heap pops the earliest record first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

fn ns2_flags(p: &Packet) -> [u8; 7] {
    let mut fl = [b'-'; 7];
    if p.flags & flags::ECE != 0 {
        fl[0] = b'C';
    }
    if p.flags & flags::CWR != 0 {
        fl[3] = b'A';
    }
    if p.ecn == Ecn::Ce {
        fl[4] = b'E';
    }
    if p.ecn != Ecn::NotEct {
        fl[6] = b'N';
    }
    fl
}

fn record(event: u8, time: SimTime, link: u32, p: &Packet, f: &FlowTrace) -> Record {
    let ack = p.kind == PacketKind::Ack;
    let seq = match (ack, f.tcp) {
        (true, true) => p.ack as i64 - 1,
        _ => p.seq as i64,
    };
    Record {
        time,
        order: 0,
        uid: p.uid,
        seq,
        link,
        flow: p.flow.0,
        size: p.size,
        event,
        ack,
        flags: ns2_flags(p),
    }
}

/// A span of [`Ns2Writer::text`].
#[derive(Copy, Clone, Debug, Default)]
struct Span(u32, u32);

/// Text being formatted from its end backwards: numbers come out digit
/// by digit from the last one, so nothing has to count digits or move them;
/// the text is `b[s..]`.
struct Back<const N: usize> {
    b: [u8; N],
    s: usize,
}

/// Longest line: event, time, two node numbers, a type name, size, flags,
/// flow id, two addresses, sequence number and packet id are well under this.
const LINE_MAX: usize = 320;
/// Longest time: 20 digits of seconds, a point and 6 digits.
const TIME_MAX: usize = 32;

impl<const N: usize> Back<N> {
    fn new() -> Self {
        Back { b: [0; N], s: N }
    }

    #[inline]
    fn clear(&mut self) {
        self.s = N;
    }

    #[inline]
    fn text(&self) -> &[u8] {
        &self.b[self.s..]
    }

    #[inline]
    fn byte(&mut self, c: u8) {
        self.s -= 1;
        self.b[self.s] = c;
    }

    #[inline]
    fn bytes(&mut self, x: &[u8]) {
        let s = self.s - x.len();
        self.b[s..self.s].copy_from_slice(x);
        self.s = s;
    }

    /// The decimal digits of `v`, last digit first.
    #[inline]
    fn u64(&mut self, mut v: u64) {
        while v >= 100 {
            let d = (v % 100) as usize * 2;
            v /= 100;
            self.s -= 2;
            self.b[self.s] = PAIRS[d];
            self.b[self.s + 1] = PAIRS[d + 1];
        }
        if v >= 10 {
            let d = v as usize * 2;
            self.s -= 2;
            self.b[self.s] = PAIRS[d];
            self.b[self.s + 1] = PAIRS[d + 1];
        } else {
            self.byte(b'0' + v as u8);
        }
    }

    #[inline]
    fn i64(&mut self, v: i64) {
        self.u64(v.unsigned_abs());
        if v < 0 {
            self.byte(b'-');
        }
    }

    /// A time as ns-2 prints it: `%.15g` of the time rounded to the microsecond.
    fn time(&mut self, t: SimTime) {
        let us = t.0 / 1000 + u64::from(t.0 % 1000 >= 500);
        if us == 0 {
            self.byte(b'0');
        } else if us < 100 {
            // Below 1e-4 s %g switches to scientific notation: d[.d]e-0X.
            let (hi, lo) = (us / 10, us % 10);
            if hi == 0 {
                self.bytes(b"e-06");
                self.u64(lo);
            } else {
                self.bytes(b"e-05");
                if lo != 0 {
                    self.u64(lo);
                    self.byte(b'.');
                }
                self.u64(hi);
            }
        } else {
            let mut frac = us % 1_000_000;
            if frac != 0 {
                let mut width = 6;
                while frac % 10 == 0 {
                    frac /= 10;
                    width -= 1;
                }
                for _ in 0..width {
                    self.byte(b'0' + (frac % 10) as u8);
                    frac /= 10;
                }
                self.byte(b'.');
            }
            self.u64(us / 1_000_000);
        }
    }
}

/// Append a time as ns-2 prints it: `%.15g` of the time rounded to the microsecond.
pub fn push_time(out: &mut Vec<u8>, t: SimTime) {
    let mut l = Back::<TIME_MAX>::new();
    l.time(t);
    out.extend_from_slice(l.text());
}

/// The writer of `trace.tr`.
pub(crate) struct Ns2Writer {
    sink: Sink,
    line: Box<Back<LINE_MAX>>,
    /// The last time formatted, and its text.
    time: SimTime,
    time_text: Back<TIME_MAX>,
    /// Dequeues fixed in advance by the FIFO fast path, earliest first.
    pending: BinaryHeap<Record>,
    deferred: u64,
    /// The constant parts of the lines, formatted once: per link " from to ",
    /// per flow and direction " type" and " fid src.port dst.port ".
    text: Vec<u8>,
    links: Vec<Span>,
    /// Per flow: (data type, data addresses, ack type, ack addresses).
    flows: Vec<[Span; 4]>,
}

impl Ns2Writer {
    pub(crate) fn new(sink: Sink, ends: &[(u32, u32)], flows: &[FlowTrace]) -> Self {
        let mut text = Vec::new();
        let span = |text: &mut Vec<u8>, f: &dyn Fn(&mut Vec<u8>)| {
            let a = text.len();
            f(text);
            Span(a as u32, text.len() as u32)
        };
        let links = ends
            .iter()
            .map(|&(a, b)| {
                span(&mut text, &|t| {
                    t.push(b' ');
                    push_u64(t, a as u64);
                    t.push(b' ');
                    push_u64(t, b as u64);
                    t.push(b' ');
                })
            })
            .collect();
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                // Data goes from the sender's agent to the receiver's, feedback back.
                let addresses = |t: &mut Vec<u8>, src: u32, sport: u32, dst: u32, dport: u32| {
                    t.push(b' ');
                    push_u64(t, i as u64);
                    t.push(b' ');
                    push_u64(t, src as u64);
                    t.push(b'.');
                    push_u64(t, sport as u64);
                    t.push(b' ');
                    push_u64(t, dst as u64);
                    t.push(b'.');
                    push_u64(t, dport as u64);
                    t.push(b' ');
                };
                [
                    span(&mut text, &|t| t.extend_from_slice(f.data_type.as_bytes())),
                    span(&mut text, &|t| addresses(t, f.src, f.src_port, f.dst, f.dst_port)),
                    span(&mut text, &|t| t.extend_from_slice(f.ack_type.as_bytes())),
                    span(&mut text, &|t| addresses(t, f.dst, f.dst_port, f.src, f.src_port)),
                ]
            })
            .collect();
        Ns2Writer {
            sink,
            line: Box::new(Back::new()),
            time: SimTime::ZERO,
            time_text: Back::new(),
            pending: BinaryHeap::new(),
            deferred: 0,
            text,
            links,
            flows,
        }
    }

    /// Write an event that happens now.
    #[inline]
    pub(crate) fn event(&mut self, ev: u8, now: SimTime, link: u32, p: &Packet, f: &FlowTrace) {
        self.flush_until(now);
        let r = record(ev, now, link, p, f);
        self.write(&r);
    }

    /// Keep a dequeue that happens at `start` (in the future) until the trace reaches it.
    #[inline]
    pub(crate) fn defer_dequeue(&mut self, start: SimTime, link: u32, p: &Packet, f: &FlowTrace) {
        let mut r = record(b'-', start, link, p, f);
        r.order = self.deferred;
        self.deferred += 1;
        self.pending.push(r);
    }

    /// Write the deferred dequeues up to and including `t`.
    #[inline]
    fn flush_until(&mut self, t: SimTime) {
        while self.pending.peek().is_some_and(|r| r.time <= t) {
            if let Some(r) = self.pending.pop() {
                self.write(&r);
            }
        }
    }

    fn write(&mut self, r: &Record) {
        // Consecutive lines often share their time (a packet's '+' and '-',
        // a burst of arrivals): format it once.
        if r.time != self.time || self.time_text.s == TIME_MAX {
            self.time = r.time;
            self.time_text.clear();
            self.time_text.time(r.time);
        }
        let text = &self.text;
        let part = |s: Span| &text[s.0 as usize..s.1 as usize];
        let spans = &self.flows[r.flow as usize];
        let (ptype, addresses) = if r.ack {
            (spans[2], spans[3])
        } else {
            (spans[0], spans[1])
        };
        // From the end of the line back to its start.
        let l = &mut self.line;
        l.clear();
        l.byte(b'\n');
        l.u64(r.uid);
        l.byte(b' ');
        l.i64(r.seq);
        l.bytes(part(addresses));
        l.bytes(&r.flags);
        l.byte(b' ');
        l.u64(r.size as u64);
        l.byte(b' ');
        l.bytes(part(ptype));
        l.bytes(part(self.links[r.link as usize]));
        l.bytes(self.time_text.text());
        l.byte(b' ');
        l.byte(r.event);
        self.sink.buffer().extend_from_slice(l.text());
    }

    /// Write the dequeues deferred up to `end` (later ones never happened
    /// inside the run), then flush the file.
    pub(crate) fn finish(&mut self, end: SimTime) -> Result<()> {
        self.flush_until(end);
        self.pending.clear();
        self.sink.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(ns: u64) -> String {
        let mut out = Vec::new();
        push_time(&mut out, SimTime(ns));
        String::from_utf8(out).unwrap()
    }

    /// What C's printf("%.15g", floor(x * 1e6 + 0.5) / 1e6) prints, for the
    /// times where the two branches of push_time meet.
    #[test]
    fn times_print_as_ns2_prints_them() {
        assert_eq!(time(0), "0");
        assert_eq!(time(499), "0");
        assert_eq!(time(500), "1e-06");
        assert_eq!(time(5_000), "5e-06");
        assert_eq!(time(10_000), "1e-05");
        assert_eq!(time(12_000), "1.2e-05");
        assert_eq!(time(99_000), "9.9e-05");
        assert_eq!(time(100_000), "0.0001");
        assert_eq!(time(1_843_750_000), "1.84375");
        assert_eq!(time(1_846_094_400), "1.846094");
        assert_eq!(time(1_846_094_600), "1.846095");
        assert_eq!(time(2_000_000_000), "2");
        assert_eq!(time(100_500_000_000), "100.5");
        assert_eq!(time(10_000_001_000), "10.000001");
        // 0.9999996 s rounds up to the next whole second.
        assert_eq!(time(999_999_600), "1");
    }

    #[test]
    fn line_integers_print_as_decimal() {
        for v in [0, 7, 9, 10, 99, 100, 101, 1234567890123, -1, -42, i64::MAX, i64::MIN] {
            let mut l = Back::<32>::new();
            l.i64(v);
            assert_eq!(std::str::from_utf8(l.text()).unwrap(), v.to_string());
        }
    }

    #[test]
    fn a_tcp_ack_carries_the_highest_in_order_segment() {
        let f = FlowTrace {
            data_type: "tcp",
            ack_type: "ack",
            tcp: true,
            mss: 1460,
            src: 0,
            src_port: 0,
            dst: 3,
            dst_port: 1,
        };
        let p = Packet {
            kind: PacketKind::Ack,
            ack: 5,
            size: 40,
            flags: flags::ACK | flags::ECE,
            uid: 9,
            src: crate::packet::NodeId(0),
            dst: crate::packet::NodeId(3),
            ..Packet::default()
        };
        let r = record(b'r', SimTime::from_millis(1500), 2, &p, &f);
        assert_eq!((r.seq, r.ack), (4, true));
        assert_eq!(&r.flags, b"C------");
    }
}
