//! Links: one direction of a duplex connection. A link serializes packets at
//! its rate, then they propagate for its delay; the egress queue discipline
//! decides the order. Serialization and propagation are separate, so a link
//! holds many packets in flight.

use crate::medium::Port;
use crate::metrics::LinkStats;
use crate::packet::{LinkId, NodeId, Packet, PacketKind};
use crate::queue::Queue;
use crate::rng::{uniform01, SimRng};
use crate::time::{tx_time, SimTime};

/// Random packet loss applied to packets crossing a link (after the queue).
/// Serialized as the scenario writes it (`model` and its keys), for the
/// results' `components`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum LossModel {
    /// Independent loss with probability `rate`.
    Bernoulli {
        /// Loss probability per packet.
        rate: f64,
    },
    /// Two-state Gilbert-Elliott channel, stepped once per packet.
    #[serde(rename = "gilbert-elliott")]
    GilbertElliott {
        /// P(good -> bad) per packet.
        p_gb: f64,
        /// P(bad -> good) per packet.
        p_bg: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
    },
    /// Deterministic drops for scripted experiments: the n-th, m-th, ... data
    /// packets (counting from 1, retransmissions included, acknowledgements
    /// not counted) that cross this link direction are lost.
    DropList {
        /// Ascending, distinct data-packet numbers (1-based).
        packets: Vec<u64>,
    },
}

/// A loss model with its state and random stream.
pub struct Loss {
    model: LossModel,
    bad: bool,
    rng: SimRng,
    /// Data packets seen so far (drop_list).
    data_seen: u64,
    /// Index of the next entry of the drop list.
    next_drop: usize,
}

impl Loss {
    /// Its model and parameters.
    pub fn model(&self) -> &LossModel {
        &self.model
    }

    /// A loss process starting in the good state.
    pub fn new(model: LossModel, rng: SimRng) -> Self {
        Loss {
            model,
            bad: false,
            rng,
            data_seen: 0,
            next_drop: 0,
        }
    }

    /// Decide the fate of the next packet: true means lost.
    #[inline]
    pub fn lose(&mut self, pkt: &Packet) -> bool {
        match self.model {
            LossModel::DropList { ref packets } => {
                if pkt.kind != PacketKind::Data {
                    return false;
                }
                self.data_seen += 1;
                if packets.get(self.next_drop) == Some(&self.data_seen) {
                    self.next_drop += 1;
                    return true;
                }
                false
            }
            LossModel::Bernoulli { rate } => uniform01(&mut self.rng) < rate,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                let u = uniform01(&mut self.rng);
                self.bad = if self.bad { u >= p_bg } else { u < p_gb };
                let p = if self.bad { loss_bad } else { loss_good };
                uniform01(&mut self.rng) < p
            }
        }
    }
}

/// One direction of a link.
pub struct Link {
    /// Its index.
    pub id: LinkId,
    /// "a->b".
    pub name: String,
    /// Transmitting node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: SimTime,
    /// What the kernel derives from the rate and the delay at every
    /// transmission, computed once.
    pub derived: Derived,
    /// What sends its packets: a wire fed by the link's queue, or a medium.
    pub egress: Egress,
    /// Random loss, if any.
    pub loss: Option<Loss>,
    /// The transmitter is busy until this time.
    pub busy_until: SimTime,
    /// A LinkFree event is scheduled.
    pub free_pending: bool,
    /// Under the `fifo` tie order: the place in the scheduling order of
    /// this transmission's end, taken when it started.
    pub free_seq: u64,
    /// ... and its end on ns-2's double clock.
    pub free_t64: f64,
    /// Counters over the window.
    pub stats: LinkStats,
    /// The opposite direction of the same duplex pair, if its queue wants to
    /// see packets arriving over this link (ModRED's ACK rewriting).
    pub notify_reverse: Option<LinkId>,
    /// The device's transmit queue below the queue disc (`device_queue`):
    /// packets taken out of the disc while the transmitter is busy, in
    /// the order they will be sent.
    pub device: std::collections::VecDeque<crate::packet::PacketRef>,
    /// Its capacity, packets (0: none, the disc feeds the transmitter).
    pub device_cap: u32,
    /// Link-layer framing bytes each transmission adds (`framing_bytes`).
    pub framing: u32,
}

