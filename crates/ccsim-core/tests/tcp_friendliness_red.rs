//! Friendliness over a RED bottleneck.
//!
//! tcp_friendliness.rs gives every flow the same random loss process
//! because RED did not exist when it was written; here the losses come from
//! a gentle-RED gateway (Floyd and Jacobson 1993; "gred"), whose drops are
//! close to flow-independent (a flow loses in proportion to what it sends).
//! 4 flows of the algorithm and 4 NewReno flows share a 6 Mbit/s
//! bottleneck (RTT ~100 ms, min_th 15, max_th 45 packets, buffer 300,
//! never overflowing: no forced drops), 300 s with 20 s of warmup, seeds 1
//! and 2. The goodput ratio of the mean test flow to the mean NewReno flow
//! must lie in [0.67, 1.5], the bound of the random-loss test.
//!
//! Measured ratios (seed 1, seed 2): AIMD(1/8) 1.165, 1.199; SQRT
//! 0.976, 0.916; IIAD 0.899, 0.897.

mod common;
mod tcp_support;
use tcp_support::*;

fn mixed(cc: &str, cc_params: &str, seed: u64) -> ccsim_core::RunOutput {
    run(&against_newreno(
        "friendliness-red",
        seed,
        "queue = { kind = \"gred\", limit = 300, min_th = 15, max_th = 45 }",
        &format!("transport = \"tcp\"\ncc = \"{cc}\"\ncc_params = {{ {cc_params} }}\nwindow = 1000"),
        "[output]\nsample_flows = false",
    ))
}

fn check(cc: &str, cc_params: &str) {
    for seed in [1, 2] {
        let out = mixed(cc, cc_params, seed);
        let q = out.result.queues.iter().find(|q| q.link == "r1->r2").unwrap();
        assert_eq!(q.forced_drops, 0, "RED's early drops only");
        assert!(q.early_drops > 0);
        assert!(out.result.summary.bottleneck_utilization > 0.95);
        let ratio = mean_goodput(&out, "test") / mean_goodput(&out, "newreno");
        assert!(
            (0.67..=1.5).contains(&ratio),
            "{cc} {cc_params} seed {seed}: goodput ratio to NewReno {ratio:.3}"
        );
    }
}

/// TCP(1/8): AIMD with b = 1/8 and the TCP-compatible a = 0.3125.
#[test]
fn aimd_one_eighth_is_friendly_over_red() {
    check("aimd", "b = 0.125");
}

/// Binomial SQRT, k = l = 1/2 (k + l = 1).
#[test]
fn sqrt_is_friendly_over_red() {
    check("sqrt", "");
}

/// Binomial IIAD, k = 1, l = 0 (k + l = 1).
#[test]
fn iiad_is_friendly_over_red() {
    check("iiad", "");
}
