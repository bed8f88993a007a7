//! 802.11 WLAN behaviour with exact or analytical answers: one station
//! without contention reaches the analytical maximum; the frame error models
//! corrupt the fraction of frames they should; every packet is delivered,
//! dropped by a queue or discarded by the MAC; runs are deterministic; bad
//! scenarios are reported with their key paths.

mod common;
use ccsim_core::RunOutput;
use common::*;

/// One station sending 1500-byte UDP packets to the AP at `rate`.
fn one_station(standard: &str, extra: &str, rate: &str, duration: u32) -> String {
    format!(
        r#"
name = "one"
duration = "{duration}s"
warmup = "1s"
[[nodes]]
name = "ap"
[[nodes]]
name = "s1"
[[wlans]]
ap = "ap"
stations = ["s1"]
standard = "{standard}"
{extra}
[[flows]]
src = "s1"
dst = "ap"
app = "cbr"
rate = "{rate}"
packet_size = 1500
[output]
sample_interval = "1s"
"#
    )
}

/// Per-frame timing of one configuration, microseconds, derived from the
/// standard's tables independently of the simulator's PHY code (1536-byte
/// MPDU: 1500-byte packet + 24 MAC header + 8 LLC/SNAP + 4 FCS).
struct Single {
    standard: &'static str,
    extra: &'static str,
    difs: f64,
    slot: f64,
    cw_min: f64,
    sifs: f64,
    data: f64,
    ack: f64,
    /// RTS + SIFS + CTS + SIFS when RTS/CTS is on, else 0.
    handshake: f64,
}

const SINGLES: [Single; 5] = [
    // HR/DSSS long preamble (Table 16-4): 192 + ceil(12288 / 11) us; ACK 192 + 112 us at 1 Mbps.
    Single {
        standard: "802.11b",
        extra: "",
        difs: 50.0,
        slot: 20.0,
        cw_min: 31.0,
        sifs: 10.0,
        data: 1310.0,
        ack: 304.0,
        handshake: 0.0,
    },
    // The same with RTS/CTS: RTS 192 + 160 us, CTS 304 us.
    Single {
        standard: "802.11b",
        extra: "rts_threshold = 500",
        difs: 50.0,
        slot: 20.0,
        cw_min: 31.0,
        sifs: 10.0,
        data: 1310.0,
        ack: 304.0,
        handshake: 352.0 + 10.0 + 304.0 + 10.0,
    },
    // OFDM (Table 17-21): 20 + 4 x ceil(12310 / 216) us at 54 Mbps; ACK 20 + 4 x 6 us at 6 Mbps.
    Single {
        standard: "802.11a",
        extra: "",
        difs: 34.0,
        slot: 9.0,
        cw_min: 15.0,
        sifs: 16.0,
        data: 248.0,
        ack: 44.0,
        handshake: 0.0,
    },
    // ERP-OFDM (Table 18-5), short slot, SIFS 10 us, 6 us signal extension on every PPDU.
    Single {
        standard: "802.11g",
        extra: "",
        difs: 28.0,
        slot: 9.0,
        cw_min: 15.0,
        sifs: 10.0,
        data: 254.0,
        ack: 50.0,
        handshake: 0.0,
    },
    // HT-mixed (Table 19-25), MCS 7 at 20 MHz: 36 us of preambles + 4 x ceil(12310 / 260) us.
    Single {
        standard: "802.11n",
        extra: "",
        difs: 34.0,
        slot: 9.0,
        cw_min: 15.0,
        sifs: 16.0,
        data: 228.0,
        ack: 44.0,
        handshake: 0.0,
    },
];

