//! SRED, Stabilized RED (Ott, Lakshman, Wong, "SRED: Stabilized RED",
//! INFOCOM 1999).
//!
//! A zombie list of `zombies` (M) recently seen flows is kept (section 2).
//! While it is not full, every arrival's flow is added. Once full, each
//! arrival is compared with a zombie drawn at random: a *hit* if it is the
//! same flow (the zombie's count grows), a *miss* otherwise, in which case
//! the zombie is overwritten by the arrival's flow with probability
//! `overwrite_prob` (p). The hit frequency is estimated as
//! `P(t) = (1 - a) P(t-1) + a Hit(t)`, `a = 1/M` (section 3), and 1/P(t)
//! estimates the number of active flows. The drop probability depends on the
//! buffer occupancy q of a buffer of B packets (section 4):
//! `p_sred = p_max` for `B/3 <= q`, `p_max/4` for `B/6 <= q < B/3`, 0 below,
//! and (section 4, "simple SRED") `p_zap = p_sred min(1, 1/(256 P)^2)`;
//! "full SRED" (`full = true`, the paper's recommended version) multiplies by
//! `(1 + Hit(t)/P(t))` to penalise flows that hit often.
//!
//! Readings: q is the number of packets waiting at the arrival; B is the
//! `limit` in packets (or, with a byte limit only, occupancy is taken in
//! bytes against `limit_bytes`); P is not updated while the zombie list is
//! filling; drops are [`DropReason::Early`]. ns-2 never shipped SRED; the
//! defaults are the paper's (M = 1000, p = 0.25, p_max = 0.15).

use super::droptail::Fifo;
use super::droptail::Limit;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::rng::uniform01;
use rand::Rng;
use serde::Deserialize;

/// Scenario parameters of `sred`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct SredConfig {
    /// Size M of the zombie list (paper: 1000).
    pub zombies: u32,
    /// Probability p of overwriting a zombie on a miss (paper: 0.25).
    pub overwrite_prob: f64,
    /// p_max (paper: 0.15).
    pub p_max: f64,
    /// Full SRED with the (1 + Hit/P) factor (paper's recommendation: true).
    pub full: bool,
    /// Mark ECN-capable packets instead of dropping (off).
    pub ecn: bool,
}

impl Default for SredConfig {
    fn default() -> Self {
        SredConfig {
            zombies: 1000,
            overwrite_prob: 0.25,
            p_max: 0.15,
            full: true,
            ecn: false,
        }
    }
}

/// One zombie: a flow and how often it was hit.
#[derive(Clone, Copy, Debug)]
pub struct Zombie {
    /// Flow id.
    pub flow: u32,
    /// Hits since it entered the list.
    pub count: u32,
}

/// SRED's estimator state.
#[derive(Clone, Debug, Default)]
pub struct SredState {
    /// The zombie list.
    pub zombies: Vec<Zombie>,
    /// P(t), the hit-frequency estimate.
    pub hit_freq: f64,
    /// Drop probability (without the hit factor) at the last arrival.
    pub p_last: f64,
}

/// SRED's `p_sred(q)` step function.
pub fn p_sred(q: f64, buffer: f64, p_max: f64) -> f64 {
    if q >= buffer / 3.0 {
        p_max
    } else if q >= buffer / 6.0 {
        p_max / 4.0
    } else {
        0.0
    }
}

/// SRED's `p_zap` for occupancy `q` of `buffer`, hit frequency `p` and
/// this arrival's `hit`.
pub fn p_zap(q: f64, buffer: f64, cfg: &SredConfig, p: f64, hit: bool) -> f64 {
    let ps = p_sred(q, buffer, cfg.p_max);
    let scale = if p > 0.0 {
        (1.0 / (256.0 * p).powi(2)).min(1.0)
    } else {
        1.0
    };
    let mut z = ps * scale;
    if cfg.full && hit && p > 0.0 {
        z *= 1.0 + 1.0 / p;
    }
    z.min(1.0)
}

impl SredState {
    /// Update the zombie list and P(t) for an arrival of `flow`; returns Hit(t).
    pub fn observe(&mut self, flow: u32, cfg: &SredConfig, ctx: &mut QueueCtx) -> bool {
        let m = cfg.zombies as usize;
        if self.zombies.len() < m {
            self.zombies.push(Zombie { flow, count: 0 });
            return false;
        }
        let i = ctx.rng.random_range(0..m);
        let z = &mut self.zombies[i];
        let hit = z.flow == flow;
        if hit {
            z.count += 1;
        } else if uniform01(ctx.rng) < cfg.overwrite_prob {
            *z = Zombie { flow, count: 0 };
        }
        let a = 1.0 / m as f64;
        self.hit_freq = (1.0 - a) * self.hit_freq + a * if hit { 1.0 } else { 0.0 };
        hit
    }
}

/// SRED on a single FIFO.
pub struct Sred {
    limit: Limit,
    cfg: SredConfig,
    st: SredState,
    q: Fifo,
}

