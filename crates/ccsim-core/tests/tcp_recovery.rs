//! Scripted drops through the whole simulator (the `drop_list` loss model on
//! the bottleneck), checking what each recovery variant does: counters,
//! completion time and the cwnd trajectory (sampled every millisecond).
//! The segment-level details (which segment is retransmitted when) are
//! unit-tested in `src/tcp/tests.rs`.
//!
//! Set-up (the textbook one of Fall and Floyd 1996): one transfer of 300
//! segments, slow start up to ssthresh = 20 then congestion avoidance, a
//! receiver window (64) that does not limit, no Limited Transmit; RTT ~21 ms
//! over a 10 Mbit/s bottleneck with a buffer that never overflows. The
//! dropped data packets 60, 62 and 64 are segments 59, 61 and 63, sent when
//! 21 segments are outstanding (cwnd 22), so ssthresh becomes 10.5.

mod common;
mod tcp_support;
use ccsim_core::RunOutput;
use tcp_support::*;

fn scripted(cc: &str, drops: &str) -> RunOutput {
    run(&format!(
        r#"
name = "scripted"
duration = "3s"
seed = 1
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "8ms"
loss = {{ model = "drop_list", packets = [{drops}] }}
[topology.bottleneck.queue]
limit = 1000
[[flows]]
transport = "tcp"
app = "finite"
size = 300
cc = "{cc}"
window = 64
initial_ssthresh = 20
limited_transmit = false
[output]
sample_interval = "1ms"
"#
    ))
}

/// The sampled series `metric` of the only flow.
fn series<'a>(out: &'a RunOutput, metric: &str) -> &'a [f64] {
    &out.timeseries
        .series
        .iter()
        .find(|s| s.entity_kind == "flow" && s.metric == metric)
        .unwrap_or_else(|| panic!("no series {metric}"))
        .values
}

struct Outcome {
    retransmits: u64,
    timeouts: u64,
    fast_retransmits: u64,
    fct: f64,
    min_cwnd_after_loss: f64,
}

fn outcome(cc: &str, drops: &str) -> Outcome {
    let out = scripted(cc, drops);
    let f = &out.result.flows[0];
    assert_eq!(f.delivered_bytes, 300 * 1460, "{cc}: the whole transfer is delivered");
    let cwnd = series(&out, "cwnd_pkts");
    // The losses are detected after ~60 segments, well after 0.1 s.
    let min_after = cwnd
        .iter()
        .skip(100)
        .filter(|c| c.is_finite())
        .fold(f64::INFINITY, |a, &b| a.min(b));
    Outcome {
        retransmits: f.retransmits,
        timeouts: f.timeouts,
        fast_retransmits: f.fast_retransmits,
        fct: f.fct_s.expect("finite flow completes"),
        min_cwnd_after_loss: min_after,
    }
}

#[test]
fn one_drop_all_variants_recover_with_one_retransmission() {
    let reference = outcome("newreno", "");
    assert_eq!(reference.retransmits, 0);
    let mut fct = Vec::new();
    for cc in ["tahoe", "reno", "newreno", "sack"] {
        let o = outcome(cc, "60");
        assert_eq!((o.retransmits, o.fast_retransmits, o.timeouts), (1, 1, 0), "{cc}");
        // Tahoe restarts from one segment; the others keep ssthresh (10.5).
        if cc == "tahoe" {
            assert_eq!(o.min_cwnd_after_loss, 1.0);
        } else {
            assert_eq!(o.min_cwnd_after_loss, 10.5, "{cc}");
        }
        fct.push(o.fct - reference.fct);
    }
    // With a single loss Reno and NewReno do exactly the same; SACK differs
    // only in how its window lets segments out during the recovery RTT.
    // Tahoe's slow start back to ssthresh costs more than fast recovery.
    let (tahoe, reno, newreno, sack) = (fct[0], fct[1], fct[2], fct[3]);
    assert_eq!(reno, newreno);
    assert!((sack - newreno).abs() < 0.021, "sack {sack} newreno {newreno}");
    assert!(tahoe > newreno + 0.021, "tahoe {tahoe} newreno {newreno}");
}

#[test]
fn three_drops_in_one_window() {
    let newreno = outcome("newreno", "60, 62, 64");
    let sack = outcome("sack", "60, 62, 64");
    let reno = outcome("reno", "60, 62, 64");
    let tahoe = outcome("tahoe", "60, 62, 64");
    // NewReno: one fast retransmit, each partial ACK retransmits the next
    // hole; no timeout.
    assert_eq!(
        (newreno.retransmits, newreno.fast_retransmits, newreno.timeouts),
        (3, 1, 0)
    );
    assert_eq!(newreno.min_cwnd_after_loss, 10.5);
    // SACK: the three holes in one recovery, no timeout.
    assert_eq!((sack.retransmits, sack.fast_retransmits, sack.timeouts), (3, 1, 0));
    assert_eq!(sack.min_cwnd_after_loss, 10.5);
    // Reno: each partial ACK ends fast recovery; the second hole gets a
    // second fast retransmit, the third waits for the timeout, and cwnd
    // falls to one segment.
    assert_eq!((reno.retransmits, reno.fast_retransmits, reno.timeouts), (3, 2, 1));
    assert_eq!(reno.min_cwnd_after_loss, 1.0);
    // Tahoe: one fast retransmit, then go-back-N in slow start resends 3
    // segments the receiver already had; no timeout.
    assert_eq!((tahoe.retransmits, tahoe.fast_retransmits, tahoe.timeouts), (6, 1, 0));
    assert_eq!(tahoe.min_cwnd_after_loss, 1.0);
    // The timeout (RTO >= SRTT + 200 ms) makes Reno by far the slowest;
    // SACK repairs all holes in one RTT, NewReno needs one RTT per hole.
    assert!(
        reno.fct > newreno.fct + 0.15,
        "reno {} newreno {}",
        reno.fct,
        newreno.fct
    );
    assert!(sack.fct <= newreno.fct, "sack {} newreno {}", sack.fct, newreno.fct);
}
