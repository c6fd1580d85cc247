//! AI-use preference signals (issue 22) on a loopback web through `trawl run`: each kind of
//! reservation drops the document as `training_opt_out` with the signal in its consent
//! record, the same pages with "yes" values are kept, malformed values are recorded and
//! kept, and an image whose own response carries a reservation is `image_opt_out`.

use trawl_testweb::{Response, Site, TestWeb};

use crate::support::{ok, read_jsonl};

/// A page of ordinary prose (distinct sentences, enough words for every filter).
fn page(title: &str, extra_head: &str, extra_body: &str) -> String {
    let sentences = [
        "The council approved a plan to repair the old stone bridge before the autumn floods.",
        "Engineers found that two of the arches had shifted since the last survey was made.",
        "Traffic will use a temporary crossing near the mill while the work goes on.",
        "Residents asked whether the market could stay open on the eastern bank during the repairs.",
        "The mayor said the town would publish a timetable for each stage of the project.",
        "A local historian noted that the bridge was first built from timber three centuries ago.",
        "Funding comes partly from a regional heritage fund and partly from the town budget.",
        "Cyclists will be able to cross on foot, pushing their bicycles along a marked lane.",
    ];
    format!(
        "<html><head><title>{title}</title>{extra_head}</head><body><article><h1>{title}</h1><p>{}</p><p>{}</p>{extra_body}</article></body></html>",
        sentences[..4].join(" "),
        sentences[4..].join(" ")
    )
}

