//! `trawl-captions`: image/alt-text pairs and OBELICS-style interleaved documents from
//! extracted documents, with their images fetched, checked and de-duplicated.
//!
//! A shard goes through [`Captioner::plan`] (every image of every document becomes a
//! candidate pair; the page's consent, declared sizes and the alt-text filters decide what
//! is worth fetching), then the caller fetches the planned URLs (the binary does it with
//! the crawler's [`ResourceFetcher`](../trawl_crawler/struct.ResourceFetcher.html): robots.txt,
//! politeness, SSRF guard), then [`Captioner::assemble`] decodes and checks every image
//! ([`image::check`]), applies the image's own opt-out (`X-Robots-Tag: noimageai`/`noai`,
//! robots.txt for the training token), removes exact and perceptual duplicates across all
//! pairs seen so far ([`ImageDedup`]), scores image-text alignment when a model is
//! configured ([`align`]), and writes WebDataset shards ([`wds`]).
//!
//! ```
//! use trawl_core::{Document, ImageRef};
//! let mut doc = Document::new("https://h/p", "A paragraph before. A paragraph after.");
//! doc.images.push(ImageRef { src: "https://h/cat.jpg".into(), alt: "A grey cat asleep on a red sofa".into(), offset: 19, ..Default::default() });
//! let c = trawl_captions::Captioner::new(Default::default());
//! let plan = c.plan(std::slice::from_ref(&doc));
//! assert_eq!(plan.urls, vec!["https://h/cat.jpg".to_string()]);
//! ```
#![deny(missing_docs)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Attrs, Document, DropReason, ImageTextPair, InterleavedDoc, StageStats};

pub mod align;
#[cfg(feature = "clip")]
mod clip;
pub mod image;
pub mod phash;
pub mod wds;

pub use image::{CheckedImage, ImageConfig};

/// Drop reasons for image/alt-text pairs.
pub mod reasons {
    use trawl_core::DropReason;
    /// No alt text.
    pub const ALT_MISSING: DropReason = DropReason::new("alt_missing");
    /// Placeholder alt ("image", "logo", a file name).
    pub const ALT_PLACEHOLDER: DropReason = DropReason::new("alt_placeholder");
    /// Alt text with too few words.
    pub const ALT_TOO_SHORT: DropReason = DropReason::new("alt_too_short");
    /// Alt text with too many words (keyword stuffing, whole paragraphs).
    pub const ALT_TOO_LONG: DropReason = DropReason::new("alt_too_long");
    /// The same alt text on several different images of one site: boilerplate.
    pub const ALT_REPEATED: DropReason = DropReason::new("alt_repeated");
    /// Alt text in a language outside `alt_languages`.
    pub const ALT_LANGUAGE: DropReason = DropReason::new("alt_language");
    /// The page or the image opts out of image training (`noimageai`/`noai`, robots.txt for
    /// the training token) or of training at all.
    pub const IMAGE_OPT_OUT: DropReason = DropReason::new("image_opt_out");
    /// Declared size marks a tracking pixel or icon.
    pub const DECORATIVE: DropReason = DropReason::new("decorative");
    /// The same image bytes as an earlier pair.
    pub const DUPLICATE_EXACT: DropReason = DropReason::new("image_duplicate_exact");
    /// Perceptually the same image as an earlier pair (pHash within the distance).
    pub const DUPLICATE_PHASH: DropReason = DropReason::new("image_duplicate_phash");
    /// Image-text alignment score under the threshold.
    pub const LOW_ALIGNMENT: DropReason = DropReason::new("low_alignment");
}

/// How images are fetched (politeness, robots.txt and the guard come from `[crawl]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FetchConfig {
    /// Hosts fetched at once.
    pub concurrency: usize,
    /// Per-image request timeout, seconds.
    pub timeout_secs: u64,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            concurrency: 16,
            timeout_secs: 20,
        }
    }
}

/// The `[captions.alignment]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct AlignmentConfig {
    /// Directory of a CLIP-style model (`config.json`, `model.safetensors`,
    /// `tokenizer.json`); unset: no alignment score (the stage says so once).
    pub model: Option<String>,
    /// Pairs scoring below this (cosine similarity of the embeddings) are dropped as
    /// `low_alignment`; unset: scores are written but nothing is dropped.
    pub threshold: Option<f32>,
}

/// The `[captions]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CaptionsConfig {
    /// Whether `trawl run` writes pairs and interleaved documents.
    pub enabled: bool,
    /// Pairs whose alt text has fewer words are dropped.
    pub min_alt_words: usize,
    /// Pairs whose alt text has more words are dropped.
    pub max_alt_words: usize,
    /// Alt languages kept (whatlang codes like `eng`; empty: any). Alts whose language
    /// guess has under 0.5 confidence (short alts) are kept.
    pub alt_languages: Vec<String>,
    /// An alt text used for this many different images of one host within a shard is
    /// boilerplate (`alt_repeated`); 0 turns the check off.
    pub max_alt_repeats: usize,
    /// Bytes of text kept on each side of an image as its context.
    pub context_bytes: usize,
    /// Images declared smaller than this (either side, pixels) are decorative.
    pub min_declared_side: u32,
    /// Write interleaved documents (their images are fetched even when the alt text fails).
    pub interleaved: bool,
    /// Remove pairs whose image duplicates an earlier pair's (exact bytes, then pHash).
    pub dedup: bool,
    /// Largest pHash Hamming distance counted as the same image (at most 7).
    pub phash_max_distance: u32,
    /// Threads decoding and checking images (0: all cores).
    pub threads: usize,
    /// Knowledge-domain tagging: domain name -> keywords matched as whole words
    /// (case-insensitive) in alt text, caption and context; matches go to `attrs.domains`.
    pub domains: BTreeMap<String, Vec<String>>,
    /// Image fetching.
    pub fetch: FetchConfig,
    /// Image decoding, checks and stored form.
    pub images: ImageConfig,
    /// Image-text alignment scoring.
    pub alignment: AlignmentConfig,
}

