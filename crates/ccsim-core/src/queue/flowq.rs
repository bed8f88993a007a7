//! Pieces shared by the fair-queueing disciplines: deterministic flow
//! hashing, the buffer limit test, and the RED-style queue
//! average (with the idle-time correction) and parameter checks that CHOKe
//! and FRED build on.
//!
//! Hashing never uses Rust's `RandomState`: a bucket is a SplitMix64 mix of
//! the flow id and a salt that the discipline draws from its own `ctx.rng`,
//! so runs are bit-identical and perturbation is reproducible.

use super::droptail::Limit;
use super::{DropReason, QueueCtx, Verdict};
use crate::packet::PacketRef;
use crate::params::ParamError;
use crate::rng::mix64;
use crate::rng::uniform01;
use crate::time::{tx_time, SimTime};

/// Bucket of `flow` among `n` (> 0) buckets under the hash salt `salt`.
///
/// ccsim hashes the flow id, the simulator's equivalent of the 5-tuple that
/// Linux hashes (ns-2's SFQ and DRR hash the source/destination addresses).
#[inline]
pub fn bucket(flow: u32, salt: u64, n: usize) -> usize {
    (mix64(flow as u64 ^ mix64(salt)) % n as u64) as usize
}

/// An explicit flow -> queue map (the `flow_queues` key of `fq_codel` and
/// of `cake` under `variant = "ns3"`): a packet of flow i joins queue
/// `map[i]`; flows past the list are hashed. For a mapping known from
/// elsewhere, as a packet filter classifies flows (ns-3's
/// `QueueDisc::Classify`, Linux `tc filter`): ns-3's `FqCoDelQueueDisc`
/// and `FqCobaltQueueDisc` hash the 5-tuple with `Perturbation` 0
/// (`Ipv4QueueDiscItem::Hash`), so the same flows share a queue in every
/// run, and the validation twins pass that mapping.
#[derive(Clone, Debug, Default)]
pub struct FlowQueues(Vec<u32>);

impl FlowQueues {
    /// Check `map` against `queues` queues; the error names `flow_queues`.
    pub fn new(map: Vec<u32>, queues: usize) -> Result<Self, ParamError> {
        if let Some((i, q)) = map.iter().enumerate().find(|(_, &q)| q as usize >= queues) {
            return Err(ParamError::at(
                "flow_queues",
                format!("flow {i}: queue {q} does not exist (expected 0 to {})", queues - 1),
            ));
        }
        Ok(FlowQueues(map))
    }

    /// Whether no flow is mapped.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The queue of `flow` among `n`: mapped, else [`bucket`] under `salt`.
    #[inline]
    pub fn queue_of(&self, flow: u32, salt: u64, n: usize) -> usize {
        match self.0.get(flow as usize) {
            Some(&q) => q as usize,
            None => bucket(flow, salt, n),
        }
    }
}

/// True when `pkts` packets / `bytes` bytes exceed the limit.
#[inline]
pub fn over_limit(limit: &Limit, pkts: usize, bytes: u64) -> bool {
    limit.packets.is_some_and(|l| pkts as u64 > l) || limit.bytes.is_some_and(|l| bytes > l)
}

/// RED's average queue length (Floyd and Jacobson 1993, section 4): an EWMA
/// with weight `w` taken at arrivals, and after an idle period the average
/// decays as if `m = idle_time / s` small packets had been sent, where `s` is
/// the transmission time of a packet of `mean_pkt_size` bytes; ns-2's
/// `red.cc` computes the same `(1 - w)^m` factor from `ptc_`.
#[derive(Clone, Debug)]
pub struct QueueAverage {
    avg: f64,
    weight: f64,
    idle_since: Option<SimTime>,
}

impl QueueAverage {
    /// A zero average with EWMA weight `weight`; the queue starts idle.
    pub fn new(weight: f64) -> Self {
        QueueAverage {
            avg: 0.0,
            weight,
            idle_since: Some(SimTime::ZERO),
        }
    }

    /// Fold in the instantaneous length `q` at `now`. `pkt_time_ns` is the
    /// transmission time of a typical packet (for the idle correction).
    pub fn update(&mut self, q: f64, now: SimTime, pkt_time_ns: f64) {
        if let Some(t) = self.idle_since.take() {
            let m = ((now - t).0 as f64 / pkt_time_ns.max(1.0)).floor();
            self.avg *= (1.0 - self.weight).powf(m);
        }
        self.avg = (1.0 - self.weight) * self.avg + self.weight * q;
    }

    /// The queue became empty at `now` (the link goes idle).
    pub fn set_idle(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    /// Whether the queue is currently marked idle.
    pub fn is_idle(&self) -> bool {
        self.idle_since.is_some()
    }

    /// The current average.
    pub fn value(&self) -> f64 {
        self.avg
    }
}

/// A [`QueueAverage`] on one link: the idle correction's packet time is the
/// transmission time of a `mean_pkt_size` packet at the link's rate.
#[derive(Clone, Debug)]
pub struct LinkAverage {
    avg: QueueAverage,
    pkt_time_ns: f64,
}

impl LinkAverage {
    /// A zero average with EWMA weight `weight` on a link of `link_rate_bps`.
    pub fn new(weight: f64, mean_pkt_size: u32, link_rate_bps: u64) -> Self {
        LinkAverage {
            avg: QueueAverage::new(weight),
            pkt_time_ns: tx_time(mean_pkt_size, link_rate_bps.max(1)).0 as f64,
        }
    }

