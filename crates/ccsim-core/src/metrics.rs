//! Per-flow and per-link counters, kept apart from the algorithms that cause
//! them.
//!
//! A flow's counters only grow, from the flow's creation to the end of the
//! run ([`FlowCounters`]); the metrics window [warmup, duration] is a
//! snapshot of them when it opens ([`FlowStats::open_window`]) and a
//! difference when it closes ([`FlowStats::window`]), so that an observer
//! reading them mid-run (the sampler's per-interval rates) never sees a
//! reset. Only the delay distribution and the jitter, which are not sums,
//! are recorded inside the window alone.

use crate::time::SimTime;

/// The counters of one flow that only grow. The fields are running totals
/// since the flow was created; [`FlowStats::window`] gives their values over
/// the metrics window.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct FlowCounters {
    /// Data packets emitted (first transmissions and retransmissions).
    pub sent_packets: u64,
    /// Data bytes emitted (wire size).
    pub sent_bytes: u64,
    /// Data packets that were retransmissions.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (loss detected by duplicate ACKs or SACK).
    pub fast_retransmits: u64,
    /// Data packets arriving at the receiver (duplicates included).
    pub received_packets: u64,
    /// Data bytes (wire size) arriving at the receiver (duplicates included).
    pub received_bytes: u64,
    /// Unique in-order payload bytes handed to the application.
    pub delivered_bytes: u64,
    /// Data packets dropped anywhere in the network.
    pub lost_packets: u64,
    /// Acknowledgement packets emitted by the receiver.
    pub acks_sent: u64,
    /// Acknowledgement packets dropped in the network.
    pub acks_lost: u64,
    /// Sum of the one-way delays of the data packets received, ns.
    pub delay_sum_ns: u128,
    /// Number of terms in `delay_sum_ns`.
    pub delay_n: u64,
    /// Time integral of the congestion window, packet-nanoseconds, over the
    /// time in which the sender had a window (see [`FlowStats::note_cwnd`]).
    pub cwnd_pkt_ns: f64,
    /// The time, ns, that `cwnd_pkt_ns` covers.
    pub cwnd_ns: u64,
}

impl FlowCounters {
    /// The counts between `start` (a snapshot of the same flow) and `self`.
    pub fn since(&self, start: &FlowCounters) -> FlowCounters {
        FlowCounters {
            sent_packets: self.sent_packets - start.sent_packets,
            sent_bytes: self.sent_bytes - start.sent_bytes,
            retransmits: self.retransmits - start.retransmits,
            timeouts: self.timeouts - start.timeouts,
            fast_retransmits: self.fast_retransmits - start.fast_retransmits,
            received_packets: self.received_packets - start.received_packets,
            received_bytes: self.received_bytes - start.received_bytes,
            delivered_bytes: self.delivered_bytes - start.delivered_bytes,
            lost_packets: self.lost_packets - start.lost_packets,
            acks_sent: self.acks_sent - start.acks_sent,
            acks_lost: self.acks_lost - start.acks_lost,
            delay_sum_ns: self.delay_sum_ns - start.delay_sum_ns,
            delay_n: self.delay_n - start.delay_n,
            cwnd_pkt_ns: self.cwnd_pkt_ns - start.cwnd_pkt_ns,
            cwnd_ns: self.cwnd_ns - start.cwnd_ns,
        }
    }

    /// The time-weighted mean congestion window, packets; `None` when the
    /// sender had no window during the time covered.
    pub fn cwnd_mean_pkts(&self) -> Option<f64> {
        (self.cwnd_ns > 0).then(|| self.cwnd_pkt_ns / self.cwnd_ns as f64)
    }
}

