//! Every queue discipline of the registry, with its default parameters,
//! conserves packets through the counting `Queue` wrapper under random
//! arrivals, departures, time steps and timers, and is deterministic: the
//! same operations with the same seed give the same verdicts, departures and
//! drops. The list comes from `registry::every_kind` (the table
//! `registry::DISCIPLINES`, then the disciplines registered providers
//! declare), so a discipline added to the table, or registered by a crate
//! such as this test crate's `testcrate:lifo` below, is covered here
//! without being named. (The family tests, `aqm_*_conservation`, add each
//! discipline's dropping paths with chosen parameters.)
//!
//! After every step:
//!   arrivals = enqueued + drops_on_arrival,
//!   enqueued + backlog_start = dequeued + drops_in_queue + backlog,
//!   drops = drops_on_arrival + drops_in_queue,
//! the lengths in packets and bytes are those of the packets still held, a
//! departing or dropped packet is one that was held (or the one arriving),
//! and none leaves twice.

use ccsim_core::cc::{CcInit, CongestionControl};
use ccsim_core::compat::Profile;
use ccsim_core::packet::{Ecn, FlowId, Packet, PacketArena, PacketRef};
use ccsim_core::params::{ParamError, Params};
use ccsim_core::plugin::{self, Provider};
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::{self, QueueArgs, DISCIPLINES};
use ccsim_core::queue::{DropReason, Queue, QueueCtx, QueueDisc, Verdict};
use ccsim_core::rng::stream;
use ccsim_core::time::SimTime;
use proptest::prelude::*;

const RATE: u64 = 10_000_000;

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, flow: u32, ect: bool },
    Depart,
    Advance(u64),
    Timer,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (40u32..1500, 0u32..6, any::<bool>()).prop_map(|(size, flow, ect)| Op::Arrive { size, flow, ect }),
        3 => Just(Op::Depart),
        2 => (0u64..5_000_000).prop_map(Op::Advance),
        1 => Just(Op::Timer),
    ]
}

fn args(params: &Params, limit: u64, compat: Profile) -> QueueArgs<'_> {
    QueueArgs {
        limit: Limit {
            packets: Some(limit),
            bytes: None,
        },
        params,
        link_rate_bps: RATE,
        compat,
    }
}

/// Take `p` out of the held packets; false if it was not held.
fn remove(held: &mut Vec<(PacketRef, u32)>, p: PacketRef) -> bool {
    match held.iter().position(|&(r, _)| r == p) {
        Some(i) => {
            held.remove(i);
            true
        }
        None => false,
    }
}

fn check(kind: &str, q: &Queue, held: &[(PacketRef, u32)]) -> Result<(), TestCaseError> {
    let s = &q.window_stats();
    prop_assert_eq!(s.arrivals, s.enqueued + s.drops_on_arrival, "{}", kind);
    prop_assert_eq!(
        s.enqueued + s.backlog_start,
        s.dequeued + s.drops_in_queue + q.len_pkts() as u64,
        "{}",
        kind
    );
    prop_assert_eq!(s.drops, s.drops_on_arrival + s.drops_in_queue, "{}", kind);
    prop_assert_eq!(q.len_pkts(), held.len(), "{}", kind);
    prop_assert_eq!(
        q.len_bytes(),
        held.iter().map(|&(_, b)| b as u64).sum::<u64>(),
        "{}",
        kind
    );
    Ok(())
}

/// The discipline with its defaults, through the wrapper's general path: a
/// discipline that offers the kernel a fast path (DropTail) is asked not to,
/// since this test drives `Queue::enqueue` as the kernel does without it.
fn build(kind: &str, limit: u64, compat: Profile) -> Result<Box<dyn ccsim_core::queue::QueueDisc>, TestCaseError> {
    let mut slow = Params::new();
    slow.insert("fast_path".into(), false.into());
    registry::build(kind, &args(&slow, limit, compat))
        .or_else(|_| registry::build(kind, &args(&Params::new(), limit, compat)))
        .map_err(|e| TestCaseError::fail(format!("{kind}: {e:?}")))
}

