//! Hostile and broken input through the binary (issue 18): nothing stops or corrupts a run,
//! and everything that cannot be used is counted and kept for review.

use std::io::Write;

use crate::support::{ok, read_jsonl, run, trawl};

fn marker_stats(out: &std::path::Path, stage: &str, shard: &str) -> serde_json::Value {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(format!("_done/{stage}/{shard}"))).unwrap())
            .unwrap();
    m["stats"].clone()
}

/// Web text with the whitespace that broke language ID's sample (U+00A0 after a sentence,
/// U+3000 between CJK sentences), long enough to be sampled in three windows.
fn unicode_space_paragraphs() -> Vec<String> {
    let en = "The committee met on Tuesday\u{a0}morning to discuss the new budget, the library's\u{a0}opening hours and the plans for a second bus line to the harbour.";
    let ja = "委員会は火曜日の朝に新しい予算について話し合いました。\u{3000}図書館の開館時間も議題になりました。\u{3000}";
    let zh = "委员会周二上午开会讨论了新的预算。\u{3000}图书馆的开放时间也在议程上。\u{3000}";
    vec![
        [en; 12].join("\u{a0}"),
        ja.repeat(30),
        zh.repeat(30),
        format!("{}\u{2028}{}\u{2029}{}", en, ja.repeat(10), en.repeat(6)),
    ]
}

