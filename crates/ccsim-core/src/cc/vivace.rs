//! PCC Vivace (Dong et al., "PCC Vivace: Online-Learning Congestion
//! Control", NSDI 2018): a rate-based controller that sends at one rate per
//! monitor interval (MI), scores each MI with a utility function and moves
//! its rate by online gradient ascent on that utility.
//!
//! Read from the authors' implementation, PCC-Uspace (the QUIC-derived
//! sender): `src/pcc/pcc_utility_manager.cpp` (the utility and its latency
//! gradient), `src/pcc/pcc_vivace_sender.cpp` (the rate control) and
//! `src/pcc/pcc_sender.cpp` (the monitor intervals); the defaults are theirs.
//!
//! **Utility** (paper section 3; `CalculateUtilityVivace` /
//! `CalculateUtilityProportional`): `u = x^t - b x dRTT/dT - c x L`, `x` the
//! MI's sending rate in Mbit/s (10^6 bit/s here; PCC's QUIC code counts
//! 2^20), `L` its loss rate, `dRTT/dT` its latency gradient, with `t = 0.9`
//! (`kSendingRateExponent`), `b = 900` (`kLatencyCoefficient`) and
//! `c = 11.35` (`kVivaceLossCoefficient`).
//!
//! **Latency gradient and its filtering** (`ComputeRttGradient`,
//! `ComputeRttGradientError`, `DetermineToleranceGeneral`): the slope of the
//! least-squares line through the MI's RTT samples against their send
//! times; it counts only when it is larger than the line's error (the RMS
//! residual over the mean RTT): otherwise it is noise and taken as 0; a
//! negative gradient (a draining queue) is taken as 0 too. Not modelled: the
//! authors' later "trending" tolerance over the last six MIs.
//!
//! **Monitor intervals** (`PccSender::ComputeMonitorDuration`): an MI lasts
//! `max(1.5 srtt, the time to send 20 packets at its rate)`; it is complete
//! when every packet it sent is acknowledged (ccsim: the cumulative ACK
//! passes its last segment). The MI's packets are its new segments; the
//! losses detected while the cumulative ACK is inside it are its losses; an
//! RTT sample belongs to the MI during which its segment was sent.
//!
//! **Rate control** (`PccVivaceSender::OnUtilityAvailable`), three modes:
//! - *Starting*: one scored MI at a time; while the utility rises the rate
//!   doubles; when it falls the rate halves back and probing starts.
//! - *Probing*: two pairs of MIs at `r(1 + e)` and `r(1 - e)` (`e = 0.05`,
//!   `kProbingStepSize`), each pair in random order (the flow's random
//!   stream); a decision needs both pairs to agree on the direction (the
//!   higher utility at the higher rate, or at the lower); otherwise probe again.
//! - *Decision made*: the rate moves by `theta_0 * gamma * m(tau)` Mbit/s in
//!   the chosen direction, `gamma` the utility gradient (utility difference
//!   over rate difference, Mbit/s), `theta_0 = 1`
//!   (`kUtilityGradientToRateChangeFactor`) and the **confidence amplifier**
//!   `m(tau) = floor((tau + 1) / 2)^1.2` after `tau` consecutive steps the
//!   same way (`kRateChangeAmplifyExponent`); each step is scored by one MI
//!   and the next step is taken while the utility keeps improving in that
//!   direction; otherwise the last step is undone and probing starts.
//! - The **dynamic change boundary** (`ComputeRateChange`): a step is at most
//!   `omega r`, `omega = 0.05 + 0.05 k` (`kInitialMaxStepSize`,
//!   `kIncrementalStepSize`), where `k` grows by one each time a step hits
//!   the boundary, shrinks by one each time one does not and is reset on
//!   probing; a step is at least 0.5 Mbit/s (`kMinRateChange`); the rate at
//!   least 0.5 Mbit/s (`kMinSendingRate`).
//!
//! In ccsim the flow paces at the rate of the MI being sent (exactly: the
//! MI's target rate stands for its measured sending rate) and the window,
//! twice the rate times the smoothed RTT (at least 4 segments), never binds
//! in steady state. Vivace does not react to a fast retransmit or a timeout
//! itself: losses reach it through the utility. The starting rate is the
//! initial window over 100 ms (QUIC's initial RTT), as PCC's `PccSender`.

