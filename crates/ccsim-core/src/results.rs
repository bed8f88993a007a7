//! The results of a run: per-flow, per-queue, per-link and per-WLAN-interface
//! tables, the summary, and performance counters, all over the metrics
//! window. The JSON keys here are a public interface (docs/results.md).
//! Wireless hops have no queue or transmitter of their own: they appear in
//! `wlans`, not in `queues` or `links`.

use crate::metrics::jain_index;
use crate::queue::Queue;
use crate::sampler::Series;
use crate::sim::Simulation;
use serde::Serialize;

/// One flow's results.
#[derive(Serialize, Debug, Clone)]
pub struct FlowResult {
    /// "<group>.<k>".
    pub name: String,
    /// Group label.
    pub group: String,
    /// Source node.
    pub src: String,
    /// Destination node.
    pub dst: String,
    /// Transport name.
    pub transport: String,
    /// Application name.
    pub app: String,
    /// Start time, s.
    pub start_s: f64,
    /// Data packets sent (including retransmissions).
    pub sent_packets: u64,
    /// Data bytes sent (wire).
    pub sent_bytes: u64,
    /// Data packets received (duplicates included).
    pub received_packets: u64,
    /// Unique payload bytes delivered to the application.
    pub delivered_bytes: u64,
    /// delivered_bytes * 8 / window.
    pub goodput_bps: f64,
    /// Data bytes (wire) arriving * 8 / window.
    pub throughput_bps: f64,
    /// Data packets dropped in the network.
    pub lost_packets: u64,
    /// lost / sent.
    pub loss_rate: f64,
    /// Data packets in flight when the window opened.
    pub in_flight_start: u64,
    /// Data packets in flight at the end.
    pub in_flight_end: u64,
    /// ACKs sent by the receiver.
    pub acks_sent: u64,
    /// ACKs lost.
    pub acks_lost: u64,
    /// Mean one-way delay of received data packets, s.
    pub delay_mean_s: Option<f64>,
    /// Minimum one-way delay, s.
    pub delay_min_s: Option<f64>,
    /// Maximum one-way delay, s.
    pub delay_max_s: Option<f64>,
    /// 99th percentile one-way delay (nearest rank, from a log-linear
    /// histogram: at most 0.4% above the exact value), s.
    pub delay_p99_s: Option<f64>,
    /// Mean absolute difference of consecutive one-way delays, s.
    pub jitter_s: Option<f64>,
    /// Retransmitted data packets.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Time-weighted mean congestion window over the metrics window from the
    /// flow's start, packets (window-based transports): the window's time
    /// integral, kept exactly by the kernel after each of the sender's
    /// callbacks, divided by the time; independent of `sample_interval`.
    pub cwnd_mean_pkts: Option<f64>,
    /// Time-weighted mean of the sender's smoothed RTT over the metrics
    /// window from its first RTT estimate, s (transports with an estimate):
    /// kept exactly as `cwnd_mean_pkts` is; independent of `sample_interval`.
    pub srtt_mean_s: Option<f64>,
    /// Flow completion time of finite flows, s.
    pub fct_s: Option<f64>,
    /// Included in Jain's index.
    pub fairness: bool,
}

/// One flow group's results: its flows aggregated (flows sharing a `group`
/// label, in the order the labels first appear).
#[derive(Serialize, Debug, Clone)]
pub struct GroupResult {
    /// The group label.
    pub group: String,
    /// Transport name(s) of its flows (comma-separated if they differ).
    pub transport: String,
    /// Application name(s) of its flows.
    pub app: String,
    /// Number of flows.
    pub flows: u64,
    /// Flows that started before the end of the run.
    pub started: u64,
    /// Finite flows that delivered all their data.
    pub completed: u64,
    /// Sum of the flows' goodput.
    pub goodput_bps: f64,
    /// Sum of the flows' throughput.
    pub throughput_bps: f64,
    /// goodput_bps / flows.
    pub goodput_per_flow_bps: f64,
    /// Data packets sent, all flows.
    pub sent_packets: u64,
    /// Data packets lost, all flows.
    pub lost_packets: u64,
    /// lost / sent.
    pub loss_rate: f64,
    /// Jain's index over the flows' goodput.
    pub jain_index: f64,
    /// Mean flow completion time of the completed flows, s.
    pub fct_mean_s: Option<f64>,
    /// Median flow completion time (nearest rank), s.
    pub fct_p50_s: Option<f64>,
    /// 90th percentile flow completion time (nearest rank), s.
    pub fct_p90_s: Option<f64>,
    /// 99th percentile flow completion time (nearest rank), s.
    pub fct_p99_s: Option<f64>,
    /// Largest flow completion time, s.
    pub fct_max_s: Option<f64>,
}

