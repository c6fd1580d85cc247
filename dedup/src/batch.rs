//! Sharded batch near-dedup for many machines, in four phases that share only object
//! storage. Every phase takes `--shard i/n`, and outputs are named after inputs or bands,
//! never after workers, so each phase may run with a different number of workers:
//!
//! 1. **signatures** (per input file `k`): MinHash each document; write, per band, the
//!    (band key, order) records sorted by key to `dedup/batch/bands/BBB/NNNNN.bin`, and the
//!    documents' ids and signatures to `dedup/batch/docs/NNNNN.bin`. `order` is
//!    `k << 32 | line`, the position in the sorted input listing.
//! 2. **buckets** (per band): merge the band's sorted files (streaming, memory independent
//!    of the corpus size) and write the candidate pairs (first document of each group of
//!    equal keys, every other member) to `dedup/batch/pairs/BBB.bin`.
//! 3. **clusters** (one worker): union-find over all pairs confirmed by their similarity
//!    (true Jaccard of the shingle sets stored by phase 1 with `verify = "jaccard"`, the
//!    default; the signature estimate with `"signature"`); in each connected component the earliest document survives; the others are
//!    written, per input file, to `dedup/batch/remove/NNNNN.json` with the id they duplicate.
//! 4. **apply** (per input file): drop the listed documents **by DocId** (a listed id that
//!    is not in the file is an error: the inputs changed) and write `dedup/NNNNN.jsonl.zst`.

use std::collections::{BTreeMap, BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};
use trawl_core::{Document, Verdict};
use trawl_storage::{docs, jsonl, shard_name, Storage, StorageError};

use crate::minhash::{band_key, estimate, jaccard, MinHasher};
use crate::DedupConfig;

fn malformed(url: String, reason: impl Into<String>) -> StorageError {
    StorageError::Malformed {
        what: "dedup batch file",
        url,
        reason: reason.into(),
    }
}

/// Phase 1 for one input file, streaming its documents: returns the number of documents.
/// Band records and signatures are buffered up to `cfg.max_memory_mb`; beyond that the
/// buffers are written out as further sorted runs (`BBB/NNNNN-RRR.bin`), which the buckets
/// phase merges like any other file, so memory does not grow with the input.
pub async fn signatures(
    root: &Storage,
    cfg: &DedupConfig,
    k: usize,
    input_name: &str,
    input: &[u8],
) -> Result<usize, StorageError> {
    let name = shard_name(k);
    let num = cfg.bands * cfg.rows;
    let mut h = MinHasher::new(cfg.shingle_words, num, cfg.seed);
    let budget = cfg.max_memory_mb.max(1) * 1024 * 1024;
    let mut bands: Vec<Vec<(u64, u64)>> = vec![Vec::new(); cfg.bands];
    let mut index = Vec::new();
    let mut run = 0usize;
    let mut count = 0usize;
    let mut bad = 0usize;
    let mut buffered = 0usize;
    // runs left by an earlier attempt with a smaller budget would be merged twice
    for dir in (0..cfg.bands)
        .map(|b| format!("dedup/batch/bands/{b:03}"))
        .chain(std::iter::once("dedup/batch/docs".to_string()))
    {
        for f in root.list(&dir).await? {
            if f.rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(&format!("{name}-")))
            {
                root.delete(&f).await?;
            }
        }
    }
    for r in docs::read(input_name, input, jsonl::DEFAULT_MAX_LINE_BYTES)? {
        let Ok(d) = r else {
            bad += 1;
            continue;
        };
        let order = ((k as u64) << 32) | count as u64;
        count += 1;
        buffered += 1;
        h.compute(&d.text);
        for (b, band) in bands.iter_mut().enumerate() {
            band.push((band_key(&h.sig, b, cfg.rows), order));
        }
        let id = d.id.as_str().as_bytes();
        let id = &id[..id.len().min(u16::MAX as usize)];
        index.extend_from_slice(&order.to_le_bytes());
        index.extend_from_slice(&(id.len() as u16).to_le_bytes());
        index.extend_from_slice(id);
        for v in &h.sig {
            index.extend_from_slice(&v.to_le_bytes());
        }
        if cfg.verify == crate::Verify::Jaccard {
            // the shingle set, for exact verification in the clusters phase
            index.extend_from_slice(&(h.shingles.len() as u32).to_le_bytes());
            for v in &h.shingles {
                index.extend_from_slice(&v.to_le_bytes());
            }
        }
        if buffered * cfg.bands * 16 + index.len() >= budget {
            let full = std::mem::replace(&mut bands, vec![Vec::new(); cfg.bands]);
            write_run(root, &name, run, full, std::mem::take(&mut index)).await?;
            run += 1;
            buffered = 0;
        }
    }
    if bad > 0 {
        tracing::warn!(
            input = input_name,
            lines = bad,
            "malformed lines skipped (apply skips them too)"
        );
    }
    write_run(root, &name, run, bands, index).await?;
    Ok(count)
}
async fn write_run(
    root: &Storage,
    name: &str,
    run: usize,
    bands: Vec<Vec<(u64, u64)>>,
    index: Vec<u8>,
) -> Result<(), StorageError> {
    let suffix = if run == 0 {
        String::new()
    } else {
        format!("-{run:03}")
    };
    for (b, mut recs) in bands.into_iter().enumerate() {
        recs.sort_unstable();
        let mut bytes = Vec::with_capacity(recs.len() * 16);
        for (key, order) in recs {
            bytes.extend_from_slice(&key.to_le_bytes());
            bytes.extend_from_slice(&order.to_le_bytes());
        }
        root.put(
            &format!("dedup/batch/bands/{b:03}/{name}{suffix}.bin"),
            bytes.into(),
        )
        .await?;
    }
    root.put(
        &format!("dedup/batch/docs/{name}{suffix}.bin"),
        index.into(),
    )
    .await
}

