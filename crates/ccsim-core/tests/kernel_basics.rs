//! Kernel behaviour that has an exact answer: CBR delay, determinism,
//! conservation, routing, and error messages.

use ccsim_core::{run_toml, Error, GuardOverrides, RunOutput};

fn run(text: &str) -> RunOutput {
    run_toml(text, "t.toml", GuardOverrides::default()).expect("scenario runs")
}

fn run_err(text: &str) -> String {
    match run_toml(text, "t.toml", GuardOverrides::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

const DUMBBELL: &str = r#"
name = "cbr"
duration = "10s"
seed = 3
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
[topology.bottleneck.queue]
kind = "droptail"
limit = 20
"#;

#[test]
fn cbr_below_capacity_has_exact_delay_and_no_loss() {
    let text =
        format!("{DUMBBELL}\n[[flows]]\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\n");
    let out = run(&text);
    let f = &out.result.flows[0];
    // Three hops: 1000 B at 100 Mbps (80 us), at 10 Mbps (800 us), at 100 Mbps
    // (80 us), plus 1 + 10 + 1 ms of propagation = 12.960 ms, in integer ns.
    let expected = (80_000 + 800_000 + 80_000 + 12_000_000) as f64 * 1e-9;
    assert_eq!(f.delay_min_s, Some(expected));
    assert_eq!(f.delay_max_s, Some(expected));
    assert_eq!(f.jitter_s, Some(0.0));
    assert_eq!(f.lost_packets, 0);
    // 1 Mbps of 1000-byte packets: one every 8 ms, at 0, 8 ms, ..., 9.992 s;
    // only the last one (due at 10.00496 s) is still in flight at the end.
    assert_eq!(f.sent_packets, 1250);
    assert_eq!(f.received_packets + f.in_flight_end, 1250);
    assert_eq!(f.in_flight_end, 1);
    assert_eq!(f.src, "s0");
    assert_eq!(f.dst, "d0");
}

#[test]
fn determinism_same_seed_same_bytes_different_seed_differs() {
    let text = format!(
        "{DUMBBELL}\n[[flows]]\ncount = 3\ntransport = \"udp\"\napp = \"poisson\"\nrate = \"4Mbps\"\nstart = {{ uniform = [\"0s\", \"1s\"] }}\n"
    );
    let json = |t: &str| {
        let mut r = run(t).result;
        r.perf = ccsim_core::results::PerfResult {
            events: 0,
            wall_s: 0.0,
            events_per_s: 0.0,
            packets_forwarded: 0,
        };
        serde_json::to_string(&r).unwrap()
    };
    let a = json(&text);
    let b = json(&text);
    assert_eq!(a, b);
    let c = json(&text.replace("seed = 3", "seed = 4"));
    assert_ne!(a, c);
}

#[test]
fn conservation_with_warmup_and_overload() {
    let text = format!(
        "{DUMBBELL}\nwarmup = \"2s\"\n[[flows]]\ncount = 4\ntransport = \"udp\"\napp = \"poisson\"\nrate = \"4Mbps\"\n\
         [[flows]]\ncount = 2\nreverse = true\ntransport = \"udp\"\napp = \"onoff\"\nrate = \"8Mbps\"\n"
    )
    .replace("seed = 3\n", "seed = 3\n")
    .replacen("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"2s\"", 1)
    .replacen("\nwarmup = \"2s\"\n[[flows]]", "\n[[flows]]", 1);
    let out = run(&text);
    let mut total_drops = 0;
    for q in &out.result.queues {
        assert_eq!(q.arrivals, q.enqueued + q.drops_on_arrival, "{}", q.link);
        assert_eq!(
            q.enqueued + q.backlog_start_pkts,
            q.dequeued + q.drops_in_queue + q.backlog_end_pkts,
            "{}",
            q.link
        );
        assert_eq!(q.drops, q.early_drops + q.forced_drops, "{}", q.link);
        total_drops += q.drops;
    }
    assert!(total_drops > 0, "the scenario is meant to overload the bottleneck");
    let mut lost = 0;
    for f in &out.result.flows {
        assert_eq!(
            f.sent_packets + f.in_flight_start,
            f.received_packets + f.lost_packets + f.in_flight_end,
            "{}",
            f.name
        );
        lost += f.lost_packets;
    }
    assert_eq!(lost, total_drops);
    let r1r2 = out.result.links.iter().find(|l| l.link == "r1->r2").unwrap();
    assert!(
        r1r2.utilization > 0.95 && r1r2.utilization <= 1.0 + 1e-9,
        "{}",
        r1r2.utilization
    );
}

#[test]
fn graph_routes_by_hop_count() {
    // A square a-b-c-d-a plus a chord a-c: a to c goes direct.
    let text = r#"
name = "g"
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[nodes]]
name = "d"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "b"
b = "c"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "c"
b = "d"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "d"
b = "a"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "a"
b = "c"
rate = "1Mbps"
delay = "50ms"
[[flows]]
src = "a"
dst = "c"
app = "cbr"
rate = "100kbps"
"#;
    let out = run(text);
    let used: Vec<_> = out
        .result
        .links
        .iter()
        .filter(|l| l.tx_packets > 0)
        .map(|l| l.link.as_str())
        .collect();
    assert_eq!(used, vec!["a->c"]);
    assert!(out.result.flows[0].delay_min_s.unwrap() > 0.05);
}

#[test]
fn errors_name_file_key_and_expectation() {
    let base = DUMBBELL.to_string() + "\n[[flows]]\napp = \"cbr\"\nrate = \"1Mbps\"\n";
    let cases: Vec<(String, &str)> = vec![
        (base.replace("rate = \"10Mbps\"", "rate = \"10 furlongs\""),
         "t.toml: topology.bottleneck.rate: expected a rate like \"10Mbps\" (units bps, kbps, Mbps, Gbps), got \"10 furlongs\""),
        (base.replace("limit = 20", "limit = 0"), "t.toml: topology.bottleneck.queue.limit: a queue limit must be at least 1 packet, got 0"),
        (base.replace("seed = 3", "seed = 3\nwarmup = \"10s\""), "t.toml: warmup: the warmup (10s) must be shorter than the duration (10s)"),
        (base.replace("kind = \"droptail\"", "kind = \"fancy\""), "t.toml: topology.bottleneck.queue.kind: unknown queue discipline \"fancy\""),
        (base.replace("pairs = 2", "pairs = 2\ncolour = \"red\""), "t.toml: topology.colour: unknown key `colour`"),
        (base.replace("rate = \"1Mbps\"", "rate = \"-1Mbps\""), "t.toml: flows[0].rate: a rate must be at least 1bps, got \"-1Mbps\""),
        (base.replace("app = \"cbr\"", "app = \"cbr\"\nsrc = \"s9\""), "t.toml: flows[0].src: unknown node \"s9\""),
        ("name = \"x\"\nduration = ".into(), "t.toml: invalid TOML"),
    ];
    for (text, expected) in cases {
        let msg = run_err(&text);
        assert!(msg.starts_with(expected), "expected {expected:?}\n     got {msg:?}");
    }
}

#[test]
fn unreachable_destination_is_reported() {
    let text = r#"
name = "island"
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[links]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "1ms"
[[flows]]
src = "a"
dst = "c"
app = "cbr"
rate = "10kbps"
"#;
    assert_eq!(run_err(text), "t.toml: flows[0]: no route from a to c (flow g0.0)");
}

#[test]
fn event_guard_stops_the_run_with_a_message() {
    let text = format!("{DUMBBELL}\n[limits]\nmax_events = 1000\n[[flows]]\napp = \"cbr\"\nrate = \"9Mbps\"\n");
    match run_toml(&text, "t.toml", GuardOverrides::default()) {
        Err(Error::Guard(m)) => assert!(m.contains("limits.max_events"), "{m}"),
        _ => panic!("expected the event guard to trip"),
    }
}
