//! Scenario tests of the fair-queueing and delay-based disciplines under TCP
//! load (issue 4): fairness against an unresponsive flow and across RTTs, and
//! the delay targets of CoDel, FQ-CoDel and PIE under 50 TCP flows.
//!
//! Every number quoted in a comment was measured with the seeds used here;
//! the tolerances are argued from the algorithms, not fitted to them.

mod common;
use ccsim_core::results::FlowResult;
use ccsim_core::RunOutput;
use common::*;

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Goodputs (Mbps) of the TCP flows and of the CBR flow.
fn shares(out: &RunOutput) -> (Vec<f64>, f64) {
    let tcp: Vec<f64> = out
        .result
        .flows
        .iter()
        .filter(|f| f.group == "tcp")
        .map(|f| f.goodput_bps / 1e6)
        .collect();
    let cbr = out
        .result
        .flows
        .iter()
        .find(|f: &&FlowResult| f.group == "cbr")
        .map_or(0.0, |f| f.goodput_bps / 1e6);
    (tcp, cbr)
}

/// Nine NewReno flows and one CBR flow share 10 Mbps (fair share 1 Mbps);
/// `delays` are the per-pair access delays (the CBR uses the last pair).
fn nine_tcp_one_cbr(queue: &str, cbr_rate: &str, delays: &str) -> String {
    format!(
        r#"
name = "fairness"
duration = "60s"
warmup = "10s"
seed = 7

[topology]
kind = "dumbbell"
pairs = 10

[topology.access]
rate = "100Mbps"
delay = "1ms"
delays = {delays}

[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"

[topology.bottleneck.queue]
limit = 100
{queue}

[[flows]]
group = "tcp"
count = 9
transport = "tcp"
app = "bulk"
cc = "newreno"
start = {{ uniform = ["0s", "2s"] }}

[[flows]]
group = "cbr"
transport = "udp"
app = "cbr"
rate = "{cbr_rate}"
packet_size = 1000
"#
    )
}

const EQUAL_RTT: &str = r#"["5ms", "5ms", "5ms", "5ms", "5ms", "5ms", "5ms", "5ms", "5ms", "5ms"]"#;

/// One CBR flow at twice its fair share among nine TCP flows with equal RTTs.
/// Per-flow schedulers hold the CBR flow to its share and give all ten flows
/// equal bandwidth; DropTail lets it keep its 2 Mbps at the TCP flows' cost.
#[test]
fn schedulers_hold_an_unresponsive_flow_to_its_share() {
    let out = run(&nine_tcp_one_cbr("kind = \"droptail\"", "2Mbps", EQUAL_RTT));
    let (tcp, cbr) = shares(&out);
    let all: Vec<f64> = tcp.iter().copied().chain([cbr]).collect();
    eprintln!(
        "droptail: cbr {cbr:.2} Mbps, tcp jain {:.3}, all jain {:.3}",
        jain(&tcp),
        jain(&all)
    );
    // The CBR flow loses only what the shared buffer drops (measured 1.97
    // Mbps): nine flows at ~0.87 and one at ~2 give an index near
    // 10^2 / (10 (9 x 0.87^2 + 2^2)) = 0.90.
    assert!(cbr > 1.8, "droptail cbr {cbr}");
    assert!(jain(&all) < 0.92, "droptail all-flow jain {}", jain(&all));
    for q in [
        "kind = \"drr\"\nquantum = 1500",
        "kind = \"fq_codel\"",
        "kind = \"sfq\"\nbuckets = 1024",
        "kind = \"rr\"",
    ] {
        let out = run(&nine_tcp_one_cbr(q, "2Mbps", EQUAL_RTT));
        let (tcp, cbr) = shares(&out);
        let all: Vec<f64> = tcp.iter().copied().chain([cbr]).collect();
        let util = out.result.summary.bottleneck_utilization;
        eprintln!(
            "{}: cbr {cbr:.2} Mbps, tcp jain {:.3}, all jain {:.3}, util {util:.3}",
            q.replace('\n', " "),
            jain(&tcp),
            jain(&all)
        );
        // Byte-fair schedulers (DRR, FQ-CoDel) give the CBR flow its 1 Mbps;
        // packet round robin (SFQ, RR) gives it 1000/1500 of a TCP flow's
        // bytes, since its packets are 1000 bytes against TCP's 1500
        // (measured 0.69). Either way it is held to at most its share (+10%
        // for the bytes in flight at the window edges).
        assert!(cbr < 1.1, "{q}: cbr {cbr}");
        assert!(jain(&tcp) > 0.95, "{q}: tcp jain {}", jain(&tcp));
        assert!(jain(&all) > 0.95, "{q}: all-flow jain {}", jain(&all));
        assert!(util > 0.95, "{q}: util {util}");
    }
    // With ns-2's 16 buckets, ten flows almost surely share buckets (the
    // chance that they do not is 16!/(6! 16^10) = 2%), so some TCP flows get
    // half a bucket's service until the next perturbation; the CBR flow is
    // still held near its share.
    let out = run(&nine_tcp_one_cbr("kind = \"sfq\"", "2Mbps", EQUAL_RTT));
    let (tcp, cbr) = shares(&out);
    eprintln!("sfq (16 buckets): cbr {cbr:.2} Mbps, tcp jain {:.3}", jain(&tcp));
    assert!(cbr < 1.1, "sfq cbr {cbr}");
    assert!(jain(&tcp) > 0.9, "sfq tcp jain {}", jain(&tcp));
}

/// FRED and CHOKe penalise flows by their buffer occupancy, so they act on a
/// flow far above its share. At 5x (5 Mbps) DropTail lets the CBR flow keep
/// almost all of it (measured 4.95 Mbps) and starves the TCP flows; FRED's
/// per-flow limits (measured 2.1 Mbps) and CHOKe's matched drops (measured
/// 3.9 Mbps) cut it back, and the TCP flows stay fair among themselves.
/// At 2x (the issue's setting) the CBR flow's queue share is too small for
/// either to act (measured 1.93 and 1.83 Mbps against DropTail's 1.97);
/// the TCP flows are then fair (Jain > 0.99) under every discipline.
#[test]
fn fred_and_choke_restrain_a_flow_far_above_its_share() {
    let out = run(&nine_tcp_one_cbr("kind = \"droptail\"", "5Mbps", EQUAL_RTT));
    let (_, cbr_dt) = shares(&out);
    assert!(cbr_dt > 4.5, "droptail cbr {cbr_dt}");
    for (q, at_most) in [("kind = \"fred\"", 0.5), ("kind = \"choke\"", 0.85)] {
        let out = run(&nine_tcp_one_cbr(q, "5Mbps", EQUAL_RTT));
        let (tcp, cbr) = shares(&out);
        eprintln!(
            "{q}: cbr {cbr:.2} Mbps (droptail {cbr_dt:.2}), tcp jain {:.3}",
            jain(&tcp)
        );
        assert!(cbr < at_most * cbr_dt, "{q}: cbr {cbr} vs droptail {cbr_dt}");
        assert!(jain(&tcp) > 0.9, "{q}: tcp jain {}", jain(&tcp));
        let out = run(&nine_tcp_one_cbr(q, "2Mbps", EQUAL_RTT));
        let (tcp, _) = shares(&out);
        assert!(jain(&tcp) > 0.9, "{q} at 2x: tcp jain {}", jain(&tcp));
    }
}

/// With base RTTs from 24 to 420 ms, TCP under DropTail shares in proportion
/// to roughly 1/RTT (with a full 100-packet queue adding 80 ms to every RTT,
/// the 1/RTT shares have a Jain index of about 0.80; measured 0.74); per-flow
/// deficit round robin removes the bias.
#[test]
fn deficit_schedulers_remove_rtt_bias() {
    let delays = r#"["1ms", "5ms", "10ms", "20ms", "30ms", "45ms", "60ms", "80ms", "100ms", "5ms"]"#;
    let out = run(&nine_tcp_one_cbr("kind = \"droptail\"", "1Mbps", delays));
    let (tcp, _) = shares(&out);
    eprintln!("droptail: tcp jain {:.3}", jain(&tcp));
    assert!(jain(&tcp) < 0.88, "droptail tcp jain {}", jain(&tcp));
    // DRR serves every backlogged flow the same bytes whatever its RTT
    // (measured 0.995). FQ-CoDel does too, but its per-flow CoDel drops a
    // flow whose queue stands above target, and a long-RTT flow takes longer
    // to grow back (measured 0.96): 0.9 for it.
    for (q, min) in [("kind = \"drr\"\nquantum = 1500", 0.95), ("kind = \"fq_codel\"", 0.9)] {
        let out = run(&nine_tcp_one_cbr(q, "1Mbps", delays));
        let (tcp, _) = shares(&out);
        eprintln!("{}: tcp jain {:.3}", q.replace('\n', " "), jain(&tcp));
        assert!(jain(&tcp) > min, "{q}: tcp jain {}", jain(&tcp));
    }
}

/// 50 NewReno flows on 100 Mbps with a 104 ms base RTT (about 17 packets of
/// bandwidth-delay product per flow) and a 1000-packet buffer.
fn fifty_flows(queue: &str) -> String {
    format!(
        r#"
name = "many"
duration = "40s"
warmup = "10s"
seed = 11

{topology}
[[flows]]
group = "tcp"
count = 50
transport = "tcp"
app = "bulk"
cc = "newreno"
window = 1000
start = {{ uniform = ["0s", "5s"] }}
"#,
        topology = dumbbell_with(
            10,
            ("1Gbps", "1ms"),
            ("100Mbps", "50ms"),
            &format!("limit = 1000\n{queue}")
        )
    )
}

/// DropTail lets the 50 flows fill the buffer (measured 70 ms mean sojourn);
/// the delay-based AQMs keep the queue near their targets with the link
/// still above 90% busy.
#[test]
fn delay_aqms_hold_their_targets_under_50_tcp_flows() {
    let out = run(&fifty_flows("kind = \"droptail\""));
    let dt = bottleneck(&out).avg_sojourn_s;
    eprintln!("droptail: sojourn {:.1} ms", dt * 1e3);
    assert!(dt > 0.04, "droptail sojourn {dt}");
    for (q, target, lo, hi) in [
        // CoDel bounds the *minimum* sojourn over each interval by the target,
        // so the mean sits above it (measured 8.0 to 8.4 ms over three seeds):
        // between the target and twice the target.
        ("kind = \"codel\"", 0.005, 1.0, 2.0),
        // FQ-CoDel: each flow's own queue is held at its target; the mean
        // over all packets stays near it (measured 4.5 to 4.9 ms).
        ("kind = \"fq_codel\"", 0.005, 0.5, 1.5),
        // PIE controls its delay estimate to the target (measured 14.9 to
        // 15.2 ms): 30% as in the UDP test.
        ("kind = \"pie\"", 0.015, 0.7, 1.3),
    ] {
        let out = run(&fifty_flows(q));
        let b = bottleneck(&out);
        let util = out.result.summary.bottleneck_utilization;
        eprintln!("{q}: sojourn {:.2} ms, util {util:.3}", b.avg_sojourn_s * 1e3);
        assert!(
            b.avg_sojourn_s > lo * target && b.avg_sojourn_s < hi * target,
            "{q}: sojourn {}",
            b.avg_sojourn_s
        );
        assert!(util > 0.9, "{q}: util {util}");
        assert!(b.avg_sojourn_s < dt / 4.0, "{q}: no better than droptail");
    }
}

/// The ramachendra configuration: ModRED inside each class of a round-robin
/// scheduler. The scheduler must pass the ACKs travelling back to the class's
/// ModRED, which rewrites their advertised window (counted as `rewrites`);
/// without that plumbing the count would be zero.
#[test]
fn modred_inside_round_robin_classes_sees_the_acks() {
    let text = format!(
        r#"
name = "rr_modred"
duration = "30s"
warmup = "5s"
seed = 3

{topology}
[[flows]]
group = "tcp"
count = 8
transport = "tcp"
app = "bulk"
cc = "newreno"
"#,
        topology = dumbbell(4, "kind = \"rr\"\nlimit = 100\nclass_queue = { kind = \"modred\" }")
    );
    let out = run(&text);
    let b = bottleneck(&out);
    eprintln!("rr + modred: rewrites {}, drops {}", b.rewrites, b.drops);
    assert!(b.rewrites > 0, "{b:?}");
    assert_eq!(b.arrivals, b.enqueued + b.drops_on_arrival);
    assert_eq!(
        b.enqueued + b.backlog_start_pkts,
        b.dequeued + b.drops_in_queue + b.backlog_end_pkts
    );
}
