//! `trawl-shards`: tokenization and the training-side output: Megatron-LM indexed datasets
//! (`.bin` + `.idx`, readable by megatron-core's `IndexedDataset`) and manifests that list,
//! per shard, every document with its URL digest and consent record.
//!
//! ```
//! use trawl_shards::{ShardBuilder, ShardsConfig};
//! let mut b = ShardBuilder::new(&ShardsConfig::default(), "00000").unwrap();
//! b.add(&trawl_core::Document::new("https://h/a", "Hello world."));
//! let out = b.finish();
//! let docs = trawl_shards::megatron::read(&out.idx, &out.bin).unwrap();
//! assert_eq!(docs[0].len() as u64, out.manifest.tokens);
//! ```
#![deny(missing_docs)]

pub mod megatron;
mod tokenizer;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use trawl_core::{Consent, Document};

pub use tokenizer::{Tokenizer, TokenizerInfo};

/// The `[shards]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShardsConfig {
    /// Whether `trawl run` writes token shards.
    pub enabled: bool,
    /// A bundled tiktoken encoding: `cl100k_base` or `o200k_base`.
    pub tokenizer: String,
    /// Append the tokenizer's end-of-text token to every document.
    pub append_eos: bool,
}

impl Default for ShardsConfig {
    fn default() -> Self {
        ShardsConfig { enabled: true, tokenizer: "cl100k_base".into(), append_eos: true }
    }
}

impl ShardsConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if !tokenizer::KNOWN.contains(&self.tokenizer.as_str()) {
            return Err(("shards.tokenizer".into(), format!("`{}` is not a bundled encoding (known: {})", self.tokenizer, tokenizer::KNOWN.join(", "))));
        }
        Ok(())
    }
}

/// One document in a shard manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestDoc {
    /// DocId.
    pub id: String,
    /// XXH3-64 of the URL, hex: find every shard holding a URL without storing URLs twice.
    pub url_digest: String,
    /// Tokens written (with EOS).
    pub tokens: u64,
    /// Consent record.
    pub consent: Consent,
}

/// The manifest of one shard (`shards/parts/NNNNN.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// Shard name.
    pub shard: String,
    /// `.bin` path relative to the run root.
    pub bin: String,
    /// `.idx` path relative to the run root.
    pub idx: String,
    /// Tokenizer used.
    pub tokenizer: TokenizerInfo,
    /// numpy dtype name of the tokens (`uint16` or `int32`).
    pub dtype: String,
    /// Number of documents.
    pub documents: u64,
    /// Number of tokens.
    pub tokens: u64,
    /// Documents per language.
    pub languages: BTreeMap<String, u64>,
    /// Every document.
    pub docs: Vec<ManifestDoc>,
}

/// The run-level manifest (`shards/manifest.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Tokenizer used.
    pub tokenizer: TokenizerInfo,
    /// Total documents.
    pub documents: u64,
    /// Total tokens.
    pub tokens: u64,
    /// Every shard with its documents.
    pub shards: Vec<ShardManifest>,
}

impl Manifest {
    /// Merges shard manifests (sorted by shard name). Shards without documents have no
    /// token files and are left out.
    pub fn merge(mut parts: Vec<ShardManifest>) -> Option<Manifest> {
        parts.sort_by(|a, b| a.shard.cmp(&b.shard));
        let tokenizer = parts.first()?.tokenizer.clone();
        parts.retain(|p| p.documents > 0);
        Some(Manifest {
            tokenizer,
            documents: parts.iter().map(|p| p.documents).sum(),
            tokens: parts.iter().map(|p| p.tokens).sum(),
            shards: parts,
        })
    }
}

/// The bytes of a finished shard.
#[derive(Debug)]
pub struct ShardOutput {
    /// `.bin` content.
    pub bin: Vec<u8>,
    /// `.idx` content.
    pub idx: Vec<u8>,
    /// The shard manifest.
    pub manifest: ShardManifest,
}

/// Tokenizes documents into one Megatron shard.
#[derive(Debug)]
pub struct ShardBuilder {
    tok: Tokenizer,
    append_eos: bool,
    writer: megatron::Writer,
    manifest: ShardManifest,
}

impl ShardBuilder {
    /// A builder for shard `name` (paths `shards/tokens/<name>.bin/.idx`).
    pub fn new(cfg: &ShardsConfig, name: &str) -> Result<ShardBuilder, String> {
        let tok = Tokenizer::by_name(&cfg.tokenizer)?;
        let info = tok.info();
        let dtype = megatron::DType::for_vocab(info.vocab_size);
        Ok(ShardBuilder {
            append_eos: cfg.append_eos,
            writer: megatron::Writer::new(dtype),
            manifest: ShardManifest {
                shard: name.to_string(),
                bin: format!("shards/tokens/{name}.bin"),
                idx: format!("shards/tokens/{name}.idx"),
                tokenizer: info,
                dtype: dtype.name().to_string(),
                documents: 0,
                tokens: 0,
                languages: BTreeMap::new(),
                docs: Vec::new(),
            },
            tok,
        })
    }

    /// Tokenizes and appends one document; returns its token count.
    pub fn add(&mut self, doc: &Document) -> u64 {
        let mut ids = self.tok.encode(&doc.text);
        if self.append_eos {
            ids.push(self.tok.info().eos);
        }
        let n = ids.len() as u64;
        self.writer.add_document(&ids);
        self.manifest.documents += 1;
        self.manifest.tokens += n;
        *self.manifest.languages.entry(doc.meta.lang.clone().unwrap_or_else(|| "und".into())).or_default() += 1;
        self.manifest.docs.push(ManifestDoc {
            id: doc.id.as_str().to_string(),
            url_digest: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(doc.url.as_bytes())),
            tokens: n,
            consent: doc.consent.clone(),
        });
        n
    }

    /// The finished shard.
    pub fn finish(self) -> ShardOutput {
        let (bin, idx) = self.writer.finish();
        ShardOutput { bin, idx, manifest: self.manifest }
    }
}
