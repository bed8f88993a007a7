//! Response functions: goodput of one bulk flow against the loss rate, for
//! Reno and NewReno (Mathis et al. 1997; Padhye et al. 1998) and CUBIC
//! (RFC 9438 section 5.1).
//!
//! Set-up: one flow over a bottleneck much faster than the flow with a
//! buffer that never overflows, so the only losses are the link's Bernoulli
//! (or scripted) losses and the RTT is the propagation RTT; no delayed ACKs.

mod common;
mod tcp_support;
use ccsim_core::rng::{stream, uniform01};
use tcp_support::*;

/// Base RTT of `single_flow` with a bottleneck delay of 48 ms: 2 x (1 + 48 + 1) ms.
const RTT_100: f64 = 0.100;

fn reno_like(cc: &str, p: f64, secs: u64) -> (f64, f64, u64) {
    let loss = format!("{{ model = \"bernoulli\", rate = {p} }}");
    let out = run(&single_flow("20Mbps", 48.0, &loss, secs, 1, &format!("cc = \"{cc}\"")));
    let f = &out.result.flows[0];
    let srtt = f.srtt_mean_s.expect("srtt");
    // The mean SRTT is the propagation RTT plus serialization (< 1 ms): no queueing.
    assert!((srtt - RTT_100).abs() < 0.003, "{cc} p={p}: srtt {srtt}");
    (f.goodput_bps, srtt, f.fast_retransmits)
}

/// Mathis et al.: goodput within 20% of MSS/RTT sqrt(3/(2p)) at p = 0.001,
/// 0.003, 0.01. The formula ignores timeouts and models periodic losses;
/// with random losses the constant is known to be a little different
/// (Mathis et al. report 1.22 to 1.31), which with the sampling error of
/// 100-200 loss events per run is why 20% (the bound) is the
/// tolerance. Durations give at least ~100 loss events.
#[test]
fn mathis_reno_and_newreno() {
    for cc in ["reno", "newreno"] {
        for (p, secs) in [(0.001, 300), (0.003, 200), (0.01, 200)] {
            let (goodput, srtt, events) = reno_like(cc, p, secs);
            let ratio = goodput / mathis_bps(srtt, p);
            assert!(events >= 90, "{cc} p={p}: only {events} loss events");
            assert!((0.8..=1.2).contains(&ratio), "{cc} p={p}: goodput/Mathis = {ratio:.3}");
        }
    }
}

/// Padhye et al. (PFTK) full model with timeouts at p = 0.03 and 0.05, where
/// timeouts matter and the Mathis formula overestimates. b = 1 (no delayed
/// ACKs), T0 = the sender's RTO = SRTT + max(min_rto, 4 RTTVAR) ~ SRTT +
/// 200 ms, Wmax = 64 (the receiver window). Tolerance 20%: PFTK assume
/// losses correlated within a round while ours are independent, and the
/// paper's own validation shows errors of this order.
#[test]
fn pftk_with_timeouts() {
    for cc in ["reno", "newreno"] {
        for p in [0.03, 0.05] {
            let (goodput, srtt, _) = reno_like(cc, p, 300);
            let model = pftk_bps(srtt, p, 1.0, srtt + 0.2, 64.0);
            let ratio = goodput / model;
            assert!((0.8..=1.2).contains(&ratio), "{cc} p={p}: goodput/PFTK = {ratio:.3}");
            // Mathis, which ignores timeouts, is too optimistic here.
            assert!(goodput < 0.95 * mathis_bps(srtt, p), "{cc} p={p}");
        }
    }
}

/// RFC 9438 section 5.1 response function: average window in the cubic
/// region, (C (3 + beta) / (4 (1 - beta)))^(1/4) (RTT / p)^(3/4).
fn cubic_window(rtt: f64, p: f64) -> f64 {
    ccsim_core::cc::cubic::response_window(0.4, 0.7, rtt, p)
}

/// The RFC 9438 window equations (eqs. 1, 2 and 4, sections 4.6-4.7) as a
/// fluid model: the window follows max(W_cubic(t), W_est(t)) between losses
/// and is multiplied by beta at each; losses come every N packets with N
/// geometric of mean 1/p (Bernoulli losses). Returns the average window
/// (packets per RTT). With N = 1/p exactly it reproduces the closed form
/// (the deterministic model the RFC derives it from).
fn cubic_fluid(rtt: f64, p: f64, epochs: usize, random: bool) -> f64 {
    let (c, beta) = (0.4f64, 0.7f64);
    let alpha = 3.0 * (1.0 - beta) / (1.0 + beta);
    let mut rng = stream(7, "cubic-fluid");
    let (mut w_max, mut w_loss) = (100.0f64, 100.0f64);
    let (mut pkts, mut time) = (0.0, 0.0);
    let dt = rtt / 8.0;
    for e in 0..epochs {
        let w0 = beta * w_loss;
        let k = ((w_max - w0) / c).cbrt();
        let n = if random {
            -(1.0 - uniform01(&mut rng)).ln() / p
        } else {
            1.0 / p
        };
        let (mut t, mut sent) = (0.0, 0.0);
        let w_at = |t: f64| (c * (t - k).powi(3) + w_max).max(w0 + alpha * t / rtt).max(1.0);
        loop {
            let rate = w_at(t) / rtt;
            if sent + rate * dt >= n {
                t += (n - sent) / rate;
                break;
            }
            sent += rate * dt;
            t += dt;
        }
        let wl = w_at(t);
        if e >= 100 {
            pkts += n;
            time += t;
        }
        // fast convergence (section 4.7)
        w_max = if wl < w_max { wl * (1.0 + beta) / 2.0 } else { wl };
        w_loss = wl;
    }
    pkts * rtt / time
}

