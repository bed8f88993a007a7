//! Scripted-loss tests of the sender and receiver through a small harness:
//! one bottleneck direction (FIFO at `rate`, then `delay`) for data, a
//! `delay` path for ACKs, and a list of data packets to drop. Every data
//! transmission and the window after every ACK are logged, so the tests
//! can check exactly which segments each recovery variant retransmits.

use super::{build_from, TcpConfig};
use crate::event::{Endpoint, EventKind, EventQueue};
use crate::metrics::FlowStats;
use crate::packet::{FlowId, LinkId, NodeId, Packet, PacketArena, PacketKind, PacketRef};
use crate::rng::{stream, SimRng};
use crate::time::{tx_time, SimTime};
use crate::transport::{FlowCtx, Receiver, Sender};

/// One data transmission.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Tx {
    pub t: SimTime,
    pub seq: u64,
    pub retransmission: bool,
    pub dropped: bool,
    /// The packet left ECN-capable (ECT(0) or ECT(1)).
    pub ect: bool,
}

pub(crate) struct Harness {
    now: SimTime,
    events: EventQueue,
    arena: PacketArena,
    outbox: Vec<PacketRef>,
    pub stats: FlowStats,
    rng: SimRng,
    sender: Box<dyn Sender>,
    receiver: Box<dyn Receiver>,
    rate_bps: u64,
    delay: SimTime,
    data_busy: SimTime,
    drops: Vec<u64>,
    /// Data packets marked CE instead of dropped.
    pub marks: Vec<u64>,
    /// (segment, transmission count) pairs to drop: (59, 1) is the first
    /// retransmission of segment 59.
    pub drop_tx: Vec<(u64, u16)>,
    data_count: u64,
    pub log: Vec<Tx>,
    /// (time, effective cwnd, ssthresh, srtt) after each ACK.
    pub cwnd_log: Vec<(SimTime, f64, f64, f64)>,
    /// Segments newly acknowledged by ACKs that carried ECN-Echo.
    pub ece_acked: u64,
    last_ack: u64,
    /// (time, cumulative ACK) of each ACK the sender received.
    pub ack_log: Vec<(SimTime, u64)>,
    /// Send times of the handshake's pure ACKs (`handshake_ack`).
    pub pure_acks: Vec<SimTime>,
    /// The ECN field of every ACK the receiver sent.
    pub ack_ecn: Vec<crate::packet::Ecn>,
}

const DATA: LinkId = LinkId(0);
const ACKS: LinkId = LinkId(1);

impl Harness {
    pub fn new(cfg: &TcpConfig, rate_bps: u64, delay: SimTime, drops: &[u64]) -> Self {
        let (sender, receiver) = build_from(cfg, crate::compat::Profile::Ccsim).expect("valid config");
        let mut stats = FlowStats::default();
        stats.open_window(SimTime::ZERO);
        Harness {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            arena: PacketArena::new(),
            outbox: Vec::new(),
            stats,
            rng: stream(1, "harness"),
            sender,
            receiver,
            rate_bps,
            delay,
            data_busy: SimTime::ZERO,
            drops: drops.to_vec(),
            marks: Vec::new(),
            drop_tx: Vec::new(),
            data_count: 0,
            log: Vec::new(),
            cwnd_log: Vec::new(),
            ece_acked: 0,
            last_ack: 0,
            ack_log: Vec::new(),
            pure_acks: Vec::new(),
            ack_ecn: Vec::new(),
        }
    }

    fn with_ctx<R>(&mut self, f: impl FnOnce(&mut FlowCtx, &mut Box<dyn Sender>, &mut Box<dyn Receiver>) -> R) -> R {
        let mut ctx = FlowCtx {
            now: self.now,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            stats: &mut self.stats,
            rng: &mut self.rng,
            class: 0,
            events: &mut self.events,
            arena: &mut self.arena,
            outbox: &mut self.outbox,
        };
        let r = f(&mut ctx, &mut self.sender, &mut self.receiver);
        self.flush();
        r
    }

    fn flush(&mut self) {
        for p in std::mem::take(&mut self.outbox) {
            let pkt = self.arena.get(p).clone();
            match pkt.kind {
                PacketKind::Data if pkt.payload == 0 && pkt.flags == crate::packet::flags::ACK => {
                    // The handshake's pure ACK: on the wire, not in the log.
                    self.pure_acks.push(self.now);
                    let dep = self.now.max(self.data_busy) + tx_time(pkt.size, self.rate_bps);
                    self.data_busy = dep;
                    self.events
                        .push(dep + self.delay, EventKind::Arrive { link: DATA, pkt: p });
                }
                PacketKind::Data => {
                    self.data_count += 1;
                    let dropped =
                        self.drops.contains(&self.data_count) || self.drop_tx.contains(&(pkt.seq, pkt.tx_count));
                    self.log.push(Tx {
                        t: self.now,
                        seq: pkt.seq,
                        retransmission: pkt.tx_count > 0,
                        dropped,
                        ect: matches!(pkt.ecn, crate::packet::Ecn::Ect | crate::packet::Ecn::Ect1),
                    });
                    if dropped {
                        self.stats.on_data_lost();
                        self.arena.free(p);
                        continue;
                    }
                    if self.marks.contains(&self.data_count) && pkt.ecn == crate::packet::Ecn::Ect {
                        self.arena.get_mut(p).ecn = crate::packet::Ecn::Ce;
                    }
                    let dep = self.now.max(self.data_busy) + tx_time(pkt.size, self.rate_bps);
                    self.data_busy = dep;
                    self.events
                        .push(dep + self.delay, EventKind::Arrive { link: DATA, pkt: p });
                }
                PacketKind::Ack => {
                    self.ack_ecn.push(pkt.ecn);
                    let at = self.now + tx_time(pkt.size, self.rate_bps) + self.delay;
                    self.events.push(at, EventKind::Arrive { link: ACKS, pkt: p });
                }
            }
        }
    }

    pub fn start(&mut self, bytes: u64) {
        self.with_ctx(|ctx, s, _| s.app_data(ctx, bytes));
    }

    pub fn run_until(&mut self, end: SimTime) {
        while let Some(t) = self.events.peek_time() {
            if t > end {
                break;
            }
            let ev = self.events.pop().expect("peeked");
            self.now = ev.time;
            match ev.kind {
                EventKind::Arrive { pkt, .. } => {
                    let p: Packet = self.arena.get(pkt).clone();
                    self.arena.free(pkt);
                    match p.kind {
                        PacketKind::Data => {
                            self.stats.on_data_received(p.size, p.payload, (self.now - p.sent_at).0);
                            self.with_ctx(|ctx, _, r| r.on_packet(ctx, &p));
                        }
                        PacketKind::Ack => {
                            if p.flags & crate::packet::flags::ECE != 0 {
                                self.ece_acked += p.ack.saturating_sub(self.last_ack);
                            }
                            self.last_ack = self.last_ack.max(p.ack);
                            self.ack_log.push((self.now, p.ack));
                            self.with_ctx(|ctx, s, _| s.on_packet(ctx, &p));
                            let pr = self.sender.probe();
                            self.cwnd_log
                                .push((self.now, pr.cwnd_pkts, pr.ssthresh_pkts, pr.srtt_s));
                        }
                    }
                }
                EventKind::Timer {
                    endpoint, kind, token, ..
                } => match endpoint {
                    Endpoint::Sender => self.with_ctx(|ctx, s, _| s.on_timer(ctx, kind as u32, token)),
                    Endpoint::Receiver => self.with_ctx(|ctx, _, r| r.on_timer(ctx, kind as u32, token)),
                    Endpoint::App => {}
                },
                _ => {}
            }
        }
        self.now = end;
    }

    /// Hand the sender an ACK of `ack` with SACK blocks `sack` at `at`
    /// (timers due before `at` fire first).
    pub fn inject_ack(&mut self, at: SimTime, ack: u64, sack: &[(u64, u64)]) {
        self.run_until(at);
        let mut p = Packet {
            kind: PacketKind::Ack,
            ack,
            wnd: 64,
            n_sack: sack.len() as u8,
            ..Packet::default()
        };
        p.sack[..sack.len()].copy_from_slice(sack);
        self.with_ctx(|ctx, s, _| s.on_packet(ctx, &p));
    }

    /// Sequence numbers retransmitted, in order.
    pub fn retransmitted(&self) -> Vec<u64> {
        self.log.iter().filter(|t| t.retransmission).map(|t| t.seq).collect()
    }

    /// The smallest effective cwnd logged in [from, to].
    pub fn min_cwnd(&self, from: SimTime, to: SimTime) -> f64 {
        self.cwnd_log
            .iter()
            .filter(|c| c.0 >= from && c.0 <= to)
            .map(|c| c.1)
            .fold(f64::INFINITY, f64::min)
    }
}

/// The textbook setting (Fall and Floyd 1996): the window is limited by
/// cwnd, not by the receiver, and the flow is in congestion avoidance
/// (slow start ends at 20 segments) when the scripted drops hit.
fn cfg(cc: &str) -> TcpConfig {
    TcpConfig {
        cc: cc.into(),
        window: 64,
        initial_ssthresh: Some(20.0),
        limited_transmit: false,
        ..TcpConfig::default()
    }
}

