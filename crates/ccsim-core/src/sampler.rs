//! Time series: an observer that samples queues, flows and flow groups
//! every `sample_interval` and keeps the values as columns, never as
//! per-sample objects: while the run lasts, one matrix of every series'
//! column (sample `j` of series `s` at `s * stride + j`), so that a value
//! costs one store; [`Sampler::take`] hands them out as one
//! `Vec<f64>` per series.
//!
//! Rates and drop counts are per interval: the value at sample time t covers
//! (t - interval, t]. Group series are the sums over the group's flows of
//! the per-flow quantities (computed here, once per sample, from the flows'
//! running totals), so they exist even when per-flow series are off.
//!
//! `delay_s` is the mean one-way delay of the data packets received in the
//! interval, from the flows' running delay sums and counts; a group's is
//! pooled over its flows' packets (sum of delays / count). An interval in
//! which nothing was received has no mean: its value is NaN.

use crate::link::Link;
use crate::medium::Medium;
use crate::queue::Queue;
use crate::sim::Flow;
use crate::time::{u64_as_f64, SimTime};
use crate::transport::SenderProbe;

/// The per-group series, in order: sums over the group's flows of goodput,
/// throughput and sending rate (bit/s), the number of active flows
/// (started, not finished, before their stop time), and the mean one-way
/// delay (s) of all the group's data packets received in the interval.
pub const GROUP_METRICS: [&str; 5] = ["goodput_bps", "throughput_bps", "send_bps", "active_flows", "delay_s"];

/// The per-flow series every flow has, in order, before its sender's probes.
pub const FLOW_METRICS: [&str; 4] = ["goodput_bps", "throughput_bps", "send_bps", "delay_s"];

/// Mean one-way delay in seconds of `n` packets whose delays sum to
/// `sum_ns`; NaN when there were none (so plots show a gap).
fn mean_delay_s(sum_ns: u128, n: u64) -> f64 {
    if n > 0 {
        u128_as_f64(sum_ns) / u64_as_f64(n) * 1e-9
    } else {
        f64::NAN
    }
}

/// `x as f64`: below 2^64 through [`u64_as_f64`] (the same value, without
/// the library call the 128-bit conversion is); the rest out of line.
#[inline(always)]
fn u128_as_f64(x: u128) -> f64 {
    match u64::try_from(x) {
        Ok(x) => u64_as_f64(x),
        Err(_) => u128_as_f64_high(x),
    }
}

#[cold]
#[inline(never)]
fn u128_as_f64_high(x: u128) -> f64 {
    x as f64
}

/// One sampled quantity.
#[derive(Clone, Debug)]
pub struct Series {
    /// "queue", "flow" or "group".
    pub entity_kind: &'static str,
    /// Link name ("r1->r2"), WLAN interface name ("wlan0:ap"), flow name or group label.
    pub entity: String,
    /// Metric name ("len_pkts", "goodput_bps", "cwnd_pkts", ...).
    pub metric: String,
    /// One value per sample time.
    pub values: Vec<f64>,
}

/// The sampler and its columns.
#[derive(Default)]
pub struct Sampler {
    interval: Option<SimTime>,
    /// Sample times, seconds.
    times: Vec<f64>,
    /// The series, in a fixed order (their values are in `cols` until
    /// [`Sampler::take`]).
    series: Vec<Series>,
    /// The values while the run lasts: sample `j` of series `s` at
    /// `s * stride + j` (zeroed at the first sample, so that the memory
    /// of samples not yet taken is not touched).
    cols: Vec<f64>,
    /// Samples each column holds (the run's expected number, doubled if
    /// it takes more).
    stride: usize,
    links: Vec<usize>,
    /// Queues of media sampled (WLAN interface queues): (medium, queue) indices.
    ifaces: Vec<(usize, usize)>,
    flows: bool,
    groups: bool,
    last_t: SimTime,
    /// Per flow: its counters at the previous sample and its group.
    last: Vec<FlowSlot>,
    /// Per sampled link that has a queue, what its sample reads and
    /// remembers (laid out with the series).
    queues: Vec<QueueSlot>,
    /// Group labels in first-appearance order.
    group_names: Vec<String>,
    /// Per group: the sums over its flows in the interval.
    group_acc: Vec<GroupAcc>,
    scratch: Vec<f64>,
    /// Per flow: which [`SenderProbe`] field each of its probe series
    /// takes, in the order of its sender's `probe_names` (decided when the
    /// series are laid out, as the names are).
    flow_probes: Vec<Vec<ProbeField>>,
    /// Samples the run will take (from its duration), reserved in every
    /// series at the first sample so that sampling never reallocates.
    expected: usize,
}