#[test]
fn every_signal_kind_is_recorded_and_honoured() {
    let jpeg = trawl_testweb::demo::jpeg(3, 400, 300);
    let img = |r: Response| r;
    let sites = vec![
        Site::new("cs-no")
            .route(
                "/robots.txt",
                Response::text("User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n"),
            )
            .route("/a", Response::html(page("Signal no", "", ""))),
        Site::new("cs-yes")
            .route(
                "/robots.txt",
                Response::text("User-agent: *\nContent-Signal: search=yes, ai-train=yes\nAllow: /\n"),
            )
            .route("/a", Response::html(page("Signal yes", "", ""))),
        Site::new("cu")
            .route(
                "/robots.txt",
                Response::text("User-agent: *\nContent-Usage: train-ai=y\nContent-Usage: /private/ train-ai=n\nAllow: /\n"),
            )
            .route("/private/a", Response::html(page("Usage private", "", "")))
            .route("/open", Response::html(page("Usage open", "", ""))),
        Site::new("hdr")
            .route("/usage-n", Response::html(page("Header usage n", "", "")).header("Content-Usage", "train-ai=n"))
            .route("/usage-y", Response::html(page("Header usage y", "", "")).header("Content-Usage", "train-ai=y"))
            .route("/usage-bad", Response::html(page("Header usage bad", "", "")).header("Content-Usage", "train-ai=perhaps"))
            .route("/tdm-1", Response::html(page("Header tdm 1", "", "")).header("tdm-reservation", "1"))
            .route("/tdm-0", Response::html(page("Header tdm 0", "", "")).header("tdm-reservation", "0"))
            .route("/meta", Response::html(page("Meta tdm", "<meta name=\"tdm-reservation\" content=\"1\">", "")))
            .route(
                "/gallery",
                Response::html(page(
                    "Gallery",
                    "",
                    "<figure><img src=\"/reserved.jpg\" alt=\"The stone bridge over the river at dusk\"><figcaption>The bridge at dusk.</figcaption></figure>",
                )),
            )
            .route("/reserved.jpg", img(Response::with_type(200, "image/jpeg", jpeg)).header("tdm-reservation", "1")),
        Site::new("rep")
            .route(
                "/.well-known/tdmrep.json",
                Response::with_type(
                    200,
                    "application/json",
                    br#"[{"location": "/reserved/*", "tdm-reservation": 1, "tdm-policy": "https://rep.example/policy.json"}, {"location": "/*", "tdm-reservation": 0}]"#.to_vec(),
                ),
            )
            .route("/reserved/a", Response::html(page("Rep reserved", "", "")))
            .route("/free", Response::html(page("Rep free", "", ""))),
        Site::new("badrep")
            .route("/.well-known/tdmrep.json", Response::with_type(200, "application/json", b"{ not json".to_vec()))
            .route("/a", Response::html(page("Bad rep", "", ""))),
    ];
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt.block_on(TestWeb::start(sites)).unwrap();
    let base = |n: &str| web.base_url(n).unwrap();
    let seeds: Vec<String> = [
        ("cs-no", "/a"),
        ("cs-yes", "/a"),
        ("cu", "/private/a"),
        ("cu", "/open"),
        ("hdr", "/usage-n"),
        ("hdr", "/usage-y"),
        ("hdr", "/usage-bad"),
        ("hdr", "/tdm-1"),
        ("hdr", "/tdm-0"),
        ("hdr", "/meta"),
        ("hdr", "/gallery"),
        ("rep", "/reserved/a"),
        ("rep", "/free"),
        ("badrep", "/a"),
    ]
    .iter()
    .map(|(s, p)| format!("\"{}{p}\"", base(s)))
    .collect();
    let dir = tempfile::tempdir().unwrap();
    // the pages share their prose, so dedup (which would keep one) is off
    let cfg = dir.path().join("p.toml");
    std::fs::write(
        &cfg,
        format!(
            "[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\nmax_depth = 0\n[dedup]\nenabled = false\n",
            seeds.join(", ")
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    ok(trawl_cmd()
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&out));
    let title = |d: &serde_json::Value| d["meta"]["title"].as_str().unwrap_or("").to_string();
    let kept: Vec<String> = read_jsonl(&out.join("filter/00000.jsonl.zst"))
        .iter()
        .map(title)
        .collect();
    let excluded = read_jsonl(&out.join("excluded/filter/00000.jsonl.zst"));
    let opted: std::collections::BTreeMap<String, serde_json::Value> = excluded
        .iter()
        .filter(|e| e["reason"] == "training_opt_out")
        .map(|e| (title(&e["doc"]), e["doc"]["consent"]["signals"].clone()))
        .collect();
    let signal_of = |t: &str| -> (String, String) {
        let sigs = opted
            .get(t)
            .unwrap_or_else(|| panic!("{t} not opted out: kept {kept:?}, opted {opted:?}"));
        let s = sigs
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["training"] == false)
            .unwrap_or_else(|| panic!("{t}: {sigs}"));
        (
            s["signal"].as_str().unwrap().into(),
            s["source"].as_str().unwrap().into(),
        )
    };
    assert_eq!(
        signal_of("Signal no"),
        ("content-signal".into(), "robots.txt line 2".into())
    );
    assert_eq!(
        signal_of("Usage private"),
        ("content-usage".into(), "robots.txt line 3".into())
    );
    assert_eq!(
        signal_of("Header usage n"),
        ("content-usage".into(), "header".into())
    );
    assert_eq!(
        signal_of("Header tdm 1"),
        ("tdm-reservation".into(), "header".into())
    );
    assert_eq!(
        signal_of("Meta tdm"),
        ("tdm-reservation".into(), "meta".into())
    );
    assert_eq!(
        signal_of("Rep reserved"),
        ("tdm-reservation".into(), "tdmrep.json rule 1".into())
    );
    for t in [
        "Signal yes",
        "Usage open",
        "Header usage y",
        "Header usage bad",
        "Header tdm 0",
        "Rep free",
        "Bad rep",
        "Gallery",
    ] {
        assert!(
            kept.contains(&t.to_string()),
            "{t} kept: {kept:?} / opted {:?}",
            opted.keys()
        );
    }
    // malformed values are recorded as unparsed and decide nothing
    let docs = read_jsonl(&out.join("filter/00000.jsonl.zst"));
    let sig_of =
        |t: &str| docs.iter().find(|d| title(d) == t).unwrap()["consent"]["signals"].clone();
    assert_eq!(sig_of("Header usage bad")[0]["parsed"], false);
    assert_eq!(sig_of("Bad rep")[0]["source"], "tdmrep.json");
    assert_eq!(sig_of("Bad rep")[0]["parsed"], false);
    assert_eq!(sig_of("Signal yes")[0]["training"], true);
    // the image whose own response reserves it
    let ex = read_jsonl(&out.join("excluded/captions/00000.jsonl.zst"));
    if std::env::var_os("TRAWL_KEEP_TEST_OUTPUT").is_some() {
        let _ = std::fs::remove_dir_all("/tmp/consent-out");
        let _ = std::process::Command::new("cp")
            .arg("-r")
            .arg(&out)
            .arg("/tmp/consent-out")
            .status();
    }
    assert!(
        ex.iter().any(|e| e["reason"] == "image_opt_out"
            && e.to_string().contains("tdm-reservation (header): 1")),
        "{ex:?}"
    );
    // the report counts opt-outs by signal and host
    let html = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(
        html.contains("Training opt-outs") && html.contains("content-signal"),
        "report"
    );
    drop(web);
}

fn trawl_cmd() -> std::process::Command {
    crate::support::trawl()
}
