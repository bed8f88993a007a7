//! Copa (Arun and Balakrishnan, "Copa: Practical Delay-Based Congestion
//! Control for the Internet", NSDI 2018, section 2, default mode): a
//! delay-based controller that steers each flow's rate towards
//! `1 / (delta * d_q)`, where `d_q` is the queueing delay it measures.
//!
//! Per ACK (section 2.1):
//! 1. `RTTstanding` is the smallest RTT sample of the last `srtt / 2`
//!    (a window short enough to track the queue, long enough to skip the
//!    ACK compression of one burst), `RTTmin` the smallest of the last
//!    `rtt_min_window` (10 s); `d_q = RTTstanding - RTTmin`.
//! 2. The target rate is `lambda_t = 1 / (delta d_q)` packets per second,
//!    the current rate `lambda = cwnd / RTTstanding`.
//! 3. If `lambda <= lambda_t`, `cwnd += v / (delta cwnd)`, else
//!    `cwnd -= v / (delta cwnd)` (so `v / delta` packets per round trip).
//! 4. The velocity `v` starts at 1; once per round trip the window's
//!    direction over that round trip is compared with the last one's: after
//!    three round trips in the same direction `v` doubles each round trip;
//!    a change of direction resets it to 1.
//!
//! Slow start: cwnd grows by one segment per segment acknowledged (doubling
//! each round trip) until the rate first exceeds the target. Pacing at
//! `2 cwnd / RTTstanding` (section 2.1), with 1 ms standing in for the RTT
//! before the first sample (Linux BBR's convention). In equilibrium N flows share the
//! link when `N / (delta d_q) = C`, i.e. with `N / delta` packets queued:
//! two per flow at the default `delta = 0.5`.
//!
//! Readings: Copa's default mode does not react to loss (its window follows
//! the delay); ccsim leaves the window unchanged at a fast retransmit and,
//! after a retransmission timeout, restarts from one segment in slow start.
//! Not modelled: the competitive mode (section 2.2), which adapts `delta`
//! when buffer-filling flows share the bottleneck.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent};
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;
use std::collections::VecDeque;

/// Copa's options (`cc_params`).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CopaConfig {
    /// delta: the inverse of the packets each flow keeps queued (0.5, the paper's default).
    pub delta: f64,
    /// Window of RTTmin (10 s, the paper's).
    pub rtt_min_window: Time,
}

impl Default for CopaConfig {
    fn default() -> Self {
        CopaConfig {
            delta: 0.5,
            rtt_min_window: Time(SimTime::from_secs(10)),
        }
    }
}

/// The minimum of the samples of a sliding time window (a monotonic deque:
/// O(1) amortised per sample, no allocation once it has grown).
#[derive(Debug, Default)]
struct WindowedMin {
    samples: VecDeque<(SimTime, SimTime)>,
}

impl WindowedMin {
    fn push(&mut self, now: SimTime, rtt: SimTime) {
        while self.samples.back().is_some_and(|&(_, r)| r >= rtt) {
            self.samples.pop_back();
        }
        self.samples.push_back((now, rtt));
    }

    /// The minimum over the samples taken after `now - window` (the latest
    /// sample is always kept).
    fn min(&mut self, now: SimTime, window: SimTime) -> Option<SimTime> {
        let from = now.saturating_sub(window);
        while self.samples.len() > 1 && self.samples.front().is_some_and(|&(t, _)| t < from) {
            self.samples.pop_front();
        }
        self.samples.front().map(|&(_, r)| r)
    }
}

/// The Copa controller.
pub struct Copa {
    delta: f64,
    rtt_min_window: SimTime,
    cwnd: f64,
    slow_start: bool,
    velocity: f64,
    /// Direction of the last round trip (+1 up, -1 down, 0 none yet) and
    /// how many round trips in a row went that way.
    direction: i8,
    same_direction: u32,
    /// Start of the current round trip: (sequence that ends it, cwnd then).
    round: Option<(u64, f64)>,
    standing: WindowedMin,
    base: WindowedMin,
    rtt_standing: Option<SimTime>,
    wire_bits: f64,
}

impl Copa {
    /// Build from a config.
    pub fn new(cfg: CopaConfig, init: &CcInit) -> Result<Self, ParamError> {
        let delta = check_range("delta", cfg.delta, 1e-3, 100.0)?;
        if cfg.rtt_min_window.0 == SimTime::ZERO {
            return Err(ParamError::at("rtt_min_window", "must be greater than 0"));
        }
        Ok(Copa {
            delta,
            rtt_min_window: cfg.rtt_min_window.0,
            cwnd: init.initial_cwnd,
            slow_start: true,
            velocity: 1.0,
            direction: 0,
            same_direction: 0,
            round: None,
            standing: WindowedMin::default(),
            base: WindowedMin::default(),
            rtt_standing: None,
            wire_bits: init.wire_size as f64 * 8.0,
        })
    }

    /// The current velocity (for tests).
    pub fn velocity(&self) -> f64 {
        self.velocity
    }

