//! Algorithms written in Python (docs/extending.md): the base classes
//! `ccsim.QueueDisc` and `ccsim.CongestionControl`, the objects the engine
//! hands to them (`Packet`, `AckInfo`, `CongestionEvent`), and the adapters
//! that implement the core's `QueueDisc` and `CongestionControl` traits
//! around a Python object, registered as the core's `python:` scheme
//! (`ccsim_core::plugin`).
//!
//! Per call an adapter attaches to the interpreter (the GIL is already held:
//! a run of a scenario with Python algorithms keeps it), builds the argument
//! object, calls the bound method it looked up once, and reads the answer back; the state the
//! engine reads often (queue lengths, cwnd, ssthresh) lives in the Rust part
//! of the Python object, so reading it needs no call. An exception in user
//! code is recorded with `ccsim_core::plugin::fail` (its key, class, method
//! and the exception on one line); the adapter then answers inertly until
//! the kernel stops the run.

use ccsim_core::cc::{AckInfo, CaState, CcInit, CongestionControl, CongestionEvent};
use ccsim_core::packet::{Ecn, Packet, PacketKind, PacketRef};
use ccsim_core::params::{ParamError, Params};
use ccsim_core::plugin;
use ccsim_core::queue::droptail::Limit;
use ccsim_core::queue::registry::QueueArgs;
use ccsim_core::queue::{DropReason, QueueCtx, QueueDisc, Verdict};
use ccsim_core::rng::{stream, uniform01, SimRng};
use ccsim_core::time::{tx_time, SimTime};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple, PyType};
use std::cell::RefCell;

thread_local! {
    /// Folders searched first for `python:` modules during the current
    /// build on this thread (the scenario's folders, set by the bindings).
    static PLUGIN_DIRS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// What the base class's constructor reads while the engine builds an
    /// object (so the subclass's `__init__` already sees them).
    static QUEUE_INIT: RefCell<Option<QueueInit>> = const { RefCell::new(None) };
    static CC_INIT: RefCell<Option<CcInit>> = const { RefCell::new(None) };
    /// A KeyboardInterrupt was raised inside user code during this run.
    static INTERRUPTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Holds the plugin folders for the duration of one call into the engine.
/// They are also where relative link-trace paths are looked for
/// (`ccsim_core::link_trace`): the folders of the scenario or sweep files.
pub struct DirsGuard {
    _traces: ccsim_core::link_trace::DirsGuard,
}

impl DirsGuard {
    /// Set the folders searched first for `python:` modules and for trace files.
    pub fn set(dirs: Vec<String>) -> Self {
        let traces = ccsim_core::link_trace::DirsGuard::set(dirs.iter().map(std::path::PathBuf::from).collect());
        PLUGIN_DIRS.with(|d| *d.borrow_mut() = dirs);
        DirsGuard { _traces: traces }
    }
}

impl Drop for DirsGuard {
    fn drop(&mut self) {
        PLUGIN_DIRS.with(|d| d.borrow_mut().clear());
    }
}

#[derive(Clone)]
struct QueueInit {
    limit: Limit,
    link_rate_bps: u64,
    compat: &'static str,
}

/// Whether user code on this thread was interrupted by Ctrl-C (a
/// KeyboardInterrupt raised inside it): the run then ends as interrupted,
/// not as an error of the algorithm.
pub fn take_interrupted() -> bool {
    INTERRUPTED.with(|i| i.replace(false))
}

/// `Type: message (file.py, line N, in f)` for an exception from user code.
fn describe(py: Python<'_>, e: &PyErr) -> String {
    if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
        INTERRUPTED.with(|i| i.set(true));
    }
    let described = py
        .import("ccsim.extensions")
        .and_then(|m| m.getattr("describe"))
        .and_then(|f| f.call1((e.value(py), e.traceback(py))))
        .and_then(|s| s.extract::<String>());
    described.unwrap_or_else(|_| e.to_string())
}

fn compat_name(p: ccsim_core::compat::Profile) -> &'static str {
    use ccsim_core::compat::Profile::*;
    match p {
        Ccsim => "ccsim",
        Ns2 => "ns2",
        Ns3 => "ns3",
        Linux => "linux",
        Rfc => "rfc",
    }
}

/// Load `module.Class` (a subclass of `base`) and instantiate it with
/// `params` (the base class's constructor reads its context from
/// `QUEUE_INIT` / `CC_INIT`, which the caller sets).
fn construct<'py>(
    py: Python<'py>,
    full: &str,
    spec: &str,
    params: &Params,
    base: &Bound<'py, PyType>,
    kind_key: &str,
) -> Result<Bound<'py, PyAny>, ParamError> {
    let ext = py
        .import("ccsim.extensions")
        .map_err(|e| ParamError::at(kind_key, format!("\"{full}\": {}", describe(py, &e))))?;
    let dirs = PLUGIN_DIRS.with(|d| d.borrow().clone());
    let cls = ext
        .getattr("load_class")
        .and_then(|f| f.call1((spec, dirs, base)))
        .map_err(|e| {
            let msg = if e.get_type(py).name().is_ok_and(|n| n == "ExtensionError") {
                e.value(py).to_string()
            } else {
                describe(py, &e)
            };
            ParamError::at(kind_key, format!("\"{full}\": {msg}"))
        })?;
    let json = serde_json::to_string(params).map_err(|e| ParamError::at("", e.to_string()))?;
    ext.getattr("instantiate")
        .and_then(|f| f.call1((cls, json)))
        .map_err(|e| ParamError::at("", format!("{spec}(...) raised {}", describe(py, &e))))
}

