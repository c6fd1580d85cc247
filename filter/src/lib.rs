//! `trawl-filter`: annotators write signals to `attrs`; filters decide from `attrs`.
//!
//! This first version annotates language (whatlang, ISO 639-3 codes such as `eng`) and word
//! counts, and filters on the language allow list, language confidence, a minimum word
//! count and the consent record (documents whose robots.txt forbids the training token, or
//! that carry `noai`, are dropped).
//!
//! ```
//! use trawl_filter::FilterConfig;
//! let stages = FilterConfig { min_words: 3, ..Default::default() }.build().unwrap();
//! let mut chain = trawl_core::Chain::new("filter", stages);
//! let doc = trawl_core::Document::new("u", "The quick brown fox jumps over the lazy dog near the river bank.");
//! let kept = chain.process(doc).unwrap();
//! assert_eq!(kept.meta.lang.as_deref(), Some("eng"));
//! ```
#![deny(missing_docs)]

pub mod heuristics;
pub mod lid;
pub mod pii;
pub mod quality;
pub mod safety;

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Document, DropReason, Filter, Map, RecordError, Stage, UrlBlocklist, Verdict};

/// Drop reasons of the filter stage.
pub mod reasons {
    use trawl_core::DropReason;
    /// Language not in the allow list.
    pub const LANG_NOT_ALLOWED: DropReason = DropReason::new("lang_not_allowed");
    /// Language confidence below the threshold.
    pub const LANG_LOW_CONFIDENCE: DropReason = DropReason::new("lang_low_confidence");
    /// Fewer words than the minimum.
    pub const TOO_FEW_WORDS: DropReason = DropReason::new("too_few_words");
    /// robots.txt disallows the training token, or the page says `noai`.
    pub const TRAINING_OPT_OUT: DropReason = DropReason::new("training_opt_out");
    /// The URL is on a blocklist or a takedown list.
    pub const BLOCKLISTED: DropReason = DropReason::new("blocklisted");
}

/// The `[filter]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterConfig {
    /// Whether `trawl run` filters.
    pub enabled: bool,
    /// Languages kept (ISO 639-3, e.g. `eng`, `fra`); empty keeps every language.
    pub languages: Vec<String>,
    /// Documents whose language confidence is below this are dropped (0 disables).
    pub min_lang_confidence: f64,
    /// Documents with fewer words are dropped.
    pub min_words: usize,
    /// Drop documents whose consent record forbids training use.
    pub respect_training_opt_out: bool,
    /// Also treat `noindex`/`none` (X-Robots-Tag or meta robots) as an opt-out.
    pub respect_noindex: bool,
    /// What each AI-use preference signal does (`honour`: a reservation against training
    /// opts the document out; `record`: kept in the consent record only). Also applied by
    /// the captions stage to each image's own signals.
    pub consent_signals: trawl_core::signals::SignalPolicy,
    /// Personal data replaced by placeholders (a Map before the filters).
    pub pii: pii::PiiConfig,
    /// Heuristic signals (`attrs.heur`) and the relaxed filters on them.
    pub heuristics: heuristics::HeuristicsConfig,
    /// Profanity score and domain blocklist.
    pub safety: safety::SafetyConfig,
    /// fastText quality models per language and their thresholds (`[filter.quality]`).
    pub quality: quality::QualityConfig,
    /// A fastText language-ID model (e.g. `lid.176.bin`), combined with whatlang: its top
    /// label wins when its probability reaches `lid_min_prob`, else whatlang's answer stands.
    pub lid_model: Option<String>,
    /// See `lid_model`.
    pub lid_min_prob: f64,
    /// Files of URLs, URL prefixes (`https://x/a/*`) and domains whose documents are
    /// dropped as `blocklisted`. The run root's `takedown/urls.txt` is always honoured too.
    pub blocklists: Vec<String>,
    /// Annotate only: every filter (but the blocklists, which are takedowns) records the
    /// reason it would drop a document in `attrs.would_drop` and keeps it, for tuning
    /// thresholds offline on the annotations.
    pub annotate_only: bool,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            enabled: true,
            languages: Vec::new(),
            min_lang_confidence: 0.0,
            min_words: 50,
            respect_training_opt_out: true,
            respect_noindex: true,
            consent_signals: Default::default(),
            pii: pii::PiiConfig::default(),
            heuristics: heuristics::HeuristicsConfig::default(),
            safety: safety::SafetyConfig::default(),
            quality: quality::QualityConfig::default(),
            lid_model: None,
            lid_min_prob: 0.5,
            blocklists: Vec::new(),
            annotate_only: false,
        }
    }
}

