//! Algorithms from outside the crate: queue disciplines and congestion
//! controllers that a host program provides under a name with a scheme,
//! `SCHEME:NAME` (the Python bindings register the scheme `python`, so a
//! scenario can say `kind = "python:mymodule.MyAqm"` or
//! `cc = "python:mymodule.MyCc"`; docs/extending.md).
//!
//! The core knows nothing of the host: a [`Provider`] registered for a
//! scheme builds a `Box<dyn QueueDisc>` or a `Box<dyn CongestionControl>`,
//! which the engine then drives through the same traits, statistics, traces
//! and conservation checks as its own. The hook costs the built-in
//! algorithms nothing: the registry is consulted only when the builder
//! meets a name with a `:`, and nothing here runs per packet.
//!
//! Two services for providers:
//! - [`current_key`]: the scenario key path the builder is working on
//!   (`topology.bottleneck.queue`, `flows[1]`), so that errors raised later,
//!   while the run is under way, can name it;
//! - [`fail`]: an external algorithm that cannot go on (its code raised an
//!   exception) records one message; the kernel stops the run at its next
//!   guard check (every 65,536 events) or at its end with
//!   [`crate::Error::Extension`], and the provider returns inert answers
//!   until then. Both are per thread, as a run is.

use crate::cc::{CcInit, CongestionControl};
use crate::params::{ParamError, Params};
use crate::queue::registry::QueueArgs;
use crate::queue::QueueDisc;
use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::{Mutex, RwLock};

/// Builds the external algorithms of one scheme.
pub trait Provider: Send + Sync {
    /// Build the queue discipline `name` (the part after `SCHEME:`) from
    /// the queue table's arguments. `kind` is the whole name, as written.
    fn queue(&self, kind: &str, name: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError>;
    /// Build the congestion controller `name` (after `SCHEME:`) of one flow
    /// from the flow group's `cc_params` and initial window. `cc` is the
    /// whole name, as written.
    fn controller(
        &self,
        cc: &str,
        name: &str,
        params: &Params,
        init: &CcInit,
    ) -> Result<Box<dyn CongestionControl>, ParamError>;
    /// The queue disciplines it declares (names after `SCHEME:`, each
    /// built by [`Provider::queue`] with its defaults): the registry lists
    /// them beside its own table ([`crate::queue::registry::every_kind`]),
    /// so the property tests that walk the registry cover them too. A
    /// provider that builds any name on demand (Python's) declares none.
    fn queue_names(&self) -> &[&'static str] {
        &[]
    }
}

/// The providers by scheme.
static PROVIDERS: RwLock<Vec<(&'static str, &'static dyn Provider)>> = RwLock::new(Vec::new());

/// Register `provider` for names `scheme:...`; a second registration of the
/// same scheme replaces the first.
pub fn register(scheme: &'static str, provider: &'static dyn Provider) {
    let mut p = PROVIDERS.write().unwrap_or_else(|e| e.into_inner());
    p.retain(|(s, _)| *s != scheme);
    p.push((scheme, provider));
}

/// The queue disciplines the registered providers declare, as `SCHEME:NAME`
/// ([`Provider::queue_names`]), in the order the schemes were registered.
pub fn queue_kinds() -> Vec<String> {
    let p = PROVIDERS.read().unwrap_or_else(|e| e.into_inner());
    p.iter()
        .flat_map(|(scheme, provider)| provider.queue_names().iter().map(move |n| format!("{scheme}:{n}")))
        .collect()
}

/// `(scheme, name)` if `name` is written `SCHEME:NAME` with a non-empty scheme.
pub fn split(name: &str) -> Option<(&str, &str)> {
    name.split_once(':').filter(|(s, _)| !s.is_empty())
}

/// Whether `name` is an external algorithm's name (it has a scheme).
pub fn is_external(name: &str) -> bool {
    split(name).is_some()
}

fn provider(key: &str, full: &str, scheme: &str) -> Result<&'static dyn Provider, ParamError> {
    let p = PROVIDERS.read().unwrap_or_else(|e| e.into_inner());
    match p.iter().find(|(s, _)| *s == scheme) {
        Some((_, p)) => Ok(*p),
        None => {
            let known: Vec<String> = p.iter().map(|(s, _)| format!("\"{s}:\"")).collect();
            let hint = if scheme == "python" {
                "; python: classes run only under the Python package (ccsim run, ccsim.run)".to_string()
            } else if known.is_empty() {
                String::new()
            } else {
                format!("; schemes available: {}", known.join(", "))
            };
            Err(ParamError::at(
                key,
                format!("\"{full}\": no extension provides the scheme \"{scheme}:\"{hint}"),
            ))
        }
    }
}

