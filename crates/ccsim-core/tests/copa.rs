//! Copa's equilibrium (Arun and Balakrishnan, NSDI 2018, section 2): each
//! flow steers its rate to 1 / (delta d_q), so N flows fill a link of C
//! packets per second when N / (delta d_q) = C: the standing queue is
//! C d_q = N / delta packets (two per flow at delta = 0.5), whatever the
//! link's rate or the pipe, and the flows share it evenly. The queue
//! oscillates around that level (the window moves by v / delta packets per
//! round trip, and the paper's design lets it drain every few round trips so
//! that RTTmin stays measurable), so the test compares its time average with
//! N / delta.

mod common;
use ccsim_core::RunOutput;
use common::*;

fn run(n: u32, delta: f64) -> RunOutput {
    let text = format!(
        r#"
name = "copa"
duration = "60s"
warmup = "20s"
seed = 4
{topology}
[[flows]]
group = "copa"
count = {n}
transport = "tcp"
app = "bulk"
cc = "copa"
cc_params = {{ delta = {delta} }}
window = 1000
start = {{ uniform = ["0s", "2s"] }}
[output]
sample_links = ["r1->r2"]
sample_flows = false
sample_interval = "1ms"
"#,
        topology = dumbbell_with(
            n,
            ("100Mbps", "2ms"),
            ("20Mbps", "20ms"),
            "kind = \"droptail\"\nlimit = 1000"
        )
    );
    common::run(&text)
}

#[test]
fn copa_holds_n_over_delta_packets_standing_and_shares_evenly() {
    for (n, delta) in [(4u32, 0.5), (8, 0.5), (4, 0.25)] {
        let out = run(n, delta);
        let mean = series_mean_from(&out, "r1->r2", "len_pkts", 20.0);
        let predicted = n as f64 / delta;
        let util = link_utilization(&out, "r1->r2");
        let jain = out.result.summary.jain_index;
        eprintln!(
            "N={n} delta={delta}: mean queue {mean:.1} (N/delta {predicted}), utilization {util:.3}, Jain {jain:.3}, drops {}",
            bottleneck(&out).drops
        );
        assert!(
            (mean / predicted - 1.0).abs() <= 0.2,
            "N={n} delta={delta}: {mean} vs {predicted}"
        );
        assert!(util > 0.9, "utilization {util}");
        assert!(jain > 0.95, "Jain {jain}");
        assert_eq!(bottleneck(&out).drops, 0);
    }
}
