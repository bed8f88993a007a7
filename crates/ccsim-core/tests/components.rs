//! The results' `components` (issue 14). Every component reports the
//! configuration it was built with ("each run's results carry every
//! component's resolved configuration"):
//! the `config` of the results' `components`, every key of the component's
//! `*Config` with its default filled in. The lists of disciplines and
//! controllers come from their registries, so a new one is covered here
//! without touching this file. The bottleneck is the scenario's, marked
//! by the builder, not a link picked by its name.

mod common;
use ccsim_core::cc::{CcInit, CongestionControl, CongestionEvent, CONTROLLERS};
use ccsim_core::compat::Profile;
use ccsim_core::params::{resolving, Params};
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::{QueueArgs, DISCIPLINES};
use common::*;
use serde_json::{json, Value};

const PROFILES: [Profile; 5] = [Profile::Ccsim, Profile::Ns2, Profile::Ns3, Profile::Linux, Profile::Rfc];

/// Keys whose null is a value: "none" (no step marking, no classes, no
/// shaping, no RTT target, no BLUE sojourn threshold) or "derived at run
/// time" (CAKE's memory limit, from the rate and the limit). Any other null in a resolved config is a
/// default the component did not report.
const NULL_MEANS_NONE: &[&str] = &[
    "mark_threshold",
    "mark_threshold_bytes",
    "class_queue",
    "bandwidth",
    "memlimit",
    "rtt_target",
    "blue_threshold",
];

fn queue_args(params: &Params, compat: Profile) -> QueueArgs<'_> {
    QueueArgs {
        limit: Limit {
            packets: Some(100),
            bytes: None,
        },
        params,
        link_rate_bps: 10_000_000,
        compat,
    }
}

fn cc_init(compat: Profile) -> CcInit {
    CcInit {
        initial_cwnd: 10.0,
        initial_ssthresh: f64::INFINITY,
        mss: 1460,
        wire_size: 1500,
        compat,
        linux_agent: false,
        sack: true,
    }
}

/// Whether `key` is one the component's parser accepts (a value of the
/// wrong type is refused for its type, an unknown key for its name).
fn accepted(err: Option<String>) -> bool {
    err.is_none_or(|m| !m.contains("unknown key") && !m.contains("unknown field"))
}

/// The keys of `config` that are null without meaning "none".
fn unreported(config: &Params) -> Vec<&str> {
    config
        .iter()
        .filter(|(k, v)| v.is_null() && !NULL_MEANS_NONE.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect()
}

/// Under every profile, `build` with no parameters reports a configuration
/// whose every default is filled in and whose keys `build` accepts back.
fn check_reports<B: Fn(&Params, Profile) -> Result<(), String>>(name: &str, build: B) {
    let none = Params::new();
    for compat in PROFILES {
        let (built, config) = resolving(|| build(&none, compat));
        assert_eq!(built, Ok(()), "{name} ({compat:?}): builds with its defaults");
        assert!(!config.is_empty(), "{name} ({compat:?}): reports no configuration");
        assert_eq!(
            unreported(&config),
            Vec::<&str>::new(),
            "{name} ({compat:?}): defaults not reported"
        );
        // The keys are the scenario's: each is accepted back.
        for (k, v) in &config {
            let mut one = Params::new();
            one.insert(k.clone(), v.clone());
            let err = build(&one, compat).err();
            assert!(accepted(err.clone()), "{name}: key {k} is not one of its keys: {err:?}");
        }
    }
}

#[test]
fn every_discipline_reports_its_resolved_config() {
    for d in DISCIPLINES {
        check_reports(d.name, |p, compat| {
            (d.build)(&queue_args(p, compat)).map(|_| ()).map_err(|e| e.message)
        });
    }
}

#[test]
fn every_controller_reports_its_resolved_config() {
    for c in CONTROLLERS {
        check_reports(c.name, |p, compat| {
            (c.build)(p, &cc_init(compat)).map(|_| ()).map_err(|e| e.message)
        });
    }
}

const SCENARIO: &str = r#"
name = "resolved"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 2
[topology.access]
rate = "100Mbps"
delay = "1ms"
queue = { kind = "codel" }
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "red", min_th = 5, max_th = 15 }
loss = { model = "gilbert-elliott", p_gb = 0.01, p_bg = 0.5 }
[[flows]]
transport = "tcp"
app = "bulk"
cc = "cubic"
[[flows]]
transport = "udp"
app = "cbr"
rate = "1Mbps"
"#;

