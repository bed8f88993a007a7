//! Per-flow statistics as observers of the kernel: the congestion window's
//! time-weighted mean does not depend on how often the time series are
//! sampled, and agrees with a case computed by hand.

mod common;
use common::*;

/// Several TCP controllers over a lossy dumbbell, with a warm-up, sampled
/// every `interval`.
fn lossy(interval: &str) -> String {
    format!(
        r#"
name = "cwnd-mean"
duration = "12s"
warmup = "3s"
seed = 5
{topology}
[[flows]]
group = "reno"
transport = "tcp"
app = "bulk"
cc = "reno"
[[flows]]
group = "cubic"
transport = "tcp"
app = "bulk"
cc = "cubic"
start = "4s"
[[flows]]
group = "late"
transport = "tcp"
app = "finite"
size = "300KB"
cc = "newreno"
start = "1s"
[output]
sample_flows = true
sample_interval = "{interval}"
"#,
        topology = dumbbell_with(3, ("100Mbps", "2ms"), ("10Mbps", "10ms"), "limit = 25")
            + "[topology.bottleneck.loss]\nmodel = \"bernoulli\"\nrate = 0.003\n"
    )
}

/// Nodes a and b, one 8 Mbit/s link with 10 ms of delay, a 1 s run and
/// one flow from a to b with `flow_keys`.
fn two_nodes(warmup: &str, flow_keys: &str) -> String {
    format!(
        r#"
name = "two"
duration = "1s"
warmup = "{warmup}"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "b"
rate = "8Mbps"
delay = "10ms"
[[flows]]
src = "a"
dst = "b"
{flow_keys}
"#
    )
}

#[test]
fn cwnd_mean_is_independent_of_the_sample_interval() {
    let fine = run(&lossy("10ms"));
    let coarse = run(&lossy("333ms"));
    assert_eq!(fine.result.flows.len(), 3);
    assert!(
        fine.result.flows.iter().any(|f| f.lost_packets > 0),
        "losses change the window"
    );
    for (a, b) in fine.result.flows.iter().zip(&coarse.result.flows) {
        let (ma, mb) = (a.cwnd_mean_pkts, b.cwnd_mean_pkts);
        assert!(ma.is_some_and(|m| m >= 1.0), "{}: {ma:?}", a.name);
        assert_eq!(ma, mb, "{}", a.name);
        // The sampled smoothed RTT's mean is a sample mean: it may differ.
        assert_eq!(a.sent_packets, b.sent_packets, "{}", a.name);
    }
}

/// One TCP segment at a time by hand: a 8 Mbit/s link with 10 ms of delay,
/// no SYN, no delayed ACKs, an initial window of 2 and a transfer of two
/// full segments (`size = 2`: packets). The segments (1500 bytes: 1.5 ms each) arrive at 11.5 ms
/// and 13 ms; their ACKs (40 bytes: 40 us) at 21.54 ms and 23.04 ms, and
/// each raises the window by one in slow start (RFC 5681 section 3.1; with
/// `cwnd_validation = false`, also the one that finds the sender no longer
/// using its whole window, as ns-2 does):
/// 2 packets over [0, 21.54 ms), 3 over [21.54, 23.04 ms), 4 over
/// [23.04 ms, 1 s]. Over the window [0.5 s, 1 s] the mean is 4.
#[test]
fn cwnd_mean_agrees_with_a_hand_computed_case() {
    let text = |warmup: &str| {
        two_nodes(
            warmup,
            r#"transport = "tcp"
app = "finite"
size = 2
syn = false
delayed_ack = false
initial_cwnd = 2
initial_ssthresh = 100
cwnd_validation = false"#,
        )
    };
    let out = run(&text("0s"));
    let f = &out.result.flows[0];
    assert!(f.fct_s.is_some(), "the transfer completes: {f:?}");
    let expected = (2.0 * 21.54 + 3.0 * 1.5 + 4.0 * 976.96) / 1000.0;
    let got = f.cwnd_mean_pkts.expect("a window");
    assert!((got - expected).abs() < 1e-9, "{got} vs {expected}");
    let out = run(&text("0.5s"));
    assert_eq!(out.result.flows[0].cwnd_mean_pkts, Some(4.0));
}

/// A transport without a congestion window has no mean window.
#[test]
fn no_window_no_mean() {
    let text = two_nodes("0s", "app = \"cbr\"\nrate = \"1Mbps\"");
    assert_eq!(run(&text).result.flows[0].cwnd_mean_pkts, None);
}
