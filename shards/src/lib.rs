//! `trawl-shards`: the training side of the output.
//!
//! - [`Tokenizer`]: tiktoken's bundled `cl100k_base`/`o200k_base`, or any Hugging Face
//!   `tokenizer.json`; [`train`] trains a byte-level BPE on curated documents with
//!   per-language sampling.
//! - Per input shard, [`PartBuilder`] tokenizes documents into `_parts/shards/NNNNN.*` (token
//!   ids in Megatron's layout, in input order, plus a manifest part). They are intermediate:
//!   named `.tokens`/`.tokidx` and kept outside `shards/`, so no glob over `shards/` or over
//!   `*.bin`/`*.idx` trains on them as well as on the packed shards.
//! - [`pack::pack`] turns all parts into the final `shards/tokens/NNNNN.bin/.idx` (and
//!   optionally datatrove `.ds`) of a target size, applying the `[shards.mix]` mixture
//!   (upsampling by repetition, downsampling by a seeded choice, temperature sampling across
//!   languages) and a seeded shuffle within each shard; it writes the manifests last.
//! - [`takedown::takedown`] removes documents by URL, prefix or domain after the fact,
//!   rewriting only the shards that hold them.
//!
//! ```
//! use trawl_shards::{PartBuilder, ShardsConfig};
//! let cfg = ShardsConfig::default();
//! let tok = cfg.load_tokenizer().unwrap();
//! let mut b = PartBuilder::new(&cfg, &tok, "00000");
//! b.add(&trawl_core::Document::new("https://h/a", "Hello world."));
//! let out = b.finish();
//! let docs = trawl_shards::megatron::read(&out.idx, &out.bin).unwrap();
//! assert_eq!(docs[0].len() as u64, out.manifest.tokens);
//! ```
#![deny(missing_docs)]

pub mod datatrove;
mod fastbpe;
pub mod megatron;
pub mod mix;
pub mod pack;
pub mod takedown;
mod tokenizer;
pub mod train;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use trawl_core::{Consent, Document};

pub use mix::{MixBucket, MixConfig};
pub use tokenizer::{Tokenizer, TokenizerInfo};

/// Output formats of the final shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardFormat {
    /// Megatron-LM indexed dataset (`.bin` + `.idx`).
    Megatron,
    /// datatrove's `.ds` + `.ds.index` + `.ds.metadata`.
    Datatrove,
}

/// The `[shards]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShardsConfig {
    /// Whether `trawl run` writes token shards.
    pub enabled: bool,
    /// A bundled tiktoken encoding (`cl100k_base`, `o200k_base`) or a path to a Hugging
    /// Face `tokenizer.json`.
    pub tokenizer: String,
    /// End-of-document token of a tokenizer.json (default: the first of `<|endoftext|>`,
    /// `</s>`, `<eos>`, ... that exists).
    pub eos_token: Option<String>,
    /// Beginning-of-document token of a tokenizer.json (used with `prepend_bos`).
    pub bos_token: Option<String>,
    /// Append the end-of-document token to every document.
    pub append_eos: bool,
    /// Prepend the beginning-of-document token (needs `bos_token`).
    pub prepend_bos: bool,
    /// Final shards are closed once they hold at least this many tokens (a shard is
    /// assembled in memory to be shuffled: about 4 bytes per token).
    pub target_shard_tokens: u64,
    /// Formats written for the final shards.
    pub formats: Vec<ShardFormat>,
    /// Seed of the shuffle of documents within each final shard.
    pub shuffle_seed: u64,
    /// The mixture.
    pub mix: MixConfig,
}

impl Default for ShardsConfig {
    fn default() -> Self {
        ShardsConfig {
            enabled: true,
            tokenizer: "cl100k_base".into(),
            eos_token: None,
            bos_token: None,
            append_eos: true,
            prepend_bos: false,
            target_shard_tokens: 100_000_000,
            formats: vec![ShardFormat::Megatron],
            shuffle_seed: 0,
            mix: MixConfig::default(),
        }
    }
}

impl ShardsConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, r: String| Err((format!("shards.{k}"), r));
        if !tokenizer::KNOWN.contains(&self.tokenizer.as_str())
            && !std::path::Path::new(&self.tokenizer).is_file()
        {
            return bad(
                "tokenizer",
                format!(
                    "`{}` is neither a bundled encoding ({}) nor an existing tokenizer.json file",
                    self.tokenizer,
                    tokenizer::KNOWN.join(", ")
                ),
            );
        }
        // a file must load (a truncated download or another format is caught here, not
        // after a night of extraction)
        if !tokenizer::KNOWN.contains(&self.tokenizer.as_str()) {
            if let Err(e) = self.load_tokenizer() {
                return bad(
                    "tokenizer",
                    format!("`{}` cannot be loaded: {e}", self.tokenizer),
                );
            }
        }
        if self.prepend_bos && self.bos_token.is_none() {
            return bad("prepend_bos", "needs shards.bos_token".into());
        }
        if self.target_shard_tokens == 0 {
            return bad("target_shard_tokens", "must be at least 1".into());
        }
        if self.formats.is_empty() {
            return bad(
                "formats",
                "at least one of \"megatron\", \"datatrove\"".into(),
            );
        }
        self.mix.validate()
    }

    /// Loads the configured tokenizer.
    pub fn load_tokenizer(&self) -> Result<Tokenizer, String> {
        Tokenizer::load(
            &self.tokenizer,
            self.eos_token.as_deref(),
            self.bos_token.as_deref(),
        )
    }
}

