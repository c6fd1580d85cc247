use std::path::Path;

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

/// The bundled tiktoken encodings.
pub(crate) const KNOWN: &[&str] = &["cl100k_base", "o200k_base"];

/// What a manifest records about the tokenizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenizerInfo {
    /// Encoding name, or the tokenizer.json path.
    pub name: String,
    /// XXH3-64 of the tokenizer definition (tokenizer.json bytes, or the tiktoken name and
    /// crate version), hex: shards made with different tokenizers never mix unnoticed.
    #[serde(default)]
    pub digest: String,
    /// Vocabulary size (largest id + 1).
    pub vocab_size: u32,
    /// End-of-document token id.
    pub eos: u32,
    /// Beginning-of-document token id, if the tokenizer has one configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bos: Option<u32>,
}

enum Inner {
    /// An instance of its own: threads sharing one `CoreBPE` (tiktoken-rs' singletons) share
    /// its regex's cache pool, and the second thread takes every match through the pool's
    /// slow path (`trawl extract` with 2 threads spent ~25% more CPU on tokens than with 1).
    Tiktoken(Box<CoreBPE>),
    Hf(
        Box<tokenizers::Tokenizer>,
        Option<Box<crate::fastbpe::FastBpe>>,
    ),
}

/// A tokenizer: tiktoken's bundled encodings (no download) or any Hugging Face
/// `tokenizer.json` (the `tokenizers` crate, without network features).
pub struct Tokenizer {
    inner: Inner,
    info: TokenizerInfo,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokenizer({})", self.info.name)
    }
}

/// Texts longer than this are encoded in pieces cut after a blank line (or a newline),
/// because BPE on one huge string is much slower than on its paragraphs.
const CHUNK: usize = 16 * 1024;

/// EOS spellings tried, in order, when a tokenizer.json is given without `eos_token`.
const EOS_CANDIDATES: &[&str] = &[
    "<|endoftext|>",
    "</s>",
    "<eos>",
    "<|end_of_text|>",
    "[SEP]",
    "<|im_end|>",
];