/// A 10 Mbit/s bottleneck with 10 ms each way (RTT ~ 21.2 ms for a full
/// segment; BDP ~ 17.7 segments), bulk data for `secs` seconds.
fn run_for(cc: &str, drops: &[u64], secs: u64, tweak: impl FnOnce(&mut TcpConfig)) -> Harness {
    let mut c = cfg(cc);
    tweak(&mut c);
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), drops);
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(secs));
    h
}

fn run(cc: &str, drops: &[u64]) -> Harness {
    run_for(cc, drops, 3, |_| {})
}

/// The time of the transmission of `seq` (the `n`-th one, from 0).
fn tx_time_of(h: &Harness, seq: u64, n: usize) -> SimTime {
    h.log.iter().filter(|t| t.seq == seq).nth(n).expect("transmitted").t
}

/// (effective cwnd, ssthresh) just after the ACK processed at or after `t`.
fn cwnd_at(h: &Harness, t: SimTime) -> (f64, f64) {
    let c = h.cwnd_log.iter().find(|c| c.0 >= t).expect("an ACK after t");
    (c.1, c.2)
}

// In these runs the drops hit data packets 60, 62 and 64: segments 59, 61
// and 63, when 21 segments (59..=79) are outstanding and cwnd is 22.0, so
// ssthresh = FlightSize / 2 = 10.5 in every variant.

/// The plain sender's instance of the ACK and send paths
/// (`TcpSender::plain`, the rule switches as constants) sends the same
/// segments at the same times, with the same windows, as the general
/// instance, through fast recovery, timeouts and Limited Transmit.
#[test]
fn the_plain_sender_behaves_as_the_general_one() {
    let drop_sets: [&[u64]; 4] = [&[60], &[60, 62, 64], &[30, 31, 32, 33, 34, 35, 36, 37], &[60, 300, 301]];
    for cc in ["tahoe", "reno", "newreno"] {
        for drops in drop_sets {
            for lt in [false, true] {
                let go = |general: bool| {
                    super::sender::GENERAL_ONLY.with(|g| g.set(general));
                    let built = super::sender::PLAIN_BUILT.with(|n| n.get());
                    let h = run_for(cc, drops, 3, |c| c.limited_transmit = lt);
                    super::sender::GENERAL_ONLY.with(|g| g.set(false));
                    (h, super::sender::PLAIN_BUILT.with(|n| n.get()) - built)
                };
                let ((plain, n_plain), (general, n_general)) = (go(false), go(true));
                let what = format!("{cc} drops {drops:?} limited transmit {lt}");
                assert_eq!((n_plain, n_general), (1, 0), "{what}: the instances taken");
                assert!(plain.log.len() > 100, "{what}");
                assert_eq!(plain.log, general.log, "{what}");
                assert_eq!(plain.ack_log, general.ack_log, "{what}");
                let bits = |h: &Harness| {
                    h.cwnd_log
                        .iter()
                        .map(|c| (c.0, c.1.to_bits(), c.2.to_bits(), c.3.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&plain), bits(&general), "{what}");
                assert_eq!(plain.stats.counts.timeouts, general.stats.counts.timeouts, "{what}");
            }
        }
    }
}

#[test]
fn single_drop_every_variant_retransmits_once() {
    for cc in ["tahoe", "reno", "newreno", "sack"] {
        let h = run(cc, &[60]);
        assert_eq!(h.retransmitted(), vec![59], "{cc}");
        assert_eq!(
            (h.stats.counts.fast_retransmits, h.stats.counts.timeouts),
            (1, 0),
            "{cc}"
        );
        let fr = tx_time_of(&h, 59, 1);
        let (cwnd, ssthresh) = cwnd_at(&h, fr);
        assert_eq!(ssthresh, 10.5, "{cc}");
        match cc {
            // cwnd = 1, then slow start from the next ACK
            "tahoe" => assert_eq!(cwnd, 1.0),
            // ssthresh + 3 duplicate ACKs, inflated by the later ones
            "reno" | "newreno" => assert!(cwnd >= 13.5, "{cc}: {cwnd}"),
            // RFC 6675: cwnd = ssthresh during recovery
            _ => assert_eq!(cwnd, 10.5),
        }
        // Recovery is over one RTT later: Reno and NewReno deflate to
        // ssthresh, SACK keeps it; all then grow linearly.
        let after = fr + SimTime::from_millis(30);
        let (cwnd, _) = cwnd_at(&h, after);
        if cc == "tahoe" {
            assert!(cwnd < 10.5, "tahoe is still in slow start: {cwnd}");
        } else {
            assert!((10.5..11.0).contains(&cwnd), "{cc}: {cwnd}");
        }
    }
}

#[test]
fn three_drops_in_one_window() {
    // Tahoe: cwnd = 1 and go-back-N; the segments the receiver already has
    // (62, 64, 65) are sent again. No timeout.
    let h = run("tahoe", &[60, 62, 64]);
    assert_eq!(h.retransmitted(), vec![59, 61, 62, 63, 64, 65]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 0));
    assert_eq!(h.min_cwnd(tx_time_of(&h, 59, 1), tx_time_of(&h, 63, 1)), 1.0);

    // Reno: the partial ACK for 59 ends fast recovery; the dupACKs of the
    // data sent during recovery trigger a second fast retransmit (61), whose
    // partial ACK ends recovery again, and 63 waits for the timeout.
    let h = run("reno", &[60, 62, 64]);
    assert_eq!(h.retransmitted(), vec![59, 61, 63]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (2, 1));
    let gap = tx_time_of(&h, 63, 1) - tx_time_of(&h, 61, 1);
    assert!(
        gap >= SimTime::from_millis(200),
        "63 waits for the RTO (min_rto 200 ms): {gap}"
    );
    assert_eq!(
        cwnd_at(&h, tx_time_of(&h, 63, 1)).0,
        2.0,
        "slow start from 1 after the timeout"
    );

    // NewReno: each partial ACK retransmits the next hole, one per RTT.
    let h = run("newreno", &[60, 62, 64]);
    assert_eq!(h.retransmitted(), vec![59, 61, 63]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 0));
    let rtt = SimTime::from_millis(20);
    for (a, b) in [(59, 61), (61, 63)] {
        let gap = tx_time_of(&h, b, 1) - tx_time_of(&h, a, 1);
        assert!(gap >= rtt && gap < SimTime::from_millis(40), "{a} -> {b}: {gap}");
    }

    // SACK: all three holes are known at once and retransmitted back to
    // back, before any new data; cwnd stays at ssthresh.
    let h = run("sack", &[60, 62, 64]);
    assert_eq!(h.retransmitted(), vec![59, 61, 63]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 0));
    let first = h.log.iter().position(|t| t.retransmission).unwrap();
    let seqs: Vec<(u64, bool)> = h.log[first..first + 3]
        .iter()
        .map(|t| (t.seq, t.retransmission))
        .collect();
    assert_eq!(seqs, vec![(59, true), (61, true), (63, true)]);
    assert_eq!(cwnd_at(&h, tx_time_of(&h, 63, 1)).0, 10.5);
}

#[test]
fn timeout_backoff_and_karn() {
    // Drop segment 59 and its fast retransmission: only the timer recovers.
    let mut c = cfg("newreno");
    c.limited_transmit = false;
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[60]);
    h.drop_tx = vec![(59, 1)];
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(3));
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 1));
    assert_eq!(h.retransmitted()[..2], [59, 59]);
    // Karn: the ACK of the timeout's retransmission (which covers segments
    // sent long before) gives no RTT sample, so SRTT does not jump.
    let rto_rexmit = tx_time_of(&h, 59, 2);
    let before = h.cwnd_log.iter().rev().find(|c| c.0 < rto_rexmit).unwrap().3;
    let after = h.cwnd_log.iter().find(|c| c.0 > rto_rexmit).unwrap().3;
    assert_eq!(before, after, "no sample from a retransmitted segment");
    assert!(before > 0.020 && before < 0.050, "srtt {before}");
    // Two timeouts in a row double the RTO: drop 59 three times.
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[60]);
    h.drop_tx = vec![(59, 1), (59, 2)];
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(3));
    assert_eq!(h.stats.counts.timeouts, 2);
    let t1 = tx_time_of(&h, 59, 2);
    let t2 = tx_time_of(&h, 59, 3);
    let t0 = tx_time_of(&h, 59, 1);
    // The first timer was started by the last ACK of new data, a little
    // before the fast retransmission; RTO = SRTT + max(min_rto, 4 RTTVAR)
    // with SRTT ~ 21 ms. The second waits exactly twice the first RTO.
    let (first, second) = (t1 - t0, t2 - t1);
    assert!(
        first < SimTime::from_millis(240) && first > SimTime::from_millis(200),
        "{first}"
    );
    let rto = second.0 / 2;
    assert_eq!(second.0, 2 * rto);
    assert!(rto >= first.0 && rto < first.0 + 10_000_000, "{first} then {second}");
}

