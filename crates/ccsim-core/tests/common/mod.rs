//! Helpers shared by the integration tests: running a scenario, finding a
//! flow, group, queue or series in its results, and the dumbbell topology
//! most scenarios are built on. A test file includes it with `mod common;`
//! (tcp_support and slowcc_support build on it too).
#![allow(dead_code)]

use ccsim_core::results::{FlowResult, QueueResult};
use ccsim_core::{run_toml, GuardOverrides, RunOutput};

/// The file name error messages carry.
pub const FILE: &str = "t.toml";

/// Run a scenario given as TOML text; panics with the error and the text on failure.
pub fn run(text: &str) -> RunOutput {
    run_toml(text, FILE, GuardOverrides::default()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The error a scenario must fail with, as its message; panics if it runs.
pub fn run_err(text: &str) -> String {
    match run_toml(text, FILE, GuardOverrides::default()) {
        Ok(_) => panic!("expected an error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The error (prefixed "bad.toml: ") of a one-second scenario with one bulk
/// TCP flow over [`dumbbell`] whose flow table adds the keys `flow_keys`;
/// panics if it runs.
pub fn tcp_flow_err(flow_keys: &str) -> String {
    let text = format!(
        r#"
name = "bad"
duration = "1s"
{topology}[[flows]]
transport = "tcp"
app = "bulk"
{flow_keys}
"#,
        topology = dumbbell(1, "")
    );
    match run_toml(&text, "bad.toml", GuardOverrides::default()) {
        Ok(_) => panic!("accepted: {flow_keys}"),
        Err(e) => e.to_string(),
    }
}

/// The flow named `name`; panics if absent.
pub fn flow<'a>(out: &'a RunOutput, name: &str) -> &'a FlowResult {
    out.result
        .flows
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no flow {name}"))
}

/// The flows of group `g`.
pub fn group<'a>(out: &'a RunOutput, g: &str) -> Vec<&'a FlowResult> {
    out.result.flows.iter().filter(|f| f.group == g).collect()
}

/// Mean goodput of the flows of group `g`, bit/s.
pub fn mean_goodput(out: &RunOutput, g: &str) -> f64 {
    let v = group(out, g);
    v.iter().map(|f| f.goodput_bps).sum::<f64>() / v.len() as f64
}

/// Data packets lost / sent, pooled over the flows of group `g`.
pub fn group_loss(out: &RunOutput, g: &str) -> f64 {
    let (lost, sent) = group(out, g)
        .iter()
        .fold((0, 0), |(l, s), f| (l + f.lost_packets, s + f.sent_packets));
    lost as f64 / sent as f64
}

/// The queue of link direction `link` ("a->b"); panics if absent.
pub fn queue<'a>(out: &'a RunOutput, link: &str) -> &'a QueueResult {
    out.result
        .queues
        .iter()
        .find(|q| q.link == link)
        .unwrap_or_else(|| panic!("no queue {link}"))
}

/// The dumbbell's bottleneck queue, r1->r2.
pub fn bottleneck(out: &RunOutput) -> &QueueResult {
    queue(out, "r1->r2")
}

/// One time series (entity, metric), of any kind; panics if absent.
pub fn series<'a>(out: &'a RunOutput, entity: &str, metric: &str) -> &'a [f64] {
    &out.timeseries
        .series
        .iter()
        .find(|s| s.entity == entity && s.metric == metric)
        .unwrap_or_else(|| panic!("no series {entity}:{metric}"))
        .values
}

/// Utilization of link direction `link` ("a->b"); panics if absent.
pub fn link_utilization(out: &RunOutput, link: &str) -> f64 {
    out.result
        .links
        .iter()
        .find(|l| l.link == link)
        .unwrap_or_else(|| panic!("no link {link}"))
        .utilization
}