fn pairs_of(bytes: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    bytes.chunks_exact(16).map(|c| {
        (
            u64::from_le_bytes(c[..8].try_into().expect("8")),
            u64::from_le_bytes(c[8..].try_into().expect("8")),
        )
    })
}

/// Bytes read at a time from each sorted band file.
const CHUNK: u64 = 1 << 20;

/// Streams (key, order) records of one object in chunks.
struct ChunkReader {
    chunk: u64,
    key: String,
    size: u64,
    pos: u64,
    buf: Vec<u8>,
    at: usize,
}

impl ChunkReader {
    async fn next(&mut self, root: &Storage) -> Result<Option<(u64, u64)>, StorageError> {
        if self.at + 16 > self.buf.len() {
            if self.pos >= self.size {
                return if self.at < self.buf.len() {
                    Err(malformed(root.url_of(&self.key), "truncated record"))
                } else {
                    Ok(None)
                };
            }
            let end = (self.pos + self.chunk).min(self.size);
            let mut rest = self.buf.split_off(self.at);
            rest.extend_from_slice(&root.get_range(&self.key, self.pos, end).await?);
            self.buf = rest;
            self.at = 0;
            self.pos = end;
            if self.buf.len() < 16 {
                return if self.pos >= self.size {
                    Err(malformed(root.url_of(&self.key), "truncated record"))
                } else {
                    Box::pin(self.next(root)).await
                };
            }
        }
        let c = &self.buf[self.at..self.at + 16];
        self.at += 16;
        Ok(Some((
            u64::from_le_bytes(c[..8].try_into().expect("8")),
            u64::from_le_bytes(c[8..].try_into().expect("8")),
        )))
    }
}

/// Groups of documents sharing a band key up to this size yield every pair; larger ones
/// pair their first document with each other one (a hub of boilerplate pages would
/// otherwise cost a quadratic number of pairs).
pub const ALL_PAIRS_UP_TO: usize = 16;

/// The candidate pairs of one group of documents sharing a band key (orders ascending):
/// every pair in a small group, so a copy meets every member it may be within the threshold
/// of (not only the group's first, which may be a copy further from it); the first with
/// each other member in a large one. Returns the number written.
fn group_pairs(group: &[u64], out: &mut Vec<u8>) -> usize {
    let mut n = 0;
    let mut pair = |a: u64, b: u64| {
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
        n += 1;
    };
    if group.len() <= ALL_PAIRS_UP_TO {
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                pair(a, b);
            }
        }
    } else {
        for &b in &group[1..] {
            pair(group[0], b);
        }
    }
    n
}