#[test]
fn limited_transmit_sends_on_first_dupacks() {
    let h = run_for("newreno", &[60], 3, |c| c.limited_transmit = true);
    // Two new segments leave on the first two duplicate ACKs, before the
    // fast retransmission.
    let fr = h.log.iter().position(|t| t.retransmission).unwrap();
    let before: Vec<u64> = h.log[fr - 2..fr].iter().map(|t| t.seq).collect();
    assert_eq!(before, vec![80, 81]);
    // ...and do not count in FlightSize for ssthresh (still 21 / 2).
    assert_eq!(cwnd_at(&h, h.log[fr].t).1, 10.5);
}

#[test]
fn delayed_acks_every_second_segment_or_timer() {
    // min_rto = 1 s (RFC 6298): with the 200 ms default, a lone segment
    // held 200 ms by the delayed-ACK timer on a 21 ms path would also hit
    // the retransmission timer (the same clash exists in real stacks).
    let c = TcpConfig {
        delayed_ack: Some(true),
        min_rto: Some(crate::units::Time(SimTime::from_secs(1))),
        ..cfg("newreno")
    };
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
    // 3 segments: initial window 2 -> one ACK for both; then the third,
    // alone, is acknowledged by the 200 ms timer.
    h.start(3 * 1460);
    h.run_until(SimTime::from_secs(1));
    assert_eq!(h.stats.counts.acks_sent, 2);
    assert_eq!(h.stats.counts.delivered_bytes, 3 * 1460);
    let last = h.cwnd_log.last().unwrap().0;
    assert!(last > SimTime::from_millis(200), "timer ACK at {last}");
    // Bulk: about one ACK per two segments.
    let h = run_for("newreno", &[], 2, |c| c.delayed_ack = Some(true));
    let ratio = h.stats.counts.received_packets as f64 / h.stats.counts.acks_sent as f64;
    assert!((1.95..=2.05).contains(&ratio), "segments per ACK {ratio}");
}

#[test]
fn ecn_one_reduction_per_window_no_retransmission() {
    let mut c = cfg("newreno");
    c.ecn = true;
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
    // Three CE marks in one window: one halving only.
    h.marks = vec![60, 62, 64];
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(3));
    assert!(h.retransmitted().is_empty());
    assert_eq!(h.stats.counts.fast_retransmits + h.stats.counts.timeouts, 0);
    let halvings = h.cwnd_log.windows(2).filter(|w| w[1].1 < w[0].1 * 0.75).count();
    assert_eq!(halvings, 1);
    // After the ECE: ssthresh = FlightSize / 2 with cwnd = ssthresh.
    let (cwnd, ssthresh) = h
        .cwnd_log
        .iter()
        .find(|c| c.2.is_finite() && c.2 < 20.0)
        .map(|c| (c.1, c.2))
        .unwrap();
    assert_eq!(cwnd, ssthresh);
    assert!((10.0..=11.5).contains(&ssthresh), "{ssthresh}");
}

#[test]
fn dctcp_receiver_echoes_exactly_the_marked_segments() {
    // RFC 8257 section 3.2: with delayed ACKs, ECE covers the CE-marked
    // segments and no others (the state change flushes the pending ACK with
    // the old state). RFC 3168's latch instead echoes until CWR arrives,
    // about a round trip of ACKs.
    for (cc, exact) in [("dctcp", true), ("newreno", false)] {
        let mut c = cfg(cc);
        c.ecn = true;
        c.delayed_ack = Some(true);
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
        h.marks = vec![61, 62, 63, 64];
        h.start(u64::MAX);
        h.run_until(SimTime::from_secs(2));
        if exact {
            assert_eq!(h.ece_acked, 4, "{cc}");
        } else {
            assert!(h.ece_acked > 8, "{cc}: {}", h.ece_acked);
        }
    }
}

#[test]
fn finite_transfer_completes_with_partial_last_segment() {
    for cc in ["tahoe", "reno", "newreno", "sack", "cubic", "bbr", "vegas"] {
        let mut c = cfg(cc);
        c.initial_ssthresh = None;
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[5, 9, 30]);
        h.start(100_000);
        h.run_until(SimTime::from_secs(5));
        assert_eq!(h.stats.counts.delivered_bytes, 100_000, "{cc}");
        assert_eq!(
            h.log.iter().filter(|t| !t.retransmission).count(),
            69,
            "{cc}: 68 full segments + 720 bytes"
        );
    }
}

#[test]
fn ns3_acknowledges_the_first_data_segment_at_once() {
    // ns-3's receiver ACKs the first data segment after the handshake at
    // once (`ProcessSynRcvd`: m_delAckCount = m_delAckMaxCount), then every
    // second one: with 4 segments in flight the ACKs cover 1, 2 and 1
    // segments (the last by the timer); without it, 2 and 2.
    let acks_for = |first: bool| {
        let c = TcpConfig {
            delayed_ack: Some(true),
            syn: Some(true),
            ack_first_segment: Some(first),
            initial_cwnd: Some(4.0),
            min_rto: Some(crate::units::Time(SimTime::from_secs(1))),
            ..cfg("newreno")
        };
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
        h.start(4 * 1460);
        h.run_until(SimTime::from_secs(1));
        assert!(h.stats.counts.delivered_bytes >= 4 * 1460);
        h.stats.counts.acks_sent
    };
    // The SYN's ACK plus the data ACKs.
    assert_eq!(acks_for(false), 1 + 2);
    assert_eq!(acks_for(true), 1 + 3);
}

#[test]
fn ns3_takes_ssthresh_from_the_pipe() {
    // Segment 59 lost with 21 segments outstanding and Limited Transmit
    // sending two more: FlightSize (RFC 5681) leaves the two out, 21 / 2;
    // ns-3's pipe (`EnterRecovery`: BytesInFlight after MarkHeadAsLost)
    // leaves out the three SACKed segments and the lost head, (23 - 4) / 2.
    let at_fr = |basis: super::SsthreshBasis| {
        let h = run_for("sack", &[60], 3, |c| {
            c.limited_transmit = true;
            c.ssthresh_basis = Some(basis);
        });
        let fr = h.log.iter().position(|t| t.retransmission).unwrap();
        cwnd_at(&h, h.log[fr].t).1
    };
    assert_eq!(at_fr(super::SsthreshBasis::Flight), 10.5);
    assert_eq!(at_fr(super::SsthreshBasis::Pipe), 9.5);
}

#[test]
fn ns3_window_limits_the_pipe_outside_recovery() {
    // Without Limited Transmit, RFC 5681 sends nothing new on the first two
    // duplicate ACKs; with SACK, ns-3's AvailableWindow (cwnd - pipe, the
    // SACKed segments left out) sends one new segment per SACKed one.
    let before_fr = |pipe: bool| {
        let h = run_for("sack", &[60], 3, |c| {
            c.limited_transmit = false;
            c.pipe_window = Some(pipe);
        });
        let fr = h.log.iter().position(|t| t.retransmission).unwrap();
        let last_new = h.log[..fr].iter().map(|t| t.seq).max().unwrap();
        last_new
    };
    assert_eq!(before_fr(true), before_fr(false) + 2);
}

#[test]
fn ns3_validates_cwnd_for_cubic_only() {
    // ns-3.44: `TcpCubic::IncreaseWindow` returns unless m_isCwndLimited;
    // TcpNewReno and TcpBic grow on every ACK.
    let resolved = |cc: &str| cfg(cc).resolve(crate::compat::Profile::Ns3).unwrap().0.cwnd_validation;
    assert!(resolved("cubic"));
    assert!(!resolved("newreno"));
    assert!(!resolved("bic"));
    assert!(
        cfg("newreno")
            .resolve(crate::compat::Profile::Ccsim)
            .unwrap()
            .0
            .cwnd_validation
    );
}

#[test]
fn ns2_tahoe_keeps_its_dupack_count_across_a_timeout() {
    // Segment 0 is lost; Limited Transmit (ns-2's `send_one`) sends
    // segments 2 and 3 on the first two duplicate ACKs; the RTO (50 ms, no
    // sample yet) expires before the third duplicate ACK (of segment 3)
    // arrives, at about 63 ms, and the retransmission's ACK at about 71 ms.
    let run = |reset: bool| {
        run_for("tahoe", &[1], 1, |c| {
            c.limited_transmit = true;
            c.limited_transmit_after_loss = Some(true);
            c.timeout_resets_dupacks = Some(reset);
            c.initial_rto = Some(crate::units::Time(SimTime::from_millis(50)));
        })
    };
    let sent = |h: &Harness| -> Vec<(u64, u64)> {
        h.log
            .iter()
            .filter(|t| t.t >= SimTime::from_millis(50) && t.t < SimTime::from_millis(70))
            .map(|t| (t.t.0 / 1_000_000, t.seq))
            .collect()
    };
    // ns-2's Tahoe (`TcpAgent::timeout` leaves `dupacks_` alone): the late
    // duplicate ACK is the third, which neither retransmits (the timeout
    // set `recover_`) nor sends by `send_one`; and the timeout itself sends
    // only the go-back-N segment, however far the count had got.
    let kept = run(false);
    assert_eq!(kept.stats.counts.timeouts, 1);
    assert_eq!(sent(&kept), vec![(50, 0)]);
    // With the count reset (Reno's and NewReno's `timeout`, and ccsim), the
    // late duplicate ACK is a first one and sends the next go-back-N segment.
    let reset = run(true);
    assert_eq!(sent(&reset), vec![(50, 0), (63, 1)]);
}

