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
        let ns = round(s * 1e9);
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
    #[inline]
    pub fn secs_f64(self) -> f64 {
        u64_as_f64(self.0) * 1e-9
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

/// `x as f64` (the same value, rounded to nearest), through the signed
/// conversion: one instruction on the baseline x86-64 target, which has no
/// unsigned one (LLVM otherwise spends six, and folds a plain
/// `if x < 2^63 { x as i64 as f64 } else { x as f64 }` back into them). At
/// or above 2^63, half of `x` with its lowest bit kept sticky converts with
/// the same rounding, and doubling is exact.
#[inline(always)]
pub fn u64_as_f64(x: u64) -> f64 {
    if (x as i64) >= 0 {
        x as i64 as f64
    } else {
        ((x >> 1) | (x & 1)) as i64 as f64 * 2.0
    }
}

/// `x.round()` (half away from zero), without the library call that
/// `f64::round` makes on the baseline x86-64 target (no SSE4.1 `roundsd`):
/// for 0 < x < 2^63 the truncation is a conversion to an integer and back,
/// and `x - trunc(x)` is exact; any other `x` takes `f64::round`.
#[inline]
pub fn round(x: f64) -> f64 {
    if x > 0.0 && x < 9.2e18 {
        let t = x as i64 as f64;
        if x - t >= 0.5 {
            t + 1.0
        } else {
            t
        }
    } else {
        x.round()
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
    fn u64_as_f64_is_the_plain_conversion() {
        // Both sides of 2^63, and values that round (above 2^53).
        for x in [
            0,
            1,
            (1 << 53) + 1,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1025,
            u64::MAX - 1,
            u64::MAX,
        ] {
            assert_eq!(u64_as_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
    }

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
    fn round_is_f64_round() {
        let mut rng = crate::rng::stream(3, "round-test");
        let mut xs: Vec<f64> = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4503599627370495.5,
            4503599627370496.0,
            9.2e18,
            9.3e18,
            1e300,
            -2.5,
            -0.4,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for e in -3..19 {
            for _ in 0..2_000 {
                let u = crate::rng::uniform01(&mut rng);
                xs.push(u * 10f64.powi(e));
                xs.push((u * 10f64.powi(e)).floor() + 0.5);
            }
        }
        for x in xs {
            assert_eq!(round(x).to_bits(), x.round().to_bits(), "{x}");
        }
        assert!(round(f64::NAN).is_nan());
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(SimTime::from_secs_f64(1.5), SimTime::from_millis(1500));
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
    }
}