/// A flow's running counters at the previous sample (they only grow), and
/// its group's index: one slot per flow, read and written together.
#[derive(Copy, Clone, Debug, Default)]
struct FlowSlot {
    delivered: u64,
    received: u64,
    sent: u64,
    /// Delay sum (ns) and packets.
    delay: (u128, u64),
    group: usize,
}

/// A group's sums over its flows in the interval: goodput, throughput,
/// sending rate, active flows; delay sum (ns) and packets received.
#[derive(Copy, Clone, Debug, Default)]
struct GroupAcc {
    sums: [f64; 4],
    delay: (u128, u64),
}

/// A sampled link's queue: its link, its counters at the previous sample
/// (running counters: they only grow), and whether its discipline has
/// probes (most have none, and the call is then skipped).
#[derive(Copy, Clone, Debug)]
struct QueueSlot {
    link: usize,
    arrivals: u64,
    drops: u64,
    probes: bool,
}

/// A sender probe's value by name (see [`Sampler::flow_probes`]), as the
/// index of its value in [`ProbeField::values`].
#[derive(Copy, Clone, Debug)]
#[repr(u8)]
enum ProbeField {
    Cwnd,
    Ssthresh,
    Srtt,
    Rate,
    /// A name the probe does not know: NaN.
    Unknown,
}

impl ProbeField {
    fn of(name: &str) -> Self {
        match name {
            "cwnd_pkts" => ProbeField::Cwnd,
            "ssthresh_pkts" => ProbeField::Ssthresh,
            "srtt_s" => ProbeField::Srtt,
            "rate_bps" => ProbeField::Rate,
            _ => ProbeField::Unknown,
        }
    }

    /// The probe's values, indexed by [`ProbeField`] (as `u8`).
    #[inline]
    fn values(p: &SenderProbe) -> [f64; 5] {
        [p.cwnd_pkts, p.ssthresh_pkts, p.srtt_s, p.rate_bps, f64::NAN]
    }
}

/// `x.map(u64_as_f64)`, with one test of the sign bits for the usual case
/// (every value below 2^63, where the conversion is the signed one).
#[inline(always)]
fn u64s_as_f64<const N: usize>(x: [u64; N]) -> [f64; N] {
    if x.iter().fold(0, |a, &v| a | v) >> 63 == 0 {
        x.map(|v| v as i64 as f64)
    } else {
        x.map(u64_as_f64)
    }
}

/// Writes one sample's values into the columns, series after series.
struct Column<'a> {
    cols: &'a mut [f64],
    /// Where the next series' value goes.
    at: usize,
    stride: usize,
}

impl Column<'_> {
    #[inline(always)]
    fn put(&mut self, v: f64) {
        self.cols[self.at] = v;
        self.at += self.stride;
    }
}

/// A queue's length and its discipline's probes (a medium's interface queue).
fn sample_iface(out: &mut Column, q: &Queue, scratch: &mut Vec<f64>) {
    out.put(q.len_pkts() as f64);
    out.put(q.len_bytes() as f64);
    scratch.clear();
    q.disc().probe_values(scratch);
    for v in scratch.iter() {
        out.put(*v);
    }
}

impl Sampler {
    /// A sampler that takes nothing.
    pub fn disabled() -> Self {
        Sampler::default()
    }

    /// A sampler over the given links (indices), every flow if `flows`, and
    /// every flow group if `groups`.
    pub fn new(interval: SimTime, links: Vec<usize>, flows: bool, groups: bool) -> Self {
        Sampler {
            interval: Some(interval),
            links,
            flows,
            groups,
            ..Sampler::default()
        }
    }

    /// Reserve room for the samples a run of `duration` takes: every series
    /// is allocated once, at its final size, instead of growing (and
    /// copying itself) as it fills.
    pub fn with_duration(mut self, duration: SimTime) -> Self {
        if let Some(interval) = self.interval.filter(|i| *i > SimTime::ZERO) {
            // One sample per interval, plus the one at the end; capped so
            // that a bad interval cannot reserve memory it never uses.
            self.expected = (duration.0 / interval.0).saturating_add(2).min(1 << 24) as usize;
        }
        self
    }

