//! Packet observers (`ccsim_core::observe`) see every event at the kernel's
//! hook points: offered to a queue, transmitted, received, dropped, on the
//! wire's fast path and on the general path alike; several observers each
//! see all of them; and observing changes no result.

mod common;
use ccsim_core::observe::PacketObserver;
use ccsim_core::packet::{LinkId, Packet};
use ccsim_core::results::RunResult;
use ccsim_core::time::SimTime;
use common::*;
use std::sync::{Arc, Mutex};

/// Per link: (offered, transmitted, received, dropped).
type Counts = Arc<Mutex<Vec<[u64; 4]>>>;

struct Counter(Counts);

impl Counter {
    fn add(&self, link: LinkId, k: usize) {
        let mut c = self.0.lock().expect("not poisoned");
        let i = link.0 as usize;
        if c.len() <= i {
            c.resize(i + 1, [0; 4]);
        }
        c[i][k] += 1;
    }
}

impl PacketObserver for Counter {
    fn enqueue(&mut self, link: LinkId, _now: SimTime, _p: &Packet) {
        self.add(link, 0);
    }
    fn dequeue(&mut self, link: LinkId, now: SimTime, start: SimTime, _p: &Packet) {
        assert!(start >= now, "a transmission starts now or later");
        self.add(link, 1);
    }
    fn receive(&mut self, link: LinkId, _now: SimTime, _p: &Packet) {
        self.add(link, 2);
    }
    fn dropped(&mut self, link: LinkId, _now: SimTime, _p: &Packet) {
        self.add(link, 3);
    }
}

/// TCP and UDP over a dumbbell whose bottleneck (`queue`) overflows and
/// loses 1% of its packets at random.
fn scenario(queue: &str) -> String {
    format!(
        r#"
name = "observed"
duration = "4s"
seed = 3
{topology}[topology.bottleneck.loss]
model = "bernoulli"
rate = 0.01
[[flows]]
group = "tcp"
count = 2
transport = "tcp"
app = "bulk"
[[flows]]
group = "udp"
transport = "udp"
app = "cbr"
rate = "6Mbps"
"#,
        topology = dumbbell_with(3, ("100Mbps", "1ms"), ("10Mbps", "10ms"), queue)
    )
}

/// Run `text` with `observers` counting; the counts of each, and the results.
fn observed(text: &str, observers: usize) -> (Vec<Vec<[u64; 4]>>, ccsim_core::sim::Simulation) {
    let v = ccsim_core::scenario::toml_text_to_value(text, FILE).expect("TOML");
    let mut sim = ccsim_core::build_value(v, FILE).expect("a valid scenario");
    let counts: Vec<Counts> = (0..observers).map(|_| Counts::default()).collect();
    for c in &counts {
        sim.observe(Box::new(Counter(c.clone())));
    }
    sim.run().expect("runs");
    let counts = counts.iter().map(|c| c.lock().expect("not poisoned").clone()).collect();
    (counts, sim)
}

fn result_json(r: &RunResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("results serialize");
    v.as_object_mut().expect("an object").remove("perf");
    v
}

#[test]
fn observers_see_what_the_queues_and_links_count() {
    // DropTail takes the FIFO fast path, RED the general path.
    for queue in ["limit = 20", "kind = \"red\"\nlimit = 20"] {
        let text = scenario(queue);
        let (counts, sim) = observed(&text, 2);
        assert_eq!(counts[0], counts[1], "every observer sees every event");
        let counts = &counts[0];
        let mut drops = 0;
        for l in &sim.links {
            let Some(q) = l.queue() else { continue };
            let [offered, sent, received, dropped] = counts.get(l.id.0 as usize).copied().unwrap_or_default();
            let s = &q.stats;
            assert_eq!(offered, s.arrivals, "{}: {queue}", l.name);
            assert_eq!(sent, s.dequeued, "{}: {queue}", l.name);
            assert_eq!(dropped, s.drops + l.stats.lost_packets, "{}: {queue}", l.name);
            assert!(received + l.stats.lost_packets <= sent, "{}", l.name);
            assert!(sent == 0 || received > 0, "{}", l.name);
            drops += s.drops;
        }
        assert!(drops > 0, "the bottleneck overflows: {queue}");
        let plain = run(&text);
        let observed = RunResult::collect(&sim);
        assert_eq!(result_json(&observed), result_json(&plain.result), "{queue}");
    }
}
