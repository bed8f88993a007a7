//! DCTCP (RFC 8257) over a step-marking queue against the analysis of its
//! sawtooth (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010,
//! section 3.3; the fluid model of Alizadeh, Javanmard and Prabhakar,
//! "Analysis of DCTCP", SIGMETRICS 2011, has the same limit cycle).
//!
//! N synchronized flows with the same RTT share a link of capacity C
//! marking at K packets. With W* = (C x RTT + K) / N, the window at which
//! the queue reaches K, the queue oscillates with amplitude
//! A = (1/2) sqrt(2 N (C x RTT + K)) packets and period
//! T_C = (1/2) sqrt(2 (C x RTT + K) / N) round trips, peaking at
//! Q_max = K + N (section 3.3 of the SIGCOMM paper). C x RTT is the
//! pipe of the propagation round trip; a round trip of the period is the
//! measured one (propagation plus the mean queueing delay).
//!
//! Reading of the period: the analysis lets every window grow by one
//! segment per round trip throughout, so a period is the D = A / N round
//! trips the windows take to regrow the reduction. A sender that follows
//! RFC 3168 section 6.1.2 (as RFC 8257 does, and Linux in its CWR state)
//! does not grow on ACKs carrying ECN-Echo, which last the one round trip
//! the queue spends above K, so its period is T_C + 1 round trips. The
//! test compares with T_C + 1; the numbers against T_C alone (-6% for 2
//! flows, +29% for 10) are in docs/algorithms.md.

mod common;
use ccsim_core::RunOutput;
use common::*;

const K: f64 = 60.0;
/// Wire bytes per segment (1460 payload + 40 header).
const PKT: f64 = 1500.0;
const RATE: f64 = 1e9;
/// 2 x (0.5 ms + 1 ms + 0.5 ms).
const RTT_PROP: f64 = 4e-3;
const WARMUP: f64 = 0.5;

fn run(n: u32, cc: &str) -> RunOutput {
    let text = format!(
        r#"
name = "dctcp-sawtooth"
duration = "2s"
warmup = "{WARMUP}s"
seed = 3
{topology}
[[flows]]
group = "dctcp"
count = {n}
transport = "tcp"
app = "bulk"
cc = "{cc}"
ecn = true
window = 2000
start = "0s"
[output]
sample_links = ["r1->r2"]
sample_flows = false
sample_interval = "50us"
"#,
        topology = dumbbell_with(
            n,
            ("10Gbps", "0.5ms"),
            ("1Gbps", "1ms"),
            "kind = \"droptail\"\nlimit = 2000\nmark_threshold = 60"
        )
    );
    common::run(&text)
}

/// The bottleneck queue's samples after the warmup.
fn queue_samples(out: &RunOutput) -> Vec<f64> {
    series(out, "r1->r2", "len_pkts")
        .iter()
        .zip(&out.timeseries.time_s)
        .filter(|(_, &t)| t >= WARMUP)
        .map(|(v, _)| *v)
        .collect()
}

/// (mean, amplitude, period in samples) of an oscillation: cycles start at
/// upward crossings of the mean (with one packet of hysteresis); the
/// amplitude is the mean over whole cycles of max - min.
fn sawtooth(q: &[f64]) -> (f64, f64, f64) {
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    let mut ups = Vec::new();
    let mut below = false;
    for (i, &v) in q.iter().enumerate() {
        if v < mean - 1.0 {
            below = true;
        } else if below && v > mean {
            ups.push(i);
            below = false;
        }
    }
    assert!(ups.len() > 10, "no oscillation: {} crossings", ups.len());
    let amp = ups
        .windows(2)
        .map(|w| {
            let c = &q[w[0]..w[1]];
            c.iter().cloned().fold(f64::MIN, f64::max) - c.iter().cloned().fold(f64::MAX, f64::min)
        })
        .sum::<f64>()
        / (ups.len() - 1) as f64;
    let period = (ups[ups.len() - 1] - ups[0]) as f64 / (ups.len() - 1) as f64;
    (mean, amp, period)
}

#[test]
fn dctcp_queue_oscillates_as_the_sawtooth_analysis_predicts() {
    let bdp = RATE * RTT_PROP / (PKT * 8.0);
    for n in [2u32, 10] {
        let out = run(n, "dctcp");
        let q = queue_samples(&out);
        let (mean, amp, period_samples) = sawtooth(&q);
        let nf = n as f64;
        let a_model = 0.5 * (2.0 * nf * (bdp + K)).sqrt();
        let t_model_rtts = 0.5 * (2.0 * (bdp + K) / nf).sqrt();
        let rtt = RTT_PROP + mean * PKT * 8.0 / RATE;
        let period_rtts = period_samples * 50e-6 / rtt;
        let b = bottleneck(&out);
        eprintln!(
            "N={n}: mean queue {mean:.1}, amplitude {amp:.2} (model {a_model:.2}), period {period_rtts:.2} RTTs (model {t_model_rtts:.2}), drops {}, marks {}",
            b.drops, b.marks
        );
        assert!(
            (amp / a_model - 1.0).abs() <= 0.2,
            "N={n}: amplitude {amp} vs {a_model}"
        );
        let t_sender = t_model_rtts + 1.0;
        assert!(
            (period_rtts / t_sender - 1.0).abs() <= 0.2,
            "N={n}: period {period_rtts} vs {t_sender} RTTs"
        );
        // The queue stays between Q_max - A and Q_max = K + N: no loss, the link full.
        assert!(mean > K + nf - 1.2 * a_model && mean < K + nf, "N={n}: mean {mean}");
        assert_eq!(b.drops, 0);
        let util = out
            .result
            .links
            .iter()
            .find(|l| l.link == "r1->r2")
            .unwrap()
            .utilization;
        assert!(util > 0.99, "N={n}: utilization {util}");
    }
}

#[test]
fn rfc3168_halving_swings_the_queue_further_than_dctcp() {
    // The point of DCTCP: the same marks make NewReno (RFC 3168) halve,
    // so with 2 flows its queue swings by about half the pipe plus K (it
    // empties: 2 x 393 / 4 > 60), while DCTCP's swing stays near A (20
    // packets) and its queue never empties. Same link, same threshold.
    let range = |out: &RunOutput| {
        let q = queue_samples(out);
        let max = q.iter().cloned().fold(f64::MIN, f64::max);
        let min = q.iter().cloned().fold(f64::MAX, f64::min);
        (min, max - min)
    };
    let (dctcp_min, dctcp_swing) = range(&run(2, "dctcp"));
    let (reno_min, reno_swing) = range(&run(2, "newreno"));
    assert!(dctcp_min > 0.0 && reno_min == 0.0, "minima {dctcp_min} {reno_min}");
    assert!(
        reno_swing > 2.0 * dctcp_swing,
        "newreno swing {reno_swing} vs dctcp {dctcp_swing}"
    );
}
