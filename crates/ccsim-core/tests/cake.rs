//! CAKE in scenarios (Høiland-Jørgensen, Täht and Morton, "Piece of CAKE",
//! LANMAN 2018): per-host fairness by isolation mode, the latency of a
//! sparse flow beside bulk TCP, and the shaper holding its rate and moving
//! the queue from a dumb bottleneck downstream into CAKE.
//!
//! The home gateway of these tests: hosts `a` and `b` behind a gateway
//! `gw`, whose uplink queue (gw->isp) is CAKE; servers `s1`, `s2` beyond the
//! ISP. Host a runs one TCP flow to s1, host b eight to s2 (the shape of the
//! paper's host-isolation experiment: one host with one flow, one with
//! many). ACKs return over the other direction, which CAKE does not see.

mod common;
use ccsim_core::RunOutput;
use common::*;

/// The gateway topology with the uplink queue table `queue` (TOML keys)
/// at `uplink` rate, then `flows`.
fn home(uplink: &str, queue: &str, flows: &str) -> String {
    format!(
        r#"
name = "home"
duration = "40s"
warmup = "10s"
seed = 3
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "gw"
[[nodes]]
name = "isp"
[[nodes]]
name = "s1"
[[nodes]]
name = "s2"
[[links]]
a = "a"
b = "gw"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "b"
b = "gw"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "gw"
b = "isp"
rate = "{uplink}"
delay = "10ms"
[links.queue_ab]
{queue}
[[links]]
a = "isp"
b = "s1"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "isp"
b = "s2"
rate = "100Mbps"
delay = "1ms"
{flows}
"#
    )
}

/// A `[[flows]]` table of `count` bulk NewReno flows from `src` to `dst`.
fn bulk_tcp(group: &str, src: &str, dst: &str, count: u32) -> String {
    format!(
        r#"
[[flows]]
group = "{group}"
src = "{src}"
dst = "{dst}"
count = {count}
transport = "tcp"
app = "bulk"
cc = "newreno"
start = {{ uniform = ["0s", "1s"] }}
"#
    )
}

/// Host a with one bulk flow to s1, host b with eight to s2.
fn one_and_eight() -> String {
    bulk_tcp("a", "a", "s1", 1) + &bulk_tcp("b", "b", "s2", 8)
}

/// Host a's share of the uplink's goodput.
fn share_of_a(out: &RunOutput) -> f64 {
    let total = |g: &str| group(out, g).iter().map(|f| f.goodput_bps).sum::<f64>();
    total("a") / (total("a") + total("b"))
}

#[test]
fn host_isolation_gives_each_host_half_and_flows_mode_each_flow_a_ninth() {
    // The host-aware modes: host a's one flow gets as much as host b's
    // eight together. Tolerance: 0.5 +- 0.05.
    for mode in ["triple-isolate", "dual-srchost", "dual-dsthost", "srchost", "hosts"] {
        let out = run(&home(
            "10Mbps",
            &format!("kind = \"cake\"\nlimit = 1000\nflow_mode = \"{mode}\""),
            &one_and_eight(),
        ));
        let a = share_of_a(&out);
        eprintln!(
            "{mode}: host a share {a:.3}, utilization {:.3}",
            link_utilization(&out, "gw->isp")
        );
        assert!((a - 0.5).abs() < 0.05, "{mode}: host a share {a}");
        assert!(link_utilization(&out, "gw->isp") > 0.95, "{mode}");
        assert_queue_identities(queue(&out, "gw->isp"));
    }
    // Per-flow fairness (CAKE's `flows`, and FQ-CoDel, which the paper
    // compares against): host a gets one flow's share, 1/9 +- 0.03.
    for q in [
        "kind = \"cake\"\nlimit = 1000\nflow_mode = \"flows\"",
        "kind = \"fq_codel\"\nlimit = 1000",
    ] {
        let out = run(&home("10Mbps", q, &one_and_eight()));
        let a = share_of_a(&out);
        eprintln!("{q:?}: host a share {a:.3}");
        assert!((a - 1.0 / 9.0).abs() < 0.03, "{q}: host a share {a}");
    }
}

