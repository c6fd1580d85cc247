//! Dedup through the CLI: sharded batch phases give the same survivors whatever the number
//! of workers, phases are idempotent, and a persistent index dedups later batches.

use std::path::Path;

use trawl_dedup::testing::word;

use crate::support::{files, ok, read_jsonl, run, trawl};

/// 4 input files; cluster c has a base document and variants with 1 and 60 edited words
/// out of 300 (true Jaccard about 0.97 and 0.3), spread over different files.
fn corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut files: Vec<String> = vec![String::new(); 4];
    for c in 0..40usize {
        let base: Vec<String> = (0..300)
            .map(|i| word((c * 1_000_003 + i * 7919) % 50_000))
            .collect();
        let mut near = base.clone();
        near[150] = "edited".into();
        let mut far = base.clone();
        for i in (0..300).step_by(5) {
            far[i] = format!("x{}", word(i + c));
        }
        for (k, (suffix, text)) in [("base", base), ("near", near), ("far", far)]
            .into_iter()
            .enumerate()
        {
            let doc = serde_json::json!({ "id": format!("c{c}-{suffix}"), "text": text.join(" ") });
            files[(c + k) % 4].push_str(&format!("{doc}\n"));
        }
    }
    for (i, f) in files.iter().enumerate() {
        std::fs::write(dir.join(format!("part-{i}.jsonl")), f).unwrap();
    }
}

fn batch(input: &Path, root: &Path, workers: &[usize; 3]) {
    for phase_workers in [
        ("signatures", workers[0]),
        ("buckets", workers[1]),
        ("clusters", 1),
        ("apply", workers[2]),
    ] {
        let (phase, n) = phase_workers;
        for i in 0..n {
            ok(trawl()
                .args([
                    "dedup",
                    phase,
                    "--quiet",
                    "--shard",
                    &format!("{i}/{n}"),
                    "--input",
                ])
                .arg(input)
                .arg("--output")
                .arg(root));
        }
    }
}