impl Tokenizer {
    /// A bundled encoding by name (`cl100k_base`, `o200k_base`), or a path to a
    /// `tokenizer.json`. `eos`/`bos` name special tokens of a tokenizer.json.
    pub fn load(spec: &str, eos: Option<&str>, bos: Option<&str>) -> Result<Tokenizer, String> {
        if KNOWN.contains(&spec) {
            if eos.is_some() || bos.is_some() {
                return Err(format!("`{spec}` has a fixed end-of-text token; eos_token/bos_token apply to tokenizer.json files"));
            }
            return Self::by_name(spec);
        }
        let path = Path::new(spec);
        let bytes = std::fs::read(path).map_err(|e| {
            format!(
                "`{spec}` is neither a bundled encoding ({}) nor a readable tokenizer.json: {e}",
                KNOWN.join(", ")
            )
        })?;
        let tok = tokenizers::Tokenizer::from_bytes(&bytes)
            .map_err(|e| format!("{spec}: not a valid tokenizer.json: {e}"))?;
        let find = |name: &str| {
            tok.token_to_id(name)
                .ok_or_else(|| format!("{spec}: token `{name}` is not in the vocabulary"))
        };
        let eos_id = match eos {
            Some(e) => find(e)?,
            None => EOS_CANDIDATES
                .iter()
                .find_map(|c| tok.token_to_id(c))
                .ok_or_else(|| {
                    format!(
                        "{spec}: no end-of-text token found (tried {}); set shards.eos_token",
                        EOS_CANDIDATES.join(", ")
                    )
                })?,
        };
        let bos_id = bos.map(find).transpose()?;
        let fast = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| crate::fastbpe::FastBpe::from_json(&v))
            .map(Box::new);
        let vocab_size = tok.get_vocab_size(true) as u32;
        let info = TokenizerInfo {
            name: spec.to_string(),
            digest: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
            vocab_size,
            eos: eos_id,
            bos: bos_id,
        };
        Ok(Tokenizer {
            inner: Inner::Hf(Box::new(tok), fast),
            info,
        })
    }

    /// A bundled tiktoken encoding by name.
    pub fn by_name(name: &str) -> Result<Tokenizer, String> {
        let (bpe, vocab_size, eos) = match name {
            "cl100k_base" => (tiktoken_rs::cl100k_base(), 100_277, 100_257),
            "o200k_base" => (tiktoken_rs::o200k_base(), 200_019, 199_999),
            other => {
                return Err(format!(
                    "unknown tokenizer `{other}` (known: {})",
                    KNOWN.join(", ")
                ))
            }
        };
        let digest = format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(format!("tiktoken-rs/0.12/{name}").as_bytes())
        );
        Ok(Tokenizer {
            inner: Inner::Tiktoken(Box::new(
                bpe.map_err(|e| format!("building the bundled `{name}` encoding: {e}"))?,
            )),
            info: TokenizerInfo {
                name: name.into(),
                digest,
                vocab_size,
                eos,
                bos: None,
            },
        })
    }

    /// Tokenizer facts for manifests.
    pub fn info(&self) -> TokenizerInfo {
        self.info.clone()
    }

    fn encode_piece(&self, text: &str) -> Vec<u32> {
        match &self.inner {
            Inner::Tiktoken(bpe) => bpe.encode_ordinary(text),
            Inner::Hf(_, Some(fast)) => {
                let mut out = Vec::with_capacity(text.len() / 3);
                fast.encode(text, &mut out);
                out
            }
            Inner::Hf(t, None) => Self::hf_encode(t, text),
        }
    }

    // special tokens are not added: EOS/BOS are placed by the shard writer
    fn hf_encode(t: &tokenizers::Tokenizer, text: &str) -> Vec<u32> {
        t.encode_fast(text, false)
            .map(|e| e.get_ids().to_vec())
            .unwrap_or_default()
    }

    /// Whether a tokenizer.json is served by trawl's fast byte-level BPE encoder (else by
    /// the `tokenizers` crate).
    pub fn is_fast(&self) -> bool {
        matches!(self.inner, Inner::Hf(_, Some(_)))
    }

    /// The ids the `tokenizers` crate gives for a text (tiktoken: the same as
    /// [`Tokenizer::encode`]); used to verify the fast encoder.
    pub fn encode_reference(&self, text: &str) -> Vec<u32> {
        match &self.inner {
            Inner::Tiktoken(bpe) => bpe.encode_ordinary(text),
            Inner::Hf(t, _) => Self::hf_encode(t, text),
        }
    }

    /// Token ids of a text (special-token strings in the text are encoded as ordinary text
    /// by tiktoken; a tokenizer.json follows its own added-token rules).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        if text.len() <= CHUNK {
            return self.encode_piece(text);
        }
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut rest = text;
        while rest.len() > CHUNK {
            let cut = trawl_core::text::floor_char_boundary(rest, CHUNK);
            let window = &rest[..cut];
            let at = window
                .rfind("\n\n")
                .map(|i| i + 2)
                .or_else(|| window.rfind('\n').map(|i| i + 1))
                .filter(|i| *i > CHUNK / 4)
                .unwrap_or(cut);
            out.extend(self.encode_piece(&rest[..at]));
            rest = &rest[at..];
        }
        out.extend(self.encode_piece(rest));
        out
    }

    /// Decodes ids back to text.
    pub fn decode(&self, ids: &[u32]) -> Result<String, String> {
        match &self.inner {
            Inner::Tiktoken(bpe) => bpe.decode(ids).map_err(|e| e.to_string()),
            Inner::Hf(t, _) => t.decode(ids, false).map_err(|e| e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes() {
        for name in KNOWN {
            let t = Tokenizer::by_name(name).unwrap();
            let ids = t.encode("Hello, world! Ceci est un test.");
            assert!(!ids.is_empty());
            assert!(ids.iter().all(|i| *i < t.info().vocab_size));
            assert_eq!(t.decode(&ids).unwrap(), "Hello, world! Ceci est un test.");
        }
        assert!(Tokenizer::by_name("gpt2").is_err());
        assert!(Tokenizer::load("/nonexistent/tokenizer.json", None, None)
            .unwrap_err()
            .contains("neither a bundled encoding"));
        assert!(Tokenizer::load("cl100k_base", Some("</s>"), None).is_err());
    }

    #[test]
    fn chunked_encoding_roundtrips() {
        let t = Tokenizer::by_name("cl100k_base").unwrap();
        let para = "A paragraph of text that repeats. ".repeat(40);
        let text = vec![para.as_str(); 40].join("\n\n");
        let ids = t.encode(&text);
        assert_eq!(t.decode(&ids).unwrap(), text);
    }
}
