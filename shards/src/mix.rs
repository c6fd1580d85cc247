//! The mixture: how many tokens of each bucket (by source, domain, language) go into the
//! shards. Buckets get a share of the total by weight; inside a bucket, languages are
//! re-weighted by temperature (share of language `l` proportional to `p_l^(1/T)`, where
//! `p_l` is its natural share: T = 1 keeps the natural mix, larger T moves towards uniform).
//! A group whose target exceeds what is available is upsampled by repetition; one below is
//! downsampled by a seeded choice. Every decision is a pure function of the documents, the
//! config and the seed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ManifestDoc;

/// `[shards.mix]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MixConfig {
    /// Apply the mixture (false: every document once).
    pub enabled: bool,
    /// Temperature across languages inside a bucket.
    pub temperature: f64,
    /// Seed of the repetition and downsampling choices.
    pub seed: u64,
    /// Tokens in the output; default: as many as available.
    pub total_tokens: Option<u64>,
    /// Weight of documents that match no bucket (0 leaves them out).
    pub default_weight: f64,
    /// Buckets, first match wins.
    pub buckets: Vec<MixBucket>,
}

impl Default for MixConfig {
    fn default() -> Self {
        MixConfig {
            enabled: false,
            temperature: 1.0,
            seed: 0,
            total_tokens: None,
            default_weight: 1.0,
            buckets: Vec::new(),
        }
    }
}

/// One bucket: a document belongs to it when every non-empty criterion matches.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MixBucket {
    /// Name in the printed table.
    pub name: String,
    /// Relative weight (share of the total tokens).
    pub weight: f64,
    /// Host suffixes (`wikipedia.org` matches `en.wikipedia.org`).
    pub domains: Vec<String>,
    /// Source labels (a document's `source`).
    pub sources: Vec<String>,
    /// ISO 639-3 languages.
    pub languages: Vec<String>,
}

impl MixConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            return Err((
                "shards.mix.temperature".into(),
                format!("{} must be a positive number", self.temperature),
            ));
        }
        if !(self.default_weight.is_finite() && self.default_weight >= 0.0) {
            return Err(("shards.mix.default_weight".into(), "must be >= 0".into()));
        }
        for (i, b) in self.buckets.iter().enumerate() {
            if b.name.is_empty() {
                return Err((
                    format!("shards.mix.buckets[{i}].name"),
                    "must not be empty".into(),
                ));
            }
            if !(b.weight.is_finite() && b.weight >= 0.0) {
                return Err((
                    format!("shards.mix.buckets[{i}].weight"),
                    format!("{} must be >= 0", b.weight),
                ));
            }
        }
        Ok(())
    }

    /// The bucket of a document.
    pub fn bucket_of(&self, d: &ManifestDoc) -> String {
        for b in &self.buckets {
            let dom = b.domains.is_empty()
                || b.domains
                    .iter()
                    .any(|s| trawl_core::host_matches(&d.host, s));
            let src = b.sources.is_empty() || b.sources.contains(&d.source);
            let lang = b.languages.is_empty() || b.languages.contains(&d.lang);
            if dom && src && lang {
                return b.name.clone();
            }
        }
        "default".into()
    }

    fn weight_of(&self, bucket: &str) -> f64 {
        self.buckets
            .iter()
            .find(|b| b.name == bucket)
            .map_or(self.default_weight, |b| b.weight)
    }
}

/// One row of the mixture table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MixRow {
    /// Bucket.
    pub bucket: String,
    /// Language.
    pub lang: String,
    /// Documents available.
    pub documents: u64,
    /// Tokens available.
    pub available: u64,
    /// Sampling rate (copies per document on average).
    pub rate: f64,
    /// Tokens this group should contribute.
    pub target: u64,
}

/// Rates per (bucket, language) for the documents given (each with its token count).
pub fn plan(cfg: &MixConfig, docs: &[&ManifestDoc]) -> Vec<MixRow> {
    let mut groups: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    for d in docs {
        let g = groups
            .entry((cfg.bucket_of(d), d.lang.clone()))
            .or_default();
        g.0 += 1;
        g.1 += d.tokens;
    }
    if !cfg.enabled {
        return groups
            .into_iter()
            .map(|((bucket, lang), (n, t))| MixRow {
                bucket,
                lang,
                documents: n,
                available: t,
                rate: 1.0,
                target: t,
            })
            .collect();
    }
    let mut per_bucket: BTreeMap<String, u64> = BTreeMap::new();
    for ((b, _), (_, t)) in &groups {
        *per_bucket.entry(b.clone()).or_default() += t;
    }
    let total_avail: u64 = per_bucket.values().sum();
    let total = cfg.total_tokens.unwrap_or(total_avail) as f64;
    let wsum: f64 = per_bucket
        .iter()
        .filter(|(_, t)| **t > 0)
        .map(|(b, _)| cfg.weight_of(b))
        .sum();
    let mut rows = Vec::new();
    for (b, bt) in &per_bucket {
        let bucket_target = if wsum > 0.0 {
            total * cfg.weight_of(b) / wsum
        } else {
            0.0
        };
        let langs: Vec<(&String, u64, u64)> = groups
            .iter()
            .filter(|((gb, _), _)| gb == b)
            .map(|((_, l), (n, t))| (l, *n, *t))
            .collect();
        let z: f64 = langs
            .iter()
            .map(|(_, _, t)| (*t as f64 / *bt as f64).powf(1.0 / cfg.temperature))
            .sum();
        for (l, n, t) in langs {
            let q = (t as f64 / *bt as f64).powf(1.0 / cfg.temperature) / z;
            let target = bucket_target * q;
            let rate = if t > 0 { target / t as f64 } else { 0.0 };
            rows.push(MixRow {
                bucket: b.clone(),
                lang: l.clone(),
                documents: n,
                available: t,
                rate,
                target: target.round() as u64,
            });
        }
    }
    rows
}

