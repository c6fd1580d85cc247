use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use trawl_testweb::{demo, Fault, Response, Site, TestWeb};

fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_many_loopback_hosts_with_faults() {
    let sites = vec![
        Site::new("a")
            .route("/", Response::html("<a href=\"{{site:b}}/x\">b</a>"))
            .route("/t", Response::text("0123456789").fault(Fault::Truncate(3))),
        Site::new("b").route("/x", Response::text("x")),
    ];
    let web = TestWeb::start(sites).await.unwrap();
    let a = web.hosts()[0].1;
    let b = web.hosts()[1].1;
    assert!(a.ip().is_loopback() && b.ip().is_loopback());
    let b_base = web.base_url("b").unwrap();
    let (a_s, b_s) = (a.to_string(), b.to_string());
    let (r1, r2, r3) =
        tokio::task::spawn_blocking(move || (get(&a_s, "/"), get(&b_s, "/x"), get(&a_s, "/t")))
            .await
            .unwrap();
    assert!(r1.contains(&format!("{b_base}/x")), "{r1}");
    assert!(r2.ends_with("x"));
    assert!(
        r3.contains("Content-Length: 10") && r3.ends_with("012"),
        "{r3}"
    );
    assert_eq!(web.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_web_starts() {
    let web = TestWeb::start(demo::sites()).await.unwrap();
    assert_eq!(
        web.hosts().len(),
        7,
        "news, blog, wiki, shop, broken, photos, cdn"
    );
    assert_eq!(demo::seeds(&web).len(), 2);
    let addr = web.hosts()[0].1.to_string();
    let r = tokio::task::spawn_blocking(move || get(&addr, "/robots.txt"))
        .await
        .unwrap();
    assert!(r.contains("Disallow: /private/"));
}