/// ns-2's `Agent/TCP/Linux` (`linux_agent`) with CUBIC: the transmissions
/// around one loss.
fn run_linux_agent(drops: &[u64], drop_tx: &[(u64, u16)]) -> Harness {
    let mut c = cfg("cubic");
    c.linux_agent = Some(true);
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), drops);
    h.drop_tx = drop_tx.to_vec();
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(3));
    h
}

#[test]
fn linux_agent_fack_threshold_and_rate_halving() {
    let h = run_linux_agent(&[60], &[]);
    assert_eq!(h.retransmitted(), vec![59]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 0));
    // ScoreBoard1 marks 59 lost once the highest SACKed segment is 59 + 4:
    // the first three duplicate ACKs each release a new segment (the flight
    // excludes SACKed segments), the fourth starts recovery.
    // (RFC 6675's IsLost would retransmit on the third.)
    let rx = h.log.iter().position(|t| t.retransmission).unwrap();
    let acks_59: Vec<SimTime> = h.ack_log.iter().filter(|a| a.1 == 59).map(|a| a.0).collect();
    // acks_59[0] acknowledges 58; the duplicates follow.
    assert_eq!(h.log[rx].t, acks_59[4], "the fourth duplicate ACK");
    let released: Vec<u64> = h.log[..rx]
        .iter()
        .filter(|t| t.t >= acks_59[1])
        .map(|t| t.seq)
        .collect();
    assert_eq!(released.len(), 3, "{released:?}");
    // cwnd = ssthresh = 22 * 819 / 1024 = 17 at once, but rate halving
    // (`next_pkts_in_flight_` from the old window, 22) keeps sending: the
    // flight (21 after the retransmission: 25 out, 4 SACKed) comes down by
    // one segment per two ACKs to cwnd, then one is sent per ACK.
    let (cwnd, ssthresh) = cwnd_at(&h, h.log[rx].t);
    assert_eq!((cwnd, ssthresh), (17.0, 17.0));
    let sent_on: Vec<bool> = h
        .ack_log
        .iter()
        .filter(|a| a.0 > h.log[rx].t)
        .take(10)
        .map(|a| h.log.iter().any(|t| t.t == a.0))
        .collect();
    assert_eq!(
        sent_on,
        vec![false, true, false, true, false, true, false, true, true, true]
    );
}

#[test]
fn linux_agent_timeout_after_last_ack_and_marks_the_rest_lost() {
    // 59, its fast retransmission and all new data sent during recovery
    // (81 on) are lost, so nothing SACKed can show the retransmission lost
    // and only the timer recovers. It restarts on every ACK (duplicates
    // too), so it fires an RTO after the last duplicate ACK, not after the
    // fast retransmission; then every unSACKed segment (59 and 81 on) is
    // marked lost and resent in order, the SACKed 60..=80 are not.
    let mut drops = vec![(59, 0), (59, 1)];
    drops.extend((81..400).map(|s| (s, 0)));
    let h = run_linux_agent(&[], &drops);
    assert!(h.stats.counts.timeouts >= 1);
    let rto_rx = tx_time_of(&h, 59, 2);
    let last_ack = h.cwnd_log.iter().rev().find(|c| c.0 < rto_rx).unwrap().0;
    let gap = rto_rx - last_ack;
    assert!(gap >= SimTime::from_millis(200), "{gap}");
    assert!(rto_rx - tx_time_of(&h, 59, 1) > gap + SimTime::from_millis(10));
    let rx = h.retransmitted();
    assert!(rx.iter().all(|&s| !(60..=80).contains(&s)), "SACKed resent: {rx:?}");
    assert_eq!(rx[..4], [59, 59, 81, 82], "{rx:?}");
}

#[test]
fn linux_agent_is_the_ns2_sender_of_the_linux_modules() {
    use super::recovery::Recovery;
    use crate::compat::Profile;
    let resolve = |cc: &str, profile: Profile, la: Option<bool>| {
        let c = TcpConfig {
            cc: cc.into(),
            linux_agent: la,
            ..TcpConfig::default()
        };
        c.resolve(profile).expect("valid").0
    };
    for cc in ["cubic", "bic", "highspeed"] {
        let s = resolve(cc, Profile::Ns2, None);
        assert_eq!(s.recovery, Recovery::RateHalving, "{cc}");
        assert!(s.ts_rtt && s.rto_restart_every_ack && !s.timed_rtt, "{cc}");
        // tcp_tick_ = 1 / JIFFY_RATIO once a Linux module is selected
        assert_eq!(s.rto_rules.granularity, SimTime::from_millis(1));
        assert!(s.rto_rules.ts_rounding && s.rto_rules.linux_rttvar);
        // ccsim's default, ns-3 and Linux profiles keep their senders.
        for p in [Profile::Ccsim, Profile::Ns3, Profile::Linux] {
            let s = resolve(cc, p, None);
            assert!(
                s.recovery != Recovery::RateHalving && !s.ts_rtt && !s.rto_restart_every_ack,
                "{cc} {p:?}"
            );
        }
        assert!(resolve(cc, Profile::Ns2, Some(false)).recovery != Recovery::RateHalving);
    }
    let s = resolve("newreno", Profile::Ns2, None);
    assert_eq!(s.recovery, Recovery::NewReno);
    assert!(s.timed_rtt && !s.ts_rtt);
    assert_eq!(s.rto_rules.granularity, SimTime::from_millis(10));
}

#[test]
fn ns3_sub_segment_window_stalls_until_the_rto() {
    // ns-3's TcpDctcp::GetSsThresh has no floor: with every segment marked
    // and alpha 1, cwnd 2 halves to 1 and then to 0.5. The ns-3 sender then
    // sends nothing (SendPendingData's silly-window check) until its
    // retransmission timer, re-armed by the last new ACK while data waits,
    // expires: a timeout that sends the next new segment, no retransmission.
    let run = |ns3: bool| {
        let mut c = cfg("dctcp");
        c.initial_cwnd = Some(2.0);
        c.min_rto = Some(crate::units::Time(SimTime::from_secs(1)));
        if ns3 {
            c.sub_segment_window = Some(true);
            c.cc_params.insert("min_ssthresh".into(), 0.0.into());
        }
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
        h.marks = (1..=2000).collect();
        h.start(u64::MAX);
        h.run_until(SimTime::from_secs(3));
        h
    };
    let h = run(true);
    assert!(h.retransmitted().is_empty());
    assert!(h.stats.counts.timeouts >= 1, "{}", h.stats.counts.timeouts);
    assert!(h.min_cwnd(SimTime::ZERO, SimTime::from_secs(3)) < 1.0);
    // The stall: a gap of the 1 s RTO between two transmissions.
    let gap = h.log.windows(2).map(|w| w[1].t - w[0].t).max().unwrap();
    assert!(gap >= SimTime::from_millis(990), "{gap:?}");
    // With the 2-segment floor (Linux, ccsim) the flow never stalls.
    let h = run(false);
    assert_eq!(h.stats.counts.timeouts, 0);
    assert!(h.min_cwnd(SimTime::ZERO, SimTime::from_secs(3)) >= 2.0);
}

/// A SACK sender with ten segments out (0..10) and every data packet lost,
/// driven by injected ACKs: three duplicate ACKs SACKing 2..5 start
/// recovery (0 and 1 deemed lost, 0 retransmitted; pipe 6 > cwnd 5), then
/// the partial ACK of 0 (pipe 5 = cwnd) and a second partial ACK.
fn sack_partial_acks(tweak: impl FnOnce(&mut TcpConfig)) -> Harness {
    let mut c = cfg("sack");
    c.initial_cwnd = Some(10.0);
    tweak(&mut c);
    let drops: Vec<u64> = (1..=1000).collect();
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &drops);
    h.start(u64::MAX);
    let ms = SimTime::from_millis;
    h.inject_ack(ms(30), 0, &[(2, 3)]);
    h.inject_ack(ms(31), 0, &[(2, 4)]);
    h.inject_ack(ms(32), 0, &[(2, 5)]);
    h.inject_ack(ms(60), 1, &[(2, 5)]);
    h.inject_ack(ms(150), 5, &[(6, 7)]);
    h.run_until(SimTime::from_secs(3));
    h
}