#[test]
fn unicode_whitespace_paragraphs_pass_the_filter_stage() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let mut f = std::fs::File::create(input.join("docs.jsonl")).unwrap();
    let paras = unicode_space_paragraphs();
    for (i, t) in paras.iter().enumerate() {
        writeln!(
            f,
            "{}",
            serde_json::json!({"id": format!("d{i}"), "text": t})
        )
        .unwrap();
    }
    drop(f);
    let out = dir.path().join("out");
    ok(trawl()
        .args(["filter", "--quiet", "--annotate-only", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out));
    let docs = read_jsonl(&out.join("filter/00000.jsonl.zst"));
    assert_eq!(docs.len(), paras.len(), "every document annotated and kept");
    let langs: Vec<&str> = docs
        .iter()
        .map(|d| d["meta"]["lang"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(&langs[..3], ["eng", "jpn", "cmn"], "{langs:?}");
    let st = marker_stats(&out, "filter", "00000");
    let errors: u64 = st["stages"]
        .as_object()
        .unwrap()
        .values()
        .map(|s| s["errors"].as_object().map_or(0, |e| e.len() as u64))
        .sum();
    assert_eq!(errors, 0, "no record errors: {st}");
}

#[test]
fn malformed_input_lines_are_counted_in_stats_status_and_excluded() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let good = "The library has extended its opening hours on weekday evenings after a survey showed that many students and working adults could not visit during the day.";
    // a: BOM before line 1 (accepted), then one line of each malformed kind
    let mut a = b"\xEF\xBB\xBF".to_vec();
    a.extend(
        serde_json::json!({"id": "ok-1", "text": good})
            .to_string()
            .as_bytes(),
    );
    a.extend(b"\nnot json at all\n{\"id\":\"no-text\"}\n{\"id\":\"bad\",\"text\":\"\xff\xfe\"}\n");
    a.extend(
        serde_json::json!({"id": "ok-2", "text": good})
            .to_string()
            .as_bytes(),
    );
    a.push(b'\n');
    std::fs::write(input.join("a.jsonl"), &a).unwrap();
    // b: a zstd stream cut in half
    let mut w = trawl_storage::jsonl::JsonlWriter::for_name("b.jsonl.zst");
    for i in 0..2000 {
        w.write(&serde_json::json!({"id": format!("z{i}"), "text": format!("{good} {i}")}));
    }
    let z = w.finish();
    std::fs::write(input.join("b.jsonl.zst"), &z[..z.len() / 2]).unwrap();
    let out = dir.path().join("out");
    // 4 record errors among ~1,000 records read: under the default bound of 5%
    ok(trawl()
        .args(["filter", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out));
    let read = &marker_stats(&out, "filter", "00000")["stages"]["read"];
    assert_eq!(read["seen"], 5, "{read}");
    assert_eq!(read["kept"], 2, "{read}");
    for kind in ["malformed_json", "missing_text", "invalid_utf8"] {
        assert_eq!(read["errors"][kind], 1, "{kind}: {read}");
    }
    let read_b = &marker_stats(&out, "filter", "00001")["stages"]["read"];
    assert_eq!(read_b["errors"]["truncated_stream"], 1, "{read_b}");
    assert!(
        read_b["kept"].as_u64().unwrap() > 0,
        "records before the cut are read"
    );
    let ex = read_jsonl(&out.join("excluded/filter/00000.jsonl.zst"));
    let bad: Vec<&serde_json::Value> = ex.iter().filter(|e| e["stage"] == "read").collect();
    assert_eq!(bad.len(), 3);
    assert!(bad.iter().all(|e| e["reason"] == "record_error"
        && e["doc"]["meta"]["source"]
            .as_str()
            .unwrap()
            .starts_with("a.jsonl@")));
    assert!(bad[0]["error"]
        .as_str()
        .unwrap()
        .starts_with("malformed_json"));
    assert_eq!(bad[0]["doc"]["text"], "not json at all");
    let status = ok(trawl().args(["status"]).arg(&out));
    let filter_row = status
        .lines()
        .find(|l| l.starts_with("filter"))
        .unwrap_or_else(|| panic!("{status}"));
    let cols: Vec<&str> = filter_row.split_whitespace().collect();
    assert_eq!(cols.last(), Some(&"4"), "errors column: {status}");
}

#[test]
fn deeply_nested_pages_are_dropped_as_too_deep_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pages");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(
        input.join("divs.html"),
        format!("<html><body>{}deep</body></html>", "<div>".repeat(100_000)),
    )
    .unwrap();
    std::fs::write(
        input.join("lists.html"),
        format!(
            "<html><body>{}deep</body></html>",
            "<ul><li>".repeat(80_000)
        ),
    )
    .unwrap();
    let para = "<p>A paragraph of ordinary text that is long enough to be the main content of this small page, with a second sentence.</p>";
    std::fs::write(
        input.join("ok.html"),
        format!(
            "<html><body><article>{}</article></body></html>",
            para.repeat(4)
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let t = std::time::Instant::now();
    ok(trawl()
        .args(["extract", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out));
    // a correctness bound, not a benchmark: the quadratic parse took minutes on these pages
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
    let st = &marker_stats(&out, "extract", "00000")["stages"]["extract"];
    assert_eq!(st["dropped"]["too_deep"], 2, "{st}");
    assert_eq!(st["kept"], 1, "{st}");
}

#[test]
fn a_damaged_warc_record_costs_only_itself_and_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("warc");
    std::fs::create_dir_all(&input).unwrap();
    let para = "<p>A paragraph of ordinary text that is long enough to be the main content of this small page, with a second sentence.</p>";
    let mut w = trawl_storage::warc::WarcWriter::new("a.warc.gz", "test", "2026-01-01T00:00:00Z");
    for i in 0..5 {
        let mut p = trawl_core::FetchedPage {
            url: format!("http://a.test/{i}"),
            final_url: format!("http://a.test/{i}"),
            status: 200,
            headers: vec![("content-type".into(), "text/html".into())],
            body: format!(
                "<html><body><article><h1>Page {i}</h1>{}</article></body></html>",
                para.repeat(3)
            )
            .into_bytes(),
            ..Default::default()
        };
        w.write_page(&mut p, &[]);
    }
    let bytes = w.finish();
    let (records, _) = trawl_storage::warc::read_records_resync(&bytes, 1 << 26);
    let i = records
        .iter()
        .position(|r| {
            r.header("WARC-Target-URI") == Some("http://a.test/2")
                && r.header("WARC-Type") == Some("response")
        })
        .unwrap();
    let (a, b) = (records[i].offset as usize, records[i + 1].offset as usize);
    let mut bad = bytes.clone();
    for x in &mut bad[a + 20..b - 10] {
        *x ^= 0x5a;
    }
    std::fs::write(input.join("a.warc.gz"), &bad).unwrap();
    let out = dir.path().join("out");
    // 1 damaged record among the 6 read is over run.max_error_share (5%): everything is
    // committed, then the command fails and says why
    let o = trawl()
        .args(["extract", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("run.max_error_share") && err.contains("warc_damaged 1"),
        "{err}"
    );
    // with a looser bound the same run succeeds
    let cfg = dir.path().join("loose.toml");
    std::fs::write(&cfg, "[run]\nmax_error_share = 0.5\n").unwrap();
    ok(trawl()
        .args(["extract", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&input)
        .arg("--output")
        .arg(&out));
    let st = marker_stats(&out, "extract", "00000");
    assert_eq!(st["stages"]["extract"]["kept"], 4, "{st}");
    let read = &st["stages"]["read"];
    assert_eq!(read["errors"]["warc_damaged"], 1, "{read}");
    assert_eq!(read["counters"]["bytes_skipped"], (b - a) as u64, "{read}");
    let ex = read_jsonl(&out.join("excluded/extract/00000.jsonl.zst"));
    assert!(
        ex.iter().any(|e| e["stage"] == "read"
            && e["doc"]["meta"]["source"] == format!("a.warc.gz@{a}").as_str()),
        "{ex:?}"
    );
    // `trawl run` over WARC parts already under crawl/warc/ counts the same damage, and the
    // error share fails the run after everything is committed (run.json says why)
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("crawl/warc")).unwrap();
    std::fs::write(root.join("crawl/warc/00000.warc.gz"), &bad).unwrap();
    let run_cfg = dir.path().join("replay.toml");
    std::fs::write(
        &run_cfg,
        "[crawl]\nenabled = false\n[captions]\nenabled = false\n",
    )
    .unwrap();
    let o = trawl()
        .args(["run", "--quiet", "--config"])
        .arg(&run_cfg)
        .arg("--output")
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("warc_damaged 1"),
        "{o:?}"
    );
    let st = marker_stats(&root, "extract", "00000");
    assert_eq!(st["stages"]["read"]["errors"]["warc_damaged"], 1, "{st}");
    assert_eq!(st["stages"]["extract"]["kept"], 4, "{st}");
    let status = ok(trawl().arg("status").arg(&root));
    assert!(status.contains("status failed"), "{status}");
    // the report shows the read step and its error kind
    let html = std::fs::read_to_string(root.join("report/index.html")).unwrap();
    assert!(
        html.contains("warc_damaged"),
        "the report names the error kind"
    );
}

#[test]
fn inputs_overlapping_the_output_and_bad_array_shards_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let text = "The library has extended its opening hours on weekday evenings after a survey showed that many students and working adults could not visit during the day.";
    std::fs::write(
        input.join("a.jsonl"),
        format!("{}\n", serde_json::json!({"id": "1", "text": text})),
    )
    .unwrap();
    let root = dir.path().join("root");
    ok(trawl()
        .args(["filter", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&root));
    let before = crate::support::files(&root);
    let refused = |args: &[&str], input: &std::path::Path, env: &[(&str, &str)]| {
        let mut c = trawl();
        c.args(args)
            .arg("--input")
            .arg(input)
            .arg("--output")
            .arg(&root);
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?} {env:?}: {o:?}");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // the run root as input: excluded records would be read as documents
    let e = refused(&["dedup", "--quiet"], &root, &[]);
    assert!(e.contains("run root") && e.contains("excluded/"), "{e}");
    // the stage's own output folder: it would overwrite what it reads
    let e = refused(&["filter", "--quiet"], &root.join("filter"), &[]);
    assert!(e.contains("own output folder"), "{e}");
    // a 1-based Slurm array without SLURM_ARRAY_TASK_MIN, and an empty one
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "3"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
    ];
    let e = refused(&["filter", "--quiet", "--force"], &input, &slurm);
    assert!(e.contains("numbered from 0"), "{e}");
    let zero = [
        ("SLURM_ARRAY_TASK_ID", "0"),
        ("SLURM_ARRAY_TASK_COUNT", "0"),
    ];
    refused(&["filter", "--quiet", "--force"], &input, &zero);
    assert_eq!(crate::support::files(&root), before, "nothing written");
    // with SLURM_ARRAY_TASK_MIN the 1-based array is shard 2 of 3 and runs
    ok(trawl()
        .args(["filter", "--quiet", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(dir.path().join("r2"))
        .envs([
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ]));
}

#[test]
fn dry_run_sends_no_request_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // a server that would see any request of the crawl
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let seed = format!("http://{}/", listener.local_addr().unwrap());
    let seeds = dir.path().join("seeds.txt");
    std::fs::write(&seeds, format!("{seed}\n")).unwrap();
    let html = dir.path().join("pages");
    std::fs::create_dir_all(&html).unwrap();
    std::fs::write(
        html.join("a.html"),
        "<html><body><p>Some text.</p></body></html>",
    )
    .unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("a.jsonl"),
        format!(
            "{}\n",
            serde_json::json!({"id": "1", "text": "Some text of a document."})
        ),
    )
    .unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let cases: Vec<(Vec<&str>, &std::path::Path)> = vec![
        (vec!["crawl"], &seeds),
        (vec!["extract"], &html),
        (vec!["filter"], &docs),
        (vec!["dedup"], &docs),
        (vec!["captions"], &docs),
        (vec!["shards"], &docs),
        (vec!["dedup", "signatures"], &docs),
    ];
    for (cmd, input) in cases {
        let out = ok(trawl()
            .args(&cmd)
            .args(["--quiet", "--dry-run", "--input"])
            .arg(input)
            .arg("--output")
            .arg(&root));
        assert!(out.contains("dry run"), "{cmd:?}: {out}");
        let written = crate::support::files(&root);
        assert!(written.is_empty(), "{cmd:?} wrote {:?}", written.keys());
    }
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the crawl's dry run connected to the seed"
    );
}

