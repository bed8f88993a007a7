//! TCP inside the kernel: conservation, determinism, metrics, every
//! controller end to end, and errors for bad keys.

mod common;
mod tcp_support;
use tcp_support::*;

/// A mix of every recovery variant and most controllers, with delayed ACKs,
/// SACK, ECN-capable flows, finite transfers, random loss and a small
/// DropTail buffer, so that every path of the sender runs.
fn mix(seed: u64) -> String {
    format!(
        r#"
name = "mix"
duration = "30s"
warmup = "5s"
seed = {seed}
[topology]
kind = "dumbbell"
pairs = 4
[topology.access]
rate = "100Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
loss = {{ model = "bernoulli", rate = 0.002 }}
[topology.bottleneck.queue]
limit = 30
[[flows]]
group = "tahoe"
transport = "tcp"
app = "bulk"
cc = "tahoe"
[[flows]]
group = "reno"
transport = "tcp"
app = "bulk"
cc = "reno"
delayed_ack = true
[[flows]]
group = "sack"
transport = "tcp"
app = "bulk"
cc = "sack"
ecn = true
[[flows]]
group = "cubic"
transport = "tcp"
app = "bulk"
cc = "cubic"
cc_params = {{ hystart = true }}
[[flows]]
group = "bbr"
transport = "tcp"
app = "bulk"
cc = "bbr"
[[flows]]
group = "finite"
count = 6
transport = "tcp"
app = "finite"
size = "200KB"
cc = "newreno"
start = {{ uniform = ["1s", "20s"] }}
"#
    )
}

#[test]
fn conservation_with_tcp() {
    let out = run(&mix(1));
    for q in &out.result.queues {
        assert_queue_identities(q);
    }
    let mut lost = 0;
    for f in &out.result.flows {
        assert_flow_identity(f);
        lost += f.lost_packets;
    }
    let bottleneck = out.result.queues.iter().find(|q| q.link == "r1->r2").unwrap();
    assert!(
        bottleneck.drops > 0 && lost > bottleneck.drops,
        "both queue drops and random losses occurred"
    );
    // Every finite flow completed and delivered exactly its size.
    for f in group(&out, "finite") {
        assert!(f.fct_s.is_some(), "{} completes", f.name);
    }
}

#[test]
fn determinism_with_tcp() {
    let a = without_perf(&run(&mix(1)));
    let b = without_perf(&run(&mix(1)));
    assert_eq!(a, b, "same scenario and seed, same bytes");
    let c = without_perf(&run(&mix(2)));
    assert_ne!(a, c, "another seed changes the run");
}

#[test]
fn metrics_and_time_series() {
    let out = run(&mix(1));
    for f in out.result.flows.iter().filter(|f| f.group != "finite") {
        assert!(f.cwnd_mean_pkts.is_some_and(|c| c >= 1.0), "{}", f.name);
        assert!(
            f.srtt_mean_s.is_some_and(|s| s > 0.024),
            "{}: at least the propagation RTT",
            f.name
        );
    }
    let bulk = |g: &str| group(&out, g)[0];
    assert!(bulk("tahoe").fast_retransmits > 0 && bulk("reno").retransmits > 0);
    // Reno's delayed ACKs: close to one ACK per two segments (out-of-order
    // segments are acknowledged at once); Tahoe acknowledges every segment.
    let per_ack = |g: &str| bulk(g).received_packets as f64 / bulk(g).acks_sent as f64;
    assert!(per_ack("reno") > 1.5, "reno: {}", per_ack("reno"));
    assert!((per_ack("tahoe") - 1.0).abs() < 1e-9, "tahoe: {}", per_ack("tahoe"));
    let names = |entity: &str| -> Vec<String> {
        out.timeseries
            .series
            .iter()
            .filter(|s| s.entity_kind == "flow" && s.entity == entity)
            .map(|s| s.metric.clone())
            .collect()
    };
    assert_eq!(
        names("tahoe.0"),
        [
            "goodput_bps",
            "throughput_bps",
            "send_bps",
            "delay_s",
            "cwnd_pkts",
            "ssthresh_pkts",
            "srtt_s"
        ]
    );
    assert_eq!(
        names("bbr.0"),
        [
            "goodput_bps",
            "throughput_bps",
            "send_bps",
            "delay_s",
            "cwnd_pkts",
            "ssthresh_pkts",
            "srtt_s",
            "rate_bps"
        ]
    );
}

