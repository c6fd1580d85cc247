//! The three stage kinds, preferred in this order: [`Filter`], [`Map`], [`Task`].

use std::fmt;

use crate::{Document, RecordError};

/// A fixed, typed reason for dropping a record: a `&'static str` constant declared beside
/// the filter (never built with `format!`), so reasons form a closed set the runner counts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DropReason(&'static str);

impl DropReason {
    /// A reason; by convention snake_case, e.g. `DropReason::new("lang_not_allowed")`.
    pub const fn new(reason: &'static str) -> Self {
        DropReason(reason)
    }

    /// The reason string used in stats and exclusion files.
    pub const fn as_str(&self) -> &'static str {
        self.0
    }

    /// The reason for records whose processing failed (see [`RecordError`]).
    pub const RECORD_ERROR: DropReason = DropReason("record_error");
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DropReason({})", self.0)
    }
}

/// What a stage decided for one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The record goes on.
    Keep,
    /// The record is removed, for this reason.
    Drop(DropReason),
}

/// Keep or drop one document, deciding from the document (usually its `attrs`).
pub trait Filter: Send {
    /// Stage name used in stats (snake_case).
    fn name(&self) -> &'static str;
    /// The decision.
    fn filter(&self, doc: &Document) -> Verdict;
}

/// Rewrite or annotate one document.
pub trait Map: Send {
    /// Stage name used in stats (snake_case).
    fn name(&self) -> &'static str;
    /// Annotate or rewrite in place; an error drops the record as `record_error`.
    fn map(&self, doc: &mut Document) -> Result<(), RecordError>;
}

/// A stage with state across records (dedup, packing). Records arrive in a deterministic
/// order; the verdict may depend on records seen before.
pub trait Task: Send {
    /// Stage name used in stats (snake_case).
    fn name(&self) -> &'static str;
    /// Process one record; it may be annotated in place.
    fn process(&mut self, doc: &mut Document) -> Result<Verdict, RecordError>;

    /// Registers a document this task kept in an earlier, committed run, so a resumed run
    /// rebuilds its state and makes the same decisions. Stateless tasks ignore it.
    fn seed(&mut self, _kept: &Document) {}

    /// Registers a document this task dropped in an earlier, committed run, for tasks whose
    /// state holds dropped documents too (near dedup compares later documents with them).
    fn seed_dropped(&mut self, _dropped: &Document) {}

    /// Called with every document of a shard, in the shard's order, before any of them is
    /// processed, so the task can decide with the shard's later documents known (near dedup
    /// links a copy to its cluster through an original that comes later in the shard).
    /// Some of them may be dropped by earlier stages and never reach [`Task::process`].
    /// Decisions must depend only on the shard and the state before it, so a rerun of the
    /// shard decides the same. Sequential tasks ignore it.
    fn prepare(&mut self, _shard: &[Document]) {}

    /// Run-wide look-ahead: before any shard of a run is processed, a command that has every
    /// input up front (`trawl dedup`) may show the task each shard in input order, then call
    /// [`Task::end_look_ahead`], so decisions see the whole run and not only the current
    /// shard. A task returns `false` to decline (over its memory budget, say), and then gets
    /// [`Task::prepare`] per shard as usual. Decisions must depend only on the run's inputs
    /// and the state before the run, so a resumed run (look-ahead again, then seeding with
    /// the committed shards) decides the same.
    fn look_ahead(&mut self, _shard: &[Document]) -> bool {
        false
    }

    /// Ends the run-wide look-ahead (see [`Task::look_ahead`]).
    fn end_look_ahead(&mut self) {}

    /// A failure of the task's own storage (its on-disk index's disk is full): not a record's
    /// problem, so the shard must not be committed with its records counted as errors. The
    /// shard's maker checks it after the shard's records and stops the stage with it; a
    /// rerun makes the shard again.
    fn fault(&self) -> Option<String> {
        None
    }
}

/// A stage of any kind, as the runner holds it.
pub enum Stage {
    /// A [`Filter`].
    Filter(Box<dyn Filter>),
    /// A [`Map`].
    Map(Box<dyn Map>),
    /// A [`Task`].
    Task(Box<dyn Task>),
}

impl Stage {
    /// The stage's name.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Filter(f) => f.name(),
            Stage::Map(m) => m.name(),
            Stage::Task(t) => t.name(),
        }
    }

    /// Registers a document kept by an earlier run (see [`Task::seed`]).
    pub fn seed(&mut self, kept: &Document) {
        if let Stage::Task(t) = self {
            t.seed(kept);
        }
    }

    /// Registers a document this stage dropped in an earlier run (see [`Task::seed_dropped`]).
    pub fn seed_dropped(&mut self, dropped: &Document) {
        if let Stage::Task(t) = self {
            t.seed_dropped(dropped);
        }
    }

    /// Shows a task the whole shard before it processes it (see [`Task::prepare`]).
    pub fn prepare(&mut self, shard: &[Document]) {
        if let Stage::Task(t) = self {
            t.prepare(shard);
        }
    }

    /// Shows a task one shard of the run ahead of time (see [`Task::look_ahead`]); `false`
    /// for other stages and for a task that declines.
    pub fn look_ahead(&mut self, shard: &[Document]) -> bool {
        match self {
            Stage::Task(t) => t.look_ahead(shard),
            _ => false,
        }
    }

    /// Ends the run-wide look-ahead (see [`Task::end_look_ahead`]).
    pub fn end_look_ahead(&mut self) {
        if let Stage::Task(t) = self {
            t.end_look_ahead();
        }
    }

    /// The task's storage failure, if any (see [`Task::fault`]).
    pub fn fault(&self) -> Option<String> {
        match self {
            Stage::Task(t) => t.fault(),
            _ => None,
        }
    }

    /// Apply the stage to one document.
    pub fn apply(&mut self, doc: &mut Document) -> Result<Verdict, RecordError> {
        match self {
            Stage::Filter(f) => Ok(f.filter(doc)),
            Stage::Map(m) => m.map(doc).map(|()| Verdict::Keep),
            Stage::Task(t) => t.process(doc),
        }
    }
}

impl fmt::Debug for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            Stage::Filter(_) => "Filter",
            Stage::Map(_) => "Map",
            Stage::Task(_) => "Task",
        };
        write!(f, "{kind}({})", self.name())
    }
}