/// One queue's results.
#[derive(Serialize, Debug, Clone)]
pub struct QueueResult {
    /// "a->b" (for a WLAN interface queue, the interface: "wlan0:ap").
    pub link: String,
    /// Discipline name.
    pub kind: String,
    /// Packets offered.
    pub arrivals: u64,
    /// Packets accepted.
    pub enqueued: u64,
    /// Packets sent to the link.
    pub dequeued: u64,
    /// All drops.
    pub drops: u64,
    /// Drops of arriving packets.
    pub drops_on_arrival: u64,
    /// Drops of queued packets.
    pub drops_in_queue: u64,
    /// Random early drops.
    pub early_drops: u64,
    /// Overflow and forced drops.
    pub forced_drops: u64,
    /// ECN marks.
    pub marks: u64,
    /// Reverse-direction packets rewritten (ModRED).
    pub rewrites: u64,
    /// drops / arrivals.
    pub loss_rate: f64,
    /// Time-averaged packets waiting.
    pub avg_len_pkts: f64,
    /// Time-averaged bytes waiting.
    pub avg_len_bytes: f64,
    /// Largest packets waiting.
    pub max_len_pkts: u64,
    /// Smallest packets waiting.
    pub min_len_pkts: u64,
    /// Mean wait from enqueue to start of transmission, s.
    pub avg_sojourn_s: f64,
    /// Largest wait, s.
    pub max_sojourn_s: f64,
    /// Packets waiting when the window opened.
    pub backlog_start_pkts: u64,
    /// Packets waiting at the end.
    pub backlog_end_pkts: u64,
}

/// One link direction's results.
#[derive(Serialize, Debug, Clone)]
pub struct LinkResult {
    /// "a->b".
    pub link: String,
    /// Rate, bits per second.
    pub rate_bps: u64,
    /// Propagation delay, s.
    pub delay_s: f64,
    /// Bytes whose transmission started in the window.
    pub tx_bytes: u64,
    /// Packets whose transmission started in the window.
    pub tx_packets: u64,
    /// Fraction of the window the transmitter was busy: bits sent inside the
    /// window / (rate x window).
    pub utilization: f64,
    /// Packets lost to the link's loss model.
    pub lost_packets: u64,
}

/// One WLAN interface's results (802.11 DCF).
#[derive(Serialize, Debug, Clone)]
pub struct WlanResult {
    /// The WLAN's name.
    pub wlan: String,
    /// "<wlan>:<node>".
    pub interface: String,
    /// The node.
    pub node: String,
    /// "ap" or "station".
    pub role: String,
    /// "802.11b", "802.11a", "802.11g" or "802.11n".
    pub standard: String,
    /// Data frame rate, bits per second.
    pub data_rate_bps: u64,
    /// Control frame rate, bits per second.
    pub basic_rate_bps: u64,
    /// Channel accesses: data frames or RTS frames that start an exchange.
    pub tx_attempts: u64,
    /// Of which RTS frames.
    pub rts_attempts: u64,
    /// Attempts that collided with another station's.
    pub collisions: u64,
    /// collisions / tx_attempts.
    pub collision_rate: f64,
    /// Attempts that failed because the error model corrupted a frame.
    pub frame_errors: u64,
    /// Attempts that were retransmissions.
    pub retries: u64,
    /// Packets received by the next hop.
    pub delivered_packets: u64,
    /// Their bytes (without MAC overhead).
    pub delivered_bytes: u64,
    /// delivered_bytes * 8 / window.
    pub mac_throughput_bps: f64,
    /// Packets discarded at the retry limit (lost packets of their flows).
    pub mac_drops: u64,
    /// Frames discarded at the retry limit whose packet had been received (ACKs lost).
    pub mac_drops_delivered: u64,
    /// Packets in service (out of the queue, not yet delivered or discarded) when the window opened.
    pub in_service_start: u64,
    /// Packets in service at the end.
    pub in_service_end: u64,
    /// Fraction of the window this interface's transmissions occupied the channel.
    pub airtime_fraction: f64,
    /// Fraction of the window the channel carried at least one transmission (same for the whole WLAN).
    pub channel_busy_fraction: f64,
    /// The interface queue.
    pub queue: QueueResult,
}

