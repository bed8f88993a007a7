//! Kernel behaviour that has an exact answer: CBR delay, determinism,
//! conservation, routing, and error messages.

mod common;
use ccsim_core::{run_toml, Error, GuardOverrides, RunOutput};
use common::*;

/// Two pairs on the usual dumbbell with a 20-packet DropTail, 10 s; flows are appended.
fn dumbbell_base() -> String {
    format!(
        "\nname = \"cbr\"\nduration = \"10s\"\nseed = 3\n{}",
        dumbbell(2, "kind = \"droptail\"\nlimit = 20")
    )
}

#[test]
fn cbr_below_capacity_has_exact_delay_and_no_loss() {
    let base = dumbbell_base();
    let text = format!("{base}\n[[flows]]\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\n");
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
    let base = dumbbell_base();
    let text = format!(
        "{base}\n[[flows]]\ncount = 3\ntransport = \"udp\"\napp = \"poisson\"\nrate = \"4Mbps\"\nstart = {{ uniform = [\"0s\", \"1s\"] }}\n"
    );
    let json = |t: &str| without_perf(&run(t));
    let a = json(&text);
    let b = json(&text);
    assert_eq!(a, b);
    let c = json(&text.replace("seed = 3", "seed = 4"));
    assert_ne!(a, c);
}

#[test]
fn conservation_with_warmup_and_overload() {
    let base = dumbbell_base();
    let text = format!(
        "{base}\nwarmup = \"2s\"\n[[flows]]\ncount = 4\ntransport = \"udp\"\napp = \"poisson\"\nrate = \"4Mbps\"\n\
         [[flows]]\ncount = 2\nreverse = true\ntransport = \"udp\"\napp = \"onoff\"\nrate = \"8Mbps\"\n"
    )
    .replace("seed = 3\n", "seed = 3\n")
    .replacen("duration = \"10s\"", "duration = \"10s\"\nwarmup = \"2s\"", 1)
    .replacen("\nwarmup = \"2s\"\n[[flows]]", "\n[[flows]]", 1);
    let out = run(&text);
    let mut total_drops = 0;
    for q in &out.result.queues {
        assert_queue_identities(q);
        assert_eq!(q.drops, q.early_drops + q.forced_drops, "{}", q.link);
        total_drops += q.drops;
    }
    assert!(total_drops > 0, "the scenario is meant to overload the bottleneck");
    let mut lost = 0;
    for f in &out.result.flows {
        assert_flow_identity(f);
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
    let base = dumbbell_base() + "\n[[flows]]\napp = \"cbr\"\nrate = \"1Mbps\"\n";
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
    let base = dumbbell_base();
    let text = format!("{base}\n[limits]\nmax_events = 1000\n[[flows]]\napp = \"cbr\"\nrate = \"9Mbps\"\n");
    match run_toml(&text, "t.toml", GuardOverrides::default()) {
        Err(Error::Guard(m)) => assert!(m.contains("limits.max_events"), "{m}"),
        _ => panic!("expected the event guard to trip"),
    }
}

/// One series of a run's time series, of entity kind `kind`.
fn series_of_kind<'a>(out: &'a RunOutput, kind: &str, entity: &str, metric: &str) -> &'a [f64] {
    &out.timeseries
        .series
        .iter()
        .find(|s| s.entity_kind == kind && s.entity == entity && s.metric == metric)
        .unwrap_or_else(|| panic!("no {kind} series {metric} for {entity}"))
        .values
}

