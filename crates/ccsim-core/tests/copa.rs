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

/// One Copa flow against one CUBIC flow over a 20 Mbit/s, 40 ms link with a
/// 4-BDP DropTail buffer (Copa section 2.2, and its Figure 8's Copa vs CUBIC
/// shape: competitive Copa takes a fair share where delay-based Copa
/// starves). CUBIC keeps the queue full, so the default mode's target rate
/// 1/(delta d_q) is tiny; the competitive mode grows 1/delta until Copa's
/// queue share competes.
fn against_cubic(mode: &str) -> (f64, f64) {
    let text = format!(
        r#"
name = "copa-vs-cubic"
duration = "120s"
warmup = "30s"
seed = 2
{topology}
[[flows]]
group = "copa"
count = 1
transport = "tcp"
app = "bulk"
cc = "copa"
cc_params = {{ mode = "{mode}" }}
window = 10000
start = "0s"
[[flows]]
group = "cubic"
count = 1
transport = "tcp"
app = "bulk"
cc = "cubic"
window = 10000
start = "0s"
[output]
sample_flows = false
"#,
        topology = dumbbell_with(
            2,
            ("100Mbps", "1ms"),
            ("20Mbps", "18ms"),
            "kind = \"droptail\"\nlimit = 400"
        )
    );
    let out = common::run(&text);
    (mean_goodput(&out, "copa"), mean_goodput(&out, "cubic"))
}

#[test]
fn competitive_mode_keeps_copa_from_starving_beside_cubic() {
    let (copa_default, cubic_default) = against_cubic("default");
    let (copa_auto, cubic_auto) = against_cubic("auto");
    let share = |a: f64, b: f64| a / (a + b);
    eprintln!(
        "default mode: copa {:.2} Mbps, cubic {:.2} Mbps (share {:.3}); auto: copa {:.2}, cubic {:.2} (share {:.3})",
        copa_default / 1e6,
        cubic_default / 1e6,
        share(copa_default, cubic_default),
        copa_auto / 1e6,
        cubic_auto / 1e6,
        share(copa_auto, cubic_auto)
    );
    // Delay-based Copa gives way to the buffer-filler (2.7% of the link)...
    assert!(share(copa_default, cubic_default) < 0.05);
    // ...competitive Copa does not starve: it holds several times that
    // (23%; the mode's AIMD on 1/delta against CUBIC's cubic growth leaves
    // it below an even split here, as in the paper's Copa-vs-CUBIC runs
    // where Copa's share varies with the buffer).
    assert!(share(copa_auto, cubic_auto) > 0.15);
    assert!(share(copa_auto, cubic_auto) > 5.0 * share(copa_default, cubic_default));
}