/// Whole-run summary.
#[derive(Serialize, Debug, Clone)]
pub struct Summary {
    /// Sum of the flows' goodput.
    pub goodput_bps: f64,
    /// Sum of the flows' throughput.
    pub throughput_bps: f64,
    /// Jain's index over the goodput of the fairness flows.
    pub jain_index: f64,
    /// Data packets lost / sent, all flows.
    pub loss_rate: f64,
    /// Utilization of the bottleneck (the scenario's, or the busiest link in a graph).
    pub bottleneck_utilization: f64,
    /// Time-averaged queue at the bottleneck, packets.
    pub bottleneck_avg_queue_pkts: f64,
    /// Which link is taken as the bottleneck.
    pub bottleneck_link: String,
}

/// Performance counters.
#[derive(Serialize, Debug, Clone)]
pub struct PerfResult {
    /// Events processed.
    pub events: u64,
    /// Wall time of the event loop, s.
    pub wall_s: f64,
    /// events / wall_s.
    pub events_per_s: f64,
    /// Link transmissions (packet hops).
    pub packets_forwarded: u64,
}

/// Everything `summary.json` holds.
#[derive(Serialize, Debug, Clone)]
pub struct RunResult {
    /// Scenario name.
    pub name: String,
    /// Seed.
    pub seed: u64,
    /// ccsim version.
    pub version: String,
    /// Duration, s.
    pub duration_s: f64,
    /// Warmup, s.
    pub warmup_s: f64,
    /// Per-flow results.
    pub flows: Vec<FlowResult>,
    /// Per-group results.
    pub groups: Vec<GroupResult>,
    /// Per-queue results.
    pub queues: Vec<QueueResult>,
    /// Per-link results.
    pub links: Vec<LinkResult>,
    /// Per-interface results of the wireless LANs.
    pub wlans: Vec<WlanResult>,
    /// Summary.
    pub summary: Summary,
    /// Performance (wall-clock dependent; excluded from determinism checks).
    pub perf: PerfResult,
}

/// The sampled time series.
#[derive(Debug, Clone, Default)]
pub struct TimeSeries {
    /// Sample times, s.
    pub time_s: Vec<f64>,
    /// Series.
    pub series: Vec<Series>,
    /// Per flow that received data in the window: the distribution of its
    /// one-way delays.
    pub delays: Vec<DelayHistogram>,
}

/// One flow's one-way delays over the metrics window, as the non-empty
/// buckets of its log-linear histogram ([`crate::histogram`]: a bucket's
/// upper edge is within 0.4% of every value in it). Bounded: at most 256
/// buckets per doubling of the delay, whatever the number of packets.
#[derive(Debug, Clone, Default)]
pub struct DelayHistogram {
    /// The flow's name.
    pub flow: String,
    /// Upper edge of each bucket, s (the largest value it can hold, clamped
    /// to the largest delay seen), increasing.
    pub upper_s: Vec<f64>,
    /// Packets per bucket.
    pub counts: Vec<f64>,
}

