//! Near-dedup quality on a synthetic corpus with known clusters and true Jaccard per pair.
//!
//! `cargo run --release -p trawl-dedup --example quality -- [clusters] [seed] [copies]`
//!
//! With a third argument `copies` (or `mixed`: 60-600 words, edits split between
//! replaced, inserted and deleted words, a quarter of the copies with a footer line too), the
//! corpus is made like issue 19's held-out one instead
//! (a fourth argument picks the mode measured: `stream`, `batch` or `both`, the default;
//! `stream` runs the streaming task over the corpus cut into 8 shards, `STREAM_SHARDS`
//! overrides, each shown to the task before it is processed, as `trawl dedup` does;
//! `batch` runs the four batch phases over the corpus cut into 8 input files in a temporary
//! folder; time and peak memory (VmHWM) are printed, so run one mode per process to compare
//! memory):
//! clusters of an original and 1-5 copies, each copy with 0-8% of its words replaced and half
//! of them with a dated boilerplate line prepended; reported is the share of the surplus
//! members (those within true Jaccard 0.8 of the original, one of which may stay) that are
//! removed, and precision over removed documents (within 0.8 of the original or of the one
//! they name). Also printed: the bound of any one-pass method on the same order (a document
//! removed when an earlier member of its cluster is within 0.8 of it: what streaming can
//! reach when copies arrive before their original).
//!
//! Base documents draw 150-600 words from a Zipfian vocabulary of 30,000 words; each gets
//! 0-4 variants with a word-replacement rate drawn uniformly in [0, 0.35], so true Jaccard
//! similarities spread over the whole range. Documents are processed in a seeded random
//! order by the streaming near-dedup task with the default config. For every pair inside a
//! cluster we know the true Jaccard (same shingling as the task); a pair counts as found
//! when the later document of the pair was removed. Precision is over removed documents:
//! the true Jaccard between a removed document and the one it names must reach the
//! threshold.

use std::collections::HashMap;
use std::time::Instant;