use super::{check_range, AckInfo, CcInit, CongestionControl, CongestionEvent};
use crate::params::ParamError;
use crate::rng::{uniform01, SimRng};
use crate::time::SimTime;
use serde::Deserialize;
use std::collections::VecDeque;

/// Vivace's options (`cc_params`).
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct VivaceConfig {
    /// t: the exponent of the rate's reward (0.9).
    pub exponent: f64,
    /// b: the latency-gradient penalty (900).
    pub latency_coefficient: f64,
    /// c: the loss penalty (11.35).
    pub loss_coefficient: f64,
    /// e: the probing step, a fraction of the rate (0.05).
    pub probing_step: f64,
    /// theta_0: Mbit/s of rate change per unit of utility gradient (1).
    pub gradient_to_rate: f64,
    /// The amplifier's exponent (1.2).
    pub amplify_exponent: f64,
    /// omega_0: the change boundary's start, a fraction of the rate (0.05).
    pub initial_max_step: f64,
    /// delta: the boundary's increment each time a step hits it (0.05).
    pub max_step_increment: f64,
    /// MI length in smoothed RTTs (1.5).
    pub mi_rtts: f64,
    /// Least packets per MI (20).
    pub mi_min_packets: f64,
}

impl Default for VivaceConfig {
    fn default() -> Self {
        VivaceConfig {
            exponent: 0.9,
            latency_coefficient: 900.0,
            loss_coefficient: 11.35,
            probing_step: 0.05,
            gradient_to_rate: 1.0,
            amplify_exponent: 1.2,
            initial_max_step: 0.05,
            max_step_increment: 0.05,
            mi_rtts: 1.5,
            mi_min_packets: 20.0,
        }
    }
}

/// The smallest rate and the smallest rate change, bit/s (`kMinSendingRate`, `kMinRateChange`).
const MIN_RATE_BPS: f64 = 500e3;
const MIN_CHANGE_BPS: f64 = 500e3;
/// The initial RTT the starting rate assumes (QUIC's default).
const INITIAL_RTT_S: f64 = 0.1;
/// MI pairs per probing round (`GetNumIntervalGroupsInProbing`).
const PROBE_PAIRS: usize = 2;

/// Vivace's mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Doubling while the utility rises.
    Starting,
    /// Comparing r(1+e) with r(1-e).
    Probing,
    /// Moving in one direction.
    DecisionMade,
}

/// One monitor interval.
#[derive(Clone, Debug)]
struct Mi {
    rate_bps: f64,
    /// Scored (feeds the rate control) or only sent at the current rate.
    useful: bool,
    start_time: SimTime,
    end_time: SimTime,
    start_seq: u64,
    /// One past its last segment, once it is closed.
    end_seq: Option<u64>,
    lost: u64,
    /// (send time, RTT), seconds.
    rtts: Vec<(f64, f64)>,
}

/// An MI's outcome.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct UtilityInfo {
    /// Its rate, bit/s.
    pub rate_bps: f64,
    /// Its utility.
    pub utility: f64,
}

/// The latency gradient of RTT samples (send time, RTT) in seconds: the
/// least-squares slope, if it exceeds the fit's error (RMS residual over the
/// mean RTT) and is positive; 0 otherwise (see the module's documentation).
pub fn filtered_gradient(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    if samples.len() < 2 {
        return 0.0;
    }
    let mx = samples.iter().map(|s| s.0).sum::<f64>() / n;
    let my = samples.iter().map(|s| s.1).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for &(x, y) in samples {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
    }
    if sxx <= 0.0 || my <= 0.0 {
        return 0.0;
    }
    let g = sxy / sxx;
    let cut = my - g * mx;
    let err = (samples.iter().map(|&(x, y)| (y - (g * x + cut)).powi(2)).sum::<f64>() / n).sqrt() / my;
    if err >= g.abs() || g < 0.0 {
        0.0
    } else {
        g
    }
}