/// The same hostile pages served by a web and taken through `trawl run`: Unicode-space
/// paragraphs pass the filter without a record error, 100k nested elements are dropped as
/// `too_deep` by extraction and cost the crawler's link extraction nothing, an image served
/// as `text/html` is `not_html`, and terminal escapes never reach a document.
#[test]
fn hostile_pages_through_trawl_run() {
    use trawl_testweb::{Response, Site, TestWeb};
    let paras = unicode_space_paragraphs();
    let page = |body: &str| {
        format!("<html><head><title>t</title></head><body><article>{body}</article></body></html>")
    };
    let png = [
        &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10"[..],
        &[0u8; 2000][..],
    ]
    .concat();
    let mut site = Site::new("hostile")
        .route(
            "/",
            Response::html(page(
                "<p>Index of pages.</p><a href=\"/p0\">a</a><a href=\"/p1\">b</a><a href=\"/p2\">c</a><a href=\"/deep\">d</a><a href=\"/picture\">e</a><a href=\"/escapes\">f</a>",
            )),
        )
        .route(
            "/deep",
            Response::html(format!(
                "<html><body>{}<a href=\"/never\">hidden link</a></body></html>",
                "<div>".repeat(100_000)
            )),
        )
        .route("/never", Response::html(page("<p>never linked from a parsed page</p>")))
        .route("/picture", Response::with_type(200, "text/html", png))
        .route(
            "/escapes",
            Response::html(page(&format!(
                "<p>\u{1b}[2J\u{1b}]0;pwned\u{7}{}\u{9b}31m</p>",
                paras[0]
            ))),
        );
    for (i, t) in paras.iter().take(3).enumerate() {
        site = site.route(
            &format!("/p{i}"),
            Response::html(page(&format!("<p>{t}</p>"))),
        );
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt.block_on(TestWeb::start(vec![site])).unwrap();
    let seed = web.base_url("hostile").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("p.toml");
    std::fs::write(
        &cfg,
        format!("[crawl]\nseeds = [\"{seed}/\"]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\n[captions]\nenabled = false\n"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let t = std::time::Instant::now();
    ok(trawl()
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&out));
    // a correctness bound, not a benchmark: the quadratic parse took minutes
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
    let requested: Vec<String> = web.requests().into_iter().map(|(_, p)| p).collect();
    assert!(
        !requested.iter().any(|p| p == "/never"),
        "no links followed from the deep page"
    );
    let ex = marker_stats(&out, "extract", "00000");
    let st = &ex["stages"]["extract"];
    assert_eq!(st["dropped"]["too_deep"], 1, "{st}");
    assert_eq!(st["dropped"]["not_html"], 1, "{st}");
    let fi = marker_stats(&out, "filter", "00000");
    for (name, s) in fi["stages"].as_object().unwrap() {
        assert!(
            s["errors"].as_object().is_none_or(|e| e.is_empty()),
            "{name}: {s}"
        );
    }
    let extracted = read_jsonl(&out.join("extract/00000.jsonl.zst"));
    let texts: Vec<&str> = extracted
        .iter()
        .map(|d| d["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("committee met on Tuesday")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .all(|t| !t.chars().any(|c| c.is_control() && c != '\n' && c != '\t')),
        "no control characters in documents"
    );
    // the English page with U+00A0 goes through the whole filter chain: identified as
    // English and decided on (its repeated sentence may be removed as repetitive), never a
    // record error
    let mut seen = read_jsonl(&out.join("filter/00000.jsonl.zst"));
    for e in read_jsonl(&out.join("excluded/filter/00000.jsonl.zst")) {
        assert_ne!(e["reason"], "record_error", "{e}");
        seen.push(e["doc"].clone());
    }
    assert!(
        seen.iter().any(
            |d| d["meta"]["lang"] == "eng" && d["text"].as_str().unwrap().contains("committee")
        ),
        "{seen:?}"
    );
}

/// A model or list the config names that exists but cannot be loaded stops the command
/// with exit 2 naming the key, instead of a run that silently filters without it.
#[test]
fn an_unloadable_model_stops_the_filter_naming_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(
        input.join("d.jsonl"),
        "{\"id\":\"a\",\"text\":\"hello there\"}\n",
    )
    .unwrap();
    let model = dir.path().join("lid.bin");
    std::fs::write(&model, b"not a fastText model").unwrap();
    let cfg = dir.path().join("p.toml");
    std::fs::write(
        &cfg,
        format!("[filter]\nlid_model = \"{}\"\n", model.display()),
    )
    .unwrap();
    let o = trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--input")
        .arg(&input)
        .arg("--output")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("filter.lid_model"), "{err}");
    assert!(
        !dir.path().join("out/_done/filter").exists(),
        "nothing committed"
    );
}

/// `trawl status` tells a live run from a dead one, and a second `trawl run` on a root whose
/// run is alive is refused instead of interleaving with it.
#[test]
fn status_after_a_kill_is_interrupted_and_a_live_run_is_not_joined() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let port = crate::support::demo_port();
    let mut child = trawl()
        .args([
            "run",
            "--quiet",
            "--demo-delay-ms",
            "200",
            "--demo-port",
            &port.to_string(),
            "--output",
        ])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // wait until the run has started
    let t = std::time::Instant::now();
    while !out.join("run.json").exists() && t.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = ok(trawl().arg("status").arg(&out));
    assert!(status.contains("status running"), "{status}");
    let second = trawl()
        .args([
            "run",
            "--quiet",
            "--demo-port",
            &crate::support::demo_port().to_string(),
            "--output",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2), "{second:?}");
    assert!(String::from_utf8_lossy(&second.stderr).contains("is running there"));
    child.kill().unwrap();
    child.wait().unwrap();
    let status = ok(trawl().arg("status").arg(&out));
    assert!(
        status.contains("status interrupted") && status.contains("is gone"),
        "{status}"
    );
}

