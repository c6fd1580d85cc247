//! `trawl-extract`: from a fetched page to a [`Document`]: charset decoding, main-content
//! extraction with `scraper` (html5ever), headings/lists/tables as Markdown, images kept at
//! their position in the text with alt, title and figcaption, and page-level opt-outs
//! (`<meta name="robots" content="noai, noimageai">`) added to the consent record.
//!
//! ```
//! let html = r#"<html><head><title>T</title></head><body><nav><a href="/">Home</a></nav>
//!   <article><h1>Hello</h1><p>A first paragraph of real content, long enough to be kept.</p></article>
//!   <footer>Copyright</footer></body></html>"#;
//! let ex = trawl_extract::Extractor::new(trawl_extract::ExtractConfig { min_text_chars: 10, ..Default::default() });
//! let doc = ex.extract_html("https://example.org/a", html.as_bytes(), None).unwrap();
//! assert_eq!(doc.text, "# Hello\n\nA first paragraph of real content, long enough to be kept.");
//! ```
#![deny(missing_docs)]

mod charset;
mod dom;
mod llm;
mod meta;
mod pagetype;
mod score;
mod strip;

use serde::{Deserialize, Serialize};
use trawl_core::{Document, DropReason, FetchedPage};

pub use charset::decode;
pub use llm::LlmConfig;
pub use pagetype::PageType;

/// Drop reasons of the extract stage.
pub mod reasons {
    use trawl_core::DropReason;
    /// The HTTP status was not 2xx.
    pub const HTTP_STATUS: DropReason = DropReason::new("http_status");
    /// The response is not HTML.
    pub const NOT_HTML: DropReason = DropReason::new("not_html");
    /// Too little main text.
    pub const TOO_LITTLE_TEXT: DropReason = DropReason::new("too_little_text");
    /// The page is larger than the configured cap.
    pub const TOO_LARGE: DropReason = DropReason::new("page_too_large");
    /// Elements nest deeper than `extract.max_depth` (parsing such a page costs time in
    /// the square of its depth).
    pub const TOO_DEEP: DropReason = DropReason::new("too_deep");
}

/// The `[extract]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExtractConfig {
    /// Whether `trawl run` extracts.
    pub enabled: bool,
    /// Pages whose main text is shorter than this many characters are dropped.
    pub min_text_chars: usize,
    /// Pages larger than this many bytes are dropped rather than parsed.
    pub max_html_bytes: usize,
    /// Pages whose elements nest deeper than this are dropped (`too_deep`) rather than
    /// parsed: browsers stop nesting at 512, and parse time grows with the square of the
    /// depth.
    pub max_depth: usize,
    /// Use the rendered DOM when the page was rendered.
    pub prefer_rendered: bool,
    /// Keep images (with alt text and position) in documents.
    pub keep_images: bool,
    /// LLM-assisted extraction for chosen domains (`[extract.llm]`).
    pub llm: LlmConfig,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            enabled: true,
            min_text_chars: 200,
            max_html_bytes: 8 * 1024 * 1024,
            max_depth: trawl_core::html::BROWSER_MAX_DEPTH,
            prefer_rendered: true,
            keep_images: true,
            llm: LlmConfig::default(),
        }
    }
}

impl ExtractConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.max_html_bytes < 1024 {
            return Err((
                "extract.max_html_bytes".into(),
                format!(
                    "{} is too small to hold any page (minimum 1024)",
                    self.max_html_bytes
                ),
            ));
        }
        if !(16..=100_000).contains(&self.max_depth) {
            return Err((
                "extract.max_depth".into(),
                format!(
                    "{} is outside 16..=100000 (browsers nest up to 512)",
                    self.max_depth
                ),
            ));
        }
        self.llm.validate()
    }
}

/// The runtime extractor.
#[derive(Clone, Debug)]
pub struct Extractor {
    cfg: ExtractConfig,
    llm: Option<llm::Llm>,
}

