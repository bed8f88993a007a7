//! CHOKe, "CHOose and Keep for responsive flows, CHOose and Kill for
//! unresponsive flows" (Pan, Prabhakar, Psounis, INFOCOM 2000, section 2,
//! Figure 2).
//!
//! On each arrival RED's average queue is updated. Below `min_th` the packet
//! is admitted. Otherwise `candidates` packets are drawn at random from the
//! buffer; every drawn packet of the arrival's flow is dropped together with
//! the arrival (the flow "matched"). If none matched, RED decides: above
//! `max_th` the arrival is dropped, between the thresholds it is dropped with
//! RED's probability `pa = pb / (1 - count pb)`.
//!
//! Readings: the paper draws one candidate in its main scheme and several
//! (m) in its extension for many unresponsive flows; `candidates` selects m
//! (1 by default) and the arrival is dropped once if any candidate matched.
//! Matched drops (arrival and victims) are [`DropReason::Early`], drops above
//! `max_th` [`DropReason::Forced`], overflow [`DropReason::Overflow`]. ns-2
//! never shipped CHOKe; RED's parameters default to ns-2's RED defaults
//! (`thresh_` 5, `maxthresh_` 15, `q_weight_` 0.002, max_p = 1/`linterm_` =
//! 0.1, `mean_pktsize_` 500), with the 1993 paper's `pa` formula.

use super::droptail::Fifo;
use super::droptail::Limit;
use super::flowq::{check_red_params, red_random_drop, LinkAverage};
use super::{DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PacketRef;
use crate::params::{self, ParamError, Params};
use rand::Rng;
use serde::Deserialize;

/// Scenario parameters of `choke`.
#[derive(Deserialize, serde::Serialize, Debug, Clone)]
#[serde(deny_unknown_fields, default)]
pub struct ChokeConfig {
    /// min_th in packets (ns-2 RED: 5).
    pub min_th: f64,
    /// max_th in packets (ns-2 RED: 15).
    pub max_th: f64,
    /// max_p (ns-2 RED: 0.1).
    pub max_p: f64,
    /// EWMA weight (ns-2 RED: 0.002).
    pub weight: f64,
    /// Drop candidates drawn per arrival (paper's basic scheme: 1).
    pub candidates: u32,
    /// Typical packet size for the idle correction (ns-2 RED: 500 bytes).
    pub mean_pkt_size: u32,
    /// Mark ECN-capable packets instead of RED's random drops (off).
    pub ecn: bool,
}

impl Default for ChokeConfig {
    fn default() -> Self {
        ChokeConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.002,
            candidates: 1,
            mean_pkt_size: 500,
            ecn: false,
        }
    }
}

/// CHOKe.
pub struct Choke {
    limit: Limit,
    cfg: ChokeConfig,
    avg: LinkAverage,
    count: i64,
    q: Fifo,
}

impl Choke {
    /// Build from scenario parameters.
    pub fn from_params(limit: Limit, params: &Params, link_rate_bps: u64) -> Result<Self, ParamError> {
        let cfg: ChokeConfig = params::parse(params)?;
        check_red_params(cfg.min_th, cfg.max_th, cfg.max_p, cfg.weight, cfg.mean_pkt_size)?;
        if cfg.candidates == 0 {
            return Err(ParamError::at("candidates", "must be at least 1"));
        }
        Ok(Choke::new(limit, cfg, link_rate_bps))
    }

    /// A CHOKe queue on a link of `link_rate_bps`.
    pub fn new(limit: Limit, cfg: ChokeConfig, link_rate_bps: u64) -> Self {
        Choke {
            limit,
            avg: LinkAverage::new(cfg.weight, cfg.mean_pkt_size, link_rate_bps),
            cfg,
            count: -1,
            q: Fifo::default(),
        }
    }

    /// The average queue.
    pub fn avg(&self) -> f64 {
        self.avg.value()
    }
}

impl QueueDisc for Choke {
    fn kind(&self) -> &'static str {
        "choke"
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        let (flow, size) = {
            let p = ctx.arena.get(pkt);
            (p.flow, p.size)
        };
        self.avg.update(self.q.len(), ctx.now);
        let avg = self.avg.value();
        let c = &self.cfg;
        if avg > c.min_th {
            // Draw the drop candidates; remove those of the arrival's flow.
            let mut matched = false;
            for _ in 0..c.candidates {
                if self.q.is_empty() {
                    break;
                }
                let i = ctx.rng.random_range(0..self.q.len());
                let Some(cand) = self.q.get(i) else { break };
                if ctx.arena.get(cand).flow == flow {
                    if let Some(v) = self.q.remove(i, ctx) {
                        ctx.drop_queued(v, DropReason::Early);
                    }
                    matched = true;
                }
            }
            if matched {
                self.count = 0;
                return Verdict::Dropped(DropReason::Early);
            }
            if avg > c.max_th {
                self.count = 0;
                return Verdict::Dropped(DropReason::Forced);
            }
            self.count += 1;
            if let Some(v) = red_random_drop(avg, [c.min_th, c.max_th, c.max_p], &mut self.count, c.ecn, pkt, ctx) {
                return v;
            }
        } else {
            self.count = -1;
        }
        if !self.limit.fits(self.q.len(), self.q.bytes(), size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.q.push(pkt, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        let p = self.q.pop_front(ctx)?;
        if self.q.is_empty() {
            self.avg.set_idle(ctx.now);
        }
        Some(p)
    }

    super::droptail::fifo_lens!(q);

    fn probe_names(&self) -> &'static [&'static str] {
        &["avg"]
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        out.push(self.avg.value());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testutil::{packets, pkt, Env};

    /// A buffer holding only one flow's packets: any arrival of that flow
    /// above min_th matches its candidate and both are env.dropped; an arrival of
    /// another flow is judged by RED alone.
    #[test]
    fn matching_candidate_drops_both() {
        let mut env = Env::new(8, "choke");
        let cfg = ChokeConfig {
            weight: 1.0,
            max_th: 50.0,
            max_p: 1e-9,
            ..ChokeConfig::default()
        };
        let mut q = Choke::new(packets(100), cfg, 10_000_000);
        let mut ctx = env.ctx(10_000_000);
        // avg (= length with weight 1) <= min_th for the first 6 arrivals.
        for _ in 0..6 {
            let p = pkt(ctx.arena, 1, 500);
            assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        }
        let p = pkt(ctx.arena, 1, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Dropped(DropReason::Early));
        assert_eq!(q.len_pkts(), 5);
        // Another flow: no match possible, RED with max_p ~ 0 admits it.
        let p = pkt(ctx.arena, 2, 500);
        assert_eq!(q.enqueue(p, &mut ctx), Verdict::Enqueued);
        assert_eq!(q.len_pkts(), 6);
        // Exactly one queued packet (the matched candidate) was env.dropped.
        assert_eq!(env.dropped.len(), 1);
    }
}