impl FilterConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if !(0.0..=1.0).contains(&self.min_lang_confidence) {
            return Err((
                "filter.min_lang_confidence".into(),
                format!("{} is outside 0..=1", self.min_lang_confidence),
            ));
        }
        self.load_blocklists()?;
        self.quality.validate()?;
        if let Some(m) = &self.lid_model {
            if !std::path::Path::new(m).is_file() {
                return Err(("filter.lid_model".into(), format!("{m} is not a file")));
            }
        }
        if !(0.0..=1.0).contains(&self.lid_min_prob) {
            return Err((
                "filter.lid_min_prob".into(),
                format!("{} is not a probability", self.lid_min_prob),
            ));
        }
        safety::Safety::new(&self.safety).map_err(|e| ("filter.safety.lists".to_string(), e))?;
        if let Some(f) = &self.safety.domain_blocklist {
            safety::load_domains(f)
                .map_err(|e| ("filter.safety.domain_blocklist".to_string(), e))?;
        }
        for l in &self.languages {
            if whatlang::Lang::from_code(l).is_none() {
                return Err((
                    "filter.languages".into(),
                    format!(
                        "`{l}` is not an ISO 639-3 code whatlang knows (e.g. eng, fra, deu, cmn)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Reads the configured blocklist files.
    pub fn load_blocklists(&self) -> Result<UrlBlocklist, (String, String)> {
        let mut all = UrlBlocklist::default();
        for f in &self.blocklists {
            let text = std::fs::read_to_string(f).map_err(|e| {
                (
                    "filter.blocklists".to_string(),
                    format!("cannot read `{f}`: {e}"),
                )
            })?;
            all.extend(UrlBlocklist::parse(&text));
        }
        Ok(all)
    }

    /// The stages, in order: blocklist, annotate, then decide. A list or model that cannot
    /// be loaded is an error naming its key (`filter.lid_model`, ...) and the file: a
    /// filter missing a part would silently keep what it should remove.
    pub fn build(&self) -> Result<Vec<Stage>, (String, String)> {
        self.build_with(UrlBlocklist::default())
    }

    /// The stages, with extra blocked URLs (e.g. the run root's takedown list) added to the
    /// configured blocklists.
    pub fn build_with(&self, mut blocked: UrlBlocklist) -> Result<Vec<Stage>, (String, String)> {
        blocked.extend(self.load_blocklists()?);
        let mut v: Vec<Stage> = Vec::new();
        if !blocked.is_empty() {
            v.push(Stage::Filter(Box::new(Blocklisted { list: blocked })));
        }
        let annotate_only = self.annotate_only;
        let decide = |v: &mut Vec<Stage>, f: Box<dyn Filter>| {
            v.push(if annotate_only {
                Stage::Map(Box::new(WouldDrop(f)))
            } else {
                Stage::Filter(f)
            });
        };
        let lid = match self.lid_model.as_deref() {
            Some(m) => Some(std::sync::Arc::new(
                quality::load_model(m).map_err(|e| ("filter.lid_model".to_string(), e))?,
            )),
            None => None,
        };
        v.push(Stage::Map(Box::new(Annotate {
            lid,
            lid_min_prob: self.lid_min_prob,
        })));
        if self.pii.enabled {
            v.push(Stage::Map(Box::new(pii::Pii::new(self.pii.clone()))));
        }
        if self.respect_training_opt_out {
            decide(
                &mut v,
                Box::new(ConsentFilter {
                    respect_noindex: self.respect_noindex,
                    signals: self.consent_signals.clone(),
                }),
            );
        }
        decide(
            &mut v,
            Box::new(LanguageFilter {
                languages: self.languages.clone(),
                min_confidence: self.min_lang_confidence,
            }),
        );
        decide(
            &mut v,
            Box::new(MinWords {
                min: self.min_words,
            }),
        );
        if self.safety.enabled {
            let s = safety::Safety::new(&self.safety)
                .map_err(|e| ("filter.safety.lists".to_string(), e))?;
            v.push(Stage::Map(Box::new(s)));
            let domains = match self.safety.domain_blocklist.as_deref() {
                Some(f) => safety::load_domains(f)
                    .map_err(|e| ("filter.safety.domain_blocklist".to_string(), e))?,
                None => Default::default(),
            };
            // the safety filter has its own switch (`filter.safety.enabled`);
            // `heuristics.signals_only` is about the heuristics alone
            decide(
                &mut v,
                Box::new(safety::SafetyFilter {
                    max_profanity_ratio: self.safety.max_profanity_ratio,
                    domains,
                }),
            );
        }
        if self.heuristics.enabled {
            v.push(Stage::Map(Box::new(heuristics::Signals)));
            if !self.heuristics.signals_only {
                decide(
                    &mut v,
                    Box::new(heuristics::Heuristics {
                        cfg: self.heuristics.clone(),
                    }),
                );
            }
        }
        if !self.quality.models.is_empty() {
            let q = quality::Quality::load(&self.quality)?;
            v.push(Stage::Map(Box::new(q)));
            if !self.quality.thresholds.is_empty() {
                decide(
                    &mut v,
                    Box::new(quality::QualityFilter {
                        thresholds: self.quality.thresholds.clone(),
                    }),
                );
            }
        }
        Ok(v)
    }
}

/// A filter run as an annotator (`annotate_only`): appends the reason it would drop a
/// document to `attrs.would_drop` and keeps the document.
struct WouldDrop(Box<dyn Filter>);

impl Map for WouldDrop {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        if let Verdict::Drop(reason) = self.0.filter(doc) {
            let list = doc
                .attrs
                .entry("would_drop".to_string())
                .or_insert_with(|| serde_json::json!([]));
            if let Some(a) = list.as_array_mut() {
                a.push(reason.as_str().into());
            }
        }
        Ok(())
    }
}

/// Counts words in a way that works for languages without spaces (see
/// [`trawl_core::text`]).
pub fn word_count(text: &str) -> usize {
    trawl_core::text::word_count(text)
}

/// Annotates `attrs.lang`, `meta.lang` and `attrs.words`. Language: [`lid::document`]
/// (whatlang on a bounded sample, lingua's second opinion on short documents whatlang is
/// unsure of), the paragraphs' shares ([`lid::paragraph_shares`]), then [`lid::settle`]
/// (`und` below a few letters; capped confidence for short and mixed texts). With a fastText
/// LID model, its top label wins when its probability is at least `lid_min_prob`.
/// `attrs.lang` = `{code, confidence, reliable, paragraphs, source: whatlang | lingua |
/// fasttext, [caveat: too_short | short | mixed], [whatlang, lingua, fasttext: each
/// detector's own answer when more than one was asked]}`.
#[derive(Default)]
pub struct Annotate {
    /// A fastText language-ID model.
    pub lid: Option<std::sync::Arc<fasttext::FastText>>,
    /// Minimum probability for the fastText answer to win.
    pub lid_min_prob: f64,
}

impl std::fmt::Debug for Annotate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Annotate")
            .field("lid", &self.lid.is_some())
            .field("lid_min_prob", &self.lid_min_prob)
            .finish()
    }
}

/// ISO 639-3 for a fastText label (`__label__en`, `__label__eng`, `__label__zh`, ...), as
/// whatlang names languages.
pub fn lid_label_to_iso3(label: &str) -> Option<String> {
    let l = label
        .trim_start_matches("__label__")
        .split(['_', '-'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if l.len() == 3 && whatlang::Lang::from_code(&l).is_some() {
        return Some(l);
    }
    const TWO: &[(&str, &str)] = &[
        ("en", "eng"),
        ("de", "deu"),
        ("fr", "fra"),
        ("es", "spa"),
        ("it", "ita"),
        ("pt", "por"),
        ("nl", "nld"),
        ("pl", "pol"),
        ("ru", "rus"),
        ("uk", "ukr"),
        ("ja", "jpn"),
        ("zh", "cmn"),
        ("ko", "kor"),
        ("ar", "ara"),
        ("fa", "pes"),
        ("he", "heb"),
        ("hi", "hin"),
        ("bn", "ben"),
        ("tr", "tur"),
        ("sv", "swe"),
        ("da", "dan"),
        ("no", "nob"),
        ("nb", "nob"),
        ("fi", "fin"),
        ("cs", "ces"),
        ("sk", "slk"),
        ("hu", "hun"),
        ("ro", "ron"),
        ("bg", "bul"),
        ("el", "ell"),
        ("sr", "srp"),
        ("hr", "hrv"),
        ("sl", "slv"),
        ("lt", "lit"),
        ("lv", "lav"),
        ("et", "est"),
        ("vi", "vie"),
        ("th", "tha"),
        ("id", "ind"),
        ("ms", "zlm"),
        ("ta", "tam"),
        ("te", "tel"),
        ("mr", "mar"),
        ("ur", "urd"),
        ("ca", "cat"),
        ("af", "afr"),
        ("be", "bel"),
        ("ka", "kat"),
        ("hy", "hye"),
        ("az", "aze"),
        ("uz", "uzb"),
        ("tl", "tgl"),
        ("eo", "epo"),
        ("la", "lat"),
        ("mk", "mkd"),
        ("ne", "nep"),
        ("pa", "pan"),
        ("gu", "guj"),
        ("kn", "kan"),
        ("ml", "mal"),
        ("si", "sin"),
        ("am", "amh"),
        ("yi", "yid"),
        ("km", "khm"),
        ("my", "mya"),
        ("sn", "sna"),
        ("zu", "zul"),
        ("ak", "aka"),
        ("jv", "jav"),
    ];
    TWO.iter()
        .find(|(k, _)| *k == l)
        .map(|(_, v)| v.to_string())
}

impl Map for Annotate {
    fn name(&self) -> &'static str {
        "annotate"
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        let wl = lid::document(&doc.text);
        let (wl_code, wl_conf, wl_reliable) = (wl.code.to_string(), wl.confidence, wl.reliable);
        // the fastText model reads up to 6 KB (three windows); only built when there is one
        let ft = self.lid.as_ref().and_then(|m| {
            let line: String = lid::sample(&doc.text, 6_000)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let p = m.predict(&line, 1, 0.0).into_iter().next()?;
            Some((
                lid_label_to_iso3(&p.label)
                    .unwrap_or_else(|| p.label.trim_start_matches("__label__").to_string()),
                f64::from(p.prob),
            ))
        });
        let (code, conf, reliable, source) = match &ft {
            Some((c, p)) if *p >= self.lid_min_prob => (c.clone(), *p, true, "fasttext"),
            _ if wl.second.is_some() => (wl_code.clone(), wl_conf, wl_reliable, "lingua"),
            _ => (wl_code.clone(), wl_conf, wl_reliable, "whatlang"),
        };
        // paragraph level: the share of the text per language, for mixed pages
        let shares = lid::paragraph_shares(
            &doc.text,
            &code,
            if code == wl.code {
                wl.script
            } else {
                lid::script_of(&lid::sample(&doc.text, 6_000))
            },
        );
        // short and mixed texts: `und`, or a confidence that says so
        let settled = lid::settle(&doc.text, &code, conf, reliable, &shares);
        let paragraphs: serde_json::Map<String, serde_json::Value> = shares
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        let mut lang = json!({
            "code": settled.code,
            "confidence": round(settled.confidence),
            "reliable": settled.reliable,
            "paragraphs": paragraphs,
            "source": source,
        });
        if let Some(c) = settled.caveat {
            lang["caveat"] = c.into();
        }
        if let Some((c, p)) = wl.second {
            lang["lingua"] = json!({ "code": c, "confidence": round(p) });
        }
        if let Some((c, p)) = &ft {
            lang["fasttext"] = json!({ "code": c, "prob": round(*p) });
        }
        // whatlang's own answer, beside any other detector's
        if wl.whatlang.is_some() || ft.is_some() {
            let (c, p) = wl.whatlang.unwrap_or((wl.code, wl_conf));
            lang["whatlang"] = json!({ "code": c, "confidence": round(p) });
        }
        let code = settled.code;
        doc.attrs.insert("lang".into(), lang);
        doc.attrs
            .insert("words".into(), json!(word_count(&doc.text)));
        doc.meta.lang = Some(code);
        Ok(())
    }
}

/// Drops documents whose URL a blocklist or takedown covers.
#[derive(Debug)]
pub struct Blocklisted {
    /// The patterns.
    pub list: UrlBlocklist,
}

impl Filter for Blocklisted {
    fn name(&self) -> &'static str {
        "blocklist"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        if self.list.matches(&doc.url) {
            Verdict::Drop(reasons::BLOCKLISTED)
        } else {
            Verdict::Keep
        }
    }
}

/// Drops documents whose consent forbids training use.
#[derive(Debug)]
pub struct ConsentFilter {
    /// `noindex`/`none` count as an opt-out too.
    pub respect_noindex: bool,
    /// What the AI-use preference signals in the consent record do.
    pub signals: trawl_core::signals::SignalPolicy,
}

impl Filter for ConsentFilter {
    fn name(&self) -> &'static str {
        "consent"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        if doc.consent.permits_training()
            && !(self.respect_noindex && doc.consent.noindex)
            && self.signals.opt_out(&doc.consent.signals).is_none()
        {
            Verdict::Keep
        } else {
            Verdict::Drop(reasons::TRAINING_OPT_OUT)
        }
    }
}

