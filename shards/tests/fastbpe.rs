//! The fast byte-level BPE encoder gives exactly the ids of the `tokenizers` crate.

use trawl_core::Document;
use trawl_shards::train::{train_bpe, TrainOptions};
use trawl_shards::Tokenizer;

const SAMPLES: &[&str] = &[
    "The harbour town woke slowly on Monday as the first ferries crossed the grey water.",
    "Le petit village de montagne accueille chaque été des milliers de randonneurs.",
    "Die kleine Stadt am Fluss hat in diesem Jahr ihr neues Schwimmbad eröffnet.",
    "El mercado central de la ciudad celebra este mes su centenario con conciertos.",
    "日本語のテキストと中文文本，还有한국어 문장도 있습니다。",
    "Русский текст и ελληνικά γράμματα, עברית и العربية.",
    "don't can't I'll we've they're she'd 'quoted' '''s''' it's",
    "numbers 3.14159, 1,000,000 and ٣٤٥ and ½ and ²",
    "emoji 🎉🎉 and symbols ©®™ — “quotes” «guillemets» …",
    "code: fn main() { println!(\"hi\"); }\n\n\tindented\r\n  trailing   \n",
    "spaces   before\u{a0}nbsp\u{2009}thin\u{3000}ideographic end   ",
    "<|endoftext|> special in text <|endoftext|>",
    "",
    " ",
    "\n\n\n",
    "a",
];

fn corpus() -> Vec<Document> {
    let mut docs: Vec<Document> = SAMPLES
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(format!("s{i}"), t.repeat(3)))
        .collect();
    if let Some(Ok(rd)) =
        trawl_core::testdata::shared("extract/scrapinghub/gt").map(std::fs::read_dir)
    {
        for e in rd.take(80) {
            let p = e.unwrap().path();
            docs.push(Document::new(
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap_or_default(),
            ));
        }
    }
    docs
}

#[test]
fn fast_encoder_equals_the_tokenizers_crate() {
    let docs = corpus();
    for vocab in [300, 2000] {
        let opts = TrainOptions {
            vocab_size: vocab,
            special_tokens: vec!["<|endoftext|>".into(), "<pad>".into()],
            ..Default::default()
        };
        let json = train_bpe(docs.iter().map(|d| d.text.as_str()), &opts).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tokenizer.json");
        std::fs::write(&p, json).unwrap();
        let t = Tokenizer::load(p.to_str().unwrap(), None, None).unwrap();
        assert!(t.is_fast(), "a trained byte-level BPE uses the fast path");
        let mut n = 0;
        for d in &docs {
            // twice: the second pass is served from the piece cache
            for _ in 0..2 {
                assert_eq!(
                    t.encode(&d.text),
                    t.encode_reference(&d.text),
                    "vocab {vocab}, text {:?}",
                    &d.text.chars().take(80).collect::<String>()
                );
            }
            n += 1;
        }
        assert!(n >= SAMPLES.len());
    }
}
