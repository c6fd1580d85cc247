//! The CLIP scorer (the `clip` feature; see [`crate::align`]).

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::clip;
use serde_json::Value;

use crate::align::AlignmentScorer;
use crate::CheckedImage;

/// A CLIP model on the CPU.
pub struct ClipScorer {
    name: String,
    model: clip::ClipModel,
    tokenizer: tokenizers::Tokenizer,
    image_size: usize,
    max_tokens: usize,
    mean: [f32; 3],
    std: [f32; 3],
    device: Device,
}

impl std::fmt::Debug for ClipScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipScorer")
            .field("name", &self.name)
            .field("image_size", &self.image_size)
            .finish()
    }
}

fn get(v: &Value, section: &str, key: &str) -> Result<usize, String> {
    v[section][key]
        .as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| format!("config.json: {section}.{key} missing or not a number"))
}

/// The `ClipConfig` of a Hugging Face CLIP `config.json`.
pub fn clip_config(v: &Value) -> Result<clip::ClipConfig, String> {
    let projection = v["projection_dim"].as_u64().map(|n| n as usize);
    let text = clip::text_model::ClipTextConfig {
        vocab_size: get(v, "text_config", "vocab_size")?,
        embed_dim: get(v, "text_config", "hidden_size")?,
        activation: clip::text_model::Activation::QuickGelu,
        intermediate_size: get(v, "text_config", "intermediate_size")?,
        max_position_embeddings: get(v, "text_config", "max_position_embeddings")?,
        pad_with: None,
        num_hidden_layers: get(v, "text_config", "num_hidden_layers")?,
        num_attention_heads: get(v, "text_config", "num_attention_heads")?,
        projection_dim: projection
            .or(v["text_config"]["projection_dim"]
                .as_u64()
                .map(|n| n as usize))
            .ok_or("config.json: projection_dim missing")?,
    };
    let image_size = get(v, "vision_config", "image_size")?;
    let vision = clip::vision_model::ClipVisionConfig {
        embed_dim: get(v, "vision_config", "hidden_size")?,
        activation: clip::text_model::Activation::QuickGelu,
        intermediate_size: get(v, "vision_config", "intermediate_size")?,
        num_hidden_layers: get(v, "vision_config", "num_hidden_layers")?,
        num_attention_heads: get(v, "vision_config", "num_attention_heads")?,
        projection_dim: projection
            .or(v["vision_config"]["projection_dim"]
                .as_u64()
                .map(|n| n as usize))
            .ok_or("config.json: projection_dim missing")?,
        num_channels: v["vision_config"]["num_channels"].as_u64().unwrap_or(3) as usize,
        image_size,
        patch_size: get(v, "vision_config", "patch_size")?,
    };
    for (what, heads, dim) in [
        ("text_config", text.num_attention_heads, text.embed_dim),
        (
            "vision_config",
            vision.num_attention_heads,
            vision.embed_dim,
        ),
    ] {
        if heads == 0 || dim % heads != 0 {
            return Err(format!("config.json: {what}.hidden_size {dim} is not a multiple of num_attention_heads {heads}"));
        }
    }
    Ok(clip::ClipConfig {
        text_config: text,
        vision_config: vision,
        logit_scale_init_value: v["logit_scale_init_value"].as_f64().unwrap_or(2.6592) as f32,
        image_size,
    })
}

