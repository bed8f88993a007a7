//! Observers of a packet's path: the kernel tells them when a packet enters
//! a link's queue, leaves it for the transmitter, arrives at the link's far
//! end, or is dropped there. They watch and never decide; the packet trace
//! ([`crate::trace::Tracer`]) is one.
//!
//! The kernel keeps at most one observer ([`Simulation::observe`] fans
//! several out in the order they were added), behind an `Option`: a run
//! without one pays one branch per hook point and no call. The hooks are
//! the four events of an ns-2 trace (`+`, `-`, `r`, `d`):
//!
//! | hook | called by | when |
//! |---|---|---|
//! | [`PacketObserver::enqueue`] | `Simulation::enqueue`, `enqueue_fast`; a medium's `MediumCtx::observe_enqueue` | a packet is offered to the queue of a link (also when the queue then drops it) |
//! | [`PacketObserver::dequeue`] | `Simulation::transmit`, `enqueue_fast`; `MediumCtx::observe_dequeue` | its transmission starts now, or, on the FIFO fast path, will start at a time fixed now |
//! | [`PacketObserver::receive`] | `Simulation::on_arrive` | it arrives at the far end of the link |
//! | [`PacketObserver::dropped`] | `Simulation::process_drops`, `enqueue_fast`, `on_arrive`; `MediumCtx::drops` | the link's queue drops it (on arrival or from inside), or its loss model loses it |
//!
//! [`Simulation::observe`]: crate::sim::Simulation::observe

use crate::error::Result;
use crate::packet::{LinkId, Packet};
use crate::time::SimTime;

/// An observer of the packets on the simulation's links.
pub trait PacketObserver: Send {
    /// Packet `p` is offered to the queue of `link` at `now`.
    fn enqueue(&mut self, link: LinkId, now: SimTime, p: &Packet);

    /// The transmission of `p` on `link` starts at `start`: `now`, or a
    /// later time the FIFO fast path fixed when it accepted the packet
    /// (the transmissions of one link are told in the order of their
    /// starts).
    fn dequeue(&mut self, link: LinkId, now: SimTime, start: SimTime, p: &Packet);

    /// Packet `p` arrives at the far end of `link` at `now`.
    fn receive(&mut self, link: LinkId, now: SimTime, p: &Packet);

    /// Packet `p` is dropped at `link` at `now`: by its queue or by its loss
    /// model.
    fn dropped(&mut self, link: LinkId, now: SimTime, p: &Packet);

    /// The run ended at `end`: complete and flush what is pending, and
    /// report the first error.
    fn finish(&mut self, end: SimTime) -> Result<()> {
        let _ = end;
        Ok(())
    }
}

/// Several observers, each told every event in the order they were added.
pub(crate) struct Fanout(pub(crate) Vec<Box<dyn PacketObserver>>);

impl PacketObserver for Fanout {
    fn enqueue(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        for o in &mut self.0 {
            o.enqueue(link, now, p);
        }
    }

    fn dequeue(&mut self, link: LinkId, now: SimTime, start: SimTime, p: &Packet) {
        for o in &mut self.0 {
            o.dequeue(link, now, start, p);
        }
    }

    fn receive(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        for o in &mut self.0 {
            o.receive(link, now, p);
        }
    }

    fn dropped(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        for o in &mut self.0 {
            o.dropped(link, now, p);
        }
    }

    fn finish(&mut self, end: SimTime) -> Result<()> {
        let mut first = Ok(());
        for o in &mut self.0 {
            let r = o.finish(end);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}
