//! Friendliness and fairness.
//!
//! TCP-compatibility (Floyd, Handley and Padhye 2000; Bansal and
//! Balakrishnan 2001) is defined by the response function: the same
//! throughput as TCP at the same loss rate and RTT. The friendliness tests
//! therefore give every flow the same loss process: 4 flows of the
//! algorithm and 4 NewReno flows share a 6 Mbit/s bottleneck (RTT 100 ms)
//! that drops packets at random with p = 0.01, independently of the flow,
//! as a RED gateway approximately does (the RED family comes with another
//! issue), with a buffer large enough never to overflow (checked). The
//! flows compete for the capacity through the shared queue (utilization
//! ~100%, RTT inflated by queueing), and loss is flow-independent. Under
//! DropTail, slowly-responsive flows are known not to be fair to TCP even
//! when TCP-compatible (Bansal and Balakrishnan 2001, section 5), because
//! drop-tail losses are not flow-independent.
//!
//! Runs: 300 s, 20 s warmup, seeds 1 and 2; the goodput ratio of the mean
//! test flow to the mean NewReno flow must lie in [0.67, 1.5] (the issue's
//! bound) for each seed.

mod common;
mod tcp_support;
use tcp_support::*;

fn mixed(cc: &str, cc_params: &str, seed: u64) -> ccsim_core::RunOutput {
    run(&against_newreno(
        "friendliness",
        seed,
        "loss = { model = \"bernoulli\", rate = 0.01 }\nqueue = { limit = 500 }",
        &format!("transport = \"tcp\"\ncc = \"{cc}\"\ncc_params = {{ {cc_params} }}\nwindow = 1000"),
        "",
    ))
}

fn check(cc: &str, cc_params: &str) {
    for seed in [1, 2] {
        let out = mixed(cc, cc_params, seed);
        let q = &out.result.queues.iter().find(|q| q.link == "r1->r2").unwrap();
        assert_eq!(
            q.drops, 0,
            "the buffer never overflows: losses are the random ones only"
        );
        assert!(
            out.result.summary.bottleneck_utilization > 0.95,
            "the flows fill the bottleneck"
        );
        let ratio = mean_goodput(&out, "test") / mean_goodput(&out, "newreno");
        assert!(
            (0.67..=1.5).contains(&ratio),
            "{cc} {cc_params} seed {seed}: goodput ratio to NewReno {ratio:.3}"
        );
    }
}

/// TCP(1/8): AIMD with b = 1/8 and the TCP-compatible a = 4(2b - b^2)/3 = 0.3125.
#[test]
fn aimd_one_eighth_is_friendly() {
    check("aimd", "b = 0.125");
}

/// IIAD (k = 1, l = 0) with its default TCP-compatible constants.
#[test]
fn iiad_is_friendly() {
    check("iiad", "");
}

/// SQRT (k = l = 1/2) with its default TCP-compatible constants.
#[test]
fn sqrt_is_friendly() {
    check("sqrt", "");
}

/// Ten identical NewReno flows (equal RTT, 40 ms) over a 10 Mbit/s DropTail
/// bottleneck with a 50-packet buffer: Jain's index over 100 s above 0.95.
#[test]
fn ten_newreno_flows_are_fair() {
    let out = run(r#"
name = "fairness"
duration = "100s"
seed = 1
[topology]
kind = "dumbbell"
pairs = 10
[topology.access]
rate = "100Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "16ms"
[topology.bottleneck.queue]
kind = "droptail"
limit = 50
[[flows]]
count = 10
transport = "tcp"
app = "bulk"
cc = "newreno"
start = { uniform = ["0s", "1s"] }
"#);
    let s = &out.result.summary;
    assert!(s.jain_index > 0.95, "Jain {}", s.jain_index);
    assert!(
        s.bottleneck_utilization > 0.95,
        "utilization {}",
        s.bottleneck_utilization
    );
    assert!(
        out.result.flows.iter().all(|f| f.fast_retransmits > 0),
        "every flow saw losses"
    );
}
