//! `trawl-captions`: image/alt-text pairs from documents, with alt-text quality filters and
//! the page's consent (`noimageai` excludes its images). This first version builds pairs
//! and interleaved documents from the extracted text; image fetching comes later.
//!
//! ```
//! use trawl_core::{Document, ImageRef};
//! let mut doc = Document::new("https://h/p", "A paragraph before. A paragraph after.");
//! doc.images.push(ImageRef { src: "https://h/cat.jpg".into(), alt: "A grey cat asleep on a red sofa".into(), offset: 19, ..Default::default() });
//! let out = trawl_captions::Captioner::new(Default::default()).pairs(&doc);
//! assert_eq!(out.pairs.len(), 1);
//! ```
#![deny(missing_docs)]

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Document, DropReason, ImageTextPair, InterleavedDoc, StageStats};

pub mod image;

/// Drop reasons for image/alt-text pairs.
pub mod reasons {
    use trawl_core::DropReason;
    /// No alt text.
    pub const ALT_MISSING: DropReason = DropReason::new("alt_missing");
    /// Placeholder alt ("image", "logo", a file name).
    pub const ALT_PLACEHOLDER: DropReason = DropReason::new("alt_placeholder");
    /// Alt text with too few words.
    pub const ALT_TOO_SHORT: DropReason = DropReason::new("alt_too_short");
    /// The page opts out of image training (`noimageai`/`noai`) or training at all.
    pub const IMAGE_OPT_OUT: DropReason = DropReason::new("image_opt_out");
    /// Declared size marks a tracking pixel or icon.
    pub const DECORATIVE: DropReason = DropReason::new("decorative");
}

/// The `[captions]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CaptionsConfig {
    /// Whether `trawl run` writes pairs and interleaved documents.
    pub enabled: bool,
    /// Pairs whose alt text has fewer words are dropped.
    pub min_alt_words: usize,
    /// Bytes of text kept on each side of an image as its context.
    pub context_bytes: usize,
    /// Images declared smaller than this (either side, pixels) are decorative.
    pub min_declared_side: u32,
}

impl Default for CaptionsConfig {
    fn default() -> Self {
        CaptionsConfig { enabled: true, min_alt_words: 3, context_bytes: 300, min_declared_side: 32 }
    }
}

impl CaptionsConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.context_bytes > 100_000 {
            return Err(("captions.context_bytes".into(), "at most 100000".into()));
        }
        Ok(())
    }
}

/// What a document yields.
#[derive(Debug, Default)]
pub struct Pairs {
    /// Kept pairs.
    pub pairs: Vec<ImageTextPair>,
    /// Dropped pairs with their reason.
    pub dropped: Vec<(ImageTextPair, DropReason)>,
}

/// Builds pairs and interleaved documents.
#[derive(Debug, Clone)]
pub struct Captioner {
    cfg: CaptionsConfig,
}

const PLACEHOLDERS: &[&str] = &["image", "img", "photo", "picture", "logo", "icon", "spacer", "banner", "thumbnail", "untitled", "placeholder", "blank", "pixel", "null", "undefined", "alt"];