impl ClipScorer {
    /// Loads a CLIP directory (see the module documentation).
    pub fn load(dir: &Path) -> Result<ClipScorer, String> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
        };
        let cfg_json: Value = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| format!("config.json: {e}"))?;
        let cfg = clip_config(&cfg_json)?;
        let device = Device::Cpu;
        let weights = dir.join("model.safetensors");
        // read into memory (the workspace forbids unsafe code, so no mmap)
        let data = std::fs::read(&weights).map_err(|e| format!("{}: {e}", weights.display()))?;
        let vb = VarBuilder::from_buffered_safetensors(data, DType::F32, &device)
            .map_err(|e| format!("{}: {e}", weights.display()))?;
        let model =
            clip::ClipModel::new(vb, &cfg).map_err(|e| format!("{}: {e}", weights.display()))?;
        let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| format!("{}: {e}", dir.join("tokenizer.json").display()))?;
        let (mut mean, mut std) = (
            [0.481_454_66, 0.457_827_5, 0.408_210_73],
            [0.268_629_54, 0.261_302_6, 0.275_777_1],
        );
        if let Ok(b) = read("preprocessor_config.json") {
            let p: Value =
                serde_json::from_slice(&b).map_err(|e| format!("preprocessor_config.json: {e}"))?;
            for (key, dst) in [("image_mean", &mut mean), ("image_std", &mut std)] {
                if let Some(a) = p[key].as_array().filter(|a| a.len() == 3) {
                    for (d, s) in dst.iter_mut().zip(a) {
                        *d = s.as_f64().unwrap_or(f64::from(*d)) as f32;
                    }
                }
            }
        }
        let name = dir
            .file_name()
            .map_or("clip".into(), |n| n.to_string_lossy().into_owned());
        Ok(ClipScorer {
            name,
            model,
            tokenizer,
            image_size: cfg.image_size,
            max_tokens: cfg.text_config.max_position_embeddings,
            mean,
            std,
            device,
        })
    }

    /// Shorter side to `image_size`, centre crop, CLIP normalisation, CHW.
    fn pixels(&self, img: &CheckedImage) -> Result<Vec<f32>, String> {
        let decoded = image::load_from_memory(&img.bytes)
            .map_err(|e| e.to_string())?
            .to_rgb8();
        let s = self.image_size as u32;
        let (w, h) = decoded.dimensions();
        let scale = f64::from(s) / f64::from(w.min(h).max(1));
        let (nw, nh) = (
            ((f64::from(w) * scale).round() as u32).max(s),
            ((f64::from(h) * scale).round() as u32).max(s),
        );
        let resized =
            image::imageops::resize(&decoded, nw, nh, image::imageops::FilterType::Triangle);
        let (x0, y0) = ((nw - s) / 2, (nh - s) / 2);
        let mut out = vec![0f32; 3 * (s * s) as usize];
        for y in 0..s {
            for x in 0..s {
                let p = resized.get_pixel(x0 + x, y0 + y);
                for c in 0..3 {
                    out[c * (s * s) as usize + (y * s + x) as usize] =
                        (f32::from(p[c]) / 255.0 - self.mean[c]) / self.std[c];
                }
            }
        }
        Ok(out)
    }

    fn token_ids(&self, text: &str) -> Result<Vec<u32>, String> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| e.to_string())?;
        let mut ids = enc.get_ids().to_vec();
        if ids.len() > self.max_tokens {
            // keep the end-of-text token (the highest id, where CLIP pools) at the end
            let last = *ids.last().expect("non-empty");
            ids.truncate(self.max_tokens);
            ids[self.max_tokens - 1] = last;
        }
        Ok(ids)
    }
}

impl AlignmentScorer for ClipScorer {
    fn name(&self) -> &str {
        &self.name
    }

    fn score_batch(&self, items: &[(&CheckedImage, &str)]) -> Result<Vec<f32>, String> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let e = |e: candle_core::Error| e.to_string();
        let s = self.image_size;
        let mut px = Vec::with_capacity(items.len() * 3 * s * s);
        for (img, _) in items {
            px.extend(self.pixels(img)?);
        }
        let pixels = Tensor::from_vec(px, (items.len(), 3, s, s), &self.device).map_err(e)?;
        let ids: Vec<Vec<u32>> = items
            .iter()
            .map(|(_, t)| self.token_ids(t))
            .collect::<Result<_, _>>()?;
        let len = ids.iter().map(Vec::len).max().unwrap_or(1).max(1);
        // padding after the end-of-text token does not change its output (causal attention)
        let flat: Vec<u32> = ids
            .iter()
            .flat_map(|v| v.iter().copied().chain(std::iter::repeat(0)).take(len))
            .collect();
        let input_ids = Tensor::from_vec(flat, (items.len(), len), &self.device).map_err(e)?;
        let img =
            clip::div_l2_norm(&self.model.get_image_features(&pixels).map_err(e)?).map_err(e)?;
        let txt =
            clip::div_l2_norm(&self.model.get_text_features(&input_ids).map_err(e)?).map_err(e)?;
        let sims = (img * txt).map_err(e)?.sum(1).map_err(e)?;
        sims.to_vec1::<f32>().map_err(e)
    }
}