#[test]
fn a_sparse_flow_beside_bulk_tcp_sees_almost_no_queueing_delay() {
    // Host a runs four bulk TCP flows and a ping-like UDP flow (100-byte
    // packets, 100 a second) to s1. The ping's queueing delay is its mean
    // one-way delay less its mean delay when it runs alone.
    let bulk = bulk_tcp("bulk", "a", "s1", 4);
    let ping = r#"
[[flows]]
group = "ping"
src = "a"
dst = "s1"
count = 1
transport = "udp"
app = "cbr"
rate = "80kbps"
packet_size = 100
"#;
    let queueing = |q: &str| {
        let alone = run(&home("10Mbps", q, ping));
        let base = flow(&alone, "ping.0").delay_mean_s.unwrap();
        let out = run(&home("10Mbps", q, &format!("{bulk}{ping}")));
        let d = flow(&out, "ping.0").delay_mean_s.unwrap() - base;
        eprintln!(
            "{q:?}: ping delay alone {:.3} ms, queueing beside bulk TCP {:.2} ms, utilization {:.3}",
            base * 1e3,
            d * 1e3,
            link_utilization(&out, "gw->isp")
        );
        assert!(link_utilization(&out, "gw->isp") > 0.95);
        d
    };
    let cake = queueing("kind = \"cake\"\nlimit = 1000");
    let fifo = queueing("kind = \"droptail\"\nlimit = 1000");
    // 1000 packets of 1500 bytes at 10 Mbit/s is 1.2 s of buffer: the FIFO
    // delays the ping by as much as the TCP flows keep queued; CAKE serves
    // it as a sparse flow, ahead of the bulk queues.
    assert!(fifo > 0.1, "fifo {fifo}");
    assert!(cake < 0.002, "cake {cake}");
    assert!(cake < 0.02 * fifo, "cake {cake} vs fifo {fifo}");
}

/// The gateway's uplink runs at 100 Mbit/s into a modem whose 10 Mbit/s
/// line has a 500-packet FIFO; `cake` is the gateway's queue table.
fn modem(cake: &str, flows: &str) -> String {
    format!(
        r#"
name = "modem"
duration = "40s"
warmup = "10s"
seed = 4
[[nodes]]
name = "h"
[[nodes]]
name = "gw"
[[nodes]]
name = "modem"
[[nodes]]
name = "isp"
[[nodes]]
name = "s"
[[links]]
a = "h"
b = "gw"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "gw"
b = "modem"
rate = "100Mbps"
delay = "0.1ms"
[links.queue_ab]
{cake}
[[links]]
a = "modem"
b = "isp"
rate = "10Mbps"
delay = "10ms"
[links.queue_ab]
kind = "droptail"
limit = 500
[[links]]
a = "isp"
b = "s"
rate = "100Mbps"
delay = "1ms"
{flows}
[output]
sample_links = ["gw->modem", "modem->isp"]
sample_interval = "100ms"
"#
    )
}

/// A 20 Mbit/s UDP flood of 1000-byte packets from h to s.
const FLOOD_20M: &str = r#"
[[flows]]
src = "h"
dst = "s"
transport = "udp"
app = "cbr"
rate = "20Mbps"
packet_size = 1000
"#;

fn sent_bps(out: &RunOutput, link: &str) -> f64 {
    let l = out.result.links.iter().find(|l| l.link == link).unwrap();
    l.tx_bytes as f64 * 8.0 / 30.0
}

#[test]
fn the_shaper_holds_its_rate_within_one_percent() {
    // An unresponsive 20 Mbit/s flood through a 9.5 Mbit/s shaper on a
    // 100 Mbit/s link: the gateway sends at the shaper's rate.
    let flood = FLOOD_20M;
    for rate in [9.5e6, 2e6] {
        let out = run(&modem(
            &format!("kind = \"cake\"\nlimit = 1000\nbandwidth = \"{}kbps\"", rate / 1e3),
            flood,
        ));
        let sent = sent_bps(&out, "gw->modem");
        eprintln!(
            "shaper {rate}: sent {sent:.0} bit/s ({:+.3}%)",
            (sent / rate - 1.0) * 100.0
        );
        assert!((sent / rate - 1.0).abs() < 0.01, "sent {sent} for {rate}");
        assert_queue_identities(queue(&out, "gw->modem"));
    }
}

