//! `trawl-report`: the sampling report, one static HTML file with inline SVG charts (no
//! scripts, fonts or styles from elsewhere; a Content-Security-Policy forbids any), written
//! to `report/index.html` of the run. It shows the funnel (documents and tokens through every
//! stage, per drop reason), distributions (languages, domains, lengths, images, alt texts,
//! every numeric signal with its threshold), seeded samples stratified by language and domain
//! for every drop reason and for kept documents, image/alt-text pairs, and with a second run,
//! every number side by side with deltas and the documents kept in one run and dropped in the
//! other. Every piece of crawled content is HTML-escaped.
//!
//! ```
//! assert_eq!(trawl_report::escape("<script>&\"'"), "&lt;script&gt;&amp;&quot;&#39;");
//! ```
#![deny(missing_docs)]

mod collect;
mod render;
mod svg;

use serde::{Deserialize, Serialize};
use trawl_storage::{Storage, StorageError};

pub use collect::{collect, sample_records, stratified, Hist, RunData, Sample};
pub use render::render;

/// The `[report]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReportConfig {
    /// Whether `trawl run` writes `report/index.html` at the end.
    pub enabled: bool,
    /// Samples shown per drop reason (and for kept documents).
    pub samples_per_reason: usize,
    /// Seed of the sampling (same seed, same samples).
    pub seed: u64,
    /// Characters of text shown per sample.
    pub text_chars: usize,
    /// Documents read per set (kept, dropped per stage) for distributions and samples;
    /// the report says when it read a sample rather than everything.
    pub max_docs_scanned: usize,
    /// Domains shown in the domain chart.
    pub top_domains: usize,
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig {
            enabled: true,
            samples_per_reason: 5,
            seed: 0,
            text_chars: 1500,
            max_docs_scanned: 200_000,
            top_domains: 20,
        }
    }
}

impl ReportConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.samples_per_reason > 10_000 {
            return Err(("report.samples_per_reason".into(), "at most 10000".into()));
        }
        if self.max_docs_scanned == 0 {
            return Err((
                "report.max_docs_scanned".into(),
                "must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// The stage folders in pipeline order (the stages of `trawl run`).
pub const STAGES: [&str; 6] = trawl_core::StageId::PIPELINE_NAMES;

/// Whether a thumbnail is one trawl made: a JPEG `data:` URI of base64 characters only
/// (anything else is left out of the page).
pub fn safe_thumb(s: &str) -> bool {
    s.strip_prefix("data:image/jpeg;base64,").is_some_and(|b| {
        !b.is_empty()
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'=')
    })
}

/// HTML-escapes text (also safe inside double- or single-quoted attributes).
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Thresholds drawn on signal histograms: `(attribute path, value)`, e.g.
/// `("words", 50.0)`.
pub type Thresholds = Vec<(String, f64)>;

/// Collects, renders and writes `report/index.html` (comparing with `other` if given);
/// returns its URL.
pub async fn write(
    root: &Storage,
    other: Option<&Storage>,
    cfg: &ReportConfig,
    thresholds: &Thresholds,
) -> Result<String, StorageError> {
    let data = collect(root, cfg, thresholds).await?;
    let other = match other {
        Some(o) => Some(collect(o, cfg, thresholds).await?),
        None => None,
    };
    let html = render(&data, other.as_ref(), cfg);
    root.put("report/index.html", html.into_bytes().into())
        .await?;
    Ok(root.url_of("report/index.html"))
}