#[test]
fn ns3_partial_ack_retransmits_at_once() {
    // ns-3's ProcessAck: the partial ACK of 0 finds the new head, 1, lost
    // and not yet retransmitted, and DoRetransmit sends it at once although
    // cwnd - pipe < 1; RFC 6675's pipe rule alone sends nothing then.
    let first_rtx_of_1 = |on: bool| {
        let h = sack_partial_acks(|c| c.partial_ack_retransmit = Some(on));
        assert_eq!(h.log[10].seq, 0, "the fast retransmit");
        h.log.iter().find(|t| t.seq == 1 && t.retransmission).map(|t| t.t)
    };
    assert_eq!(first_rtx_of_1(true), Some(SimTime::from_millis(60)));
    assert_ne!(first_rtx_of_1(false), Some(SimTime::from_millis(60)));
}

#[test]
fn ns3_only_the_first_partial_ack_restarts_the_timer() {
    // ns-3: NewAck(ackNumber, m_isFirstPartialAck). The timeout comes one
    // RTO after the first partial ACK (60 ms), not after the second (150 ms).
    let timeout_at = |once: bool| {
        let h = sack_partial_acks(|c| {
            c.partial_ack_retransmit = Some(false);
            c.rto_restart_first_partial_ack = Some(once);
            c.min_rto = Some(crate::units::Time(SimTime::from_secs(1)));
            c.rto_floor = Some(crate::compat::RtoFloor::Whole);
        });
        assert_eq!(h.stats.counts.timeouts, 1);
        // The go-back-N after the timeout resends the head, 5.
        h.log.iter().find(|t| t.seq == 5 && t.retransmission).unwrap().t
    };
    let (once, every) = (timeout_at(true), timeout_at(false));
    assert!(once < every, "{once:?} {every:?}");
    assert_eq!(every - once, SimTime::from_millis(90));
}

#[test]
fn ns3_syn_retries_after_conn_timeout_without_a_congestion_response() {
    // ns-3: SendEmptyPacket resends the SYN after ConnTimeout x 2^retries
    // (3 s, then 6 s) and leaves cwnd and ssthresh alone; without
    // `syn_timeout` the SYN times out as data does (RTO 1 s, doubled) and
    // each expiry is a timeout that takes cwnd to one segment.
    let run = |t: Option<u64>| {
        let mut c = cfg("newreno");
        c.syn = Some(true);
        c.initial_cwnd = Some(10.0);
        c.syn_timeout = t.map(|s| crate::units::Time(SimTime::from_secs(s)));
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[1, 2]);
        h.start(u64::MAX);
        h.run_until(SimTime::from_secs(12));
        h
    };
    let syn_times = |h: &Harness| -> Vec<SimTime> { h.log.iter().filter(|t| t.seq == 0).map(|t| t.t).collect() };
    let burst = |h: &Harness| {
        let first = h.log.iter().find(|t| t.seq == 1).unwrap().t;
        h.log.iter().filter(|t| t.t == first).count()
    };
    let s = SimTime::from_secs;
    let h = run(Some(3));
    assert_eq!(syn_times(&h), vec![s(0), s(3), s(9)]);
    assert_eq!(h.stats.counts.timeouts, 0);
    assert_eq!(burst(&h), 10, "the initial window");
    let h = run(None);
    assert_eq!(syn_times(&h), vec![s(0), s(1), s(3)]);
    assert_eq!(h.stats.counts.timeouts, 2);
    assert_eq!(burst(&h), 1);
}

#[test]
fn ns3_times_a_resent_syn_from_its_first_transmission() {
    // ns-3 (traced in the wheel by fid-ns3-cc): a SYN lost once is resent
    // after ConnTimeout (3 s); the SYN-ACK's RTT sample runs from the first
    // SYN, about 3.02 s, so the flow starts with an RTO near 9 s. Without
    // the rule (Karn's) the handshake gives no sample and the first data
    // ACK a 20 ms one.
    let run = |first_send: bool| {
        let mut c = cfg("newreno");
        c.syn = Some(true);
        c.syn_timeout = Some(crate::units::Time(SimTime::from_secs(3)));
        c.rtt_sampling = Some(super::RttSampling::Oldest);
        c.syn_rtt_first_send = Some(first_send);
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[1]);
        h.start(20 * 1460);
        h.run_until(SimTime::from_secs(4));
        h
    };
    // The first smoothed RTT the sender has (after the SYN-ACK, or after
    // the first data ACK when the handshake gave no sample).
    let first_srtt = |h: &Harness| h.cwnd_log.iter().map(|c| c.3).find(|v| v.is_finite()).unwrap();
    let srtt = first_srtt(&run(true));
    assert!((3.0..3.1).contains(&srtt), "{srtt}");
    let srtt = first_srtt(&run(false));
    assert!(srtt < 0.05, "{srtt}");
}

#[test]
fn ns3_min_rtt_is_the_smallest_srtt() {
    // ns-3.44's `EstimateRtt` keeps `m_minRtt = min(m_srtt, m_minRtt)`, and
    // `TcpRateLinux::GenerateSample` declares a delivery-rate sample over a
    // shorter interval invalid. After a SYN lost once the SRTT starts near
    // 3 s (`syn_rtt_first_send`), so an ns-3 BBR flow, which opens with a
    // bandwidth of cwnd / 3 s (`open_init`), keeps it while the SRTT decays:
    // traced in the wheel (`ns3-bbr-droptail-4`, seed 3), such a flow paced
    // at 74 kbit/s for six seconds. Here (two segments, 20 ms) the flow
    // opens at 3.02 s paced at 2.89 x 2 / 3.02 s = 1.9 segments per second
    // and keeps that pace to 5 s; with the smallest sample (20 ms) the first
    // round's samples are valid and STARTUP takes the link.
    let run = |basis| {
        let mut c = cfg("bbr");
        c.cc_params.insert("variant".into(), "ns3".into());
        c.syn = Some(true);
        c.syn_timeout = Some(crate::units::Time(SimTime::from_secs(3)));
        c.rtt_sampling = Some(super::RttSampling::Oldest);
        c.syn_rtt_first_send = Some(true);
        c.rate_sample = Some(super::rate::RateSampler::Ns3);
        c.min_rtt_basis = Some(basis);
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[1]);
        h.start(100_000 * 1460);
        h.run_until(SimTime::from_secs(5));
        h.ack_log.last().map_or(0, |a| a.1)
    };
    let srtt = run(super::MinRttBasis::Srtt);
    let samples = run(super::MinRttBasis::Samples);
    assert!(srtt <= 6 && samples > 1000, "{srtt} vs {samples}");
}

#[test]
fn ns3_samples_the_oldest_segment_an_ack_covers() {
    // ns-3's EstimateRtt times the front of its RTT history: with delayed
    // ACKs covering two segments, the first of them, sent at least one
    // transmission time (1.2 ms at 10 Mbit/s) before the second.
    let srtt = |sampling: super::RttSampling| {
        let h = run_for("newreno", &[], 2, |c| {
            c.delayed_ack = Some(true);
            c.rtt_sampling = Some(sampling);
        });
        h.cwnd_log.last().unwrap().3
    };
    let d = srtt(super::RttSampling::Oldest) - srtt(super::RttSampling::EveryAck);
    assert!((0.0010..0.005).contains(&d), "{d}");
}

#[test]
fn a_full_size_syn_takes_a_full_segment_time() {
    // ns-2's VegasTcpAgent::output sends the SYN with the data packets' size:
    // on a 10 Mbit/s link its ACK, and so the first data segment, comes
    // (1500 - 40) * 8 / 10^7 s = 1.168 ms later than after a 40-byte SYN.
    let first_data = |full: bool| {
        let c = TcpConfig {
            syn: Some(true),
            syn_full_size: Some(full),
            ..cfg("newreno")
        };
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
        h.start(4 * 1460);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.log[0].seq, 0);
        h.log[1].t
    };
    assert_eq!(first_data(true) - first_data(false), SimTime::from_micros(1168));
}

#[test]
fn ns3_answers_the_syn_ack_with_a_pure_ack_before_the_data() {
    // ns-3's `ProcessSynSent` sends `SendEmptyPacket (ACK)` on the SYN-ACK,
    // then the initial window in the same instant: one 40-byte packet more
    // on the wire, queued ahead of the first data segment.
    let run = |on: bool| {
        let c = TcpConfig {
            syn: Some(true),
            handshake_ack: Some(on),
            ..cfg("newreno")
        };
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[]);
        h.start(4 * 1460);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.log[0].seq, 0);
        assert_eq!(h.log.iter().filter(|t| t.seq >= 1).count(), 4);
        (h.pure_acks.clone(), h.log[1].t)
    };
    let (acks_on, first_on) = run(true);
    let (acks_off, first_off) = run(false);
    assert!(acks_off.is_empty());
    assert_eq!(acks_on.len(), 1);
    assert_eq!(acks_on[0], first_on, "sent at the SYN-ACK, with the data");
    assert_eq!(first_on, first_off);
}

