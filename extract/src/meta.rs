//! Page metadata from `<meta>`, OpenGraph, `<link rel=canonical>` and JSON-LD.

use scraper::{Html, Selector};
use serde_json::Value;

/// What the page says about itself.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct PageMeta {
    pub title: Option<String>,
    pub author: Option<String>,
    pub published: Option<String>,
    pub site_name: Option<String>,
    pub description: Option<String>,
    pub canonical_url: Option<String>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clean(s: Option<String>) -> Option<String> {
    s.map(|v| collapse(&v)).filter(|v| !v.is_empty()).map(|v| v.chars().take(1000).collect())
}

/// Article-like JSON-LD objects (top level, arrays, `@graph`).
fn ld_objects(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| ld_objects(x, out)),
        Value::Object(o) => {
            if let Some(g) = o.get("@graph") {
                ld_objects(g, out);
            }
            out.push(v.clone());
        }
        _ => {}
    }
}

fn ld_type_is_article(v: &Value) -> bool {
    let t = |s: &str| s.contains("Article") || s.contains("BlogPosting") || s == "Report" || s == "WebPage" || s == "Recipe" || s == "NewsArticle";
    match v.get("@type") {
        Some(Value::String(s)) => t(s),
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_str()).any(t),
        _ => false,
    }
}

/// A name from a JSON-LD person/organisation value (string, object, or a list of them).
fn ld_name(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("name").and_then(|n| n.as_str()).map(str::to_string),
        Value::Array(a) => {
            let names: Vec<String> = a.iter().filter_map(ld_name).collect();
            (!names.is_empty()).then(|| names.join(", "))
        }
        _ => None,
    }
}

pub(crate) fn page_meta(doc: &Html, base: Option<&url::Url>) -> PageMeta {
    let meta_sel = Selector::parse("meta[content]").expect("static selector");
    let mut by_key: Vec<(String, String)> = Vec::new();
    for m in doc.select(&meta_sel) {
        let v = m.value();
        let key = v.attr("property").or_else(|| v.attr("name")).or_else(|| v.attr("itemprop")).unwrap_or("").to_ascii_lowercase();
        if !key.is_empty() {
            by_key.push((key, v.attr("content").unwrap_or("").to_string()));
        }
    }
    let get = |keys: &[&str]| keys.iter().find_map(|k| by_key.iter().find(|(kk, v)| kk == k && !v.trim().is_empty()).map(|(_, v)| v.clone()));
    let mut ld: Vec<Value> = Vec::new();
    let ld_sel = Selector::parse("script[type=\"application/ld+json\"]").expect("static selector");
    for s in doc.select(&ld_sel).take(20) {
        let raw: String = s.text().collect();
        if let Ok(v) = serde_json::from_str::<Value>(raw.trim().trim_end_matches(';')) {
            ld_objects(&v, &mut ld);
        }
    }
    let article = ld.iter().find(|v| ld_type_is_article(v) && v.get("@type").and_then(|t| t.as_str()) != Some("WebPage")).or_else(|| ld.iter().find(|v| ld_type_is_article(v)));
    let ld_str = |k: &str| article.and_then(|a| a.get(k)).and_then(|v| v.as_str()).map(str::to_string);
    let first_text = |sel: &str| {
        let s = Selector::parse(sel).expect("static selector");
        doc.select(&s).next().map(|e| e.text().collect::<String>())
    };
    let title = clean(first_text("title")).or_else(|| clean(get(&["og:title", "twitter:title"]))).or_else(|| clean(ld_str("headline")));
    let author = clean(get(&["author", "article:author", "dc.creator", "parsely-author", "sailthru.author"]).filter(|a| !a.starts_with("http")))
        .or_else(|| clean(article.and_then(|a| a.get("author")).and_then(ld_name)))
        .or_else(|| clean(first_text("[rel=author], [itemprop=author]")));
    let published = clean(get(&["article:published_time", "datepublished", "pubdate", "publishdate", "date", "dc.date", "dcterms.date", "dc.date.issued", "sailthru.date", "parsely-pub-date"]))
        .or_else(|| clean(ld_str("datePublished")))
        .or_else(|| {
            let s = Selector::parse("time[datetime]").expect("static selector");
            clean(doc.select(&s).next().and_then(|t| t.value().attr("datetime")).map(str::to_string))
        });
    let site_name = clean(get(&["og:site_name", "application-name"])).or_else(|| clean(article.and_then(|a| a.get("publisher")).and_then(ld_name)));
    let description = clean(get(&["description", "og:description", "twitter:description"])).or_else(|| clean(ld_str("description")));
    let canonical_url = {
        let s = Selector::parse("link[rel=canonical][href]").expect("static selector");
        doc.select(&s).next().and_then(|l| l.value().attr("href")).and_then(|h| match base {
            Some(b) => b.join(h.trim()).ok().map(|u| u.to_string()),
            None => url::Url::parse(h.trim()).ok().map(|u| u.to_string()),
        })
    };
    PageMeta { title, author, published, site_name, description, canonical_url }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_opengraph_and_json_ld() {
        let html = r#"<html><head><title> Harbour news | Daily </title>
            <meta property="og:site_name" content="The Daily">
            <meta name="description" content="Ferries  and markets.">
            <link rel="canonical" href="/news/harbour?ref=x">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"x"},
              {"@type":"NewsArticle","headline":"Harbour","datePublished":"2026-03-01T08:00:00Z","author":[{"@type":"Person","name":"Ana Ruiz"},{"name":"Bo Li"}],"publisher":{"name":"Daily Ltd"}}]}</script>
            </head><body><p>x</p></body></html>"#;
        let doc = Html::parse_document(html);
        let base = url::Url::parse("https://daily.example/a/b").unwrap();
        let m = page_meta(&doc, Some(&base));
        assert_eq!(m.title.as_deref(), Some("Harbour news | Daily"));
        assert_eq!(m.author.as_deref(), Some("Ana Ruiz, Bo Li"));
        assert_eq!(m.published.as_deref(), Some("2026-03-01T08:00:00Z"));
        assert_eq!(m.site_name.as_deref(), Some("The Daily"));
        assert_eq!(m.description.as_deref(), Some("Ferries and markets."));
        assert_eq!(m.canonical_url.as_deref(), Some("https://daily.example/news/harbour?ref=x"));
        // meta tags win; broken JSON-LD is ignored
        let html = r#"<head><meta name="author" content="Kim"><meta property="article:published_time" content="2025-01-02">
            <script type="application/ld+json">{not json</script></head><body><time datetime="2020-01-01">old</time></body>"#;
        let m = page_meta(&Html::parse_document(html), None);
        assert_eq!((m.author.as_deref(), m.published.as_deref()), (Some("Kim"), Some("2025-01-02")));
        assert_eq!(m.title, None);
    }
}
