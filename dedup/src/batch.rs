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
    let mut current: Option<(u64, u64)> = None; // (key, first order)
    while let Some(std::cmp::Reverse((key, order, i))) = heap.pop() {
        if let Some(next) = readers[i].next(root).await? {
            heap.push(std::cmp::Reverse((next.0, next.1, i)));
        }
        match current {
            Some((ck, first)) if ck == key => {
                out.extend_from_slice(&first.to_le_bytes());
                out.extend_from_slice(&order.to_le_bytes());
                n += 1;
            }
            _ => current = Some((key, order)),
        }
    }
    root.put(&format!("dedup/batch/pairs/{band:03}.bin"), out.into())
        .await?;
    Ok(n)
}

/// A removed document: its id and the id of the document it duplicates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Removal {
    /// The removed document.
    pub id: String,
    /// The surviving document of its cluster.
    pub near_of: String,
    /// Their similarity (per `dedup.verify`).
    pub similarity: f64,
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
    let members: Vec<u64> = parent.keys().copied().collect();
    let mut by_file: BTreeMap<usize, Vec<Removal>> = BTreeMap::new();
    for m in members {
        let r = find(&mut parent, m);
        if r != m {
            let sim = similarity(&m, &r);
            by_file
                .entry((m >> 32) as usize)
                .or_default()
                .push(Removal {
                    id: wanted[&m].0.clone(),
                    near_of: wanted[&r].0.clone(),
                    similarity: (sim * 1000.0).round() / 1000.0,
                });
        }
    }
    let mut removed = 0;
    for k in 0..inputs {
        let mut list = by_file.remove(&k).unwrap_or_default();
        list.sort_by(|x, y| x.id.cmp(&y.id));
        removed += list.len();
        root.put(
            &format!("dedup/batch/remove/{}.json", shard_name(k)),
            serde_json::to_vec(&list).expect("json").into(),
        )
        .await?;
    }
    Ok((confirmed, removed))
}

/// Phase 4 helper: the removals for input file `k`, by DocId.
pub async fn removals(root: &Storage, k: usize) -> Result<HashMap<String, Removal>, StorageError> {
    let key = format!("dedup/batch/remove/{}.json", shard_name(k));
    let bytes = root
        .get_opt(&key)
        .await?
        .ok_or_else(|| malformed(root.url_of(&key), "missing; run the clusters phase first"))?;
    let list: Vec<Removal> =
        serde_json::from_slice(&bytes).map_err(|e| malformed(root.url_of(&key), e.to_string()))?;
    Ok(list.into_iter().map(|r| (r.id.clone(), r)).collect())
}

/// Phase 4 as a stage of the runner's chain: drops the documents the clusters phase decided
/// to remove, by DocId, recording in `attrs.dedup` which document each was a copy of and
/// how similar. The chain does the accounting and writes the exclusion records; the
/// caller compares the drops with [`ApplyRemovals::expected`] (fewer: the inputs changed
/// since the signatures phase).
#[derive(Debug)]
pub struct ApplyRemovals {
    remove: HashMap<String, Removal>,
    expected: usize,
}

impl ApplyRemovals {
    /// The stage for one input file's removals (see [`removals`]).
    pub fn new(remove: HashMap<String, Removal>) -> Self {
        ApplyRemovals {
            expected: remove.len(),
            remove,
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
                    serde_json::json!({ "near_of": r.near_of, "similarity": r.similarity }),
                );
                Verdict::Drop(crate::reasons::NEAR_DUPLICATE)
            }
            None => Verdict::Keep,
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
        let remove = [(
            b.id.as_str().to_string(),
            Removal {
                id: b.id.as_str().to_string(),
                near_of: a.id.as_str().to_string(),
                similarity: 0.91,
            },
        )]
        .into_iter()
        .collect();
        let stage = ApplyRemovals::new(remove);
        assert_eq!(stage.expected(), 1);
        let mut chain =
            trawl_core::Chain::new("dedup", vec![trawl_core::Stage::Task(Box::new(stage))]);
        assert!(chain.process(a.clone()).is_some());
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