impl Sred {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: SredConfig = params::parse(params)?;
        if cfg.zombies == 0 {
            return Err(ParamError::at("zombies", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&cfg.overwrite_prob) {
            return Err(ParamError::at("overwrite_prob", "must be between 0 and 1"));
        }
        if !(0.0..=1.0).contains(&cfg.p_max) {
            return Err(ParamError::at("p_max", "must be between 0 and 1"));
        }
        Ok(Sred::new(limit, cfg))
    }

    /// An SRED queue.
    pub fn new(limit: Limit, cfg: SredConfig) -> Self {
        Sred {
            limit,
            cfg,
            st: SredState::default(),
            q: Fifo::default(),
        }
    }

    /// The estimator state.
    pub fn state(&self) -> &SredState {
        &self.st
    }
}

impl QueueDisc for Sred {
    fn kind(&self) -> &'static str {
        "sred"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (flow, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow.0, p.size)
        };
        let hit = self.st.observe(flow, &self.cfg, ctx);
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        let (q, b) = match (self.limit.packets, self.limit.bytes) {
            (Some(l), _) => (self.q.len() as f64, l as f64),
            (None, Some(l)) => (self.q.bytes() as f64, l as f64),
            (None, None) => (0.0, 1.0),
        };
        let p = self.st.hit_freq;
        self.st.p_last = p_zap(
            q,
            b,
            &SredConfig {
                full: false,
                ..self.cfg.clone()
            },
            p,
            false,
        );
        let z = p_zap(q, b, &self.cfg, p, hit);
        if z > 0.0 && uniform01(ctx.rng) < z && !(self.cfg.ecn && ctx.mark(pkt)) {
            return Verdict::Dropped(DropReason::Early);
        }
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.q.pop_front(ctx)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["drop_prob", "hit_freq", "est_flows"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.st.p_last);
        out.push(self.st.hit_freq);
        out.push(if self.st.hit_freq > 0.0 {
            1.0 / self.st.hit_freq
        } else {
            0.0
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketArena;
    use crate::rng::stream;
    use crate::time::SimTime;

    #[test]
    fn p_sred_steps_and_p_zap() {
        let c = SredConfig::default();
        assert_eq!(p_sred(10.0, 90.0, 0.15), 0.0);
        assert_eq!(p_sred(15.0, 90.0, 0.15), 0.15 / 4.0);
        assert_eq!(p_sred(30.0, 90.0, 0.15), 0.15);
        // P = 1/256 (256 flows): scale 1, so p_zap = p_sred; a hit multiplies
        // by 1 + 256.
        let p = 1.0 / 256.0;
        let simple = SredConfig {
            full: false,
            ..c.clone()
        };
        assert!((p_zap(30.0, 90.0, &simple, p, true) - 0.15).abs() < 1e-12);
        assert_eq!(p_zap(30.0, 90.0, &c, p, true), 1.0);
        // P = 1/64 (64 flows): scale (1 / (256/64))^2 = 1/16.
        let p = 1.0 / 64.0;
        assert!((p_zap(30.0, 90.0, &c, p, false) - 0.15 / 16.0).abs() < 1e-12);
        // Full SRED with a hit: x (1 + 64).
        assert!((p_zap(30.0, 90.0, &c, p, true) - 0.15 / 16.0 * 65.0).abs() < 1e-12);
        // Fewer flows than 256 can only lower the probability; more cannot raise it above p_sred.
        assert!((p_zap(30.0, 90.0, &simple, 1.0 / 1000.0, false) - 0.15).abs() < 1e-12);
    }

    /// With N flows arriving in random order, the hit frequency converges to
    /// 1/N (each zombie is the arrival's flow with probability 1/N once the
    /// list mixes), so 1/P estimates N (paper, section 3).
    #[test]
    fn hit_frequency_estimates_number_of_flows() {
        let mut arena = PacketArena::new();
        let mut rng = stream(4, "sred");
        let mut flows = stream(4, "flows");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        for n in [10u32, 40] {
            let cfg = SredConfig::default();
            let mut st = SredState::default();
            let mut hits = 0u64;
            let mut p_sum = 0.0;
            let total = 200_000u64;
            let skip = 20_000u64;
            for k in 0..total {
                let f = flows.random_range(0..n);
                let hit = st.observe(f, &cfg, &mut ctx);
                if k >= skip {
                    hits += hit as u64;
                    p_sum += st.hit_freq;
                }
            }
            // The long-run hit rate is a mean of 180k Bernoulli(1/N) draws:
            // standard error below 1.5% of 1/N at N = 40, so 5% is > 3 sigma.
            let rate = hits as f64 / (total - skip) as f64;
            assert!((rate * n as f64 - 1.0).abs() < 0.05, "N={n} rate={rate}");
            // P(t) averaged over the same stretch estimates the same 1/N; the
            // EWMA's autocorrelation (about M = 1000 arrivals) widens its
            // error a little, so allow 10% on the flow-count estimate 1/mean(P).
            let est = (total - skip) as f64 / p_sum;
            assert!((est - n as f64).abs() < 0.1 * n as f64, "N={n} est={est}");
        }
    }
}
