//! Algorithm parameter tables: each algorithm parses its own keys with its own
//! `*Config` struct, and errors carry the key path.

use serde::de::DeserializeOwned;

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
/// use `#[serde(deny_unknown_fields, default)]`).
pub fn parse<T: DeserializeOwned>(params: &Params) -> Result<T, ParamError> {
    let v = serde_json::Value::Object(params.clone());
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ParamError {
            path,
            message: crate::scenario::friendly_message(&e.into_inner().to_string()),
        }
    })
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
