//! IEEE 802.11 wireless LANs: an access point and its stations sharing one
//! channel under the distributed coordination function (DCF).
//!
//! Each node of a WLAN has one wireless interface: a queue (any registered
//! discipline) feeding a DCF entity. The AP has one interface, and so one
//! queue, for all its stations, as a real AP does. For routing, the WLAN is a
//! set of links AP <-> station (so station-to-station traffic goes through
//! the AP); each is a port of the WLAN, a [`Medium`] (crate::medium): the
//! kernel hands packets routed over it to the WLAN, which puts them in the
//! transmitting interface's queue and remembers the port each packet takes.
//!
//! The MAC (see `dcf.rs` for one station's state, `channel.rs` for a frame
//! exchange, `phy.rs` for the timing) follows IEEE Std 802.11-2016 clause
//! 10.3: carrier sense with DIFS/EIFS/SIFS, binary exponential backoff frozen
//! while the medium is busy, link-layer ACKs, retry limits, optional RTS/CTS
//! above a threshold; collisions when stations end their backoff in the same
//! slot; frame errors from a per-frame or per-bit error rate on top. Two MAC
//! events per frame exchange: the contention (the earliest end of backoff
//! among the stations with a frame) and, for each transmitter, the moment it
//! learns the outcome (ACK received or timeout). A station waiting for its
//! response takes no part in contention; the others may contend as soon as
//! their own IFS and backoff allow, which can be before a slower colliding
//! transmitter's timeout expires.
//!
//! Simplifications (documented in docs/algorithms.md): one collision domain
//! with no propagation delay and no hidden stations, no capture, no
//! fragmentation, no rate adaptation, no beacons or management traffic, no
//! aggregation, no EDCA.

pub mod channel;
pub mod config;
pub mod dcf;
pub mod phy;

use crate::event::EventKind;
use crate::medium::{Medium, MediumCtx};
use crate::packet::{LinkId, NodeId, PacketRef};
use crate::queue::Queue;
use crate::rng::{uniform01, SimRng};
use crate::time::SimTime;
use channel::{Attempt, FrameKind, Outcome, Plan, Timing};
use dcf::{AfterFailure, Dcf, DcfParams};
use phy::{Phy, DATA_OVERHEAD};

/// A port of the WLAN: one direction of an AP <-> station hop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct WlanPort {
    /// The link.
    link: LinkId,
    /// Transmitting interface (index within the WLAN; 0 is the AP).
    tx: u32,
    /// Receiving interface.
    rx: u32,
}

/// MAC event: contention (the earliest backoff ends now).
pub const EV_CONTEND: u16 = 0;
/// MAC event: a transmitter learns the outcome of its attempt (the token is
/// the interface's index).
pub const EV_OUTCOME: u16 = 1;
/// A timer of an interface's queue discipline (the token is the interface's
/// index in the high 32 bits and the timer's kind in the low 32).
pub const EV_QUEUE_TIMER: u16 = 2;

/// Frame error model of a WLAN.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum FrameErrors {
    /// Each data frame is corrupted with this probability (control frames
    /// are short and sent at the basic rate; this model leaves them intact).
    Fer(f64),
    /// Each bit of every frame (data and control) is wrong with this
    /// probability, independently: a frame of L bytes is corrupted with
    /// probability 1 - (1 - BER)^(8 L).
    Ber(f64),
}

impl FrameErrors {
    /// Draw whether a frame of `bytes` is corrupted at its addressee.
    fn corrupt(self, kind: FrameKind, bytes: u32, rng: &mut SimRng) -> bool {
        match self {
            FrameErrors::Fer(r) => kind == FrameKind::Data && uniform01(rng) < r,
            FrameErrors::Ber(b) => {
                let ok = (bytes as f64 * 8.0 * (-b).ln_1p()).exp();
                uniform01(rng) >= ok
            }
        }
    }
}

