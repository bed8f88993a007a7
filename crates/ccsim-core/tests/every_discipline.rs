//! Every queue discipline of the registry's table, with its default
//! parameters, conserves packets through the counting `Queue` wrapper under
//! random arrivals, departures, time steps and timers. The list comes from
//! `registry::DISCIPLINES`, so a discipline added to the table is covered
//! here without touching this file. (The family tests, `aqm_*_conservation`,
//! add each discipline's dropping paths with chosen parameters.)
//!
//! After every step:
//!   arrivals = enqueued + drops_on_arrival,
//!   enqueued + backlog_start = dequeued + drops_in_queue + backlog,
//!   drops = drops_on_arrival + drops_in_queue,
//! the lengths in packets and bytes are those of the packets still held, a
//! departing or dropped packet is one that was held (or the one arriving),
//! and none leaves twice.

use ccsim_core::compat::Profile;
use ccsim_core::packet::{Ecn, FlowId, Packet, PacketArena, PacketRef};
use ccsim_core::params::Params;
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::{self, QueueArgs, DISCIPLINES};
use ccsim_core::queue::{DropReason, Queue};
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

fn run(kind: &str, ops: &[Op], limit: u64, compat: Profile) -> Result<(), TestCaseError> {
    let disc = build(kind, limit, compat)?;
    let mut q = Queue::new(disc, stream(5, kind));
    let mut arena = PacketArena::new();
    let mut dropped: Vec<(PacketRef, DropReason)> = Vec::new();
    let mut held: Vec<(PacketRef, u32)> = Vec::new();
    let mut now = SimTime::ZERO;
    let mut timer = q.initial_timer();
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
    Ok(())
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn every_discipline_conserves_packets(ops in prop::collection::vec(op(), 1..300), limit in 2u64..30) {
        for d in DISCIPLINES {
            for compat in [Profile::Ccsim, Profile::Ns2] {
                run(d.name, &ops, limit, compat)?;
            }
        }
    }
}
