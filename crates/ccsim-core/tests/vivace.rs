//! PCC Vivace (Dong et al., NSDI 2018; cc/vivace.rs) in closed loop: one
//! flow fills a 10 Mbit/s link with a small standing queue (the latency
//! gradient stops it short of bufferbloat), two flows converge to a fair
//! share, and under 1% random loss Vivace keeps most of its throughput
//! where Reno collapses (the shape of the paper's random-loss experiment:
//! throughput against random loss rate for Vivace and TCP).

mod common;
use ccsim_core::RunOutput;
use common::*;

/// `n` flows of `cc` on a dumbbell with a 10 Mbit/s, 20 ms bottleneck
/// (RTT about 44 ms) and a DropTail queue of 100 packets, `loss` random
/// loss on r1->r2 (none if empty), over [warmup, duration]; starts staggered by `gap_s`.
fn run(cc: &str, n: u32, loss: &str, gap_s: f64, warmup: &str, duration: &str) -> RunOutput {
    let mut flows = String::new();
    for k in 0..n {
        flows.push_str(&format!(
            r#"
[[flows]]
group = "f{k}"
transport = "tcp"
app = "bulk"
cc = "{cc}"
window = 10000
start = "{}s"
"#,
            k as f64 * gap_s
        ));
    }
    let text = format!(
        r#"
name = "vivace"
duration = "{duration}"
warmup = "{warmup}"
seed = 5
{topology}
{loss}
{flows}
[output]
sample_links = ["r1->r2"]
sample_flows = false
sample_interval = "100ms"
"#,
        topology = dumbbell_with(
            n,
            ("100Mbps", "1ms"),
            ("10Mbps", "20ms"),
            "kind = \"droptail\"\nlimit = 100"
        ),
    );
    common::run(&text)
}

#[test]
fn one_flow_fills_the_link_with_a_small_queue() {
    let out = run("vivace", 1, "", 0.0, "10s", "60s");
    let util = link_utilization(&out, "r1->r2");
    let q = bottleneck(&out);
    eprintln!(
        "vivace alone: utilization {util:.3}, mean queue {:.1} pkts (max {}), drops {}",
        q.avg_len_pkts, q.max_len_pkts, q.drops
    );
    assert!(util > 0.9, "utilization {util}");
    assert!(q.avg_len_pkts < 20.0, "mean queue {}", q.avg_len_pkts);
}

#[test]
fn two_flows_converge_to_a_fair_share() {
    let out = run("vivace", 2, "", 5.0, "20s", "60s");
    let jain = out.result.summary.jain_index;
    let g: Vec<f64> = out.result.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
    eprintln!("two vivace flows (second starts at 5 s), 20-60 s: goodputs {g:?} Mbit/s, Jain {jain:.3}");
    assert!(jain > 0.9, "Jain {jain}");
    assert!(link_utilization(&out, "r1->r2") > 0.85);
}

#[test]
fn under_one_percent_random_loss_vivace_keeps_its_throughput_and_reno_does_not() {
    let loss = "[topology.bottleneck.loss]\nmodel = \"bernoulli\"\nrate = 0.01";
    let viv = run("vivace", 1, loss, 0.0, "10s", "60s");
    let reno = run("reno", 1, loss, 0.0, "10s", "60s");
    let (v, r) = (
        flow(&viv, "f0.0").goodput_bps / 1e6,
        flow(&reno, "f0.0").goodput_bps / 1e6,
    );
    eprintln!("1% random loss on 10 Mbit/s: vivace {v:.2} Mbit/s, reno {r:.2} Mbit/s");
    assert!(v > 8.0, "vivace {v}");
    assert!(r < 0.5 * v, "reno {r} vivace {v}");
}
