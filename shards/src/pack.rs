//! Packing tokenized parts into the final shards.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use trawl_core::UrlBlocklist;
use trawl_storage::{Storage, StorageError};

use crate::mix::{self, MixRow};
use crate::{datatrove, megatron, Manifest, ManifestDoc, ShardFormat, ShardManifest, ShardsConfig};

/// What packing did.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PackReport {
    /// Final shards written.
    pub shards: usize,
    /// Documents written (copies counted).
    pub documents: u64,
    /// Tokens written.
    pub tokens: u64,
    /// Documents left out because a takedown/blocklist covers their URL.
    pub blocked: u64,
    /// The mixture plan.
    pub rows: Vec<MixRow>,
    /// Tokens written per (bucket, language).
    pub written: BTreeMap<(String, String), u64>,
}

impl PackReport {
    /// The mixture table, for printing.
    pub fn table(&self) -> String {
        mix::table(&self.rows, &self.written)
    }
}

fn malformed(url: String, reason: String) -> StorageError {
    StorageError::Malformed {
        what: "token shard",
        url,
        reason,
    }
}

/// A seeded permutation of `0..n` (Fisher-Yates over SplitMix64).
pub fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

/// Writes one final shard in every configured format; returns its manifest.
pub async fn write_shard(
    root: &Storage,
    cfg: &ShardsConfig,
    tokenizer: &crate::TokenizerInfo,
    name: &str,
    docs: Vec<(ManifestDoc, Vec<u32>)>,
) -> Result<ShardManifest, StorageError> {
    let dtype = megatron::DType::for_vocab(tokenizer.vocab_size);
    let mut m = ShardManifest {
        shard: name.to_string(),
        bin: format!("shards/tokens/{name}.bin"),
        idx: format!("shards/tokens/{name}.idx"),
        ds: None,
        tokenizer: tokenizer.clone(),
        dtype: dtype.name().to_string(),
        documents: docs.len() as u64,
        tokens: docs.iter().map(|(_, t)| t.len() as u64).sum(),
        languages: BTreeMap::new(),
        docs: Vec::with_capacity(docs.len()),
    };
    let mut w = megatron::Writer::new(dtype);
    for (d, toks) in &docs {
        w.add_document(toks);
        *m.languages.entry(d.lang.clone()).or_default() += 1;
        m.docs.push(d.clone());
    }
    if cfg.formats.contains(&ShardFormat::Megatron) {
        let (bin, idx) = w.finish();
        root.put(&m.bin, bin.into()).await?;
        root.put(&m.idx, idx.into()).await?;
    }
    if cfg.formats.contains(&ShardFormat::Datatrove) {
        let ts = if tokenizer.vocab_size <= 65_536 { 2 } else { 4 };
        let refs: Vec<&[u32]> = docs.iter().map(|(_, t)| t.as_slice()).collect();
        let (ds, index, meta) = datatrove::write(&refs, ts, &tokenizer.name);
        let ds_name = format!("shards/tokens/{name}.ds");
        root.put(&ds_name, ds.into()).await?;
        root.put(&format!("{ds_name}.index"), index.into()).await?;
        root.put(&format!("{ds_name}.metadata"), meta.into())
            .await?;
        m.ds = Some(ds_name);
    }
    root.put(
        &format!("shards/tokens/{name}.json"),
        serde_json::to_vec_pretty(&m).expect("manifest").into(),
    )
    .await?;
    Ok(m)
}

