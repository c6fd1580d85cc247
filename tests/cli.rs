//! The CLI: the demo run, stage reruns, config errors, foreign documents, help texts.

use std::io::Write;

use trawl_shards::{megatron, Manifest};

use crate::support::{demo_port, ok, read_jsonl, run, trawl};

fn demo(out: &std::path::Path, port: u16) -> String {
    ok(trawl()
        .args([
            "run",
            "--quiet",
            "--demo-port",
            &port.to_string(),
            "--output",
        ])
        .arg(out))
}

#[test]
fn demo_run_writes_shards_manifest_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = demo(dir.path(), demo_port());
    assert!(
        stdout.contains("shards/manifest.json") && stdout.contains("report/index.html"),
        "{stdout}"
    );
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.path().join("shards/manifest.json")).unwrap())
            .unwrap();
    assert!(m.documents >= 10, "{} documents", m.documents);
    let mut total = 0u64;
    for s in &m.shards {
        let docs = megatron::read(
            &std::fs::read(dir.path().join(&s.idx)).unwrap(),
            &std::fs::read(dir.path().join(&s.bin)).unwrap(),
        )
        .unwrap();
        assert_eq!(docs.len() as u64, s.documents);
        let n: u64 = docs.iter().map(|d| d.len() as u64).sum();
        assert_eq!(n, s.tokens, "shard {} token count", s.shard);
        for (d, md) in docs.iter().zip(&s.docs) {
            assert_eq!(d.len() as u64, md.tokens);
            assert_eq!(
                *d.last().unwrap(),
                m.tokenizer.eos,
                "documents end with EOS"
            );
        }
        total += n;
    }
    assert_eq!(total, m.tokens);
    // the pipeline did its job on the demo web
    let langs: std::collections::BTreeSet<String> = m
        .shards
        .iter()
        .flat_map(|s| s.languages.keys().cloned())
        .collect();
    for l in ["eng", "fra", "deu", "spa"] {
        assert!(langs.contains(l), "{l} missing from {langs:?}");
    }
    let report = std::fs::read_to_string(dir.path().join("report/index.html")).unwrap();
    for reason in [
        "robots_disallowed",
        "training_opt_out",
        "exact_duplicate",
        "http_status",
    ] {
        assert!(report.contains(reason), "report lacks {reason}");
    }
    assert!(!report.contains("<script"), "report must not carry scripts");
    // documents kept and dropped per page type, and training opt-outs by what opted out
    assert!(
        report.contains("class=\"page-types\"") && report.contains("kept share</th></tr><tr><td>"),
        "report lacks the page-type table"
    );
    // per language, documents its quality model scored and those that reached the filter
    // unscored (the demo configures no quality model: every English document is unscored)
    let scored = report
        .split("class=\"quality-scored\"")
        .nth(1)
        .expect("report lacks the quality-scored table");
    assert!(
        scored.contains("<tr><td>eng</td><td>0</td><td>")
            && !scored.contains("<tr><td>eng</td><td>0</td><td>0</td>"),
        "{}",
        &scored[..scored.len().min(600)]
    );
    assert!(
        report.contains("Training opt-outs"),
        "report lacks opt-outs by signal"
    );
    // page-level opt-outs (X-Robots-Tag noai, meta noindex) and the training token are dropped
    let opt_outs: u64 = std::fs::read_dir(dir.path().join("stats/filter"))
        .unwrap()
        .map(|e| {
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(e.unwrap().path()).unwrap()).unwrap();
            v["stages"]["consent"]["dropped"]["training_opt_out"]
                .as_u64()
                .unwrap_or(0)
        })
        .sum();
    assert_eq!(
        opt_outs, 3,
        "robots training token, X-Robots-Tag noai, meta noindex"
    );
    // consent travels into the manifest
    assert!(m
        .shards
        .iter()
        .flat_map(|s| &s.docs)
        .all(|d| d.consent.training_allowed == Some(true) && d.consent.fetch_time.is_some()));
    // a rerun finds everything done and changes nothing
    let before = crate::support::files(dir.path());
    demo(dir.path(), demo_port());
    let after = crate::support::files(dir.path());
    for (k, v) in &before {
        if !k.starts_with("report/") && k != "run.json" {
            assert_eq!(Some(v), after.get(k), "{k} changed on rerun");
        }
    }
}

