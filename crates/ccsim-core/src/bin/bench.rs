//! `ccsim-bench SCENARIO.toml...`: run scenarios and print events/s and
//! packet hops per wall second (release build; see docs/performance.md).

use ccsim_core::{run_toml, GuardOverrides};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: ccsim-bench SCENARIO.toml [...]");
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
        match run_toml(&text, path, GuardOverrides::default()) {
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
