//! The receiver's loss-interval history and loss event rate (RFC 5348
//! sections 5.3 to 5.5).
//!
//! A loss interval is the number of packets from the first lost packet of
//! one loss event up to (not including) the first lost packet of the next
//! (section 5.3). The closed intervals are kept most recent first as I_1 ..
//! I_n; the open interval I_0 runs from the first lost packet of the latest
//! loss event through the highest sequence number received.
//!
//! **Average loss interval** (section 5.4), with the weights
//! w_i = 1 for i < n/2 and w_i = 2 (n - i) / (n + 2) otherwise
//! (for n = 8: 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2). The RFC states the
//! weights for any n; TFRC(256) of Bansal, Balakrishnan, Floyd and Shenker
//! (SIGCOMM 2001) is this rule with n = 256 (equal weights on the newest
//! half, then a linear decrease), which is how ccsim generalizes them.
//! With k closed intervals:
//!
//! ```text
//! I_tot0 = sum_{i=0}^{k-1} I_i w_i DF_i DF'_i     W_tot0 = sum of the same weights
//! I_tot1 = sum_{i=1}^{k}   I_i w_(i-1) DF_i       W_tot1 = sum of the same weights
//! I_mean = max(I_tot0 / W_tot0, I_tot1 / W_tot1),  p = 1 / I_mean
//! ```
//!
//! (DF'_0 = DF_0 = 1, DF'_i = DF for i >= 1, see below.) Reading: while fewer
//! than n intervals exist, ccsim takes the RFC's sums with n replaced by k
//! (the newest k intervals, weights w_0..w_(k-1)), as Linux's DCCP CCID 3
//! does; the RFC leaves this case open ([`PartialHistory::Dccp`]). ns-2
//! instead lets I_tot0 run over every interval it has, I_0..I_k, while
//! k < n ([`PartialHistory::Ns2`]).
//!
//! **History discounting** (section 5.5; ns-2's `discount_`, on by default).
//! When the open interval is more than twice the mean of the closed ones,
//! I_0 > 2 I_mean with I_mean = (sum_{i>=1} I_i w_(i-1) DF_i) / (sum w_(i-1) DF_i),
//! the older intervals are weighted down in I_tot0 by the general discount
//! factor DF = max(`min_discount`, 2 I_mean / I_0) (otherwise DF = 1). When
//! a loss event closes the open interval, the factor in force then is
//! applied for good: every DF_i is multiplied by it, and the interval just
//! closed enters with DF_1 = 1 (as ns-2's `TfrcSinkAgent::est_loss`).
//! Discounting only matters in I_tot0, since a common factor cancels in the
//! I_tot1 average.

use serde::Deserialize;
use std::collections::VecDeque;

/// Which intervals I_tot0 averages while fewer than n are closed (key
/// `partial_history` of a TFRC flow group).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialHistory {
    /// The newest k, I_0..I_(k-1), with k closed intervals (n replaced by
    /// k in RFC 5348 section 5.4's sums; Linux's DCCP CCID 3).
    #[default]
    Dccp,
    /// All k + 1, I_0..I_k: ns-2.35's `TfrcSinkAgent::est_loss_WALI`
    /// (`tcp/tfrc-sink.cc`) sums `weighted_average1(0, ds, ...)` over
    /// `ds = sample_count` entries, one more than the closed intervals,
    /// until the array of `NumSamples_ + 1` is full. So the synthetic first
    /// interval (and every older one) still counts in I_tot0 after the loss
    /// that closes I_0 and I_tot0 and I_tot1 average the same closed
    /// intervals: a new loss event then moves p only through the interval
    /// it closes, never by dropping the oldest one from I_tot0.
    Ns2,
}

/// The weights w_0..w_(n-1) of RFC 5348 section 5.4.
pub fn weights(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if 2 * i < n {
                1.0
            } else {
                2.0 * (n - i) as f64 / (n + 2) as f64
            }
        })
        .collect()
}

