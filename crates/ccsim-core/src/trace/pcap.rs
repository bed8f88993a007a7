//! libpcap files (the classic format of tcpdump, Wireshark and tcptrace),
//! one per traced link direction, with real IPv4 and TCP/UDP headers.
//!
//! - File header: the nanosecond-resolution magic `0xa1b23c4d` (simulation
//!   time is integer nanoseconds), version 2.4, link type 101
//!   (`LINKTYPE_RAW`: each record starts with the IPv4 header), snap length
//!   128. Records carry the headers only; a record's original length is the
//!   packet's length, so tools report it as captured with a snap length
//!   ("packet size limited during capture").
//! - A packet is captured when its transmission on the link starts (what a
//!   capture at the sending interface sees); queue drops never reach the
//!   wire and are not in the file.
//! - IPv4: node i has address 10.0.0.0 + i + 1 (docs/plots.md lists them);
//!   the TOS byte carries the packet's class as IP precedence (bits 7-5)
//!   and its ECN codepoint (bits 1-0: Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11);
//!   DF set, TTL 64, the header checksum computed; the identification is
//!   the packet's uid modulo 2^16. Total length: ccsim's wire size, or the
//!   headers written if they are longer (an ACK with SACK options: ccsim
//!   counts a fixed header size).
//! - TCP: ports 1024 + the agent's number at its node; sequence numbers in
//!   bytes, segment number times the flow's MSS (initial sequence number 0,
//!   modulo 2^32); the ACK number likewise from ccsim's cumulative ACK (the
//!   next segment expected); ccsim's flag bits (they are TCP's: ACK, ECE,
//!   CWR, ...); the window, ccsim's advertised window in segments times the
//!   MSS, at most 65535 (no window scaling: there is no SYN); SACK blocks
//!   as a SACK option (RFC 2018, kind 5) after two NOPs. The TCP checksum is
//!   0: there is no payload to sum.
//! - Other transports: a UDP header (ports as above, checksum 0, which
//!   IPv4 allows).

use super::{FlowTrace, Sink};
use crate::error::Result;
use crate::packet::{Ecn, Packet, PacketKind};
use crate::time::SimTime;

/// The nanosecond-resolution pcap magic number.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: records start with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// The snap length written in the file header (the longest record is 80 bytes).
pub const SNAPLEN: u32 = 128;
/// First port number: agent n at a node uses port 1024 + n.
pub const PORT_BASE: u32 = 1024;

/// The pcap address of node `index`: 10.0.0.0 + index + 1.
pub fn node_address(index: u32) -> [u8; 4] {
    (0x0a00_0000u32.wrapping_add(index).wrapping_add(1)).to_be_bytes()
}

/// The writer of one link direction's pcap file.
pub(crate) struct PcapWriter {
    sink: Sink,
}

fn ip_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for w in h.chunks(2) {
        sum += u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl PcapWriter {
    pub(crate) fn new(mut sink: Sink) -> Self {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NANOS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        sink.buffer().extend_from_slice(&h);
        PcapWriter { sink }
    }

    /// Write the record of `p`, whose transmission starts at `t`.
    #[inline]
    pub(crate) fn record(&mut self, t: SimTime, p: &Packet, f: &FlowTrace) {
        // At most 16 + 80 bytes, formatted straight into the file's buffer.
        let b = self.sink.buffer();
        let rec = b.len();
        // Record header; the lengths are filled in below.
        b.extend_from_slice(&((t.0 / 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&((t.0 % 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&[0u8; 8]);
        let ip = b.len();
        let ecn: u8 = match p.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect => 0b10,
            Ecn::Ect1 => 0b01,
            Ecn::Ce => 0b11,
        };
        let ack = p.kind == PacketKind::Ack;
        let (sport, dport) = if ack {
            (f.dst_port, f.src_port)
        } else {
            (f.src_port, f.dst_port)
        };
        let sport = (PORT_BASE + sport) as u16;
        let dport = (PORT_BASE + dport) as u16;
        b.extend_from_slice(&[0x45, ((p.class & 7) << 5) | ecn, 0, 0]);
        b.extend_from_slice(&(p.uid as u16).to_be_bytes());
        b.extend_from_slice(&[0x40, 0x00, 64, if f.tcp { 6 } else { 17 }, 0, 0]);
        b.extend_from_slice(&node_address(p.src.0));
        b.extend_from_slice(&node_address(p.dst.0));
        let transport = b.len();
        if f.tcp {
            let mss = f.mss as u64;
            b.extend_from_slice(&sport.to_be_bytes());
            b.extend_from_slice(&dport.to_be_bytes());
            b.extend_from_slice(&(p.seq.wrapping_mul(mss) as u32).to_be_bytes());
            b.extend_from_slice(&(p.ack.wrapping_mul(mss) as u32).to_be_bytes());
            let n = (p.n_sack as usize).min(p.sack.len());
            let opts = if n > 0 { 4 + 8 * n } else { 0 };
            let hlen = 20 + opts;
            b.push(((hlen / 4) as u8) << 4);
            b.push(p.flags);
            let wnd = (p.wnd as u64 * mss).min(65535) as u16;
            b.extend_from_slice(&wnd.to_be_bytes());
            b.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
            if n > 0 {
                b.extend_from_slice(&[1, 1, 5, (2 + 8 * n) as u8]);
                for &(s, e) in &p.sack[..n] {
                    b.extend_from_slice(&(s.wrapping_mul(mss) as u32).to_be_bytes());
                    b.extend_from_slice(&(e.wrapping_mul(mss) as u32).to_be_bytes());
                }
            }
        } else {
            b.extend_from_slice(&sport.to_be_bytes());
            b.extend_from_slice(&dport.to_be_bytes());
            b.extend_from_slice(&[0, 0, 0, 0]); // length (below), checksum
        }
        let headers = (b.len() - ip) as u32;
        let payload = if f.tcp { p.payload } else { 0 };
        let total = p.size.max(headers + payload);
        let field = total.min(65535) as u16;
        b[ip + 2..ip + 4].copy_from_slice(&field.to_be_bytes());
        if !f.tcp {
            let udp_len = (total - 20).min(65535) as u16;
            b[transport + 4..transport + 6].copy_from_slice(&udp_len.to_be_bytes());
        }
        let sum = ip_checksum(&b[ip..ip + 20]);
        b[ip + 10..ip + 12].copy_from_slice(&sum.to_be_bytes());
        b[rec + 8..rec + 12].copy_from_slice(&headers.to_le_bytes());
        b[rec + 12..rec + 16].copy_from_slice(&total.to_le_bytes());
    }

    pub(crate) fn finish(&mut self) -> Result<()> {
        self.sink.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_start_at_10_0_0_1() {
        assert_eq!(node_address(0), [10, 0, 0, 1]);
        assert_eq!(node_address(255), [10, 0, 1, 0]);
        assert_eq!(node_address(70_000), [10, 1, 17, 113]);
    }

    /// RFC 1071's example: the checksum of a header whose checksum field
    /// is filled in sums to zero.
    #[test]
    fn ip_checksum_verifies() {
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00,
            0xc7,
        ];
        let c = ip_checksum(&h);
        assert_eq!(c, 0xb861);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(ip_checksum(&h), 0);
    }
}
