//! Simulated time: integer nanoseconds, so every run is exactly reproducible.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a span of simulated time, in integer nanoseconds.
///
/// Floating point never enters the clock: two runs of the same scenario order
/// their events identically on every machine.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time (about 584 years).
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// Nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    /// Microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    /// Milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Seconds as a float, rounded to the nearest nanosecond (negative values clamp to 0).
    pub fn from_secs_f64(s: f64) -> Self {
        if s <= 0.0 || !s.is_finite() {
            return if s.is_finite() || s < 0.0 {
                SimTime::ZERO
            } else {
                SimTime::MAX
            };
        }
        let ns = (s * 1e9).round();
        if ns >= u64::MAX as f64 {
            SimTime::MAX
        } else {
            SimTime(ns as u64)
        }
    }
    /// The value in nanoseconds.
    pub const fn nanos(self) -> u64 {
        self.0
    }
    /// The value in seconds as a float (for reporting only).
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Saturating subtraction.
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// Saturating addition.
    pub fn saturating_add(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(other.0))
    }
    /// Multiply a span by an integer, saturating.
    pub fn times(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

impl fmt::Display for SimTime {
    /// Seconds with as many decimals as needed: "2s", "1.5s", "0.000000001s".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, ns) = (self.0 / 1_000_000_000, self.0 % 1_000_000_000);
        if ns == 0 {
            write!(f, "{s}s")
        } else {
            let frac = format!("{ns:09}");
            write!(f, "{s}.{}s", frac.trim_end_matches('0'))
        }
    }
}

/// Time to serialize `bytes` onto a link of `rate_bps` bits per second,
/// rounded up to the next nanosecond so that no packet takes zero time.
#[inline]
pub fn tx_time(bytes: u32, rate_bps: u64) -> SimTime {
    // 64-bit arithmetic when it cannot overflow (packets below ~2.3 GB), which
    // avoids a slow 128-bit division per packet hop.
    match (bytes as u64 * 8).checked_mul(1_000_000_000) {
        Some(bits) => SimTime(bits.div_ceil(rate_bps)),
        None => SimTime((bytes as u128 * 8_000_000_000).div_ceil(rate_bps as u128) as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_exact_and_rounded_up() {
        assert_eq!(tx_time(1500, 10_000_000), SimTime::from_micros(1200));
        assert_eq!(tx_time(1500, 1_000_000_000), SimTime::from_nanos(12_000));
        // 1 byte at 3 bps = 2.666..s, rounded up
        assert_eq!(tx_time(1, 3), SimTime::from_nanos(2_666_666_667));
    }

    #[test]
    fn display_trims() {
        assert_eq!(SimTime::from_secs(2).to_string(), "2s");
        assert_eq!(SimTime::from_millis(1500).to_string(), "1.5s");
        assert_eq!(SimTime(1).to_string(), "0.000000001s");
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(SimTime::from_secs_f64(1.5), SimTime::from_millis(1500));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
    }
}
