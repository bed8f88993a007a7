//! Conservation of packets through every RED-family and price/rate-based
//! discipline, driven through the `Queue` wrapper with random sequences of
//! arrivals, departures, time steps, timer firings and reverse-direction ACKs:
//! after every operation `arrivals = enqueued + drops_on_arrival` and
//! `enqueued + backlog_start = dequeued + drops_in_queue + backlog`, the byte
//! count equals the sum of the queued packets' sizes, and packets leave in
//! FIFO order (all of these disciplines are single FIFOs).

use ccsim_core::packet::{Ecn, Packet, PacketArena, PacketKind, PacketRef};
use ccsim_core::params::Params;
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::{self, QueueArgs};
use ccsim_core::queue::{DropReason, Queue, QueueStats};
use ccsim_core::rng::stream;
use ccsim_core::rng::uniform01;
use ccsim_core::time::SimTime;
use proptest::prelude::*;
use std::collections::VecDeque;

const RATE: u64 = 10_000_000;

/// Every kind, with its defaults and with a configuration small enough that
/// the random sequences reach every region (early, forced, overflow, marks).
fn configs() -> Vec<(&'static str, &'static str)> {
    vec![
        ("red", "{}"),
        (
            "red",
            r#"{"min_th": 2, "max_th": 6, "weight": 0.2, "ecn": true, "wait": false}"#,
        ),
        (
            "red",
            r#"{"min_th": 2, "max_th": 6, "weight": 0.2, "bytes": true, "mean_pkt_size": 700}"#,
        ),
        ("gred", r#"{"min_th": 2, "max_th": 5, "weight": 0.3}"#),
        ("nlred", r#"{"min_th": 1, "max_th": 8, "weight": 0.1, "max_p": 0.5}"#),
        ("ared", "{}"),
        (
            "ared",
            r#"{"min_th": 2, "max_th": 8, "weight": 0.2, "interval": "3ms"}"#,
        ),
        ("wred", "{}"),
        (
            "wred",
            r#"{"min_th": [1, 3, 5], "max_th": [4, 8, 12], "weight": 0.2, "ecn": true}"#,
        ),
        ("rio", "{}"),
        (
            "rio",
            r#"{"in_min_th": 4, "in_max_th": 10, "out_min_th": 1, "out_max_th": 5, "weight": 0.25}"#,
        ),
        ("modred", "{}"),
        (
            "modred",
            r#"{"in_min_th": 4, "in_max_th": 10, "out_min_th": 1, "out_max_th": 5, "weight": 0.25}"#,
        ),
        (
            "modred",
            r#"{"in_min_th": 4, "in_max_th": 10, "out_min_th": 1, "out_max_th": 5, "weight": 0.25, "early_drops": true}"#,
        ),
        ("rem", "{}"),
        (
            "rem",
            r#"{"gamma": 0.05, "b_ref": 3, "update_interval": "1ms", "ecn": true}"#,
        ),
        ("avq", "{}"),
        ("avq", r#"{"bytes": false, "initial_ratio": 0.1, "alpha": 0.5}"#),
        ("pi", "{}"),
        ("pi", r#"{"a": 0.01, "b": 0.009, "q_ref": 3, "w": 1000, "bytes": true}"#),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Arrive { size: u32, class: u8, ect: bool },
    Depart,
    Advance(u64),
    Timer,
    ReverseAck(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (40u32..1500, 0u8..4, any::<bool>()).prop_map(|(size, class, ect)| Op::Arrive { size, class, ect }),
        3 => Just(Op::Depart),
        2 => (0u64..3_000_000).prop_map(Op::Advance),
        1 => Just(Op::Timer),
        1 => (0u32..40).prop_map(Op::ReverseAck),
    ]
}

fn check(q: &Queue, model: &VecDeque<(PacketRef, u32)>) -> Result<(), TestCaseError> {
    let s = &q.window_stats();
    prop_assert_eq!(s.arrivals, s.enqueued + s.drops_on_arrival);
    prop_assert_eq!(
        s.enqueued + s.backlog_start,
        s.dequeued + s.drops_in_queue + q.len_pkts() as u64
    );
    prop_assert_eq!(s.drops, s.drops_on_arrival + s.drops_in_queue);
    prop_assert_eq!(s.drops, s.early_drops + s.forced_drops);
    prop_assert_eq!(q.len_pkts(), model.len());
    prop_assert_eq!(q.len_bytes(), model.iter().map(|&(_, s)| s as u64).sum::<u64>());
    Ok(())
}

fn run(kind: &str, json: &str, ops: &[Op], limit: u64) -> Result<QueueStats, TestCaseError> {
    let params: Params = serde_json::from_str(json).unwrap();
    let args = QueueArgs {
        limit: Limit {
            packets: Some(limit),
            bytes: None,
        },
        params: &params,
        link_rate_bps: RATE,
        compat: ccsim_core::compat::Profile::Ccsim,
    };
    let disc = registry::build(kind, &args).map_err(|e| TestCaseError::fail(format!("{kind}: {e:?}")))?;
    let mut q = Queue::new(disc, stream(9, kind));
    let mut arena = PacketArena::new();
    let mut dropped: Vec<(PacketRef, DropReason)> = Vec::new();
    let mut model: VecDeque<(PacketRef, u32)> = VecDeque::new();
    let mut now = SimTime::ZERO;
    let mut next_timer = q.initial_timer();
    for op in ops {
        match *op {
            Op::Arrive { size, class, ect } => {
                let p = arena.alloc(Packet {
                    size,
                    class,
                    ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
                    ..Packet::default()
                });
                let accepted = q.enqueue(p, now, &mut arena, RATE, &mut dropped);
                if accepted {
                    model.push_back((p, size));
                }
                for (d, _) in dropped.drain(..) {
                    if d != p {
                        // a queued packet pushed out
                        let i = model.iter().position(|&(r, _)| r == d);
                        prop_assert!(i.is_some(), "{kind}: dropped a packet that was not queued");
                        model.remove(i.unwrap());
                    } else {
                        prop_assert!(!accepted);
                    }
                    arena.free(d);
                }
            }
            Op::Depart => {
                if q.len_pkts() > 0 {
                    let out = q.dequeue(now, &mut arena, RATE, &mut dropped);
                    for (d, _) in dropped.drain(..) {
                        let i = model.iter().position(|&(r, _)| r == d);
                        prop_assert!(i.is_some());
                        model.remove(i.unwrap());
                        arena.free(d);
                    }
                    if let Some(p) = out {
                        let (head, _) = model.pop_front().unwrap();
                        prop_assert_eq!(head, p, "{}: not FIFO", kind);
                        arena.free(p);
                    }
                }
            }
            Op::Advance(ns) => now += SimTime(ns),
            Op::Timer => {
                if let Some((at, k)) = next_timer {
                    now = now.max(at);
                    let next = q.on_timer(k, now, &mut arena, RATE, &mut dropped);
                    prop_assert!(dropped.is_empty());
                    next_timer = next.map(|d| (now + d, k));
                }
            }
            Op::ReverseAck(wnd) => {
                let a = arena.alloc(Packet {
                    kind: PacketKind::Ack,
                    size: 40,
                    wnd,
                    ..Packet::default()
                });
                q.on_reverse_arrival(a, now, &mut arena, RATE);
                let w = arena.get(a).wnd;
                prop_assert!(w == wnd || (w == 1 && wnd > 1), "{}: window {} -> {}", kind, wnd, w);
                arena.free(a);
            }
        }
        check(&q, &model)?;
    }
    Ok(q.window_stats())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn every_red_family_kind_conserves_packets(ops in prop::collection::vec(op(), 1..400), limit in 3u64..40) {
        for (kind, json) in configs() {
            run(kind, json, &ops, limit)?;
        }
    }
}

#[test]
fn every_registered_kind_of_the_family_is_covered() {
    let mut covered: Vec<&str> = configs().iter().map(|c| c.0).collect();
    covered.dedup();
    for k in [
        "red", "gred", "nlred", "ared", "wred", "rio", "modred", "rem", "avq", "pi",
    ] {
        assert!(registry::kinds().contains(&k), "{k} not registered");
        assert!(covered.contains(&k), "{k} not in the property test");
    }
}

#[test]
fn the_sequences_reach_the_drop_regions() {
    // The property above is only as strong as the states it visits: a long
    // arrival-heavy sequence must make every configuration drop.
    let mut r = stream(5, "ops");
    let ops: Vec<Op> = (0..3000)
        .map(|_| {
            let u = uniform01(&mut r);
            if u < 0.6 {
                Op::Arrive {
                    size: 40 + (uniform01(&mut r) * 1460.0) as u32,
                    class: (uniform01(&mut r) * 3.0) as u8,
                    ect: uniform01(&mut r) < 0.5,
                }
            } else if u < 0.85 {
                Op::Depart
            } else if u < 0.95 {
                Op::Advance((uniform01(&mut r) * 1e6) as u64)
            } else {
                Op::Timer
            }
        })
        .collect();
    for (kind, json) in configs() {
        let s = run(kind, json, &ops, 30).unwrap();
        assert!(s.drops > 0, "{kind} {json}: {s:?}");
    }
}
