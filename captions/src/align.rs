//! Image-text alignment: a scorer interface, and (with the `clip` feature) a CLIP
//! implementation run with `candle` from local files (a Hugging Face CLIP directory:
//! `config.json`, `model.safetensors`, `tokenizer.json`, optionally
//! `preprocessor_config.json`), e.g. `openai/clip-vit-base-patch32` downloaded by the user.
//! The score is the cosine similarity of the image and text embeddings, in [-1, 1]. The
//! feature is off by default: the CLIP stack is a sixth of a cold build and only runs when a
//! model is configured (`cargo build --release --features clip`).
//!
//! Text for a pair is its alt text, with the figcaption appended when there is one.

use trawl_core::ImageTextPair;

use crate::CheckedImage;

#[cfg(feature = "clip")]
pub use crate::clip::{clip_config, ClipScorer};

/// Whether this build can load a CLIP model (the `clip` feature).
pub const CLIP_BUILT: bool = cfg!(feature = "clip");

/// Scores how well a text describes an image.
pub trait AlignmentScorer: Send + Sync {
    /// A name for logs and attrs.
    fn name(&self) -> &str;
    /// One score per `(image, text)`, higher is better aligned.
    fn score_batch(&self, items: &[(&CheckedImage, &str)]) -> Result<Vec<f32>, String>;
}

/// The text a pair is scored with: alt text, then the figcaption when it adds something.
pub fn caption_text(p: &ImageTextPair) -> String {
    match p
        .caption
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty() && !p.alt.contains(*c))
    {
        Some(c) => format!("{}. {c}", p.alt.trim()),
        None => p.alt.trim().to_string(),
    }
}
