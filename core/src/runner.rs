//! The runner: applies a chain of stages to records and does all the accounting.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::{Document, DropReason, RecordError, RunStats, Stage, Verdict};

/// A dropped record with the stage and reason: the one shape of every line under
/// `excluded/<stage>/`, whatever the stage (a URL the crawler left, a page extraction
/// dropped, a document a filter removed, an image captions refused).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    /// The stage (or step) that dropped it.
    pub stage: String,
    /// The fixed reason.
    pub reason: String,
    /// Detail for record errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the decision was about when it is not a document: the URL the crawler did not
    /// fetch, the page that gave no document, the image captions dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTTP status of the page or image, when one was fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// More about the reason (the robots.txt rule, the image's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The document, when there is one (with the attrs that led to the decision; for an
    /// image, the page it was on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<Document>,
}

impl Excluded {
    /// A document dropped by `stage` for `reason`.
    pub fn doc(stage: &str, reason: DropReason, doc: Document) -> Excluded {
        Excluded {
            stage: stage.to_string(),
            reason: reason.as_str().to_string(),
            error: None,
            url: None,
            status: None,
            detail: None,
            doc: Some(doc),
        }
    }

    /// A URL (a page, an image) dropped by `stage` for `reason`, without a document.
    pub fn url(stage: &str, reason: &str, url: &str) -> Excluded {
        Excluded {
            stage: stage.to_string(),
            reason: reason.to_string(),
            error: None,
            url: Some(url.to_string()),
            status: None,
            detail: None,
            doc: None,
        }
    }
}

/// The token count recorded on a document (`attrs.tokens`, written after extraction), so
/// the funnel can show tokens as well as documents.
pub fn doc_tokens(doc: &Document) -> u64 {
    doc.attrs
        .get("tokens")
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}

/// An ordered chain of stages with per-stage accounting. Dropped documents are collected
/// (see [`Chain::take_excluded`]) for the exclusion sink.
#[derive(Debug)]
pub struct Chain {
    group: String,
    stages: Vec<Stage>,
    stats: RunStats,
    excluded: Vec<Excluded>,
}

impl Chain {
    /// A chain named `group` (the storage folder of its output, e.g. `filter`).
    pub fn new(group: impl Into<String>, stages: Vec<Stage>) -> Self {
        let mut stats = RunStats::default();
        for s in &stages {
            stats.stage_mut(s.name());
        }
        Chain {
            group: group.into(),
            stages,
            stats,
            excluded: Vec::new(),
        }
    }

    /// The name of the chain (its output folder).
    pub fn group(&self) -> &str {
        &self.group
    }

    /// Shows every task the shard about to be processed (see [`crate::Task::prepare`]); the time
    /// counts as the task's.
    pub fn prepare(&mut self, shard: &[Document]) {
        for stage in &mut self.stages {
            let t0 = Instant::now();
            stage.prepare(shard);
            self.stats.stage_mut(stage.name()).nanos += t0.elapsed().as_nanos() as u64;
        }
    }

    /// Shows every task one shard of the run before any shard is processed (see
    /// [`crate::Task::look_ahead`]); `true` while some task still looks ahead. The time counts
    /// as the task's (in the stats of the first shard processed).
    pub fn look_ahead(&mut self, shard: &[Document]) -> bool {
        let mut any = false;
        for stage in &mut self.stages {
            let t0 = Instant::now();
            any |= stage.look_ahead(shard);
            self.stats.stage_mut(stage.name()).nanos += t0.elapsed().as_nanos() as u64;
        }
        any
    }

    /// Ends the run-wide look-ahead (see [`crate::Task::end_look_ahead`]).
    pub fn end_look_ahead(&mut self) {
        for stage in &mut self.stages {
            let t0 = Instant::now();
            stage.end_look_ahead();
            self.stats.stage_mut(stage.name()).nanos += t0.elapsed().as_nanos() as u64;
        }
    }