impl Default for CaptionsConfig {
    fn default() -> Self {
        CaptionsConfig {
            enabled: true,
            min_alt_words: 3,
            max_alt_words: 64,
            alt_languages: Vec::new(),
            max_alt_repeats: 3,
            context_bytes: 300,
            min_declared_side: 32,
            interleaved: true,
            dedup: true,
            phash_max_distance: 4,
            threads: 0,
            domains: BTreeMap::new(),
            fetch: FetchConfig::default(),
            images: ImageConfig::default(),
            alignment: AlignmentConfig::default(),
        }
    }
}

impl CaptionsConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.context_bytes > 100_000 {
            return Err(("captions.context_bytes".into(), "at most 100000".into()));
        }
        if self.max_alt_words < self.min_alt_words {
            return Err((
                "captions.max_alt_words".into(),
                format!(
                    "{} is below min_alt_words ({})",
                    self.max_alt_words, self.min_alt_words
                ),
            ));
        }
        if self.phash_max_distance > 7 {
            return Err((
                "captions.phash_max_distance".into(),
                format!(
                    "{} is above 7 (the index finds every hash within 7 bits)",
                    self.phash_max_distance
                ),
            ));
        }
        if self.fetch.concurrency == 0 {
            return Err((
                "captions.fetch.concurrency".into(),
                "must be at least 1".into(),
            ));
        }
        if self.fetch.timeout_secs == 0 {
            return Err((
                "captions.fetch.timeout_secs".into(),
                "must be at least 1".into(),
            ));
        }
        for l in &self.alt_languages {
            if whatlang::Lang::from_code(l).is_none() {
                return Err((
                    "captions.alt_languages".into(),
                    format!("`{l}` is not a whatlang language code (ISO 639-3, like `eng`)"),
                ));
            }
        }
        for (d, kws) in &self.domains {
            if kws.iter().any(|k| k.trim().is_empty()) {
                return Err((format!("captions.domains.{d}"), "empty keyword".into()));
            }
        }
        if let Some(dir) = &self.alignment.model {
            // the model loads when the stage first runs; its files are checked here, with the
            // rest of the configuration
            for f in ["config.json", "model.safetensors", "tokenizer.json"] {
                if !std::path::Path::new(dir).join(f).is_file() {
                    return Err((
                        "captions.alignment.model".into(),
                        format!("{dir} has no {f} (a Hugging Face CLIP directory is expected)"),
                    ));
                }
            }
        }
        if let Some(t) = self.alignment.threshold {
            if !(-1.0..=1.0).contains(&t) {
                return Err((
                    "captions.alignment.threshold".into(),
                    format!("{t} is outside [-1, 1] (a cosine similarity)"),
                ));
            }
        }
        self.images.validate()
    }
}

/// An image as the fetcher returned it.
#[derive(Debug, Clone)]
pub struct FetchedImage {
    /// The bytes.
    pub body: Vec<u8>,
    /// The response's Content-Type.
    pub content_type: Option<String>,
    /// The response's X-Robots-Tag.
    pub x_robots_tag: Option<String>,
    /// Whether robots.txt allows the training token this image.
    pub training_allowed: bool,
    /// AI-use preferences for the image's URL and in its own response headers.
    pub signals: Vec<trawl_core::signals::ConsentSignal>,
}

/// A fetch outcome: the image or why there is none.
pub type FetchOutcome = Result<FetchedImage, (DropReason, String)>;

/// Where captions gets its images. trawl wires in the crawler's fetcher (the crawl's
/// robots.txt groups, per-host politeness, redirect and size caps, AI-use signals) by config;
/// tests and other tools can bring their own. The stage crate depends on no other.
pub trait ImageFetcher {
    /// One outcome per URL, in the order given.
    fn fetch(&self, urls: &[String]) -> Vec<FetchOutcome>;
}

/// A checked image, or why it was refused.
pub type CheckOutcome = Result<Arc<CheckedImage>, (DropReason, String)>;

/// An interleaved document with its images (file name in the sample, image).
pub type InterleavedWithImages = (InterleavedDoc, Vec<(String, Arc<CheckedImage>)>);

/// A shard's WebDataset files: (pairs tar, pairs index rows, interleaved tar, its rows).
pub type ShardFiles = (
    Vec<u8>,
    Vec<serde_json::Value>,
    Vec<u8>,
    Vec<serde_json::Value>,
);

/// One image of one document.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index of the document in the shard.
    pub doc: usize,
    /// Index of the image in the document.
    pub index: usize,
    /// The pair (attrs carry the alt-text signals).
    pub pair: ImageTextPair,
    /// Why the pair is dropped before its image is looked at (consent, declared size,
    /// alt text), if it is.
    pub early: Option<(DropReason, String)>,
    /// Whether the image may appear in the interleaved document (the page allows image
    /// use and the declared size is not decorative).
    pub for_interleaved: bool,
}

/// What a shard asks for: its candidates and the distinct image URLs to fetch.
#[derive(Debug, Default)]
pub struct Plan {
    /// Every image of every document.
    pub candidates: Vec<Candidate>,
    /// Distinct URLs to fetch, sorted.
    pub urls: Vec<String>,
}

/// A kept pair with its stored image.
#[derive(Debug, Clone)]
pub struct KeptPair {
    /// WebDataset key (`<doc id>-<image index>`).
    pub key: String,
    /// The pair; `attrs` holds alt signals, image size, hashes and scores.
    pub pair: ImageTextPair,
    /// The stored image.
    pub image: Arc<CheckedImage>,
}

