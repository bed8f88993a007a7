//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker,
//! White, RFC 8033).
//!
//! Every `tupdate` the drop probability is updated from the queueing delay
//! (section 4.2):
//! `p = alpha (qdelay - target) + beta (qdelay - qdelay_old)`, scaled down
//! while `drop_prob` is small (by 2048, 512, 128, 32, 8, 2 below 1e-6, 1e-5,
//! 1e-4, 1e-3, 1e-2, 0.1), an increase capped at 0.02 once `drop_prob >= 0.1`,
//! and an exponential decay (x 0.98) when both delay samples are zero.
//! Arrivals are dropped at random with `drop_prob` (4.1) except while the
//! burst allowance lasts (4.4: `max_burst`, refilled when `drop_prob` is 0
//! and both delays are below `target/2`), when the old delay is below
//! `target/2` and `drop_prob < 0.2`, or when fewer than two mean packets are
//! queued. With `derandomize = true` the drop decision uses the accumulated
//! probability of the optional de-randomisation (section 5; no drop below
//! 0.85, a forced drop at 8.5).
//!
//! The queueing delay comes either from the departure-rate estimator
//! (`estimator = "dq_rate"`, sections 4.3 and 5, the RFC's pseudocode:
//! `qdelay = backlog x avg_dq_time / dq_threshold`, measured over cycles of
//! `dq_threshold` bytes that start only when that many bytes are queued,
//! averaged with weight 1/4), or from the sojourn time of the last departed
//! packet (`estimator = "timestamp"`, which the RFC allows in section 4.3 and
//! which Linux and ns-3 use by default).
//!
//! Readings: PIE stays active at all times (the optional on/off mode is not
//! implemented); the burst allowance is refilled at arrivals (as FreeBSD's
//! `aqm_pie_enqueue`) and drained at each update; random drops are
//! [`DropReason::Early`], buffer overflow [`DropReason::Overflow`]; with
//! `ecn = true` ECN-capable packets are marked while `drop_prob <= mark_ecnth`.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::compat::Profile;
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::rng::uniform01;
use crate::time::SimTime;
use crate::units::{Bytes, Time};
use serde::Deserialize;

/// How PIE estimates the queueing delay.
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// Little's law with the measured departure rate (RFC 8033 section 4.3).
    DqRate,
    /// Sojourn time of the last departed packet (per-packet timestamps).
    Timestamp,
}

/// Scenario parameters of `pie`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// QDELAY_REF, the latency target (RFC 8033: 15 ms).
    pub target: Time,
    /// T_UPDATE, the update period (RFC 8033: 15 ms).
    pub tupdate: Time,
    /// alpha, in 1/s (RFC 8033: 0.125).
    pub alpha: f64,
    /// beta, in 1/s (RFC 8033: 1.25).
    pub beta: f64,
    /// MAX_BURST, the burst allowance (RFC 8033: 150 ms).
    pub max_burst: Time,
    /// Use the de-randomised drop decision of section 5 (off by default,
    /// as in Linux and ns-3).
    pub derandomize: bool,
    /// Delay estimator (`dq_rate` as the RFC's pseudocode, or `timestamp`).
    pub estimator: Estimator,
    /// DQ_THRESHOLD of the departure-rate estimator (RFC 8033: 16 KB = 2^14 bytes).
    pub dq_threshold: Bytes,
    /// MEAN_PKTSIZE of the "fewer than two packets" safeguard (the RFC leaves
    /// it open; Linux uses the MTU: 1500 bytes).
    pub mean_pkt_size: Bytes,
    /// Cap the increase of drop_prob at 2% per update above 10% (RFC 8033
    /// section 5, "cap drop adjustment"; on).
    pub cap_drop_adjustment: bool,
    /// Mark ECN-capable packets instead of dropping (off).
    pub ecn: bool,
    /// Highest drop_prob at which marking is used instead of dropping (RFC 8033: 0.1).
    pub mark_ecnth: f64,
    /// Whose PIE: "rfc8033" (this module) or "ns3" (ns-3.44's
    /// `PieQueueDisc`, [`PieVariant::Ns3`]); default "ns3" under `compat =
    /// "ns3"`, where `estimator` also defaults to `timestamp` (ns-3's
    /// `UseDequeueRateEstimator` false).
    pub variant: Option<PieVariant>,
}

