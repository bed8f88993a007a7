//! The packet trace a scenario asks for (`[output] trace`, `trace_links`):
//! its size estimated from the routes before the run, and its plan.

use super::{err, Builder};
use crate::error::Result;
use crate::routing::{Routes, NO_ROUTE};
use crate::scenario::ScenarioSpec;
use crate::sim::Flow;
use crate::trace::{estimate, TraceFormat, TracePlan, MAX_PCAP_FILES};

/// The size of the planned trace ([`crate::trace::estimate`]): each flow's
/// data path and acknowledgement path from the routes, its data packet size
/// from `packet_size` (else its segment plus a 40-byte header).
pub(super) fn trace_estimate(
    spec: &ScenarioSpec,
    b: &Builder,
    flows: &[Flow],
    routes: &Routes,
    mss: &[u32],
    plan: &TracePlan,
) -> estimate::TraceEstimate {
    let n = b.nodes.len();
    let path = |from: usize, to: usize| {
        let mut hops = Vec::new();
        let mut at = from;
        while at != to && hops.len() <= n {
            let l = routes.next(at, to);
            if l == NO_ROUTE {
                break;
            }
            hops.push(l as usize);
            at = b.links[l as usize].to.0 as usize;
        }
        hops
    };
    let sizes: Vec<Option<u64>> = spec
        .flows
        .iter()
        .flat_map(|g| {
            let size = g.params.get("packet_size").and_then(|v| v.as_u64());
            std::iter::repeat_n(size, g.count.unwrap_or(1).max(1) as usize)
        })
        .collect();
    let demands: Vec<estimate::Demand> = flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (src, dst) = (f.src.0 as usize, f.dst.0 as usize);
            let feedback = f.sender.name() != "udp";
            estimate::Demand {
                path: path(src, dst),
                back: if feedback { path(dst, src) } else { Vec::new() },
                packet_bytes: sizes
                    .get(i)
                    .copied()
                    .flatten()
                    .unwrap_or(u64::from(mss.get(i).copied().unwrap_or(crate::DEFAULT_MSS)) + estimate::ACK_BYTES),
            }
        })
        .collect();
    let capacity: Vec<f64> = b.links.iter().map(|l| l.rate_bps as f64).collect();
    estimate::estimate(
        plan.format,
        &plan.links,
        &capacity,
        &demands,
        spec.duration.0.secs_f64(),
    )
}

/// `[output] trace` and `trace_links`: the trace to write, checked now
/// (files are only created when the run starts, in its output folder).
pub(super) fn trace_plan(
    spec: &ScenarioSpec,
    file: &str,
    b: &Builder,
    flows: &[Flow],
    routes: &Routes,
) -> Result<Option<TracePlan>> {
    let out = &spec.output;
    let format = match out.trace.as_deref().unwrap_or("none") {
        "none" => {
            if out.trace_links.is_some() {
                return Err(err(
                    file,
                    "output.trace_links",
                    "trace_links selects the links of a trace: set trace = \"ns2\" or \"pcap\" too",
                ));
            }
            return Ok(None);
        }
        "ns2" => TraceFormat::Ns2,
        "pcap" => TraceFormat::Pcap,
        other => {
            return Err(err(
                file,
                "output.trace",
                format!("unknown trace format \"{other}\"; expected \"none\", \"ns2\" or \"pcap\""),
            ))
        }
    };
    // Hops over a wireless LAN go through its MAC, not a link queue: they are
    // not traced (by default they are left out; naming one is an error).
    let mut traced: Vec<bool> = b
        .links
        .iter()
        .map(|l| out.trace_links.is_none() && l.queue().is_some())
        .collect();
    for (i, nm) in out.trace_links.iter().flatten().enumerate() {
        let li = b.links.iter().position(|l| &l.name == nm).ok_or_else(|| {
            err(
                file,
                format!("output.trace_links[{i}]"),
                format!("unknown link \"{nm}\" (links are named \"a->b\")"),
            )
        })?;
        if b.links[li].queue().is_none() {
            return Err(err(
                file,
                format!("output.trace_links[{i}]"),
                format!("\"{nm}\" is a wireless LAN hop; traces cover wired links only"),
            ));
        }
        traced[li] = true;
    }
    // Segment payload of each flow, for pcap byte sequence numbers: asked
    // of each built sender (a `web` group makes more flows than its
    // `count`, so the flow groups' keys cannot be lined up with the flows).
    let mss: Vec<u32> = flows
        .iter()
        .map(|f| f.sender.segment_payload().unwrap_or(crate::DEFAULT_MSS))
        .collect();
    let mut plan = TracePlan::new(format, traced, &b.nodes, &b.links, flows, &mss);
    plan.estimate = trace_estimate(spec, b, flows, routes, &mss, &plan);
    if format == TraceFormat::Pcap {
        let names: Vec<&String> = plan.files.iter().flatten().collect();
        if names.len() > MAX_PCAP_FILES {
            return Err(err(
                file,
                "output.trace_links",
                format!(
                    "trace = \"pcap\" writes one file per link direction: {} here, at most {MAX_PCAP_FILES}; \
                     list the links to capture in trace_links",
                    names.len()
                ),
            ));
        }
        let mut seen = std::collections::BTreeMap::new();
        for (li, f) in plan.files.iter().enumerate() {
            if let Some(f) = f {
                if let Some(prev) = seen.insert(f.clone(), li) {
                    return Err(err(
                        file,
                        "output.trace_links",
                        format!(
                            "links \"{}\" and \"{}\" would both be captured to {f}; rename a node",
                            b.links[prev].name, b.links[li].name
                        ),
                    ));
                }
            }
        }
    }
    Ok(Some(plan))
}
