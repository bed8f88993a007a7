//! RTT estimation and the retransmission timeout (RFC 6298).
//!
//! - First sample R: SRTT = R, RTTVAR = R/2 (section 2.2).
//! - Later samples R': RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'|, then
//!   SRTT = 7/8 SRTT + 1/8 R' (section 2.3).
//! - RTO = SRTT + max(G, 4 RTTVAR) (section 2.3), at most max_rto; before
//!   any sample RTO = initial_rto (1 s, section 2.1).
//!
//! The minimum RTO: ccsim takes `min_rto` as G, the floor of the variance
//! term, as Linux does (`tcp_rto_min` bounds `rttvar`, so RTO >= SRTT +
//! 200 ms), rather than as a floor of the whole RTO (section 2.4's reading,
//! ns-2's `minrto_`). The sender samples the RTT on every ACK, so on a
//! stable path RTTVAR decays to almost nothing; with the floor on the whole
//! RTO, any path with SRTT above min_rto would then time out before a fast
//! retransmission could be acknowledged (it leaves a few packet times after
//! the last ACK of new data). On paths with SRTT + 4 RTTVAR below min_rto
//! the two readings differ by at most SRTT.
//! - Each expiry doubles the RTO (section 5.5, capped at max_rto) and the
//!   backed-off value is kept until a valid sample arrives (Karn's
//!   algorithm; the sender never samples retransmitted segments, section 3).

use crate::time::SimTime;

/// RFC 6298 state.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    min_rtt: Option<SimTime>,
    latest: Option<SimTime>,
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    initial_rto: SimTime,
}

impl RttEstimator {
    /// An estimator with the given RTO bounds.
    pub fn new(min_rto: SimTime, max_rto: SimTime, initial_rto: SimTime) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            min_rtt: None,
            latest: None,
            backoff: 0,
            min_rto,
            max_rto,
            initial_rto,
        }
    }

    /// Take an RTT sample (from a segment transmitted once).
    pub fn on_sample(&mut self, r: SimTime) {
        let rn = r.0 as f64;
        match self.srtt {
            None => {
                self.srtt = Some(rn);
                self.rttvar = rn / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - rn).abs();
                self.srtt = Some(0.875 * s + 0.125 * rn);
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.backoff = 0;
    }

    /// The timer expired: double the RTO.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// Consecutive backoffs since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The RTO without backoff.
    pub fn base_rto(&self) -> SimTime {
        match self.srtt {
            None => self.initial_rto.min(self.max_rto),
            Some(s) => {
                let var = (4.0 * self.rttvar).max(self.min_rto.0 as f64);
                SimTime::from_nanos((s + var).round() as u64).min(self.max_rto)
            }
        }
    }

    /// The current RTO (with exponential backoff).
    pub fn rto(&self) -> SimTime {
        let base = self.base_rto();
        SimTime(base.0.saturating_mul(1u64 << self.backoff)).min(self.max_rto.max(base))
    }

    /// Smoothed RTT.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt.map(|s| SimTime::from_nanos(s.round() as u64))
    }

    /// RTT variation.
    pub fn rttvar(&self) -> SimTime {
        SimTime::from_nanos(self.rttvar.round() as u64)
    }

    /// Smallest sample so far.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    /// Latest sample.
    pub fn latest(&self) -> Option<SimTime> {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(SimTime::from_millis(200), SimTime::from_secs(60), SimTime::from_secs(1))
    }

    #[test]
    fn rfc6298_updates() {
        let mut e = est();
        assert_eq!(e.rto(), SimTime::from_secs(1));
        e.on_sample(SimTime::from_millis(100));
        assert_eq!(e.srtt(), Some(SimTime::from_millis(100)));
        assert_eq!(e.rttvar(), SimTime::from_millis(50));
        // 100 + max(200, 4 * 50) = 300 ms
        assert_eq!(e.rto(), SimTime::from_millis(300));
        e.on_sample(SimTime::from_millis(200));
        // rttvar = 0.75*50 + 0.25*100 = 62.5; srtt = 87.5 + 25 = 112.5
        assert_eq!(e.rttvar(), SimTime::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_micros(112_500)));
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
        // many equal samples: rttvar decays, min_rto bounds the variance term
        for _ in 0..200 {
            e.on_sample(SimTime::from_millis(400));
        }
        assert_eq!(e.rto(), SimTime::from_millis(600));
    }

    #[test]
    fn backoff_until_valid_sample() {
        let mut e = est();
        e.on_sample(SimTime::from_millis(100));
        e.back_off();
        e.back_off();
        // (100 + 200) * 4
        assert_eq!(e.rto(), SimTime::from_millis(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimTime::from_secs(60), "capped at max_rto");
        e.on_sample(SimTime::from_millis(100));
        assert_eq!(e.backoff(), 0);
    }
}
