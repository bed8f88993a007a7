//! A bounded-memory log-linear histogram of nanosecond values (delays), in
//! the manner of HdrHistogram: values below 256 ns have their own buckets;
//! above, each power of two is split into 256 sub-buckets, so a reported
//! quantile is within 1/256 (0.4%) of the exact one. Memory grows with the
//! spread of the values seen (about 1 KiB per power of two between the
//! smallest and the largest), never with the number of samples, so a long
//! run cannot exhaust memory through its statistics.
//!
//! Only the buckets from the smallest value's to the largest value's are
//! held: one-way delays never fall below the path's propagation delay, so a
//! flow whose delays lie between 22 and 100 ms holds about 600 buckets
//! (2.4 KB), not the 4,900 from zero (20 KB), which is what a run of
//! thousands of flows keeps per flow.

const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;

/// Counts of values, plus the exact count, sum, minimum and maximum.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// Counts of buckets `lo`, `lo + 1`, ...: empty until the first value.
    counts: Vec<u32>,
    /// The bucket index of `counts[0]`.
    lo: usize,
    /// Spilled counts, indexed as `counts`.
    overflow: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

#[inline]
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = exp - SUB_BITS;
    let mantissa = (v >> shift) - SUB; // 0..SUB
    ((exp - SUB_BITS + 1) as u64 * SUB + mantissa) as usize
}

/// The largest value that falls in bucket `i` (used as the quantile's value,
/// so a reported quantile never understates).
fn upper(i: usize) -> u64 {
    let i = i as u64;
    if i < SUB {
        return i;
    }
    let shift = i / SUB - 1;
    let mantissa = i % SUB + SUB;
    ((mantissa + 1) << shift) - 1
}