/// A bound method of `obj`, if it is callable (else an error at `key`).
fn method(obj: &Bound<'_, PyAny>, name: &str, full: &str, key: &str) -> Result<Py<PyAny>, ParamError> {
    match obj.getattr(name) {
        Ok(m) if m.is_callable() => Ok(m.unbind()),
        _ => Err(ParamError::at(
            key,
            format!("\"{full}\" defines no method {name}() (docs/extending.md)"),
        )),
    }
}

/// Whether `obj`'s class overrides the base class's method `name`.
fn overrides(obj: &Bound<'_, PyAny>, base: &Bound<'_, PyType>, name: &str) -> bool {
    match (obj.get_type().getattr(name), base.getattr(name)) {
        (Ok(a), Ok(b)) => !a.is(&b),
        _ => true,
    }
}

// ---------------------------------------------------------------- packets

/// A packet as a queue discipline sees it (read-only but for `ecn`, which
/// `QueueDisc.mark` sets).
#[pyclass(module = "ccsim._core", name = "Packet", freelist = 256, frozen)]
pub struct PyPacket {
    handle: u32,
    /// Size on the wire, bytes.
    #[pyo3(get)]
    size: u32,
    /// The flow's index (the flows table's order).
    #[pyo3(get)]
    flow: u32,
    /// Unique id, in emission order.
    #[pyo3(get)]
    uid: u64,
    /// Transport sequence number.
    #[pyo3(get)]
    seq: u64,
    /// Precedence / class (WRED, RIO).
    #[pyo3(get)]
    traffic_class: u8,
    /// When it arrived at this queue, ns.
    #[pyo3(get)]
    enqueued_at: u64,
    ack: bool,
    ecn: std::sync::atomic::AtomicU8,
}

/// By code: ECT(0) is "ect", ECT(1) (L4S, RFC 9331) "ect1".
const ECN_NAMES: [&str; 4] = ["not-ect", "ect", "ce", "ect1"];

fn ecn_code(e: Ecn) -> u8 {
    match e {
        Ecn::NotEct => 0,
        Ecn::Ect => 1,
        Ecn::Ce => 2,
        Ecn::Ect1 => 3,
    }
}

impl PyPacket {
    fn new(handle: PacketRef, p: &Packet, now: SimTime) -> Self {
        PyPacket {
            handle: handle.0,
            size: p.size,
            flow: p.flow.0,
            uid: p.uid,
            seq: p.seq,
            traffic_class: p.class,
            enqueued_at: now.0,
            ack: p.kind == PacketKind::Ack,
            ecn: std::sync::atomic::AtomicU8::new(ecn_code(p.ecn)),
        }
    }

    fn ecn_code(&self) -> u8 {
        self.ecn.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[pymethods]
impl PyPacket {
    /// "data" or "ack".
    #[getter]
    fn kind(&self) -> &'static str {
        if self.ack {
            "ack"
        } else {
            "data"
        }
    }

    /// The ECN codepoint: "not-ect", "ect" (ECT(0)), "ect1" (ECT(1), L4S) or "ce".
    #[getter]
    fn ecn(&self) -> &'static str {
        ECN_NAMES[self.ecn_code() as usize]
    }

    fn __repr__(&self) -> String {
        format!(
            "Packet(uid={}, flow={}, size={}, seq={}, kind={}, ecn={})",
            self.uid,
            self.flow,
            self.size,
            self.seq,
            self.kind(),
            self.ecn()
        )
    }
}

// ---------------------------------------------------------- queue disciplines

/// The base class of queue disciplines written in Python.
#[pyclass(module = "ccsim._core", name = "QueueDisc", subclass)]
pub struct PyQueueDisc {
    len_pkts: u64,
    len_bytes: u64,
    limit: Limit,
    link_rate_bps: u64,
    compat: &'static str,
    rng: SimRng,
    /// Packets held, by arena handle.
    held: Vec<bool>,
    /// The packet being offered (it may be marked before it is held).
    arriving: Option<u32>,
    /// Queued packets dropped during the current call.
    drops: Vec<(u32, DropReason)>,
    /// Packets marked CE during the current call.
    marks: Vec<u32>,
}

