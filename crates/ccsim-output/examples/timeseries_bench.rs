//! Times the time series' Parquet encoding on a series set shaped like
//! benches/tcp_newreno_100.toml's (402 queues x 5 metrics + 100 flows x 7
//! metrics, 1000 samples): `cargo run --release -p ccsim-output --example timeseries_bench`.
//! Prints each encoding's wall time and, on Linux, the CPU time of the
//! thread (`/proc/thread-self/schedstat`), which is what the wall time is on
//! an idle core when other processes load the machine.

use std::time::Instant;

/// The CPU time this thread has run, s (Linux; `None` elsewhere).
fn thread_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

fn main() {
    let n = 1000;
    let time_s: Vec<f64> = (1..=n).map(|i| i as f64 * 0.1).collect();
    let mut owned = Vec::new();
    for q in 0..402 {
        for m in ["len_pkts", "len_bytes", "avg", "drops", "arrivals"] {
            let values: Vec<f64> = (0..n).map(|i| ((i * 7 + q) % 50) as f64).collect();
            owned.push(("queue", format!("l{q}->r{q}"), m, values));
        }
    }
    for f in 0..100 {
        for m in [
            "cwnd_pkts",
            "ssthresh_pkts",
            "srtt_s",
            "rto_s",
            "goodput_bps",
            "throughput_bps",
            "inflight",
        ] {
            let values: Vec<f64> = (0..n).map(|i| (i as f64 * 1.37 + f as f64).sin() * 1e5).collect();
            owned.push(("flow", format!("bulk.{f}"), m, values));
        }
    }
    let series: Vec<ccsim_output::Series> = owned
        .iter()
        .map(|(k, e, m, v)| ccsim_output::Series {
            entity_kind: k,
            entity: e,
            metric: m,
            values: v,
        })
        .collect();
    for _ in 0..3 {
        let (t, cpu) = (Instant::now(), thread_cpu_s());
        let bytes = ccsim_output::timeseries_parquet(Vec::new(), &time_s, &series).expect("encoded");
        let wall = t.elapsed().as_secs_f64();
        let cpu = match (cpu, thread_cpu_s()) {
            (Some(a), Some(b)) => format!(", CPU {:.3} s", b - a),
            _ => String::new(),
        };
        println!(
            "{} rows, {} bytes, wall {wall:.3} s{cpu}",
            series.len() * n,
            bytes.len()
        );
    }
}
