//! The sampling report in real headless Chromium: charts present, no script ran, no console
//! errors, on a crawl of hostile pages; and the comparison of two runs.

use std::time::Duration;

use trawl_testweb::{Response, Site, TestWeb};

use crate::support::{chromium, chromium_run, demo_port, ok, trawl};

const WORDS: &str = "The harbour town woke slowly on Monday as the first ferries crossed the grey water and the market stalls opened one by one along the quay while fishermen unloaded their crates. ";

fn hostile_site() -> Site {
    let pwn = "document.documentElement.setAttribute('data-pwned','1')";
    let page = |title: &str, extra: &str| {
        format!(
            "<html><head><title>{title}</title></head><body><article><h1 onclick=\"{pwn}\">Hostile <img src=\"/x.png\" alt='\"><script>{pwn}</script>' onerror=\"{pwn}\" width=\"200\" height=\"100\"></h1>\
             <p>{WORDS}{WORDS}</p><p>Literal markup as text: &lt;script&gt;{pwn}&lt;/script&gt; and &lt;img src=x onerror={pwn}&gt; and a <a href=\"javascript:{pwn}\">javascript: link</a>.</p>\
             <p><b>broken <i>markup <div>{WORDS}</p></b> &lt;/pre&gt;&lt;/details&gt;&lt;script&gt;{pwn}&lt;/script&gt; {extra}</article>\
             <script>{pwn}</script><a href=\"/b.html\">next</a><a href=\"javascript:{pwn}\">js</a></body></html>"
        )
    };
    Site::new("hostile")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /private\n"))
        .route("/", Response::html(page("<script>alert(1)</script>", "<a href=\"/c.html\">c</a>")))
        .route("/c.html", Response::html(format!(
            "<html><head><title>A kept page with a photo</title></head><body><article><h1>Harbour pictures</h1>\
             <p>Fishing boats leave the harbour before dawn and return in the early afternoon, when the market opens and buyers from the town inspect the catch.</p>\
             <figure><img src=\"/harbour.jpg\" alt=\"The grey harbour at dawn &lt;b&gt;with&lt;/b&gt; &lt;script&gt;{pwn}&lt;/script&gt; boats\" onerror=\"{pwn}\"><figcaption>Boats <script>{pwn}</script> at the quay.</figcaption></figure>\
             <p>The photographs in this series were taken over a single winter by a local teacher who walked the quay every morning with an old film camera.</p></article></body></html>"
        )))
        .route("/harbour.jpg", Response::with_type(200, "image/jpeg", trawl_testweb::demo::jpeg(3, 320, 240)))
        .route("/b.html", Response::html(page("B \" onmouseover=\"alert(1)", "<svg onload=\"alert(2)\"><circle r=\"4\"/></svg><iframe src=\"javascript:alert(3)\"></iframe>")))
}

#[test]
fn report_renders_in_chromium_without_running_any_script() {
    let Some(chrome) = chromium() else { return };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt.block_on(TestWeb::start(vec![hostile_site()])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("hostile.toml");
    std::fs::write(
        &cfg,
        format!("[crawl]\nseeds = [\"{}/\"]\ndelay_ms = 0\nallow_private_addresses = true\n[filter]\nmin_words = 10\n[report]\nsamples_per_reason = 10\n", web.base_url("hostile").unwrap()),
    )
    .unwrap();
    let root = dir.path().join("run");
    ok(trawl()
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&root));
    let report = root.join("report/index.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<script"), "no script element in the report");
    assert!(
        html.contains("&lt;script&gt;"),
        "hostile text is shown, escaped"
    );
    assert!(
        html.contains("<img class=\"th\" src=\"data:image/jpeg;base64,"),
        "image pairs show their thumbnail"
    );

    let url = format!("file://{}", report.display());
    let profile = dir.path().join("chrome-profile");
    let (dom, log) = chromium_run(
        &chrome,
        &profile,
        &["--dump-dom", "--virtual-time-budget=2000"],
        &url,
    );
    assert!(dom.contains("<svg"), "charts are rendered");
    assert!(
        dom.contains("class=\"th\""),
        "thumbnails are in the rendered page"
    );
    assert!(
        dom.matches("<svg").count() >= 6,
        "funnel and distribution charts"
    );
    assert!(
        !dom.contains("data-pwned=\"1\""),
        "a script from a page ran in the report"
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    // a screenshot for reviewers (kept next to the build output)
    let shot = dir.path().join("report.png");
    chromium_run(
        &chrome,
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2400",
        ],
        &url,
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.len() > 20_000 && png.starts_with(b"\x89PNG"),
        "a real screenshot"
    );
    if let Ok(target) = std::env::var("CARGO_TARGET_DIR") {
        let _ = std::fs::copy(
            &shot,
            std::path::Path::new(&target).join("report-screenshot.png"),
        );
    }
    drop(web);
    let _ = Duration::ZERO;
}

#[test]
fn compare_shows_both_runs_and_documents_kept_in_one_only() {
    let dir = tempfile::tempdir().unwrap();
    let port = demo_port().to_string();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    ok(trawl()
        .args(["run", "--quiet", "--demo-port", &port, "--output"])
        .arg(&a));
    let strict = dir.path().join("strict.toml");
    std::fs::write(&strict, "[filter]\nmin_words = 150\n").unwrap();
    // B re-filters A's extraction with a stricter threshold, then dedup and shards
    ok(trawl()
        .args(["filter", "--quiet", "--config"])
        .arg(&strict)
        .arg("--input")
        .arg(a.join("extract"))
        .arg("--output")
        .arg(&b));
    ok(trawl()
        .args(["dedup", "--quiet", "--input"])
        .arg(b.join("filter"))
        .arg("--output")
        .arg(&b));
    let out = ok(trawl().args(["report", "--compare"]).arg(&b).arg(&a));
    assert!(out.contains("index.html"));
    let html = std::fs::read_to_string(a.join("report/index.html")).unwrap();
    assert!(html.contains("Δ out (B−A)"), "deltas shown");
    let n: usize = html
        .split("Kept in A, removed in B: ")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .and_then(|x| x.replace(',', "").parse().ok())
        .unwrap();
    assert!(
        n > 0,
        "documents kept in A and dropped by B's stricter filter are listed"
    );
    assert!(html.contains("too_few_words"));
    // and the terminal sampler
    let s = ok(trawl()
        .args([
            "sample",
            "--stage",
            "filter",
            "--reason",
            "too_few_words",
            "-n",
            "3",
        ])
        .arg(&b));
    assert!(s.contains("too_few_words"), "{s}");
    let j = ok(trawl()
        .args([
            "sample",
            "--stage",
            "filter",
            "--reason",
            "too_few_words",
            "-n",
            "2",
            "--jsonl",
        ])
        .arg(&b));
    for line in j.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["reason"], "too_few_words");
    }
}