#[test]
fn single_station_reaches_the_analytical_maximum() {
    for c in &SINGLES {
        // Per frame: DIFS + a backoff uniform on [0, CWmin] slots (mean CWmin/2)
        // + (RTS + SIFS + CTS + SIFS) + DATA + SIFS + ACK.
        let fixed = c.difs + c.handshake + c.data + c.sifs + c.ack;
        let cycle = fixed + c.cw_min / 2.0 * c.slot;
        let max_bps = 1500.0 * 8.0 / (cycle * 1e-6);
        let out = run(&one_station(
            c.standard,
            c.extra,
            &format!("{}bps", (2.0 * max_bps).round()),
            11,
        ));
        let sta = &out.result.wlans[1];
        let ap = &out.result.wlans[0];
        let n = sta.delivered_packets as f64;
        // The throughput is a renewal-reward estimate: its relative standard
        // error is the cycle's coefficient of variation over sqrt(n) (the
        // backoff's sd is slot x sqrt(((CWmin+1)^2 - 1) / 12)); 4 standard
        // errors, plus one frame for the window's edges.
        let sd = c.slot * (((c.cw_min + 1.0).powi(2) - 1.0) / 12.0).sqrt();
        let tol = 4.0 * sd / cycle / n.sqrt() + 1.0 / n;
        let err = sta.mac_throughput_bps / max_bps - 1.0;
        eprintln!(
            "{} {}: {:.4} Mbps, analytical {:.4} Mbps ({:+.3}%, tolerance {:.3}%)",
            c.standard,
            c.extra,
            sta.mac_throughput_bps / 1e6,
            max_bps / 1e6,
            err * 100.0,
            tol * 100.0
        );
        assert!(err.abs() < tol, "{} {}: {err}", c.standard, c.extra);
        assert_eq!((sta.collisions, sta.retries, sta.mac_drops), (0, 0, 0));
        assert_eq!(sta.rts_attempts, if c.handshake > 0.0 { sta.tx_attempts } else { 0 });
        assert!(sta.queue.min_len_pkts > 0, "saturated");
        // Airtime is exact: the station sends (RTS and) DATA, the AP (CTS and) ACK,
        // per frame; frames straddling the window's edges count only in part.
        let window_us = 10e6;
        let rts = if c.handshake > 0.0 { 352.0 } else { 0.0 };
        let cts = if c.handshake > 0.0 { 304.0 } else { 0.0 };
        let sta_air = sta.airtime_fraction * window_us / (c.data + rts);
        let ap_air = ap.airtime_fraction * window_us / (c.ack + cts);
        assert!((sta_air - n).abs() <= 1.0, "{sta_air} vs {n}");
        assert!((ap_air - n).abs() <= 1.0, "{ap_air} vs {n}");
        assert!((ap.channel_busy_fraction - sta.airtime_fraction - ap.airtime_fraction).abs() < 1e-12);
    }
}

#[test]
fn frame_error_models_corrupt_the_expected_fraction() {
    // FER: each data frame independently with probability 0.2.
    let out = run(&one_station(
        "802.11b",
        "loss = { model = \"fer\", rate = 0.2 }",
        "12Mbps",
        11,
    ));
    let s = &out.result.wlans[1];
    let f = s.frame_errors as f64 / s.tx_attempts as f64;
    // Binomial standard error sqrt(0.2 x 0.8 / n); 4 of them.
    let se = (0.2f64 * 0.8 / s.tx_attempts as f64).sqrt();
    assert!((f - 0.2).abs() < 4.0 * se, "fer {f} (n = {})", s.tx_attempts);
    // Every failed attempt is retried (0.2^7 of packets would reach the retry limit).
    assert_eq!(s.retries, s.frame_errors);
    // BER: a 1536-byte data frame (12288 bits) fails with 1 - (1 - 1e-5)^12288 = 0.1156,
    // a 14-byte ACK with 1 - (1 - 1e-5)^112 = 0.0011.
    let out = run(&one_station(
        "802.11b",
        "loss = { model = \"ber\", rate = 1e-5 }",
        "12Mbps",
        11,
    ));
    let s = &out.result.wlans[1];
    let expected = 1.0 - (1.0 - 1e-5f64).powi(12288) * (1.0 - 1e-5f64).powi(112);
    let f = s.frame_errors as f64 / s.tx_attempts as f64;
    let se = (expected * (1.0 - expected) / s.tx_attempts as f64).sqrt();
    assert!((f - expected).abs() < 4.0 * se, "ber {f} vs {expected}");
}

