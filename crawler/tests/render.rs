//! Headless rendering with real Chromium and lightpanda on the loopback test web:
//! script-inserted text, infinite scroll, a "load more" button, a robots-disallowed script
//! (blocked, counted), a page that never finishes loading (timeout, counted), a browser
//! killed mid-render (restarted, page retried once), the same with lightpanda first, and a
//! lightpanda killed mid-render (the page goes to Chromium).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use trawl_crawler::{CrawlConfig, Crawler, EngineKind, RenderConfig, RenderMode};
use trawl_storage::{warc, Storage, StorageConfig};
use trawl_testweb::{Fault, Response, Site, TestWeb};

fn chromium() -> Option<String> {
    let path = "/usr/bin/chromium";
    if std::path::Path::new(path).exists() {
        return Some(path.into());
    }
    assert!(
        std::env::var_os("TRAWL_REQUIRE_EXTERNAL").is_none(),
        "Chromium is required (scripts/setup.sh installs it)"
    );
    eprintln!("skipping: no {path}");
    None
}

fn js(body: &str) -> Response {
    Response::with_type(200, "application/javascript", body.as_bytes().to_vec())
}

const ARTICLE: &str = "The harbour town woke slowly on Monday as the first ferries crossed the grey water and the market stalls opened one by one along the quay. ";

