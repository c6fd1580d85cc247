//! `trawl-dedup`: duplicate removal. This first version removes exact duplicates on a
//! normalised text hash (case folded, whitespace collapsed), as a [`Task`]: the first
//! document in input order survives, and each removed one records the DocId it duplicates
//! in `attrs.dedup`.
//!
//! ```
//! use trawl_core::{Chain, Document, Stage};
//! let mut chain = Chain::new("dedup", vec![Stage::Task(Box::new(trawl_dedup::ExactDedup::default()))]);
//! assert!(chain.process(Document::new("a", "Same  text")).is_some());
//! assert!(chain.process(Document::new("b", "same text")).is_none());
//! ```
#![deny(missing_docs)]

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{DocId, Document, RecordError, Task, Verdict};

/// Drop reasons of the dedup stage.
pub mod reasons {
    use trawl_core::DropReason;
    /// Same normalised text as an earlier document.
    pub const EXACT_DUPLICATE: DropReason = DropReason::new("exact_duplicate");
}

/// The `[dedup]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DedupConfig {
    /// Whether `trawl run` deduplicates.
    pub enabled: bool,
    /// Remove documents whose normalised text equals an earlier one.
    pub exact: bool,
}

impl Default for DedupConfig {
    fn default() -> Self {
        DedupConfig { enabled: true, exact: true }
    }
}

impl DedupConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        Ok(())
    }
}

/// The normalised-text hash used for exact dedup: lowercase, whitespace runs collapsed,
/// leading/trailing whitespace ignored; 128-bit XXH3.
pub fn text_key(text: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = [0u8; 4];
    let mut pending_space = false;
    let mut started = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = started;
            continue;
        }
        if pending_space {
            h.update(b" ");
            pending_space = false;
        }
        started = true;
        for lc in c.to_lowercase() {
            h.update(lc.encode_utf8(&mut buf).as_bytes());
        }
    }
    h.digest128()
}

/// Exact dedup over the normalised text hash. State is the set of keys seen, each with the
/// DocId that owns it; [`ExactDedup::seed`] loads documents kept by earlier shards so a
/// resumed run makes the same decisions. A document meeting its own entry again (a replayed
/// shard) is kept, which makes reprocessing idempotent.
#[derive(Debug, Default)]
pub struct ExactDedup {
    seen: HashMap<u128, DocId>,
}

impl ExactDedup {
    /// Number of distinct texts seen.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether nothing has been seen.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

impl Task for ExactDedup {
    fn name(&self) -> &'static str {
        "exact_dedup"
    }

    fn seed(&mut self, doc: &Document) {
        self.seen.entry(text_key(&doc.text)).or_insert_with(|| doc.id.clone());
    }

    fn process(&mut self, doc: &mut Document) -> Result<Verdict, RecordError> {
        let key = text_key(&doc.text);
        match self.seen.get(&key) {
            Some(owner) if *owner != doc.id => {
                doc.attrs.insert("dedup".into(), json!({ "exact_of": owner.as_str() }));
                Ok(Verdict::Drop(reasons::EXACT_DUPLICATE))
            }
            Some(_) => Ok(Verdict::Keep),
            None => {
                self.seen.insert(key, doc.id.clone());
                Ok(Verdict::Keep)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::compliance::check_stage;
    use trawl_core::Stage;

    #[test]
    fn drops_later_exact_duplicates_and_records_owner() {
        let docs = vec![
            Document::new("a", "Hello   World\n"),
            Document::new("b", "other"),
            Document::new("c", "hello world"),
            Document::new("d", "HELLO WORLD"),
        ];
        let first = docs[0].id.clone();
        let (kept, stats) = check_stage(Stage::Task(Box::new(ExactDedup::default())), docs);
        assert_eq!(kept.iter().map(|d| d.url.as_str()).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(stats.stage("exact_dedup").unwrap().dropped["exact_duplicate"], 2);
        let mut d = ExactDedup::default();
        Task::seed(&mut d, &kept[0]);
        let mut again = Document::new("c", "hello world");
        assert_eq!(d.process(&mut again).unwrap(), Verdict::Drop(reasons::EXACT_DUPLICATE));
        assert_eq!(again.attrs["dedup"]["exact_of"], first.as_str());
        // replaying the owner itself keeps it
        let mut owner = kept[0].clone();
        assert_eq!(d.process(&mut owner).unwrap(), Verdict::Keep);
    }

    #[test]
    fn key_normalisation() {
        assert_eq!(text_key(" a  b "), text_key("A B"));
        assert_ne!(text_key("ab"), text_key("a b"));
    }
}
