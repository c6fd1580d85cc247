//! The run root as the store of [`trawl_core::ShardRunner`]: markers, objects, and the
//! writers of the run's document and exclusion formats.

use trawl_core::{Document, Excluded, Marker, ShardStore, Sink, StoreError, Unreadable};

use crate::docs::{DocFormat, DocWriter};
use crate::jsonl::{JsonlWriter, LineError};
use crate::{markers, Storage};

/// A run root for CPU threads: every call blocks on the runtime it was made with, so it
/// must not be used from inside that runtime's async tasks.
#[derive(Clone, Debug)]
pub struct RunRoot {
    root: Storage,
    rt: tokio::runtime::Handle,
    documents: DocFormat,
}

impl RunRoot {
    /// The run root `root`, its I/O on `rt`, documents written as `documents`.
    pub fn new(root: Storage, rt: tokio::runtime::Handle, documents: DocFormat) -> RunRoot {
        RunRoot {
            root,
            rt,
            documents,
        }
    }

    /// The storage underneath.
    pub fn storage(&self) -> &Storage {
        &self.root
    }

    /// Blocks on a storage future.
    pub fn block<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The object holding `stage`'s documents of shard `shard`.
    pub fn doc_object(&self, stage: &str, shard: &str) -> String {
        self.documents.object(stage, shard)
    }
}

/// The object holding `stage`'s exclusion records of shard `shard`.
pub fn exclusions_object(stage: &str, shard: &str) -> String {
    DocFormat::Jsonl.object(&format!("excluded/{stage}"), shard)
}

impl ShardStore for RunRoot {
    fn marker(&self, stage: &str, shard: &str) -> Result<Option<Marker>, StoreError> {
        Ok(self.block(markers::read(&self.root, stage, shard))?)
    }

    fn commit(
        &self,
        objects: Vec<(String, Vec<u8>)>,
        marker: &Marker,
    ) -> Result<(), (String, StoreError)> {
        // the shard's objects and stats at once (one round of latency instead of one per
        // object: on a local disk the CPU threads otherwise wait on each write in turn),
        // then the marker
        let (stats_key, stats) = markers::stats_object(marker);
        let root = &self.root;
        let writes = objects
            .into_iter()
            .chain(std::iter::once((stats_key, stats)))
            .map(|(key, bytes)| async move {
                root.put(&key, bytes.into())
                    .await
                    .map_err(|e| (key, StoreError::from(e)))
            });
        self.block(futures::future::try_join_all(writes))?;
        self.block(markers::put_marker(root, marker))
            .map_err(|e| (Marker::key(&marker.stage, &marker.shard), e.into()))
    }

    fn documents(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Document>>) {
        (
            self.doc_object(stage, shard),
            Box::new(DocWriter::new(self.documents)),
        )
    }

    fn exclusions(&self, stage: &str, shard: &str) -> (String, Box<dyn Sink<Excluded>>) {
        let key = exclusions_object(stage, shard);
        let w = JsonlWriter::for_name(&key);
        (key, Box::new(w))
    }

    fn url_of(&self, key: &str) -> String {
        self.root.url_of(key)
    }
}

impl Sink<Document> for DocWriter {
    fn write(&mut self, d: &Document) {
        DocWriter::write(self, d)
    }
    fn finish(self: Box<Self>) -> Vec<u8> {
        DocWriter::finish(*self)
    }
}

impl<T: serde::Serialize + ?Sized> Sink<T> for JsonlWriter {
    fn write(&mut self, r: &T) {
        JsonlWriter::write(self, r)
    }
    fn finish(self: Box<Self>) -> Vec<u8> {
        JsonlWriter::finish(*self)
    }
}

impl From<&LineError> for Unreadable {
    fn from(e: &LineError) -> Unreadable {
        Unreadable {
            kind: e.kind,
            source: format!("{}@{}", e.file, e.offset),
            line: Some(e.line),
            bytes: e.bytes,
            error: e.to_string(),
            head: e.head.clone(),
        }
    }
}

impl crate::warc::Damage {
    /// This damage of the WARC file `file` as an unreadable input record.
    pub fn unreadable(&self, file: &str) -> Unreadable {
        Unreadable {
            kind: self.kind,
            source: format!("{file}@{}", self.offset),
            line: None,
            bytes: self.bytes_skipped,
            error: format!("{file}: {self}"),
            head: String::new(),
        }
    }
}
