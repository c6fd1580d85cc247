//! Model-based quality: fastText supervised classifiers (the pure-Rust `fasttext` crate),
//! one per language. Scoring writes `attrs.quality.<lang>` (the probability of the positive
//! label); the filter drops below a per-language threshold. `train` fits a model from
//! labelled JSONL with a held-out validation split and reports precision, recall and AUC.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use fasttext::args::{Args, LossName, ModelName};
use fasttext::matrix::Matrix as _;
use fasttext::FastText;
use serde::{Deserialize, Serialize};
use trawl_core::{Document, DropReason, Filter, Map, RecordError, Verdict};

/// Below the language's quality threshold.
pub const QUALITY_LOW: DropReason = DropReason::new("quality_low");

/// The `[filter.quality]` section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QualityConfig {
    /// Model file per language (whatlang's ISO 639-3 code, e.g. `eng = "models/en.bin"`).
    pub models: BTreeMap<String, String>,
    /// Minimum score per language; a language with a model but no threshold is scored only.
    pub thresholds: BTreeMap<String, f64>,
}

impl QualityConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        for (lang, path) in &self.models {
            if path != BUILTIN_ENG && !Path::new(path).is_file() {
                return Err((
                    format!("filter.quality.models.{lang}"),
                    format!("{path} is not a file (train one with `trawl filter train-quality`)"),
                ));
            }
        }
        for (lang, t) in &self.thresholds {
            if !(0.0..=1.0).contains(t) {
                return Err((
                    format!("filter.quality.thresholds.{lang}"),
                    format!("{t} is not a probability"),
                ));
            }
        }
        Ok(())
    }
}

/// The name of the shipped English model in `[filter.quality.models]`.
pub const BUILTIN_ENG: &str = "builtin:eng";

/// The default English model (`filter/models/quality-eng.bin`, built by
/// `filter/models/build_default_quality.py`).
static DEFAULT_ENG: &[u8] = include_bytes!("../models/quality-eng.bin");

const POSITIVE: &str = "__label__hq";
const NEGATIVE: &str = "__label__lq";

/// What the classifier sees: one line, lowercased, at most 20,000 characters.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(80_000));
    for w in classifier_words(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        trawl_core::text::push_lowercase(&mut out, w);
    }
    out
}

/// The words [`normalize`] keeps (before lowercasing).
fn classifier_words(text: &str) -> std::str::SplitWhitespace<'_> {
    // no shorter text in bytes has more characters
    let cut = if text.len() <= 20_000 {
        text.len()
    } else {
        text.char_indices()
            .nth(20_000)
            .map_or(text.len(), |(i, _)| i)
    };
    text[..cut].split_whitespace()
}

/// A loaded model, with a faster route to its score when the model allows it.
struct Model {
    ft: FastText,
    /// Word -> id, for models that are not quantized (the crate's tokenizer hashes and
    /// compares every token through its own table and allocates for every unknown word).
    /// Keyed by the word's 64-bit xxh3 hash, not the word: a lookup touches one small entry
    /// instead of a string elsewhere in memory (the chain's other stages evict the model
    /// between documents, so misses dominate). Two different words share a key with odds
    /// of about 2^-64 per lookup against each vocabulary word; at load, vocabulary words
    /// that collide among themselves turn the fast route off.
    vocab: Option<rustc_hash::FxHashMap<u64, i32>>,
    /// For softmax models, the input rows projected on the output matrix (see [`Projected`]).
    proj: Option<Projected>,
}

/// A softmax model's logits are the output matrix times the mean of the document's input
/// rows, which is linear: the mean of each row's product with the output matrix. So every
/// input row is multiplied by the output matrix once, at load (one number per label, two
/// for a quality model, instead of `dim`), and a vocabulary word's rows (the word's and its
/// character n-grams', about ten with the default `maxn` 6) are summed once too. Scoring a
/// known word is then one addition per label; the result equals the crate's within float
/// rounding (`fast_scores_match_the_crate`).
struct Projected {
    labels: usize,
    /// Per input row (words, then hash buckets), its logits.
    rows: Vec<f32>,
    /// Per vocabulary word, `labels + 1` numbers: the sum of its rows' logits, then how many
    /// rows that is (exact in f32), side by side so a word costs one cache line.
    words: Vec<f32>,
}

