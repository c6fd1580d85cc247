//! Token shards end to end: both dtypes read back by megatron-core and datatrove, a trained
//! tokenizer, takedowns and the mixture.

use std::path::Path;

use trawl_shards::{datatrove, megatron, Manifest};

use crate::support::{demo_port, demo_run, files, ok, python, run, trawl};

fn manifest(root: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(root.join("shards/manifest.json")).unwrap()).unwrap()
}

fn demo(out: &Path) -> String {
    demo_run(out)
}

/// Every shard read by megatron-core and by datatrove equals our own reading, which sums to
/// the manifest.
fn check_with_python(root: &Path, py: &Path) {
    let m = manifest(root);
    assert!(m.shards.len() >= 2, "several shards expected");
    let mut total = 0;
    for s in &m.shards {
        let ours = megatron::read(
            &std::fs::read(root.join(&s.idx)).unwrap(),
            &std::fs::read(root.join(&s.bin)).unwrap(),
        )
        .unwrap();
        assert_eq!(
            ours.iter().map(|d| d.len() as u64).collect::<Vec<_>>(),
            s.docs.iter().map(|d| d.tokens).collect::<Vec<_>>()
        );
        let prefix = root.join(s.bin.trim_end_matches(".bin"));
        let o = std::process::Command::new(py)
            .arg(crate::support::manifest_dir().join("tests/python/read_megatron.py"))
            .arg(&prefix)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "megatron-core: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let theirs: Vec<Vec<u32>> =
            serde_json::from_value(v[prefix.to_string_lossy().as_ref()]["sequences"].clone())
                .unwrap();
        assert_eq!(theirs, ours, "megatron-core disagrees on {}", s.shard);

        let ds = s.ds.as_ref().expect("datatrove format configured");
        let ts = if m.tokenizer.vocab_size <= 65_536 {
            2
        } else {
            4
        };
        let dt_ours = datatrove::read(
            &std::fs::read(root.join(ds)).unwrap(),
            &std::fs::read(root.join(format!("{ds}.index"))).unwrap(),
            ts,
        )
        .unwrap();
        assert_eq!(dt_ours, ours);
        let o = std::process::Command::new(py)
            .arg(crate::support::manifest_dir().join("tests/python/read_datatrove.py"))
            .arg(root.join(ds))
            .arg(ts.to_string())
            .arg(s.tokens.to_string())
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "datatrove: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let theirs: Vec<Vec<u32>> = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(theirs, ours, "datatrove disagrees on {}", s.shard);
        total += s.tokens;
    }
    assert_eq!(total, m.tokens);
}

