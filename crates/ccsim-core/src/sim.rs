//! The kernel: the event loop and a packet's path through nodes and links.
//!
//! A packet's path: a transport emits it through [`FlowCtx::send`] into the
//! outbox; the kernel forwards it from its source node: the routing table
//! names the egress link, the link's [`Queue`] accepts or drops it, and when
//! the transmitter is free the queue hands it over; the packet is then in
//! flight for serialization + propagation and one `Arrive` event later it
//! reaches the next node, which forwards it again or, at its destination,
//! hands it to the flow's receiver (data) or sender (acknowledgements).
//!
//! Events per hop: one `Arrive`; plus one `LinkFree` only while the link has
//! a backlog (an idle link starts transmitting at once, and a link that
//! empties schedules nothing).
//!
//! A link that is not a plain wire (a port of a [`crate::medium::Medium`]:
//! a wireless LAN, a trace-driven link) hands its packets to its medium
//! instead, through the trait; the medium schedules its own `Medium` events
//! and the packet's `Arrive` at the next hop.

use crate::app::Application;
use crate::compat::TieOrder;
use crate::error::{Error, Result};
use crate::event::ns_as_secs;
use crate::event::{Endpoint, EventKind, EventQueue};
use crate::link::{Egress, Link};
use crate::medium::{Medium, MediumCtx, Port};
use crate::metrics::FlowStats;
use crate::observe::{Fanout, PacketObserver};
use crate::packet::{FlowId, LinkId, NodeId, Packet, PacketArena, PacketKind, PacketRef};
use crate::queue::DropReason;
use crate::rng::SimRng;
use crate::sampler::Sampler;
use crate::time::SimTime;
use crate::trace::{TracePlan, Tracer};
use crate::transport::{FlowCtx, Receiver, Sender};

/// Timer kinds the kernel uses for applications.
pub(crate) const APP_START: u32 = u16::MAX as u32 - 1;
pub(crate) const APP_STOP: u32 = u16::MAX as u32;

/// A node: a host or a router (both forward).
pub struct Node {
    /// Its name.
    pub name: String,
}

/// A flow: an application over a transport between two nodes.
pub struct Flow {
    /// "<group>.<k>".
    pub name: String,
    /// The group label.
    pub group: String,
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Sending transport.
    pub sender: Box<dyn Sender>,
    /// Receiving transport.
    pub receiver: Box<dyn Receiver>,
    /// Application.
    pub app: Box<dyn Application>,
    /// The flow's random stream (application and transport draws).
    pub rng: SimRng,
    /// Counters.
    pub stats: FlowStats,
    /// Included in Jain's index.
    pub fairness: bool,
    /// Start time.
    pub start: SimTime,
    /// Stop time.
    pub stop: SimTime,
    /// Precedence stamped on data packets.
    pub class: u8,
    /// Edge profile meter: when present it stamps each data packet's class
    /// (IN/OUT) instead of `class`.
    pub meter: Option<crate::meter::TokenBucket>,
}

/// Guards against runaway runs.
#[derive(Copy, Clone, Debug)]
pub struct Guards {
    /// Maximum events.
    pub max_events: u64,
    /// Maximum wall-clock seconds.
    pub max_wall_s: f64,
    /// Polled every 65536 events with the simulated time, the run's
    /// duration and the events so far; returning true stops the run (the
    /// Python bindings use it to honour Ctrl-C and to report progress).
    pub interrupt: Option<fn(SimTime, SimTime, u64) -> bool>,
}

impl Default for Guards {
    fn default() -> Self {
        Guards {
            max_events: 20_000_000_000,
            max_wall_s: 3600.0,
            interrupt: None,
        }
    }
}

/// Performance counters of a run.
#[derive(Clone, Debug, Default)]
pub struct Perf {
    /// Events processed.
    pub events: u64,
    /// Packet transmissions started on links (hops).
    pub packets_forwarded: u64,
    /// Wall time of the event loop, seconds.
    pub wall_s: f64,
}