#[test]
fn delay_series_of_cbr_on_an_idle_path_is_the_exact_path_delay() {
    let base = dumbbell_base();
    // Two CBR groups; the second starts at 1.05 s, so the samples up to 1 s
    // have no packet of it: NaN. Both at 1 Mbps leave the 10 Mbps bottleneck
    // idle between packets, so every packet takes exactly the path delay of
    // cbr_below_capacity_has_exact_delay_and_no_loss: 12.960 ms.
    let text = format!(
        "{base}\n[[flows]]\ngroup = \"a\"\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\n\
         [[flows]]\ngroup = \"b\"\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\n\
         start = \"1.05s\"\n"
    );
    let expected = (80_000 + 800_000 + 80_000 + 12_000_000) as f64 * 1e-9;
    // The series' means are sums of identical integer nanoseconds divided by
    // their count, then scaled to seconds: equal to the expected value up to
    // one rounding of an f64 (~1e-18 s); 1e-12 s is far below a nanosecond.
    let tol = 1e-12;
    for out in [
        run(&text),
        run(&text.replace("limit = 20", "limit = 20\n[output]\nsample_flows = false")),
    ] {
        let times = &out.timeseries.time_s;
        // 100 samples, one every 100 ms, each holding 12 or 13 packets of a.
        assert_eq!(times.len(), 100);
        let flows_sampled = out.timeseries.series.iter().any(|s| s.entity_kind == "flow");
        let mut checked = vec![
            series_of_kind(&out, "group", "a", "delay_s"),
            series_of_kind(&out, "group", "b", "delay_s"),
        ];
        if flows_sampled {
            checked.push(series_of_kind(&out, "flow", "a.0", "delay_s"));
            checked.push(series_of_kind(&out, "flow", "b.0", "delay_s"));
        }
        for (k, values) in checked.iter().enumerate() {
            assert_eq!(values.len(), times.len());
            for (t, v) in times.iter().zip(values.iter()) {
                // Group or flow b (odd k): its first packet arrives at 1.06296 s.
                if k % 2 == 1 && *t < 1.06 {
                    assert!(v.is_nan(), "series {k}: nothing received by {t} s, got {v}");
                } else {
                    assert!((v - expected).abs() < tol, "series {k} at {t} s: {v} != {expected}");
                }
            }
        }
    }
}

#[test]
fn delay_series_weighted_by_packets_is_the_flow_mean_delay() {
    let base = dumbbell_base();
    // Poisson sources overload the bottleneck (3 x 4 Mbps on 10 Mbps), so the
    // delay varies with the queue. With no warmup the summary's delay_mean_s
    // covers the whole run, as the samples do; weighting each interval's mean
    // by its packet count must give the same mean.
    let text = format!(
        "{base}\n[[flows]]\ncount = 3\ntransport = \"udp\"\napp = \"poisson\"\nrate = \"4Mbps\"\npacket_size = 1000\n"
    )
    .replace("pairs = 2", "pairs = 3");
    let out = run(&text);
    let times = &out.timeseries.time_s;
    let dts: Vec<f64> = times
        .iter()
        .scan(0.0, |last, &t| {
            let dt = t - *last;
            *last = t;
            Some(dt)
        })
        .collect();
    // Data packets of 1000 wire bytes: the interval's received bytes / 1000.
    let counts = |entity: &str| -> Vec<f64> {
        series_of_kind(&out, "flow", entity, "throughput_bps")
            .iter()
            .zip(&dts)
            .map(|(bps, dt)| (bps * dt / 8000.0).round())
            .collect()
    };
    let mut group_sum = vec![0.0; times.len()];
    let mut group_n = vec![0.0; times.len()];
    for f in &out.result.flows {
        let n = counts(&f.name);
        let d = series_of_kind(&out, "flow", &f.name, "delay_s");
        let (mut sum, mut total) = (0.0, 0.0);
        for i in 0..times.len() {
            assert_eq!(
                d[i].is_nan(),
                n[i] == 0.0,
                "{} at {} s: {} packets, delay {}",
                f.name,
                times[i],
                n[i],
                d[i]
            );
            if n[i] > 0.0 {
                sum += n[i] * d[i];
                total += n[i];
                group_sum[i] += n[i] * d[i];
                group_n[i] += n[i];
            }
        }
        assert_eq!(total as u64, f.received_packets, "{}", f.name);
        let mean = f.delay_mean_s.expect("packets were received");
        // Per-interval means of integer-ns sums and their re-weighting are
        // each exact to f64 rounding (~1e-16 relative); 1e-12 relative bounds
        // the accumulated rounding of ~100 terms with a wide margin.
        assert!(
            ((sum / total) - mean).abs() < 1e-12 * mean,
            "{}: {} vs {}",
            f.name,
            sum / total,
            mean
        );
        // The queue makes the delay vary (else any average would match).
        let (lo, hi) = (f.delay_min_s.unwrap_or(0.0), f.delay_max_s.unwrap_or(0.0));
        assert!(hi - lo > 5e-3, "{}: delays {lo}..{hi} s hardly vary", f.name);
    }
    // The group's series pools the packets (sum of delays / count), which is
    // not the mean of the flows' means when their counts differ.
    let g = series_of_kind(&out, "group", "g0", "delay_s");
    for i in 0..times.len() {
        if group_n[i] == 0.0 {
            assert!(g[i].is_nan());
        } else {
            let pooled = group_sum[i] / group_n[i];
            assert!(
                (g[i] - pooled).abs() < 1e-12 * pooled,
                "at {} s: {} vs {}",
                times[i],
                g[i],
                pooled
            );
        }
    }
}