/// Counters of one interface over the metrics window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IfaceStats {
    /// Channel accesses: transmissions of a data frame or an RTS that start an exchange.
    pub attempts: u64,
    /// Attempts that were RTS frames.
    pub rts_attempts: u64,
    /// Attempts that overlapped another station's transmission.
    pub collisions: u64,
    /// Attempts whose exchange failed because the error model corrupted a frame.
    pub frame_errors: u64,
    /// Attempts that were retransmissions.
    pub retries: u64,
    /// Packets received by the next hop (each packet once).
    pub delivered_packets: u64,
    /// Bytes of those packets (MSDUs, without MAC overhead).
    pub delivered_bytes: u64,
    /// Packets discarded at the retry limit that the next hop never received.
    pub mac_drops: u64,
    /// Frames discarded at the retry limit although the next hop had them
    /// (only the ACKs were lost); not a packet loss.
    pub mac_drops_delivered: u64,
    /// Time this interface's PPDUs occupied the medium inside the window, ns.
    pub airtime_ns: u64,
    /// Packets in service (taken from the queue, neither delivered nor
    /// discarded) when the window opened.
    pub in_service_start: u64,
}

/// The frame in service at an interface.
#[derive(Copy, Clone, Debug)]
struct Frame {
    /// The packet, until it is handed to the next hop.
    pkt: Option<PacketRef>,
    /// The wireless link to the next hop.
    link: LinkId,
    /// The addressee's interface.
    rx: u32,
    /// Packet bytes.
    msdu: u32,
    /// MPDU bytes (packet + MAC header, LLC/SNAP, FCS).
    mpdu: u32,
    /// Sent with RTS/CTS.
    rts: bool,
    /// Airtime of the data frame.
    data: SimTime,
}

/// One node's wireless interface: a queue and a DCF entity.
pub struct Iface {
    /// "<wlan>:<node>".
    pub name: String,
    /// The node.
    pub node: NodeId,
    /// Whether this is the access point.
    pub ap: bool,
    /// The interface queue.
    pub queue: Queue,
    dcf: Dcf,
    frame: Option<Frame>,
    /// The outcome of the attempt in progress, until the station learns it.
    pending: Option<Outcome>,
    rng: SimRng,
    /// Counters over the window.
    pub stats: IfaceStats,
}

impl Iface {
    /// Whether a packet is in service (taken from the queue, not yet delivered or discarded).
    pub fn in_service(&self) -> bool {
        self.frame.is_some_and(|f| f.pkt.is_some())
    }
}

/// Overlap of [s, e] with [lo, hi], ns.
fn overlap(s: SimTime, e: SimTime, lo: SimTime, hi: SimTime) -> u64 {
    (e.min(hi).0).saturating_sub(s.max(lo).0)
}

/// One WLAN: its PHY, its DCF parameters, its interfaces and the channel state.
pub struct Wlan {
    /// Index among the simulation's media (its `Medium` events carry it).
    pub id: u32,
    /// Name ("wlan0" by default).
    pub name: String,
    /// PHY timing and rates.
    pub phy: Phy,
    /// DCF parameters.
    pub params: DcfParams,
    /// MPDUs longer than this many bytes use RTS/CTS.
    pub rts_threshold: u64,
    /// Interfaces; 0 is the AP.
    pub ifaces: Vec<Iface>,
    /// Ports: the hops AP <-> station, in both directions.
    ports: Vec<WlanPort>,
    /// The port each packet in an interface queue takes, by packet slot
    /// (written when it enters the queue).
    port_of: Vec<u32>,
    /// Time the channel carried at least one PPDU inside the window, ns.
    pub busy_ns: u64,
    timing: Timing,
    errors: Option<FrameErrors>,
    err_rng: SimRng,
    /// End of the last transmission on the channel.
    busy_until: SimTime,
    contend_at: Option<SimTime>,
    token: u64,
    plan: Plan,
    attempts: Vec<Attempt>,
}

