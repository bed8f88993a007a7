//! Time series: an observer that samples queues and flows every
//! `sample_interval` and keeps the values as columns (one `Vec<f64>` per
//! series), never as per-sample objects.

use crate::link::Link;
use crate::queue::Queue;
use crate::sim::Flow;
use crate::time::SimTime;
use crate::wlan::Wlan;

/// One sampled quantity.
#[derive(Clone, Debug)]
pub struct Series {
    /// "queue" or "flow".
    pub entity_kind: &'static str,
    /// Link name ("r1->r2"), WLAN interface name ("wlan0:ap") or flow name.
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
    pub times: Vec<f64>,
    /// The series, in a fixed order.
    pub series: Vec<Series>,
    links: Vec<usize>,
    ifaces: Vec<(usize, usize)>,
    flows: bool,
    last_t: SimTime,
    last_delivered: Vec<u64>,
    last_received: Vec<u64>,
    scratch: Vec<f64>,
    warmup: SimTime,
}

impl Sampler {
    /// A sampler that takes nothing.
    pub fn disabled() -> Self {
        Sampler::default()
    }

    /// A sampler over the given links (indices) and, if `flows`, every flow.
    pub fn new(interval: SimTime, links: Vec<usize>, flows: bool, warmup: SimTime) -> Self {
        Sampler {
            interval: Some(interval),
            links,
            flows,
            warmup,
            ..Sampler::default()
        }
    }

    /// Also sample these WLAN interface queues: (wlan, interface) indices.
    pub fn with_ifaces(mut self, ifaces: Vec<(usize, usize)>) -> Self {
        self.ifaces = ifaces;
        self
    }

    /// The sampling interval, if sampling.
    pub fn interval(&self) -> Option<SimTime> {
        self.interval
    }

    fn init_queue(&mut self, name: &str, q: &Queue) {
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

    fn init(&mut self, links: &[Link], flows: &[Flow], wlans: &[Wlan]) {
        for i in 0..self.links.len() {
            let l = &links[self.links[i]];
            self.init_queue(&l.name, &l.queue);
        }
        for i in 0..self.ifaces.len() {
            let (w, f) = self.ifaces[i];
            let ifc = &wlans[w].ifaces[f];
            self.init_queue(&ifc.name, &ifc.queue);
        }
        if self.flows {
            for f in flows {
                let mut names: Vec<String> = vec!["goodput_bps".into(), "throughput_bps".into()];
                names.extend(f.sender.probe_names().iter().map(|s| s.to_string()));
                for m in names {
                    self.series.push(Series {
                        entity_kind: "flow",
                        entity: f.name.clone(),
                        metric: m,
                        values: Vec::new(),
                    });
                }
            }
            self.last_delivered = vec![0; flows.len()];
            self.last_received = vec![0; flows.len()];
        }
    }

    fn sample_queue(&mut self, q: &Queue, k: &mut usize) {
        self.series[*k].values.push(q.len_pkts() as f64);
        self.series[*k + 1].values.push(q.len_bytes() as f64);
        *k += 2;
        self.scratch.clear();
        q.disc().probe_values(&mut self.scratch);
        for v in &self.scratch {
            self.series[*k].values.push(*v);
            *k += 1;
        }
    }

    /// Take one sample at `now`.
    pub fn sample(&mut self, now: SimTime, links: &mut [Link], flows: &mut [Flow], wlans: &mut [Wlan]) {
        if self.times.is_empty() && self.series.is_empty() {
            self.init(links, flows, wlans);
        }
        self.times.push(now.secs_f64());
        let mut k = 0;
        for i in 0..self.links.len() {
            let li = self.links[i];
            links[li].queue.sync(now);
            self.sample_queue(&links[li].queue, &mut k);
        }
        for i in 0..self.ifaces.len() {
            let (w, f) = self.ifaces[i];
            self.sample_queue(&wlans[w].ifaces[f].queue, &mut k);
        }
        if self.flows {
            let dt = (now - self.last_t).secs_f64();
            for (i, f) in flows.iter_mut().enumerate() {
                let d = f.stats.delivered_total - self.last_delivered[i];
                let r = f.stats.received_total - self.last_received[i];
                self.last_delivered[i] = f.stats.delivered_total;
                self.last_received[i] = f.stats.received_total;
                let (g, t) = if dt > 0.0 {
                    (d as f64 * 8.0 / dt, r as f64 * 8.0 / dt)
                } else {
                    (0.0, 0.0)
                };
                self.series[k].values.push(g);
                self.series[k + 1].values.push(t);
                k += 2;
                let probe = f.sender.probe();
                for name in f.sender.probe_names() {
                    let v = match *name {
                        "cwnd_pkts" => probe.cwnd_pkts,
                        "ssthresh_pkts" => probe.ssthresh_pkts,
                        "srtt_s" => probe.srtt_s,
                        "rate_bps" => probe.rate_bps,
                        _ => f64::NAN,
                    };
                    self.series[k].values.push(v);
                    k += 1;
                }
                if now > self.warmup && f.stats.counting && probe.cwnd_pkts.is_finite() {
                    f.stats.cwnd_sum += probe.cwnd_pkts;
                    if probe.srtt_s.is_finite() {
                        f.stats.srtt_sum += probe.srtt_s;
                    }
                    f.stats.probe_samples += 1;
                }
            }
        }
        self.last_t = now;
    }
}
