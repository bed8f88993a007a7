//! The RAP receiver (Rejaie, Handley and Estrin, INFOCOM 1999, section
//! 3.1): every data packet is acknowledged at once. Besides the sequence
//! number it acknowledges, an ACK describes the last hole in the sequence
//! space, so that the sender can detect losses even when ACKs are lost:
//! A_last (`lastRecv`, the highest sequence number received), and the hole
//! (`prevRecv`, `lastMiss`], i.e. `prevRecv` is the last packet received
//! below it and `lastMiss` the highest packet missing (0, 0 without a hole),
//! kept as ns-2's `RapAgent::UpdateLastHole`.
//!
//! Encoding: `seq` = the packet acknowledged, `ack` = lastRecv,
//! `sack[0]` = (prevRecv, lastMiss) with `n_sack` = 1. Sequence numbers
//! start at 1 (0 means "none", as in ns-2).

use crate::packet::{Packet, PacketKind};
use crate::transport::{FlowCtx, Receiver};

/// The receiving end of a RAP flow.
pub struct RapReceiver {
    ack_size: u32,
    last_recv: u64,
    last_miss: u64,
    prev_recv: u64,
}

impl RapReceiver {
    /// A receiver whose ACKs are `ack_size` bytes.
    pub fn new(ack_size: u32) -> Self {
        RapReceiver {
            ack_size,
            last_recv: 0,
            last_miss: 0,
            prev_recv: 0,
        }
    }

    /// (lastRecv, lastMiss, prevRecv).
    pub fn last_hole(&self) -> (u64, u64, u64) {
        (self.last_recv, self.last_miss, self.prev_recv)
    }

    /// Update the last hole with an arriving sequence number.
    pub fn update_last_hole(&mut self, seq: u64) {
        if seq > self.last_recv + 1 {
            self.prev_recv = self.last_recv;
            self.last_recv = seq;
            self.last_miss = seq - 1;
        } else if seq == self.last_recv + 1 {
            self.last_recv = seq;
        } else if self.last_miss < seq && seq <= self.last_recv {
            // A duplicate.
        } else if seq == self.last_miss {
            if self.prev_recv + 1 == seq {
                // The hole is filled.
                self.prev_recv = 0;
                self.last_miss = 0;
            } else {
                self.last_miss -= 1;
            }
        } else if self.prev_recv < seq && seq < self.last_miss {
            self.prev_recv = seq;
        }
        // Older packets (below prevRecv) change nothing.
    }
}

impl Receiver for RapReceiver {
    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        ctx.deliver(pkt.payload as u64);
        self.update_last_hole(pkt.seq);
        let mut ack = Packet {
            kind: PacketKind::Ack,
            size: self.ack_size,
            seq: pkt.seq,
            ack: self.last_recv,
            n_sack: 1,
            ..Packet::default()
        };
        ack.sack[0] = (self.prev_recv, self.last_miss);
        ctx.send(ack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_hole_tracking() {
        let mut r = RapReceiver::new(40);
        for s in 1..=3 {
            r.update_last_hole(s);
        }
        assert_eq!(r.last_hole(), (3, 0, 0));
        // 4 and 5 lost: the hole is (3, 5].
        r.update_last_hole(6);
        assert_eq!(r.last_hole(), (6, 5, 3));
        r.update_last_hole(7);
        assert_eq!(r.last_hole(), (7, 5, 3));
        // 5 arrives late: the hole shrinks to (3, 4]; then 4 fills it.
        r.update_last_hole(5);
        assert_eq!(r.last_hole(), (7, 4, 3));
        r.update_last_hole(4);
        assert_eq!(r.last_hole(), (7, 0, 0));
    }
}
