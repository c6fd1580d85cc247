//! One runner for every stage's shards: skip-if-done, the accounting, the one exclusion
//! record shape and the commit, over storage that implements [`ShardStore`].
//!
//! A stage makes a shard in one of three fixed slots, all on [`ShardWork`]:
//!
//! - page -> document ([`ShardWork::pages`] with a [`PageStage`]: extraction),
//! - the Filter/Map/Task [`Chain`] ([`ShardWork::chain`]: filter, dedup),
//! - a whole-shard task that writes its own objects ([`ShardWork::output`]: captions,
//!   token parts), counting into [`ShardWork::stage_stats`] and excluding through
//!   [`ShardWork::exclude`].
//!
//! The runner writes every output, then the exclusion records, then the completion marker
//! (last), so a shard is either whole or redone; object names come from the stage and shard
//! name, so a rerun overwrites and never duplicates.
//!
//! ```
//! use std::sync::Mutex;
//! use trawl_core::{Chain, Document, Excluded, Marker, ShardJob, ShardRunner, ShardStore, Sink, StoreError};
//!
//! /// A store in memory, writing documents and records as JSON lines.
//! #[derive(Default)]
//! struct Memory(Mutex<Vec<(String, Vec<u8>)>>, Mutex<Vec<Marker>>);
//! struct Lines(Vec<u8>);
//! impl<T: serde::Serialize + ?Sized> Sink<T> for Lines {
//!     fn write(&mut self, r: &T) { self.0.extend(serde_json::to_vec(r).unwrap()); self.0.push(b'\n') }
//!     fn finish(self: Box<Self>) -> Vec<u8> { self.0 }
//! }
//! impl ShardStore for Memory {
//!     fn marker(&self, stage: &str, shard: &str) -> Result<Option<Marker>, StoreError> {
//!         Ok(self.1.lock().unwrap().iter().find(|m| m.stage == stage && m.shard == shard).cloned())
//!     }
//!     fn commit(&self, objects: Vec<(String, Vec<u8>)>, m: &Marker) -> Result<(), (String, StoreError)> {
//!         self.0.lock().unwrap().extend(objects);
//!         self.1.lock().unwrap().push(m.clone());
//!         Ok(())
//!     }
//!     fn documents(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Document>>) {
//!         (format!("{stage}/{shard}.jsonl"), Box::new(Lines(Vec::new())))
//!     }
//!     fn exclusions(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Excluded>>) {
//!         (format!("excluded/{stage}/{shard}.jsonl"), Box::new(Lines(Vec::new())))
//!     }
//!     fn url_of(&self, key: &str) -> String { format!("memory:{key}") }
//! }
//!
//! let store = Memory::default();
//! let runner = ShardRunner::new(&store, false);
//! let job = ShardJob::new("filter", "00000", vec!["in.jsonl".into()], "cfg1".into());
//! let mut chain = Chain::new("filter", vec![]);
//! let docs = vec![Document::new("https://a.example/", "hello")];
//! let kept = runner.run(&job, |w| Ok::<_, trawl_core::ShardError>(w.chain(&mut chain, docs))).unwrap();
//! assert_eq!(kept.map(|k| k.len()), Some(1));
//! // committed: a second run with the same inputs and config skips the shard
//! assert!(runner.run(&job, |_| Ok::<_, trawl_core::ShardError>(())).unwrap().is_none());
//! assert_eq!(store.1.lock().unwrap()[0].outputs, ["filter/00000.jsonl", "excluded/filter/00000.jsonl"]);
//! ```

use std::time::Instant;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{
    Chain, Document, DropReason, Excluded, FetchedPage, RecordError, RunStats, StageStats,
};

/// The content of a completion marker: `_done/<stage>/<shard>`, written last.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Stage (folder) name.
    pub stage: String,
    /// Shard name (`00042`).
    pub shard: String,
    /// Inputs the shard was made from.
    pub inputs: Vec<String>,
    /// Outputs committed for the shard.
    pub outputs: Vec<String>,
    /// The shard's stats.
    pub stats: RunStats,
    /// Fingerprint of the config the shard was made with (empty for stages whose output
    /// does not depend on it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub config: String,
}

impl Marker {
    /// The object holding the marker of `stage`'s shard `shard`.
    pub fn key(stage: &str, shard: &str) -> String {
        format!("_done/{stage}/{shard}")
    }
}

/// An error of the storage behind a [`ShardStore`].
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// A writer of records into one object's bytes (a document format, the exclusion format).
pub trait Sink<T: ?Sized>: Send {
    /// Appends one record.
    fn write(&mut self, record: &T);
    /// The object's bytes.
    fn finish(self: Box<Self>) -> Vec<u8>;
}