/// The PIE implementations (key `variant` of `pie`).
#[derive(Deserialize, serde::Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieVariant {
    /// RFC 8033 (this module's documentation).
    #[serde(rename = "rfc8033")]
    Rfc8033,
    /// ns-3.44's `PieQueueDisc` (`src/traffic-control/model/pie-queue-disc.cc`):
    /// the burst allowance is armed by `DropEarly` when the queue is in
    /// `NO_BURST` (its first arrival, and again after `CalculateP` has seen
    /// low delay and a zero probability for more than `BURST_RESET_TIMEOUT`
    /// 1.5 s / `Tupdate` updates), not at every quiet arrival; `CalculateP`
    /// holds the drop probability at 0 while the allowance lasts; an arrival
    /// is spared while at most 2 packets wait (packet limit; 2 `MeanPktSize`
    /// bytes with a byte limit); with the timestamp estimator the delay is
    /// the last departure's sojourn, 0 when that departure emptied the queue.
    #[serde(rename = "ns3")]
    Ns3,
}

/// ns-3's `PieQueueDisc::BurstStateT`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BurstState {
    /// `NO_BURST`: the next arrival arms the allowance.
    #[default]
    NoBurst,
    /// `IN_BURST_PROTECTING`: the allowance is running.
    Protecting,
    /// `IN_BURST`: the allowance has run out; quiet updates are counted.
    InBurst,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: Time(SimTime::from_millis(15)),
            tupdate: Time(SimTime::from_millis(15)),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Time(SimTime::from_millis(150)),
            derandomize: false,
            estimator: Estimator::DqRate,
            dq_threshold: Bytes(16384),
            mean_pkt_size: Bytes(1500),
            cap_drop_adjustment: true,
            ecn: false,
            mark_ecnth: 0.1,
            variant: None,
        }
    }
}

impl PieConfig {
    fn validate(&self) -> Result<(), ParamError> {
        if self.target.0 == SimTime::ZERO {
            return Err(ParamError::at("target", "must be greater than 0"));
        }
        if self.tupdate.0 == SimTime::ZERO {
            return Err(ParamError::at("tupdate", "must be greater than 0"));
        }
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return Err(ParamError::at("alpha", "must be a finite number >= 0"));
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(ParamError::at("beta", "must be a finite number >= 0"));
        }
        if self.dq_threshold.0 == 0 {
            return Err(ParamError::at("dq_threshold", "must be at least 1 byte"));
        }
        if !(0.0..=1.0).contains(&self.mark_ecnth) {
            return Err(ParamError::at("mark_ecnth", "must be between 0 and 1"));
        }
        Ok(())
    }
}

/// PIE's control state, separate from the packets (the variables of RFC 8033's pseudocode).
#[derive(Clone, Debug, Default)]
pub struct PieState {
    /// drop_prob_.
    pub drop_prob: f64,
    /// Current queueing-delay estimate, seconds.
    pub qdelay: f64,
    /// qdelay_old_, seconds.
    pub qdelay_old: f64,
    /// burst_allowance_.
    pub burst_allowance: SimTime,
    /// accu_prob_ (de-randomisation).
    pub accu_prob: f64,
    /// avg_dq_time_: time to drain dq_threshold bytes, seconds (0: no estimate yet).
    pub avg_dq_time: f64,
    in_measurement: bool,
    measurement_start: SimTime,
    dq_count: u64,
    /// ns3 variant: `m_burstState` and `m_burstReset`.
    pub burst_state: BurstState,
    burst_reset: u32,
}

/// RFC 8033 section 4.2: the probability adjustment for one update.
pub fn drop_prob_delta(cfg: &PieConfig, drop_prob: f64, qdelay: f64, qdelay_old: f64) -> f64 {
    let target = cfg.target.0.secs_f64();
    let mut p = cfg.alpha * (qdelay - target) + cfg.beta * (qdelay - qdelay_old);
    // Auto-tuning: small adjustments while the probability is small.
    p /= if drop_prob < 0.000001 {
        2048.0
    } else if drop_prob < 0.00001 {
        512.0
    } else if drop_prob < 0.0001 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    };
    if cfg.cap_drop_adjustment && drop_prob >= 0.1 && p > 0.02 {
        p = 0.02;
    }
    p
}