/// The statistics of one flow: its running counters, their snapshot at the
/// window's start, and the delay distribution inside the window.
#[derive(Clone, Debug)]
pub struct FlowStats {
    /// Running totals since the flow was created (they only grow).
    pub counts: FlowCounters,
    /// `counts` when the metrics window opened (zero before it opens).
    pub window_start: FlowCounters,
    /// The window is open: delays and jitter are recorded.
    pub window_open: bool,
    /// One-way delays of data packets received in the window, ns (bounded memory).
    pub delays_ns: crate::histogram::Histogram,
    /// Sum of |d_i - d_{i-1}| over consecutive data packets received in the window, ns.
    pub jitter_sum_ns: u128,
    /// Number of terms in `jitter_sum_ns`.
    pub jitter_n: u64,
    last_delay_ns: Option<u64>,
    /// The congestion window is integrated over time ([`FlowStats::note_cwnd`]):
    /// set when the flow starts, for senders that have a window.
    pub tracks_cwnd: bool,
    /// The congestion window since `cwnd_since` (NaN: none yet).
    cwnd_last: f64,
    cwnd_since: SimTime,
    /// Data packets in the network now (emitted, not yet received or dropped).
    pub in_flight: u64,
    /// `in_flight` when the window opened.
    pub in_flight_start: u64,
    /// For finite flows: bytes the application wants delivered.
    pub target_bytes: Option<u64>,
    /// When the flow started.
    pub started_at: Option<SimTime>,
    /// When the last byte of a finite flow was delivered.
    pub completed_at: Option<SimTime>,
}

impl Default for FlowStats {
    fn default() -> Self {
        FlowStats {
            counts: FlowCounters::default(),
            window_start: FlowCounters::default(),
            window_open: false,
            delays_ns: Default::default(),
            jitter_sum_ns: 0,
            jitter_n: 0,
            last_delay_ns: None,
            tracks_cwnd: false,
            cwnd_last: f64::NAN,
            cwnd_since: SimTime::ZERO,
            in_flight: 0,
            in_flight_start: 0,
            target_bytes: None,
            started_at: None,
            completed_at: None,
        }
    }
}

impl FlowStats {
    /// The window opens at `now`: snapshot the counters (the congestion
    /// window's integral brought up to `now` first) and start recording
    /// delays.
    pub fn open_window(&mut self, now: SimTime) {
        self.integrate_cwnd(now);
        self.window_start = self.counts;
        self.in_flight_start = self.in_flight;
        self.window_open = true;
    }

    /// The window closes at `now` (the end of the run): bring the
    /// congestion window's integral up to `now`.
    pub fn close_window(&mut self, now: SimTime) {
        self.integrate_cwnd(now);
        self.window_open = false;
    }

    /// The counters over the metrics window (opened and closed).
    pub fn window(&self) -> FlowCounters {
        self.counts.since(&self.window_start)
    }

    /// The sender's congestion window is `cwnd` packets at `now` (NaN: it has
    /// none). The window is piecewise constant between the sender's
    /// callbacks, so the kernel calls this after each of them (ACK arrivals
    /// and timers) and the integral is exact: the time since the last change
    /// is added at the old value. A call with an unchanged value does
    /// nothing.
    #[inline]
    pub fn note_cwnd(&mut self, now: SimTime, cwnd: f64) {
        if cwnd.to_bits() == self.cwnd_last.to_bits() {
            return;
        }
        self.integrate_cwnd(now);
        self.cwnd_last = cwnd;
    }

    /// Add the window's area since the last change (if it had one) and
    /// start the next piece at `now`.
    fn integrate_cwnd(&mut self, now: SimTime) {
        if self.cwnd_last.is_finite() {
            let dt = (now - self.cwnd_since).0;
            self.counts.cwnd_pkt_ns += self.cwnd_last * dt as f64;
            self.counts.cwnd_ns += dt;
        }
        self.cwnd_since = now;
    }

    /// A data packet left the sender.
    #[inline]
    pub fn on_data_sent(&mut self, size: u32, _payload: u32, retransmission: bool) {
        self.in_flight += 1;
        self.counts.sent_packets += 1;
        self.counts.sent_bytes += size as u64;
        self.counts.retransmits += retransmission as u64;
    }

    /// An acknowledgement left the receiver.
    #[inline]
    pub fn on_ack_sent(&mut self) {
        self.counts.acks_sent += 1;
    }

    /// The sender's retransmission timer expired.
    #[inline]
    pub fn on_timeout(&mut self) {
        self.counts.timeouts += 1;
    }

    /// The sender entered fast retransmit / recovery.
    #[inline]
    pub fn on_fast_retransmit(&mut self) {
        self.counts.fast_retransmits += 1;
    }

