//! The CLIP alignment scorer on a tiny model the test builds itself (random weights saved
//! as safetensors with a Hugging Face config and a word-level tokenizer).
#![cfg(feature = "clip")]

use std::sync::Arc;

use candle_core::{DType, Device};
use candle_nn::{Init, VarBuilder, VarMap};
use serde_json::json;
use trawl_captions::align::{clip_config, AlignmentScorer, ClipScorer};
use trawl_captions::{AlignmentConfig, Captioner, CaptionsConfig, FetchedImage, ImageDedup};
use trawl_core::{Document, ImageRef};

const WORDS: &[&str] = &[
    "a", "red", "kite", "over", "the", "hills", "stone", "bridge", "river", "old", "harbour",
    "boats", "at", "dawn",
];

fn build_tiny_clip(dir: &std::path::Path) {
    let config = json!({
        "projection_dim": 8,
        "logit_scale_init_value": 2.6592,
        "text_config": { "vocab_size": WORDS.len() + 3, "hidden_size": 16, "intermediate_size": 32, "max_position_embeddings": 16, "num_hidden_layers": 1, "num_attention_heads": 2 },
        "vision_config": { "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 32, "patch_size": 8 }
    });
    std::fs::write(
        dir.join("config.json"),
        serde_json::to_vec_pretty(&config).unwrap(),
    )
    .unwrap();
    let cfg = clip_config(&config).unwrap();
    let vm = VarMap::new();
    let vb = VarBuilder::from_varmap(&vm, DType::F32, &Device::Cpu);
    // parameters CLIP checkpoints carry but the model would otherwise draw at random per load
    vb.pp("vision_model")
        .pp("embeddings")
        .get_with_hints(
            16,
            "class_embedding",
            Init::Randn {
                mean: 0.0,
                stdev: 1.0,
            },
        )
        .unwrap();
    vb.get_with_hints((), "logit_scale", Init::Const(2.6592))
        .unwrap();
    candle_transformers::models::clip::ClipModel::new(vb, &cfg).unwrap();
    vm.save(dir.join("model.safetensors")).unwrap();
    // a word-level tokenizer whose end-of-text token has the highest id (CLIP pools there)
    let mut vocab = serde_json::Map::new();
    vocab.insert("<unk>".into(), json!(0));
    for (i, w) in WORDS.iter().enumerate() {
        vocab.insert((*w).into(), json!(i + 1));
    }
    let (bos, eos) = (WORDS.len() + 1, WORDS.len() + 2);
    vocab.insert("<|startoftext|>".into(), json!(bos));
    vocab.insert("<|endoftext|>".into(), json!(eos));
    let special = |id: &str| json!({"SpecialToken": {"id": id, "type_id": 0}});
    let tok = json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("<|startoftext|>"), {"Sequence": {"id": "A", "type_id": 0}}, special("<|endoftext|>")],
            "pair": [special("<|startoftext|>"), {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, special("<|endoftext|>")],
            "special_tokens": {
                "<|startoftext|>": {"id": "<|startoftext|>", "ids": [bos], "tokens": ["<|startoftext|>"]},
                "<|endoftext|>": {"id": "<|endoftext|>", "ids": [eos], "tokens": ["<|endoftext|>"]}
            }
        },
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}
    });
    std::fs::write(
        dir.join("tokenizer.json"),
        serde_json::to_vec(&tok).unwrap(),
    )
    .unwrap();
}

fn jpeg(seed: u8, w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([
            (x as u8).wrapping_mul(seed),
            (y as u8).wrapping_add(seed),
            seed,
        ])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
        .encode_image(&img)
        .unwrap();
    out
}