impl Model {
    fn new(ft: FastText) -> Model {
        let fast = !ft.is_quant();
        let d = ft.dict();
        let vocab = if fast { vocab_by_key(d) } else { None };
        let softmax = fast && ft.args().loss == LossName::Softmax && ft.dict().nlabels() > 0;
        let proj = softmax.then(|| {
            let (input, output) = (ft.input_matrix(), ft.output_matrix());
            let labels = d.nlabels() as usize;
            let mut rows = Vec::with_capacity(input.rows() as usize * labels);
            for r in 0..input.rows() {
                let row = input.row(r);
                rows.extend((0..labels).map(|l| {
                    output
                        .row(l as i64)
                        .iter()
                        .zip(row)
                        .map(|(a, b)| f64::from(*a) * f64::from(*b))
                        .sum::<f64>()
                }));
            }
            let mut words = Vec::with_capacity(d.nwords() as usize * (labels + 1));
            let mut sum = vec![0f64; labels];
            for id in 0..d.nwords() {
                let sub = d.get_subwords(id);
                sum.fill(0.0);
                for &r in sub {
                    add(
                        &mut sum,
                        &rows[r as usize * labels..(r as usize + 1) * labels],
                    );
                }
                words.extend(sum.iter().map(|x| *x as f32));
                words.push(sub.len() as f32);
            }
            // stored as f32 (half the memory the chain's other stages evict between
            // documents; summed in f64 when scoring)
            Projected {
                labels,
                rows: rows.into_iter().map(|x| x as f32).collect(),
                words,
            }
        });
        Model { ft, vocab, proj }
    }

