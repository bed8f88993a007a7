//! Packet traces: the ns-2 wired trace format ([`ns2`]) and libpcap files
//! ([`pcap`]), streamed to disk through buffered writers as the run goes.
//!
//! `[output] trace = "ns2" | "pcap" | "none"` picks the format and
//! `trace_links = ["r1->r2", ...]` the link directions (default: all).
//! [`crate::build`] checks both and makes a [`TracePlan`] (no file is
//! touched while validating); [`Tracer::open`] creates the files in the
//! run's output folder just before the run.
//!
//! The trace is an observer ([`crate::observe::PacketObserver`]) of the
//! kernel's four hook points of a packet's life on a link, the four events
//! of an ns-2 trace:
//!
//! | hook | ns-2 | when |
//! |---|---|---|
//! | `enqueue` | `+` | a packet is offered to the link's queue (also when the queue then drops it, as in ns-2) |
//! | `dequeue` | `-` | the packet's transmission starts (pcap: the packet is captured) |
//! | `receive` | `r` | the packet arrives at the link's far end |
//! | `dropped` | `d` | the queue drops it (on arrival or from inside the queue), or the link's loss model loses it |
//!
//! **The FIFO fast path.** A DropTail queue fixes a packet's transmission
//! start when it accepts the packet ([`crate::queue::Queue::fast_offer`]);
//! the kernel tells the observer then (`dequeue` with a start after now). A pcap file
//! holds one link, whose starts are in time order, so the record is written
//! at once. The ns-2 file holds every link, in time order, so a start in the
//! future is kept in a small heap and written just before the first line
//! that is not earlier than it: the trace reads exactly as if the queue had
//! been served by events.
//!
//! Nothing here allocates per packet: each writer formats into a buffer it
//! reuses, and the pending heap keeps its capacity.
//!
//! **Numbering** (docs/plots.md): the ns-2 node number and the pcap address
//! of a node is its index (dumbbell: s0..s{n-1}, r1, r2, d0..d{n-1};
//! otherwise the order of `[[nodes]]`); pcap addresses are 10.0.0.0 plus
//! index plus 1. A flow's sender is an agent at its source node, its receiver an
//! agent at its destination node, numbered per node in flow order from 0
//! (what an ns-2 script that attaches one agent after the other gets); the
//! ns-2 port is that number and the pcap port 1024 + that number.

pub mod estimate;
pub mod ns2;
pub mod pcap;

use crate::error::{Error, Result};
use crate::link::Link;
use crate::observe::PacketObserver;
use crate::packet::{LinkId, Packet};
use crate::sim::{Flow, Node};
use crate::time::SimTime;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The ns-2 trace's file name in the output folder.
pub const NS2_FILE: &str = "trace.tr";
/// Most pcap files one run may open (one per traced link direction).
pub const MAX_PCAP_FILES: usize = 1000;
/// Bytes of write buffer per trace file.
const BUFFER_BYTES: usize = 1 << 17;
/// Room left in the buffer for one record: a writer formats a record
/// straight into the buffer after [`Sink::buffer`] made this much room.
const RECORD_ROOM: usize = 512;

/// The trace formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// ns-2's wired trace format, one `trace.tr` for every traced link.
    Ns2,
    /// One libpcap file per traced link direction, `<a>-<b>.pcap`.
    Pcap,
}

/// What a trace writer needs to know about a flow, fixed when the
/// simulation is built.
#[derive(Copy, Clone, Debug)]
pub struct FlowTrace {
    /// ns-2 packet type of the data packets (`tcp`, `cbr`, `udp`, `tfrc`, ...).
    pub data_type: &'static str,
    /// ns-2 packet type of the acknowledgements/feedback (`ack`, `tfrcFeedback`).
    pub ack_type: &'static str,
    /// Whether the flow is TCP (pcap: TCP headers; ns-2: ACK sequence numbers).
    pub tcp: bool,
    /// Payload bytes per TCP segment: segment numbers times this are the
    /// byte sequence numbers of the pcap trace.
    pub mss: u32,
    /// The sender's node.
    pub src: u32,
    /// The sender's agent number at its node.
    pub src_port: u32,
    /// The receiver's node.
    pub dst: u32,
    /// The receiver's agent number at its node.
    pub dst_port: u32,
}

/// The trace a built simulation will write, without any open file.
#[derive(Clone, Debug)]
pub struct TracePlan {
    /// The format.
    pub format: TraceFormat,
    /// Per link direction (by id): whether it is traced.
    pub links: Vec<bool>,
    /// Per link direction: its (from, to) node indices.
    pub ends: Vec<(u32, u32)>,
    /// Per link direction: the pcap file name (traced links only).
    pub files: Vec<Option<String>>,
    /// Per flow (by id).
    pub flows: Vec<FlowTrace>,
    /// How big the trace will get ([`estimate`]).
    pub estimate: estimate::TraceEstimate,
}