/// What a shard yields.
#[derive(Debug, Default)]
pub struct ShardOutput {
    /// Kept pairs, in document order.
    pub pairs: Vec<KeptPair>,
    /// Interleaved documents with their images (file name in the sample, image).
    pub interleaved: Vec<InterleavedWithImages>,
    /// Dropped pairs with reason and detail.
    pub dropped: Vec<(ImageTextPair, DropReason, String)>,
    /// Per-stage counters (seen = candidate pairs, kept = pairs written).
    pub stats: StageStats,
}

/// Images seen by earlier pairs, for duplicate removal across shards.
#[derive(Debug, Default)]
pub struct ImageDedup {
    exact: HashMap<u64, String>,
    phash: crate::phash::HammingIndex<String>,
}

impl ImageDedup {
    /// Registers a kept pair's image (also used to seed from committed shards on resume).
    pub fn insert(&mut self, exact: u64, phash: u64, key: &str) {
        self.exact.entry(exact).or_insert_with(|| key.to_string());
        self.phash.insert(phash, key.to_string());
    }

    /// The earlier pair this image duplicates, with the reason.
    pub fn find(&self, exact: u64, phash: u64, max_distance: u32) -> Option<(DropReason, String)> {
        if let Some(k) = self.exact.get(&exact) {
            return Some((reasons::DUPLICATE_EXACT, format!("same bytes as {k}")));
        }
        self.phash.find(phash, max_distance).map(|(k, d)| {
            (
                reasons::DUPLICATE_PHASH,
                format!("pHash within {d} bits of {k}"),
            )
        })
    }
}

/// Builds pairs and interleaved documents.
#[derive(Clone)]
pub struct Captioner {
    cfg: CaptionsConfig,
    keywords: Option<(aho_corasick::AhoCorasick, Vec<String>)>,
    scorer: Option<Arc<dyn align::AlignmentScorer>>,
    signals: trawl_core::signals::SignalPolicy,
}

impl std::fmt::Debug for Captioner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Captioner")
            .field("cfg", &self.cfg)
            .field("scorer", &self.scorer.as_ref().map(|s| s.name()))
            .finish()
    }
}

const PLACEHOLDERS: &[&str] = &[
    "image",
    "img",
    "photo",
    "picture",
    "logo",
    "icon",
    "spacer",
    "banner",
    "thumbnail",
    "untitled",
    "placeholder",
    "blank",
    "pixel",
    "null",
    "undefined",
    "alt",
    "image description",
    "no image",
    "loading",
    "avatar",
    "profile picture",
    "click here",
    "click to enlarge",
    "advertisement",
];

