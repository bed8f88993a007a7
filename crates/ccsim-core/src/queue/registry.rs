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

/// DropTail's parameters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct DropTailConfig {
    /// Let the kernel bypass the queue (identical results, fewer events).
    fast_path: bool,
    /// What the limit counts (default from the compatibility profile).
    limit_mode: Option<LimitMode>,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig {
            fast_path: true,
            limit_mode: None,
        }
    }
}

/// How a DropTail queue reads its `limit` (a compatibility semantic).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LimitMode {
    /// `limit` packets (or `limit_bytes` bytes) may wait; the packet on the
    /// wire does not count (ns-3's queue disc limit, ccsim's default).
    Waiting,
    /// ns-2's `queue/drop-tail.cc`: an arrival is dropped when `length + 1
    /// >= qlim_` (bytes: `byteLength + size >= qlim_ * mean_pktsize_`), so
    /// at most `limit - 1` packets wait; a limit of 1 drops everything.
    Ns2,
}

impl LimitMode {
    /// The limit on waiting packets and bytes that `limit` means in this mode.
    pub fn waiting(self, limit: Limit) -> Limit {
        match self {
            LimitMode::Waiting => limit,
            LimitMode::Ns2 => Limit {
                packets: limit.packets.map(|l| l.saturating_sub(1)),
                bytes: limit.bytes.map(|b| b.saturating_sub(1)),
            },
        }
    }
}

fn build_basic(kind: &str, args: &QueueArgs) -> Option<Built> {
    let drop_front = match kind {
        "droptail" | "fifo" => false,
        "dropfront" => true,
        _ => return None,
    };
    Some(parse::<DropTailConfig>(args.params).map(|c| {
        let mode = c.limit_mode.unwrap_or(args.compat.droptail_limit_mode());
        Box::new(DropTail::new(mode.waiting(args.limit), drop_front).with_fast_path(c.fast_path)) as Box<dyn QueueDisc>
    }))
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
        "sfq" => boxed(sfq::Sfq::from_params(l, p, args.compat)),
        "drr" => boxed(drr::Drr::from_params(l, p, rate, args.compat)),
        "rr" => boxed(rr::RoundRobin::from_params(l, p, rate, args.compat)),
        "codel" => boxed(codel::Codel::from_params(l, p)),
        "fq_codel" => boxed(fq_codel::FqCodel::from_params(l, p)),
        "pie" => boxed(pie::Pie::from_params(l, p)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_droptail_holds_one_packet_fewer() {
        // ns-2 drop-tail.cc drops when length + 1 >= qlim_.
        let l = Limit {
            packets: Some(2),
            bytes: Some(4000),
        };
        let w = LimitMode::Ns2.waiting(l);
        assert_eq!((w.packets, w.bytes), (Some(1), Some(3999)));
        assert!(w.fits(0, 0, 1000) && !w.fits(1, 1000, 1000));
        // A limit of 1 drops everything, as in ns-2.
        let one = LimitMode::Ns2.waiting(Limit {
            packets: Some(1),
            bytes: None,
        });
        assert!(!one.fits(0, 0, 1000));
        assert_eq!(LimitMode::Waiting.waiting(l), l);
    }
}