#[test]
fn runs_get_ids_run_json_status_and_resume_under_storage_root() {
    let dir = tempfile::tempdir().unwrap();
    let demo = crate::support::demo_web();
    let (web, seeds) = (&demo.web, &demo.seeds);
    // a config file run without --output: the run root is <storage.root>/<run id>
    let web_cfg = dir.path().join("p.toml");
    let base = dir.path().join("runs");
    std::fs::write(&web_cfg, format!("[storage]\nroot = \"{}\"\n[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\n", base.display(), seeds)).unwrap();
    let dry = ok(trawl().args(["run", "--dry-run", "--config"]).arg(&web_cfg));
    assert!(
        dry.contains("stages: crawl -> extract -> filter -> dedup -> captions -> shards -> report"),
        "{dry}"
    );
    assert!(
        crate::support::files(dir.path())
            .keys()
            .all(|k| !k.starts_with("runs/")),
        "a dry run writes nothing"
    );
    ok(trawl()
        .args(["run", "--quiet", "--run-id", "nightly-1", "--config"])
        .arg(&web_cfg));
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join("nightly-1/run.json")).unwrap()).unwrap();
    assert_eq!(info["run_id"], "nightly-1");
    assert_eq!(info["status"], "complete");
    assert_eq!(info["attempts"], 1);
    assert!(info["config"].as_str().unwrap().contains("[crawl]"));
    let st = ok(trawl().arg("status").arg(base.join("nightly-1")));
    assert!(
        st.contains("status complete") && st.contains("extract") && st.contains("token shards"),
        "{st}"
    );
    // a tokenizer file that does not load is refused by the config check (exit 2, no run)
    let tok_cfg = dir.path().join("tok.toml");
    std::fs::write(&tok_cfg, format!("[storage]\nroot = \"{}\"\n[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\n[shards]\ntokenizer = \"{}\"\n", base.display(), seeds, dir.path().join("tok.json").display())).unwrap();
    std::fs::write(dir.path().join("tok.json"), "{ not a tokenizer").unwrap();
    let o = run(trawl().args(["run", "--quiet", "--config"]).arg(&tok_cfg));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("shards.tokenizer"));
    assert_eq!(
        std::fs::read_dir(&base).unwrap().count(),
        1,
        "no run started"
    );
    // a run that fails (a model that only fails when loaded) is recorded as failed, before
    // any request; the next run with the same config continues it
    let bad_cfg = dir.path().join("bad.toml");
    std::fs::write(&bad_cfg, format!("[storage]\nroot = \"{}\"\n[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\n[filter]\nlid_model = \"{}\"\n", base.display(), seeds, dir.path().join("lid.bin").display())).unwrap();
    std::fs::write(dir.path().join("lid.bin"), "not a fastText model").unwrap();
    let requests = web.requests().len();
    let o = run(trawl().args(["run", "--quiet", "--config"]).arg(&bad_cfg));
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs: Vec<String> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "nightly-1")
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let failed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join(&runs[0]).join("run.json")).unwrap())
            .unwrap();
    assert_eq!(failed["status"], "failed");
    assert!(failed["error"]
        .as_str()
        .unwrap()
        .contains("filter.lid_model"));
    assert_eq!(
        web.requests().len(),
        requests,
        "failed before the first request"
    );
    let _ = run(trawl().args(["run", "--quiet", "--config"]).arg(&bad_cfg));
    let again: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join(&runs[0]).join("run.json")).unwrap())
            .unwrap();
    assert_eq!(
        again["attempts"], 2,
        "the unfinished run with this config is continued, not a new one"
    );
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 2);
    drop(demo);
}

