//! Helpers shared by the TCP integration tests, on top of `common` (which
//! every file using this module declares too, and which this re-exports).
#![allow(dead_code)]

pub use crate::common::*;

/// Payload bytes per segment (the default MSS).
pub const MSS: f64 = 1460.0;

/// A one-pair dumbbell: access links 1 Gbit/s with 1 ms, a bottleneck of
/// `rate` with `delay` and a large buffer, `loss` applied to r1->r2, and one
/// bulk TCP flow with the extra keys `flow`.
pub fn single_flow(rate: &str, delay_ms: f64, loss: &str, duration_s: u64, seed: u64, flow: &str) -> String {
    format!(
        r#"
name = "single"
duration = "{duration_s}s"
warmup = "20s"
seed = {seed}
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "1Gbps"
delay = "1ms"
[topology.bottleneck]
rate = "{rate}"
delay = "{delay_ms}ms"
loss = {loss}
[topology.bottleneck.queue]
limit = 2000
[[flows]]
transport = "tcp"
app = "bulk"
{flow}
"#
    )
}

/// Mathis et al. (1997) eq. (3): MSS / RTT * sqrt(3 / (2p)), bit/s.
pub fn mathis_bps(rtt_s: f64, p: f64) -> f64 {
    MSS * 8.0 / rtt_s * (1.5 / p).sqrt()
}

/// Padhye, Firoiu, Towsley and Kurose (1998) eq. (32), the "full model"
/// with timeouts: packets/s times MSS, bit/s; `b` packets per ACK, `t0`
/// the retransmission timeout, `wmax` the receiver window (packets).
pub fn pftk_bps(rtt_s: f64, p: f64, b: f64, t0_s: f64, wmax: f64) -> f64 {
    let denom = rtt_s * (2.0 * b * p / 3.0).sqrt()
        + t0_s * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    MSS * 8.0 * (wmax / rtt_s).min(1.0 / denom)
}