impl Wlan {
    /// A WLAN without interfaces yet.
    pub fn new(
        id: u32,
        name: String,
        phy: Phy,
        params: DcfParams,
        rts_threshold: u64,
        errors: Option<FrameErrors>,
        err_rng: SimRng,
    ) -> Self {
        Wlan {
            id,
            name,
            timing: Timing::of(&phy),
            phy,
            params,
            rts_threshold,
            ifaces: Vec::new(),
            ports: Vec::new(),
            port_of: Vec::new(),
            busy_ns: 0,
            errors,
            err_rng,
            busy_until: SimTime::ZERO,
            contend_at: None,
            token: 0,
            plan: Plan::default(),
            attempts: Vec::new(),
        }
    }

    /// Add an interface (the AP first).
    pub fn add_iface(&mut self, node: NodeId, node_name: &str, ap: bool, queue: Queue, rng: SimRng) -> u32 {
        let i = self.ifaces.len() as u32;
        self.ifaces.push(Iface {
            name: format!("{}:{}", self.name, node_name),
            node,
            ap,
            queue,
            dcf: Dcf::new(&self.params),
            frame: None,
            pending: None,
            rng,
            stats: IfaceStats::default(),
        });
        i
    }

    /// Add a port: link `link` from interface `tx` to interface `rx`. Its
    /// number is the port's in the link's [`crate::link::Egress::Medium`].
    pub fn add_port(&mut self, link: LinkId, tx: u32, rx: u32) -> u32 {
        self.ports.push(WlanPort { link, tx, rx });
        self.ports.len() as u32 - 1
    }

    /// A packet routed over port `port` enters its transmitting interface.
    fn enqueue_port(&mut self, port: u32, pkt: PacketRef, ctx: &mut MediumCtx) {
        let slot = pkt.0 as usize;
        if slot >= self.port_of.len() {
            self.port_of.resize(slot + 1, 0);
        }
        self.port_of[slot] = port;
        let i = self.ports[port as usize].tx as usize;
        let rate = self.phy.data_rate_bps;
        let ifc = &mut self.ifaces[i];
        ifc.queue.enqueue(pkt, ctx.now, ctx.arena, rate, ctx.dropped);
        if ifc.frame.is_none() && self.pull(i, ctx) {
            let ifc = &mut self.ifaces[i];
            ifc.dcf.frame_ready(ctx.now, &self.params, &mut ifc.rng);
            self.schedule(ctx);
        }
    }

    /// Take the next packet of interface `i`'s queue into service.
    fn pull(&mut self, i: usize, ctx: &mut MediumCtx) -> bool {
        let rate = self.phy.data_rate_bps;
        let ifc = &mut self.ifaces[i];
        if ifc.queue.len_pkts() == 0 {
            return false;
        }
        let Some(p) = ifc.queue.dequeue(ctx.now, ctx.arena, rate, ctx.dropped) else {
            return false;
        };
        let port = self.ports[self.port_of[p.0 as usize] as usize];
        let msdu = ctx.arena.get(p).size;
        let mpdu = msdu.saturating_add(DATA_OVERHEAD);
        ifc.frame = Some(Frame {
            pkt: Some(p),
            link: port.link,
            rx: port.rx,
            msdu,
            mpdu,
            rts: mpdu as u64 > self.rts_threshold,
            data: self.phy.data_time(mpdu),
        });
        true
    }

    /// (Re)schedule the contention at the earliest end of backoff among the
    /// stations with a frame that are not waiting for a response. If a
    /// station learns its outcome no later than that, its outcome event
    /// reschedules, so nothing is scheduled now (one event less per exchange).
    fn schedule(&mut self, ctx: &mut MediumCtx) {
        let p = &self.params;
        let next = self
            .ifaces
            .iter()
            .filter(|f| f.frame.is_some() && f.pending.is_none())
            .map(|f| f.dcf.tx_at(p))
            .min()
            .map(|t| t.max(ctx.now));
        let learn = self.ifaces.iter().filter_map(|f| f.pending.map(|o| o.learn_at)).min();
        let next = match (next, learn) {
            (Some(t), Some(l)) if l <= t => None,
            (n, _) => n,
        };
        if next != self.contend_at {
            self.token += 1;
            self.contend_at = next;
            if let Some(t) = next {
                ctx.events.push(
                    t,
                    EventKind::Medium {
                        medium: self.id,
                        kind: EV_CONTEND,
                        token: self.token,
                    },
                );
            }
        }
    }

