//! The machinery shared by the RED family: the average-queue estimator with
//! its idle-time correction, the drop-probability curves (linear, gentle,
//! NLRED's quadratic), the count-based uniformisation and the per-arrival
//! decision of Floyd and Jacobson's algorithm.
//!
//! Source: S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993, Figure 2 (the algorithm)
//! and Section 7 (the uniformisation pa = pb / (1 - count pb)); ns-2's
//! `queue/red.cc` for the `wait` variant pa = pb / (2 - count pb) and the
//! gentle curve; S. Floyd, "Recommendation on using the gentle variant of
//! RED" (2000); K. Zhou, K. L. Yeung, V. O. K. Li, "Nonlinear RED", Computer
//! Networks 50 (2006), Section 3, for the quadratic curve.
//!
//! Everything here is a pure function of its arguments (time and the random
//! draw are passed in), so the unit tests below check each formula at chosen
//! points.

use crate::time::{tx_time, SimTime};

/// Exponentially weighted moving average of the queue length, sampled on
/// arrivals, with the idle-time correction of Floyd and Jacobson (Figure 2).
///
/// While the link is idle no packets arrive to be sampled, so when the next
/// packet arrives the average is decayed as if `m` packets had been
/// transmitted in the idle time, `m = floor(idle / s)` with `s` the
/// transmission time of a packet of `mean_pkt_size` bytes (ns-2's `ptc`).
/// The idle time starts when the last queued packet has finished its
/// transmission (ns-2 starts it when the link asks for a packet and finds
/// the queue empty, which is the same instant).
#[derive(Clone, Debug)]
pub struct Ewma {
    /// The average (packets, or bytes in byte mode).
    pub avg: f64,
    /// The EWMA weight w_q.
    pub weight: f64,
    mean_pkt_size: u32,
    /// When the link went (or will go) idle; None while packets are queued.
    idle_since: Option<SimTime>,
}

impl Ewma {
    /// An estimator starting at 0 with the link idle since time 0.
    pub fn new(weight: f64, mean_pkt_size: u32) -> Self {
        Ewma {
            avg: 0.0,
            weight,
            mean_pkt_size,
            idle_since: Some(SimTime::ZERO),
        }
    }

    /// Packets of `mean_pkt_size` bytes the link could have sent during the
    /// idle time ending at `now` (0 while not idle).
    pub fn idle_packets(&self, now: SimTime, link_rate_bps: u64) -> f64 {
        match self.idle_since {
            Some(t) if now > t && link_rate_bps > 0 => {
                let s_ns = self.mean_pkt_size as f64 * 8.0 * 1e9 / link_rate_bps as f64;
                ((now - t).0 as f64 / s_ns).floor()
            }
            _ => 0.0,
        }
    }

    /// Update the average for an arrival that finds `q` packets (or bytes)
    /// waiting: avg <- (1 - w)^(m+1) avg + w q, with m the idle-time
    /// correction (ns-2's `estimator(q, m + 1, ...)`). The idle period is
    /// consumed: a later arrival during the same empty spell decays only for
    /// the time since this one.
    pub fn on_arrival(&mut self, now: SimTime, q: f64, link_rate_bps: u64) -> f64 {
        let m = self.idle_packets(now, link_rate_bps);
        if self.idle_since.is_some_and(|t| now > t) {
            self.idle_since = Some(now);
        }
        let keep = 1.0 - self.weight;
        // Without idle time (m = 0, most arrivals) the decay factor is
        // keep^0 = 1 exactly: skip the call to `pow`.
        let decayed = if m == 0.0 { self.avg } else { self.avg * keep.powf(m) };
        self.avg = decayed * keep + self.weight * q;
        self.avg
    }

    /// The arriving packet was accepted: the queue is no longer empty.
    pub fn on_accept(&mut self) {
        self.idle_since = None;
    }

    /// A packet of `size` bytes left for the link at `now` and the queue is
    /// now empty: the link goes idle when its transmission ends.
    pub fn on_empty(&mut self, now: SimTime, size: u32, link_rate_bps: u64) {
        let end = if link_rate_bps > 0 {
            now + tx_time(size, link_rate_bps)
        } else {
            now
        };
        self.idle_since = Some(end);
    }

