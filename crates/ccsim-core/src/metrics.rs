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
    /// Time integral of the congestion window (packets) over the time in
    /// which the sender had a window (see [`FlowStats::note_sender`]).
    pub cwnd: Integral,
    /// Time integral of the smoothed RTT (seconds) over the time in which
    /// the sender had an estimate (after its first RTT sample).
    pub srtt: Integral,
}

/// The time integral of a piecewise-constant quantity: its area (value
/// times nanoseconds) and the time it covers. The mean over any stretch is
/// the difference of two integrals divided by the difference of their times.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Integral {
    /// Sum of value x duration, value-nanoseconds.
    pub area: f64,
    /// The time covered, ns.
    pub ns: u64,
}

impl Integral {
    /// The part of the integral accumulated since `start` (an earlier
    /// snapshot of the same integral).
    pub fn since(&self, start: &Integral) -> Integral {
        Integral {
            area: self.area - start.area,
            ns: self.ns - start.ns,
        }
    }

    /// The time-weighted mean; `None` when no time is covered.
    pub fn mean(&self) -> Option<f64> {
        (self.ns > 0).then(|| self.area / self.ns as f64)
    }
}

/// A piecewise-constant quantity observed when it may have changed: its
/// value since `since` (NaN: none, which adds no time), integrated into an
/// [`Integral`] whenever it changes.
#[derive(Copy, Clone, Debug)]
struct Piecewise {
    last: f64,
    since: SimTime,
}

impl Default for Piecewise {
    fn default() -> Self {
        Piecewise {
            last: f64::NAN,
            since: SimTime::ZERO,
        }
    }
}

impl Piecewise {
    /// The value is `v` at `now`: if it changed, add the last value's piece
    /// to `acc` and start the next piece. An unchanged value does nothing.
    #[inline]
    fn note(&mut self, now: SimTime, v: f64, acc: &mut Integral) {
        if v.to_bits() == self.last.to_bits() {
            return;
        }
        self.integrate(now, acc);
        self.last = v;
    }

    /// Add the value's area since the last change (if it had one) to `acc`
    /// and start the next piece at `now`.
    fn integrate(&mut self, now: SimTime, acc: &mut Integral) {
        if self.last.is_finite() {
            let dt = (now - self.since).0;
            acc.area += self.last * dt as f64;
            acc.ns += dt;
        }
        self.since = now;
    }
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
            cwnd: self.cwnd.since(&start.cwnd),
            srtt: self.srtt.since(&start.srtt),
        }
    }

    /// The time-weighted mean congestion window, packets; `None` when the
    /// sender had no window during the time covered.
    pub fn cwnd_mean_pkts(&self) -> Option<f64> {
        self.cwnd.mean()
    }

    /// The time-weighted mean smoothed RTT, seconds; `None` when the sender
    /// had no RTT estimate during the time covered.
    pub fn srtt_mean_s(&self) -> Option<f64> {
        self.srtt.mean()
    }
}

/// The statistics of one flow: its running counters, their snapshot at the
/// window's start, and the delay distribution inside the window.
#[derive(Clone, Debug, Default)]
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
    /// The congestion window is integrated over time ([`FlowStats::note_sender`]):
    /// set when the flow starts, for senders that have a window.
    pub tracks_cwnd: bool,
    /// The smoothed RTT is integrated over time: set when the flow starts,
    /// for senders that estimate the RTT.
    pub tracks_srtt: bool,
    /// The congestion window, packets, piece by piece.
    cwnd_now: Piecewise,
    /// The smoothed RTT, seconds, piece by piece.
    srtt_now: Piecewise,
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

impl FlowStats {
    /// The window opens at `now`: snapshot the counters (the integrals of
    /// the congestion window and the smoothed RTT brought up to `now` first)
    /// and start recording delays.
    pub fn open_window(&mut self, now: SimTime) {
        self.integrate(now);
        self.window_start = self.counts;
        self.in_flight_start = self.in_flight;
        self.window_open = true;
    }

    /// The window closes at `now` (the end of the run): bring the
    /// integrals up to `now`.
    pub fn close_window(&mut self, now: SimTime) {
        self.integrate(now);
        self.window_open = false;
    }

    /// The counters over the metrics window (opened and closed).
    pub fn window(&self) -> FlowCounters {
        self.counts.since(&self.window_start)
    }

