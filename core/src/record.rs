//! The records that travel between stages.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The attributes map: every annotator writes its signals here (language scores, quality
/// score, heuristic ratios, dedup cluster) so thresholds can change without recomputation.
/// Ordered, so serialisation is deterministic.
pub type Attrs = BTreeMap<String, Value>;

/// A stable document identifier: derived from the canonical URL and a digest of the content,
/// never from a position. Documents read from other tools keep whatever id they carry.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocId(String);

impl DocId {
    /// The id trawl assigns: 128-bit XXH3 of the canonical URL, a NUL, and the text, as 32
    /// lowercase hex digits.
    pub fn from_url_and_text(url: &str, text: &str) -> Self {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(url.as_bytes());
        h.update(&[0]);
        h.update(text.as_bytes());
        DocId(format!("{:032x}", h.digest128()))
    }

    /// Wraps an id that came from elsewhere (a JSONL file, a remove-list).
    pub fn from_external(id: impl Into<String>) -> Self {
        DocId(id.into())
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for DocId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DocId({})", self.0)
    }
}

impl Serialize for DocId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DocId {
    /// Accepts strings and, for corpora that number their documents, integers.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(DocId(s)),
            Value::Number(n) => Ok(DocId(n.to_string())),
            other => Err(serde::de::Error::custom(format!(
                "`id` must be a string or an integer, found {other}"
            ))),
        }
    }
}

/// Why a document may be used for training: the robots.txt verdicts for both product tokens,
/// the matched rules, page-level opt-outs and when it was fetched. Travels into manifests so
/// a takedown can find every shard that holds a URL.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Consent {
    /// Where this consent record comes from.
    pub basis: ConsentBasis,
    /// The product token that decides what may be fetched (e.g. `trawl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl_token: Option<String>,
    /// Whether robots.txt allowed the crawl token to fetch the URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl_allowed: Option<bool>,
    /// The robots.txt rule that decided for the crawl token, if any matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl_rule: Option<String>,
    /// The token that decides training use (in the spirit of Applebot-Extended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_token: Option<String>,
    /// Whether robots.txt allowed the training token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_allowed: Option<bool>,
    /// The robots.txt rule that decided for the training token, if any matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_rule: Option<String>,
    /// The robots.txt URL consulted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_url: Option<String>,
    /// HTTP status of the robots.txt fetch (None when it failed at the transport level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_status: Option<u16>,
    /// `noai` in X-Robots-Tag or `<meta name="robots">`.
    pub noai: bool,
    /// `noimageai` in X-Robots-Tag or `<meta name="robots">`.
    pub noimageai: bool,
    /// `noindex` or `none` in X-Robots-Tag or `<meta name="robots">` (whether that forbids
    /// training use is the filter's `respect_noindex` setting).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub noindex: bool,
    /// When the robots.txt that decided was fetched (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_fetched: Option<String>,
    /// XXH3-64 of that robots.txt body, hex (which version of the file decided).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_digest: Option<String>,
    /// When the page was fetched (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_time: Option<String>,
    /// AI-use preferences beyond robots.txt rules: Content-Signal, Content-Usage (robots.txt
    /// and header), TDMRep (header, meta, `/.well-known/tdmrep.json`), each with its source
    /// and what it says about training ([`crate::signals`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<crate::signals::ConsentSignal>,
}

impl Consent {
    /// True when nothing recorded forbids training use of the text.
    pub fn permits_training(&self) -> bool {
        self.training_allowed != Some(false) && self.crawl_allowed != Some(false) && !self.noai
    }
}

/// Where a consent record comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentBasis {
    /// Recorded by trawl's crawler from robots.txt and page directives.
    Robots,
    /// The document came from another tool's corpus; consent was not recorded by trawl.
    #[default]
    External,
}

/// Where a record lives in a WARC file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarcLocation {
    /// The WARC file (relative to the run root).
    pub file: String,
    /// Byte offset of the gzip member holding the response record.
    pub offset: u64,
}

