//! `trawl-dedup`: duplicate removal, as [`Task`]s: exact duplicates on a normalised text
//! hash ([`ExactDedup`]) and near duplicates with MinHash LSH ([`NearDedup`], see
//! [`minhash`]). The first document in input order survives, and each removed one records
//! the DocId it duplicates in `attrs.dedup`.
//!
//! ```
//! use trawl_core::{Chain, Document, Stage};
//! let mut chain = Chain::new("dedup", vec![Stage::Task(Box::new(trawl_dedup::ExactDedup::default()))]);
//! assert!(chain.process(Document::new("a", "Same  text")).is_some());
//! assert!(chain.process(Document::new("b", "same text")).is_none());
//! ```
#![deny(missing_docs)]

pub mod batch;
pub mod minhash;
mod near;
mod rocks;
#[doc(hidden)]
pub mod testing;

use rustc_hash::FxHashMap as HashMap;

pub use near::{Cluster, LshIndex, MemoryIndex, NearDedup, MAX_VERIFIED_MEMBERS};
pub use rocks::RocksIndex;

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{DocId, Document, RecordError, Task, Verdict};

/// Drop reasons of the dedup stage.
pub mod reasons {
    use trawl_core::DropReason;
    /// Same normalised text as an earlier document.
    pub const EXACT_DUPLICATE: DropReason = DropReason::new("exact_duplicate");
    /// Similar enough to an earlier document (MinHash LSH, verified).
    pub const NEAR_DUPLICATE: DropReason = DropReason::new("near_duplicate");
}

/// How LSH candidates are confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verify {
    /// True Jaccard similarity of the shingle sets (exact; keeps every kept document's
    /// shingle hashes: 8 bytes per distinct shingle).
    Jaccard,
    /// The fraction of equal signature values (an estimate; 8 bytes per hash function).
    Signature,
    /// No check: sharing a band is enough.
    None,
}

/// The `[dedup]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DedupConfig {
    /// Whether `trawl run` deduplicates.
    pub enabled: bool,
    /// Remove documents whose normalised text equals an earlier one.
    pub exact: bool,
    /// Remove near duplicates (MinHash LSH).
    pub near: bool,
    /// Words per shingle.
    pub shingle_words: usize,
    /// LSH bands.
    pub bands: usize,
    /// Signature rows per band (`bands * rows` hash functions).
    pub rows: usize,
    /// Similarity at or above which a candidate is a duplicate.
    pub threshold: f64,
    /// How candidates are confirmed: `jaccard`, `signature` or `none`.
    pub verify: Verify,
    /// Seed of the shingle hashes (changing it changes every signature).
    pub seed: u64,
    /// Batch phases: buffers beyond this many MiB are written out (signatures phase) so
    /// memory does not grow with the size of an input file. Streaming `trawl dedup`: the
    /// budget of the look-ahead over all its inputs (see [`trawl_core::Task::look_ahead`]).
    pub max_memory_mb: usize,
    /// A local directory holding a persistent LSH index (RocksDB): each run is then
    /// deduplicated against every earlier run that used the same directory (recurring
    /// crawls). Unset: an in-memory index for this run only.
    pub index_dir: Option<String>,
    /// With `index_dir`: nothing is written to the index while its disk has less free space
    /// than this many MiB (the stage stops before the shard is committed, with an error
    /// naming this key; the rerun goes on from the last committed shard). 0: no floor.
    pub min_free_disk_mb: u64,
}

impl Default for DedupConfig {
    fn default() -> Self {
        // 20 bands x 6 rows: P(candidate) = 1 - (1 - J^6)^20 is 0.998 at J = 0.8 and 0.92
        // at 0.7, 0.27 at 0.5; the S-curve's midpoint (1/20)^(1/6) = 0.61 sits below the
        // 0.8 target so recall is high, and verification removes the candidates below it.
        DedupConfig {
            enabled: true,
            exact: true,
            near: true,
            shingle_words: 5,
            bands: 20,
            rows: 6,
            threshold: 0.8,
            verify: Verify::Jaccard,
            seed: 1,
            max_memory_mb: 1024,
            index_dir: None,
            min_free_disk_mb: 256,
        }
    }
}

