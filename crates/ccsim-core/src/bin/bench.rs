//! `ccsim-bench [--trace ns2|pcap DIR] SCENARIO.toml...`: run scenarios and
//! print events/s and packet hops per wall second (release build; see
//! docs/performance.md). `--trace` adds a packet trace of every link to each
//! scenario, written into DIR (to measure what tracing costs).

use ccsim_core::{run_toml, run_toml_in, GuardOverrides};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut trace: Option<(String, std::path::PathBuf)> = None;
    if args.first().map(String::as_str) == Some("--trace") && args.len() >= 3 {
        trace = Some((args[1].clone(), args[2].clone().into()));
        args.drain(..3);
    }
    if args.is_empty() {
        eprintln!("usage: ccsim-bench [--trace ns2|pcap DIR] SCENARIO.toml [...]");
        std::process::exit(2);
    }
    println!(
        "{:<40} {:>12} {:>10} {:>14} {:>14} {:>10}",
        "scenario", "events", "wall_s", "events/s", "hops/s", "ev/hop"
    );
    for path in &args {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {path}: {e}");
                std::process::exit(2);
            }
        };
        let out = match &trace {
            None => run_toml(&text, path, GuardOverrides::default()),
            Some((format, dir)) => {
                let text = format!("{text}\n[output]\ntrace = \"{format}\"\n");
                run_toml_in(&text, path, GuardOverrides::default(), dir)
            }
        };
        match out {
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
