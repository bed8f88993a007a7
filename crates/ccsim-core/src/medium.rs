//! Media: what sends a link's packets when it is not a plain wire.
//!
//! A link's egress ([`crate::link::Egress`]) is either a wire, whose queue
//! feeds a transmitter at the link's rate (the common case, which the kernel
//! handles inline, with no dispatch), or a port of a [`Medium`]. The kernel
//! hands a packet routed over a medium's port to the medium
//! ([`Medium::enqueue`]) and calls it back for the events it schedules
//! (`EventKind::Medium`, and `LinkFree` of its links); the medium queues the
//! packet, decides when it leaves, and schedules its `Arrive` at the far end
//! of the link. The kernel never names a medium's kind.
//!
//! Two media are built in:
//! - a trace-driven link ([`crate::link_trace::TraceMedium`]): the link's own
//!   queue, served at a trace's delivery opportunities;
//! - an IEEE 802.11 wireless LAN ([`crate::wlan::Wlan`]): one port per
//!   direction of each AP <-> station hop; the queues are the interfaces'
//!   (one per node, shared by the node's ports), and the MAC decides who
//!   sends.
//!
//! A new medium implements [`Medium`], and the builder creates its links
//! with [`crate::link::Egress::Medium`] pointing at its ports (docs/architecture.md,
//! "Adding a medium").

use crate::event::EventQueue;
use crate::link::Link;
use crate::observe::PacketObserver;
use crate::packet::{LinkId, PacketArena, PacketKind, PacketRef};
use crate::queue::{DropReason, Queue};
use crate::sim::Flow;
use crate::time::SimTime;

/// A port of a medium: the medium (its index in `Simulation::media`) and
/// which of its ports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Index of the medium.
    pub medium: u32,
    /// The port, numbered by the medium.
    pub port: u32,
}

/// What a medium may touch in the kernel during one call.
pub struct MediumCtx<'a> {
    /// Current time.
    pub now: SimTime,
    /// Packets.
    pub arena: &'a mut PacketArena,
    /// The event queue (the medium's own events, and arrivals at the far end of its links).
    pub events: &'a mut EventQueue,
    /// The links (a medium updates its links' transmitter state and counters).
    pub links: &'a mut [Link],
    /// The flows (to account lost packets).
    pub(crate) flows: &'a mut [Flow],
    /// Packets the medium's queues dropped. [`MediumCtx::drops`] accounts
    /// them at once; the kernel accounts those left after the call.
    pub dropped: &'a mut Vec<(PacketRef, DropReason)>,
    /// Packets the medium discarded (the kernel accounts and frees them after the call).
    pub lost: &'a mut Vec<PacketRef>,
    /// The packet observer (the trace), if any ([`crate::observe`]).
    pub(crate) observer: Option<&'a mut (dyn PacketObserver + 'static)>,
    /// Start of the metrics window.
    pub warmup: SimTime,
    /// End of the run.
    pub end: SimTime,
    /// The kernel's count of packet hops.
    pub hops: &'a mut u64,
}

impl MediumCtx<'_> {
    /// Packet `pkt` enters the queue of `link`: tell the observer (a no-op
    /// without one).
    pub fn observe_enqueue(&mut self, link: LinkId, pkt: PacketRef) {
        if let Some(t) = self.observer.as_deref_mut() {
            t.enqueue(link, self.now, self.arena.get(pkt));
        }
    }

    /// Packet `pkt` leaves the queue of `link` for its transmitter now.
    pub fn observe_dequeue(&mut self, link: LinkId, pkt: PacketRef) {
        if let Some(t) = self.observer.as_deref_mut() {
            t.dequeue(link, self.now, self.now, self.arena.get(pkt));
        }
    }

    /// Tell the observer (at `link`) of the packets in
    /// [`MediumCtx::dropped`] and account them now.
    pub fn drops(&mut self, link: LinkId) {
        if let Some(t) = self.observer.as_deref_mut() {
            for &(p, _) in self.dropped.iter() {
                t.dropped(link, self.now, self.arena.get(p));
            }
        }
        while let Some((p, _)) = self.dropped.pop() {
            lose(self.arena, self.flows, p);
        }
    }
}

/// Packet `pkt` is gone from the network without reaching its destination:
/// count it against its flow and free it.
#[inline]
pub(crate) fn lose(arena: &mut PacketArena, flows: &mut [Flow], pkt: PacketRef) {
    let p = arena.get(pkt);
    let f = &mut flows[p.flow.0 as usize];
    match p.kind {
        PacketKind::Data => f.stats.on_data_lost(),
        PacketKind::Ack => f.stats.on_ack_lost(),
    }
    arena.free(pkt);
}

/// A medium: the egress of the links that are not plain wires.
///
/// The kernel calls it when a packet is routed over one of its ports, when
/// one of its own events (`EventKind::Medium`, scheduled by the medium with
/// its index) fires, and when a `LinkFree` event of one of its links fires.
/// A medium that delivers a packet schedules its `Arrive` over the port's
/// link; the kernel then forwards it at the link's far node as after any hop.
pub trait Medium: std::any::Any {
    /// Its name.
    fn name(&self) -> &str;

    /// The run starts: schedule the first events (e.g. its queues' timers).
    fn start(&mut self, ctx: &mut MediumCtx) {
        let _ = ctx;
    }

    /// A packet routed over `port` enters the medium at `ctx.now`.
    fn enqueue(&mut self, port: u32, pkt: PacketRef, ctx: &mut MediumCtx);

    /// One of the medium's own events fired (`kind` and `token` as scheduled).
    fn on_event(&mut self, kind: u16, token: u64, ctx: &mut MediumCtx) {
        let _ = (kind, token, ctx);
    }

    /// A `LinkFree` event the medium scheduled for the link of `port` fired
    /// (the kernel has cleared the link's `free_pending`).
    fn on_link_free(&mut self, port: u32, ctx: &mut MediumCtx) {
        let _ = (port, ctx);
    }

    /// The queues the medium keeps itself (not its links' own), by index,
    /// with their names: a WLAN's interface queues. They are sampled as
    /// queues (`output.sample_links` names them).
    fn queue(&self, i: usize) -> Option<(&str, &Queue)> {
        let _ = i;
        None
    }

    /// The metrics window opens: reset the medium's own counters and queues.
    fn open_window(&mut self, now: SimTime) {
        let _ = now;
    }

    /// The run is over at `ctx.now`: close the medium's queues and complete
    /// its links' counters.
    fn close_window(&mut self, ctx: &mut MediumCtx) {
        let _ = ctx;
    }

    /// The medium as `Any`, for the results that are specific to a kind of
    /// medium (a WLAN's table).
    fn as_any(&self) -> &dyn std::any::Any;
}
