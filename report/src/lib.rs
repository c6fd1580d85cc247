//! `trawl-report`: the sampling report, one static HTML file with inline SVG (no scripts,
//! fonts or styles from elsewhere), built from the stats in completion markers and seeded
//! samples of the exclusion files. Every piece of crawled content is HTML-escaped.
//!
//! ```
//! assert_eq!(trawl_report::escape("<script>&\"'"), "&lt;script&gt;&amp;&quot;&#39;");
//! ```
#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use trawl_core::{RunStats, StageStats};
use trawl_storage::{jsonl, markers, Storage, StorageError};

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
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig { enabled: true, samples_per_reason: 5, seed: 0, text_chars: 1500 }
    }
}

impl ReportConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.samples_per_reason > 10_000 {
            return Err(("report.samples_per_reason".into(), "at most 10000".into()));
        }
        Ok(())
    }
}

/// The stage folders in pipeline order.
pub const STAGES: &[&str] = &["crawl", "extract", "filter", "dedup", "captions", "shards"];

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

/// A sampled record.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Document id or URL.
    pub id: String,
    /// URL.
    pub url: String,
    /// Stage that dropped it.
    pub stage: String,
    /// Reason.
    pub reason: String,
    /// Text (truncated).
    pub text: String,
    /// Signals.
    pub attrs: String,
}

fn sample_key(seed: u64, id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(id.as_bytes(), seed)
}

/// Everything the report shows.
#[derive(Debug, Default)]
pub struct ReportData {
    /// Merged stats per stage folder, with the number of committed shards.
    pub stages: Vec<(String, RunStats, usize)>,
    /// Samples of dropped records by (stage folder, reason).
    pub dropped: BTreeMap<(String, String), Vec<Sample>>,
    /// Samples of documents that reached the end.
    pub kept: Vec<Sample>,
    /// Tokens and documents in shards, if any.
    pub shards: Option<(u64, u64)>,
}

fn to_sample(v: &Value, stage: &str, text_chars: usize) -> Sample {
    let doc = v.get("doc").unwrap_or(v);
    let text: String = doc.get("text").and_then(Value::as_str).unwrap_or("").chars().take(text_chars).collect();
    Sample {
        id: doc.get("id").map(|i| i.as_str().map(str::to_string).unwrap_or_else(|| i.to_string())).unwrap_or_default(),
        url: doc.get("url").and_then(Value::as_str).unwrap_or("").to_string(),
        stage: v.get("stage").and_then(Value::as_str).unwrap_or(stage).to_string(),
        reason: v.get("reason").and_then(Value::as_str).unwrap_or("").to_string(),
        text,
        attrs: doc.get("attrs").map(|a| serde_json::to_string_pretty(a).unwrap_or_default()).unwrap_or_default(),
    }
}

/// Reads stats and samples from a run root.
pub async fn collect(root: &Storage, cfg: &ReportConfig) -> Result<ReportData, StorageError> {
    let mut data = ReportData::default();
    for stage in STAGES {
        let (stats, n) = markers::merged_stats(root, stage).await?;
        if n > 0 {
            data.stages.push((stage.to_string(), stats, n));
        }
    }
    let k = cfg.samples_per_reason;
    for stage in STAGES {
        let mut groups: BTreeMap<String, Vec<(u64, Sample)>> = BTreeMap::new();
        for key in root.list(&format!("excluded/{stage}")).await? {
            let bytes = root.get(&key).await?;
            for v in jsonl::read_lines::<Value>(&key, &bytes)?.into_iter().flatten() {
                let s = to_sample(&v, stage, cfg.text_chars);
                let id = if s.id.is_empty() { s.url.clone() } else { s.id.clone() };
                let g = groups.entry(s.reason.clone()).or_default();
                g.push((sample_key(cfg.seed, &id), s));
                if g.len() > 4 * k.max(1) {
                    g.sort_by_key(|(h, _)| *h);
                    g.truncate(k);
                }
            }
        }
        for (reason, mut g) in groups {
            g.sort_by_key(|(h, _)| *h);
            g.truncate(k);
            data.dropped.insert((stage.to_string(), reason), g.into_iter().map(|(_, s)| s).collect());
        }
    }
    let mut kept: Vec<(u64, Sample)> = Vec::new();
    for key in root.list("dedup").await? {
        if !jsonl::is_jsonl(&key) {
            continue;
        }
        let bytes = root.get(&key).await?;
        for v in jsonl::read_lines::<Value>(&key, &bytes)?.into_iter().flatten() {
            let s = to_sample(&v, "kept", cfg.text_chars);
            kept.push((sample_key(cfg.seed, &s.id), s));
        }
        kept.sort_by_key(|(h, _)| *h);
        kept.truncate(k);
    }
    data.kept = kept.into_iter().map(|(_, s)| s).collect();
    if let Some(b) = root.get_opt("shards/manifest.json").await? {
        if let Ok(v) = serde_json::from_slice::<Value>(&b) {
            data.shards = Some((v["documents"].as_u64().unwrap_or(0), v["tokens"].as_u64().unwrap_or(0)));
        }
    }
    Ok(data)
}

