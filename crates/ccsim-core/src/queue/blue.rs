//! BLUE (Feng, Kandlur, Saha, Shin, "The BLUE Active Queue Management
//! Algorithms", IEEE/ACM ToN 10(4) 2002; UM CSE-TR-387-99).
//!
//! BLUE keeps one marking/dropping probability `pm` (section 3, Figure 4):
//! on a packet loss from buffer overflow, if more than `freeze_time` has
//! passed since `pm` last changed, `pm += d1`; when the link goes idle under
//! the same condition, `pm -= d2`. Every arrival is dropped (or ECN-marked)
//! with probability `pm`.
//!
//! Readings: "link idle" is taken as the queue becoming empty at a dequeue
//! (the link then idles once that packet is on the wire). Early drops are
//! [`DropReason::Early`], overflow drops [`DropReason::Overflow`]. ns-2 never
//! shipped BLUE; the defaults are those of Feng's own ns implementation
//! (as ported to ns-3 by NITK: increment 0.0025, decrement 0.00025, hold
//! time 100 ms), which are also configuration B1/B2's d1/d2 in the paper.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::rng::uniform01;
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// Scenario parameters of `blue`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct BlueConfig {
    /// Increment of pm on overflow loss (Feng's ns code: 0.0025).
    pub d1: f64,
    /// Decrement of pm on link idle (Feng's ns code: 0.00025).
    pub d2: f64,
    /// Minimum time between two changes of pm (Feng's ns code: 100 ms).
    pub freeze_time: Time,
    /// Mark ECN-capable packets instead of dropping (off).
    pub ecn: bool,
}

impl Default for BlueConfig {
    fn default() -> Self {
        BlueConfig {
            d1: 0.0025,
            d2: 0.00025,
            freeze_time: Time(SimTime::from_millis(100)),
            ecn: false,
        }
    }
}

/// BLUE's control state.
#[derive(Clone, Debug, Default)]
pub struct BlueState {
    /// Marking/dropping probability.
    pub pm: f64,
    /// When pm last changed.
    pub last_update: Option<SimTime>,
}

impl BlueState {
    fn may_update(&self, now: SimTime, freeze: SimTime) -> bool {
        self.last_update.is_none_or(|t| now - t > freeze)
    }

    /// A packet was lost to overflow at `now`.
    pub fn on_loss(&mut self, now: SimTime, cfg: &BlueConfig) {
        if self.may_update(now, cfg.freeze_time.0) {
            self.pm = (self.pm + cfg.d1).min(1.0);
            self.last_update = Some(now);
        }
    }

    /// The link went idle at `now`.
    pub fn on_idle(&mut self, now: SimTime, cfg: &BlueConfig) {
        if self.may_update(now, cfg.freeze_time.0) {
            self.pm = (self.pm - cfg.d2).max(0.0);
            self.last_update = Some(now);
        }
    }
}

/// BLUE on a single FIFO.
pub struct Blue {
    limit: Limit,
    cfg: BlueConfig,
    st: BlueState,
    q: Fifo,
}

impl Blue {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: BlueConfig = params::parse(params)?;
        if !(0.0..=1.0).contains(&cfg.d1) {
            return Err(ParamError::at("d1", "must be between 0 and 1"));
        }
        if !(0.0..=1.0).contains(&cfg.d2) {
            return Err(ParamError::at("d2", "must be between 0 and 1"));
        }
        Ok(Blue::new(limit, cfg))
    }

    /// A BLUE queue.
    pub fn new(limit: Limit, cfg: BlueConfig) -> Self {
        Blue {
            limit,
            cfg,
            st: BlueState::default(),
            q: Fifo::default(),
        }
    }

    /// The control state.
    pub fn state(&self) -> &BlueState {
        &self.st
    }
}

impl QueueDisc for Blue {
    fn kind(&self) -> &'static str {
        "blue"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            self.st.on_loss(ctx.now, &self.cfg);
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.st.pm > 0.0 && uniform01(ctx.rng) < self.st.pm && !(self.cfg.ecn && ctx.mark(pkt)) {
            return Verdict::Dropped(DropReason::Early);
        }
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_front(ctx)?;
        if self.q.is_empty() {
            self.st.on_idle(ctx.now, &self.cfg);
        }
        Some(p)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["drop_prob"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.st.pm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_and_decrements_respect_freeze_time() {
        let cfg = BlueConfig::default();
        let mut s = BlueState::default();
        let ms = SimTime::from_millis;
        s.on_loss(ms(0), &cfg);
        assert!((s.pm - 0.0025).abs() < 1e-15);
        // Within the freeze time nothing changes.
        s.on_loss(ms(50), &cfg);
        s.on_loss(ms(100), &cfg);
        assert!((s.pm - 0.0025).abs() < 1e-15);
        s.on_loss(ms(101), &cfg);
        assert!((s.pm - 0.005).abs() < 1e-15);
        s.on_idle(ms(150), &cfg);
        assert!((s.pm - 0.005).abs() < 1e-15);
        s.on_idle(ms(202), &cfg);
        assert!((s.pm - 0.00475).abs() < 1e-15);
        // Ten increments in a row, one per freeze time.
        for k in 1..=10u64 {
            s.on_loss(ms(202 + 101 * k), &cfg);
        }
        assert!((s.pm - (0.00475 + 10.0 * 0.0025)).abs() < 1e-12);
        // pm never goes below 0.
        let mut z = BlueState::default();
        z.on_idle(ms(0), &cfg);
        assert_eq!(z.pm, 0.0);
    }
}
