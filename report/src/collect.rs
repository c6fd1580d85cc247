//! Reading a run: stats from completion markers, documents (bounded) for distributions and
//! seeded, stratified samples.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use trawl_core::RunStats;
use trawl_storage::{jsonl, markers, Storage, StorageError};

use crate::{ReportConfig, Thresholds, STAGES};

/// A record shown for review.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Document id (or the URL for records without one).
    pub id: String,
    /// URL.
    pub url: String,
    /// Stage that dropped it (`kept` otherwise).
    pub stage: String,
    /// Drop reason.
    pub reason: String,
    /// Language (ISO 639-3) if known.
    pub lang: String,
    /// Host.
    pub host: String,
    /// Text (truncated).
    pub text: String,
    /// Signals, pretty JSON.
    pub attrs: String,
    /// For image pairs: the image URL.
    pub image: String,
    /// For image pairs: a JPEG thumbnail as a `data:` URI (made by trawl from the decoded
    /// pixels of the stored image, never the page's bytes), empty when there is none.
    pub thumb: String,
    /// For image pairs: where the stored image is (tar object, data offset, size).
    pub thumb_at: Option<(String, u64, u64)>,
}

/// A histogram over fixed bounds; the last bucket is open.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hist {
    /// Upper bounds.
    pub bounds: Vec<f64>,
    /// Counts (bounds.len() + 1).
    pub counts: Vec<u64>,
    /// Up to a few samples per bucket (for the links from the bars).
    pub samples: Vec<Vec<Sample>>,
}

impl Hist {
    fn new(bounds: Vec<f64>) -> Hist {
        let n = bounds.len() + 1;
        Hist {
            bounds,
            counts: vec![0; n],
            samples: vec![Vec::new(); n],
        }
    }

