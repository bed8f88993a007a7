//! The traffic sources of the slowly-responsive experiments: CBR with
//! explicit on intervals and as a square wave, and ON/OFF sources with ns-2's
//! burst semantics (Application/Traffic/Exponential and /Pareto).

mod common;
mod slowcc_support;
use slowcc_support::*;

fn udp(app_keys: &str, duration: &str) -> ccsim_core::RunOutput {
    run(&format!(
        r#"
name = "sources"
duration = "{duration}"
seed = 1
[output]
sample_interval = "500ms"
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "100Mbps"
delay = "1ms"
[[flows]]
group = "src"
transport = "udp"
packet_size = 1000
{app_keys}
"#
    ))
}

/// 1 Mbit/s of 1000-byte packets is one packet every 8 ms: an on interval
/// [a, b) of 1 s holds the packets at a, a + 8 ms, ..., a + 992 ms, i.e. 125.
#[test]
fn cbr_on_intervals() {
    let out = udp(
        "app = \"cbr\"\nrate = \"1Mbps\"\non = [[\"1s\", \"2s\"], [\"3s\", \"4s\"]]",
        "6s",
    );
    assert_eq!(out.result.flows[0].sent_packets, 250);
    let send = series(&out, "src.0", "send_bps");
    // Samples every 0.5 s cover (t - 0.5, t]: on during (1, 2] and (3, 4].
    let expect = [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    for (i, (&v, &e)) in send.iter().zip(&expect).enumerate() {
        // A 0.5-s sample holds 62 or 63 packets: within 1.6% of 1 Mbit/s.
        assert!((v / 1e6 - e).abs() < 0.02, "sample {i}: {v}");
    }
}

/// A square wave of period 2 s and duty 0.25 from the flow's start: on for
/// [2k, 2k + 0.5) s, 63 packets each (at 0, 8, ..., 496 ms); 5 periods in 10 s.
#[test]
fn cbr_square_wave() {
    let out = udp("app = \"cbr\"\nrate = \"1Mbps\"\nperiod = \"2s\"\nduty = 0.25", "10s");
    assert_eq!(out.result.flows[0].sent_packets, 5 * 63);
    // Samples cover (t - 0.5, t]: the one at 2k + 0.5 holds the burst
    // (62 or 63 packets), the one at 2k its first packet (except at 10 s,
    // the end of the run, when nothing is sent), the others nothing.
    let send = series(&out, "src.0", "send_bps");
    for (i, &v) in send.iter().enumerate() {
        let pkts = v * 0.5 / 8000.0;
        let expect: &[f64] = match i % 4 {
            0 => &[62.0, 63.0],
            3 if i + 1 < send.len() => &[1.0],
            _ => &[0.0],
        };
        assert!(
            expect.contains(&pkts.round()),
            "sample {i} ({:.1} s): {pkts} packets",
            (i + 1) as f64 * 0.5
        );
    }
}

/// ns-2's bursts are whole packets, at least one: with a constant ON time
/// shorter than a packet gap (1 ms against 4 ms at 2 Mbit/s) every burst is
/// one packet, followed by the packet gap plus the OFF time (99 ms): one
/// packet every 103 ms, 100 packets in 10.25 s.
#[test]
fn onoff_bursts_are_whole_packets() {
    let out = udp(
        "app = \"onoff\"\nrate = \"2Mbps\"\non = \"1ms\"\noff = \"99ms\"\non_dist = \"constant\"",
        "10.25s",
    );
    assert_eq!(out.result.flows[0].sent_packets, 100);
    // A constant ON time of 40 ms is 10 packets: 10 packets every
    // 10 x 4 + 60 ms = 100 ms, 1000 in 10 s (the run ends before the 1001st).
    let out = udp(
        "app = \"onoff\"\nrate = \"2Mbps\"\non = \"40ms\"\noff = \"60ms\"\non_dist = \"constant\"",
        "9.999s",
    );
    assert_eq!(out.result.flows[0].sent_packets, 1000);
}

/// Exponential ON and OFF of mean 0.5 s at 2 Mbit/s: the long-run rate is
/// 2 x 0.5 / (0.5 + 0.5) = 1 Mbit/s. Over 400 s (~400 cycles, each with a
/// burst of coefficient of variation ~1) the estimate has a standard error
/// of about 5%; 15% is three of them.
#[test]
fn onoff_exponential_mean_rate() {
    let out = udp(
        "app = \"onoff\"\nrate = \"2Mbps\"\non = \"500ms\"\noff = \"500ms\"",
        "400s",
    );
    let rate = out.result.flows[0].sent_bytes as f64 * 8.0 / 400.0;
    assert!((rate / 1e6 - 1.0).abs() < 0.15, "{rate}");
}
