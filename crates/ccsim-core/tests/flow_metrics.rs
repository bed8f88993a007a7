//! Per-flow statistics as observers of the kernel: the time-weighted means
//! of the congestion window and of the smoothed RTT do not depend on how
//! often the time series are sampled, and agree with a case computed by
//! hand.

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
fn cwnd_and_srtt_means_are_independent_of_the_sample_interval() {
    let fine = run(&lossy("10ms"));
    let coarse = run(&lossy("333ms"));
    assert_eq!(fine.result.flows.len(), 3);
    assert!(
        fine.result.flows.iter().any(|f| f.lost_packets > 0),
        "losses change the window"
    );
    for (a, b) in fine.result.flows.iter().zip(&coarse.result.flows) {
        assert_eq!(a.sent_packets, b.sent_packets, "{}", a.name);
        let (ma, mb) = (a.cwnd_mean_pkts, b.cwnd_mean_pkts);
        assert!(ma.is_some_and(|m| m >= 1.0), "{}: {ma:?}", a.name);
        assert_eq!(ma, mb, "{}", a.name);
        let (sa, sb) = (a.srtt_mean_s, b.srtt_mean_s);
        // At least the path's 2 x (2 + 10 + 2) ms of propagation.
        assert!(sa.is_some_and(|s| s >= 0.028), "{}: {sa:?}", a.name);
        assert_eq!(sa, sb, "{}", a.name);
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
///
/// The smoothed RTT (`rtt_sampling = "every_ack"`: RFC 6298 section 2):
/// none before the first ACK; the first sample, 21.54 ms, sets SRTT
/// (section 2.2), from 21.54 ms to 23.04 ms; the second ACK's sample, 23.04
/// ms (both segments were sent at 0), makes it 7/8 21.54 + 1/8 23.04 =
/// 21.7275 ms (section 2.3), which it keeps to the end (1 s): the
/// time-weighted mean over [21.54 ms, 1 s], and 21.7275 ms over the window
/// [0.5 s, 1 s].
#[test]
fn means_agree_with_a_hand_computed_case() {
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
cwnd_validation = false
rtt_sampling = "every_ack""#,
        )
    };
    let out = run(&text("0s"));
    let f = &out.result.flows[0];
    assert!(f.fct_s.is_some(), "the transfer completes: {f:?}");
    let expected = (2.0 * 21.54 + 3.0 * 1.5 + 4.0 * 976.96) / 1000.0;
    let got = f.cwnd_mean_pkts.expect("a window");
    assert!((got - expected).abs() < 1e-9, "{got} vs {expected}");
    let (s1, s2) = (21.54, 7.0 / 8.0 * 21.54 + 1.0 / 8.0 * 23.04);
    let expected = (s1 * 1.5 + s2 * 976.96) / 978.46 * 1e-3;
    let got = f.srtt_mean_s.expect("an estimate");
    assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
    let out = run(&text("0.5s"));
    let f = &out.result.flows[0];
    assert_eq!(f.cwnd_mean_pkts, Some(4.0));
    let got = f.srtt_mean_s.expect("an estimate");
    assert!((got - s2 * 1e-3).abs() < 1e-12, "{got} vs {s2} ms");
}

/// A transport without a congestion window has no mean window, and one
/// without an RTT estimate no mean SRTT.
#[test]
fn no_window_no_mean() {
    let text = two_nodes("0s", "app = \"cbr\"\nrate = \"1Mbps\"");
    let out = run(&text);
    assert_eq!(out.result.flows[0].cwnd_mean_pkts, None);
    assert_eq!(out.result.flows[0].srtt_mean_s, None);
}