/// One document in a manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestDoc {
    /// DocId.
    pub id: String,
    /// The page URL.
    #[serde(default)]
    pub url: String,
    /// XXH3-64 of the URL, hex: joins and lookups without comparing URLs.
    pub url_digest: String,
    /// Host of the URL (mixture buckets by domain).
    #[serde(default)]
    pub host: String,
    /// ISO 639-3 language.
    #[serde(default)]
    pub lang: String,
    /// Source label (a document's top-level `source`, as dolma writes it), if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// Tokens written (with EOS/BOS).
    pub tokens: u64,
    /// Which copy this is when the mixture repeats a document (0 for the first).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub copy: u32,
    /// Consent record.
    pub consent: Consent,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// The manifest of one shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// Shard name.
    pub shard: String,
    /// `.bin` path relative to the run root.
    pub bin: String,
    /// `.idx` path relative to the run root.
    pub idx: String,
    /// datatrove `.ds` path, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ds: Option<String>,
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
    /// Every document, in the order of the shard.
    pub docs: Vec<ManifestDoc>,
}

impl ShardManifest {
    /// The shard's Megatron data prefix: its `.bin` path without the extension.
    pub fn prefix(&self) -> String {
        self.bin
            .strip_suffix(".bin")
            .unwrap_or(&self.bin)
            .to_string()
    }
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
    /// The Megatron data prefixes of the final shards (`shards/tokens/00000`, ...: what
    /// `--data-path` takes), in shard order.
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// Every shard with its documents.
    pub shards: Vec<ShardManifest>,
}

impl Manifest {
    /// Builds the run manifest from shard manifests (sorted by name; empty shards left out).
    pub fn merge(mut parts: Vec<ShardManifest>) -> Option<Manifest> {
        parts.sort_by(|a, b| a.shard.cmp(&b.shard));
        let tokenizer = parts.first()?.tokenizer.clone();
        parts.retain(|p| p.documents > 0);
        Some(Manifest {
            tokenizer,
            documents: parts.iter().map(|p| p.documents).sum(),
            tokens: parts.iter().map(|p| p.tokens).sum(),
            prefixes: parts.iter().map(ShardManifest::prefix).collect(),
            shards: parts,
        })
    }
}

/// Where tokenized parts live: intermediate, outside `shards/`.
pub const PARTS_DIR: &str = "_parts/shards";
/// Where parts lived before they moved out of `shards/` (read by `pack` so older roots pack).
pub const LEGACY_PARTS_DIR: &str = "shards/parts";

/// The key of a part's file: `_parts/shards/<name>.<ext>` (`json`, `tokens`, `tokidx`).
pub fn part_key(name: &str, ext: &str) -> String {
    format!("{PARTS_DIR}/{name}.{ext}")
}

/// The bytes of a tokenized part.
#[derive(Debug)]
pub struct PartOutput {
    /// `.bin` content.
    pub bin: Vec<u8>,
    /// `.idx` content.
    pub idx: Vec<u8>,
    /// The part's manifest.
    pub manifest: ShardManifest,
}

/// Tokenizes the documents of one input shard into a part (input order).
#[derive(Debug)]
pub struct PartBuilder<'t> {
    tok: &'t Tokenizer,
    append_eos: bool,
    bos: Option<u32>,
    writer: megatron::Writer,
    manifest: ShardManifest,
}

/// The source label of a document: dolma's top-level `source`, if a string.
pub fn source_of(doc: &Document) -> String {
    doc.extra
        .get("source")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

impl<'t> PartBuilder<'t> {
    /// A builder for part `name` (paths [`part_key`]) with a loaded
    /// tokenizer (see [`ShardsConfig::load_tokenizer`]).
    pub fn new(cfg: &ShardsConfig, tok: &'t Tokenizer, name: &str) -> PartBuilder<'t> {
        let info = tok.info();
        let dtype = megatron::DType::for_vocab(info.vocab_size);
        PartBuilder {
            append_eos: cfg.append_eos,
            bos: if cfg.prepend_bos { info.bos } else { None },
            writer: megatron::Writer::new(dtype),
            manifest: ShardManifest {
                shard: name.to_string(),
                bin: part_key(name, "tokens"),
                idx: part_key(name, "tokidx"),
                ds: None,
                tokenizer: info,
                dtype: dtype.name().to_string(),
                documents: 0,
                tokens: 0,
                languages: BTreeMap::new(),
                docs: Vec::new(),
            },
            tok,
        }
    }

    /// Tokenizes and appends one document; returns its token count.
    pub fn add(&mut self, doc: &Document) -> u64 {
        let mut ids = Vec::new();
        if let Some(b) = self.bos {
            ids.push(b);
        }
        ids.extend(self.tok.encode(&doc.text));
        if self.append_eos {
            ids.push(self.tok.info().eos);
        }
        let n = ids.len() as u64;
        self.writer.add_document(&ids);
        self.manifest.documents += 1;
        self.manifest.tokens += n;
        let lang = doc.meta.lang.clone().unwrap_or_else(|| "und".into());
        *self.manifest.languages.entry(lang.clone()).or_default() += 1;
        self.manifest.docs.push(ManifestDoc {
            id: doc.id.as_str().to_string(),
            url: doc.url.clone(),
            url_digest: url_digest(&doc.url),
            host: doc
                .host()
                .map(|h| {
                    h.rsplit_once(':')
                        .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
                        .map_or(h, |(h, _)| h)
                        .to_ascii_lowercase()
                })
                .unwrap_or_default(),
            lang,
            source: source_of(doc),
            tokens: n,
            copy: 0,
            consent: doc.consent.clone(),
        });
        n
    }

    /// The finished part.
    pub fn finish(self) -> PartOutput {
        let (bin, idx) = self.writer.finish();
        PartOutput {
            bin,
            idx,
            manifest: self.manifest,
        }
    }
}

/// XXH3-64 of a URL, hex.
pub fn url_digest(url: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(url.as_bytes()))
}
