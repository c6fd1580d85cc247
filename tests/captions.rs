//! The captions stage on the demo web's photo galleries: images fetched politely from a
//! separate host, checked, de-duplicated, and written as WebDataset shards that the
//! `webdataset` Python package iterates.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::{demo_run, python};

fn jsonl(dir: &Path, prefix: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join(prefix))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.zst"))
        .collect();
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        out.extend(
            trawl_storage::jsonl::read_lines::<Value>(&f.to_string_lossy(), &bytes)
                .unwrap()
                .into_iter()
                .map(Result::unwrap),
        );
    }
    out
}

fn tail(url: &str) -> String {
    url.splitn(4, '/').nth(3).unwrap_or("").to_string()
}

#[test]
fn gallery_images_are_kept_or_dropped_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    demo_run(dir.path());
    let d = dir.path();

    // every image of the galleries has its fate
    let dropped: BTreeMap<String, String> = jsonl(d, "excluded/captions")
        .iter()
        .map(|v| {
            (
                tail(v["url"].as_str().unwrap()),
                v["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("img/dot.gif", "image_too_small"), // a 1x1 tracking pixel, no declared size
        ("img/logo.png", "alt_placeholder"), // alt="logo"
        ("img/pier.jpg", "image_corrupt"),  // truncated JPEG
        ("img/panorama.png", "image_too_large"), // PNG bomb: 100000x100000 declared
        ("img/raw-scan.png", "too_large"),  // 2 MB file over the 1 MB cap
        ("blocked/harbour.jpg", "robots_disallowed"), // Disallow for every agent
        ("no-train/owl.jpg", "image_opt_out"), // Disallow for the training token
        ("img/ferry.jpg", "image_opt_out"), // X-Robots-Tag: noimageai
        ("img/orchard.jpg", "image_opt_out"), // <meta name=robots content=noimageai>
        ("img/kite-small.jpg", "image_duplicate_phash"), // kite.jpg resized, on another page
    ];
    for (img, reason) in want {
        assert_eq!(
            dropped.get(img).map(String::as_str),
            Some(reason),
            "{img}: {dropped:?}"
        );
    }
    let pairs = jsonl(d, "captions/pairs");
    let kept: Vec<String> = pairs
        .iter()
        .map(|v| tail(v["image_url"].as_str().unwrap()))
        .collect();
    for img in ["img/kite.jpg", "img/bridge.jpg", "img/photo0.png"] {
        assert!(kept.contains(&img.to_string()), "{img} kept: {kept:?}");
    }
    assert!(kept.iter().all(|k| !dropped.contains_key(k)));
    let kite = pairs
        .iter()
        .find(|v| v["image_url"].as_str().unwrap().ends_with("/img/kite.jpg"))
        .unwrap();
    assert_eq!(
        kite["alt"],
        "A red kite circling above the green hills at noon"
    );
    assert!(
        kite["context"].as_str().unwrap().contains("kite flyers"),
        "context is the text around the image"
    );
    assert_eq!(kite["attrs"]["image_size"], serde_json::json!([640, 480]));
    assert!(kite["consent"]["training_allowed"]
        .as_bool()
        .unwrap_or(true));
    // every candidate pair is accounted for in the stage's stats
    let mut seen = 0;
    let mut accounted = 0;
    for e in std::fs::read_dir(d.join("stats/captions")).unwrap() {
        let v: Value = serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap();
        let s = &v["stages"]["captions"];
        seen += s["seen"].as_u64().unwrap();
        accounted += s["kept"].as_u64().unwrap()
            + s["dropped"]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum::<u64>();
    }
    assert_eq!(seen, accounted);
    assert_eq!(seen as usize, pairs.len() + dropped.len());

    // interleaved documents keep the page's order and only images that passed the checks
    let inter = jsonl(d, "captions/interleaved");
    let more = inter
        .iter()
        .find(|v| v["url"].as_str().unwrap().ends_with("/gallery/more.html"))
        .unwrap();
    let shape: Vec<String> = more["texts"]
        .as_array()
        .unwrap()
        .iter()
        .zip(more["images"].as_array().unwrap())
        .map(|(t, i)| {
            if t.is_null() {
                tail(i.as_str().unwrap())
            } else {
                "text".into()
            }
        })
        .collect();
    assert_eq!(
        shape,
        ["text", "img/kite-small.jpg", "img/bridge.jpg", "text"]
    );
    let kites = inter
        .iter()
        .find(|v| v["url"].as_str().unwrap().ends_with("/gallery/kites.html"))
        .unwrap();
    let imgs: Vec<String> = kites["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i.as_str().map(tail))
        .collect();
    assert_eq!(
        imgs,
        ["img/kite.jpg"],
        "failed images are left out of the interleaved document"
    );
    assert!(
        inter.iter().all(|v| !v["url"]
            .as_str()
            .unwrap()
            .ends_with("/gallery/orchard.html")),
        "a noimageai page has no interleaved images"
    );

    // the webdataset package reads both kinds of shard, and sees what the indexes say
    let Some(py) = python() else { return };
    let script = crate::support::manifest_dir().join("tests/python/read_webdataset.py");
    for (kind, index) in [("pairs", &pairs), ("interleaved", &inter)] {
        let mut tars: Vec<_> = std::fs::read_dir(d.join("captions").join(kind))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "tar"))
            .collect();
        tars.sort();
        let o = std::process::Command::new(&py)
            .arg(&script)
            .arg(kind)
            .args(&tars)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "webdataset failed on {kind}:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let samples = v["samples"].as_array().unwrap();
        let keys: Vec<&str> = samples.iter().map(|s| s["key"].as_str().unwrap()).collect();
        let want: Vec<&str> = index.iter().map(|r| r["key"].as_str().unwrap()).collect();
        assert_eq!(keys, want, "{kind}: tar samples in index order");
        for (s, r) in samples.iter().zip(index.iter()) {
            if kind == "pairs" {
                assert_eq!(s["json"]["alt"], r["alt"]);
                assert_eq!(
                    s["image_sizes"][0], r["attrs"]["image_size"],
                    "decoded size is the recorded size"
                );
            } else {
                assert_eq!(s["json"]["texts"], r["texts"]);
            }
        }
    }
}