/// A discipline this test crate adds: last in, first out, tail drop at the
/// limit (`leaky`: the same, losing every fifth packet it sends without a
/// word, which the conservation checks must catch). Its provider declares
/// only `lifo`, which the registry then lists (`registry::every_kind`).
struct Stack {
    limit: Limit,
    held: Vec<(PacketRef, u32)>,
    bytes: u64,
    leaky: bool,
    sent: u64,
}

impl QueueDisc for Stack {
    fn kind(&self) -> &'static str {
        "testcrate:lifo"
    }
    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.limit.fits(self.held.len(), self.bytes, size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.held.push((pkt, size));
        self.bytes += size as u64;
        Verdict::Enqueued
    }
    fn dequeue(&mut self, _ctx: &mut QueueCtx) -> Option<PacketRef> {
        let (p, size) = self.held.pop()?;
        self.bytes -= size as u64;
        self.sent += 1;
        if self.leaky && self.sent % 5 == 0 {
            // `p` is lost: neither sent nor reported dropped.
            let (next, size) = self.held.pop()?;
            self.bytes -= size as u64;
            return Some(next);
        }
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.held.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

struct TestCrate;

impl Provider for TestCrate {
    fn queue(&self, _kind: &str, name: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
        if !args.params.keys().all(|k| k == "fast_path") {
            return Err(ParamError::at("kind", "no parameters"));
        }
        Ok(Box::new(Stack {
            limit: args.limit,
            held: Vec::new(),
            bytes: 0,
            leaky: name == "leaky",
            sent: 0,
        }))
    }
    fn controller(
        &self,
        cc: &str,
        _name: &str,
        _params: &Params,
        _init: &CcInit,
    ) -> Result<Box<dyn CongestionControl>, ParamError> {
        Err(ParamError::at("cc", format!("{cc}: no controllers here")))
    }
    fn queue_names(&self) -> &[&'static str] {
        &["lifo"]
    }
}

static TEST_CRATE: TestCrate = TestCrate;

/// This crate's disciplines, registered (each test calls it first: the
/// tests of a file share the process, in any order).
fn every_kind() -> Vec<String> {
    plugin::register("testcrate", &TEST_CRATE);
    registry::every_kind()
}

/// What a discipline did, in order: verdicts, departures and drops (packet
/// handles), for the determinism check.
type Trace = Vec<(u8, u32)>;

fn run(kind: &str, ops: &[Op], limit: u64, compat: Profile) -> Result<Trace, TestCaseError> {
    let disc = build(kind, limit, compat)?;
    let mut q = Queue::new(disc, stream(5, kind));
    let mut arena = PacketArena::new();
    let mut dropped: Vec<(PacketRef, DropReason)> = Vec::new();
    let mut held: Vec<(PacketRef, u32)> = Vec::new();
    let mut now = SimTime::ZERO;
    let mut timer = q.initial_timer();
    let mut trace: Trace = Vec::new();
    for op in ops {
        match *op {
            Op::Arrive { size, flow, ect } => {
                let p = arena.alloc(Packet {
                    size,
                    flow: FlowId(flow),
                    class: (flow % 2) as u8,
                    ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
                    ..Packet::default()
                });
                let accepted = q.enqueue(p, now, &mut arena, RATE, &mut dropped);
                trace.push((u8::from(accepted), p.0));
                trace.extend(dropped.iter().map(|(d, r)| (2 + *r as u8, d.0)));
                if accepted {
                    held.push((p, size));
                }
                for (d, _) in dropped.drain(..) {
                    // A refused arrival is dropped; an accepted one can be
                    // pushed out at once (FQ-CoDel drops from its fattest
                    // flow after enqueueing, which may be the arrival's).
                    if d != p || accepted {
                        prop_assert!(remove(&mut held, d), "{}: dropped a packet it did not hold", kind);
                    }
                    arena.free(d);
                }
            }
            Op::Depart => {
                let out = q.dequeue(now, &mut arena, RATE, &mut dropped);
                trace.extend(dropped.iter().map(|(d, r)| (2 + *r as u8, d.0)));
                trace.push((100, out.map_or(u32::MAX, |p| p.0)));
                for (d, _) in dropped.drain(..) {
                    prop_assert!(remove(&mut held, d), "{}: dropped a packet it did not hold", kind);
                    arena.free(d);
                }
                if let Some(p) = out {
                    prop_assert!(remove(&mut held, p), "{}: sent a packet it did not hold", kind);
                    arena.free(p);
                }
            }
            Op::Advance(ns) => now += SimTime(ns),
            Op::Timer => {
                if let Some((at, k)) = timer {
                    now = now.max(at);
                    let next = q.on_timer(k, now, &mut arena, RATE, &mut dropped);
                    trace.extend(dropped.iter().map(|(d, r)| (2 + *r as u8, d.0)));
                    for (d, _) in dropped.drain(..) {
                        prop_assert!(
                            remove(&mut held, d),
                            "{}: a timer dropped a packet it did not hold",
                            kind
                        );
                        arena.free(d);
                    }
                    timer = next.map(|d| (now + d, k));
                }
            }
        }
        check(kind, &q, &held)?;
    }
    Ok(trace)
}

#[test]
fn every_discipline_builds_with_its_defaults() {
    let params = Params::new();
    for d in DISCIPLINES {
        for compat in [Profile::Ccsim, Profile::Ns2, Profile::Ns3] {
            assert!((d.build)(&args(&params, 20, compat)).is_ok(), "{} ({compat:?})", d.name);
        }
    }
    assert_eq!(registry::kinds().len(), DISCIPLINES.len());
}

/// A discipline of another crate, once its provider is registered, is in
/// the list the property tests walk, and builds by its name; the checks
/// they run catch a discipline that loses packets.
#[test]
fn a_discipline_registered_by_a_test_crate_is_walked_by_the_property_tests() {
    let kinds = every_kind();
    assert_eq!(kinds.len(), DISCIPLINES.len() + 1);
    assert_eq!(kinds.last().map(String::as_str), Some("testcrate:lifo"));
    let ops: Vec<Op> = (0..40)
        .flat_map(|i| {
            [
                Op::Arrive {
                    size: 100 + i,
                    flow: i % 3,
                    ect: false,
                },
                Op::Arrive {
                    size: 200,
                    flow: 1,
                    ect: false,
                },
                Op::Depart,
            ]
        })
        .collect();
    let trace = run("testcrate:lifo", &ops, 10, Profile::Ccsim).expect("conserves packets");
    assert_eq!(run("testcrate:lifo", &ops, 10, Profile::Ccsim).expect("runs"), trace);
    let leaky = run("testcrate:leaky", &ops, 10, Profile::Ccsim);
    assert!(
        leaky.as_ref().is_err_and(|e| e.to_string().contains("testcrate:leaky")),
        "{leaky:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn every_discipline_conserves_packets(ops in prop::collection::vec(op(), 1..300), limit in 2u64..30) {
        for kind in every_kind() {
            for compat in [Profile::Ccsim, Profile::Ns2] {
                run(&kind, &ops, limit, compat)?;
            }
        }
    }

    /// The same operations, limit and seed give the same verdicts,
    /// departures and drops (the discipline's randomness comes from its
    /// stream only, and nothing depends on addresses or iteration order of
    /// hashed state).
    #[test]
    fn every_discipline_is_deterministic(ops in prop::collection::vec(op(), 1..200), limit in 2u64..30) {
        for kind in every_kind() {
            let first = run(&kind, &ops, limit, Profile::Ccsim)?;
            prop_assert_eq!(run(&kind, &ops, limit, Profile::Ccsim)?, first, "{}", kind);
        }
    }
}