#[test]
fn the_shaper_moves_the_queue_from_the_modem_into_cake() {
    let bulk = &bulk_tcp("bulk", "h", "s", 4);
    let shaped = run(&modem("kind = \"cake\"\nlimit = 1000\nbandwidth = \"9500kbps\"", bulk));
    let unshaped = run(&modem("kind = \"cake\"\nlimit = 1000", bulk));
    let modem_q = |o: &RunOutput| series_mean_from(o, "modem->isp", "len_pkts", 10.0);
    let (q_shaped, q_unshaped) = (modem_q(&shaped), modem_q(&unshaped));
    let sent = sent_bps(&shaped, "gw->modem");
    let sojourn = queue(&shaped, "gw->modem").avg_sojourn_s;
    eprintln!(
        "modem queue: shaped {q_shaped:.2} packets, unshaped {q_unshaped:.1}; shaped rate {sent:.0} bit/s, \
         CAKE sojourn {:.2} ms",
        sojourn * 1e3
    );
    // Without the shaper the modem's FIFO is the bottleneck and fills; with
    // it the modem's queue stays empty, CAKE holds the backlog at a few ms,
    // and TCP still fills the shaped rate.
    assert!(q_unshaped > 100.0, "unshaped modem queue {q_unshaped}");
    assert!(q_shaped < 1.0, "shaped modem queue {q_shaped}");
    assert!(sojourn < 0.015, "CAKE sojourn {sojourn}");
    assert!(sent > 0.97 * 9.5e6, "shaped rate {sent}");
}

#[test]
fn cake_runs_are_deterministic() {
    let text = home(
        "10Mbps",
        "kind = \"cake\"\nlimit = 1000\nbandwidth = \"9Mbps\"",
        &one_and_eight(),
    );
    assert_eq!(without_perf(&run(&text)), without_perf(&run(&text)));
}

#[test]
fn bad_cake_parameters_are_named() {
    let e = run_err(&home(
        "10Mbps",
        "kind = \"cake\"\nflow_mode = \"triple\"",
        &one_and_eight(),
    ));
    assert!(e.contains("flow_mode") && e.contains("triple-isolate"), "{e}");
    let e = run_err(&home(
        "10Mbps",
        "kind = \"cake\"\ndiffserv = \"diffserv4\"",
        &one_and_eight(),
    ));
    assert!(e.contains("diffserv") && e.contains("besteffort"), "{e}");
}

#[test]
fn a_backlog_left_by_a_stopped_flow_drains_at_the_shaper_rate() {
    // A 20 Mbit/s burst of one second (2500 packets of 1000 bytes) into a
    // 2 Mbit/s shaper with room for all of it (and a target beyond the
    // 9 s the last packet waits, so that COBALT drops none): after the last arrival no
    // event but the shaper's own wake-up (QueueDisc::next_release) moves
    // the queue, which drains over 10 s at exactly the shaper's rate.
    let burst = &format!("{FLOOD_20M}stop = \"1s\"\n");
    let text = modem(
        "kind = \"cake\"\nlimit = 3000\nbandwidth = \"2Mbps\"\ntarget = \"20s\"\ninterval = \"40s\"",
        burst,
    )
    .replace("warmup = \"10s\"", "warmup = \"0s\"");
    let out = run(&text);
    let f = &out.result.flows[0];
    assert_eq!(f.sent_packets, 2500);
    assert_eq!(f.received_packets, 2500, "the backlog must drain after the flow stops");
    let q = queue(&out, "gw->modem");
    assert_eq!(q.drops, 0);
    // The last packet left the shaper 2500 x 4 ms = 10 s after the first.
    assert!((q.max_sojourn_s - 9.0).abs() < 0.01, "max sojourn {}", q.max_sojourn_s);
}