impl DelayHistogram {
    /// The delay histograms of the flows of a finished simulation.
    pub fn collect(sim: &Simulation) -> Vec<DelayHistogram> {
        sim.flows
            .iter()
            .filter(|f| !f.stats.delays_ns.is_empty())
            .map(|f| {
                let (upper_s, counts) = f
                    .stats
                    .delays_ns
                    .buckets()
                    .map(|(u, n)| (u as f64 * 1e-9, n as f64))
                    .unzip();
                DelayHistogram {
                    flow: f.name.clone(),
                    upper_s,
                    counts,
                }
            })
            .collect()
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

fn secs(ns: u64) -> f64 {
    ns as f64 * 1e-9
}

fn queue_result(name: &str, queue: &Queue, window_ns: f64) -> QueueResult {
    let q = &queue.window_stats();
    QueueResult {
        link: name.to_string(),
        kind: queue.kind().to_string(),
        arrivals: q.arrivals,
        enqueued: q.enqueued,
        dequeued: q.dequeued,
        drops: q.drops,
        drops_on_arrival: q.drops_on_arrival,
        drops_in_queue: q.drops_in_queue,
        early_drops: q.early_drops,
        forced_drops: q.forced_drops,
        marks: q.marks,
        rewrites: q.rewrites,
        loss_rate: ratio(q.drops as f64, q.arrivals as f64),
        avg_len_pkts: ratio(q.len_pkts_integral as f64, window_ns),
        avg_len_bytes: ratio(q.len_bytes_integral as f64, window_ns),
        max_len_pkts: q.max_len_pkts,
        min_len_pkts: q.min_len_pkts,
        avg_sojourn_s: ratio(q.sojourn_sum_ns as f64, q.dequeued as f64) * 1e-9,
        max_sojourn_s: secs(q.sojourn_max_ns),
        backlog_start_pkts: q.backlog_start,
        backlog_end_pkts: queue.len_pkts() as u64,
    }
}

/// The nearest-rank quantile (the ceil(q n)-th smallest) of sorted values.
fn nearest_rank(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

fn push_unique(list: &mut String, name: &str) {
    if !list.split(',').any(|x| x == name) {
        if !list.is_empty() {
            list.push(',');
        }
        list.push_str(name);
    }
}

/// Aggregate the flows by group label, in first-appearance order.
pub fn groups_of(flows: &[FlowResult], started: &[bool]) -> Vec<GroupResult> {
    // Members of each label, labels in first-appearance order (the map is
    // only looked up, never iterated, so the order stays deterministic).
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut members: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        let g = *index.entry(f.group.as_str()).or_insert_with(|| {
            members.push((f.group.as_str(), Vec::new()));
            members.len() - 1
        });
        members[g].1.push(i);
    }
    members
        .into_iter()
        .map(|(g, members)| {
            let (mut transport, mut app) = (String::new(), String::new());
            for &i in &members {
                push_unique(&mut transport, &flows[i].transport);
                push_unique(&mut app, &flows[i].app);
            }
            let mut fct: Vec<f64> = members.iter().filter_map(|&i| flows[i].fct_s).collect();
            fct.sort_by(f64::total_cmp);
            let goodput: f64 = members.iter().map(|&i| flows[i].goodput_bps).sum();
            let sent: u64 = members.iter().map(|&i| flows[i].sent_packets).sum();
            let lost: u64 = members.iter().map(|&i| flows[i].lost_packets).sum();
            let gp: Vec<f64> = members.iter().map(|&i| flows[i].goodput_bps).collect();
            GroupResult {
                group: g.to_string(),
                transport,
                app,
                flows: members.len() as u64,
                started: members.iter().filter(|&&i| started[i]).count() as u64,
                completed: fct.len() as u64,
                goodput_bps: goodput,
                throughput_bps: members.iter().map(|&i| flows[i].throughput_bps).sum(),
                goodput_per_flow_bps: ratio(goodput, members.len() as f64),
                sent_packets: sent,
                lost_packets: lost,
                loss_rate: ratio(lost as f64, sent as f64),
                jain_index: jain_index(&gp),
                fct_mean_s: (!fct.is_empty()).then(|| fct.iter().sum::<f64>() / fct.len() as f64),
                fct_p50_s: nearest_rank(&fct, 0.5),
                fct_p90_s: nearest_rank(&fct, 0.9),
                fct_p99_s: nearest_rank(&fct, 0.99),
                fct_max_s: fct.last().copied(),
            }
        })
        .collect()
}

/// A column's type in the tables' files (CSV, Parquet): an optional
/// number is a float column whose missing values are NaN (docs/results.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    /// A whole number.
    Int,
    /// A real number.
    Float,
    /// True or false.
    Bool,
    /// Text.
    Text,
}

/// One column of a result table: its name, unit (empty: none) and type;
/// `nullable` when a row may have no value.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnSpec {
    /// The column's name (the JSON key of the row).
    pub name: std::borrow::Cow<'static, str>,
    /// Its unit ("s", "bit/s", "packets", ...; empty for names and labels).
    pub unit: &'static str,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ColumnKind,
    /// A row may have no value (JSON null).
    pub nullable: bool,
}

const fn col(name: &'static str, unit: &'static str, kind: ColumnKind, nullable: bool) -> ColumnSpec {
    ColumnSpec {
        name: std::borrow::Cow::Borrowed(name),
        unit,
        kind,
        nullable,
    }
}

