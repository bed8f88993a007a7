//! Errors a user can cause. None of them is a panic.

use thiserror::Error;

/// An error from loading or running a scenario.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// The scenario is malformed: `file: key.path: what was expected`.
    #[error("{file}: {path}: {message}")]
    Scenario {
        /// File (or source label) the scenario came from.
        file: String,
        /// Dotted key path of the offending value.
        path: String,
        /// What was expected.
        message: String,
    },
    /// The file is not valid TOML or JSON.
    #[error("{file}: {message}")]
    Syntax {
        /// File (or source label).
        file: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The run was stopped by a guard (event or wall-time limit).
    #[error("{0}")]
    Guard(String),
    /// An output file (a packet trace) could not be created or written:
    /// the message names the file and the reason.
    #[error("{0}")]
    Io(String),
    /// An external algorithm (crate::plugin) failed during the run: the
    /// message names the file, the scenario key, the algorithm and the cause.
    #[error("{0}")]
    Extension(String),
    /// The run was interrupted (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;