fn reason(text: &str) -> PyResult<DropReason> {
    match text {
        "forced" => Ok(DropReason::Forced),
        "early" => Ok(DropReason::Early),
        "overflow" => Ok(DropReason::Overflow),
        other => Err(PyValueError::new_err(format!(
            "unknown drop reason {other:?}; expected \"early\", \"forced\" or \"overflow\""
        ))),
    }
}

impl PyQueueDisc {
    fn holds(&self, h: u32) -> bool {
        self.held.get(h as usize).copied().unwrap_or(false)
    }

    fn hold(&mut self, h: u32, size: u32) {
        let i = h as usize;
        if i >= self.held.len() {
            self.held.resize(i + 1, false);
        }
        self.held[i] = true;
        self.len_pkts += 1;
        self.len_bytes += size as u64;
    }

    fn release(&mut self, h: u32, size: u32) {
        self.held[h as usize] = false;
        self.len_pkts -= 1;
        self.len_bytes -= size as u64;
    }
}

#[pymethods]
impl PyQueueDisc {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        let init = QUEUE_INIT.with(|i| i.borrow().clone()).unwrap_or(QueueInit {
            limit: Limit {
                packets: Some(100),
                bytes: None,
            },
            link_rate_bps: 10_000_000,
            compat: "ccsim",
        });
        PyQueueDisc {
            len_pkts: 0,
            len_bytes: 0,
            limit: init.limit,
            link_rate_bps: init.link_rate_bps,
            compat: init.compat,
            rng: stream(0, "python-queue"),
            held: Vec::new(),
            arriving: None,
            drops: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// Packets waiting.
    #[getter]
    fn len_pkts(&self) -> u64 {
        self.len_pkts
    }

    /// Bytes waiting.
    #[getter]
    fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    /// The queue's `limit` in packets (None: limited by bytes only).
    #[getter]
    fn limit(&self) -> Option<u64> {
        self.limit.packets
    }

    /// The queue's `limit_bytes` (None: limited by packets only).
    #[getter]
    fn limit_bytes(&self) -> Option<u64> {
        self.limit.bytes
    }

    /// Rate of the link this queue feeds, bit/s.
    #[getter]
    fn link_rate_bps(&self) -> u64 {
        self.link_rate_bps
    }

    /// The compatibility profile in force for this queue ("ccsim", "ns2", ...).
    #[getter]
    fn compat(&self) -> &'static str {
        self.compat
    }

    /// Whether a packet of `size` bytes fits the limits on top of what waits.
    fn fits(&self, size: u32) -> bool {
        self.limit.fits(self.len_pkts as usize, self.len_bytes, size)
    }

    /// A uniform draw in [0, 1) from the queue's own random stream (the one
    /// the built-in disciplines draw from: same seed, same draws).
    fn random(&mut self) -> f64 {
        uniform01(&mut self.rng)
    }

    /// Serialization time of `size` bytes on this queue's link, ns (rounded up).
    fn tx_time(&self, size: u32) -> u64 {
        if self.link_rate_bps == 0 {
            0
        } else {
            tx_time(size, self.link_rate_bps).0
        }
    }

    /// Drop `pkt`, a packet this queue holds (push-out, head drop); `reason`
    /// is "forced" (default), "early" or "overflow". The discipline must
    /// forget the packet: it no longer exists.
    #[pyo3(signature = (pkt, reason = "forced"))]
    fn drop(&mut self, pkt: &Bound<'_, PyPacket>, reason: &str) -> PyResult<()> {
        let r = self::reason(reason)?;
        let p = pkt.get();
        if !self.holds(p.handle) {
            return Err(PyValueError::new_err(format!(
                "drop(): {} is not in this queue (dropped or sent already, or never accepted)",
                p.__repr__()
            )));
        }
        self.release(p.handle, p.size);
        self.drops.push((p.handle, r));
        Ok(())
    }

    /// Mark `pkt` Congestion Experienced if it is ECN-capable; returns
    /// whether it is marked (False: it is not ECN-capable, drop it instead).
    fn mark(&mut self, pkt: &Bound<'_, PyPacket>) -> PyResult<bool> {
        let p = pkt.get();
        if !(self.holds(p.handle) || self.arriving == Some(p.handle)) {
            return Err(PyValueError::new_err(format!(
                "mark(): {} is neither arriving nor in this queue",
                p.__repr__()
            )));
        }
        match p.ecn_code() {
            // ECT(0) or ECT(1) (RFC 9331 section 5.1: both may be marked CE)
            1 | 3 => {
                p.ecn.store(2, std::sync::atomic::Ordering::Relaxed);
                self.marks.push(p.handle);
                Ok(true)
            }
            2 => Ok(true),
            _ => Ok(false),
        }
    }
}

/// What the scenario names as `python:module.Class` for a queue: the adapter
/// between the core's `QueueDisc` and the Python object.
struct PyQueueAdapter {
    kind: &'static str,
    key: String,
    obj: Py<PyQueueDisc>,
    enqueue: Py<PyAny>,
    dequeue: Py<PyAny>,
    probe: Option<(&'static [&'static str], Py<PyAny>)>,
    /// The first timer's delay from the start of the run, and `on_timer`.
    timer: Option<(SimTime, Py<PyAny>)>,
    len_pkts: usize,
    len_bytes: u64,
    failed: bool,
}

