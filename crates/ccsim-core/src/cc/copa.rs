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
//! Competitive mode (section 2.2; `mode = "auto"`): Copa
//! watches for buffer-filling flows. When only Copa flows share the
//! bottleneck the queue empties every few round trips, so the smallest RTT
//! of the last four srtt comes within 10% of the queueing-delay range of
//! RTTmin: `min_4rtt < RTTmin + 0.1 (max_4rtt - RTTmin)` (the paper's test;
//! the window of four srtt and the 10% are those of the authors'
//! implementation, genericCC `RTTWindow::is_copa`). While that holds, Copa
//! runs the default mode with the configured `delta`; when it fails (a
//! loss-based flow keeps the queue from draining) it switches to the
//! competitive mode and runs AIMD on `1 / delta`: plus one per round trip
//! without loss, halved on a loss (at most once per round trip; genericCC
//! `MarkovianCC::update_delta`). Reading: `1 / delta` never falls below the
//! default mode's (competitive Copa is never gentler than default Copa), and
//! it returns to the default on the switch back. `mode = "default"` keeps
//! `delta` fixed (section 2.1 alone) and is ccsim's default: with more than
//! a few Copa flows on one link their summed queue need not drain within
//! four round trips (8 flows on 20 Mbit/s: `tests/copa.rs`), the test then
//! takes the other Copa flows for buffer-fillers, every flow turns
//! competitive and the queue grows to the buffer (mean 510 packets against
//! 16 in the default mode); Copa+ (Zhang et al., IEEE/ACM ToN 2023) reports
//! the same weakness of the mode switch. Choose `auto` when Copa shares the
//! link with loss-based flows.
//!
//! Readings: the window does not react to loss itself (it follows the
//! delay; a loss only moves `delta` in the competitive mode): ccsim leaves it
//! unchanged at a fast retransmit and, after a retransmission timeout,
//! restarts from one segment in slow start.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent};
use crate::params::ParamError;
use crate::rng::SimRng;
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;
use std::collections::VecDeque;

/// Whether Copa adapts `delta` against buffer-filling flows (section 2.2).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CopaMode {
    /// The paper's Copa: the default mode while the queue drains, the
    /// competitive mode (AIMD on 1/delta) while it does not.
    Auto,
    /// The default mode only: `delta` fixed (section 2.1).
    Default,
}

/// Copa's options (`cc_params`).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CopaConfig {
    /// delta: the inverse of the packets each flow keeps queued (0.5, the paper's default).
    pub delta: f64,
    /// Window of RTTmin (10 s, the paper's).
    pub rtt_min_window: Time,
    /// `default` (delta fixed; ccsim's default, see the module's readings)
    /// or `auto` (the paper's switch to the competitive mode).
    pub mode: CopaMode,
}

impl Default for CopaConfig {
    fn default() -> Self {
        CopaConfig {
            delta: 0.5,
            rtt_min_window: Time(SimTime::from_secs(10)),
            mode: CopaMode::Default,
        }
    }
}

/// The minimum (or, with `max`, the maximum) of the samples of a sliding
/// time window (a monotonic deque: O(1) amortised per sample, no allocation
/// once it has grown).
#[derive(Debug, Default)]
struct WindowedExtreme {
    max: bool,
    samples: VecDeque<(SimTime, SimTime)>,
}

impl WindowedExtreme {
    fn maximum() -> Self {
        WindowedExtreme {
            max: true,
            samples: VecDeque::new(),
        }
    }

    fn push(&mut self, now: SimTime, rtt: SimTime) {
        let max = self.max;
        while self
            .samples
            .back()
            .is_some_and(|&(_, r)| if max { r <= rtt } else { r >= rtt })
        {
            self.samples.pop_back();
        }
        self.samples.push_back((now, rtt));
    }

    /// The extreme over the samples taken after `now - window` (the latest
    /// sample is always kept).
    fn get(&mut self, now: SimTime, window: SimTime) -> Option<SimTime> {
        let from = now.saturating_sub(window);
        while self.samples.len() > 1 && self.samples.front().is_some_and(|&(t, _)| t < from) {
            self.samples.pop_front();
        }
        self.samples.front().map(|&(_, r)| r)
    }
}