/// Copies of one document under a rate: `floor(rate)`, plus one more with probability
/// `frac(rate)` decided by a seeded hash of the DocId.
pub fn copies(rate: f64, seed: u64, id: &str) -> u32 {
    let whole = rate.floor();
    let frac = rate - whole;
    let u = xxhash_rust::xxh3::xxh3_64_with_seed(id.as_bytes(), seed) as f64 / u64::MAX as f64;
    whole as u32 + u32::from(u < frac)
}

/// The table printed after packing.
pub fn table(rows: &[MixRow], written: &BTreeMap<(String, String), u64>) -> String {
    let total: u64 = written.values().sum::<u64>().max(1);
    let mut s = format!(
        "{:<16} {:<6} {:>10} {:>14} {:>8} {:>14} {:>7}\n",
        "bucket", "lang", "docs", "available", "rate", "written", "share"
    );
    for r in rows {
        let w = written
            .get(&(r.bucket.clone(), r.lang.clone()))
            .copied()
            .unwrap_or(0);
        s.push_str(&format!(
            "{:<16} {:<6} {:>10} {:>14} {:>8.3} {:>14} {:>6.1}%\n",
            r.bucket,
            r.lang,
            r.documents,
            r.available,
            r.rate,
            w,
            100.0 * w as f64 / total as f64
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::Consent;

    fn doc(id: &str, host: &str, lang: &str, tokens: u64) -> ManifestDoc {
        ManifestDoc {
            id: id.into(),
            url: String::new(),
            url_digest: String::new(),
            host: host.into(),
            lang: lang.into(),
            source: String::new(),
            tokens,
            copy: 0,
            consent: Consent::default(),
        }
    }

    #[test]
    fn temperature_raises_small_languages_and_weights_split_buckets() {
        let mut docs = Vec::new();
        for i in 0..920 {
            docs.push(doc(&format!("e{i}"), "news.example", "eng", 100));
        }
        for i in 0..80 {
            docs.push(doc(&format!("f{i}"), "news.example", "fra", 100));
        }
        for i in 0..100 {
            docs.push(doc(&format!("w{i}"), "en.wiki.example", "eng", 100));
        }
        let refs: Vec<&ManifestDoc> = docs.iter().collect();
        let cfg = MixConfig {
            enabled: true,
            temperature: 3.0,
            buckets: vec![MixBucket {
                name: "wiki".into(),
                weight: 1.0,
                domains: vec!["wiki.example".into()],
                ..Default::default()
            }],
            default_weight: 3.0,
            ..Default::default()
        };
        let rows = plan(&cfg, &refs);
        let get = |b: &str, l: &str| {
            rows.iter()
                .find(|r| r.bucket == b && r.lang == l)
                .unwrap()
                .clone()
        };
        // buckets: wiki gets 1/4 of 110k tokens although it has 10k: upsampled
        assert!((get("wiki", "eng").target as f64 - 27_500.0).abs() < 1.0);
        assert!(get("wiki", "eng").rate > 2.7);
        // temperature 3 raises French from 8% of the default bucket to about 30%
        let fr = get("default", "fra").target as f64;
        let en = get("default", "eng").target as f64;
        let share = fr / (fr + en);
        assert!(share > 0.25 && share < 0.35, "{share}");
        // realised copies follow the rates
        let written: u64 = docs
            .iter()
            .map(|d| copies(get(&cfg.bucket_of(d), &d.lang).rate, 7, &d.id) as u64 * d.tokens)
            .sum();
        assert!(
            (written as f64 - 110_000.0).abs() / 110_000.0 < 0.03,
            "{written}"
        );
        // disabled: every document once
        let off = plan(&MixConfig::default(), &refs);
        assert!(off.iter().all(|r| r.rate == 1.0));
    }

    #[test]
    fn copies_are_seeded() {
        assert_eq!(copies(2.0, 1, "a"), 2);
        assert_eq!(copies(0.0, 1, "a"), 0);
        let n: u32 = (0..10_000).map(|i| copies(0.3, 5, &i.to_string())).sum();
        assert!((2_800..3_200).contains(&n), "{n}");
        assert_eq!(copies(0.5, 9, "x"), copies(0.5, 9, "x"));
    }
}