/// Phase 2 for one band: returns the number of candidate pairs.
pub async fn buckets(root: &Storage, band: usize, inputs: usize) -> Result<usize, StorageError> {
    let dir = format!("dedup/batch/bands/{band:03}");
    let files = root.list(&dir).await?;
    let firsts = files
        .iter()
        .filter(|f| {
            !f.trim_end_matches(".bin")
                .rsplit('/')
                .next()
                .unwrap_or("")
                .contains('-')
        })
        .count();
    if firsts != inputs {
        return Err(malformed(root.url_of(&dir), format!("{firsts} of {inputs} signature files present; run the signatures phase for every input first")));
    }
    // k-way merge of the sorted files, each read in chunks: memory is one chunk per input
    // file, whatever the corpus size
    let mut readers = Vec::new();
    for f in &files {
        readers.push(ChunkReader {
            chunk: CHUNK,
            key: f.clone(),
            size: root.size(f).await?,
            pos: 0,
            buf: Vec::new(),
            at: 0,
        });
    }
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some((k, o)) = r.next(root).await? {
            heap.push(std::cmp::Reverse((k, o, i)));
        }
    }
    let mut out = Vec::new();
    let mut n = 0usize;
    let mut key_now: Option<u64> = None;
    let mut group: Vec<u64> = Vec::new();
    while let Some(std::cmp::Reverse((key, order, i))) = heap.pop() {
        if let Some(next) = readers[i].next(root).await? {
            heap.push(std::cmp::Reverse((next.0, next.1, i)));
        }
        if key_now != Some(key) {
            n += group_pairs(&group, &mut out);
            group.clear();
            key_now = Some(key);
        }
        group.push(order);
    }
    n += group_pairs(&group, &mut out);
    root.put(&format!("dedup/batch/pairs/{band:03}.bin"), out.into())
        .await?;
    Ok(n)
}

/// A removed document: its id and the id of the document it duplicates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Removal {
    /// The removed document.
    pub id: String,
    /// The member of its cluster it is most similar to (a confirmed pair: the similarity
    /// reaches the threshold).
    pub near_of: String,
    /// Their similarity (per `dedup.verify`).
    pub similarity: f64,
    /// The surviving (earliest) document of its cluster.
    pub survivor: String,
}

/// What the clusters phase decided for one input file: the documents to remove, and the
/// size of the duplicate cluster of each surviving document that has copies (absent: 1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Decisions {
    /// Documents to remove.
    pub remove: Vec<Removal>,
    /// Surviving document -> documents in its cluster (itself included), for clusters of
    /// two or more.
    pub cluster_sizes: BTreeMap<String, u64>,
}

fn find(parent: &mut HashMap<u64, u64>, x: u64) -> u64 {
    let mut r = x;
    while let Some(&p) = parent.get(&r) {
        if p == r {
            break;
        }
        r = p;
    }
    let mut y = x;
    while let Some(&p) = parent.get(&y) {
        if p == r {
            break;
        }
        parent.insert(y, r);
        y = p;
    }
    r
}