    /// Run one document through every stage; `Some` if it survived.
    pub fn process(&mut self, mut doc: Document) -> Option<Document> {
        for stage in &mut self.stages {
            let name = stage.name();
            let st = self.stats.stage_mut(name);
            st.seen += 1;
            st.bytes_in += doc.text.len() as u64;
            let tokens = doc_tokens(&doc);
            if tokens > 0 {
                st.count("tokens_in", tokens);
            }
            let t0 = Instant::now();
            // a panic is contained to this record (counted as a record error of kind `panic`);
            // a stateful task keeps whatever state the panic left
            let result = RecordError::catch(|| stage.apply(&mut doc)).and_then(|r| r);
            st.nanos += t0.elapsed().as_nanos() as u64;
            match result {
                Ok(Verdict::Keep) => {
                    st.kept += 1;
                    st.bytes_out += doc.text.len() as u64;
                    if tokens > 0 {
                        st.count("tokens_out", tokens);
                    }
                }
                Ok(Verdict::Drop(reason)) => {
                    st.drop_for(reason.as_str());
                    self.excluded.push(Excluded::doc(name, reason, doc));
                    return None;
                }
                Err(e) => {
                    st.drop_for(DropReason::RECORD_ERROR.as_str());
                    *st.errors.entry(e.kind.to_string()).or_default() += 1;
                    tracing::debug!(stage = name, url = %doc.url, error = %e, "record error");
                    self.excluded.push(Excluded {
                        error: Some(e.to_string()),
                        ..Excluded::doc(name, DropReason::RECORD_ERROR, doc)
                    });
                    return None;
                }
            }
        }
        Some(doc)
    }

    /// The first stage's storage failure (see [`crate::Task::fault`]), named by its stage.
    pub fn fault(&self) -> Option<String> {
        self.stages
            .iter()
            .find_map(|s| s.fault().map(|e| format!("{}: {e}", s.name())))
    }

    /// Stats so far.
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }

    /// Take the stats accumulated since the last call (for per-shard flushing).
    pub fn take_stats(&mut self) -> RunStats {
        let mut fresh = RunStats::default();
        for s in &self.stages {
            fresh.stage_mut(s.name());
        }
        std::mem::replace(&mut self.stats, fresh)
    }

    /// Take the dropped records collected since the last call.
    pub fn take_excluded(&mut self) -> Vec<Excluded> {
        std::mem::take(&mut self.excluded)
    }

    /// Registers a document that survived this chain in an earlier, committed run, so
    /// stateful stages (dedup) resume with the same state.
    pub fn seed(&mut self, kept: &Document) {
        for s in &mut self.stages {
            s.seed(kept);
        }
    }

    /// Registers a document a committed run excluded: the stages before the one that dropped
    /// it kept it, so they are seeded with it (exact dedup remembers the text of a document
    /// that near dedup then removed, as it did in the uninterrupted run), and the stage that
    /// dropped it registers it as dropped. Records dropped
    /// outside the chain (unreadable input) or by a record error seed nothing.
    ///
    /// Seeding kept documents and then excluded ones, instead of in input order, gives the
    /// same state for first-owner tasks: two documents that both passed such a task have
    /// different keys in it, so the order they are registered in does not matter.
    pub fn seed_excluded(&mut self, ex: &Excluded) {
        let (None, Some(doc)) = (&ex.error, &ex.doc) else {
            return;
        };
        let Some(at) = self.stages.iter().position(|s| s.name() == ex.stage) else {
            return;
        };
        for s in &mut self.stages[..at] {
            s.seed(doc);
        }
        self.stages[at].seed_dropped(doc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Map;

    struct PanicsOnBoom;
    impl Map for PanicsOnBoom {
        fn name(&self) -> &'static str {
            "panics_on_boom"
        }
        fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
            if doc.text.contains("boom") {
                // the kind of bug issue 18 found: a byte offset inside a multi-byte char
                let at = doc.text.find('\u{a0}').unwrap_or(0) + 1;
                doc.text = doc.text[at..].to_string();
            }
            Ok(())
        }
    }

    #[test]
    fn a_panic_is_one_record_error_and_the_chain_goes_on() {
        let mut chain = Chain::new("filter", vec![Stage::Map(Box::new(PanicsOnBoom))]);
        let docs = ["first", "boom\u{a0}here", "third"];
        let kept: Vec<_> = docs
            .iter()
            .filter_map(|t| chain.process(Document::new(format!("u:{t}"), *t)))
            .collect();
        assert_eq!(kept.len(), 2);
        let st = chain.stats().stage("panics_on_boom").unwrap();
        assert_eq!((st.seen, st.kept), (3, 2));
        assert_eq!(st.dropped["record_error"], 1);
        assert_eq!(st.errors["panic"], 1);
        let ex = chain.take_excluded();
        assert_eq!(ex.len(), 1);
        assert_eq!(ex[0].reason, "record_error");
        let err = ex[0].error.as_deref().unwrap();
        assert!(
            err.starts_with("panic: ") && err.contains("char boundary"),
            "{err}"
        );
        assert_eq!(ex[0].doc.as_ref().unwrap().text, "boom\u{a0}here");
    }
}