    /// The average as it would be after the idle decay up to `now`, without
    /// changing the state (for periodic controllers such as Adaptive RED).
    pub fn peek(&self, now: SimTime, link_rate_bps: u64) -> f64 {
        let m = self.idle_packets(now, link_rate_bps);
        if m == 0.0 {
            return self.avg;
        }
        self.avg * (1.0 - self.weight).powf(m)
    }
}

/// Shape of the drop-probability function between the thresholds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// RED: pb rises linearly from 0 at min_th to max_p at max_th; forced
    /// drops at and above max_th.
    Linear,
    /// Gentle RED: linear to max_p at max_th, then linear from max_p to 1 at
    /// 2 max_th; forced drops at and above 2 max_th.
    Gentle,
    /// NLRED: pb = 1.5 max_p ((avg - min_th) / (max_th - min_th))^2 between
    /// the thresholds (Zhou et al. 2006, Section 3; the factor 1.5 makes the
    /// mean of pb over the range equal RED's); forced drops at and above max_th.
    Quadratic,
    /// NLRED's quadratic curve below max_th with gentle RED's linear rise
    /// from max_p to 1 between max_th and 2 max_th (ns-3's `RedQueueDisc`
    /// with `NLRED` and `Gentle`, `CalculatePNew`).
    QuadraticGentle,
}

impl Shape {
    /// Whether the curve has the gentle region above max_th.
    pub fn is_gentle(self) -> bool {
        matches!(self, Shape::Gentle | Shape::QuadraticGentle)
    }
}

/// A drop-probability curve: thresholds (in queue units), max_p and shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Curve {
    /// Lower threshold.
    pub min_th: f64,
    /// Upper threshold.
    pub max_th: f64,
    /// Probability at max_th.
    pub max_p: f64,
    /// Shape.
    pub shape: Shape,
}

impl Curve {
    /// The average at and above which every arrival is dropped.
    pub fn forced_above(&self) -> f64 {
        if self.shape.is_gentle() {
            2.0 * self.max_th
        } else {
            self.max_th
        }
    }

    /// The initial drop probability pb for an average `avg` (0 below
    /// min_th, 1 in the forced region).
    pub fn pb(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            return 0.0;
        }
        if avg >= self.forced_above() {
            return 1.0;
        }
        let span = self.max_th - self.min_th;
        let p = if avg >= self.max_th {
            // Gentle region: from max_p at max_th to 1 at 2 max_th.
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            let x = if span > 0.0 { (avg - self.min_th) / span } else { 1.0 };
            match self.shape {
                Shape::Quadratic | Shape::QuadraticGentle => 1.5 * self.max_p * x * x,
                Shape::Linear | Shape::Gentle => self.max_p * x,
            }
        };
        p.min(1.0)
    }
}

/// Floyd and Jacobson's uniformisation of the inter-drop gaps: `count` is
/// the number of packets since the last drop, this one included (Figure 2
/// increments count before computing pa and resets it to 0 on a drop, as
/// ns-2 does).
///
/// Without `wait`: pa = pb / (1 - count pb) (Figure 2, Section 7), 1 once
/// count pb >= 1, so the gap is uniform on {1, ..., 1/pb - 1}.
/// With `wait` (ns-2's `wait_`, its default): pa = 0 while count pb < 1,
/// pb / (2 - count pb) while count pb < 2, then 1, so the gap is uniform on
/// {1/pb, ..., 2/pb - 1}.
pub fn uniformise(pb: f64, count: i64, wait: bool) -> f64 {
    if pb <= 0.0 {
        return 0.0;
    }
    let cp = count as f64 * pb;
    let pa = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            pb / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        pb / (1.0 - cp)
    } else {
        1.0
    };
    pa.min(1.0)
}

/// What the RED test decided for an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Below the region, or not chosen: enqueue.
    Pass,
    /// Chosen at random in the early region: mark (ECN) or drop.
    Early,
    /// In the forced region: drop.
    Forced,
}

/// Options of the early test.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EarlyOpts {
    /// ns-2's `wait` variant of the uniformisation.
    pub wait: bool,
    /// Byte mode: scale pb by size / mean_pkt_size (paper Section 4).
    pub byte_mode: bool,
    /// Mean packet size for byte-mode scaling.
    pub mean_pkt_size: u32,
    /// The peers' rules for small queues and the first arrival tested.
    pub rules: RedRules,
}

