//! FRED, Flow Random Early Drop (Lin and Morris, "Dynamics of Random Early
//! Detection", SIGCOMM 1997, section 4 and the pseudocode of its appendix).
//!
//! FRED keeps RED's average queue `avg` (computed at arrivals and, unlike
//! RED, at departures too) and per-*active*-flow state: `qlen_i` (packets of
//! flow i in the buffer) and `strike_i`. With `Nactive` flows holding
//! packets, `avgcq = avg / Nactive`. On arrival:
//! - `maxq = min_th`, or 2 once `avg >= max_th`;
//! - a flow with `qlen_i >= maxq`, or (`avg >= max_th` and `qlen_i > 2 avgcq`),
//!   or (`qlen_i >= avgcq` and `strike_i > 1`) is non-adaptive: its packet is
//!   dropped and `strike_i` grows;
//! - for `min_th <= avg < max_th`, `count` grows and only flows with
//!   `qlen_i >= max(minq, avgcq)` are dropped with RED's probability
//!   `pa = pb / (1 - count pb)`, `pb = max_p (avg - min_th)/(max_th - min_th)`;
//! - for `avg < min_th` nothing is dropped (`count = -1`); for
//!   `avg >= max_th` the packet is dropped (`count = 0`).
//!
//! A flow's state (and so its strikes) is deleted when its last packet
//! leaves. Readings: `avgcq` is recomputed whenever it is used (the paper
//! updates it at departures, where avg and Nactive change); with no active
//! flow `avgcq = avg`. Penalty and `avg >= max_th` drops are
//! [`DropReason::Forced`], random drops [`DropReason::Early`], buffer overflow
//! [`DropReason::Overflow`]. ns-2 never shipped FRED: `min_th`, `max_th`,
//! `weight` and `mean_pkt_size` default to ns-2's RED defaults (5, 15,
//! 0.002, 500 bytes), `max_p` and `minq` to the paper's (0.02 and 2).

use super::droptail::Fifo;
use super::droptail::Limit;
use super::flowq::{check_red_params, red_random_drop, LinkAverage};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use serde::Deserialize;

/// Scenario parameters of `fred`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct FredConfig {
    /// min_th in packets (ns-2 RED `thresh_`: 5).
    pub min_th: f64,
    /// max_th in packets (ns-2 RED `maxthresh_`: 15).
    pub max_th: f64,
    /// max_p (Lin and Morris: 0.02).
    pub max_p: f64,
    /// EWMA weight w_q (ns-2 RED `q_weight_` and the paper: 0.002).
    pub weight: f64,
    /// minq, the per-flow buffer a flow may always use (paper: 2).
    pub minq: f64,
    /// Typical packet size for the idle correction (ns-2 RED `mean_pktsize_`: 500).
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of random drops (off).
    pub ecn: bool,
}

impl Default for FredConfig {
    fn default() -> Self {
        FredConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            weight: 0.002,
            minq: 2.0,
            mean_pkt_size: 500,
            ecn: false,
        }
    }
}

/// Per-flow state of an active flow.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowState {
    /// Packets of this flow in the buffer.
    pub qlen: u32,
    /// Times the flow was caught over its share.
    pub strikes: u32,
}

/// FRED.
pub struct Fred {
    limit: Limit,
    cfg: FredConfig,
    avg: LinkAverage,
    count: i64,
    flows: Vec<FlowState>,
    nactive: u32,
    q: Fifo,
}

impl Fred {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params, link_rate_bps: u64) -> Result<Self, ParamError> {
        let cfg: FredConfig = params::parse(params)?;
        check_red_params(cfg.min_th, cfg.max_th, cfg.max_p, cfg.weight, cfg.mean_pkt_size)?;
        Ok(Fred::new(limit, cfg, link_rate_bps))
    }

    /// A FRED queue on a link of `link_rate_bps`.
    pub fn new(limit: Limit, cfg: FredConfig, link_rate_bps: u64) -> Self {
        Fred {
            limit,
            avg: LinkAverage::new(cfg.weight, cfg.mean_pkt_size, link_rate_bps),
            cfg,
            count: -1,
            flows: Vec::new(),
            nactive: 0,
            q: Fifo::default(),
        }
    }

    /// The state of flow `f` (zero if it has no packet queued).
    pub fn flow(&self, f: u32) -> FlowState {
        self.flows.get(f as usize).copied().unwrap_or_default()
    }

    /// The average queue.
    pub fn avg(&self) -> f64 {
        self.avg.value()
    }

    fn avgcq(&self) -> f64 {
        self.avg.value() / self.nactive.max(1) as f64
    }
}