#[test]
fn a_tiny_clip_scores_pairs_and_the_threshold_drops() {
    let dir = tempfile::tempdir().unwrap();
    build_tiny_clip(dir.path());
    let scorer = Arc::new(ClipScorer::load(dir.path()).unwrap());
    let cfg = trawl_captions::ImageConfig {
        min_side: 16,
        ..Default::default()
    };
    let imgs: Vec<_> = (1..=3u8)
        .map(|s| {
            trawl_captions::image::check(
                &jpeg(s * 50, 96 + u32::from(s) * 8, 80),
                Some("image/jpeg"),
                &cfg,
            )
            .unwrap()
        })
        .collect();
    let texts = [
        "a red kite over the hills",
        "old stone bridge",
        "boats at dawn in the old harbour at dawn",
    ];
    let items: Vec<_> = imgs.iter().zip(texts).collect();
    let batch = scorer.score_batch(&items).unwrap();
    assert_eq!(batch.len(), 3);
    for (k, (img, text)) in items.iter().enumerate() {
        // texts of different lengths are padded in a batch; alone, each scores the same
        let one = scorer.score_batch(&[(img, text)]).unwrap()[0];
        assert!(
            (one - batch[k]).abs() < 1e-4,
            "pair {k}: batch {} vs alone {one}",
            batch[k]
        );
        assert!((-1.0..=1.0).contains(&one));
    }
    assert!(batch[0] != batch[1], "different pairs, different scores");
    // a second load of the same files gives the same scores
    let again = ClipScorer::load(dir.path())
        .unwrap()
        .score_batch(&items)
        .unwrap();
    assert_eq!(batch, again);

    // in the stage: the score goes to attrs; under the threshold the pair is dropped
    let mut doc = Document::new("https://h/p", "Some text before. Some text after.");
    for (i, t) in texts.iter().enumerate() {
        doc.images.push(ImageRef {
            src: format!("https://h/{i}.jpg"),
            alt: t.to_string(),
            offset: 17,
            ..Default::default()
        });
    }
    let mid = {
        let mut s = batch.clone();
        s.sort_by(f32::total_cmp);
        (s[0] + s[1]) / 2.0
    };
    let run = |threshold: Option<f32>| {
        let c = Captioner::new(CaptionsConfig {
            images: cfg.clone(),
            alignment: AlignmentConfig {
                model: None,
                threshold,
            },
            dedup: false,
            ..Default::default()
        })
        .with_scorer(scorer.clone());
        let plan = c.plan(std::slice::from_ref(&doc));
        let fetched: Vec<_> = plan
            .urls
            .iter()
            .map(|u| {
                let i: usize = u
                    .trim_start_matches("https://h/")
                    .trim_end_matches(".jpg")
                    .parse()
                    .unwrap();
                Ok(FetchedImage {
                    body: jpeg((i as u8 + 1) * 50, 96 + (i as u32 + 1) * 8, 80),
                    content_type: Some("image/jpeg".into()),
                    x_robots_tag: None,
                    training_allowed: true,
                    signals: Vec::new(),
                })
            })
            .collect();
        c.assemble(
            std::slice::from_ref(&doc),
            plan,
            fetched,
            &mut ImageDedup::default(),
        )
    };
    let all = run(None);
    assert_eq!(all.pairs.len(), 3);
    for (p, s) in all.pairs.iter().zip(&batch) {
        assert!((p.pair.attrs["alignment"].as_f64().unwrap() as f32 - s).abs() < 1e-3);
    }
    let some = run(Some(mid));
    assert_eq!(
        some.pairs.len(),
        2,
        "the lowest-scoring pair falls under the threshold"
    );
    assert_eq!(some.dropped.len(), 1);
    assert_eq!(some.dropped[0].1.as_str(), "low_alignment");

    // the same image under two alts: the copy under the threshold does not block the other
    let img = jpeg(50, 104, 80);
    let checked = trawl_captions::image::check(&img, Some("image/jpeg"), &cfg).unwrap();
    let (ta, tb) = ("a red kite over the hills", "old stone bridge");
    let (sa, sb) = (
        scorer.score_batch(&[(&checked, ta)]).unwrap()[0],
        scorer.score_batch(&[(&checked, tb)]).unwrap()[0],
    );
    assert!(sa != sb);
    let (low, high) = if sa < sb { (ta, tb) } else { (tb, ta) };
    let mut twice = Document::new("https://h/q", "Text before. Text after.");
    for (i, t) in [low, high].iter().enumerate() {
        twice.images.push(ImageRef {
            src: format!("https://h/same{i}.jpg"),
            alt: t.to_string(),
            offset: 12,
            ..Default::default()
        });
    }
    let c = Captioner::new(CaptionsConfig {
        images: cfg.clone(),
        alignment: AlignmentConfig {
            model: None,
            threshold: Some((sa + sb) / 2.0),
        },
        ..Default::default()
    })
    .with_scorer(scorer.clone());
    let plan = c.plan(std::slice::from_ref(&twice));
    let fetched: Vec<_> = plan
        .urls
        .iter()
        .map(|_| {
            Ok(FetchedImage {
                body: img.clone(),
                content_type: Some("image/jpeg".into()),
                x_robots_tag: None,
                training_allowed: true,
                signals: Vec::new(),
            })
        })
        .collect();
    let out = c.assemble(
        std::slice::from_ref(&twice),
        plan,
        fetched,
        &mut ImageDedup::default(),
    );
    assert_eq!(out.pairs.len(), 1);
    assert_eq!(
        out.pairs[0].pair.alt, high,
        "the better-aligned copy is kept"
    );
    assert_eq!(out.dropped[0].1.as_str(), "low_alignment");

    // a broken model directory is a clear error naming the file
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let e = ClipScorer::load(dir.path()).unwrap_err();
    assert!(e.contains("tokenizer.json"), "{e}");
}
