//! Packet traces (crate::trace): the ns-2 trace and the pcap files agree
//! with ccsim's own counters event for event, the FIFO fast path writes the
//! same ns-2 trace as the general path, tracing does not change a run, and
//! bad settings and unwritable folders give clear errors.

use ccsim_core::{run_toml, run_toml_in, Error, GuardOverrides, RunOutput};
use std::collections::HashMap;
use std::path::PathBuf;

/// A fresh, empty folder for one test's trace files.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ccsim-trace-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_in(text: &str, dir: &std::path::Path) -> RunOutput {
    run_toml_in(text, "t.toml", GuardOverrides::default(), dir).expect("scenario runs")
}

/// Two TCP flows and one CBR flow over a 4 Mbps bottleneck with a 15-packet
/// buffer and random loss: queue drops, link losses and ACKs on the reverse
/// path. The rates and delays are not round numbers so that no two events
/// fall on the same nanosecond: the fast and the general path may order such
/// ties differently (docs/architecture.md), and the comparison of the two
/// paths below needs identical runs.
fn scenario(queue: &str, trace: &str) -> String {
    format!(
        r#"
name = "trace"
duration = "4s"
seed = 5
[topology]
kind = "dumbbell"
pairs = 3
[topology.access]
rate = "99.7Mbps"
delay = "2.137ms"
[topology.bottleneck]
rate = "3.93Mbps"
delay = "10.071ms"
queue = {{ {queue} }}
loss = {{ model = "bernoulli", rate = 0.005 }}
[[flows]]
count = 2
transport = "tcp"
app = "bulk"
sack = true
start = {{ uniform = ["0s", "0.2s"] }}
[[flows]]
group = "cbr"
src = "s2"
dst = "d2"
transport = "udp"
app = "cbr"
rate = "1.013Mbps"
packet_size = 517
[output]
{trace}
"#
    )
}

struct Line {
    ev: char,
    time: f64,
    from: usize,
    to: usize,
    ptype: String,
    size: u64,
    fid: usize,
    seq: i64,
    uid: u64,
}