#[test]
fn stage_rerun_after_config_change() {
    let dir = tempfile::tempdir().unwrap();
    demo(dir.path(), demo_port());
    let cfg = dir.path().join("strict.toml");
    std::fs::write(&cfg, "[filter]\nmin_words = 120\nlanguages = [\"eng\"]\n").unwrap();
    let out2 = dir.path().join("rerun");
    let s = ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert!(s.contains("shards written"), "{s}");
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out2.join("stats/filter/00000.json")).unwrap())
            .unwrap();
    assert!(stats["stages"]["language"].is_object());
    // second time: everything already done
    let s = ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert!(s.contains("0 shards written"), "{s}");
    let dry = ok(trawl()
        .args(["filter", "--dry-run", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert!(dry.contains("done") && !dry.contains("to do"), "{dry}");
    // a changed [filter] section invalidates the filter's markers: no --force needed
    let kept = |out: &std::path::Path| -> usize {
        std::fs::read_dir(out.join("filter"))
            .unwrap()
            .map(|e| read_jsonl(&e.unwrap().path()).len())
            .sum()
    };
    let before = kept(&out2);
    std::fs::write(&cfg, "[filter]\nmin_words = 400\nlanguages = [\"eng\"]\n").unwrap();
    let dry = ok(trawl()
        .args(["filter", "--dry-run", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert!(dry.contains("to do") && !dry.contains(" done "), "{dry}");
    let s = ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert!(!s.contains("0 shards written"), "{s}");
    assert!(
        kept(&out2) < before,
        "the stricter config keeps fewer documents ({} vs {before})",
        kept(&out2)
    );
    std::fs::write(&cfg, "[filter]\nmin_words = 120\nlanguages = [\"eng\"]\n").unwrap();
    ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&out2));
    assert_eq!(
        kept(&out2),
        before,
        "back to the first config, back to its output"
    );
    // --annotate-only keeps everything, and the documents with no would-be drop reason are
    // exactly those the filter keeps
    let ann = dir.path().join("annotated");
    ok(trawl()
        .args(["filter", "--quiet", "--annotate-only", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(dir.path().join("extract"))
        .arg("--output")
        .arg(&ann));
    let docs: Vec<serde_json::Value> = std::fs::read_dir(ann.join("filter"))
        .unwrap()
        .flat_map(|e| read_jsonl(&e.unwrap().path()))
        .collect();
    let extracted: usize = std::fs::read_dir(dir.path().join("extract"))
        .unwrap()
        .map(|e| read_jsonl(&e.unwrap().path()).len())
        .sum();
    assert_eq!(docs.len(), extracted);
    let clean = docs
        .iter()
        .filter(|d| d["attrs"].get("would_drop").is_none())
        .count();
    assert_eq!(clean, before);
    assert!(docs.iter().any(|d| d["attrs"]["would_drop"]
        .as_array()
        .is_some_and(|a| !a.is_empty())));
    // and the other stages run alone too
    ok(trawl()
        .args(["dedup", "--quiet", "--input"])
        .arg(out2.join("filter"))
        .arg("--output")
        .arg(&out2));
    let s = ok(trawl()
        .args(["shards", "--quiet", "--input"])
        .arg(out2.join("dedup"))
        .arg("--output")
        .arg(&out2));
    assert!(s.contains("manifest"), "{s}");
    ok(trawl()
        .args(["captions", "--quiet", "--input"])
        .arg(out2.join("dedup"))
        .arg("--output")
        .arg(&out2));
    let s = ok(trawl().args(["report", "--quiet"]).arg(&out2));
    assert!(s.contains("index.html"));
    // --shard partitions inputs deterministically
    let out3 = dir.path().join("sharded");
    for i in 0..2 {
        ok(trawl()
            .args(["filter", "--quiet", "--shard", &format!("{i}/2"), "--input"])
            .arg(dir.path().join("extract"))
            .arg("--output")
            .arg(&out3));
    }
    let n_in = std::fs::read_dir(dir.path().join("extract"))
        .unwrap()
        .count();
    assert_eq!(
        std::fs::read_dir(out3.join("filter")).unwrap().count(),
        n_in
    );
}

#[test]
fn extract_prints_text_of_a_file_and_reads_html_folders() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<html><body><nav>Menu</nav><article><h1>Title</h1><p>Some real text here.</p></article></body></html>").unwrap();
    let s = ok(trawl()
        .args(["extract", "--format", "text", "--input"])
        .arg(&page));
    assert_eq!(s.trim(), "# Title\n\nSome real text here.");
    let gz = dir.path().join("b.html.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(format!("<p>{}</p>", "word ".repeat(100)).as_bytes())
        .unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let out = dir.path().join("out");
    ok(trawl()
        .args(["extract", "--quiet", "--input"])
        .arg(dir.path())
        .arg("--output")
        .arg(&out));
    let docs = read_jsonl(&out.join("extract/00000.jsonl.zst"));
    assert_eq!(
        docs.len(),
        1,
        "the short page is dropped, the gzipped one kept"
    );
    assert!(docs[0]["url"].as_str().unwrap().starts_with("file://"));
}

#[test]
fn extract_txt_writes_a_file_per_page_and_keeps_stderr_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir_all(pages.join("sub")).unwrap();
    std::fs::write(
        pages.join("a.html"),
        "<html><body><nav>Menu</nav><article><h1>Harbour</h1><p>The ferry leaves at noon.</p></article></body></html>",
    )
    .unwrap();
    // a page with no text at all still gets its (empty) file: the scorer counts it
    std::fs::write(pages.join("sub/b.html"), "<html><body></body></html>").unwrap();
    let out = dir.path().join("out");
    let o = run(trawl()
        .args(["--quiet", "extract", "--format", "txt", "--input"])
        .arg(&pages)
        .arg("--output")
        .arg(&out));
    assert!(o.status.success(), "{o:?}");
    // the speed line is the command's result: stdout; under --quiet stderr holds only
    // warnings and errors, and there are none
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.starts_with("trawl extract: 2 pages") && stdout.contains("pages/s"),
        "{stdout}"
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("a.txt")).unwrap().trim(),
        "# Harbour\n\nThe ferry leaves at noon."
    );
    assert_eq!(std::fs::read_to_string(out.join("sub/b.txt")).unwrap(), "");
}

#[test]
fn foreign_jsonl_documents_keep_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let text = "The library has extended its opening hours on weekday evenings after a survey showed that many students and working adults could not visit during the day. It will also lend laptops and portable internet devices to people who do not have them at home, a service that proved popular during a trial last autumn.";
    std::fs::write(
        input.join("part.jsonl"),
        format!("{{\"id\":\"dt-1\",\"text\":\"{text}\",\"metadata\":{{\"source\":\"cc\"}}}}\n{{\"id\":7,\"text\":\"{text} Again.\"}}\nnot json\n"),
    )
    .unwrap();
    let out = dir.path().join("out");
    // one line in three is broken: over the default run.max_error_share, so say so
    let cfg = dir.path().join("loose.toml");
    std::fs::write(&cfg, "[run]\nmax_error_share = 0.5\n").unwrap();
    ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&input)
        .arg("--output")
        .arg(&out));
    let docs = read_jsonl(&out.join("filter/00000.jsonl.zst"));
    let ids: Vec<&str> = docs.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["dt-1", "7"]);
    assert_eq!(
        docs[0]["metadata"]["source"], "cc",
        "unknown fields survive"
    );
    assert_eq!(docs[0]["meta"]["lang"], "eng");
}

