//! RTT estimation and the retransmission timeout (RFC 6298).
//!
//! - First sample R: SRTT = R, RTTVAR = R/2 (section 2.2).
//! - Later samples R': RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|, then
//!   SRTT = 7/8 SRTT + 1/8 R' (section 2.3).
//! - RTO = SRTT + max(G, 4 RTTVAR) (section 2.3), at most max_rto; before
//!   any sample RTO = initial_rto (1 s, section 2.1).
//! - Each expiry doubles the RTO (section 5.5, capped at max_rto) and the
//!   backed-off value is kept until a valid sample arrives (Karn's
//!   algorithm; the sender never samples retransmitted segments, section 3).
//!   With [`BackoffReset::NewAck`] (ns-3) any ACK of new data ends the
//!   backoff instead.
//!
//! What the minimum RTO bounds is a compatibility semantic ([`RtoFloor`],
//! docs/compat.md):
//! - `variance` (ccsim's and Linux's reading): `min_rto` is G, the floor of
//!   the variance term (`tcp_rto_min` bounds `rttvar`), so RTO >= SRTT +
//!   200 ms. With an RTT sample on every ACK, RTTVAR decays to almost
//!   nothing on a stable path; a floor on the whole RTO would then let any
//!   path with SRTT above min_rto time out before a fast retransmission
//!   could be acknowledged.
//! - `whole` (section 2.4's reading; ns-2's `minrto_`, ns-3's `MinRto`):
//!   RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)), G the clock granularity
//!   (ns-3's `ClockGranularity`).
//!
//! With `ticks` (ns-2, `tcp/tcp.cc` `rtt_update` and `rtt_timeout`) the
//! estimator counts in whole ticks of `granularity` as ns-2 does: a sample
//! is `floor((R + tickoff) / tick)` ticks (at least 1; tickoff is the send
//! time's offset into its tick, ns-2's `boot_time_` taken as 0), SRTT and
//! RTTVAR are integers scaled by 8 and 4, the RTO is `(8 SRTT + 32 RTTVAR)
//! >> 3` ticks, recomputed only on a sample, at least 2 ticks, and after
//! more than three backoffs SRTT is folded into RTTVAR and the next sample
//! starts afresh (ns-2's `rtt_backoff`).

use crate::compat::{BackoffReset, RtoFloor};
use crate::time::SimTime;

/// How the RTO is computed from the estimates (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RtoRules {
    /// What `min_rto` bounds.
    pub floor: RtoFloor,
    /// The clock granularity G (0: none).
    pub granularity: SimTime,
    /// Count in whole ticks of `granularity` (ns-2).
    pub ticks: bool,
    /// What ends the exponential backoff.
    pub backoff_reset: BackoffReset,
    /// Samples from timestamps: rounded to the nearest tick, not counted
    /// from the send time's tick (ns-2 with `timestamps_`).
    pub ts_rounding: bool,
    /// RTTVAR follows samples below SRTT 1/8 as fast (Linux's mdev,
    /// ns-2's `LinuxTcpAgent::rtt_update`; ticks only).
    pub linux_rttvar: bool,
}

impl Default for RtoRules {
    fn default() -> Self {
        RtoRules {
            floor: RtoFloor::Variance,
            granularity: SimTime::ZERO,
            ticks: false,
            backoff_reset: BackoffReset::Sample,
            ts_rounding: false,
            linux_rttvar: false,
        }
    }
}

/// ns-2's integer estimator: tick counts, SRTT scaled by 8, RTTVAR by 4.
#[derive(Clone, Debug, Default)]
struct TickState {
    srtt8: i64,
    rttvar4: i64,
    /// The RTO in ticks, recomputed on each sample (ns-2's `t_rtxcur_`).
    rtxcur: Option<i64>,
}

/// ns-2.35's `rtt_update` on tick counts (`tcp/tcp.cc`; the same code in
/// `TfrcAgent::update_rtt`, `tcp/tfrc.cc`): `srtt8` is SRTT x 8 and
/// `rttvar4` RTTVAR x 4 in ticks (0 before the first sample), `rtt` the
/// sample in ticks; returns `t_rtxcur_` in ticks, ((RTTVAR x 4 << 3) +
/// SRTT x 8) >> 3 (`rttvar_exp_` 2, `T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2).
/// With `linux_rttvar`, `LinuxTcpAgent::rtt_update`: a sample below SRTT
/// moves the deviation 1/8 as much (Linux's mdev), with no floor.
pub fn ns2_rtt_update(srtt8: &mut i64, rttvar4: &mut i64, rtt: i64, linux_rttvar: bool) -> i64 {
    if *srtt8 != 0 {
        let mut delta = rtt - (*srtt8 >> 3);
        *srtt8 += delta;
        if *srtt8 <= 0 {
            *srtt8 = 1;
        }
        if linux_rttvar && delta < 0 {
            delta = -delta - (*rttvar4 >> 2);
            if delta > 0 {
                delta >>= 3;
            }
            *rttvar4 += delta;
        } else {
            delta = delta.abs() - (*rttvar4 >> 2);
            *rttvar4 += delta;
            if *rttvar4 <= 0 && !linux_rttvar {
                *rttvar4 = 1;
            }
        }
    } else {
        *srtt8 = rtt << 3;
        *rttvar4 = rtt << 1;
    }
    ((*rttvar4 << 3) + *srtt8) >> 3
}