/// Phase 3: returns (pairs confirmed, documents removed).
pub async fn clusters(
    root: &Storage,
    cfg: &DedupConfig,
    inputs: usize,
) -> Result<(usize, usize), StorageError> {
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    for b in 0..cfg.bands {
        let key = format!("dedup/batch/pairs/{b:03}.bin");
        let bytes = root.get_opt(&key).await?.ok_or_else(|| {
            malformed(
                root.url_of(&key),
                "missing; run the buckets phase for every band first",
            )
        })?;
        pairs.extend(pairs_of(&bytes));
    }
    pairs.sort_unstable();
    pairs.dedup();
    // ids, signatures and (for exact verification) shingle sets of the documents in pairs
    let mut wanted: HashMap<u64, (String, Vec<u64>)> = pairs
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .map(|o| (o, (String::new(), Vec::new())))
        .collect();
    let exact = cfg.verify == crate::Verify::Jaccard;
    let mut shingles: HashMap<u64, Vec<u64>> = HashMap::new();
    let num = cfg.bands * cfg.rows;
    let doc_files = root.list("dedup/batch/docs").await?;
    for k in 0..inputs {
        if !doc_files.contains(&format!("dedup/batch/docs/{}.bin", shard_name(k))) {
            return Err(malformed(
                root.url_of(&format!("dedup/batch/docs/{}.bin", shard_name(k))),
                "missing; run the signatures phase for every input first",
            ));
        }
    }
    for key in &doc_files {
        let key = key.clone();
        let bytes = root.get(&key).await?;
        let mut p = 0;
        while p < bytes.len() {
            let err = || malformed(root.url_of(&key), "truncated record");
            let order =
                u64::from_le_bytes(bytes.get(p..p + 8).ok_or_else(err)?.try_into().expect("8"));
            let len = u16::from_le_bytes(
                bytes
                    .get(p + 8..p + 10)
                    .ok_or_else(err)?
                    .try_into()
                    .expect("2"),
            ) as usize;
            let id = String::from_utf8_lossy(bytes.get(p + 10..p + 10 + len).ok_or_else(err)?)
                .into_owned();
            let s = p + 10 + len;
            let sig_bytes = bytes.get(s..s + 8 * num).ok_or_else(err)?;
            let mut next = s + 8 * num;
            let shingle_bytes = if exact {
                let n = u32::from_le_bytes(
                    bytes
                        .get(next..next + 4)
                        .ok_or_else(err)?
                        .try_into()
                        .expect("4"),
                ) as usize;
                let b = bytes.get(next + 4..next + 4 + 8 * n).ok_or_else(err)?;
                next += 4 + 8 * n;
                Some(b)
            } else {
                None
            };
            if let Some(slot) = wanted.get_mut(&order) {
                *slot = (
                    id,
                    sig_bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
                        .collect(),
                );
                if let Some(b) = shingle_bytes {
                    shingles.insert(
                        order,
                        b.chunks_exact(8)
                            .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
                            .collect(),
                    );
                }
            }
            p = next;
        }
    }
    let mut parent: HashMap<u64, u64> = HashMap::new();
    // each document's most similar confirmed partner (ties: the earlier one)
    let mut best: HashMap<u64, (u64, f64)> = HashMap::new();
    let mut confirmed = 0;
    let similarity = |a: &u64, b: &u64| match cfg.verify {
        crate::Verify::None => 1.0,
        crate::Verify::Signature => estimate(&wanted[a].1, &wanted[b].1),
        crate::Verify::Jaccard => jaccard(&shingles[a], &shingles[b]),
    };
    for (a, b) in &pairs {
        let sim = similarity(a, b);
        if sim >= cfg.threshold {
            confirmed += 1;
            for (x, y) in [(*a, *b), (*b, *a)] {
                let e = best.entry(x).or_insert((y, sim));
                if sim > e.1 || (sim == e.1 && y < e.0) {
                    *e = (y, sim);
                }
            }
            let (ra, rb) = (find(&mut parent, *a), find(&mut parent, *b));
            parent.entry(*a).or_insert(*a);
            parent.entry(*b).or_insert(*b);
            if ra != rb {
                // the earliest document is the root of its component
                let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
                parent.insert(hi, lo);
            }
        }
    }
    let mut members: Vec<u64> = parent.keys().copied().collect();
    members.sort_unstable();
    let mut by_file: BTreeMap<usize, Decisions> = BTreeMap::new();
    let mut sizes: HashMap<u64, u64> = HashMap::new();
    for &m in &members {
        let r = find(&mut parent, m);
        *sizes.entry(r).or_insert(0) += 1;
        if r != m {
            let (partner, sim) = best[&m];
            by_file
                .entry((m >> 32) as usize)
                .or_default()
                .remove
                .push(Removal {
                    id: wanted[&m].0.clone(),
                    near_of: wanted[&partner].0.clone(),
                    similarity: (sim * 1000.0).round() / 1000.0,
                    survivor: wanted[&r].0.clone(),
                });
        }
    }
    for (r, size) in sizes {
        if size > 1 {
            by_file
                .entry((r >> 32) as usize)
                .or_default()
                .cluster_sizes
                .insert(wanted[&r].0.clone(), size);
        }
    }
    let mut removed = 0;
    for k in 0..inputs {
        let mut d = by_file.remove(&k).unwrap_or_default();
        d.remove.sort_by(|x, y| x.id.cmp(&y.id));
        removed += d.remove.len();
        root.put(
            &format!("dedup/batch/remove/{}.json", shard_name(k)),
            serde_json::to_vec(&d).expect("json").into(),
        )
        .await?;
    }
    Ok((confirmed, removed))
}