#[test]
fn defaults_not_in_the_scenario_are_reported() {
    let out = run(SCENARIO);
    let c = serde_json::to_value(&out.components).expect("serializable");
    let queue = |link: &str| {
        c["queues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["link"] == link)
            .unwrap()
            .clone()
    };
    let red = queue("r1->r2");
    assert_eq!(red["params"], json!({"min_th": 5, "max_th": 15}));
    // RED's max_p and w_q: ns-2's defaults (docs/algorithms.md), not in the scenario.
    assert_eq!(red["config"]["max_p"], json!(0.1));
    assert_eq!(red["config"]["weight"], json!(0.002));
    assert_eq!(red["config"]["min_th"], json!(5.0));
    // CoDel's target and interval (RFC 8289 section 4.2/4.3), in seconds.
    let codel = queue("s0->r1");
    assert_eq!(codel["params"], json!({}));
    assert_eq!(codel["config"]["target"], json!(0.005));
    assert_eq!(codel["config"]["interval"], json!(0.1));
    // The flow groups: TCP's keys with the controller's resolved under cc_params.
    let tcp = &c["flow_groups"][0]["config"];
    assert_eq!(tcp["cc"], json!("cubic"));
    assert!(
        tcp["cc_params"].as_object().is_some_and(|m| m.contains_key("beta")),
        "{tcp}"
    );
    assert!(tcp.get("mss").is_some_and(Value::is_u64), "{tcp}");
    let udp = &c["flow_groups"][1]["config"];
    assert_eq!(udp["rate"], json!(1_000_000));
    assert_eq!(udp["ecn"], json!(false));
    // The loss model, its defaults filled in.
    assert_eq!(
        c["losses"],
        json!([{"link": "r1->r2", "model": "gilbert-elliott", "p_gb": 0.01, "p_bg": 0.5, "loss_good": 0.0, "loss_bad": 1.0}])
    );
}

/// The links whose queue `components` marks as the bottleneck.
fn marked_links(out: &ccsim_core::RunOutput) -> Vec<String> {
    out.components
        .queues
        .iter()
        .filter(|q| q.bottleneck)
        .map(|q| q.link.clone())
        .collect()
}

/// A custom topology whose routers happen to be called r1 and r2: its
/// bottleneck is the most utilized link (here the slow access link s->r1),
/// not a link picked by its name, unless a link says `bottleneck = true`;
/// a dumbbell's is `topology.bottleneck`.
#[test]
fn the_bottleneck_is_the_scenarios_not_a_name() {
    let custom = r#"
name = "custom"
duration = "2s"
[[nodes]]
name = "s"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "d"
[[links]]
a = "s"
b = "r1"
rate = "1Mbps"
delay = "1ms"
[[links]]
a = "r1"
b = "r2"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r2"
b = "d"
rate = "100Mbps"
delay = "1ms"
[[flows]]
src = "s"
dst = "d"
transport = "udp"
app = "cbr"
rate = "2Mbps"
"#;
    let out = run(custom);
    assert_eq!(out.result.summary.bottleneck_link, "s->r1");
    assert_eq!(marked_links(&out), Vec::<String>::new());
    // A link marked `bottleneck = true`: its a->b direction, busier or not.
    let marked = custom.replacen(
        "a = \"r2\"\nb = \"d\"\n",
        "a = \"r2\"\nb = \"d\"\nbottleneck = true\n",
        1,
    );
    assert_ne!(marked, custom);
    let out = run(&marked);
    assert_eq!(out.result.summary.bottleneck_link, "r2->d");
    assert_eq!(marked_links(&out), ["r2->d"]);
    let r2d = out.result.links.iter().find(|l| l.link == "r2->d").unwrap();
    assert_eq!(out.result.summary.bottleneck_utilization, r2d.utilization);
    // Two links marked: an error naming the file, the second key and the first.
    let twice = marked.replacen(
        "a = \"s\"\nb = \"r1\"\n",
        "a = \"s\"\nb = \"r1\"\nbottleneck = true\n",
        1,
    );
    assert_eq!(
        run_err(&twice),
        "t.toml: links[2].bottleneck: only one link can be the bottleneck; links[0] is already marked"
    );
    // Not a boolean: the key and what was expected.
    let word = custom.replacen(
        "a = \"r2\"\nb = \"d\"\n",
        "a = \"r2\"\nb = \"d\"\nbottleneck = \"yes\"\n",
        1,
    );
    let e = run_err(&word);
    assert!(e.starts_with("t.toml: links[2].bottleneck: "), "{e}");
    assert!(e.contains("boolean"), "{e}");
    // A dumbbell whose access links are busier than its bottleneck: still r1->r2.
    let dumbbell = r#"
name = "dumbbell"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 1
[topology.access]
rate = "1Mbps"
delay = "1ms"
[topology.bottleneck]
rate = "100Mbps"
delay = "1ms"
[[flows]]
transport = "udp"
app = "cbr"
rate = "2Mbps"
"#;
    let out = run(dumbbell);
    assert_eq!(out.result.summary.bottleneck_link, "r1->r2");
    assert_eq!(marked_links(&out), ["r1->r2"]);
}

/// TCP flow-group keys whose null means "none": no initial ssthresh (it
/// starts unbounded) and no SYN timeout of its own (a lost SYN waits for
/// the RTO; ns-3's `ConnTimeout` only under `ns3`).
const TCP_NULL_MEANS_NONE: &[&str] = &["initial_ssthresh", "syn_timeout"];

/// TCP flow-group keys that are times (reported in seconds).
const TCP_TIME_KEYS: &[&str] = &[
    "delayed_ack_timeout",
    "min_rto",
    "max_rto",
    "initial_rto",
    "clock_granularity",
    "syn_timeout",
];

/// A TCP flow group's resolved config under `compat`, built from `params`.
fn tcp_config(params: &Params, compat: Profile) -> Params {
    let args = ccsim_core::transport::registry::TransportArgs {
        params,
        app: "bulk",
        compat,
    };
    let (built, config) = resolving(|| ccsim_core::tcp::build(&args).map(|_| ()).map_err(|e| e.message));
    assert_eq!(built, Ok(()), "tcp ({compat:?}, {params:?}) builds");
    config
}

/// Under every profile and with controllers of every recovery family,
/// a TCP flow group reports the value of every key the engine settles
/// from the profile (`TcpConfig::resolve`): none is null unless null means
/// "none", and the values are those of docs/compat.md's table.
#[test]
fn tcp_reports_its_profile_defaults() {
    for cc in ["newreno", "tahoe", "reno", "sack", "cubic", "bic", "dctcp", "bbr"] {
        let mut params = Params::new();
        params.insert("cc".into(), json!(cc));
        for compat in PROFILES {
            let config = tcp_config(&params, compat);
            let nulls: Vec<&str> = config
                .iter()
                .filter(|(k, v)| v.is_null() && !TCP_NULL_MEANS_NONE.contains(&k.as_str()))
                .map(|(k, _)| k.as_str())
                .collect();
            assert_eq!(
                nulls,
                Vec::<&str>::new(),
                "tcp {cc} ({compat:?}): defaults not reported"
            );
            // The settled config, given back as the flow group's keys (its
            // times, reported in seconds, written with their unit; the
            // controller's keys left to `every_controller_reports_its_resolved_config`),
            // reports itself again: the settled values are consistent.
            let mut back = config.clone();
            back.remove("cc_params");
            for k in TCP_TIME_KEYS {
                if let Some(s) = back[*k].as_f64() {
                    back.insert(k.to_string(), json!(format!("{s}s")));
                }
            }
            assert_eq!(
                tcp_config(&back, compat),
                config,
                "tcp {cc} ({compat:?}): not a fixed point"
            );
        }
    }
    // docs/compat.md: minimum RTO 200 ms (ccsim, ns2, linux), 1 s (ns3, rfc);
    // initial RTO 1 s, 3 s under ns2; delayed ACKs under ns3 and linux only.
    let newreno = |compat| tcp_config(&Params::new(), compat);
    let key = |compat, k: &str| newreno(compat)[k].clone();
    let by_profile = |k: &str| PROFILES.map(|p| key(p, k));
    assert_eq!(by_profile("min_rto"), [0.2, 0.2, 1.0, 0.2, 1.0].map(|v| json!(v)));
    assert_eq!(by_profile("initial_rto"), [1.0, 3.0, 1.0, 1.0, 1.0].map(|v| json!(v)));
    assert_eq!(
        by_profile("delayed_ack"),
        [false, false, true, true, false].map(|v| json!(v))
    );
    assert_eq!(
        by_profile("rto_floor"),
        ["variance", "whole", "whole", "variance", "whole"].map(|v| json!(v))
    );
    assert_eq!(by_profile("clock_granularity")[1], json!(0.01));
    assert_eq!(by_profile("rtt_sampling")[1], json!("timed"));
    assert_eq!(by_profile("sack"), [false, false, true, false, false].map(|v| json!(v)));
    // Under ns3 a SYN has its own timeout (`TcpSocket::ConnTimeout` 3 s).
    assert_eq!(by_profile("syn_timeout")[2], json!(3.0));
    // A key the scenario gives is reported as given.
    let mut given = Params::new();
    given.insert("min_rto".into(), json!("300ms"));
    // (seconds as every time of the results: nanoseconds times 1e-9)
    assert_eq!(tcp_config(&given, Profile::Ns2)["min_rto"], json!(300_000_000.0 * 1e-9));
}

/// A loss at a window of `cwnd` segments.
fn loss_at(cwnd: f64) -> CongestionEvent {
    CongestionEvent {
        now: ccsim_core::time::SimTime::ZERO,
        flight: cwnd,
        window: cwnd,
        collapse: false,
        repeated: false,
        srtt: None,
        int_ssthresh: true,
    }
}

/// The Linux 2.6.22 modules that ns-2's `Agent/TCP/Linux` runs report the
/// constants they run, not the RFC's defaults: CUBIC's C = 410/1024 and
/// beta = 819/1024 (its other keys as the module behaves), BIC's beta as the
/// module's integer over 1024. Checked against the behaviour: a loss at a
/// window of 1024 segments leaves ssthresh = floor(1024 x the reported
/// beta), whether the variant is chosen by `linux_agent` or by the key,
/// under every profile. The reported config is accepted back and reports
/// itself again; a value the module does not run is refused by its key.
#[test]
fn linux_2622_modules_report_what_they_run() {
    let controller = |name: &str| CONTROLLERS.iter().find(|c| c.name == name).expect("registered");
    let cases = [("cubic", json!({})), ("bic", json!({})), ("bic", json!({"beta": 0.7}))];
    for compat in PROFILES {
        for (name, given) in &cases {
            for (linux_agent, variant) in [(true, None), (false, Some("linux-2.6.22"))] {
                let mut params = given.as_object().cloned().unwrap_or_default();
                if let Some(v) = variant {
                    params.insert("variant".into(), json!(v));
                }
                let init = CcInit {
                    initial_cwnd: 1024.0,
                    linux_agent,
                    ..cc_init(compat)
                };
                let c = controller(name);
                let (built, config) = resolving(|| (c.build)(&params, &init));
                let mut cc: Box<dyn CongestionControl> =
                    built.unwrap_or_else(|e| panic!("{name} {params:?}: {}", e.message));
                assert_eq!(config["variant"], json!("linux-2.6.22"), "{name} ({compat:?})");
                let beta = config["beta"].as_f64().expect("beta reported");
                cc.on_congestion_event(&loss_at(1024.0));
                assert_eq!(
                    cc.ssthresh(),
                    (1024.0 * beta).floor(),
                    "{name} {params:?} ({compat:?}): reported beta {beta} is not the one that runs"
                );
                // The report, given back whole, builds and reports itself.
                let (again, config_again) = resolving(|| (c.build)(&config, &init).map(|_| ()));
                assert_eq!(again.map_err(|e| e.message), Ok(()), "{name}: {config:?}");
                assert_eq!(config_again, config, "{name} ({compat:?}): not a fixed point");
            }
        }
    }
    let cubic = |params: Value| {
        let p = params.as_object().cloned().unwrap_or_default();
        resolving(|| (controller("cubic").build)(&p, &cc_init(Profile::Ns2)).map(|_| ()))
    };
    let (_, config) = cubic(json!({"variant": "linux-2.6.22"}));
    assert_eq!(config["c"], json!(410.0 / 1024.0));
    assert_eq!(config["beta"], json!(819.0 / 1024.0));
    assert_eq!(config["hystart"], json!(false));
    assert_eq!(config["growth_per_segment"], json!(false));
    assert_eq!(config["ssthresh_from_cwnd"], json!(true));
    for (key, value) in [
        ("beta", json!(0.5)),
        ("c", json!(0.3)),
        ("hystart", json!(true)),
        ("growth_per_segment", json!(true)),
        ("ssthresh_from_cwnd", json!(false)),
    ] {
        let mut p = serde_json::Map::new();
        p.insert("variant".into(), json!("linux-2.6.22"));
        p.insert(key.into(), value);
        let (built, _) = cubic(Value::Object(p));
        let err = built.expect_err(key);
        assert_eq!(err.path, key);
        assert!(err.message.contains("linux-2.6.22"), "{}", err.message);
    }
}
