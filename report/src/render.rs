//! The HTML page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use trawl_core::{RunStats, StageStats};

use crate::collect::{Hist, RunData, Sample};
use crate::svg::{self, num, Bin, Row};
use crate::{escape, safe_thumb, ReportConfig};

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232a;background:#f6f7f9}\
header{background:#1f3b57;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}header p{margin:4px 0 0;opacity:.85;font-size:14px}\
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #dde1e6;padding:8px 32px;font-size:14px;z-index:1}nav a{margin-right:18px;color:#1f3b57;text-decoration:none}\
main{padding:12px 32px 60px;max-width:1180px}section{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:14px 20px;margin:18px 0}\
h2{font-size:18px;margin:4px 0 10px}h3{font-size:15px;margin:16px 0 6px}.cards{display:flex;gap:14px;flex-wrap:wrap}\
.card{background:#f0f4f8;border-radius:6px;padding:10px 16px;min-width:130px}.card b{display:block;font-size:22px}.card span{font-size:12px;color:#56606b}\
table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border-bottom:1px solid #e3e6ea;padding:4px 10px;text-align:right;vertical-align:top}\
th{background:#f0f2f5}td:first-child,th:first-child{text-align:left}td.l{text-align:left}.delta-up{color:#1e7a3c}.delta-down{color:#b0302a}\
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px 28px}.pairs{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:12px}.chart{margin:6px 0}\
.ct{font-size:17px;font-weight:600;fill:#1d232a}.cl{font-size:15px;fill:#333}.cv{font-size:14px;fill:#555}.cx{font-size:13px;fill:#555}.cth{font-size:14px;fill:#c0392b}\
details{border:1px solid #e3e6ea;border-radius:6px;margin:6px 0;padding:6px 10px;background:#fbfcfd}summary{cursor:pointer;font-size:13px;word-break:break-all}\
summary small{color:#6b7580}pre{white-space:pre-wrap;word-break:break-word;background:#f3f5f7;padding:8px;font-size:12px;max-height:420px;overflow:auto}\
.tag{display:inline-block;background:#e8eef5;border-radius:10px;padding:0 8px;margin-right:4px;font-size:11px}.reason{background:#fbe3e1;color:#8a2a22}\
.pair{border:1px solid #e3e6ea;border-radius:6px;padding:8px;background:#fbfcfd;font-size:12px}.th{display:block;max-width:100%;max-height:200px;margin:0 auto 6px;border-radius:4px}.th+.ph{height:auto;min-height:0;background:none;justify-content:flex-start;padding:0 0 4px}.ph{height:90px;background:repeating-linear-gradient(45deg,#eef1f4,#eef1f4 8px,#e4e8ec 8px,#e4e8ec 16px);display:flex;align-items:center;justify-content:center;color:#6b7580;font-size:11px;border-radius:4px;margin-bottom:6px;word-break:break-all;padding:4px}\
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}";

fn anchor(kind: &str, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!(
        "{kind}-{clean}-{:08x}",
        xxhash_rust::xxh3::xxh3_64(name.as_bytes()) as u32
    )
}

fn totals(stats: &RunStats) -> (StageStats, u64, u64) {
    let mut t = StageStats::default();
    let (mut tin, mut tout) = (0, 0);
    if let (Some(first), Some(last)) = (stats.order.first(), stats.order.last()) {
        t.seen = stats.stages[first].seen;
        t.kept = stats.stages[last].kept;
        tin = stats.stages[first]
            .counters
            .get("tokens_in")
            .copied()
            .unwrap_or(0);
        tout = stats.stages[last]
            .counters
            .get("tokens_out")
            .copied()
            .unwrap_or(0);
    }
    for s in stats.stages.values() {
        for (r, n) in &s.dropped {
            *t.dropped.entry(r.clone()).or_default() += n;
        }
    }
    (t, tin, tout)
}

fn delta(a: u64, b: u64) -> String {
    let d = b as i64 - a as i64;
    let pct = if a > 0 {
        format!(" ({:+.1}%)", 100.0 * d as f64 / a as f64)
    } else {
        String::new()
    };
    let class = if d > 0 {
        "delta-up"
    } else if d < 0 {
        "delta-down"
    } else {
        ""
    };
    format!("<span class=\"{class}\">{:+}{pct}</span>", d)
}

fn sample_html(h: &mut String, s: &Sample) {
    let tags = [
        (!s.lang.is_empty()).then(|| format!("<span class=\"tag\">{}</span>", escape(&s.lang))),
        (!s.reason.is_empty())
            .then(|| format!("<span class=\"tag reason\">{}</span>", escape(&s.reason))),
    ];
    let _ = write!(
        h,
        "<details><summary>{}{} <small>{}</small></summary>{}{}</details>",
        tags.iter().flatten().cloned().collect::<String>(),
        escape(if s.url.is_empty() { &s.id } else { &s.url }),
        escape(&s.id),
        if s.text.is_empty() {
            String::new()
        } else {
            format!("<pre>{}</pre>", escape(&s.text))
        },
        if s.attrs.is_empty() {
            String::new()
        } else {
            format!("<pre>{}</pre>", escape(&s.attrs))
        }
    );
}

fn bin_label(h: &Hist, i: usize) -> String {
    let f = |x: f64| {
        if x.fract() == 0.0 {
            num(x as u64)
        } else {
            format!("{x:.2}")
        }
    };
    match (i.checked_sub(1).map(|j| h.bounds[j]), h.bounds.get(i)) {
        (None, Some(hi)) => format!("≤{}", f(*hi)),
        (Some(lo), Some(hi)) => format!("{}–{}", f(lo), f(*hi)),
        (Some(lo), None) => format!(">{}", f(lo)),
        (None, None) => "all".into(),
    }
}

fn threshold_pos(h: &Hist, t: f64) -> f64 {
    let i = h
        .bounds
        .iter()
        .position(|b| t <= *b)
        .unwrap_or(h.bounds.len());
    let lo = if i == 0 {
        h.bounds.first().map_or(0.0, |b| b.min(t) - 1.0)
    } else {
        h.bounds[i - 1]
    };
    let hi = h.bounds.get(i).copied().unwrap_or(lo + 1.0);
    i as f64
        + if hi > lo {
            ((t - lo) / (hi - lo)).clamp(0.0, 1.0)
        } else {
            0.5
        }
}

/// Renders one run, or two side by side (`b` the comparison run).
pub fn render(a: &RunData, b: Option<&RunData>, cfg: &ReportConfig) -> String {
    let runs: Vec<&RunData> = std::iter::once(a).chain(b).collect();
    let mut h = String::with_capacity(1 << 16);
    let title = match b {
        Some(b) => format!("trawl report: {} vs {}", a.root, b.root),
        None => format!("trawl report: {}", a.root),
    };
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
<meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{STYLE}</style></head><body>\
<header><h1>{}</h1><p>Generated by trawl {}. Samples are seeded (seed {}) and stratified by language and domain.{}</p></header>\
<nav><a href=\"#summary\">Summary</a><a href=\"#funnel\">Funnel</a><a href=\"#distributions\">Distributions</a><a href=\"#dropped\">Removed</a><a href=\"#kept\">Kept</a><a href=\"#pairs\">Image pairs</a>{}</nav><main>",
        escape(&title),
        escape(&title),
        env!("CARGO_PKG_VERSION"),
        cfg.seed,
        if runs.iter().any(|r| r.truncated) { format!(" Distributions and samples read at most {} records per set.", num(cfg.max_docs_scanned as u64)) } else { String::new() },
        if b.is_some() { "<a href=\"#changed\">Kept vs removed</a>" } else { "" }
    );
    if b.is_some() {
        let _ = write!(h, "<p class=\"legend\"><span style=\"background:{}\"></span>A: {}<span style=\"background:{}\"></span>B: {}</p>", svg::COLORS[0], escape(&a.root), svg::COLORS[1], escape(&runs[1].root));
    }

    // summary cards
    h.push_str("<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">");
    for (i, r) in runs.iter().enumerate() {
        let fetched = r
            .stages
            .iter()
            .find(|(n, _, _)| n == "crawl")
            .and_then(|(_, s, _)| s.stage("crawl"))
            .map_or(0, |s| s.kept);
        let (docs, toks) = r.shards.unwrap_or((0, 0));
        let kept: u64 = r.languages.1.values().sum();
        let label = if runs.len() > 1 {
            if i == 0 {
                "A: "
            } else {
                "B: "
            }
        } else {
            ""
        };
        for (v, what) in [
            (fetched, "pages fetched"),
            (kept, "documents kept"),
            (docs, "documents in shards"),
            (toks, "tokens in shards"),
            (r.languages.1.len() as u64, "languages"),
            (r.domains.1.len() as u64, "domains"),
        ] {
            let _ = write!(
                h,
                "<div class=\"card\"><b>{}</b><span>{label}{what}</span></div>",
                num(v)
            );
        }
    }
    h.push_str("</div></section>");

    // funnel
    h.push_str("<section id=\"funnel\"><h2>Funnel</h2>");
    let stage_names: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in &runs {
            for (n, _, _) in &r.stages {
                if !v.contains(n) {
                    v.push(n.clone());
                }
            }
        }
        v
    };
    let get = |r: &RunData, n: &str| {
        r.stages
            .iter()
            .find(|(s, _, _)| s == n)
            .map(|(_, st, k)| (totals(st), *k))
    };
    let doc_rows: Vec<Row> = stage_names
        .iter()
        .map(|n| Row {
            label: format!("{n} (out)"),
            values: runs
                .iter()
                .map(|r| get(r, n).map_or(0.0, |((t, _, _), _)| t.kept as f64))
                .collect(),
            href: Some(format!("#stage-{n}")),
        })
        .collect();
    let tok_rows: Vec<Row> = stage_names
        .iter()
        .filter(|n| *n != "crawl" && *n != "captions")
        .map(|n| Row {
            label: format!("{n} (out)"),
            values: runs
                .iter()
                .map(|r| get(r, n).map_or(0.0, |((_, _, o), _)| o as f64))
                .collect(),
            href: Some(format!("#stage-{n}")),
        })
        .collect();
    h.push_str("<div class=\"grid\">");
    h.push_str(&svg::bars("Records out of each stage", &doc_rows));
    h.push_str(&svg::bars("Tokens out of each stage", &tok_rows));
    h.push_str("</div><table><tr><th>stage</th><th>shards</th><th>in</th><th>out</th><th>dropped</th><th>tokens in</th><th>tokens out</th>");
    if b.is_some() {
        h.push_str("<th>Δ out (B−A)</th><th>Δ tokens out</th>");
    }
    h.push_str("<th>dropped by reason</th></tr>");
    for n in &stage_names {
        for (i, r) in runs.iter().enumerate() {
            let Some(((t, tin, tout), shards)) = get(r, n) else {
                continue;
            };
            let reasons: Vec<String> = t
                .dropped
                .iter()
                .map(|(reason, c)| {
                    format!(
                        "<a href=\"#{}\">{}</a>: {}",
                        anchor("drop", &format!("{n}/{reason}")),
                        escape(reason),
                        num(*c)
                    )
                })
                .collect();
            let name = if runs.len() > 1 {
                format!("{} ({})", n, if i == 0 { "A" } else { "B" })
            } else {
                n.clone()
            };
            // pages have no tokens; captions count images
            let na = |v: u64, pages: bool| {
                if pages || n == "crawl" || n == "captions" {
                    "–".to_string()
                } else {
                    num(v)
                }
            };
            let _ = write!(h, "<tr id=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", if i == 0 { format!("stage-{n}") } else { format!("stage-{n}-b") }, escape(&name), shards, num(t.seen), num(t.kept), num(t.dropped_total()), na(tin, n == "extract"), na(tout, false));
            if b.is_some() {
                if i == 1 {
                    let ((ta, _, tao), _) = get(a, n).unwrap_or(((StageStats::default(), 0, 0), 0));
                    let _ = write!(
                        h,
                        "<td>{}</td><td>{}</td>",
                        delta(ta.kept, t.kept),
                        delta(tao, tout)
                    );
                } else {
                    h.push_str("<td></td><td></td>");
                }
            }
            let _ = write!(h, "<td class=\"l\">{}</td></tr>", reasons.join("<br>"));
        }
    }
    h.push_str("</table>");
    // per-step detail
    for (n, stats, _) in &a.stages {
        let any_errors = stats.stages.values().any(|s| !s.errors.is_empty());
        if stats.order.len() > 1 || any_errors {
            let _ = write!(h, "<h3>{} steps</h3><table><tr><th>step</th><th>seen</th><th>kept</th><th>dropped</th><th>time (ms)</th><th>record errors by kind</th></tr>", escape(n));
            for step in &stats.order {
                let s = &stats.stages[step];
                let kinds: Vec<String> = s
                    .errors
                    .iter()
                    .map(|(k, v)| format!("{} {}", escape(k), num(*v)))
                    .collect();
                let _ = write!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
                    escape(step),
                    num(s.seen),
                    num(s.kept),
                    num(s.dropped_total()),
                    s.nanos / 1_000_000,
                    kinds.join("<br>")
                );
            }
            h.push_str("</table>");
        }
    }
    // headless rendering: the decision and what the browser did, from the crawl counters
    let render_counters = |r: &RunData| -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        if let Some((_, st, _)) = r.stages.iter().find(|(n, _, _)| n == "crawl") {
            for s in st.stages.values() {
                for (k, v) in s.counters.iter().filter(|(k, _)| k.starts_with("render_")) {
                    *m.entry(k.trim_start_matches("render_").to_string())
                        .or_default() += v;
                }
            }
        }
        m
    };
    let rc: Vec<BTreeMap<String, u64>> = runs.iter().map(|r| render_counters(r)).collect();
    if rc.iter().any(|m| !m.is_empty()) {
        let keys: BTreeSet<&String> = rc.iter().flat_map(|m| m.keys()).collect();
        h.push_str("<h3>Headless rendering</h3><table><tr><th>counter</th>");
        for i in 0..runs.len() {
            let _ = write!(
                h,
                "<th>{}</th>",
                if runs.len() > 1 {
                    if i == 0 {
                        "A"
                    } else {
                        "B"
                    }
                } else {
                    "pages"
                }
            );
        }
        h.push_str("</tr>");
        for k in keys {
            let _ = write!(h, "<tr><td>{}</td>", escape(k));
            for m in &rc {
                let _ = write!(h, "<td>{}</td>", num(m.get(k).copied().unwrap_or(0)));
            }
            h.push_str("</tr>");
        }
        h.push_str("</table>");
    }
    h.push_str("</section>");

    // distributions
    h.push_str("<section id=\"distributions\"><h2>Distributions</h2><div class=\"grid\">");
    let top = |f: &dyn Fn(&RunData) -> &BTreeMap<String, u64>, limit: usize| -> Vec<String> {
        let mut all: BTreeMap<String, u64> = BTreeMap::new();
        for r in &runs {
            for (k, v) in f(r) {
                *all.entry(k.clone()).or_default() += v;
            }
        }
        let mut v: Vec<(String, u64)> = all.into_iter().collect();
        v.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        v.into_iter().take(limit).map(|(k, _)| k).collect()
    };
    let langs = top(&|r| &r.languages.1, 30);
    let rows: Vec<Row> = langs
        .iter()
        .map(|l| Row {
            label: l.clone(),
            values: runs
                .iter()
                .map(|r| *r.languages.1.get(l).unwrap_or(&0) as f64)
                .collect(),
            href: Some(format!("#{}", anchor("lang", l))),
        })
        .collect();
    h.push_str(&svg::bars("Languages of kept documents", &rows));
    // page types: documents that reached the filters, kept, and the share kept
    if !a.page_types.0.is_empty() || !a.page_types.1.is_empty() {
        let mut names: BTreeSet<&String> = a.page_types.0.keys().collect();
        names.extend(a.page_types.1.keys());
        h.push_str("<table class=\"page-types\"><tr><th>page type</th><th>reached the filters</th><th>kept</th><th>dropped</th><th>kept share</th></tr>");
        for t in names {
            let seen = *a.page_types.0.get(t).unwrap_or(&0);
            let kept = *a.page_types.1.get(t).unwrap_or(&0);
            let share = if seen > 0 {
                format!("{:.1}%", 100.0 * kept as f64 / seen as f64)
            } else {
                "-".into()
            };
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{share}</td></tr>",
                escape(t),
                num(seen),
                num(kept),
                num(seen.saturating_sub(kept))
            );
        }
        h.push_str("</table>");
    }
    // pages whose text was encoded twice and read back by extraction
    let repaired = a
        .stages
        .iter()
        .find(|(n, _, _)| n == "extract")
        .and_then(|(_, st, _)| st.stages.get("extract"))
        .and_then(|s| s.counters.get("mojibake_repaired"))
        .copied()
        .unwrap_or(0);
    if repaired > 0 {
        let _ = write!(
            h,
            "<p class=\"repaired\">Pages whose text was encoded twice (mojibake: <code>canâ€™t</code>) and read back by extraction: {}</p>",
            num(repaired)
        );
    }
    // per language: documents its quality model scored, and documents that reached the
    // filter unscored (no model for the language, or `und`), most documents first
    if !a.quality_scored.is_empty() {
        let mut langs: Vec<(&String, &(u64, u64))> = a.quality_scored.iter().collect();
        langs.sort_by(|x, y| (y.1 .0 + y.1 .1).cmp(&(x.1 .0 + x.1 .1)).then(x.0.cmp(y.0)));
        h.push_str("<table class=\"quality-scored\"><tr><th>language</th><th>scored by its quality model</th><th>reached the filter unscored</th></tr>");
        for (lang, (scored, unscored)) in langs.into_iter().take(40) {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(lang),
                num(*scored),
                num(*unscored)
            );
        }
        h.push_str("</table>");
    }
    let rows: Vec<Row> = top(&|r| &r.languages.0, 30)
        .iter()
        .map(|l| Row {
            label: l.clone(),
            values: runs
                .iter()
                .map(|r| *r.languages.0.get(l).unwrap_or(&0) as f64)
                .collect(),
            href: Some(format!("#{}", anchor("lang", l))),
        })
        .collect();
    h.push_str(&svg::bars(
        "Languages of documents reaching the filters",
        &rows,
    ));
    let doms = top(&|r| &r.domains.1, cfg.top_domains);
    let rows: Vec<Row> = doms
        .iter()
        .map(|d| Row {
            label: d.clone(),
            values: runs
                .iter()
                .map(|r| *r.domains.1.get(d).unwrap_or(&0) as f64)
                .collect(),
            href: Some(format!("#{}", anchor("domain", d))),
        })
        .collect();
    h.push_str(&svg::bars("Top domains of kept documents", &rows));
    h.push_str("</div><div class=\"grid\">");
    let hist_names: BTreeSet<String> = runs.iter().flat_map(|r| r.hists.keys().cloned()).collect();
    let mut bin_sections = String::new();
    for name in &hist_names {
        let Some(base) = runs.iter().find_map(|r| r.hists.get(name)) else {
            continue;
        };
        if runs
            .iter()
            .all(|r| r.hists.get(name).is_none_or(|x| x.total() == 0))
        {
            continue;
        }
        let bins: Vec<Bin> = (0..base.counts.len())
            .map(|i| Bin {
                label: bin_label(base, i),
                counts: runs
                    .iter()
                    .map(|r| {
                        r.hists
                            .get(name)
                            .filter(|x| x.bounds == base.bounds)
                            .map_or(0, |x| x.counts[i])
                    })
                    .collect(),
                href: base.samples[i]
                    .first()
                    .map(|_| format!("#{}", anchor("bin", &format!("{name}/{i}")))),
            })
            .collect();
        let thr = a
            .thresholds
            .get(name)
            .filter(|t| **t > 0.0)
            .map(|t| (threshold_pos(base, *t), format!("threshold {t}")));
        h.push_str(&svg::hist(name, &bins, thr));
        for (i, ss) in base.samples.iter().enumerate() {
            if !ss.is_empty() {
                let _ = write!(
                    bin_sections,
                    "<h3 id=\"{}\">{} in {}</h3>",
                    anchor("bin", &format!("{name}/{i}")),
                    escape(name),
                    escape(&bin_label(base, i))
                );
                for s in ss {
                    sample_html(&mut bin_sections, s);
                }
            }
        }
    }
    h.push_str("</div></section>");

    // removed samples
    if !a.opt_outs.is_empty() {
        // what opted documents out of training: by signal, then by host
        let mut by_signal: BTreeMap<&str, u64> = BTreeMap::new();
        let mut by_host: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
        for ((cause, host), n) in &a.opt_outs {
            *by_signal.entry(cause).or_default() += n;
            *by_host.entry(host).or_default().entry(cause).or_default() += n;
        }
        h.push_str("<section id=\"consent\"><h2>Training opt-outs</h2><table><tr><th>opted out by</th><th>documents</th></tr>");
        for (c, n) in &by_signal {
            let _ = write!(h, "<tr><td>{}</td><td>{}</td></tr>", escape(c), num(*n));
        }
        h.push_str("</table><table><tr><th>host</th><th>documents</th><th>by</th></tr>");
        let mut hosts: Vec<(&str, u64, String)> = by_host
            .iter()
            .map(|(host, m)| {
                let total = m.values().sum();
                let by = m
                    .iter()
                    .map(|(c, n)| format!("{} {}", escape(c), num(*n)))
                    .collect::<Vec<_>>()
                    .join(", ");
                (*host, total, by)
            })
            .collect();
        hosts.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
        for (host, n, by) in hosts.iter().take(50) {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"l\">{by}</td></tr>",
                escape(host),
                num(*n)
            );
        }
        h.push_str("</table></section>");
    }
    h.push_str("<section id=\"dropped\"><h2>Samples of removed records</h2>");
    if a.dropped.is_empty() {
        h.push_str("<p>No record was removed.</p>");
    }
    for ((stage, reason), ss) in &a.dropped {
        let _ = write!(
            h,
            "<h3 id=\"{}\">{} / <span class=\"tag reason\">{}</span></h3>",
            anchor("drop", &format!("{stage}/{reason}")),
            escape(stage),
            escape(reason)
        );
        for s in ss {
            sample_html(&mut h, s);
        }
    }
    h.push_str("</section>");

    // kept samples, by language and domain
    h.push_str("<section id=\"kept\"><h2>Samples of kept documents</h2>");
    for s in &a.kept {
        sample_html(&mut h, s);
    }
    h.push_str("<h3>By language</h3>");
    for l in &langs {
        let _ = write!(h, "<h3 id=\"{}\">{}</h3>", anchor("lang", l), escape(l));
        for s in a.by_lang.get(l).into_iter().flatten() {
            sample_html(&mut h, s);
        }
    }
    h.push_str("<h3>By domain</h3>");
    for d in &doms {
        let _ = write!(h, "<h3 id=\"{}\">{}</h3>", anchor("domain", d), escape(d));
        for s in a.by_domain.get(d).into_iter().flatten() {
            sample_html(&mut h, s);
        }
    }
    h.push_str("<h3>By histogram bin</h3>");
    h.push_str(&bin_sections);
    h.push_str("</section>");

    // pairs
    h.push_str("<section id=\"pairs\"><h2>Image/alt-text pairs</h2>");
    if a.pairs.is_empty() {
        h.push_str("<p>No pairs in this run.</p>");
    } else {
        h.push_str("<p>A seeded sample of kept pairs: the stored image (a thumbnail trawl re-encoded; the page never loads anything from the web), its alt text, the page, the signals and the text around it.</p><div class=\"pairs\">");
        for p in &a.pairs {
            let picture = if safe_thumb(&p.thumb) {
                format!("<img class=\"th\" src=\"{}\" alt=\"\">", p.thumb)
            } else {
                String::new()
            };
            let _ = write!(h, "<div class=\"pair\">{picture}<div class=\"ph\">{}</div><b>{}</b><br><small>{}</small><pre>{}</pre></div>", escape(&p.image), escape(&p.text), escape(&p.url), escape(&p.attrs));
        }
        h.push_str("</div>");
    }
    h.push_str("</section>");

    // compare: kept in one run, removed in the other
    if let Some(b) = b {
        h.push_str("<section id=\"changed\"><h2>Kept in one run, removed in the other</h2>");
        for (title, kept, dropped) in [
            ("Kept in A, removed in B", a, b),
            ("Kept in B, removed in A", b, a),
        ] {
            let mut ids: Vec<&String> = kept
                .kept_ids
                .keys()
                .filter(|id| dropped.dropped_ids.contains_key(*id))
                .collect();
            ids.sort_by_key(|id| xxhash_rust::xxh3::xxh3_64_with_seed(id.as_bytes(), cfg.seed));
            let _ = write!(h, "<h3>{title}: {}</h3>", num(ids.len() as u64));
            for id in ids.into_iter().take(cfg.samples_per_reason.max(5) * 4) {
                let mut s = dropped.dropped_ids[id].clone();
                s.stage = format!("{} in the other run", s.stage);
                sample_html(&mut h, &s);
            }
        }
        h.push_str("</section>");
    }
    h.push_str("</main></body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_content_is_escaped_everywhere() {
        let evil = Sample {
            id: "<img src=x onerror=alert(1)>".into(),
            url: "javascript:alert(1)\"><script>alert(2)</script>".into(),
            stage: "filter".into(),
            reason: "<b>x</b>".into(),
            lang: "<i>".into(),
            host: "<svg onload=alert(3)>".into(),
            text: "<script>alert(3)</script><a href=\"javascript:x\" onclick=\"y\">".into(),
            attrs: "{\"a\": \"</pre><script>\"}".into(),
            image: "javascript:alert(4)".into(),
            thumb: "data:image/jpeg;base64,\"><script>alert(5)</script>".into(),
            thumb_at: None,
        };
        let mut d = RunData {
            root: "<root>".into(),
            ..Default::default()
        };
        d.dropped
            .insert(("filter".into(), "<b>".into()), vec![evil.clone()]);
        d.kept.push(evil.clone());
        d.pairs.push(evil.clone());
        d.languages.1.insert("<script>".into(), 1);
        d.domains.1.insert("<svg onload=alert(3)>".into(), 1);
        d.by_lang.insert("<script>".into(), vec![evil.clone()]);
        d.kept_ids.insert(evil.id.clone(), evil.clone());
        let mut other = RunData {
            root: "b".into(),
            ..Default::default()
        };
        other.dropped_ids.insert(evil.id.clone(), evil.clone());
        let html = render(&d, Some(&other), &ReportConfig::default());
        for bad in [
            "<script",
            "<img src=x",
            "<a href=\"javascript",
            "<b>x",
            "<svg onload",
            "<i>",
        ] {
            assert!(!html.contains(bad), "unescaped {bad}");
        }
        assert!(html.contains("Content-Security-Policy"));
        assert!(html.contains("Kept in A, removed in B: 1"));
        assert!(
            !html.contains("Headless rendering"),
            "no rendering section without render counters"
        );
    }

    #[test]
    fn repaired_pages_are_reported() {
        let mut st = RunStats::default();
        st.stage_mut("extract")
            .counters
            .insert("mojibake_repaired".into(), 1234);
        let d = RunData {
            root: "r".into(),
            stages: vec![("extract".into(), st, 1)],
            ..Default::default()
        };
        let html = render(&d, None, &ReportConfig::default());
        assert!(
            html.contains("and read back by extraction: 1,234</p>"),
            "{html}"
        );
        let none = render(&RunData::default(), None, &ReportConfig::default());
        assert!(!none.contains("read back by extraction"));
    }

    #[test]
    fn rendering_counters_get_their_table() {
        let mut st = RunStats::default();
        let c = &mut st.stage_mut("crawl").counters;
        c.insert("render_rendered".into(), 20);
        c.insert("render_static".into(), 90);
        c.insert("render_blocked_robots".into(), 3);
        let d = RunData {
            root: "r".into(),
            stages: vec![("crawl".into(), st, 1)],
            ..Default::default()
        };
        let html = render(&d, None, &ReportConfig::default());
        assert!(html.contains("<h3>Headless rendering</h3>"));
        assert!(
            html.contains("<td>rendered</td><td>20</td>")
                && html.contains("<td>blocked_robots</td><td>3</td>"),
            "{html}"
        );
    }
}