/// Language allow list and confidence threshold, decided from `attrs.lang`.
#[derive(Debug)]
pub struct LanguageFilter {
    /// Allowed codes; empty allows all.
    pub languages: Vec<String>,
    /// Minimum confidence.
    pub min_confidence: f64,
}

impl Filter for LanguageFilter {
    fn name(&self) -> &'static str {
        "language"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        let lang = doc.attrs.get("lang");
        let code = lang.and_then(|l| l["code"].as_str()).unwrap_or("und");
        let conf = lang.and_then(|l| l["confidence"].as_f64()).unwrap_or(0.0);
        if !self.languages.is_empty() && !self.languages.iter().any(|l| l == code) {
            return Verdict::Drop(reasons::LANG_NOT_ALLOWED);
        }
        if conf < self.min_confidence {
            return Verdict::Drop(reasons::LANG_LOW_CONFIDENCE);
        }
        Verdict::Keep
    }
}

/// Minimum word count, decided from `attrs.words` (computed if absent).
#[derive(Debug)]
pub struct MinWords {
    /// Minimum.
    pub min: usize,
}

impl Filter for MinWords {
    fn name(&self) -> &'static str {
        "min_words"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        let words = doc
            .attrs
            .get("words")
            .and_then(|w| w.as_u64())
            .map(|w| w as usize)
            .unwrap_or_else(|| word_count(&doc.text));
        if words < self.min {
            Verdict::Drop(reasons::TOO_FEW_WORDS)
        } else {
            Verdict::Keep
        }
    }
}