/// Build the external queue discipline `kind` (`SCHEME:NAME`).
pub fn build_queue(kind: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    let (scheme, name) = split(kind).ok_or_else(|| ParamError::at("kind", format!("\"{kind}\" has no scheme")))?;
    let built = provider("kind", kind, scheme)?.queue(kind, name, args)?;
    // Its defaults live outside the engine: the resolved configuration is
    // what the scenario gave.
    crate::params::record(args.params.clone());
    Ok(built)
}

/// Build the external congestion controller `cc` (`SCHEME:NAME`).
pub fn build_controller(cc: &str, params: &Params, init: &CcInit) -> Result<Box<dyn CongestionControl>, ParamError> {
    let (scheme, name) = split(cc).ok_or_else(|| ParamError::at("cc", format!("\"{cc}\" has no scheme")))?;
    let built = provider("cc", cc, scheme)?.controller(cc, name, params, init)?;
    crate::params::record(params.clone());
    Ok(built)
}

thread_local! {
    /// The key path being built on this thread.
    static KEY: RefCell<String> = const { RefCell::new(String::new()) };
    /// The first failure of an external algorithm in the run on this thread.
    static FAILURE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `f` with `key` as the [`current_key`] (the builder wraps the
/// construction of each queue and flow in it).
pub fn with_key<R>(key: &str, f: impl FnOnce() -> R) -> R {
    let previous = KEY.with(|k| std::mem::replace(&mut *k.borrow_mut(), key.to_string()));
    let out = f();
    KEY.with(|k| *k.borrow_mut() = previous);
    out
}

/// The scenario key path under construction (empty outside the builder).
pub fn current_key() -> String {
    KEY.with(|k| k.borrow().clone())
}

/// Record that an external algorithm failed: `message` names the key, the
/// algorithm and the cause. The first failure of a run is kept.
pub fn fail(message: String) {
    FAILURE.with(|f| {
        let mut f = f.borrow_mut();
        if f.is_none() {
            *f = Some(message);
        }
    });
}

/// Take this thread's recorded failure, if any (the kernel's check).
pub fn take_failure() -> Option<String> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// Forget any failure left from an earlier run on this thread.
pub fn clear_failure() {
    FAILURE.with(|f| *f.borrow_mut() = None);
}

/// A `&'static str` for a name that is not known at compile time
/// ([`QueueDisc::kind`] and [`CongestionControl::name`] return static
/// strings): each distinct name is allocated once per process.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = names.get_or_insert_with(HashSet::new);
    if let Some(s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::{DropTail, Limit};

    /// A provider that builds DropTail for `test:fifo` and fails otherwise.
    struct Fifo;

    impl Provider for Fifo {
        fn queue(&self, _kind: &str, name: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
            match name {
                "fifo" => Ok(Box::new(DropTail::new(args.limit, false))),
                _ => Err(ParamError::at("kind", format!("no queue {name} at {}", current_key()))),
            }
        }
        fn controller(
            &self,
            _cc: &str,
            name: &str,
            _params: &Params,
            _init: &CcInit,
        ) -> Result<Box<dyn CongestionControl>, ParamError> {
            Err(ParamError::at("cc", format!("no controller {name}")))
        }
    }

    static FIFO: Fifo = Fifo;

    /// A DropTail that gives up on its `after`-th arrival, as a Python
    /// class whose code raised would.
    struct GivesUp {
        inner: DropTail,
        after: u64,
        seen: u64,
        key: String,
    }

    impl QueueDisc for GivesUp {
        fn kind(&self) -> &'static str {
            "fail:after"
        }
        fn enqueue(
            &mut self,
            pkt: crate::packet::PacketRef,
            ctx: &mut crate::queue::QueueCtx,
        ) -> crate::queue::Verdict {
            self.seen += 1;
            if self.seen == self.after {
                fail(format!("{}: gave up at arrival {}", self.key, self.seen));
            }
            self.inner.enqueue(pkt, ctx)
        }
        fn dequeue(&mut self, ctx: &mut crate::queue::QueueCtx) -> Option<crate::packet::PacketRef> {
            self.inner.dequeue(ctx)
        }
        fn len_pkts(&self) -> usize {
            self.inner.len_pkts()
        }
        fn len_bytes(&self) -> u64 {
            self.inner.len_bytes()
        }
    }

    struct Failing;

    impl Provider for Failing {
        fn queue(&self, _kind: &str, name: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
            Ok(Box::new(GivesUp {
                inner: DropTail::new(args.limit, false),
                after: name.parse().map_err(|_| ParamError::at("kind", "a count"))?,
                seen: 0,
                key: current_key(),
            }))
        }
        fn controller(
            &self,
            _cc: &str,
            _name: &str,
            _params: &Params,
            _init: &CcInit,
        ) -> Result<Box<dyn CongestionControl>, ParamError> {
            Err(ParamError::at("cc", "none"))
        }
    }

    static FAILING: Failing = Failing;

    const RUN: &str = r#"
name = "t"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "100Mbps", delay = "1ms" }
[topology.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "fail:AFTER", limit = 20 }
[[flows]]
transport = "udp"
app = "cbr"
rate = "4Mbps"
count = 2
"#;

    #[test]
    fn a_failure_stops_the_run_with_the_key_and_the_next_run_is_clean() {
        register("fail", &FAILING);
        let guards = crate::GuardOverrides::default();
        // 1,333 arrivals over the run: failing at the 10th stops it long before the end.
        let err = match crate::run_toml(&RUN.replace("AFTER", "10"), "t.toml", guards) {
            Ok(_) => panic!("the run went on after the failure"),
            Err(e) => e,
        };
        assert_eq!(
            err,
            crate::Error::Extension("t.toml: topology.bottleneck.queue: gave up at arrival 10".into())
        );
        assert_eq!(take_failure(), None, "the kernel took the failure");
        // A later run on the same thread does not see it, and runs to the end.
        let out = crate::run_toml(&RUN.replace("AFTER", "1000000"), "t.toml", guards).unwrap();
        assert!(out.result.queues[0].arrivals > 1000);
    }

    fn args(params: &Params) -> QueueArgs<'_> {
        QueueArgs {
            limit: Limit {
                packets: Some(7),
                bytes: None,
            },
            params,
            link_rate_bps: 1_000_000,
            compat: crate::compat::Profile::Ccsim,
        }
    }

    fn build_err(kind: &str, args: &QueueArgs) -> ParamError {
        match crate::queue::registry::build(kind, args) {
            Ok(q) => panic!("{kind} built {}", q.kind()),
            Err(e) => e,
        }
    }

    #[test]
    fn a_registered_scheme_builds_and_others_are_named() {
        register("test", &FIFO);
        let p = Params::new();
        let q = crate::queue::registry::build("test:fifo", &args(&p)).unwrap();
        assert_eq!(q.kind(), "droptail");
        let e = with_key("links[3].queue", || build_err("test:nope", &args(&p)));
        assert_eq!(e.message, "no queue nope at links[3].queue");
        assert_eq!(current_key(), "");
        let e = build_err("nosuch:x", &args(&p));
        assert_eq!(e.path, "kind");
        assert!(
            e.message.contains("no extension provides the scheme \"nosuch:\""),
            "{}",
            e.message
        );
        let e = build_err("python:m.C", &args(&p));
        assert!(e.message.contains("only under the Python package"), "{}", e.message);
    }

    #[test]
    fn the_first_failure_is_kept_once() {
        clear_failure();
        fail("first".into());
        fail("second".into());
        assert_eq!(take_failure().as_deref(), Some("first"));
        assert_eq!(take_failure(), None);
    }

    #[test]
    fn names_are_interned() {
        let a = intern("python:m.A");
        let b = intern(&String::from("python:m.A"));
        assert!(std::ptr::eq(a, b));
    }
}
