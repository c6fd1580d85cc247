//! Language-ID evaluation: every detector on every text of the set `bench/lid_data.py`
//! builds, side by side, with its time and memory.
//!
//! ```text
//! cargo run --release --manifest-path bench/lid-eval/Cargo.toml -- \
//!     [--set ~/.cache/trawl/lid/set] [--detectors a,b,...] \
//!     [--out predictions.jsonl]
//! ```
//!
//! Detectors: `whatlang` (every language; `whatlang-trigram` and `whatlang-alphabet` its two
//! methods alone, `whatlang` combines them), `trawl` (`trawl_filter::lid::document`, what the
//! filter stage records), `lingua-low` and `lingua-high` (lingua's two modes, restricted to
//! the languages whatlang knows; models preloaded). fastText's lid.176 runs in
//! bench/lid_fasttext.py (the Rust `fasttext` crate misreads quantized models).
//!
//! Writes one JSON line per text with every detector's answer and confidence (for
//! bench/lid.py to score overall, per language, per source and to try combinations), and
//! prints each detector's time, MB/s and resident memory after building it.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::time::Instant;

struct Text {
    id: String,
    split: String,
    line: serde_json::Value,
    text: String,
}

/// (language, confidence, whether lingua was asked)
type Answer = (String, f64, bool);

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// lingua's ISO 639-3 code as whatlang spells it.
fn lingua_code(l: lingua::Language) -> String {
    match l.iso_code_639_3().to_string().as_str() {
        "zho" => "cmn".into(),
        "fas" => "pes".into(),
        c => c.into(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut set = format!(
        "{}/.cache/trawl/lid/set",
        std::env::var("HOME").unwrap_or_default()
    );
    let mut detectors =
        "whatlang,whatlang-trigram,whatlang-alphabet,trawl,lingua-low,lingua-high".to_string();
    let mut out = "lid-predictions.jsonl".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--set" => set = val()?,
            "--detectors" => detectors = val()?,
            "--out" => out = val()?,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    let mut texts = Vec::new();
    for split in ["tune", "valid"] {
        let f = std::fs::File::open(format!("{set}/{split}.jsonl"))
            .map_err(|e| format!("{set}/{split}.jsonl: {e} (build it with bench/lid_data.py)"))?;
        for line in std::io::BufReader::new(f).lines() {
            let v: serde_json::Value = serde_json::from_str(&line?)?;
            texts.push(Text {
                id: v["id"].as_str().unwrap_or_default().to_string(),
                split: split.into(),
                text: v["text"].as_str().unwrap_or_default().to_string(),
                line: v,
            });
        }
    }
    let bytes: usize = texts.iter().map(|t| t.text.len()).sum();
    eprintln!(
        "{} texts, {:.1} MB, rss {:.0} MB",
        texts.len(),
        bytes as f64 / 1e6,
        rss_mb()
    );

    let mut answers: BTreeMap<&str, Vec<Answer>> = BTreeMap::new();
    let mut summary = serde_json::Map::new();
    for name in detectors.split(',') {
        let before = rss_mb();
        let t0 = Instant::now();
        let detect: Box<dyn Fn(&str) -> Answer> = match name {
            "whatlang" => Box::new(|t: &str| {
                whatlang::detect(t).map_or(("und".into(), 0.0, false), |i| {
                    (i.lang().code().to_string(), i.confidence(), false)
                })
            }),
            "whatlang-trigram" | "whatlang-alphabet" => {
                let method = if name == "whatlang-trigram" {
                    whatlang::dev::Method::Trigram
                } else {
                    whatlang::dev::Method::Alphabet
                };
                let opts = whatlang::dev::Options::with_method(method);
                Box::new(move |t: &str| {
                    whatlang::dev::detect_with_options(t, &opts)
                        .map_or(("und".into(), 0.0, false), |i| {
                            (i.lang().code().to_string(), i.confidence(), false)
                        })
                })
            }
            "trawl" => Box::new(|t: &str| {
                let d = trawl_filter::lid::document(t);
                (d.code.to_string(), d.confidence, d.second.is_some())
            }),
            "lingua-low" | "lingua-high" => {
                let langs: Vec<lingua::Language> = lingua::Language::all()
                    .into_iter()
                    .filter(|l| whatlang::Lang::from_code(lingua_code(*l)).is_some())
                    .collect();
                let mut b = lingua::LanguageDetectorBuilder::from_languages(&langs);
                b.with_preloaded_language_models();
                if name == "lingua-low" {
                    b.with_low_accuracy_mode();
                }
                let det = b.build();
                Box::new(move |t: &str| {
                    det.compute_language_confidence_values(t)
                        .first()
                        .map_or(("und".into(), 0.0, false), |(l, c)| {
                            (lingua_code(*l), *c, true)
                        })
                })
            }
            other => return Err(format!("unknown detector {other}").into()),
        };
        let build_s = t0.elapsed().as_secs_f64();
        let mem = rss_mb() - before;
        let t1 = Instant::now();
        let got: Vec<Answer> = texts.iter().map(|t| detect(&t.text)).collect();
        let secs = t1.elapsed().as_secs_f64();
        let asked = got.iter().filter(|a| a.2).count();
        // lingua loads a language's models the first time the language is a candidate
        let mem_after = rss_mb() - before;
        drop(detect);
        eprintln!(
            "{name:12} build {build_s:6.1} s  memory +{mem:6.0} MB, after detecting +{mem_after:6.0} MB  detect {secs:7.1} s  {:7.2} MB/s  {:8.0} texts/s  lingua asked on {:.1}%",
            bytes as f64 / 1e6 / secs,
            texts.len() as f64 / secs,
            100.0 * asked as f64 / texts.len() as f64
        );
        summary.insert(
            name.to_string(),
            serde_json::json!({"build_s": build_s, "memory_mb": mem, "memory_after_mb": mem_after, "detect_s": secs,
                "mb_per_s": bytes as f64 / 1e6 / secs, "lingua_asked": asked, "texts": texts.len(), "bytes": bytes}),
        );
        answers.insert(
            [
                "whatlang",
                "whatlang-trigram",
                "whatlang-alphabet",
                "trawl",
                "lingua-low",
                "lingua-high",
            ]
            .into_iter()
            .find(|d| *d == name)
            .unwrap_or("other"),
            got,
        );
    }

    let mut w = std::io::BufWriter::new(std::fs::File::create(&out)?);
    for (i, t) in texts.iter().enumerate() {
        let mut v = t.line.clone();
        v["split"] = t.split.clone().into();
        v["id"] = t.id.clone().into();
        v["bytes"] = t.text.len().into();
        if let Some(o) = v.as_object_mut() {
            o.remove("text");
        }
        for (name, got) in &answers {
            v[*name] =
                serde_json::json!([got[i].0, (got[i].1 * 1000.0).round() / 1000.0, got[i].2]);
        }
        writeln!(w, "{v}")?;
    }
    w.flush()?;
    let summary_path = format!("{out}.summary.json");
    std::fs::write(&summary_path, serde_json::to_string_pretty(&summary)?)?;
    eprintln!("wrote {out} and {summary_path}");
    Ok(())
}