/// Two rules of ns-2's `queue/red.cc` (`REDQueue::enque`) and ns-3's
/// `red-queue-disc.cc` (`DoEnqueue`) that Floyd and Jacobson's Figure 2
/// does not have (compatibility semantics, docs/compat.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RedRules {
    /// No early or forced test while the queue holds at most one packet (at
    /// most 1 byte in byte mode: `qlen > 1` in both peers), so an early drop
    /// never idles the link; the next arrival tested counts as the first.
    pub small_queue: bool,
    /// The first arrival tested after the average rose over min_th (or
    /// after the small-queue rule held) is never dropped and sets count to
    /// 1 (the peers' `old` flag). Without it that arrival has count 0 and
    /// is dropped with probability pb (Figure 2).
    pub spare_first: bool,
}

impl RedRules {
    /// The rules of a compatibility profile, each overridden by its key
    /// (`small_queue_rule`, `spare_first`) when given.
    pub fn resolve(profile: crate::compat::Profile, small_queue: Option<bool>, spare_first: Option<bool>) -> Self {
        RedRules {
            small_queue: small_queue.unwrap_or(profile.red_small_queue_rule()),
            spare_first: spare_first.unwrap_or(profile.red_spare_first()),
        }
    }

    /// Figure 2 as written: every arrival tested, none spared.
    pub const PAPER: RedRules = RedRules {
        small_queue: false,
        spare_first: false,
    };
}

/// The per-curve state of the early test: `count` of Figure 2 (-1 while
/// the average is below min_th) and the last probabilities, for probes.
#[derive(Clone, Debug)]
pub struct RedTest {
    /// Packets since the last drop/mark (-1 below min_th).
    pub count: i64,
    /// Last initial probability pb (for probes).
    pub last_pb: f64,
    /// Last final probability pa.
    pub last_pa: f64,
}

impl Default for RedTest {
    fn default() -> Self {
        RedTest {
            count: -1,
            last_pb: 0.0,
            last_pa: 0.0,
        }
    }
}

impl RedTest {
    /// Floyd and Jacobson's Figure 2 for one arrival of `size` bytes with
    /// average `avg` that finds `qlen` packets (bytes in byte mode) waiting;
    /// `u` is a uniform draw in [0, 1), taken only in the early region.
    /// Without `opts.rules`, as in Figure 2, the first packet above min_th
    /// has count 0 and may be dropped with pb; with them, the peers' rules
    /// apply (see [`RedRules`]). Byte mode scales pb before the
    /// uniformisation, as the paper's Section 4 does (ns-2 scales after,
    /// with a byte count).
    pub fn decide(
        &mut self,
        curve: &Curve,
        avg: f64,
        qlen: f64,
        size: u32,
        opts: &EarlyOpts,
        u: impl FnOnce() -> f64,
    ) -> Outcome {
        if avg < curve.min_th || (opts.rules.small_queue && qlen <= 1.0) {
            self.count = -1;
            self.last_pb = 0.0;
            self.last_pa = 0.0;
            return Outcome::Pass;
        }
        if avg >= curve.forced_above() {
            self.count = 0;
            self.last_pb = 1.0;
            self.last_pa = 1.0;
            return Outcome::Forced;
        }
        if opts.rules.spare_first && self.count < 0 {
            self.count = 1;
            self.last_pb = curve.pb(avg);
            self.last_pa = 0.0;
            return Outcome::Pass;
        }
        self.count += 1;
        let mut pb = curve.pb(avg);
        if opts.byte_mode {
            pb = (pb * size as f64 / opts.mean_pkt_size as f64).min(1.0);
        }
        let pa = uniformise(pb, self.count, opts.wait);
        self.last_pb = pb;
        self.last_pa = pa;
        if pa > 0.0 && u() < pa {
            self.count = 0;
            Outcome::Early
        } else {
            Outcome::Pass
        }
    }

    /// A forced or overflow drop happened: restart the gap count (ns-2 does
    /// the same, "bug-fix from Philip Liu").
    pub fn on_forced(&mut self) {
        if self.count > 0 {
            self.count = 0;
        }
    }
}

/// Parameter checks shared by the family's configs.
pub(crate) mod check {
    use crate::params::ParamError;

    /// A probability in (0, 1].
    pub fn prob(key: &str, v: f64) -> Result<f64, ParamError> {
        if v.is_finite() && v > 0.0 && v <= 1.0 {
            Ok(v)
        } else {
            Err(ParamError::at(
                key,
                format!("expected a probability in (0, 1], got {v}"),
            ))
        }
    }

