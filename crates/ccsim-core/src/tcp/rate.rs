//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02,
//! as Linux `net/ipv4/tcp_rate.c`), in segments: each transmission records
//! how much had been delivered when it left; an ACK that delivers it yields
//! the rate delivered / max(send elapsed, ack elapsed). BBR's bandwidth
//! model is built from these samples; other controllers may ignore them.
//!
//! [`RateEstimator::ns3`] is ns-3.44's `TcpRateLinux` (`tcp-rate-ops.cc`,
//! flow-group key `rate_sample = "ns3"`, the default under `compat =
//! "ns3"`), which keeps its sample across ACKs and so differs from Linux
//! in two ways that decide BBR's bandwidth estimate:
//! - `SkbDelivered` takes a new sample, and with it the ACK phase (`now -
//!   skbInfo.m_deliveredTime`), only from a segment sent after more had
//!   been delivered than the sample's prior (`skbInfo.m_delivered >
//!   m_priorDelivered`). When every segment an ACK delivers left before any
//!   delivery newer than the prior, the ACK phase stays the one computed at
//!   the previous ACK while the data delivered counts this ACK's too: with
//!   delayed ACKs and pacing this overestimates the rate by one ACK's data
//!   per interval (about 1.7% on the twins' 10 Mbit/s link: 9.76 Mbit/s of
//!   payload measured through a link that carries 9.60, checked by tracing
//!   `TcpRateSampleUpdated` in the wheel).
//! - An invalid sample (no prior time, or an interval below the minimum
//!   RTT, which also clears the prior time) has a zero interval
//!   (`GenerateSample`), and ns-3.44's `TcpBbr::UpdateBottleneckBandwidth`
//!   ignores it (`rs.m_interval.IsZero ()`: checked against the wheel with
//!   a program that feeds `TcpBbr::CongControl` such a sample with a high
//!   stale `m_deliveryRate`; the pacing rate does not move); a valid
//!   app-limited sample below the last one recorded leaves
//!   `m_deliveryRate` as it was, and BBR reads that stale rate with the
//!   new sample's prior.

use crate::cc::RateSample;
use crate::time::SimTime;

/// Which delivery-rate estimator a sender runs (flow-group key `rate_sample`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RateSampler {
    /// Linux's `tcp_rate.c` ([`RateEstimator::new`]).
    Linux,
    /// ns-3.44's `TcpRateLinux` ([`RateEstimator::ns3`]).
    Ns3,
}

/// Connection state recorded in a segment when it is (re)transmitted.
#[derive(Copy, Clone, Debug, Default)]
pub struct TxInfo {
    /// Segments delivered when it was sent.
    pub delivered: u64,
    /// Time of the last delivery before it was sent.
    pub delivered_time: SimTime,
    /// Send time of the first segment of the flight it belongs to.
    pub first_sent_time: SimTime,
    /// Sent while application-limited.
    pub app_limited: bool,
    /// Its send time.
    pub sent_time: SimTime,
    /// Segments in flight just after it was sent, itself included
    /// (draft-ietf-ccwg-bbr-06 section 4.1.2.2, `P.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments deemed lost before it was sent (`P.lost`).
    pub lost: u64,
}

/// The estimator.
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Non-zero: the delivered count at which the app-limited phase ends.
    app_limited: u64,
    /// Segments deemed lost so far (`C.lost`).
    lost: u64,
    sample: Option<TxInfo>,
    /// ns-3's persistent sample, with [`RateEstimator::ns3`].
    ns3: Option<Ns3Sample>,
}

/// ns-3's `TcpRateLinux::m_rateSample` and the last recorded rate, which
/// persist from one ACK to the next.
#[derive(Copy, Clone, Debug, Default)]
struct Ns3Sample {
    /// `m_priorDelivered` (0: none yet).
    prior_delivered: u64,
    /// `m_priorTime` (zero: the sample is invalid).
    prior_time: SimTime,
    ack_elapsed: SimTime,
    send_elapsed: SimTime,
    app_limited: bool,
    /// The sampled segment's `P.tx_in_flight` and `P.lost` (ns-3 keeps
    /// neither; BBR v3 reads them, so they follow the sampled segment).
    tx_in_flight: u64,
    lost_at_send: u64,
    /// `m_deliveryRate` as (segments, interval), once a sample was valid.
    rate: Option<(u64, SimTime)>,
}

