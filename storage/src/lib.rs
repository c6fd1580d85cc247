//! `trawl-storage`: everything trawl reads and writes goes through here.
//!
//! - [`Storage`]: a run root on `object_store`: `s3://bucket/prefix`, or a local folder (a
//!   plain path or `file://`), the embedded default. Writes are atomic: a local put writes a
//!   temporary file and renames it; an S3 put or completed multipart upload becomes visible
//!   whole. Readers therefore never see half a shard.
//! - [`ShardSpec`] and [`InputSet`]: deterministic `--shard i/n` partitioning of a listing.
//! - [`jsonl`]: JSONL, `.jsonl.gz` and `.jsonl.zst` (zstd is what trawl writes).
//! - [`docs`]: document files, JSONL or Parquet (`[storage] documents`).
//! - [`warc`]: WARC 1.1 reading and writing, gzip per record.
//! - [`RunRoot`]: the run root as the store of trawl-core's shard runner.
//! - [`markers`]: completion markers (carrying the shard's stats) and stats files, so a rerun
//!   skips finished shards.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let root = trawl_storage::Storage::open(dir.path().to_str().unwrap(), &Default::default()).unwrap();
//! root.put("a/b.txt", bytes::Bytes::from_static(b"hi")).await.unwrap();
//! assert_eq!(root.list("a").await.unwrap(), vec!["a/b.txt".to_string()]);
//! # });
//! ```
#![deny(missing_docs)]

pub mod docs;
mod error;
mod input;
pub mod jsonl;
pub mod markers;
mod run_root;
mod shard;
mod store;
pub mod warc;

pub use error::StorageError;
pub use input::InputSet;
pub use run_root::{exclusions_object, RunRoot};
pub use shard::ShardSpec;
pub use store::{Storage, StorageConfig};

/// The name of shard `index` in every stage folder: five digits, zero-padded.
pub fn shard_name(index: usize) -> String {
    format!("{index:05}")
}
