//! Applications: they decide when and how much data a flow offers; the
//! transport decides how it is sent.
//!
//! Each application is a small state machine driven by its own timer. On
//! start and on each of its timers it returns how many bytes it writes to the
//! transport now (0 for none) and schedules its next timer through the
//! [`FlowCtx`].

pub mod config;
pub mod web;

use crate::event::Endpoint;
use crate::rng::{exponential, pareto, SimRng};
use crate::time::SimTime;
use crate::transport::FlowCtx;

/// Timer kind used by applications for their next action.
pub const APP_TICK: u32 = 0;

/// What an application asks of its transport (issue 14: a transport
/// declares which of these it serves, and the builder checks the pair in
/// one place, `transport::registry::build`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demand {
    /// An infinite backlog (ns-2's FTP): the transport sends as fast as its
    /// own control allows.
    Backlog,
    /// A finite number of bytes that must all arrive (its completion time
    /// is recorded): a reliable transport.
    Transfer,
    /// Writes at the application's own pace (its rate and schedule).
    Messages,
}

impl Demand {
    /// How error messages name it.
    pub fn describe(self) -> &'static str {
        match self {
            Demand::Backlog => "an infinite backlog",
            Demand::Transfer => "a reliable transfer of a fixed size",
            Demand::Messages => "writes at the application's own rate",
        }
    }
}

/// One row of the application table.
pub struct AppInfo {
    /// The name as written in scenarios (`app`).
    pub name: &'static str,
    /// What it asks of its transport.
    pub demand: Demand,
    /// Its typed configuration from the group's application keys ([`config`]).
    pub parse: fn(&crate::params::Params) -> Result<config::AppConfig, crate::params::ParamError>,
}

/// Every application, by name, with its parser (the builder builds each
/// flow's application from the parsed config, [`config::AppConfig::build`];
/// `web` is a workload of `finite` transfers).
pub const APPS: &[AppInfo] = &[
    AppInfo {
        name: "bulk",
        parse: config::parse_bulk,
        demand: Demand::Backlog,
    },
    AppInfo {
        name: "finite",
        parse: config::parse_finite,
        demand: Demand::Transfer,
    },
    AppInfo {
        name: "web",
        parse: config::parse_web,
        demand: Demand::Transfer,
    },
    AppInfo {
        name: "cbr",
        parse: config::parse_cbr,
        demand: Demand::Messages,
    },
    AppInfo {
        name: "poisson",
        parse: config::parse_poisson,
        demand: Demand::Messages,
    },
    AppInfo {
        name: "onoff",
        parse: config::parse_onoff,
        demand: Demand::Messages,
    },
];

/// The demand of the application called `name`, if there is one.
pub fn demand(name: &str) -> Option<Demand> {
    APPS.iter().find(|a| a.name == name).map(|a| a.demand)
}

/// The names of the applications, for error messages.
pub fn names() -> Vec<&'static str> {
    APPS.iter().map(|a| a.name).collect()
}

/// An application: produces data for a transport.
pub trait Application: Send {
    /// The name as written in scenarios (`app`).
    fn name(&self) -> &'static str;
    /// The flow starts at `ctx.now`; return bytes to write now.
    fn start(&mut self, ctx: &mut FlowCtx) -> u64;
    /// The application's timer fired; return bytes to write now.
    fn on_timer(&mut self, ctx: &mut FlowCtx, token: u64) -> u64;
    /// Whether this application is "greedy" (bulk-like) by default for fairness.
    fn greedy(&self) -> bool {
        false
    }
}

/// An infinite source (ns-2's FTP): the transport always has data.
pub struct Bulk;

impl Application for Bulk {
    fn name(&self) -> &'static str {
        "bulk"
    }
    fn start(&mut self, _ctx: &mut FlowCtx) -> u64 {
        u64::MAX
    }
    fn on_timer(&mut self, _ctx: &mut FlowCtx, _token: u64) -> u64 {
        0
    }
    fn greedy(&self) -> bool {
        true
    }
}

/// A transfer of a fixed number of bytes; its completion time is recorded.
pub struct Finite {
    /// Payload bytes to transfer.
    pub bytes: u64,
    /// The name reported: "finite", or "web" for the short flows of a web group.
    pub label: &'static str,
}

impl Application for Finite {
    fn name(&self) -> &'static str {
        self.label
    }
    fn start(&mut self, ctx: &mut FlowCtx) -> u64 {
        ctx.stats.target_bytes = Some(self.bytes);
        self.bytes
    }
    fn on_timer(&mut self, _ctx: &mut FlowCtx, _token: u64) -> u64 {
        0
    }
}

