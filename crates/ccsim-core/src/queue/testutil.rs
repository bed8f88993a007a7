//! What the disciplines' unit tests share: the state a [`QueueCtx`]
//! borrows, packets of a flow, and a limit in packets.

use super::droptail::Limit;
use super::{DropReason, QueueCtx};
use crate::packet::{FlowId, Packet, PacketArena, PacketRef};
use crate::rng::{stream, SimRng};
use crate::time::SimTime;

/// The packets, the random stream and the drop list of a discipline under
/// test, without a simulation.
pub struct Env {
    /// The packets.
    pub arena: PacketArena,
    /// The discipline's random stream.
    pub rng: SimRng,
    /// The packets it dropped from inside the queue.
    pub dropped: Vec<(PacketRef, DropReason)>,
}

impl Env {
    /// An empty arena and the stream of `seed` and `label`.
    pub fn new(seed: u64, label: &str) -> Env {
        Env {
            arena: PacketArena::new(),
            rng: stream(seed, label),
            dropped: Vec::new(),
        }
    }

    /// The context at time zero on a link of `rate_bps`.
    pub fn ctx(&mut self, rate_bps: u64) -> QueueCtx<'_> {
        QueueCtx::new(
            SimTime::ZERO,
            &mut self.arena,
            &mut self.rng,
            rate_bps,
            &mut self.dropped,
        )
    }
}

/// A data packet of `flow` of `size` bytes.
pub fn pkt(arena: &mut PacketArena, flow: u32, size: u32) -> PacketRef {
    arena.alloc(Packet {
        flow: FlowId(flow),
        size,
        ..Packet::default()
    })
}

/// A limit of `n` packets (no byte limit).
pub fn packets(n: u64) -> Limit {
    Limit {
        packets: Some(n),
        bytes: None,
    }
}
