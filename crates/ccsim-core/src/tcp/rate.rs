//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02,
//! as Linux `net/ipv4/tcp_rate.c`), in segments: each transmission records
//! how much had been delivered when it left; an ACK that delivers it yields
//! the rate delivered / max(send elapsed, ack elapsed). BBR's bandwidth
//! model is built from these samples; other controllers may ignore them.

use crate::cc::RateSample;
use crate::time::SimTime;

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
}

impl RateEstimator {
    /// A fresh estimator.
    pub fn new() -> Self {
        Self::default()
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

    /// Start processing an ACK.
    pub fn begin_ack(&mut self) {
        self.sample = None;
    }

    /// A segment sent with `tx` was delivered (cumulatively or selectively
    /// acknowledged for the first time) at `now`.
    pub fn on_delivered(&mut self, now: SimTime, tx: &TxInfo) {
        self.delivered += 1;
        self.delivered_time = now;
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
}
