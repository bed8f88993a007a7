//! Trace-driven links (crate::link_trace, Mahimahi's format): a constant
//! trace carries what a fixed-rate link of its nominal rate carries, a
//! stepped trace's delivered rate follows its steps, TCP runs over a
//! variable trace with its packets accounted for, and bad traces are
//! one-line errors naming the file, the line and what was expected.

mod common;
use ccsim_core::RunOutput;
use common::*;

/// A 1-pair dumbbell whose bottleneck r1->r2 has rate `rate` and the
/// extra keys `keys` (`trace`, ...; delay 10 ms, DropTail of 100 packets),
/// with the flows `flows`, over [warmup, duration].
fn scenario(rate: &str, keys: &str, flows: &str, warmup: &str, duration: &str) -> String {
    format!(
        "name = \"trace_link\"\nduration = \"{duration}\"\nwarmup = \"{warmup}\"\nseed = 3\n{}{keys}\n[topology.bottleneck.queue]\nkind = \"droptail\"\nlimit = 100\n{flows}",
        dumbbell_with(1, ("100Mbps", "1ms"), (rate, "10ms"), "")
    )
}

const TCP: &str = r#"
[[flows]]
group = "tcp"
transport = "tcp"
app = "bulk"
cc = "newreno"
window = 1000
"#;

/// UDP at 30 Mbit/s of 1500-byte packets: more than any of the shipped traces carries.
const CBR: &str = r#"
[[flows]]
group = "cbr"
transport = "udp"
app = "cbr"
rate = "30Mbps"
packet_size = 1500
"#;

fn r1r2_bps(out: &RunOutput) -> f64 {
    let l = out.result.links.iter().find(|l| l.link == "r1->r2").expect("r1->r2");
    l.tx_bytes as f64 * 8.0 / (out.result.duration_s - out.result.warmup_s)
}

#[test]
fn a_constant_trace_carries_what_a_fixed_rate_link_carries() {
    let fixed = run(&scenario("12Mbps", "", TCP, "5s", "30s"));
    let traced = run(&scenario("12Mbps", "trace = \"constant-12mbps\"", TCP, "5s", "30s"));
    let (f, t) = (flow(&fixed, "tcp.0").goodput_bps, flow(&traced, "tcp.0").goodput_bps);
    eprintln!(
        "goodput fixed {f:.0} traced {t:.0} ({:+.3}%); utilization {:.4} / {:.4}",
        100.0 * (t / f - 1.0),
        link_utilization(&fixed, "r1->r2"),
        link_utilization(&traced, "r1->r2")
    );
    assert!((t / f - 1.0).abs() < 0.01, "fixed {f} traced {t}");
    let lt = traced.result.links.iter().find(|l| l.link == "r1->r2").unwrap();
    assert_eq!(lt.rate_bps, 12_000_000, "the trace's nominal rate");
    // Full-size packets fill one opportunity each: a saturated link uses
    // nearly every opportunity.
    assert!(link_utilization(&traced, "r1->r2") > 0.95);
    assert_queue_identities(bottleneck(&traced));
    assert_flow_identity(flow(&traced, "tcp.0"));
}

#[test]
fn a_stepped_trace_delivers_its_steps() {
    // steps-24-6-0-12mbps: 24 Mbit/s for 2 s, 6 for 2 s, nothing for 1 s,
    // 12 for 1 s; then again. Each window skips the first 0.3 s of its step.
    for (from, to, mbps) in [
        ("0.3s", "2s", 24.0),
        ("2.3s", "4s", 6.0),
        ("4.3s", "5s", 0.0),
        ("5.3s", "6s", 12.0),
        ("6.3s", "8s", 24.0),
    ] {
        let out = run(&scenario("100Mbps", "trace = \"steps-24-6-0-12mbps\"", CBR, from, to));
        let got = r1r2_bps(&out) / 1e6;
        eprintln!("[{from}, {to}]: {got:.3} Mbit/s (trace {mbps})");
        assert!(
            (got - mbps).abs() <= 0.02 * mbps.max(1.0),
            "[{from}, {to}] {got} vs {mbps}"
        );
    }
}