/// The columns of `flows`.
pub const FLOWS_COLUMNS: &[ColumnSpec] = &[
    col("name", "", ColumnKind::Text, false),
    col("group", "", ColumnKind::Text, false),
    col("src", "", ColumnKind::Text, false),
    col("dst", "", ColumnKind::Text, false),
    col("transport", "", ColumnKind::Text, false),
    col("app", "", ColumnKind::Text, false),
    col("start_s", "s", ColumnKind::Float, false),
    col("sent_packets", "packets", ColumnKind::Int, false),
    col("sent_bytes", "bytes", ColumnKind::Int, false),
    col("received_packets", "packets", ColumnKind::Int, false),
    col("delivered_bytes", "bytes", ColumnKind::Int, false),
    col("goodput_bps", "bit/s", ColumnKind::Float, false),
    col("throughput_bps", "bit/s", ColumnKind::Float, false),
    col("lost_packets", "packets", ColumnKind::Int, false),
    col("loss_rate", "fraction", ColumnKind::Float, false),
    col("in_flight_start", "packets", ColumnKind::Int, false),
    col("in_flight_end", "packets", ColumnKind::Int, false),
    col("acks_sent", "packets", ColumnKind::Int, false),
    col("acks_lost", "packets", ColumnKind::Int, false),
    col("delay_mean_s", "s", ColumnKind::Float, true),
    col("delay_min_s", "s", ColumnKind::Float, true),
    col("delay_max_s", "s", ColumnKind::Float, true),
    col("delay_p99_s", "s", ColumnKind::Float, true),
    col("jitter_s", "s", ColumnKind::Float, true),
    col("retransmits", "packets", ColumnKind::Int, false),
    col("timeouts", "count", ColumnKind::Int, false),
    col("fast_retransmits", "count", ColumnKind::Int, false),
    col("cwnd_mean_pkts", "packets", ColumnKind::Float, true),
    col("srtt_mean_s", "s", ColumnKind::Float, true),
    col("fct_s", "s", ColumnKind::Float, true),
    col("fairness", "bool", ColumnKind::Bool, false),
];
/// The columns of `groups`.
pub const GROUPS_COLUMNS: &[ColumnSpec] = &[
    col("group", "", ColumnKind::Text, false),
    col("transport", "", ColumnKind::Text, false),
    col("app", "", ColumnKind::Text, false),
    col("flows", "count", ColumnKind::Int, false),
    col("started", "count", ColumnKind::Int, false),
    col("completed", "count", ColumnKind::Int, false),
    col("goodput_bps", "bit/s", ColumnKind::Float, false),
    col("throughput_bps", "bit/s", ColumnKind::Float, false),
    col("goodput_per_flow_bps", "bit/s", ColumnKind::Float, false),
    col("sent_packets", "packets", ColumnKind::Int, false),
    col("lost_packets", "packets", ColumnKind::Int, false),
    col("loss_rate", "fraction", ColumnKind::Float, false),
    col("jain_index", "1/n..1", ColumnKind::Float, false),
    col("fct_mean_s", "s", ColumnKind::Float, true),
    col("fct_p50_s", "s", ColumnKind::Float, true),
    col("fct_p90_s", "s", ColumnKind::Float, true),
    col("fct_p99_s", "s", ColumnKind::Float, true),
    col("fct_max_s", "s", ColumnKind::Float, true),
];
/// The columns of `queues`.
pub const QUEUES_COLUMNS: &[ColumnSpec] = &[
    col("link", "", ColumnKind::Text, false),
    col("kind", "", ColumnKind::Text, false),
    col("arrivals", "packets", ColumnKind::Int, false),
    col("enqueued", "packets", ColumnKind::Int, false),
    col("dequeued", "packets", ColumnKind::Int, false),
    col("drops", "packets", ColumnKind::Int, false),
    col("drops_on_arrival", "packets", ColumnKind::Int, false),
    col("drops_in_queue", "packets", ColumnKind::Int, false),
    col("early_drops", "packets", ColumnKind::Int, false),
    col("forced_drops", "packets", ColumnKind::Int, false),
    col("marks", "packets", ColumnKind::Int, false),
    col("rewrites", "packets", ColumnKind::Int, false),
    col("loss_rate", "fraction", ColumnKind::Float, false),
    col("avg_len_pkts", "packets", ColumnKind::Float, false),
    col("avg_len_bytes", "bytes", ColumnKind::Float, false),
    col("max_len_pkts", "packets", ColumnKind::Int, false),
    col("min_len_pkts", "packets", ColumnKind::Int, false),
    col("avg_sojourn_s", "s", ColumnKind::Float, false),
    col("max_sojourn_s", "s", ColumnKind::Float, false),
    col("backlog_start_pkts", "packets", ColumnKind::Int, false),
    col("backlog_end_pkts", "packets", ColumnKind::Int, false),
];
/// The columns of `links`.
pub const LINKS_COLUMNS: &[ColumnSpec] = &[
    col("link", "", ColumnKind::Text, false),
    col("rate_bps", "bit/s", ColumnKind::Int, false),
    col("delay_s", "s", ColumnKind::Float, false),
    col("tx_bytes", "bytes", ColumnKind::Int, false),
    col("tx_packets", "packets", ColumnKind::Int, false),
    col("utilization", "fraction", ColumnKind::Float, false),
    col("lost_packets", "packets", ColumnKind::Int, false),
];
/// The columns of `wlans`.
pub const WLANS_COLUMNS: &[ColumnSpec] = &[
    col("wlan", "", ColumnKind::Text, false),
    col("interface", "", ColumnKind::Text, false),
    col("node", "", ColumnKind::Text, false),
    col("role", "", ColumnKind::Text, false),
    col("standard", "", ColumnKind::Text, false),
    col("data_rate_bps", "bit/s", ColumnKind::Int, false),
    col("basic_rate_bps", "bit/s", ColumnKind::Int, false),
    col("tx_attempts", "frames", ColumnKind::Int, false),
    col("rts_attempts", "frames", ColumnKind::Int, false),
    col("collisions", "frames", ColumnKind::Int, false),
    col("collision_rate", "fraction", ColumnKind::Float, false),
    col("frame_errors", "frames", ColumnKind::Int, false),
    col("retries", "frames", ColumnKind::Int, false),
    col("delivered_packets", "packets", ColumnKind::Int, false),
    col("delivered_bytes", "bytes", ColumnKind::Int, false),
    col("mac_throughput_bps", "bit/s", ColumnKind::Float, false),
    col("mac_drops", "packets", ColumnKind::Int, false),
    col("mac_drops_delivered", "frames", ColumnKind::Int, false),
    col("in_service_start", "packets", ColumnKind::Int, false),
    col("in_service_end", "packets", ColumnKind::Int, false),
    col("airtime_fraction", "fraction", ColumnKind::Float, false),
    col("channel_busy_fraction", "fraction", ColumnKind::Float, false),
];