/// The Vivace controller.
pub struct Vivace {
    cfg: VivaceConfig,
    mode: Mode,
    /// The central sending rate, bit/s on the wire.
    rate_bps: f64,
    direction: f64,
    rounds: u32,
    allowance: u32,
    latest: UtilityInfo,
    /// Rates of the probing MIs still to be created.
    probe_plan: VecDeque<f64>,
    /// Scored MIs created and not yet reported.
    useful_pending: usize,
    /// Results of the current probing round, in creation order.
    results: Vec<UtilityInfo>,
    mis: VecDeque<Mi>,
    prev_ack: u64,
    srtt: Option<SimTime>,
    wire_bits: f64,
    cwnd: f64,
}

impl Vivace {
    /// Build from a config.
    pub fn new(cfg: VivaceConfig, init: &CcInit) -> Result<Self, ParamError> {
        check_range("exponent", cfg.exponent, 1e-3, 1.0)?;
        check_range("latency_coefficient", cfg.latency_coefficient, 0.0, 1e9)?;
        check_range("loss_coefficient", cfg.loss_coefficient, 0.0, 1e9)?;
        check_range("probing_step", cfg.probing_step, 1e-3, 0.5)?;
        check_range("gradient_to_rate", cfg.gradient_to_rate, 1e-6, 1e6)?;
        check_range("amplify_exponent", cfg.amplify_exponent, 0.0, 10.0)?;
        check_range("initial_max_step", cfg.initial_max_step, 1e-3, 1.0)?;
        check_range("max_step_increment", cfg.max_step_increment, 0.0, 1.0)?;
        check_range("mi_rtts", cfg.mi_rtts, 0.1, 100.0)?;
        check_range("mi_min_packets", cfg.mi_min_packets, 1.0, 1e6)?;
        let wire_bits = init.wire_size as f64 * 8.0;
        let rate = (init.initial_cwnd * wire_bits / INITIAL_RTT_S).max(MIN_RATE_BPS);
        Ok(Vivace {
            cfg,
            mode: Mode::Starting,
            rate_bps: rate,
            direction: 1.0,
            rounds: 1,
            allowance: 0,
            latest: UtilityInfo {
                rate_bps: 0.0,
                utility: f64::NEG_INFINITY,
            },
            probe_plan: VecDeque::new(),
            useful_pending: 0,
            results: Vec::new(),
            mis: VecDeque::new(),
            prev_ack: 0,
            srtt: None,
            wire_bits,
            cwnd: init.initial_cwnd.max(4.0),
        })
    }

    /// The mode (for tests).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The central rate, bit/s (for tests).
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// The utility of an MI at `rate_bps` with latency gradient `gradient`
    /// and loss rate `loss`.
    pub fn utility(&self, rate_bps: f64, gradient: f64, loss: f64) -> f64 {
        let x = rate_bps / 1e6;
        x.powf(self.cfg.exponent) - self.cfg.latency_coefficient * x * gradient - self.cfg.loss_coefficient * x * loss
    }

    /// The rate of the next MI, and whether it is scored.
    fn next_mi_rate(&mut self) -> (f64, bool) {
        match self.mode {
            Mode::Probing => match self.probe_plan.pop_front() {
                Some(r) => (r, true),
                None => (self.rate_bps, false),
            },
            Mode::Starting | Mode::DecisionMade => (self.rate_bps, self.useful_pending == 0),
        }
    }

