//! Web traffic and flash crowds (app = "web"): the mehta seed's crowd of
//! 1000 short TCP transfers of 10 packets arriving at 100 flows/s from
//! t = 20 s, on a bottleneck carrying long-lived flows.

mod common;
mod slowcc_support;
use slowcc_support::*;

/// 5 long NewReno flows and the crowd share a 10 Mbit/s gentle-RED
/// bottleneck (RTT ~50 ms); the short flows rotate over the 20 pairs.
const CROWD: &str = r#"
name = "flash-crowd"
duration = "90s"
seed = 1
[output]
sample_interval = "1s"
sample_flows = false
[topology]
kind = "dumbbell"
pairs = 20
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "23ms"
queue = { kind = "gred", limit = 300, min_th = 10, max_th = 30 }
[[flows]]
group = "long"
count = 5
transport = "tcp"
app = "bulk"
window = 1000
start = { uniform = ["0s", "2s"] }
[[flows]]
group = "web"
transport = "tcp"
app = "web"
count = 1000
arrival_rate = 100
size = 10
start = "20s"
"#;

#[test]
fn a_flash_crowd_completes_and_reports_its_fct_distribution() {
    let out = run(CROWD);
    let web = group(&out, "web");
    assert_eq!(web.len(), 1000);
    // Arrivals: a Poisson process of 100/s from 20 s; the 1000th arrives
    // about 10 s later (the sum of 1000 exponential gaps: sd 0.32 s, so
    // 5 sd is 1.6 s).
    assert!(web.iter().all(|f| f.start_s > 20.0 && f.app == "web"));
    let last = web.iter().map(|f| f.start_s).fold(0.0, f64::max);
    assert!((last - 30.0).abs() < 1.6, "last arrival at {last:.2} s");
    // Every transfer of 10 x 1460 bytes completes, and none faster than
    // slow start allows: 2, 4 and 4 segments take at least two RTTs plus
    // the last segment's one-way trip (~0.125 s); 0.1 s is a safe floor.
    for f in &web {
        assert_eq!(f.delivered_bytes, 14_600, "{}", f.name);
        let fct = f.fct_s.unwrap_or_else(|| panic!("{} did not complete", f.name));
        assert!(fct >= 0.1, "{}: {fct}", f.name);
    }
    let g = out.result.groups.iter().find(|g| g.group == "web").unwrap();
    assert_eq!((g.flows, g.started, g.completed), (1000, 1000, 1000));
    let (p50, p90, p99, max) = (
        g.fct_p50_s.unwrap(),
        g.fct_p90_s.unwrap(),
        g.fct_p99_s.unwrap(),
        g.fct_max_s.unwrap(),
    );
    assert!(0.1 <= p50 && p50 <= p90 && p90 <= p99 && p99 <= max);
    let mut fcts: Vec<f64> = web.iter().map(|f| f.fct_s.unwrap()).collect();
    fcts.sort_by(f64::total_cmp);
    assert_eq!(p50, fcts[499], "nearest rank: the 500th of 1000");
    assert_eq!(p90, fcts[899]);
    // The crowd offers 12 Mbit/s to a 10 Mbit/s link on top of the long
    // flows: while it lasts the long flows' aggregate throughput falls to a
    // fraction of what they had (measured 1-30%), and they recover after
    // it (measured ~99% from 45 s).
    let long = series(&out, "long", "throughput_bps");
    let before = mean(&window(&out, long, 10.0, 20.0));
    let during = mean(&window(&out, long, 22.0, 30.0));
    let after = mean(&window(&out, long, 50.0, 90.0));
    assert!(during < 0.3 * before, "long flows {before:.0} -> {during:.0} bit/s");
    assert!(
        after > 0.9 * before,
        "long flows recover: {after:.0} of {before:.0} bit/s"
    );
    let active = series(&out, "web", "active_flows");
    assert!(window(&out, active, 25.0, 30.0).iter().all(|&a| a > 100.0));
    assert_eq!(*active.last().unwrap(), 0.0);
}

#[test]
fn web_arrivals_are_deterministic_and_sizes_can_be_random() {
    let text = r#"
name = "web-sizes"
duration = "30s"
seed = 3
[output]
sample_flows = false
[topology]
kind = "dumbbell"
pairs = 4
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "100Mbps"
delay = "10ms"
[[flows]]
group = "web"
transport = "tcp"
app = "web"
arrival_rate = 20
size_dist = "empirical"
size_cdf = [[1, 0.5], [10, 0.9], [100, 1.0]]
start = "1s"
stop = "11s"
pool = 2
"#;
    let a = run(text);
    let b = run(text);
    let starts = |o: &ccsim_core::RunOutput| {
        o.result
            .flows
            .iter()
            .map(|f| (f.start_s, f.delivered_bytes))
            .collect::<Vec<_>>()
    };
    assert_eq!(starts(&a), starts(&b));
    let web = group(&a, "web");
    // 20/s for 10 s: 200 expected (sd 14).
    assert!((web.len() as f64 - 200.0).abs() < 70.0, "{}", web.len());
    assert!(web.iter().all(|f| f.start_s > 1.0 && f.start_s < 11.0));
    // Sizes come from the CDF only; all three occur.
    for size in [1u64, 10, 100] {
        assert!(web.iter().any(|f| f.delivered_bytes == size * 1460), "size {size}");
    }
    assert!(web.iter().all(|f| [1460, 14_600, 146_000].contains(&f.delivered_bytes)));
    // A pool of 2 pairs: the flows use s0/d0 and s1/d1 only.
    assert!(web.iter().all(|f| f.src == "s0" || f.src == "s1"));
    assert!(web.iter().any(|f| f.src == "s1"));
}

#[test]
fn web_keys_are_checked() {
    let base = format!(
        "\nname = \"web-bad\"\nduration = \"10s\"\n{}[[flows]]\napp = \"web\"\n",
        dumbbell(2, "")
    );
    let cases = [
        ("transport = \"udp\"\narrival_rate = 10\nsize = 5", "flows[0].transport"),
        ("transport = \"tcp\"\nsize = 5", "flows[0].arrival_rate"),
        ("transport = \"tcp\"\narrival_rate = 10", "flows[0].size"),
        (
            "transport = \"tcp\"\narrival_rate = -1\nsize = 5",
            "flows[0].arrival_rate",
        ),
        (
            "transport = \"tcp\"\narrival_rate = 10\nsize_dist = \"empirical\"\nsize_cdf = [[1, 0.5], [2, 0.7]]",
            "flows[0].size_cdf[1]",
        ),
        (
            "transport = \"tcp\"\narrival_rate = 10\nsize = 5\npool = 3",
            "flows[0].pool",
        ),
        (
            "transport = \"tcp\"\narrival_rate = 10\nsize = 5\nstart = { uniform = [\"0s\", \"1s\"] }",
            "flows[0].start",
        ),
        (
            "transport = \"tcp\"\narrival_rate = 10\nsize = 5\nperiod = \"1s\"",
            "flows[0].period",
        ),
    ];
    for (keys, path) in cases {
        let text = format!("{base}{keys}\n");
        let e = ccsim_core::run_toml(&text, "bad.toml", ccsim_core::GuardOverrides::default())
            .err()
            .unwrap_or_else(|| panic!("accepted: {keys}"))
            .to_string();
        assert!(e.contains(path), "{keys}: {e}");
    }
}