/// Phase 4 helper: the clusters phase's decisions for input file `k`.
pub async fn decisions(root: &Storage, k: usize) -> Result<Decisions, StorageError> {
    let key = format!("dedup/batch/remove/{}.json", shard_name(k));
    let bytes = root
        .get_opt(&key)
        .await?
        .ok_or_else(|| malformed(root.url_of(&key), "missing; run the clusters phase first"))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        malformed(
            root.url_of(&key),
            format!("{e} (written by an older trawl? rerun the clusters phase)"),
        )
    })
}

/// Phase 4 as a stage of the runner's chain: drops the documents the clusters phase decided
/// to remove, by DocId, recording in `attrs.dedup` which document each was a copy of and
/// how similar. The chain does the accounting and writes the exclusion records; the
/// caller compares the drops with [`ApplyRemovals::expected`] (fewer: the inputs changed
/// since the signatures phase).
#[derive(Debug)]
pub struct ApplyRemovals {
    remove: HashMap<String, Removal>,
    cluster_sizes: BTreeMap<String, u64>,
    expected: usize,
}

impl ApplyRemovals {
    /// The stage for one input file's decisions (see [`decisions`]).
    pub fn new(d: Decisions) -> Self {
        ApplyRemovals {
            expected: d.remove.len(),
            remove: d.remove.into_iter().map(|r| (r.id.clone(), r)).collect(),
            cluster_sizes: d.cluster_sizes,
        }
    }

    /// How many documents the file should lose.
    pub fn expected(&self) -> usize {
        self.expected
    }
}

