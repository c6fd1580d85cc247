//! Rendering on by default (issue 24): `trawl run` with no `[render]` section renders the
//! pages whose content needs a script, scrolling or a click, leaves a static article with a
//! large analytics script alone, and without a browser completes with one warning and the
//! pages counted as `render_unavailable`.

use std::path::Path;

use crate::support::{chromium, read_jsonl, run, trawl};
use trawl_testweb::{Response, Site, TestWeb};

const PARA: &str = "The harbour office publishes the ferry timetable each winter, with the crossings to the islands, the fares for residents and visitors, and the days the service stops for maintenance. ";

fn page(title: &str, body: &str, script: &str) -> String {
    format!("<!doctype html><html><head><title>{title}</title></head><body><main><article id=\"a\"><h1>{title}</h1>{body}</article></main>{script}</body></html>")
}

/// A 40 KB analytics script of the usual kind: scroll depth and ad viewability reported
/// with beacons, a tracking pixel appended, and a long tail of library code.
fn analytics() -> String {
    let mut s = String::from(
        "(function(){var sent={};window.addEventListener('scroll',function(){var d=Math.round(100*window.scrollY/document.body.scrollHeight);if(d>50&&!sent[50]){sent[50]=1;navigator.sendBeacon('/collect',JSON.stringify({depth:d}));}});
var io=new IntersectionObserver(function(es){es.forEach(function(e){if(e.isIntersecting){fetch('/viewability',{method:'POST',body:e.target.id});}});});
document.querySelectorAll('.ad').forEach(function(a){io.observe(a);});
var px=document.createElement('img');px.src='/pixel.gif?r='+Math.random();document.body.appendChild(px);",
    );
    let mut i = 0;
    while s.len() < 40_000 {
        s.push_str(&format!(
            "function _t{i}(a,b){{var c=a^b;for(var k=0;k<8;k++){{c=(c<<1)|(c>>>31);}}return c+{i};}}"
        ));
        i += 1;
    }
    s.push_str("})();");
    s
}

fn site() -> Site {
    let intro = format!("<p>{}</p>", PARA.repeat(5));
    Site::new("render")
        .route(
            "/",
            Response::html(page(
                "Index",
                &format!("{intro}<a href=\"/script.html\">script</a> <a href=\"/scroll.html\">scroll</a> <a href=\"/more.html\">more</a> <a href=\"/article.html\">article</a>"),
                "",
            )),
        )
        // content inserted by a script after load
        .route(
            "/script.html",
            Response::html("<!doctype html><html><head><title>app</title></head><body><div id=\"root\"></div><script src=\"/app.js\"></script></body></html>"),
        )
        .route(
            "/app.js",
            Response::with_type(200, "application/javascript", format!("document.getElementById('root').innerHTML = '<article><h1>Timetable</h1><p>INSERTED-BY-SCRIPT {}</p></article>';", PARA.repeat(3)).into_bytes()),
        )
        // content appended on scroll: enough static text that the old decision kept it static
        .route(
            "/scroll.html",
            Response::html(page(
                "Harbour log",
                &format!("{intro}<div style=\"height:1400px\"></div><div id=\"log\"></div>"),
                "<script>let n = 0, busy = false;
window.addEventListener('scroll', () => {
  if (busy || n >= 3) return;
  if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 200) {
    busy = true; n++;
    fetch('/batch?n=' + n).then(r => r.text()).then(t => {
      const d = document.createElement('div'); d.style.minHeight = '1400px'; d.innerHTML = t;
      document.getElementById('log').appendChild(d); busy = false;
    });
  }
});</script>",
            )),
        )
        .route("/batch?n=1", Response::html("<p>SCROLL-BATCH-ONE: on the first of December the morning ferry left twenty minutes late because fog lay over the harbour mouth until nine.</p>"))
        .route("/batch?n=2", Response::html("<p>SCROLL-BATCH-TWO: the second week brought storms, and the island service was cancelled on three days while the pier lights were repaired.</p>"))
        .route("/batch?n=3", Response::html("<p>SCROLL-BATCH-THREE: by the end of the month the new timetable was printed and the winter fares for residents were frozen for another year.</p>"))
        // content behind a "Load more" button
        .route(
            "/more.html",
            Response::html(page(
                "Catalogue",
                &format!("{intro}<div id=\"items\"></div><button type=\"button\" id=\"more\">Load more</button>"),
                "<script>document.getElementById('more').addEventListener('click', () => {
  fetch('/more-items').then(r => r.text()).then(t => { document.getElementById('items').insertAdjacentHTML('beforeend', t); });
});</script>",
            )),
        )
        .route("/more-items", Response::html(format!("<p>BEHIND-THE-BUTTON {}</p>", PARA.repeat(2))))
        // a static article with a 40 KB analytics script
        .route(
            "/article.html",
            Response::html(page(
                "Winter crossings",
                &format!("{intro}<p>STATIC-ARTICLE {}</p><div class=\"ad\" id=\"ad1\"></div>", PARA.repeat(2)),
                &format!("<script>{}</script>", analytics()),
            )),
        )
        .route("/collect", Response::text(""))
        .route("/viewability", Response::text(""))
}