/// RFC 6298 state.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    min_rtt: Option<SimTime>,
    latest: Option<SimTime>,
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    initial_rto: SimTime,
    rules: RtoRules,
    tick: TickState,
    /// `srtt` rounded to the nanosecond and the RTO without backoff, as
    /// [`RttEstimator::srtt`] and [`RttEstimator::base_rto`] return them:
    /// computed once per sample instead of on every ACK and probe (the
    /// rounding is a library call on the baseline x86-64 target).
    srtt_ns: Option<SimTime>,
    base_rto: SimTime,
}

impl RttEstimator {
    /// An estimator with the given RTO bounds and ccsim's default rules.
    pub fn new(min_rto: SimTime, max_rto: SimTime, initial_rto: SimTime) -> Self {
        Self::with_rules(min_rto, max_rto, initial_rto, RtoRules::default())
    }

    /// An estimator with the given bounds and rules.
    pub fn with_rules(min_rto: SimTime, max_rto: SimTime, initial_rto: SimTime, rules: RtoRules) -> Self {
        let rules = RtoRules {
            ticks: rules.ticks && rules.granularity > SimTime::ZERO,
            ..rules
        };
        let mut e = RttEstimator {
            srtt: None,
            rttvar: 0.0,
            min_rtt: None,
            latest: None,
            backoff: 0,
            min_rto,
            max_rto,
            initial_rto,
            rules,
            tick: TickState::default(),
            srtt_ns: None,
            base_rto: SimTime::ZERO,
        };
        e.refresh();
        e
    }

    /// Recompute the cached rounded SRTT and base RTO from the estimates.
    fn refresh(&mut self) {
        self.srtt_ns = self.srtt.map(|s| SimTime::from_nanos(crate::time::round(s) as u64));
        self.base_rto = self.compute_base_rto();
    }

    /// Take an RTT sample `r` of a segment sent at `sent_at` (transmitted once).
    pub fn on_sample(&mut self, r: SimTime, sent_at: SimTime) {
        if self.rules.ticks {
            self.on_tick_sample(r, sent_at);
        } else {
            let rn = r.0 as f64;
            match self.srtt {
                None => {
                    self.srtt = Some(rn);
                    self.rttvar = rn / 2.0;
                }
                Some(s) => {
                    self.rttvar = 0.75 * self.rttvar + 0.25 * (s - rn).abs();
                    self.srtt = Some(0.875 * s + 0.125 * rn);
                }
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.backoff = 0;
        self.refresh();
    }

    /// ns-2's `rtt_update` in ticks.
    fn on_tick_sample(&mut self, r: SimTime, sent_at: SimTime) {
        let g = self.rules.granularity.0;
        let rtt = if self.rules.ts_rounding {
            // With timestamps: `t_rtt_ = int(tao / tcp_tick_ + 0.5)`
            // (`LinuxTcpAgent::rtt_update`, `TcpAgent::rtt_update`).
            ((r.0 + g / 2) / g) as i64
        } else {
            let tickoff = sent_at.0 % g;
            ((r.0 + tickoff) / g) as i64
        }
        .max(1);
        let linux = self.rules.linux_rttvar;
        let t = &mut self.tick;
        t.rtxcur = Some(ns2_rtt_update(&mut t.srtt8, &mut t.rttvar4, rtt, linux));
        self.srtt = Some((t.srtt8 * g as i64) as f64 / 8.0);
        self.rttvar = (t.rttvar4 * g as i64) as f64 / 4.0;
    }

    /// The timer expired: double the RTO.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
        if self.rules.ticks && self.backoff > 3 {
            // ns-2 `rtt_backoff`: "if backed off this far, clobber the srtt
            // value, storing it in the mean deviation instead".
            let t = &mut self.tick;
            t.rttvar4 += t.srtt8 >> 3;
            t.srtt8 = 0;
        }
    }

    /// An ACK of new data arrived: under [`BackoffReset::NewAck`] the RTO
    /// is computed afresh from the estimates (ns-3's `NewAck`).
    pub fn on_new_ack(&mut self) {
        if self.rules.backoff_reset == BackoffReset::NewAck {
            self.backoff = 0;
        }
    }

    /// End the backoff without a sample (ns-2's `t_backoff_ = 1` on a
    /// partial ACK in `Sack1TcpAgent::recv`, `tcp/tcp-sack1.cc`).
    pub fn end_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Consecutive backoffs since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The RTO without backoff.
    #[inline]
    pub fn base_rto(&self) -> SimTime {
        self.base_rto
    }

    fn compute_base_rto(&self) -> SimTime {
        if self.rules.ticks {
            let g = self.rules.granularity;
            let rto = match self.tick.rtxcur {
                None => self.initial_rto,
                Some(ticks) => SimTime(ticks.max(0) as u64 * g.0).max(self.min_rto),
            };
            return rto.min(self.max_rto).max(SimTime(2 * g.0));
        }
        match self.srtt {
            None => self.initial_rto.min(self.max_rto),
            Some(s) => {
                let rto = match self.rules.floor {
                    RtoFloor::Variance => s + (4.0 * self.rttvar).max(self.min_rto.0 as f64),
                    RtoFloor::Whole => {
                        let g = self.rules.granularity.0 as f64;
                        (s + (4.0 * self.rttvar).max(g)).max(self.min_rto.0 as f64)
                    }
                };
                SimTime::from_nanos(crate::time::round(rto) as u64).min(self.max_rto)
            }
        }
    }

    /// The current RTO (with exponential backoff).
    pub fn rto(&self) -> SimTime {
        let base = self.base_rto();
        SimTime(base.0.saturating_mul(1u64 << self.backoff)).min(self.max_rto.max(base))
    }

    /// Smoothed RTT.
    #[inline]
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt_ns
    }