/// Reads the tokens of a shard (from `.bin/.idx`, else `.ds`).
pub async fn read_shard_tokens(
    root: &Storage,
    m: &ShardManifest,
) -> Result<Vec<Vec<u32>>, StorageError> {
    if let (Some(bin), Some(idx)) = (root.get_opt(&m.bin).await?, root.get_opt(&m.idx).await?) {
        return megatron::read(&idx, &bin).map_err(|e| malformed(root.url_of(&m.idx), e));
    }
    let ds =
        m.ds.as_ref()
            .ok_or_else(|| StorageError::NotFound(root.url_of(&m.bin)))?;
    let data = root.get(ds).await?;
    let index = root.get(&format!("{ds}.index")).await?;
    let ts = if m.tokenizer.vocab_size <= 65_536 {
        2
    } else {
        4
    };
    datatrove::read(&data, &index, ts).map_err(|e| malformed(root.url_of(ds), e))
}

/// The takedown list kept under the run root (`takedown/urls.txt`).
pub async fn run_blocklist(root: &Storage) -> Result<UrlBlocklist, StorageError> {
    Ok(match root.get_opt("takedown/urls.txt").await? {
        Some(b) => UrlBlocklist::parse(&String::from_utf8_lossy(&b)),
        None => UrlBlocklist::default(),
    })
}