fn is_placeholder(alt: &str) -> bool {
    let a = alt
        .trim()
        .trim_matches(|c: char| c.is_ascii_punctuation())
        .to_lowercase();
    if PLACEHOLDERS.contains(&a.as_str()) {
        return true;
    }
    let exts = [".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".bmp"];
    if exts.iter().any(|e| a.ends_with(e)) && !a.contains(' ') {
        return true;
    }
    // camera file names: IMG_1234, DSC01234, dscn0001
    let compact: String = a.chars().filter(|c| !c.is_whitespace()).collect();
    ["img_", "img-", "dsc", "dscn", "pict", "dcim"]
        .iter()
        .any(|p| {
            compact.starts_with(p)
                && compact[p.len()..]
                    .chars()
                    .take(3)
                    .all(|c| c.is_ascii_digit())
                && compact.len() > p.len()
        })
}

/// Up to `bytes` of text on each side of `offset`, cut at whitespace so no word is split.
fn context_around(text: &str, offset: usize, bytes: usize) -> &str {
    let mut start = trawl_core::text::floor_char_boundary(text, offset.saturating_sub(bytes));
    let mut end = trawl_core::text::floor_char_boundary(text, offset.saturating_add(bytes));
    if start > 0 && !text[..start].ends_with(char::is_whitespace) {
        // skip the partial word at the front
        start = text[start..end]
            .find(char::is_whitespace)
            .map_or(start, |i| start + i);
    }
    if end < text.len() && !text[end..].starts_with(char::is_whitespace) {
        end = text[start..end]
            .rfind(char::is_whitespace)
            .map_or(end, |i| start + i);
    }
    text[start..end].trim()
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

/// Whether an X-Robots-Tag value opts the image out of AI training.
fn opts_out(x_robots_tag: &str) -> bool {
    x_robots_tag
        .to_ascii_lowercase()
        .split([',', ' ', ';', ':'])
        .any(|t| t == "noai" || t == "noimageai")
}

impl Captioner {
    /// A captioner for this configuration, without an alignment scorer.
    pub fn new(cfg: CaptionsConfig) -> Self {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (d, kws) in &cfg.domains {
            for k in kws {
                patterns.push(k.trim().to_lowercase());
                owners.push(d.clone());
            }
        }
        let keywords = (!patterns.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(&patterns)
                    .ok()
                    .map(|ac| (ac, owners))
            })
            .flatten();
        Captioner {
            cfg,
            keywords,
            scorer: None,
            signals: Default::default(),
        }
    }

    /// What AI-use preference signals do (`[filter.consent_signals]`), for pages and for
    /// each image's own response.
    pub fn set_signal_policy(&mut self, p: trawl_core::signals::SignalPolicy) {
        self.signals = p;
    }

    /// Adds an alignment scorer: scores go to `attrs.alignment`, and pairs under
    /// `alignment.threshold` are dropped.
    pub fn with_scorer(mut self, scorer: Arc<dyn align::AlignmentScorer>) -> Self {
        self.set_scorer(scorer);
        self
    }

    /// Sets the alignment scorer in place (see [`Captioner::with_scorer`]).
    pub fn set_scorer(&mut self, scorer: Arc<dyn align::AlignmentScorer>) {
        self.scorer = Some(scorer);
    }

    /// The configuration.
    pub fn config(&self) -> &CaptionsConfig {
        &self.cfg
    }

    fn tag_domains(&self, texts: &[&str]) -> Vec<String> {
        let Some((ac, owners)) = &self.keywords else {
            return Vec::new();
        };
        let mut out = BTreeSet::new();
        for t in texts {
            for m in ac.find_iter(t) {
                let before = t[..m.start()].chars().next_back();
                let after = t[m.end()..].chars().next();
                if before.is_none_or(|c| !c.is_alphanumeric())
                    && after.is_none_or(|c| !c.is_alphanumeric())
                {
                    out.insert(owners[m.pattern().as_usize()].clone());
                }
            }
        }
        out.into_iter().collect()
    }

    /// Every image of every document as a candidate pair with its alt-text signals and the
    /// early decision, and the distinct URLs worth fetching.
    pub fn plan(&self, docs: &[Document]) -> Plan {
        let mut plan = Plan::default();
        // alt texts used for several different images of one host are boilerplate
        let mut alt_images: HashMap<(&str, String), HashSet<&str>> = HashMap::new();
        for d in docs {
            for im in &d.images {
                let alt = im.alt.trim().to_lowercase();
                if !alt.is_empty() {
                    alt_images
                        .entry((host_of(&d.url), alt))
                        .or_default()
                        .insert(im.src.as_str());
                }
            }
        }
        let mut urls = BTreeSet::new();
        for (di, doc) in docs.iter().enumerate() {
            let page_opt_out = doc.consent.noimageai
                || doc.consent.noai
                || doc.consent.training_allowed == Some(false)
                || self.signals.opt_out(&doc.consent.signals).is_some();
            for (ii, im) in doc.images.iter().enumerate() {
                let context =
                    context_around(&doc.text, im.offset, self.cfg.context_bytes).to_string();
                let words = im.alt.split_whitespace().count();
                let mut attrs = Attrs::new();
                attrs.insert("alt_words".into(), json!(words));
                // whatlang guesses wildly on a few words: only confident guesses count
                let lang = (words >= 3)
                    .then(|| whatlang::detect(&im.alt))
                    .flatten()
                    .filter(|l| l.confidence() >= 0.5);
                if let Some(l) = &lang {
                    attrs.insert("alt_lang".into(), json!(l.lang().code()));
                    attrs.insert(
                        "alt_lang_confidence".into(),
                        json!((l.confidence() * 1000.0).round() / 1000.0),
                    );
                }
                let domains =
                    self.tag_domains(&[&im.alt, im.caption.as_deref().unwrap_or(""), &context]);
                if !domains.is_empty() {
                    attrs.insert("domains".into(), json!(domains));
                }
                if let (Some(w), Some(h)) = (im.width, im.height) {
                    attrs.insert("declared_size".into(), json!([w, h]));
                }
                let repeats = alt_images
                    .get(&(host_of(&doc.url), im.alt.trim().to_lowercase()))
                    .map_or(0, HashSet::len);
                let decorative = im.width.is_some_and(|w| w < self.cfg.min_declared_side)
                    || im.height.is_some_and(|h| h < self.cfg.min_declared_side);
                let early = if page_opt_out {
                    Some((
                        reasons::IMAGE_OPT_OUT,
                        "the page opts out (noimageai/noai, robots.txt for the training token, or an AI-use signal)"
                            .to_string(),
                    ))
                } else if decorative {
                    Some((
                        reasons::DECORATIVE,
                        format!(
                            "declared {}x{}",
                            im.width.map_or("?".into(), |w| w.to_string()),
                            im.height.map_or("?".into(), |h| h.to_string())
                        ),
                    ))
                } else if im.alt.trim().is_empty() {
                    Some((reasons::ALT_MISSING, String::new()))
                } else if is_placeholder(&im.alt) {
                    Some((reasons::ALT_PLACEHOLDER, im.alt.clone()))
                } else if words < self.cfg.min_alt_words {
                    Some((reasons::ALT_TOO_SHORT, format!("{words} words")))
                } else if words > self.cfg.max_alt_words {
                    Some((reasons::ALT_TOO_LONG, format!("{words} words")))
                } else if self.cfg.max_alt_repeats > 0 && repeats >= self.cfg.max_alt_repeats {
                    Some((
                        reasons::ALT_REPEATED,
                        format!("on {repeats} images of {}", host_of(&doc.url)),
                    ))
                } else if !self.cfg.alt_languages.is_empty()
                    && lang.as_ref().is_some_and(|l| {
                        !self.cfg.alt_languages.iter().any(|a| a == l.lang().code())
                    })
                {
                    Some((
                        reasons::ALT_LANGUAGE,
                        lang.map(|l| l.lang().code().to_string())
                            .unwrap_or_default(),
                    ))
                } else {
                    None
                };
                let for_interleaved = self.cfg.interleaved && !page_opt_out && !decorative;
                if early.is_none() || for_interleaved {
                    urls.insert(im.src.clone());
                }
                let pair = ImageTextPair {
                    doc_id: Some(doc.id.clone()),
                    page_url: doc.url.clone(),
                    image_url: im.src.clone(),
                    alt: im.alt.clone(),
                    title: im.title.clone(),
                    caption: im.caption.clone(),
                    context,
                    attrs,
                    consent: doc.consent.clone(),
                };
                plan.candidates.push(Candidate {
                    doc: di,
                    index: ii,
                    pair,
                    early,
                    for_interleaved,
                });
            }
        }
        plan.urls = urls.into_iter().collect();
        plan
    }

    /// One shard: plans the images of `docs`, fetches them through `fetcher`, and
    /// assembles pairs and interleaved documents ([`Captioner::plan`] then
    /// [`Captioner::assemble`]).
    pub fn caption(
        &self,
        docs: &[Document],
        fetcher: &dyn ImageFetcher,
        dedup: &mut ImageDedup,
    ) -> ShardOutput {
        let plan = self.plan(docs);
        let fetched = fetcher.fetch(&plan.urls);
        self.assemble(docs, plan, fetched, dedup)
    }

    /// Decodes and checks the fetched images (in parallel), then builds the shard's kept
    /// and dropped pairs and its interleaved documents. `fetched` holds one outcome per URL
    /// of `plan.urls`; `dedup` holds the images of earlier shards and learns this one's.
    pub fn assemble(
        &self,
        docs: &[Document],
        plan: Plan,
        fetched: Vec<FetchOutcome>,
        dedup: &mut ImageDedup,
    ) -> ShardOutput {
        let mut out = ShardOutput::default();
        let mut fetched = fetched;
        fetched.resize_with(plan.urls.len(), || {
            Err((DropReason::new("fetch_error"), "no fetch result".into()))
        });
        let checked = self.check_images(fetched);
        let images: HashMap<&str, &CheckOutcome> = plan
            .urls
            .iter()
            .map(String::as_str)
            .zip(checked.iter())
            .collect();
        let st = &mut out.stats;
        st.count("images_fetch_planned", plan.urls.len() as u64);
        st.count(
            "images_ok",
            checked.iter().filter(|c| c.is_ok()).count() as u64,
        );
        for c in &checked {
            if let Err((r, _)) = c {
                st.count(
                    &format!("image_{}", r.as_str().trim_start_matches("image_")),
                    1,
                );
            }
        }
        // pairs: early reasons, then the image, then alignment, then duplicates (so a copy
        // that fails the alignment threshold never blocks a better-described copy)
        let mut survivors: Vec<(Candidate, Arc<CheckedImage>)> = Vec::new();
        for cand in plan.candidates.iter() {
            let mut pair = cand.pair.clone();
            if let Some((r, detail)) = &cand.early {
                out.dropped.push((pair, *r, detail.clone()));
                continue;
            }
            match images.get(cand.pair.image_url.as_str()) {
                Some(Ok(img)) => {
                    add_image_attrs(&mut pair.attrs, img);
                    let mut c = cand.clone();
                    c.pair = pair;
                    survivors.push((c, img.clone()));
                }
                Some(Err((r, d))) => out.dropped.push((pair, *r, d.clone())),
                None => out.dropped.push((
                    pair,
                    trawl_core::DropReason::new("fetch_error"),
                    "not fetched".into(),
                )),
            }
        }
        let scores = self.score(&survivors);
        for ((cand, img), score) in survivors.into_iter().zip(scores) {
            let mut pair = cand.pair;
            if let Some(s) = score {
                pair.attrs
                    .insert("alignment".into(), json!((s * 10000.0).round() / 10000.0));
                if self.cfg.alignment.threshold.is_some_and(|t| s < t) {
                    out.dropped
                        .push((pair, reasons::LOW_ALIGNMENT, format!("score {s:.3}")));
                    continue;
                }
            }
            if let Some((r, d)) = dedup_or(&self.cfg, dedup, &img) {
                out.dropped.push((pair, r, d));
                continue;
            }
            let key = format!(
                "{}-{:04}",
                pair.doc_id
                    .as_ref()
                    .map(|d| d.to_string())
                    .unwrap_or_default(),
                cand.index
            );
            if self.cfg.dedup {
                dedup.insert(img.exact, img.phash, &key);
            }
            out.pairs.push(KeptPair {
                key,
                pair,
                image: img,
            });
        }
        st.seen += plan.candidates.len() as u64;
        st.kept += out.pairs.len() as u64;
        for (_, r, _) in &out.dropped {
            st.drop_for(r.as_str());
        }
        // interleaved documents: the images that passed the image checks, in page order
        if self.cfg.interleaved {
            let mut by_doc: BTreeMap<usize, Vec<&Candidate>> = BTreeMap::new();
            for c in &plan.candidates {
                by_doc.entry(c.doc).or_default().push(c);
            }
            for (di, cands) in by_doc {
                let ok: HashMap<usize, Arc<CheckedImage>> = cands
                    .iter()
                    .filter(|c| c.for_interleaved)
                    .filter_map(|c| match images.get(c.pair.image_url.as_str()) {
                        Some(Ok(img)) => Some((c.index, img.clone())),
                        _ => None,
                    })
                    .collect();
                if ok.is_empty() {
                    continue;
                }
                let (doc, files) = self.interleave(&docs[di], &ok);
                st.count("interleaved_docs", 1);
                st.count("interleaved_images", files.len() as u64);
                out.interleaved.push((doc, files));
            }
        }
        out
    }

    /// Applies each image's own opt-out and decodes and checks it ([`image::check`]), on
    /// `threads` threads; one result per input, in order.
    pub fn check_images(&self, fetched: Vec<FetchOutcome>) -> Vec<CheckOutcome> {
        let threads = if self.cfg.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.cfg.threads
        };
        let one = |f: FetchOutcome| -> CheckOutcome {
            let f = f?;
            if f.x_robots_tag.as_deref().is_some_and(opts_out) {
                return Err((
                    reasons::IMAGE_OPT_OUT,
                    format!("X-Robots-Tag: {}", f.x_robots_tag.unwrap_or_default()),
                ));
            }
            if !f.training_allowed {
                return Err((
                    reasons::IMAGE_OPT_OUT,
                    "robots.txt disallows the training token".into(),
                ));
            }
            if let Some(s) = self.signals.opt_out(&f.signals) {
                return Err((reasons::IMAGE_OPT_OUT, s.describe()));
            }
            image::check(&f.body, f.content_type.as_deref(), &self.cfg.images).map(Arc::new)
        };
        if threads <= 1 || fetched.len() < 4 {
            return fetched.into_iter().map(one).collect();
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let inputs: Vec<std::sync::Mutex<Option<FetchOutcome>>> = fetched
            .into_iter()
            .map(|f| std::sync::Mutex::new(Some(f)))
            .collect();
        let results: Vec<std::sync::Mutex<Option<CheckOutcome>>> = (0..inputs.len())
            .map(|_| std::sync::Mutex::new(None))
            .collect();
        std::thread::scope(|s| {
            for _ in 0..threads.min(inputs.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= inputs.len() {
                        break;
                    }
                    let f = inputs[i]
                        .lock()
                        .expect("input lock")
                        .take()
                        .expect("each input taken once");
                    *results[i].lock().expect("result lock") = Some(one(f));
                });
            }
        });
        results
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .expect("result lock")
                    .expect("every result filled")
            })
            .collect()
    }

    fn score(&self, survivors: &[(Candidate, Arc<CheckedImage>)]) -> Vec<Option<f32>> {
        let Some(scorer) = &self.scorer else {
            return vec![None; survivors.len()];
        };
        let items: Vec<(&CheckedImage, String)> = survivors
            .iter()
            .map(|(c, img)| (img.as_ref(), align::caption_text(&c.pair)))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(32) {
            let refs: Vec<(&CheckedImage, &str)> =
                chunk.iter().map(|(i, t)| (*i, t.as_str())).collect();
            match scorer.score_batch(&refs) {
                Ok(s) => out.extend(s.into_iter().map(Some)),
                Err(e) => {
                    tracing::warn!(error = %e, scorer = scorer.name(), "alignment scoring failed; pairs kept without a score");
                    out.extend(std::iter::repeat_n(None, chunk.len()));
                }
            }
        }
        out
    }

    /// The OBELICS-style interleaved form of a document: text segments and the images in
    /// `ok` (by image index) in their original order, each image with its metadata and the
    /// file name it has in the interleaved shard's sample.
    pub fn interleave(
        &self,
        doc: &Document,
        ok: &HashMap<usize, Arc<CheckedImage>>,
    ) -> (InterleavedDoc, Vec<(String, Arc<CheckedImage>)>) {
        let mut texts = Vec::new();
        let mut images = Vec::new();
        let mut image_meta = Vec::new();
        let mut files = Vec::new();
        let mut pos = 0;
        let mut ims: Vec<(usize, &trawl_core::ImageRef)> = doc.images.iter().enumerate().collect();
        ims.sort_by_key(|(i, im)| (im.offset, *i));
        for (i, im) in ims {
            let Some(img) = ok.get(&i) else { continue };
            let off = trawl_core::text::floor_char_boundary(&doc.text, im.offset).max(pos);
            let seg = doc.text[pos..off].trim();
            if !seg.is_empty() {
                texts.push(Some(seg.to_string()));
                images.push(None);
                image_meta.push(None);
            }
            pos = off;
            let file = format!("{:04}.{}", files.len(), img.extension);
            let mut meta = Attrs::new();
            meta.insert("file".into(), json!(file));
            meta.insert("alt".into(), json!(im.alt));
            if let Some(c) = &im.caption {
                meta.insert("caption".into(), json!(c));
            }
            add_image_attrs(&mut meta, img);
            texts.push(None);
            images.push(Some(im.src.clone()));
            image_meta.push(Some(meta));
            files.push((file, img.clone()));
        }
        let tail = doc.text[pos..].trim();
        if !tail.is_empty() {
            texts.push(Some(tail.to_string()));
            images.push(None);
            image_meta.push(None);
        }
        (
            InterleavedDoc {
                id: Some(doc.id.clone()),
                url: doc.url.clone(),
                texts,
                images,
                image_meta,
                consent: doc.consent.clone(),
                meta: doc.meta.clone(),
            },
            files,
        )
    }
}