#[test]
fn config_errors_name_file_key_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[crawl]\nmax_pagse = 10\n").unwrap();
    let o = run(trawl().args(["config", "check"]).arg(&bad));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("crawl.max_pagse"),
        "{err}"
    );
    let o = run(trawl().args(["run", "--config"]).arg(&bad));
    assert_eq!(o.status.code(), Some(2));
    let o = run(trawl().args(["filter", "--shard", "3/2", "--input", "x"]));
    assert_eq!(o.status.code(), Some(2), "bad --shard is a usage error");
    let o = run(trawl()
        .args(["filter", "--input"])
        .arg(dir.path().join("missing")));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // the printed default is valid and complete
    let def = ok(trawl().args(["config", "default"]));
    let f = dir.path().join("default.toml");
    std::fs::write(&f, def).unwrap();
    ok(trawl().args(["config", "check"]).arg(&f));
}

#[test]
fn every_subcommand_explains_its_flags() {
    for sub in [
        "run", "crawl", "extract", "filter", "dedup", "captions", "shards", "report", "config",
    ] {
        let s = ok(trawl().args([sub, "--help"]));
        assert!(s.len() > 200, "{sub} --help too short:\n{s}");
        if sub != "config" && sub != "report" && sub != "run" {
            for flag in ["--input", "--output", "--config", "--shard"] {
                assert!(s.contains(flag), "{sub} --help lacks {flag}");
            }
        }
    }
}

#[test]
fn a_later_batch_continues_the_frontier_and_status_exports_prometheus() {
    let dir = tempfile::tempdir().unwrap();
    let demo = crate::support::demo_web();
    let seeds = &demo.seeds;
    let cfg = |extra: &str, name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\nmax_pages = 6\n{extra}", seeds)).unwrap();
        p
    };
    let (a, b) = (dir.path().join("night1"), dir.path().join("night2"));
    ok(trawl()
        .args(["--threads", "1", "crawl", "--quiet", "--config"])
        .arg(cfg("", "a.toml"))
        .arg("--output")
        .arg(&a));
    ok(trawl()
        .args(["crawl", "--quiet", "--config"])
        .arg(cfg(
            &format!("continue_from = \"{}\"\n", a.display()),
            "b.toml",
        ))
        .arg("--output")
        .arg(&b));
    let urls = |r: &std::path::Path| -> std::collections::BTreeSet<String> {
        let mut s = std::collections::BTreeSet::new();
        for e in std::fs::read_dir(r.join("crawl/warc")).unwrap() {
            let p = e.unwrap().path();
            let (pages, _) =
                trawl_storage::warc::read_pages("x.warc.gz", &std::fs::read(&p).unwrap());
            s.extend(pages.into_iter().map(|p| p.url));
        }
        s
    };
    let (ua, ub) = (urls(&a), urls(&b));
    assert_eq!(ua.len(), 6);
    assert!(
        ub.difference(&ua).count() >= 4,
        "the second night reaches pages the first left for lack of budget: {ub:?}"
    );
    // Prometheus text for the textfile collector
    let prom = ok(trawl().args(["status", "--prometheus"]).arg(&a));
    assert!(prom.contains("# TYPE trawl_records_seen_total counter"));
    assert!(prom.contains("trawl_records_dropped_total{run=\"\",stage=\"crawl\",step=\"crawl\",reason=\"budget_exhausted\"}"), "{prom}");
    drop(demo);
}