#[test]
fn ns3_counts_an_advancing_ack_with_new_sacks_as_a_duplicate() {
    // With delayed ACKs, segment 30 waits for its pair; 31 is lost, so 32
    // arrives out of order and its ACK both covers 30 and SACKs 32. ns-3
    // (`ProcessAck`: `isDupack = m_sackEnabled ? scoreboardUpdated`) counts
    // it as the first duplicate and opens no window on it: one segment
    // fewer goes out before the fast retransmit.
    let run = |on: bool| {
        run_for("sack", &[32], 2, |c| {
            c.delayed_ack = Some(true);
            c.sack_dupack = Some(on);
        })
    };
    let (ns3, rfc) = (run(true), run(false));
    for h in [&ns3, &rfc] {
        assert_eq!(h.retransmitted(), vec![31]);
    }
    let (t_ns3, t_rfc) = (tx_time_of(&ns3, 31, 1), tx_time_of(&rfc, 31, 1));
    let sent_before = |h: &Harness, t| h.log.iter().filter(|x| x.t < t).count();
    assert!(t_ns3 <= t_rfc);
    assert_eq!(sent_before(&ns3, t_ns3) + 1, sent_before(&rfc, t_rfc));
}

/// SACK with a receiver window that never limits, the packets `drops`
/// lost and the first retransmission of segment 59 too, for 3 s.
fn run_sack_losing_rtx(drops: &[u64], tweak: impl FnOnce(&mut TcpConfig)) -> Harness {
    let mut c = cfg("sack");
    c.window = 1000;
    tweak(&mut c);
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), drops);
    h.drop_tx = vec![(59, 1)];
    h.start(u64::MAX);
    h.run_until(SimTime::from_secs(3));
    h
}

#[test]
fn ns3_keeps_a_sacked_retransmission_in_the_pipe() {
    // Segments 59 and 61 lost, and the retransmission of 59 too: the
    // retransmission of 61 then arrives above the hole at 59 and is SACKed.
    // ns-3's BytesInFlight keeps it in the pipe (`m_retrans` stays set)
    // until the cumulative ACK passes it, RFC 6675's SetPipe does not: one
    // new segment fewer per round trip (about 21 ms), nine in all, from the
    // retransmission of 61 (0.153 s) until the timeout resends 59 (0.364 s).
    let run = |on: bool| {
        let h = run_sack_losing_rtx(&[60, 62], |c| c.sacked_retransmit_in_pipe = Some(on));
        assert_eq!(h.stats.counts.timeouts, 1, "{on}");
        let rto = tx_time_of(&h, 59, 2);
        let new_before = h.log.iter().filter(|t| t.t < rto && !t.retransmission).count();
        (h.retransmitted()[..3].to_vec(), new_before)
    };
    let (ns3, rfc) = (run(true), run(false));
    assert_eq!(ns3.0, vec![59, 61, 59]);
    assert_eq!(rfc.0, ns3.0);
    assert_eq!(rfc.1 - ns3.1, 9);
}

#[test]
fn ns3_next_seg_sends_nothing_while_the_receiver_window_holds_data_back() {
    // A 21-segment receiver window, full when segments 59 and 77 are lost
    // (60-76, 78 and 79 SACKed: 77 has two SACKed segments above, not
    // DupThresh). RFC 6675's NextSeg, with no new data allowed, goes on to
    // rule 3 and resends 77 at once; ns-3's returns nothing from rule 2
    // (`TcpTxBuffer::NextSeg`: no receiver window), so 77 waits until the
    // ACK of 59's retransmission opens the window and new data SACKed above
    // 77 makes it lost, more than a round trip (21.2 ms) later.
    let gap = |on: bool| {
        let h = run_for("sack", &[60, 78], 3, |c| {
            c.window = 21;
            c.rwnd_stops_next_seg = Some(on);
        });
        assert_eq!(h.retransmitted(), vec![59, 77], "{on}");
        assert_eq!(
            (h.stats.counts.fast_retransmits, h.stats.counts.timeouts),
            (1, 0),
            "{on}"
        );
        tx_time_of(&h, 77, 1) - tx_time_of(&h, 59, 1)
    };
    let rtt = SimTime::from_micros(21_200);
    let (ns3, rfc) = (gap(true), gap(false));
    assert!(rfc < rtt, "rfc6675 {rfc}");
    assert!(ns3 > rtt, "ns3 {ns3}");
}

#[test]
fn ns3_grows_nothing_on_the_ack_that_reaches_the_timeout_recovery_point() {
    // Segment 59 and its retransmission lost; everything else arrives and
    // is SACKed, so after the timeout the ACK of 59's second retransmission
    // covers exactly what had been sent before the timeout. ns-3 leaves
    // CA_LOSS there with segsAcked = (ackNumber - m_recover) / segmentSize
    // = 0 (`ProcessAck`) and cwnd stays one segment; otherwise the segment
    // it newly delivers (or all it covers) opens the window.
    let after_exit = |on: bool| {
        let h = run_sack_losing_rtx(&[60], |c| c.loss_exit_beyond_recover = Some(on));
        assert_eq!(h.stats.counts.timeouts, 1, "{on}");
        let rto = tx_time_of(&h, 59, 2);
        let exit = h
            .ack_log
            .iter()
            .find(|a| a.0 > rto && a.1 > 59)
            .expect("the ACK of the retransmission");
        assert!(exit.1 > 100, "the ACK jumps over the SACKed data: {}", exit.1);
        cwnd_at(&h, exit.0).0
    };
    assert_eq!(after_exit(true), 1.0);
    assert!(after_exit(false) >= 2.0);
}

/// `sack_recovery` set, the rest as `cfg("sack")`.
fn sack_with(recovery: super::recovery::SackRecovery) -> impl FnOnce(&mut TcpConfig) {
    move |c| c.sack_recovery = Some(recovery)
}

#[test]
fn ns2_sack1_retransmits_a_hole_below_one_sack() {
    // Segments 59 and 77 lost, 78 and 79 (the last ones sent) SACKed. ns-2's
    // `GetNextRetran` resends 77 as soon as the pipe counter allows, with
    // only two SACKed segments above it; RFC 6675 waits until IsLost(77),
    // three SACKed above, so until new data sent in recovery is SACKed.
    use super::recovery::SackRecovery;
    let first_rtx = |r| {
        let h = run_for("sack", &[60, 78], 3, sack_with(r));
        assert_eq!(h.retransmitted(), vec![59, 77], "{r:?}");
        assert_eq!(
            (h.stats.counts.fast_retransmits, h.stats.counts.timeouts),
            (1, 0),
            "{r:?}"
        );
        tx_time_of(&h, 77, 1) - tx_time_of(&h, 59, 1)
    };
    let (ns2, rfc) = (first_rtx(SackRecovery::Ns2), first_rtx(SackRecovery::Rfc6675));
    // The SACK of a segment sent after the fast retransmit comes at least
    // one RTT (21.2 ms) after it.
    let rtt = SimTime::from_micros(21_200);
    assert!(ns2 < rtt, "ns2 {ns2}");
    assert!(rfc > rtt, "rfc6675 {rfc}");
}

#[test]
fn ns2_sack1_forgets_the_scoreboard_at_a_timeout() {
    // Segments 59 and 70 lost and their retransmissions too: after the
    // timeout and the ACK of 59 the go-back-N resends 70 and then 71, which
    // the receiver SACKed long ago (ns-2's `ClearScoreBoard` and
    // `timeout_`); RFC 6675 with the scoreboard kept skips it.
    use super::recovery::SackRecovery;
    let run = |r| {
        let mut c = cfg("sack");
        c.sack_recovery = Some(r);
        let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &[60, 71]);
        h.drop_tx = vec![(59, 1), (70, 1)];
        h.start(u64::MAX);
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.stats.counts.timeouts, 1, "{r:?}");
        h.retransmitted()
    };
    assert_eq!(run(SackRecovery::Ns2), vec![59, 70, 59, 70, 71]);
    assert_eq!(run(SackRecovery::Rfc6675), vec![59, 70, 59, 70]);
}

#[test]
fn ns2_sack1_pipe_counter() {
    // Three losses in one window (59, 61, 63; 21 outstanding, cwnd 10.5):
    // ns-2's pipe starts at 21 - 3 = 18 and falls by one per ACK, so the
    // second hole goes out only after 9 more duplicate ACKs, and every hole
    // before any new data; no timeout.
    use super::recovery::SackRecovery;
    let h = run_for("sack", &[60, 62, 64], 3, sack_with(SackRecovery::Ns2));
    assert_eq!(h.retransmitted(), vec![59, 61, 63]);
    assert_eq!((h.stats.counts.fast_retransmits, h.stats.counts.timeouts), (1, 0));
    let fr = tx_time_of(&h, 59, 1);
    let acks_between = h
        .ack_log
        .iter()
        .filter(|a| a.0 > fr && a.0 <= tx_time_of(&h, 61, 1))
        .count();
    assert_eq!(acks_between, 9);
    let new_after = h.log.iter().position(|t| t.t > fr && !t.retransmission).unwrap();
    let rtx_63 = h.log.iter().position(|t| t.seq == 63 && t.retransmission).unwrap();
    assert!(rtx_63 < new_after);
}

