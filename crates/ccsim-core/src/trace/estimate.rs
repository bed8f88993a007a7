//! How big a packet trace will get, estimated before the run (docs/plots.md,
//! "How big a trace gets").
//!
//! Every flow is taken to send all the time at its max-min fair share of
//! the link rates (progressive filling over the links of its data path:
//! what long-lived TCP flows converge to, and an upper bound for
//! applications that send less), in packets of its data size; every packet
//! of a flow with feedback (all but UDP) gets one acknowledgement back along
//! the reverse path. A traced link direction then sees
//! `rate x duration / (8 x packet size)` data packets of each flow crossing
//! it, and as many acknowledgements of each flow crossing it backwards.
//! Each packet crossing a traced link is three ns-2 lines (`+`, `-`, `r`)
//! of about [`NS2_LINE_BYTES`] bytes, or one pcap record of about
//! [`PCAP_RECORD_BYTES`] (a 16-byte record header and the packet's IP and
//! transport headers: ccsim captures no payload).

use super::TraceFormat;

/// Bytes of one ns-2 trace line (`+ 1.84375 0 2 tcp 1040 ------- 0 0.0 3.0 225 610`
/// is 48; times, node numbers and ids grow longer in a long run: 100 TCP
/// flows over 1000 s averaged 64).
pub const NS2_LINE_BYTES: u64 = 64;
/// ns-2 lines per packet crossing a traced link: enqueue, dequeue, receive.
pub const NS2_LINES_PER_HOP: u64 = 3;
/// Bytes of one pcap record: a 16-byte record header, a 20-byte IP header and
/// a UDP (8) or TCP (20, plus options) header.
pub const PCAP_RECORD_BYTES: u64 = 60;
/// Bytes of an acknowledgement on the wire (a TCP/IP header).
pub const ACK_BYTES: u64 = 40;

/// One flow as the estimate sees it.
#[derive(Clone, Debug)]
pub struct Demand {
    /// Link directions of its data packets, in order.
    pub path: Vec<usize>,
    /// Link directions of its acknowledgements (empty for UDP).
    pub back: Vec<usize>,
    /// Bytes of a data packet on the wire.
    pub packet_bytes: u64,
}

/// The estimate: packets crossing traced links and the bytes they make.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TraceEstimate {
    /// Packet crossings of traced link directions (data and acknowledgements).
    pub packets: f64,
    /// Bytes of trace files.
    pub bytes: f64,
}

/// Max-min fair rates (bit/s) of flows over links of the given capacities
/// (bit/s), by progressive filling: raise every unfrozen flow's rate
/// together until a link is full, freeze the flows crossing it, repeat.
/// A flow with an empty path gets rate 0.
pub fn fair_rates(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    let mut rate = vec![0.0; paths.len()];
    let mut left = capacity.to_vec();
    let mut active: Vec<bool> = paths.iter().map(|p| !p.is_empty()).collect();
    let mut users = vec![0u64; capacity.len()];
    // Each round fills at least one link, so there are at most as many rounds as links.
    for _ in 0..=capacity.len() {
        users.iter_mut().for_each(|u| *u = 0);
        for (p, _) in paths.iter().zip(&active).filter(|(_, &a)| a) {
            for &l in p {
                users[l] += 1;
            }
        }
        let step = left
            .iter()
            .zip(&users)
            .filter(|(_, &u)| u > 0)
            .map(|(c, &u)| c.max(0.0) / u as f64)
            .fold(f64::INFINITY, f64::min);
        if !step.is_finite() {
            break; // no flow left to raise
        }
        for (c, &u) in left.iter_mut().zip(&users) {
            *c -= step * u as f64;
        }
        let full: Vec<bool> = left
            .iter()
            .zip(capacity)
            .zip(&users)
            .map(|((c, cap), &u)| u > 0 && *c <= cap * 1e-9)
            .collect();
        for (f, p) in paths.iter().enumerate() {
            if active[f] {
                rate[f] += step;
                if p.iter().any(|&l| full[l]) {
                    active[f] = false;
                }
            }
        }
    }
    rate
}

/// The trace of `format` over the link directions where `traced` is true,
/// for flows `demands` with link rates `capacity` (bit/s) over `duration_s`.
pub fn estimate(
    format: TraceFormat,
    traced: &[bool],
    capacity: &[f64],
    demands: &[Demand],
    duration_s: f64,
) -> TraceEstimate {
    let paths: Vec<Vec<usize>> = demands.iter().map(|d| d.path.clone()).collect();
    let rates = fair_rates(&paths, capacity);
    let mut packets = 0.0;
    let mut bytes = 0.0;
    for (d, r) in demands.iter().zip(rates) {
        let count = r * duration_s / (8.0 * d.packet_bytes.max(1) as f64);
        let hops = d.path.iter().filter(|&&l| traced[l]).count() as f64;
        let acks = d.back.iter().filter(|&&l| traced[l]).count() as f64;
        packets += count * (hops + acks);
        let per_hop = match format {
            TraceFormat::Ns2 => NS2_LINES_PER_HOP * NS2_LINE_BYTES,
            TraceFormat::Pcap => PCAP_RECORD_BYTES,
        };
        bytes += count * (hops + acks) * per_hop as f64;
    }
    TraceEstimate { packets, bytes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fair_rates_share_the_bottleneck_and_give_the_rest_to_others() {
        // Links: 0 (10 units) shared by flows 0 and 1; link 1 (100) used by flows 1 and 2.
        let paths = vec![vec![0], vec![0, 1], vec![1]];
        let r = fair_rates(&paths, &[10.0, 100.0]);
        assert!((r[0] - 5.0).abs() < 1e-9 && (r[1] - 5.0).abs() < 1e-9, "{r:?}");
        assert!((r[2] - 95.0).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn a_dumbbell_trace_counts_three_hops_each_way() {
        // One TCP flow over access (100), bottleneck (10), access (100); ACKs back over three links.
        let d = Demand {
            path: vec![0, 1, 2],
            back: vec![3, 4, 5],
            packet_bytes: 1000,
        };
        let cap = [100e6, 10e6, 100e6, 100e6, 10e6, 100e6];
        let e = estimate(TraceFormat::Ns2, &[true; 6], &cap, &[d], 8.0);
        // 10 Mbit/s for 8 s in 1000-byte packets: 10,000 packets, each crossing 3 links, and its ACK 3 more.
        assert!((e.packets - 60_000.0).abs() < 1e-6, "{e:?}");
        assert!((e.bytes - 60_000.0 * 3.0 * 64.0).abs() < 1e-3, "{e:?}");
    }
}