    /// The probability of the positive label for `text` (normalised as [`normalize`] does).
    fn score(&self, text: &str) -> f64 {
        let Some(vocab) = &self.vocab else {
            return positive_prob(&self.ft, &normalize(text));
        };
        let a = self.ft.args();
        let dict = self.ft.dict();
        let nwords = dict.nwords();
        let subwords = a.maxn > 0;
        // with `proj`: the running sum of the rows' logits and their count; without: the
        // row ids, for the crate's prediction
        let labels = self.proj.as_ref().map_or(0, |p| p.labels);
        // f64 sums: a long document adds tens of thousands of rows
        let mut logits = vec![0f64; labels];
        let mut n = 0usize;
        let mut rows: Vec<i32> = Vec::new();
        let take = |rows: &mut Vec<i32>, logits: &mut [f64], n: &mut usize, r: i32| match &self.proj
        {
            Some(p) => {
                add(
                    logits,
                    &p.rows[r as usize * labels..(r as usize + 1) * labels],
                );
                *n += 1;
            }
            None => rows.push(r),
        };
        let mut hashes: Vec<i32> = Vec::with_capacity(text.len() / 4);
        let mut buf = String::new();
        let mut marked = String::new();
        for w in classifier_words(text) {
            buf.clear();
            trawl_core::text::push_lowercase(&mut buf, w);
            let id = vocab.get(&word_key(&buf)).copied();
            // tokens that look like labels are not words (fastText's rule)
            if id.is_none() && buf.starts_with(a.label.as_str()) {
                continue;
            }
            match (id, &self.proj) {
                (Some(id), Some(p)) => {
                    let w = &p.words[id as usize * (labels + 1)..(id as usize + 1) * (labels + 1)];
                    add(&mut logits, &w[..labels]);
                    n += w[labels] as usize;
                }
                (Some(id), None) if subwords => rows.extend_from_slice(dict.get_subwords(id)),
                (Some(id), None) => rows.push(id),
                (None, _) if subwords && buf != EOS => {
                    marked.clear();
                    marked.push('<');
                    marked.push_str(&buf);
                    marked.push('>');
                    char_ngrams(marked.as_bytes(), a.minn, a.maxn, a.bucket as u32, |h| {
                        take(&mut rows, &mut logits, &mut n, nwords + h)
                    });
                }
                (None, _) => {}
            }
            hashes.push(fnv1a(buf.as_bytes()) as i32);
            if buf == EOS {
                break;
            }
        }
        let bucket = a.bucket as u64;
        if bucket > 0 && a.word_ngrams > 1 {
            for i in 0..hashes.len() {
                let mut h = hashes[i] as i64 as u64;
                for &hj in &hashes[i + 1..hashes.len().min(i + a.word_ngrams as usize)] {
                    h = h.wrapping_mul(116_049_371).wrapping_add(hj as i64 as u64);
                    take(&mut rows, &mut logits, &mut n, nwords + (h % bucket) as i32);
                }
            }
        }
        if rows.is_empty() && n == 0 {
            return positive_prob_of(&[]);
        }
        if let Some(&eos) = vocab.get(&word_key(EOS)) {
            take(&mut rows, &mut logits, &mut n, eos);
        }
        if self.proj.is_none() {
            return positive_prob_of(&self.ft.predict_on_words(&rows, 2, 0.0));
        }
        // softmax over the labels, as the crate computes it
        let logits: Vec<f32> = logits.iter().map(|x| (x / n as f64) as f32).collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let z: f32 = exps.iter().sum();
        let prob = |label: &str| {
            (0..dict.nlabels())
                .find(|&i| dict.get_label(i).ok() == Some(label))
                .map(|i| f64::from(((exps[i as usize] / z) + 1e-5).ln().exp()))
        };
        match (prob(POSITIVE), prob(NEGATIVE)) {
            (Some(p), _) => p.clamp(0.0, 1.0),
            (None, Some(q)) => (1.0 - q).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }
}

fn add<T: Copy + Into<f64>>(acc: &mut [f64], row: &[T]) {
    for (a, r) in acc.iter_mut().zip(row) {
        *a += (*r).into();
    }
}

const EOS: &str = "</s>";

/// Word key -> id for every vocabulary word; `None` if two words share a key.
fn vocab_by_key(d: &fasttext::dictionary::Dictionary) -> Option<rustc_hash::FxHashMap<u64, i32>> {
    let map: rustc_hash::FxHashMap<u64, i32> = (0..d.nwords())
        .map(|id| (word_key(d.get_word(id)), id))
        .collect();
    (map.len() == d.nwords() as usize).then_some(map)
}

/// The key of a word in [`Model`]'s vocabulary map.
fn word_key(w: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(w.as_bytes())
}

/// fastText's character n-grams of a marked word (`<word>`), as bucket numbers: n-grams of
/// `minn..=maxn` characters, not the lone markers, hashed with [`fnv1a`] modulo `bucket`.
/// What `Dictionary::compute_subwords` gives for a model that is not pruned (every model
/// the fast route takes), without its allocation per position and with each hash extended
/// byte by byte instead of recomputed per n-gram.
fn char_ngrams(word: &[u8], minn: i32, maxn: i32, bucket: u32, mut f: impl FnMut(i32)) {
    if maxn <= 0 || bucket == 0 {
        return;
    }
    let cont = |b: u8| b & 0xC0 == 0x80;
    for i in 0..word.len() {
        if cont(word[i]) {
            continue;
        }
        let mut h = 2_166_136_261u32;
        let mut j = i;
        let mut n = 1;
        while j < word.len() && n <= maxn {
            loop {
                h = (h ^ (word[j] as i8 as i32 as u32)).wrapping_mul(16_777_619);
                j += 1;
                if j >= word.len() || !cont(word[j]) {
                    break;
                }
            }
            if n >= minn && !(n == 1 && (i == 0 || j == word.len())) {
                f((h % bucket) as i32);
            }
            n += 1;
        }
    }
}

/// fastText's word hash (FNV-1a over bytes read as signed chars).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(2_166_136_261u32, |h, &b| {
        (h ^ (b as i8 as i32 as u32)).wrapping_mul(16_777_619)
    })
}

/// Loaded models.
pub struct Quality {
    models: BTreeMap<String, Model>,
}