    /// The sender's congestion window is `cwnd` packets and its smoothed
    /// RTT `srtt` seconds at `now` (NaN: it has none yet). Both are
    /// piecewise constant between the sender's callbacks, so the kernel
    /// calls this after each of them (ACK arrivals and timers) and the
    /// integrals are exact: the time since the last change is added at the
    /// old value. An unchanged value, or one not tracked, does nothing.
    #[inline]
    pub fn note_sender(&mut self, now: SimTime, cwnd: f64, srtt: f64) {
        if self.tracks_cwnd {
            self.cwnd_now.note(now, cwnd, &mut self.counts.cwnd);
        }
        if self.tracks_srtt {
            self.srtt_now.note(now, srtt, &mut self.counts.srtt);
        }
    }

    /// Bring both integrals up to `now`.
    fn integrate(&mut self, now: SimTime) {
        self.cwnd_now.integrate(now, &mut self.counts.cwnd);
        self.srtt_now.integrate(now, &mut self.counts.srtt);
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

    /// A sender that tracks both quantities.
    fn tracking() -> FlowStats {
        FlowStats {
            tracks_cwnd: true,
            tracks_srtt: true,
            ..FlowStats::default()
        }
    }

    /// cwnd 10 over [1 s, 2 s), 20 over [2 s, 5 s): 70 packet-seconds over
    /// 4 s; the window [3 s, 5 s] sees 20 throughout; NaN (no window)
    /// adds no time.
    #[test]
    fn cwnd_integral_is_time_weighted() {
        let s = |x: f64| SimTime((x * 1e9) as u64);
        let mut f = tracking();
        f.note_sender(s(0.5), f64::NAN, f64::NAN);
        f.note_sender(s(1.0), 10.0, f64::NAN);
        f.note_sender(s(1.5), 10.0, f64::NAN);
        f.note_sender(s(2.0), 20.0, f64::NAN);
        f.note_sender(s(3.0), 20.0, f64::NAN);
        f.close_window(s(5.0));
        assert_eq!(f.counts.cwnd.ns, 4_000_000_000);
        assert!((f.counts.cwnd_mean_pkts().unwrap() - 17.5).abs() < 1e-12);
        assert_eq!(f.counts.srtt_mean_s(), None);
        let mut g = tracking();
        g.note_sender(s(1.0), 10.0, f64::NAN);
        g.note_sender(s(2.0), 20.0, f64::NAN);
        g.open_window(s(3.0));
        g.note_sender(s(4.0), 20.0, f64::NAN);
        g.close_window(s(5.0));
        assert!((g.window().cwnd_mean_pkts().unwrap() - 20.0).abs() < 1e-12);
        assert_eq!(FlowStats::default().window().cwnd_mean_pkts(), None);
    }

    /// The smoothed RTT's mean weighs each value by the time it held, from
    /// the first estimate on: 0.1 s over [1 s, 3 s) and 0.4 s over [3 s,
    /// 4 s] is 0.2 s, however many callbacks saw each value; over a window
    /// opened at 2 s, (0.1 + 0.4) / 2. A quantity not tracked adds nothing.
    #[test]
    fn srtt_integral_is_time_weighted() {
        let s = |x: f64| SimTime((x * 1e9) as u64);
        let mut f = tracking();
        f.note_sender(s(0.0), 2.0, f64::NAN);
        f.note_sender(s(1.0), 2.0, 0.1);
        for k in 0..10 {
            f.note_sender(s(1.0 + 0.1 * k as f64), 2.0, 0.1);
        }
        f.note_sender(s(3.0), 2.0, 0.4);
        f.close_window(s(4.0));
        assert_eq!(f.counts.srtt.ns, 3_000_000_000);
        assert!((f.counts.srtt_mean_s().unwrap() - 0.2).abs() < 1e-12);
        let mut g = tracking();
        g.note_sender(s(1.0), 2.0, 0.1);
        g.open_window(s(2.0));
        g.note_sender(s(3.0), 2.0, 0.4);
        g.close_window(s(4.0));
        assert!((g.window().srtt_mean_s().unwrap() - 0.25).abs() < 1e-12);
        let mut h = FlowStats {
            tracks_cwnd: true,
            ..FlowStats::default()
        };
        h.note_sender(s(1.0), 2.0, 0.1);
        h.close_window(s(2.0));
        assert_eq!(h.counts.srtt_mean_s(), None);
        assert_eq!(h.counts.cwnd_mean_pkts(), Some(2.0));
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