fn dedup_or(
    cfg: &CaptionsConfig,
    dedup: &ImageDedup,
    img: &CheckedImage,
) -> Option<(DropReason, String)> {
    if !cfg.dedup {
        return None;
    }
    dedup.find(img.exact, img.phash, cfg.phash_max_distance)
}

fn add_image_attrs(attrs: &mut Attrs, img: &CheckedImage) {
    attrs.insert("image_format".into(), json!(img.format));
    attrs.insert(
        "image_original_size".into(),
        json!([img.original.0, img.original.1]),
    );
    attrs.insert("image_size".into(), json!([img.size.0, img.size.1]));
    attrs.insert("image_bytes".into(), json!(img.bytes.len()));
    attrs.insert("phash".into(), json!(format!("{:016x}", img.phash)));
    attrs.insert("sha".into(), json!(format!("{:016x}", img.exact)));
}

/// Converts a shard's output into WebDataset tars and their JSONL indexes:
/// `(pairs tar, pairs index, interleaved tar, interleaved index)`. Each index line is the
/// sample's JSON plus `key` and the tar members' offsets.
pub fn write_shards(out: &ShardOutput) -> std::io::Result<ShardFiles> {
    let mut pt = wds::TarWriter::new();
    let mut pidx = Vec::new();
    for p in &out.pairs {
        let mut v = serde_json::to_value(&p.pair).map_err(std::io::Error::other)?;
        v["key"] = json!(p.key);
        let body = serde_json::to_vec(&v).map_err(std::io::Error::other)?;
        let img_name = format!("{}.{}", p.key, p.image.extension);
        pt.append(&img_name, &p.image.bytes)?;
        pt.append(&format!("{}.json", p.key), &body)?;
        let n = pt.len();
        v["tar_members"] = json!(pt.members[n - 2..]
            .iter()
            .map(|(name, off, size)| json!({"name": name, "offset": off, "size": size}))
            .collect::<Vec<_>>());
        pidx.push(v);
    }
    let mut it = wds::TarWriter::new();
    let mut iidx = Vec::new();
    for (doc, files) in &out.interleaved {
        let key = doc.id.as_ref().map(|d| d.to_string()).unwrap_or_default();
        let mut v = serde_json::to_value(doc).map_err(std::io::Error::other)?;
        v["key"] = json!(key);
        it.append(
            &format!("{key}.json"),
            &serde_json::to_vec(&v).map_err(std::io::Error::other)?,
        )?;
        for (name, img) in files {
            it.append(&format!("{key}.{name}"), &img.bytes)?;
        }
        v["tar_members"] = json!(it.members[it.len() - 1 - files.len()..]
            .iter()
            .map(|(name, off, size)| json!({"name": name, "offset": off, "size": size}))
            .collect::<Vec<_>>());
        iidx.push(v);
    }
    Ok((pt.finish()?, pidx, it.finish()?, iidx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::ImageRef;

    fn doc_with(alts: &[&str]) -> Document {
        let mut d = Document::new("https://h/p", "Before the images. After the images.");
        for (i, a) in alts.iter().enumerate() {
            d.images.push(ImageRef {
                src: format!("https://h/{i}.jpg"),
                alt: a.to_string(),
                offset: 18,
                ..Default::default()
            });
        }
        d
    }

    /// A PNG of the demo web's photo-like picture (flat shapes over a gradient, with grain),
    /// which keeps its pHash when scaled.
    fn png(seed: u32, w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        ::image::DynamicImage::ImageRgb8(trawl_testweb::demo::picture(seed, w, h))
            .write_to(
                &mut std::io::Cursor::new(&mut out),
                ::image::ImageFormat::Png,
            )
            .unwrap();
        out
    }

    /// `png(seed, w, h)` scaled to half its size: the same photo republished smaller.
    fn png_half(seed: u32, w: u32, h: u32) -> Vec<u8> {
        let full = ::image::load_from_memory(&png(seed, w, h)).unwrap();
        let mut out = Vec::new();
        full.resize_exact(w / 2, h / 2, ::image::imageops::FilterType::Triangle)
            .write_to(
                &mut std::io::Cursor::new(&mut out),
                ::image::ImageFormat::Png,
            )
            .unwrap();
        out
    }

    fn ok(body: Vec<u8>) -> FetchOutcome {
        Ok(FetchedImage {
            body,
            content_type: Some("image/png".into()),
            x_robots_tag: None,
            training_allowed: true,
            signals: Vec::new(),
        })
    }

    #[test]
    fn context_never_splits_a_word() {
        let t = "alpha beta gamma delta epsilon zeta";
        assert_eq!(context_around(t, 17, 8), "gamma delta");
        assert_eq!(context_around(t, 0, 8), "alpha");
        assert_eq!(context_around(t, t.len(), 100), t);
        assert_eq!(
            context_around("ééé ééé ééé", 7, 9),
            "ééé ééé",
            "char boundaries"
        );
        assert_eq!(
            context_around("ééé ééé", 7, 3),
            "",
            "a window inside partial words is empty"
        );
    }

    #[test]
    fn alt_filters_decide_before_fetching() {
        let c = Captioner::new(Default::default());
        let p = c.plan(&[doc_with(&[
            "A grey cat asleep on a sofa",
            "",
            "logo",
            "IMG_1234.JPG",
            "two words",
            "DSC01234",
        ])]);
        let reasons: Vec<Option<&str>> = p
            .candidates
            .iter()
            .map(|c| c.early.as_ref().map(|(r, _)| r.as_str()))
            .collect();
        assert_eq!(
            reasons,
            vec![
                None,
                Some("alt_missing"),
                Some("alt_placeholder"),
                Some("alt_placeholder"),
                Some("alt_too_short"),
                Some("alt_placeholder")
            ]
        );
        assert!(p.candidates[0].pair.context.contains("Before the images."));
        // interleaved documents want every image, whatever its alt
        assert_eq!(p.urls.len(), 6);
        let c = Captioner::new(CaptionsConfig {
            interleaved: false,
            ..Default::default()
        });
        assert_eq!(
            c.plan(&[doc_with(&["A grey cat asleep on a sofa", ""])])
                .urls,
            vec!["https://h/0.jpg".to_string()]
        );
    }

    #[test]
    fn repeated_alts_languages_and_domains() {
        let cfg = CaptionsConfig {
            alt_languages: vec!["eng".into()],
            domains: BTreeMap::from([(
                "astronomy".into(),
                vec!["telescope".into(), "night sky".into()],
            )]),
            ..Default::default()
        };
        let c = Captioner::new(cfg);
        let mut d = doc_with(&[
            "Company banner with our brand",
            "Company banner with our brand",
            "Company banner with our brand",
            "Ein großes Teleskop steht unter dem klaren Nachthimmel in den Bergen",
            "The new telescope under a clear night sky",
        ]);
        d.images[4].src = "https://h/scope.jpg".into();
        let p = c.plan(&[d]);
        let r: Vec<Option<&str>> = p
            .candidates
            .iter()
            .map(|c| c.early.as_ref().map(|(r, _)| r.as_str()))
            .collect();
        assert_eq!(
            r,
            vec![
                Some("alt_repeated"),
                Some("alt_repeated"),
                Some("alt_repeated"),
                Some("alt_language"),
                None
            ]
        );
        assert_eq!(p.candidates[4].pair.attrs["domains"], json!(["astronomy"]));
        assert!(
            !p.candidates[3].pair.attrs.contains_key("domains"),
            "telescopes is not the whole word telescope"
        );
    }

    #[test]
    fn assemble_checks_images_dedups_and_interleaves_in_order() {
        let c = Captioner::new(CaptionsConfig {
            threads: 2,
            ..Default::default()
        });
        let mut a = Document::new(
            "https://h/a",
            "First paragraph. Second paragraph. Third paragraph.",
        );
        let alts = [
            "A red kite above the hills",
            "A harbour at dawn with boats",
            "Corrupt file of a lighthouse",
            "An opted out picture of a bridge",
            "The same red kite, scaled down",
        ];
        for (i, alt) in alts.iter().enumerate() {
            a.images.push(ImageRef {
                src: format!("https://h/{i}.png"),
                alt: alt.to_string(),
                offset: [17, 35, 35, 52, 52][i],
                ..Default::default()
            });
        }
        let mut b = Document::new("https://h/b", "Another page.");
        b.images.push(ImageRef {
            src: "https://h/0.png".into(),
            alt: "A red kite above the hills again".into(),
            offset: 0,
            ..Default::default()
        });
        let docs = vec![a, b];
        let plan = c.plan(&docs);
        assert_eq!(
            plan.urls.len(),
            5,
            "the image both pages use is fetched once"
        );
        let mut corrupt = png(2, 200, 150);
        corrupt.truncate(corrupt.len() / 2);
        // served through the ImageFetcher seam: one call per shard, the plan's URLs in order
        struct Served<F: Fn(&str) -> FetchOutcome>(F, std::cell::RefCell<Vec<Vec<String>>>);
        impl<F: Fn(&str) -> FetchOutcome> ImageFetcher for Served<F> {
            fn fetch(&self, urls: &[String]) -> Vec<FetchOutcome> {
                self.1.borrow_mut().push(urls.to_vec());
                urls.iter().map(|u| (self.0)(u)).collect()
            }
        }
        let served = Served(
            |u: &str| match u {
                "https://h/0.png" => ok(png(0, 300, 200)),
                "https://h/1.png" => ok(png(1, 300, 200)),
                "https://h/2.png" => ok(corrupt.clone()),
                "https://h/3.png" => Ok(FetchedImage {
                    body: png(3, 300, 200),
                    content_type: Some("image/png".into()),
                    x_robots_tag: Some("noimageai".into()),
                    training_allowed: true,
                    signals: Vec::new(),
                }),
                _ => ok(png_half(0, 300, 200)),
            },
            Default::default(),
        );
        let mut dedup = ImageDedup::default();
        let out = c.caption(&docs, &served, &mut dedup);
        assert_eq!(*served.1.borrow(), vec![plan.urls.clone()]);
        let kept: Vec<&str> = out.pairs.iter().map(|p| p.pair.alt.as_str()).collect();
        assert_eq!(
            kept,
            vec!["A red kite above the hills", "A harbour at dawn with boats"]
        );
        let mut dropped: Vec<(&str, &str)> = out
            .dropped
            .iter()
            .map(|(p, r, _)| (p.image_url.as_str(), r.as_str()))
            .collect();
        dropped.sort();
        assert_eq!(
            dropped,
            vec![
                ("https://h/0.png", "image_duplicate_exact"),
                ("https://h/2.png", "image_corrupt"),
                ("https://h/3.png", "image_opt_out"),
                ("https://h/4.png", "image_duplicate_phash")
            ]
        );
        assert_eq!(out.stats.seen, 6);
        assert_eq!(
            out.stats.seen,
            out.stats.kept + out.stats.dropped.values().sum::<u64>()
        );
        // interleaved: page order, only images that passed the image checks
        let (il, files) = &out.interleaved[0];
        assert_eq!(
            il.texts,
            vec![
                Some("First paragraph.".into()),
                None,
                Some("Second paragraph.".into()),
                None,
                Some("Third paragraph.".into()),
                None
            ]
        );
        assert_eq!(
            il.images,
            vec![
                None,
                Some("https://h/0.png".into()),
                None,
                Some("https://h/1.png".into()),
                None,
                Some("https://h/4.png".into())
            ]
        );
        assert_eq!(
            files.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(),
            ["0000.jpg", "0001.jpg", "0002.jpg"]
        );
        assert_eq!(
            il.image_meta[1].as_ref().unwrap()["file"],
            json!("0000.jpg")
        );
        // the tars hold what the indexes say
        let (pt, pidx, it, iidx) = write_shards(&out).unwrap();
        assert_eq!(pidx.len(), 2);
        assert_eq!(iidx.len(), 2);
        let mut ar = tar::Archive::new(std::io::Cursor::new(&pt));
        let names: Vec<String> = ar
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names[0], format!("{}.jpg", out.pairs[0].key));
        assert_eq!(names[1], format!("{}.json", out.pairs[0].key));
        let m = &pidx[1]["tar_members"][0];
        let off = m["offset"].as_u64().unwrap() as usize;
        assert_eq!(
            &pt[off..off + 3],
            &[0xff, 0xd8, 0xff],
            "index offsets point at the JPEG"
        );
        assert!(it.len() > 1024);
    }

    #[test]
    fn page_opt_out_drops_pairs_and_interleaved_images() {
        let c = Captioner::new(Default::default());
        let mut d = doc_with(&["A grey cat asleep on a sofa"]);
        d.consent.noimageai = true;
        let plan = c.plan(std::slice::from_ref(&d));
        assert!(
            plan.urls.is_empty(),
            "nothing is fetched for a page that opts out"
        );
        let out = c.assemble(&[d], plan, Vec::new(), &mut ImageDedup::default());
        assert_eq!(out.dropped[0].1, reasons::IMAGE_OPT_OUT);
        assert!(out.interleaved.is_empty());
    }
}