    /// Fold in the instantaneous length `q` (packets) at `now`.
    pub fn update(&mut self, q: usize, now: SimTime) {
        self.avg.update(q as f64, now, self.pkt_time_ns);
    }

    /// The queue became empty at `now` (the link goes idle).
    pub fn set_idle(&mut self, now: SimTime) {
        self.avg.set_idle(now);
    }

    /// The current average.
    pub fn value(&self) -> f64 {
        self.avg.value()
    }
}

/// Checks of the RED parameters that CHOKe and FRED share: the curve
/// ([`check_red_curve`]) and a `mean_pkt_size` of at least one byte (the
/// idle correction's packet, [`LinkAverage`]).
pub fn check_red_params(
    min_th: f64,
    max_th: f64,
    max_p: f64,
    weight: f64,
    mean_pkt_size: u32,
) -> Result<(), ParamError> {
    check_red_curve(min_th, max_th, max_p, weight)?;
    if mean_pkt_size == 0 {
        return Err(ParamError::at("mean_pkt_size", "must be at least 1 byte"));
    }
    Ok(())
}

/// Checks of the RED curve: `0 <= min_th < max_th`, `max_p` and the EWMA
/// `weight` in (0, 1].
pub fn check_red_curve(min_th: f64, max_th: f64, max_p: f64, weight: f64) -> Result<(), ParamError> {
    if !(min_th >= 0.0 && max_th > min_th) {
        return Err(ParamError::at(
            "max_th",
            "must be greater than min_th (and min_th >= 0)",
        ));
    }
    if !(max_p > 0.0 && max_p <= 1.0) {
        return Err(ParamError::at("max_p", "must be in (0, 1]"));
    }
    if !(weight > 0.0 && weight <= 1.0) {
        return Err(ParamError::at("weight", "must be in (0, 1]"));
    }
    Ok(())
}

/// RED's random-drop probability with the count-based uniformisation
/// (Floyd and Jacobson 1993, section 7): `pb = max_p (avg - min_th) /
/// (max_th - min_th)`, `pa = pb / (1 - count pb)`, capped to [0, 1].
pub fn red_pa(avg: f64, min_th: f64, max_th: f64, max_p: f64, count: i64) -> f64 {
    let pb = max_p * (avg - min_th) / (max_th - min_th);
    let denom = 1.0 - count.max(0) as f64 * pb;
    if denom <= 0.0 {
        1.0
    } else {
        (pb / denom).clamp(0.0, 1.0)
    }
}

/// RED's random early drop between the thresholds, as CHOKe and FRED take
/// it (Floyd and Jacobson 1993, section 7): with probability [`red_pa`] of
/// `avg` on the curve `[min_th, max_th, max_p]` and `count`, `count`
/// restarts and the arrival `pkt` is marked (with `ecn`, if it is
/// ECN-capable) or dropped: `Some` verdict when dropped. One uniform draw
/// from the queue's stream per call.
pub fn red_random_drop(
    avg: f64,
    [min_th, max_th, max_p]: [f64; 3],
    count: &mut i64,
    ecn: bool,
    pkt: PacketRef,
    ctx: &mut QueueCtx,
) -> Option<Verdict> {
    let pa = red_pa(avg, min_th, max_th, max_p, *count);
    if uniform01(ctx.rng) < pa {
        *count = 0;
        if !(ecn && ctx.mark(pkt)) {
            return Some(Verdict::Dropped(DropReason::Early));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_is_deterministic_and_salt_dependent() {
        let a: Vec<usize> = (0..64).map(|f| bucket(f, 7, 16)).collect();
        let b: Vec<usize> = (0..64).map(|f| bucket(f, 7, 16)).collect();
        let c: Vec<usize> = (0..64).map(|f| bucket(f, 8, 16)).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&x| x < 16));
    }

    #[test]
    fn idle_correction_decays_average() {
        // After an idle time of 100 packet times with w = 0.1 the average
        // must have decayed by 0.9^100 before the new sample is folded in.
        let mut a = QueueAverage::new(0.1);
        a.update(10.0, SimTime::ZERO, 1000.0);
        assert!((a.value() - 1.0).abs() < 1e-12);
        a.set_idle(SimTime(0));
        a.update(0.0, SimTime(100_000), 1000.0);
        let want = 0.9f64.powi(100) * 0.9;
        assert!((a.value() - want).abs() < 1e-15, "{}", a.value());
    }

    #[test]
    fn red_pa_uniformisation() {
        // pb = 0.1 * (10 - 5) / 10 = 0.05; count 10 -> 0.05 / 0.5 = 0.1
        assert!((red_pa(10.0, 5.0, 15.0, 0.1, 0) - 0.05).abs() < 1e-12);
        assert!((red_pa(10.0, 5.0, 15.0, 0.1, 10) - 0.1).abs() < 1e-12);
        assert_eq!(red_pa(10.0, 5.0, 15.0, 0.1, 20), 1.0);
    }
}