/// A wired server behind the AP, four stations, traffic both ways and
/// between stations, frame errors, RTS/CTS for large frames, short retry
/// limits and a small drop-front AP queue: every way a packet can end.
const MIXED: &str = r#"
name = "mixed"
duration = "12s"
warmup = "2s"
seed = 5
[[nodes]]
name = "server"
[[nodes]]
name = "ap"
[[nodes]]
name = "s1"
[[nodes]]
name = "s2"
[[nodes]]
name = "s3"
[[nodes]]
name = "s4"
[[links]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "5ms"
[[wlans]]
ap = "ap"
stations = ["s1", "s2", "s3", "s4"]
standard = "802.11g"
data_rate = "24Mbps"
rts_threshold = "1000B"
retry_limit = { short = 3, long = 2 }
loss = { model = "ber", rate = 3e-5 }
queue = { kind = "droptail", limit = 30 }
ap_queue = { kind = "dropfront", limit = 20 }
[[flows]]
group = "down"
count = 2
src = "server"
dst = "s1"
app = "poisson"
rate = "5Mbps"
packet_size = 1500
[[flows]]
group = "down2"
src = "server"
dst = "s2"
app = "cbr"
rate = "3Mbps"
packet_size = 500
[[flows]]
group = "up"
src = "s3"
dst = "server"
app = "poisson"
rate = "6Mbps"
packet_size = 1200
[[flows]]
group = "peer"
src = "s4"
dst = "s1"
app = "onoff"
rate = "4Mbps"
packet_size = 800
[output]
sample_interval = "500ms"
"#;

#[test]
fn conservation_every_packet_delivered_dropped_or_discarded() {
    check_conservation(MIXED);
}

#[test]
fn interface_queues_take_any_discipline_timers_included() {
    // RED, and PIE and REM with their periodic updates, on the interfaces.
    for (q, ap) in [("red", "pie"), ("pie", "rem"), ("codel", "fq_codel")] {
        let text = MIXED
            .replace(
                "queue = { kind = \"droptail\", limit = 30 }",
                &format!("queue = {{ kind = \"{q}\", limit = 30 }}"),
            )
            .replace(
                "ap_queue = { kind = \"dropfront\", limit = 20 }",
                &format!("ap_queue = {{ kind = \"{ap}\", limit = 20 }}"),
            );
        let out = check_conservation(&text);
        if ap == "pie" {
            // PIE's drop probability is updated by its periodic timer only.
            let p = out
                .timeseries
                .series
                .iter()
                .find(|s| s.entity == "wlan0:ap" && s.metric == "drop_prob")
                .expect("PIE's probe is sampled");
            assert!(
                p.values.iter().any(|&v| v > 0.0),
                "PIE's timer runs on a WLAN interface"
            );
        }
    }
}

fn check_conservation(text: &str) -> RunOutput {
    let out = run(text);
    let r = &out.result;
    // Wireless hops are not links with queues of their own.
    assert_eq!(r.links.len(), 2);
    assert_eq!(r.queues.len(), 2);
    assert_eq!(r.wlans.len(), 5);
    let mut queue_drops = 0;
    for q in r.queues.iter().chain(r.wlans.iter().map(|w| &w.queue)) {
        assert_queue_identities(q);
        queue_drops += q.drops;
    }
    let mut mac_drops = 0;
    for w in &r.wlans {
        // Out of the queue: delivered once, or discarded at the retry limit, or still in service.
        assert_eq!(
            w.queue.dequeued + w.in_service_start,
            w.delivered_packets + w.mac_drops + w.in_service_end,
            "{}",
            w.interface
        );
        assert!(w.collisions + w.frame_errors <= w.tx_attempts);
        mac_drops += w.mac_drops;
    }
    let mut lost = 0;
    for f in &r.flows {
        assert_eq!(
            f.sent_packets + f.in_flight_start,
            f.received_packets + f.lost_packets + f.in_flight_end,
            "{}",
            f.name
        );
        assert!(f.received_packets > 0, "{}", f.name);
        lost += f.lost_packets;
    }
    assert_eq!(lost, queue_drops + mac_drops);
    // The scenario exercises every path.
    let total = |f: fn(&ccsim_core::results::WlanResult) -> u64| r.wlans.iter().map(f).sum::<u64>();
    assert!(total(|w| w.collisions) > 0);
    assert!(total(|w| w.frame_errors) > 0);
    assert!(mac_drops > 0);
    assert!(total(|w| w.mac_drops_delivered) > 0, "ACKs lost on a last attempt");
    assert!(total(|w| w.rts_attempts) > 0 && total(|w| w.rts_attempts) < total(|w| w.tx_attempts));
    let ap = &r.wlans[0];
    assert_eq!((ap.role.as_str(), ap.node.as_str()), ("ap", "ap"));
    if ap.queue.kind == "dropfront" {
        assert!(ap.queue.drops_in_queue > 0);
    }
    // The AP's one queue carries the downlink and the relayed station-to-station packets.
    assert!(
        ap.delivered_packets
            > r.flows
                .iter()
                .filter(|f| f.dst == "s2")
                .map(|f| f.received_packets)
                .sum()
    );
    // Interface queues are sampled as queues; wireless hops are not.
    let entities: Vec<&str> = out.timeseries.series.iter().map(|s| s.entity.as_str()).collect();
    assert!(entities.contains(&"wlan0:ap") && entities.contains(&"wlan0:s4"));
    assert!(!entities.contains(&"ap->s1"));
    let busy = ap.channel_busy_fraction;
    assert!(busy > 0.0 && busy <= 1.0);
    assert!(r.wlans.iter().all(|w| w.channel_busy_fraction == busy));
    out
}

#[test]
fn determinism_same_seed_same_bytes() {
    let json = |t: &str| without_perf(&run(t));
    let a = json(MIXED);
    assert_eq!(a, json(MIXED));
    assert_ne!(a, json(&MIXED.replace("seed = 5", "seed = 6")));
}

#[test]
fn station_to_station_goes_through_the_ap() {
    let text = r#"
name = "relay"
duration = "2s"
[[nodes]]
name = "ap"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[wlans]]
ap = "ap"
stations = ["a", "b"]
standard = "802.11a"
[[flows]]
src = "a"
dst = "b"
app = "cbr"
rate = "1Mbps"
packet_size = 1000
"#;
    let out = run(text);
    let f = &out.result.flows[0];
    // Two hops, each at least DIFS + DATA (1036-byte MPDU at 54 Mbps: 20 + 4 x ceil(8310 / 216) us).
    let hop = (34 + 20 + 4 * 39) as f64 * 1e-6;
    assert!(f.delay_min_s.unwrap() >= 2.0 * hop, "{:?}", f.delay_min_s);
    let w = &out.result.wlans;
    assert_eq!(w[1].delivered_packets, w[0].delivered_packets);
    assert_eq!(f.lost_packets, 0);
}

