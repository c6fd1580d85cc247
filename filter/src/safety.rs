//! Profanity and unsafe material: a document-level score, the fraction of words that are on
//! the language's list (whole-word matching with Aho-Corasick over the lowercased text), and
//! a domain blocklist matched on the host and its parent domains. Lists for eng, deu, fra, spa ship
//! with trawl (`filter/lists/`, CC0); users add their own files.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Document, Filter, Map, RecordError, Verdict};

/// Drop reasons of the safety filters.
pub mod reasons {
    use trawl_core::DropReason;
    /// The share of flagged words is above the threshold.
    pub const PROFANITY: DropReason = DropReason::new("unsafe_profanity");
    /// The document's host or a parent domain of it is on the domain blocklist.
    pub const DOMAIN: DropReason = DropReason::new("unsafe_domain");
}

/// `[filter.safety]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SafetyConfig {
    /// Score documents and apply the thresholds.
    pub enabled: bool,
    /// Documents whose share of flagged words exceeds this are dropped.
    pub max_profanity_ratio: f64,
    /// Extra word-list files: `lang=path` (lang ISO 639-3, one word or phrase per line).
    pub lists: Vec<String>,
    /// A file of domains (adult, malware, ...), one per line; a listed domain covers
    /// its subdomains, so `example.com` blocks `www.example.com` (a leading `*.` is allowed).
    pub domain_blocklist: Option<String>,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        SafetyConfig {
            enabled: true,
            max_profanity_ratio: 0.02,
            lists: Vec::new(),
            domain_blocklist: None,
        }
    }
}

const BUILTIN: &[(&str, &str)] = &[
    ("eng", include_str!("../lists/profanity/eng.txt")),
    ("deu", include_str!("../lists/profanity/deu.txt")),
    ("fra", include_str!("../lists/profanity/fra.txt")),
    ("spa", include_str!("../lists/profanity/spa.txt")),
];

fn parse_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Scores documents (`attrs.safety.profanity`) per their language's list.
#[derive(Debug)]
pub struct Safety {
    /// Per language: the matcher over lowercased text, and one matching ASCII text in any
    /// case (the same matches without lowercasing a copy of the text).
    matchers: HashMap<String, (AhoCorasick, AhoCorasick)>,
}

impl Safety {
    /// Builds the matchers from the built-in lists and the configured files.
    pub fn new(cfg: &SafetyConfig) -> Result<Safety, String> {
        let mut words: HashMap<String, Vec<String>> = HashMap::new();
        for (lang, text) in BUILTIN {
            words
                .entry(lang.to_string())
                .or_default()
                .extend(parse_list(text));
        }
        for spec in &cfg.lists {
            let (lang, path) = spec
                .split_once('=')
                .ok_or_else(|| format!("`{spec}` must be lang=path"))?;
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
            words
                .entry(lang.trim().to_string())
                .or_default()
                .extend(parse_list(&text));
        }
        let mut matchers = HashMap::new();
        for (lang, list) in words {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&list)
                .map_err(|e| e.to_string())?;
            let ascii = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .ascii_case_insensitive(true)
                .build(list.iter().filter(|w| w.is_ascii()))
                .map_err(|e| e.to_string())?;
            matchers.insert(lang, (ac, ascii));
        }
        Ok(Safety { matchers })
    }

    /// The number of whole-word matches in a text for a language.
    pub fn flagged(&self, lang: &str, text: &str) -> usize {
        let Some((ac, ascii)) = self.matchers.get(lang) else {
            return 0;
        };
        if text.is_ascii() {
            let b = text.as_bytes();
            let word = |i: usize| b.get(i).is_some_and(u8::is_ascii_alphanumeric);
            return ascii
                .find_iter(text)
                .filter(|m| (m.start() == 0 || !word(m.start() - 1)) && !word(m.end()))
                .count();
        }
        // the same string as `to_lowercase`, with arithmetic for the common blocks
        let mut lower = String::with_capacity(text.len());
        trawl_core::text::push_lowercase(&mut lower, text);
        let b = lower.as_bytes();
        let boundary = |i: usize| {
            i == 0
                || i >= b.len()
                || !lower[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
        };
        let after = |i: usize| {
            i >= b.len() || !lower[i..].chars().next().is_some_and(char::is_alphanumeric)
        };
        ac.find_iter(&lower)
            .filter(|m| boundary(m.start()) && after(m.end()))
            .count()
    }
}

