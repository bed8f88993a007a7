//! COBALT, CoDel and BLUE Alternate (Høiland-Jørgensen, Täht and Morton,
//! "Piece of CAKE: A Comprehensive Queue Management Solution for Home
//! Gateways", LANMAN 2018, section 3.3; Linux `sch_cake.c`
//! `cobalt_should_drop`, `cobalt_queue_full`, `cobalt_queue_empty`; ns-3's
//! `CobaltQueueDisc`, a port of it): CoDel's control law for the queues it
//! handles well, and BLUE's drop probability for unresponsive flows that
//! CoDel alone would let fill the buffer.
//!
//! - CoDel part (dequeue): a packet whose sojourn exceeds `target` enters
//!   the dropping state, scheduling the next drop one control-law step
//!   ahead (`drop_next = now + interval / sqrt(count)`); while dropping, a
//!   packet dequeued at or after `drop_next` is dropped (or, with `ecn`,
//!   marked) and `count` grows; a packet below target leaves the state. As
//!   in CoDel the first drop comes one interval after the sojourn first
//!   exceeds target, but unlike RFC 8289 `count` is not reset when the state
//!   is left: it decays, one step per control-law interval that passes
//!   without a drop (in `should_drop` and when the queue runs empty), so a
//!   queue that returns to its bad state resumes near its old drop rate.
//! - BLUE part: `p_drop` rises by `increment` when an arrival finds the
//!   buffer full, or a packet waited more than `blue_threshold`, and falls by
//!   `decrement` when the queue is found empty, at most once per `target`;
//!   every dequeued packet is then also dropped with probability `p_drop`
//!   (never marked: "lack of ECN is deliberate").
//! - A full buffer drops the arrival and also enters CoDel's dropping state
//!   at once (`drop_next = now`).
//!
//! The state machine is [`CobaltVars`] with [`CobaltParams`]: the `cobalt`
//! queue holds one, and `cake` ([`super::cake`]) one per flow queue.
//!
//! Readings: `1/sqrt(count)` is computed exactly, as ccsim's `codel` does
//! (Linux and ns-3 use Newton steps in 32-bit fixed point, exact to about
//! 0.01% after the cached first 16 values); ns-3's CE-threshold and L4S
//! options are not modelled.

use super::codel::control_law;
use super::droptail::{Fifo, Limit};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::rng::uniform01;
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// Scenario parameters of `cobalt`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CobaltConfig {
    /// CoDel's target sojourn (5 ms: Linux CAKE's default and ns-3's `Target`).
    pub target: Time,
    /// CoDel's interval (100 ms: Linux CAKE and ns-3 `Interval`).
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them in the CoDel part
    /// (default false, ns-3's `UseEcn`; Linux's CAKE marks ECN-capable packets).
    pub ecn: bool,
    /// BLUE's increment of p_drop (1/256: Linux `b->cparams.p_inc`, ns-3 `Increment`).
    pub increment: f64,
    /// BLUE's decrement of p_drop (1/4096: Linux `p_dec`, ns-3 `Decrement`).
    pub decrement: f64,
    /// Sojourn beyond which BLUE's p_drop rises too (400 ms: ns-3's
    /// `BlueThreshold`; Linux raises it only on overflow).
    pub blue_threshold: Time,
}

impl Default for CobaltConfig {
    fn default() -> Self {
        CobaltConfig {
            target: Time(SimTime::from_millis(5)),
            interval: Time(SimTime::from_millis(100)),
            ecn: false,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            blue_threshold: Time(SimTime::from_millis(400)),
        }
    }
}

/// COBALT's parameters as one flow's state machine uses them (the
/// `cobalt_params` of Linux `sch_cake.c`): shared by the flows of a CAKE
/// queue, or held by a `cobalt` queue.
#[derive(Clone, Debug)]
pub struct CobaltParams {
    /// CoDel's target sojourn.
    pub target: SimTime,
    /// CoDel's interval.
    pub interval: SimTime,
    /// Mark ECN-capable packets instead of dropping them in the CoDel part.
    pub ecn: bool,
    /// BLUE's increment of p_drop.
    pub increment: f64,
    /// BLUE's decrement of p_drop.
    pub decrement: f64,
    /// Sojourn beyond which BLUE's p_drop rises too (ns-3's
    /// `BlueThreshold`); `None`: only on overflow (Linux).
    pub blue_threshold: Option<SimTime>,
    /// Serialization time of one MTU at the shaper's rate (Linux
    /// `cparams.mtu_time`): a sojourn counts as over target only when it
    /// also exceeds four of these (`cobalt_should_drop`). Zero in `cobalt`.
    pub mtu_time: SimTime,
}

