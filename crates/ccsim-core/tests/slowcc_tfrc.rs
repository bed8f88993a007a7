//! TFRC (RFC 5348) and RAP against theory and against TCP.
//!
//! - On a link with Bernoulli loss p and no queueing, TFRC's sending rate
//!   follows the RFC 5348 throughput equation at p and its measured RTT,
//!   and it is smoother than TCP's over one-RTT intervals (Floyd, Handley,
//!   Padhye and Widmer, SIGCOMM 2000, section 4).
//! - Sharing a RED bottleneck, TFRC(8) and TCP get comparable throughput.
//! - RAP's fine-grain adaptation brings it closer to TCP (Rejaie, Handley
//!   and Estrin 1999, section 3.4).

mod common;
mod slowcc_support;
use slowcc_support::*;

/// One TFRC and one NewReno flow on separate pairs; the 10 Mbit/s
/// bottleneck (RTT 100 ms) drops data packets with probability `p` and never
/// queues (both flows together send well under its rate). Time series every
/// 100 ms, one RTT.
fn bernoulli(p: f64) -> ccsim_core::RunOutput {
    run(&format!(
        r#"
name = "tfrc-bernoulli"
duration = "200s"
warmup = "20s"
seed = 1
[output]
sample_interval = "100ms"
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "48ms"
loss = {{ model = "bernoulli", rate = {p} }}
[[flows]]
group = "tfrc"
transport = "tfrc"
app = "bulk"
[[flows]]
group = "tcp"
transport = "tcp"
app = "bulk"
window = 1000
"#
    ))
}

/// The sending rate is within 20% of the equation (the issue's bound) at
/// p = 0.01 and 0.05 (measured: -3% and +14%). TFRC measures the loss
/// *event* rate, which is below p when several losses fall within one RTT
/// (at p = 0.05 a flow sends only ~4 packets per RTT, so some losses merge),
/// and it averages eight intervals, so a rate slightly above the equation
/// at the packet loss rate is expected at the higher p.
///
/// Smoothness: the coefficient of variation of the sending rate over
/// 100-ms (one-RTT) intervals is below 3/4 of TCP's (measured ratios 0.52
/// and 0.57: TFRC 0.23 and 0.33, TCP 0.45 and 0.58).
#[test]
fn tfrc_follows_the_equation_and_is_smoother_than_tcp() {
    for p in [0.01, 0.05] {
        let out = bernoulli(p);
        let q = out.result.queues.iter().find(|q| q.link == "r1->r2").unwrap();
        assert_eq!(q.drops, 0, "losses come from the loss model only");
        let f = &group(&out, "tfrc")[0];
        let rtt = f.srtt_mean_s.expect("TFRC reports its RTT");
        let window = 180.0;
        let sent_bps = f.sent_bytes as f64 * 8.0 / window;
        let eq_bps = tfrc_equation(1500.0, rtt, p) * 8.0;
        let ratio = sent_bps / eq_bps;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "p = {p}: sent {sent_bps:.0} bit/s, equation {eq_bps:.0} bit/s at R = {rtt:.4} s (ratio {ratio:.3})"
        );
        let cov_tfrc = cov(&window_of(&out, "tfrc.0"));
        let cov_tcp = cov(&window_of(&out, "tcp.0"));
        assert!(
            cov_tfrc < 0.75 * cov_tcp,
            "p = {p}: CoV of the 1-RTT sending rate: TFRC {cov_tfrc:.3}, TCP {cov_tcp:.3}"
        );
    }
}

fn window_of(out: &ccsim_core::RunOutput, flow: &str) -> Vec<f64> {
    window(out, series(out, flow, "send_bps"), 20.0, 200.0)
}

/// 4 flows under test and 4 NewReno flows on a gentle-RED bottleneck of
/// 6 Mbit/s (RTT ~100 ms, min_th 15, max_th 45, buffer 300 packets), 300 s
/// with 20 s of warmup; `red_compat` is the queue's compatibility profile.
fn red_mix_with(test_flow: &str, seed: u64, red_compat: &str) -> ccsim_core::RunOutput {
    run(&against_newreno(
        "red-mix",
        seed,
        &format!("queue = {{ kind = \"gred\", limit = 300, min_th = 15, max_th = 45, compat = \"{red_compat}\" }}"),
        test_flow,
        "[output]\nsample_flows = false",
    ))
}

fn red_mix(test_flow: &str, seed: u64) -> ccsim_core::RunOutput {
    red_mix_with(test_flow, seed, "ccsim")
}

fn ratio_to_newreno(out: &ccsim_core::RunOutput) -> f64 {
    mean_goodput(out, "test") / mean_goodput(out, "newreno")
}

/// TFRC(8) and TCP share a RED bottleneck: the long-run goodput ratio of
/// the mean TFRC flow to the mean NewReno flow lies in [0.5, 2] (the
/// issue's bound; measured 1.05 and 0.96 for seeds 1 and 2). The
/// bottleneck stays busy (utilization above 0.95).
#[test]
fn tfrc_and_tcp_share_a_red_bottleneck() {
    for seed in [1, 2] {
        let out = red_mix("transport = \"tfrc\"", seed);
        let ratio = ratio_to_newreno(&out);
        assert!((0.5..=2.0).contains(&ratio), "seed {seed}: TFRC/NewReno {ratio:.3}");
        assert!(out.result.summary.bottleneck_utilization > 0.95);
    }
}

/// RAP on the same RED bottleneck: rate-based AIMD without self-clocking.
/// Under RED as Floyd and Jacobson's Figure 2 writes it (the queue's
/// `compat = "rfc"`: early drops even at an empty queue, the first arrival
/// over min_th not spared) plain RAP takes far more than NewReno (measured
/// 1.8-2.1 times over seeds 1-6 with RFC TCP timers, more than 1.5 here) and
/// fine-grain adaptation, which stretches the gap as the RTT grows, cuts
/// that excess into the friendliness bound [0.67, 1.5] used for the TCP
/// variants. Under the peers' RED rules (ccsim's default) plain RAP is
/// already within it (1.25-1.36 over seeds 1-6) and fine-grain adaptation
/// changes little (1.25-1.29): both are checked against the bound.
#[test]
fn rap_fine_grain_adaptation_is_friendlier() {
    for seed in [1, 2] {
        let plain = ratio_to_newreno(&red_mix_with("transport = \"rap\"", seed, "rfc"));
        let fine = ratio_to_newreno(&red_mix_with("transport = \"rap\"\nfine_grain = true", seed, "rfc"));
        assert!(
            plain > 1.5,
            "seed {seed}: plain RAP/NewReno over Figure-2 RED {plain:.3}"
        );
        assert!(fine < plain, "seed {seed}: fine-grain {fine:.3}, plain {plain:.3}");
        assert!(
            (0.67..=1.5).contains(&fine),
            "seed {seed}: fine-grain RAP/NewReno {fine:.3}"
        );
        for fg in ["", "\nfine_grain = true"] {
            let r = ratio_to_newreno(&red_mix(&format!("transport = \"rap\"{fg}"), seed));
            assert!((0.67..=1.5).contains(&r), "seed {seed}{fg}: RAP/NewReno {r:.3}");
        }
    }
}