impl RateEstimator {
    /// A fresh estimator.
    pub fn new() -> Self {
        Self::default()
    }

    /// ns-3.44's estimator (`TcpRateLinux`; module documentation).
    pub fn ns3() -> Self {
        RateEstimator {
            ns3: Some(Ns3Sample::default()),
            ..Self::default()
        }
    }

    /// Segments delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Segments deemed lost so far (`C.lost`).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Segments deemed lost: count them (`C.lost`).
    pub fn on_lost(&mut self, segments: u64) {
        self.lost += segments;
    }

    /// A segment is sent at `now` with `in_flight` segments already in the network.
    pub fn on_send(&mut self, now: SimTime, in_flight: u64) -> TxInfo {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxInfo {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            sent_time: now,
            tx_in_flight: in_flight + 1,
            lost: self.lost,
        }
    }

    /// A segment was delivered, counted only (for a controller that reads
    /// no rate sample: [`crate::cc::CongestionControl::uses_rate_samples`]).
    #[inline]
    pub fn count_delivered(&mut self) {
        self.delivered += 1;
    }

    /// Start processing an ACK.
    pub fn begin_ack(&mut self) {
        self.sample = None;
    }

    /// A segment sent with `tx` was delivered (cumulatively or selectively
    /// acknowledged for the first time) at `now`.
    pub fn on_delivered(&mut self, now: SimTime, tx: &TxInfo) {
        self.delivered += 1;
        self.delivered_time = now;
        if let Some(s) = &mut self.ns3 {
            // `TcpRateLinux::SkbDelivered`
            if s.prior_delivered == 0 || tx.delivered > s.prior_delivered {
                s.ack_elapsed = now - tx.delivered_time;
                s.prior_delivered = tx.delivered;
                s.prior_time = tx.delivered_time;
                s.app_limited = tx.app_limited;
                s.send_elapsed = tx.sent_time - tx.first_sent_time;
                s.tx_in_flight = tx.tx_in_flight;
                s.lost_at_send = tx.lost;
                self.first_sent_time = tx.sent_time;
            }
            return;
        }
        // Sample the most recently sent of the segments this ACK delivers.
        if self
            .sample
            .is_none_or(|s| tx.delivered > s.delivered || (tx.delivered == s.delivered && tx.sent_time > s.sent_time))
        {
            self.sample = Some(*tx);
            self.first_sent_time = tx.sent_time;
        }
    }

    /// Finish the ACK: the rate sample, if it delivered anything. Its
    /// interval is zero (no rate) unless it is at least `min_rtt` (shorter
    /// intervals are ACK compression artefacts).
    pub fn end_ack(&mut self, min_rtt: Option<SimTime>) -> Option<RateSample> {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if let Some(s) = &mut self.ns3 {
            let lost = self.lost;
            return Self::ns3_sample(s, self.delivered, min_rtt).map(|r| RateSample {
                tx_in_flight: s.tx_in_flight,
                lost: lost - s.lost_at_send,
                ..r
            });
        }
        let tx = self.sample.take()?;
        let send_elapsed = tx.sent_time - tx.first_sent_time;
        let ack_elapsed = self.delivered_time - tx.delivered_time;
        let mut interval = send_elapsed.max(ack_elapsed);
        if min_rtt.is_some_and(|m| interval < m) {
            interval = SimTime::ZERO;
        }
        Some(RateSample {
            delivered: self.delivered - tx.delivered,
            interval,
            prior_delivered: tx.delivered,
            app_limited: tx.app_limited,
            tx_in_flight: tx.tx_in_flight,
            lost: self.lost - tx.lost,
        })
    }

