use thiserror::Error;

/// A problem with one record: counted as data (a drop with reason `record_error`), never an
/// abort.
#[derive(Debug, Error)]
#[error("{kind}: {message}")]
pub struct RecordError {
    /// A fixed, snake_case category used as the stats key (e.g. `bad_utf8`).
    pub kind: &'static str,
    /// Human-readable detail for logs.
    pub message: String,
}

impl RecordError {
    /// A record error of the given kind.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// Errors that stop a stage: infrastructure, configuration, or our own bugs.
#[derive(Debug, Error)]
pub enum StageError {
    /// Invalid configuration detected while building or running a stage.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Storage or I/O failure (credentials, network, disk).
    #[error("i/o: {0}")]
    Io(String),
    /// A bug in trawl: an invariant did not hold.
    #[error("internal error (a bug in trawl, please report): {0}")]
    Internal(String),
}
