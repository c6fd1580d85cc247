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
    /// Stores what verification needs about a document (taken, not copied: what is in
    /// memory moves into the index).
    fn store(&mut self, id: &DocId, shingles: Vec<u64>, sig: Vec<u64>);
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
    /// A failure of the index's storage: after one, its answers are not to be trusted and
    /// the stage must stop (see [`trawl_core::Task::fault`]).
    fn fault(&self) -> Option<String> {
        None
    }
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
    fn store(&mut self, id: &DocId, shingles: Vec<u64>, sig: Vec<u64>) {
        let n = self.number(id);
        self.docs
            .insert(n, (shingles.into_boxed_slice(), sig.into_boxed_slice()));
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
    /// What [`Task::prepare`] found in the current shard, or [`Task::look_ahead`] in the run.
    ahead: Ahead,
    /// Bytes the run-wide look-ahead may hold (`max_memory_mb`).
    pub(crate) budget: usize,
}

/// A document's text hash, shingles and signature.
type Hashed = (u64, Vec<u64>, Vec<u64>);

/// The similarity of two documents' (shingles, signature) under `verify`.
fn similarity(verify: Verify, a: (&[u64], &[u64]), b: (&[u64], &[u64])) -> f64 {
    match verify {
        Verify::None => 1.0,
        Verify::Signature => estimate(a.1, b.1),
        Verify::Jaccard => jaccard(a.0, b.0),
    }
}

/// The current shard's documents as a graph: an edge per pair within the threshold (shard
/// documents sharing a band, and shard documents in components of two or more with the
/// index's documents), components by union-find. Lets a document that no earlier document
/// is within the threshold of still join the cluster it belongs to through a later one.
#[derive(Debug, Default)]
struct Ahead {
    /// shard document -> its position (first occurrence)
    pos: HashMap<DocId, usize>,
    /// union-find parents: shard documents `0..n`, then the index's documents
    parent: Vec<usize>,
    /// the index's documents linked to the shard (node `n + i`)
    external: Vec<DocId>,
    /// per shard document: its most similar document within the threshold (any position)
    best: Vec<Option<(DocId, f64)>>,
    /// component root -> its members (components of two or more only)
    members: HashMap<usize, Vec<usize>>,
    /// per shard document processed so far: the survivor of its cluster (itself if kept)
    decided: Vec<Option<DocId>>,
    /// per shard document: the shingles and signature computed in `prepare`, with a hash of
    /// the text they were computed from, handed to `process` instead of hashing again
    cache: Vec<Option<Hashed>>,
    /// per shard document: its id
    ids: Vec<DocId>,
    /// (band, key, position) of the documents added, until the look-ahead is finished
    keys: Vec<(u32, u64, usize)>,
    /// about what the look-ahead holds, in bytes (checked against the budget)
    bytes: usize,
    /// "the shard" is the whole run (see [`Task::look_ahead`])
    run_wide: bool,
    /// the run did not fit the budget: per-shard look-ahead only
    declined: bool,
}