    /// Schedule interface `i`'s queue timer `kind` `delay` from now.
    fn queue_timer_at(&self, i: usize, kind: u32, at: SimTime, ctx: &mut MediumCtx) {
        let token = (i as u64) << 32 | kind as u64;
        ctx.events.push(
            at,
            EventKind::Medium {
                medium: self.id,
                kind: EV_QUEUE_TIMER,
                token,
            },
        );
    }

    /// The earliest backoff ends now: every station whose backoff ends now
    /// transmits; the others freeze their counters.
    fn start_exchange(&mut self, ctx: &mut MediumCtx) {
        let t = ctx.now;
        let p = self.params;
        self.attempts.clear();
        for (i, ifc) in self.ifaces.iter().enumerate() {
            if let (Some(f), None) = (&ifc.frame, &ifc.pending) {
                if ifc.dcf.tx_at(&p) == t {
                    self.attempts.push(Attempt {
                        iface: i as u32,
                        rx: f.rx,
                        rts: f.rts,
                        mpdu: f.mpdu,
                        data: f.data,
                    });
                }
            }
        }
        if self.attempts.is_empty() {
            self.schedule(ctx);
            return;
        }
        // Carrier sense: every station's IFS follows the last busy period.
        debug_assert!(t >= self.busy_until, "contention while the channel is busy");
        for ifc in &mut self.ifaces {
            ifc.dcf.freeze(t, &p);
        }
        let errors = self.errors;
        let rng = &mut self.err_rng;
        channel::plan(
            t,
            &self.attempts,
            &self.timing,
            |k, bytes| errors.is_some_and(|e| e.corrupt(k, bytes, rng)),
            &mut self.plan,
        );
        let plan = &self.plan;
        for ifc in &mut self.ifaces {
            ifc.dcf.defer(plan.others.idle_from, plan.others.access_start);
        }
        for &(i, r) in &plan.special {
            self.ifaces[i as usize].dcf.defer(r.idle_from, r.access_start);
        }
        for &(s, e) in &plan.busy {
            self.busy_ns += overlap(s, e, ctx.warmup, ctx.end);
            self.busy_until = self.busy_until.max(e);
        }
        for &(i, s, e) in &plan.airtime {
            self.ifaces[i as usize].stats.airtime_ns += overlap(s, e, ctx.warmup, ctx.end);
        }
        for (o, a) in plan.outcomes.iter().zip(&self.attempts) {
            let ifc = &mut self.ifaces[o.iface as usize];
            ifc.pending = Some(*o);
            ctx.events.push(
                o.learn_at.max(t),
                EventKind::Medium {
                    medium: self.id,
                    kind: EV_OUTCOME,
                    token: o.iface as u64,
                },
            );
            let s = &mut ifc.stats;
            s.attempts += 1;
            s.rts_attempts += a.rts as u64;
            s.collisions += o.collided as u64;
            s.frame_errors += o.errored as u64;
            s.retries += (ifc.dcf.retries() > 0) as u64;
            let (Some(at), Some(f)) = (o.delivered_at, ifc.frame.as_mut()) else {
                continue;
            };
            // A retransmission of a frame the next hop already has is a
            // duplicate, which the receiver discards (duplicate detection by sequence number).
            if let Some(pkt) = f.pkt.take() {
                ctx.events.push(at, EventKind::Arrive { link: f.link, pkt });
                *ctx.hops += 1;
                ifc.stats.delivered_packets += 1;
                ifc.stats.delivered_bytes += f.msdu as u64;
            }
        }
        // The other stations may have frames whose backoff now ends later.
        self.schedule(ctx);
    }