/// A built simulation, ready to run.
pub struct Simulation {
    /// Scenario name.
    pub name: String,
    /// Scenario seed.
    pub seed: u64,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Links (one per direction).
    pub links: Vec<Link>,
    /// Flows.
    pub flows: Vec<Flow>,
    /// The egress link from any node towards any destination.
    pub routes: crate::routing::Routes,
    /// Start of the metrics window.
    pub warmup: SimTime,
    /// End of the run.
    pub duration: SimTime,
    /// Time-series sampler.
    pub sampler: Sampler,
    /// Guards.
    pub guards: Guards,
    /// Performance counters.
    pub perf: Perf,
    /// The packet trace the scenario asks for (`[output] trace`); its files
    /// are created by [`Simulation::open_trace`].
    pub trace_plan: Option<TracePlan>,
    /// The packet observer (the open trace, or several: [`Fanout`]), if
    /// any: every packet hook below is one branch on this when there is
    /// none ([`crate::observe`]).
    observer: Option<Box<dyn PacketObserver>>,
    /// The media of the links that are not plain wires ([`crate::medium`]).
    pub media: Vec<Box<dyn Medium>>,
    /// The flow groups as configured (for the results' `components`).
    pub flow_groups: Vec<crate::results::FlowGroupComponent>,
    pub(crate) now: SimTime,
    pub(crate) events: EventQueue,
    pub(crate) arena: PacketArena,
    outbox: Vec<PacketRef>,
    dropped: Vec<(PacketRef, DropReason)>,
    medium_lost: Vec<PacketRef>,
}

/// Borrow the parts of the simulation a flow callback needs, disjointly.
macro_rules! flow_ctx {
    ($sim:ident, $flow:ident, $f:expr) => {{
        let flow = &mut $sim.flows[$f];
        let ctx = FlowCtx {
            now: $sim.now,
            flow: FlowId($f as u32),
            src: flow.src,
            dst: flow.dst,
            stats: &mut flow.stats,
            rng: &mut flow.rng,
            class: flow.class,
            events: &mut $sim.events,
            arena: &mut $sim.arena,
            outbox: &mut $sim.outbox,
        };
        (ctx, &mut flow.sender, &mut flow.receiver, &mut flow.app)
    }};
}

