//! The table of queue disciplines by name ([`DISCIPLINES`]): one row per
//! discipline, its name and its constructor. Adding a discipline means its
//! file and one row; the names in error messages, [`kinds`] and the
//! property tests that cover every discipline all come from the table, and
//! the kernel does not change.

use super::droptail::{DropTail, Limit};
use super::step_mark::StepMark;
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

/// One queue discipline: the name a scenario's `kind` gives and its constructor.
pub struct Discipline {
    /// The `kind` name.
    pub name: &'static str,
    /// Build it from the queue table's arguments.
    pub build: fn(&QueueArgs) -> Built,
}

/// Every discipline, in the order error messages list them. (`lired` is not
/// here: its definition could not be found; see docs/algorithms.md.)
pub const DISCIPLINES: &[Discipline] = &[
    // Tail and front drop.
    row("droptail", |a| droptail(false, a)),
    row("dropfront", |a| droptail(true, a)),
    // The RED family and the price/rate-based AQMs.
    row("red", |a| super::red::build("red", a)),
    row("gred", |a| super::red::build("gred", a)),
    row("nlred", |a| super::red::build("nlred", a)),
    row("ared", |a| super::red::build("ared", a)),
    row("wred", super::wred::build),
    row("rio", super::rio::build),
    row("modred", super::modred::build),
    row("rem", super::rem::build),
    row("avq", super::avq::build),
    row("pi", super::pi::build),
    // Fair queueing, schedulers and delay-based AQMs.
    row("blue", |a| boxed(super::blue::Blue::from_params(a.limit, a.params))),
    row("sfb", |a| boxed(super::sfb::Sfb::from_params(a.limit, a.params))),
    row("sred", |a| boxed(super::sred::Sred::from_params(a.limit, a.params))),
    row("fred", |a| {
        boxed(super::fred::Fred::from_params(a.limit, a.params, a.link_rate_bps))
    }),
    row("choke", |a| {
        boxed(super::choke::Choke::from_params(a.limit, a.params, a.link_rate_bps))
    }),
    row("sfq", |a| {
        boxed(super::sfq::Sfq::from_params(a.limit, a.params, a.compat))
    }),
    row("drr", |a| {
        boxed(super::drr::Drr::from_params(
            a.limit,
            a.params,
            a.link_rate_bps,
            a.compat,
        ))
    }),
    row("rr", |a| {
        boxed(super::rr::RoundRobin::from_params(
            a.limit,
            a.params,
            a.link_rate_bps,
            a.compat,
        ))
    }),
    row("codel", |a| boxed(super::codel::Codel::from_params(a.limit, a.params))),
    row("cobalt", |a| {
        boxed(super::cobalt::Cobalt::from_params(a.limit, a.params))
    }),
    row("cake", |a| {
        boxed(super::cake::Cake::from_params(a.limit, a.params, a.compat))
    }),
    row("fq_codel", |a| {
        boxed(super::fq_codel::FqCodel::from_params(a.limit, a.params))
    }),
    row("pie", |a| {
        boxed(super::pie::Pie::from_params(a.limit, a.params, a.compat))
    }),
    row("dualpi2", |a| {
        boxed(super::dualpi2::DualPi2::from_params(a.limit, a.params))
    }),
];

/// Other names for a discipline: (alias, name).
const ALIASES: &[(&str, &str)] = &[("fifo", "droptail")];

const fn row(name: &'static str, build: fn(&QueueArgs) -> Built) -> Discipline {
    Discipline { name, build }
}

fn boxed<T: QueueDisc + 'static>(r: Result<T, ParamError>) -> Built {
    r.map(|d| Box::new(d) as Box<dyn QueueDisc>)
}

/// Names accepted as `kind` (without the aliases).
pub fn kinds() -> Vec<&'static str> {
    DISCIPLINES.iter().map(|d| d.name).collect()
}

/// Every discipline a scenario can name with its defaults: the table's,
/// then those the registered extensions declare (`SCHEME:NAME`,
/// [`crate::plugin::Provider::queue_names`]). The property tests walk this
/// list, so a discipline added to the table or registered by a provider
/// (a test crate's) is covered without being named in them.
pub fn every_kind() -> Vec<String> {
    DISCIPLINES
        .iter()
        .map(|d| d.name.to_string())
        .chain(crate::plugin::queue_kinds())
        .collect()
}

/// Build the discipline `kind`.
pub fn build(kind: &str, args: &QueueArgs) -> Built {
    if crate::plugin::is_external(kind) {
        return crate::plugin::build_queue(kind, args);
    }
    let name = ALIASES.iter().find(|(a, _)| *a == kind).map_or(kind, |(_, n)| *n);
    match DISCIPLINES.iter().find(|d| d.name == name) {
        Some(d) => (d.build)(args),
        None => Err(ParamError::at(
            "kind",
            format!(
                "unknown queue discipline \"{kind}\"; expected one of: {}, or SCHEME:NAME from an extension (python:module.Class)",
                kinds().join(", ")
            ),
        )),
    }
}

/// DropTail's parameters.
#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
struct DropTailConfig {
    /// Let the kernel bypass the queue (identical results, fewer events).
    fast_path: bool,
    /// What the limit counts (default from the compatibility profile).
    limit_mode: Option<LimitMode>,
    /// Step ECN marking: mark an ECN-capable arrival that finds at least
    /// this many packets waiting (DCTCP's K; default none).
    mark_threshold: Option<u64>,
    /// The same threshold in bytes waiting.
    mark_threshold_bytes: Option<u64>,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig {
            fast_path: true,
            limit_mode: None,
            mark_threshold: None,
            mark_threshold_bytes: None,
        }
    }
}

/// How a DropTail queue reads its `limit` (a compatibility semantic).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
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

fn droptail(drop_front: bool, args: &QueueArgs) -> Built {
    let c = parse::<DropTailConfig>(args.params)?;
    let mode = c.limit_mode.unwrap_or(args.compat.droptail_limit_mode());
    crate::params::resolved(&DropTailConfig {
        limit_mode: Some(mode),
        ..c
    });
    let step = StepMark::new(c.mark_threshold, c.mark_threshold_bytes)?;
    let q = DropTail::new(mode.waiting(args.limit), drop_front)
        .with_fast_path(c.fast_path)
        .with_step_mark(step);
    Ok(Box::new(q) as Box<dyn QueueDisc>)
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