/// What the runner needs from storage. Calls block: stages run on CPU threads.
pub trait ShardStore: Send + Sync {
    /// The committed marker of `stage`'s shard `shard`, if there is one.
    fn marker(&self, stage: &str, shard: &str) -> Result<Option<Marker>, StoreError>;
    /// Commits a shard: writes `objects` (each visible whole or not at all) and its stats file (concurrently where the store
    /// can: a shard's objects do not depend on each other), then its marker, last. A failure
    /// names the object it was writing (the marker's key when the marker failed).
    fn commit(
        &self,
        objects: Vec<(String, Vec<u8>)>,
        marker: &Marker,
    ) -> Result<(), (String, StoreError)>;
    /// The object and writer for the documents `stage` keeps of `shard`, in the run's
    /// document format.
    fn documents(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Document>>);
    /// The object and writer for the records `stage` excluded from `shard`.
    fn exclusions(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Excluded>>);
    /// Where `key` is, for messages.
    fn url_of(&self, key: &str) -> String;
}

/// A storage failure while making a shard: which object, and why.
#[derive(Debug, Error)]
#[error("{what} {url}: {source}")]
pub struct ShardError {
    what: &'static str,
    url: String,
    #[source]
    source: StoreError,
}

/// One shard of one stage: its name, the inputs it is made from and the fingerprint of
/// the config that decides its output. Done when a committed marker has the same inputs
/// and fingerprint.
#[derive(Clone, Debug)]
pub struct ShardJob {
    /// The stage (its output folder).
    pub stage: &'static str,
    /// The shard name.
    pub shard: String,
    /// The inputs (URLs of objects) the shard is made from.
    pub inputs: Vec<String>,
    /// The fingerprint of the config the stage's output depends on.
    pub fingerprint: String,
}

impl ShardJob {
    /// A job for shard `shard` of `stage`.
    pub fn new(
        stage: &'static str,
        shard: impl Into<String>,
        inputs: Vec<String>,
        fingerprint: String,
    ) -> ShardJob {
        ShardJob {
            stage,
            shard: shard.into(),
            inputs,
            fingerprint,
        }
    }
}

/// Makes shards: skips the done ones, commits the made ones.
#[derive(Clone, Copy)]
pub struct ShardRunner<'a> {
    store: &'a dyn ShardStore,
    force: bool,
}

impl std::fmt::Debug for ShardRunner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardRunner")
            .field("force", &self.force)
            .finish_non_exhaustive()
    }
}

impl<'a> ShardRunner<'a> {
    /// A runner over `store`; with `force`, no shard counts as done.
    pub fn new(store: &'a dyn ShardStore, force: bool) -> ShardRunner<'a> {
        ShardRunner { store, force }
    }

    /// Whether `job` is committed from the same inputs and config.
    pub fn is_done(&self, job: &ShardJob) -> Result<bool, ShardError> {
        if self.force {
            return Ok(false);
        }
        let marker = self
            .store
            .marker(job.stage, &job.shard)
            .map_err(|source| ShardError {
                what: "reading the completion marker",
                url: self.store.url_of(&Marker::key(job.stage, &job.shard)),
                source,
            })?;
        Ok(marker.is_some_and(|m| m.inputs == job.inputs && m.config == job.fingerprint))
    }

    /// Makes `job` with `body` unless it is done (`None` then).
    pub fn run<T, E: From<ShardError>>(
        &self,
        job: &ShardJob,
        body: impl FnOnce(&mut ShardWork) -> Result<T, E>,
    ) -> Result<Option<T>, E> {
        if self.is_done(job)? {
            return Ok(None);
        }
        self.make(job, body).map(Some)
    }

    /// Makes `job` with `body` and commits it, done or not (the caller checked).
    pub fn make<T, E: From<ShardError>>(
        &self,
        job: &ShardJob,
        body: impl FnOnce(&mut ShardWork) -> Result<T, E>,
    ) -> Result<T, E> {
        let (ex_key, ex_sink) = self.store.exclusions(job.stage, &job.shard);
        let mut work = ShardWork {
            stage: job.stage,
            shard: job.shard.clone(),
            store: self.store,
            stats: RunStats::default(),
            docs: None,
            excluded: ex_sink,
            excluded_count: 0,
            outputs: Vec::new(),
        };
        let value = body(&mut work)?;
        let ShardWork {
            stats,
            docs,
            excluded,
            excluded_count,
            outputs,
            ..
        } = work;
        let mut keys = Vec::with_capacity(outputs.len() + 2);
        let mut objects = Vec::with_capacity(outputs.len() + 2);
        let has_docs = docs.is_some();
        if let Some((key, sink)) = docs {
            objects.push((key.clone(), sink.finish()));
            keys.push(key);
        }
        for (key, bytes) in outputs {
            if let Some(bytes) = bytes {
                objects.push((key.clone(), bytes));
            }
            keys.push(key);
        }
        // a document stage always says what it dropped, even nothing; other stages write
        // the object when they excluded something
        if excluded_count > 0 || has_docs {
            objects.push((ex_key.clone(), excluded.finish()));
            keys.push(ex_key);
        }
        let marker = Marker {
            stage: job.stage.to_string(),
            shard: job.shard.clone(),
            inputs: job.inputs.clone(),
            outputs: keys,
            stats,
            config: job.fingerprint.clone(),
        };
        let marker_key = Marker::key(job.stage, &job.shard);
        self.store
            .commit(objects, &marker)
            .map_err(|(key, source)| ShardError {
                what: if key == marker_key {
                    "committing"
                } else {
                    "writing"
                },
                url: self.store.url_of(&key),
                source,
            })?;
        Ok(value)
    }
}

/// A shard being made: its stats, the documents it keeps, the records it excludes and any
/// other objects it writes; the runner commits all of them when the body returns.
pub struct ShardWork<'a> {
    stage: &'static str,
    shard: String,
    store: &'a dyn ShardStore,
    stats: RunStats,
    docs: Option<(String, Box<dyn Sink<Document>>)>,
    excluded: Box<dyn Sink<Excluded>>,
    excluded_count: usize,
    outputs: Vec<(String, Option<Vec<u8>>)>,
}