/// When a paced source is allowed to send.
#[derive(Clone, Debug)]
pub enum Schedule {
    /// Always on (between the flow's start and stop).
    Always,
    /// On during the listed [start, stop) intervals, absolute times.
    Intervals(Vec<(SimTime, SimTime)>),
    /// A square wave: on for `duty` of each `period`, starting on at the flow's start.
    Square {
        /// Period of the wave.
        period: SimTime,
        /// Length of the on part of each period.
        on: SimTime,
    },
}

impl Schedule {
    /// If `t` is in an on period, None; otherwise the next time the source turns on
    /// (`SimTime::MAX` if never).
    fn next_on(&self, t: SimTime, origin: SimTime) -> Option<SimTime> {
        match self {
            Schedule::Always => None,
            Schedule::Intervals(iv) => {
                for &(a, b) in iv {
                    if t < a {
                        return Some(a);
                    }
                    if t < b {
                        return None;
                    }
                }
                Some(SimTime::MAX)
            }
            Schedule::Square { period, on } => {
                let phase = (t - origin).0 % period.0;
                if phase < on.0 {
                    None
                } else {
                    Some(t + SimTime(period.0 - phase))
                }
            }
        }
    }
}

/// How packet gaps and sizes are drawn.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Dist {
    /// Always the mean.
    Constant,
    /// Exponential with the given mean.
    Exponential,
    /// Pareto with the given mean and shape.
    Pareto(f64),
}

impl Dist {
    /// Draw a value with mean `mean`.
    pub fn draw(&self, rng: &mut SimRng, mean: f64) -> f64 {
        match *self {
            Dist::Constant => mean,
            Dist::Exponential => exponential(rng, mean),
            Dist::Pareto(shape) => pareto(rng, mean, shape),
        }
    }
}

/// A paced packet source: CBR (constant gaps) or Poisson (exponential gaps),
/// with fixed or random packet sizes, gated by a [`Schedule`].
///
/// CBR gaps are computed in exact integer arithmetic from the start of each
/// on-period, so a long CBR run does not drift.
pub struct Paced {
    name: &'static str,
    rate_bps: u64,
    packet_size: u32,
    gaps: Dist,
    sizes: Dist,
    schedule: Schedule,
    origin: SimTime,
    burst_start: SimTime,
    k: u64,
    token: u64,
}

impl Paced {
    /// A constant-bit-rate source.
    pub fn cbr(rate_bps: u64, packet_size: u32, schedule: Schedule) -> Self {
        Self::new("cbr", rate_bps, packet_size, Dist::Constant, Dist::Constant, schedule)
    }

    /// A Poisson packet source (exponential gaps) with the given size distribution.
    pub fn poisson(rate_bps: u64, packet_size: u32, sizes: Dist, schedule: Schedule) -> Self {
        Self::new("poisson", rate_bps, packet_size, Dist::Exponential, sizes, schedule)
    }

    fn new(name: &'static str, rate_bps: u64, packet_size: u32, gaps: Dist, sizes: Dist, schedule: Schedule) -> Self {
        Paced {
            name,
            rate_bps,
            packet_size,
            gaps,
            sizes,
            schedule,
            origin: SimTime::ZERO,
            burst_start: SimTime::ZERO,
            k: 0,
            token: 0,
        }
    }

    /// Mean gap between packets, ns (float).
    fn mean_gap_ns(&self) -> f64 {
        self.packet_size as f64 * 8.0 * 1e9 / self.rate_bps as f64
    }

    fn draw_size(&self, rng: &mut SimRng) -> u64 {
        let s = crate::time::round(self.sizes.draw(rng, self.packet_size as f64));
        s.clamp(1.0, u32::MAX as f64) as u64
    }

    /// Emit a packet now if on, and schedule the next attempt.
    fn tick(&mut self, ctx: &mut FlowCtx) -> u64 {
        let now = ctx.now;
        if let Some(on_at) = self.schedule.next_on(now, self.origin) {
            // Off: sleep until the next on-period and start a fresh burst there.
            if on_at != SimTime::MAX {
                self.burst_start = on_at;
                self.k = 0;
                self.token += 1;
                ctx.set_timer(on_at, Endpoint::App, APP_TICK, self.token);
            }
            return 0;
        }
        let size = self.draw_size(ctx.rng);
        let next = match self.gaps {
            Dist::Constant => {
                self.k += 1;
                // Exact: the k-th gap ends at k * bits / rate after the burst start.
                let bits = self.packet_size as u64 * 8_000_000_000;
                let offset = match bits.checked_mul(self.k) {
                    Some(b) => b / self.rate_bps,
                    None => (bits as u128 * self.k as u128 / self.rate_bps as u128) as u64,
                };
                self.burst_start + SimTime(offset)
            }
            d => {
                let gap = crate::time::round(d.draw(ctx.rng, self.mean_gap_ns())).max(1.0);
                now + SimTime(gap as u64)
            }
        };
        self.token += 1;
        ctx.set_timer(next, Endpoint::App, APP_TICK, self.token);
        size
    }
}