impl QueueDisc for Fred {
    fn kind(&self) -> &'static str {
        "fred"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (flow, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow.0 as usize, p.size)
        };
        if flow >= self.flows.len() {
            self.flows.resize(flow + 1, FlowState::default());
        }
        self.avg.update(self.q.len(), ctx.now);
        let avg = self.avg.value();
        let c = &self.cfg;
        let maxq = if avg >= c.max_th { 2.0 } else { c.min_th };
        let avgcq = self.avgcq();
        let fs = self.flows[flow];
        let qlen = fs.qlen as f64;
        // Identify and manage non-adaptive flows.
        if qlen >= maxq || (avg >= c.max_th && qlen > 2.0 * avgcq) || (qlen >= avgcq && fs.strikes > 1) {
            self.flows[flow].strikes += 1;
            return Verdict::Dropped(DropReason::Forced);
        }
        if avg >= c.min_th && avg < c.max_th {
            // Random drop mode, only for flows above their share.
            self.count += 1;
            if qlen >= c.minq.max(avgcq) {
                if let Some(v) = red_random_drop(avg, [c.min_th, c.max_th, c.max_p], &mut self.count, c.ecn, pkt, ctx) {
                    return v;
                }
            }
        } else if avg < c.min_th {
            self.count = -1;
        } else {
            self.count = 0;
            return Verdict::Dropped(DropReason::Forced);
        }
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if self.flows[flow].qlen == 0 {
            self.nactive += 1;
        }
        self.flows[flow].qlen += 1;
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_front(ctx)?;
        let f = ctx.arena.get(p).flow.0 as usize;
        if let Some(fs) = self.flows.get_mut(f) {
            fs.qlen = fs.qlen.saturating_sub(1);
            if fs.qlen == 0 {
                // The flow is no longer active: its state is deleted.
                *fs = FlowState::default();
                self.nactive = self.nactive.saturating_sub(1);
            }
        }
        self.avg.update(self.q.len(), ctx.now);
        if self.q.is_empty() {
            self.avg.set_idle(ctx.now);
        }
        Some(p)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["avg", "active_flows"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.avg.value());
        out.push(self.nactive as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testutil::{packets, pkt, Env};

    /// With avg below min_th (no random drops), a flow may hold at most
    /// maxq = min_th packets: the next one is env.dropped with a strike; after two
    /// strikes the flow may not exceed avgcq; strikes vanish with its backlog.
    #[test]
    fn strikes_and_per_flow_limits() {
        let mut env = Env::new(6, "fred");
        let cfg = FredConfig {
            weight: 1e-9, // keep avg ~ 0 so only the per-flow rules act
            ..FredConfig::default()
        };
        let mut q = Fred::new(packets(100), cfg, 10_000_000);
        let mut ctx = env.ctx(10_000_000);
        for _ in 0..5 {
            let p = pkt(ctx.arena, 1, 500);
            assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        }
        // qlen = 5 = maxq (min_th): env.dropped, strike 1.
        let p = pkt(ctx.arena, 1, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Forced));
        assert_eq!(q.flow(1).strikes, 1);
        let p = pkt(ctx.arena, 1, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Forced));
        assert_eq!(q.flow(1).strikes, 2);
        // Flow 2 (no strikes) is still admitted.
        let p = pkt(ctx.arena, 2, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        // Drain one packet of flow 1: qlen 4 < maxq, but with two strikes and
        // qlen >= avgcq (~0) the flow is still refused.
        q.dequeue(&mut ctx);
        let p = pkt(ctx.arena, 1, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Forced));
        assert_eq!(q.flow(1).strikes, 3);
        // Once flow 1's backlog is gone its state (strikes) is deleted.
        while q.len_pkts() > 0 {
            q.dequeue(&mut ctx);
        }
        assert_eq!(q.flow(1).strikes, 0);
        let p = pkt(ctx.arena, 1, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
    }

    /// Above max_th, maxq drops to 2 and arrivals are env.dropped.
    #[test]
    fn drop_tail_mode_above_max_th() {
        let mut env = Env::new(6, "fred");
        let cfg = FredConfig {
            weight: 1.0, // avg = instantaneous length
            ..FredConfig::default()
        };
        let mut q = Fred::new(packets(100), cfg, 10_000_000);
        let mut ctx = env.ctx(10_000_000);
        // Fifteen flows with one packet each: each arrival sees avg < max_th
        // and a flow below max(minq, avgcq), so all are admitted.
        for f in 0..15 {
            let p = pkt(ctx.arena, f, 500);
            assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        }
        // The next arrival sees avg = 15 = max_th: drop-tail mode.
        let p = pkt(ctx.arena, 99, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Forced));
        assert_eq!(q.avg(), 15.0);
    }
}
