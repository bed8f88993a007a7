//! Conservation of packets through every fair-queueing, scheduling and
//! delay-based discipline (and the schedulers with a nested AQM per class),
//! driven through the counting `Queue` wrapper with random packet sequences:
//! after every step
//!   arrivals = enqueued + drops_on_arrival,
//!   enqueued + backlog_start = dequeued + drops_in_queue + backlog,
//! the reported length in bytes equals the bytes of the packets still held,
//! and no packet is both sent and dropped, or dropped twice.

use ccsim_core::packet::{Ecn, FlowId, Packet, PacketArena, PacketRef};
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::{self, QueueArgs};
use ccsim_core::queue::{DropReason, Queue};
use ccsim_core::rng::stream;
use ccsim_core::time::SimTime;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The disciplines under test, each with parameters that make its dropping
/// paths reachable within a few hundred packets.
fn configs() -> Vec<(&'static str, Value)> {
    let mut v = vec![
        ("blue", json!({})),
        ("blue", json!({"d1": 0.2, "freeze_time": "0s", "ecn": true})),
        ("sfb", json!({})),
        (
            "sfb",
            json!({"levels": 2, "bins": 3, "max": 4, "bin_size": 2, "increment": 0.05, "rehash": "20ms", "warmup": "5ms", "ecn": true}),
        ),
        ("sred", json!({"zombies": 8})),
        ("fred", json!({})),
        ("fred", json!({"weight": 0.5, "min_th": 2, "max_th": 6})),
        (
            "choke",
            json!({"weight": 0.5, "min_th": 1, "max_th": 8, "candidates": 2}),
        ),
        ("sfq", json!({"buckets": 3, "perturb": "7ms"})),
        ("drr", json!({})),
        ("drr", json!({"quantum": 1500, "classify": "class"})),
        ("rr", json!({})),
        ("rr", json!({"classify": "class"})),
        ("codel", json!({"target": "1ms", "interval": "4ms", "ecn": true})),
        (
            "fq_codel",
            json!({"flows": 3, "target": "1ms", "interval": "4ms", "quantum": 300, "drop_batch": 3}),
        ),
        // CAKE shaped (so that dequeues also find the shaper holding
        // packets back) and unshaped.
        (
            "cake",
            json!({"bandwidth": "5Mbps", "flow_mode": "flows", "target": "1ms", "interval": "4ms", "ecn": true}),
        ),
        ("cake", json!({"flow_mode": "dual-srchost", "ecn": false})),
        (
            "pie",
            json!({"target": "1ms", "tupdate": "2ms", "max_burst": "0s", "dq_threshold": 3000}),
        ),
        (
            "pie",
            json!({"target": "1ms", "tupdate": "2ms", "derandomize": true, "estimator": "timestamp"}),
        ),
        // Schedulers with an AQM inside each class.
        (
            "drr",
            json!({"classify": "class", "class_queue": {"kind": "codel", "target": "1ms", "interval": "4ms", "limit": 6}}),
        ),
        (
            "drr",
            json!({"class_queue": {"kind": "pie", "target": "1ms", "tupdate": "3ms", "max_burst": "0s"}}),
        ),
        (
            "rr",
            json!({"classify": "class", "class_queue": {"kind": "fred", "limit": 5, "min_th": 1, "max_th": 3}}),
        ),
        (
            "rr",
            json!({"class_queue": {"kind": "blue", "d1": 0.3, "freeze_time": "0s", "limit_bytes": 4000}}),
        ),
        (
            "rr",
            json!({"classify": "class", "class_queue": {"kind": "drr", "quantum": 500, "class_queue": {"kind": "sfq", "buckets": 2}}}),
        ),
    ];
    // The RED family lives on another branch; exercise it nested when present.
    if registry::kinds().contains(&"red") {
        v.push((
            "rr",
            json!({"classify": "class", "class_queue": {"kind": "red", "limit": 8}}),
        ));
        v.push(("drr", json!({"class_queue": {"kind": "red"}})));
    }
    v
}