/// Packs every part under `_parts/shards/` into final shards and writes the manifests
/// (the run manifest last). Deterministic: the same parts and config give the same bytes.
pub async fn pack(root: &Storage, cfg: &ShardsConfig) -> Result<PackReport, StorageError> {
    let blocklist = run_blocklist(root).await?;
    let mut parts: Vec<ShardManifest> = Vec::new();
    let mut keys = root.list(crate::PARTS_DIR).await?;
    keys.extend(root.list(crate::LEGACY_PARTS_DIR).await?);
    for k in keys {
        if k.ends_with(".json") {
            let b = root.get(&k).await?;
            parts.push(
                serde_json::from_slice(&b)
                    .map_err(|e| malformed(root.url_of(&k), e.to_string()))?,
            );
        }
    }
    parts.sort_by(|a, b| a.shard.cmp(&b.shard));
    parts.retain(|p| p.documents > 0);
    let mut report = PackReport::default();
    let Some(first) = parts.first() else {
        return Ok(report);
    };
    let tokenizer = first.tokenizer.clone();
    if let Some(p) = parts
        .iter()
        .find(|p| p.tokenizer.digest != tokenizer.digest)
    {
        return Err(malformed(
            root.url_of(&crate::part_key(&p.shard, "json")),
            format!(
                "tokenized with {} ({}) but part {} used {} ({}); rerun `trawl shards --force`",
                p.tokenizer.name, p.tokenizer.digest, first.shard, tokenizer.name, tokenizer.digest
            ),
        ));
    }
    let all: Vec<&ManifestDoc> = parts
        .iter()
        .flat_map(|p| p.docs.iter())
        .filter(|d| !blocklist.matches(&d.url))
        .collect();
    report.blocked = parts.iter().map(|p| p.docs.len() as u64).sum::<u64>() - all.len() as u64;
    report.rows = mix::plan(&cfg.mix, &all);
    let rates: BTreeMap<(String, String), f64> = report
        .rows
        .iter()
        .map(|r| ((r.bucket.clone(), r.lang.clone()), r.rate))
        .collect();
    let copies_of = |d: &ManifestDoc| -> u32 {
        if blocklist.matches(&d.url) {
            return 0;
        }
        let rate = rates
            .get(&(cfg.mix.bucket_of(d), d.lang.clone()))
            .copied()
            .unwrap_or(0.0);
        mix::copies(rate, cfg.mix.seed, &d.id)
    };
    let max_copies = parts
        .iter()
        .flat_map(|p| p.docs.iter())
        .map(copies_of)
        .max()
        .unwrap_or(0);

    let mut shard: Vec<(ManifestDoc, Vec<u32>)> = Vec::new();
    let mut shard_tokens = 0u64;
    let mut written: Vec<ShardManifest> = Vec::new();
    // pass r writes the r-th copy of every document that has one, so repetitions of a
    // document land far apart
    for r in 0..max_copies {
        for p in &parts {
            if !p.docs.iter().any(|d| copies_of(d) > r) {
                continue;
            }
            let seqs = read_shard_tokens(root, p).await?;
            if seqs.len() != p.docs.len() {
                return Err(malformed(
                    root.url_of(&p.idx),
                    format!(
                        "{} sequences but the manifest lists {} documents",
                        seqs.len(),
                        p.docs.len()
                    ),
                ));
            }
            for (d, toks) in p.docs.iter().zip(seqs) {
                if copies_of(d) <= r {
                    continue;
                }
                if toks.len() as u64 != d.tokens {
                    return Err(malformed(
                        root.url_of(&p.bin),
                        format!(
                            "document {} has {} tokens, manifest says {}",
                            d.id,
                            toks.len(),
                            d.tokens
                        ),
                    ));
                }
                let mut md = d.clone();
                md.copy = r;
                *report
                    .written
                    .entry((cfg.mix.bucket_of(d), d.lang.clone()))
                    .or_default() += d.tokens;
                shard_tokens += d.tokens;
                shard.push((md, toks));
                if shard_tokens >= cfg.target_shard_tokens {
                    written.push(
                        flush(
                            root,
                            cfg,
                            &tokenizer,
                            written.len(),
                            std::mem::take(&mut shard),
                        )
                        .await?,
                    );
                    shard_tokens = 0;
                }
            }
        }
    }
    if !shard.is_empty() {
        written.push(flush(root, cfg, &tokenizer, written.len(), shard).await?);
    }
    // remove shards of an earlier, larger packing before publishing the manifest
    if let Some(old) = root.get_opt("shards/manifest.json").await? {
        if let Ok(old) = serde_json::from_slice::<Manifest>(&old) {
            for s in old
                .shards
                .iter()
                .filter(|s| !written.iter().any(|w| w.shard == s.shard))
            {
                for k in [
                    s.bin.clone(),
                    s.idx.clone(),
                    format!("shards/tokens/{}.json", s.shard),
                ] {
                    root.delete(&k).await?;
                }
                if let Some(ds) = &s.ds {
                    for k in [ds.clone(), format!("{ds}.index"), format!("{ds}.metadata")] {
                        root.delete(&k).await?;
                    }
                }
            }
        }
    }
    report.shards = written.len();
    report.documents = written.iter().map(|s| s.documents).sum();
    report.tokens = written.iter().map(|s| s.tokens).sum();
    let manifest = Manifest {
        tokenizer,
        documents: report.documents,
        tokens: report.tokens,
        prefixes: written.iter().map(ShardManifest::prefix).collect(),
        shards: written,
    };
    root.put(
        "shards/manifest.json",
        serde_json::to_vec_pretty(&manifest)
            .expect("manifest")
            .into(),
    )
    .await?;
    Ok(report)
}

async fn flush(
    root: &Storage,
    cfg: &ShardsConfig,
    tok: &crate::TokenizerInfo,
    index: usize,
    docs: Vec<(ManifestDoc, Vec<u32>)>,
) -> Result<ShardManifest, StorageError> {
    let name = trawl_storage::shard_name(index);
    let seed = xxhash_rust::xxh3::xxh3_64_with_seed(name.as_bytes(), cfg.shuffle_seed);
    let order = permutation(docs.len(), seed);
    let mut slots: Vec<Option<(ManifestDoc, Vec<u32>)>> = docs.into_iter().map(Some).collect();
    let shuffled: Vec<(ManifestDoc, Vec<u32>)> = order
        .into_iter()
        .map(|i| slots[i].take().expect("permutation visits each index once"))
        .collect();
    write_shard(root, cfg, tok, &name, shuffled).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn permutation_is_a_seeded_permutation() {
        let p = super::permutation(100, 7);
        let mut s = p.clone();
        s.sort_unstable();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
        assert_eq!(p, super::permutation(100, 7));
        assert_ne!(p, super::permutation(100, 8));
        assert!(super::permutation(0, 1).is_empty());
    }
}