impl std::fmt::Debug for Quality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quality")
            .field("languages", &self.models.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Quality {
    /// Loads every configured model (`builtin:eng` is the default English model shipped in
    /// the binary, see `filter/models/README.md`).
    pub fn load(cfg: &QualityConfig) -> Result<Quality, (String, String)> {
        let mut models = BTreeMap::new();
        for (lang, path) in &cfg.models {
            let key = format!("filter.quality.models.{lang}");
            let m = if path == BUILTIN_ENG {
                FastText::load(&mut std::io::Cursor::new(DEFAULT_ENG))
                    .map_err(|e| (key, format!("the built-in model: {e}")))?
            } else {
                load_model(path).map_err(|e| (key, e))?
            };
            models.insert(lang.clone(), Model::new(m));
        }
        Ok(Quality { models })
    }

    /// The probability of the positive label for `text` under `lang`'s model.
    pub fn score(&self, lang: &str, text: &str) -> Option<f64> {
        Some(self.models.get(lang)?.score(text))
    }
}

/// Loads a fastText model file. Quantized models (`.ftz`, `fasttext quantize`) are refused:
/// the `fasttext` crate misreads them (fastText's own lid.176.ftz labels German and Tamil
/// sentences `ar` at probability 1.0 through it), so they would mislabel every document
/// silently.
pub fn load_model(path: &str) -> Result<FastText, String> {
    let m = FastText::load_model(path).map_err(|e| format!("cannot load {path}: {e}"))?;
    if m.is_quant() {
        return Err(format!(
            "{path} is a quantized fastText model (.ftz), which trawl's fastText reader \
             misreads; give the unquantized .bin (or train one with `trawl filter train-quality`)"
        ));
    }
    Ok(m)
}

fn positive_prob(m: &FastText, line: &str) -> f64 {
    positive_prob_of(&m.predict(line, 2, 0.0))
}

fn positive_prob_of(preds: &[fasttext::fasttext::Prediction]) -> f64 {
    if let Some(p) = preds.iter().find(|p| p.label == POSITIVE) {
        return f64::from(p.prob).clamp(0.0, 1.0);
    }
    preds
        .iter()
        .find(|p| p.label == NEGATIVE)
        .map_or(0.0, |p| (1.0 - f64::from(p.prob)).clamp(0.0, 1.0))
}

impl Map for Quality {
    fn name(&self) -> &'static str {
        "quality_score"
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        let lang = doc
            .attrs
            .get("lang")
            .and_then(|l| l["code"].as_str())
            .unwrap_or("und")
            .to_string();
        if let Some(p) = self.score(&lang, &doc.text) {
            let q = doc
                .attrs
                .entry("quality".to_string())
                .or_insert_with(|| serde_json::json!({}));
            if let Some(o) = q.as_object_mut() {
                o.insert(lang, serde_json::json!((p * 10_000.0).round() / 10_000.0));
            }
        }
        Ok(())
    }
}

/// Drops documents whose `attrs.quality.<lang>` is below the language's threshold.
#[derive(Debug)]
pub struct QualityFilter {
    /// Thresholds per language.
    pub thresholds: BTreeMap<String, f64>,
}

impl Filter for QualityFilter {
    fn name(&self) -> &'static str {
        "quality"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        let lang = doc
            .attrs
            .get("lang")
            .and_then(|l| l["code"].as_str())
            .unwrap_or("und");
        let (Some(t), Some(q)) = (
            self.thresholds.get(lang),
            doc.attrs
                .get("quality")
                .and_then(|q| q.get(lang))
                .and_then(|v| v.as_f64()),
        ) else {
            return Verdict::Keep;
        };
        if q < *t {
            Verdict::Drop(QUALITY_LOW)
        } else {
            Verdict::Keep
        }
    }
}

/// Training options.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Share of the examples held out for validation (chosen by a hash of the text).
    pub valid_fraction: f64,
    /// Passes over the data.
    pub epochs: i32,
    /// Learning rate.
    pub lr: f64,
    /// Word n-grams.
    pub word_ngrams: i32,
    /// Embedding size.
    pub dim: i32,
    /// Hash buckets for n-grams (model size grows with `dim` x (`bucket` + vocabulary)).
    pub bucket: i32,
    /// Random seed.
    pub seed: i32,
    /// Character n-grams of words, shortest and longest (`maxn` 0: none, fastText's default
    /// for classifiers; they help with misspellings and rare words but multiply the rows
    /// averaged per word, and with them the scoring time, by about ten).
    pub minn: i32,
    /// See `minn`.
    pub maxn: i32,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            valid_fraction: 0.1,
            epochs: 10,
            lr: 0.5,
            word_ngrams: 2,
            dim: 64,
            bucket: 200_000,
            seed: 1,
            minn: 0,
            maxn: 0,
        }
    }
}

