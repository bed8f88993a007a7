//! Deterministic random streams.
//!
//! Every component that draws random numbers (an application's arrivals, a
//! queue's drop decisions, a link's loss model) owns its own generator,
//! seeded from the scenario seed and a stable stream label. Adding a flow
//! therefore never perturbs the random numbers of another component, and a
//! run is bit-identical on every machine.
//!
//! The generator is xoshiro256++ (Blackman and Vigna), a documented, portable
//! algorithm from the rand ecosystem; streams are derived with SplitMix64.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator type used everywhere in the simulator.
pub type SimRng = Xoshiro256PlusPlus;

/// SplitMix64 finaliser: a bijective 64-bit mixing function.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stable 64-bit hash of a label (FNV-1a), independent of Rust's hasher.
pub fn label_hash(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A generator for the stream named `label` under scenario seed `seed`.
pub fn stream(seed: u64, label: &str) -> SimRng {
    let s = mix64(seed ^ mix64(label_hash(label)));
    SimRng::seed_from_u64(s)
}

/// Uniform draw in [0, 1).
#[inline]
pub fn uniform01(rng: &mut SimRng) -> f64 {
    rng.random::<f64>()
}

/// Exponential draw with the given mean (inverse-transform, portable).
#[inline]
pub fn exponential(rng: &mut SimRng, mean: f64) -> f64 {
    // 1 - U is in (0, 1], so the log is finite.
    -mean * (1.0 - uniform01(rng)).ln()
}

/// Pareto draw with the given mean and shape (> 1), as ns-2's Pareto source.
#[inline]
pub fn pareto(rng: &mut SimRng, mean: f64, shape: f64) -> f64 {
    let scale = mean * (shape - 1.0) / shape;
    scale / (1.0 - uniform01(rng)).powf(1.0 / shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_stable_and_distinct() {
        let a1: u64 = stream(1, "flow0").random();
        let a2: u64 = stream(1, "flow0").random();
        let b: u64 = stream(1, "flow1").random();
        let c: u64 = stream(2, "flow0").random();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    #[test]
    fn exponential_mean() {
        let mut r = stream(7, "exp");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| exponential(&mut r, 2.0)).sum::<f64>() / n as f64;
        // standard error 2/sqrt(n) = 0.0045; 5 sigma
        assert!((m - 2.0).abs() < 0.023, "mean {m}");
    }
}
