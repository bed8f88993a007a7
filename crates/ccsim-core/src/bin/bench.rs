//! `ccsim-bench [--trace ns2|pcap DIR] [--digest] SCENARIO.toml|.json...`:
//! run scenarios and print events/s and packet hops per wall second (release
//! build; see docs/performance.md). `--trace` adds a packet trace of every
//! link to each scenario, written into DIR (to measure what tracing costs).
//! `--digest` prints instead, per scenario, a hash of everything the run
//! reports except its wall time (the tables, the time series and the delay
//! histograms, bit for bit), so that an optimisation of the engine can be
//! checked to change no output (`benches/golden.py`).

use ccsim_core::{run_json, run_toml, run_toml_in, GuardOverrides, RunOutput};

/// FNV-1a, 64 bits: a fixed hash, the same on every machine and toolchain.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn f64s(&mut self, v: &[f64]) {
        for x in v {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }
}

/// The hash of a run's outputs, wall-clock figures excluded.
fn digest(out: &RunOutput) -> String {
    let mut r = out.result.clone();
    r.perf.wall_s = 0.0;
    r.perf.events_per_s = 0.0;
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.bytes(serde_json::to_string(&r).unwrap_or_default().as_bytes());
    let ts = &out.timeseries;
    h.f64s(&ts.time_s);
    for s in &ts.series {
        h.bytes(s.entity_kind.as_bytes());
        h.bytes(s.entity.as_bytes());
        h.bytes(s.metric.as_bytes());
        h.f64s(&s.values);
    }
    for d in &ts.delays {
        h.bytes(d.flow.as_bytes());
        h.f64s(&d.upper_s);
        h.f64s(&d.counts);
    }
    format!("{:016x}", h.0)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut trace: Option<(String, std::path::PathBuf)> = None;
    if args.first().map(String::as_str) == Some("--trace") && args.len() >= 3 {
        trace = Some((args[1].clone(), args[2].clone().into()));
        args.drain(..3);
    }
    let digests = args.first().map(String::as_str) == Some("--digest");
    if digests {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("usage: ccsim-bench [--trace ns2|pcap DIR] SCENARIO.toml [...]");
        std::process::exit(2);
    }
    if !digests {
        println!(
            "{:<40} {:>12} {:>10} {:>14} {:>14} {:>10}",
            "scenario", "events", "wall_s", "events/s", "hops/s", "ev/hop"
        );
    }
    for path in &args {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {path}: {e}");
                std::process::exit(2);
            }
        };
        let out = match &trace {
            None if path.ends_with(".json") => run_json(&text, path, GuardOverrides::default()),
            None => run_toml(&text, path, GuardOverrides::default()),
            Some((format, dir)) => {
                let text = format!("{text}\n[output]\ntrace = \"{format}\"\n");
                run_toml_in(&text, path, GuardOverrides::default(), dir)
            }
        };
        match out {
            Ok(out) if digests => {
                let p = &out.result.perf;
                println!(
                    "{path} {} events {} hops {}",
                    digest(&out),
                    p.events,
                    p.packets_forwarded
                );
            }
            Ok(out) => {
                let p = &out.result.perf;
                println!(
                    "{:<40} {:>12} {:>10.3} {:>14.0} {:>14.0} {:>10.2}",
                    out.result.name,
                    p.events,
                    p.wall_s,
                    p.events_per_s,
                    p.packets_forwarded as f64 / p.wall_s,
                    p.events as f64 / p.packets_forwarded.max(1) as f64
                );
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
}