/// RFC 6937 section 3.1's setting driven through the sender: 20 segments
/// out (cwnd 20, Limited Transmit on), `lost` of them lost, and every data
/// packet after them lost too so that only the injected ACKs arrive: the
/// ACK of each later segment k SACKs lost.end..=k. Returns the number of
/// segments sent on each of those ACKs.
fn rfc6937_example(prr: super::prr::PrrMode, lost: std::ops::Range<u64>) -> Vec<usize> {
    let mut c = cfg("sack");
    c.initial_cwnd = Some(20.0);
    c.initial_ssthresh = None;
    c.limited_transmit = true;
    c.prr = Some(prr);
    let drops: Vec<u64> = (1..=1000).collect();
    let mut h = Harness::new(&c, 10_000_000, SimTime::from_millis(10), &drops);
    h.start(u64::MAX);
    let mut sent = Vec::new();
    for k in lost.end..20 {
        let at = SimTime::from_millis(30 + k);
        h.inject_ack(at, lost.start, &[(lost.end, k + 1)]);
        sent.push(h.log.iter().filter(|t| t.t == at).count());
    }
    sent
}

#[test]
fn prr_follows_the_rfc6937_burst_loss_example() {
    // Segments 0-14 lost; the ACKs of 15 and 16 send two new segments
    // (Limited Transmit), the ACK of 17 starts recovery with pipe 4 and
    // ssthresh 10. RFC 6937 section 3.1: PRR-CRB sends R R R, PRR-SSRB 2R
    // 2R 2R; RFC 6675 (cwnd = ssthresh = 10) fills the pipe at once.
    use super::prr::PrrMode;
    assert_eq!(rfc6937_example(PrrMode::Crb, 0..15), vec![1, 1, 1, 1, 1]);
    assert_eq!(rfc6937_example(PrrMode::Ssrb, 0..15), vec![1, 1, 2, 2, 2]);
    assert_eq!(rfc6937_example(PrrMode::Off, 0..15), vec![1, 1, 6, 1, 1]);
}

#[test]
fn prr_spreads_a_single_loss_over_the_round_trip() {
    // Segment 0 lost, the ACKs of 1-19 arrive. RFC 6937 section 3.1: RFC
    // 6675 sends the two Limited Transmit segments and the retransmission,
    // then nothing for half the ACKs (cwnd = ssthresh = 10 and pipe 18),
    // then one segment per ACK; PRR one on every other ACK, as much in
    // total. (ccsim's RFC 6675 row starts one ACK later than the RFC's
    // figure, whose cwnd is 11; the figure's PRR row sends one segment
    // more than its pseudocode gives with RecoverFS = snd.nxt - snd.una =
    // 22 or with 20: the pseudocode is what is implemented.)
    use super::prr::PrrMode;
    let off = rfc6937_example(PrrMode::Off, 0..1);
    let prr = rfc6937_example(PrrMode::Ssrb, 0..1);
    assert_eq!(off, vec![1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(prr, vec![1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1]);
    assert_eq!(off.iter().sum::<usize>(), prr.iter().sum::<usize>());
}

#[test]
fn prr_without_rfc6675_recovery_is_a_one_line_error() {
    use super::prr::PrrMode;
    let mut c = cfg("newreno");
    c.prr = Some(PrrMode::Ssrb);
    let err = super::build_from(&c, crate::compat::Profile::Ccsim)
        .err()
        .expect("an error");
    assert_eq!(err.path, "prr");
    // The ns3 profile's default applies only where it can: a NewReno flow
    // without SACK builds.
    let mut c = cfg("newreno");
    c.sack = Some(false);
    assert!(super::build_from(&c, crate::compat::Profile::Ns3).is_ok());
    c.prr = Some(PrrMode::Off);
    assert!(super::build_from(&c, crate::compat::Profile::Ccsim).is_ok());
}

#[test]
fn recovery_exit_growth_is_the_senders_for_every_controller() {
    // Segment 59 lost, recovery from the ACK of 79's third duplicate until
    // the ACK of 80 (RecoveryPoint). With `recovery_exit_growth` that ACK
    // grows the window as any new ACK would, whatever the controller (ns-3's
    // `ProcessAck` calls `IncreaseWindow` there for every congestion ops;
    // ns-3's BIC had no such growth before the key moved to the sender).
    for (cc, variant) in [
        ("newreno", None),
        ("bic", Some("ns3")),
        ("aimd", None),
        ("highspeed", Some("ns3")),
    ] {
        let run = |grow: bool| {
            run_for(cc, &[60], 2, |c| {
                c.recovery_exit_growth = Some(grow);
                if let Some(v) = variant {
                    c.cc_params.insert("variant".into(), v.into());
                }
            })
        };
        let (on, off) = (run(true), run(false));
        assert_eq!(on.retransmitted(), vec![59], "{cc}");
        let exit = on.ack_log.iter().position(|a| a.1 >= 80).expect("recovery ends");
        assert_eq!(off.ack_log[exit], on.ack_log[exit], "{cc}");
        assert_eq!(on.cwnd_log[..exit], off.cwnd_log[..exit], "{cc}");
        // The first difference is a larger window with the growth (ns-3's
        // BIC counts the exit's segments towards its next increase, so it
        // may show a few ACKs later).
        let first = (exit..on.cwnd_log.len())
            .find(|&i| on.cwnd_log[i].1 != off.cwnd_log[i].1)
            .expect("the runs differ");
        assert!(on.cwnd_log[first].1 > off.cwnd_log[first].1, "{cc}: {first} {exit}");
    }
}

#[test]
fn recovery_exit_growth_in_cc_params_names_its_new_place() {
    let mut c = cfg("newreno");
    c.cc_params.insert("recovery_exit_growth".into(), true.into());
    let err = super::build_from(&c, crate::compat::Profile::Ccsim)
        .err()
        .expect("an error");
    assert_eq!(err.path, "cc_params.recovery_exit_growth");
}

#[test]
fn ect_every_packet_makes_retransmissions_and_acks_ecn_capable() {
    // DCTCP loses its 30th data packet: RFC 3168 section 6.1.5 sends the
    // retransmission Not-ECT and the receiver's ACKs Not-ECT (section
    // 6.1.4); ns-3's DctcpEcn mode sends both ECT(0)
    // (`TcpSocketBase::AddSocketTags`).
    let run = |on: Option<bool>| {
        let h = run_for("dctcp", &[30], 2, |c| c.ect_every_packet = on);
        let rtx: Vec<bool> = h.log.iter().filter(|t| t.retransmission).map(|t| t.ect).collect();
        assert!(!rtx.is_empty(), "the loss is repaired");
        assert!(h.log.iter().filter(|t| !t.retransmission).all(|t| t.ect));
        let acks_ect = h.ack_ecn.iter().filter(|&&e| e == crate::packet::Ecn::Ect).count();
        (rtx, acks_ect, h.ack_ecn.len())
    };
    let (rtx, acks_ect, _) = run(None);
    assert!(rtx.iter().all(|&e| !e), "{rtx:?}");
    assert_eq!(acks_ect, 0);
    let (rtx, acks_ect, acks) = run(Some(true));
    assert!(rtx.iter().all(|&e| e), "{rtx:?}");
    assert_eq!(acks_ect, acks);
    // The profile's default: on under ns3 and linux for DCTCP only.
    let dctcp = cfg("dctcp");
    assert!(dctcp.ect_every_packet_for(crate::compat::Profile::Ns3));
    assert!(dctcp.ect_every_packet_for(crate::compat::Profile::Linux));
    assert!(!dctcp.ect_every_packet_for(crate::compat::Profile::Ccsim));
    assert!(!dctcp.ect_every_packet_for(crate::compat::Profile::Rfc));
    assert!(!cfg("cubic").ect_every_packet_for(crate::compat::Profile::Ns3));
}

/// A fixed-window controller that records, per ACK, whether it got a rate
/// sample and the delivered count.
struct RateProbe {
    reads_rates: bool,
    seen: std::sync::Arc<std::sync::Mutex<Vec<(bool, u64)>>>,
}

impl crate::cc::CongestionControl for RateProbe {
    fn name(&self) -> &'static str {
        "rate-probe"
    }
    fn cwnd(&self) -> f64 {
        4.0
    }
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    fn on_ack(&mut self, ack: &crate::cc::AckInfo, _rng: &mut SimRng) {
        self.seen
            .lock()
            .expect("not poisoned")
            .push((ack.rate.is_some(), ack.delivered));
    }
    fn on_congestion_event(&mut self, _ev: &crate::cc::CongestionEvent) {}
    fn on_rto(&mut self, _ev: &crate::cc::CongestionEvent) {}
    fn uses_rate_samples(&self) -> bool {
        self.reads_rates
    }
}

#[test]
fn a_controller_that_reads_no_rate_samples_gets_none_and_the_same_delivered_count() {
    // `uses_rate_samples` is asked once: false skips the rate estimator's
    // per-segment work (Reno and its kin), and the ACK then carries no
    // sample while `delivered` still counts every delivered segment.
    let run = |reads_rates: bool| {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (sc, _, _) = cfg("newreno").resolve(crate::compat::Profile::Ccsim).expect("valid");
        let cc = RateProbe {
            reads_rates,
            seen: seen.clone(),
        };
        let mut s = super::sender::TcpSender::new(sc, Box::new(cc));
        let mut env = crate::transport::testenv::TestEnv::new();
        s.app_data(&mut env.ctx(SimTime::ZERO), 1_000_000);
        assert_eq!(env.sent().len(), 4);
        for (i, ack) in [1u64, 2, 4].into_iter().enumerate() {
            let t = SimTime::from_millis(10 * (i as u64 + 1));
            let pkt = Packet {
                kind: PacketKind::Ack,
                ack,
                wnd: 64,
                ..Packet::default()
            };
            s.on_packet(&mut env.ctx(t), &pkt);
        }
        let v = seen.lock().expect("not poisoned").clone();
        v
    };
    assert_eq!(run(true), vec![(true, 1), (true, 2), (true, 4)]);
    assert_eq!(run(false), vec![(false, 1), (false, 2), (false, 4)]);
    let init = crate::cc::testutil::init(10.0);
    for name in ["tahoe", "reno", "newreno", "sack"] {
        let c = crate::cc::build(name, &Default::default(), &init).expect(name);
        assert!(!c.uses_rate_samples(), "{name}");
    }
    let bbr = crate::cc::build("bbr", &Default::default(), &init).expect("bbr");
    assert!(bbr.uses_rate_samples());
}

/// A controller whose window the test sets (and no congestion response).
struct SetWindow(std::sync::Arc<std::sync::Mutex<f64>>);

impl crate::cc::CongestionControl for SetWindow {
    fn name(&self) -> &'static str {
        "set-window"
    }
    fn cwnd(&self) -> f64 {
        *self.0.lock().expect("not poisoned")
    }
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    fn on_ack(&mut self, _ack: &crate::cc::AckInfo, _rng: &mut SimRng) {}
    fn on_congestion_event(&mut self, _ev: &crate::cc::CongestionEvent) {}
    fn on_rto(&mut self, _ev: &crate::cc::CongestionEvent) {}
}

