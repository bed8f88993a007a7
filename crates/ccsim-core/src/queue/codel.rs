//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor, Iyengar, RFC 8289).
//!
//! The state machine follows the pseudocode of RFC 8289 section 5 line by
//! line: `dodequeue` decides whether the sojourn time of the head packet has
//! stayed above `target` for at least `interval` (`ok_to_drop`); `dequeue`
//! enters the dropping state on the first such packet, then drops at the
//! times given by the control law `drop_next = t + interval / sqrt(count)`
//! until a packet's sojourn falls below `target` again. On
//! re-entry shortly after leaving (`now - drop_next < 16 interval`) `count`
//! resumes from its previous excess (`count - lastcount`), as in the RFC.
//!
//! Readings taken where the RFC leaves a choice:
//! - `MAXPACKET` ("the maximum packet size, should be the MTU") is the largest
//!   packet seen so far, as Linux's `codel_stats.maxpacket`.
//! - With `ecn = true` an ECN-capable packet is marked instead of dropped and
//!   is then sent (Linux `codel_dequeue`); the schedule advances as for a drop.
//! - CoDel's drops happen before the buffer is full and are reported as
//!   [`DropReason::Early`]; arrivals that find the buffer full are tail
//!   dropped ([`DropReason::Overflow`]).
//!
//! [`CodelVars`] is the per-queue state and is reused by FQ-CoDel for each flow.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use crate::time::SimTime;
use crate::units::Time;
use serde::Deserialize;

/// Scenario parameters of `codel`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time (RFC 8289 section 4.3: 5 ms; ns-2's
    /// `Queue/CoDel target_` is the same).
    pub target: Time,
    /// Sliding window over which the minimum sojourn must exceed `target`
    /// (RFC 8289 section 4.2: 100 ms; same in ns-2, Linux, ns-3).
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them (Linux default off).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: Time(SimTime::from_millis(5)),
            interval: Time(SimTime::from_millis(100)),
            ecn: false,
        }
    }
}

/// The constants of the control law.
#[derive(Copy, Clone, Debug)]
pub struct CodelParams {
    /// TARGET.
    pub target: SimTime,
    /// INTERVAL.
    pub interval: SimTime,
    /// Mark instead of drop when possible.
    pub ecn: bool,
}

impl CodelConfig {
    /// Validate and convert.
    pub fn params(&self) -> Result<CodelParams, ParamError> {
        if self.interval.0 == SimTime::ZERO {
            return Err(ParamError::at("interval", "must be greater than 0"));
        }
        if self.target.0 == SimTime::ZERO {
            return Err(ParamError::at("target", "must be greater than 0"));
        }
        Ok(CodelParams {
            target: self.target.0,
            interval: self.interval.0,
            ecn: self.ecn,
        })
    }
}

/// RFC 8289's control law (section 5 pseudocode): `t + interval / sqrt(count)`.
#[inline]
pub fn control_law(t: SimTime, interval: SimTime, count: u32) -> SimTime {
    let c = count.max(1) as f64;
    t + SimTime((interval.0 as f64 / c.sqrt()) as u64)
}

/// CoDel's per-queue state (RFC 8289 section 5.2 variables).
#[derive(Clone, Debug, Default)]
pub struct CodelVars {
    /// Packets dropped since entering the dropping state.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// In the dropping state.
    pub dropping: bool,
    /// When the sojourn time will have been above target for an interval
    /// (None: it is currently below target).
    pub first_above_time: Option<SimTime>,
    /// Time of the next scheduled drop.
    pub drop_next: SimTime,
}

impl CodelVars {
    /// RFC 8289 `dodequeue`: take the head and say whether it may be dropped.
    fn dodequeue(
        &mut self,
        p: &CodelParams,
        maxpacket: u32,
        q: &mut Fifo,
        ctx: &mut QueueCtx,
    ) -> (Option<PacketRef>, bool) {
        let now = ctx.now;
        let Some(pkt) = q.pop_front(ctx) else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - ctx.arena.get(pkt).enqueued_at;
        let mut ok_to_drop = false;
        if sojourn < p.target || q.bytes() <= maxpacket as u64 {
            // Below target, or too few bytes left to build a standing queue.
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        (Some(pkt), ok_to_drop)
    }

    /// Drop `pkt` or, with ECN, mark it; returns true if it was marked (and
    /// so must be sent).
    fn drop_or_mark(p: &CodelParams, pkt: PacketRef, ctx: &mut QueueCtx) -> bool {
        if p.ecn && ctx.mark(pkt) {
            return true;
        }
        ctx.drop_queued(pkt, DropReason::Early);
        false
    }

    /// RFC 8289 `dequeue`: the next packet of `q` to send, dropping on the way
    /// as the control law requires. `maxpacket` is the largest packet size seen.
    pub fn dequeue(&mut self, p: &CodelParams, maxpacket: u32, q: &mut Fifo, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let now = ctx.now;
        let (mut pkt, mut ok_to_drop) = self.dodequeue(p, maxpacket, q, ctx);
        let Some(head) = pkt else {
            // An empty queue takes us out of the dropping state.
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // Sojourn fell below target: leave the dropping state.
                self.dropping = false;
            }
            let mut cur = head;
            while self.dropping && now >= self.drop_next {
                self.count = self.count.wrapping_add(1);
                if Self::drop_or_mark(p, cur, ctx) {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    return Some(cur);
                }
                (pkt, ok_to_drop) = self.dodequeue(p, maxpacket, q, ctx);
                match pkt {
                    Some(n) if ok_to_drop => {
                        cur = n;
                        self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    }
                    Some(n) => {
                        cur = n;
                        self.dropping = false;
                    }
                    None => {
                        self.dropping = false;
                        return None;
                    }
                }
            }
            Some(cur)
        } else if ok_to_drop {
            let marked = Self::drop_or_mark(p, head, ctx);
            let out = if marked {
                Some(head)
            } else {
                self.dodequeue(p, maxpacket, q, ctx).0
            };
            self.dropping = true;
            // If we were dropping recently, resume near the old drop rate.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now - self.drop_next < p.interval.times(16) {
                self.count = delta;
            }
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
            out
        } else {
            Some(head)
        }
    }
}