    /// Also sample these queues of media (a WLAN's interface queues):
    /// (medium, queue) indices ([`Medium::queue`]; their length and probes).
    pub fn with_ifaces(mut self, ifaces: Vec<(usize, usize)>) -> Self {
        self.ifaces = ifaces;
        self
    }

    /// The sampling interval, if sampling.
    pub fn interval(&self) -> Option<SimTime> {
        self.interval
    }

    fn init_iface(&mut self, name: &str, q: &Queue) {
        let mut names: Vec<String> = vec!["len_pkts".into(), "len_bytes".into()];
        names.extend(q.disc().probe_names().iter().map(|s| s.to_string()));
        for m in names {
            self.series.push(Series {
                entity_kind: "queue",
                entity: name.to_string(),
                metric: m,
                values: Vec::new(),
            });
        }
    }

    fn init(&mut self, links: &[Link], flows: &[Flow], media: &[Box<dyn Medium>]) {
        for &li in &self.links {
            let l = &links[li];
            // One entry per sampled link, as `sample` indexes it.
            let Some(queue) = l.queue() else { continue };
            let mut names: Vec<String> = vec![
                "len_pkts".into(),
                "len_bytes".into(),
                "arrivals".into(),
                "drops".into(),
                "drop_rate".into(),
            ];
            let probes = queue.disc().probe_names();
            self.queues.push(QueueSlot {
                link: li,
                arrivals: 0,
                drops: 0,
                probes: !probes.is_empty(),
            });
            names.extend(probes.iter().map(|s| s.to_string()));
            for m in names {
                self.series.push(Series {
                    entity_kind: "queue",
                    entity: l.name.clone(),
                    metric: m,
                    values: Vec::new(),
                });
            }
        }
        for i in 0..self.ifaces.len() {
            let (m, q) = self.ifaces[i];
            if let Some((name, queue)) = media[m].queue(q) {
                self.init_iface(name, queue);
            }
        }
        if self.flows {
            for f in flows {
                let mut names: Vec<String> = FLOW_METRICS.iter().map(|s| s.to_string()).collect();
                let probes = f.sender.probe_names();
                self.flow_probes
                    .push(probes.iter().map(|n| ProbeField::of(n)).collect());
                names.extend(probes.iter().map(|s| s.to_string()));
                for m in names {
                    self.series.push(Series {
                        entity_kind: "flow",
                        entity: f.name.clone(),
                        metric: m,
                        values: Vec::new(),
                    });
                }
            }
        }
        // Group indices in first-appearance order (the map is only looked up).
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for f in flows {
            let g = *index.entry(f.group.as_str()).or_insert_with(|| {
                self.group_names.push(f.group.clone());
                self.group_names.len() - 1
            });
            self.last.push(FlowSlot {
                group: g,
                ..FlowSlot::default()
            });
        }
        self.group_acc = vec![GroupAcc::default(); self.group_names.len()];
        if self.groups {
            for g in &self.group_names {
                for m in GROUP_METRICS {
                    self.series.push(Series {
                        entity_kind: "group",
                        entity: g.clone(),
                        metric: m.to_string(),
                        values: Vec::new(),
                    });
                }
            }
        }
    }

