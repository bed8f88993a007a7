//! The table of queue disciplines by name. Adding a discipline means adding
//! its file and one arm in the builder of its family; the kernel does not change.

use super::droptail::{DropTail, Limit};
use super::QueueDisc;
use crate::compat::Profile;
use crate::params::{parse, ParamError, Params};
use serde::Deserialize;

/// What every discipline's constructor receives.
pub struct QueueArgs<'a> {
    /// Buffer limit from `limit` / `limit_bytes`.
    pub limit: Limit,
    /// The discipline's own parameters (every key of the queue table except
    /// `kind`, `limit` and `limit_bytes`).
    pub params: &'a Params,
    /// Rate of the link the queue feeds.
    pub link_rate_bps: u64,
    /// The compatibility profile in force for this queue.
    pub compat: Profile,
}

/// A built discipline, or a parameter error.
pub type Built = Result<Box<dyn QueueDisc>, ParamError>;

/// Names accepted as `kind`.
pub fn kinds() -> Vec<&'static str> {
    [BASIC_KINDS, RED_FAMILY_KINDS, FAIR_AND_DELAY_KINDS].concat()
}

/// Build the discipline `kind`.
pub fn build(kind: &str, args: &QueueArgs) -> Built {
    build_basic(kind, args)
        .or_else(|| build_red_family(kind, args))
        .or_else(|| build_fair_and_delay(kind, args))
        .unwrap_or_else(|| {
            Err(ParamError::at(
                "kind",
                format!(
                    "unknown queue discipline \"{kind}\"; expected one of: {}",
                    kinds().join(", ")
                ),
            ))
        })
}

const BASIC_KINDS: &[&str] = &["droptail", "dropfront"];

/// DropTail's only parameter.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct DropTailConfig {
    /// Let the kernel bypass the queue (identical results, fewer events).
    fast_path: bool,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig { fast_path: true }
    }
}

fn build_basic(kind: &str, args: &QueueArgs) -> Option<Built> {
    let drop_front = match kind {
        "droptail" | "fifo" => false,
        "dropfront" => true,
        _ => return None,
    };
    Some(
        parse::<DropTailConfig>(args.params)
            .map(|c| Box::new(DropTail::new(args.limit, drop_front).with_fast_path(c.fast_path)) as Box<dyn QueueDisc>),
    )
}

/// RED family and price/rate-based AQMs. (`lired` is not here: its
/// definition could not be found; see docs/algorithms.md.)
const RED_FAMILY_KINDS: &[&str] = &[
    "red", "gred", "nlred", "ared", "wred", "rio", "modred", "rem", "avq", "pi",
];

fn build_red_family(kind: &str, args: &QueueArgs) -> Option<Built> {
    use super::{avq, modred, pi, red, rem, rio, wred};
    Some(match kind {
        "red" => red::build("red", args),
        "gred" => red::build("gred", args),
        "nlred" => red::build("nlred", args),
        "ared" => red::build("ared", args),
        "wred" => wred::build(args),
        "rio" => rio::build(args),
        "modred" => modred::build(args),
        "rem" => rem::build(args),
        "avq" => avq::build(args),
        "pi" => pi::build(args),
        _ => return None,
    })
}

/// Fair queueing, schedulers and delay-based AQMs.
const FAIR_AND_DELAY_KINDS: &[&str] = &[
    "blue", "sfb", "sred", "fred", "choke", "sfq", "drr", "rr", "codel", "fq_codel", "pie",
];

fn build_fair_and_delay(kind: &str, args: &QueueArgs) -> Option<Built> {
    use super::{blue, choke, codel, drr, fq_codel, fred, pie, rr, sfb, sfq, sred};
    fn boxed<T: QueueDisc + 'static>(r: Result<T, ParamError>) -> Built {
        r.map(|d| Box::new(d) as Box<dyn QueueDisc>)
    }
    let (l, p, rate) = (args.limit, args.params, args.link_rate_bps);
    Some(match kind {
        "blue" => boxed(blue::Blue::from_params(l, p)),
        "sfb" => boxed(sfb::Sfb::from_params(l, p)),
        "sred" => boxed(sred::Sred::from_params(l, p)),
        "fred" => boxed(fred::Fred::from_params(l, p, rate)),
        "choke" => boxed(choke::Choke::from_params(l, p, rate)),
        "sfq" => boxed(sfq::Sfq::from_params(l, p)),
        "drr" => boxed(drr::Drr::from_params(l, p, rate, args.compat)),
        "rr" => boxed(rr::RoundRobin::from_params(l, p, rate, args.compat)),
        "codel" => boxed(codel::Codel::from_params(l, p)),
        "fq_codel" => boxed(fq_codel::FqCodel::from_params(l, p)),
        "pie" => boxed(pie::Pie::from_params(l, p)),
        _ => return None,
    })
}