impl std::fmt::Debug for ShardWork<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardWork")
            .field("stage", &self.stage)
            .field("shard", &self.shard)
            .finish_non_exhaustive()
    }
}

impl ShardWork<'_> {
    /// The shard's name.
    pub fn shard(&self) -> &str {
        &self.shard
    }

    /// The shard's stats (every step of it).
    pub fn stats(&mut self) -> &mut RunStats {
        &mut self.stats
    }

    /// The stats of the stage itself.
    pub fn stage_stats(&mut self) -> &mut StageStats {
        self.stats.stage_mut(self.stage)
    }

    /// The `read` step: `records` read from the input, and the ones that could not be
    /// (each dropped as `record_error` of its kind, with the bytes it covered, and written
    /// to the exclusion records with its source and first bytes).
    pub fn read_step(&mut self, records: usize, bad: &[Unreadable]) {
        let st = self.stats.stage_mut(READ_STEP);
        st.seen += (records + bad.len()) as u64;
        st.kept += records as u64;
        for e in bad {
            st.drop_for(DropReason::RECORD_ERROR.as_str());
            *st.errors.entry(e.kind.to_string()).or_default() += 1;
            st.count("bytes_skipped", e.bytes);
            let mut doc = Document::new("", e.head.clone());
            doc.meta.source = Some(e.source.clone());
            if let Some(l) = e.line {
                doc.attrs.insert("line".into(), (l as u64).into());
            }
            self.excluded_count += 1;
            self.excluded.write(&Excluded {
                error: Some(e.error.clone()),
                ..Excluded::doc(READ_STEP, DropReason::RECORD_ERROR, doc)
            });
        }
        if let Some(first) = bad.first() {
            tracing::warn!(
                count = bad.len(),
                first = %first.error,
                "unreadable input records counted and skipped (see excluded/)"
            );
        }
    }

    /// Writes `doc` to the stage's document output (created on the first call: a stage
    /// that keeps documents writes the object even when it keeps none, see
    /// [`ShardWork::documents`]).
    pub fn keep(&mut self, doc: &Document) {
        self.doc_sink().write(doc);
    }

    /// Declares that the stage writes a document output (so an empty shard still has one).
    pub fn documents(&mut self) {
        self.doc_sink();
    }

    fn doc_sink(&mut self) -> &mut dyn Sink<Document> {
        let (store, stage, shard) = (self.store, self.stage, &self.shard);
        let (_, sink) = self
            .docs
            .get_or_insert_with(|| store.documents(stage, shard));
        sink.as_mut()
    }

    /// Writes one exclusion record.
    pub fn exclude(&mut self, ex: &Excluded) {
        self.excluded_count += 1;
        self.excluded.write(ex);
    }

    /// Adds an object to the shard's outputs (written before the marker, in call order,
    /// after the documents).
    pub fn output(&mut self, key: impl Into<String>, bytes: Vec<u8>) {
        self.outputs.push((key.into(), Some(bytes)));
    }

    /// Lists an object the stage wrote itself (a batch phase writing through its own
    /// storage calls) among the shard's outputs; it must be complete before the body
    /// returns.
    pub fn written(&mut self, key: impl Into<String>) {
        self.outputs.push((key.into(), None));
    }

    /// The Filter/Map/Task slot: runs `docs` through `chain`, keeps the survivors (written
    /// as the stage's documents and returned), writes the dropped ones as exclusion records
    /// and adds the chain's accounting to the shard's stats.
    pub fn chain(&mut self, chain: &mut Chain, docs: Vec<Document>) -> Vec<Document> {
        self.documents();
        chain.prepare(&docs);
        let kept: Vec<Document> = docs.into_iter().filter_map(|d| chain.process(d)).collect();
        for d in &kept {
            self.keep(d);
        }
        for e in chain.take_excluded() {
            self.exclude(&e);
        }
        self.stats += &chain.take_stats();
        kept
    }

    /// The page -> document slot: one document per page or the reason it gives none (the
    /// page's URL and status in the exclusion record); a panic on one page is a record error
    /// of that page. Returns the documents, also written as the stage's documents.
    pub fn pages(&mut self, stage: &mut dyn PageStage, pages: &[FetchedPage]) -> Vec<Document> {
        self.documents();
        let name = self.stage;
        let t0 = Instant::now();
        let mut docs = Vec::new();
        for p in pages {
            let st = self.stats.stage_mut(name);
            st.seen += 1;
            st.bytes_in += p.body.len() as u64;
            let result = match RecordError::catch(|| stage.process(p, st)) {
                Ok(r) => r.map_err(|reason| (reason, None)),
                Err(e) => {
                    tracing::warn!(url = %p.url, error = %e, "{name} failed on this page; counted and skipped");
                    *st.errors.entry(e.kind.to_string()).or_default() += 1;
                    Err((DropReason::RECORD_ERROR, Some(e.to_string())))
                }
            };
            match result {
                Ok(d) => {
                    st.kept += 1;
                    st.bytes_out += d.text.len() as u64;
                    self.keep(&d);
                    docs.push(d);
                }
                Err((reason, error)) => {
                    st.drop_for(reason.as_str());
                    self.excluded_count += 1;
                    self.excluded.write(&Excluded {
                        error,
                        status: Some(p.status),
                        ..Excluded::url(name, reason.as_str(), &p.url)
                    });
                }
            }
        }
        self.stats.stage_mut(name).nanos += t0.elapsed().as_nanos() as u64;
        docs
    }
}

