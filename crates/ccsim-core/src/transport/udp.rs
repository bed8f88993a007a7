//! UDP: no acknowledgements, no congestion control. Each application write is
//! one datagram of that size on the wire (the ns-2 convention: a CBR
//! `packet_size_` of 1000 gives 1000-byte packets; the IP/UDP header is not
//! added separately), and every datagram that arrives is delivered.

use super::{FlowCtx, Receiver, Sender};
use crate::packet::{Ecn, Packet, PacketKind};

/// UDP sender.
#[derive(Default)]
pub struct UdpSender {
    next_seq: u64,
    stopped: bool,
    ecn: bool,
}

impl UdpSender {
    /// A sender; `ecn` marks datagrams ECN-capable (ECT).
    pub fn new(ecn: bool) -> Self {
        UdpSender {
            ecn,
            ..UdpSender::default()
        }
    }
}

impl Sender for UdpSender {
    fn name(&self) -> &'static str {
        "udp"
    }

    fn app_data(&mut self, ctx: &mut FlowCtx, bytes: u64) {
        if self.stopped || bytes == 0 {
            return;
        }
        let size = bytes.min(u32::MAX as u64) as u32;
        let p = Packet {
            kind: PacketKind::Data,
            size,
            payload: size,
            seq: self.next_seq,
            ecn: if self.ecn { Ecn::Ect } else { Ecn::NotEct },
            ..Packet::default()
        };
        self.next_seq += 1;
        ctx.send(p);
    }

    fn stop(&mut self, _ctx: &mut FlowCtx) {
        self.stopped = true;
    }
}

/// UDP receiver: delivers every datagram.
#[derive(Default)]
pub struct UdpReceiver;

impl Receiver for UdpReceiver {
    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet) {
        ctx.deliver(pkt.payload as u64);
    }
}