fn is_placeholder(alt: &str) -> bool {
    let a = alt.trim().to_lowercase();
    if PLACEHOLDERS.contains(&a.as_str()) {
        return true;
    }
    let exts = [".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".bmp"];
    if exts.iter().any(|e| a.ends_with(e)) && !a.contains(' ') {
        return true;
    }
    // camera file names: IMG_1234, DSC01234, dscn0001
    let compact: String = a.chars().filter(|c| !c.is_whitespace()).collect();
    ["img_", "img-", "dsc", "dscn", "pict", "dcim"].iter().any(|p| compact.starts_with(p) && compact[p.len()..].chars().take(3).all(|c| c.is_ascii_digit()) && compact.len() > p.len())
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl Captioner {
    /// A captioner for this configuration.
    pub fn new(cfg: CaptionsConfig) -> Self {
        Captioner { cfg }
    }

    /// Image/alt-text pairs of one document, each kept or dropped with a reason.
    pub fn pairs(&self, doc: &Document) -> Pairs {
        let mut out = Pairs::default();
        for im in &doc.images {
            let start = floor_boundary(&doc.text, im.offset.saturating_sub(self.cfg.context_bytes));
            let end = floor_boundary(&doc.text, im.offset + self.cfg.context_bytes);
            let words = im.alt.split_whitespace().count();
            let mut attrs = trawl_core::Attrs::new();
            attrs.insert("alt_words".into(), json!(words));
            let pair = ImageTextPair {
                doc_id: Some(doc.id.clone()),
                page_url: doc.url.clone(),
                image_url: im.src.clone(),
                alt: im.alt.clone(),
                title: im.title.clone(),
                caption: im.caption.clone(),
                context: doc.text[start..end].to_string(),
                attrs,
                consent: doc.consent.clone(),
            };
            let reason = if doc.consent.noimageai || doc.consent.noai || doc.consent.training_allowed == Some(false) {
                Some(reasons::IMAGE_OPT_OUT)
            } else if im.width.is_some_and(|w| w < self.cfg.min_declared_side) || im.height.is_some_and(|h| h < self.cfg.min_declared_side) {
                Some(reasons::DECORATIVE)
            } else if im.alt.trim().is_empty() {
                Some(reasons::ALT_MISSING)
            } else if is_placeholder(&im.alt) {
                Some(reasons::ALT_PLACEHOLDER)
            } else if words < self.cfg.min_alt_words {
                Some(reasons::ALT_TOO_SHORT)
            } else {
                None
            };
            match reason {
                None => out.pairs.push(pair),
                Some(r) => out.dropped.push((pair, r)),
            }
        }
        out
    }

    /// Accounts a document's pairs into stats (seen = images, kept = pairs).
    pub fn account(p: &Pairs, stats: &mut StageStats) {
        stats.seen += (p.pairs.len() + p.dropped.len()) as u64;
        stats.kept += p.pairs.len() as u64;
        for (_, r) in &p.dropped {
            stats.drop_for(r.as_str());
        }
    }

    /// The OBELICS-style interleaved form of a document: text segments and images in
    /// their original order. Images the page opts out of are left out.
    pub fn interleaved(&self, doc: &Document) -> InterleavedDoc {
        let mut texts = Vec::new();
        let mut images = Vec::new();
        let mut pos = 0;
        let allow_images = !(doc.consent.noimageai || doc.consent.noai);
        let mut ims: Vec<_> = doc.images.iter().collect();
        ims.sort_by_key(|i| i.offset);
        for im in ims {
            let off = floor_boundary(&doc.text, im.offset).max(pos);
            let seg = doc.text[pos..off].trim();
            if !seg.is_empty() {
                texts.push(Some(seg.to_string()));
                images.push(None);
            }
            pos = off;
            if allow_images {
                texts.push(None);
                images.push(Some(im.src.clone()));
            }
        }
        let tail = doc.text[pos..].trim();
        if !tail.is_empty() {
            texts.push(Some(tail.to_string()));
            images.push(None);
        }
        InterleavedDoc { id: Some(doc.id.clone()), url: doc.url.clone(), texts, images, consent: doc.consent.clone(), meta: doc.meta.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::ImageRef;

    fn doc_with(alts: &[&str]) -> Document {
        let mut d = Document::new("https://h/p", "Before the images. After the images.");
        for (i, a) in alts.iter().enumerate() {
            d.images.push(ImageRef { src: format!("https://h/{i}.jpg"), alt: a.to_string(), offset: 18, ..Default::default() });
        }
        d
    }

    #[test]
    fn alt_filters() {
        let c = Captioner::new(Default::default());
        let p = c.pairs(&doc_with(&["A grey cat asleep on a sofa", "", "logo", "IMG_1234.JPG", "two words", "DSC01234"]));
        assert_eq!(p.pairs.len(), 1);
        let reasons: Vec<&str> = p.dropped.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(reasons, vec!["alt_missing", "alt_placeholder", "alt_placeholder", "alt_too_short", "alt_placeholder"]);
        assert!(p.pairs[0].context.contains("Before the images."));
        let mut st = StageStats::default();
        Captioner::account(&p, &mut st);
        assert_eq!(st.seen, st.kept + st.dropped_total());
    }

    #[test]
    fn opt_out_and_interleaving() {
        let c = Captioner::new(Default::default());
        let mut d = doc_with(&["A grey cat asleep on a sofa"]);
        let il = c.interleaved(&d);
        assert_eq!(il.texts, vec![Some("Before the images.".into()), None, Some("After the images.".into())]);
        assert_eq!(il.images[1].as_deref(), Some("https://h/0.jpg"));
        d.consent.noimageai = true;
        assert_eq!(c.pairs(&d).dropped[0].1, reasons::IMAGE_OPT_OUT);
        assert!(c.interleaved(&d).images.iter().all(Option::is_none));
    }
}