/// Every reason this crate can drop for (for reports and docs).
pub const ALL_REASONS: &[DropReason] = &[
    quality::QUALITY_LOW,
    reasons::LANG_NOT_ALLOWED,
    reasons::LANG_LOW_CONFIDENCE,
    reasons::TOO_FEW_WORDS,
    reasons::TRAINING_OPT_OUT,
    reasons::BLOCKLISTED,
];

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::compliance::check_stage;

    const EN: &str = "The library has extended its opening hours on weekday evenings after a survey showed that many students could not visit during the day.";
    const FR: &str = "La bibliothèque municipale organise tout au long de l'année des lectures pour les enfants et des rencontres avec des auteurs.";

    fn annotated(text: &str) -> Document {
        let mut d = Document::new("u", text);
        Annotate::default().map(&mut d).unwrap();
        d
    }

    #[test]
    fn language_annotation_and_filter() {
        let d = annotated(EN);
        assert_eq!(d.meta.lang.as_deref(), Some("eng"));
        assert!(d.attrs["lang"]["confidence"].as_f64().unwrap() > 0.5);
        let f = LanguageFilter {
            languages: vec!["eng".into()],
            min_confidence: 0.0,
        };
        let (kept, stats) = check_stage(
            Stage::Filter(Box::new(f)),
            vec![annotated(EN), annotated(FR)],
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(
            stats.stage("language").unwrap().dropped["lang_not_allowed"],
            1
        );
    }

    #[test]
    fn paragraph_language_shares() {
        let d = annotated(&format!("{EN}\n\n{FR}\n\n{EN}"));
        let p = &d.attrs["lang"]["paragraphs"];
        assert!(
            p["eng"].as_f64().unwrap() > 0.6 && p["fra"].as_f64().unwrap() > 0.2,
            "{p}"
        );
    }

    #[test]
    fn min_words_and_cjk() {
        assert_eq!(word_count("one two three"), 3);
        assert_eq!(word_count("我们今天去公园"), 7);
        assert_eq!(word_count("ภาษาไทย"), 7);
        let (kept, stats) = check_stage(
            Stage::Filter(Box::new(MinWords { min: 5 })),
            vec![annotated("too short"), annotated(EN)],
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(
            stats.stage("min_words").unwrap().dropped["too_few_words"],
            1
        );
    }

    #[test]
    fn consent_opt_out() {
        let mut no = annotated(EN);
        no.consent.training_allowed = Some(false);
        let mut noai = annotated(EN);
        noai.consent.noai = true;
        let mut noindex = annotated(EN);
        noindex.consent.noindex = true;
        let mut reserved = annotated(EN);
        reserved
            .consent
            .signals
            .push(trawl_core::signals::tdm_reservation("header", "1"));
        let mut unreadable = annotated(FR);
        unreadable
            .consent
            .signals
            .push(trawl_core::signals::content_usage(
                "header",
                "train-ai=maybe",
            ));
        let (kept, stats) = check_stage(
            Stage::Filter(Box::new(ConsentFilter {
                respect_noindex: true,
                signals: Default::default(),
            })),
            vec![no, noai, noindex.clone(), reserved.clone(), unreadable],
        );
        assert_eq!(kept.len(), 1, "only the unreadable signal's document stays");
        assert_eq!(
            stats.stage("consent").unwrap().dropped["training_opt_out"],
            4
        );
        // the policy can record a signal instead of honouring it
        let (kept, _) = check_stage(
            Stage::Filter(Box::new(ConsentFilter {
                respect_noindex: true,
                signals: trawl_core::signals::SignalPolicy {
                    tdmrep: trawl_core::signals::Policy::Record,
                    ..Default::default()
                },
            })),
            vec![reserved],
        );
        assert_eq!(kept.len(), 1);
        let (kept, _) = check_stage(
            Stage::Filter(Box::new(ConsentFilter {
                respect_noindex: false,
                signals: Default::default(),
            })),
            vec![noindex],
        );
        assert_eq!(
            kept.len(),
            1,
            "noindex alone is not an opt-out when respect_noindex is off"
        );
    }

    #[test]
    fn annotate_records_the_second_opinion_and_short_texts() {
        let ann = Annotate::default();
        let mut d = Document::new("u", "Tento program obsahuje nástroje pro správu tiskáren.");
        ann.map(&mut d).unwrap();
        let l = &d.attrs["lang"];
        assert_eq!(l["code"], "ces", "{l}");
        assert_eq!(l["source"], "lingua", "{l}");
        assert_eq!(l["lingua"]["code"], "ces", "{l}");
        assert!(l["whatlang"]["confidence"].as_f64().unwrap() < 0.5, "{l}");
        assert_eq!(d.meta.lang.as_deref(), Some("ces"));
        let mut d = Document::new("u", "OK");
        ann.map(&mut d).unwrap();
        let l = &d.attrs["lang"];
        assert_eq!(
            (l["code"].as_str(), l["caveat"].as_str()),
            (Some("und"), Some("too_short"))
        );
        assert_eq!(d.meta.lang.as_deref(), Some("und"));
        let mut d = Document::new("u", "Read more");
        ann.map(&mut d).unwrap();
        let l = &d.attrs["lang"];
        assert!(
            l["confidence"].as_f64().unwrap() <= 0.5 && l["reliable"] == false,
            "{l}"
        );
        assert_eq!(l["caveat"], "short");
    }

    #[test]
    fn quantized_fasttext_models_are_refused() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let train = dir.path().join("lid.txt");
        let mut f = std::fs::File::create(&train).unwrap();
        for i in 0..60 {
            writeln!(f, "__label__en the council approved the plan {i}").unwrap();
            writeln!(f, "__label__de der rat hat den plan genehmigt {i}").unwrap();
        }
        drop(f);
        let args = fasttext::args::Args {
            input: train,
            model: fasttext::args::ModelName::Supervised,
            epoch: 5,
            thread: 1,
            min_count: 1,
            bucket: 1_000,
            dim: 8,
            verbose: 0,
            ..Default::default()
        };
        let mut model = fasttext::FastText::train(args.clone()).unwrap();
        let bin = dir.path().join("lid.bin");
        model.save_model(&bin).unwrap();
        model.quantize(&args).unwrap();
        let ftz = dir.path().join("lid.ftz");
        model.save_model(&ftz).unwrap();
        let cfg = |m: &std::path::Path| FilterConfig {
            lid_model: Some(m.display().to_string()),
            ..Default::default()
        };
        assert!(cfg(&bin).build().is_ok());
        let Err(err) = cfg(&ftz).build() else {
            panic!("a quantized model is refused")
        };
        assert_eq!(err.0, "filter.lid_model");
        assert!(err.1.contains("quantized"), "{}", err.1);
    }

    #[test]
    fn fasttext_lid_wins_when_confident() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let train = dir.path().join("lid.txt");
        let mut f = std::fs::File::create(&train).unwrap();
        let en = [
            "the library opens early",
            "residents were told in advance",
            "the council approved the plan",
            "scientists counted the birds",
        ];
        let de = [
            "die bibliothek öffnet früh",
            "die bewohner wurden informiert",
            "der rat hat den plan genehmigt",
            "forscher zählten die vögel",
        ];
        let fr = [
            "la bibliothèque ouvre tôt",
            "les habitants ont été informés",
            "le conseil a approuvé le plan",
            "les chercheurs ont compté les oiseaux",
        ];
        for i in 0..40 {
            for (label, set) in [("en", &en), ("de", &de), ("fr", &fr)] {
                writeln!(f, "__label__{label} {} {}", set[i % 4], set[(i + 1) % 4]).unwrap();
            }
        }
        drop(f);
        let args = fasttext::args::Args {
            input: train,
            model: fasttext::args::ModelName::Supervised,
            epoch: 25,
            lr: 0.5,
            thread: 1,
            min_count: 1,
            bucket: 10_000,
            dim: 16,
            verbose: 0,
            ..Default::default()
        };
        let model = std::sync::Arc::new(fasttext::FastText::train(args).unwrap());
        let ann = Annotate {
            lid: Some(model.clone()),
            lid_min_prob: 0.5,
        };
        let mut d = Document::new(
            "u",
            "Der Rat hat den Plan genehmigt und die Bewohner wurden informiert.",
        );
        ann.map(&mut d).unwrap();
        assert_eq!(d.attrs["lang"]["source"], "fasttext", "{}", d.attrs["lang"]);
        assert_eq!(d.attrs["lang"]["code"], "deu");
        assert_eq!(d.meta.lang.as_deref(), Some("deu"));
        assert!(d.attrs["lang"]["whatlang"]["code"].is_string());
        // not confident enough: whatlang's answer stands, both recorded
        let strict = Annotate {
            lid: Some(model),
            lid_min_prob: 1.01,
        };
        let mut d = Document::new("u", FR);
        strict.map(&mut d).unwrap();
        assert_eq!(d.attrs["lang"]["source"], "whatlang");
        assert_eq!(d.attrs["lang"]["code"], "fra");
        assert_eq!(lid_label_to_iso3("__label__zh"), Some("cmn".into()));
        assert_eq!(lid_label_to_iso3("__label__deu"), Some("deu".into()));
        assert_eq!(lid_label_to_iso3("__label__xx"), None);
    }

    #[test]
    fn annotate_is_a_compliant_map() {
        let (kept, _) = check_stage(
            Stage::Map(Box::new(Annotate::default())),
            vec![annotated(EN), Document::new("u", "")],
        );
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1].meta.lang.as_deref(), Some("und"));
    }

    #[test]
    fn blocklist_drops_covered_urls() {
        let list = UrlBlocklist::parse("https://a.example/x\nb.example\n");
        let docs = vec![
            Document::new("https://a.example/x", "t"),
            Document::new("https://www.b.example/y", "t"),
            Document::new("https://c.example/", "t"),
        ];
        let (kept, stats) = check_stage(Stage::Filter(Box::new(Blocklisted { list })), docs);
        assert_eq!(kept.len(), 1);
        assert_eq!(stats.stage("blocklist").unwrap().dropped["blocklisted"], 2);
    }

    #[test]
    fn config_validation_names_key() {
        let c = FilterConfig {
            languages: vec!["english".into()],
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "filter.languages");
    }
}