fn cubic_window_measured(loss: &str, secs: u64, seed: u64, delay_ms: f64) -> (f64, f64) {
    let out = run(&single_flow(
        "50Mbps",
        delay_ms,
        loss,
        secs,
        seed,
        "cc = \"cubic\"\nwindow = 5000",
    ));
    let f = &out.result.flows[0];
    let srtt = f.srtt_mean_s.expect("srtt");
    (f.goodput_bps * srtt / (MSS * 8.0), srtt)
}

/// CUBIC in its cubic region: RTT 200 ms, p = 2e-4, where the closed form
/// gives ~188 packets against the Reno-friendly 87, so the cubic curve
/// governs. Each run lasts 500 s (~100 loss events).
///
/// 1. With deterministic losses (every 5000th data packet, `drop_list`),
///    the model the RFC's closed form is derived for, the average window is
///    within 20% of it. (It comes out ~8% below: the fluid derivation has
///    every loss exactly at W_max, while in packets the recovery round does
///    not grow, so a loss can come a little below W_max and trigger fast
///    convergence.)
/// 2. With Bernoulli losses, as the issue asks, the same equations predict
///    ~14% more than the closed form (convex probing after long loss-free
///    intervals outweighs the short ones); the measured window is within 20%
///    of that random-loss prediction, which this test computes from the RFC's
///    own equations with the fluid model above (checked against the closed
///    form under deterministic loss). Two seeds.
#[test]
fn cubic_response_function() {
    let (rtt_target, p, secs) = (0.2, 2e-4, 500);
    let delay = rtt_target * 1000.0 / 2.0 - 2.0;
    // 1. deterministic losses
    let list: Vec<String> = (1..2000u64).map(|k| (k * 5000).to_string()).collect();
    let loss = format!("{{ model = \"drop_list\", packets = [{}] }}", list.join(", "));
    let (w, srtt) = cubic_window_measured(&loss, secs, 1, delay);
    let closed = cubic_window(srtt, p);
    assert!(closed > 2.0 * (1.5 / p).sqrt(), "in the cubic region");
    let ratio = w / closed;
    assert!(
        (0.8..=1.2).contains(&ratio),
        "deterministic: window {w:.1} vs RFC 9438 {closed:.1} ({ratio:.3})"
    );
    // The fluid model reproduces the closed form under deterministic loss
    // (within its integration step's error): a check of the model itself.
    let fluid_det = cubic_fluid(srtt, p, 2_000, false);
    assert!(
        (fluid_det / closed - 1.0).abs() < 0.03,
        "fluid {fluid_det:.1} vs closed {closed:.1}"
    );
    // 2. random losses
    let predicted = cubic_fluid(srtt, p, 20_000, true);
    assert!(predicted > closed, "random losses raise the average window");
    for seed in [1, 2] {
        let loss = format!("{{ model = \"bernoulli\", rate = {p} }}");
        let (w, _) = cubic_window_measured(&loss, secs, seed, delay);
        let ratio = w / predicted;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "seed {seed}: window {w:.1} vs RFC 9438 under random loss {predicted:.1} ({ratio:.3}; closed form {closed:.1})"
        );
    }
}

/// At a small BDP (RTT 20 ms, p = 0.01) the cubic curve would give under
/// two packets; CUBIC follows its Reno-friendly estimate instead
/// (RFC 9438 section 4.3), whose AIMD(3(1-b)/(1+b), b) is built to match
/// Reno's response function: goodput within 20% of Mathis's formula.
#[test]
fn cubic_reno_friendly_at_small_bdp() {
    let p = 0.01;
    let out = run(&single_flow(
        "50Mbps",
        8.0,
        &format!("{{ model = \"bernoulli\", rate = {p} }}"),
        200,
        1,
        "cc = \"cubic\"",
    ));
    let f = &out.result.flows[0];
    let srtt = f.srtt_mean_s.unwrap();
    let w = f.goodput_bps * srtt / (MSS * 8.0);
    let ratio = f.goodput_bps / mathis_bps(srtt, p);
    assert!((0.8..=1.2).contains(&ratio), "goodput/Mathis = {ratio:.3}");
    assert!(
        w > 4.0 * cubic_window(srtt, p),
        "window {w:.1} far above the cubic curve's"
    );
}