/// What the kernel derives from a link's rate and delay at every
/// transmission, computed once or kept: the same values as computing them
/// each time. 32 bytes (a `Link` is read by every hop).
#[derive(Copy, Clone, Debug)]
pub struct Derived {
    /// The bytes whose serialization `memo` is.
    bytes: u32,
    /// Nanoseconds per byte when the rate divides 8 * 10^9 bits per
    /// second (10 Mbps: 800) and the quotient fits in 32 bits, so that
    /// [`tx_time`]'s quotient is exact and a multiplication, which cannot
    /// overflow, gives it; 0 otherwise.
    pub ns_per_byte: u32,
    /// The serialization of the last size the general path sent
    /// ([`Derived::tx_memo`]).
    memo: TxMemo,
}

impl Derived {
    /// The derived values of a link of `rate_bps` and `delay`.
    pub fn of(rate_bps: u64, delay: SimTime) -> Self {
        const NS_BITS: u64 = 8_000_000_000;
        let ns_per_byte = if rate_bps > 0 && NS_BITS % rate_bps == 0 {
            u32::try_from(NS_BITS / rate_bps).unwrap_or(0)
        } else {
            0
        };
        let mut d = Derived {
            bytes: 0,
            ns_per_byte,
            memo: TxMemo {
                tx: SimTime::ZERO,
                txt: 0.0,
                txt_delay: 0.0,
            },
        };
        d.memo = d.memo_of(0, rate_bps, delay);
        d
    }

    /// The serialization of `bytes` on a link of `rate_bps` and `delay`
    /// (those these values were derived from): the last size's, kept, or
    /// computed and kept (out of line, so that the common case stays a
    /// comparison).
    #[inline]
    pub fn tx_memo(&mut self, bytes: u32, rate_bps: u64, delay: SimTime) -> TxMemo {
        if self.bytes != bytes {
            self.remember(bytes, rate_bps, delay);
        }
        self.memo
    }

    #[inline(never)]
    fn remember(&mut self, bytes: u32, rate_bps: u64, delay: SimTime) {
        self.memo = self.memo_of(bytes, rate_bps, delay);
        self.bytes = bytes;
    }

    /// The serialization of `bytes`, computed.
    fn memo_of(&self, bytes: u32, rate_bps: u64, delay: SimTime) -> TxMemo {
        // ns-2's `LinkDelay::recv`: `txt = 8 * size / bandwidth`, the
        // arrival at `clock + (txt + delay)`, in doubles.
        let txt = 8.0 * bytes as f64 / rate_bps as f64;
        TxMemo {
            tx: self.tx_time(bytes, rate_bps),
            txt,
            txt_delay: txt + crate::event::ns_as_secs(delay),
        }
    }

    /// Time to serialize `bytes` at `rate_bps` (the rate these values were
    /// derived from): [`tx_time`], through the multiplication when the rate
    /// allows it (otherwise a 64-bit division per hop).
    #[inline]
    pub fn tx_time(&self, bytes: u32, rate_bps: u64) -> SimTime {
        if self.ns_per_byte != 0 {
            SimTime(bytes as u64 * self.ns_per_byte as u64)
        } else {
            tx_time(bytes, rate_bps)
        }
    }
}

/// The serialization of one packet size on a link: its time on the
/// nanosecond clock and on ns-2's double clock. The general path keeps the
/// last size's ([`Link::tx_memo`]): a link's packets repeat a few sizes (a
/// direction carries data segments or acknowledgements), and a hit saves
/// the 64-bit division of rates that do not divide 8 * 10^9 bits per second
/// and the double division of ns-2's clock.
#[derive(Copy, Clone, Debug)]
pub struct TxMemo {
    /// Serialization time ([`tx_time`]).
    pub tx: SimTime,
    /// ns-2's `txt = 8 * size / bandwidth`, seconds (`LinkDelay::recv`).
    pub txt: f64,
    /// ns-2's `txt + delay`, seconds (the arrival at `clock + (txt + delay)`).
    pub txt_delay: f64,
}

impl Link {
    /// Time to serialize `bytes` on this link ([`Derived::tx_time`]).
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> SimTime {
        self.derived.tx_time(bytes, self.rate_bps)
    }