/// Small things a careless user meets: a mistyped run root is an error (nothing created),
/// output piped into `head` ends quietly, and text from pages cannot drive the terminal.
#[test]
fn mistyped_roots_closed_pipes_and_terminal_escapes() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["report", "status", "sample"] {
        let missing = dir.path().join(format!("no-such-run-{cmd}"));
        let mut c = trawl();
        c.arg(cmd).arg(&missing);
        if cmd == "sample" {
            c.args(["--reason", "kept"]);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd}: {o:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("no such folder"),
            "{cmd}: {o:?}"
        );
        assert!(!missing.exists(), "{cmd} created the folder");
    }
    // an existing folder that holds no run
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    let o = trawl()
        .arg("status")
        .arg(dir.path().join("empty"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no trawl run there"));

    // documents from another tool with escape sequences, filtered, then sampled
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let para = "The river rises in the hills and runs through three towns before it reaches the sea, where the old harbour still stands. ";
    let mut lines = String::new();
    for i in 0..400 {
        let doc = serde_json::json!({
            "id": format!("d{i}"),
            "url": format!("https://h.example/\u{1b}]0;title\u{7}{i}"),
            "text": format!("\u{1b}[2J\u{1b}[31m{}\u{9b}0m", para.repeat(3)),
        });
        lines.push_str(&format!("{doc}\n"));
    }
    std::fs::write(input.join("docs.jsonl"), lines).unwrap();
    let out = dir.path().join("out");
    ok(trawl()
        .args(["filter", "--quiet", "--annotate-only", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out));
    let o = trawl()
        .arg("sample")
        .arg(&out)
        .args(["--reason", "kept", "-n", "400"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(
        !o.stdout.iter().any(|b| *b == 0x1b || *b == 0x07),
        "raw escapes printed"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("\\u{1b}[31m"));
    // the reader of the pipe goes away after one line: no panic, SIGPIPE's status
    let mut child = trawl()
        .arg("sample")
        .arg(&out)
        .args(["--reason", "kept", "-n", "400"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panic"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
}

/// `--quiet` leaves only warnings and errors on stderr, the browser driver's lines included:
/// a run that renders every page in Chromium writes nothing there.
#[test]
fn quiet_runs_with_a_browser_write_nothing_to_stderr() {
    let Some(chromium) = crate::support::chromium() else {
        return;
    };
    let port = crate::support::demo_port();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("p.toml");
    std::fs::write(
        &cfg,
        format!(
            "[crawl]\nseeds = [\"http://127.0.0.2:{port}/\"]\ndelay_ms = 0\nallow_private_addresses = true\nmax_pages = 4\n[render]\nmode = \"always\"\nchromium = \"{}\"\n",
            chromium.display()
        ),
    )
    .unwrap();
    // the demo web, served by the demo itself: a config without seeds is the demo only, so
    // serve it from a second process
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt
        .block_on(trawl_testweb::TestWeb::start_on(
            trawl_testweb::demo::sites(),
            port,
            std::time::Duration::ZERO,
        ))
        .unwrap();
    // the default filter (the tests' TRAWL_LOG=warn would replace it)
    let o = trawl()
        .env_remove("TRAWL_LOG")
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.trim().is_empty(), "stderr under --quiet: {err}");
    let st = marker_stats(&dir.path().join("out"), "crawl", "00000");
    assert!(
        st["stages"]["crawl"]["counters"]["render_rendered"]
            .as_u64()
            .unwrap_or(0)
            > 0,
        "pages were rendered: {st}"
    );
    drop(web);
}

/// A committed crawl part damaged on disk: a finished crawl is replayed past the damage (the
/// damaged record is counted by extraction), not refused.
#[test]
fn a_damaged_committed_crawl_part_is_replayed_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let port = crate::support::demo_port().to_string();
    let run = || {
        trawl()
            .args(["run", "--quiet", "--demo-port", &port, "--output"])
            .arg(&out)
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let part = out.join("crawl/warc/00001.warc.gz");
    let bytes = std::fs::read(&part).unwrap();
    let (records, _) = trawl_storage::warc::read_records_resync(&bytes, 1 << 26);
    let i = records
        .iter()
        .position(|r| r.header("WARC-Type") == Some("response"))
        .unwrap();
    let (a, b) = (records[i].offset as usize, records[i + 1].offset as usize);
    let mut bad = bytes.clone();
    for x in &mut bad[a + 20..b - 10] {
        *x ^= 0x5a;
    }
    std::fs::write(&part, &bad).unwrap();
    // extraction of that part is redone
    std::fs::remove_file(out.join("_done/extract/00001")).unwrap();
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("committed WARC part"), "{err}");
    let st = marker_stats(&out, "extract", "00001");
    assert_eq!(st["stages"]["read"]["errors"]["warc_damaged"], 1, "{st}");
}

/// A link farm: one page with 300,000 distinct links. The crawler keeps the first
/// `max_links_per_page` (1,000) and counts the rest, reading links with the tokenizer alone, so
/// the page costs the crawl process little more than the page itself; before, the frontier and
/// the parsed tree took about 600 MB. Peak memory from GNU time (scripts/setup.sh installs it).
#[test]
fn a_link_farm_page_stays_under_a_memory_bound() {
    use trawl_testweb::{Response, Site, TestWeb};
    let Some(gnu_time) = crate::support::external("GNU time", "/usr/bin/time".into()) else {
        return;
    };
    let farm: String = (0..300_000)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>\n"))
        .collect();
    let small: String = (0..10)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>\n"))
        .collect();
    let site = |name: &str, body: &str| {
        Site::new(name)
            .route("/robots.txt", Response::status(404))
            .route(
                "/",
                Response::html(format!("<html><body>{body}</body></html>")),
            )
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt
        .block_on(TestWeb::start(vec![
            site("farm", &farm),
            site("small", &small),
        ]))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // peak resident KiB of a crawl of the site's front page and 5 of its links
    let peak = |name: &str| -> (u64, serde_json::Value) {
        let cfg = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &cfg,
            format!(
                "[crawl]\nseeds = [\"{}/\"]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\nmax_pages = 6\nmax_depth = 1\n",
                web.base_url(name).unwrap()
            ),
        )
        .unwrap();
        let out = dir.path().join(name);
        let o = run(std::process::Command::new(&gnu_time)
            .args(["-f", "peak_kib=%M", "--"])
            .arg(trawl().get_program())
            .args(["crawl", "--quiet", "--config"])
            .arg(&cfg)
            .arg("--output")
            .arg(&out));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stderr = String::from_utf8_lossy(&o.stderr);
        let kib = stderr
            .lines()
            .find_map(|l| l.strip_prefix("peak_kib="))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak in {stderr}"));
        (kib, marker_stats(&out, "crawl", "00000"))
    };
    let (base, _) = peak("small");
    let (farm_kib, stats) = peak("farm");
    eprintln!("link farm: peak {farm_kib} KiB; a 10-link page: {base} KiB");
    let st = &stats["stages"]["crawl"];
    assert_eq!(st["counters"]["links_left_out"], 299_000, "{st}");
    assert_eq!(st["counters"]["pages_links_capped"], 1, "{st}");
    // the page is 7.6 MB; its links queued cost 1,000 entries
    let extra_mb = farm_kib.saturating_sub(base) / 1024;
    assert!(
        extra_mb < 100,
        "the link farm cost {extra_mb} MB over a 10-link page ({farm_kib} vs {base} KiB)"
    );
}