#[test]
fn errors_name_the_key() {
    let base = one_station("802.11b", "", "1Mbps", 2);
    let cases: Vec<(String, &str)> = vec![
        (
            base.replace("802.11b", "802.11x"),
            "t.toml: wlans[0].standard: unknown standard \"802.11x\"",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\ndata_rate = \"54Mbps\"",
            ),
            "t.toml: wlans[0].data_rate: 802.11b has no rate of 54000000 bps",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11a\"\nbasic_rate = \"1Mbps\"",
            ),
            "t.toml: wlans[0].basic_rate: 802.11a has no rate of 1000000 bps",
        ),
        (
            base.replace("stations = [\"s1\"]", "stations = [\"s1\", \"s1\"]"),
            "t.toml: wlans[0].stations[1]: station \"s1\" is listed twice",
        ),
        (
            base.replace("stations = [\"s1\"]", "stations = [\"ap\"]"),
            "t.toml: wlans[0].stations[0]: \"ap\" is the WLAN's access point",
        ),
        (
            base.replace("stations = [\"s1\"]", "stations = [\"s9\"]"),
            "t.toml: wlans[0].stations[0]: unknown node \"s9\"",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\ncw_min = 63\ncw_max = 31",
            ),
            "t.toml: wlans[0].cw_max: cw_max (31) must not be below cw_min (63)",
        ),
        (
            base.replace("standard = \"802.11b\"", "standard = \"802.11b\"\nretry_limit = 0"),
            "t.toml: wlans[0].retry_limit: expected a number of attempts from 1 to 255, got 0",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nretry_limit = { short = 7, lng = 4 }",
            ),
            "t.toml: wlans[0].retry_limit.lng: unknown key",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nloss = { model = \"fer\", rate = 1.5 }",
            ),
            "t.toml: wlans[0].loss.rate: expected a probability in [0, 1)",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nloss = { model = \"snr\", rate = 0.1 }",
            ),
            "t.toml: wlans[0].loss.model: unknown frame error model \"snr\"",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nqueue = { kind = \"fancy\" }",
            ),
            "t.toml: wlans[0].queue.kind: unknown queue discipline \"fancy\"",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nqueue = { kind = \"modred\" }",
            ),
            "t.toml: wlans[0].queue.kind: queue discipline \"modred\" acts on packets of the reverse direction",
        ),
        (
            base.replace(
                "standard = \"802.11b\"",
                "standard = \"802.11b\"\nqueue = { kind = \"cake\", bandwidth = \"1Mbps\" }",
            ),
            "t.toml: wlans[0].queue.kind: queue discipline \"cake\" is shaping",
        ),
        (
            base.replace("[[wlans]]", "[[wlans]]\nname = \"a:b\""),
            "t.toml: wlans[0].name: a WLAN name must be non-empty and without ':'",
        ),
        (
            base.replace("standard = \"802.11b\"", "standard = \"802.11b\"\nchannel = 6"),
            "t.toml: wlans[0].channel: unknown key `channel`, expected one of `name`, `ap`, `stations`",
        ),
    ];
    for (text, expected) in cases {
        let msg = run_err(&text);
        assert!(msg.starts_with(expected), "expected {expected:?}\n     got {msg:?}");
    }
}