fn totals(stats: &RunStats) -> StageStats {
    // the group's input is its first stage's input; its output the last stage's output
    let mut t = StageStats::default();
    if let (Some(first), Some(last)) = (stats.order.first(), stats.order.last()) {
        t.seen = stats.stages[first].seen;
        t.kept = stats.stages[last].kept;
    }
    for s in stats.stages.values() {
        for (r, n) in &s.dropped {
            *t.dropped.entry(r.clone()).or_default() += n;
        }
    }
    t
}

/// Renders the report.
pub fn render(data: &ReportData, title: &str) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
<title>{}</title><style>\
body{{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}}\
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:right}}\
th:first-child,td:first-child{{text-align:left}}details{{margin:.4em 0;border:1px solid #ddd;padding:.4em}}\
pre{{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:.5em}}.reason{{color:#a33}}\
</style></head><body><h1>{}</h1>",
        escape(title),
        escape(title)
    );
    // funnel table
    h.push_str("<h2 id=\"funnel\">Funnel</h2><table><tr><th>stage</th><th>shards</th><th>in</th><th>out</th><th>dropped</th><th>by reason</th></tr>");
    let mut bars: Vec<(String, u64)> = Vec::new();
    for (stage, stats, n) in &data.stages {
        let t = totals(stats);
        let reasons: Vec<String> = t
            .dropped
            .iter()
            .map(|(r, c)| format!("<a href=\"#{}\">{}</a>: {c}", escape(&format!("{stage}-{r}")), escape(r)))
            .collect();
        let _ = write!(h, "<tr><td>{}</td><td>{n}</td><td>{}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>", escape(stage), t.seen, t.kept, t.dropped_total(), reasons.join(", "));
        bars.push((stage.clone(), t.kept));
    }
    h.push_str("</table>");
    if let Some((docs, toks)) = data.shards {
        let _ = write!(h, "<p>Token shards: <b>{docs}</b> documents, <b>{toks}</b> tokens.</p>");
    }
    // funnel chart
    let max = bars.iter().map(|(_, v)| *v).max().unwrap_or(1).max(1);
    let height = 28 * bars.len() + 10;
    let _ = write!(h, "<svg role=\"img\" aria-label=\"records out of each stage\" width=\"640\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\">");
    for (i, (stage, v)) in bars.iter().enumerate() {
        let w = (*v as f64 / max as f64 * 440.0).round() as u64;
        let y = 5 + i * 28;
        let _ = write!(
            h,
            "<text x=\"0\" y=\"{}\" font-size=\"13\">{}</text><rect x=\"110\" y=\"{y}\" width=\"{w}\" height=\"20\" fill=\"#4a7ab5\"/><text x=\"{}\" y=\"{}\" font-size=\"12\">{v}</text>",
            y + 15,
            escape(stage),
            116 + w,
            y + 15
        );
    }
    h.push_str("</svg>");
    // per-stage detail
    h.push_str("<h2>Stages</h2>");
    for (stage, stats, _) in &data.stages {
        let _ = write!(h, "<h3>{}</h3><table><tr><th>step</th><th>seen</th><th>kept</th><th>dropped</th><th>ms</th></tr>", escape(stage));
        for name in &stats.order {
            let s = &stats.stages[name];
            let _ = write!(h, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", escape(name), s.seen, s.kept, s.dropped_total(), s.nanos / 1_000_000);
        }
        h.push_str("</table>");
    }
    // samples
    h.push_str("<h2>Samples of removed records</h2>");
    for ((stage, reason), samples) in &data.dropped {
        let _ = write!(h, "<h3 id=\"{}\">{} / <span class=\"reason\">{}</span></h3>", escape(&format!("{stage}-{reason}")), escape(stage), escape(reason));
        for s in samples {
            sample_html(&mut h, s);
        }
    }
    h.push_str("<h2 id=\"kept\">Samples of kept documents</h2>");
    for s in &data.kept {
        sample_html(&mut h, s);
    }
    h.push_str("</body></html>\n");
    h
}

fn sample_html(h: &mut String, s: &Sample) {
    let _ = write!(
        h,
        "<details><summary>{} <small>{}</small></summary><pre>{}</pre><pre>{}</pre></details>",
        escape(&s.url),
        escape(&s.id),
        escape(&s.text),
        escape(&s.attrs)
    );
}

/// Collects, renders and writes `report/index.html`; returns its URL.
pub async fn write(root: &Storage, cfg: &ReportConfig) -> Result<String, StorageError> {
    let data = collect(root, cfg).await?;
    let html = render(&data, &format!("trawl report: {}", root.url()));
    root.put("report/index.html", html.into_bytes().into()).await?;
    Ok(root.url_of("report/index.html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_content_is_escaped() {
        let mut data = ReportData::default();
        let s = Sample {
            id: "<img src=x onerror=alert(1)>".into(),
            url: "javascript:alert(1)\"><script>alert(2)</script>".into(),
            stage: "filter".into(),
            reason: "x".into(),
            text: "<script>alert(3)</script><a href=\"javascript:x\" onclick=\"y\">".into(),
            attrs: "{}".into(),
        };
        data.dropped.insert(("filter".into(), "<b>".into()), vec![s.clone()]);
        data.kept.push(s);
        let html = render(&data, "<title>");
        assert!(!html.contains("<script"));
        assert!(!html.contains("<img src=x"));
        assert!(!html.contains("<a href=\"javascript"));
        assert!(!html.contains("<b>"));
        assert!(html.contains("Content-Security-Policy"));
    }
}