    fn open_mi(&mut self, now: SimTime, seq: u64) {
        let (rate, useful) = self.next_mi_rate();
        if useful {
            self.useful_pending += 1;
        }
        let srtt = self.srtt.map_or(INITIAL_RTT_S, |s| s.secs_f64());
        let len = (self.cfg.mi_rtts * srtt).max(self.cfg.mi_min_packets * self.wire_bits / rate);
        self.mis.push_back(Mi {
            rate_bps: rate,
            useful,
            start_time: now,
            end_time: now + SimTime::from_secs_f64(len),
            start_seq: seq,
            end_seq: None,
            lost: 0,
            rtts: Vec::new(),
        });
    }

    fn enter_probing(&mut self, rng: &mut SimRng) {
        self.mode = Mode::Probing;
        self.rounds = 1;
        self.results.clear();
        self.probe_plan.clear();
        let e = self.cfg.probing_step;
        for _ in 0..PROBE_PAIRS {
            let (hi, lo) = (self.rate_bps * (1.0 + e), self.rate_bps * (1.0 - e));
            if uniform01(rng) < 0.5 {
                self.probe_plan.extend([hi, lo]);
            } else {
                self.probe_plan.extend([lo, hi]);
            }
        }
        self.useful_pending = 0;
    }

    /// Whether pair `i` of the probing results says "increase".
    fn pair_increase(r: &[UtilityInfo], i: usize) -> bool {
        let (a, b) = (r[2 * i], r[2 * i + 1]);
        if a.utility > b.utility {
            a.rate_bps > b.rate_bps
        } else {
            a.rate_bps < b.rate_bps
        }
    }

    /// `ComputeRateChange`: the step size from the utility gradient, with
    /// the amplifier (decision made) and the dynamic boundary.
    fn rate_change(&mut self, probing: bool, results: &[UtilityInfo], latest: UtilityInfo) -> f64 {
        let (dr, du) = if probing {
            let dr = (results[0].rate_bps - results[1].rate_bps).abs();
            let mut du = 0.0;
            for i in 0..PROBE_PAIRS {
                if Self::pair_increase(results, i) == (self.direction > 0.0) {
                    du += (results[2 * i].utility - results[2 * i + 1].utility).abs();
                }
            }
            (dr, du / PROBE_PAIRS as f64)
        } else {
            let r = results[0];
            ((r.rate_bps - latest.rate_bps).abs(), (r.utility - latest.utility).abs())
        };
        let mut change = if dr > 0.0 {
            du / (dr / 1e6) * self.cfg.gradient_to_rate * 1e6
        } else {
            0.0
        };
        if probing {
            self.allowance = 0;
        } else {
            change *= (self.rounds.div_ceil(2) as f64).powf(self.cfg.amplify_exponent);
        }
        let max = self.rate_bps * (self.cfg.initial_max_step + self.cfg.max_step_increment * self.allowance as f64);
        if change > max {
            change = max;
            self.allowance += 1;
        } else if self.allowance > 0 {
            self.allowance -= 1;
        }
        change.max(MIN_CHANGE_BPS)
    }

    fn enter_decision_made(&mut self, results: &[UtilityInfo]) {
        let probing = self.mode == Mode::Probing;
        if probing {
            self.rate_bps *= 1.0 + self.direction * self.cfg.probing_step;
        }
        self.rounds = if probing { 1 } else { self.rounds + 1 };
        let latest = self.latest;
        let change = self.rate_change(probing, results, latest);
        self.rate_bps += self.direction * change;
        if self.rate_bps < MIN_RATE_BPS {
            self.rate_bps = MIN_RATE_BPS;
            self.mode = Mode::Probing;
            self.rounds = 1;
            self.allowance = 0;
        } else {
            self.mode = Mode::DecisionMade;
        }
        self.useful_pending = 0;
    }

