//! Takedowns: remove documents by URL, prefix or domain from shards already written.

use serde::{Deserialize, Serialize};
use trawl_core::UrlBlocklist;
use trawl_storage::{Storage, StorageError};

use crate::pack::{read_shard_tokens, write_shard};
use crate::{Manifest, ShardsConfig};

/// One rewritten shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rewritten {
    /// Shard name.
    pub shard: String,
    /// Documents removed (copies counted).
    pub documents: u64,
    /// Tokens removed.
    pub tokens: u64,
    /// URLs removed.
    pub urls: Vec<String>,
}

/// Removes every document whose URL `patterns` covers: only the shards holding one are
/// rewritten (the others stay byte-identical), the list is appended to
/// `takedown/urls.txt` first (so later runs, re-packs and the filter stage honour it even if
/// this one is interrupted), and the run manifest is replaced last.
pub async fn takedown(
    root: &Storage,
    cfg: &ShardsConfig,
    patterns_text: &str,
) -> Result<Vec<Rewritten>, StorageError> {
    let patterns = UrlBlocklist::parse(patterns_text);
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let mut list = root
        .get_opt("takedown/urls.txt")
        .await?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    for line in patterns_text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if !list.lines().any(|l| l.trim() == line) {
            list.push_str(line);
            list.push('\n');
        }
    }
    root.put("takedown/urls.txt", list.into_bytes().into())
        .await?;

    let Some(mb) = root.get_opt("shards/manifest.json").await? else {
        return Ok(Vec::new());
    };
    let mut manifest: Manifest =
        serde_json::from_slice(&mb).map_err(|e| StorageError::Malformed {
            what: "manifest",
            url: root.url_of("shards/manifest.json"),
            reason: e.to_string(),
        })?;
    let mut out = Vec::new();
    for s in manifest.shards.iter_mut() {
        if !s.docs.iter().any(|d| patterns.matches(&d.url)) {
            continue;
        }
        let seqs = read_shard_tokens(root, s).await?;
        let mut kept = Vec::new();
        let mut r = Rewritten {
            shard: s.shard.clone(),
            documents: 0,
            tokens: 0,
            urls: Vec::new(),
        };
        for (d, t) in s.docs.iter().zip(seqs) {
            if patterns.matches(&d.url) {
                r.documents += 1;
                r.tokens += t.len() as u64;
                if !r.urls.contains(&d.url) {
                    r.urls.push(d.url.clone());
                }
            } else {
                kept.push((d.clone(), t));
            }
        }
        let mut shard_cfg = cfg.clone();
        shard_cfg.formats.clear();
        if root.exists(&s.bin).await? {
            shard_cfg.formats.push(crate::ShardFormat::Megatron);
        }
        if s.ds.is_some() {
            shard_cfg.formats.push(crate::ShardFormat::Datatrove);
        }
        *s = write_shard(
            root,
            &shard_cfg,
            &s.tokenizer.clone(),
            &s.shard.clone(),
            kept,
        )
        .await?;
        out.push(r);
    }
    if !out.is_empty() {
        manifest.documents = manifest.shards.iter().map(|s| s.documents).sum();
        manifest.tokens = manifest.shards.iter().map(|s| s.tokens).sum();
        manifest.prefixes = manifest.shards.iter().map(|s| s.prefix()).collect();
        root.put(
            "shards/manifest.json",
            serde_json::to_vec_pretty(&manifest)
                .expect("manifest")
                .into(),
        )
        .await?;
    }
    Ok(out)
}