impl Map for Safety {
    fn name(&self) -> &'static str {
        "safety_signals"
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        let lang = doc.meta.lang.clone().unwrap_or_default();
        let words = doc
            .attrs
            .get("words")
            .and_then(|w| w.as_u64())
            .unwrap_or_else(|| trawl_core::text::word_count(&doc.text) as u64)
            .max(1);
        let n = self.flagged(&lang, &doc.text);
        doc.attrs.insert("safety".into(), json!({ "flagged": n, "profanity": ((n as f64 / words as f64) * 10_000.0).round() / 10_000.0 }));
        Ok(())
    }
}

/// Drops on the profanity score and the domain blocklist.
#[derive(Debug)]
pub struct SafetyFilter {
    /// Threshold.
    pub max_profanity_ratio: f64,
    /// Registrable domains blocked.
    pub domains: std::collections::HashSet<String>,
}

impl Filter for SafetyFilter {
    fn name(&self) -> &'static str {
        "safety"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        if !self.domains.is_empty() {
            if let Some(host) = doc.host() {
                let host = host
                    .rsplit_once(':')
                    .filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()))
                    .map_or(host, |(h, _)| h);
                let host = host.trim_end_matches('.').to_ascii_lowercase();
                // The host itself or any parent domain listed blocks it, so a
                // list can name a whole site or a single subdomain.
                let mut suffix = host.as_str();
                loop {
                    if self.domains.contains(suffix) {
                        return Verdict::Drop(reasons::DOMAIN);
                    }
                    match suffix.split_once('.') {
                        Some((_, rest)) if !rest.is_empty() => suffix = rest,
                        _ => break,
                    }
                }
            }
        }
        let p = doc
            .attrs
            .get("safety")
            .and_then(|s| s["profanity"].as_f64())
            .unwrap_or(0.0);
        if p > self.max_profanity_ratio {
            return Verdict::Drop(reasons::PROFANITY);
        }
        Verdict::Keep
    }
}

/// Reads a domain blocklist file: lowercased domains, `*.` prefixes removed.
pub fn load_domains(path: &str) -> Result<std::collections::HashSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    Ok(parse_list(&text)
        .into_iter()
        .map(|d| {
            d.trim_start_matches("*.")
                .trim_end_matches('.')
                .to_ascii_lowercase()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::compliance::check_stage;
    use trawl_core::Stage;

    #[test]
    fn ascii_route_counts_like_the_lowercase_route() {
        let s = Safety::new(&SafetyConfig::default()).unwrap();
        let (lang, list) = BUILTIN[0];
        let word = parse_list(list)
            .into_iter()
            .find(|w| w.is_ascii() && w.chars().all(char::is_alphabetic))
            .unwrap();
        let upper = word.to_uppercase();
        let text = format!("{word} and {upper}, x{word} {word}s ({word}).");
        // the lowercase route sees the same text with one non-ASCII character added
        assert_eq!(
            s.flagged(lang, &text),
            s.flagged(lang, &format!("{text} é"))
        );
        assert_eq!(s.flagged(lang, &text), 3, "{text}");
    }

    #[test]
    fn profanity_score_and_domains() {
        let s = Safety::new(&SafetyConfig::default()).unwrap();
        assert_eq!(
            s.flagged(
                "eng",
                "What the FUCK, this is shit. Shitake mushrooms are fine, so is Scunthorpe."
            ),
            2,
            "whole words only"
        );
        assert_eq!(s.flagged("cmn", "anything"), 0);
        let mk = |url: &str, text: &str| {
            let mut d = Document::new(url, text);
            d.meta.lang = Some("eng".into());
            d.attrs
                .insert("words".into(), json!(trawl_core::text::word_count(text)));
            s.map(&mut d).unwrap();
            d
        };
        let clean = mk(
            "https://news.example/a",
            "The harbour town woke slowly on Monday as the first ferries crossed the water.",
        );
        let dirty = mk(
            "https://x.example/b",
            "fuck shit porn xxx the harbour town woke slowly on monday",
        );
        let bad_site = mk(
            "https://www.adult.example.co.uk:8080/c",
            "The harbour town woke slowly on Monday.",
        );
        let sibling = mk(
            "https://kids.example.co.uk/c",
            "The harbour town woke slowly on Monday.",
        );
        let f = SafetyFilter {
            max_profanity_ratio: 0.02,
            domains: ["adult.example.co.uk".to_string()].into_iter().collect(),
        };
        let (kept, stats) = check_stage(
            Stage::Filter(Box::new(f)),
            vec![clean, dirty, bad_site, sibling],
        );
        assert_eq!(
            kept.len(),
            2,
            "a listed subdomain blocks itself and below, not its siblings"
        );
        let st = stats.stage("safety").unwrap();
        assert_eq!(
            (st.dropped["unsafe_profanity"], st.dropped["unsafe_domain"]),
            (1, 1)
        );
    }
}
