//! Times the time series' Parquet encoding on a series set shaped like
//! benches/tcp_newreno_100.toml's (402 queues x 5 metrics + 100 flows x 7
//! metrics, 1000 samples): `cargo run --release -p ccsim-output --example timeseries_bench`.

use std::time::Instant;

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
        let t = Instant::now();
        let bytes = ccsim_output::timeseries_parquet(Vec::new(), &time_s, &series).expect("encoded");
        println!(
            "{} rows, {} bytes, {:.3} s",
            series.len() * n,
            bytes.len(),
            t.elapsed().as_secs_f64()
        );
    }
}
