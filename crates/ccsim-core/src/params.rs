//! Algorithm parameter tables: each algorithm parses its own keys with its own
//! `*Config` struct, and errors carry the key path.
//!
//! Every config describes itself: [`parse`] requires it to be `Serialize`,
//! and inside [`resolving`] it records the parsed struct (every key, the
//! defaults filled in) so the builder can report what each component was
//! built with (the results' `components`, `config`) without any algorithm
//! doing more than deriving `Serialize` beside `Deserialize`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;

/// A table of parameters as written in the scenario (JSON-shaped).
pub type Params = serde_json::Map<String, serde_json::Value>;

/// A parameter error: the key path below the table, and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// Dotted key path relative to the table that was being parsed.
    pub path: String,
    /// What was wrong.
    pub message: String,
}

impl ParamError {
    /// An error at `path`.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Parse a parameter table into an algorithm's config struct (which should
/// use `#[serde(deny_unknown_fields, default)]`). Inside [`resolving`], the
/// parsed config is recorded, serialized: its fields become keys of the
/// open frame (units as numbers: times in seconds, rates in bit/s, sizes
/// in bytes).
pub fn parse<T: DeserializeOwned + Serialize>(params: &Params) -> Result<T, ParamError> {
    let v = serde_json::Value::Object(params.clone());
    let parsed: T = serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ParamError {
            path,
            message: crate::scenario::friendly_message(&e.into_inner().to_string()),
        }
    })?;
    resolved(&parsed);
    Ok(parsed)
}

thread_local! {
    /// The open frames of [`resolving`], innermost last.
    static FRAMES: RefCell<Vec<Params>> = const { RefCell::new(Vec::new()) };
}

fn recording() -> bool {
    FRAMES.with(|f| !f.borrow().is_empty())
}

/// Merge `fields` into the innermost open frame (later keys replace
/// earlier ones); nothing outside [`resolving`].
pub fn record(fields: Params) {
    FRAMES.with(|f| {
        if let Some(top) = f.borrow_mut().last_mut() {
            top.extend(fields);
        }
    });
}

/// Record `config` as resolved (inside [`resolving`]; nothing outside):
/// for a config whose `Option` keys are filled in only after [`parse`]
/// (from the compatibility profile, the link's rate or other keys), the
/// constructor records it again with the values it settled on, so that
/// the results show what the engine used rather than null.
pub fn resolved<T: Serialize>(config: &T) {
    if recording() {
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(config) {
            record(fields);
        }
    }
}

/// Closes the frame that [`resolving`] opened, even if `build` unwinds.
struct Frame;

impl Drop for Frame {
    fn drop(&mut self) {
        FRAMES.with(|f| f.borrow_mut().pop());
    }
}

/// Run `build` (a component's constructor) and return, beside its result,
/// the configuration it resolved: the union of the configs [`parse`]d
/// inside it (nested under a key by [`nested`]), every parameter with its
/// default filled in, as the component was built.
pub fn resolving<R>(build: impl FnOnce() -> R) -> (R, Params) {
    FRAMES.with(|f| f.borrow_mut().push(Params::new()));
    let frame = Frame;
    let r = build();
    let resolved = FRAMES
        .with(|f| f.borrow_mut().last_mut().map(std::mem::take))
        .unwrap_or_default();
    drop(frame);
    (r, resolved)
}

/// Run `build` (the constructor of a part of a component: a TCP sender's
/// controller) and record what it resolved under `key` of the enclosing
/// frame, replacing the raw table a config may have kept there
/// (`cc_params`).
pub fn nested<R>(key: &str, build: impl FnOnce() -> R) -> R {
    if !recording() {
        return build();
    }
    let (r, inner) = resolving(build);
    let mut m = Params::new();
    m.insert(key.to_string(), serde_json::Value::Object(inner));
    record(m);
    r
}

/// Reject any parameter (for algorithms that take none).
pub fn no_params(params: &Params) -> Result<(), ParamError> {
    match params.keys().next() {
        None => Ok(()),
        Some(k) => Err(ParamError::at(
            k.clone(),
            format!("unknown key `{k}`: this algorithm takes no parameters"),
        )),
    }
}