/// A timer delay returned by Python: an int of nanoseconds > 0, or None.
fn timer_delay(v: &Bound<'_, PyAny>) -> Result<Option<SimTime>, String> {
    if v.is_none() {
        return Ok(None);
    }
    match v.extract::<u64>() {
        Ok(ns) if ns > 0 => Ok(Some(SimTime(ns))),
        _ => Err(format!(
            "returned {}; expected a delay in integer nanoseconds > 0, or None",
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        )),
    }
}

impl PyQueueAdapter {
    fn fail(&mut self, method: &str, message: String) {
        if !self.failed {
            self.failed = true;
            plugin::fail(format!("{}: \"{}\" {method}: {message}", self.key, self.kind));
        }
    }

    /// After a call: the random stream back to the engine, the drops and
    /// marks made through the base class to the wrapper.
    fn settle(&mut self, py: Python<'_>, ctx: &mut QueueCtx) {
        let obj = self.obj.bind(py).clone();
        let mut b = obj.borrow_mut();
        ctx.rng.clone_from(&b.rng);
        b.arriving = None;
        for h in std::mem::take(&mut b.marks) {
            ctx.mark(PacketRef(h));
        }
        for (h, r) in b.drops.drain(..) {
            ctx.drop_queued(PacketRef(h), r);
        }
        self.len_pkts = b.len_pkts as usize;
        self.len_bytes = b.len_bytes;
    }
}

