//! The TCP throughput equation of TFRC (RFC 5348 section 3.1), from Padhye,
//! Firoiu, Towsley and Kurose (SIGCOMM 1998):
//!
//! ```text
//!                               s
//! X_Bps = ----------------------------------------------------------
//!         R*sqrt(2*b*p/3) + (t_RTO * (3*sqrt(3*b*p/8)*p*(1+32*p^2)))
//! ```
//!
//! with the RFC's simplification t_RTO = 4R (section 3.1: "t_RTO = 4*R")
//! and b = 1 (the RFC's recommendation; b is the number of packets one TCP
//! acknowledgement covers). `s` is the packet size in bytes, R the RTT in
//! seconds and p the loss event rate; X_Bps is in bytes per second.

/// The throughput equation: bytes per second for packet size `s` (bytes),
/// round-trip time `r` (s), loss event rate `p` in (0, 1], `b` packets per
/// ACK and retransmission timeout `t_rto` (s). Infinite for p = 0.
pub fn throughput(s: f64, r: f64, p: f64, b: f64, t_rto: f64) -> f64 {
    if p <= 0.0 {
        return f64::INFINITY;
    }
    let denom = r * (2.0 * b * p / 3.0).sqrt() + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p));
    s / denom
}

/// RFC 5348's form: t_RTO = 4R, b = 1.
pub fn x_bps(s: f64, r: f64, p: f64) -> f64 {
    throughput(s, r, p, 1.0, 4.0 * r)
}

/// The loss event rate at which [`x_bps`] gives `x` bytes/s, for the first
/// loss interval (RFC 5348 section 6.3.1: "the receiver ... finds the value
/// of p for which X_calc(p) = X_recv"). The equation decreases strictly in
/// p, so bisection on log p finds it; the result is clamped to
/// [1e-8, 1] (1e-8: one loss in 10^8 packets, beyond any simulated run).
pub fn p_for_rate(x: f64, s: f64, r: f64) -> f64 {
    const P_MIN: f64 = 1e-8;
    if x.is_nan() || x <= 0.0 || x_bps(s, r, 1.0) >= x {
        return 1.0;
    }
    if x_bps(s, r, P_MIN) <= x {
        return P_MIN;
    }
    let (mut lo, mut hi) = (P_MIN.ln(), 0.0_f64);
    // 100 halvings of a range of ~18.4 in log p: far below f64 resolution.
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if x_bps(s, r, mid.exp()) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computation() {
        // s = 1000 B, R = 0.1 s, p = 0.01, t_RTO = 0.4 s:
        // sqrt(0.02/3) = 0.0816497; 3 sqrt(0.00375) = 0.1837117;
        // t_RTO term = 0.4 * 0.1837117 * 0.01 * 1.0032 = 0.000737196;
        // denominator = 0.00816497 + 0.000737196 = 0.00890216 -> 112332.2 B/s.
        let x = x_bps(1000.0, 0.1, 0.01);
        assert!((x - 112_332.2).abs() < 0.1, "{x}");
        // Without the timeout term it is the square-root law s/(R sqrt(2p/3)).
        let sqrt_law = throughput(1000.0, 0.1, 0.01, 1.0, 0.0);
        assert!((sqrt_law - 1000.0 / (0.1 * (0.02f64 / 3.0).sqrt())).abs() < 1e-6);
        assert_eq!(x_bps(1000.0, 0.1, 0.0), f64::INFINITY);
    }

    #[test]
    fn decreasing_in_p_and_r() {
        let mut last = f64::INFINITY;
        for i in 1..200 {
            let p = i as f64 / 200.0;
            let x = x_bps(1500.0, 0.05, p);
            assert!(x < last);
            last = x;
        }
        assert!(x_bps(1500.0, 0.2, 0.01) < x_bps(1500.0, 0.1, 0.01));
    }

    #[test]
    fn inverse_round_trips() {
        for &p in &[1e-6, 1e-4, 0.003, 0.01, 0.05, 0.2, 0.7] {
            let x = x_bps(1460.0, 0.08, p);
            let back = p_for_rate(x, 1460.0, 0.08);
            assert!((back / p - 1.0).abs() < 1e-9, "p {p} -> {back}");
        }
        // A rate the equation cannot reach even at p = 1 maps to p = 1.
        assert_eq!(p_for_rate(1.0, 1000.0, 0.1), 1.0);
        assert_eq!(p_for_rate(0.0, 1000.0, 0.1), 1.0);
    }
}