    /// A data packet arrived at the receiver after `delay_ns`. A packet
    /// without payload (TCP's SYN) counts as a packet but not in the delay
    /// statistics, which are the data's.
    #[inline]
    pub fn on_data_received(&mut self, size: u32, payload: u32, delay_ns: u64) {
        self.in_flight -= 1;
        self.counts.received_packets += 1;
        self.counts.received_bytes += size as u64;
        if payload == 0 {
            return;
        }
        self.counts.delay_sum_ns += delay_ns as u128;
        self.counts.delay_n += 1;
        if self.window_open {
            self.delays_ns.record(delay_ns);
            if let Some(last) = self.last_delay_ns {
                self.jitter_sum_ns += last.abs_diff(delay_ns) as u128;
                self.jitter_n += 1;
            }
            self.last_delay_ns = Some(delay_ns);
        }
    }

    /// A data packet was dropped in the network.
    #[inline]
    pub fn on_data_lost(&mut self) {
        self.in_flight -= 1;
        self.counts.lost_packets += 1;
    }

    /// An acknowledgement was dropped in the network.
    #[inline]
    pub fn on_ack_lost(&mut self) {
        self.counts.acks_lost += 1;
    }

    /// The receiver delivered `bytes` of new payload to the application.
    #[inline]
    pub fn on_delivered(&mut self, bytes: u64, now: SimTime) {
        self.counts.delivered_bytes += bytes;
        if let Some(t) = self.target_bytes {
            if self.completed_at.is_none() && self.counts.delivered_bytes >= t {
                self.completed_at = Some(now);
            }
        }
    }
}

/// Counters of one link over the window.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Bytes whose transmission started in the window.
    pub tx_bytes: u64,
    /// Packets whose transmission started in the window.
    pub tx_packets: u64,
    /// Packets lost on the link by its loss model.
    pub lost_packets: u64,
    /// Transmitter busy time inside the window, ns (transmissions that straddle
    /// the window's edges count only their part inside it).
    pub busy_ns: u64,
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for an empty or all-zero set.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cwnd 10 over [1 s, 2 s), 20 over [2 s, 5 s): 70 packet-seconds over
    /// 4 s; the window [3 s, 5 s] sees 20 throughout; NaN (no window)
    /// adds no time.
    #[test]
    fn cwnd_integral_is_time_weighted() {
        let s = |x: f64| SimTime((x * 1e9) as u64);
        let mut f = FlowStats::default();
        f.note_cwnd(s(0.5), f64::NAN);
        f.note_cwnd(s(1.0), 10.0);
        f.note_cwnd(s(1.5), 10.0);
        f.note_cwnd(s(2.0), 20.0);
        f.note_cwnd(s(3.0), 20.0);
        f.close_window(s(5.0));
        assert_eq!(f.counts.cwnd_ns, 4_000_000_000);
        assert!((f.counts.cwnd_mean_pkts().unwrap() - 17.5).abs() < 1e-12);
        let mut g = FlowStats::default();
        g.note_cwnd(s(1.0), 10.0);
        g.note_cwnd(s(2.0), 20.0);
        g.open_window(s(3.0));
        g.note_cwnd(s(4.0), 20.0);
        g.close_window(s(5.0));
        assert!((g.window().cwnd_mean_pkts().unwrap() - 20.0).abs() < 1e-12);
        assert_eq!(FlowStats::default().window().cwnd_mean_pkts(), None);
    }

    /// Counters keep growing through the window's opening; the window's
    /// values are the difference.
    #[test]
    fn window_is_a_difference() {
        let mut f = FlowStats::default();
        f.on_data_sent(1000, 960, false);
        f.on_data_received(1000, 960, 5);
        f.open_window(SimTime(10));
        f.on_data_sent(1000, 960, true);
        f.on_data_sent(1000, 960, false);
        f.on_data_lost();
        assert_eq!(f.counts.sent_packets, 3);
        let w = f.window();
        assert_eq!(
            (w.sent_packets, w.retransmits, w.lost_packets, w.received_packets),
            (2, 1, 1, 0)
        );
        assert_eq!((f.in_flight_start, f.in_flight), (0, 1));
        assert!(f.delays_ns.is_empty());
    }

    #[test]
    fn jain() {
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