/// CoDel on a single FIFO.
pub struct Codel {
    limit: Limit,
    params: CodelParams,
    vars: CodelVars,
    q: Fifo,
    maxpacket: u32,
}

impl Codel {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params) -> Result<Self, ParamError> {
        let cfg: CodelConfig = params::parse(params)?;
        Ok(Codel::new(limit, cfg.params()?))
    }

    /// A CoDel queue with the given constants.
    pub fn new(limit: Limit, params: CodelParams) -> Self {
        Codel {
            limit,
            params,
            vars: CodelVars::default(),
            q: Fifo::default(),
            maxpacket: 0,
        }
    }

    /// The control-law state (for tests).
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl QueueDisc for Codel {
    fn kind(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let size = ctx.arena.get(pkt).size;
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.maxpacket = self.maxpacket.max(size);
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        self.vars.dequeue(&self.params, self.maxpacket, &mut self.q, ctx)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["drop_next", "dropping", "count"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.vars.drop_next.secs_f64());
        out.push(if self.vars.dropping { 1.0 } else { 0.0 });
        out.push(self.vars.count as f64);
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

    #[test]
    fn control_law_is_interval_over_sqrt_count() {
        let i = ms(100);
        assert_eq!(control_law(SimTime::ZERO, i, 1), ms(100));
        assert_eq!(control_law(SimTime::ZERO, i, 4), ms(50));
        assert_eq!(control_law(ms(1000), i, 16), ms(1025));
        // 100 ms / sqrt(2) = 70.710678 ms (truncated to the nanosecond)
        assert_eq!(control_law(SimTime::ZERO, i, 2), SimTime(70_710_678));
    }

    /// Drive a CoDel queue that always holds a standing queue of old packets
    /// and check that the drop times follow the RFC 8289 schedule:
    /// first drop one interval after the sojourn first exceeds target, then
    /// drops at drop_next += interval / sqrt(count).
    #[test]
    fn drop_schedule_follows_rfc_8289() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "codel");
        let mut dropped = Vec::new();
        let p = CodelConfig::default().params().unwrap();
        let mut q = Codel::new(
            Limit {
                packets: Some(100_000),
                bytes: None,
            },
            p,
        );
        // 2000 packets enqueued at t = 0: every sojourn is `now`, so above
        // target from 5 ms on; dequeue one packet per millisecond.
        {
            let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
            for _ in 0..2000 {
                let r = ctx.arena.alloc(Packet {
                    size: 1000,
                    ..Packet::default()
                });
                assert_eq!(q.enqueue(r, &mut ctx), Verdict::Enqueued);
            }
        }
        let mut drop_times = Vec::new();
        for t in 0..=1200u64 {
            let before = dropped.len();
            let mut ctx = QueueCtx::new(ms(t), &mut arena, &mut rng, 1_000_000, &mut dropped);
            assert!(q.dequeue(&mut ctx).is_some());
            for _ in before..dropped.len() {
                drop_times.push(t);
            }
        }
        // Sojourn first >= 5 ms at t = 5: first_above_time = 105 ms, so the
        // first drop is at t = 105 and drop_next = 105 + 100/sqrt(1) = 205.
        let mut want = vec![105u64];
        let mut next: f64 = 105.0 + 100.0;
        let mut count = 1u32;
        while next <= 1200.0 {
            // Dequeues happen on whole milliseconds: the drop fires at the
            // first dequeue at or after drop_next.
            let t = next.ceil() as u64;
            want.push(t);
            count += 1;
            next += 100.0 / (count as f64).sqrt();
        }
        assert_eq!(drop_times, want);
        assert!(q.vars().dropping);
        assert_eq!(q.vars().count as usize, want.len());
    }

    #[test]
    fn leaves_dropping_state_when_sojourn_falls_below_target() {
        let mut arena = PacketArena::new();
        let mut rng = stream(1, "codel");
        let mut dropped = Vec::new();
        let p = CodelConfig::default().params().unwrap();
        let mut q = Codel::new(
            Limit {
                packets: Some(1000),
                bytes: None,
            },
            p,
        );
        let mut ctx = QueueCtx::new(SimTime::ZERO, &mut arena, &mut rng, 1_000_000, &mut dropped);
        for _ in 0..300 {
            let r = ctx.arena.alloc(Packet {
                size: 1000,
                ..Packet::default()
            });
            q.enqueue(r, &mut ctx);
        }
        for t in 0..150u64 {
            ctx.now = ms(t);
            q.dequeue(&mut ctx);
        }
        assert!(q.vars().dropping);
        // Fresh packets: sojourn 0 < target, so the next dequeue leaves the state.
        while q.len_pkts() > 0 {
            ctx.now = ms(150);
            q.dequeue(&mut ctx);
        }
        for _ in 0..10 {
            let r = ctx.arena.alloc(Packet {
                size: 1000,
                ..Packet::default()
            });
            ctx.arena.get_mut(r).enqueued_at = ms(200);
            q.enqueue(r, &mut ctx);
        }
        ctx.now = ms(201);
        assert!(q.dequeue(&mut ctx).is_some());
        assert!(!q.vars().dropping);
    }
}
