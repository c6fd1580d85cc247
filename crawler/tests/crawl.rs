//! Crawls the demo test web over loopback and checks robots handling, consent and resume.

mod common;

use std::collections::BTreeSet;

use trawl_crawler::{CrawlConfig, Crawler};
use trawl_storage::{Storage, StorageConfig};
use trawl_testweb::{demo, TestWeb};

/// The URLs of the pages a crawl's parts hold, in order.
fn page_urls(parts: &[trawl_crawler::CrawlPart]) -> Vec<String> {
    parts
        .iter()
        .flat_map(|p| p.pages.iter().map(|x| x.url.clone()))
        .collect()
}

async fn crawl(
    web: &TestWeb,
    root: &Storage,
    pages_per_part: usize,
) -> Vec<trawl_crawler::CrawlPart> {
    let cfg = CrawlConfig {
        seeds: demo::seeds(web),
        delay_ms: 0,
        pages_per_part,
        allow_private_addresses: true,
        ..Default::default()
    };
    common::run(Crawler::new(cfg).unwrap(), root).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawls_demo_web_obeying_robots() {
    let web = TestWeb::start(demo::sites()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let parts = crawl(&web, &root, 5).await;
    let pages: Vec<_> = parts.iter().flat_map(|p| p.pages.iter()).collect();
    let urls: BTreeSet<String> = pages.iter().map(|p| p.url.clone()).collect();
    assert!(urls.len() >= 15, "crawled {urls:?}");
    // robots: nothing under /private/, nothing on shop (Disallow: /), nothing on broken (503 robots)
    let requested = web.requests();
    let shop = web.base_url("shop").unwrap().replace("http://", "");
    let broken = web.base_url("broken").unwrap().replace("http://", "");
    for (host, path) in &requested {
        assert!(!path.starts_with("/private/"), "fetched disallowed {path}");
        if host == &shop || host == &broken {
            assert_eq!(path, "/robots.txt", "fetched {path} on a disallowed host");
        }
    }
    // consent: the training token is disallowed under /no-train/
    let opinion = pages
        .iter()
        .find(|p| p.url.ends_with("/no-train/opinion.html"))
        .expect("opinion page crawled");
    assert_eq!(opinion.consent.training_allowed, Some(false));
    assert_eq!(opinion.consent.crawl_allowed, Some(true));
    assert_eq!(
        opinion.consent.training_rule.as_deref(),
        Some("Disallow: /no-train/ (line 5)"),
        "the deciding rule and its line are recorded"
    );
    assert!(
        opinion.consent.robots_fetched.is_some()
            && opinion
                .consent
                .robots_digest
                .as_ref()
                .is_some_and(|d| d.len() == 16)
    );
    assert!(
        pages
            .iter()
            .any(|p| p.url.ends_with("/archive/harbour-history.html")),
        "a page listed only in the sitemap is crawled"
    );
    let a5 = pages
        .iter()
        .find(|p| p.url.ends_with("/articles/5.html"))
        .unwrap();
    assert!(
        a5.consent.noai && a5.consent.noimageai,
        "X-Robots-Tag: noai is recorded"
    );
    assert!(
        !pages
            .iter()
            .find(|p| p.url.ends_with("/articles/4.html"))
            .unwrap()
            .consent
            .noai
    );
    // stats account for every decision
    let mut reasons = BTreeSet::new();
    for p in &parts {
        let st = p.stats.stage("crawl").unwrap();
        assert_eq!(st.seen, st.kept + st.dropped_total());
        reasons.extend(st.dropped.keys().cloned());
    }
    assert!(reasons.contains("robots_disallowed"), "{reasons:?}");
    assert!(reasons.contains("robots_unreachable"), "{reasons:?}");
    // every page is in a committed WARC
    let warcs = root.list("crawl/warc").await.unwrap();
    assert_eq!(warcs.len(), parts.len());

    // rotation by size: tiny parts when bodies are capped at 4 KiB per part
    let dir2 = tempfile::tempdir().unwrap();
    let root2 = Storage::open(dir2.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let cfg = CrawlConfig {
        seeds: demo::seeds(&web),
        delay_ms: 0,
        pages_per_part: 1000,
        max_part_bytes: 4096,
        allow_private_addresses: true,
        ..Default::default()
    };
    let sized = common::run(Crawler::new(cfg).unwrap(), &root2).await;
    assert!(sized.len() > 5, "{} parts", sized.len());
    for p in &sized[..sized.len() - 1] {
        let bytes: usize = p.pages.iter().map(|x| x.body.len()).sum();
        let without_last = bytes - p.pages.last().map_or(0, |x| x.body.len());
        assert!(
            without_last < 4096,
            "a part closes as soon as it reaches the size"
        );
    }

    // a second run replays the committed parts without fetching pages again
    let before = web.requests().len();
    let again = crawl(&web, &root, 5).await;
    assert!(again.iter().all(|p| p.replayed));
    assert_eq!(
        web.requests().len(),
        before,
        "a complete crawl is not fetched again"
    );
    let again_urls = page_urls(&again);
    let first_urls = page_urls(&parts);
    assert_eq!(again_urls, first_urls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resumes_after_partial_crawl() {
    let web = TestWeb::start(demo::sites()).await.unwrap();
    let full_dir = tempfile::tempdir().unwrap();
    let full_root =
        Storage::open(full_dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let full = crawl(&web, &full_root, 4).await;

    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    crawl(&web, &root, 4).await;
    // simulate a crash after part 1: remove later parts and the state file
    root.delete("crawl/state.json").await.unwrap();
    for k in root.list("_done/crawl").await.unwrap() {
        if !k.ends_with("00000") && !k.ends_with("00001") {
            root.delete(&k).await.unwrap();
        }
    }
    let resumed = crawl(&web, &root, 4).await;
    assert!(resumed[0].replayed && resumed[1].replayed && !resumed[2].replayed);
    let a = page_urls(&full);
    let b = page_urls(&resumed);
    assert_eq!(a, b, "resume yields the same pages in the same order");
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_servers_are_counted_not_fatal() {
    use std::time::Duration;
    use trawl_testweb::{Fault, Response, Site};
    let links = [
        "/slow", "/reset", "/trunc", "/loop", "/bomb", "/big", "/ok", "/hang", "/drip",
    ]
    .iter()
    .map(|l| format!("<a href=\"{l}\">{l}</a>"))
    .collect::<String>();
    let bomb = gzip(&vec![0u8; 64 * 1024 * 1024]);
    assert!(bomb.len() < 200_000);
    let site = Site::new("faults")
        .route("/robots.txt", Response::status(404))
        .route("/", Response::html(format!("<p>index</p>{links}")))
        .route(
            "/slow",
            Response::html("<p>slow</p>").delayed(Duration::from_secs(5)),
        )
        .route("/hang", Response::html("<p>never</p>").fault(Fault::Hang))
        .route("/reset", Response::html("<p>x</p>").fault(Fault::Reset))
        .route(
            "/trunc",
            Response::html("<p>".to_string() + &"x".repeat(10_000)).fault(Fault::Truncate(100)),
        )
        .route("/loop", Response::redirect(302, "/loop"))
        .route(
            "/bomb",
            Response::with_type(200, "text/html", bomb).header("Content-Encoding", "gzip"),
        )
        .route("/big", Response::html("x".repeat(3 * 1024 * 1024)))
        .route(
            "/drip",
            Response::html("<p>".to_string() + &"y".repeat(2000)).fault(Fault::Drip {
                chunk: 500,
                pause: Duration::from_millis(150),
            }),
        )
        .route("/ok", Response::html("<p>fine</p>"));
    let web = TestWeb::start(vec![site]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let cfg = CrawlConfig {
        seeds: vec![format!("{}/", web.base_url("faults").unwrap())],
        delay_ms: 0,
        timeout_secs: 2,
        max_body_bytes: 1024 * 1024,
        allow_private_addresses: true,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let parts = common::run(Crawler::new(cfg).unwrap(), &root).await;
    assert!(
        t0.elapsed() < Duration::from_secs(30),
        "slow servers must not stall the crawl"
    );
    let urls: BTreeSet<String> = parts
        .iter()
        .flat_map(|p| {
            p.pages
                .iter()
                .map(|x| x.url.rsplit('/').next().unwrap().to_string())
        })
        .collect();
    assert!(urls.contains("ok") && urls.contains(""), "{urls:?}");
    let mut dropped = std::collections::BTreeMap::new();
    for p in &parts {
        for (r, n) in &p.stats.stage("crawl").unwrap().dropped {
            *dropped.entry(r.clone()).or_insert(0) += n;
        }
    }
    assert_eq!(dropped.get("timeout"), Some(&2), "{dropped:?}"); // slow + hang
    assert_eq!(dropped.get("too_large"), Some(&2), "{dropped:?}"); // bomb + big
    assert_eq!(dropped.get("too_many_redirects"), Some(&1), "{dropped:?}");
    assert!(
        dropped.get("fetch_error").copied().unwrap_or(0) >= 2,
        "{dropped:?}"
    ); // reset + trunc
       // the slow drip finished within the timeout and was kept
    assert!(urls.contains("drip"), "{urls:?}");
    // every decision is accounted for
    let st = &parts[0].stats.stage("crawl").unwrap();
    assert_eq!(st.seen, st.kept + st.dropped_total());
}

async fn crawl_cfg(
    cfg: CrawlConfig,
) -> (
    Vec<trawl_crawler::CrawlPart>,
    std::collections::BTreeMap<String, u64>,
) {
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let parts = common::run(Crawler::new(cfg).unwrap(), &root).await;
    let mut dropped = std::collections::BTreeMap::new();
    for p in &parts {
        for (r, n) in &p.stats.stage("crawl").unwrap().dropped {
            *dropped.entry(r.clone()).or_insert(0) += n;
        }
    }
    (parts, dropped)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssrf_guard_redirect_rules_and_resolve_overrides() {
    use trawl_testweb::{Response, Site};
    let site = Site::new("r")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /secret\n"))
        .route("/", Response::html("<a href=\"/hop1\">chain</a><a href=\"/loop\">loop</a><a href=\"/to-secret\">s</a><a href=\"/long0\">long</a>"))
        .route("/hop1", Response::redirect(301, "/hop2"))
        .route("/hop2", Response::redirect(302, "/hop3"))
        .route("/hop3", Response::redirect(307, "/hop4"))
        .route("/hop4", Response::redirect(308, "/hop5"))
        .route("/hop5", Response::redirect(301, "/done"))
        .route("/done", Response::html("<p>arrived after five redirects</p>"))
        .route("/long0", Response::redirect(301, "/long1"))
        .route("/long1", Response::redirect(301, "/long2"))
        .route("/long2", Response::redirect(301, "/long3"))
        .route("/long3", Response::redirect(301, "/long4"))
        .route("/long4", Response::redirect(301, "/long5"))
        .route("/long5", Response::redirect(301, "/long6"))
        .route("/long6", Response::html("<p>six redirects away</p>"))
        .route("/loop", Response::redirect(302, "/loop2"))
        .route("/loop2", Response::redirect(302, "/loop"))
        .route("/to-secret", Response::redirect(302, "/secret/page"))
        .route("/secret/page", Response::html("<p>secret</p>"));
    let web = TestWeb::start(vec![site]).await.unwrap();
    let addr = web.hosts()[0].1;
    // a named host served from loopback through `resolve`
    let mut resolve = std::collections::BTreeMap::new();
    resolve.insert(format!("site.test:{}", addr.port()), addr.to_string());
    let seed = format!("http://site.test:{}/", addr.port());
    let cfg = CrawlConfig {
        seeds: vec![seed.clone()],
        delay_ms: 0,
        allow_private_addresses: true,
        resolve: resolve.clone(),
        timeout_secs: 3,
        ..Default::default()
    };
    let (parts, dropped) = crawl_cfg(cfg).await;
    let pages: Vec<_> = parts.iter().flat_map(|p| p.pages.iter()).collect();
    let done = pages
        .iter()
        .find(|p| p.url.ends_with("/hop1"))
        .expect("the 5-hop chain was fetched");
    assert!(
        done.final_url.ends_with("/done") && done.status == 200,
        "{} {}",
        done.final_url,
        done.status
    );
    assert_eq!(
        dropped.get("too_many_redirects"),
        Some(&2),
        "6 hops and a loop: {dropped:?}"
    );
    assert_eq!(
        dropped.get("redirect_robots_disallowed"),
        Some(&1),
        "{dropped:?}"
    );
    // (a redirect to a non-public address is refused by the same guard check, unit-tested in
    // guard.rs without sending anything beyond loopback)
    assert!(
        !web.requests().iter().any(|(_, p)| p.starts_with("/secret")),
        "never fetched a disallowed redirect target"
    );

    // without allow_private_addresses the guard refuses loopback before any request
    let before = web.requests().len();
    let cfg = CrawlConfig {
        seeds: vec![seed],
        delay_ms: 0,
        resolve,
        ..Default::default()
    };
    let (parts, dropped) = crawl_cfg(cfg).await;
    assert!(parts.iter().all(|p| p.pages.is_empty()));
    assert_eq!(dropped.get("private_address"), Some(&1), "{dropped:?}");
    assert_eq!(
        web.requests().len(),
        before,
        "not even robots.txt was requested"
    );
    // and an IP-literal seed on loopback likewise
    let cfg = CrawlConfig {
        seeds: vec![format!("http://{addr}/")],
        delay_ms: 0,
        ..Default::default()
    };
    let (_, dropped) = crawl_cfg(cfg).await;
    assert_eq!(dropped.get("private_address"), Some(&1));
    // a host name that DNS resolves to loopback (`localhost`) is refused by the resolver
    // while robots.txt is fetched: counted as private_address, not robots_unreachable
    let cfg = CrawlConfig {
        seeds: vec![format!("http://localhost:{}/", addr.port())],
        delay_ms: 0,
        ..Default::default()
    };
    let before = web.requests().len();
    let (_, dropped) = crawl_cfg(cfg).await;
    assert_eq!(dropped.get("private_address"), Some(&1), "{dropped:?}");
    assert_eq!(dropped.get("robots_unreachable"), None, "{dropped:?}");
    assert_eq!(web.requests().len(), before, "nothing sent to localhost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_and_host_error_budget() {
    use std::time::Duration;
    use trawl_testweb::{Response, Site};
    let busy = Site::new("busy")
        .route(
            "/robots.txt",
            Response::text("User-agent: *\nCrawl-delay: 0.2\n"),
        )
        .route(
            "/",
            Response::html("<a href=\"/busy\">b</a><a href=\"/gone\">g</a>"),
        )
        .route_seq(
            "/busy",
            vec![
                Response::status(503).header("Retry-After", "1"),
                Response::status(429).header("Retry-After", "1"),
                Response::html("<p>finally</p>"),
            ],
        )
        .route("/gone", Response::status(503).header("Retry-After", "3600"));
    let mut failing = Site::new("failing").route("/robots.txt", Response::status(404));
    let mut links = String::new();
    for i in 0..12 {
        links.push_str(&format!("<a href=\"/e{i}\">e</a>"));
        failing = failing.route(&format!("/e{i}"), Response::status(500));
    }
    failing = failing.route("/", Response::html(links));
    let web = TestWeb::start(vec![busy, failing]).await.unwrap();
    let seeds = vec![
        format!("{}/", web.base_url("busy").unwrap()),
        format!("{}/", web.base_url("failing").unwrap()),
    ];
    let cfg = CrawlConfig {
        seeds,
        delay_ms: 0,
        allow_private_addresses: true,
        host_error_budget: 5,
        max_backoff_secs: 10,
        ..Default::default()
    };
    let (parts, dropped) = crawl_cfg(cfg).await;
    let pages: Vec<_> = parts.iter().flat_map(|p| p.pages.iter()).collect();
    let b = pages
        .iter()
        .find(|p| p.url.ends_with("/busy"))
        .expect("busy page fetched after retries");
    assert_eq!(b.status, 200);
    // Retry-After honoured: the retries came at least 1 s after each refusal
    let times: Vec<_> = web
        .request_times()
        .into_iter()
        .filter(|(_, p, _)| p == "/busy")
        .map(|(_, _, t)| t)
        .collect();
    assert_eq!(times.len(), 3);
    assert!(
        times[1] - times[0] >= Duration::from_millis(950)
            && times[2] - times[1] >= Duration::from_millis(950),
        "{times:?}"
    );
    // Crawl-delay honoured between ordinary requests of a host
    let root_then_busy: Vec<_> = web
        .request_times()
        .into_iter()
        .filter(|(h, p, _)| {
            // robots.txt and TDMRep's well-known file are fetched together, before pages
            h == &web.base_url("busy").unwrap().replace("http://", "")
                && p != "/robots.txt"
                && p != "/.well-known/tdmrep.json"
        })
        .map(|(_, _, t)| t)
        .collect();
    for w in root_then_busy.windows(2) {
        assert!(
            w[1] - w[0] >= Duration::from_millis(190),
            "requests to one host closer than Crawl-delay"
        );
    }
    assert_eq!(
        dropped.get("server_overloaded"),
        Some(&1),
        "a Retry-After of an hour is beyond the cap: {dropped:?}"
    );
    // 5 consecutive 500s exhaust the budget; the other 7 URLs are not requested
    assert_eq!(dropped.get("host_error_budget"), Some(&7), "{dropped:?}");
    let failing_requests = web
        .requests()
        .iter()
        .filter(|(_, p)| p.starts_with("/e"))
        .count();
    assert_eq!(failing_requests, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn priorities_and_host_share_decide_what_the_budget_keeps() {
    use trawl_testweb::{Response, Site};
    let mut big = Site::new("big").route("/robots.txt", Response::status(404));
    let mut links = String::new();
    for i in 0..30 {
        links.push_str(&format!(
            "<a href=\"/tag/t{i}\">t</a><a href=\"/article/{i}\">a</a>"
        ));
        big = big
            .route(&format!("/tag/t{i}"), Response::html("<p>tag page</p>"))
            .route(&format!("/article/{i}"), Response::html("<p>article</p>"));
    }
    links.push_str("<a href=\"/login?next=/\">login</a>");
    big = big.route("/", Response::html(links));
    let mut small = Site::new("small").route("/robots.txt", Response::status(404));
    let mut slinks = String::new();
    for i in 0..4 {
        slinks.push_str(&format!("<a href=\"/p{i}\">p</a>"));
        small = small.route(&format!("/p{i}"), Response::html("<p>small site page</p>"));
    }
    small = small.route("/", Response::html(slinks));
    let web = TestWeb::start(vec![big, small]).await.unwrap();
    let seeds = vec![
        format!("{}/", web.base_url("big").unwrap()),
        format!("{}/", web.base_url("small").unwrap()),
    ];
    let mut cfg = CrawlConfig {
        seeds,
        delay_ms: 0,
        allow_private_addresses: true,
        max_pages: 20,
        sitemaps: false,
        ..Default::default()
    };
    cfg.priority.max_host_share = 0.5;
    let (parts, dropped) = crawl_cfg(cfg).await;
    let urls = page_urls(&parts);
    let big_host = web.base_url("big").unwrap();
    let on_big = urls.iter().filter(|u| u.starts_with(&big_host)).count();
    assert!(
        on_big <= 10,
        "max_host_share 0.5 of 20 pages: {on_big} on the big host"
    );
    assert_eq!(
        urls.iter().filter(|u| !u.starts_with(&big_host)).count(),
        5,
        "every page of the small host fits"
    );
    assert!(
        urls.iter().filter(|u| u.contains("/article/")).count() >= 8,
        "articles outrank tag pages: {urls:?}"
    );
    assert!(
        !urls
            .iter()
            .any(|u| u.contains("/tag/") || u.contains("/login")),
        "{urls:?}"
    );
    assert!(dropped.get("budget_exhausted").copied().unwrap_or(0) > 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_redirects_size_limit_and_cache_rules() {
    use std::time::Duration;
    use trawl_testweb::{Response, Site};
    let links = Response::html("<a href=\"/blocked\">b</a><a href=\"/ok\">o</a><a href=\"/early\">e</a><a href=\"/late\">l</a>");
    let page = || Response::html("<p>page</p>");
    let common = |s: Site| {
        s.route("/", links.clone())
            .route("/blocked", page())
            .route("/ok", page())
            .route("/early", page())
            .route("/late", page())
    };
    // five redirects: followed, the rules apply
    let mut five = common(Site::new("five")).route("/robots.txt", Response::redirect(301, "/r1"));
    for i in 1..5 {
        five = five.route(
            &format!("/r{i}"),
            Response::redirect(302, &format!("/r{}", i + 1)),
        );
    }
    five = five.route("/r5", Response::text("User-agent: *\nDisallow: /blocked\n"));
    // six redirects: robots.txt is unavailable, everything allowed
    let mut six = common(Site::new("six")).route("/robots.txt", Response::redirect(301, "/r1"));
    for i in 1..6 {
        six = six.route(
            &format!("/r{i}"),
            Response::redirect(302, &format!("/r{}", i + 1)),
        );
    }
    six = six.route("/r6", Response::text("User-agent: *\nDisallow: /\n"));
    // a redirect to another host's file: its rules apply to the original host
    let cross = common(Site::new("cross")).route(
        "/robots.txt",
        Response::redirect(301, "{{site:other}}/shared-robots.txt"),
    );
    let other = common(Site::new("other"))
        .route("/robots.txt", Response::status(404))
        .route(
            "/shared-robots.txt",
            Response::text("User-agent: *\nDisallow: /blocked\n"),
        );
    // 500 KiB: rules after the cut are ignored
    let mut big_body = String::from("User-agent: *\nDisallow: /early\n");
    while big_body.len() < 520 * 1024 {
        big_body.push_str(
            "# padding padding padding padding padding padding padding padding padding\n",
        );
    }
    big_body.push_str("Disallow: /late\n");
    let big = common(Site::new("big")).route("/robots.txt", Response::text(big_body));
    // the cache: after max_age the file is fetched again; a failed refresh keeps the copy
    let cached = Site::new("cached")
        .route_seq(
            "/robots.txt",
            vec![
                Response::text("User-agent: *\nDisallow: /blocked\n"),
                Response::status(503),
            ],
        )
        .route("/", links.clone().delayed(Duration::from_millis(1300)))
        .route("/blocked", page())
        .route("/ok", page())
        .route("/early", page())
        .route("/late", page());
    let web = TestWeb::start(vec![five, six, cross, other, big, cached])
        .await
        .unwrap();
    let seeds: Vec<String> = ["five", "six", "cross", "big", "cached"]
        .iter()
        .map(|n| format!("{}/", web.base_url(n).unwrap()))
        .collect();
    let cfg = CrawlConfig {
        seeds,
        delay_ms: 0,
        allow_private_addresses: true,
        sitemaps: false,
        robots_max_age_secs: 1,
        max_depth: 1,
        ..Default::default()
    };
    crawl_cfg(cfg).await;
    let got = |site: &str, path: &str| {
        let h = web.base_url(site).unwrap().replace("http://", "");
        web.requests()
            .iter()
            .any(|(host, p)| *host == h && p == path)
    };
    assert!(
        !got("five", "/blocked") && got("five", "/ok"),
        "five redirects followed, Disallow obeyed"
    );
    assert!(
        got("six", "/blocked"),
        "six redirects: unavailable, allow all"
    );
    assert!(
        !got("cross", "/blocked") && got("cross", "/ok"),
        "rules fetched through a cross-host redirect apply to the original host"
    );
    assert!(
        !got("other", "/blocked"),
        "other host not crawled (not a seed)"
    );
    assert!(
        !got("big", "/early") && got("big", "/late"),
        "rules beyond 500 KiB are ignored"
    );
    let cached_robots = web
        .requests()
        .iter()
        .filter(|(h, p)| {
            *h == web.base_url("cached").unwrap().replace("http://", "") && p == "/robots.txt"
        })
        .count();
    assert_eq!(cached_robots, 2, "fetched again after max_age");
    assert!(
        !got("cached", "/blocked") && got("cached", "/ok"),
        "a failed refresh keeps the cached rules"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downstream_quality_of_an_earlier_batch_steers_the_budget() {
    use trawl_testweb::{Response, Site};
    let mk = |name: &str| {
        let mut s = Site::new(name)
            .route("/robots.txt", Response::status(404))
            .route(
            "/",
            Response::html(
                "<a href=\"/a\">a</a><a href=\"/b\">b</a><a href=\"/c\">c</a><a href=\"/d\">d</a>",
            ),
        );
        for p in ["/a", "/b", "/c", "/d"] {
            s = s.route(p, Response::html("<p>x</p>"));
        }
        s
    };
    // `poor` gets the lower address, so without the feedback it would win every tie
    let web = TestWeb::start(vec![mk("poor"), mk("good")]).await.unwrap();
    let (good, poor) = (web.base_url("good").unwrap(), web.base_url("poor").unwrap());
    // an earlier batch: 9 of 10 documents of `good` survived, 1 of 10 of `poor`
    let prev = tempfile::tempdir().unwrap();
    let prev_root =
        Storage::open(prev.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let docs = |host: &str, n: usize| {
        (0..n)
            .map(|i| format!("{{\"id\":\"{host}{i}\",\"url\":\"{host}/x{i}\",\"text\":\"t\"}}\n"))
            .collect::<String>()
    };
    prev_root
        .put(
            "extract/00000.jsonl",
            format!("{}{}", docs(&good, 10), docs(&poor, 10))
                .into_bytes()
                .into(),
        )
        .await
        .unwrap();
    prev_root
        .put(
            "dedup/00000.jsonl",
            format!("{}{}", docs(&good, 9), docs(&poor, 1))
                .into_bytes()
                .into(),
        )
        .await
        .unwrap();
    let mut cfg = CrawlConfig {
        seeds: vec![format!("{good}/"), format!("{poor}/")],
        delay_ms: 0,
        allow_private_addresses: true,
        sitemaps: false,
        max_pages: 5,
        ..Default::default()
    };
    cfg.priority.max_host_share = 1.0;
    cfg.priority.quality_from = Some(prev.path().display().to_string());
    let (parts, _) = crawl_cfg(cfg).await;
    let urls = page_urls(&parts);
    let on = |h: &str| urls.iter().filter(|u| u.starts_with(h)).count();
    assert_eq!(urls.len(), 5);
    assert_eq!((on(&good), on(&poor)), (3, 2), "after both roots, the 3 remaining pages go round-robin starting with the better host: {urls:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_from_a_file() {
    let web = TestWeb::start(demo::sites()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("seeds.txt");
    std::fs::write(
        &f,
        format!("# nightly seeds\n{}\n\n", demo::seeds(&web).join("\n")),
    )
    .unwrap();
    let cfg = CrawlConfig {
        seeds_file: Some(f.display().to_string()),
        delay_ms: 0,
        allow_private_addresses: true,
        max_depth: 0,
        sitemaps: false,
        ..Default::default()
    };
    let (parts, _) = crawl_cfg(cfg).await;
    assert_eq!(
        parts.iter().map(|p| p.pages.len()).sum::<usize>(),
        2,
        "both seeds of the file, nothing deeper"
    );
    let bad = CrawlConfig {
        seeds_file: Some("/no/such/seeds.txt".into()),
        ..Default::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "crawl.seeds_file");
}

/// A round goes through in chunks of its order (`frontier_chunk`), its queue on disk: the
/// pages, their order in the parts and the exclusions are those of the round taken at once,
/// with page and host budgets cutting and priorities ordering; the same with the seen set on
/// disk (`seen_on_disk`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_in_small_chunks_write_the_same_parts() {
    let web = TestWeb::start(trawl_testweb::demo::sites()).await.unwrap();
    let cfg = |chunk: usize, seen_on_disk: bool| CrawlConfig {
        seeds: trawl_testweb::demo::seeds(&web),
        delay_ms: 0,
        allow_private_addresses: true,
        max_pages: 25,
        pages_per_part: 4,
        frontier_chunk: chunk,
        seen_on_disk,
        priority: trawl_crawler::PriorityConfig {
            max_host_share: 0.3,
            path_weights: [("/post".to_string(), 1.0)].into_iter().collect(),
            ..Default::default()
        },
        ..Default::default()
    };
    let listing = |parts: &[trawl_crawler::CrawlPart]| -> Vec<(usize, Vec<String>, String)> {
        parts
            .iter()
            .map(|p| {
                (
                    p.index,
                    p.pages.iter().map(|pg| pg.url.clone()).collect(),
                    serde_json::to_string(&p.stats).unwrap(),
                )
            })
            .collect()
    };
    let (whole, dropped) = crawl_cfg(cfg(10_000, false)).await;
    assert!(
        dropped.get("budget_exhausted").copied().unwrap_or(0) > 0,
        "the budget cuts: {dropped:?}"
    );
    for (chunk, on_disk) in [(1, false), (3, false), (3, true), (10_000, true)] {
        let (parts, d) = crawl_cfg(cfg(chunk, on_disk)).await;
        assert_eq!(
            listing(&parts),
            listing(&whole),
            "chunks of {chunk}, seen set on disk: {on_disk}"
        );
        assert_eq!(d, dropped);
    }
}

/// A host answering 503 with Retry-After waits out its backoff while the crawl goes on: the
/// pages of other hosts, at every depth, are fetched in the meantime, and the refused page is
/// fetched (with its links) once the backoff ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_in_backoff_does_not_delay_other_hosts() {
    use std::time::Duration;
    use trawl_testweb::{Response, Site};
    let backoff = Site::new("backoff")
        .route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"))
        .route_seq(
            "/",
            vec![
                Response::status(503).header("Retry-After", "3"),
                Response::html("<a href=\"/after\">after</a>"),
            ],
        )
        .route("/after", Response::html("<p>found after the backoff</p>"));
    let mut chain = Site::new("chain").route("/robots.txt", Response::text("User-agent: *\n"));
    for i in 0..6 {
        chain = chain.route(
            &format!("/{}", if i == 0 { String::new() } else { i.to_string() }),
            Response::html(format!("<a href=\"/{}\">next</a>", i + 1)),
        );
    }
    let web = TestWeb::start(vec![backoff, chain]).await.unwrap();
    let cfg = CrawlConfig {
        seeds: vec![
            format!("{}/", web.base_url("backoff").unwrap()),
            format!("{}/", web.base_url("chain").unwrap()),
        ],
        delay_ms: 0,
        allow_private_addresses: true,
        max_backoff_secs: 10,
        sitemaps: false,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let (parts, dropped) = crawl_cfg(cfg).await;
    let took = t0.elapsed();
    let pages: Vec<_> = parts.iter().flat_map(|p| p.pages.iter()).collect();
    let status = |suffix: &str| {
        pages
            .iter()
            .find(|p| p.url.ends_with(suffix) && p.url.contains(&web.hosts()[0].1.to_string()))
            .map(|p| p.status)
    };
    assert_eq!(
        status("/"),
        Some(200),
        "the refused page is fetched after the backoff"
    );
    assert_eq!(
        status("/after"),
        Some(200),
        "and its links followed: {dropped:?}"
    );
    let times = web.request_times();
    let at = |host: usize, path: &str| -> Vec<std::time::Instant> {
        let h = web.hosts()[host].1.to_string();
        times
            .iter()
            .filter(|(hh, p, _)| *hh == h && p == path)
            .map(|(_, _, t)| *t)
            .collect()
    };
    let refused = at(0, "/");
    assert_eq!(refused.len(), 2, "one 503, one retry");
    assert!(refused[1] - refused[0] >= Duration::from_millis(2950));
    // the chain's deepest page (depth 5, max_depth) came long before the backoff ended
    let deepest = at(1, "/5");
    assert_eq!(deepest.len(), 1);
    assert!(
        deepest[0] < refused[0] + Duration::from_millis(1500),
        "the other host waited for the backoff: its depth-5 page came {:?} after the 503",
        deepest[0] - refused[0]
    );
    assert!(took < Duration::from_secs(8), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_robots_and_sitemap_hosts_cost_one_timeout_not_one_each() {
    // five hosts whose robots.txt never answers, five whose sitemap never answers, one that
    // works: hosts are read at once, so the crawl waits about one timeout for all ten (one
    // at a time it was ten)
    use std::time::Duration;
    use trawl_testweb::{Fault, Response, Site};
    let mut sites: Vec<Site> = (0..5)
        .map(|i| {
            Site::new(&format!("silent{i}"))
                .route("/robots.txt", Response::text("").fault(Fault::Hang))
                .route("/", Response::html("<p>never fetched</p>"))
        })
        .collect();
    sites.extend((0..5).map(|i| {
        Site::new(&format!("slowmap{i}"))
            .route("/robots.txt", Response::status(404))
            .route("/sitemap.xml", Response::text("").fault(Fault::Hang))
            .route("/", Response::html("<p>fetched</p>"))
    }));
    sites.push(
        Site::new("fine")
            .route("/robots.txt", Response::status(404))
            .route("/", Response::html("<p>fine</p>")),
    );
    let web = TestWeb::start(sites).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = Storage::open(dir.path().to_str().unwrap(), &StorageConfig::default()).unwrap();
    let timeout = 3;
    let seeds: Vec<String> = web
        .hosts()
        .iter()
        .map(|(name, _)| format!("{}/", web.base_url(name).unwrap()))
        .collect();
    let cfg = CrawlConfig {
        seeds,
        delay_ms: 0,
        timeout_secs: timeout,
        max_retries: 0,
        allow_private_addresses: true,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let parts = common::run(Crawler::new(cfg).unwrap(), &root).await;
    let took = t0.elapsed();
    // one at a time the ten would take at least 10 x 3 s
    assert!(
        took < Duration::from_secs(3 * timeout),
        "ten silent hosts took {took:?}"
    );
    let fetched: BTreeSet<String> = page_urls(&parts).into_iter().collect();
    let expected: BTreeSet<String> = web
        .hosts()
        .iter()
        .filter(|(n, _)| !n.starts_with("silent"))
        .map(|(n, _)| format!("{}/", web.base_url(n).unwrap()))
        .collect();
    assert_eq!(fetched, expected);
    // each silent file was asked for once
    for (name, addr) in web.hosts().iter() {
        let path = match name {
            n if n.starts_with("silent") => "/robots.txt",
            n if n.starts_with("slowmap") => "/sitemap.xml",
            _ => continue,
        };
        let asked = web
            .requests()
            .iter()
            .filter(|(h, p)| *h == addr.to_string() && p == path)
            .count();
        assert_eq!(asked, 1, "{name}{path}: {:?}", web.requests());
    }
}