/// The column schema of every table (names, units, types), as summary.json's
/// `schema` and `ccsim._core.result_schema()` give it: the tables in the
/// order of the files, the columns in the order of the rows' keys; a WLAN
/// interface's `queue` is spread into `queue_<column>` columns.
pub fn schema() -> Vec<(&'static str, Vec<ColumnSpec>)> {
    let mut wlans = WLANS_COLUMNS.to_vec();
    wlans.extend(QUEUES_COLUMNS.iter().map(|c| ColumnSpec {
        name: format!("queue_{}", c.name).into(),
        ..c.clone()
    }));
    vec![
        ("flows", FLOWS_COLUMNS.to_vec()),
        ("groups", GROUPS_COLUMNS.to_vec()),
        ("queues", QUEUES_COLUMNS.to_vec()),
        ("links", LINKS_COLUMNS.to_vec()),
        ("wlans", wlans),
    ]
}

/// One queue as the engine configured it (the results' `components`): the
/// scenario key it came from (or that would give it: the queue was
/// defaulted when the key is absent from the scenario), the resolved
/// discipline, profile and limits, and the discipline's own parameters as
/// given (its defaults are the ones docs/algorithms.md lists).
#[derive(Clone, Debug, Serialize)]
pub struct QueueComponent {
    /// The link ("a->b").
    pub link: String,
    /// The scenario key ("topology.bottleneck.queue", "links[2].queue_ab").
    pub key: String,
    /// The discipline (`kind`, "droptail" when not given).
    pub kind: String,
    /// The compatibility profile in force for it.
    pub compat: String,
    /// Limit on waiting packets (the link's default when not given), or none.
    pub limit_pkts: Option<u64>,
    /// Limit on waiting bytes, or none.
    pub limit_bytes: Option<u64>,
    /// The discipline's own parameters as given (every key but `kind`,
    /// `compat`, `limit` and `limit_bytes`).
    pub params: crate::params::Params,
    /// The discipline's parameters as the engine built it: every key of its
    /// `*Config`, defaults filled in (`crate::params::resolving`; times in
    /// seconds, rates in bit/s, sizes in bytes; null where the default is
    /// the compatibility profile's or is derived at run time). An external
    /// (`SCHEME:NAME`) discipline's are its parameters as given.
    pub config: crate::params::Params,
    /// The scenario's bottleneck (the dumbbell's `topology.bottleneck`, in
    /// its forward direction, or the a->b direction of the link with
    /// `bottleneck = true`): the summary's `bottleneck_*` figures are this
    /// link's.
    pub bottleneck: bool,
}

