//! Transports: the protocol state at a flow's two ends.
//!
//! A transport is a [`Sender`] at the flow's source node and a [`Receiver`]
//! at its destination. The kernel calls them on packet arrival and on their
//! timers; they act through a [`FlowCtx`], which lets them emit packets, set
//! timers and report delivered data. Applications (see [`crate::app`]) feed
//! the sender with data; a transport never knows which application it serves.

pub mod registry;
#[cfg(test)]
pub(crate) mod testenv;
pub mod udp;

use crate::event::{Endpoint, EventKind, EventQueue};
use crate::metrics::FlowStats;
use crate::packet::{FlowId, NodeId, Packet, PacketArena, PacketKind, PacketRef};
use crate::rng::SimRng;
use crate::time::SimTime;

/// What a transport may do while handling an event.
pub struct FlowCtx<'a> {
    /// Current simulated time.
    pub now: SimTime,
    /// The flow.
    pub flow: FlowId,
    /// The flow's source node (where the sender lives).
    pub src: NodeId,
    /// The flow's destination node (where the receiver lives).
    pub dst: NodeId,
    /// The flow's counters (the transport adds its own: retransmits, timeouts...).
    pub stats: &'a mut FlowStats,
    /// The flow's random stream.
    pub rng: &'a mut SimRng,
    /// Precedence stamped on the flow's data packets.
    pub class: u8,
    pub(crate) events: &'a mut EventQueue,
    pub(crate) arena: &'a mut PacketArena,
    pub(crate) outbox: &'a mut Vec<PacketRef>,
}

impl<'a> FlowCtx<'a> {
    /// Emit a packet. Data packets go src -> dst, acknowledgements dst -> src;
    /// `flow`, `src`, `dst` and `sent_at` are filled in here.
    #[inline]
    pub fn send(&mut self, p: Packet) {
        self.send_with(|| p);
    }

    /// Emit the packet `build` returns, built in its arena slot rather than
    /// copied there (the hot senders' form of [`FlowCtx::send`]).
    #[inline(always)]
    pub fn send_with(&mut self, build: impl FnOnce() -> Packet) {
        self.send_in(|p| *p = build());
    }

    /// Emit the packet that `fill` writes into its arena slot (which holds
    /// a stale packet: `fill` must overwrite it whole before changing
    /// fields): for a packet finished after it is built (a receiver's ACK
    /// with its SACK blocks), which [`FlowCtx::send_with`] would build on
    /// the stack and copy.
    #[inline(always)]
    pub fn send_in(&mut self, fill: impl FnOnce(&mut Packet)) {
        let (flow, now, class, src, dst) = (self.flow, self.now, self.class, self.src, self.dst);
        let stats = &mut *self.stats;
        let r = self.arena.alloc_with(|p| {
            fill(p);
            p.flow = flow;
            p.sent_at = now;
            match p.kind {
                PacketKind::Data => {
                    p.class = class;
                    p.src = src;
                    p.dst = dst;
                    stats.on_data_sent(p.size, p.payload, p.tx_count > 0);
                }
                PacketKind::Ack => {
                    p.src = dst;
                    p.dst = src;
                    stats.on_ack_sent();
                }
            }
        });
        self.outbox.push(r);
    }

    /// Schedule a timer for `endpoint` of this flow at absolute time `at`.
    /// The owner keeps `token` to recognise (and ignore) cancelled timers.
    /// `kind` must be below 65534 (kinds are small constants; the kernel keeps
    /// 16 bits of them so that events stay 32 bytes).
    pub fn set_timer(&mut self, at: SimTime, endpoint: Endpoint, kind: u32, token: u64) {
        debug_assert!(kind < u16::MAX as u32 - 1, "timer kinds are small constants");
        let kind = kind as u16;
        self.events.push(
            at.max(self.now),
            EventKind::Timer {
                flow: self.flow,
                endpoint,
                kind,
                token,
            },
        );
    }

    /// The receiver hands `bytes` of new, in-order payload to the application.
    pub fn deliver(&mut self, bytes: u64) {
        self.stats.on_delivered(bytes, self.now);
    }
}

/// Values a sender exposes as time series; NaN where not applicable.
#[derive(Copy, Clone, Debug)]
pub struct SenderProbe {
    /// Congestion window, packets.
    pub cwnd_pkts: f64,
    /// Slow-start threshold, packets.
    pub ssthresh_pkts: f64,
    /// Smoothed RTT, seconds.
    pub srtt_s: f64,
    /// Sending rate (for rate-based senders), bits per second.
    pub rate_bps: f64,
}

impl Default for SenderProbe {
    fn default() -> Self {
        SenderProbe {
            cwnd_pkts: f64::NAN,
            ssthresh_pkts: f64::NAN,
            srtt_s: f64::NAN,
            rate_bps: f64::NAN,
        }
    }
}

/// The sending end of a transport.
pub trait Sender: Send {
    /// The transport's name (`udp`, `tcp`, ...).
    fn name(&self) -> &'static str;
    /// The flow starts.
    fn start(&mut self, _ctx: &mut FlowCtx) {}
    /// The application makes `bytes` more data available (`u64::MAX`:
    /// unlimited). For message-oriented transports (UDP) one call is one packet
    /// of that wire size.
    fn app_data(&mut self, ctx: &mut FlowCtx, bytes: u64);
    /// The application stops: send no new data.
    fn stop(&mut self, _ctx: &mut FlowCtx) {}
    /// An acknowledgement or feedback packet arrived.
    fn on_packet(&mut self, _ctx: &mut FlowCtx, _pkt: &Packet) {}
    /// A timer set with [`FlowCtx::set_timer`] for [`Endpoint::Sender`] fired.
    fn on_timer(&mut self, _ctx: &mut FlowCtx, _kind: u32, _token: u64) {}
    /// Payload bytes of a full segment, for a byte-sequence view of the
    /// segment numbers (pcap traces); None for transports without segments.
    fn segment_payload(&self) -> Option<u32> {
        None
    }
    /// Current state for the time series.
    fn probe(&self) -> SenderProbe {
        SenderProbe::default()
    }
    /// Which probes are meaningful for this transport (names as in time series).
    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The congestion window now, packets, and the smoothed RTT, seconds
    /// (`probe().cwnd_pkts` and `probe().srtt_s`, which a sender may compute
    /// more cheaply). For a sender whose `probe_names` lists `cwnd_pkts` or
    /// `srtt_s`, the kernel reads them after each of the sender's callbacks
    /// to integrate them over time (`cwnd_mean_pkts`, `srtt_mean_s`:
    /// [`crate::metrics::FlowStats::note_sender`]).
    fn cwnd_and_srtt(&self) -> (f64, f64) {
        let p = self.probe();
        (p.cwnd_pkts, p.srtt_s)
    }
}

/// The receiving end of a transport.
pub trait Receiver: Send {
    /// A data packet arrived.
    fn on_packet(&mut self, ctx: &mut FlowCtx, pkt: &Packet);
    /// A timer set for [`Endpoint::Receiver`] fired.
    fn on_timer(&mut self, _ctx: &mut FlowCtx, _kind: u32, _token: u64) {}
}