impl Ahead {
    fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            // the smaller node stays root: deterministic whatever the pair order
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent[hi] = lo;
        }
    }

    fn offer(&mut self, at: usize, other: &DocId, sim: f64) {
        let b = &mut self.best[at];
        if b.as_ref()
            .is_none_or(|(id, s)| sim > *s || (sim == *s && other < id))
        {
            *b = Some((other.clone(), sim));
        }
    }
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
            ahead: Ahead::default(),
            budget: cfg.max_memory_mb.max(1) << 20,
        }
    }

    /// The survivor of the cluster `id` belongs to (`id` itself when it joined none).
    fn survivor_of(&self, id: DocId) -> DocId {
        self.index.cluster(&id).map_or(id, |c| c.root)
    }

    /// The earlier documents of `id`'s component that make it a duplicate although none of
    /// them is within the threshold of it: an index document, or a shard document already
    /// processed; the survivor of the earliest (index documents first).
    fn anchor(&mut self, id: &DocId) -> Option<DocId> {
        let &at = self.ahead.pos.get(id)?;
        let root = self.ahead.root(at);
        let members = self.ahead.members.get(&root)?.clone();
        let n = self.ahead.best.len();
        let mut externals: Vec<&DocId> = members
            .iter()
            .filter(|m| **m >= n)
            .map(|m| &self.ahead.external[*m - n])
            .collect();
        externals.sort();
        if let Some(e) = externals.first() {
            return Some(self.survivor_of((*e).clone()));
        }
        members
            .iter()
            .filter(|m| **m < at)
            .find_map(|m| self.ahead.decided[*m].clone())
    }

    /// Hashes documents for the look-ahead, in order: positions, band keys, shingles and
    /// signatures (kept for `process`), and the bytes all of it holds.
    fn ahead_add(&mut self, docs: &[Document]) {
        let a = &mut self.ahead;
        a.keys.reserve(docs.len() * self.bands);
        for d in docs {
            let i = a.ids.len();
            a.pos.entry(d.id.clone()).or_insert(i);
            self.hasher.compute(&d.text);
            for b in 0..self.bands {
                a.keys
                    .push((b as u32, band_key(&self.hasher.sig, b, self.rows), i));
            }
            // copies of exactly their length: the hasher's buffers stay for the next document
            // (taking them would keep every document's growth slack until it is processed)
            let (shingles, sig) = (self.hasher.shingles.clone(), self.hasher.sig.clone());
            // shingles, signature, band keys, the id (twice) and the per-document vectors
            a.bytes +=
                8 * (shingles.len() + sig.len()) + 16 * self.bands + 2 * d.id.as_str().len() + 160;
            a.cache.push(Some((
                xxhash_rust::xxh3::xxh3_64(d.text.as_bytes()),
                shingles,
                sig,
            )));
            a.ids.push(d.id.clone());
        }
    }

    /// Links the documents added to the look-ahead: pairs within the threshold among them
    /// (sharing a band), and with the index's documents for those in such pairs; then the
    /// components.
    fn ahead_finish(&mut self) {
        let n = self.ahead.ids.len();
        let a = &mut self.ahead;
        a.parent = (0..n).collect();
        a.best = vec![None; n];
        a.decided = vec![None; n];
        // (band, key, position) of every document, sorted: a bucket is a run of equal keys
        let mut keys = std::mem::take(&mut a.keys);
        keys.sort_unstable();
        // pairs among them: each document with up to MAX_VERIFIED_MEMBERS earlier members of
        // every bucket it is in
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for bucket in keys.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            for (k, &(_, _, j)) in bucket.iter().enumerate().skip(1) {
                for &(_, _, i) in &bucket[k.saturating_sub(MAX_VERIFIED_MEMBERS)..k] {
                    if i != j {
                        pairs.push((i, j));
                    }
                }
            }
        }
        drop(keys);
        pairs.sort_unstable();
        pairs.dedup();
        let verify = self.verify;
        for (i, j) in pairs {
            let sim = {
                let c = &self.ahead.cache;
                let (_, shi, sgi) = c[i].as_ref().expect("cached in ahead_add");
                let (_, shj, sgj) = c[j].as_ref().expect("cached in ahead_add");
                similarity(verify, (shi, sgi), (shj, sgj))
            };
            if sim >= self.threshold {
                let a = &mut self.ahead;
                a.union(i, j);
                let (idi, idj) = (a.ids[i].clone(), a.ids[j].clone());
                a.offer(i, &idj, sim);
                a.offer(j, &idi, sim);
            }
        }
        // documents in components of two or more: their links to the index's documents
        // (documents of this look-ahead left in a persistent index by an interrupted attempt
        // are not the index's)
        let linked: Vec<usize> = (0..n).filter(|&i| self.ahead.best[i].is_some()).collect();
        let mut external_of: HashMap<DocId, usize> = HashMap::default();
        for i in linked {
            let found: Vec<(DocId, f64)> = {
                let (_, sh, sig) = self.ahead.cache[i].as_ref().expect("cached in ahead_add");
                let mut cands = self.candidates(sig, |m| self.ahead.pos.contains_key(m));
                cands.sort();
                cands
                    .into_iter()
                    .map(|c| {
                        let sim = self.similarity_to(&c, sh, sig);
                        (c, sim)
                    })
                    .filter(|(_, sim)| *sim >= self.threshold)
                    .collect()
            };
            for (c, sim) in found {
                let a = &mut self.ahead;
                let node = *external_of.entry(c.clone()).or_insert_with(|| {
                    a.external.push(c.clone());
                    a.parent.push(a.parent.len());
                    a.parent.len() - 1
                });
                a.union(i, node);
                a.offer(i, &c, sim);
            }
        }
        let a = &mut self.ahead;
        for x in 0..a.parent.len() {
            let r = a.root(x);
            a.members.entry(r).or_default().push(x);
        }
        a.members.retain(|_, m| m.len() > 1);
    }

    /// A committed document of a resumed run, registered while the run-wide look-ahead is
    /// on: what it was decided, so later documents of its component anchor on it as in the
    /// uninterrupted run.
    fn ahead_seeded(&mut self, id: &DocId, survivor: DocId) {
        if !self.ahead.run_wide {
            return;
        }
        if let Some(&i) = self.ahead.pos.get(id) {
            self.ahead.decided[i] = Some(survivor);
            self.ahead.cache[i] = None;
        }
    }

    fn insert(&mut self, id: &DocId) {
        for b in 0..self.bands {
            let k = band_key(&self.hasher.sig, b, self.rows);
            self.index.claim(b as u32, k, id);
        }
        // what verification reads: the shingles (moved into the index, at their length) for
        // exact Jaccard, the signature for the estimate
        match self.verify {
            Verify::Jaccard => {
                let mut shingles = std::mem::take(&mut self.hasher.shingles);
                shingles.shrink_to_fit();
                self.index.store(id, shingles, Vec::new());
            }
            Verify::Signature => self.index.store(id, Vec::new(), self.hasher.sig.clone()),
            Verify::None => {}
        }
        self.index.commit();
    }

    /// The best earlier document this one duplicates, with the similarity. Candidates are
    /// the owners of the document's band keys and the members of their clusters: a copy
    /// within the threshold of any member of a cluster (the original that was itself removed
    /// as a copy of an earlier survivor, say) belongs to it.
    fn find(&mut self, id: &DocId) -> Option<(DocId, f64)> {
        let cands = self.candidates(&self.hasher.sig, |m| m == id);
        let mut best: Option<(DocId, f64)> = None;
        for c in cands {
            let sim = self.similarity_to(&c, &self.hasher.shingles, &self.hasher.sig);
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

    /// The index's documents a signature meets: the owners of its band keys and the
    /// members of their clusters, without those `skip` names, each once.
    fn candidates(&self, sig: &[u64], skip: impl Fn(&DocId) -> bool) -> Vec<DocId> {
        let mut owners: Vec<DocId> = Vec::new();
        for b in 0..self.bands {
            let k = band_key(sig, b, self.rows);
            if let Some(o) = self.index.owner(b as u32, k) {
                if !skip(&o) && !owners.contains(&o) {
                    owners.push(o);
                }
            }
        }
        let mut cands: Vec<DocId> = Vec::new();
        for o in owners {
            let members = self.index.cluster(&o).map(|c| c.members);
            for m in members.into_iter().flatten().chain(std::iter::once(o)) {
                if !skip(&m) && !cands.contains(&m) {
                    cands.push(m);
                }
            }
        }
        cands
    }

    /// The similarity of a document of the index to the given shingles and signature,
    /// under `verify` (0 when the index has nothing stored for it).
    fn similarity_to(&self, c: &DocId, shingles: &[u64], sig: &[u64]) -> f64 {
        match self.verify {
            Verify::None => 1.0,
            _ => self.index.load(c).map_or(0.0, |(csh, csig)| {
                similarity(self.verify, (shingles, sig), (&csh, &csig))
            }),
        }
    }
}

impl Task for NearDedup {
    fn name(&self) -> &'static str {
        "near_dedup"
    }

    fn fault(&self) -> Option<String> {
        self.index.fault()
    }

    fn seed(&mut self, kept: &Document) {
        self.hasher.compute(&kept.text);
        self.insert(&kept.id);
        self.ahead_seeded(&kept.id, kept.id.clone());
    }

    fn seed_dropped(&mut self, dropped: &Document) {
        self.seed(dropped);
        // a resumed run rebuilds the clusters from the exclusion records
        // into the survivor's cluster (the document it names as `near_of` may come later in
        // its shard and not be in the index yet)
        let dedup = dropped.attrs.get("dedup");
        if let Some(of) = dedup
            .and_then(|d| d.get("survivor"))
            .or_else(|| dedup.and_then(|d| d.get("near_of")))
            .and_then(|v| v.as_str())
        {
            let of = DocId::from_external(of.to_string());
            self.index.join(&dropped.id, &of);
            self.index.commit();
            let survivor = self.survivor_of(of);
            self.ahead_seeded(&dropped.id, survivor);
        }
    }

    fn prepare(&mut self, shard: &[Document]) {
        if self.ahead.run_wide {
            if shard.iter().all(|d| self.ahead.pos.contains_key(&d.id)) {
                return;
            }
            tracing::warn!(
                "near dedup: a shard the run-wide look-ahead did not see; looking ahead over it alone"
            );
        }
        self.ahead = Ahead::default();
        if shard.len() < 2 {
            return;
        }
        self.ahead_add(shard);
        self.ahead_finish();
    }

    fn look_ahead(&mut self, shard: &[Document]) -> bool {
        if self.ahead.declined {
            return false;
        }
        if !self.ahead.run_wide {
            self.ahead = Ahead {
                run_wide: true,
                ..Ahead::default()
            };
        }
        self.ahead_add(shard);
        if self.ahead.bytes > self.budget {
            tracing::info!(
                documents = self.ahead.ids.len(),
                budget_mb = self.budget >> 20,
                "near dedup: the run does not fit the look-ahead budget (dedup.max_memory_mb); looking ahead shard by shard"
            );
            self.ahead = Ahead {
                declined: true,
                ..Ahead::default()
            };
            return false;
        }
        true
    }

    fn end_look_ahead(&mut self) {
        if self.ahead.run_wide {
            tracing::debug!(
                documents = self.ahead.ids.len(),
                mb = self.ahead.bytes >> 20,
                "near dedup: run-wide look-ahead"
            );
            self.ahead_finish();
        } else {
            self.ahead = Ahead::default();
        }
    }

    fn process(&mut self, doc: &mut Document) -> Result<Verdict, RecordError> {
        let at = self.ahead.pos.get(&doc.id).copied();
        let cached = at
            .and_then(|i| self.ahead.cache[i].take())
            .filter(|(h, _, _)| *h == xxhash_rust::xxh3::xxh3_64(doc.text.as_bytes()));
        match cached {
            Some((_, shingles, sig)) => {
                self.hasher.shingles = shingles;
                self.hasher.sig = sig;
            }
            None => self.hasher.compute(&doc.text),
        }
        let (verdict, survivor) = self.decide(doc);
        if let Some(i) = at {
            self.ahead.decided[i] = Some(survivor);
        }
        Ok(verdict)
    }
}