/// One flow group as the engine configured it (the results' `components`).
#[derive(Clone, Debug, Serialize)]
pub struct FlowGroupComponent {
    /// The group's label (`group`, or "g<index>").
    pub group: String,
    /// The scenario key ("flows[0]").
    pub key: String,
    /// Its flows (for a `web` group: the transfers it made).
    pub flows: usize,
    /// The group's `count` (default 1; for a `web` group: the transfers
    /// that may arrive).
    pub count: u64,
    /// When its flows start (for a `web` group: when arrivals begin):
    /// seconds, or `{"uniform": [low, high]}` in seconds, drawn per flow.
    pub start: serde_json::Value,
    /// When its applications stop sending (for a `web` group: when
    /// arrivals end), seconds: the group's `stop`, or the end of the run.
    pub stop: f64,
    /// The transport ("udp" when not given).
    pub transport: String,
    /// The application.
    pub app: String,
    /// The congestion controller of a TCP group (the engine's default when
    /// not given); none for other transports.
    pub cc: Option<String>,
    /// The compatibility profile in force for it.
    pub compat: String,
    /// The group's other keys as given (the transport's, the controller's and
    /// the application's parameters).
    pub params: crate::params::Params,
    /// The transport's and the application's parameters as the engine built
    /// the group's flows: every key of their `*Config`s, defaults filled in,
    /// a TCP group's `cc_params` those of its controller's config (units
    /// and nulls as in [`QueueComponent::config`]).
    pub config: crate::params::Params,
}

/// The loss model of a link direction as the engine built it.
#[derive(Clone, Debug, Serialize)]
pub struct LossComponent {
    /// The link ("a->b").
    pub link: String,
    /// The model and its parameters, defaults filled in.
    #[serde(flatten)]
    pub model: crate::link::LossModel,
}

/// Every configured component of a run: written into summary.json as
/// `components`, so that readers (labels, reports) never resolve the
/// scenario themselves.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Components {
    /// The queue of every wired link, in link order.
    pub queues: Vec<QueueComponent>,
    /// Every flow group, in the scenario's order.
    pub flow_groups: Vec<FlowGroupComponent>,
    /// The loss model of every link direction that has one, in link order.
    pub losses: Vec<LossComponent>,
}

impl Components {
    /// The components of a built simulation.
    pub fn collect(sim: &Simulation) -> Components {
        Components {
            queues: sim
                .links
                .iter()
                .filter_map(|l| l.queue().and_then(|q| q.config.as_deref()))
                .cloned()
                .collect(),
            flow_groups: sim.flow_groups.clone(),
            losses: sim
                .links
                .iter()
                .filter_map(|l| {
                    l.loss.as_ref().map(|m| LossComponent {
                        link: l.name.clone(),
                        model: m.model().clone(),
                    })
                })
                .collect(),
        }
    }
}