/// Mean of one time series over its samples at or after `from_s` seconds.
pub fn series_mean_from(out: &RunOutput, entity: &str, metric: &str, from_s: f64) -> f64 {
    let v: Vec<f64> = series(out, entity, metric)
        .iter()
        .zip(&out.timeseries.time_s)
        .filter(|(_, &t)| t >= from_s)
        .map(|(v, _)| *v)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// The `[topology]` tables of a dumbbell: `pairs` sender/receiver pairs,
/// access links of `access` = (rate, delay), a bottleneck r1->r2 of
/// `bottleneck` = (rate, delay) whose queue table holds the keys `queue`
/// (no queue table when `queue` is empty: the default DropTail). The text
/// that follows must open a table.
pub fn dumbbell_with(pairs: u32, access: (&str, &str), bottleneck: (&str, &str), queue: &str) -> String {
    let ((a_rate, a_delay), (b_rate, b_delay)) = (access, bottleneck);
    let queue = if queue.is_empty() {
        String::new()
    } else {
        format!("[topology.bottleneck.queue]\n{queue}\n")
    };
    format!(
        r#"[topology]
kind = "dumbbell"
pairs = {pairs}
[topology.access]
rate = "{a_rate}"
delay = "{a_delay}"
[topology.bottleneck]
rate = "{b_rate}"
delay = "{b_delay}"
{queue}"#
    )
}

/// The usual dumbbell: access links of 100 Mbit/s and 1 ms, a bottleneck
/// of 10 Mbit/s and 10 ms with the queue keys `queue`.
pub fn dumbbell(pairs: u32, queue: &str) -> String {
    dumbbell_with(pairs, ("100Mbps", "1ms"), ("10Mbps", "10ms"), queue)
}

/// The result as JSON without its `perf` block (wall-clock figures): equal
/// for runs that must be identical.
pub fn without_perf(out: &RunOutput) -> String {
    let mut v = serde_json::to_value(&out.result).expect("results serialize");
    v.as_object_mut().expect("an object").remove("perf");
    serde_json::to_string(&v).expect("JSON")
}

/// A queue's packet identities (docs/results.md): arrivals = enqueued +
/// drops on arrival, enqueued + backlog at the start = dequeued + drops in
/// the queue + backlog at the end.
pub fn assert_queue_identities(q: &QueueResult) {
    assert_eq!(q.arrivals, q.enqueued + q.drops_on_arrival, "{}", q.link);
    assert_eq!(
        q.enqueued + q.backlog_start_pkts,
        q.dequeued + q.drops_in_queue + q.backlog_end_pkts,
        "{}",
        q.link
    );
}

/// A flow's packet identity: sent + in flight at the start = received +
/// lost + in flight at the end.
pub fn assert_flow_identity(f: &FlowResult) {
    assert_eq!(
        f.sent_packets + f.in_flight_start,
        f.received_packets + f.lost_packets + f.in_flight_end,
        "{}",
        f.name
    );
}

/// A friendliness scenario (the same RTT and bottleneck for every flow):
/// 4 flows under test (group "test": bulk, starting within the first 2 s,
/// with the keys `test_flow`) and 4 NewReno flows (group "newreno", window
/// 1000 packets) on an 8-pair dumbbell with 100 Mbit/s, 2 ms access links
/// and a 6 Mbit/s, 45 ms bottleneck (RTT ~100 ms) whose keys `bottleneck`
/// give its loss model and queue; 300 s with 20 s of warmup. `extra` ends
/// the text (an `[output]` table).
pub fn against_newreno(name: &str, seed: u64, bottleneck: &str, test_flow: &str, extra: &str) -> String {
    format!(
        r#"
name = "{name}"
duration = "300s"
warmup = "20s"
seed = {seed}
[topology]
kind = "dumbbell"
pairs = 8
[topology.access]
rate = "100Mbps"
delay = "2ms"
[topology.bottleneck]
rate = "6Mbps"
delay = "45ms"
{bottleneck}
[[flows]]
group = "test"
count = 4
app = "bulk"
start = {{ uniform = ["0s", "2s"] }}
{test_flow}
[[flows]]
group = "newreno"
count = 4
transport = "tcp"
app = "bulk"
cc = "newreno"
window = 1000
start = {{ uniform = ["0s", "2s"] }}
{extra}
"#
    )
}