/// A stage that makes one document from one page (extraction).
pub trait PageStage {
    /// The document of `page`, or the reason it gives none. Stage-specific counters go to
    /// `stats` (seen, kept, dropped and bytes are counted by the runner).
    fn process(
        &mut self,
        page: &FetchedPage,
        stats: &mut StageStats,
    ) -> Result<Document, DropReason>;
}

/// The name of the read step in stage stats.
pub const READ_STEP: &str = "read";

/// A record of an input file that could not be used: a JSONL line, a Parquet row group, a
/// damaged part of a WARC file.
#[derive(Clone, Debug)]
pub struct Unreadable {
    /// The error kind (`malformed_json`, `warc_damaged`, ...).
    pub kind: &'static str,
    /// `file@offset`.
    pub source: String,
    /// The line, for line-based files.
    pub line: Option<usize>,
    /// Bytes of the input it covers (skipped).
    pub bytes: u64,
    /// What was wrong.
    pub error: String,
    /// Its first bytes, for review.
    pub head: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Memory {
        objects: Mutex<Vec<(String, Vec<u8>)>>,
        markers: Mutex<Vec<Marker>>,
        fail_put: bool,
    }
    struct Lines(Vec<u8>);
    impl<T: Serialize + ?Sized> Sink<T> for Lines {
        fn write(&mut self, r: &T) {
            self.0.extend(serde_json::to_vec(r).unwrap());
            self.0.push(b'\n');
        }
        fn finish(self: Box<Self>) -> Vec<u8> {
            self.0
        }
    }
    impl ShardStore for Memory {
        fn marker(&self, stage: &str, shard: &str) -> Result<Option<Marker>, StoreError> {
            let m = self.markers.lock().unwrap();
            Ok(m.iter()
                .rev()
                .find(|m| m.stage == stage && m.shard == shard)
                .cloned())
        }
        fn commit(
            &self,
            objects: Vec<(String, Vec<u8>)>,
            m: &Marker,
        ) -> Result<(), (String, StoreError)> {
            for (key, bytes) in objects {
                if self.fail_put {
                    return Err((key, "disk full".into()));
                }
                self.objects.lock().unwrap().push((key, bytes));
            }
            self.markers.lock().unwrap().push(m.clone());
            Ok(())
        }
        fn documents(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Document>>) {
            (
                format!("{stage}/{shard}.jsonl"),
                Box::new(Lines(Vec::new())),
            )
        }
        fn exclusions(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Excluded>>) {
            (
                format!("excluded/{stage}/{shard}.jsonl"),
                Box::new(Lines(Vec::new())),
            )
        }
        fn url_of(&self, key: &str) -> String {
            format!("mem:{key}")
        }
    }