impl Histogram {
    /// Record one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = index(v);
        if b < self.lo || self.counts.is_empty() {
            self.extend_down(b);
        }
        let i = b - self.lo;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        // Counts are 32-bit to halve the memory; a bucket that fills spills into `overflow`.
        if self.counts[i] == u32::MAX {
            if self.overflow.len() <= i {
                self.overflow.resize(i + 1, 0);
            }
            self.overflow[i] += u32::MAX as u64;
            self.counts[i] = 0;
        }
        self.counts[i] += 1;
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += 1;
        self.sum += v as u128;
    }

    /// Make bucket `b`, below the buckets held, the first one held.
    #[cold]
    fn extend_down(&mut self, b: usize) {
        if self.counts.is_empty() {
            self.lo = b;
            return;
        }
        let by = self.lo - b;
        self.counts.splice(0..0, std::iter::repeat_n(0, by));
        if !self.overflow.is_empty() {
            self.overflow.splice(0..0, std::iter::repeat_n(0, by));
        }
        self.lo = b;
    }

    /// Buckets held in memory (for tests of the memory bound).
    pub fn buckets_held(&self) -> usize {
        self.counts.len()
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Exact mean.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// Exact minimum.
    pub fn min(&self) -> Option<u64> {
        (self.n > 0).then_some(self.min)
    }

    /// Exact maximum.
    pub fn max(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The non-empty buckets in increasing order: (the largest value that
    /// falls in the bucket, clamped to the exact maximum; the count). For
    /// exporting a distribution (a delay CDF) in bounded space.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().enumerate().filter_map(move |(i, &c)| {
            let n = c as u64 + self.overflow.get(i).copied().unwrap_or(0);
            (n > 0).then(|| (upper(self.lo + i).min(self.max), n))
        })
    }

    /// Nearest-rank quantile q in (0, 1]: the upper edge of the bucket holding
    /// the ceil(q n)-th smallest value, clamped to the exact maximum.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64 + self.overflow.get(i).copied().unwrap_or(0);
            if seen >= rank {
                return Some(upper(self.lo + i).min(self.max).max(self.min));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_with_bounded_error() {
        for v in [0u64, 1, 255, 256, 257, 1000, 12_960_000, 1 << 40, u64::MAX / 3] {
            let i = index(v);
            assert!(upper(i) >= v, "{v}");
            if v >= SUB {
                assert!((upper(i) - v) as f64 <= v as f64 / SUB as f64, "{v}: {}", upper(i));
            } else {
                assert_eq!(upper(i), v);
            }
            if i > 0 {
                assert!(upper(i - 1) < v, "{v}");
            }
        }
    }

    #[test]
    fn quantiles_close_to_exact() {
        let mut h = Histogram::default();
        let vals: Vec<u64> = (1..=100_000u64).map(|k| k * 997 % 1_000_003 + 5_000).collect();
        for &v in &vals {
            h.record(v);
        }
        let mut sorted = vals.clone();
        sorted.sort_unstable();
        for q in [0.5, 0.9, 0.99, 1.0] {
            let exact = sorted[((q * sorted.len() as f64).ceil() as usize).max(1) - 1];
            let got = h.quantile(q).unwrap();
            assert!(
                got >= exact && (got - exact) as f64 <= exact as f64 / 256.0,
                "q {q}: {got} vs {exact}"
            );
        }
        assert_eq!(h.min(), Some(*sorted.first().unwrap()));
        assert_eq!(h.max(), Some(*sorted.last().unwrap()));
    }

    #[test]
    fn buckets_export_the_distribution() {
        let mut h = Histogram::default();
        let vals: Vec<u64> = (1..=5_000u64).map(|k| k * 7919 % 100_003 + 300).collect();
        for &v in &vals {
            h.record(v);
        }
        let b: Vec<(u64, u64)> = h.buckets().collect();
        assert_eq!(b.iter().map(|x| x.1).sum::<u64>(), h.len());
        assert!(b.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(b.last().unwrap().0, h.max().unwrap());
        // The empirical CDF read from the buckets at the median's bucket edge
        // is what quantile(0.5) promises: at least half the values.
        let median = h.quantile(0.5).unwrap();
        let below: u64 = b.iter().filter(|x| x.0 <= median).map(|x| x.1).sum();
        assert!(below * 2 >= h.len());
        assert!(vals.iter().filter(|&&v| v <= median).count() as u64 >= below);
    }

    #[test]
    fn holds_only_the_span_of_the_values() {
        // Delays between 22 and 100 ms: the buckets from 22 ms up, not from 0.
        let mut h = Histogram::default();
        for k in 0..10_000u64 {
            h.record(22_000_000 + k * 7_800);
        }
        let span = index(100_000_000) - index(22_000_000) + 1;
        assert_eq!(h.buckets_held(), span);
        assert!(h.buckets_held() < index(22_000_000) / 4);
    }

    #[test]
    fn same_buckets_whatever_the_order_of_values() {
        // Values arriving below the first one (the held span grows
        // downwards) land in the buckets a histogram from zero would use.
        let vals: Vec<u64> = (1..=3_000u64)
            .map(|k| (k * 104_729) % 50_000_000 + (k % 7) * 3)
            .collect();
        let mut h = Histogram::default();
        for &v in vals.iter().rev() {
            h.record(v);
        }
        let mut exact = std::collections::BTreeMap::new();
        for &v in &vals {
            *exact.entry(index(v)).or_insert(0u64) += 1;
        }
        let max = *vals.iter().max().unwrap();
        let want: Vec<(u64, u64)> = exact.iter().map(|(&i, &n)| (upper(i).min(max), n)).collect();
        assert_eq!(h.buckets().collect::<Vec<_>>(), want);
        let mut sorted = vals.clone();
        sorted.sort_unstable();
        let rank = (0.9 * sorted.len() as f64).ceil() as usize;
        assert_eq!(h.quantile(0.9), Some(upper(index(sorted[rank - 1])).min(max)));
    }

    #[test]
    fn constant_values_are_exact() {
        let mut h = Histogram::default();
        for _ in 0..10 {
            h.record(12_960_000);
        }
        assert_eq!(h.quantile(0.99), Some(12_960_000));
        assert_eq!(h.mean(), Some(12_960_000.0));
    }
}