    /// RTT variation.
    pub fn rttvar(&self) -> SimTime {
        SimTime::from_nanos(self.rttvar.round() as u64)
    }

    /// Smallest sample so far.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    /// Latest sample.
    pub fn latest(&self) -> Option<SimTime> {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(SimTime::from_millis(200), SimTime::from_secs(60), SimTime::from_secs(1))
    }

    #[test]
    fn rfc6298_updates() {
        let mut e = est();
        assert_eq!(e.rto(), SimTime::from_secs(1));
        e.on_sample(SimTime::from_millis(100), SimTime::ZERO);
        assert_eq!(e.srtt(), Some(SimTime::from_millis(100)));
        assert_eq!(e.rttvar(), SimTime::from_millis(50));
        // 100 + max(200, 4 * 50) = 300 ms
        assert_eq!(e.rto(), SimTime::from_millis(300));
        e.on_sample(SimTime::from_millis(200), SimTime::ZERO);
        // rttvar = 0.75*50 + 0.25*100 = 62.5; srtt = 87.5 + 25 = 112.5
        assert_eq!(e.rttvar(), SimTime::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_micros(112_500)));
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
        // many equal samples: rttvar decays, min_rto bounds the variance term
        for _ in 0..200 {
            e.on_sample(SimTime::from_millis(400), SimTime::ZERO);
        }
        assert_eq!(e.rto(), SimTime::from_millis(600));
    }

    fn ns2() -> RttEstimator {
        RttEstimator::with_rules(
            SimTime::from_millis(200),
            SimTime::from_secs(60),
            SimTime::from_secs(3),
            RtoRules {
                floor: RtoFloor::Whole,
                granularity: SimTime::from_millis(10),
                ticks: true,
                backoff_reset: BackoffReset::Sample,
                ..RtoRules::default()
            },
        )
    }

    #[test]
    fn ns2_tick_arithmetic() {
        // ns-2 tcp.cc: before a sample the RTO is rtxcur_init_ (3 s).
        let mut e = ns2();
        assert_eq!(e.rto(), SimTime::from_secs(3));
        // 120 ms sent at a tick boundary: 12 ticks; srtt8 = 96, rttvar4 =
        // 24, t_rtxcur_ = ((24 << 3) + 96) >> 3 = 36 ticks.
        e.on_sample(SimTime::from_millis(120), SimTime::from_secs(1));
        assert_eq!(e.rto(), SimTime::from_millis(360));
        // Sent 7 ms into a tick, 125 ms: (125 + 7) / 10 = 13 ticks; delta =
        // 13 - 12 = 1: srtt8 = 97; |delta| - (24 >> 2) = -5: rttvar4 = 19;
        // ((19 << 3) + 97) >> 3 = 31 ticks.
        e.on_sample(SimTime::from_millis(125), SimTime::from_millis(1007));
        assert_eq!(e.rto(), SimTime::from_millis(310));
        // A short path: the whole RTO is floored at minrto_ (0.2 s).
        let mut f = ns2();
        f.on_sample(SimTime::from_millis(10), SimTime::ZERO);
        assert_eq!(f.rto(), SimTime::from_millis(200));
        // Backoff doubles; after the fourth, SRTT is folded into RTTVAR and
        // the next sample starts afresh (rtt_backoff).
        for _ in 0..4 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimTime::from_millis(310 * 16));
        e.on_sample(SimTime::from_millis(200), SimTime::from_secs(10));
        // Fresh: 20 ticks, srtt8 = 160, rttvar4 = 40 -> (320 + 160) >> 3 = 60.
        assert_eq!(e.rto(), SimTime::from_millis(600));
    }

    #[test]
    fn backoff_ends_on_a_sample_or_on_any_new_ack() {
        let rules = |backoff_reset| RtoRules {
            floor: RtoFloor::Whole,
            granularity: SimTime::from_millis(1),
            ticks: false,
            backoff_reset,
            ..RtoRules::default()
        };
        for (reset, after_ack) in [(BackoffReset::Sample, 4), (BackoffReset::NewAck, 1)] {
            let mut e = RttEstimator::with_rules(
                SimTime::from_secs(1),
                SimTime::from_secs(60),
                SimTime::from_secs(1),
                rules(reset),
            );
            e.on_sample(SimTime::from_millis(100), SimTime::ZERO);
            e.back_off();
            e.back_off();
            assert_eq!(e.rto(), SimTime::from_secs(4));
            // The ACK of a retransmitted segment: no sample (Karn), so only
            // ns-3's rule forgets the backoff.
            e.on_new_ack();
            assert_eq!(e.rto(), SimTime::from_secs(after_ack), "{reset:?}");
            e.on_sample(SimTime::from_millis(100), SimTime::from_secs(5));
            assert_eq!(e.rto(), SimTime::from_secs(1));
        }
    }

    #[test]
    fn whole_floor_with_granularity() {
        // ns-3 / RFC 6298 2.4: RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)).
        let mut e = RttEstimator::with_rules(
            SimTime::from_secs(1),
            SimTime::from_secs(60),
            SimTime::from_secs(1),
            RtoRules {
                floor: RtoFloor::Whole,
                granularity: SimTime::from_millis(1),
                ticks: false,
                backoff_reset: BackoffReset::Sample,
                ..RtoRules::default()
            },
        );
        e.on_sample(SimTime::from_millis(100), SimTime::ZERO);
        assert_eq!(e.rto(), SimTime::from_secs(1));
        for _ in 0..10 {
            e.on_sample(SimTime::from_millis(1500), SimTime::ZERO);
        }
        let srtt = e.srtt().unwrap().0 as f64;
        let want = srtt + (4.0 * e.rttvar().0 as f64).max(1e6);
        assert!((e.rto().0 as f64 - want).abs() < 2.0);
    }

    #[test]
    fn backoff_until_valid_sample() {
        let mut e = est();
        e.on_sample(SimTime::from_millis(100), SimTime::ZERO);
        e.back_off();
        e.back_off();
        // (100 + 200) * 4
        assert_eq!(e.rto(), SimTime::from_millis(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimTime::from_secs(60), "capped at max_rto");
        e.on_sample(SimTime::from_millis(100), SimTime::ZERO);
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn ns2_linux_agent_timestamps_and_mdev() {
        // `LinuxTcpAgent::rtt_update` with timestamps and tcp_tick_ 1 ms:
        // samples rounded to the nearest tick, and a sample below SRTT
        // moves RTTVAR 1/8 as much.
        let rules = RtoRules {
            floor: RtoFloor::Whole,
            granularity: SimTime::from_millis(1),
            ticks: true,
            backoff_reset: BackoffReset::Sample,
            ts_rounding: true,
            linux_rttvar: true,
        };
        let mut e = RttEstimator::with_rules(
            SimTime::from_millis(200),
            SimTime::from_secs(60),
            SimTime::from_secs(3),
            rules,
        );
        // 100.6 ms rounds to 101 ticks (the send-time tick rule would give 100).
        e.on_sample(SimTime::from_micros(100_600), SimTime::from_micros(1_000_900));
        assert_eq!(e.srtt(), Some(SimTime::from_millis(101)));
        // srtt8 = 808, rttvar4 = 202. A sample of 61 ticks: delta = -40,
        // srtt8 = 768; |delta| - (202 >> 2) = -10 (not positive: not
        // divided), rttvar4 = 192. Then 21 ticks: delta = -75, srtt8 = 693;
        // 75 - 48 = 27 >> 3 = 3: rttvar4 = 195 (RFC 6298: 27 added).
        e.on_sample(SimTime::from_millis(61), SimTime::from_secs(2));
        assert_eq!(e.rttvar(), SimTime::from_millis(48));
        e.on_sample(SimTime::from_millis(21), SimTime::from_secs(3));
        assert_eq!(e.rttvar(), SimTime::from_micros(48_750));
        // RTO = (693 + 8 * 195) >> 3 = 281 ticks.
        assert_eq!(e.rto(), SimTime::from_millis(281));
    }
}