    /// `TcpRateLinux::GenerateSample` (ns-3 has no minimum RTT before the
    /// first sample: `Time::Max ()`, so every sample is invalid until then),
    /// and the rate `TcpBbr` then reads: the last recorded one, or none
    /// (a zero interval) when the sample is invalid.
    fn ns3_sample(s: &mut Ns3Sample, delivered: u64, min_rtt: Option<SimTime>) -> Option<RateSample> {
        let mut valid = false;
        if s.prior_time > SimTime::ZERO {
            let interval = s.send_elapsed.max(s.ack_elapsed);
            let d = delivered - s.prior_delivered;
            valid = min_rtt.is_some_and(|m| interval >= m);
            if !valid {
                s.prior_time = SimTime::ZERO;
            } else if !s.app_limited
                || s.rate
                    .is_none_or(|(rd, ri)| d as u128 * ri.nanos() as u128 >= rd as u128 * interval.nanos() as u128)
            {
                s.rate = Some((d, interval));
            }
        }
        if !valid {
            // `m_interval = Seconds (0)` (and `m_delivered = -1` without a
            // prior time): no rate.
            return Some(RateSample {
                delivered: 0,
                interval: SimTime::ZERO,
                prior_delivered: s.prior_delivered,
                app_limited: s.app_limited,
                tx_in_flight: 0,
                lost: 0,
            });
        }
        s.rate.map(|(d, interval)| RateSample {
            delivered: d,
            interval,
            prior_delivered: s.prior_delivered,
            app_limited: s.app_limited,
            tx_in_flight: 0,
            lost: 0,
        })
    }