    /// Take one sample at `now` (out of line: it runs once per interval,
    /// and inlined it would weigh on the event loop's code).
    #[inline(never)]
    pub fn sample(&mut self, now: SimTime, links: &mut [Link], flows: &[Flow], media: &[Box<dyn Medium>]) {
        if self.times.is_empty() && self.series.is_empty() {
            self.init(links, flows, media);
            self.times.reserve_exact(self.expected);
            self.stride = self.expected.max(1);
            self.cols = vec![0.0; self.series.len() * self.stride];
        }
        let j = self.times.len();
        if j == self.stride {
            self.grow();
        }
        self.times.push(now.secs_f64());
        let mut out = Column {
            cols: &mut self.cols,
            at: j,
            stride: self.stride,
        };
        for slot in &mut self.queues {
            let Some(q) = links[slot.link].queue_mut() else {
                continue;
            };
            q.sync(now);
            let q = &*q;
            let (arrivals, drops) = (q.stats.arrivals - slot.arrivals, q.stats.drops - slot.drops);
            (slot.arrivals, slot.drops) = (q.stats.arrivals, q.stats.drops);
            let [len_pkts, len_bytes, a, d] = u64s_as_f64([q.len_pkts() as u64, q.len_bytes(), arrivals, drops]);
            out.put(len_pkts);
            out.put(len_bytes);
            out.put(a);
            out.put(d);
            out.put(if arrivals > 0 { d / a } else { 0.0 });
            if slot.probes {
                self.scratch.clear();
                q.disc().probe_values(&mut self.scratch);
                for v in &self.scratch {
                    out.put(*v);
                }
            }
        }
        for &(m, q) in &self.ifaces {
            if let Some((_, queue)) = media[m].queue(q) {
                sample_iface(&mut out, queue, &mut self.scratch);
            }
        }
        let dt = (now - self.last_t).secs_f64();
        for acc in self.group_acc.iter_mut() {
            *acc = GroupAcc::default();
        }
        let mut probes = self.flow_probes.iter();
        for (f, last) in flows.iter().zip(self.last.iter_mut()) {
            let c = &f.stats.counts;
            let d = c.delivered_bytes - last.delivered;
            let r = c.received_bytes - last.received;
            let snt = c.sent_bytes - last.sent;
            let (last_sum, last_n) = last.delay;
            let (delay_sum, delay_n) = (c.delay_sum_ns - last_sum, c.delay_n - last_n);
            *last = FlowSlot {
                delivered: c.delivered_bytes,
                received: c.received_bytes,
                sent: c.sent_bytes,
                delay: (c.delay_sum_ns, c.delay_n),
                group: last.group,
            };
            let [g, t, sb, n] = u64s_as_f64([d, r, snt, delay_n]);
            let [g, t, sb] = if dt > 0.0 {
                [g * 8.0 / dt, t * 8.0 / dt, sb * 8.0 / dt]
            } else {
                [0.0; 3]
            };
            let acc = &mut self.group_acc[last.group];
            acc.sums[0] += g;
            acc.sums[1] += t;
            acc.sums[2] += sb;
            let active = f.stats.started_at.is_some() && f.stats.completed_at.is_none() && now <= f.stop;
            acc.sums[3] += active as u8 as f64;
            acc.delay.0 += delay_sum;
            acc.delay.1 += delay_n;
            if let Some(fields) = probes.next() {
                let probe = ProbeField::values(&f.sender.probe());
                out.put(g);
                out.put(t);
                out.put(sb);
                out.put(if delay_n > 0 {
                    u128_as_f64(delay_sum) / n * 1e-9
                } else {
                    f64::NAN
                });
                for &field in fields {
                    out.put(probe[field as usize]);
                }
            }
        }
        if self.groups {
            for acc in &self.group_acc {
                for v in acc.sums {
                    out.put(v);
                }
                out.put(mean_delay_s(acc.delay.0, acc.delay.1));
            }
        }
        self.last_t = now;
    }

    /// More samples than the run was expected to take: double the columns.
    #[cold]
    fn grow(&mut self) {
        let (old, n) = (self.stride, self.times.len());
        self.stride = (old * 2).max(1);
        let mut cols = vec![0.0; self.series.len() * self.stride];
        for (s, col) in cols.chunks_exact_mut(self.stride).enumerate() {
            col[..n].copy_from_slice(&self.cols[s * old..s * old + n]);
        }
        self.cols = cols;
    }

    /// The sample times and the series with their values, taken out of the
    /// sampler (at the end of the run). The columns are copied out from
    /// the last, and the matrix shrunk behind them, so that the values are
    /// held about once.
    pub fn take(&mut self) -> (Vec<f64>, Vec<Series>) {
        let times = std::mem::take(&mut self.times);
        let n = times.len();
        let mut series = std::mem::take(&mut self.series);
        for (s, out) in series.iter_mut().enumerate().rev() {
            let start = s * self.stride;
            out.values = self.cols[start..start + n].to_vec();
            self.cols.truncate(start);
            if self.cols.capacity() - self.cols.len() >= 1 << 17 {
                self.cols.shrink_to_fit();
            }
        }
        self.cols = Vec::new();
        (times, series)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_convert_as_u64_as_f64_on_both_sides_of_2_pow_63() {
        // Below 2^63 the signed conversion; one value at or above it sends
        // the whole group through `u64_as_f64` (the signed conversion of
        // these would be negative).
        let low = [0, 1, 3 << 52, (1 << 63) - 1];
        let high = [7, (1 << 63) | 1, u64::MAX, (1 << 63) + (1 << 11) + 1];
        for x in [low, high] {
            let got = u64s_as_f64(x);
            for (g, v) in got.iter().zip(x) {
                assert_eq!(g.to_bits(), (v as f64).to_bits(), "{v}");
            }
        }
    }
}