impl QueueDisc for PyQueueAdapter {
    fn kind(&self) -> &'static str {
        self.kind
    }

    fn enqueue(&mut self, pkt: PacketRef, ctx: &mut QueueCtx) -> Verdict {
        if self.failed {
            return Verdict::Dropped(DropReason::Forced);
        }
        Python::attach(|py| {
            let size = ctx.arena.get(pkt).size;
            let obj = match Py::new(py, PyPacket::new(pkt, ctx.arena.get(pkt), ctx.now)) {
                Ok(o) => o,
                Err(e) => {
                    self.fail("enqueue", describe(py, &e));
                    return Verdict::Dropped(DropReason::Forced);
                }
            };
            {
                let mut b = self.obj.bind(py).borrow_mut();
                b.rng.clone_from(ctx.rng);
                b.arriving = Some(pkt.0);
            }
            let out = self.enqueue.call1(py, (ctx.now.0, obj));
            self.settle(py, ctx);
            let v = match out {
                Ok(v) => v.into_bound(py),
                Err(e) => {
                    self.fail("enqueue", format!("raised {}", describe(py, &e)));
                    return Verdict::Dropped(DropReason::Forced);
                }
            };
            let verdict = if let Ok(b) = v.cast::<PyBool>() {
                if b.is_true() {
                    Verdict::Enqueued
                } else {
                    Verdict::Dropped(DropReason::Overflow)
                }
            } else if let Ok(s) = v.cast::<PyString>() {
                match s
                    .to_str()
                    .map_err(|e| e.to_string())
                    .and_then(|t| reason(t).map_err(|e| e.to_string()))
                {
                    Ok(r) => Verdict::Dropped(r),
                    Err(m) => {
                        self.fail("enqueue", format!("returned {v}: {m}"));
                        return Verdict::Dropped(DropReason::Forced);
                    }
                }
            } else {
                self.fail(
                    "enqueue",
                    format!(
                        "returned {}; expected True (queued), False (dropped: overflow) or \"early\", \"forced\", \"overflow\" (dropped)",
                        v.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                );
                return Verdict::Dropped(DropReason::Forced);
            };
            if verdict == Verdict::Enqueued {
                let obj = self.obj.bind(py).clone();
                let mut b = obj.borrow_mut();
                b.hold(pkt.0, size);
                self.len_pkts = b.len_pkts as usize;
                self.len_bytes = b.len_bytes;
            }
            verdict
        })
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<PacketRef> {
        if self.failed {
            return None;
        }
        Python::attach(|py| {
            self.obj.bind(py).borrow_mut().rng.clone_from(ctx.rng);
            let out = self.dequeue.call1(py, (ctx.now.0,));
            self.settle(py, ctx);
            let v = match out {
                Ok(v) => v.into_bound(py),
                Err(e) => {
                    self.fail("dequeue", format!("raised {}", describe(py, &e)));
                    return None;
                }
            };
            if v.is_none() {
                return None;
            }
            let Ok(p) = v.cast::<PyPacket>() else {
                self.fail(
                    "dequeue",
                    format!(
                        "returned {}; expected a Packet this queue holds, or None",
                        v.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                );
                return None;
            };
            let p = p.get();
            let obj = self.obj.bind(py).clone();
            let mut b = obj.borrow_mut();
            if !b.holds(p.handle) {
                drop(b);
                self.fail(
                    "dequeue",
                    format!(
                        "returned {}, which is not in this queue (sent or dropped already, or never accepted)",
                        p.__repr__()
                    ),
                );
                return None;
            }
            b.release(p.handle, p.size);
            self.len_pkts = b.len_pkts as usize;
            self.len_bytes = b.len_bytes;
            Some(PacketRef(p.handle))
        })
    }

    fn len_pkts(&self) -> usize {
        self.len_pkts
    }

    fn len_bytes(&self) -> u64 {
        self.len_bytes
    }

    fn initial_timer(&self) -> Option<(SimTime, u32)> {
        self.timer.as_ref().map(|(t, _)| (*t, 0))
    }

    fn on_timer(&mut self, _kind: u32, ctx: &mut QueueCtx) -> Option<SimTime> {
        if self.failed {
            return None;
        }
        Python::attach(|py| {
            let f = self.timer.as_ref().map(|(_, f)| f.clone_ref(py))?;
            self.obj.bind(py).borrow_mut().rng.clone_from(ctx.rng);
            let out = f.call1(py, (ctx.now.0,));
            self.settle(py, ctx);
            match out
                .map_err(|e| format!("raised {}", describe(py, &e)))
                .and_then(|v| timer_delay(v.bind(py)))
            {
                Ok(next) => next,
                Err(m) => {
                    self.fail("on_timer", m);
                    None
                }
            }
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        self.probe.as_ref().map_or(&[], |(n, _)| n)
    }

    fn probe_values(&self, out: &mut Vec<f64>) {
        let Some((names, f)) = &self.probe else { return };
        let values = if self.failed {
            None
        } else {
            Python::attach(|py| match f.call0(py).and_then(|v| v.extract::<Vec<f64>>(py)) {
                Ok(v) if v.len() == names.len() => Some(v),
                Ok(v) => {
                    plugin::fail(format!(
                        "{}: \"{}\" probe: returned {} values for the {} names in `probes`",
                        self.key,
                        self.kind,
                        v.len(),
                        names.len()
                    ));
                    None
                }
                Err(e) => {
                    plugin::fail(format!(
                        "{}: \"{}\" probe: raised {}",
                        self.key,
                        self.kind,
                        describe(py, &e)
                    ));
                    None
                }
            })
        };
        match values {
            Some(v) => out.extend(v),
            None => out.extend(std::iter::repeat_n(f64::NAN, names.len())),
        }
    }
}

/// The probe names of a class (`probes = ("avg", ...)`), interned once.
fn probe_names(obj: &Bound<'_, PyAny>) -> Result<Option<&'static [&'static str]>, ParamError> {
    let Ok(p) = obj.getattr("probes") else {
        return Ok(None);
    };
    let names: Vec<String> = p.extract().map_err(|_| {
        ParamError::at(
            "",
            "`probes` must be a tuple of strings (the names of probe()'s values)",
        )
    })?;
    if names.is_empty() {
        return Ok(None);
    }
    let names: Vec<&'static str> = names.iter().map(|n| plugin::intern(n)).collect();
    Ok(Some(Box::leak(names.into_boxed_slice())))
}

// ---------------------------------------------------- congestion controllers

/// One acknowledgement as a controller sees it (times in ns).
#[pyclass(module = "ccsim._core", name = "AckInfo", freelist = 64, frozen)]
pub struct PyAckInfo(AckInfo);

fn ns(t: Option<SimTime>) -> Option<u64> {
    t.map(|t| t.0)
}

#[pymethods]
impl PyAckInfo {
    /// Arrival time of the ACK, ns.
    #[getter]
    fn now(&self) -> u64 {
        self.0.now.0
    }
    /// Segments newly acknowledged by the cumulative ACK.
    #[getter]
    fn acked(&self) -> u64 {
        self.0.acked
    }
    /// Segments newly selectively acknowledged.
    #[getter]
    fn sacked(&self) -> u64 {
        self.0.sacked
    }
    /// Segments newly delivered (acked or SACKed now).
    #[getter]
    fn newly_delivered(&self) -> u64 {
        self.0.newly_delivered
    }
    /// Payload bytes newly acknowledged.
    #[getter]
    fn acked_bytes(&self) -> u64 {
        self.0.acked_bytes
    }
    /// This ACK's RTT sample, ns (None under Karn's rule).
    #[getter]
    fn rtt(&self) -> Option<u64> {
        ns(self.0.rtt)
    }
    /// Smoothed RTT, ns.
    #[getter]
    fn srtt(&self) -> Option<u64> {
        ns(self.0.srtt)
    }
    /// Smallest RTT sample so far, ns.
    #[getter]
    fn min_rtt(&self) -> Option<u64> {
        ns(self.0.min_rtt)
    }
    /// Segments in flight before this ACK.
    #[getter]
    fn prior_in_flight(&self) -> u64 {
        self.0.prior_in_flight
    }
    /// Segments in flight after it.
    #[getter]
    fn in_flight(&self) -> u64 {
        self.0.in_flight
    }
    /// The sender was limited by cwnd when it last sent.
    #[getter]
    fn cwnd_limited(&self) -> bool {
        self.0.cwnd_limited
    }
    /// "open", "recovery" or "loss".
    #[getter]
    fn state(&self) -> &'static str {
        match self.0.state {
            CaState::Open => "open",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
    /// This ACK ended a recovery episode.
    #[getter]
    fn exited_recovery(&self) -> bool {
        self.0.exited_recovery
    }
    /// The sender lets this ACK, which ended recovery, grow the window
    /// (flow-group key `recovery_exit_growth`); `may_raise_cwnd` includes it.
    #[getter]
    fn exit_growth(&self) -> bool {
        self.0.exit_growth
    }
    /// The ACK carried ECN-Echo.
    #[getter]
    fn ece(&self) -> bool {
        self.0.ece
    }
    /// The cumulative ACK (next segment expected).
    #[getter]
    fn ack(&self) -> u64 {
        self.0.ack
    }
    /// One past the highest segment sent.
    #[getter]
    fn snd_max(&self) -> u64 {
        self.0.snd_max
    }
    /// Segments delivered since the start.
    #[getter]
    fn delivered(&self) -> u64 {
        self.0.delivered
    }
    /// Segments newly deemed lost.
    #[getter]
    fn losses(&self) -> u64 {
        self.0.losses
    }
    /// Delivery-rate sample: (delivered, interval_ns, prior_delivered,
    /// app_limited), or None when the ACK gave no reliable rate.
    #[getter]
    fn rate(&self) -> Option<(u64, u64, u64, bool)> {
        self.0
            .rate
            .filter(|r| r.rate_pps().is_some())
            .map(|r| (r.delivered, r.interval.0, r.prior_delivered, r.app_limited))
    }
    /// Whether a loss-based controller may open its window on this ACK
    /// (RFC 5681 section 3, RFC 3168 section 6.1.2, RFC 7661).
    fn may_raise_cwnd(&self) -> bool {
        self.0.may_raise_cwnd()
    }
}

/// A congestion signal (loss, ECN-Echo, timeout) as a controller sees it.
#[pyclass(module = "ccsim._core", name = "CongestionEvent", freelist = 8, frozen)]
pub struct PyCongestionEvent(CongestionEvent);

#[pymethods]
impl PyCongestionEvent {
    /// When it happened, ns.
    #[getter]
    fn now(&self) -> u64 {
        self.0.now.0
    }
    /// FlightSize for ssthresh (RFC 5681 eq. 4), segments.
    #[getter]
    fn flight(&self) -> f64 {
        self.0.flight
    }
    /// min(cwnd, receiver window), segments.
    #[getter]
    fn window(&self) -> f64 {
        self.0.window
    }
    /// Tahoe: restart from one segment.
    #[getter]
    fn collapse(&self) -> bool {
        self.0.collapse
    }
    /// A timeout that must hold ssthresh (RFC 5681 section 3.1).
    #[getter]
    fn repeated(&self) -> bool {
        self.0.repeated
    }
    /// Smoothed RTT, ns.
    #[getter]
    fn srtt(&self) -> Option<u64> {
        ns(self.0.srtt)
    }
    /// ssthresh is kept in whole segments (ns-2).
    #[getter]
    fn int_ssthresh(&self) -> bool {
        self.0.int_ssthresh
    }
    /// `ssthresh` as the sender stores it (rounded down with `int_ssthresh`).
    fn whole(&self, ssthresh: f64) -> f64 {
        self.0.whole(ssthresh)
    }
}

/// The base class of congestion controllers written in Python.
#[pyclass(module = "ccsim._core", name = "CongestionControl", subclass)]
pub struct PyCongestionControl {
    /// Congestion window, segments.
    #[pyo3(get, set)]
    cwnd: f64,
    /// Slow-start threshold, segments (may be infinite).
    #[pyo3(get, set)]
    ssthresh: f64,
    /// Pacing rate, bit/s on the wire (None: the sender decides).
    #[pyo3(get, set)]
    pacing_rate_bps: Option<f64>,
    /// Payload bytes per segment.
    #[pyo3(get)]
    mss: u32,
    /// Wire bytes per full segment.
    #[pyo3(get)]
    wire_size: u32,
    compat: &'static str,
    rng: SimRng,
}

#[pymethods]
impl PyCongestionControl {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        let init = CC_INIT.with(|i| *i.borrow()).unwrap_or(CcInit {
            initial_cwnd: 2.0,
            initial_ssthresh: f64::INFINITY,
            mss: ccsim_core::DEFAULT_MSS,
            wire_size: ccsim_core::DEFAULT_MSS + 40,
            compat: ccsim_core::compat::Profile::Ccsim,
            linux_agent: false,
            sack: true,
        });
        PyCongestionControl {
            cwnd: init.initial_cwnd,
            ssthresh: init.initial_ssthresh,
            pacing_rate_bps: None,
            mss: init.mss,
            wire_size: init.wire_size,
            compat: compat_name(init.compat),
            rng: stream(0, "python-cc"),
        }
    }

    /// The flow group's compatibility profile.
    #[getter]
    fn compat(&self) -> &'static str {
        self.compat
    }

    /// A uniform draw in [0, 1) from the flow's random stream (meaningful
    /// in on_ack, where the engine lends its stream to the controller).
    fn random(&mut self) -> f64 {
        uniform01(&mut self.rng)
    }

    /// An ECN-Echo: by default the same reduction as a loss.
    fn on_ecn(slf: &Bound<'_, Self>, ev: &Bound<'_, PyCongestionEvent>) -> PyResult<()> {
        slf.call_method1("on_congestion_event", (ev,)).map(|_| ())
    }

    /// Recovery ended (default: nothing).
    fn on_recovery_exit(&self, _now: u64) {}

    /// A NewReno partial ACK deflated the window (default: ignored).
    fn deflate(&self, _segments: f64) {}
}

/// The window a controller set, checked: the sender needs a finite
/// positive cwnd, a positive ssthresh and a finite positive pacing rate.
fn check_window(cwnd: f64, ssthresh: f64, pacing: Option<f64>) -> Result<(), String> {
    if !(cwnd.is_finite() && cwnd > 0.0) {
        Err(format!("set cwnd = {cwnd}; expected a finite number of segments > 0"))
    } else if ssthresh.is_nan() || ssthresh <= 0.0 {
        Err(format!(
            "set ssthresh = {ssthresh}; expected a number of segments > 0 (inf allowed)"
        ))
    } else if pacing.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        Err(format!(
            "set pacing_rate_bps = {pacing:?}; expected None or a finite rate > 0"
        ))
    } else {
        Ok(())
    }
}

struct PyCcAdapter {
    name: &'static str,
    key: String,
    obj: Py<PyCongestionControl>,
    on_ack: Py<PyAny>,
    on_congestion_event: Py<PyAny>,
    on_ecn: Option<Py<PyAny>>,
    on_rto: Py<PyAny>,
    on_recovery_exit: Option<Py<PyAny>>,
    deflate: Option<Py<PyAny>>,
    cwnd: f64,
    ssthresh: f64,
    pacing: Option<f64>,
    failed: bool,
}

impl PyCcAdapter {
    fn fail(&mut self, method: &str, message: String) {
        if !self.failed {
            self.failed = true;
            plugin::fail(format!("{}: \"{}\" {method}: {message}", self.key, self.name));
        }
    }

    /// After a call: read the window back, checking it.
    fn settle(&mut self, py: Python<'_>, method: &str, out: PyResult<Py<PyAny>>) {
        if let Err(e) = out {
            let m = format!("raised {}", describe(py, &e));
            self.fail(method, m);
            return;
        }
        let (cwnd, ssthresh, pacing) = {
            let b = self.obj.bind(py).borrow();
            (b.cwnd, b.ssthresh, b.pacing_rate_bps)
        };
        match check_window(cwnd, ssthresh, pacing) {
            Ok(()) => {
                self.cwnd = cwnd;
                self.ssthresh = ssthresh;
                self.pacing = pacing;
            }
            Err(m) => self.fail(method, m),
        }
    }

    fn event(&mut self, method: &'static str, ev: &CongestionEvent) {
        if self.failed {
            return;
        }
        Python::attach(|py| {
            let f = match method {
                "on_ecn" => self.on_ecn.as_ref().unwrap_or(&self.on_congestion_event),
                "on_rto" => &self.on_rto,
                _ => &self.on_congestion_event,
            };
            let out = Py::new(py, PyCongestionEvent(*ev)).and_then(|e| f.call1(py, (e,)));
            self.settle(py, method, out);
        })
    }
}

impl CongestionControl for PyCcAdapter {
    fn name(&self) -> &'static str {
        self.name
    }
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ack: &AckInfo, rng: &mut SimRng) {
        if self.failed {
            return;
        }
        Python::attach(|py| {
            self.obj.bind(py).borrow_mut().rng.clone_from(rng);
            let out = Py::new(py, PyAckInfo(*ack)).and_then(|a| self.on_ack.call1(py, (ack.now.0, a)));
            rng.clone_from(&self.obj.bind(py).borrow().rng);
            self.settle(py, "on_ack", out);
        })
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.event("on_congestion_event", ev);
    }
    fn on_ecn(&mut self, ev: &CongestionEvent) {
        self.event("on_ecn", ev);
    }
    fn on_rto(&mut self, ev: &CongestionEvent) {
        self.event("on_rto", ev);
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        if self.failed {
            return;
        }
        if self.on_recovery_exit.is_some() {
            Python::attach(|py| {
                let out = match &self.on_recovery_exit {
                    Some(f) => f.call1(py, (now.0,)),
                    None => return,
                };
                self.settle(py, "on_recovery_exit", out);
            })
        }
    }
    fn deflate(&mut self, segments: f64) {
        if self.failed {
            return;
        }
        if self.deflate.is_some() {
            Python::attach(|py| {
                let out = match &self.deflate {
                    Some(f) => f.call1(py, (segments,)),
                    None => return,
                };
                self.settle(py, "deflate", out);
            })
        }
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        self.pacing
    }
}

// ------------------------------------------------------------- the provider

/// The core's `python:` scheme.
pub struct PythonProvider;

impl plugin::Provider for PythonProvider {
    fn queue(&self, kind: &str, name: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
        Python::attach(|py| {
            let base = py.get_type::<PyQueueDisc>();
            QUEUE_INIT.with(|i| {
                *i.borrow_mut() = Some(QueueInit {
                    limit: args.limit,
                    link_rate_bps: args.link_rate_bps,
                    compat: compat_name(args.compat),
                })
            });
            let built = construct(py, kind, name, args.params, &base, "kind");
            QUEUE_INIT.with(|i| *i.borrow_mut() = None);
            let obj = built?;
            let enqueue = method(&obj, "enqueue", kind, "kind")?;
            let dequeue = method(&obj, "dequeue", kind, "kind")?;
            let probe = match probe_names(&obj)? {
                Some(names) => Some((names, method(&obj, "probe", kind, "kind")?)),
                None => None,
            };
            let timer = match obj.getattr("initial_timer") {
                Ok(first) => {
                    let first = first
                        .call0()
                        .map_err(|e| ParamError::at("", format!("{name}.initial_timer() raised {}", describe(py, &e))))
                        .and_then(|v| {
                            timer_delay(&v).map_err(|m| ParamError::at("", format!("{name}.initial_timer() {m}")))
                        })?;
                    match first {
                        Some(t) => Some((t, method(&obj, "on_timer", kind, "kind")?)),
                        None => None,
                    }
                }
                Err(_) => None,
            };
            let obj: Py<PyQueueDisc> = obj
                .cast_into::<PyQueueDisc>()
                .map_err(|_| ParamError::at("kind", format!("\"{kind}\" is not a ccsim.QueueDisc")))?
                .unbind();
            Ok(Box::new(PyQueueAdapter {
                kind: plugin::intern(kind),
                key: plugin::current_key(),
                obj,
                enqueue,
                dequeue,
                probe,
                timer,
                len_pkts: 0,
                len_bytes: 0,
                failed: false,
            }) as Box<dyn QueueDisc>)
        })
    }

    fn controller(
        &self,
        cc: &str,
        name: &str,
        params: &Params,
        init: &CcInit,
    ) -> Result<Box<dyn CongestionControl>, ParamError> {
        Python::attach(|py| {
            let base = py.get_type::<PyCongestionControl>();
            CC_INIT.with(|i| *i.borrow_mut() = Some(*init));
            let built = construct(py, cc, name, params, &base, "cc");
            CC_INIT.with(|i| *i.borrow_mut() = None);
            let obj = built?;
            let on_ack = method(&obj, "on_ack", cc, "cc")?;
            let on_congestion_event = method(&obj, "on_congestion_event", cc, "cc")?;
            let on_rto = method(&obj, "on_rto", cc, "cc")?;
            let optional = |n: &str| -> Result<Option<Py<PyAny>>, ParamError> {
                if overrides(&obj, &base, n) {
                    method(&obj, n, cc, "cc").map(Some)
                } else {
                    Ok(None)
                }
            };
            let on_ecn = optional("on_ecn")?;
            let on_recovery_exit = optional("on_recovery_exit")?;
            let deflate = optional("deflate")?;
            let obj: Py<PyCongestionControl> = obj
                .cast_into::<PyCongestionControl>()
                .map_err(|_| ParamError::at("cc", format!("\"{cc}\" is not a ccsim.CongestionControl")))?
                .unbind();
            let (cwnd, ssthresh, pacing) = {
                let b = obj.bind(py).borrow();
                (b.cwnd, b.ssthresh, b.pacing_rate_bps)
            };
            check_window(cwnd, ssthresh, pacing).map_err(|m| ParamError::at("", format!("{name}.__init__ {m}")))?;
            Ok(Box::new(PyCcAdapter {
                name: plugin::intern(cc),
                key: plugin::current_key(),
                obj,
                on_ack,
                on_congestion_event,
                on_ecn,
                on_rto,
                on_recovery_exit,
                deflate,
                cwnd,
                ssthresh,
                pacing,
                failed: false,
            }) as Box<dyn CongestionControl>)
        })
    }
}

/// The provider registered with the core.
pub static PROVIDER: PythonProvider = PythonProvider;

/// Add the classes to the module.
pub fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPacket>()?;
    m.add_class::<PyQueueDisc>()?;
    m.add_class::<PyAckInfo>()?;
    m.add_class::<PyCongestionEvent>()?;
    m.add_class::<PyCongestionControl>()?;
    Ok(())
}