/// Every controller of the registry's table (`cc::CONTROLLERS`, so a new
/// one is covered without touching this test) moves data over a congested
/// bottleneck: no stall, a sensible share of the link, no panic.
#[test]
fn every_controller_runs() {
    assert!(
        ccsim_core::cc::CONTROLLERS.len() >= 13,
        "the seeds' 13 controllers at least"
    );
    for cc in ccsim_core::cc::kinds() {
        let out = run(&format!(
            r#"
name = "cc"
duration = "20s"
warmup = "5s"
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "16ms"
[topology.bottleneck.queue]
limit = 100
[[flows]]
count = 2
transport = "tcp"
app = "bulk"
cc = "{cc}"
window = 1000
start = {{ uniform = ["0s", "1s"] }}
"#
        ));
        let s = &out.result.summary;
        assert!(
            s.bottleneck_utilization > 0.9,
            "{cc}: utilization {}",
            s.bottleneck_utilization
        );
        assert!(s.jain_index > 0.6, "{cc}: Jain {}", s.jain_index);
    }
}

/// Delay-based and rate-based controllers keep the queue short where the
/// loss-based ones fill the buffer: one flow, 10 Mbit/s, 100-packet buffer.
#[test]
fn vegas_and_bbr_keep_queues_short() {
    let q = |cc: &str| {
        let out = run(&single_flow(
            "10Mbps",
            16.0,
            "{ model = \"bernoulli\", rate = 0.0 }",
            40,
            1,
            &format!("cc = \"{cc}\"\nwindow = 1000"),
        ));
        let b = out
            .result
            .queues
            .iter()
            .find(|q| q.link == "r1->r2")
            .unwrap()
            .avg_len_pkts;
        (b, out.result.summary.bottleneck_utilization)
    };
    let (reno_q, _) = q("newreno");
    for cc in ["vegas", "bbr"] {
        let (cq, util) = q(cc);
        assert!(util > 0.95, "{cc}: utilization {util}");
        // Vegas targets alpha..beta = 2..4 queued packets; BBR's cwnd is
        // 2 BDP with the pacing gain cycle draining the queue.
        assert!(cq < 0.3 * reno_q, "{cc}: queue {cq:.1} vs newreno {reno_q:.1}");
    }
}

#[test]
fn bad_tcp_keys_are_reported_with_their_path() {
    assert_eq!(
        tcp_flow_err("cc = \"westwood\""),
        "bad.toml: flows[0].cc: unknown congestion control \"westwood\"; expected one of: tahoe, reno, newreno, sack, aimd, binomial, iiad, sqrt, vegas, bic, cubic, highspeed, bbr, bbr3, dctcp, copa, vivace, prague, or SCHEME:NAME from an extension (python:module.Class)"
    );
    assert!(tcp_flow_err("cc = \"cubic\"\ncc_params = { betta = 0.5 }")
        .starts_with("bad.toml: flows[0].cc_params.betta: unknown key `betta`"));
    assert_eq!(
        tcp_flow_err("cc = \"aimd\"\ncc_params = { b = 1.5 }"),
        "bad.toml: flows[0].cc_params.b: expected a number in [0.000001, 0.999999], got 1.5"
    );
    assert_eq!(
        tcp_flow_err("recovery = \"sack\"\nsack = false"),
        "bad.toml: flows[0].sack: SACK recovery needs the SACK option: drop \"sack = false\" or choose another recovery"
    );
    assert_eq!(
        tcp_flow_err("recovery = \"vegas\""),
        "bad.toml: flows[0].recovery: unknown recovery \"vegas\"; expected tahoe, reno, newreno, sack or rate_halving"
    );
    assert_eq!(
        tcp_flow_err("window = 0"),
        "bad.toml: flows[0].window: the receiver window must be at least 1 segment"
    );
    assert!(tcp_flow_err("min_rto = \"fast\"").starts_with("bad.toml: flows[0].min_rto: expected a time"));
    assert!(tcp_flow_err("windw = 10").starts_with("bad.toml: flows[0].windw: unknown key `windw`"));
    assert_eq!(
        tcp_flow_err("cc = \"iiad\"\ncc_params = { k = 2 }"),
        "bad.toml: flows[0].cc_params.k: k is fixed by this preset; use cc = \"binomial\" to set k and l"
    );
}