impl RunResult {
    /// Collect the results of a finished simulation.
    pub fn collect(sim: &Simulation) -> RunResult {
        let window = (sim.duration - sim.warmup).secs_f64();
        let window_ns = (sim.duration - sim.warmup).0 as f64;
        let node = |id: crate::packet::NodeId| sim.nodes[id.0 as usize].name.clone();
        let flows: Vec<FlowResult> = sim
            .flows
            .iter()
            .map(|f| {
                let s = &f.stats;
                let w = s.window();
                let d = &s.delays_ns;
                FlowResult {
                    name: f.name.clone(),
                    group: f.group.clone(),
                    src: node(f.src),
                    dst: node(f.dst),
                    transport: f.sender.name().to_string(),
                    app: f.app.name().to_string(),
                    start_s: f.start.secs_f64(),
                    sent_packets: w.sent_packets,
                    sent_bytes: w.sent_bytes,
                    received_packets: w.received_packets,
                    delivered_bytes: w.delivered_bytes,
                    goodput_bps: ratio(w.delivered_bytes as f64 * 8.0, window),
                    throughput_bps: ratio(w.received_bytes as f64 * 8.0, window),
                    lost_packets: w.lost_packets,
                    loss_rate: ratio(w.lost_packets as f64, w.sent_packets as f64),
                    in_flight_start: s.in_flight_start,
                    in_flight_end: s.in_flight,
                    acks_sent: w.acks_sent,
                    acks_lost: w.acks_lost,
                    delay_mean_s: d.mean().map(|m| m * 1e-9),
                    delay_min_s: d.min().map(secs),
                    delay_max_s: d.max().map(secs),
                    delay_p99_s: d.quantile(0.99).map(secs),
                    jitter_s: (s.jitter_n > 0).then(|| s.jitter_sum_ns as f64 / s.jitter_n as f64 * 1e-9),
                    retransmits: w.retransmits,
                    timeouts: w.timeouts,
                    fast_retransmits: w.fast_retransmits,
                    cwnd_mean_pkts: w.cwnd_mean_pkts(),
                    srtt_mean_s: w.srtt_mean_s(),
                    fct_s: match (s.completed_at, s.started_at) {
                        (Some(c), Some(st)) => Some((c - st).secs_f64()),
                        _ => None,
                    },
                    fairness: f.fairness,
                }
            })
            .collect();
        let started: Vec<bool> = sim.flows.iter().map(|f| f.stats.started_at.is_some()).collect();
        let groups = groups_of(&flows, &started);
        // Links with a queue of their own (not a WLAN's ports).
        let wired = || sim.links.iter().filter_map(|l| l.queue().map(|q| (l, q)));
        let queues: Vec<QueueResult> = wired().map(|(l, q)| queue_result(&l.name, q, window_ns)).collect();
        let links: Vec<LinkResult> = wired()
            .map(|(l, _)| LinkResult {
                link: l.name.clone(),
                rate_bps: l.rate_bps,
                delay_s: l.delay.secs_f64(),
                tx_bytes: l.stats.tx_bytes,
                tx_packets: l.stats.tx_packets,
                utilization: ratio(l.stats.busy_ns as f64, window_ns),
                lost_packets: l.stats.lost_packets,
            })
            .collect();
        let mut wlans = Vec::new();
        for w in crate::wlan::wlans(&sim.media) {
            let busy = ratio(w.busy_ns as f64, window_ns);
            for f in &w.ifaces {
                let s = &f.stats;
                wlans.push(WlanResult {
                    wlan: w.name.clone(),
                    interface: f.name.clone(),
                    node: node(f.node),
                    role: if f.ap { "ap" } else { "station" }.to_string(),
                    standard: w.phy.standard.name().to_string(),
                    data_rate_bps: w.phy.data_rate_bps,
                    basic_rate_bps: w.phy.basic_rate_bps,
                    tx_attempts: s.attempts,
                    rts_attempts: s.rts_attempts,
                    collisions: s.collisions,
                    collision_rate: ratio(s.collisions as f64, s.attempts as f64),
                    frame_errors: s.frame_errors,
                    retries: s.retries,
                    delivered_packets: s.delivered_packets,
                    delivered_bytes: s.delivered_bytes,
                    mac_throughput_bps: ratio(s.delivered_bytes as f64 * 8.0, window),
                    mac_drops: s.mac_drops,
                    mac_drops_delivered: s.mac_drops_delivered,
                    in_service_start: s.in_service_start,
                    in_service_end: f.in_service() as u64,
                    airtime_fraction: ratio(s.airtime_ns as f64, window_ns),
                    channel_busy_fraction: busy,
                    queue: queue_result(&f.name, &f.queue, window_ns),
                });
            }
        }
        // The bottleneck: the link the scenario makes one (a dumbbell's
        // `topology.bottleneck`, a link's `bottleneck = true`), otherwise
        // the most utilized wired link.
        let marked = wired().position(|(_, q)| q.config.as_ref().is_some_and(|c| c.bottleneck));
        let bi = marked.unwrap_or_else(|| {
            let mut best = 0;
            for (i, l) in links.iter().enumerate() {
                if l.utilization > links[best].utilization {
                    best = i;
                }
            }
            best
        });
        let fair: Vec<f64> = flows.iter().filter(|f| f.fairness).map(|f| f.goodput_bps).collect();
        let sent: u64 = flows.iter().map(|f| f.sent_packets).sum();
        let lost: u64 = flows.iter().map(|f| f.lost_packets).sum();
        let summary = Summary {
            goodput_bps: flows.iter().map(|f| f.goodput_bps).sum(),
            throughput_bps: flows.iter().map(|f| f.throughput_bps).sum(),
            jain_index: jain_index(&fair),
            loss_rate: ratio(lost as f64, sent as f64),
            bottleneck_utilization: links.get(bi).map(|l| l.utilization).unwrap_or(0.0),
            bottleneck_avg_queue_pkts: queues.get(bi).map(|q| q.avg_len_pkts).unwrap_or(0.0),
            bottleneck_link: links.get(bi).map(|l| l.link.clone()).unwrap_or_default(),
        };
        let perf = PerfResult {
            events: sim.perf.events,
            wall_s: sim.perf.wall_s,
            events_per_s: ratio(sim.perf.events as f64, sim.perf.wall_s),
            packets_forwarded: sim.perf.packets_forwarded,
        };
        RunResult {
            name: sim.name.clone(),
            seed: sim.seed,
            version: crate::VERSION.to_string(),
            duration_s: sim.duration.secs_f64(),
            warmup_s: sim.warmup.secs_f64(),
            flows,
            groups,
            queues,
            links,
            wlans,
            summary,
            perf,
        }
    }
}
