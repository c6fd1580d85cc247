//! Streaming near-duplicate removal with MinHash LSH.

use rustc_hash::FxHashMap as HashMap;

use serde_json::json;
use trawl_core::{DocId, Document, RecordError, Task, Verdict};

use crate::minhash::{band_key, estimate, jaccard, MinHasher};
use crate::{reasons, DedupConfig, Verify};

/// Where band owners and (for verification) shingle sets live.
pub trait LshIndex: Send {
    /// The document owning a band key, if any.
    fn owner(&self, band: u32, key: u64) -> Option<DocId>;
    /// Sets the owner of a band key if it has none (first seen wins).
    fn claim(&mut self, band: u32, key: u64, id: &DocId);
    /// Stores what verification needs about a kept document.
    fn store(&mut self, id: &DocId, shingles: &[u64], sig: &[u64]);
    /// What was stored about a document: (shingles, signature).
    fn load(&self, id: &DocId) -> Option<(Vec<u64>, Vec<u64>)>;
    /// The cluster `id` belongs to: its earliest member and the members kept for
    /// verification (at most [`MAX_VERIFIED_MEMBERS`], the earliest first). `None` when
    /// the document joined no cluster (it is then a cluster of one).
    fn cluster(&self, id: &DocId) -> Option<Cluster>;
    /// Records that `id` (a removed duplicate) joined the cluster of `of`. Joining twice
    /// (a replayed shard) changes nothing.
    fn join(&mut self, id: &DocId, of: &DocId);
    /// Makes pending writes durable (called after each document is inserted).
    fn commit(&mut self) {}
}

/// Members of one cluster kept for verification: a copy is compared with up to this many
/// members of each candidate's cluster (the cluster's size is counted beyond it).
pub const MAX_VERIFIED_MEMBERS: usize = 16;

/// A duplicate cluster as the index keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// The surviving (earliest) document.
    pub root: DocId,
    /// Documents in the cluster, the survivor included.
    pub size: u64,
    /// The members verification compares with (the survivor first).
    pub members: Vec<DocId>,
}

/// Shingle hashes and signature of a kept document.
type Stored = (Box<[u64]>, Box<[u64]>);

/// An index in memory, for one run. Documents are numbered on first sight, so band entries
/// are small integers and a band lookup allocates nothing unless it hits.
#[derive(Debug, Default)]
pub struct MemoryIndex {
    bands: HashMap<(u32, u64), u32>,
    ids: Vec<DocId>,
    numbers: HashMap<DocId, u32>,
    docs: HashMap<u32, Stored>,
    /// document -> the root of its cluster (documents in clusters of two or more)
    roots: HashMap<u32, u32>,
    /// root -> (size, members kept for verification)
    clusters: HashMap<u32, (u64, Vec<u32>)>,
}

impl MemoryIndex {
    fn number(&mut self, id: &DocId) -> u32 {
        if let Some(n) = self.numbers.get(id) {
            return *n;
        }
        let n = self.ids.len() as u32;
        self.ids.push(id.clone());
        self.numbers.insert(id.clone(), n);
        n
    }
}

impl LshIndex for MemoryIndex {
    fn owner(&self, band: u32, key: u64) -> Option<DocId> {
        self.bands
            .get(&(band, key))
            .map(|n| self.ids[*n as usize].clone())
    }
    fn claim(&mut self, band: u32, key: u64, id: &DocId) {
        if !self.bands.contains_key(&(band, key)) {
            let n = self.number(id);
            self.bands.insert((band, key), n);
        }
    }
    fn store(&mut self, id: &DocId, shingles: &[u64], sig: &[u64]) {
        let n = self.number(id);
        self.docs.insert(n, (shingles.into(), sig.into()));
    }
    fn load(&self, id: &DocId) -> Option<(Vec<u64>, Vec<u64>)> {
        self.numbers
            .get(id)
            .and_then(|n| self.docs.get(n))
            .map(|(a, b)| (a.to_vec(), b.to_vec()))
    }
    fn cluster(&self, id: &DocId) -> Option<Cluster> {
        let root = *self.roots.get(self.numbers.get(id)?)?;
        let (size, members) = &self.clusters[&root];
        Some(Cluster {
            root: self.ids[root as usize].clone(),
            size: *size,
            members: members
                .iter()
                .map(|m| self.ids[*m as usize].clone())
                .collect(),
        })
    }
    fn join(&mut self, id: &DocId, of: &DocId) {
        let n = self.number(id);
        if self.roots.contains_key(&n) {
            return;
        }
        let o = self.number(of);
        let root = *self.roots.entry(o).or_insert(o);
        let (size, members) = self.clusters.entry(root).or_insert_with(|| (1, vec![root]));
        *size += 1;
        if members.len() < MAX_VERIFIED_MEMBERS {
            members.push(n);
        }
        self.roots.insert(n, root);
    }
}

