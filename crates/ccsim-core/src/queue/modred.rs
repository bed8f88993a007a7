//! ModRED: RIO-style two-precedence queueing that signals congestion by
//! shrinking the receiver's advertised window in returning ACKs instead of
//! dropping.
//!
//! Source: G. A. Ramachendra, R. Banu, G. F. Ali Ahammed, "Performance
//! Comparison of ModRED AQM with Round Robin Scheduling", IJARCET 3(7), 2014,
//! Section 3: "Mod RED is based on the two-drop precedence policy" (IN
//! packets judged on the average without the OUT packets, OUT packets on
//! the total average, as RIO); "our algorithm sets the window field to one
//! maximum segment size (MSS) in the ACK packets that are going towards the
//! sender from the receiver, instead of dropping or marking the packets at
//! the queue"; "it will not modify the receiver window field when the field
//! has a value of 0"; "the field is set to 1 only if the average queue
//! length is between Thmin and Thmax ... if the average queue length is
//! greater than Thmax, the packet is dropped".
//!
//! ccsim's reading (the paper gives no pseudo code):
//! - The forward queue is RIO ([`super::rio`]) without random early drops:
//!   below a precedence's max_th its packets are queued, at and above it
//!   they are dropped (forced), and a full buffer drops (overflow). Set
//!   `early_drops = true` to keep RIO's random early drops as well.
//! - ACKs are unclassified (class 0), so the rewriting region is the OUT
//!   (total-average) one: an ACK arriving at this queue's router over the
//!   reverse link has its window set to 1 packet when
//!   out_min_th <= avg_total < out_max_th and its window is above 1; a zero
//!   window is never touched. The average used is the total average decayed
//!   for idle time up to the ACK's arrival.

use super::droptail::Limit;
use super::registry::QueueArgs;
use super::rio::{parse_params, Rio, RioParams};
use super::{QueueCtx, QueueDisc, Verdict};
use crate::packet::{PacketKind, PacketRef};
use crate::params::ParamError;
use crate::time::SimTime;

/// The advertised window (packets) written into ACKs: one MSS.
pub const REWRITTEN_WND: u32 = 1;

/// A ModRED queue.
pub struct ModRed {
    rio: Rio,
}

impl ModRed {
    /// A ModRED queue; `early_drops` keeps RIO's random early drops.
    pub fn new(limit: Limit, p: &RioParams, early_drops: bool) -> Self {
        ModRed {
            rio: Rio::new("modred", limit, p, early_drops),
        }
    }

    /// The underlying RIO state.
    pub fn rio(&self) -> &Rio {
        &self.rio
    }

    /// Whether an average of `avg` (queue units) is in the rewriting region.
    pub fn rewrites_at(&self, avg: f64) -> bool {
        let c = self.rio.curve_out();
        avg >= c.min_th && avg < c.max_th
    }

    #[cfg(test)]
    fn rio_mut(&mut self) -> &mut Rio {
        &mut self.rio
    }
}

impl QueueDisc for ModRed {
    fn kind(&self) -> &'static str {
        "modred"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        self.rio.enqueue(pkt, ctx)
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.rio.dequeue(ctx)
    }

    fn len_pkts(&self) -> usize {
        self.rio.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.rio.len_bytes()
    }

    fn probe_names(&self) -> &'static [&'static str] {
        self.rio.probe_names()
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        self.rio.probe_values(out)
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        None
    }

    fn wants_reverse(&self) -> bool {
        true
    }

    fn on_reverse_arrival(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> bool {
        let avg = self.rio.avg_total_at(ctx.now, ctx.link_rate_bps);
        let p = ctx.arena.get_mut(pkt);
        if p.kind != PacketKind::Ack || p.wnd <= REWRITTEN_WND {
            // Never a zero window (the receiver asked the sender to stop),
            // and nothing to shrink at 1.
            return false;
        }
        if !self.rewrites_at(avg) {
            return false;
        }
        p.wnd = REWRITTEN_WND;
        true
    }
}

/// Build a ModRED queue.
pub fn build(args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let (p, early) = parse_params(args, true)?;
    Ok(Box::new(ModRed::new(args.limit, &p, early.unwrap_or(false))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::queue::DropReason;
    use crate::rng::stream;

    fn q() -> ModRed {
        ModRed::new(
            Limit {
                packets: Some(100),
                bytes: None,
            },
            &RioParams::default(),
            false,
        )
    }

    fn ack(arena: &mut PacketArena, wnd: u32) -> PacketRef {
        arena.alloc(Packet {
            kind: PacketKind::Ack,
            size: 40,
            wnd,
            ..Packet::default()
        })
    }

    #[test]
    fn rewrites_only_between_thresholds_and_never_zero_window() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "modred");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut m = q();
        // Defaults: OUT thresholds 5 and 15 on the total average.
        for (avg, expect) in [
            (0.0, false),
            (4.99, false),
            (5.0, true),
            (10.0, true),
            (14.99, true),
            (15.0, false),
            (40.0, false),
        ] {
            m.rio_mut().set_avgs(avg, 0.0);
            let a = ack(ctx.arena, 20);
            let rewrote = m.on_reverse_arrival(a, &mut ctx);
            assert_eq!(rewrote, expect, "avg {avg}");
            assert_eq!(ctx.arena.get(a).wnd, if expect { 1 } else { 20 }, "avg {avg}");
        }
        m.rio_mut().set_avgs(10.0, 0.0);
        let z = ack(ctx.arena, 0);
        assert!(!m.on_reverse_arrival(z, &mut ctx));
        assert_eq!(ctx.arena.get(z).wnd, 0);
        // Data packets travelling back are never touched.
        let d = ctx.arena.alloc(Packet {
            kind: PacketKind::Data,
            wnd: 20,
            ..Packet::default()
        });
        assert!(!m.on_reverse_arrival(d, &mut ctx));
        assert_eq!(ctx.arena.get(d).wnd, 20);
    }

    #[test]
    fn no_early_drops_between_thresholds_forced_above() {
        let mut arena = PacketArena::new();
        let mut rng = stream(2, "modred");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        let mut m = q();
        m.rio_mut().set_avgs(14.0, 14.0);
        for class in [0u8, 1] {
            for _ in 0..30 {
                let p = ctx.arena.alloc(Packet {
                    size: 500,
                    class,
                    ..Packet::default()
                });
                assert_eq!(m.enqueue(p, &mut ctx), Verdict::Enqueued);
            }
        }
        // Above OUT's max_th but below IN's: OUT dropped, IN kept.
        m.rio_mut().set_avgs(16.0, 14.0);
        let out = ctx.arena.alloc(Packet {
            size: 500,
            class: 0,
            ..Packet::default()
        });
        assert_eq!(m.enqueue(out, &mut ctx), Verdict::Dropped(DropReason::Forced));
        let inp = ctx.arena.alloc(Packet {
            size: 500,
            class: 1,
            ..Packet::default()
        });
        assert_eq!(m.enqueue(inp, &mut ctx), Verdict::Enqueued);
    }
}