#[test]
fn both_dtypes_round_trip_through_megatron_core_and_datatrove() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    demo(&a);
    let m = manifest(&a);
    assert_eq!(m.shards[0].dtype, "int32", "cl100k_base needs int32");
    check_with_python(&a, &py);

    // a small trained tokenizer gives uint16 shards
    let tok = dir.path().join("tokenizer.json");
    let s = ok(trawl()
        .args([
            "shards",
            "train-tokenizer",
            "--vocab-size",
            "600",
            "--lang-temperature",
            "2",
            "--input",
        ])
        .arg(a.join("dedup"))
        .arg("--output")
        .arg(&tok));
    assert!(s.contains("vocabulary 600"), "{s}");
    let cfg = dir.path().join("small.toml");
    std::fs::write(&cfg, format!("[shards]\ntokenizer = \"{}\"\ntarget_shard_tokens = 3000\nformats = [\"megatron\", \"datatrove\"]\n", tok.display())).unwrap();
    let b = dir.path().join("b");
    let s = ok(trawl()
        .args(["shards", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(a.join("dedup"))
        .arg("--output")
        .arg(&b));
    assert!(s.contains("manifest with"), "{s}");
    let mb = manifest(&b);
    assert_eq!(mb.shards[0].dtype, "uint16");
    assert!(mb.tokenizer.vocab_size <= 600);
    assert_eq!(mb.documents, m.documents);
    check_with_python(&b, &py);
}

#[test]
fn takedown_rewrites_exactly_the_shards_holding_a_url() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    // one port for both runs, so the second run sees the same URLs
    let port = demo_port().to_string();
    ok(trawl()
        .args(["run", "--quiet", "--demo-port", &port, "--output"])
        .arg(&root));
    let m = manifest(&root);
    let victim = m.shards[1].docs[0].url.clone();
    let holding: Vec<String> = m
        .shards
        .iter()
        .filter(|s| s.docs.iter().any(|d| d.url == victim))
        .map(|s| s.shard.clone())
        .collect();
    let before = files(&root);
    let list = dir.path().join("takedown.txt");
    std::fs::write(&list, format!("# publisher request\n{victim}\n")).unwrap();
    let out = ok(trawl()
        .args(["shards", "takedown", "--urls"])
        .arg(&list)
        .arg("--output")
        .arg(&root));
    assert!(out.contains(&victim), "{out}");
    let after = files(&root);
    for (k, v) in &before {
        let in_holding = holding
            .iter()
            .any(|h| k.starts_with(&format!("shards/tokens/{h}.")));
        if in_holding || k == "shards/manifest.json" {
            assert_ne!(Some(v), after.get(k), "{k} should be rewritten");
        } else {
            assert_eq!(Some(v), after.get(k), "{k} must stay byte-identical");
        }
    }
    let m2 = manifest(&root);
    assert!(m2
        .shards
        .iter()
        .flat_map(|s| &s.docs)
        .all(|d| d.url != victim));
    assert!(m2.tokens < m.tokens && m2.documents < m.documents);
    for s in &m2.shards {
        let toks = megatron::read(
            &std::fs::read(root.join(&s.idx)).unwrap(),
            &std::fs::read(root.join(&s.bin)).unwrap(),
        )
        .unwrap();
        assert_eq!(toks.len() as u64, s.documents);
    }
    assert!(std::fs::read_to_string(root.join("takedown/urls.txt"))
        .unwrap()
        .contains(&victim));
    // a later run from scratch on the same root honours the takedown in its filter stage
    ok(trawl()
        .args([
            "run",
            "--quiet",
            "--force",
            "--demo-port",
            &port,
            "--output",
        ])
        .arg(&root));
    let m3 = manifest(&root);
    assert!(m3
        .shards
        .iter()
        .flat_map(|s| &s.docs)
        .all(|d| d.url != victim));
    assert_eq!(
        m3.documents, m2.documents,
        "the same documents as after the takedown"
    );
    let report = std::fs::read_to_string(root.join("report/index.html")).unwrap();
    assert!(
        report.contains("blocklisted"),
        "the report shows the takedown drop"
    );
    // an empty list is a usage error
    std::fs::write(&list, "# nothing\n").unwrap();
    let o = run(trawl()
        .args(["shards", "takedown", "--urls"])
        .arg(&list)
        .arg("--output")
        .arg(&root));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn mixture_reweights_languages_and_prints_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("run");
    demo(&root);
    let plain = manifest(&root);
    let cfg = dir.path().join("mix.toml");
    std::fs::write(
        &cfg,
        "[shards]\ntarget_shard_tokens = 2000\n[shards.mix]\nenabled = true\ntemperature = 4.0\nseed = 3\ndefault_weight = 1.0\n\
         [[shards.mix.buckets]]\nname = \"wiki\"\nweight = 1.0\ndomains = [\"127.0.0.4\"]\n",
    )
    .unwrap();
    let out = ok(trawl()
        .args(["shards", "pack", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&root));
    assert!(
        out.contains("bucket") && out.contains("wiki") && out.contains("default"),
        "{out}"
    );
    let mixed = manifest(&root);
    let share = |m: &Manifest, lang: &str| {
        let t: u64 = m
            .shards
            .iter()
            .flat_map(|s| &s.docs)
            .filter(|d| d.lang == lang)
            .map(|d| d.tokens)
            .sum();
        t as f64 / m.tokens as f64
    };
    // English dominates the demo; temperature 4 lifts the other languages
    assert!(
        share(&mixed, "eng") < share(&plain, "eng"),
        "{} vs {}",
        share(&mixed, "eng"),
        share(&plain, "eng")
    );
    assert!(
        mixed
            .shards
            .iter()
            .flat_map(|s| &s.docs)
            .any(|d| d.copy > 0),
        "small groups are upsampled by repetition"
    );
    // packing again with the same config is byte-identical
    let before = files(&root);
    ok(trawl()
        .args(["shards", "pack", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&root));
    assert_eq!(before, files(&root));
}