/// The loss-interval history of a TFRC receiver.
#[derive(Clone, Debug)]
pub struct LossHistory {
    weights: Vec<f64>,
    discounting: bool,
    min_discount: f64,
    partial: PartialHistory,
    /// Closed intervals I_1.. (most recent first), at most n.
    closed: VecDeque<f64>,
    /// Their discount factors DF_1..
    df: VecDeque<f64>,
    /// First sequence number of the open interval (the first lost packet of
    /// the latest loss event).
    open_start: Option<u64>,
}

impl LossHistory {
    /// A history of `n` intervals; `discounting` turns on section 5.5 with
    /// the smallest factor `min_discount`.
    pub fn new(n: usize, discounting: bool, min_discount: f64) -> Self {
        LossHistory {
            weights: weights(n.max(1)),
            discounting,
            min_discount,
            partial: PartialHistory::Dccp,
            closed: VecDeque::with_capacity(n.max(1) + 1),
            df: VecDeque::with_capacity(n.max(1) + 1),
            open_start: None,
        }
    }

    /// The same with `partial` deciding I_tot0 while fewer than n
    /// intervals are closed.
    pub fn with_partial(mut self, partial: PartialHistory) -> Self {
        self.partial = partial;
        self
    }

    /// The number of intervals averaged (n).
    pub fn n(&self) -> usize {
        self.weights.len()
    }

    /// Whether any loss event has been recorded.
    pub fn has_loss(&self) -> bool {
        self.open_start.is_some()
    }

