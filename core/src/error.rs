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

impl RecordError {
    /// The kind of a record whose processing panicked (a bug in trawl, contained to the
    /// record by the runner).
    pub const PANIC: &'static str = "panic";

    /// Runs `f` on one record; a panic inside it becomes a [`RecordError`] of kind
    /// [`RecordError::PANIC`] with the panic's message, so one record cannot end a run.
    /// The process's panic hook still logs the panic with its location.
    pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, RecordError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .map_err(|payload| RecordError::new(Self::PANIC, panic_message(payload.as_ref())))
    }
}

/// The message of a panic payload (`&str` or `String`; anything else is named as such).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_string()
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
