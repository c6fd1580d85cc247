//! `trawl-core`: the records that flow through trawl, the stage traits, verdicts with typed
//! drop reasons, additive statistics and the runner that does the accounting once for all
//! stages.
//!
//! ```
//! use trawl_core::{Document, DocId, Filter, Verdict, DropReason, Chain, Stage};
//!
//! struct NonEmpty;
//! impl Filter for NonEmpty {
//!     fn name(&self) -> &'static str { "non_empty" }
//!     fn filter(&self, doc: &Document) -> Verdict {
//!         if doc.text.trim().is_empty() { Verdict::Drop(DropReason::new("empty")) } else { Verdict::Keep }
//!     }
//! }
//!
//! let mut chain = Chain::new("filter", vec![Stage::Filter(Box::new(NonEmpty))]);
//! let kept = chain.process(Document::new("https://a.example/", "hello"));
//! assert!(kept.is_some());
//! let dropped = chain.process(Document::new("https://a.example/2", " "));
//! assert!(dropped.is_none());
//! assert_eq!(chain.stats().stage("non_empty").unwrap().dropped["empty"], 1);
//! ```
#![deny(missing_docs)]

pub mod compliance;
pub mod disk;
mod error;
pub mod html;
pub mod parse;
mod record;
mod runner;
mod shard;
pub mod signals;
mod stage;
mod stage_id;
mod stats;
pub mod testdata;
pub mod text;
pub mod time;
mod urls;

pub use error::{panic_message, RecordError, StageError};
pub use record::{
    Attrs, Consent, ConsentBasis, DocId, Document, FetchedPage, ImageRef, ImageTextPair,
    InterleavedDoc, Meta, RenderInfo, WarcLocation,
};
pub use runner::{doc_tokens, Chain, Excluded};
pub use shard::{
    Marker, PageStage, ShardError, ShardJob, ShardRunner, ShardStore, ShardWork, Sink, StoreError,
    Unreadable, READ_STEP,
};
pub use stage::{DropReason, Filter, Map, Stage, Task, Verdict};
pub use stage_id::StageId;
pub use stats::{Histogram, RunStats, StageStats};
pub use urls::{host_matches, UrlBlocklist, UrlPattern};
