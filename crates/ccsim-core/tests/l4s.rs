//! L4S: classic and scalable flows through a DualPI2 queue (RFC 9332).
//!
//! The coupling (RFC 9332 section 2.1): with the base probability p', the
//! classic queue drops with p_C = p'^2 and the L queue marks with
//! p_L = k p'. A Reno flow's window is 1.22 / sqrt(p_C) (Mathis et al.), a
//! DCTCP-like scalable flow's 2 / p_L (RFC 9332 Appendix B), so their
//! windows stand in the ratio 2 / (1.22 k): 0.82 for the default k = 2,
//! 1 for k = 1.64; their rates in that ratio times the inverse ratio of
//! their RTTs, since the classic flows also wait in the classic queue.
//! Meanwhile the L queue's delay stays below its marking ramp (0.8-1.2 ms)
//! and the classic queue's near the PI's 15 ms target.
//!
//! The test checks each law at the probabilities the AQM applied (their
//! means over the run) and the ratio of the windows against the ratio of the
//! laws. Measured (docs/algorithms.md): k = 2, windows 21.5 (L) and 21.9 (C)
//! against laws 19.9 and 23.3, ratio 0.985 against 0.854; against the
//! RFC's 2/(1.22 k) = 0.82, which takes p_C as the square of the mean p',
//! +20% (the mean of p'^2 exceeds the square of the mean p', and the
//! scalable windows run 8% above 2/p_L, the classic ones 6% below the law).

mod common;
use ccsim_core::RunOutput;
use common::*;

/// One-way propagation and transmission of a data packet with empty
/// queues: 2 + 6 + 2 ms and three transmissions of 1500 bytes.
const BASE_ONE_WAY_S: f64 = 0.010 + 1500.0 * 8.0 * (2.0 / 1e9 + 1.0 / 40e6);

/// The group's mean window, packets (goodput x RTT), and its mean queueing
/// delay at the bottleneck, seconds.
fn window_and_delay(out: &RunOutput, g: &str) -> (f64, f64) {
    let flows = group(out, g);
    let n = flows.len() as f64;
    let delay = flows.iter().map(|f| f.delay_mean_s.unwrap()).sum::<f64>() / n;
    let rtt = flows.iter().map(|f| f.srtt_mean_s.unwrap()).sum::<f64>() / n;
    (mean_goodput(out, g) * rtt / (1460.0 * 8.0), delay - BASE_ONE_WAY_S)
}

fn run(k: f64) -> RunOutput {
    let text = format!(
        r#"
name = "l4s"
duration = "100s"
warmup = "30s"
seed = 2
{topology}
[[flows]]
group = "classic"
count = 2
transport = "tcp"
app = "bulk"
cc = "newreno"
window = 1000
start = {{ uniform = ["0s", "1s"] }}
[[flows]]
group = "l4s"
count = 2
transport = "tcp"
app = "bulk"
cc = "prague"
window = 1000
start = {{ uniform = ["0s", "1s"] }}
[output]
sample_links = ["r1->r2"]
sample_interval = "10ms"
"#,
        topology = dumbbell_with(
            4,
            ("1Gbps", "2ms"),
            ("40Mbps", "6ms"),
            &format!("kind = \"dualpi2\"\nlimit = 2000\nk = {k}")
        )
    );
    common::run(&text)
}

fn mean_after_warmup(out: &RunOutput, metric: &str) -> f64 {
    series_mean_from(out, "r1->r2", metric, 30.0)
}

#[test]
fn coupling_balances_classic_and_scalable_windows_as_the_rfc_predicts() {
    for k in [2.0, 1.64] {
        let out = run(k);
        let (w_l, d_l) = window_and_delay(&out, "l4s");
        let (w_c, d_c) = window_and_delay(&out, "classic");
        // The laws at the probabilities the AQM applied: Reno 1.22/sqrt(p_C),
        // scalable 2/p_L with p_L = p_CL (the L queue's own ramp stays idle).
        let (p_c, p_cl) = (mean_after_warmup(&out, "p_c"), mean_after_warmup(&out, "p_cl"));
        let (law_c, law_l) = (1.22 / p_c.sqrt(), 2.0 / p_cl);
        let (ratio, law_ratio) = (w_l / w_c, law_l / law_c);
        let util = out
            .result
            .links
            .iter()
            .find(|l| l.link == "r1->r2")
            .unwrap()
            .utilization;
        eprintln!(
            "k={k}: windows L {w_l:.1} (law {law_l:.1}), C {w_c:.1} (law {law_c:.1}); ratio {ratio:.3}, coupling law {law_ratio:.3}, 2/(1.22k) = {:.3}; queues L {:.2} ms, C {:.1} ms; utilization {util:.3}",
            2.0 / (1.22 * k),
            d_l * 1e3,
            d_c * 1e3
        );
        assert!(
            (w_c / law_c - 1.0).abs() <= 0.15,
            "k={k}: classic window {w_c} vs {law_c}"
        );
        assert!(
            (w_l / law_l - 1.0).abs() <= 0.15,
            "k={k}: scalable window {w_l} vs {law_l}"
        );
        assert!(
            (ratio / law_ratio - 1.0).abs() <= 0.2,
            "k={k}: ratio {ratio} vs {law_ratio}"
        );
        assert!(d_l < 1.2e-3, "k={k}: L queue delay {d_l}");
        assert!((0.5 * 15e-3..1.5 * 15e-3).contains(&d_c), "k={k}: C queue delay {d_c}");
        assert!(util > 0.95, "k={k}: utilization {util}");
    }
}
