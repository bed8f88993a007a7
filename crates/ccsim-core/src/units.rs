//! Parsing of the unit strings used everywhere in scenario files:
//! rates ("10Mbps"), times ("20ms") and sizes ("1500B", "64KB").
//!
//! Decimal prefixes are powers of 1000 (k, M, G) as in networking practice;
//! binary sizes use KiB/MiB/GiB.

use crate::time::SimTime;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "e" may start a unit only if it is not an exponent; units here never start with e.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

/// Parse a rate such as "10Mbps", "1.5Gbps", "500kbps" or "64000bps" into bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let err = || format!("expected a rate like \"10Mbps\" (units bps, kbps, Mbps, Gbps), got \"{s}\"");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" => 1e3,
        "Mbps" | "Mb/s" => 1e6,
        "Gbps" | "Gb/s" => 1e9,
        "Tbps" => 1e12,
        _ => return Err(err()),
    };
    let bps = v * mult;
    if bps < 1.0 {
        return Err(format!("a rate must be at least 1bps, got \"{s}\""));
    }
    if !bps.is_finite() || bps > 1e15 {
        return Err(format!("a rate must be at most 1000Tbps, got \"{s}\""));
    }
    Ok(bps.round() as u64)
}

/// Parse a time such as "20ms", "1.5s", "100us", "250ns" or "2min".
pub fn parse_time(s: &str) -> Result<SimTime, String> {
    let err = || format!("expected a time like \"20ms\" (units ns, us, ms, s, min), got \"{s}\"");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        _ => return Err(err()),
    };
    if v < 0.0 {
        return Err(format!("a time must not be negative, got \"{s}\""));
    }
    let ns = v * mult;
    // 1e18 ns is about 31 years of simulated time: far beyond any study,
    // well inside the 64-bit clock.
    if !ns.is_finite() || ns > 1e18 {
        return Err(format!("a time must be at most 1e9s, got \"{s}\""));
    }
    Ok(SimTime(ns.round() as u64))
}

/// Parse a size such as "1500B", "64KB", "1MiB" into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let err =
        || format!("expected a size like \"1500B\" or \"64KB\" (units B, KB, MB, GB, KiB, MiB, GiB), got \"{s}\"");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err()),
    };
    if v < 0.0 {
        return Err(format!("a size must not be negative, got \"{s}\""));
    }
    let b = v * mult;
    if !b.is_finite() || b > 1e15 {
        return Err(format!("a size must be at most 1PB, got \"{s}\""));
    }
    Ok(b.round() as u64)
}

/// A rate in bits per second, written "10Mbps" in scenario files.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rate(pub u64);

/// A time written "20ms" in scenario files.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Time(pub SimTime);

/// A size in bytes, written "1500B" or as a plain integer of bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

macro_rules! string_unit {
    ($ty:ident, $parse:ident, $what:expr, $wrap:expr, $allow_int:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $parse(s).map($wrap).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        if $allow_int && v >= 0 {
                            self.visit_u64(v as u64)
                        } else {
                            Err(E::custom(format!(
                                "expected {} (a string with a unit), got the number {v}",
                                $what
                            )))
                        }
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        if $allow_int {
                            $parse(&format!("{v}B")).map($wrap).map_err(E::custom)
                        } else {
                            Err(E::custom(format!(
                                "expected {} (a string with a unit), got the number {v}",
                                $what
                            )))
                        }
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            "expected {} (a string with a unit), got the number {v}",
                            $what
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

/// How a resolved configuration (the results' `components`) writes a unit
/// value: as a number in the unit the result tables use (bit/s, seconds,
/// bytes), so that readers never parse a unit.
macro_rules! number_unit {
    ($ty:ident, $v:ident => $e:expr) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let $v = self;
                $e.serialize(s)
            }
        }
    };
}

number_unit!(Rate, r => r.0);
number_unit!(Time, t => t.0.secs_f64());
number_unit!(Bytes, b => b.0);

string_unit!(Rate, parse_rate, "a rate like \"10Mbps\"", Rate, false);
string_unit!(Time, parse_time, "a time like \"20ms\"", Time, false);
string_unit!(Bytes, parse_size, "a size like \"1500B\"", Bytes, true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("500kbps"), Ok(500_000));
        assert_eq!(parse_rate("1.5Mbps"), Ok(1_500_000));
        assert!(parse_rate("10").is_err());
        assert!(parse_rate("-1Mbps").is_err());
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("20ms"), Ok(SimTime::from_millis(20)));
        assert_eq!(parse_time("1.5s"), Ok(SimTime::from_millis(1500)));
        assert_eq!(parse_time("100us"), Ok(SimTime::from_micros(100)));
        assert_eq!(parse_time("0s"), Ok(SimTime::ZERO));
        assert!(parse_time("-2s").is_err());
        assert!(parse_time("2 hours").is_err());
        assert!(parse_time("1e400s").unwrap_err().contains("at most"));
        assert!(parse_rate("1e30Gbps").unwrap_err().contains("at most"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1500B"), Ok(1500));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert!(parse_size("12 parsecs").is_err());
    }
}