    /// Interface `i` learns the outcome of its attempt: success, retry or
    /// discard; a new backoff; the next packet into service; the next contention.
    fn outcome(&mut self, i: usize, ctx: &mut MediumCtx) {
        let p = self.params;
        let Some(ifc) = self.ifaces.get_mut(i) else { return };
        let Some(o) = ifc.pending.take() else { return };
        match o.failure {
            None => {
                ifc.dcf.success(&p, &mut ifc.rng);
                ifc.frame = None;
            }
            Some(kind) => {
                if o.cts_received {
                    ifc.dcf.cts_received();
                }
                if ifc.dcf.failure(kind, &p, &mut ifc.rng) == AfterFailure::Discard {
                    match ifc.frame.take().and_then(|f| f.pkt) {
                        Some(pkt) => {
                            ctx.lost.push(pkt);
                            ifc.stats.mac_drops += 1;
                        }
                        None => ifc.stats.mac_drops_delivered += 1,
                    }
                }
            }
        }
        if self.ifaces[i].frame.is_none() {
            // A backoff was just drawn: the next frame contends with it.
            self.pull(i, ctx);
        }
        self.schedule(ctx);
    }

    /// A periodic timer of interface `i`'s queue discipline; the next one.
    fn queue_timer(&mut self, i: usize, kind: u32, ctx: &mut MediumCtx) {
        let rate = self.phy.data_rate_bps;
        let Some(ifc) = self.ifaces.get_mut(i) else { return };
        if let Some(d) = ifc.queue.on_timer(kind, ctx.now, ctx.arena, rate, ctx.dropped) {
            self.queue_timer_at(i, kind, ctx.now + d.max(SimTime(1)), ctx);
        }
    }
}

impl Medium for Wlan {
    fn name(&self) -> &str {
        &self.name
    }

    /// The interface queues' first timers.
    fn start(&mut self, ctx: &mut MediumCtx) {
        for i in 0..self.ifaces.len() {
            if let Some((delay, kind)) = self.ifaces[i].queue.initial_timer() {
                self.queue_timer_at(i, kind, delay, ctx);
            }
        }
    }

    fn enqueue(&mut self, port: u32, pkt: PacketRef, ctx: &mut MediumCtx) {
        self.enqueue_port(port, pkt, ctx);
    }

    /// A MAC event or an interface queue's timer.
    fn on_event(&mut self, kind: u16, token: u64, ctx: &mut MediumCtx) {
        match kind {
            EV_CONTEND => {
                if token == self.token {
                    self.contend_at = None;
                    self.start_exchange(ctx);
                }
            }
            EV_QUEUE_TIMER => self.queue_timer((token >> 32) as usize, token as u32, ctx),
            _ => self.outcome(token as usize, ctx),
        }
    }

    fn queue(&self, i: usize) -> Option<(&str, &Queue)> {
        self.ifaces.get(i).map(|f| (f.name.as_str(), &f.queue))
    }

    /// The metrics window opens: reset the counters (the busy and airtime
    /// totals already hold only their parts inside the window).
    fn open_window(&mut self, now: SimTime) {
        for ifc in &mut self.ifaces {
            ifc.queue.open_window(now);
            let in_service = ifc.in_service() as u64;
            ifc.stats = IfaceStats {
                airtime_ns: ifc.stats.airtime_ns,
                in_service_start: in_service,
                ..IfaceStats::default()
            };
        }
    }

    /// The run is over.
    fn close_window(&mut self, ctx: &mut MediumCtx) {
        for ifc in &mut self.ifaces {
            ifc.queue.close_window(ctx.now);
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The WLANs among a simulation's media.
pub fn wlans(media: &[Box<dyn Medium>]) -> impl Iterator<Item = &Wlan> {
    media.iter().filter_map(|m| m.as_any().downcast_ref::<Wlan>())
}