    fn add(&mut self, v: f64, s: Option<&Sample>) {
        let i = self
            .bounds
            .iter()
            .position(|b| v <= *b)
            .unwrap_or(self.bounds.len());
        self.counts[i] += 1;
        if let Some(s) = s {
            if self.samples[i].len() < 3 {
                self.samples[i].push(s.clone());
            }
        }
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// Everything the report shows about one run.
#[derive(Debug, Default)]
pub struct RunData {
    /// Run root URL.
    pub root: String,
    /// Merged stats per stage folder, with the number of committed shards.
    pub stages: Vec<(String, RunStats, usize)>,
    /// Documents read for distributions (reaching the filter).
    pub scanned: u64,
    /// True when a set had more documents than `max_docs_scanned`.
    pub truncated: bool,
    /// Languages of documents reaching the filter, and of kept documents.
    pub languages: (BTreeMap<String, u64>, BTreeMap<String, u64>),
    /// Domains of documents reaching the filter, and of kept documents.
    pub domains: (BTreeMap<String, u64>, BTreeMap<String, u64>),
    /// Page types (`meta.page_type`) of documents reaching the filter, and of kept documents.
    pub page_types: (BTreeMap<String, u64>, BTreeMap<String, u64>),
    /// Per language of documents reaching the filter: how many its quality model scored
    /// (`attrs.quality.<lang>`) and how many reached the filter unscored (no model for the
    /// language, or `und`).
    pub quality_scored: BTreeMap<String, (u64, u64)>,
    /// Named histograms (document length, words, images per document, ...).
    pub hists: BTreeMap<String, Hist>,
    /// Threshold per histogram name.
    pub thresholds: BTreeMap<String, f64>,
    /// Samples of dropped records by (stage, reason).
    pub dropped: BTreeMap<(String, String), Vec<Sample>>,
    /// Samples of kept documents.
    pub kept: Vec<Sample>,
    /// Kept samples per language and per domain (targets of the chart links).
    pub by_lang: BTreeMap<String, Vec<Sample>>,
    /// Kept samples per domain.
    pub by_domain: BTreeMap<String, Vec<Sample>>,
    /// Image/alt-text pairs.
    pub pairs: Vec<Sample>,
    /// Ids of kept documents (for comparisons).
    pub kept_ids: HashMap<String, Sample>,
    /// Dropped documents by id with stage and reason (for comparisons).
    pub dropped_ids: HashMap<String, Sample>,
    /// Token shards: documents and tokens.
    pub shards: Option<(u64, u64)>,
    /// Documents dropped as `training_opt_out`, by (what opted them out, host): the AI-use
    /// signal (`content-signal`, `content-usage`, `tdm-reservation`) or `robots.txt`,
    /// `noai`, `noindex`.
    pub opt_outs: BTreeMap<(String, String), u64>,
}

/// A document's page type (`meta.page_type`; `unknown` for documents without one).
fn page_type(doc: &Value) -> String {
    doc["meta"]["page_type"]
        .as_str()
        .unwrap_or("unknown")
        .to_string()
}

/// What opted an excluded document out of training, from its consent record.
fn opt_out_cause(consent: &Value) -> String {
    if let Some(s) = consent["signals"].as_array().and_then(|a| {
        a.iter()
            .find(|s| s["parsed"] == true && s["training"] == false)
    }) {
        return s["signal"].as_str().unwrap_or("signal").to_string();
    }
    if consent["training_allowed"] == false {
        "robots.txt".into()
    } else if consent["noai"] == true {
        "noai".into()
    } else if consent["noindex"] == true {
        "noindex".into()
    } else {
        "other".into()
    }
}

fn key(seed: u64, id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(id.as_bytes(), seed)
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn to_sample(v: &Value, stage: &str, text_chars: usize) -> Sample {
    let doc = v.get("doc").unwrap_or(v);
    let text: String = doc
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .chars()
        .take(text_chars)
        .collect();
    let url = doc
        .get("url")
        .and_then(Value::as_str)
        .or_else(|| v.get("url").and_then(Value::as_str))
        .or_else(|| v.get("page_url").and_then(Value::as_str))
        .unwrap_or("")
        .to_string();
    let id = doc
        .get("id")
        .map(|i| {
            i.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| i.to_string())
        })
        .filter(|s| !s.is_empty() && s != "null")
        .unwrap_or_else(|| url.clone());
    Sample {
        id,
        host: host_of(&url),
        url,
        stage: v
            .get("stage")
            .and_then(Value::as_str)
            .unwrap_or(stage)
            .to_string(),
        reason: v
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        lang: doc
            .pointer("/meta/lang")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        text,
        attrs: doc
            .get("attrs")
            .filter(|a| a.as_object().is_some_and(|o| !o.is_empty()))
            .map(|a| serde_json::to_string_pretty(a).unwrap_or_default())
            .unwrap_or_default(),
        image: String::new(),
        thumb: String::new(),
        thumb_at: None,
    }
}

/// A bottom-k reservoir: keeps the k candidates with the smallest seeded hash, a uniform
/// sample whatever the order and size of the input.
struct Reservoir {
    k: usize,
    items: Vec<(u64, Sample)>,
}

impl Reservoir {
    fn new(k: usize) -> Self {
        Reservoir {
            k,
            items: Vec::new(),
        }
    }
    fn offer(&mut self, h: u64, s: Sample) {
        self.items.push((h, s));
        if self.items.len() > 2 * self.k.max(1) {
            self.items.sort_by_key(|(h, _)| *h);
            self.items.truncate(self.k);
        }
    }
    fn take(mut self) -> Vec<(u64, Sample)> {
        self.items.sort_by_key(|(h, _)| *h);
        self.items.truncate(self.k);
        self.items
    }
}

/// Picks `n` of the candidates, round-robin over (language, domain) strata in seeded order,
/// so one big site or language does not fill the sample.
pub fn stratified(cands: Vec<(u64, Sample)>, n: usize, seed: u64) -> Vec<Sample> {
    let mut strata: BTreeMap<(u64, String, String), Vec<(u64, Sample)>> = BTreeMap::new();
    for (h, s) in cands {
        let k = (
            key(seed, &format!("{}\u{0}{}", s.lang, s.host)),
            s.lang.clone(),
            s.host.clone(),
        );
        strata.entry(k).or_default().push((h, s));
    }
    let mut lists: Vec<std::vec::IntoIter<(u64, Sample)>> = strata
        .into_values()
        .map(|mut v| {
            v.sort_by_key(|(h, _)| *h);
            v.into_iter()
        })
        .collect();
    let mut out = Vec::new();
    while out.len() < n {
        let mut any = false;
        for l in lists.iter_mut() {
            if out.len() >= n {
                break;
            }
            if let Some((_, s)) = l.next() {
                out.push(s);
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    out
}

fn numeric_leaves(prefix: &str, v: &Value, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64() {
                out.push((prefix.to_string(), f));
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                numeric_leaves(&p, x, out);
            }
        }
        _ => {}
    }
}

fn log_bounds(max: f64) -> Vec<f64> {
    let mut b = vec![0.0];
    let mut x = 1.0;
    while x < max {
        b.push(x);
        b.push(x * 3.0);
        x *= 10.0;
    }
    b
}

fn lin_bounds(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    (1..n)
        .map(|i| lo + (hi - lo) * i as f64 / n as f64)
        .collect()
}

async fn read_set(
    root: &Storage,
    prefix: &str,
    cap: usize,
    truncated: &mut bool,
    mut f: impl FnMut(&Value),
) -> Result<(), StorageError> {
    let mut n = 0;
    for k in root.list(prefix).await? {
        if !trawl_storage::docs::is_documents(&k) {
            continue;
        }
        let bytes = root.get(&k).await?;
        let values: Vec<Value> = if trawl_storage::docs::is_parquet(&k) {
            trawl_storage::docs::read(&k, &bytes, usize::MAX)?
                .into_iter()
                .flatten()
                .filter_map(|d| serde_json::to_value(d).ok())
                .collect()
        } else {
            jsonl::read_lines::<Value>(&k, &bytes)?
                .into_iter()
                .flatten()
                .collect()
        };
        for mut v in values {
            if n >= cap {
                *truncated = true;
                return Ok(());
            }
            if let Some(o) = v.as_object_mut() {
                o.insert("__object".into(), Value::String(k.clone()));
            }
            f(&v);
            n += 1;
        }
    }
    Ok(())
}

/// Largest side of a report thumbnail, pixels.
const THUMB_SIDE: u32 = 200;

/// Fills `thumb` of sampled pairs: the stored image read by range from its tar, decoded,
/// scaled to at most [`THUMB_SIDE`] and re-encoded (so the report never carries bytes it did
/// not make). A missing or unreadable image leaves the card without a picture.
async fn thumbnails(root: &Storage, pairs: &mut [Sample]) {
    use base64::Engine;
    for p in pairs.iter_mut() {
        let Some((tar, off, size)) = p.thumb_at.clone() else {
            continue;
        };
        if size > 16 << 20 {
            continue;
        }
        let bytes = match root.get_range(&tar, off, off + size).await {
            Ok(b) => b,
            Err(e) => {
                tracing::debug!(error = %e, "thumbnail: image not readable");
                continue;
            }
        };
        let Ok(img) = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
            .or_else(|_| image::load_from_memory(&bytes))
        else {
            continue;
        };
        let small = img.thumbnail(THUMB_SIDE, THUMB_SIDE).to_rgb8();
        let mut out = Vec::new();
        if image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
            .encode_image(&small)
            .is_ok()
        {
            p.thumb = format!(
                "data:image/jpeg;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&out)
            );
        }
    }
}

/// Reads stats, distributions and samples of a run root.
pub async fn collect(
    root: &Storage,
    cfg: &ReportConfig,
    thresholds: &Thresholds,
) -> Result<RunData, StorageError> {
    let mut d = RunData {
        root: root.url().to_string(),
        ..Default::default()
    };
    for stage in STAGES {
        let (stats, n) = markers::merged_stats(root, stage).await?;
        if n > 0 {
            d.stages.push((stage.to_string(), stats, n));
        }
    }
    let k = cfg.samples_per_reason;
    let cap = cfg.max_docs_scanned;
    let tc = cfg.text_chars;

    // dropped records of every stage
    for stage in STAGES {
        let mut res: BTreeMap<String, Reservoir> = BTreeMap::new();
        let mut ids = Vec::new();
        read_set(
            root,
            &format!("excluded/{stage}"),
            cap,
            &mut d.truncated,
            |v| {
                if v["reason"] == "training_opt_out" {
                    let cause = opt_out_cause(&v["doc"]["consent"]);
                    let host = host_of(v["doc"]["url"].as_str().unwrap_or(""));
                    *d.opt_outs.entry((cause, host)).or_default() += 1;
                }
                let s = to_sample(v, stage, tc);
                let h = key(cfg.seed, &s.id);
                ids.push(s.clone());
                res.entry(s.reason.clone())
                    .or_insert_with(|| Reservoir::new(k * 8))
                    .offer(h, s);
            },
        )
        .await?;
        for s in ids {
            d.dropped_ids.insert(
                s.id.clone(),
                Sample {
                    text: s.text.chars().take(300).collect(),
                    ..s
                },
            );
        }
        for (reason, r) in res {
            d.dropped.insert(
                (stage.to_string(), reason),
                stratified(r.take(), k, cfg.seed),
            );
        }
    }

    // documents that reached the filter: distributions of signals
    let mut values: BTreeMap<String, Vec<(f64, Sample)>> = BTreeMap::new();
    let mut seen_filter = |v: &Value, d: &mut RunData| {
        let s = to_sample(v, "filter", tc);
        let doc = v.get("doc").unwrap_or(v);
        let lang = if s.lang.is_empty() { "und" } else { &s.lang };
        *d.languages.0.entry(lang.to_string()).or_default() += 1;
        *d.domains.0.entry(s.host.clone()).or_default() += 1;
        *d.page_types.0.entry(page_type(doc)).or_default() += 1;
        let scored = doc["attrs"]["quality"]
            .get(lang)
            .is_some_and(Value::is_number);
        let e = d.quality_scored.entry(lang.to_string()).or_default();
        if scored {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
        let mut leaves = Vec::new();
        if let Some(a) = doc.get("attrs") {
            numeric_leaves("", a, &mut leaves);
        }
        for (name, x) in leaves {
            // model scores and the language-ID confidence are shown per language, as
            // thresholds are tuned per language
            let keys = if name.contains("quality") || name == "lang.confidence" {
                vec![name.clone(), format!("{name} [{lang}]")]
            } else {
                vec![name]
            };
            for k in keys {
                let vals = values.entry(k).or_default();
                if vals.len() < 50_000 {
                    vals.push((x, s.clone()));
                }
            }
        }
        d.scanned += 1;
    };
    let mut filter_in: Vec<Value> = Vec::new();
    let mut trunc = false;
    read_set(root, "filter", cap, &mut trunc, |v| {
        filter_in.push(v.clone())
    })
    .await?;
    read_set(root, "excluded/filter", cap, &mut trunc, |v| {
        filter_in.push(v.clone())
    })
    .await?;
    d.truncated |= trunc;
    for v in &filter_in {
        seen_filter(v, &mut d);
    }
    drop(filter_in);
    for (name, vals) in values {
        let max = vals.iter().map(|(x, _)| *x).fold(f64::MIN, f64::max);
        let min = vals.iter().map(|(x, _)| *x).fold(f64::MAX, f64::min);
        let bounds = if min >= 0.0 && max > 100.0 {
            log_bounds(max)
        } else {
            lin_bounds(min, max, 20)
        };
        let mut h = Hist::new(bounds);
        for (x, s) in &vals {
            h.add(*x, Some(s));
        }
        d.hists.insert(format!("signal: {name}"), h);
    }
    for (name, t) in thresholds {
        d.thresholds.insert(format!("signal: {name}"), *t);
    }

    // kept documents (the last document stage that ran)
    let kept_dir = ["dedup", "filter", "extract"]
        .into_iter()
        .find(|s| d.stages.iter().any(|(n, _, _)| n == s))
        .unwrap_or("dedup");
    let mut kept_res = Reservoir::new(k * 8);
    let mut lang_res: BTreeMap<String, Reservoir> = BTreeMap::new();
    let mut dom_res: BTreeMap<String, Reservoir> = BTreeMap::new();
    let mut chars = Hist::new(vec![
        100.0, 300.0, 1000.0, 3000.0, 10_000.0, 30_000.0, 100_000.0,
    ]);
    let mut imgs = Hist::new(vec![0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0]);
    let mut alt = Hist::new(vec![0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0]);
    let mut sizes = Hist::new(vec![16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0]);
    let mut langs = BTreeMap::new();
    let mut doms = BTreeMap::new();
    let mut types: BTreeMap<String, u64> = BTreeMap::new();
    let mut kept_ids = HashMap::new();
    read_set(root, kept_dir, cap, &mut d.truncated, |v| {
        let s = to_sample(v, "kept", tc);
        let h = key(cfg.seed, &s.id);
        *langs
            .entry(if s.lang.is_empty() {
                "und".to_string()
            } else {
                s.lang.clone()
            })
            .or_insert(0u64) += 1;
        *doms.entry(s.host.clone()).or_insert(0u64) += 1;
        *types.entry(page_type(v)).or_default() += 1;
        let text_len = v
            .get("text")
            .and_then(Value::as_str)
            .map_or(0, |t| t.chars().count());
        chars.add(text_len as f64, Some(&s));
        let images = v
            .get("images")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        imgs.add(images.len() as f64, Some(&s));
        for im in &images {
            let words = im
                .get("alt")
                .and_then(Value::as_str)
                .map_or(0, |a| a.split_whitespace().count());
            alt.add(words as f64, Some(&s));
            let side = im
                .get("width")
                .and_then(Value::as_u64)
                .into_iter()
                .chain(im.get("height").and_then(Value::as_u64))
                .max();
            if let Some(side) = side {
                sizes.add(side as f64, Some(&s));
            }
        }
        kept_ids.insert(
            s.id.clone(),
            Sample {
                text: s.text.chars().take(300).collect(),
                ..s.clone()
            },
        );
        lang_res
            .entry(s.lang.clone())
            .or_insert_with(|| Reservoir::new(3))
            .offer(h, s.clone());
        dom_res
            .entry(s.host.clone())
            .or_insert_with(|| Reservoir::new(3))
            .offer(h, s.clone());
        kept_res.offer(h, s);
    })
    .await?;
    d.languages.1 = langs;
    d.domains.1 = doms;
    d.page_types.1 = types;
    d.kept_ids = kept_ids;
    d.kept = stratified(kept_res.take(), k, cfg.seed);
    d.by_lang = lang_res
        .into_iter()
        .map(|(l, r)| (l, r.take().into_iter().map(|(_, s)| s).collect()))
        .collect();
    d.by_domain = dom_res
        .into_iter()
        .map(|(l, r)| (l, r.take().into_iter().map(|(_, s)| s).collect()))
        .collect();
    d.hists.insert("document length (characters)".into(), chars);
    d.hists.insert("images per document".into(), imgs);
    d.hists.insert("alt-text length (words)".into(), alt);
    d.hists
        .insert("image size (declared longer side, px)".into(), sizes);

    // image/alt-text pairs
    let mut pair_res = Reservoir::new(k * 4);
    let mut stored = Hist::new(vec![64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0]);
    let mut aligned = Hist::new(vec![0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]);
    read_set(root, "captions/pairs", cap, &mut d.truncated, |v| {
        let mut s = to_sample(v, "captions", tc);
        let tar = v
            .get("__object")
            .and_then(Value::as_str)
            .map(|k| k.trim_end_matches(".jsonl.zst").to_string() + ".tar");
        s.text = v
            .get("alt")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        s.image = v
            .get("image_url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        s.id = s.image.clone();
        let a = &v["attrs"];
        let mut facts = Vec::new();
        if let Some(sc) = a.get("alignment").and_then(Value::as_f64) {
            facts.push(format!("alignment {sc:.3}"));
        }
        if let (Some(w), Some(h)) = (
            a["image_original_size"][0].as_u64(),
            a["image_original_size"][1].as_u64(),
        ) {
            facts.push(format!(
                "{w}x{h} {}",
                a["image_format"].as_str().unwrap_or("")
            ));
            stored.add(w.max(h) as f64, None);
        }
        if let Some(sc) = a.get("alignment").and_then(Value::as_f64) {
            aligned.add(sc, None);
        }
        if let Some(n) = a.get("alt_words").and_then(Value::as_u64) {
            facts.push(format!("{n} alt words"));
        }
        if let Some(l) = a.get("alt_lang").and_then(Value::as_str) {
            facts.push(format!("alt lang {l}"));
        }
        if let Some(ds) = a.get("domains").and_then(Value::as_array) {
            facts.push(format!(
                "domains {}",
                ds.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let context: String = v
            .get("context")
            .and_then(Value::as_str)
            .unwrap_or("")
            .chars()
            .take(300)
            .collect();
        s.attrs = format!("{}\n\n{context}", facts.join(" · "));
        s.thumb_at = v["tar_members"][0]["offset"]
            .as_u64()
            .zip(v["tar_members"][0]["size"].as_u64())
            .zip(tar)
            .map(|((o, n), t)| (t, o, n));
        pair_res.offer(key(cfg.seed, &s.image), s);
    })
    .await?;
    d.pairs = pair_res.take().into_iter().map(|(_, s)| s).collect();
    if stored.total() > 0 {
        d.hists.insert(
            "kept pair image size (fetched longer side, px)".into(),
            stored,
        );
    }
    if aligned.total() > 0 {
        d.hists.insert("kept pair alignment score".into(), aligned);
    }
    thumbnails(root, &mut d.pairs).await;

    if let Some(b) = root.get_opt("shards/manifest.json").await? {
        if let Ok(v) = serde_json::from_slice::<Value>(&b) {
            d.shards = Some((
                v["documents"].as_u64().unwrap_or(0),
                v["tokens"].as_u64().unwrap_or(0),
            ));
        }
    }
    Ok(d)
}

/// `n` seeded, stratified samples of one stage's dropped records with `reason` (or of kept
/// documents when `reason` is `kept`), each with its full record.
pub async fn sample_records(
    root: &Storage,
    stage: &str,
    reason: &str,
    n: usize,
    seed: u64,
    text_chars: usize,
) -> Result<Vec<(Sample, Value)>, StorageError> {
    let prefix = if reason == "kept" {
        stage.to_string()
    } else {
        format!("excluded/{stage}")
    };
    let mut res = Reservoir::new(n * 8);
    let mut full: HashMap<String, Value> = HashMap::new();
    let mut trunc = false;
    read_set(root, &prefix, usize::MAX, &mut trunc, |v| {
        let s = to_sample(v, stage, text_chars);
        if reason == "kept" || s.reason == reason {
            let h = key(seed, &s.id);
            full.insert(s.id.clone(), v.clone());
            res.offer(h, s);
            if full.len() > 64 * n.max(1) {
                let keep: std::collections::HashSet<String> =
                    res.items.iter().map(|(_, s)| s.id.clone()).collect();
                full.retain(|k, _| keep.contains(k));
            }
        }
    })
    .await?;
    Ok(stratified(res.take(), n, seed)
        .into_iter()
        .map(|s| {
            let v = full.get(&s.id).cloned().unwrap_or(Value::Null);
            (s, v)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(id: &str, lang: &str, host: &str) -> Sample {
        Sample {
            id: id.into(),
            lang: lang.into(),
            host: host.into(),
            ..Default::default()
        }
    }

    #[test]
    fn stratified_spreads_over_languages_and_domains() {
        let mut c = Vec::new();
        for i in 0..100 {
            c.push((i as u64, s(&format!("big{i}"), "eng", "big.example")));
        }
        c.push((500, s("fr", "fra", "fr.example")));
        c.push((600, s("de", "deu", "de.example")));
        let picked = stratified(c, 3, 1);
        let langs: std::collections::BTreeSet<_> = picked.iter().map(|s| s.lang.clone()).collect();
        assert_eq!(langs.len(), 3, "{picked:?}");
    }
}