    /// The application has nothing to send while `in_flight` segments are out.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_of_a_flight() {
        let mut r = RateEstimator::new();
        // 10 segments sent 1 ms apart from t = 0, each acked 100 ms after it left.
        let txs: Vec<TxInfo> = (0..10).map(|i| r.on_send(SimTime::from_millis(i), i)).collect();
        let mut last = None;
        for (i, tx) in txs.iter().enumerate() {
            r.begin_ack();
            r.on_delivered(SimTime::from_millis(100 + i as u64), tx);
            last = r.end_ack(Some(SimTime::from_millis(50)));
        }
        // The last ACK: 10 delivered since the flight began (delivered 0 at t = 0);
        // send elapsed 9 ms, ack elapsed from the flight's start 109 ms.
        let s = last.unwrap();
        assert_eq!(s.delivered, 10);
        assert_eq!(s.interval, SimTime::from_millis(109));
        assert!(!s.app_limited);
    }

    /// draft-ietf-ccwg-bbr-06 section 4.1.2: P.tx_in_flight includes P;
    /// RS.lost counts the losses between P's send and its ACK; an interval
    /// below min_rtt gives a sample without a rate.
    #[test]
    fn tx_in_flight_lost_and_rateless_samples() {
        let mut r = RateEstimator::new();
        let a = r.on_send(SimTime::ZERO, 0);
        r.on_lost(2);
        let b = r.on_send(SimTime::from_millis(1), 4);
        assert_eq!((a.tx_in_flight, a.lost), (1, 0));
        assert_eq!((b.tx_in_flight, b.lost), (5, 2));
        r.on_lost(3);
        r.begin_ack();
        r.on_delivered(SimTime::from_millis(100), &b);
        let s = r.end_ack(Some(SimTime::from_millis(50))).unwrap();
        assert_eq!((s.tx_in_flight, s.lost), (5, 3));
        assert!(s.rate_pps().is_some());
        // Delivered 1 ms after the previous delivery: 1 ms < min_rtt.
        let c = r.on_send(SimTime::from_millis(100), 0);
        r.begin_ack();
        r.on_delivered(SimTime::from_millis(101), &c);
        let s = r.end_ack(Some(SimTime::from_millis(50))).unwrap();
        assert_eq!(s.delivered, 1);
        assert_eq!(s.interval, SimTime::ZERO);
        assert!(s.rate_pps().is_none());
    }

    #[test]
    fn app_limited_marking() {
        let mut r = RateEstimator::new();
        r.mark_app_limited(0);
        let tx = r.on_send(SimTime::ZERO, 0);
        assert!(tx.app_limited);
        r.begin_ack();
        r.on_delivered(SimTime::from_millis(100), &tx);
        let s = r.end_ack(None).unwrap();
        assert!(s.app_limited);
        // delivered (1) passed the mark (1)? not beyond it yet: still limited
        let tx2 = r.on_send(SimTime::from_millis(100), 0);
        r.begin_ack();
        r.on_delivered(SimTime::from_millis(200), &tx2);
        r.end_ack(None);
        let tx3 = r.on_send(SimTime::from_millis(200), 0);
        assert!(!tx3.app_limited);
    }

    #[test]
    fn ns3_keeps_the_ack_phase_of_the_previous_ack() {
        // One segment at 10 ms, acknowledged at 60 ms; then four paced 1 ms
        // apart from 60 ms, all with one segment delivered (at 60 ms), and
        // delayed ACKs for two each at 111 and 113 ms.
        let ms = SimTime::from_millis;
        let (mut linux, mut ns3) = (RateEstimator::new(), RateEstimator::ns3());
        let min_rtt = Some(ms(40));
        let first = (linux.on_send(ms(10), 0), ns3.on_send(ms(10), 0));
        linux.begin_ack();
        ns3.begin_ack();
        linux.on_delivered(ms(60), &first.0);
        ns3.on_delivered(ms(60), &first.1);
        linux.end_ack(min_rtt);
        ns3.end_ack(min_rtt);
        let txs: Vec<_> = (0..4)
            .map(|i| (linux.on_send(ms(60 + i), i), ns3.on_send(ms(60 + i), i)))
            .collect();
        let mut samples = Vec::new();
        for (k, ack_at) in [(0usize, 111u64), (2, 113)] {
            linux.begin_ack();
            ns3.begin_ack();
            for (l, n) in &txs[k..k + 2] {
                linux.on_delivered(ms(ack_at), l);
                ns3.on_delivered(ms(ack_at), n);
            }
            let (l, n) = (linux.end_ack(min_rtt).unwrap(), ns3.end_ack(min_rtt).unwrap());
            samples.push(((l.delivered, l.interval), (n.delivered, n.interval)));
        }
        // The first ACK: both take 2 segments over 111 - 60 = 51 ms.
        assert_eq!(samples[0], ((2, ms(51)), (2, ms(51))));
        // The second: Linux samples its last segment, 4 over 113 - 60 = 53
        // ms; ns-3's segments were sent with the prior's delivered count, so
        // it keeps the ACK phase of the first ACK: 4 over 51 ms.
        assert_eq!(samples[1], ((4, ms(53)), (4, ms(51))));
    }

    #[test]
    fn ns3_invalid_samples_have_no_rate() {
        let ms = SimTime::from_millis;
        let mut r = RateEstimator::ns3();
        let tx = r.on_send(ms(10), 0);
        r.begin_ack();
        r.on_delivered(ms(110), &tx);
        // No minimum RTT yet (`Time::Max ()`): invalid.
        let s = r.end_ack(None).unwrap();
        assert_eq!((s.interval, s.rate_pps()), (SimTime::ZERO, None));
        let tx = r.on_send(ms(110), 0);
        r.begin_ack();
        r.on_delivered(ms(210), &tx);
        let s = r.end_ack(Some(ms(50))).unwrap();
        assert_eq!((s.delivered, s.interval, s.prior_delivered), (1, ms(100), 1));
        // An interval below the minimum RTT: `GenerateSample` zeroes the
        // interval, and `TcpBbr::UpdateBottleneckBandwidth` ignores the
        // sample rather than reading the stale `m_deliveryRate` (checked
        // against the wheel). The new prior is still reported.
        let tx = r.on_send(ms(210), 0);
        r.begin_ack();
        r.on_delivered(ms(220), &tx);
        let s = r.end_ack(Some(ms(50))).unwrap();
        assert_eq!((s.interval, s.rate_pps(), s.prior_delivered), (SimTime::ZERO, None, 2));
        // A valid app-limited sample below the last rate recorded reports
        // the stale rate (`m_deliveryRate` is not updated).
        r.mark_app_limited(0);
        let tx = r.on_send(ms(220), 0);
        r.begin_ack();
        r.on_delivered(ms(520), &tx);
        let s = r.end_ack(Some(ms(50))).unwrap();
        assert_eq!((s.delivered, s.interval, s.app_limited), (1, ms(100), true));
    }
}
