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
mod mojibake;
mod pagetype;
#[rustfmt::skip]
mod pagetype_model;
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
    /// Parsing and extraction took longer than `extract.max_page_ms`.
    pub const EXTRACT_TIMEOUT: DropReason = DropReason::new("extract_timeout");
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
    /// Time budget per page for decoding, parsing and extraction, in milliseconds (0: none).
    /// A page over it is dropped (`extract_timeout`). Ordinary pages take a few
    /// milliseconds; the budget only stops pathological ones holding a worker. Being a
    /// clock, it is the one decision that can differ between runs on a loaded machine, so
    /// the default is generous.
    pub max_page_ms: u64,
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
            max_page_ms: 10_000,
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

/// Whether a body labelled as HTML (or unlabelled) is binary data: an image, PDF or archive
/// served as `text/html` is not a document. Two signs: the signature of a binary format at
/// the start (the WHATWG MIME Sniffing patterns for images, fonts, archives, audio and
/// video, and PDF), or more than a few bytes that no text encoding uses (0x00-0x08, 0x0B,
/// 0x0E-0x1A, 0x1C-0x1F, the standard's "binary data bytes") in the first 1,024: a stray
/// BEL or NUL in a real page does not make it binary. UTF-16 bodies (with a byte-order
/// mark) are text.
pub fn is_binary(body: &[u8]) -> bool {
    if body.starts_with(&[0xFE, 0xFF]) || body.starts_with(&[0xFF, 0xFE]) {
        return false;
    }
    const SIGNATURES: &[&[u8]] = &[
        b"\x89PNG\r\n\x1a\n",
        b"\xff\xd8\xff",
        b"GIF87a",
        b"GIF89a",
        b"BM",
        b"\x00\x00\x01\x00",
        b"%PDF-",
        b"PK\x03\x04",
        b"\x1f\x8b\x08",
        b"\x28\xb5\x2f\xfd",
        b"BZh",
        b"\xfd7zXZ\x00",
        b"Rar!\x1a\x07",
        b"7z\xbc\xaf\x27\x1c",
        b"wOFF",
        b"wOF2",
        b"OggS",
        b"ID3",
        b"fLaC",
        b"\x1a\x45\xdf\xa3",
        b"\x00asm",
        b"\x7fELF",
    ];
    if SIGNATURES.iter().any(|s| body.starts_with(s)) {
        return true;
    }
    // RIFF containers (WebP, WAV, AVI) and ISO media (MP4, AVIF, HEIC: `ftyp` at 4)
    if (body.starts_with(b"RIFF") && body.len() >= 12) || body.get(4..8) == Some(b"ftyp") {
        return true;
    }
    body.iter()
        .take(1024)
        .filter(|&&b| matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F))
        .count()
        > 8
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
        if !looks_html || (page.rendered.is_none() && is_binary(&page.body)) {
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
        let meta_signals = std::mem::take(&mut doc.consent.signals);
        doc.consent = page.consent.clone();
        doc.consent.signals.extend(meta_signals);
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
        let started = std::time::Instant::now();
        let llm = self.llm.as_ref().filter(|l| {
            url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| l.config().applies_to(h)))
                .unwrap_or(false)
        });
        let choose =
            llm.map(|l| move |title: Option<&str>, blocks: &[&str]| l.choose(url, title, blocks));
        // the LLM's round trip has its own timeout and is not charged to the page's budget
        let deadline = (self.cfg.max_page_ms > 0 && choose.is_none())
            .then(|| started + std::time::Duration::from_millis(self.cfg.max_page_ms));
        let decoded = charset::decode(html, declared);
        // text encoded twice (`canâ€™t`) read back as what it was
        let (decoded, repaired) = match mojibake::repair(&decoded) {
            Some((text, n)) => (std::borrow::Cow::Owned(text), n),
            None => (decoded, 0),
        };
        let mut out = strip::with_stripped(&decoded, self.cfg.max_depth, |text, too_deep| {
            if too_deep {
                return Err(reasons::TOO_DEEP);
            }
            dom::extract(
                text,
                url,
                self.cfg.keep_images,
                choose.as_ref().map(|c| c as dom::Chooser<'_>),
                deadline,
            )
            .map_err(|dom::Overrun| reasons::EXTRACT_TIMEOUT)
        })?;
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
        if repaired > 0 {
            doc.attrs
                .insert("mojibake_repaired".into(), (repaired as u64).into());
        }
        if let Some(l) = out.html_lang {
            doc.attrs.insert("html_lang".into(), l.into());
        }
        doc.consent.noai = out.noai;
        doc.consent.noimageai = out.noimageai || out.noai;
        doc.consent.noindex = out.noindex;
        doc.consent.signals = std::mem::take(&mut out.meta.signals);
        Ok(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: Vec<u8>, ct: &str) -> FetchedPage {
        FetchedPage {
            url: "http://a.test/x".into(),
            status: 200,
            headers: vec![("content-type".into(), ct.into())],
            body,
            ..Default::default()
        }
    }

    #[test]
    fn depth_is_followed_in_the_pre_parse_pass() {
        let ex = Extractor::new(ExtractConfig {
            min_text_chars: 0,
            max_depth: 100,
            ..Default::default()
        });
        let prose = "A paragraph of ordinary prose about rivers and the towns along them. ";
        let deep = |open: &str, n: usize| {
            format!("<html><body>{}<p>{prose}</p></body></html>", open.repeat(n)).into_bytes()
        };
        let run = |html: Vec<u8>| ex.extract_html("http://a.test/x", &html, None);
        assert_eq!(
            run(deep("<div class=a data-x=1>", 120)).err(),
            Some(reasons::TOO_DEEP)
        );
        assert_eq!(run(deep("<ul><li>", 60)).err(), Some(reasons::TOO_DEEP));
        // elements the parser closes itself, void and self-closed ones, and the unread tags
        // inside raw text or removed scripts do not nest
        for shallow in [
            deep("<p>x", 500),
            deep("<li>x", 500),
            deep("<br><img src=a.png><hr/>", 500),
            deep("<title><div><div></title>", 200),
            deep("<script><div><div></script><svg><g><g></svg>", 200),
            deep("<div></div>", 500),
        ] {
            assert!(run(shallow).is_ok());
        }
    }

    /// An extractor that keeps short texts, a café menu's `sentence` six times (the text it
    /// should extract), and the page holding it: in UTF-8 and garbled (its UTF-8 read as
    /// Windows-1252, as a template that mixed up encodings shows it).
    fn garbled_menu(sentence: &str) -> (Extractor, String, String, String) {
        let ex = Extractor::new(ExtractConfig {
            min_text_chars: 0,
            ..Default::default()
        });
        let text = sentence.repeat(6);
        let html = format!(
            "<html><head><title>Café menu — été</title></head><body><article><p>{text}</p></article></body></html>"
        );
        let garbled = encoding_rs::WINDOWS_1252
            .decode(html.as_bytes())
            .0
            .into_owned();
        (ex, text, html, garbled)
    }

    #[test]
    fn text_encoded_twice_is_read_back() {
        // the page is valid UTF-8 and shows `canâ€™t`, `Ã©tÃ©`, `â‚¬`
        let (ex, text, html, garbled) =
            garbled_menu("They can’t say the café’s summer menu costs 5 €. ");
        assert!(garbled.contains("canâ€™t"));
        let doc = ex
            .extract(&page(garbled.into_bytes(), "text/html; charset=utf-8"))
            .unwrap();
        assert_eq!(doc.text, text.trim_end());
        assert_eq!(doc.meta.title.as_deref(), Some("Café menu — été"));
        // counted: the characters read back, four in each sentence (’ é ’ €), four in the title
        let n = doc.attrs.get("mojibake_repaired").and_then(|v| v.as_u64());
        assert_eq!(n, Some(6 * 4 + 4));
        // a page without it carries no count
        let clean = ex.extract(&page(html.into_bytes(), "text/html")).unwrap();
        assert!(!clean.attrs.contains_key("mojibake_repaired"));
    }

    #[test]
    fn text_encoded_twice_and_written_as_references_is_read_back() {
        // a CMS escaped the garbled text: `can&acirc;&#8364;&#8482;t`, which the parser
        // turns into the same `canâ€™t`
        let (ex, text, _, garbled) =
            garbled_menu("They can’t say the café’s summer menu costs 5 € &amp; more. ");
        let escaped: String = garbled
            .chars()
            .map(|c| match c {
                'â' => "&acirc;".to_string(),
                'Ã' => "&Atilde;".to_string(),
                c if c as u32 >= 0x80 => format!("&#{};", c as u32),
                c => c.to_string(),
            })
            .collect();
        assert!(escaped.contains("can&acirc;&#8364;&#8482;t"), "{escaped}");
        let doc = ex
            .extract(&page(escaped.into_bytes(), "text/html; charset=utf-8"))
            .unwrap();
        assert_eq!(doc.text, text.trim_end().replace("&amp;", "&"));
        assert_eq!(doc.meta.title.as_deref(), Some("Café menu — été"));
        let n = doc.attrs.get("mojibake_repaired").and_then(|v| v.as_u64());
        assert_eq!(n, Some(6 * 4 + 4));
    }

    #[test]
    fn binary_bodies_labelled_html_are_not_documents() {
        let ex = Extractor::new(ExtractConfig {
            min_text_chars: 0,
            ..Default::default()
        });
        let prose =
            "A paragraph of ordinary prose about rivers and the towns along them. ".repeat(8);
        let html = format!("<html><body><article><p>{prose}</p></article></body></html>");
        assert!(ex
            .extract(&page(html.clone().into_bytes(), "text/html"))
            .is_ok());
        // a PNG, a JPEG, a gzip stream and a PDF with binary bytes, each served as text/html
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(html.as_bytes());
        let jpeg = [&b"\xff\xd8\xff\xe0\0\x10JFIF\0"[..], html.as_bytes()].concat();
        let gz = [&b"\x1f\x8b\x08\0\0\0\0\0"[..], html.as_bytes()].concat();
        let pdf = [
            &b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\x01"[..],
            html.as_bytes(),
        ]
        .concat();
        for (name, body) in [("png", png), ("jpeg", jpeg), ("gzip", gz), ("pdf", pdf)] {
            assert_eq!(
                ex.extract(&page(body.clone(), "text/html")).err(),
                Some(reasons::NOT_HTML),
                "{name}"
            );
            assert_eq!(
                ex.extract(&page(body, "")).err(),
                Some(reasons::NOT_HTML),
                "{name}"
            );
        }
        // UTF-16 HTML (with its byte-order mark) has NUL bytes and is text
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(html.encode_utf16().flat_map(|u| u.to_le_bytes()));
        assert!(!is_binary(&utf16));
        // form feeds, tabs, ESC, carriage returns and a stray BEL or NUL occur in real HTML
        assert!(!is_binary(b"<html>\x0c\t\r\n\x1b<p>x\x07\x00</p>"));
        // unknown binary data without a known signature
        assert!(is_binary(&[0x13u8; 64]));
    }

    #[test]
    fn a_page_over_its_time_budget_is_dropped() {
        // 4 MB of paragraphs: tens of milliseconds of parsing at least, on any machine
        let para = "<div><p>Words of a long page that takes a while to parse and score.</p></div>";
        let html = format!("<html><body>{}</body></html>", para.repeat(50_000));
        let tight = Extractor::new(ExtractConfig {
            max_page_ms: 1,
            ..Default::default()
        });
        assert_eq!(
            tight
                .extract_html("http://a.test/", html.as_bytes(), None)
                .err(),
            Some(reasons::EXTRACT_TIMEOUT)
        );
        let unbounded = Extractor::new(ExtractConfig {
            max_page_ms: 0,
            ..Default::default()
        });
        assert!(unbounded
            .extract_html("http://a.test/", html.as_bytes(), None)
            .is_ok());
        // the default budget leaves ordinary pages alone
        let ok = Extractor::new(ExtractConfig::default());
        let small = format!(
            "<html><body><article>{}</article></body></html>",
            "<p>A sentence of text for the reader.</p>".repeat(20)
        );
        assert!(ok
            .extract_html("http://a.test/", small.as_bytes(), None)
            .is_ok());
    }
}