#[test]
fn batch_phases_are_deterministic_across_worker_counts_and_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    corpus(&input);
    let one = dir.path().join("one");
    let many = dir.path().join("many");
    batch(&input, &one, &[1, 1, 1]);
    batch(&input, &many, &[3, 2, 4]);
    let data = |root: &Path| {
        files(root)
            .into_iter()
            .filter(|(k, _)| {
                k.starts_with("dedup/0")
                    || k.starts_with("excluded/")
                    || k.starts_with("dedup/batch/remove")
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (a, b) = (data(&one), data(&many));
    assert!(a.len() >= 12, "{:?}", a.keys().collect::<Vec<_>>());
    assert_eq!(
        a, b,
        "the same survivors with 1 and with several workers per phase"
    );

    let mut kept = Vec::new();
    let mut removed = Vec::new();
    for i in 0..4 {
        kept.extend(
            read_jsonl(&one.join(format!("dedup/{:05}.jsonl.zst", i)))
                .into_iter()
                .map(|d| d["id"].as_str().unwrap().to_string()),
        );
        removed.extend(read_jsonl(
            &one.join(format!("excluded/dedup/{:05}.jsonl.zst", i)),
        ));
    }
    assert_eq!(
        removed.len(),
        40,
        "one of each base/near pair removed: {}",
        removed.len()
    );
    for r in &removed {
        let id = r["doc"]["id"].as_str().unwrap();
        let (c, which) = id.split_once('-').unwrap();
        let c: usize = c[1..].parse().unwrap();
        // base is in file c % 4, near in (c + 1) % 4: the one in the earlier file survives
        let expect_removed = if (c + 1) % 4 > c % 4 { "near" } else { "base" };
        assert_eq!(which, expect_removed, "{id} removed");
        let other = if which == "near" { "base" } else { "near" };
        assert_eq!(
            r["doc"]["attrs"]["dedup"]["near_of"],
            format!("c{c}-{other}"),
            "the earliest document (by input order) survives"
        );
        assert_eq!(r["reason"], "near_duplicate");
    }
    assert!(
        kept.iter().filter(|k| k.ends_with("-far")).count() == 40,
        "dissimilar variants are kept"
    );

    // rerunning any phase (as after a crash) rewrites identical bytes
    let before = files(&one);
    for phase in ["signatures", "buckets", "clusters", "apply"] {
        ok(trawl()
            .args(["dedup", phase, "--quiet", "--force", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(&one));
    }
    let after = files(&one);
    for (k, v) in &before {
        if !(k.starts_with("stats/") || k.starts_with("_done/")) {
            assert_eq!(Some(v), after.get(k), "{k} changed on rerun");
        }
    }
    // a phase run before its inputs exist is a usage error, not a crash
    let empty = dir.path().join("empty");
    let o = run(trawl().args(["dedup", "buckets", "--output"]).arg(&empty));
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn persistent_index_dedups_a_later_batch() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("index");
    let cfg = dir.path().join("d.toml");
    std::fs::write(
        &cfg,
        format!("[dedup]\nindex_dir = \"{}\"\n", idx.display()),
    )
    .unwrap();
    let text: Vec<String> = (0..200).map(|i| word((i * 7919) % 5000)).collect();
    let b1 = dir.path().join("b1");
    std::fs::create_dir_all(&b1).unwrap();
    std::fs::write(
        b1.join("a.jsonl"),
        format!(
            "{}\n",
            serde_json::json!({"id": "monday", "text": text.join(" ")})
        ),
    )
    .unwrap();
    let mut v = text.clone();
    v[3] = "changed".into();
    let b2 = dir.path().join("b2");
    std::fs::create_dir_all(&b2).unwrap();
    std::fs::write(
        b2.join("a.jsonl"),
        format!(
            "{}\n{}\n",
            serde_json::json!({"id": "tuesday", "text": v.join(" ")}),
            serde_json::json!({"id": "new", "text": "an entirely new document with other words"})
        ),
    )
    .unwrap();
    ok(trawl()
        .args(["dedup", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&b1)
        .arg("--output")
        .arg(dir.path().join("run1")));
    ok(trawl()
        .args(["dedup", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&b2)
        .arg("--output")
        .arg(dir.path().join("run2")));
    let kept = read_jsonl(&dir.path().join("run2/dedup/00000.jsonl.zst"));
    assert_eq!(
        kept.iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        vec!["new"]
    );
    let ex = read_jsonl(&dir.path().join("run2/excluded/dedup/00000.jsonl.zst"));
    assert_eq!(ex[0]["doc"]["attrs"]["dedup"]["near_of"], "monday");
}

#[test]
fn spilled_signature_runs_give_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for f in 0..3usize {
        let mut out = String::new();
        for d in 0..2000usize {
            let base = (f * 2000 + d) % 3000;
            let mut words: Vec<String> = (0..80)
                .map(|i| word((base * 7919 + i * 104_729) % 60_000))
                .collect();
            words[(f + d) % 80] = "spill".into();
            out.push_str(&format!(
                "{}\n",
                serde_json::json!({ "id": format!("f{f}-d{d}"), "text": words.join(" ") })
            ));
        }
        std::fs::write(input.join(format!("part-{f}.jsonl")), out).unwrap();
    }
    let small = dir.path().join("small.toml");
    std::fs::write(&small, "[dedup]\nmax_memory_mb = 1\n").unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    batch(&input, &a, &[1, 1, 1]);
    for phase in ["signatures", "buckets", "clusters", "apply"] {
        ok(trawl()
            .args(["dedup", phase, "--quiet", "--config"])
            .arg(&small)
            .arg("--input")
            .arg(&input)
            .arg("--output")
            .arg(&b));
    }
    let runs = files(&b)
        .keys()
        .filter(|k| k.starts_with("dedup/batch/bands/000/") && k.contains('-'))
        .count();
    assert!(
        runs >= 3,
        "the small budget spilled extra sorted runs ({runs})"
    );
    let pick = |root: &Path| {
        files(root)
            .into_iter()
            .filter(|(k, _)| {
                k.starts_with("dedup/0")
                    || k.starts_with("excluded/dedup/")
                    || k.starts_with("dedup/batch/remove/")
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (pa, pb) = (pick(&a), pick(&b));
    assert_eq!(pa, pb, "spilling changes nothing in the result");
    assert!(pa.keys().any(|k| k.starts_with("excluded/dedup/")));
}

/// A streaming `trawl dedup` interrupted before a shard committed and rerun writes the same
/// exclusion records as an uninterrupted run. The case that differed: a document that exact
/// dedup passed and near dedup then removed, and a later shard's exact copy of it, which
/// the uninterrupted run records as `exact_duplicate` of the removed document.
#[test]
fn streaming_dedup_resume_writes_the_same_exclusions() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let base: Vec<String> = (0..300).map(|i| word((i * 7919) % 50_000)).collect();
    let mut near = base.clone();
    near[150] = "edited".into();
    let doc = |id: &str, words: &[String]| {
        format!(
            "{}\n",
            serde_json::json!({ "id": id, "text": words.join(" ") })
        )
    };
    // shard 0: the original and a near copy (removed by near dedup);
    // shard 1: an exact copy of the near copy, and the original again
    std::fs::write(
        input.join("a.jsonl"),
        doc("orig", &base) + &doc("near", &near),
    )
    .unwrap();
    std::fs::write(
        input.join("b.jsonl"),
        doc("copy-of-near", &near) + &doc("orig-again", &base),
    )
    .unwrap();
    let clean = dir.path().join("clean");
    let dedup = |root: &Path| {
        ok(trawl()
            .args(["dedup", "--quiet", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(root));
    };
    dedup(&clean);
    let ex = read_jsonl(&clean.join("excluded/dedup/00001.jsonl.zst"));
    let reasons: Vec<(&str, &str)> = ex
        .iter()
        .map(|e| {
            (
                e["doc"]["id"].as_str().unwrap(),
                e["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("copy-of-near", "exact_duplicate"),
            ("orig-again", "exact_duplicate")
        ]
    );
    // the state of a kill after shard 0 committed: shard 1's marker and outputs are gone
    let resumed = dir.path().join("resumed");
    dedup(&resumed);
    uncommit(&resumed, &["00001"]);
    dedup(&resumed);
    assert_eq!(
        outputs(&clean),
        outputs(&resumed),
        "kept and excluded files are byte-identical after the resume"
    );
}

/// The state a kill leaves before these dedup shards committed: marker and outputs gone.
fn uncommit(root: &Path, shards: &[&str]) {
    for shard in shards {
        for k in [
            format!("_done/dedup/{shard}"),
            format!("dedup/{shard}.jsonl.zst"),
            format!("excluded/dedup/{shard}.jsonl.zst"),
            format!("stats/dedup/{shard}.json"),
        ] {
            std::fs::remove_file(root.join(k)).unwrap();
        }
    }
}

/// A run's kept and excluded files (not its stats and markers), with their bytes.
fn outputs(root: &Path) -> Vec<(String, Vec<u8>)> {
    files(root)
        .into_iter()
        .filter(|(k, _)| !(k.starts_with("stats/") || k.starts_with("_done/")))
        .collect()
}

#[test]
fn streaming_dedup_links_a_copy_to_an_original_in_a_later_input() {
    // b, then c in the next file, then o in the last: c is within the threshold of o only
    // (not of b); seeing the whole run first, `trawl dedup` removes c into b's cluster
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let docs = trawl_dedup::testing::survivor_original_copy();
    for (name, d) in [
        ("1.jsonl", &docs[0]),
        ("2.jsonl", &docs[2]),
        ("3.jsonl", &docs[1]),
    ] {
        let line = serde_json::json!({ "id": d.id.as_str(), "text": d.text });
        std::fs::write(input.join(name), format!("{line}\n")).unwrap();
    }
    let dedup = |root: &Path, extra: &[&str]| {
        ok(trawl()
            .args(["dedup", "--quiet"])
            .args(extra)
            .arg("--input")
            .arg(&input)
            .arg("--output")
            .arg(root));
    };
    let clean = dir.path().join("clean");
    dedup(&clean, &[]);
    let excluded = |root: &Path, shard: &str| {
        read_jsonl(&root.join(format!("excluded/dedup/{shard}.jsonl.zst")))
    };
    let c = excluded(&clean, "00001");
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0]["reason"], "near_duplicate");
    assert_eq!(
        c[0]["doc"]["attrs"]["dedup"]["near_of"],
        docs[1].id.as_str()
    );
    assert_eq!(
        c[0]["doc"]["attrs"]["dedup"]["survivor"],
        docs[0].id.as_str()
    );
    let kept = read_jsonl(&clean.join("dedup/00000.jsonl.zst"));
    assert_eq!(kept[0]["attrs"]["dedup"]["cluster_size"], 3);
    let o = excluded(&clean, "00002");
    assert_eq!(
        o[0]["doc"]["attrs"]["dedup"]["survivor"],
        docs[0].id.as_str()
    );
    // a kill after the first shard committed, then a rerun: the same files
    let resumed = dir.path().join("resumed");
    dedup(&resumed, &[]);
    uncommit(&resumed, &["00001", "00002"]);
    dedup(&resumed, &[]);
    assert_eq!(
        outputs(&clean),
        outputs(&resumed),
        "the resumed run decides as the uninterrupted one"
    );
}
