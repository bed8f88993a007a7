//! Step ECN marking at a queue threshold, the switch side of DCTCP
//! (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, section 3.1;
//! RFC 8257 section 3.1): an ECN-capable arrival is marked Congestion
//! Experienced when the instantaneous queue it joins is above the marking
//! threshold K; nothing is averaged and nothing is dropped for it.
//!
//! Reading of "above K": the arrival finds at least `K` packets (or `K`
//! bytes) waiting, so that with it the queue holds more than K. This is
//! also what ns-3's step-marking configuration does (`RedQueueDisc` with
//! `MinTh = MaxTh = K`, `QW = 1`: the average is the packets queued before
//! the arrival, and `qAvg >= MaxTh` marks). A packet that is not
//! ECN-capable is enqueued unmarked; the buffer limit alone drops.

use super::QueueCtx;
use crate::packet::PacketRef;
use crate::params::ParamError;

/// The marking threshold; none set means no marking.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StepMark {
    /// K in packets waiting.
    pub packets: Option<u64>,
    /// K in bytes waiting.
    pub bytes: Option<u64>,
}

impl StepMark {
    /// From the queue table's `mark_threshold` and `mark_threshold_bytes`.
    pub fn new(packets: Option<u64>, bytes: Option<u64>) -> Result<Self, ParamError> {
        if packets == Some(0) {
            return Err(ParamError::at("mark_threshold", "expected at least 1 packet"));
        }
        if bytes == Some(0) {
            return Err(ParamError::at("mark_threshold_bytes", "expected at least 1 byte"));
        }
        Ok(StepMark { packets, bytes })
    }

    /// Whether any threshold is set.
    pub fn is_set(&self) -> bool {
        self.packets.is_some() || self.bytes.is_some()
    }

    /// Whether an arrival that finds `len_pkts` packets and `len_bytes`
    /// bytes waiting is above the threshold.
    #[inline]
    pub fn over(&self, len_pkts: usize, len_bytes: u64) -> bool {
        self.packets.is_some_and(|k| len_pkts as u64 >= k) || self.bytes.is_some_and(|k| len_bytes >= k)
    }

    /// Mark `pkt` if the queue it joins is above the threshold (and the
    /// packet is ECN-capable).
    #[inline]
    pub fn apply(&self, pkt: PacketRef, len_pkts: usize, len_bytes: u64, ctx: &mut QueueCtx) {
        if self.over(len_pkts, len_bytes) {
            ctx.mark(pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_from_k_waiting() {
        let s = StepMark::new(Some(3), None).unwrap();
        assert!(!s.over(2, 10_000));
        assert!(s.over(3, 0));
        let b = StepMark::new(None, Some(3000)).unwrap();
        assert!(!b.over(100, 2999) && b.over(0, 3000));
        assert!(!StepMark::default().is_set());
        assert_eq!(StepMark::new(Some(0), None).unwrap_err().path, "mark_threshold");
    }
}
