//! The resource (image) fetcher: the crawl's manners for every image, on the loopback web.

use std::time::{Duration, Instant};

use trawl_crawler::{CrawlConfig, ResourceFetcher, ResourceLimits};
use trawl_testweb::{Response, Site, TestWeb};

fn png(n: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.resize(n, 7);
    b
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_are_fetched_with_the_crawls_manners() {
    let a = Site::new("a")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.2\n\nUser-agent: trawl-extended\nDisallow: /no-train/\n"))
        .route("/1.png", Response::with_type(200, "image/png", png(100)))
        .route("/2.png", Response::with_type(200, "image/png", png(200)))
        .route("/3.png", Response::with_type(200, "image/png", png(300)))
        .route("/private/4.png", Response::with_type(200, "image/png", png(100)))
        .route("/no-train/5.png", Response::with_type(200, "image/png", png(100)))
        .route("/page.html", Response::html("<p>not an image</p>"))
        .route("/big.png", Response::with_type(200, "image/png", png(50_000)))
        .route("/gone.png", Response::status(404))
        .route("/moved.png", Response::redirect(301, "/private/4.png"))
        .route_seq("/busy.png", vec![Response::status(429).header("Retry-After", "1"), Response::with_type(200, "image/png", png(10))]);
    let b = Site::new("b")
        .route("/robots.txt", Response::status(503))
        .route("/x.png", Response::with_type(200, "image/png", png(10)));
    let web = TestWeb::start(vec![a, b]).await.unwrap();
    let (ua, ub) = (web.base_url("a").unwrap(), web.base_url("b").unwrap());
    let crawl = CrawlConfig {
        allow_private_addresses: true,
        delay_ms: 50,
        max_retries: 2,
        max_backoff_secs: 5,
        blocked_domains: vec!["blocked.example".into()],
        ..Default::default()
    };
    let limits = ResourceLimits {
        max_bytes: 10_000,
        timeout: Duration::from_secs(5),
        concurrency: 4,
        content_types: vec!["image/".into()],
    };
    let f = ResourceFetcher::new(&crawl, limits).unwrap();
    let names = [
        "1.png",
        "2.png",
        "3.png",
        "private/4.png",
        "no-train/5.png",
        "page.html",
        "big.png",
        "gone.png",
        "moved.png",
        "busy.png",
        "1.png",
    ];
    let mut urls: Vec<String> = names.iter().map(|n| format!("{ua}/{n}")).collect();
    urls.push(format!("{ub}/x.png"));
    urls.push("data:image/png;base64,iVBORw0KGgo=".into());
    urls.push("http://blocked.example/y.png".into());
    let t0 = Instant::now();
    let out = f.fetch_all(&urls, None).await;
    let elapsed = t0.elapsed();
    assert_eq!(
        out.len(),
        urls.len(),
        "one outcome per input, in input order"
    );
    let reason = |i: usize| {
        out[i]
            .as_ref()
            .err()
            .map(|(r, _)| r.as_str())
            .unwrap_or("ok")
    };
    let got: Vec<&str> = (0..urls.len()).map(reason).collect();
    assert_eq!(
        got,
        [
            "ok",
            "ok",
            "ok",
            "robots_disallowed",
            "ok",
            "wrong_content_type",
            "too_large",
            "http_status",
            "redirect_robots_disallowed",
            "ok",
            "ok",
            "robots_unreachable",
            "invalid_url",
            "out_of_scope"
        ]
    );
    let ok = |i: usize| out[i].as_ref().unwrap();
    assert_eq!(ok(1).body.len(), 200);
    assert!(
        ok(0).training_allowed && !ok(4).training_allowed,
        "the training token's rule travels with the image"
    );
    assert_eq!(ok(9).body.len(), 10, "429 retried after Retry-After");

    // each distinct URL requested once; nothing under Disallow requested
    let reqs = web.requests();
    let count = |p: &str| reqs.iter().filter(|(_, path)| path == p).count();
    assert_eq!(count("/1.png"), 1, "asked twice, fetched once");
    assert_eq!(count("/private/4.png"), 0);
    assert_eq!(count("/robots.txt"), 2, "one robots.txt per host");
    assert_eq!(
        count("/x.png"),
        0,
        "a host whose robots.txt fails is not fetched from"
    );
    // one request at a time per host, spaced by the Crawl-delay (0.2 s > delay_ms)
    let mut times: Vec<Instant> = web
        .request_times()
        .into_iter()
        .filter(|(h, p, _)| h == "a" && p != "/robots.txt")
        .map(|(_, _, t)| t)
        .collect();
    times.sort();
    for w in times.windows(2) {
        assert!(
            w[1].duration_since(w[0]) >= Duration::from_millis(190),
            "requests to one host closer than the Crawl-delay: {:?}",
            w[1].duration_since(w[0])
        );
    }
    assert!(
        elapsed >= Duration::from_secs(1),
        "the Retry-After second was waited"
    );

    // the SSRF guard: without allow_private_addresses, loopback images are refused unrequested
    let strict = ResourceFetcher::new(&CrawlConfig::default(), ResourceLimits::default()).unwrap();
    let before = web.requests().len();
    let out = strict.fetch_all(&[format!("{ua}/1.png")], None).await;
    assert_eq!(
        out[0].as_ref().err().map(|(r, _)| r.as_str()),
        Some("private_address")
    );
    assert_eq!(web.requests().len(), before);
}