/// A page as fetched by the crawler (crawler -> extract).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FetchedPage {
    /// The URL requested (canonical form).
    pub url: String,
    /// The URL after redirects.
    pub final_url: String,
    /// Fetch time, RFC 3339.
    pub fetch_time: String,
    /// HTTP status code.
    pub status: u16,
    /// Response headers in arrival order (names lowercased).
    pub headers: Vec<(String, String)>,
    /// The raw (decompressed) body.
    #[serde(skip)]
    pub body: Vec<u8>,
    /// The rendered DOM, when the page was rendered headlessly.
    pub rendered: Option<String>,
    /// The render decision and what the browser did, when rendering is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderInfo>,
    /// Where the response record was written.
    pub warc: Option<WarcLocation>,
    /// The consent record.
    pub consent: Consent,
    /// Link depth from the seeds.
    pub depth: u32,
    /// Set when the server answered 304 Not Modified to a conditional recrawl: the WARC-Date
    /// of the earlier capture whose body this page carries (written as a `revisit` record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisit_of: Option<String>,
}

impl FetchedPage {
    /// The first header with this (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the crawler decided about rendering a page, and what the browser did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RenderInfo {
    /// The page was rendered (`rendered` holds the DOM after interaction).
    pub rendered: bool,
    /// Why it was (or was not) sent to the browser: `static_ok`, `empty_app_root`,
    /// `noscript_requires_js`, `little_text_heavy_scripts`, `mode_always`, `domain_always`,
    /// `domain_never`, `not_html`, `status`.
    pub reason: String,
    /// Wall time in the browser, milliseconds.
    #[serde(default)]
    pub ms: u64,
    /// Sub-requests the page made (scripts, XHR, images, ...).
    #[serde(default)]
    pub requests: u32,
    /// Sub-requests refused, by reason (`robots`, `guard`, `type`, `tracker`, `navigation`,
    /// `budget`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub blocked: std::collections::BTreeMap<String, u32>,
    /// Scroll steps taken.
    #[serde(default)]
    pub scrolls: u32,
    /// Elements clicked to reveal content (including cookie banners dismissed).
    #[serde(default)]
    pub clicks: u32,
    /// Attempts (2 after a browser crash and a retry).
    #[serde(default)]
    pub attempts: u32,
    /// Why rendering failed (the static HTML stands): `timeout`, `crash`, `browser: ...`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The engine whose DOM was taken (`lightpanda`, `chromium`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Why the page went past the first engine: `no_new_content` (its DOM held no more
    /// text than the static HTML where the decision expected some), `timeout`, `crash`,
    /// `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// An image in its position in a document's text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImageRef {
    /// Absolute image URL.
    pub src: String,
    /// The alt text (empty when absent).
    #[serde(default)]
    pub alt: String,
    /// Byte offset in `Document::text` where the image stands.
    #[serde(default)]
    pub offset: usize,
    /// The `title` attribute, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The enclosing `<figcaption>`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    /// Declared width in pixels, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Declared height in pixels, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// Typed metadata of a document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// Language as the ISO 639-3 code whatlang uses (e.g. `eng`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Page title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fetch time, RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_time: Option<String>,
    /// The shard this document was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Author(s), as the page states them (`<meta name=author>`, JSON-LD, `rel=author`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Publication date as the page states it (`article:published_time`, JSON-LD
    /// `datePublished`, `<time datetime>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// Site name (`og:site_name`, JSON-LD publisher).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    /// The page's description (`<meta name=description>`, `og:description`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `<link rel=canonical>`, resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_url: Option<String>,
    /// What kind of page the document came from (`article`, `forum`, `product`,
    /// `collection`, `listing`, `documentation`, `service`, `other`), as extraction
    /// classified it from the page's declared schema.org types and its DOM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type: Option<String>,
    /// How sure that classification is (0 to 1; declared types 0.8 and above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type_confidence: Option<f32>,
    /// Any other metadata (kept from other tools' documents).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// A document (extract -> filter -> dedup -> captions/shards).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Stable id: see [`DocId`].
    pub id: DocId,
    /// The page URL (empty for documents from corpora without one).
    #[serde(default)]
    pub url: String,
    /// Main text: paragraphs, headings, lists, tables as Markdown, code verbatim.
    pub text: String,
    /// Images in their position in the text.
    #[serde(default)]
    pub images: Vec<ImageRef>,
    /// Signals written by annotators.
    #[serde(default)]
    pub attrs: Attrs,
    /// Why this document may be used.
    #[serde(default)]
    pub consent: Consent,
    /// Typed metadata.
    #[serde(default)]
    pub meta: Meta,
    /// Top-level fields written by other tools (e.g. datatrove's `metadata`, dolma's
    /// `source`/`added`), kept verbatim so nothing is lost when trawl rewrites the file.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl Document {
    /// A document with an id derived from `url` and `text`.
    pub fn new(url: impl Into<String>, text: impl Into<String>) -> Self {
        let url = url.into();
        let text = text.into();
        Document {
            id: DocId::from_url_and_text(&url, &text),
            url,
            text,
            images: Vec::new(),
            attrs: Attrs::new(),
            consent: Consent::default(),
            meta: Meta::default(),
            extra: BTreeMap::new(),
        }
    }

