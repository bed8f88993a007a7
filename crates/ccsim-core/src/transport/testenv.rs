//! A bare [`FlowCtx`] for unit tests of transports: time is set by the
//! test, emitted packets and timers are collected instead of simulated.

use super::FlowCtx;
use crate::event::{EventKind, EventQueue};
use crate::metrics::FlowStats;
use crate::packet::{FlowId, NodeId, Packet, PacketArena, PacketRef};
use crate::rng::{stream, SimRng};
use crate::time::SimTime;

/// What a transport under test may touch.
pub(crate) struct TestEnv {
    events: EventQueue,
    arena: PacketArena,
    outbox: Vec<PacketRef>,
    pub stats: FlowStats,
    rng: SimRng,
}

impl TestEnv {
    pub fn new() -> Self {
        let mut stats = FlowStats::default();
        stats.open_window(SimTime::ZERO);
        TestEnv {
            events: EventQueue::new(),
            arena: PacketArena::new(),
            outbox: Vec::new(),
            stats,
            rng: stream(1, "testenv"),
        }
    }

    /// A context at time `now`.
    pub fn ctx(&mut self, now: SimTime) -> FlowCtx<'_> {
        FlowCtx {
            now,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            stats: &mut self.stats,
            rng: &mut self.rng,
            class: 0,
            events: &mut self.events,
            arena: &mut self.arena,
            outbox: &mut self.outbox,
        }
    }

    /// The packets emitted since the last call, in order.
    pub fn sent(&mut self) -> Vec<Packet> {
        let refs = std::mem::take(&mut self.outbox);
        refs.into_iter()
            .map(|r| {
                let p = self.arena.get(r).clone();
                self.arena.free(r);
                p
            })
            .collect()
    }

    /// The timers set since the last call: (time, kind, token).
    pub fn timers(&mut self) -> Vec<(SimTime, u32, u64)> {
        let mut v = Vec::new();
        while let Some(e) = self.events.pop() {
            if let EventKind::Timer { kind, token, .. } = e.kind {
                v.push((e.time, kind as u32, token));
            }
        }
        v
    }
}