/// The competitive mode's state (section 2.2): AIMD on 1/delta.
#[derive(Debug)]
struct Competitive {
    /// Smallest and largest RTT of the last four srtt.
    recent_min: WindowedExtreme,
    recent_max: WindowedExtreme,
    /// Whether the competitive mode is on.
    on: bool,
    /// 1/delta while it is on.
    inv_delta: f64,
    /// When 1/delta last grew, and when a loss last halved it.
    last_increase: SimTime,
    last_decrease: Option<SimTime>,
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
    standing: WindowedExtreme,
    base: WindowedExtreme,
    rtt_standing: Option<SimTime>,
    wire_bits: f64,
    /// The competitive mode (None with `mode = "default"`).
    competitive: Option<Competitive>,
    /// The latest smoothed RTT (the competitive mode's round trip).
    srtt: SimTime,
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
            standing: WindowedExtreme::default(),
            base: WindowedExtreme::default(),
            rtt_standing: None,
            wire_bits: init.wire_size as f64 * 8.0,
            competitive: (cfg.mode == CopaMode::Auto).then(|| Competitive {
                recent_min: WindowedExtreme::default(),
                recent_max: WindowedExtreme::maximum(),
                on: false,
                inv_delta: 1.0 / delta,
                last_increase: SimTime::ZERO,
                last_decrease: None,
            }),
            srtt: SimTime::ZERO,
        })
    }

    /// Whether the competitive mode is on (for tests and traces).
    pub fn competitive(&self) -> bool {
        self.competitive.as_ref().is_some_and(|c| c.on)
    }

    /// The delta in force: the configured one, or 1/(1/delta) of the
    /// competitive mode.
    pub fn delta(&self) -> f64 {
        match &self.competitive {
            Some(c) if c.on => 1.0 / c.inv_delta,
            _ => self.delta,
        }
    }

    /// Section 2.2 per RTT sample: the mode switch, then 1/delta's additive
    /// increase once per srtt while competitive.
    fn update_mode(&mut self, now: SimTime, rtt: SimTime, rtt_min: SimTime) {
        let default_inv = 1.0 / self.delta;
        let srtt = self.srtt;
        let Some(c) = self.competitive.as_mut() else {
            return;
        };
        let window = SimTime(srtt.0.saturating_mul(4));
        c.recent_min.push(now, rtt);
        c.recent_max.push(now, rtt);
        let (Some(lo), Some(hi)) = (c.recent_min.get(now, window), c.recent_max.get(now, window)) else {
            return;
        };
        // The queue nearly drained in the last four round trips: only
        // delay-sensitive flows share the bottleneck. (`<=` where genericCC
        // has `<`: a constant RTT equal to RTTmin is an empty queue.)
        let drained = lo.secs_f64() <= rtt_min.secs_f64() + 0.1 * (hi.saturating_sub(rtt_min)).secs_f64();
        if drained {
            c.on = false;
            c.inv_delta = default_inv;
            return;
        }
        if !c.on {
            c.on = true;
            c.inv_delta = default_inv;
            c.last_increase = now;
            return;
        }
        if now.saturating_sub(c.last_increase) > srtt {
            c.inv_delta += 1.0;
            c.last_increase = now;
        }
    }

    /// A loss halves 1/delta in the competitive mode, at most once per round
    /// trip, never below the default mode's.
    fn on_loss(&mut self, now: SimTime) {
        let default_inv = 1.0 / self.delta;
        let srtt = self.srtt;
        if let Some(c) = self.competitive.as_mut().filter(|c| c.on) {
            if c.last_decrease.is_none_or(|t| now.saturating_sub(t) > srtt) {
                c.inv_delta = (c.inv_delta / 2.0).max(default_inv);
                c.last_decrease = Some(now);
            }
        }
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
            self.standing.get(ack.now, SimTime(srtt.0 / 2)),
            self.base.get(ack.now, self.rtt_min_window),
        ) else {
            return;
        };
        self.rtt_standing = Some(standing);
        self.srtt = srtt;
        if let Some(r) = ack.rtt {
            self.update_mode(ack.now, r, min);
        }
        if ack.acked == 0 {
            return;
        }
        let delta = self.delta();
        let d_q = standing.saturating_sub(min).secs_f64();
        let rate = self.cwnd / standing.secs_f64().max(1e-9);
        // lambda <= lambda_t, i.e. lambda delta d_q <= 1 (d_q = 0: always below).
        let below = rate * delta * d_q <= 1.0;
        if self.slow_start {
            if below {
                self.cwnd += ack.acked as f64;
                return;
            }
            self.slow_start = false;
        }
        self.end_of_round(ack);
        let step = self.velocity / (delta * self.cwnd) * ack.acked as f64;
        self.cwnd = if below {
            self.cwnd + step
        } else {
            (self.cwnd - step).max(2.0)
        };
        if self.cwnd <= 2.0 {
            self.velocity = 1.0;
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.on_loss(ev.now);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.on_loss(ev.now);
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
        let mut w = WindowedExtreme::default();
        w.push(SimTime::from_millis(0), SimTime::from_millis(10));
        w.push(SimTime::from_millis(5), SimTime::from_millis(30));
        w.push(SimTime::from_millis(8), SimTime::from_millis(20));
        assert_eq!(
            w.get(SimTime::from_millis(9), SimTime::from_millis(20)),
            Some(SimTime::from_millis(10))
        );
        assert_eq!(
            w.get(SimTime::from_millis(12), SimTime::from_millis(6)),
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

    #[test]
    fn competitive_mode_runs_aimd_on_one_over_delta_while_the_queue_never_drains() {
        let mut rng = stream(1, "t");
        let cfg = CopaConfig {
            mode: CopaMode::Auto,
            ..CopaConfig::default()
        };
        let mut c = Copa::new(cfg, &init(10.0)).unwrap();
        // RTTmin 100 ms once; then the RTT swings between 300 and 400 ms
        // (a buffer-filler's queue that never drains): the smallest RTT of
        // the last four srtt, 300 ms, is far above 100 + 0.1 (400 - 100).
        c.on_ack(&ack_at(0, 100_000, 1, 10), &mut rng);
        assert!(!c.competitive());
        let mut t = 10_000;
        for i in 0..400u64 {
            let rtt = if i % 2 == 0 { 300_000 } else { 400_000 };
            c.on_ack(&ack_at(t, rtt, 2 + i, 300), &mut rng);
            t += 10_000;
        }
        // Competitive once the 100 ms sample leaves the last four srtt
        // (1.2-1.6 s); then 1/delta grows by one per srtt (each sample's
        // srtt is its RTT, 300-400 ms): about 8 times in the remaining 2.8 s.
        assert!(c.competitive());
        let grown = 1.0 / c.delta();
        assert!((8.0..=11.0).contains(&grown), "1/delta {grown}");
        // A loss halves 1/delta, a second loss within the round trip does not.
        let ev = |now_us: u64| CongestionEvent {
            now: SimTime::from_micros(now_us),
            flight: 10.0,
            window: 10.0,
            collapse: false,
            repeated: false,
            srtt: None,
            int_ssthresh: false,
        };
        c.on_congestion_event(&ev(t));
        assert_eq!(1.0 / c.delta(), grown / 2.0);
        c.on_congestion_event(&ev(t + 1_000));
        assert_eq!(1.0 / c.delta(), grown / 2.0);
        // Never below the default mode's 1/delta = 2.
        for k in 1..10 {
            c.on_congestion_event(&ev(t + k * 1_000_000));
        }
        assert_eq!(c.delta(), 0.5);
        // The queue drains (an RTT sample near RTTmin): back to the default mode.
        c.on_ack(&ack_at(t + 20_000_000, 105_000, 500, 600), &mut rng);
        assert!(!c.competitive());
        assert_eq!(c.delta(), 0.5);
    }

    #[test]
    fn default_mode_never_turns_competitive() {
        let mut rng = stream(1, "t");
        let mut c = Copa::new(CopaConfig::default(), &init(10.0)).unwrap();
        c.on_ack(&ack_at(0, 100_000, 1, 10), &mut rng);
        for i in 0..100u64 {
            c.on_ack(&ack_at(10_000 * (i + 1), 400_000, 2 + i, 300), &mut rng);
        }
        assert!(!c.competitive());
        assert_eq!(c.delta(), 0.5);
    }
}
