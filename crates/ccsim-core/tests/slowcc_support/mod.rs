//! Helpers shared by the slowly-responsive congestion control tests
//! (slowcc_*.rs). The measures here mirror `ccsim.measures` (Python), which
//! docs/measures.md defines. Built on `common` (which every file using this
//! module declares too, and which this re-exports).
#![allow(dead_code)]

pub use crate::common::*;
use ccsim_core::RunOutput;

/// The sample times.
pub fn times(out: &RunOutput) -> &[f64] {
    &out.timeseries.time_s
}

/// Values whose sample time t (covering (t - interval, t]) lies in (from, to].
pub fn window<'a>(out: &'a RunOutput, values: &'a [f64], from: f64, to: f64) -> Vec<f64> {
    times(out)
        .iter()
        .zip(values)
        .filter(|(&t, _)| t > from + 1e-9 && t <= to + 1e-9)
        .map(|(_, &v)| v)
        .collect()
}

/// Mean of the finite values.
pub fn mean(xs: &[f64]) -> f64 {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Coefficient of variation (population standard deviation over mean).
pub fn cov(xs: &[f64]) -> f64 {
    let m = mean(xs);
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64;
    var.sqrt() / m
}

/// RFC 5348's throughput equation (t_RTO = 4R, b = 1), bytes/s.
pub fn tfrc_equation(s: f64, r: f64, p: f64) -> f64 {
    s / (r * (2.0 * p / 3.0).sqrt() + 4.0 * r * (3.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p)))
}

/// Sum of the values whose sample time lies in (from, to].
pub fn sum_window(out: &RunOutput, values: &[f64], from: f64, to: f64) -> f64 {
    window(out, values, from, to).iter().sum()
}

/// The pooled drop rate of the queue of `link` over (from, to]: drops /
/// arrivals (docs/measures.md, `drop_rate_over`).
pub fn drop_rate(out: &RunOutput, link: &str, from: f64, to: f64) -> f64 {
    let d = sum_window(out, series(out, link, "drops"), from, to);
    let a = sum_window(out, series(out, link, "arrivals"), from, to);
    if a > 0.0 {
        d / a
    } else {
        0.0
    }
}

/// Stabilization after a sudden bandwidth reduction at `t0` (Bansal,
/// Balakrishnan, Floyd and Shenker 2001, section 4.1; docs/measures.md):
/// the time from t0 to the end of the first window of length `w` whose
/// pooled drop rate is within `factor` times the steady-state drop rate
/// (measured over `steady`), and the cost: that time in RTTs times the
/// pooled drop rate over it. Windows in which nothing arrived are skipped.
/// None if it never stabilizes.
pub fn stabilization(
    out: &RunOutput,
    link: &str,
    t0: f64,
    w: f64,
    steady: (f64, f64),
    factor: f64,
    rtt: f64,
) -> Option<(f64, f64)> {
    let p_ss = drop_rate(out, link, steady.0, steady.1);
    let mut t = t0 + w;
    let arrivals = series(out, link, "arrivals");
    while t <= steady.1 + 1e-9 {
        if sum_window(out, arrivals, t - w, t) > 0.0 && drop_rate(out, link, t - w, t) <= factor * p_ss {
            let ts = t - t0;
            return Some((ts, ts / rtt * drop_rate(out, link, t0, t)));
        }
        t += w;
    }
    None
}

/// The first sample time after `t0` at which the mean of `values` over the
/// trailing window of length `w` is at most `target` (the response time of
/// a rate series; docs/measures.md, `response_time`), as time after t0.
pub fn response_time(out: &RunOutput, values: &[f64], t0: f64, w: f64, target: f64) -> Option<f64> {
    for &t in times(out).iter().filter(|&&t| t >= t0 + w - 1e-9) {
        if mean(&window(out, values, t - w, t)) <= target {
            return Some(t - t0);
        }
    }
    None
}