#[test]
fn tcp_over_a_variable_trace_fills_most_of_it_and_accounts_for_every_packet() {
    let text = scenario(
        "100Mbps",
        "trace = \"cellular-synthetic\"",
        &TCP.replace("newreno", "cubic"),
        "2s",
        "40s",
    );
    let out = run(&text);
    let f = flow(&out, "tcp.0");
    let l = out.result.links.iter().find(|l| l.link == "r1->r2").unwrap();
    let util = link_utilization(&out, "r1->r2");
    eprintln!(
        "cubic over cellular-synthetic: goodput {:.2} Mbit/s, nominal {:.2}, utilization {util:.3}, losses {}, mean queue {:.1}",
        f.goodput_bps / 1e6,
        l.rate_bps as f64 / 1e6,
        f.lost_packets,
        bottleneck(&out).avg_len_pkts
    );
    assert!(util > 0.7 && util <= 1.0, "utilization {util}");
    assert!(f.goodput_bps < l.rate_bps as f64, "goodput above the trace's rate");
    assert_queue_identities(bottleneck(&out));
    assert_flow_identity(f);
    // Deterministic: the same scenario gives the same results.
    assert_eq!(without_perf(&out), without_perf(&run(&text)));
}

#[test]
fn small_packets_share_an_opportunity() {
    // 500-byte packets cost 504 bytes: 2 fit in a 1504-byte opportunity
    // (the third's 8 missing bytes take the next), so a saturated constant
    // 12 Mbit/s trace (1000 opportunities/s) carries 1504/504 = 2.98
    // packets per opportunity: 11.94 Mbit/s of 500-byte packets.
    let out = run(&scenario(
        "100Mbps",
        "trace = \"constant-12mbps\"",
        &CBR.replace("1500", "500"),
        "1s",
        "5s",
    ));
    let got = r1r2_bps(&out);
    let expect = 1000.0 * 1504.0 / 504.0 * 500.0 * 8.0;
    eprintln!("500-byte packets: {got:.0} bit/s, expected {expect:.0}");
    assert!((got / expect - 1.0).abs() < 0.005, "{got} vs {expect}");
}

#[test]
fn bad_traces_are_one_line_errors() {
    let dir = std::env::temp_dir().join(format!("ccsim-trace-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.trace");
    std::fs::write(&bad, "1\n2\n2.5\n").unwrap();
    let e = run_err(&scenario(
        "1Mbps",
        &format!("trace = \"{}\"", bad.display()),
        CBR,
        "0s",
        "1s",
    ));
    assert_eq!(
        e,
        format!(
            "t.toml: topology.bottleneck.trace: {} line 3: expected a time in whole milliseconds (a non-negative integer), got \"2.5\"",
            bad.display()
        )
    );
    let e = run_err(&scenario("1Mbps", "trace = \"nowhere\"", CBR, "0s", "1s"));
    assert!(
        e.starts_with("t.toml: topology.bottleneck.trace: no trace \"nowhere\": expected a shipped trace (cellular-synthetic, constant-12mbps, steps-24-6-0-12mbps) or a file"),
        "{e}"
    );
    // Without a rate, both directions need a trace.
    let no_rate = scenario("1Mbps", "trace = \"constant-12mbps\"", CBR, "0s", "1s").replace("rate = \"1Mbps\"\n", "");
    let e = run_err(&no_rate);
    assert!(
        e.starts_with("t.toml: topology.bottleneck.rate: missing key \"rate\""),
        "{e}"
    );
    let e = run_err(&scenario(
        "1Mbps",
        "trace = \"constant-12mbps\"\nreverse_trace = \"constant-12mbps\"",
        CBR,
        "0s",
        "1s",
    ));
    assert!(e.contains("rate: unused: both directions follow traces"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