/// The near-dedup task: a document is removed when an earlier document (kept or itself
/// removed) shares an LSH band with it and their similarity (true Jaccard on shingles, or
/// the signature estimate, per `verify`) reaches the threshold. The earliest document
/// survives; the removed one records the DocId it duplicates and the similarity in
/// `attrs.dedup`. Removed documents stay in the index: when a copy came first and survived,
/// the original it was made from still catches the other copies within the threshold of it.
pub struct NearDedup {
    hasher: MinHasher,
    pub(crate) index: Box<dyn LshIndex>,
    bands: usize,
    rows: usize,
    threshold: f64,
    verify: Verify,
}

impl std::fmt::Debug for NearDedup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NearDedup({}x{})", self.bands, self.rows)
    }
}

impl NearDedup {
    /// A task for this config with the given index.
    pub fn new(cfg: &DedupConfig, index: Box<dyn LshIndex>) -> NearDedup {
        NearDedup {
            hasher: MinHasher::new(cfg.shingle_words, cfg.bands * cfg.rows, cfg.seed),
            index,
            bands: cfg.bands,
            rows: cfg.rows,
            threshold: cfg.threshold,
            verify: cfg.verify,
        }
    }

    fn insert(&mut self, id: &DocId) {
        for b in 0..self.bands {
            let k = band_key(&self.hasher.sig, b, self.rows);
            self.index.claim(b as u32, k, id);
        }
        if self.verify != Verify::None {
            let shingles = if self.verify == Verify::Jaccard {
                self.hasher.shingles.as_slice()
            } else {
                &[]
            };
            self.index.store(id, shingles, &self.hasher.sig);
        }
        self.index.commit();
    }

    /// The best earlier document this one duplicates, with the similarity. Candidates are
    /// the owners of the document's band keys and the members of their clusters: a copy
    /// within the threshold of any member of a cluster (the original that was itself removed
    /// as a copy of an earlier survivor, say) belongs to it.
    fn find(&mut self, id: &DocId) -> Option<(DocId, f64)> {
        let mut owners: Vec<DocId> = Vec::new();
        for b in 0..self.bands {
            let k = band_key(&self.hasher.sig, b, self.rows);
            if let Some(o) = self.index.owner(b as u32, k) {
                if o != *id && !owners.contains(&o) {
                    owners.push(o);
                }
            }
        }
        let mut cands: Vec<DocId> = Vec::new();
        for o in owners {
            let members = self.index.cluster(&o).map(|c| c.members);
            for m in members.into_iter().flatten().chain(std::iter::once(o)) {
                if m != *id && !cands.contains(&m) {
                    cands.push(m);
                }
            }
        }
        let mut best: Option<(DocId, f64)> = None;
        for c in cands {
            let sim = match self.verify {
                Verify::None => 1.0,
                Verify::Signature => self
                    .index
                    .load(&c)
                    .map_or(0.0, |(_, sig)| estimate(&self.hasher.sig, &sig)),
                Verify::Jaccard => self
                    .index
                    .load(&c)
                    .map_or(0.0, |(sh, _)| jaccard(&self.hasher.shingles, &sh)),
            };
            if sim >= self.threshold
                && best
                    .as_ref()
                    .is_none_or(|(bid, bs)| sim > *bs || (sim == *bs && c < *bid))
            {
                best = Some((c, sim));
            }
        }
        best
    }
}

impl Task for NearDedup {
    fn name(&self) -> &'static str {
        "near_dedup"
    }

    fn seed(&mut self, kept: &Document) {
        self.hasher.compute(&kept.text);
        self.insert(&kept.id);
    }

    fn seed_dropped(&mut self, dropped: &Document) {
        self.seed(dropped);
        // a resumed run rebuilds the clusters from the exclusion records
        if let Some(of) = dropped
            .attrs
            .get("dedup")
            .and_then(|d| d.get("near_of"))
            .and_then(|v| v.as_str())
        {
            self.index
                .join(&dropped.id, &DocId::from_external(of.to_string()));
            self.index.commit();
        }
    }

    fn process(&mut self, doc: &mut Document) -> Result<Verdict, RecordError> {
        self.hasher.compute(&doc.text);
        match self.find(&doc.id) {
            Some((owner, sim)) => {
                // the survivor of the owner's cluster (the owner itself when it has none),
                // read before joining: a persistent index sees the join only once committed
                let survivor = self
                    .index
                    .cluster(&owner)
                    .map_or_else(|| owner.clone(), |c| c.root);
                // a removed document stays a reference: a later copy may be within the
                // threshold of it (the original) and not of the copy that survived
                self.index.join(&doc.id, &owner);
                doc.attrs.insert(
                    "dedup".into(),
                    json!({
                        "near_of": owner.as_str(),
                        "similarity": (sim * 1000.0).round() / 1000.0,
                        "survivor": survivor.as_str(),
                    }),
                );
                self.insert(&doc.id);
                Ok(Verdict::Drop(reasons::NEAR_DUPLICATE))
            }
            None => {
                self.insert(&doc.id);
                Ok(Verdict::Keep)
            }
        }
    }
}
