//! Training a byte-level BPE tokenizer on curated documents.

use std::collections::BTreeMap;

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::byte_level::ByteLevel as ByteLevelProcessor;
use tokenizers::{AddedToken, TokenizerBuilder};
use trawl_core::Document;

/// Options of `trawl shards train-tokenizer`.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Target vocabulary size (including special tokens).
    pub vocab_size: usize,
    /// Pairs seen fewer times are not merged.
    pub min_frequency: u64,
    /// Special tokens, added first (the first is the end-of-text token).
    pub special_tokens: Vec<String>,
    /// Sample documents per language with this temperature (`None`: use every document
    /// as given). Language `l` with `n_l` characters gets a budget proportional to
    /// `n_l^(1/T)`: T = 1 keeps the natural mix, larger T flattens it so low-resource
    /// languages get their share of merges.
    pub lang_temperature: Option<f64>,
    /// With sampling: total characters of training text.
    pub max_chars: usize,
    /// Seed of the sampling.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            vocab_size: 32_000,
            min_frequency: 2,
            special_tokens: vec!["<|endoftext|>".into()],
            lang_temperature: None,
            max_chars: 1 << 30,
            seed: 0,
        }
    }
}

/// Which documents train the tokenizer, and each language's share (for the printed table).
pub fn sample_by_language(
    docs: &[Document],
    opts: &TrainOptions,
) -> (Vec<usize>, BTreeMap<String, (u64, u64)>) {
    let mut by_lang: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, d) in docs.iter().enumerate() {
        by_lang
            .entry(d.meta.lang.clone().unwrap_or_else(|| "und".into()))
            .or_default()
            .push(i);
    }
    let chars = |ix: &Vec<usize>| ix.iter().map(|i| docs[*i].text.len() as u64).sum::<u64>();
    let mut table = BTreeMap::new();
    let Some(t) = opts.lang_temperature else {
        for (l, ix) in &by_lang {
            table.insert(l.clone(), (chars(ix), chars(ix)));
        }
        return ((0..docs.len()).collect(), table);
    };
    let weights: BTreeMap<&String, f64> = by_lang
        .iter()
        .map(|(l, ix)| (l, (chars(ix) as f64).powf(1.0 / t.max(1e-6))))
        .collect();
    let total_w: f64 = weights.values().sum();
    let mut chosen = Vec::new();
    for (l, ix) in &by_lang {
        let budget = (opts.max_chars as f64 * weights[l] / total_w) as u64;
        // seeded order; documents of a small language are repeated until it fills its budget
        let mut order = ix.clone();
        order.sort_by_key(|i| {
            xxhash_rust::xxh3::xxh3_64_with_seed(docs[*i].id.as_str().as_bytes(), opts.seed)
        });
        let (mut used, mut k) = (0u64, 0usize);
        let avail = chars(ix);
        let cap = budget.min(avail.saturating_mul(4)); // at most 4 passes over a tiny language
        while used < cap && !order.is_empty() {
            let i = order[k % order.len()];
            used += docs[i].text.len() as u64;
            chosen.push(i);
            k += 1;
        }
        table.insert(l.clone(), (avail, used));
    }
    chosen.sort_unstable();
    (chosen, table)
}

/// Trains a byte-level BPE and returns the tokenizer.json text.
pub fn train_bpe<'a>(
    texts: impl Iterator<Item = &'a str> + Send,
    opts: &TrainOptions,
) -> Result<String, String> {
    let specials: Vec<AddedToken> = opts
        .special_tokens
        .iter()
        .map(|s| AddedToken::from(s.clone(), true))
        .collect();
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(opts.vocab_size)
        .min_frequency(opts.min_frequency)
        .special_tokens(specials)
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .show_progress(false)
        .build();
    let mut tok = TokenizerBuilder::new()
        .with_model(BPE::default())
        .with_normalizer(None::<tokenizers::NormalizerWrapper>)
        .with_pre_tokenizer(Some(ByteLevel::new(false, true, true)))
        .with_post_processor(Some(ByteLevelProcessor::new(false, true, true)))
        .with_decoder(Some(ByteLevelDecoder::default()))
        .build()
        .map_err(|e| e.to_string())?;
    tok.train(&mut trainer, texts).map_err(|e| e.to_string())?;
    let mut t: tokenizers::Tokenizer = tok.into();
    t.add_special_tokens(
        &opts
            .special_tokens
            .iter()
            .map(|s| AddedToken::from(s.clone(), true))
            .collect::<Vec<_>>(),
    );
    t.to_string(true).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trains_a_usable_tokenizer_with_language_sampling() {
        let mut docs = Vec::new();
        for i in 0..200 {
            let mut d = Document::new(
                format!("u{i}"),
                format!("the harbour town woke slowly on day {i} as ferries crossed the water"),
            );
            d.meta.lang = Some("eng".into());
            docs.push(d);
        }
        for i in 0..5 {
            let mut d = Document::new(
                format!("f{i}"),
                format!("le petit village accueille des randonneurs {i}"),
            );
            d.meta.lang = Some("fra".into());
            docs.push(d);
        }
        let opts = TrainOptions {
            vocab_size: 400,
            lang_temperature: Some(3.0),
            max_chars: 20_000,
            ..Default::default()
        };
        let (chosen, table) = sample_by_language(&docs, &opts);
        let fra_used = table["fra"].1 as f64;
        let eng_used = table["eng"].1 as f64;
        assert!(
            fra_used / (fra_used + eng_used) > 0.05,
            "flattened: {table:?}"
        );
        let json = train_bpe(chosen.iter().map(|i| docs[*i].text.as_str()), &opts).unwrap();
        let dir = std::env::temp_dir().join(format!("trawl-tok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("tokenizer.json");
        std::fs::write(&p, json).unwrap();
        let t = crate::Tokenizer::load(p.to_str().unwrap(), None, None).unwrap();
        let info = t.info();
        assert!(info.vocab_size <= 400 && info.vocab_size > 256, "{info:?}");
        assert_eq!(info.eos, 0, "the first special token is EOS");
        let text = "the harbour town woke slowly; le village accueille";
        let ids = t.encode(text);
        assert!(ids.len() < text.len(), "merges happened");
        assert_eq!(t.decode(&ids).unwrap(), text);
    }
}
