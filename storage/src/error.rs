use thiserror::Error;

/// Storage errors. Each names the object or URL involved.
#[derive(Debug, Error)]
pub enum StorageError {
    /// The URL or path could not be understood.
    #[error("invalid storage location `{url}`: {reason}")]
    InvalidUrl {
        /// The location as given.
        url: String,
        /// Why it is invalid.
        reason: String,
    },
    /// The S3 bucket does not exist (or is not visible with these credentials).
    #[error("bucket `{bucket}` does not exist at {endpoint} (create it, or check the credentials and endpoint)")]
    BucketNotFound {
        /// Bucket name.
        bucket: String,
        /// Endpoint used.
        endpoint: String,
    },
    /// An object was not found.
    #[error("not found: {0}")]
    NotFound(String),
    /// The backing store failed.
    #[error("storage error at {url}: {source}")]
    Store {
        /// The object or prefix involved.
        url: String,
        /// The underlying error.
        #[source]
        source: object_store::Error,
    },
    /// Local I/O or decompression failed.
    #[error("i/o error at {url}: {source}")]
    Io {
        /// The object involved.
        url: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A local run root's disk is below its free-space floor: nothing more is written.
    #[error("{url} not written: {reason}")]
    LowDisk {
        /// The object that was not written.
        url: String,
        /// The free space, the floor and what to do.
        reason: String,
    },
    /// A file's content is malformed (WARC syntax, JSON).
    #[error("malformed {what} in {url}: {reason}")]
    Malformed {
        /// What was being parsed.
        what: &'static str,
        /// The object involved.
        url: String,
        /// Detail.
        reason: String,
    },
}
