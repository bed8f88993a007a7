//! `packet_size` is a key of the rate-based transports (tfrc, rap: docs/algorithms.md) as well as of
//! the UDP applications: with `app = "bulk"`, which has no packet size, it goes to the transport.
//! The mehta study sets it to ns-2's 1000 bytes.

use ccsim_core::{run_toml, GuardOverrides};

fn scenario(transport: &str, app: &str, extra: &str) -> String {
    format!(
        r#"
name = "packet-size"
duration = "5s"
seed = 1
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "100Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
[[flows]]
transport = "{transport}"
app = "{app}"
packet_size = 1000
{extra}
"#
    )
}

/// Every data packet of a TFRC or RAP flow is `packet_size` bytes on the wire.
#[test]
fn rate_based_transports_take_packet_size_with_bulk() {
    for transport in ["tfrc", "rap"] {
        let text = scenario(transport, "bulk", "");
        let out = run_toml(&text, "test.toml", GuardOverrides::default()).unwrap_or_else(|e| panic!("{e}"));
        let f = &out.result.flows[0];
        assert!(f.sent_packets > 10, "{transport}: {} packets", f.sent_packets);
        assert_eq!(f.sent_bytes, 1000 * f.sent_packets, "{transport}");
    }
}

/// TCP has no `packet_size` (its segment is `mss`): the key is still refused, naming it.
#[test]
fn tcp_bulk_still_refuses_packet_size() {
    let err = run_toml(&scenario("tcp", "bulk", ""), "test.toml", GuardOverrides::default())
        .err()
        .expect("packet_size with tcp + bulk must be an error")
        .to_string();
    assert!(err.contains("packet_size"), "{err}");
}