/// The ns-2 packet types of a transport's data and acknowledgement packets.
///
/// ns-2 names a packet by its agent or application: a TCP agent sends `tcp`
/// and its sink `ack`; UDP carrying CBR traffic is `cbr`, other UDP `udp`;
/// TFRC sends `tfrc` and gets `tfrcFeedback`; RAP `rap_data` and `rap_ack`
/// (ns-2's packet.h names). Other transports use their own name for data and
/// `ack` for feedback.
pub fn ns2_types(transport: &'static str, app: &str) -> (&'static str, &'static str) {
    match transport {
        "tcp" => ("tcp", "ack"),
        "tfrc" => ("tfrc", "tfrcFeedback"),
        "rap" => ("rap_data", "rap_ack"),
        "udp" if app == "cbr" => ("cbr", "ack"),
        "udp" => ("udp", "ack"),
        other => (other, "ack"),
    }
}

/// A pcap file name for a link direction: its name with "->" replaced by
/// "-", and any character other than letters, digits, `.`, `_` and `-`
/// replaced by `_`.
pub fn pcap_file_name(link: &str) -> String {
    let base: String = link
        .replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{base}.pcap")
}

impl TracePlan {
    /// The plan for `links` (traced where `traced` is true) and `flows`;
    /// `mss[i]` is flow i's segment payload size (TCP).
    pub fn new(
        format: TraceFormat,
        traced: Vec<bool>,
        nodes: &[Node],
        links: &[Link],
        flows: &[Flow],
        mss: &[u32],
    ) -> Self {
        let ends = links.iter().map(|l| (l.from.0, l.to.0)).collect();
        let files = links
            .iter()
            .zip(&traced)
            .map(|(l, &t)| (t && format == TraceFormat::Pcap).then(|| pcap_file_name(&l.name)))
            .collect();
        // Agents are numbered per node in the order they attach: each flow's
        // sender at its source, then its receiver at its destination.
        let mut agents = vec![0u32; nodes.len()];
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let transport = f.sender.name();
                let (data_type, ack_type) = ns2_types(transport, f.app.name());
                let src_port = agents[f.src.0 as usize];
                agents[f.src.0 as usize] += 1;
                let dst_port = agents[f.dst.0 as usize];
                agents[f.dst.0 as usize] += 1;
                FlowTrace {
                    data_type,
                    ack_type,
                    tcp: transport == "tcp",
                    mss: mss.get(i).copied().unwrap_or(crate::DEFAULT_MSS).max(1),
                    src: f.src.0,
                    src_port,
                    dst: f.dst.0,
                    dst_port,
                }
            })
            .collect();
        TracePlan {
            format,
            links: traced,
            ends,
            files,
            flows,
            estimate: estimate::TraceEstimate {
                packets: 0.0,
                bytes: 0.0,
            },
        }
    }
}

/// A trace file being written: a buffer the writers format into, the
/// file, its path (for messages) and the first error.
pub(crate) struct Sink {
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
    error: Option<std::io::Error>,
}