impl trawl_core::Task for ApplyRemovals {
    fn name(&self) -> &'static str {
        "near_dedup"
    }

    fn process(&mut self, doc: &mut Document) -> Result<Verdict, trawl_core::RecordError> {
        Ok(match self.remove.remove(doc.id.as_str()) {
            Some(r) => {
                doc.attrs.insert(
                    "dedup".into(),
                    serde_json::json!({ "near_of": r.near_of, "similarity": r.similarity, "survivor": r.survivor }),
                );
                Verdict::Drop(crate::reasons::NEAR_DUPLICATE)
            }
            None => {
                // every kept document says how many documents its cluster had, so a mixture
                // can upsample by duplicate count
                let size = self
                    .cluster_sizes
                    .get(doc.id.as_str())
                    .copied()
                    .unwrap_or(1);
                let slot = doc
                    .attrs
                    .entry("dedup".to_string())
                    .or_insert_with(|| serde_json::json!({}));
                if let Some(o) = slot.as_object_mut() {
                    o.insert("cluster_size".into(), size.into());
                }
                Verdict::Keep
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removals_drop_by_id_and_say_of_what() {
        let d = |t: &str| Document::new(format!("https://h.test/{t}"), t);
        let (a, b) = (d("first"), d("second"));
        let stage = ApplyRemovals::new(Decisions {
            remove: vec![Removal {
                id: b.id.as_str().to_string(),
                near_of: a.id.as_str().to_string(),
                similarity: 0.91,
                survivor: a.id.as_str().to_string(),
            }],
            cluster_sizes: [(a.id.as_str().to_string(), 2)].into_iter().collect(),
        });
        assert_eq!(stage.expected(), 1);
        let mut chain =
            trawl_core::Chain::new("dedup", vec![trawl_core::Stage::Task(Box::new(stage))]);
        let kept = chain.process(a.clone()).expect("a is kept");
        assert_eq!(kept.attrs["dedup"]["cluster_size"], 2);
        let single = chain
            .process(d("alone"))
            .expect("a document without copies is kept");
        assert_eq!(single.attrs["dedup"]["cluster_size"], 1);
        assert!(chain.process(b).is_none());
        let ex = chain.take_excluded();
        assert_eq!(
            (ex[0].stage.as_str(), ex[0].reason.as_str()),
            ("near_dedup", "near_duplicate")
        );
        assert_eq!(
            ex[0].doc.as_ref().unwrap().attrs["dedup"]["near_of"],
            a.id.as_str()
        );
        assert_eq!(
            chain.stats().stage("near_dedup").unwrap().dropped["near_duplicate"],
            1
        );
    }

    #[test]
    fn small_groups_pair_every_member_large_ones_their_first() {
        let decode = |b: &[u8]| pairs_of(b).collect::<Vec<_>>();
        let mut out = Vec::new();
        assert_eq!(group_pairs(&[1, 2, 3], &mut out), 3);
        assert_eq!(decode(&out), vec![(1, 2), (1, 3), (2, 3)]);
        let big: Vec<u64> = (0..ALL_PAIRS_UP_TO as u64 + 5).collect();
        let mut out = Vec::new();
        assert_eq!(group_pairs(&big, &mut out), big.len() - 1);
        assert!(decode(&out).iter().all(|(a, _)| *a == 0));
        assert_eq!(group_pairs(&[7], &mut Vec::new()), 0);
    }

    #[tokio::test]
    async fn clusters_name_the_closest_member_the_survivor_and_the_size() {
        // b, o, c: b and c are copies of o in different halves (J about 0.82 with o, 0.66
        // with each other); the earliest, b, survives and c names o, the member it is close to
        let mut docs = crate::testing::survivor_original_copy();
        docs.push(Document::new(
            "x",
            "an unrelated short page about something else entirely",
        ));
        let mut input = Vec::new();
        for d in &docs {
            serde_json::to_writer(&mut input, d).unwrap();
            input.push(b'\n');
        }
        let dir = tempfile::tempdir().unwrap();
        let root = Storage::open(dir.path().to_str().unwrap(), &Default::default()).unwrap();
        let cfg = DedupConfig::default();
        assert_eq!(
            signatures(&root, &cfg, 0, "in.jsonl", &input)
                .await
                .unwrap(),
            4
        );
        for b in 0..cfg.bands {
            buckets(&root, b, 1).await.unwrap();
        }
        let (_, removed) = clusters(&root, &cfg, 1).await.unwrap();
        assert_eq!(removed, 2);
        let d = decisions(&root, 0).await.unwrap();
        let id = |i: usize| docs[i].id.as_str().to_string();
        let c = d.remove.iter().find(|r| r.id == id(2)).expect("c removed");
        assert_eq!((c.near_of.clone(), c.survivor.clone()), (id(1), id(0)));
        assert!(c.similarity >= cfg.threshold);
        assert_eq!(d.cluster_sizes, [(id(0), 3)].into_iter().collect());
        // apply: the survivor says 3, the unrelated page 1
        let mut chain = trawl_core::Chain::new(
            "dedup",
            vec![trawl_core::Stage::Task(Box::new(ApplyRemovals::new(d)))],
        );
        let kept: Vec<Document> = docs
            .iter()
            .cloned()
            .filter_map(|d| chain.process(d))
            .collect();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].attrs["dedup"]["cluster_size"], 3);
        assert_eq!(kept[1].attrs["dedup"]["cluster_size"], 1);
    }

    #[tokio::test]
    async fn chunked_reads_cross_record_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let root = Storage::open(dir.path().to_str().unwrap(), &Default::default()).unwrap();
        let recs: Vec<(u64, u64)> = (0..100).map(|i| (i * 3, i)).collect();
        let mut bytes = Vec::new();
        for (k, o) in &recs {
            bytes.extend_from_slice(&k.to_le_bytes());
            bytes.extend_from_slice(&o.to_le_bytes());
        }
        root.put("f.bin", bytes.into()).await.unwrap();
        let mut r = ChunkReader {
            chunk: 40,
            key: "f.bin".into(),
            size: root.size("f.bin").await.unwrap(),
            pos: 0,
            buf: Vec::new(),
            at: 0,
        };
        let mut got = Vec::new();
        while let Some(x) = r.next(&root).await.unwrap() {
            got.push(x);
        }
        assert_eq!(got, recs);
        root.put("t.bin", vec![0u8; 20].into()).await.unwrap();
        let mut r = ChunkReader {
            chunk: 7,
            key: "t.bin".into(),
            size: 20,
            pos: 0,
            buf: Vec::new(),
            at: 0,
        };
        assert!(r.next(&root).await.unwrap().is_some());
        assert!(
            r.next(&root).await.is_err(),
            "a truncated record is an error"
        );
    }
}