    /// The serialization of `bytes` on this link ([`Derived::tx_memo`]).
    #[inline]
    pub fn tx_memo(&mut self, bytes: u32) -> TxMemo {
        self.derived.tx_memo(bytes, self.rate_bps, self.delay)
    }
}

/// What sends a link's packets.
pub enum Egress {
    /// A wire: the link's queue feeds its transmitter at `rate_bps`. The
    /// kernel handles it inline (the common case: no dispatch per packet).
    Wire(Queue),
    /// A port of a medium ([`crate::medium`]), which the kernel calls
    /// through the [`crate::medium::Medium`] trait.
    Medium {
        /// The medium and the port.
        port: Port,
        /// The link's own queue, which the medium serves (a trace-driven
        /// link's), or `None` when the medium keeps its queues itself (a
        /// WLAN's interface queues, shared by a node's ports).
        queue: Option<Queue>,
    },
}

impl Link {
    /// The link's own queue: a wire's, or the one its medium serves; `None`
    /// for a port of a medium that keeps its queues itself (those links are
    /// left out of the `queues` and `links` tables and of packet traces).
    #[inline]
    pub fn queue(&self) -> Option<&Queue> {
        match &self.egress {
            Egress::Wire(q) => Some(q),
            Egress::Medium { queue, .. } => queue.as_ref(),
        }
    }

    /// The link's own queue, mutably.
    #[inline]
    pub fn queue_mut(&mut self) -> Option<&mut Queue> {
        match &mut self.egress {
            Egress::Wire(q) => Some(q),
            Egress::Medium { queue, .. } => queue.as_mut(),
        }
    }

    /// The medium port, if the link is not a plain wire.
    #[inline]
    pub fn port(&self) -> Option<Port> {
        match &self.egress {
            Egress::Wire(_) => None,
            Egress::Medium { port, .. } => Some(*port),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived serialization time is `tx_time`'s, whether the rate
    /// divides 8 * 10^9 (the product) or not (the division; also for 1 bit/s,
    /// whose 8 * 10^9 ns per byte do not fit in 32 bits), up to sizes whose
    /// product with 8 * 10^9 overflows 64 bits.
    #[test]
    fn derived_tx_time_is_tx_time() {
        for rate in [
            1,
            3,
            1_000,
            9_600,
            1_000_000,
            10_000_000,
            100_000_000,
            1_000_000_000,
            1_500_000_000,
            10_000_000_000,
        ] {
            let d = Derived::of(rate, SimTime::ZERO);
            let fits = 8_000_000_000 % rate == 0 && 8_000_000_000 / rate <= u32::MAX as u64;
            assert_eq!(d.ns_per_byte != 0, fits, "rate {rate}");
            for bytes in [0, 1, 40, 512, 1500, 65_535, 3_000_000_000, u32::MAX] {
                assert_eq!(
                    d.tx_time(bytes, rate),
                    tx_time(bytes, rate),
                    "{bytes} bytes at {rate} bit/s"
                );
            }
        }
        assert_eq!(Derived::of(10_000_000, SimTime::ZERO).ns_per_byte, 800);
    }

    /// The kept serialization is the computed one whatever the sequence of
    /// sizes (repeated, changing, back to an earlier one, zero first):
    /// `tx_time`, and ns-2's `8 * size / bandwidth` and its sum with the
    /// delay as doubles.
    #[test]
    fn tx_memo_is_computed_serialization() {
        let delay = SimTime::from_millis(20);
        // The memo's key packed with the multiplier: what a hop reads of it
        // stays 32 bytes.
        assert_eq!(std::mem::size_of::<Derived>(), 32);
        for rate in [10_000_000, 1_000_000_000, 10_000_000_000, 1_500_000_000] {
            let mut d = Derived::of(rate, delay);
            for bytes in [0, 552, 552, 40, 552, 40, 40, 1500, 0, 552] {
                let m = d.tx_memo(bytes, rate, delay);
                let txt = 8.0 * bytes as f64 / rate as f64;
                assert_eq!(m.tx, tx_time(bytes, rate), "{bytes} bytes at {rate} bit/s");
                assert_eq!(m.txt.to_bits(), txt.to_bits());
                let txt_delay = txt + crate::event::ns_as_secs(delay);
                assert_eq!(m.txt_delay.to_bits(), txt_delay.to_bits());
            }
        }
    }
}