impl Application for Paced {
    fn name(&self) -> &'static str {
        self.name
    }
    fn start(&mut self, ctx: &mut FlowCtx) -> u64 {
        self.origin = ctx.now;
        self.burst_start = ctx.now;
        self.k = 0;
        if !matches!(self.gaps, Dist::Constant) {
            // A Poisson process: the first arrival is one random gap after the start.
            let gap = crate::time::round(self.gaps.draw(ctx.rng, self.mean_gap_ns())).max(1.0);
            self.token += 1;
            ctx.set_timer(ctx.now + SimTime(gap as u64), Endpoint::App, APP_TICK, self.token);
            return 0;
        }
        self.tick(ctx)
    }
    fn on_timer(&mut self, ctx: &mut FlowCtx, token: u64) -> u64 {
        if token != self.token {
            return 0;
        }
        self.tick(ctx)
    }
}

/// An ON/OFF source as ns-2's Application/Traffic/Exponential and /Pareto
/// (expoo.cc, pareto.cc): bursts of packets sent at `rate` with constant
/// gaps, separated by idle periods.
///
/// As in ns-2 a burst is a whole number of packets: its length is drawn
/// with mean `on_mean * rate / (8 * packet_size)` packets from the
/// distribution and rounded to the nearest integer, at least 1
/// (`rem_ = int(burstlen_.value() + .5)`, 1 if 0); the gap after a burst's
/// last packet is the packet gap plus an idle time drawn with mean
/// `off_mean`. Exponential draws both; Pareto draws both with the same
/// shape (ns-2's `shape_`, 1.5 by default); constant uses the means. The
/// long-run rate is thus `rate * on / (on + off)` for ON times long against
/// the packet gap. Difference: ns-2's source sends one packet before its
/// first idle period; ccsim's starts with a full burst.
pub struct OnOff {
    rate_bps: u64,
    packet_size: u32,
    on_mean: SimTime,
    off_mean: SimTime,
    dist: Dist,
    remaining: u64,
    token: u64,
}

impl OnOff {
    /// An ON/OFF source.
    pub fn new(rate_bps: u64, packet_size: u32, on_mean: SimTime, off_mean: SimTime, dist: Dist) -> Self {
        OnOff {
            rate_bps,
            packet_size,
            on_mean,
            off_mean,
            dist,
            remaining: 0,
            token: 0,
        }
    }

    fn gap(&self) -> SimTime {
        let bits = self.packet_size as u128 * 8 * 1_000_000_000;
        SimTime((bits / self.rate_bps as u128).max(1) as u64)
    }

    /// Packets in the next burst.
    fn burst(&self, rng: &mut SimRng) -> u64 {
        let mean_pkts = self.on_mean.secs_f64() * self.rate_bps as f64 / (8.0 * self.packet_size as f64);
        let x = self.dist.draw(rng, mean_pkts);
        ((x + 0.5).floor().min(u32::MAX as f64) as u64).max(1)
    }

    fn tick(&mut self, ctx: &mut FlowCtx) -> u64 {
        self.token += 1;
        self.remaining = self.remaining.saturating_sub(1);
        let mut next = ctx.now + self.gap();
        if self.remaining == 0 {
            // The burst is over: idle, then a new burst.
            let off = crate::time::round(self.dist.draw(ctx.rng, self.off_mean.0 as f64)).max(0.0);
            next += SimTime(off.min(u64::MAX as f64 / 2.0) as u64);
            self.remaining = self.burst(ctx.rng);
        }
        ctx.set_timer(next, Endpoint::App, APP_TICK, self.token);
        self.packet_size as u64
    }
}

impl Application for OnOff {
    fn name(&self) -> &'static str {
        "onoff"
    }
    fn start(&mut self, ctx: &mut FlowCtx) -> u64 {
        self.remaining = self.burst(ctx.rng);
        self.tick(ctx)
    }
    fn on_timer(&mut self, ctx: &mut FlowCtx, token: u64) -> u64 {
        if token != self.token {
            return 0;
        }
        self.tick(ctx)
    }
}