    /// A finite number >= 0.
    pub fn non_negative(key: &str, v: f64) -> Result<f64, ParamError> {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(ParamError::at(key, format!("expected a number >= 0, got {v}")))
        }
    }

    /// A finite number > 0.
    pub fn positive(key: &str, v: f64) -> Result<f64, ParamError> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(ParamError::at(key, format!("expected a number > 0, got {v}")))
        }
    }

    /// Thresholds with min_th < max_th.
    pub fn thresholds(min_key: &str, max_key: &str, min: f64, max: f64) -> Result<(), ParamError> {
        non_negative(min_key, min)?;
        positive(max_key, max)?;
        if max <= min {
            return Err(ParamError::at(
                max_key,
                format!("{max_key} ({max}) must be greater than {min_key} ({min})"),
            ));
        }
        Ok(())
    }

    /// A packet size in bytes >= 1.
    pub fn pkt_size(key: &str, v: u32) -> Result<u32, ParamError> {
        if v >= 1 {
            Ok(v)
        } else {
            Err(ParamError::at(key, "expected a size of at least 1 byte"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn linear_curve_at_chosen_points() {
        let c = Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            shape: Shape::Linear,
        };
        assert_eq!(c.pb(4.9), 0.0);
        assert!(close(c.pb(5.0), 0.0));
        assert!(close(c.pb(10.0), 0.05));
        assert!(close(c.pb(12.5), 0.075));
        assert_eq!(c.pb(15.0), 1.0);
        assert_eq!(c.forced_above(), 15.0);
    }

    #[test]
    fn gentle_region_rises_from_max_p_to_one() {
        let c = Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            shape: Shape::Gentle,
        };
        assert!(close(c.pb(10.0), 0.05));
        assert!(close(c.pb(15.0), 0.1));
        // halfway between max_th and 2 max_th: 0.1 + 0.9 * 0.5
        assert!(close(c.pb(22.5), 0.55));
        assert!(close(c.pb(29.0), 0.1 + 0.9 * 14.0 / 15.0));
        assert_eq!(c.pb(30.0), 1.0);
        assert_eq!(c.forced_above(), 30.0);
    }

    #[test]
    fn nlred_quadratic_with_paper_scaling() {
        let c = Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            shape: Shape::Quadratic,
        };
        // x = 0.5: 1.5 * 0.1 * 0.25
        assert!(close(c.pb(10.0), 0.0375));
        // x = 0.2: 1.5 * 0.1 * 0.04, gentler than RED's 0.02
        assert!(close(c.pb(7.0), 0.006));
        // x = 0.9: 1.5 * 0.1 * 0.81 = 0.1215, more aggressive than RED's 0.09
        assert!(close(c.pb(14.0), 0.1215));
        // equal to RED at x = 2/3
        let red = Curve {
            shape: Shape::Linear,
            ..c
        };
        let x = 5.0 + 10.0 * 2.0 / 3.0;
        assert!((c.pb(x) - red.pb(x)).abs() < 1e-12);
        assert_eq!(c.pb(15.0), 1.0);
    }

    #[test]
    fn uniformisation_with_count() {
        // pb = 0.05: pa = pb / (1 - count pb)
        assert!(close(uniformise(0.05, 0, false), 0.05));
        assert!(close(uniformise(0.05, 1, false), 0.05 / 0.95));
        assert!(close(uniformise(0.05, 10, false), 0.1));
        assert!(close(uniformise(0.05, 19, false), 0.05 / 0.05));
        assert_eq!(uniformise(0.05, 20, false), 1.0);
        assert_eq!(uniformise(0.0, 50, false), 0.0);
    }

    #[test]
    fn wait_variant() {
        // pb = 0.05: nothing until count = 20, then pb / (2 - count pb)
        assert_eq!(uniformise(0.05, 19, true), 0.0);
        assert!(close(uniformise(0.05, 20, true), 0.05));
        assert!(close(uniformise(0.05, 30, true), 0.1));
        assert!(close(uniformise(0.05, 39, true), 0.05 / 0.05));
        assert_eq!(uniformise(0.05, 40, true), 1.0);
    }

    #[test]
    fn gaps_are_uniform() {
        // With Figure 2's count (the n-th packet after a drop has count n),
        // P(gap = n) = pa_n * prod_{k<n} (1 - pa_k) is the same for every n:
        // pb / (1 - pb) on {1, ..., 1/pb - 1} (classic) and pb on
        // {1/pb, ..., 2/pb - 1} (wait).
        let pb = 0.1;
        let mut survive = 1.0;
        for n in 1..10 {
            let pa = uniformise(pb, n, false);
            assert!((survive * pa - pb / (1.0 - pb)).abs() < 1e-12, "n={n}");
            survive *= 1.0 - pa;
        }
        assert!(survive.abs() < 1e-12);
        let mut survive = 1.0;
        for n in 1..20 {
            let pa = uniformise(pb, n, true);
            let p_gap = survive * pa;
            if n < 10 {
                assert_eq!(p_gap, 0.0);
            } else {
                assert!((p_gap - pb).abs() < 1e-12, "n={n}");
            }
            survive *= 1.0 - pa;
        }
        assert!(survive.abs() < 1e-12);
    }

    #[test]
    fn decide_follows_figure_2() {
        let c = Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            shape: Shape::Linear,
        };
        let opts = EarlyOpts {
            wait: false,
            byte_mode: false,
            mean_pkt_size: 500,
            rules: RedRules::PAPER,
        };
        let mut t = RedTest::default();
        assert_eq!(t.decide(&c, 3.0, 10.0, 500, &opts, || 0.0), Outcome::Pass);
        assert_eq!(t.count, -1);
        // first packet over min_th: count 0, pa = pb = 0.05
        assert_eq!(t.decide(&c, 10.0, 10.0, 500, &opts, || 0.06), Outcome::Pass);
        assert_eq!(t.count, 0);
        assert!(close(t.last_pa, 0.05));
        // second: count 1, pa = 0.05 / 0.95 = 0.05263; u = 0.052 drops
        assert_eq!(t.decide(&c, 10.0, 10.0, 500, &opts, || 0.052), Outcome::Early);
        assert_eq!(t.count, 0);
        assert_eq!(
            t.decide(&c, 15.0, 10.0, 500, &opts, || panic!("no draw")),
            Outcome::Forced
        );
        assert_eq!(t.count, 0);
    }

    #[test]
    fn byte_mode_scales_pb_by_size() {
        let c = Curve {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            shape: Shape::Linear,
        };
        let opts = EarlyOpts {
            wait: false,
            byte_mode: true,
            mean_pkt_size: 1000,
            rules: RedRules::PAPER,
        };
        let mut t = RedTest::default();
        t.decide(&c, 10.0, 5000.0, 250, &opts, || 1.0);
        // pb = 0.05 * 250 / 1000
        assert!(close(t.last_pb, 0.0125));
        t.decide(&c, 10.0, 5000.0, 1500, &opts, || 1.0);
        assert!(close(t.last_pb, 0.075));
        // count 1 now: pa = 0.075 / (1 - 0.075)
        assert!(close(t.last_pa, 0.075 / 0.925));
    }

    #[test]
    fn idle_correction_decays_as_if_small_packets_were_sent() {
        // 8 Mbps, 500-byte mean packets: s = 0.5 ms.
        let rate = 8_000_000;
        let mut e = Ewma::new(0.002, 500);
        e.on_arrival(SimTime::ZERO, 0.0, rate);
        e.on_accept();
        e.avg = 10.0;
        // The last packet (1000 bytes, 1 ms on the wire) leaves at t = 1 s.
        e.on_empty(SimTime::from_secs(1), 1000, rate);
        // Arrival during that transmission: no idle time, plain update.
        let a = e.peek(SimTime::from_micros(1_000_500), rate);
        assert_eq!(a, 10.0);
        // Arrival 100 ms after the link went idle (t = 1.001 s): m = 200.
        let now = SimTime::from_millis(1101);
        assert_eq!(e.idle_packets(now, rate), 200.0);
        let got = e.on_arrival(now, 0.0, rate);
        let want = 10.0 * 0.998f64.powi(201);
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        // A second arrival at the same instant while still empty: no double decay.
        let got2 = e.on_arrival(now, 0.0, rate);
        assert!((got2 - want * 0.998).abs() < 1e-9);
        e.on_accept();
        assert_eq!(e.idle_packets(SimTime::from_secs(5), rate), 0.0);
    }
}
