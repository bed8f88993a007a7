//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by insertion order, so the order of
//! simultaneous events is fixed by the program, never by the heap's layout.
//! Events are small `Copy` values carrying indices, not closures.

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
    /// An event of a wireless LAN's MAC (see [`crate::wlan`]): contention, or
    /// a transmitter learning the outcome of its attempt.
    Mac {
        /// The WLAN.
        wlan: u32,
        /// The event's kind, defined by the WLAN module.
        kind: u16,
        /// Token the WLAN compares against to ignore superseded events.
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
    /// Insertion sequence, for deterministic tie-breaking.
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

/// The pending events of a simulation.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `kind` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, kind: EventKind) {
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            kind,
        });
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
    fn ties_break_by_insertion() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), EventKind::Sample);
        q.push(SimTime(3), EventKind::LinkFree { link: LinkId(1) });
        q.push(SimTime(3), EventKind::LinkFree { link: LinkId(2) });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.time.0, e.seq)).collect();
        assert_eq!(order, vec![(3, 2), (3, 3), (5, 1)]);
    }
}