/// What a SACK sender sends after a timeout: 20 segments sent, then
/// (with `sack`) an ACK that SACKs 2-9, the timeout with a window of 4,
/// then ACKs with more SACK blocks, each after setting the window; the
/// segments sent at the timeout and after each ACK.
fn after_timeout(resend: super::RtoResend, sack: bool, acks: &[(f64, &[(u64, u64)])]) -> Vec<Vec<u64>> {
    let mut c = cfg("sack");
    c.window = 1000;
    // No fast retransmit from the SACK of 2-9 (as the wheel, straight to
    // the timeout); the window limits the pipe, as under `ns3`.
    c.dupthresh = 20;
    c.pipe_window = Some(true);
    c.rto_resend = Some(resend);
    let (sc, _, _) = c.resolve(crate::compat::Profile::Ccsim).expect("valid");
    let w = std::sync::Arc::new(std::sync::Mutex::new(20.0));
    let mut s = super::sender::TcpSender::new(sc, Box::new(SetWindow(w.clone())));
    let mut env = crate::transport::testenv::TestEnv::new();
    let seqs = |env: &mut crate::transport::testenv::TestEnv| env.sent().iter().map(|p| p.seq).collect::<Vec<_>>();
    s.app_data(&mut env.ctx(SimTime::ZERO), u64::MAX / 2);
    assert_eq!(seqs(&mut env), (0..20).collect::<Vec<_>>());
    let ack = |blocks: &[(u64, u64)]| {
        let mut p = Packet {
            kind: PacketKind::Ack,
            ack: 0,
            wnd: 1000,
            n_sack: blocks.len() as u8,
            ..Packet::default()
        };
        p.sack[..blocks.len()].copy_from_slice(blocks);
        p
    };
    if sack {
        // The window the 12 unSACKed segments fill.
        *w.lock().expect("not poisoned") = 12.0;
        s.on_packet(&mut env.ctx(SimTime::from_millis(10)), &ack(&[(2, 10)]));
        assert!(seqs(&mut env).is_empty());
    }
    let (at, kind, token) = env
        .timers()
        .into_iter()
        .find(|t| t.1 == super::sender::TIMER_RTO)
        .expect("RTO armed");
    *w.lock().expect("not poisoned") = 4.0;
    s.on_timer(&mut env.ctx(at), kind, token);
    let mut out = vec![seqs(&mut env)];
    for (i, &(cwnd, blocks)) in acks.iter().enumerate() {
        *w.lock().expect("not poisoned") = cwnd;
        s.on_packet(
            &mut env.ctx(at + SimTime::from_millis(10 * (i as u64 + 1))),
            &ack(blocks),
        );
        out.push(seqs(&mut env));
    }
    out
}

#[test]
fn ns3_resends_after_a_timeout_only_below_the_highest_sack() {
    // The sequences of the ns-3.44 wheel's `TcpTxBuffer::NextSeg` after
    // `SetSentListLost` (validation/findings.md): 0-19 sent, 2-9 SACKed,
    // a timeout: 0, 1, then new data 20, 21; a SACK of 15 (window 10, 4 in
    // flight): 10-14, then new data 22; a SACK of 16 and 22: 17-19, and
    // not 20 or 21, sent after the timeout with one SACK above them.
    // Go-back-N resends the whole unSACKed tail in order (and its new data
    // starts at 20 only when the tail is done).
    use super::RtoResend::{BelowHighSack, GoBackN};
    let acks: [(f64, &[(u64, u64)]); 2] = [(10.0, &[(2, 10), (15, 16)]), (13.0, &[(2, 10), (15, 17), (22, 23)])];
    assert_eq!(
        after_timeout(BelowHighSack, true, &acks),
        [vec![0, 1, 20, 21], vec![10, 11, 12, 13, 14, 22], vec![17, 18, 19, 23]]
    );
    assert_eq!(
        after_timeout(GoBackN, true, &acks),
        [vec![0, 1, 10, 11], vec![12, 13, 14, 16, 17, 18], vec![19, 20, 21, 22]]
    );
    // Without any SACK both go back: 0, 1, 2, 3.
    for resend in [BelowHighSack, GoBackN] {
        assert_eq!(after_timeout(resend, false, &[]), [vec![0, 1, 2, 3]]);
    }
}

#[test]
fn below_high_sack_without_rfc6675_recovery_is_a_one_line_error() {
    let mut c = cfg("newreno");
    c.recovery = Some("newreno".into());
    c.rto_resend = Some(super::RtoResend::BelowHighSack);
    let e = c.resolve(crate::compat::Profile::Ns3).expect_err("an error");
    assert_eq!(e.path, "rto_resend");
    // Under `ns3` a non-SACK flow group runs go-back-N and says so.
    let c = TcpConfig {
        sack: Some(false),
        ..cfg("newreno")
    };
    let (sc, _, _) = c.resolve(crate::compat::Profile::Ns3).expect("valid");
    assert_eq!(sc.rto_resend, super::RtoResend::GoBackN);
    let (sc, _, _) = cfg("cubic").resolve(crate::compat::Profile::Ns3).expect("valid");
    assert_eq!(sc.rto_resend, super::RtoResend::BelowHighSack);
}

#[test]
fn ns3_sends_the_initial_window_unpaced() {
    // BBR paces from its first segment (a high initial rate, but a gap
    // between segments: one segment at t = 0, the rest later). ns-3.44's
    // `PaceInitialWindow` false: `IsPacingEnabled` is false until more
    // than `InitialCwnd` segments were sent, so the 10 segments of the
    // initial window leave at once, the 11th (on the first ACK) starts the
    // pacing timer and the 12th waits for it (the ns-3 twin's trace: 0-9
    // 83 us apart at the access line's rate, then 1.7 ms apart).
    let run = |unpaced_iw: bool| {
        let mut c = cfg("bbr");
        c.window = 1000;
        c.initial_cwnd = Some(10.0);
        c.pace_initial_window = Some(!unpaced_iw);
        let (sc, _, _) = c.resolve(crate::compat::Profile::Ccsim).expect("valid");
        let init = crate::cc::testutil::init(10.0);
        let bbr = crate::cc::build("bbr", &Default::default(), &init).expect("bbr");
        let mut s = super::sender::TcpSender::new(sc, bbr);
        let mut env = crate::transport::testenv::TestEnv::new();
        s.app_data(&mut env.ctx(SimTime::ZERO), u64::MAX / 2);
        let at_start = env.sent().len();
        // The ACK of the first two segments, 10 ms later.
        let ack = Packet {
            kind: PacketKind::Ack,
            ack: 2,
            wnd: 1000,
            ..Packet::default()
        };
        s.on_packet(&mut env.ctx(SimTime::from_millis(10)), &ack);
        (at_start, env.sent().iter().map(|p| p.seq).collect::<Vec<_>>())
    };
    assert_eq!(run(true), (10, vec![10]));
    let (paced, _) = run(false);
    assert_eq!(paced, 1);
    // The profile's default.
    let c = cfg("bbr");
    assert!(
        !c.resolve(crate::compat::Profile::Ns3)
            .expect("valid")
            .0
            .pace_initial_window
    );
    assert!(
        c.resolve(crate::compat::Profile::Ccsim)
            .expect("valid")
            .0
            .pace_initial_window
    );
}