    struct Pages;
    impl PageStage for Pages {
        fn process(
            &mut self,
            p: &FetchedPage,
            st: &mut StageStats,
        ) -> Result<Document, DropReason> {
            if p.body.is_empty() {
                return Err(DropReason::new("empty"));
            }
            if p.body.starts_with(b"boom") {
                panic!("a bug on one page");
            }
            st.count("custom", 1);
            Ok(Document::new(
                p.url.clone(),
                String::from_utf8_lossy(&p.body),
            ))
        }
    }

    fn page(url: &str, body: &str) -> FetchedPage {
        FetchedPage {
            url: url.into(),
            status: 200,
            body: body.as_bytes().to_vec(),
            ..FetchedPage::default()
        }
    }

    #[test]
    fn every_slot_commits_outputs_then_exclusions_then_the_marker() {
        let store = Memory::default();
        let runner = ShardRunner::new(&store, false);
        let job = ShardJob::new("extract", "00003", vec!["in.warc".into()], "f1".into());
        let bad = [Unreadable {
            kind: "warc_damaged",
            source: "in.warc@10".into(),
            line: None,
            bytes: 7,
            error: "bad gzip".into(),
            head: String::new(),
        }];
        let pages = [page("u:a", "text"), page("u:b", ""), page("u:c", "boom")];
        let docs = runner
            .run(&job, |w| {
                w.read_step(pages.len(), &bad);
                let d = w.pages(&mut Pages, &pages);
                w.output("extract/00003.extra", b"x".to_vec());
                Ok::<_, ShardError>(d)
            })
            .unwrap()
            .unwrap();
        assert_eq!(docs.len(), 1);
        let objects = store.objects.lock().unwrap().clone();
        let keys: Vec<&str> = objects.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "extract/00003.jsonl",
                "extract/00003.extra",
                "excluded/extract/00003.jsonl"
            ]
        );
        let excluded = String::from_utf8(objects[2].1.clone()).unwrap();
        let lines: Vec<Excluded> = excluded
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            (lines[0].stage.as_str(), lines[0].reason.as_str()),
            ("read", "record_error")
        );
        assert_eq!(lines[1].url.as_deref(), Some("u:b"));
        assert_eq!(lines[1].status, Some(200));
        assert!(lines[2]
            .error
            .as_deref()
            .unwrap()
            .contains("a bug on one page"));
        let m = store.markers.lock().unwrap()[0].clone();
        assert_eq!(m.outputs, keys);
        let st = m.stats.stage("extract").unwrap();
        assert_eq!((st.seen, st.kept), (3, 1));
        assert_eq!(st.dropped["empty"], 1);
        assert_eq!(st.errors["panic"], 1);
        assert_eq!(st.counters["custom"], 1);
        let read = m.stats.stage("read").unwrap();
        assert_eq!((read.seen, read.kept), (4, 3));
        // done now; changed inputs or config, or force, make it again
        assert!(runner.is_done(&job).unwrap());
        let mut other = job.clone();
        other.fingerprint = "f2".into();
        assert!(!runner.is_done(&other).unwrap());
        assert!(!ShardRunner::new(&store, true).is_done(&job).unwrap());
    }

    #[test]
    fn a_failed_write_commits_nothing_and_names_the_object() {
        let store = Memory {
            fail_put: true,
            ..Memory::default()
        };
        let runner = ShardRunner::new(&store, false);
        let job = ShardJob::new("filter", "00000", vec![], String::new());
        let err = runner
            .run(&job, |w| {
                w.documents();
                Ok::<_, ShardError>(())
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "writing mem:filter/00000.jsonl: disk full");
        assert!(store.markers.lock().unwrap().is_empty());
    }
}