impl DedupConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, r: &str| Err((format!("dedup.{k}"), r.to_string()));
        if self.shingle_words == 0 {
            return bad("shingle_words", "must be at least 1");
        }
        if self.bands == 0 || self.rows == 0 {
            return bad(
                if self.bands == 0 { "bands" } else { "rows" },
                "must be at least 1",
            );
        }
        if self.bands * self.rows > 1024 {
            return bad("bands", "bands * rows must be at most 1024 hash functions");
        }
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return bad("threshold", "must be in (0, 1]");
        }
        Ok(())
    }

    /// The LSH index this config asks for.
    pub fn open_index(&self) -> Result<Box<dyn LshIndex>, String> {
        Ok(match &self.index_dir {
            Some(d) => Box::new(RocksIndex::open(
                std::path::Path::new(d),
                self.min_free_disk_mb,
            )?),
            None => Box::new(MemoryIndex::default()),
        })
    }

    /// The probability that two documents with Jaccard similarity `j` share a band.
    pub fn candidate_probability(&self, j: f64) -> f64 {
        1.0 - (1.0 - j.powi(self.rows as i32)).powi(self.bands as i32)
    }
}

/// The normalised-text hash used for exact dedup: lowercase, whitespace runs collapsed,
/// leading/trailing whitespace ignored; 128-bit XXH3.
pub fn text_key(text: &str) -> u128 {
    if text.is_ascii() {
        // the common case: normalise into a buffer and hash once
        let mut buf = Vec::with_capacity(text.len());
        // char::is_whitespace on ASCII: the ASCII whitespace plus vertical tab
        for w in text
            .as_bytes()
            .split(|b| b.is_ascii_whitespace() || *b == 0x0B)
            .filter(|w| !w.is_empty())
        {
            if !buf.is_empty() {
                buf.push(b' ');
            }
            buf.extend(w.iter().map(|b| b.to_ascii_lowercase()));
        }
        return xxhash_rust::xxh3::xxh3_128(&buf);
    }
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
        self.seen
            .entry(text_key(&doc.text))
            .or_insert_with(|| doc.id.clone());
    }

    fn process(&mut self, doc: &mut Document) -> Result<Verdict, RecordError> {
        let key = text_key(&doc.text);
        match self.seen.get(&key) {
            Some(owner) if *owner != doc.id => {
                doc.attrs
                    .insert("dedup".into(), json!({ "exact_of": owner.as_str() }));
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
    use crate::testing::survivor_original_copy;
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
        assert_eq!(
            kept.iter().map(|d| d.url.as_str()).collect::<Vec<_>>(),
            vec!["a", "b"]
        );
        assert_eq!(
            stats.stage("exact_dedup").unwrap().dropped["exact_duplicate"],
            2
        );
        let mut d = ExactDedup::default();
        Task::seed(&mut d, &kept[0]);
        let mut again = Document::new("c", "hello world");
        assert_eq!(
            d.process(&mut again).unwrap(),
            Verdict::Drop(reasons::EXACT_DUPLICATE)
        );
        assert_eq!(again.attrs["dedup"]["exact_of"], first.as_str());
        // replaying the owner itself keeps it
        let mut owner = kept[0].clone();
        assert_eq!(d.process(&mut owner).unwrap(), Verdict::Keep);
    }

    #[test]
    fn copies_are_compared_with_the_original_even_when_a_copy_survived() {
        // b arrives first and survives; c is within the threshold of o only
        let docs = survivor_original_copy();
        let task = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
        let (kept, _) = check_stage(Stage::Task(Box::new(task)), docs.clone());
        assert_eq!(
            kept.iter().map(|d| d.url.as_str()).collect::<Vec<_>>(),
            vec!["b"],
            "c is within the threshold of o, which was removed as a copy of b"
        );
        // and a resumed run that registers the removed o makes the same decision
        let mut t = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
        t.seed(&docs[0]);
        t.seed_dropped(&docs[1]);
        let mut c = docs[2].clone();
        assert_eq!(
            t.process(&mut c).unwrap(),
            Verdict::Drop(reasons::NEAR_DUPLICATE)
        );
    }

    #[test]
    fn a_later_original_in_the_shard_links_an_earlier_copy_to_its_cluster() {
        // b, c, o: c is within the threshold of o only, and o comes after it
        let d = survivor_original_copy();
        let (b, o, c) = (d[0].clone(), d[1].clone(), d[2].clone());
        let run = |shards: &[Vec<Document>], prepare: bool| {
            let mut t = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
            let mut out = Vec::new();
            for shard in shards {
                if prepare {
                    t.prepare(shard);
                }
                for doc in shard {
                    let mut doc = doc.clone();
                    let v = t.process(&mut doc).unwrap();
                    out.push((doc.url.clone(), v, doc.attrs.get("dedup").cloned()));
                }
            }
            out
        };
        let near = Verdict::Drop(reasons::NEAR_DUPLICATE);
        // one document at a time, c is written before o links it
        let seq = run(&[vec![b.clone(), c.clone(), o.clone()]], false);
        assert_eq!(seq[1].1, Verdict::Keep);
        // shown the shard first, c joins b's cluster through o
        for shards in [
            vec![vec![b.clone(), c.clone(), o.clone()]],
            // b committed in an earlier shard: the index's document anchors the cluster
            vec![vec![b.clone()], vec![c.clone(), o.clone()]],
        ] {
            let out = run(&shards, true);
            assert_eq!(out[0].1, Verdict::Keep, "{out:?}");
            assert_eq!(out[1].1, near, "{out:?}");
            assert_eq!(out[2].1, near, "{out:?}");
            let attrs = out[1].2.as_ref().unwrap();
            assert_eq!(attrs["near_of"], o.id.as_str());
            assert_eq!(attrs["survivor"], b.id.as_str());
            assert!(attrs["similarity"].as_f64().unwrap() >= 0.8);
        }
        // a copy with no member of its cluster before it survives, whatever comes after
        let out = run(&[vec![c.clone(), o.clone(), b.clone()]], true);
        assert_eq!(out[0].1, Verdict::Keep, "{out:?}");
        assert_eq!((&out[1].1, &out[2].1), (&near, &near), "{out:?}");
        // a resumed run (shard one committed with c and o removed) keeps them in b's cluster:
        // a later copy of o joins it with b as survivor
        let mut t = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
        t.seed(&b);
        let first = run(&[vec![b.clone(), c.clone(), o.clone()]], true);
        for (doc, (_, _, attrs)) in [&c, &o].into_iter().zip(&first[1..]) {
            let mut dropped = doc.clone();
            dropped.attrs.insert("dedup".into(), attrs.clone().unwrap());
            t.seed_dropped(&dropped);
        }
        let mut again = Document::new("o2", o.text.clone());
        assert_eq!(t.process(&mut again).unwrap(), near);
        assert_eq!(again.attrs["dedup"]["survivor"], b.id.as_str());
    }

    #[test]
    fn the_run_wide_look_ahead_links_a_copy_to_an_original_in_a_later_shard() {
        // b, c, o in three shards: c is within the threshold of o only
        let d = survivor_original_copy();
        let shards = [vec![d[0].clone()], vec![d[2].clone()], vec![d[1].clone()]];
        let near = Verdict::Drop(reasons::NEAR_DUPLICATE);
        // `seeded`: shards committed before a resume, registered after the look-ahead
        let run = |budget: Option<usize>, seeded: usize| {
            let mut t = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
            if let Some(b) = budget {
                t.budget = b;
            }
            let looked = shards.iter().all(|s| t.look_ahead(s));
            if looked {
                t.end_look_ahead();
            }
            let mut out = Vec::new();
            for (k, shard) in shards.iter().enumerate() {
                t.prepare(shard);
                for doc in shard {
                    let mut doc = doc.clone();
                    let v = t.process(&mut doc).unwrap();
                    out.push((v, doc.attrs.get("dedup").cloned()));
                }
                if k + 1 == seeded {
                    // what the committed shards left: replay them into a new task
                    let mut r =
                        NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
                    assert!(shards.iter().all(|s| r.look_ahead(s)));
                    r.end_look_ahead();
                    for (doc, (v, attrs)) in shards[..seeded].iter().flatten().zip(&out) {
                        let mut doc = doc.clone();
                        if let Some(a) = attrs {
                            doc.attrs.insert("dedup".into(), a.clone());
                        }
                        match v {
                            Verdict::Keep => r.seed(&doc),
                            _ => r.seed_dropped(&doc),
                        }
                    }
                    t = r;
                }
            }
            (looked, out)
        };
        let (looked, out) = run(None, 0);
        assert!(looked);
        assert_eq!(out[0].0, Verdict::Keep);
        // the survivor knows its cluster: itself and the two copies after it
        assert_eq!(out[0].1.as_ref().unwrap()["cluster_size"], 3);
        assert_eq!((&out[1].0, &out[2].0), (&near, &near), "{out:?}");
        let c = out[1].1.as_ref().unwrap();
        assert_eq!(c["near_of"], d[1].id.as_str());
        assert_eq!(c["survivor"], d[0].id.as_str());
        // resumed after the first or the second shard: the same decisions
        for seeded in [1, 2] {
            assert_eq!(run(None, seeded).1, out, "resumed after {seeded} shards");
        }
        // over the budget, the task declines and looks ahead shard by shard: c survives
        let (looked, out) = run(Some(1000), 0);
        assert!(!looked);
        assert_eq!((&out[1].0, &out[2].0), (&Verdict::Keep, &near), "{out:?}");
        assert!(
            out[0].1.is_none(),
            "no cluster size without the run-wide look-ahead"
        );
    }

    /// An index in which only the first document claims band keys: every later document
    /// meets the survivor as the owner of its bands, as when a removed original's keys
    /// all equal the survivor's.
    struct FirstClaimsAll(MemoryIndex, Option<DocId>);
    impl LshIndex for FirstClaimsAll {
        fn owner(&self, band: u32, key: u64) -> Option<DocId> {
            self.0.owner(band, key)
        }
        fn claim(&mut self, band: u32, key: u64, id: &DocId) {
            if self.1.get_or_insert_with(|| id.clone()) == id {
                self.0.claim(band, key, id);
            }
        }
        fn store(&mut self, id: &DocId, shingles: Vec<u64>, sig: Vec<u64>) {
            self.0.store(id, shingles, sig)
        }
        fn load(&self, id: &DocId) -> Option<(Vec<u64>, Vec<u64>)> {
            self.0.load(id)
        }
        fn cluster(&self, id: &DocId) -> Option<Cluster> {
            self.0.cluster(id)
        }
        fn join(&mut self, id: &DocId, of: &DocId) {
            self.0.join(id, of)
        }
    }

    /// An index whose storage fails at its second document (a full disk).
    struct FailsAtSecond(MemoryIndex, u32);
    impl LshIndex for FailsAtSecond {
        fn owner(&self, band: u32, key: u64) -> Option<DocId> {
            self.0.owner(band, key)
        }
        fn claim(&mut self, band: u32, key: u64, id: &DocId) {
            self.0.claim(band, key, id)
        }
        fn store(&mut self, id: &DocId, shingles: Vec<u64>, sig: Vec<u64>) {
            self.1 += 1;
            self.0.store(id, shingles, sig)
        }
        fn load(&self, id: &DocId) -> Option<(Vec<u64>, Vec<u64>)> {
            self.0.load(id)
        }
        fn cluster(&self, id: &DocId) -> Option<Cluster> {
            self.0.cluster(id)
        }
        fn join(&mut self, id: &DocId, of: &DocId) {
            self.0.join(id, of)
        }
        fn fault(&self) -> Option<String> {
            (self.1 >= 2).then(|| "writing the dedup index failed: no space".to_string())
        }
    }

    #[test]
    fn an_index_storage_failure_is_the_chains_fault_not_a_record_error() {
        let index = FailsAtSecond(MemoryIndex::default(), 0);
        let near = NearDedup::new(&DedupConfig::default(), Box::new(index));
        let mut chain = trawl_core::Chain::new("dedup", vec![Stage::Task(Box::new(near))]);
        assert_eq!(chain.fault(), None);
        for d in survivor_original_copy() {
            chain.process(d);
        }
        // the shard's maker stops the stage with it; no record was counted as an error
        assert_eq!(
            chain.fault().as_deref(),
            Some("near_dedup: writing the dedup index failed: no space")
        );
        assert!(chain.stats().stage("near_dedup").unwrap().errors.is_empty());
    }

    #[test]
    fn a_copy_is_compared_with_every_member_of_a_candidate_cluster() {
        let docs = survivor_original_copy();
        let (b, o) = (docs[0].id.clone(), docs[1].id.clone());
        let index = FirstClaimsAll(MemoryIndex::default(), None);
        let mut t = NearDedup::new(&DedupConfig::default(), Box::new(index));
        let mut out = Vec::new();
        for mut d in docs {
            let v = t.process(&mut d).unwrap();
            out.push((v, d));
        }
        assert_eq!(out[0].0, Verdict::Keep);
        assert_eq!(out[1].0, Verdict::Drop(reasons::NEAR_DUPLICATE));
        // c's only band owner is b (J about 0.66), but o, in b's cluster, is within 0.8
        assert_eq!(out[2].0, Verdict::Drop(reasons::NEAR_DUPLICATE));
        let attrs = &out[2].1.attrs["dedup"];
        assert_eq!(attrs["near_of"], o.as_str());
        assert_eq!(attrs["survivor"], b.as_str());
        let c = t.index.cluster(&b).expect("b has a cluster");
        assert_eq!((c.root, c.size, c.members.len()), (b.clone(), 3, 3));
    }

    #[test]
    fn clusters_count_beyond_the_members_kept_for_verification() {
        let mut idx = MemoryIndex::default();
        let root = DocId::from_external("r".to_string());
        for i in 0..40 {
            let id = DocId::from_external(format!("m{i}"));
            idx.join(&id, &root);
            idx.join(&id, &root); // a replayed shard joins twice: no change
        }
        let c = idx
            .cluster(&DocId::from_external("m39".to_string()))
            .unwrap();
        assert_eq!(c.root, root);
        assert_eq!(c.size, 41);
        assert_eq!(c.members.len(), MAX_VERIFIED_MEMBERS);
        assert!(idx
            .cluster(&DocId::from_external("other".to_string()))
            .is_none());
    }

    #[test]
    fn near_duplicates_are_removed_and_record_their_owner() {
        let base: Vec<String> = (0..300)
            .map(|i| crate::testing::word((i * 7919) % 2000))
            .collect();
        let a = base.join(" ");
        let mut v = base.clone();
        v[150] = "edited".into();
        let near = v.join(" ");
        let other: Vec<String> = (0..300)
            .map(|i| format!("x{}", crate::testing::word((i * 104_729) % 3000)))
            .collect();
        let docs = vec![
            Document::new("a", a),
            Document::new("b", near),
            Document::new("c", other.join(" ")),
            Document::new("d", ""),
            Document::new("e", "one"),
        ];
        let first = docs[0].id.clone();
        let task = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
        let (kept, stats) = check_stage(Stage::Task(Box::new(task)), docs);
        assert_eq!(
            kept.iter().map(|d| d.url.as_str()).collect::<Vec<_>>(),
            vec!["a", "c", "d", "e"]
        );
        assert_eq!(
            stats.stage("near_dedup").unwrap().dropped["near_duplicate"],
            1
        );
        let _ = first;
    }

    #[test]
    fn rocksdb_index_dedups_a_second_batch_against_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DedupConfig {
            index_dir: Some(dir.path().join("idx").display().to_string()),
            ..Default::default()
        };
        let text: Vec<String> = (0..300)
            .map(|i| crate::testing::word((i * 7919) % 2000))
            .collect();
        let first = Document::new("https://a/1", text.join(" "));
        {
            let mut t = NearDedup::new(&cfg, cfg.open_index().unwrap());
            assert_eq!(t.process(&mut first.clone()).unwrap(), Verdict::Keep);
        }
        // a later batch, a new process: the index on disk remembers
        let mut v = text.clone();
        v[10] = "edited".into();
        let mut second = Document::new("https://b/1", v.join(" "));
        let mut t = NearDedup::new(&cfg, cfg.open_index().unwrap());
        assert_eq!(
            t.process(&mut second).unwrap(),
            Verdict::Drop(reasons::NEAR_DUPLICATE)
        );
        assert_eq!(second.attrs["dedup"]["near_of"], first.id.as_str());
        assert_eq!(
            t.index.cluster(&first.id).map(|c| (c.size, c.members)),
            Some((2, vec![first.id.clone(), second.id.clone()]))
        );
        // a replayed shard changes no cluster
        t.index.join(&second.id, &first.id);
        assert_eq!(t.index.cluster(&second.id).map(|c| c.size), Some(2));
        // replaying the first batch keeps its document (it owns its entries)
        assert_eq!(t.process(&mut first.clone()).unwrap(), Verdict::Keep);
        drop(t);
        let bad = DedupConfig {
            index_dir: Some("/proc/no/such/dir".into()),
            ..Default::default()
        };
        assert!(bad.open_index().is_err());
    }

    #[test]
    fn a_dedup_index_below_its_free_space_floor_writes_nothing_and_faults_naming_the_keys() {
        let dir = tempfile::tempdir().unwrap();
        let idx = dir.path().join("idx").display().to_string();
        let at = |floor: u64| DedupConfig {
            index_dir: Some(idx.clone()),
            min_free_disk_mb: floor,
            ..Default::default()
        };
        let id = DocId::from_external("doc-1");
        // a floor no disk has room for: a petabyte
        let mut full = at(1 << 30).open_index().unwrap();
        full.claim(3, 77, &id);
        full.store(&id, vec![1, 2], vec![3, 4]);
        full.commit();
        let fault = full.fault().expect("the stage is told");
        for part in [
            "dedup.min_free_disk_mb = 1073741824",
            "dedup.index_dir",
            idx.as_str(),
        ] {
            assert!(fault.contains(part), "{part} not in: {fault}");
        }
        drop(full);
        let room = at(0).open_index().unwrap();
        assert!(room.owner(3, 77).is_none() && room.load(&id).is_none());
    }

    #[test]
    fn the_rocksdb_index_names_the_survivor_of_the_owners_cluster() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = DedupConfig {
            index_dir: Some(dir.path().join("idx").display().to_string()),
            ..Default::default()
        };
        let docs = survivor_original_copy();
        let mut t = NearDedup::new(&cfg, cfg.open_index().unwrap());
        let mut out = Vec::new();
        for mut d in docs.clone() {
            let v = t.process(&mut d).unwrap();
            out.push((v, d));
        }
        assert_eq!(out[2].0, Verdict::Drop(reasons::NEAR_DUPLICATE));
        // whichever member c matched, its cluster's survivor is b
        assert_eq!(out[2].1.attrs["dedup"]["survivor"], docs[0].id.as_str());
    }

    #[test]
    fn cjk_near_duplicates() {
        let a = "我们今天去公园散步，看到很多人在湖边钓鱼，孩子们在草地上放风筝，老人在树下下棋聊天，天气非常好，阳光明媚，微风轻轻吹过，大家都很开心。".repeat(3);
        let b = a.replacen("钓鱼", "游泳", 1);
        let c = "东京的地铁系统非常复杂但是很准时，每天有数百万人乘坐电车上班上学，车站里总是人来人往。".repeat(3);
        let task = NearDedup::new(&DedupConfig::default(), Box::new(MemoryIndex::default()));
        let (kept, stats) = check_stage(
            Stage::Task(Box::new(task)),
            vec![
                Document::new("a", a),
                Document::new("b", b),
                Document::new("c", c),
            ],
        );
        assert_eq!(
            kept.iter().map(|d| d.url.as_str()).collect::<Vec<_>>(),
            vec!["a", "c"]
        );
        assert_eq!(
            stats.stage("near_dedup").unwrap().dropped["near_duplicate"],
            1
        );
    }

    #[test]
    fn s_curve_of_the_default() {
        let c = DedupConfig::default();
        assert!(c.candidate_probability(0.8) > 0.997);
        assert!(c.candidate_probability(0.3) < 0.02);
    }

    #[test]
    fn key_normalisation() {
        assert_eq!(text_key(" a  b "), text_key("A B"));
        assert_ne!(text_key("ab"), text_key("a b"));
        // the ASCII fast path and the general path agree
        assert_eq!(text_key("Hello  World é"), text_key("hello world É"));
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(b"hello world");
        assert_eq!(text_key(" Hello\tWORLD "), h.digest128());
        assert_eq!(text_key("a\u{b}b"), text_key("a b"));
    }
}