impl Extractor {
    /// An extractor for this configuration.
    pub fn new(cfg: ExtractConfig) -> Self {
        let llm = if cfg.llm.url.is_empty() {
            None
        } else {
            llm::Llm::new(cfg.llm.clone())
                .map_err(|e| tracing::error!(error = %e, "LLM-assisted extraction is off"))
                .ok()
        };
        Extractor { cfg, llm }
    }

    /// Extracts a document from a fetched page (consent and fetch time carried over).
    pub fn extract(&self, page: &FetchedPage) -> Result<Document, DropReason> {
        if !(200..300).contains(&page.status) {
            return Err(reasons::HTTP_STATUS);
        }
        let ct = page.header("content-type").unwrap_or("");
        let looks_html = ct.is_empty() || ct.contains("html") || ct.contains("xml");
        if !looks_html {
            return Err(reasons::NOT_HTML);
        }
        let url = if page.final_url.is_empty() {
            &page.url
        } else {
            &page.final_url
        };
        let mut doc = match (&page.rendered, self.cfg.prefer_rendered) {
            (Some(dom), true) => self.extract_html(url, dom.as_bytes(), Some("utf-8"))?,
            _ => self.extract_html(url, &page.body, charset::from_content_type(ct))?,
        };
        let (noai, noimageai, noindex) =
            (doc.consent.noai, doc.consent.noimageai, doc.consent.noindex);
        doc.consent = page.consent.clone();
        doc.consent.noai |= noai;
        doc.consent.noimageai |= noimageai;
        doc.consent.noindex |= noindex;
        doc.meta.fetch_time = Some(page.fetch_time.clone()).filter(|t| !t.is_empty());
        if let Some(w) = &page.warc {
            doc.meta.source = Some(format!("{}@{}", w.file, w.offset));
        }
        Ok(doc)
    }

    /// Extracts a document from HTML bytes; `declared` is the charset from HTTP headers.
    pub fn extract_html(
        &self,
        url: &str,
        html: &[u8],
        declared: Option<&str>,
    ) -> Result<Document, DropReason> {
        if html.len() > self.cfg.max_html_bytes {
            return Err(reasons::TOO_LARGE);
        }
        let text = strip::strip_inert(&charset::decode(html, declared));
        if trawl_core::html::max_depth_exceeds(&text, self.cfg.max_depth) {
            return Err(reasons::TOO_DEEP);
        }
        let llm = self.llm.as_ref().filter(|l| {
            url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| l.config().applies_to(h)))
                .unwrap_or(false)
        });
        let choose =
            llm.map(|l| move |title: Option<&str>, blocks: &[&str]| l.choose(url, title, blocks));
        let mut out = dom::extract(
            &text,
            url,
            self.cfg.keep_images,
            choose.as_ref().map(|c| c as dom::Chooser<'_>),
        );
        let method = out.llm.take();
        if let Some(Err(why)) = &method {
            tracing::debug!(url, reason = %why, "LLM extraction failed; the rule-based result stands");
        }
        if out.text.chars().count() < self.cfg.min_text_chars {
            return Err(reasons::TOO_LITTLE_TEXT);
        }
        let mut doc = Document::new(url, out.text);
        match method {
            Some(Ok(())) => {
                doc.attrs.insert("extractor".into(), "llm".into());
            }
            Some(Err(why)) => {
                doc.attrs.insert("extractor".into(), "rules".into());
                doc.attrs.insert("llm_fallback".into(), why.into());
            }
            None => {}
        }
        doc.images = out.images;
        doc.meta.title = out.title;
        doc.meta.author = out.meta.author;
        doc.meta.published = out.meta.published;
        doc.meta.site_name = out.meta.site_name;
        doc.meta.description = out.meta.description;
        doc.meta.canonical_url = out.meta.canonical_url;
        doc.meta.page_type = Some(out.page_type.0.as_str().to_string());
        doc.meta.page_type_confidence = Some((out.page_type.1 * 100.0).round() / 100.0);
        if let Some(l) = out.html_lang {
            doc.attrs.insert("html_lang".into(), l.into());
        }
        doc.consent.noai = out.noai;
        doc.consent.noimageai = out.noimageai || out.noai;
        doc.consent.noindex = out.noindex;
        Ok(doc)
    }
}