use trawl_core::{Document, Task, Verdict};
use trawl_dedup::minhash::{jaccard, MinHasher};
use trawl_dedup::testing::word;
use trawl_dedup::{batch, DedupConfig, MemoryIndex, NearDedup};
use trawl_storage::Storage;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let clusters: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3000);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(42);
    let mut rng = Rng(seed);
    // Zipf(1.1) over 30k words via the cumulative distribution
    let v = 30_000;
    let weights: Vec<f64> = (1..=v).map(|r| 1.0 / (r as f64).powf(1.1)).collect();
    let total: f64 = weights.iter().sum();
    let mut cdf = Vec::with_capacity(v);
    let mut acc = 0.0;
    for w in &weights {
        acc += w / total;
        cdf.push(acc);
    }
    let vocab: Vec<String> = (0..v).map(word).collect();
    let draw = |rng: &mut Rng| {
        let u = rng.unit();
        let i = cdf.partition_point(|c| *c < u).min(v - 1);
        vocab[i].clone()
    };
    let copies_mode = args.get(3).is_some_and(|a| a == "copies" || a == "mixed");
    let mixed = args.get(3).is_some_and(|a| a == "mixed");
    let mut docs: Vec<(usize, Document)> = Vec::new();
    if copies_mode {
        for c in 0..clusters {
            let len = if mixed {
                60 + rng.below(540)
            } else {
                150 + rng.below(450)
            };
            let base: Vec<String> = (0..len).map(|_| draw(&mut rng)).collect();
            docs.push((c, Document::new(format!("c{c}/0"), base.join(" "))));
            for k in 1..=1 + rng.below(5) {
                let rate = rng.unit() * 0.08;
                let mut w: Vec<String> = Vec::with_capacity(base.len() + 8);
                for x in &base {
                    if rng.unit() >= rate {
                        w.push(x.clone());
                        continue;
                    }
                    // mixed: a word replaced, a word inserted after it, or the word deleted
                    match if mixed { rng.below(3) } else { 0 } {
                        0 => w.push(draw(&mut rng)),
                        1 => {
                            w.push(x.clone());
                            w.push(draw(&mut rng));
                        }
                        _ => {}
                    }
                }
                let mut text = w.join(" ");
                if mixed && rng.unit() < 0.25 {
                    text = format!(
                        "{text}\nShare this: {} {} | All rights reserved 20{:02}",
                        draw(&mut rng),
                        draw(&mut rng),
                        10 + rng.below(15)
                    );
                }
                if rng.unit() < 0.5 {
                    text = format!(
                        "Posted on 20{:02}-{:02}-{:02} by {} | {} comments\n{text}",
                        10 + rng.below(15),
                        1 + rng.below(12),
                        1 + rng.below(28),
                        draw(&mut rng),
                        rng.below(90)
                    );
                }
                docs.push((c, Document::new(format!("c{c}/{k}"), text)));
            }
        }
    }
    for c in 0..if copies_mode { 0 } else { clusters } {
        let len = 150 + rng.below(450);
        let base: Vec<String> = (0..len).map(|_| draw(&mut rng)).collect();
        docs.push((c, Document::new(format!("c{c}/0"), base.join(" "))));
        let variants = rng.below(5);
        for k in 1..=variants {
            let rate = rng.unit() * 0.35;
            let mut w = base.clone();
            for x in w.iter_mut() {
                if rng.unit() < rate {
                    *x = draw(&mut rng);
                }
            }
            docs.push((c, Document::new(format!("c{c}/{k}"), w.join(" "))));
        }
    }
    // processing order
    for i in (1..docs.len()).rev() {
        let j = rng.below(i + 1);
        docs.swap(i, j);
    }
    let cfg = DedupConfig::default();
    let mode = args.get(4).map_or("both", String::as_str);
    let mut hasher = MinHasher::new(cfg.shingle_words, 1, cfg.seed);
    let shingles: Vec<Vec<u64>> = docs
        .iter()
        .map(|(_, d)| {
            hasher.compute(&d.text);
            hasher.shingles.clone()
        })
        .collect();
    let pos: HashMap<String, usize> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, d))| (d.id.as_str().to_string(), i))
        .collect();
    if copies_mode {
        let c = Copies {
            docs: &docs,
            shingles: &shingles,
            pos: &pos,
            threshold: cfg.threshold,
        };
        println!(
            "documents: {} in {} clusters (copies with 0-8% edits, half with a dated line)",
            docs.len(),
            clusters
        );
        c.one_pass_bound();
        if mode != "batch" {
            let t0 = Instant::now();
            let (removed, named) = stream(&cfg, &mut docs.clone());
            c.report("streaming", t0.elapsed().as_secs_f64(), &removed, &named);
        }
        if mode != "stream" {
            let t0 = Instant::now();
            let (removed, named) = batch(&cfg, &docs);
            c.report("batch", t0.elapsed().as_secs_f64(), &removed, &named);
        }
        println!("peak memory (VmHWM): {}", peak_memory());
        return;
    }
    let t0 = Instant::now();
    let (removed, named) = stream(&cfg, &mut docs);
    let secs = t0.elapsed().as_secs_f64();

    // pairs inside clusters, binned by true Jaccard
    let edges = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001];
    let mut bins = vec![(0u64, 0u64); edges.len() - 1];
    let mut by_cluster: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, (c, _)) in docs.iter().enumerate() {
        by_cluster.entry(*c).or_default().push(i);
    }
    for members in by_cluster.values() {
        for (a, &x) in members.iter().enumerate() {
            for &y in &members[a + 1..] {
                let (early, late) = if x < y { (x, y) } else { (y, x) };
                let _ = early;
                let j = jaccard(&shingles[x], &shingles[y]);
                let b = edges
                    .windows(2)
                    .position(|w| j >= w[0] && j < w[1])
                    .unwrap_or(0);
                bins[b].0 += 1;
                if removed[late] {
                    bins[b].1 += 1;
                }
            }
        }
    }
    let mut tp = 0;
    let mut fp = 0;
    for (i, n) in named.iter().enumerate() {
        if let Some(owner) = n {
            let j = jaccard(&shingles[i], &shingles[pos[owner]]);
            if j >= cfg.threshold {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    println!(
        "documents: {} in {} clusters; near-dedup {:.0} docs/s (one core, {:.2} s); removed {}",
        docs.len(),
        clusters,
        docs.len() as f64 / secs,
        secs,
        removed.iter().filter(|r| **r).count()
    );
    println!(
        "config: {} bands x {} rows, {}-word shingles, threshold {}, verify {:?}",
        cfg.bands, cfg.rows, cfg.shingle_words, cfg.threshold, cfg.verify
    );
    println!(
        "{:<14} {:>8} {:>9} {:>9}",
        "true Jaccard", "pairs", "removed", "rate"
    );
    for (k, (n, r)) in bins.iter().enumerate() {
        println!(
            "[{:.1}, {:.1}){} {:>8} {:>9} {:>9.4}",
            edges[k],
            edges[k + 1].min(1.0),
            if k == bins.len() - 1 { "]" } else { " " },
            n,
            r,
            if *n > 0 {
                *r as f64 / *n as f64
            } else {
                f64::NAN
            }
        );
    }
    let (n8, r8) = bins[4..]
        .iter()
        .fold((0, 0), |(a, b), (n, r)| (a + n, b + r));
    println!(
        "recall (pairs with true Jaccard >= 0.8): {:.4} ({r8}/{n8})",
        r8 as f64 / n8.max(1) as f64
    );
    println!("precision (removed documents whose named original has true Jaccard >= {}): {:.4} ({tp}/{})", cfg.threshold, tp as f64 / (tp + fp).max(1) as f64, tp + fp);
}

/// The streaming task over the documents in order: which were removed, and the id each names.
/// Like `trawl dedup` over the corpus cut into `STREAM_SHARDS` input files: the task sees
/// every shard before processing any (run-wide look-ahead, within `max_memory_mb`), then
/// each shard before processing it, as the runner shows it. `LOOK_AHEAD=shard` leaves the
/// run-wide look-ahead out (what `trawl run` does, its parts arriving one by one).
fn stream(cfg: &DedupConfig, docs: &mut [(usize, Document)]) -> (Vec<bool>, Vec<Option<String>>) {
    let shards: usize = std::env::var("STREAM_SHARDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let mut task = NearDedup::new(cfg, Box::new(MemoryIndex::default()));
    let mut removed = vec![false; docs.len()];
    let mut named: Vec<Option<String>> = vec![None; docs.len()];
    let per = docs.len().div_ceil(shards.max(1));
    if shards > 1 && std::env::var("LOOK_AHEAD").as_deref() != Ok("shard") {
        let mut looking = true;
        for chunk in docs.chunks(per.max(1)) {
            let shard: Vec<Document> = chunk.iter().map(|(_, d)| d.clone()).collect();
            looking = looking && task.look_ahead(&shard);
        }
        if looking {
            task.end_look_ahead();
        }
    }
    for (s, chunk) in docs.chunks_mut(per.max(1)).enumerate() {
        let shard: Vec<Document> = chunk.iter().map(|(_, d)| d.clone()).collect();
        task.prepare(&shard);
        for (k, (_, d)) in chunk.iter_mut().enumerate() {
            let i = s * per + k;
            if let Verdict::Drop(_) = task.process(d).unwrap() {
                removed[i] = true;
                named[i] = d.attrs["dedup"]["near_of"].as_str().map(String::from);
            }
        }
    }
    (removed, named)
}

/// The four batch phases over the documents cut into 8 input files, in a temporary folder.
fn batch(cfg: &DedupConfig, docs: &[(usize, Document)]) -> (Vec<bool>, Vec<Option<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &Default::default()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let files = 8;
    let per = docs.len().div_ceil(files);
    let inputs: Vec<Vec<u8>> = docs
        .chunks(per)
        .map(|part| {
            let mut b = Vec::new();
            for (_, d) in part {
                serde_json::to_writer(&mut b, d).unwrap();
                b.push(b'\n');
            }
            b
        })
        .collect();
    let removals = rt.block_on(async {
        for (k, bytes) in inputs.iter().enumerate() {
            batch::signatures(&root, cfg, k, &format!("{k}.jsonl"), bytes)
                .await
                .unwrap();
        }
        for b in 0..cfg.bands {
            batch::buckets(&root, b, inputs.len()).await.unwrap();
        }
        batch::clusters(&root, cfg, inputs.len()).await.unwrap();
        let mut all = HashMap::new();
        for k in 0..inputs.len() {
            all.extend(
                batch::decisions(&root, k)
                    .await
                    .unwrap()
                    .remove
                    .into_iter()
                    .map(|r| (r.id.clone(), r)),
            );
        }
        all
    });
    let mut removed = vec![false; docs.len()];
    let mut named: Vec<Option<String>> = vec![None; docs.len()];
    for (i, (_, d)) in docs.iter().enumerate() {
        if let Some(r) = removals.get(d.id.as_str()) {
            removed[i] = true;
            named[i] = Some(r.near_of.clone());
        }
    }
    (removed, named)
}

fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The copies corpus and its scoring: surplus members (within the threshold of the
/// original; all but one should go) and precision over removed documents.
struct Copies<'a> {
    docs: &'a [(usize, Document)],
    shingles: &'a [Vec<u64>],
    pos: &'a HashMap<String, usize>,
    threshold: f64,
}

impl Copies<'_> {
    fn clusters(&self) -> Vec<Vec<usize>> {
        let mut by: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for (i, (c, _)) in self.docs.iter().enumerate() {
            by.entry(*c).or_default().push(i);
        }
        by.into_values().collect()
    }

    fn original(&self, members: &[usize]) -> usize {
        *members
            .iter()
            .find(|&&i| self.docs[i].1.url.ends_with("/0"))
            .expect("original")
    }

    fn j(&self, a: usize, b: usize) -> f64 {
        jaccard(&self.shingles[a], &self.shingles[b])
    }

    /// (surplus, caught) for a removal vector.
    fn recall(&self, removed: &[bool]) -> (usize, usize) {
        let (mut surplus, mut caught) = (0, 0);
        for members in self.clusters() {
            let orig = self.original(&members);
            let eligible: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| self.j(i, orig) >= self.threshold)
                .collect();
            let s = eligible.len().saturating_sub(1);
            surplus += s;
            caught += eligible.iter().filter(|&&i| removed[i]).count().min(s);
        }
        (surplus, caught)
    }

    fn one_pass_bound(&self) {
        // members are listed in processing order (indices grow)
        let mut removed = vec![false; self.docs.len()];
        for members in self.clusters() {
            for (k, &i) in members.iter().enumerate() {
                removed[i] = members[..k].iter().any(|&e| self.j(i, e) >= self.threshold);
            }
        }
        let (surplus, caught) = self.recall(&removed);
        println!(
            "one-pass bound: {:.4} ({caught}/{surplus}) of surplus members removable in this order",
            caught as f64 / surplus.max(1) as f64
        );
    }

    fn report(&self, mode: &str, secs: f64, removed: &[bool], named: &[Option<String>]) {
        let (surplus, caught) = self.recall(removed);
        let (mut good, mut bad) = (0usize, 0usize);
        for members in self.clusters() {
            let orig = self.original(&members);
            for &i in &members {
                if let Some(owner) = &named[i] {
                    if self.j(i, orig) >= self.threshold
                        || self.j(i, self.pos[owner]) >= self.threshold
                    {
                        good += 1;
                    } else {
                        bad += 1;
                    }
                }
            }
        }
        println!(
            "{mode}: surplus members within {} of the original removed: {:.4} ({caught}/{surplus}); precision {:.4} ({good}/{}); {:.2} s ({:.0} docs/s)",
            self.threshold,
            caught as f64 / surplus.max(1) as f64,
            good as f64 / (good + bad).max(1) as f64,
            good + bad,
            secs,
            self.docs.len() as f64 / secs
        );
    }
}
