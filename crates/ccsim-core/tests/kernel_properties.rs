//! Property test: random small topologies and loads never panic or error,
//! and every packet is accounted for.

use ccsim_core::{run_toml, GuardOverrides};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Topo {
    nodes: usize,
    /// (a, b, rate_kbps, delay_us, limit, kind)
    links: Vec<(usize, usize, u32, u32, u32, bool)>,
    /// (src, dst, app, rate_kbps, size)
    flows: Vec<(usize, usize, u8, u32, u32)>,
    warmup_ms: u32,
    seed: u64,
}

fn topo() -> impl Strategy<Value = Topo> {
    (2usize..6).prop_flat_map(|n| {
        let tree = proptest::collection::vec(
            (0usize..1000, 100u32..100_000, 0u32..50_000, 1u32..50, any::<bool>()),
            n - 1,
        );
        let extra = proptest::collection::vec(
            (0..n, 0..n, 100u32..100_000, 0u32..50_000, 1u32..50, any::<bool>()),
            0..3,
        );
        let flows = proptest::collection::vec((0..n, 0..n, 0u8..3, 10u32..20_000, 40u32..1500), 1..5);
        (Just(n), tree, extra, flows, 0u32..1000, 0u64..(i64::MAX as u64)).prop_map(
            |(n, tree, extra, flows, warmup_ms, seed)| {
                let mut links = Vec::new();
                // A random spanning tree: node i+1 attaches to a random earlier node.
                for (i, (p, r, d, l, k)) in tree.into_iter().enumerate() {
                    links.push((p % (i + 1), i + 1, r, d, l, k));
                }
                for (a, b, r, d, l, k) in extra {
                    if a != b {
                        links.push((a, b, r, d, l, k));
                    }
                }
                let flows = flows.into_iter().filter(|(s, d, ..)| s != d).collect();
                Topo {
                    nodes: n,
                    links,
                    flows,
                    warmup_ms,
                    seed,
                }
            },
        )
    })
}

fn scenario(t: &Topo) -> String {
    let mut s = format!(
        "name = \"prop\"\nduration = \"2s\"\nwarmup = \"{}ms\"\nseed = {}\n",
        t.warmup_ms, t.seed
    );
    for i in 0..t.nodes {
        s += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for &(a, b, r, d, l, front) in &t.links {
        let kind = if front { "dropfront" } else { "droptail" };
        s += &format!(
            "[[links]]\na = \"n{a}\"\nb = \"n{b}\"\nrate = \"{r}kbps\"\ndelay = \"{d}us\"\nqueue = {{ kind = \"{kind}\", limit = {l} }}\n"
        );
    }
    for &(src, dst, app, r, size) in &t.flows {
        let app = ["cbr", "poisson", "onoff"][app as usize];
        s += &format!(
            "[[flows]]\nsrc = \"n{src}\"\ndst = \"n{dst}\"\ntransport = \"udp\"\napp = \"{app}\"\nrate = \"{r}kbps\"\npacket_size = {size}\n"
        );
    }
    s + "[output]\nsample_interval = \"50ms\"\n"
}

/// The same scenario with every DropTail queue forced onto the general path.
fn slow_path(text: &str) -> String {
    text.replace(
        "kind = \"droptail\", limit",
        "kind = \"droptail\", fast_path = false, limit",
    )
}

fn without_perf(mut r: ccsim_core::RunResult) -> String {
    r.perf = ccsim_core::results::PerfResult {
        events: 0,
        wall_s: 0.0,
        events_per_s: 0.0,
        packets_forwarded: 0,
    };
    serde_json::to_string(&r).expect("serializable")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn random_topologies_conserve_packets(t in topo()) {
        prop_assume!(!t.flows.is_empty());
        let text = scenario(&t);
        let out = run_toml(&text, "prop.toml", GuardOverrides::default()).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        for q in &out.result.queues {
            prop_assert_eq!(q.arrivals, q.enqueued + q.drops_on_arrival);
            prop_assert_eq!(q.enqueued + q.backlog_start_pkts, q.dequeued + q.drops_in_queue + q.backlog_end_pkts);
        }
        for f in &out.result.flows {
            prop_assert_eq!(f.sent_packets + f.in_flight_start, f.received_packets + f.lost_packets + f.in_flight_end);
        }
        let drops: u64 = out.result.queues.iter().map(|q| q.drops).sum();
        let lost: u64 = out.result.flows.iter().map(|f| f.lost_packets).sum();
        prop_assert_eq!(drops, lost);
        for l in &out.result.links {
            prop_assert!(l.utilization <= 1.0 + 1e-9);
        }
        // Time series are columns of equal length.
        for s in &out.timeseries.series {
            prop_assert_eq!(s.values.len(), out.timeseries.time_s.len());
        }
        // The FIFO fast path changes the number of events, nothing else: the
        // event order (departures, then arrivals by packet uid, then timers)
        // does not depend on when an event was scheduled, so even events due
        // at the same nanosecond (CBR sources on zero-delay links make many)
        // are taken in the same order on both paths.
        let slow = run_toml(&slow_path(&text), "prop.toml", GuardOverrides::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(without_perf(out.result.clone()), without_perf(slow.result.clone()));
        // Compared bit for bit: an interval without packets has a NaN delay
        // (NaN != NaN), and identical bytes are the claim anyway.
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        for (a, b) in out.timeseries.series.iter().zip(&slow.timeseries.series) {
            prop_assert_eq!(bits(&a.values), bits(&b.values));
        }
    }
}