#[test]
fn train_quality_then_filter_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let labelled = dir.path().join("labelled.jsonl");
    let subjects = [
        "The council",
        "A small bookshop",
        "Scientists",
        "The harbour town",
        "Engineers",
        "Farmers",
        "The library",
        "Volunteers",
    ];
    let objects = [
        "plant trees along the avenues",
        "replace the old pipes",
        "count the wading birds",
        "open the market earlier",
        "lend laptops to students",
    ];
    let nav = [
        "Click here to subscribe to our newsletter",
        "Share this article with your friends",
        "Log in to your account",
        "Accept all cookies",
        "Read our privacy policy",
        "Terms of use",
        "Sign up for free",
        "Follow us on social media",
        "Back to the top of the page",
        "Contact the editors",
        "Skip to the main content",
        "Manage your settings",
    ];
    let mut lines = String::new();
    for (i, s) in subjects.iter().enumerate() {
        for (j, o) in objects.iter().enumerate() {
            for k in 0..4 {
                let text = format!("{s} decided to {o}, officials said on day {k}. The work will take {} years and residents were told in advance by letter.", i + j + 1);
                lines.push_str(&format!(
                    "{}\n",
                    serde_json::json!({"text": text, "label": "hq"})
                ));
                let junk: Vec<&str> = (0..7)
                    .map(|x| nav[(i * 5 + j * 3 + k + x * 7) % nav.len()])
                    .collect();
                lines.push_str(&format!(
                    "{}\n",
                    serde_json::json!({"text": junk.join(" | "), "label": "lq"})
                ));
            }
        }
    }
    std::fs::write(&labelled, lines).unwrap();
    let model = dir.path().join("quality-eng.bin");
    let out = ok(trawl()
        .args([
            "filter",
            "train-quality",
            "--lang",
            "eng",
            "--epochs",
            "20",
            "--input",
        ])
        .arg(&labelled)
        .arg("--output")
        .arg(&model));
    assert!(out.contains("AUC") && out.contains("models.eng"), "{out}");
    let auc: f64 = out
        .split("AUC ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!(auc > 0.9, "{out}");
    // the model in the pipeline: scores in attrs.quality.eng, low scores dropped
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let good = "The library decided to open the market earlier, officials said on Monday. The work will take two years and residents were told in advance by letter. ".repeat(3);
    let bad = "Click here to subscribe to our newsletter | Accept all cookies | Log in to your account | Read our privacy policy | Sign up for free | Follow us on social media | Skip to the main content | Manage your settings | ".repeat(2);
    std::fs::write(
        input.join("docs.jsonl"),
        format!(
            "{}\n{}\n",
            serde_json::json!({"id": "good", "text": good}),
            serde_json::json!({"id": "bad", "text": bad})
        ),
    )
    .unwrap();
    let cfg = dir.path().join("q.toml");
    std::fs::write(&cfg, format!("[filter]\nmin_words = 10\n[filter.heuristics]\nenabled = false\n[filter.quality.models]\neng = \"{}\"\n[filter.quality.thresholds]\neng = 0.5\n", model.display())).unwrap();
    let root = dir.path().join("out");
    ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&input)
        .arg("--output")
        .arg(&root));
    let kept = read_jsonl(&root.join("filter/00000.jsonl.zst"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0]["id"], "good");
    assert!(kept[0]["attrs"]["quality"]["eng"].as_f64().unwrap() > 0.5);
    let excluded = read_jsonl(&root.join("excluded/filter/00000.jsonl.zst"));
    assert!(
        excluded.iter().any(|e| e["reason"] == "quality_low"),
        "{excluded:?}"
    );
    // the report charts the scores of the language with its threshold
    ok(trawl().args(["report", "--config"]).arg(&cfg).arg(&root));
    let html = std::fs::read_to_string(root.join("report/index.html")).unwrap();
    assert!(
        html.contains("quality.eng [eng]"),
        "a quality histogram for eng"
    );
    assert!(html.contains("threshold 0.5"), "the threshold is drawn");
}
