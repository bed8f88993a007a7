//! Web traffic and flash crowds: short transfers arriving as a Poisson
//! process.
//!
//! A `web` flow group is expanded when the scenario is built into a list of
//! finite flows (one [`super::Finite`] application each) with their start
//! times drawn here, rather than creating flows while the simulation runs:
//! the result is the same traffic, but the flows, their names and their
//! random streams are fixed before the run starts, which keeps every run
//! deterministic and lets results report each short flow (its completion
//! time) like any other flow. The cost is memory for flows that have not
//! started yet, which is small next to their packets.
//!
//! Arrivals: exponential gaps of mean 1/`arrival_rate` from `start`; the
//! first arrival is one gap after `start` (a Poisson process on
//! [start, stop)). The group has either a fixed number of flows (`count`,
//! with `stop` as an optional cut-off) or all the arrivals before `stop`.
//! Sizes are in packets (segments of one MSS): fixed, exponential or
//! Pareto with the given mean (rounded to whole packets, at least one), or
//! drawn from an empirical step distribution.

use crate::rng::{exponential, pareto, uniform01, SimRng};
use crate::time::SimTime;

/// The distribution of transfer sizes, in packets.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every transfer has this many packets.
    Fixed(u64),
    /// Exponential with this mean.
    Exponential(f64),
    /// Pareto with this mean and shape (> 1).
    Pareto {
        /// Mean, packets.
        mean: f64,
        /// Shape.
        shape: f64,
    },
    /// A step CDF: (packets, cumulative probability), probabilities
    /// increasing to 1. A draw u in [0, 1) takes the first entry with u < P.
    Empirical(Vec<(u64, f64)>),
}

impl SizeDist {
    /// Draw a size, packets (at least 1).
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        let x = match self {
            SizeDist::Fixed(n) => return (*n).max(1),
            SizeDist::Exponential(mean) => exponential(rng, *mean),
            SizeDist::Pareto { mean, shape } => pareto(rng, *mean, *shape),
            SizeDist::Empirical(cdf) => {
                let u = uniform01(rng);
                let last = cdf.last().map_or(1, |e| e.0);
                return cdf.iter().find(|e| u < e.1).map_or(last, |e| e.0).max(1);
            }
        };
        x.round().clamp(1.0, u32::MAX as f64) as u64
    }

    /// Check an empirical CDF: entries of at least one packet, probabilities
    /// in (0, 1], non-decreasing, the last equal to 1. Returns the index of
    /// the first bad entry and what is wrong.
    pub fn check_cdf(cdf: &[(u64, f64)]) -> Result<(), (usize, String)> {
        if cdf.is_empty() {
            return Err((0, "the CDF needs at least one [packets, probability] entry".into()));
        }
        let mut last = 0.0;
        for (i, &(n, p)) in cdf.iter().enumerate() {
            if n == 0 {
                return Err((i, "a transfer has at least 1 packet".into()));
            }
            if !(p > 0.0 && p <= 1.0) || p < last {
                return Err((
                    i,
                    format!("cumulative probabilities must increase within (0, 1], got {p} after {last}"),
                ));
            }
            last = p;
        }
        if (last - 1.0).abs() > 1e-9 {
            return Err((
                cdf.len() - 1,
                format!("the last cumulative probability must be 1, got {last}"),
            ));
        }
        Ok(())
    }
}

/// When short flows arrive.
#[derive(Clone, Debug)]
pub struct Arrivals {
    /// Start of the arrival process.
    pub start: SimTime,
    /// No arrivals at or after this time.
    pub stop: SimTime,
    /// At most this many flows (None: all arrivals before `stop`).
    pub count: Option<u64>,
    /// Mean arrivals per second.
    pub rate: f64,
}

/// Draw the short flows: (start time, size in packets), in time order, at
/// most `max` of them (Err(max) if the process would produce more).
pub fn draw(arr: &Arrivals, sizes: &SizeDist, rng: &mut SimRng, max: usize) -> Result<Vec<(SimTime, u64)>, usize> {
    let mut out = Vec::new();
    let mean_gap_ns = 1e9 / arr.rate;
    let mut t = arr.start;
    loop {
        if arr.count.is_some_and(|c| out.len() as u64 >= c) {
            break;
        }
        t += SimTime(exponential(rng, mean_gap_ns).round() as u64);
        if t >= arr.stop {
            break;
        }
        if out.len() >= max {
            return Err(max);
        }
        let size = sizes.draw(rng);
        out.push((t, size));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn poisson_count_and_gaps() {
        // 100 flows/s for 10 s: 1000 expected, Poisson standard deviation
        // sqrt(1000) = 31.6; 5 sigma = 158.
        let arr = Arrivals {
            start: SimTime::from_secs(20),
            stop: SimTime::from_secs(30),
            count: None,
            rate: 100.0,
        };
        let v = draw(&arr, &SizeDist::Fixed(10), &mut stream(1, "web"), 1_000_000).unwrap();
        assert!((v.len() as f64 - 1000.0).abs() < 158.0, "{}", v.len());
        assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(v.iter().all(|&(t, n)| t > arr.start && t < arr.stop && n == 10));
        // A fixed count ignores the stop time unless it is reached first.
        let arr = Arrivals {
            count: Some(1000),
            stop: SimTime::MAX,
            ..arr
        };
        let v = draw(&arr, &SizeDist::Fixed(10), &mut stream(2, "web"), 1_000_000).unwrap();
        assert_eq!(v.len(), 1000);
        // Mean gap 10 ms: the 1000 arrivals span about 10 s (sd of the sum 0.32 s).
        let span = (v[999].0 - arr.start).secs_f64();
        assert!((span - 10.0).abs() < 1.6, "{span}");
        assert_eq!(draw(&arr, &SizeDist::Fixed(1), &mut stream(2, "web"), 10), Err(10));
    }

    #[test]
    fn size_distributions() {
        let mut r = stream(3, "sizes");
        let n = 100_000;
        let mean = |d: &SizeDist, r: &mut SimRng| (0..n).map(|_| d.draw(r) as f64).sum::<f64>() / n as f64;
        // Exponential mean 20, rounded: the mean stays within 0.1 (sd 20/sqrt(n) = 0.063, plus rounding bias < 0.05).
        let m = mean(&SizeDist::Exponential(20.0), &mut r);
        assert!((m - 20.0).abs() < 0.3, "{m}");
        // Empirical: 1 packet w.p. 0.5, 10 w.p. 0.3, 100 w.p. 0.2: mean 23.5 (sd 38/sqrt(n) = 0.12).
        let cdf = vec![(1, 0.5), (10, 0.8), (100, 1.0)];
        assert!(SizeDist::check_cdf(&cdf).is_ok());
        let m = mean(&SizeDist::Empirical(cdf), &mut r);
        assert!((m - 23.5).abs() < 0.6, "{m}");
        assert!(SizeDist::check_cdf(&[(1, 0.5), (2, 0.4)]).is_err());
        assert!(SizeDist::check_cdf(&[(1, 0.5), (2, 0.9)]).is_err());
        assert!(SizeDist::check_cdf(&[(0, 1.0)]).is_err());
        // Pareto shape 3 mean 10 (sd 5.8, so 0.018 for the mean, plus rounding): within 0.1.
        let m = mean(&SizeDist::Pareto { mean: 10.0, shape: 3.0 }, &mut r);
        assert!((m - 10.0).abs() < 0.1, "{m}");
    }
}