    /// Once per round trip: the velocity rule (step 4).
    fn end_of_round(&mut self, ack: &AckInfo) {
        match self.round {
            Some((end, cwnd_then)) if ack.ack >= end => {
                let dir: i8 = if self.cwnd > cwnd_then { 1 } else { -1 };
                if dir == self.direction {
                    self.same_direction += 1;
                    if self.same_direction >= 3 {
                        self.velocity *= 2.0;
                    }
                } else {
                    self.direction = dir;
                    self.same_direction = 1;
                    self.velocity = 1.0;
                }
                self.round = Some((ack.snd_max, self.cwnd));
            }
            Some(_) => {}
            None => self.round = Some((ack.snd_max, self.cwnd)),
        }
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        "copa"
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    fn on_ack(&mut self, ack: &AckInfo, _rng: &mut SimRng) {
        if let Some(r) = ack.rtt {
            self.standing.push(ack.now, r);
            self.base.push(ack.now, r);
        }
        let srtt = ack.srtt.or(ack.rtt).unwrap_or(SimTime::ZERO);
        let (Some(standing), Some(min)) = (
            self.standing.min(ack.now, SimTime(srtt.0 / 2)),
            self.base.min(ack.now, self.rtt_min_window),
        ) else {
            return;
        };
        self.rtt_standing = Some(standing);
        if ack.acked == 0 {
            return;
        }
        let d_q = standing.saturating_sub(min).secs_f64();
        let rate = self.cwnd / standing.secs_f64().max(1e-9);
        // lambda <= lambda_t, i.e. lambda delta d_q <= 1 (d_q = 0: always below).
        let below = rate * self.delta * d_q <= 1.0;
        if self.slow_start {
            if below {
                self.cwnd += ack.acked as f64;
                return;
            }
            self.slow_start = false;
        }
        self.end_of_round(ack);
        let step = self.velocity / (self.delta * self.cwnd) * ack.acked as f64;
        self.cwnd = if below {
            self.cwnd + step
        } else {
            (self.cwnd - step).max(2.0)
        };
        if self.cwnd <= 2.0 {
            self.velocity = 1.0;
        }
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _ev: &CongestionEvent) {
        self.cwnd = 1.0;
        self.slow_start = true;
        self.velocity = 1.0;
        self.direction = 0;
        self.round = None;
    }
    /// 2 cwnd / RTTstanding; before the first RTT sample 1 ms stands in
    /// for it, as in Linux's BBR (`bbr_init_pacing_rate_from_rtt`).
    fn pacing_rate_bps(&self) -> Option<f64> {
        let r = self.rtt_standing.map_or(1e-3, |r| r.secs_f64().max(1e-6));
        Some(2.0 * self.cwnd * self.wire_bits / r)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    fn ack_at(now_us: u64, rtt_us: u64, ack_no: u64, snd_max: u64) -> AckInfo {
        let mut a = ack(0, 1);
        a.now = SimTime::from_micros(now_us);
        a.rtt = Some(SimTime::from_micros(rtt_us));
        a.srtt = a.rtt;
        a.ack = ack_no;
        a.snd_max = snd_max;
        a
    }

    #[test]
    fn windowed_min_forgets_old_samples() {
        let mut w = WindowedMin::default();
        w.push(SimTime::from_millis(0), SimTime::from_millis(10));
        w.push(SimTime::from_millis(5), SimTime::from_millis(30));
        w.push(SimTime::from_millis(8), SimTime::from_millis(20));
        assert_eq!(
            w.min(SimTime::from_millis(9), SimTime::from_millis(20)),
            Some(SimTime::from_millis(10))
        );
        assert_eq!(
            w.min(SimTime::from_millis(12), SimTime::from_millis(6)),
            Some(SimTime::from_millis(20))
        );
    }

    #[test]
    fn slow_start_until_the_rate_exceeds_the_target_then_one_over_delta_per_rtt() {
        let mut rng = stream(1, "t");
        let mut c = Copa::new(CopaConfig::default(), &init(10.0)).unwrap();
        // No queueing (every RTT 100 ms): slow start, +1 per segment.
        c.on_ack(&ack_at(0, 100_000, 1, 10), &mut rng);
        c.on_ack(&ack_at(1_000, 100_000, 2, 11), &mut rng);
        assert_eq!(c.cwnd(), 12.0);
        // 10 ms of standing queue: target 1/(0.5 * 0.01) = 200 pkt/s; the rate
        // 12 / 0.11 = 109 pkt/s is below it, still slow start.
        c.on_ack(&ack_at(200_000, 110_000, 3, 12), &mut rng);
        assert_eq!(c.cwnd(), 13.0);
        // 50 ms of queue: target 40 pkt/s < 13 / 0.15 = 87: leave slow start
        // and decrease by v / (delta cwnd) = 1 / 6.5.
        c.on_ack(&ack_at(400_000, 150_000, 4, 13), &mut rng);
        assert!((c.cwnd() - (13.0 - 1.0 / 6.5)).abs() < 1e-12);
    }

    #[test]
    fn velocity_doubles_after_three_round_trips_one_way_and_resets_on_a_turn() {
        let mut rng = stream(1, "t");
        let mut c = Copa::new(CopaConfig::default(), &init(10.0)).unwrap();
        c.slow_start = false;
        // RTTmin 100 ms seen once; then no queue: always below target, cwnd rises.
        let mut seq = 1;
        let mut t = 0;
        let mut velocities = Vec::new();
        for _round in 0..6 {
            let end = seq + 10;
            while seq <= end {
                c.on_ack(&ack_at(t, 100_000, seq, end + 10), &mut rng);
                seq += 1;
                t += 10_000;
            }
            velocities.push(c.velocity());
        }
        // The first round trip only starts the count; the direction is then
        // up for round trips 2, 3 and 4, so v doubles from the fourth on.
        assert_eq!(velocities, [1.0, 1.0, 1.0, 2.0, 4.0, 8.0], "{velocities:?}");
        // A round trip with 300 ms of standing queue (the window of
        // RTTstanding, srtt / 2, holds only these samples) turns the window
        // down: v back to 1.
        let end = seq + 10;
        while seq <= end {
            let mut a = ack_at(t, 400_000, seq, end + 10);
            a.srtt = Some(SimTime::from_millis(40));
            c.on_ack(&a, &mut rng);
            seq += 1;
            t += 10_000;
        }
        assert_eq!(c.velocity(), 1.0);
    }
}
