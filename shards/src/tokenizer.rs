use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

pub(crate) const KNOWN: &[&str] = &["cl100k_base", "o200k_base"];

/// What a manifest records about the tokenizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenizerInfo {
    /// Encoding name.
    pub name: String,
    /// Vocabulary size (largest id + 1).
    pub vocab_size: u32,
    /// End-of-text token id.
    pub eos: u32,
}

/// A tokenizer: tiktoken's bundled encodings (no download).
pub struct Tokenizer {
    bpe: &'static CoreBPE,
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

impl Tokenizer {
    /// A bundled encoding by name.
    pub fn by_name(name: &str) -> Result<Tokenizer, String> {
        let (bpe, vocab_size, eos) = match name {
            "cl100k_base" => (tiktoken_rs::cl100k_base_singleton(), 100_277, 100_257),
            "o200k_base" => (tiktoken_rs::o200k_base_singleton(), 200_019, 199_999),
            other => return Err(format!("unknown tokenizer `{other}` (known: {})", KNOWN.join(", "))),
        };
        Ok(Tokenizer { bpe, info: TokenizerInfo { name: name.into(), vocab_size, eos } })
    }

    /// Tokenizer facts for manifests.
    pub fn info(&self) -> TokenizerInfo {
        self.info.clone()
    }

    /// Token ids of a text (special tokens are encoded as ordinary text).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        if text.len() <= CHUNK {
            return self.bpe.encode_ordinary(text);
        }
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut rest = text;
        while rest.len() > CHUNK {
            let mut cut = CHUNK;
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let window = &rest[..cut];
            let at = window.rfind("\n\n").map(|i| i + 2).or_else(|| window.rfind('\n').map(|i| i + 1)).filter(|i| *i > CHUNK / 4).unwrap_or(cut);
            out.extend(self.bpe.encode_ordinary(&rest[..at]));
            rest = &rest[at..];
        }
        out.extend(self.bpe.encode_ordinary(rest));
        out
    }

    /// Decodes ids back to text.
    pub fn decode(&self, ids: &[u32]) -> Result<String, String> {
        self.bpe.decode(ids).map_err(|e| e.to_string())
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
