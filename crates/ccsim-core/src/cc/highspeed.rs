//! HighSpeed TCP (RFC 3649).
//!
//! At windows up to Low_Window (38 segments) HighSpeed TCP is standard TCP.
//! Above it the congestion-avoidance increase a(w) per RTT and the decrease
//! fraction b(w) follow from the HighSpeed response function, which joins
//! (Low_Window, Low_P = 10^-3) to (High_Window = 83000, High_P = 10^-7)
//! (RFC 3649 sections 5 and 6):
//!
//! - b(w) = (High_Decrease - 0.5) (log w - log Low_Window) /
//!   (log High_Window - log Low_Window) + 0.5
//! - p(w) = 0.078 / w^1.2, the RFC's closed form of the response function
//!   w = 0.12 / p^0.835 with its default parameters
//! - a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//!
//! These closed forms reproduce every row of the RFC's Appendix B table
//! (a(w) to the integer, b(w) to two decimals); the interpolation through
//! (Low_P, High_P) that section 5 describes drifts from it by up to 3% at
//! large windows because the RFC rounded 0.078 and 1.2, so ccsim follows the
//! closed form (as Linux `tcp_highspeed.c` follows the table). On each ACK
//! cwnd += a(w) / w; on loss cwnd = (1 - b(w)) w. a(w) is cached per integer
//! window. Slow start is RFC 5681's (Limited Slow-Start, RFC 3742, is not
//! implemented).

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent, Window};
use crate::params::ParamError;
use crate::rng::SimRng;
use serde::Deserialize;

/// HighSpeed TCP parameters (RFC 3649 section 5).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedConfig {
    /// Low_Window, segments (default 38).
    pub low_window: f64,
    /// High_Window, segments (default 83000).
    pub high_window: f64,
    /// High_Decrease (default 0.1).
    pub high_decrease: f64,
    /// Which HighSpeed: "rfc3649" (this module's closed forms) or
    /// "linux-2.6.22" (the kernel's Appendix B table in integers, cwnd =
    /// ssthresh / 2 at a loss, as ns-2.35's `Agent/TCP/Linux` runs it:
    /// [`super::linux2622::LinuxHighSpeed`]; its table fixes the other
    /// parameters). Default "rfc3649"; "linux-2.6.22" with `linux_agent`
    /// (under `compat = "ns2"`).
    pub variant: Option<HighSpeedVariant>,
}

/// The HighSpeed implementations (key `variant` of `highspeed`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum HighSpeedVariant {
    /// RFC 3649's closed forms.
    #[serde(rename = "rfc3649")]
    Rfc3649,
    /// Linux 2.6.22's `tcp_highspeed.c` (ns-2.35 `tcp/linux/src/tcp_highspeed.c`).
    #[serde(rename = "linux-2.6.22")]
    Linux2622,
}

/// Build the HighSpeed that `variant` names (default: Linux 2.6.22's under
/// ns-2's `Agent/TCP/Linux`).
pub fn build(cfg: HighSpeedConfig, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    let variant = cfg.variant.unwrap_or(if init.linux_agent {
        HighSpeedVariant::Linux2622
    } else {
        HighSpeedVariant::Rfc3649
    });
    let d = HighSpeedConfig::default();
    if variant == HighSpeedVariant::Linux2622
        && (cfg.low_window != d.low_window || cfg.high_window != d.high_window || cfg.high_decrease != d.high_decrease)
    {
        return Err(ParamError::at(
            "variant",
            "variant \"linux-2.6.22\" follows the kernel's fixed table: drop low_window, high_window and high_decrease",
        ));
    }
    let hs = HighSpeed::new(cfg, init)?;
    Ok(match variant {
        HighSpeedVariant::Rfc3649 => Box::new(hs),
        HighSpeedVariant::Linux2622 => Box::new(super::linux2622::LinuxHighSpeed::new(init)),
    })
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83000.0,
            high_decrease: 0.1,
            variant: None,
        }
    }
}

impl HighSpeedConfig {
    /// b(w), the decrease fraction (RFC 3649 section 5).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }

    /// p(w) = 0.078 / w^1.2, the loss rate at which the response function
    /// gives window w (RFC 3649 section 5).
    pub fn p(&self, w: f64) -> f64 {
        0.078 / w.powf(1.2)
    }

    /// a(w), the increase per RTT (RFC 3649 section 5).
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// HighSpeed TCP.
pub struct HighSpeed {
    cfg: HighSpeedConfig,
    w: Window,
    cached_w: f64,
    cached_a: f64,
}

impl HighSpeed {
    /// Build from a config.
    pub fn new(cfg: HighSpeedConfig, init: &CcInit) -> Result<Self, ParamError> {
        check_range("low_window", cfg.low_window, 1.0, 1e9)?;
        check_range("high_window", cfg.high_window, cfg.low_window + 1.0, 1e12)?;
        check_range("high_decrease", cfg.high_decrease, 0.001, 0.5)?;
        Ok(HighSpeed {
            cfg,
            w: Window::new(init),
            cached_w: 0.0,
            cached_a: 1.0,
        })
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if !ack.may_raise_cwnd() {
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(ack.acked);
        } else {
            let wi = self.w.cwnd.floor();
            if wi != self.cached_w {
                self.cached_w = wi;
                self.cached_a = self.cfg.a(wi);
            }
            self.w.additive_increase(self.cached_a);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let w = ev.window;
        self.w.reduce((1.0 - self.cfg.b(w)) * w, ev);
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.w.cwnd = cwnd.max(1.0);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        let w = ev.flight;
        self.w.timeout((1.0 - self.cfg.b(w)) * w, ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3649_appendix_b_table() {
        // (w, a(w), b(w)) rows of RFC 3649 Appendix B (also Linux
        // tcp_highspeed.c's table): a rounded to an integer, b to 2 decimals.
        let rows = [
            (38.0, 1.0, 0.50),
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (663.0, 6.0, 0.35),
            (851.0, 7.0, 0.34),
            (1058.0, 8.0, 0.33),
            (1284.0, 9.0, 0.32),
            (1529.0, 10.0, 0.31),
            (5036.0, 20.0, 0.25),
            (10661.0, 30.0, 0.21),
            (84035.0, 71.0, 0.10),
            (89053.0, 72.0, 0.10),
        ];
        let c = HighSpeedConfig::default();
        for (w, a, b) in rows {
            assert_eq!(c.a(w).round(), a, "a({w}) = {}", c.a(w));
            assert!((c.b(w) - b).abs() <= 0.005 + 1e-9, "b({w}) = {}", c.b(w));
        }
        // Low_Window is standard TCP.
        assert_eq!((c.a(20.0), c.b(20.0)), (1.0, 0.5));
        // The response function gives about High_P = 1e-7 at High_Window
        // and Low_P = 1e-3 at Low_Window (the RFC's constants are rounded).
        assert!((c.p(83000.0) / 1e-7 - 1.0).abs() < 0.03);
        assert!((c.p(38.0) / 1e-3 - 1.0).abs() < 0.03);
    }
}
