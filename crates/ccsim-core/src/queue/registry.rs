//! The table of queue disciplines by name. Adding a discipline means adding
//! its file and one arm here; the kernel does not change.

use super::droptail::{DropTail, Limit};
use super::QueueDisc;
use crate::params::{no_params, ParamError, Params};

/// What every discipline's constructor receives.
pub struct QueueArgs<'a> {
    /// Buffer limit from `limit` / `limit_bytes`.
    pub limit: Limit,
    /// The discipline's own parameters (every key of the queue table except
    /// `kind`, `limit` and `limit_bytes`).
    pub params: &'a Params,
    /// Rate of the link the queue feeds.
    pub link_rate_bps: u64,
}

/// Names accepted as `kind`.
pub const KINDS: &[&str] = &["droptail", "dropfront"];

/// Build the discipline `kind`.
pub fn build(kind: &str, args: &QueueArgs) -> Result<Box<dyn QueueDisc>, ParamError> {
    match kind {
        "droptail" | "fifo" => {
            no_params(args.params)?;
            Ok(Box::new(DropTail::new(args.limit, false)))
        }
        "dropfront" => {
            no_params(args.params)?;
            Ok(Box::new(DropTail::new(args.limit, true)))
        }
        other => Err(ParamError::at(
            "kind",
            format!(
                "unknown queue discipline \"{other}\"; expected one of: {}",
                KINDS.join(", ")
            ),
        )),
    }
}
