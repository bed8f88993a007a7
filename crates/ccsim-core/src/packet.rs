//! Packets and the arena that holds them.
//!
//! A packet lives in one slot of [`PacketArena`] from the moment a transport
//! emits it until it is delivered or dropped; events and queues carry the
//! 4-byte [`PacketRef`] instead of the packet, and slots are recycled, so the
//! hot loop allocates nothing per packet.

use crate::time::SimTime;

/// Index of a node.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

/// Index of a (unidirectional) link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LinkId(pub u32);

/// Index of a flow.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FlowId(pub u32);

/// Handle of a packet in the arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PacketRef(pub u32);

/// What a packet carries, for routing it to the right endpoint and for traces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    /// Data from the flow's sender to its receiver.
    #[default]
    Data,
    /// Acknowledgement or feedback from the receiver back to the sender.
    Ack,
}

/// The two ECN bits of the IP header (RFC 3168 section 5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0).
    Ect,
    /// ECT(1): the L4S identifier of a scalable sender (RFC 9331 section 4).
    Ect1,
    /// Congestion experienced (set by a router instead of dropping).
    Ce,
}

/// TCP header flag bits carried by [`Packet::flags`].
pub mod flags {
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// ACK.
    pub const ACK: u8 = 0x10;
    /// ECN-Echo (RFC 3168).
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: u8 = 0x80;
}

/// Maximum number of SACK blocks a packet carries (RFC 2018 allows 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A simulated packet: headers only, no payload bytes.
#[derive(Clone, Debug, Default)]
pub struct Packet {
    /// Unique id, in emission order (for traces).
    pub uid: u64,
    /// The flow this packet belongs to.
    pub flow: FlowId,
    /// Node that emitted the packet.
    pub src: NodeId,
    /// Node the packet is addressed to.
    pub dst: NodeId,
    /// Size on the wire in bytes (headers included).
    pub size: u32,
    /// Application payload bytes carried.
    pub payload: u32,
    /// Data or acknowledgement.
    pub kind: PacketKind,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Precedence / class (for WRED, RIO and per-class schedulers).
    pub class: u8,
    /// Transport sequence number (its unit is the transport's; TCP uses segments).
    pub seq: u64,
    /// Cumulative acknowledgement number.
    pub ack: u64,
    /// TCP flags (see [`flags`]).
    pub flags: u8,
    /// Advertised receive window (in packets).
    pub wnd: u32,
    /// Number of valid SACK blocks.
    pub n_sack: u8,
    /// SACK blocks: [start, end) ranges of received sequence numbers.
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Transmission counter of this sequence number (0 = first transmission).
    pub tx_count: u16,
    /// Time the transport emitted the packet.
    pub sent_at: SimTime,
    /// Time the packet entered its current queue.
    pub enqueued_at: SimTime,
    /// Sender timestamp carried for RTT measurement (TCP timestamps, TFRC).
    pub ts_val: SimTime,
    /// Echoed timestamp.
    pub ts_echo: SimTime,
    /// Two transport-specific values (TFRC feedback: receive rate, loss event rate).
    pub info: [f64; 2],
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    next_uid: u64,
}

impl PacketArena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store a packet and return its handle; assigns the packet's uid.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketRef {
        self.alloc_with(|slot| *slot = p)
    }

    /// Store a packet that `fill` writes into its slot (which holds a
    /// stale packet: `fill` overwrites it whole), and return its handle;
    /// assigns the packet's uid. Building the packet in its slot saves
    /// copying it there.
    #[inline(always)]
    pub fn alloc_with(&mut self, fill: impl FnOnce(&mut Packet)) -> PacketRef {
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Packet::default());
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[i as usize];
        fill(slot);
        slot.uid = self.next_uid;
        self.next_uid += 1;
        PacketRef(i)
    }

    /// Release a packet's slot.
    #[inline]
    pub fn free(&mut self, r: PacketRef) {
        self.free.push(r.0);
    }

    /// Read a packet.
    #[inline]
    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slots[r.0 as usize]
    }

    /// Modify a packet.
    #[inline]
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.0 as usize]
    }

    /// Packets currently alive (emitted, not yet delivered or dropped).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Total packets ever allocated.
    pub fn allocated(&self) -> u64 {
        self.next_uid
    }
}