    /// A scored MI's result (`PccVivaceSender::OnUtilityAvailable`).
    fn on_utility(&mut self, info: UtilityInfo, rng: &mut SimRng) {
        match self.mode {
            Mode::Starting => {
                self.useful_pending = self.useful_pending.saturating_sub(1);
                if info.utility > self.latest.utility {
                    self.rate_bps *= 2.0;
                    self.latest = info;
                    self.rounds += 1;
                } else {
                    // Back to the rate whose utility last rose.
                    self.rate_bps = (self.rate_bps * 0.5).max(MIN_RATE_BPS);
                    self.enter_probing(rng);
                }
            }
            Mode::Probing => {
                self.results.push(info);
                if self.results.len() < 2 * PROBE_PAIRS {
                    return;
                }
                let r = std::mem::take(&mut self.results);
                let ups = (0..PROBE_PAIRS).filter(|&i| Self::pair_increase(&r, i)).count();
                if ups == PROBE_PAIRS || ups == 0 {
                    self.direction = if ups == PROBE_PAIRS { 1.0 } else { -1.0 };
                    // Remember the better MI of the last pair (all pairs agree).
                    let (a, b) = (r[2 * PROBE_PAIRS - 2], r[2 * PROBE_PAIRS - 1]);
                    self.latest = if a.utility > b.utility { a } else { b };
                    self.enter_decision_made(&r);
                } else {
                    self.enter_probing(rng);
                }
                if self.rounds > 1 || self.mode == Mode::DecisionMade {
                    self.check_floor();
                }
            }
            Mode::DecisionMade => {
                self.useful_pending = self.useful_pending.saturating_sub(1);
                let up = self.direction > 0.0;
                let better = info.utility > self.latest.utility;
                let moved_up = info.rate_bps > self.latest.rate_bps;
                let moved_down = info.rate_bps < self.latest.rate_bps;
                let keep = if up {
                    (better && moved_up) || (!better && info.utility < self.latest.utility && moved_down)
                } else {
                    (better && moved_down) || (!better && info.utility < self.latest.utility && moved_up)
                };
                if keep {
                    self.enter_decision_made(&[info]);
                    self.latest = info;
                } else {
                    // Undo the last step and probe again.
                    self.rounds = 1;
                    let latest = self.latest;
                    let change = self.rate_change(false, &[info], latest);
                    self.rate_bps = (self.rate_bps - self.direction * change).max(MIN_RATE_BPS);
                    self.enter_probing(rng);
                }
            }
        }
    }

    /// At the smallest rate after a decision: start over (`OnUtilityAvailable`, PROBING).
    fn check_floor(&mut self) {
        if self.rate_bps <= MIN_RATE_BPS {
            self.rate_bps = MIN_RATE_BPS;
            self.allowance = 0;
            self.rounds = 1;
            self.mode = Mode::Starting;
            self.latest = UtilityInfo {
                rate_bps: 0.0,
                utility: f64::NEG_INFINITY,
            };
            self.useful_pending = 0;
        }
    }

    fn mi_utility(&self, mi: &Mi) -> f64 {
        let n = mi.end_seq.unwrap_or(mi.start_seq).saturating_sub(mi.start_seq).max(1);
        let loss = (mi.lost as f64 / n as f64).min(1.0);
        self.utility(mi.rate_bps, filtered_gradient(&mi.rtts), loss)
    }
}

