//! Per-flow and per-link counters, kept apart from the algorithms that cause
//! them. Counters only count inside the metrics window [warmup, duration];
//! the kernel opens and closes the window.

use crate::time::SimTime;

/// Counters of one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// Counting is on (inside the window).
    pub counting: bool,
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
    /// One-way delays of data packets received, ns (bounded memory).
    pub delays_ns: crate::histogram::Histogram,
    /// Sum of |d_i - d_{i-1}| over consecutive received data packets, ns.
    pub jitter_sum_ns: u128,
    /// Number of terms in `jitter_sum_ns`.
    pub jitter_n: u64,
    last_delay_ns: Option<u64>,
    /// Data packets in the network now (emitted, not yet received or dropped).
    pub in_flight: u64,
    /// `in_flight` when the window opened.
    pub in_flight_start: u64,
    /// Payload bytes delivered since the flow started (not windowed; for completion).
    pub delivered_total: u64,
    /// Data bytes received since the flow started (not windowed; for time series).
    pub received_total: u64,
    /// Data bytes (wire size) sent since the flow started, retransmissions
    /// included (not windowed; for the `send_bps` time series).
    pub sent_total: u64,
    /// Sum of the one-way delays of all data packets received since the flow
    /// started, ns (not windowed; for the `delay_s` time series).
    pub delay_sum_total_ns: u128,
    /// Number of terms in `delay_sum_total_ns`.
    pub delay_n_total: u64,
    /// For finite flows: bytes the application wants delivered.
    pub target_bytes: Option<u64>,
    /// When the flow started.
    pub started_at: Option<SimTime>,
    /// When the last byte of a finite flow was delivered.
    pub completed_at: Option<SimTime>,
    /// Sums of sampled sender state, for means: (cwnd, srtt, samples).
    pub cwnd_sum: f64,
    /// Sum of sampled smoothed RTTs, seconds.
    pub srtt_sum: f64,
    /// Number of congestion-window samples in `cwnd_sum`.
    pub probe_samples: u64,
    /// Number of smoothed-RTT samples in `srtt_sum` (rate-based transports
    /// have an RTT but no window).
    pub srtt_samples: u64,
}

impl FlowStats {
    /// Reset the windowed counters when the window opens.
    pub fn open_window(&mut self) {
        *self = FlowStats {
            counting: true,
            in_flight: self.in_flight,
            in_flight_start: self.in_flight,
            delivered_total: self.delivered_total,
            received_total: self.received_total,
            sent_total: self.sent_total,
            delay_sum_total_ns: self.delay_sum_total_ns,
            delay_n_total: self.delay_n_total,
            target_bytes: self.target_bytes,
            started_at: self.started_at,
            completed_at: self.completed_at,
            ..FlowStats::default()
        };
    }

    /// A data packet left the sender.
    #[inline]
    pub fn on_data_sent(&mut self, size: u32, _payload: u32, retransmission: bool) {
        self.in_flight += 1;
        self.sent_total += size as u64;
        if self.counting {
            self.sent_packets += 1;
            self.sent_bytes += size as u64;
            if retransmission {
                self.retransmits += 1;
            }
        }
    }

    /// An acknowledgement left the receiver.
    #[inline]
    pub fn on_ack_sent(&mut self) {
        if self.counting {
            self.acks_sent += 1;
        }
    }

    /// A data packet arrived at the receiver after `delay_ns`. A packet
    /// without payload (TCP's SYN) counts as a packet but not in the delay
    /// statistics, which are the data's.
    #[inline]
    pub fn on_data_received(&mut self, size: u32, payload: u32, delay_ns: u64) {
        self.in_flight -= 1;
        self.received_total += size as u64;
        if self.counting {
            self.received_packets += 1;
            self.received_bytes += size as u64;
        }
        if payload == 0 {
            return;
        }
        self.delay_sum_total_ns += delay_ns as u128;
        self.delay_n_total += 1;
        if self.counting {
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
        if self.counting {
            self.lost_packets += 1;
        }
    }

    /// An acknowledgement was dropped in the network.
    #[inline]
    pub fn on_ack_lost(&mut self) {
        if self.counting {
            self.acks_lost += 1;
        }
    }

    /// The receiver delivered `bytes` of new payload to the application.
    #[inline]
    pub fn on_delivered(&mut self, bytes: u64, now: SimTime) {
        self.delivered_total += bytes;
        if self.counting {
            self.delivered_bytes += bytes;
        }
        if let Some(t) = self.target_bytes {
            if self.completed_at.is_none() && self.delivered_total >= t {
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

    #[test]
    fn jain() {
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