impl CobaltConfig {
    /// Check the values and give the state machine's parameters; errors
    /// name the key.
    pub fn params(&self) -> Result<CobaltParams, ParamError> {
        for (key, t) in [("target", self.target), ("interval", self.interval)] {
            if t.0 == SimTime::ZERO {
                return Err(ParamError::at(key, "must be greater than 0"));
            }
        }
        for (key, v) in [("increment", self.increment), ("decrement", self.decrement)] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(ParamError::at(
                    key,
                    format!("expected a probability in [0, 1], got {v}"),
                ));
            }
        }
        Ok(CobaltParams {
            target: self.target.0,
            interval: self.interval.0,
            ecn: self.ecn,
            increment: self.increment,
            decrement: self.decrement,
            blue_threshold: Some(self.blue_threshold.0),
            mtu_time: SimTime::ZERO,
        })
    }
}

/// COBALT's state (the `cobalt_vars` of Linux), and its state machine:
/// [`CobaltVars::queue_full`], [`CobaltVars::queue_empty`] and
/// [`CobaltVars::should_drop`], with time an argument. One per `cobalt`
/// queue, one per flow queue of `cake`.
#[derive(Clone, Debug, Default)]
pub struct CobaltVars {
    /// CoDel's drop count; decays instead of resetting.
    pub count: u32,
    /// In CoDel's dropping state.
    pub dropping: bool,
    /// Next scheduled drop; while `count` is 0 an activity timeout.
    pub drop_next: SimTime,
    /// BLUE's drop probability.
    pub p_drop: f64,
    /// Last change of `p_drop`.
    pub blue_timer: SimTime,
}

impl CobaltVars {
    /// `now - since > target`: BLUE changes at most once per target.
    fn blue_may_change(&self, p: &CobaltParams, now: SimTime) -> bool {
        now.saturating_sub(self.blue_timer) > p.target
    }

    /// `cobalt_queue_full`: an arrival found the buffer full (or, in CAKE,
    /// this flow was the fattest when the buffer overflowed). Returns true
    /// when BLUE was quiescent before and is active now.
    pub fn queue_full(&mut self, p: &CobaltParams, now: SimTime) -> bool {
        let mut up = false;
        if self.blue_may_change(p, now) {
            up = self.p_drop == 0.0;
            self.p_drop = (self.p_drop + p.increment).min(1.0);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
        up
    }

    /// `cobalt_queue_empty`: the queue was found empty at a dequeue.
    /// Returns true when BLUE was active before and is quiescent now.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: SimTime) -> bool {
        let mut down = false;
        if self.p_drop > 0.0 && self.blue_may_change(p, now) {
            self.p_drop = (self.p_drop - p.decrement).max(0.0);
            self.blue_timer = now;
            down = self.p_drop == 0.0;
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = control_law(self.drop_next, p.interval, self.count);
        }
        down
    }

    /// `cobalt_should_drop` for the packet `pkt` just dequeued; with `ecn`
    /// it may mark it instead (then it is sent).
    pub fn should_drop(&mut self, p: &CobaltParams, pkt: PacketRef, ctx: &mut QueueCtx) -> bool {
        let now = ctx.now;
        let interval = p.interval;
        let sojourn = now - ctx.arena.get(pkt).enqueued_at;
        let over_target = sojourn > p.target && sojourn.0 > p.mtu_time.0.saturating_mul(4);
        let mut next_due = self.count > 0 && now >= self.drop_next;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, interval, self.count);
            }
            self.count = self.count.max(1);
        } else {
            self.dropping = false;
        }
        let mut drop = false;
        if next_due && self.dropping {
            drop = !(p.ecn && ctx.mark(pkt));
            self.count = self.count.saturating_add(1);
            self.drop_next = control_law(self.drop_next, interval, self.count);
        } else {
            while next_due {
                self.count -= 1;
                self.drop_next = control_law(self.drop_next, interval, self.count);
                next_due = self.count > 0 && now >= self.drop_next;
            }
        }
        // BLUE also reacts to a sojourn far beyond anything CoDel tolerates
        // (ns-3 only).
        if p.blue_threshold.is_some_and(|b| sojourn > b) && self.blue_may_change(p, now) {
            self.p_drop = (self.p_drop + p.increment).min(1.0);
            self.blue_timer = now;
        }
        if self.p_drop > 0.0 {
            drop |= uniform01(ctx.rng) < self.p_drop;
        }
        // drop_next doubles as an activity timeout while count is 0.
        if self.count == 0 {
            self.drop_next = now + interval;
        } else if now > self.drop_next && !drop {
            self.drop_next = now;
        }
        drop
    }
}

/// A COBALT queue.
pub struct Cobalt {
    limit: Limit,
    params: CobaltParams,
    vars: CobaltVars,
    q: Fifo,
}

impl Cobalt {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: CobaltConfig = params::parse(params)?;
        Ok(Cobalt {
            limit,
            params: cfg.params()?,
            vars: CobaltVars::default(),
            q: Fifo::default(),
        })
    }

    /// The state (for tests and probes).
    pub fn vars(&self) -> &CobaltVars {
        &self.vars
    }
}