/// TOML's nan and inf have no JSON counterpart: an error at their key, not
/// a silently absent (defaulted) value.
#[test]
fn non_finite_numbers_are_errors_at_their_key() {
    let base = dumbbell_base();
    let text = format!("{base}weight = nan\n[[flows]]\napp = \"cbr\"\nrate = \"1Mbps\"\n");
    assert_eq!(
        run_err(&text.replace("kind = \"droptail\"", "kind = \"red\"")),
        "t.toml: topology.bottleneck.queue.weight: expected a finite number, got NaN"
    );
    let text = format!("{base}[[flows]]\napp = \"cbr\"\nrate = \"1Mbps\"\nstart = {{ uniform = [0.0, inf] }}\n");
    assert_eq!(
        run_err(&text),
        "t.toml: flows[0].start.uniform[1]: expected a finite number, got inf"
    );
}

#[test]
fn device_queue_holds_one_packet_below_the_discipline() {
    // ns-3's bottleneck: the queue disc's 20 packets plus the device's
    // 1-packet transmit queue (`device_queue = 1`, the ns3 profile's
    // default). A 20 Mbps CBR into 10 Mbps: the disc still holds at most 20,
    // one packet more waits in the device, so exactly one drop fewer.
    let base = dumbbell_base().replace("duration = \"10s\"", "duration = \"2s\"");
    let flow = "\n[[flows]]\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"20Mbps\"\npacket_size = 1000\n";
    let drops = |device: &str| {
        let text = format!("{device}{base}{flow}");
        let out = run(&text);
        let q = out.result.queues.iter().find(|q| q.link == "r1->r2").unwrap();
        assert_queue_identities(q);
        assert_flow_identity(&out.result.flows[0]);
        assert_eq!(q.max_len_pkts, 20);
        q.drops
    };
    let (none, one) = (drops("device_queue = 0\n"), drops("device_queue = 1\n"));
    assert!(none > 1000, "{none}");
    assert_eq!(one, none - 1);
    // ...and the ns3 profile selects it.
    assert_eq!(drops("compat = \"ns3\"\nframing_bytes = 0\n"), one);
}

#[test]
fn framing_bytes_lengthen_every_transmission() {
    // ns-3's 2-byte PPP header: 1002 bytes' time per 1000-byte packet on
    // each of the three hops (100, 10, 100 Mbps), 1 + 10 + 1 ms of propagation.
    let base = dumbbell_base();
    let flow = "\n[[flows]]\ntransport = \"udp\"\napp = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\n";
    let out = run(&format!("framing_bytes = 2\n{base}{flow}"));
    let expected = (80_160 + 801_600 + 80_160 + 12_000_000) as f64 * 1e-9;
    assert_eq!(out.result.flows[0].delay_min_s, Some(expected));
    // The links still count IP bytes: 1000 per packet.
    let l = out.result.links.iter().find(|l| l.link == "r1->r2").unwrap();
    assert_eq!(l.tx_bytes % 1000, 0);
}
