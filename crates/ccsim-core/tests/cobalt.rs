//! COBALT against an unresponsive flood (Høiland-Jørgensen, Täht and
//! Morton, "Piece of CAKE", LANMAN 2018, section 3.3): CoDel's control law
//! alone lets a flow that ignores drops keep the buffer full, since its drop
//! rate only grows with the square root of its count; COBALT's BLUE part
//! raises a drop probability while the buffer overflows, until it sheds the
//! excess (half the packets of a flood at twice the link rate) before they
//! can queue.

mod common;
use ccsim_core::RunOutput;
use common::*;

fn flood(kind: &str) -> RunOutput {
    let text = format!(
        r#"
name = "flood"
duration = "40s"
warmup = "20s"
seed = 5
{topology}
[[flows]]
group = "udp"
count = 1
transport = "udp"
app = "cbr"
rate = "20Mbps"
packet_size = 1000
[output]
sample_links = ["r1->r2"]
sample_flows = false
sample_interval = "100ms"
"#,
        topology = dumbbell(1, &format!("kind = \"{kind}\"\nlimit = 1000"))
    );
    common::run(&text)
}

fn mean_after_warmup(out: &RunOutput, metric: &str) -> f64 {
    series_mean_from(out, "r1->r2", metric, 20.0)
}

#[test]
fn blue_sheds_an_unresponsive_flood_that_codel_lets_fill_the_buffer() {
    let codel = flood("codel");
    let cobalt = flood("cobalt");
    let (q_codel, q_cobalt) = (
        mean_after_warmup(&codel, "len_pkts"),
        mean_after_warmup(&cobalt, "len_pkts"),
    );
    let p_drop = mean_after_warmup(&cobalt, "p_drop");
    eprintln!("mean queue codel {q_codel:.0}, cobalt {q_cobalt:.0} packets; cobalt p_drop {p_drop:.3}");
    // A flood at twice the rate: the excess is 1/2. BLUE settles at or a
    // little below it (above it the queue runs empty and p_drop falls), and
    // CoDel's part drops the rest.
    assert!((0.4..0.52).contains(&p_drop), "p_drop {p_drop}");
    assert!(q_cobalt < 0.25 * q_codel, "queues {q_cobalt} vs {q_codel}");
    for out in [&codel, &cobalt] {
        let q = bottleneck(out);
        assert_queue_identities(q);
        let util = out
            .result
            .links
            .iter()
            .find(|l| l.link == "r1->r2")
            .unwrap()
            .utilization;
        assert!(util > 0.97, "{}: utilization {util}", q.kind);
    }
}