fn parse_ns2(text: &str) -> Vec<Line> {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 12, "twelve fields: {l}");
            assert_eq!(f[6].len(), 7, "seven flag characters: {l}");
            Line {
                ev: f[0].chars().next().unwrap(),
                time: f[1].parse().unwrap(),
                from: f[2].parse().unwrap(),
                to: f[3].parse().unwrap(),
                ptype: f[4].to_string(),
                size: f[5].parse().unwrap(),
                fid: f[7].parse().unwrap(),
                seq: f[10].parse().unwrap(),
                uid: f[11].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn ns2_trace_counts_match_the_results() {
    let dir = scratch("ns2");
    let out = run_in(&scenario("kind = \"droptail\", limit = 15", "trace = \"ns2\""), &dir);
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    let lines = parse_ns2(&text);
    assert!(lines.len() > 1000, "a busy trace: {} lines", lines.len());
    // Time order.
    assert!(lines.windows(2).all(|w| w[0].time <= w[1].time));
    // Node numbers: s0 s1 s2 r1 r2 d0 d1 d2.
    let node = |n: &str| {
        ["s0", "s1", "s2", "r1", "r2", "d0", "d1", "d2"]
            .iter()
            .position(|x| *x == n)
            .unwrap()
    };
    let mut per_link: HashMap<(usize, usize, char), u64> = HashMap::new();
    for l in &lines {
        *per_link.entry((l.from, l.to, l.ev)).or_default() += 1;
    }
    let r = &out.result;
    for (q, lk) in r.queues.iter().zip(&r.links) {
        let (a, b) = lk.link.split_once("->").unwrap();
        let key = |ev| per_link.get(&(node(a), node(b), ev)).copied().unwrap_or(0);
        assert_eq!(key('+'), q.arrivals, "{}: '+' = arrivals", lk.link);
        assert_eq!(key('-'), lk.tx_packets, "{}: '-' = transmissions", lk.link);
        assert_eq!(
            key('d'),
            q.drops + lk.lost_packets,
            "{}: 'd' = drops + link losses",
            lk.link
        );
    }
    assert!(
        r.queues[0].drops > 0 && r.links[0].lost_packets > 0,
        "the bottleneck drops and loses"
    );
    // Per flow: data bytes received at the destination and data packets lost.
    for (fi, f) in r.flows.iter().enumerate() {
        let data = if f.transport == "tcp" { "tcp" } else { "cbr" };
        let dst = node(&f.dst);
        let recv: u64 = lines
            .iter()
            .filter(|l| l.ev == 'r' && l.to == dst && l.fid == fi && l.ptype == data)
            .map(|l| l.size)
            .sum();
        assert_eq!(recv as f64 * 8.0 / 4.0, f.throughput_bps, "{}: received bytes", f.name);
        assert!(recv > 0);
        let lost = lines
            .iter()
            .filter(|l| l.ev == 'd' && l.fid == fi && l.ptype == data)
            .count() as u64;
        assert_eq!(lost, f.lost_packets, "{}: lost data packets", f.name);
        let acks = lines
            .iter()
            .filter(|l| l.ev == 'd' && l.fid == fi && l.ptype == "ack")
            .count() as u64;
        assert_eq!(acks, f.acks_lost, "{}: lost ACKs", f.name);
    }
    // A TCP ACK carries the highest in-order segment received: the ACKs
    // flow 0's receiver (at d0) sends cover exactly the segments it delivered.
    let f0 = &r.flows[0];
    let last_ack = lines
        .iter()
        .filter(|l| l.ev == '+' && l.fid == 0 && l.ptype == "ack" && l.from == node(&f0.dst))
        .map(|l| l.seq)
        .max()
        .unwrap();
    assert_eq!((last_ack as u64 + 1) * 1460, f0.delivered_bytes);
    // Packet ids are unique per packet: a packet's '+' lines are one per hop.
    let plus_per_uid = lines.iter().filter(|l| l.ev == '+').fold(HashMap::new(), |mut m, l| {
        *m.entry(l.uid).or_insert(0u32) += 1;
        m
    });
    assert!(plus_per_uid.values().all(|&n| n <= 3), "at most three hops per packet");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fast_path_and_general_path_write_the_same_ns2_lines() {
    let dir_fast = scratch("fast");
    let dir_slow = scratch("slow");
    let trace = "trace = \"ns2\"";
    run_in(&scenario("kind = \"droptail\", limit = 15", trace), &dir_fast);
    // fast_path = false on the bottleneck only: the access links stay fast.
    run_in(
        &scenario("kind = \"droptail\", limit = 15, fast_path = false", trace),
        &dir_slow,
    );
    let a = std::fs::read_to_string(dir_fast.join("trace.tr")).unwrap();
    let b = std::fs::read_to_string(dir_slow.join("trace.tr")).unwrap();
    // Two events at the same nanosecond may be processed in either order by
    // the two paths (docs/architecture.md), so compare the lines as multisets
    // and check that both are in time order.
    let mut la: Vec<&str> = a.lines().collect();
    let mut lb: Vec<&str> = b.lines().collect();
    for l in [&la, &lb] {
        let t: Vec<f64> = l
            .iter()
            .map(|x| x.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
    }
    la.sort_unstable();
    lb.sort_unstable();
    assert_eq!(la.len(), lb.len());
    assert!(la == lb, "the same lines");
    let _ = std::fs::remove_dir_all(&dir_fast);
    let _ = std::fs::remove_dir_all(&dir_slow);
}

#[test]
fn tracing_does_not_change_the_run_and_is_deterministic() {
    let q = "kind = \"red\", limit = 30";
    let strip = |mut o: RunOutput| {
        o.result.perf = ccsim_core::results::PerfResult {
            events: 0,
            wall_s: 0.0,
            events_per_s: 0.0,
            packets_forwarded: 0,
        };
        serde_json::to_string(&o.result).unwrap()
    };
    let plain = strip(run_toml(&scenario(q, ""), "t.toml", GuardOverrides::default()).unwrap());
    let d1 = scratch("det1");
    let d2 = scratch("det2");
    let a = strip(run_in(&scenario(q, "trace = \"ns2\""), &d1));
    let b = strip(run_in(&scenario(q, "trace = \"ns2\""), &d2));
    assert_eq!(plain, a);
    assert_eq!(a, b);
    assert_eq!(
        std::fs::read(d1.join("trace.tr")).unwrap(),
        std::fs::read(d2.join("trace.tr")).unwrap(),
        "same scenario and seed, same trace bytes"
    );
    let _ = std::fs::remove_dir_all(&d1);
    let _ = std::fs::remove_dir_all(&d2);
}

#[test]
fn trace_links_selects_links() {
    let dir = scratch("links");
    run_in(
        &scenario(
            "kind = \"droptail\", limit = 15",
            "trace = \"ns2\"\ntrace_links = [\"r1->r2\"]",
        ),
        &dir,
    );
    let text = std::fs::read_to_string(dir.join("trace.tr")).unwrap();
    assert!(text
        .lines()
        .all(|l| l.split(' ').nth(2) == Some("3") && l.split(' ').nth(3) == Some("4")));
    let _ = std::fs::remove_dir_all(&dir);
}

struct Record {
    ts_ns: u64,
    caplen: usize,
    len: u32,
    data: Vec<u8>,
}

fn parse_pcap(bytes: &[u8]) -> Vec<Record> {
    assert_eq!(
        u32::from_le_bytes(bytes[0..4].try_into().unwrap()),
        0xa1b2_3c4d,
        "nanosecond magic"
    );
    assert_eq!(
        u32::from_le_bytes(bytes[20..24].try_into().unwrap()),
        101,
        "LINKTYPE_RAW"
    );
    let mut out = Vec::new();
    let mut i = 24;
    while i < bytes.len() {
        let u = |k: usize| u32::from_le_bytes(bytes[i + k..i + k + 4].try_into().unwrap());
        let caplen = u(8) as usize;
        out.push(Record {
            ts_ns: u(0) as u64 * 1_000_000_000 + u(4) as u64,
            caplen,
            len: u(12),
            data: bytes[i + 16..i + 16 + caplen].to_vec(),
        });
        i += 16 + caplen;
    }
    assert_eq!(i, bytes.len(), "whole records");
    out
}

#[test]
fn pcap_files_hold_every_transmission_with_real_headers() {
    let dir = scratch("pcap");
    let out = run_in(&scenario("kind = \"droptail\", limit = 15", "trace = \"pcap\""), &dir);
    let r = &out.result;
    for lk in &r.links {
        let name = format!("{}.pcap", lk.link.replace("->", "-"));
        let recs = parse_pcap(&std::fs::read(dir.join(&name)).unwrap());
        assert_eq!(recs.len() as u64, lk.tx_packets, "{name}: one record per transmission");
        let bytes: u64 = recs.iter().map(|x| x.len as u64).sum();
        // ACKs with SACK blocks are longer in the capture than ccsim's fixed
        // 40-byte ACK (the option is written out); data packets are exact.
        let sacks: u64 = recs
            .iter()
            .filter(|x| x.caplen > 40)
            .map(|x| x.caplen as u64 - 40)
            .sum();
        assert_eq!(bytes, lk.tx_bytes + sacks, "{name}: bytes");
        assert!(recs.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns), "{name}: time order");
        for x in &recs {
            let ip = &x.data;
            assert_eq!(ip[0], 0x45);
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as u32, x.len);
            assert!(x.caplen == 28 || x.caplen >= 40);
        }
    }
    // Flow 0 (TCP, s0 -> d0): byte sequence numbers are segment numbers
    // times the MSS; the highest one sent on s0->r1 is below snd_max * MSS.
    let recs = parse_pcap(&std::fs::read(dir.join("s0-r1.pcap")).unwrap());
    let seqs: Vec<u32> = recs
        .iter()
        .filter(|x| x.data[9] == 6)
        .map(|x| u32::from_be_bytes(x.data[24..28].try_into().unwrap()))
        .collect();
    assert!(seqs.iter().all(|s| s % 1460 == 0));
    // The sender sends new segments in order: the distinct sequence numbers
    // are 0, 1460, 2920, ... without a gap; the repeats are retransmissions.
    let distinct: std::collections::BTreeSet<u32> = seqs.iter().copied().collect();
    let n = distinct.len() as u32;
    assert_eq!(
        distinct.iter().copied().collect::<Vec<_>>(),
        (0..n).map(|k| k * 1460).collect::<Vec<_>>()
    );
    let repeats = (seqs.len() - distinct.len()) as u64;
    let f0 = &r.flows[0];
    assert!(
        repeats > 0 && repeats <= f0.retransmits,
        "{repeats} repeats, {} retransmits",
        f0.retransmits
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn err_of(r: Result<RunOutput, Error>) -> Error {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn bad_trace_settings_and_folders_are_clear_errors() {
    let base = scenario("kind = \"droptail\"", "");
    let bad =
        |extra: &str| err_of(run_toml(&format!("{base}{extra}"), "t.toml", GuardOverrides::default())).to_string();
    assert_eq!(
        bad("trace = \"tcpdump\""),
        "t.toml: output.trace: unknown trace format \"tcpdump\"; expected \"none\", \"ns2\" or \"pcap\""
    );
    assert_eq!(
        bad("trace = \"ns2\"\ntrace_links = [\"r2->r3\"]"),
        "t.toml: output.trace_links[0]: unknown link \"r2->r3\" (links are named \"a->b\")"
    );
    assert!(bad("trace_links = [\"r1->r2\"]").starts_with("t.toml: output.trace_links: trace_links selects"));
    assert!(bad("trace = \"ns2\"").contains("a packet trace needs an output folder"));
    // A folder that cannot be created: a path below a regular file.
    let file = scratch("plainfile");
    std::fs::write(&file, b"x").unwrap();
    let e = err_of(run_toml_in(
        &format!("{base}trace = \"pcap\""),
        "t.toml",
        GuardOverrides::default(),
        &file.join("sub"),
    ));
    assert!(matches!(e, Error::Io(_)));
    assert!(e.to_string().starts_with(&format!(
        "cannot create the trace folder {}",
        file.join("sub").display()
    )));
    let _ = std::fs::remove_file(&file);
}