/// What training measured on the validation split.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TrainReport {
    /// Examples trained on (positive, negative).
    pub train: (usize, usize),
    /// Examples validated on (positive, negative).
    pub valid: (usize, usize),
    /// Precision of the positive class at 0.5.
    pub precision: f64,
    /// Recall of the positive class at 0.5.
    pub recall: f64,
    /// Accuracy at 0.5.
    pub accuracy: f64,
    /// Area under the ROC curve.
    pub auc: f64,
}

/// Whether a label value means "high quality": `hq`, `high`, `good`, `pos`, `positive`,
/// `1`, `true` (strings, numbers or booleans).
pub fn is_positive(v: &serde_json::Value) -> Option<bool> {
    match v {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::Number(n) => n.as_f64().map(|x| x >= 0.5),
        serde_json::Value::String(s) => {
            let s = s
                .trim()
                .trim_start_matches("__label__")
                .to_ascii_lowercase();
            match s.as_str() {
                "hq" | "high" | "good" | "pos" | "positive" | "1" | "true" | "keep" => Some(true),
                "lq" | "low" | "bad" | "neg" | "negative" | "0" | "false" | "drop" => Some(false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Trains a model from JSONL lines with `text` and `label`; writes it to `output`.
pub fn train(input: &Path, output: &Path, opts: &TrainOptions) -> Result<TrainReport, String> {
    let file =
        std::fs::File::open(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let mut train_set: Vec<(bool, String)> = Vec::new();
    let mut valid_set: Vec<(bool, String)> = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: line {}: {e}", input.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| format!("{}: line {}: not JSON: {e}", input.display(), i + 1))?;
        let text = v["text"]
            .as_str()
            .ok_or_else(|| format!("{}: line {}: no `text` string", input.display(), i + 1))?;
        let label = is_positive(&v["label"]).ok_or_else(|| {
            format!(
                "{}: line {}: `label` must be hq/lq, good/bad, 1/0 or true/false",
                input.display(),
                i + 1
            )
        })?;
        let norm = normalize(text);
        if norm.is_empty() {
            continue;
        }
        let h = xxhash_rust::xxh3::xxh3_64(norm.as_bytes()) % 10_000;
        if (h as f64) < opts.valid_fraction * 10_000.0 {
            valid_set.push((label, norm));
        } else {
            train_set.push((label, norm));
        }
    }
    let count = |s: &[(bool, String)]| {
        (
            s.iter().filter(|x| x.0).count(),
            s.iter().filter(|x| !x.0).count(),
        )
    };
    let (tp, tn) = count(&train_set);
    if tp == 0 || tn == 0 {
        return Err(format!(
            "the training split needs both labels (positive {tp}, negative {tn})"
        ));
    }
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let train_file = dir.path().join("train.txt");
    {
        let mut w =
            std::io::BufWriter::new(std::fs::File::create(&train_file).map_err(|e| e.to_string())?);
        for (label, text) in &train_set {
            writeln!(w, "{} {}", if *label { POSITIVE } else { NEGATIVE }, text)
                .map_err(|e| e.to_string())?;
        }
        w.flush().map_err(|e| e.to_string())?;
    }
    let args = Args {
        input: train_file,
        model: ModelName::Supervised,
        loss: LossName::Softmax,
        epoch: opts.epochs,
        lr: opts.lr,
        word_ngrams: opts.word_ngrams,
        dim: opts.dim,
        min_count: 1,
        bucket: opts.bucket,
        minn: opts.minn,
        maxn: opts.maxn,
        thread: 1, // deterministic
        seed: opts.seed,
        verbose: 0,
        ..Default::default()
    };
    let model = FastText::train(args).map_err(|e| format!("training: {e}"))?;
    if let Some(parent) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    model
        .save_model(output)
        .map_err(|e| format!("writing {}: {e}", output.display()))?;
    let mut report = TrainReport {
        train: (tp, tn),
        valid: count(&valid_set),
        ..Default::default()
    };
    let scored: Vec<(bool, f64)> = valid_set
        .iter()
        .map(|(l, t)| (*l, positive_prob(&model, t)))
        .collect();
    let (mut tp_, mut fp, mut fn_, mut ok) = (0usize, 0usize, 0usize, 0usize);
    for (l, p) in &scored {
        let pred = *p >= 0.5;
        tp_ += usize::from(pred && *l);
        fp += usize::from(pred && !*l);
        fn_ += usize::from(!pred && *l);
        ok += usize::from(pred == *l);
    }
    report.precision = if tp_ + fp > 0 {
        tp_ as f64 / (tp_ + fp) as f64
    } else {
        0.0
    };
    report.recall = if tp_ + fn_ > 0 {
        tp_ as f64 / (tp_ + fn_) as f64
    } else {
        0.0
    };
    report.accuracy = if scored.is_empty() {
        0.0
    } else {
        ok as f64 / scored.len() as f64
    };
    report.auc = auc(&scored);
    Ok(report)
}

/// ROC AUC: the probability that a random positive scores above a random negative (ties
/// count half).
pub fn auc(scored: &[(bool, f64)]) -> f64 {
    let pos: Vec<f64> = scored.iter().filter(|x| x.0).map(|x| x.1).collect();
    let mut neg: Vec<f64> = scored.iter().filter(|x| !x.0).map(|x| x.1).collect();
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    neg.sort_by(f64::total_cmp);
    let mut s = 0.0;
    for p in &pos {
        let below = neg.partition_point(|n| n < p);
        let upto = neg.partition_point(|n| n <= p);
        s += below as f64 + 0.5 * (upto - below) as f64;
    }
    s / (pos.len() * neg.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_and_labels() {
        assert_eq!(auc(&[(true, 0.9), (false, 0.1)]), 1.0);
        assert_eq!(auc(&[(true, 0.1), (false, 0.9)]), 0.0);
        assert_eq!(auc(&[(true, 0.5), (false, 0.5)]), 0.5);
        assert_eq!(is_positive(&serde_json::json!("__label__hq")), Some(true));
        assert_eq!(is_positive(&serde_json::json!(0)), Some(false));
        assert_eq!(is_positive(&serde_json::json!("maybe")), None);
    }

    #[test]
    fn char_ngrams_are_the_crates_subwords() {
        let ft = FastText::load(&mut std::io::Cursor::new(DEFAULT_ENG)).unwrap();
        let (a, d) = (ft.args(), ft.dict());
        for w in [
            "zzqxv",
            "a",
            "",
            "naïve",
            "日本語テキスト",
            "ΣΑΣ",
            "x1-y2_z3",
            "supercalifragilistic",
        ] {
            let marked = format!("<{w}>");
            let mut want = Vec::new();
            d.compute_subwords(&marked, &mut want);
            let mut got = Vec::new();
            char_ngrams(marked.as_bytes(), a.minn, a.maxn, a.bucket as u32, |h| {
                got.push(d.nwords() + h)
            });
            assert_eq!(got, want, "{w}");
        }
    }

    #[test]
    fn fast_scores_match_the_crate() {
        let m = Model::new(FastText::load(&mut std::io::Cursor::new(DEFAULT_ENG)).unwrap());
        assert!(
            m.vocab.is_some() && m.proj.is_some(),
            "the built-in model is a softmax model, not quantized: the fast route applies"
        );
        let texts = [
            "The council approved the new library budget after a long debate on Tuesday evening.",
            "HOME | ABOUT | CONTACT\nCookie policy accept all\n\n© 2024",
            "ΟΔΟΣ ΣΑΣ και η Straße İstanbul: mixed scripts, unknown words zzqxv, __label__hq __label__zz tokens",
            "words before </s> and after the end-of-sentence token",
            "",
            "   \t\n ",
            &"a long document with repeated words. ".repeat(3_000),
        ];
        for t in texts {
            let want = positive_prob(&m.ft, &normalize(t));
            assert!(
                (m.score(t) - want).abs() < 1e-5,
                "{t:.60}: {} vs {want}",
                m.score(t)
            );
        }
    }

    #[test]
    fn trains_scores_and_filters() {
        // prose against navigation/boilerplate lines, each generated from word lists
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("labelled.jsonl");
        let mut f = std::fs::File::create(&input).unwrap();
        let subjects = [
            "The council",
            "A small bookshop",
            "Scientists",
            "The harbour town",
            "Engineers",
            "Farmers in the valley",
            "The library",
            "Volunteers",
        ];
        let verbs = [
            "approved a plan to",
            "decided to",
            "began to",
            "hope to",
            "were asked to",
            "agreed to",
        ];
        let objects = [
            "plant trees along the avenues",
            "replace the old pipes",
            "count the wading birds",
            "open the market earlier",
            "lend laptops to students",
            "clear litter from the beaches",
        ];
        let nav = [
            "Home",
            "Login",
            "Sign up",
            "Cookie settings",
            "Privacy",
            "Share on Facebook",
            "Next page",
            "Subscribe",
            "Menu",
            "Search",
            "Contact",
            "Terms of use",
        ];
        let mut n = 0;
        for (i, s) in subjects.iter().enumerate() {
            for (j, v) in verbs.iter().enumerate() {
                for (k, o) in objects.iter().enumerate() {
                    let text = format!("{s} {v} {o}, officials said on Monday. The work will take {} years and residents were told in advance.", i + j + k + 1);
                    writeln!(f, "{}", serde_json::json!({"text": text, "label": "hq"})).unwrap();
                    let junk: Vec<&str> = (0..8)
                        .map(|x| nav[(i * 7 + j * 3 + k + x * 5) % nav.len()])
                        .collect();
                    writeln!(
                        f,
                        "{}",
                        serde_json::json!({"text": junk.join(" | "), "label": 0})
                    )
                    .unwrap();
                    n += 2;
                }
            }
        }
        drop(f);
        let model = dir.path().join("m/en.bin");
        let r = train(
            &input,
            &model,
            &TrainOptions {
                epochs: 20,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.train.0 + r.train.1 + r.valid.0 + r.valid.1, n);
        assert!(r.valid.0 > 0 && r.valid.1 > 0, "{r:?}");
        assert!(r.auc > 0.95 && r.precision > 0.9 && r.recall > 0.9, "{r:?}");
        // scoring and the filter
        let cfg = QualityConfig {
            models: [("eng".to_string(), model.display().to_string())].into(),
            thresholds: [("eng".to_string(), 0.5)].into(),
        };
        cfg.validate().unwrap();
        let q = Quality::load(&cfg).unwrap();
        let mut good = Document::new("https://x/a", "The library decided to open the market earlier, officials said on Monday. The work will take two years.");
        let mut bad = Document::new(
            "https://x/b",
            "Home | Login | Cookie settings | Share on Facebook | Next page | Menu",
        );
        for d in [&mut good, &mut bad] {
            d.attrs
                .insert("lang".into(), serde_json::json!({"code": "eng"}));
            q.map(d).unwrap();
        }
        let (g, b) = (
            good.attrs["quality"]["eng"].as_f64().unwrap(),
            bad.attrs["quality"]["eng"].as_f64().unwrap(),
        );
        assert!(g > 0.5 && b < 0.5, "good {g}, bad {b}");
        let filt = QualityFilter {
            thresholds: cfg.thresholds.clone(),
        };
        assert_eq!(filt.filter(&good), Verdict::Keep);
        assert_eq!(filt.filter(&bad), Verdict::Drop(QUALITY_LOW));
        // another language without a model: not scored, kept
        let mut de = Document::new("https://x/c", "Home | Login");
        de.attrs
            .insert("lang".into(), serde_json::json!({"code": "deu"}));
        q.map(&mut de).unwrap();
        assert!(!de.attrs.contains_key("quality"));
        assert_eq!(filt.filter(&de), Verdict::Keep);
        // the shipped English model: article prose above page furniture
        let b = Quality::load(&QualityConfig {
            models: [("eng".to_string(), BUILTIN_ENG.to_string())].into(),
            ..Default::default()
        })
        .unwrap();
        let prose = "The city council approved a plan to plant two thousand trees along the main avenues over the next five years. Supporters argue that the trees will cool the streets in summer, absorb rainwater and make walking more pleasant, while critics worry about the cost of maintenance.";
        let furniture = "Home\nNews\nSport\nSubscribe to our newsletter\nAccept cookies\nShare on Facebook\nTerms of use\nPrivacy policy";
        let (p, f) = (
            b.score("eng", prose).unwrap(),
            b.score("eng", furniture).unwrap(),
        );
        assert!(p > 0.5 && f < 0.5, "prose {p}, furniture {f}");
        // config errors name the key
        let bad_cfg = QualityConfig {
            models: [("fra".to_string(), "/nonexistent.bin".to_string())].into(),
            ..Default::default()
        };
        assert_eq!(
            bad_cfg.validate().unwrap_err().0,
            "filter.quality.models.fra"
        );
    }
}