impl NearDedup {
    /// The decision for a document whose shingles and signature are in the hasher, and the
    /// survivor of its cluster (the document itself when kept).
    fn decide(&mut self, doc: &mut Document) -> (Verdict, DocId) {
        if let Some((owner, sim)) = self.find(&doc.id) {
            // read before joining: a persistent index sees the join only once committed
            let survivor = self.survivor_of(owner.clone());
            // a removed document stays a reference: a later copy may be within the
            // threshold of it (the original) and not of the copy that survived
            self.index.join(&doc.id, &owner);
            return (self.remove(doc, &owner, sim, &survivor), survivor);
        }
        // no earlier document within the threshold; a later one of this shard may still
        // link it to an earlier member of its cluster
        if let Some(survivor) = self.anchor(&doc.id) {
            let at = self.ahead.pos[&doc.id];
            if let Some((near, sim)) = self.ahead.best[at].clone() {
                self.index.join(&doc.id, &survivor);
                return (self.remove(doc, &near, sim, &survivor), survivor);
            }
        }
        self.insert(&doc.id);
        if let Some(size) = self.ahead_cluster_size(&doc.id) {
            doc.attrs
                .insert("dedup".into(), json!({ "cluster_size": size }));
        }
        (Verdict::Keep, doc.id.clone())
    }

    /// With the run-wide look-ahead, a survivor's cluster size: the documents of the run in
    /// its component (itself and its copies anywhere in the run, exact copies included).
    fn ahead_cluster_size(&mut self, id: &DocId) -> Option<u64> {
        if !self.ahead.run_wide {
            return None;
        }
        let &at = self.ahead.pos.get(id)?;
        let root = self.ahead.root(at);
        let n = self.ahead.ids.len();
        Some(
            self.ahead
                .members
                .get(&root)
                .map_or(1, |m| m.iter().filter(|x| **x < n).count()) as u64,
        )
    }

    /// Records why `doc` is removed and keeps it in the index.
    fn remove(&mut self, doc: &mut Document, near: &DocId, sim: f64, survivor: &DocId) -> Verdict {
        doc.attrs.insert(
            "dedup".into(),
            json!({
                "near_of": near.as_str(),
                "similarity": (sim * 1000.0).round() / 1000.0,
                "survivor": survivor.as_str(),
            }),
        );
        self.insert(&doc.id);
        Verdict::Drop(reasons::NEAR_DUPLICATE)
    }
}