#[derive(Clone, Debug)]
enum Op {
    /// Advance time by this many microseconds, then offer a packet.
    Arrive {
        dt_us: u32,
        flow: u32,
        class: u8,
        size: u32,
        ect: bool,
    },
    /// Advance time, then take one packet for the link (if any waits).
    Depart { dt_us: u32 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..1500, 0u32..6, 0u8..3, 40u32..1500, any::<bool>())
            .prop_map(|(dt_us, flow, class, size, ect)| Op::Arrive { dt_us, flow, class, size, ect }),
        2 => (0u32..2500).prop_map(|dt_us| Op::Depart { dt_us }),
    ]
}

fn check(kind: &str, params: &Value, limit: Limit, ops: &[Op]) -> Result<(), TestCaseError> {
    let Value::Object(p) = params else { unreachable!() };
    let disc = registry::build(
        kind,
        &QueueArgs {
            limit,
            params: p,
            link_rate_bps: 10_000_000,
            compat: ccsim_core::compat::Profile::Ccsim,
        },
    )
    .map_err(|e| TestCaseError::fail(format!("{kind} {params}: {e:?}")))?;
    let mut q = Queue::new(disc, stream(9, "prop"));
    let mut arena = PacketArena::new();
    let mut now = SimTime::ZERO;
    let mut timer = q.initial_timer();
    let mut held: HashMap<u32, u32> = HashMap::new(); // packet slot -> size, packets inside
    let mut gone: HashMap<u64, &'static str> = HashMap::new(); // uid -> fate
    let mut dropped: Vec<(PacketRef, DropReason)> = Vec::new();
    let settle = |dropped: &mut Vec<(PacketRef, DropReason)>,
                  arena: &mut PacketArena,
                  held: &mut HashMap<u32, u32>,
                  gone: &mut HashMap<u64, &'static str>|
     -> Result<(), TestCaseError> {
        for (r, _) in dropped.drain(..) {
            let uid = arena.get(r).uid;
            prop_assert!(
                gone.insert(uid, "dropped").is_none(),
                "packet {uid} dropped twice or sent and dropped"
            );
            held.remove(&r.0);
            arena.free(r);
        }
        Ok(())
    };
    for o in ops {
        let dt = match o {
            Op::Arrive { dt_us, .. } | Op::Depart { dt_us } => SimTime::from_micros(*dt_us as u64),
        };
        let target = now + dt;
        // Fire the discipline's timers that fall due on the way.
        while let Some((at, kind_t)) = timer {
            if at > target {
                break;
            }
            now = at;
            let next = q.on_timer(kind_t, now, &mut arena, 10_000_000, &mut dropped);
            settle(&mut dropped, &mut arena, &mut held, &mut gone)?;
            timer = next.map(|d| (now + d.max(SimTime(1)), kind_t));
        }
        now = target;
        match *o {
            Op::Arrive {
                flow, class, size, ect, ..
            } => {
                let r = arena.alloc(Packet {
                    flow: FlowId(flow),
                    class,
                    size,
                    ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
                    ..Packet::default()
                });
                held.insert(r.0, size);
                q.enqueue(r, now, &mut arena, 10_000_000, &mut dropped);
                settle(&mut dropped, &mut arena, &mut held, &mut gone)?;
            }
            Op::Depart { .. } => {
                if q.len_pkts() > 0 {
                    let out = q.dequeue(now, &mut arena, 10_000_000, &mut dropped);
                    settle(&mut dropped, &mut arena, &mut held, &mut gone)?;
                    if let Some(r) = out {
                        let uid = arena.get(r).uid;
                        prop_assert!(held.remove(&r.0).is_some(), "sent a packet it did not hold");
                        prop_assert!(gone.insert(uid, "sent").is_none());
                        arena.free(r);
                    }
                }
            }
        }
        let s = &q.window_stats();
        prop_assert_eq!(s.arrivals, s.enqueued + s.drops_on_arrival, "{} {}", kind, params);
        prop_assert_eq!(
            s.enqueued + s.backlog_start,
            s.dequeued + s.drops_in_queue + q.len_pkts() as u64,
            "{} {}",
            kind,
            params
        );
        prop_assert_eq!(s.drops, s.drops_on_arrival + s.drops_in_queue);
        prop_assert_eq!(q.len_pkts(), held.len(), "{} {}: length vs packets held", kind, params);
        let bytes: u64 = held.values().map(|&b| b as u64).sum();
        prop_assert_eq!(q.len_bytes(), bytes, "{} {}: bytes", kind, params);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn every_fair_and_delay_discipline_conserves_packets(
        ops in prop::collection::vec(op(), 1..400),
        limit_pkts in 1u64..25,
        by_bytes in any::<bool>(),
    ) {
        let limit = if by_bytes {
            Limit { packets: None, bytes: Some(limit_pkts * 700) }
        } else {
            Limit { packets: Some(limit_pkts), bytes: None }
        };
        for (kind, params) in configs() {
            check(kind, &params, limit, &ops)?;
        }
    }
}

/// The property above is only as strong as the paths it reaches: check, on
/// one long deterministic sequence, that every configuration drops packets,
/// and that the disciplines that drop queued packets (push-out, CoDel's
/// dequeue drops, CHOKe's victims) do so.
#[test]
fn drop_paths_are_reached() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    let ops = prop::collection::vec(op(), 3000..3001)
        .new_tree(&mut runner)
        .unwrap()
        .current();
    let limit = Limit {
        packets: Some(12),
        bytes: None,
    };
    for (kind, params) in configs() {
        let Value::Object(p) = &params else { unreachable!() };
        let disc = registry::build(
            kind,
            &QueueArgs {
                limit,
                params: p,
                link_rate_bps: 10_000_000,
                compat: ccsim_core::compat::Profile::Ccsim,
            },
        )
        .unwrap();
        let mut q = Queue::new(disc, stream(9, "prop"));
        let mut arena = PacketArena::new();
        let mut now = SimTime::ZERO;
        let mut timer = q.initial_timer();
        let mut dropped = Vec::new();
        for o in &ops {
            let dt = match o {
                Op::Arrive { dt_us, .. } | Op::Depart { dt_us } => SimTime::from_micros(*dt_us as u64),
            };
            let target = now + dt;
            while let Some((at, k)) = timer {
                if at > target {
                    break;
                }
                now = at;
                timer = q
                    .on_timer(k, now, &mut arena, 10_000_000, &mut dropped)
                    .map(|d| (now + d, k));
            }
            now = target;
            match *o {
                Op::Arrive {
                    flow, class, size, ect, ..
                } => {
                    let r = arena.alloc(Packet {
                        flow: FlowId(flow),
                        class,
                        size,
                        ecn: if ect { Ecn::Ect } else { Ecn::NotEct },
                        ..Packet::default()
                    });
                    q.enqueue(r, now, &mut arena, 10_000_000, &mut dropped);
                }
                Op::Depart { .. } => {
                    if q.len_pkts() > 0 {
                        q.dequeue(now, &mut arena, 10_000_000, &mut dropped);
                    }
                }
            }
        }
        let s = &q.window_stats();
        eprintln!(
            "{kind:9} {params}: arrivals {} early {} forced {} in_queue {} marks {}",
            s.arrivals, s.early_drops, s.forced_drops, s.drops_in_queue, s.marks
        );
        assert!(s.drops > 0, "{kind} {params} never dropped");
        let pushes_out = ["sfq", "drr", "rr", "codel", "fq_codel", "cake", "choke"].contains(&kind);
        if pushes_out && params.get("class_queue").is_none() {
            assert!(s.drops_in_queue > 0, "{kind} {params} never dropped a queued packet");
        }
        if params.get("ecn") == Some(&json!(true)) {
            assert!(s.marks > 0, "{kind} {params} never marked");
        }
    }
}