impl Sink {
    fn create(path: PathBuf) -> Result<Sink> {
        let file = File::create(&path).map_err(|e| {
            Error::Io(format!(
                "cannot create trace file {}: {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
        Ok(Sink {
            path,
            file,
            buf: Vec::with_capacity(BUFFER_BYTES),
            error: None,
        })
    }

    /// The buffer, with room for at least one more record (at most
    /// `RECORD_ROOM` bytes) appended without reallocating: the writers
    /// format records straight into it.
    #[inline]
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        if self.buf.len() + RECORD_ROOM > self.buf.capacity() {
            self.drain();
        }
        &mut self.buf
    }

    /// Write the buffer to the file; the first failure is kept and later
    /// writes are skipped.
    fn drain(&mut self) {
        if self.error.is_none() {
            if let Err(e) = std::io::Write::write_all(&mut self.file, &self.buf) {
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }

    fn finish(&mut self) -> Result<()> {
        self.drain();
        match &self.error {
            None => Ok(()),
            Some(e) => Err(Error::Io(format!(
                "cannot write trace file {}: {}",
                self.path.display(),
                io_reason(e)
            ))),
        }
    }
}

/// An I/O error's reason without Rust's "(os error N)" suffix.
fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

enum Writers {
    Ns2(Box<ns2::Ns2Writer>),
    Pcap(Vec<Option<pcap::PcapWriter>>),
}

/// The open trace of a running simulation: an observer of the kernel's
/// packet hooks ([`PacketObserver`]), which the kernel calls through the
/// trait, out of line, behind one branch on whether it has an observer.
pub struct Tracer {
    links: Vec<bool>,
    flows: Vec<FlowTrace>,
    writers: Writers,
}

impl Tracer {
    /// Create the trace files of `plan` in `dir` (created if missing).
    pub fn open(plan: TracePlan, dir: &Path) -> Result<Tracer> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Io(format!(
                "cannot create the trace folder {}: {}",
                dir.display(),
                io_reason(&e)
            ))
        })?;
        let writers = match plan.format {
            TraceFormat::Ns2 => Writers::Ns2(Box::new(ns2::Ns2Writer::new(
                Sink::create(dir.join(NS2_FILE))?,
                &plan.ends,
                &plan.flows,
            ))),
            TraceFormat::Pcap => {
                let mut w = Vec::with_capacity(plan.files.len());
                for f in &plan.files {
                    w.push(match f {
                        Some(name) => Some(pcap::PcapWriter::new(Sink::create(dir.join(name))?)),
                        None => None,
                    });
                }
                Writers::Pcap(w)
            }
        };
        Ok(Tracer {
            links: plan.links,
            flows: plan.flows,
            writers,
        })
    }

    /// Whether `link` is traced.
    #[inline]
    pub fn traces(&self, link: LinkId) -> bool {
        self.links[link.0 as usize]
    }

    #[inline]
    fn ns2_line(&mut self, ev: u8, link: LinkId, now: SimTime, p: &Packet) {
        if let Writers::Ns2(w) = &mut self.writers {
            w.event(ev, now, link.0, p, &self.flows[p.flow.0 as usize]);
        }
    }
}

/// The trace observes the kernel's four hook points
/// ([`crate::observe`]), the four events of an ns-2 trace.
impl PacketObserver for Tracer {
    /// A packet is offered to the queue of `link` (`+`).
    fn enqueue(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        if self.traces(link) {
            self.ns2_line(b'+', link, now, p);
        }
    }

    /// The transmission of a packet on `link` starts at `start >= now`
    /// (`-`; pcap record): now, or later when the FIFO fast path fixed it on
    /// accepting the packet.
    fn dequeue(&mut self, link: LinkId, now: SimTime, start: SimTime, p: &Packet) {
        let li = link.0 as usize;
        if !self.links[li] {
            return;
        }
        let flow = &self.flows[p.flow.0 as usize];
        match &mut self.writers {
            Writers::Ns2(w) => {
                if start <= now {
                    w.event(b'-', now, link.0, p, flow);
                } else {
                    w.defer_dequeue(start, link.0, p, flow);
                }
            }
            Writers::Pcap(ws) => {
                if let Some(w) = ws[li].as_mut() {
                    w.record(start, p, flow);
                }
            }
        }
    }

    /// A packet arrives at the far end of `link` (`r`).
    fn receive(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        if self.traces(link) {
            self.ns2_line(b'r', link, now, p);
        }
    }

    /// A packet is dropped at `link`: by its queue or by its loss model (`d`).
    fn dropped(&mut self, link: LinkId, now: SimTime, p: &Packet) {
        if self.traces(link) {
            self.ns2_line(b'd', link, now, p);
        }
    }

    /// The run ended at `end`: write what is pending up to `end`, flush every
    /// file and report the first write error.
    fn finish(&mut self, end: SimTime) -> Result<()> {
        match &mut self.writers {
            Writers::Ns2(w) => w.finish(end),
            Writers::Pcap(ws) => {
                let mut first = Ok(());
                for w in ws.iter_mut().flatten() {
                    let r = w.finish();
                    if first.is_ok() {
                        first = r;
                    }
                }
                first
            }
        }
    }
}

/// "00" to "99": two digits per division when formatting integers.
pub(crate) const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Append the decimal digits of `v` to `out` (no allocation).
#[inline]
pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    }
    if v >= 10 {
        let d = v as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_as_decimal() {
        for v in [0, 7, 9, 10, 99, 100, 101, 1234567890123, u64::MAX] {
            let mut out = Vec::new();
            push_u64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }

    #[test]
    fn pcap_names_replace_the_arrow_and_unsafe_characters() {
        assert_eq!(pcap_file_name("r1->r2"), "r1-r2.pcap");
        assert_eq!(pcap_file_name("a/b->c d"), "a_b-c_d.pcap");
    }

    #[test]
    fn ns2_type_names() {
        assert_eq!(ns2_types("tcp", "bulk"), ("tcp", "ack"));
        assert_eq!(ns2_types("udp", "cbr"), ("cbr", "ack"));
        assert_eq!(ns2_types("udp", "poisson"), ("udp", "ack"));
        assert_eq!(ns2_types("tfrc", "bulk"), ("tfrc", "tfrcFeedback"));
        assert_eq!(ns2_types("rap", "bulk"), ("rap_data", "rap_ack"));
    }
}