    /// The host of the document's URL, if it has one.
    pub fn host(&self) -> Option<&str> {
        let rest = self.url.split_once("://")?.1;
        let authority = rest.split(['/', '?', '#']).next()?;
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        Some(host)
    }
}

/// An image with its alt text and context, sharing the DocId of its page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImageTextPair {
    /// The page's document id.
    pub doc_id: Option<DocId>,
    /// The page URL.
    pub page_url: String,
    /// The image URL.
    pub image_url: String,
    /// Alt text.
    pub alt: String,
    /// Title attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Figcaption.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    /// Text around the image in the page.
    #[serde(default)]
    pub context: String,
    /// Signals (alt length, language, scores).
    #[serde(default)]
    pub attrs: Attrs,
    /// The page's consent record.
    #[serde(default)]
    pub consent: Consent,
}

/// An OBELICS-style interleaved document: parallel lists where each position holds either a
/// text or an image.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InterleavedDoc {
    /// The page's document id.
    pub id: Option<DocId>,
    /// The page URL.
    pub url: String,
    /// Text items (None where the position holds an image).
    pub texts: Vec<Option<String>>,
    /// Image URLs (None where the position holds text).
    pub images: Vec<Option<String>>,
    /// Per-image metadata, parallel to `images` (None where the position holds text): the
    /// stored file's name in the shard, size, alt text, hashes, scores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_meta: Vec<Option<Attrs>>,
    /// The page's consent record.
    #[serde(default)]
    pub consent: Consent,
    /// Typed metadata.
    #[serde(default)]
    pub meta: Meta,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_content_based() {
        let a = DocId::from_url_and_text("https://a/", "x");
        assert_eq!(a, DocId::from_url_and_text("https://a/", "x"));
        assert_ne!(a, DocId::from_url_and_text("https://a/", "y"));
        assert_ne!(a, DocId::from_url_and_text("https://a/x", ""));
        assert_eq!(a.as_str().len(), 32);
    }

    #[test]
    fn document_json_shape() {
        let mut d = Document::new("https://h.example/p", "hello world");
        d.meta.lang = Some("eng".into());
        d.images.push(ImageRef {
            src: "https://h.example/i.png".into(),
            alt: "a cat".into(),
            offset: 5,
            ..Default::default()
        });
        let v: Value = serde_json::to_value(&d).unwrap();
        for key in ["id", "url", "text", "images", "attrs", "consent", "meta"] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert_eq!(v["meta"]["lang"], "eng");
        assert_eq!(v["images"][0]["offset"], 5);
        let back: Document = serde_json::from_value(v).unwrap();
        assert_eq!(back, d);
    }

    #[test]
    fn reads_datatrove_and_dolma_documents() {
        let dt = r#"{"text":"some text","id":"doc-7","metadata":{"url":"https://x/"},"media":[]}"#;
        let d: Document = serde_json::from_str(dt).unwrap();
        assert_eq!(d.id.as_str(), "doc-7");
        assert_eq!(d.extra["metadata"]["url"], "https://x/");
        let out = serde_json::to_string(&d).unwrap();
        assert!(out.contains(r#""metadata":{"url":"https://x/"}"#));

        let dolma = r#"{"id":42,"text":"t","source":"c4","added":"2024-01-01"}"#;
        let d: Document = serde_json::from_str(dolma).unwrap();
        assert_eq!(d.id.as_str(), "42");
        assert_eq!(d.extra["source"], "c4");
    }

    #[test]
    fn host_of_url() {
        assert_eq!(
            Document::new("http://127.0.0.2:8080/a?b", "").host(),
            Some("127.0.0.2:8080")
        );
        assert_eq!(Document::new("", "").host(), None);
    }
}