/// The drop decision once the safeguards let an arrival be tested: the
/// optional de-randomisation of RFC 8033 section 5 (no drop below an
/// accumulated 0.85, a forced drop at 8.5), then a uniform draw below
/// `drop_prob` (`inclusive`: at most, as ns-3's `DropEarly`).
fn coin(cfg: &PieConfig, st: &mut PieState, ctx: &mut QueueCtx, inclusive: bool) -> bool {
    if cfg.derandomize {
        if st.drop_prob == 0.0 {
            st.accu_prob = 0.0;
        }
        st.accu_prob += st.drop_prob;
        if st.accu_prob < 0.85 {
            return false;
        }
        if st.accu_prob >= 8.5 {
            return true;
        }
    }
    let u = uniform01(ctx.rng);
    let drop = if inclusive { u <= st.drop_prob } else { u < st.drop_prob };
    if drop && cfg.derandomize {
        st.accu_prob = 0.0;
    }
    drop
}

/// PIE on a single FIFO.
pub struct Pie {
    limit: Limit,
    cfg: PieConfig,
    st: PieState,
    q: Fifo,
    /// ns-3's `PieQueueDisc` (`variant = "ns3"`).
    ns3: bool,
}

impl Pie {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params, compat: Profile) -> Result<Self, ParamError> {
        let mut cfg: PieConfig = params::parse(params)?;
        cfg.validate()?;
        if cfg.variant.is_none() && compat == Profile::Ns3 {
            cfg.variant = Some(PieVariant::Ns3);
            if !params.contains_key("estimator") {
                cfg.estimator = Estimator::Timestamp;
            }
        }
        cfg.variant.get_or_insert(PieVariant::Rfc8033);
        params::resolved(&cfg);
        Ok(Pie::new(limit, cfg))
    }

    /// A PIE queue.
    pub fn new(limit: Limit, cfg: PieConfig) -> Self {
        let ns3 = cfg.variant == Some(PieVariant::Ns3);
        let st = PieState {
            // ns-3 arms the allowance at the first arrival (`DropEarly`).
            burst_allowance: if ns3 { SimTime::ZERO } else { cfg.max_burst.0 },
            ..PieState::default()
        };
        Pie {
            limit,
            cfg,
            st,
            q: Fifo::default(),
            ns3,
        }
    }

    /// The control state (for tests and probes).
    pub fn state(&self) -> &PieState {
        &self.st
    }

    /// RFC 8033 section 4.2 `calculate_drop_prob`, run every `tupdate`.
    pub fn update(&mut self) {
        let cfg = &self.cfg;
        let st = &mut self.st;
        match cfg.estimator {
            Estimator::DqRate => {
                st.qdelay = if st.avg_dq_time > 0.0 {
                    self.q.bytes() as f64 * st.avg_dq_time / cfg.dq_threshold.0 as f64
                } else {
                    0.0
                };
            }
            Estimator::Timestamp => {
                // (ns-3 zeroes it at the departure that empties the queue.)
                if self.q.is_empty() && !self.ns3 {
                    st.qdelay = 0.0;
                }
            }
        }
        if self.ns3 {
            self.update_ns3();
            return;
        }
        let p = drop_prob_delta(cfg, st.drop_prob, st.qdelay, st.qdelay_old);
        st.drop_prob += p;
        // Decay when the queue has been empty for two updates.
        if st.qdelay == 0.0 && st.qdelay_old == 0.0 {
            st.drop_prob *= 0.98;
        }
        st.drop_prob = st.drop_prob.clamp(0.0, 1.0);
        st.qdelay_old = st.qdelay;
        st.burst_allowance = st.burst_allowance.saturating_sub(cfg.tupdate.0);
    }

    /// RFC 8033 `drop_early`: whether to drop (or mark) this arrival.
    fn drop_early(&mut self, ctx: &mut QueueCtx) -> bool {
        let cfg = &self.cfg;
        let st = &mut self.st;
        let half_target = cfg.target.0.secs_f64() / 2.0;
        if (st.qdelay_old < half_target && st.drop_prob < 0.2) || self.q.bytes() <= 2 * cfg.mean_pkt_size.0 {
            return false;
        }
        coin(cfg, st, ctx, false)
    }

    /// The rest of ns-3's `PieQueueDisc::CalculateP` once the delay is known.
    fn update_ns3(&mut self) {
        let cfg = &self.cfg;
        let st = &mut self.st;
        let p = if st.burst_allowance > SimTime::ZERO {
            // `m_dropProb = 0` while the allowance lasts.
            st.drop_prob = 0.0;
            0.0
        } else {
            drop_prob_delta(cfg, st.drop_prob, st.qdelay, st.qdelay_old)
        };
        let mut p = p + st.drop_prob;
        if st.qdelay == 0.0 && st.qdelay_old == 0.0 {
            p *= 0.98;
        }
        st.drop_prob = p.clamp(0.0, 1.0);
        st.burst_allowance = st.burst_allowance.saturating_sub(cfg.tupdate.0);
        let half_target = cfg.target.0.secs_f64() / 2.0;
        // `static_cast<uint32_t> (BURST_RESET_TIMEOUT / m_tUpdate)`, 1.5 s.
        let reset_limit = (1.5 / cfg.tupdate.0.secs_f64()) as u32;
        if st.qdelay < half_target
            && st.qdelay_old < half_target
            && st.drop_prob == 0.0
            && st.burst_allowance == SimTime::ZERO
        {
            match st.burst_state {
                BurstState::Protecting => {
                    st.burst_state = BurstState::InBurst;
                    st.burst_reset = 0;
                }
                BurstState::InBurst => {
                    st.burst_reset += 1;
                    if st.burst_reset > reset_limit {
                        st.burst_reset = 0;
                        st.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if st.burst_state == BurstState::InBurst {
            st.burst_reset = 0;
        }
        st.qdelay_old = st.qdelay;
    }

    /// ns-3's `PieQueueDisc::DropEarly`.
    fn drop_early_ns3(&mut self, ctx: &mut QueueCtx) -> bool {
        let cfg = &self.cfg;
        let st = &mut self.st;
        if st.burst_allowance > SimTime::ZERO {
            return false;
        }
        if st.burst_state == BurstState::NoBurst {
            st.burst_state = BurstState::Protecting;
            st.burst_allowance = cfg.max_burst.0;
        }
        let half_target = cfg.target.0.secs_f64() / 2.0;
        let few = match self.limit.packets {
            Some(_) => self.q.len() <= 2,
            None => self.q.bytes() <= 2 * cfg.mean_pkt_size.0,
        };
        if (st.qdelay_old < half_target && st.drop_prob < 0.2) || few {
            return false;
        }
        // `u <= p` (the RFC's pseudocode: `u < p`).
        coin(cfg, st, ctx, true)
    }

    /// Departure-rate measurement at each departure (sections 4.3 and 5).
    fn on_departure(&mut self, size: u32, now: SimTime, sojourn: SimTime) {
        let cfg = &self.cfg;
        let st = &mut self.st;
        match cfg.estimator {
            Estimator::Timestamp => {
                // ns-3: 0 when this departure emptied the queue.
                st.qdelay = if self.ns3 && self.q.is_empty() {
                    0.0
                } else {
                    sojourn.secs_f64()
                };
            }
            Estimator::DqRate => {
                if st.in_measurement {
                    st.dq_count += size as u64;
                    if st.dq_count >= cfg.dq_threshold.0 {
                        let dq_time = (now - st.measurement_start).secs_f64();
                        st.avg_dq_time = if st.avg_dq_time == 0.0 {
                            dq_time
                        } else {
                            0.25 * dq_time + 0.75 * st.avg_dq_time
                        };
                        st.in_measurement = false;
                    }
                }
                if !st.in_measurement && self.q.bytes() >= cfg.dq_threshold.0 {
                    st.in_measurement = true;
                    st.measurement_start = now;
                    st.dq_count = 0;
                }
            }
        }
    }
}

impl QueueDisc for Pie {
    fn kind(&self) -> &'static str {
        "pie"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            self.st.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        let early = if self.ns3 {
            self.drop_early_ns3(ctx)
        } else {
            self.st.burst_allowance == SimTime::ZERO && self.drop_early(ctx)
        };
        if early {
            let mark = self.cfg.ecn && self.st.drop_prob <= self.cfg.mark_ecnth && ctx.mark(pkt);
            if !mark {
                self.st.accu_prob = 0.0;
                return Verdict::Dropped(DropReason::Early);
            }
        }
        let half_target = self.cfg.target.0.secs_f64() / 2.0;
        if !self.ns3 && self.st.drop_prob == 0.0 && self.st.qdelay < half_target && self.st.qdelay_old < half_target {
            self.st.burst_allowance = self.cfg.max_burst.0;
        }
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_front(ctx)?;
        let (size, at) = {
            let pk = ctx.arena.get(p);
            (pk.size, pk.enqueued_at)
        };
        self.on_departure(size, ctx.now, ctx.now - at);
        Some(p)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["drop_prob", "qdelay", "burst_allowance"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.st.drop_prob);
        out.push(self.st.qdelay);
        out.push(self.st.burst_allowance.secs_f64());
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        Some((self.cfg.tupdate.0, 0))
    }

    fn on_timer(&mut self, _kind: u32, _ctx: &mut QueueCtx) -> Option<SimTime> {
        self.update();
        Some(self.cfg.tupdate.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::stream;

    fn cfg() -> PieConfig {
        PieConfig {
            estimator: Estimator::Timestamp,
            ..PieConfig::default()
        }
    }

    #[test]
    fn update_matches_rfc_8033_worked_points() {
        let c = cfg();
        // drop_prob = 0, qdelay 30 ms, old 15 ms:
        // p = 0.125 (0.015) + 1.25 (0.015) = 0.020625, / 2048 (prob < 1e-6)
        let d = drop_prob_delta(&c, 0.0, 0.030, 0.015);
        assert!((d - 0.020625 / 2048.0).abs() < 1e-15, "{d}");
        // drop_prob = 0.005 (< 0.01): / 8
        let d = drop_prob_delta(&c, 0.005, 0.030, 0.015);
        assert!((d - 0.020625 / 8.0).abs() < 1e-15);
        // drop_prob = 0.05 (< 0.1): / 2
        let d = drop_prob_delta(&c, 0.05, 0.030, 0.015);
        assert!((d - 0.020625 / 2.0).abs() < 1e-15);
        // drop_prob = 0.2: unscaled but capped at 0.02
        let d = drop_prob_delta(&c, 0.2, 0.030, 0.015);
        assert_eq!(d, 0.02);
        // Below target and falling: negative adjustment, unscaled at 0.5.
        // p = 0.125 (0.005 - 0.015) + 1.25 (0.005 - 0.010) = -0.0075
        let d = drop_prob_delta(&c, 0.5, 0.005, 0.010);
        assert!((d + 0.0075).abs() < 1e-15);
        // Boundaries of the scaling table: a probability equal to a bound
        // falls in the next band (the RFC's tests are strict `<`).
        for (prob, div) in [
            (1e-6, 512.0),
            (1e-5, 128.0),
            (1e-4, 32.0),
            (1e-3, 8.0),
            (0.01, 2.0),
            (0.1, 1.0),
        ] {
            let d = drop_prob_delta(
                &PieConfig {
                    cap_drop_adjustment: false,
                    ..c.clone()
                },
                prob,
                0.030,
                0.015,
            );
            assert!((d - 0.020625 / div).abs() < 1e-15, "{prob}");
        }
    }

    fn fill(q: &mut Pie, ctx: &mut QueueCtx, n: usize, at: SimTime) {
        for _ in 0..n {
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                enqueued_at: at,
                ..Packet::default()
            });
            q.q.push(r, 1500);
        }
    }

    /// A PIE queue that never overflows (10,000 packets).
    fn big_queue(cfg: PieConfig) -> Pie {
        Pie::new(
            Limit {
                packets: Some(10_000),
                bytes: None,
            },
            cfg,
        )
    }

    #[test]
    fn burst_allowance_protects_then_expires() {
        let mut arena = PacketArena::new();
        let mut rng = stream(5, "pie");
        let mut dropped = Vec::new();
        let mut q = big_queue(cfg());
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        fill(&mut q, &mut ctx, 100, SimTime::ZERO);
        // A packet departs with 60 ms sojourn; drop_prob rises every update.
        ctx.now = SimTime::from_millis(60);
        q.dequeue(&mut ctx);
        assert!((q.state().qdelay - 0.060).abs() < 1e-12);
        // Force a high probability to make the effect of the allowance visible.
        q.st.drop_prob = 0.9;
        // 150 ms allowance = 10 updates of 15 ms; while it lasts nothing is dropped.
        for k in 0..10 {
            assert!(q.state().burst_allowance > SimTime::ZERO, "update {k}");
            for _ in 0..20 {
                let r = ctx.arena.alloc(Packet {
                    size: 1500,
                    ..Packet::default()
                });
                assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            }
            q.update();
        }
        assert_eq!(q.state().burst_allowance, SimTime::ZERO);
        // The updates moved drop_prob by: first 0.125 (0.045) + 1.25 (0.060)
        // = 0.080625, capped at 0.02 since drop_prob >= 0.1; then nine times
        // 0.125 (0.045) = 0.005625 (qdelay unchanged): 0.9 + 0.02 + 9 x 0.005625.
        assert!(
            (q.state().drop_prob - 0.970625).abs() < 1e-12,
            "{}",
            q.state().drop_prob
        );
        // Now arrivals are dropped with that probability: 97 of 100 expected,
        // standard deviation 1.7, so at least 90 (4 sigma).
        let mut drops = 0;
        for _ in 0..100 {
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                ..Packet::default()
            });
            if q.enqueue(r, &mut ctx) != Verdict::Enqueued {
                drops += 1;
            }
        }
        assert!(drops >= 90, "{drops}");
    }

    #[test]
    fn ns3_holds_the_probability_at_zero_while_the_allowance_lasts() {
        // ns-3.44's `PieQueueDisc`: the first arrival arms the 150 ms burst
        // allowance (`DropEarly` in NO_BURST), `CalculateP` keeps
        // `m_dropProb` at 0 while it lasts, and nothing re-arms it while
        // the delay is high. RFC 8033's reading (the default) refills the
        // allowance at quiet arrivals and keeps computing the probability
        // under it, so a queue that builds up meets a probability that has
        // grown for 150 ms the moment the allowance runs out.
        let run = |variant| {
            let mut arena = PacketArena::new();
            let mut rng = stream(5, "pie");
            let mut dropped = Vec::new();
            let mut q = big_queue(PieConfig {
                variant: Some(variant),
                ..cfg()
            });
            let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                ..Packet::default()
            });
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            // A standing queue: 100 packets, the departing one after 60 ms.
            fill(&mut q, &mut ctx, 100, SimTime::ZERO);
            ctx.now = SimTime::from_millis(60);
            q.dequeue(&mut ctx);
            let mut probs = Vec::new();
            for _ in 0..11 {
                q.update();
                probs.push(q.state().drop_prob);
            }
            probs
        };
        let ns3 = run(PieVariant::Ns3);
        assert!(ns3[..10].iter().all(|&p| p == 0.0), "{ns3:?}");
        // The eleventh update starts from 0: 0.125 (0.045) / 2048.
        assert!((ns3[10] - 0.125 * 0.045 / 2048.0).abs() < 1e-15, "{}", ns3[10]);
        let rfc = run(PieVariant::Rfc8033);
        assert!(rfc[9] > 1e-3, "{rfc:?}");
    }

    #[test]
    fn safeguards_and_decay() {
        let mut arena = PacketArena::new();
        let mut rng = stream(5, "pie");
        let mut dropped = Vec::new();
        let mut q = big_queue(PieConfig {
            max_burst: Time(SimTime::ZERO),
            ..cfg()
        });
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        q.st.drop_prob = 0.5;
        q.st.qdelay_old = 0.1;
        // Fewer than two mean packets queued: never dropped.
        fill(&mut q, &mut ctx, 1, SimTime::ZERO);
        for _ in 0..50 {
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                ..Packet::default()
            });
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            q.q.pop_back(&ctx);
        }
        // Empty queue for two updates: exponential decay by 0.98 per update
        // on top of the (negative) PI adjustment.
        while q.q.pop_front(&ctx).is_some() {}
        q.st.qdelay = 0.0;
        q.st.qdelay_old = 0.0;
        q.st.drop_prob = 0.5;
        q.update();
        let p = 0.125 * (0.0 - 0.015);
        assert!((q.state().drop_prob - (0.5 + p) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn derandomization_accumulates() {
        let mut arena = PacketArena::new();
        let mut rng = stream(5, "pie");
        let mut dropped = Vec::new();
        let mut q = big_queue(PieConfig {
            derandomize: true,
            max_burst: Time(SimTime::ZERO),
            ..cfg()
        });
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 10_000_000, &mut dropped);
        fill(&mut q, &mut ctx, 10, SimTime::ZERO);
        q.st.drop_prob = 0.1;
        q.st.qdelay_old = 0.1;
        // accu_prob grows by 0.1 per arrival: the first 8 arrivals (accu
        // 0.1 .. 0.8 < 0.85) can never be dropped.
        for k in 0..8 {
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                ..Packet::default()
            });
            assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued, "arrival {k}");
        }
        // By accu_prob >= 8.5 a drop is forced: 85 additions of 0.1 (86 when
        // the floating-point sum of 85 x 0.1 falls just short of 8.5), so the
        // gap between drops never exceeds 86 arrivals.
        let mut since = 8;
        let mut max_gap = 0;
        for _ in 0..5000 {
            let r = ctx.arena.alloc(Packet {
                size: 1500,
                ..Packet::default()
            });
            since += 1;
            if q.enqueue(r, &mut ctx) != Verdict::Enqueued {
                max_gap = max_gap.max(since);
                since = 0;
            } else {
                q.q.pop_back(&ctx);
            }
        }
        assert!(max_gap <= 86, "{max_gap}");
        assert!(max_gap >= 9);
    }
}