#[test]
fn the_documented_example_runs_as_described() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenarios.md")).unwrap();
    let section = &doc[doc.find("## Wireless LANs").expect("section")..];
    let start = section.find("```toml\n").expect("example") + "```toml\n".len();
    let end = start + section[start..].find("```").expect("end of example");
    let out = run(&section[start..end]);
    let r = &out.result;
    let flow = |g: &str| r.flows.iter().find(|f| f.group == g).unwrap();
    // "voice and video get through without loss"; the download is limited by the AP's queue.
    assert_eq!(flow("voice").lost_packets + flow("video").lost_packets, 0);
    let ap = &r.wlans[0];
    assert_eq!((ap.interface.as_str(), ap.queue.kind.as_str()), ("office:ap", "codel"));
    assert!(ap.queue.drops > 0 && flow("download").lost_packets == ap.queue.drops);
    assert!(flow("download").goodput_bps > 10e6);
}

#[test]
fn interface_queues_are_sampled_by_name() {
    let text = one_station("802.11b", "", "1Mbps", 2).replace(
        "sample_interval = \"1s\"",
        "sample_interval = \"1s\"\nsample_links = [\"wlan0:s1\"]",
    );
    let out = run(&text);
    let entities: Vec<(&str, &str)> = out
        .timeseries
        .series
        .iter()
        .filter(|s| s.entity_kind == "queue")
        .map(|s| (s.entity.as_str(), s.metric.as_str()))
        .collect();
    assert_eq!(entities, vec![("wlan0:s1", "len_pkts"), ("wlan0:s1", "len_bytes")]);
    let bad = text.replace("[\"wlan0:s1\"]", "[\"s1->ap\"]");
    assert!(run_err(&bad).starts_with("t.toml: output.sample_links[0]: unknown link \"s1->ap\""));
}