fn app_site() -> Site {
    let shell = |scripts: &str| {
        format!("<!doctype html><html><head><title>app</title></head><body><div id=\"root\"></div>{scripts}</body></html>")
    };
    Site::new("app")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /private/\n"))
        .route(
            "/",
            Response::html(format!(
                "<html><body><article><h1>Index</h1><p>{}</p></article><a href=\"/js.html\">js</a> <a href=\"/scroll.html\">scroll</a> <a href=\"/more.html\">more</a> <a href=\"/tracked.html\">tracked</a> <a href=\"/hang.html\">hang</a></body></html>",
                ARTICLE.repeat(6)
            )),
        )
        // text and a link inserted by script
        .route("/js.html", Response::html(shell("<script src=\"/app.js\"></script>")))
        .route("/app.js", js("document.getElementById('root').innerHTML = '<h1>Rendered</h1><p>Inserted by script: the ferry timetable for the winter season.</p><a href=\"/from-script.html\">found only after rendering</a>';"))
        .route("/from-script.html", Response::html(format!("<html><body><p>{}</p></body></html>", ARTICLE.repeat(4))))
        // more content on scroll, four batches fetched by XHR
        .route("/scroll.html", Response::html(shell("<script src=\"/scroll.js\"></script>")))
        .route(
            "/scroll.js",
            js("let n = 0, loading = false; const root = document.getElementById('root');
function add(html) { const d = document.createElement('div'); d.style.height = '1500px'; d.innerHTML = html; root.appendChild(d); }
add('<p>Batch zero of the endless harbour log.</p>');
window.addEventListener('scroll', () => {
  if (loading || n >= 4) return;
  if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 100) {
    loading = true; n++;
    fetch('/batch?n=' + n).then(r => r.text()).then(t => { add(t); loading = false; });
  }
});"),
        )
        .route("/batch?n=1", Response::html("<p>Batch one arrived on scroll.</p>"))
        .route("/batch?n=2", Response::html("<p>Batch two arrived on scroll.</p>"))
        .route("/batch?n=3", Response::html("<p>Batch three arrived on scroll.</p>"))
        .route("/batch?n=4", Response::html("<p>Batch four, the last one, arrived on scroll.</p>"))
        // content behind a "load more" button
        .route("/more.html", Response::html(shell("<script src=\"/more.js\"></script>")))
        .route(
            "/more.js",
            js("const root = document.getElementById('root');
root.innerHTML = '<p>Intro of the catalogue.</p><button id=\"more\" type=\"button\">Load more</button>';
document.getElementById('more').addEventListener('click', () => {
  fetch('/more-items').then(r => r.text()).then(t => { const d = document.createElement('div'); d.innerHTML = t; root.appendChild(d); });
});"),
        )
        .route("/more-items", Response::html("<p>Hidden until the button was clicked.</p>"))
        // a script under a robots-disallowed path
        .route("/tracked.html", Response::html(shell("<script src=\"/private/track.js\"></script><script src=\"/app2.js\"></script>")))
        .route("/private/track.js", js("document.getElementById('root').insertAdjacentHTML('beforeend', '<p>TRACKED-BY-PRIVATE-SCRIPT</p>');"))
        .route("/app2.js", js("document.getElementById('root').insertAdjacentHTML('beforeend', '<p>Visible article text of the tracked page.</p>');"))
        // a page that never finishes loading: its script never arrives
        .route("/hang.html", Response::html(shell("<script src=\"/hang.js\"></script>")))
        .route("/hang.js", js("").fault(Fault::Hang))
}

fn render_cfg(chrome: String) -> RenderConfig {
    RenderConfig {
        mode: RenderMode::Auto,
        engines: vec![EngineKind::Chromium],
        chromium: chrome,
        page_timeout_ms: 3_000,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renders_what_needs_it_with_interaction_and_the_crawlers_rules() {
    let Some(chrome) = chromium() else { return };
    render_the_app_site(render_cfg(chrome)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tiers_render_the_same_with_lightpanda_first() {
    let Some(chrome) = chromium() else { return };
    let Some(lp) = lightpanda() else { return };
    let pages = render_the_app_site(RenderConfig {
        engines: vec![EngineKind::Lightpanda, EngineKind::Chromium],
        lightpanda: lp,
        ..render_cfg(chrome)
    })
    .await;
    let engine = |path: &str| {
        let r = pages[path].render.clone().unwrap();
        (r.engine, r.fallback)
    };
    // lightpanda renders script, scroll (its scroll listeners are told, though nothing
    // moves), clicks and the crawler's rules by itself
    for path in ["/js.html", "/scroll.html", "/more.html", "/tracked.html"] {
        assert_eq!(engine(path), (Some("lightpanda".into()), None), "{path}");
    }
    // the hanging page loads nothing in lightpanda either: Chromium is tried, and times out
    assert_eq!(engine("/hang.html"), (None, Some("no_new_content".into())));
}

fn lightpanda() -> Option<String> {
    let path = std::env::var("TRAWL_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| {
            std::path::PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/trawl")
        })
        .join("bin/lightpanda");
    if path.exists() {
        return Some(path.display().to_string());
    }
    assert!(
        std::env::var_os("TRAWL_REQUIRE_EXTERNAL").is_none(),
        "lightpanda is required (scripts/setup.sh installs it)"
    );
    eprintln!("skipping: no {}", path.display());
    None
}

/// Crawls the app site with `rcfg` and checks what every engine setup must do; returns the
/// pages by path.
async fn render_the_app_site(rcfg: RenderConfig) -> BTreeMap<String, trawl_core::FetchedPage> {
    let web = TestWeb::start(vec![app_site()]).await.unwrap();
    let base = web.base_url("app").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let cfg = CrawlConfig {
        seeds: vec![format!("{base}/")],
        delay_ms: 0,
        allow_private_addresses: true,
        timeout_secs: 5,
        ..Default::default()
    };
    let crawler = Crawler::new(cfg)
        .unwrap()
        .with_renderer(rcfg, tokio::runtime::Handle::current())
        .unwrap();
    let parts = common::run(crawler, &root).await;
    let pages: BTreeMap<String, _> = parts
        .iter()
        .flat_map(|p| p.pages.iter())
        .map(|p| (p.url.trim_start_matches(&base).to_string(), p.clone()))
        .collect();
    let info = |path: &str| {
        pages
            .get(path)
            .unwrap_or_else(|| panic!("{path} crawled: {:?}", pages.keys()))
            .render
            .clone()
            .expect("a render decision")
    };
    let dom = |path: &str| pages[path].rendered.clone().unwrap_or_default();

    // static pages are not rendered
    assert_eq!(info("/").reason, "static_ok");
    assert!(!info("/").rendered && pages["/"].rendered.is_none());
    // text inserted by script, and the link it inserted was followed
    assert!(info("/js.html").rendered, "{:?}", info("/js.html"));
    assert_eq!(info("/js.html").reason, "empty_app_root");
    assert!(dom("/js.html").contains("Inserted by script: the ferry timetable"));
    assert!(
        pages.contains_key("/from-script.html"),
        "links in the rendered DOM are crawled"
    );
    assert_eq!(info("/from-script.html").reason, "static_ok");
    // infinite scroll until the height stops growing
    let s = info("/scroll.html");
    assert!(
        dom("/scroll.html").contains("Batch four, the last one"),
        "scrolled {} steps: {}",
        s.scrolls,
        dom("/scroll.html")
    );
    assert!(s.scrolls >= 5);
    // a "load more" button
    assert!(
        dom("/more.html").contains("Hidden until the button was clicked"),
        "{:?} {}",
        info("/more.html"),
        dom("/more.html")
    );
    assert_eq!(info("/more.html").clicks, 1);
    // a robots-disallowed script is blocked and counted; the page still renders
    let t = info("/tracked.html");
    assert!(t.rendered);
    assert_eq!(t.blocked.get("robots"), Some(&1), "{t:?}");
    assert!(dom("/tracked.html").contains("Visible article text"));
    assert!(!dom("/tracked.html").contains("TRACKED-BY-PRIVATE-SCRIPT"));
    assert!(
        !web.requests()
            .iter()
            .any(|(_, p)| p.starts_with("/private/")),
        "the disallowed script was never requested"
    );
    // the main document comes from the crawler's response: each page requested once
    for path in ["/js.html", "/scroll.html", "/more.html"] {
        assert_eq!(
            web.requests().iter().filter(|(_, p)| p == path).count(),
            1,
            "{path} fetched once"
        );
    }
    // a page that never finishes loading times out; the static HTML stands
    let h = info("/hang.html");
    assert!(
        !h.rendered && h.error.as_deref() == Some("timeout"),
        "{h:?}"
    );
    assert!(pages["/hang.html"].rendered.is_none());

    // counted in the crawl stats
    let mut c: BTreeMap<String, u64> = BTreeMap::new();
    for p in &parts {
        for (k, v) in &p.stats.stage("crawl").unwrap().counters {
            *c.entry(k.clone()).or_default() += v;
        }
    }
    assert_eq!(c.get("render_rendered"), Some(&4), "{c:?}");
    assert_eq!(c.get("render_static"), Some(&2), "{c:?}");
    assert_eq!(c.get("render_timeout"), Some(&1), "{c:?}");
    assert_eq!(c.get("render_blocked_robots"), Some(&1), "{c:?}");

    // the rendered DOM is in the WARC as a conversion record and comes back on replay
    let part = &parts[0];
    let data = root.get(&part.warc).await.unwrap();
    let (records, _) = warc::read_records(&part.warc, &data);
    assert_eq!(
        records
            .iter()
            .filter(|r| r.header("WARC-Type") == Some("conversion"))
            .count(),
        4
    );
    let (replayed, err) = warc::read_pages(&part.warc, &data);
    assert!(err.is_none());
    let js_page = replayed
        .iter()
        .find(|p| p.url.ends_with("/js.html"))
        .unwrap();
    assert!(js_page
        .rendered
        .as_deref()
        .unwrap_or("")
        .contains("Inserted by script"));
    assert_eq!(
        js_page.render.as_ref().map(|r| r.reason.as_str()),
        Some("empty_app_root")
    );
    pages
}

/// Crawls a one-page site whose script arrives after 2.5 s, killing the first process that
/// `pids` lists one second after it appears: the crawl parts, the pool and the killed pid.
async fn crawl_killing(
    rcfg: RenderConfig,
    pids: fn(&trawl_crawler::Renderer) -> Vec<u32>,
) -> (
    Vec<trawl_crawler::CrawlPart>,
    std::sync::Arc<trawl_crawler::Renderer>,
    u32,
) {
    let site = Site::new("slow")
        .route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"))
        .route("/", Response::html("<html><body><div id=\"root\"></div><script src=\"/slow.js\"></script></body></html>"))
        .route("/slow.js", js("document.getElementById('root').innerHTML = '<p>Arrived after a long wait.</p>';").delayed(Duration::from_millis(2500)));
    let web = TestWeb::start(vec![site]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let cfg = CrawlConfig {
        seeds: vec![format!("{}/", web.base_url("slow").unwrap())],
        delay_ms: 0,
        allow_private_addresses: true,
        ..Default::default()
    };
    let crawler = Crawler::new(cfg)
        .unwrap()
        .with_renderer(rcfg, tokio::runtime::Handle::current())
        .unwrap();
    let pool = crawler.renderer().unwrap().clone();
    // kill the browser while the page waits for its script
    let killer = std::thread::spawn(move || {
        let t0 = std::time::Instant::now();
        while t0.elapsed() < Duration::from_secs(20) {
            if let Some(pid) = pids(&pool).first() {
                std::thread::sleep(Duration::from_millis(1000));
                std::process::Command::new("kill")
                    .arg("-9")
                    .arg(pid.to_string())
                    .status()
                    .unwrap();
                return (pool.clone(), *pid);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no browser started");
    });
    let parts = common::run(crawler, &root).await;
    let (pool, killed) = killer.join().unwrap();
    (parts, pool, killed)
}

/// The slow page's render record, after checking it was rendered with its late text.
fn rendered_complete(parts: &[trawl_crawler::CrawlPart]) -> trawl_core::RenderInfo {
    let page = &parts[0].pages[0];
    let info = page.render.clone().unwrap();
    assert!(info.rendered, "{info:?}");
    assert!(page
        .rendered
        .as_deref()
        .unwrap()
        .contains("Arrived after a long wait"));
    info
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_killed_mid_render_is_restarted_and_the_page_retried_once() {
    let Some(chrome) = chromium() else { return };
    let rcfg = RenderConfig {
        page_timeout_ms: 10_000,
        ..render_cfg(chrome)
    };
    let (parts, pool, killed) = crawl_killing(rcfg, |r| r.browser_pids()).await;
    let info = rendered_complete(&parts);
    assert_eq!(info.attempts, 2, "retried once on a new browser");
    let st = pool.stats();
    assert_eq!((st.crashes, st.launches), (1, 2), "{st:?}");
    assert!(!pool.browser_pids().contains(&killed));
    let counters = &parts[0].stats.stage("crawl").unwrap().counters;
    assert_eq!(counters.get("render_retried"), Some(&1), "{counters:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lightpanda_killed_mid_render_hands_the_page_to_chromium() {
    let Some(chrome) = chromium() else { return };
    let Some(lp) = lightpanda() else { return };
    let rcfg = RenderConfig {
        engines: vec![EngineKind::Lightpanda, EngineKind::Chromium],
        lightpanda: lp,
        page_timeout_ms: 10_000,
        ..render_cfg(chrome)
    };
    let (parts, pool, killed) = crawl_killing(rcfg, |r| r.lightpanda_pids()).await;
    let info = rendered_complete(&parts);
    assert_eq!(
        (info.engine.as_deref(), info.fallback.as_deref()),
        (Some("chromium"), Some("crash")),
        "{info:?}"
    );
    let st = pool.stats();
    assert_eq!(st.lightpanda.crashes, 1, "{st:?}");
    assert!(!pool.lightpanda_pids().contains(&killed));
    let counters = &parts[0].stats.stage("crawl").unwrap().counters;
    assert_eq!(
        counters.get("render_fallback_crash"),
        Some(&1),
        "{counters:?}"
    );
    assert_eq!(
        counters.get("render_engine_chromium"),
        Some(&1),
        "{counters:?}"
    );
    assert!(counters.get("render_retried").is_none(), "{counters:?}");
}