impl CongestionControl for Vivace {
    fn name(&self) -> &'static str {
        "vivace"
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        let now = ack.now;
        if let Some(s) = ack.srtt {
            self.srtt = Some(s);
        }
        // Attribute this ACK's RTT sample (by its segment's send time) and losses (by sequence).
        if let Some(rtt) = ack.rtt {
            let sent = now.saturating_sub(rtt);
            if let Some(mi) = self.mis.iter_mut().rev().find(|m| m.start_time <= sent) {
                if sent < mi.end_time || mi.end_seq.is_none() {
                    mi.rtts.push((sent.secs_f64(), rtt.secs_f64()));
                }
            }
        }
        if ack.losses > 0 {
            let hole = ack.ack;
            if let Some(mi) = self
                .mis
                .iter_mut()
                .find(|m| m.start_seq <= hole && m.end_seq.is_none_or(|e| hole < e))
            {
                mi.lost += ack.losses;
            }
        }
        self.prev_ack = self.prev_ack.max(ack.ack);
        // Close the open MI when its time is up, and open the next.
        match self.mis.back_mut() {
            None => self.open_mi(now, ack.snd_max),
            Some(mi) if mi.end_seq.is_none() && now >= mi.end_time => {
                mi.end_seq = Some(ack.snd_max.max(mi.start_seq));
                self.open_mi(now, ack.snd_max);
            }
            Some(_) => {}
        }
        // Report the complete MIs, oldest first.
        while let Some(front) = self.mis.front() {
            match front.end_seq {
                Some(end) if self.prev_ack >= end => {}
                _ => break,
            }
            let Some(mi) = self.mis.pop_front() else { break };
            if mi.useful {
                let info = UtilityInfo {
                    rate_bps: mi.rate_bps,
                    utility: self.mi_utility(&mi),
                };
                self.on_utility(info, rng);
            }
        }
        let srtt = self.srtt.map_or(INITIAL_RTT_S, |s| s.secs_f64());
        let rate = self.pacing_rate_bps().unwrap_or(self.rate_bps);
        self.cwnd = (2.0 * rate * srtt / self.wire_bits).max(4.0);
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {}
    fn on_rto(&mut self, _ev: &CongestionEvent) {}
    /// The rate of the MI being sent.
    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.mis.back().map_or(self.rate_bps, |m| m.rate_bps))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;
    use crate::rng::stream;

    fn viv() -> Vivace {
        Vivace::new(VivaceConfig::default(), &init(10.0)).unwrap()
    }

    fn info(mbps: f64, utility: f64) -> UtilityInfo {
        UtilityInfo {
            rate_bps: mbps * 1e6,
            utility,
        }
    }

    #[test]
    fn utility_is_the_papers() {
        let v = viv();
        // 10 Mbit/s, no gradient, no loss: 10^0.9.
        assert!((v.utility(10e6, 0.0, 0.0) - 10f64.powf(0.9)).abs() < 1e-12);
        // 1% loss: - 11.35 * 10 * 0.01; gradient 0.01: - 900 * 10 * 0.01.
        let u = v.utility(10e6, 0.01, 0.01);
        assert!((u - (10f64.powf(0.9) - 90.0 - 1.135)).abs() < 1e-9, "{u}");
    }

    #[test]
    fn the_gradient_counts_only_above_its_error_and_when_rising() {
        // RTT rising 10 ms per second, exactly: the slope, 0.01.
        let rising: Vec<(f64, f64)> = (0..10).map(|i| (i as f64 * 0.01, 0.05 + i as f64 * 1e-4)).collect();
        assert!((filtered_gradient(&rising) - 0.01).abs() < 1e-9);
        // Falling: 0.
        let falling: Vec<(f64, f64)> = rising.iter().map(|&(x, y)| (x, 0.1 - y)).collect();
        assert_eq!(filtered_gradient(&falling), 0.0);
        // Noise around a flat line: the error (~1/50 of the mean) dwarfs the slope.
        let noisy: Vec<(f64, f64)> = (0..10)
            .map(|i| (i as f64 * 0.01, 0.05 + if i % 2 == 0 { 1e-3 } else { -1e-3 }))
            .collect();
        assert_eq!(filtered_gradient(&noisy), 0.0);
        assert_eq!(filtered_gradient(&rising[..1]), 0.0);
    }

    #[test]
    fn starting_doubles_while_the_utility_rises_then_halves_back_and_probes() {
        let mut rng = stream(1, "t");
        let mut v = viv();
        let r0 = v.rate_bps();
        v.useful_pending = 1;
        v.on_utility(info(r0 / 1e6, 1.0), &mut rng);
        assert_eq!(v.rate_bps(), 2.0 * r0);
        v.useful_pending = 1;
        v.on_utility(info(2.0 * r0 / 1e6, 2.0), &mut rng);
        assert_eq!(v.rate_bps(), 4.0 * r0);
        v.useful_pending = 1;
        v.on_utility(info(4.0 * r0 / 1e6, 1.5), &mut rng);
        assert_eq!(v.mode(), Mode::Probing);
        assert_eq!(v.rate_bps(), 2.0 * r0);
        // Two pairs at r(1 +- 0.05), each in some order.
        let mut plan: Vec<f64> = v.probe_plan.iter().copied().collect();
        plan.sort_by(f64::total_cmp);
        let r = 2.0 * r0;
        assert_eq!(plan, [r * 0.95, r * 0.95, r * 1.05, r * 1.05]);
    }

    /// A controller probing around 10 Mbit/s, given the four probing results `results`.
    fn probed(results: [UtilityInfo; 4]) -> Vivace {
        let mut rng = stream(1, "t");
        let mut v = viv();
        v.rate_bps = 10e6;
        v.enter_probing(&mut rng);
        for r in results {
            v.on_utility(r, &mut rng);
        }
        v
    }

    #[test]
    fn agreeing_probes_decide_and_the_step_is_the_bounded_gradient() {
        // Higher utility at the higher rate in both pairs: 10.5 and 9.5
        // Mbit/s, utilities 1 apart: a gradient of 1 per Mbit/s.
        let v = probed([info(10.5, 9.0), info(9.5, 8.0), info(9.5, 8.0), info(10.5, 9.0)]);
        assert_eq!(v.mode(), Mode::DecisionMade);
        // r(1 + e) = 10.5, then + min(gamma theta_0 = 1 Mbit/s, omega_0 r = 0.525): 11.025.
        assert!((v.rate_bps() - 11.025e6).abs() < 1.0, "{}", v.rate_bps());
        assert_eq!(v.allowance, 1, "the boundary was hit once");
        // Disagreeing pairs: probe again at the same rate.
        let w = probed([info(10.5, 9.0), info(9.5, 8.0), info(9.5, 9.0), info(10.5, 8.0)]);
        assert_eq!(w.mode(), Mode::Probing);
        assert_eq!(w.rate_bps(), 10e6);
    }

    /// A controller moving up at `mbps`, its last scored MI `latest`.
    fn moving_up(mbps: f64, latest: UtilityInfo) -> Vivace {
        let mut v = viv();
        v.rate_bps = mbps * 1e6;
        v.mode = Mode::DecisionMade;
        v.direction = 1.0;
        v.latest = latest;
        v
    }

    #[test]
    fn the_amplifier_and_the_boundary_grow_with_consecutive_steps() {
        let mut v = moving_up(100.0, info(99.0, 50.0));
        // Gradient 0.1 utility per Mbit/s: 0.1 Mbit/s before amplification,
        // raised to the 0.5 Mbit/s floor.
        v.rounds = 1;
        assert_eq!(v.rate_change(false, &[info(100.0, 50.1)], v.latest), 0.5e6);
        // After 5 rounds: m = floor(6/2)^1.2 = 3^1.2; gradient 10 per Mbit/s
        // -> 10 * 3^1.2 = 37 Mbit/s, bounded by 0.05 r = 5 Mbit/s, then by 0.10 r.
        v.rounds = 5;
        assert!((v.rate_change(false, &[info(100.0, 60.0)], v.latest) - 5e6).abs() < 1e-6);
        assert!((v.rate_change(false, &[info(100.0, 60.0)], v.latest) - 10e6).abs() < 1e-6);
        assert_eq!(v.allowance, 2);
        // A step inside the boundary lowers the allowance again.
        v.rounds = 1;
        v.rate_change(false, &[info(100.0, 51.0)], v.latest);
        assert_eq!(v.allowance, 1);
    }

    #[test]
    fn a_step_that_stops_paying_is_undone_and_probing_resumes() {
        let mut rng = stream(1, "t");
        let mut v = moving_up(11.0, info(10.0, 7.9));
        v.useful_pending = 1;
        // Higher rate, lower utility: step back by the (floored) change and probe.
        v.on_utility(info(11.0, 7.0), &mut rng);
        assert_eq!(v.mode(), Mode::Probing);
        assert!(v.rate_bps() < 11e6);
    }
}