impl Simulation {
    /// Assemble a simulation from its parts (see [`crate::build`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        seed: u64,
        nodes: Vec<Node>,
        links: Vec<Link>,
        flows: Vec<Flow>,
        routes: crate::routing::Routes,
        warmup: SimTime,
        duration: SimTime,
        sampler: Sampler,
        guards: Guards,
    ) -> Self {
        Simulation {
            name,
            seed,
            nodes,
            links,
            flows,
            routes,
            warmup,
            duration,
            sampler,
            guards,
            perf: Perf::default(),
            trace_plan: None,
            observer: None,
            media: Vec::new(),
            flow_groups: Vec::new(),
            now: SimTime::ZERO,
            events: EventQueue::new(),
            arena: PacketArena::new(),
            outbox: Vec::new(),
            dropped: Vec::new(),
            medium_lost: Vec::new(),
        }
    }

    /// Create the files of the trace the scenario asks for in `dir` (a no-op
    /// without one) and make it an observer. Call before [`Simulation::run`].
    pub fn open_trace(&mut self, dir: &std::path::Path) -> Result<()> {
        if let Some(plan) = self.trace_plan.take() {
            self.observe(Box::new(Tracer::open(plan, dir)?));
        }
        Ok(())
    }

    /// Add an observer of the packets on the links ([`crate::observe`]);
    /// observers added earlier are told each event first. Call before
    /// [`Simulation::run`].
    pub fn observe(&mut self, o: Box<dyn PacketObserver>) {
        self.observer = Some(match self.observer.take() {
            None => o,
            Some(first) => Box::new(Fanout(vec![first, o])),
        });
    }

    /// How simultaneous events are ordered (see [`crate::event`]). Under
    /// `fifo` every queue takes the general path: the FIFO fast path fixes
    /// departures in advance, which is exact only when departures come
    /// before same-instant arrivals. Call before [`Simulation::run`].
    pub fn set_tie_order(&mut self, order: TieOrder) {
        let fifo = order != TieOrder::Kind;
        self.events.set_fifo(fifo);
        self.events.set_double_clock(order == TieOrder::Fifo);
        if fifo {
            for q in self.links.iter_mut().filter_map(Link::queue_mut) {
                q.disable_fast_path();
            }
        }
    }

    /// Link-layer framing of `framing_bytes` on every wired link (each
    /// packet's transmission lasts that much longer; its size and the link
    /// statistics stay IP bytes: [`crate::compat::Profile::framing_bytes`]),
    /// and a device transmit queue of `packets` below every wired link's queue
    /// discipline ([`crate::compat::Profile::device_queue`]): while the
    /// transmitter is busy, packets move out of the discipline into it as
    /// soon as it has room, and the transmitter takes its next packet from
    /// it. Such links take the general path. Call before [`Simulation::run`].
    pub fn set_device_queue(&mut self, packets: u32, framing_bytes: u32) {
        for l in &mut self.links {
            // Media have no device queue and no framing (a trace-driven
            // link's opportunities count Mahimahi's TUN bytes: crate::link_trace).
            if let Egress::Wire(q) = &mut l.egress {
                l.framing = framing_bytes;
                l.device_cap = packets;
                if packets > 0 {
                    q.disable_fast_path();
                }
            }
        }
    }

    /// Move packets from `link`'s discipline into its device queue while
    /// it has room (ns-3's traffic control runs the queue disc whenever the
    /// device queue is not stopped).
    fn fill_device(&mut self, link: LinkId) {
        let li = link.0 as usize;
        let now = self.now;
        loop {
            let l = &mut self.links[li];
            let Egress::Wire(q) = &mut l.egress else { return };
            if l.device.len() >= l.device_cap as usize || q.len_pkts() == 0 {
                return;
            }
            let next = q.dequeue(now, &mut self.arena, l.rate_bps, &mut self.dropped);
            if !self.dropped.is_empty() {
                self.process_drops(link);
            }
            match next {
                Some(p) => self.links[li].device.push_back(p),
                None => return,
            }
        }
    }

    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Data packets currently inside the network, per flow (for conservation checks).
    pub fn live_packets(&self) -> usize {
        self.arena.live()
    }

    /// The egress link from `node` towards `dst`.
    #[inline]
    pub fn route(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        let r = self.routes.next(node.0 as usize, dst.0 as usize);
        (r != u32::MAX).then_some(LinkId(r))
    }

    fn schedule_initial(&mut self) {
        for (i, f) in self.flows.iter().enumerate() {
            let flow = FlowId(i as u32);
            self.events.push(
                f.start,
                EventKind::Timer {
                    flow,
                    endpoint: Endpoint::App,
                    kind: APP_START as u16,
                    token: 0,
                },
            );
            if f.stop < self.duration {
                self.events.push(
                    f.stop,
                    EventKind::Timer {
                        flow,
                        endpoint: Endpoint::App,
                        kind: APP_STOP as u16,
                        token: 0,
                    },
                );
            }
        }
        for l in &self.links {
            if let Some((delay, kind)) = l.queue().and_then(|q| q.initial_timer()) {
                self.events.push(delay, EventKind::QueueTimer { link: l.id, kind });
            }
        }
        for m in 0..self.media.len() {
            self.with_medium(m as u32, |m, ctx| m.start(ctx));
        }
        if self.warmup > SimTime::ZERO {
            self.events.push(self.warmup, EventKind::WindowStart);
        } else {
            self.open_window();
        }
        if let Some(iv) = self.sampler.interval() {
            self.events.push(iv.min(self.duration), EventKind::Sample);
        }
    }

    fn open_window(&mut self) {
        let now = self.now;
        let end = self.duration;
        for q in self.links.iter_mut().filter_map(Link::queue_mut) {
            q.sync(now);
        }
        for l in &mut self.links {
            l.stats = Default::default();
            l.stats.busy_ns = (l.busy_until.min(end) - now).0;
            let Some(q) = l.queue_mut() else { continue };
            q.open_window(now);
            // Fast-path packets whose transmission starts inside the window
            // were accepted before it opened; count their transmissions now.
            let (pkts, bytes) = q.fast_pending(now, end);
            l.stats.tx_packets = pkts;
            l.stats.tx_bytes = bytes;
        }
        for f in &mut self.flows {
            f.stats.open_window(now);
        }
        for m in &mut self.media {
            m.open_window(now);
        }
    }

    /// Run to the end. Errors only when a guard trips.
    pub fn run(&mut self) -> Result<()> {
        let wall = std::time::Instant::now();
        crate::plugin::clear_failure();
        self.schedule_initial();
        let mut events: u64 = 0;
        // The guards are looked at every 65536 events and at the event
        // limit: one comparison per event with the next of those counts.
        let next_check = |events: u64, max: u64| (events | 0xFFFF).saturating_add(1).min(max);
        let mut check_at = next_check(0, self.guards.max_events);
        while let Some(ev) = self.events.pop() {
            if ev.time > self.duration {
                break;
            }
            self.now = ev.time;
            events += 1;
            if events >= check_at {
                self.check_guards(events, &wall)?;
                check_at = next_check(events, self.guards.max_events);
            }
            match ev.kind {
                EventKind::Arrive { link, pkt } => self.on_arrive(link, pkt),
                EventKind::LinkFree { link } => self.on_link_free(link),
                EventKind::Timer {
                    flow,
                    endpoint,
                    kind,
                    token,
                } => self.on_timer(flow, endpoint, kind as u32, token),
                EventKind::QueueTimer { link, kind } => self.on_queue_timer(link, kind),
                EventKind::Medium { medium, kind, token } => {
                    self.with_medium(medium, |m, ctx| m.on_event(kind, token, ctx))
                }
                EventKind::Sample => {
                    self.sampler.sample(self.now, &mut self.links, &self.flows, &self.media);
                    if let Some(iv) = self.sampler.interval() {
                        if self.now < self.duration {
                            self.events.push((self.now + iv).min(self.duration), EventKind::Sample);
                        }
                    }
                }
                EventKind::WindowStart => self.open_window(),
            }
        }
        if let Some(m) = crate::plugin::take_failure() {
            return Err(Error::Extension(m));
        }
        self.now = self.duration;
        for q in self.links.iter_mut().filter_map(Link::queue_mut) {
            q.close_window(self.duration);
        }
        for m in 0..self.media.len() {
            self.with_medium(m as u32, |m, ctx| m.close_window(ctx));
        }
        for f in &mut self.flows {
            f.stats.close_window(self.duration);
        }
        if let Some(t) = self.observer.as_deref_mut() {
            t.finish(self.duration)?;
        }
        self.perf.events = events;
        self.perf.wall_s = wall.elapsed().as_secs_f64();
        Ok(())
    }

    fn check_guards(&self, events: u64, wall: &std::time::Instant) -> Result<()> {
        if let Some(m) = crate::plugin::take_failure() {
            return Err(Error::Extension(m));
        }
        if self
            .guards
            .interrupt
            .is_some_and(|f| f(self.now, self.duration, events))
        {
            return Err(Error::Interrupted);
        }
        if events >= self.guards.max_events {
            return Err(Error::Guard(format!(
                "run stopped: more than {} events (limits.max_events, or --max-events) at simulated time {}",
                self.guards.max_events, self.now
            )));
        }
        let w = wall.elapsed().as_secs_f64();
        if w > self.guards.max_wall_s {
            return Err(Error::Guard(format!(
                "run stopped: wall time {:.1}s exceeded limits.max_wall, or --max-wall ({:.1}s) at simulated time {}",
                w, self.guards.max_wall_s, self.now
            )));
        }
        Ok(())
    }

    fn on_timer(&mut self, f: FlowId, endpoint: Endpoint, kind: u32, token: u64) {
        let fi = f.0 as usize;
        match (endpoint, kind) {
            (Endpoint::App, APP_START) => {
                let (mut ctx, sender, _, app) = flow_ctx!(self, flow, fi);
                ctx.stats.started_at = Some(ctx.now);
                let probes = sender.probe_names();
                ctx.stats.tracks_cwnd = probes.contains(&"cwnd_pkts");
                ctx.stats.tracks_srtt = probes.contains(&"srtt_s");
                sender.start(&mut ctx);
                let bytes = app.start(&mut ctx);
                if bytes > 0 {
                    sender.app_data(&mut ctx, bytes);
                }
            }
            (Endpoint::App, APP_STOP) => {
                let (mut ctx, sender, _, _) = flow_ctx!(self, flow, fi);
                sender.stop(&mut ctx);
            }
            (Endpoint::App, _) => {
                if self.now >= self.flows[fi].stop {
                    return;
                }
                let (mut ctx, sender, _, app) = flow_ctx!(self, flow, fi);
                let bytes = app.on_timer(&mut ctx, token);
                if bytes > 0 {
                    sender.app_data(&mut ctx, bytes);
                }
            }
            (Endpoint::Sender, _) => {
                let (mut ctx, sender, _, _) = flow_ctx!(self, flow, fi);
                sender.on_timer(&mut ctx, kind, token);
            }
            (Endpoint::Receiver, _) => {
                let (mut ctx, _, receiver, _) = flow_ctx!(self, flow, fi);
                receiver.on_timer(&mut ctx, kind, token);
            }
        }
        if endpoint != Endpoint::Receiver {
            self.sender_hook(fi);
        }
        self.flush_outbox();
    }

    /// Inject the packets transports emitted at their source nodes.
    fn flush_outbox(&mut self) {
        // The common case, a single packet, without moving the vector out and
        // back: taken out, the outbox is empty, as after `take` below.
        if self.outbox.len() == 1 {
            let p = self.outbox[0];
            self.outbox.clear();
            self.inject(p);
        }
        while !self.outbox.is_empty() {
            let batch = std::mem::take(&mut self.outbox);
            for &p in &batch {
                self.inject(p);
            }
            let mut batch = batch;
            batch.clear();
            if self.outbox.is_empty() {
                self.outbox = batch;
            }
        }
    }

    /// Forward packet `p`, emitted by a transport, from its source node (its
    /// class stamped by its flow's meter, if any).
    #[inline]
    fn inject(&mut self, p: PacketRef) {
        let pk = self.arena.get_mut(p);
        if pk.kind == PacketKind::Data {
            if let Some(m) = self.flows[pk.flow.0 as usize].meter.as_mut() {
                pk.class = m.classify(self.now, pk.size);
            }
        }
        let src = pk.src;
        self.forward(src, p);
    }

    #[inline]
    fn on_arrive(&mut self, link: LinkId, pkt: PacketRef) {
        let l = &mut self.links[link.0 as usize];
        let to = l.to;
        if let Some(loss) = l.loss.as_mut() {
            if loss.lose(self.arena.get(pkt)) {
                if self.now >= self.warmup {
                    l.stats.lost_packets += 1;
                }
                if let Some(t) = self.observer.as_deref_mut() {
                    t.dropped(link, self.now, self.arena.get(pkt));
                }
                self.lose(pkt);
                return;
            }
        }
        if let Some(t) = self.observer.as_deref_mut() {
            t.receive(link, self.now, self.arena.get(pkt));
        }
        if let Some(r) = l.notify_reverse {
            let now = self.now;
            let rl = &mut self.links[r.0 as usize];
            let rate = rl.rate_bps;
            if let Some(q) = rl.queue_mut() {
                q.on_reverse_arrival(pkt, now, &mut self.arena, rate);
            }
        }
        self.forward(to, pkt);
    }

    /// A packet is at `node`: deliver it or put it on the next link.
    #[inline]
    fn forward(&mut self, node: NodeId, pkt: PacketRef) {
        let dst = self.arena.get(pkt).dst;
        if dst == node {
            self.deliver(pkt);
            return;
        }
        match self.route(node, dst) {
            Some(l) => self.enqueue(l, pkt),
            // Unreachable after validation; drop rather than panic.
            None => self.lose(pkt),
        }
    }

    fn enqueue(&mut self, link: LinkId, pkt: PacketRef) {
        let li = link.0 as usize;
        let now = self.now;
        let l = &mut self.links[li];
        let q = match &mut l.egress {
            Egress::Wire(q) => q,
            Egress::Medium { port, .. } => {
                let port = *port;
                self.enqueue_medium(port, pkt);
                return;
            }
        };
        if q.is_fast_fifo() {
            self.enqueue_fast(link, pkt);
            return;
        }
        let rate = l.rate_bps;
        if let Some(t) = self.observer.as_deref_mut() {
            t.enqueue(link, now, self.arena.get(pkt));
        }
        // Under `fifo`, a transmission that ends at this very nanosecond has
        // ended only if ns-2's resume event (`Queue::resume`, scheduled by
        // `LinkDelay::recv` when the transmission started) comes before this
        // event: otherwise ns-2's queue is still blocked, the packet waits,
        // and it leaves when the resume fires, at the resume's clock.
        let (busy_until, free_t64, free_seq) = (l.busy_until, l.free_t64, l.free_seq);
        let ended = busy_until < now || (busy_until == now && !self.events.reserved_is_later(now, free_t64, free_seq));
        let l = &mut self.links[li];
        let Egress::Wire(q) = &mut l.egress else { return };
        // A DropTail queue on the general path (the `fifo` tie order), empty,
        // its transmitter idle: the packet would be enqueued and dequeued at
        // once; count that and send it without the discipline's round trip.
        if ended && !l.free_pending && q.try_pass_through(pkt, now, &mut self.arena) {
            self.transmit(link, pkt);
            return;
        }
        q.enqueue(pkt, now, &mut self.arena, rate, &mut self.dropped);
        if !self.dropped.is_empty() {
            self.process_drops(link);
        }
        let l = &mut self.links[li];
        if ended && !l.free_pending {
            self.start_tx(link);
            return;
        }
        if l.device_cap > 0 {
            self.fill_device(link);
        }
        let l = &mut self.links[li];
        if !l.free_pending {
            l.free_pending = true;
            let at = l.busy_until;
            self.events
                .push_reserved(at, l.free_t64, EventKind::LinkFree { link }, l.free_seq);
        }
    }

    /// The FIFO fast path: the transmission start of an accepted packet is
    /// fixed now (right after everything accepted before it), so its arrival
    /// at the next node is scheduled at once and no LinkFree event is needed.
    /// `busy_until` is the time the transmitter finishes all accepted packets.
    fn enqueue_fast(&mut self, link: LinkId, pkt: PacketRef) {
        let now = self.now;
        let li = link.0 as usize;
        // The packet's fields read once (the arena is not written below).
        let (size, uid) = {
            let p = self.arena.get(pkt);
            (p.size, p.uid)
        };
        let l = &mut self.links[li];
        let Egress::Wire(q) = &mut l.egress else { return };
        let start = l.busy_until.max(now);
        let accepted = q.fast_offer(pkt, size, now, start, &self.arena);
        let l = if self.observer.is_some() {
            self.observe_fast(link, pkt, accepted.then_some(start));
            &mut self.links[li]
        } else {
            l
        };
        if !accepted {
            self.lose(pkt);
            return;
        }
        let tx = l.tx_time(size + l.framing);
        l.busy_until = start + tx;
        if start >= self.warmup && start <= self.duration {
            l.stats.tx_bytes += size as u64;
            l.stats.tx_packets += 1;
            l.stats.busy_ns += (l.busy_until.min(self.duration) - start).0;
        }
        self.perf.packets_forwarded += 1;
        // (The fast path never runs under the `fifo` order, so no ns-2 clock.)
        self.events.push_arrival(l.busy_until + l.delay, 0.0, link, pkt, uid);
    }

    /// Tell the observer of a packet the FIFO fast path just offered to
    /// `link`: its enqueue, then its drop if it was refused or its dequeue
    /// at `start` if it was accepted. Kept out of line so that the fast path
    /// stays as small (and inlined) as without an observer.
    #[cold]
    #[inline(never)]
    fn observe_fast(&mut self, link: LinkId, pkt: PacketRef, start: Option<SimTime>) {
        let (now, end) = (self.now, self.duration);
        let Some(t) = self.observer.as_deref_mut() else { return };
        let p = self.arena.get(pkt);
        t.enqueue(link, now, p);
        match start {
            None => t.dropped(link, now, p),
            Some(s) if s <= end => t.dequeue(link, now, s, p),
            Some(_) => {}
        }
    }

    /// A `LinkFree` event: the transmitter of `link` is free.
    fn on_link_free(&mut self, link: LinkId) {
        let l = &mut self.links[link.0 as usize];
        l.free_pending = false;
        match l.port() {
            None => self.start_tx(link),
            Some(p) => self.medium_link_free(p),
        }
    }

    /// A `LinkFree` event of a medium's link (out of line, as `enqueue_medium`).
    #[inline(never)]
    fn medium_link_free(&mut self, port: Port) {
        let Port { medium, port } = port;
        self.with_medium(medium, |m, ctx| m.on_link_free(port, ctx));
    }

    /// The transmitter of wire `link` is free: send the next packet, if any.
    fn start_tx(&mut self, link: LinkId) {
        let li = link.0 as usize;
        let now = self.now;
        let l = &mut self.links[li];
        let Egress::Wire(q) = &mut l.egress else { return };
        let next = match l.device.pop_front() {
            Some(p) => Some(p),
            None => {
                if q.len_pkts() == 0 {
                    return;
                }
                let n = q.dequeue(now, &mut self.arena, l.rate_bps, &mut self.dropped);
                if !self.dropped.is_empty() {
                    self.process_drops(link);
                }
                n
            }
        };
        let Some(p) = next else {
            self.throttled(link);
            return;
        };
        self.transmit(link, p);
    }

    /// The discipline of idle `link` holds packets but released none (CAKE's
    /// shaper): try the transmitter again when it says it will release one.
    fn throttled(&mut self, link: LinkId) {
        let now = self.now;
        let l = &mut self.links[link.0 as usize];
        let Egress::Wire(q) = &l.egress else { return };
        if l.free_pending || q.len_pkts() == 0 {
            return;
        }
        if let Some(at) = q.next_release() {
            let at = at.max(now + SimTime(1));
            l.free_pending = true;
            self.events.push_at(at, ns_as_secs(at), EventKind::LinkFree { link });
        }
    }

    /// Put packet `p`, just dequeued, on the wire of `link`.
    #[inline]
    fn transmit(&mut self, link: LinkId, p: PacketRef) {
        let li = link.0 as usize;
        let now = self.now;
        if let Some(t) = self.observer.as_deref_mut() {
            t.dequeue(link, now, now, self.arena.get(p));
        }
        let (size, uid) = {
            let p = self.arena.get(p);
            (p.size, p.uid)
        };
        let l = &mut self.links[li];
        let m = l.tx_memo(size + l.framing);
        l.busy_until = now + m.tx;
        if now >= self.warmup {
            l.stats.tx_bytes += size as u64;
            l.stats.tx_packets += 1;
            l.stats.busy_ns += (l.busy_until.min(self.duration) - now).0;
        }
        self.perf.packets_forwarded += 1;
        // ns-2's `LinkDelay::recv`: the arrival at clock + (txt + delay),
        // the link's end of transmission at clock + txt, in doubles.
        let fifo = self.events.is_fifo();
        let (arrive64, free64) = if fifo {
            let now64 = self.events.now64();
            (now64 + m.txt_delay, now64 + m.txt)
        } else {
            (0.0, 0.0)
        };
        self.events.push_arrival(l.busy_until + l.delay, arrive64, link, p, uid);
        let l = if l.device_cap > 0 {
            self.fill_device(link);
            &mut self.links[li]
        } else {
            l
        };
        // (Only wires transmit here: a medium's links are its own.)
        let backlog = matches!(&l.egress, Egress::Wire(q) if q.len_pkts() > 0);
        if backlog || !l.device.is_empty() {
            l.free_pending = true;
            self.events.push_at(l.busy_until, free64, EventKind::LinkFree { link });
        } else if fifo {
            l.free_seq = self.events.reserve();
            l.free_t64 = free64;
        }
    }

    /// A packet routed over a medium's port enters the medium. Kept out of
    /// line so that the wire's path stays as small as without media.
    #[inline(never)]
    fn enqueue_medium(&mut self, port: Port, pkt: PacketRef) {
        let Port { medium, port } = port;
        self.with_medium(medium, |m, ctx| m.enqueue(port, pkt, ctx));
    }

    /// The kernel's view for a call into medium `m`; afterwards, account
    /// the packets the medium dropped or discarded.
    fn with_medium<R>(&mut self, m: u32, f: impl FnOnce(&mut dyn Medium, &mut MediumCtx) -> R) -> R {
        let mut ctx = MediumCtx {
            now: self.now,
            arena: &mut self.arena,
            events: &mut self.events,
            links: &mut self.links,
            flows: &mut self.flows,
            dropped: &mut self.dropped,
            lost: &mut self.medium_lost,
            observer: self.observer.as_deref_mut(),
            warmup: self.warmup,
            end: self.duration,
            hops: &mut self.perf.packets_forwarded,
        };
        let r = f(self.media[m as usize].as_mut(), &mut ctx);
        while let Some((p, _)) = self.dropped.pop() {
            self.lose(p);
        }
        while let Some(p) = self.medium_lost.pop() {
            self.lose(p);
        }
        r
    }

    fn on_queue_timer(&mut self, link: LinkId, kind: u32) {
        let li = link.0 as usize;
        let now = self.now;
        let l = &mut self.links[li];
        let rate = l.rate_bps;
        let Some(q) = l.queue_mut() else { return };
        let next = q.on_timer(kind, now, &mut self.arena, rate, &mut self.dropped);
        self.process_drops(link);
        if let Some(d) = next {
            self.events
                .push(now + d.max(SimTime(1)), EventKind::QueueTimer { link, kind });
        }
    }

    /// Account and free the packets the queue of `link` dropped.
    fn process_drops(&mut self, link: LinkId) {
        if let Some(t) = self.observer.as_deref_mut() {
            for &(p, _) in &self.dropped {
                t.dropped(link, self.now, self.arena.get(p));
            }
        }
        while let Some((p, _)) = self.dropped.pop() {
            self.lose(p);
        }
    }

    /// A packet is gone from the network without reaching its destination.
    fn lose(&mut self, pkt: PacketRef) {
        crate::medium::lose(&mut self.arena, &mut self.flows, pkt);
    }

    fn deliver(&mut self, pkt: PacketRef) {
        let p: Packet = self.arena.get(pkt).clone();
        self.arena.free(pkt);
        let fi = p.flow.0 as usize;
        let (mut ctx, sender, receiver, _) = flow_ctx!(self, flow, fi);
        match p.kind {
            PacketKind::Data => {
                ctx.stats.on_data_received(p.size, p.payload, (ctx.now - p.sent_at).0);
                receiver.on_packet(&mut ctx, &p);
            }
            PacketKind::Ack => {
                sender.on_packet(&mut ctx, &p);
                self.sender_hook(fi);
            }
        }
        self.flush_outbox();
    }

    /// Hook: a callback of flow `fi`'s sender has run (an ACK, a timer, the
    /// application). Per-flow statistics observe its congestion window and
    /// smoothed RTT here (time integrals: [`FlowStats::note_sender`]); a
    /// sender with neither costs one branch.
    #[inline]
    fn sender_hook(&mut self, fi: usize) {
        let f = &mut self.flows[fi];
        if f.stats.tracks_cwnd | f.stats.tracks_srtt {
            let (cwnd, srtt) = f.sender.cwnd_and_srtt();
            f.stats.note_sender(self.now, cwnd, srtt);
        }
    }
}