/// A `trawl run` of the test web with no `[render]` section, `PATH` set to `path` (where the
/// browser is looked for): the process output, the crawl counters, the extracted text by URL
/// path, and the web (for its request log).
struct Run {
    output: std::process::Output,
    counters: serde_json::Value,
    docs: std::collections::BTreeMap<String, String>,
    web: TestWeb,
    _rt: tokio::runtime::Runtime,
}

fn run_with_path(path: &Path) -> Run {
    run_with(path, None)
}

/// [`run_with_path`], and with `cache` as `$TRAWL_CACHE` (where lightpanda is looked for
/// after `PATH`).
fn run_with(path: &Path, cache: Option<&Path>) -> Run {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt.block_on(TestWeb::start(vec![site()])).unwrap();
    let base = web.base_url("render").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("p.toml");
    std::fs::write(
        &cfg,
        format!("[crawl]\nseeds = [\"{base}/\"]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\n[captions]\nenabled = false\n[dedup]\nenabled = false\n"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let mut cmd = trawl();
    if let Some(c) = cache {
        cmd.env("TRAWL_CACHE", c);
    }
    let output = run(cmd
        .env("PATH", path)
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&out));
    assert!(
        output.status.success(),
        "trawl run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("_done/crawl/00000")).unwrap()).unwrap();
    let counters = m["stats"]["stages"]["crawl"]["counters"].clone();
    let docs = read_jsonl(&out.join("extract/00000.jsonl.zst"))
        .into_iter()
        .map(|d| {
            (
                d["url"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(&base)
                    .to_string(),
                d["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    Run {
        output,
        counters,
        docs,
        web,
        _rt: rt,
    }
}

#[test]
fn default_config_renders_script_scroll_and_load_more_pages_only() {
    let Some(browser) = chromium() else { return };
    // the browser is found on PATH (the default `chromium = ""`)
    let r = run_with_path(browser.parent().unwrap());
    let (c, docs) = (&r.counters, &r.docs);
    let text = |p: &str| {
        docs.get(p)
            .cloned()
            .unwrap_or_else(|| panic!("{p}: {docs:?}"))
    };
    assert!(text("/script.html").contains("INSERTED-BY-SCRIPT"));
    let scroll = text("/scroll.html");
    for b in ["SCROLL-BATCH-ONE", "SCROLL-BATCH-TWO", "SCROLL-BATCH-THREE"] {
        assert!(scroll.contains(b), "{b} missing: {scroll}");
    }
    assert!(text("/more.html").contains("BEHIND-THE-BUTTON"), "{c}");
    assert!(text("/article.html").contains("STATIC-ARTICLE"));
    assert_eq!(c["render_reason_empty_app_root"], 1, "{c}");
    assert_eq!(c["render_reason_infinite_scroll"], 1, "{c}");
    assert_eq!(c["render_reason_load_more"], 1, "{c}");
    assert_eq!(c["render_rendered"], 3, "{c}");
    if crate::support::lightpanda().is_some() {
        // the light engine renders all three (scroll listeners are told of scrolling even
        // though nothing moves without layout); nothing fell back to Chromium
        assert_eq!(c["render_engine_lightpanda"], 3, "{c}");
        assert!(c.get("render_engine_chromium").is_none(), "{c}");
        assert!(
            !c.as_object()
                .unwrap()
                .keys()
                .any(|k| k.starts_with("render_fallback_")),
            "{c}"
        );
    }
    // the index and the analytics-heavy article stay static
    assert_eq!(c["render_static"], 2, "{c}");
    let requested: Vec<String> = r.web.requests().into_iter().map(|(_, p)| p).collect();
    assert!(
        !requested
            .iter()
            .any(|p| p == "/collect" || p == "/viewability"),
        "the static article's scripts never ran: {requested:?}"
    );
}

#[test]
fn without_a_browser_the_run_completes_with_a_warning_and_a_count() {
    let empty = tempfile::tempdir().unwrap();
    let r = run_with(empty.path(), Some(empty.path()));
    let stderr = String::from_utf8_lossy(&r.output.stderr);
    assert_eq!(
        stderr.matches("no headless browser").count(),
        1,
        "one warning: {stderr}"
    );
    let (c, docs) = (&r.counters, &r.docs);
    assert_eq!(c["render_unavailable"], 3, "{c}");
    assert!(c.get("render_rendered").is_none(), "{c}");
    // the pages are kept with their static text
    assert!(docs["/scroll.html"].contains("harbour office"));
    assert!(!docs["/scroll.html"].contains("SCROLL-BATCH-ONE"));
}