impl QueueDisc for Cobalt {
    fn kind(&self) -> &'static str {
        "cobalt"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            self.vars.queue_full(&self.params, ctx.now);
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        loop {
            let Some(pkt) = self.q.pop_front(ctx) else {
                let _ = self.vars.queue_empty(&self.params, ctx.now);
                return None;
            };
            if self.vars.should_drop(&self.params, pkt, ctx) {
                ctx.drop_queued(pkt, DropReason::Early);
            } else {
                return Some(pkt);
            }
        }
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["count", "dropping", "p_drop"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.vars.count as f64);
        out.push(if self.vars.dropping { 1.0 } else { 0.0 });
        out.push(self.vars.p_drop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, PacketArena};
    use crate::rng::stream;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn queue(limit: u64) -> Cobalt {
        Cobalt::from_params(
            Limit {
                packets: Some(limit),
                bytes: None,
            },
            &Params::default(),
        )
        .unwrap()
    }

    /// Enqueue `n` packets at time `at`.
    fn fill(q: &mut Cobalt, arena: &mut PacketArena, n: usize, at: SimTime) -> usize {
        let mut rng = stream(1, "cobalt");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(at, arena, &mut rng, 1_000_000, &mut dropped);
        let mut refused = 0;
        for _ in 0..n {
            let r = ctx.arena.alloc(Packet {
                size: 1000,
                enqueued_at: at,
                ..Packet::default()
            });
            if q.enqueue(r, &mut ctx) != Verdict::Enqueued {
                refused += 1;
            }
        }
        refused
    }

    #[test]
    fn drops_start_one_interval_after_the_sojourn_exceeds_target() {
        // A standing queue enqueued at 0 and served one packet per ms: the
        // first packet over target (6 ms) enters the dropping state with the
        // first drop due 100 ms later; then drops follow interval/sqrt(count).
        let mut arena = PacketArena::new();
        let mut q = queue(10_000);
        fill(&mut q, &mut arena, 3000, SimTime::ZERO);
        let mut rng = stream(1, "cobalt");
        let mut dropped = Vec::new();
        let mut drops = Vec::new();
        for t in 0..=400u64 {
            let before = dropped.len();
            let mut ctx = QueueCtx::new(ms(t), &mut arena, &mut rng, 1_000_000, &mut dropped);
            assert!(q.dequeue(&mut ctx).is_some());
            drops.extend(std::iter::repeat_n(t, dropped.len() - before));
        }
        // 6 + 100 = 106; then + 100/sqrt(2) = 176.7 -> 177; + 100/sqrt(3) = 234.4 -> 235; + 50 -> 285
        assert_eq!(&drops[..4], &[106, 177, 235, 285], "{drops:?}");
        assert_eq!(q.vars().p_drop, 0.0, "no overflow, no sojourn over 400 ms: BLUE idle");
    }

    #[test]
    fn overflow_raises_blue_at_most_once_per_target_and_emptiness_lowers_it() {
        let mut arena = PacketArena::new();
        let mut q = queue(10);
        assert_eq!(fill(&mut q, &mut arena, 15, ms(10)), 5);
        assert_eq!(
            q.vars().p_drop,
            1.0 / 256.0,
            "five overflows within one target: one increment"
        );
        assert!(q.vars().dropping && q.vars().count == 1);
        fill(&mut q, &mut arena, 1, ms(20));
        assert_eq!(q.vars().p_drop, 2.0 / 256.0);
        // Drain, then find the queue empty twice, more than a target apart.
        let mut rng = stream(1, "cobalt");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(ms(30), &mut arena, &mut rng, 1_000_000, &mut dropped);
        while q.dequeue(&mut ctx).is_some() {}
        assert!((q.vars().p_drop - (2.0 / 256.0 - 1.0 / 4096.0)).abs() < 1e-15);
        let mut ctx = QueueCtx::new(ms(40), &mut arena, &mut rng, 1_000_000, &mut dropped);
        assert!(q.dequeue(&mut ctx).is_none());
        assert!((q.vars().p_drop - (2.0 / 256.0 - 2.0 / 4096.0)).abs() < 1e-15);
    }

    #[test]
    fn count_decays_instead_of_resetting() {
        let mut arena = PacketArena::new();
        let mut q = queue(10_000);
        q.vars.count = 8;
        q.vars.drop_next = ms(100);
        // A packet below target dequeued long after drop_next: count decays
        // one step per control-law interval that passed (100/sqrt(7) ...).
        fill(&mut q, &mut arena, 1, ms(399));
        let mut rng = stream(1, "cobalt");
        let mut dropped = Vec::new();
        let mut ctx = QueueCtx::new(ms(400), &mut arena, &mut rng, 1_000_000, &mut dropped);
        assert!(q.dequeue(&mut ctx).is_some());
        // 100 + 37.8 (7) + 40.8 (6) + 44.7 (5) + 50 (4) + 57.7 (3) = 331; + 70.7 (2) = 401.7 > 400
        assert_eq!(q.vars().count, 2);
        assert!(!q.vars().dropping && dropped.is_empty());
    }
}
