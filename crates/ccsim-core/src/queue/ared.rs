//! Adaptive RED's max_p controller and automatic parameter settings.
//!
//! Source: S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management", ICSI, 2001:
//! Figure 2 (every `interval`, max_p grows by alpha = min(0.01, max_p / 4)
//! when the average is above the target band and shrinks by the factor beta
//! when below it; the band is [min_th + 0.4 (max_th - min_th),
//! min_th + 0.6 (max_th - min_th)]) and Section 4 (max_th = 3 min_th,
//! min_th = max(5, target_delay C / 2), w_q = 1 - exp(-1/C), C the link
//! capacity in mean-sized packets per second). ns-2's `queue/red.cc`
//! (`updateMaxP`, `initialize_params`) is the reference implementation; the
//! automatic lower bound for max_p, min(0.01, 1/W) with W the window of a
//! 100 ms, 1000-byte-packet connection at the link rate, is ns-2's.

use crate::time::SimTime;

/// The AIMD controller of max_p.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MaxPController {
    /// Time between adaptations.
    pub interval: SimTime,
    /// Largest additive increase (the paper's 0.01).
    pub alpha: f64,
    /// Multiplicative decrease factor.
    pub beta: f64,
    /// max_p is increased only while it is at most `top`.
    pub top: f64,
    /// max_p is decreased only while it is at least `bottom`.
    pub bottom: f64,
}

impl MaxPController {
    /// One step of Figure 2: the new max_p for the average `avg`.
    pub fn adapt(&self, max_p: f64, avg: f64, min_th: f64, max_th: f64) -> f64 {
        let lo = min_th + 0.4 * (max_th - min_th);
        let hi = min_th + 0.6 * (max_th - min_th);
        if avg > hi && max_p <= self.top {
            max_p + self.alpha.min(max_p / 4.0)
        } else if avg < lo && max_p >= self.bottom {
            max_p * self.beta
        } else {
            max_p
        }
    }
}

/// Link capacity in packets of `mean_pkt_size` bytes per second (ns-2's `ptc`).
pub fn packets_per_second(link_rate_bps: u64, mean_pkt_size: u32) -> f64 {
    link_rate_bps as f64 / (8.0 * mean_pkt_size as f64)
}

/// Automatic min_th: max(5, target_delay x C / 2) packets (Section 4).
pub fn auto_min_th(target_delay: SimTime, ptc: f64) -> f64 {
    (target_delay.secs_f64() * ptc / 2.0).max(5.0)
}

/// Automatic w_q = 1 - exp(-1/C) (Section 4): the average's time constant
/// is one second of packets at the link rate.
pub fn auto_weight(ptc: f64) -> f64 {
    if ptc > 0.0 {
        1.0 - (-1.0 / ptc).exp()
    } else {
        0.002
    }
}

/// Automatic lower bound for max_p (ns-2): min(0.01, 80000 / bandwidth).
pub fn auto_bottom(link_rate_bps: u64) -> f64 {
    if link_rate_bps == 0 {
        return 0.01;
    }
    (80_000.0 / link_rate_bps as f64).min(0.01)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctl() -> MaxPController {
        MaxPController {
            interval: SimTime::from_millis(500),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.01,
        }
    }

    #[test]
    fn aimd_steps() {
        let c = ctl();
        // thresholds 5 and 15: target band [9, 11]
        assert!((c.adapt(0.1, 12.0, 5.0, 15.0) - 0.11).abs() < 1e-12);
        // small max_p: increment capped at max_p / 4
        assert!((c.adapt(0.02, 12.0, 5.0, 15.0) - 0.025).abs() < 1e-12);
        assert!((c.adapt(0.1, 8.0, 5.0, 15.0) - 0.09).abs() < 1e-12);
        assert_eq!(c.adapt(0.1, 10.0, 5.0, 15.0), 0.1);
        // bounds
        assert_eq!(c.adapt(0.51, 20.0, 5.0, 15.0), 0.51);
        assert_eq!(c.adapt(0.009, 1.0, 5.0, 15.0), 0.009);
    }

    #[test]
    fn automatic_settings() {
        // 10 Mbps, 500-byte packets: C = 2500 packets/s
        let ptc = packets_per_second(10_000_000, 500);
        assert_eq!(ptc, 2500.0);
        assert!((auto_min_th(SimTime::from_millis(5), ptc) - 6.25).abs() < 1e-12);
        assert_eq!(auto_min_th(SimTime::from_millis(5), 1000.0), 5.0);
        assert!((auto_weight(ptc) - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        assert!((auto_bottom(10_000_000) - 0.008).abs() < 1e-15);
        assert_eq!(auto_bottom(1_000_000), 0.01);
    }
}