    /// The closed intervals, most recent first.
    pub fn closed(&self) -> impl Iterator<Item = f64> + '_ {
        self.closed.iter().copied()
    }

    /// The open interval I_0 when `s_max` is the highest sequence number received.
    pub fn open_interval(&self, s_max: u64) -> f64 {
        match self.open_start {
            Some(s) if s_max >= s => (s_max - s + 1) as f64,
            _ => 1.0,
        }
    }

    /// The first loss event, starting at sequence number `seq`, with the
    /// synthetic first interval of RFC 5348 section 6.3.1 (1/p for the p at
    /// which the equation gives the receive rate before the loss).
    pub fn first_loss_event(&mut self, seq: u64, first_interval: f64) {
        self.closed.clear();
        self.df.clear();
        self.closed.push_front(first_interval.max(1.0));
        self.df.push_front(1.0);
        self.open_start = Some(seq);
    }

    /// A new loss event whose first lost packet is `seq`: close the open interval.
    pub fn loss_event(&mut self, seq: u64) {
        let Some(start) = self.open_start else {
            self.first_loss_event(seq, 1.0);
            return;
        };
        let interval = seq.saturating_sub(start).max(1) as f64;
        let df = self.discount(interval);
        for d in self.df.iter_mut() {
            *d *= df;
        }
        self.closed.push_front(interval);
        self.df.push_front(1.0);
        self.closed.truncate(self.n());
        self.df.truncate(self.n());
        self.open_start = Some(seq);
    }

    /// The weighted mean of the closed intervals (the I_mean of section 5.5).
    fn closed_mean(&self) -> f64 {
        let (mut tot, mut w) = (0.0, 0.0);
        for (i, (&iv, &df)) in self.closed.iter().zip(&self.df).enumerate() {
            tot += iv * self.weights[i] * df;
            w += self.weights[i] * df;
        }
        if w > 0.0 {
            tot / w
        } else {
            0.0
        }
    }

    /// The general discount factor DF for an open interval `i0` (section 5.5).
    pub fn discount(&self, i0: f64) -> f64 {
        if !self.discounting || self.closed.is_empty() {
            return 1.0;
        }
        let mean = self.closed_mean();
        if i0 > 2.0 * mean {
            (2.0 * mean / i0).max(self.min_discount)
        } else {
            1.0
        }
    }

    /// The average loss interval I_mean for an open interval `i0`, or None
    /// before the first loss event.
    pub fn mean_interval_with(&self, i0: f64) -> Option<f64> {
        if self.closed.is_empty() {
            return None;
        }
        let k = self.closed.len();
        let df = self.discount(i0);
        let w = &self.weights;
        // I_tot0: I_0 .. I_(k-1) (ns-2: .. I_k while k < n); I_tot1: I_1 .. I_k.
        let tot0_end = match self.partial {
            PartialHistory::Dccp => k,
            PartialHistory::Ns2 => self.n(),
        };
        let (mut tot0, mut w0) = (i0 * w[0], w[0]);
        let (mut tot1, mut w1) = (0.0, 0.0);
        for (j, (&iv, &d)) in self.closed.iter().zip(&self.df).enumerate() {
            // iv is I_(j+1).
            if j + 1 < tot0_end {
                tot0 += iv * w[j + 1] * d * df;
                w0 += w[j + 1] * d * df;
            }
            tot1 += iv * w[j] * d;
            w1 += w[j] * d;
        }
        Some((tot0 / w0).max(tot1 / w1))
    }

    /// The loss event rate p = 1 / I_mean when `s_max` is the highest
    /// sequence number received; 0 before the first loss event.
    pub fn loss_event_rate(&self, s_max: u64) -> f64 {
        match self.mean_interval_with(self.open_interval(s_max)) {
            Some(m) if m > 0.0 => 1.0 / m,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(n: usize, discounting: bool, closed_newest_first: &[f64]) -> LossHistory {
        let mut h = LossHistory::new(n, discounting, 0.5);
        for &iv in closed_newest_first {
            h.closed.push_back(iv);
            h.df.push_back(1.0);
        }
        h.open_start = Some(0);
        h
    }

    #[test]
    fn rfc_weights() {
        // RFC 5348 section 5.4: "with n=8 ... w_0 to w_7 are 1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2".
        let w = weights(8);
        let expect = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
        for (a, b) in w.iter().zip(expect) {
            assert!((a - b).abs() < 1e-12, "{w:?}");
        }
        // TFRC(256): equal weights on the newest 128, then linear down to 2/258.
        let w = weights(256);
        assert!(w[..128].iter().all(|&x| x == 1.0));
        assert!((w[128] - 256.0 / 258.0).abs() < 1e-12);
        assert!((w[255] - 2.0 / 258.0).abs() < 1e-12);
        assert!(w[128..].windows(2).all(|p| p[1] < p[0]));
    }

    /// Section 5.4's sums on eight closed intervals, by hand.
    #[test]
    fn average_loss_interval_by_hand() {
        let closed = [100.0, 100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0];
        let h = history(8, false, &closed);
        // I_tot1 = 100 (1+1+1+1) + 200 (0.8+0.6+0.4+0.2) = 800, W_tot = 6 -> 133.33.
        // I_tot0 with I_0 = 50: 50 + 100 (1+1+1) + 100 (0.8) + 200 (0.6+0.4+0.2) = 670 -> 111.67.
        let m = h.mean_interval_with(50.0).unwrap();
        assert!((m - 800.0 / 6.0).abs() < 1e-9, "{m}");
        // A long open interval raises the mean: I_0 = 1000 gives 1000 + 620 = 1620 -> 270.
        let m = h.mean_interval_with(1000.0).unwrap();
        assert!((m - 270.0).abs() < 1e-9, "{m}");
    }

    /// Section 5.5 on the same history: I_0 = 1000 > 2 x 133.33, so
    /// DF = max(0.5, 266.67 / 1000) = 0.5 and
    /// I_tot0 / W_tot0 = (1000 + 0.5 x 620) / (1 + 0.5 x 5) = 374.29.
    #[test]
    fn discounting_by_hand() {
        let closed = [100.0, 100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0];
        let h = history(8, true, &closed);
        assert_eq!(h.discount(50.0), 1.0);
        assert!((h.discount(1000.0) - 0.5).abs() < 1e-12);
        // Between 2 I_mean and 4 I_mean the factor is 2 I_mean / I_0.
        assert!((h.discount(400.0) - 2.0 * (800.0 / 6.0) / 400.0).abs() < 1e-12);
        let m = h.mean_interval_with(1000.0).unwrap();
        assert!((m - 1310.0 / 3.5).abs() < 1e-9, "{m}");
        // Without a long open interval discounting changes nothing.
        assert_eq!(
            h.mean_interval_with(50.0),
            history(8, false, &closed).mean_interval_with(50.0)
        );
    }

    #[test]
    fn discount_becomes_permanent_when_the_interval_closes() {
        let mut h = LossHistory::new(8, true, 0.5);
        h.first_loss_event(100, 100.0);
        // Events every 100 packets: intervals of 100, no discounting.
        for k in 2..=8 {
            h.loss_event(100 * k);
        }
        assert!(h.df.iter().all(|&d| d == 1.0));
        // A 1000-packet interval closes under DF = 0.5: the older ones keep it.
        h.loss_event(800 + 1000);
        assert_eq!(h.closed().next(), Some(1000.0));
        assert_eq!(h.df[0], 1.0);
        assert!(h.df.iter().skip(1).all(|&d| d == 0.5));
        assert_eq!(h.closed().count(), 8);
    }

    /// ns-2's partial history: with two closed intervals (a synthetic 2340
    /// and 145) and an open one of 6277 packets, I_tot0 averages all three
    /// (ns-2's `weighted_average1(0, ds = 3, ...)`), the closed ones
    /// discounted by DF = max(0.5, 2 x 1242.5 / 6277) = 0.5, so p does not
    /// move when the loss closes that interval: (6277 + 0.5 (145 + 2340)) /
    /// 2 = 3759.75 packets before and after (the numbers of ns-2's run of
    /// the `tfrc-1-droptail` twin, validation/findings.md). The newest-k
    /// reading leaves the synthetic interval out of I_tot0 and p jumps.
    #[test]
    fn ns2_partial_history_keeps_p_across_a_loss() {
        let run = |partial| {
            let mut h = LossHistory::new(8, true, 0.5).with_partial(partial);
            h.first_loss_event(1000, 2340.0);
            h.loss_event(1145);
            let before = h.mean_interval_with(6277.0).unwrap();
            h.loss_event(1145 + 6277);
            let after = h.mean_interval_with(1.0).unwrap();
            (before, after)
        };
        let (before, after) = run(PartialHistory::Ns2);
        assert!((before - 3759.75).abs() < 1e-9, "{before}");
        assert!((after - 3759.75).abs() < 1e-9, "{after}");
        let (before, after) = run(PartialHistory::Dccp);
        // I_tot0 = (6277 + 0.5 x 145) / 1.5; after: (6277 + 0.5 (145 + 2340)) / 2.
        assert!((before - 6349.5 / 1.5).abs() < 1e-9, "{before}");
        assert!((after - 3759.75).abs() < 1e-9, "{after}");
        // With n closed intervals both readings are the RFC's sums.
        let full = |partial| {
            let mut h = LossHistory::new(8, true, 0.5).with_partial(partial);
            h.first_loss_event(0, 100.0);
            for k in 1..=8 {
                h.loss_event(100 * k + 7 * k * k);
            }
            h.mean_interval_with(150.0)
        };
        assert_eq!(full(PartialHistory::Ns2), full(PartialHistory::Dccp));
    }

    #[test]
    fn intervals_and_rate() {
        let mut h = LossHistory::new(8, false, 0.5);
        assert_eq!(h.loss_event_rate(1000), 0.0);
        h.first_loss_event(1000, 400.0);
        // Just after the first loss: I_0 small, I_tot1 = 400 wins: p = 1/400.
        assert!((h.loss_event_rate(1000) - 1.0 / 400.0).abs() < 1e-12);
        // With two closed intervals (k = 2): I_tot0 = I_0 + I_1, I_tot1 = I_1 + I_2.
        h.loss_event(1200); // I_1 = 200, I_2 = 400
        assert_eq!(h.closed().collect::<Vec<_>>(), vec![200.0, 400.0]);
        // s_max = 1499: I_0 = 300 -> max((300 + 200)/2, (200 + 400)/2) = 300.
        assert!((h.loss_event_rate(1499) - 1.0 / 300.0).abs() < 1e-12);
        // s_max = 1799: I_0 = 600 -> (600 + 200)/2 = 400.
        assert!((h.loss_event_rate(1799) - 1.0 / 400.0).abs() < 1e-12);
        // The history keeps at most n closed intervals.
        for k in 0..20 {
            h.loss_event(1300 + 100 * k);
        }
        assert_eq!(h.closed().count(), 8);
    }
}
