//! A crawl by several worker processes at once (`trawl crawl --shard i/n`) against the S3
//! test server, on a loopback web of many hosts: the same pages as one worker, each
//! registered domain in one worker, every URL and robots.txt requested once, crawl delays held,
//! and a worker killed with SIGKILL and rerun ends with the same WARC parts.

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use trawl_testweb::{Response, Site, TestWeb};
use url::Url;

use crate::support::{s3s_fs, trawl, S3Server};

const HOSTS: usize = 32;
const WORKERS: usize = 3;
/// Hosts whose robots.txt asks for this Crawl-delay (seconds).
const CRAWL_DELAY: f64 = 0.3;

/// Host names: three subdomains of one registered domain, four more named hosts, the rest
/// IP literals (each its own registered domain).
fn host(k: usize) -> String {
    match k {
        0 => "www.shop.test".into(),
        1 => "blog.shop.test".into(),
        2 => "docs.shop.test".into(),
        3..=6 => format!("site{k}.test"),
        _ => format!("127.0.0.{}", 2 + k),
    }
}

fn base(k: usize, port: u16) -> String {
    format!("http://{}:{port}", host(k))
}

fn slow_host(k: usize) -> bool {
    k % 8 == 1
}

/// The seed URLs: every fourth host's front page.
fn seeds(port: u16) -> Vec<String> {
    (0..HOSTS)
        .step_by(4)
        .map(|k| format!("{}/", base(k, port)))
        .collect()
}

/// The `[crawl.resolve]` lines that serve the named hosts from their loopback addresses.
fn resolve(port: u16) -> String {
    (0..7)
        .map(|k| format!("\"{}:{port}\" = \"127.0.0.{}:{port}\"", host(k), 2 + k))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Five pages per host, linked within the host and across hosts (three hops reach every
/// host from the seeds), one link robots.txt disallows.
fn sites(port: u16) -> Vec<Site> {
    (0..HOSTS)
        .map(|k| {
            let other = |d: usize, p: &str| format!("{}{p}", base((k + d) % HOSTS, port));
            let page = |links: Vec<String>| {
                let a: String = links
                    .iter()
                    .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
                    .collect();
                Response::html(format!(
                    "<html><body><h1>Host {k}</h1><p>Some text of host {k}.</p><ul>{a}</ul></body></html>"
                ))
            };
            let robots = if slow_host(k) {
                format!("User-agent: *\nDisallow: /private\nCrawl-delay: {CRAWL_DELAY}\n")
            } else {
                "User-agent: *\nDisallow: /private\n".to_string()
            };
            Site::new(&format!("h{k}"))
                .route("/robots.txt", Response::text(robots))
                .route(
                    "/",
                    page(vec!["/a".into(), "/b".into(), other(1, "/"), other(5, "/a")]),
                )
                .route(
                    "/a",
                    page(vec!["/c".into(), "/private/x".into(), other(13, "/")]),
                )
                .route("/b", page(vec!["/d".into(), other(2, "/b")]))
                .route("/c", page(vec!["/".into(), "/missing".into()]))
                .route("/d", page(vec![other(7, "/d")]))
                .route("/private/x", page(vec![]))
        })
        .collect()
}

/// A port free on every address the web binds.
fn free_port() -> u16 {
    for _ in 0..200 {
        let l = TcpListener::bind("127.0.0.2:0").expect("bind loopback");
        let port = l.local_addr().unwrap().port();
        drop(l);
        if (0..HOSTS).all(|k| TcpListener::bind(format!("127.0.0.{}:{port}", 2 + k)).is_ok()) {
            return port;
        }
    }
    panic!("no free port for the test web");
}

/// The URLs in a crawl's WARC parts, with the worker that wrote each part.
fn fetched(objects: &BTreeMap<String, Vec<u8>>, workers: usize) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (k, v) in objects {
        let Some(name) = k.strip_prefix("crawl/warc/") else {
            continue;
        };
        let index: usize = name.split('.').next().unwrap().parse().unwrap();
        let (pages, err) = trawl_storage::warc::read_pages(k, v);
        assert!(err.is_none(), "{k}: {err:?}");
        for p in pages {
            let prev = out.insert(p.url.clone(), index % workers);
            assert!(prev.is_none(), "{} is in two WARC records", p.url);
        }
    }
    out
}

/// Every exclusion of the crawl stage: (url, reason).
fn excluded(objects: &BTreeMap<String, Vec<u8>>) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (k, v) in objects {
        if !k.starts_with("excluded/crawl/") {
            continue;
        }
        for r in trawl_storage::jsonl::lines::<serde_json::Value>(k, v).unwrap() {
            let r = r.unwrap();
            out.insert((
                r["url"].as_str().unwrap().to_string(),
                r["reason"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

#[test]
fn three_crawl_workers_equal_one_and_survive_kill_9() {
    let Some(bin) = s3s_fs() else { return };
    let server = S3Server::start(&bin, &["crawl"]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let port = free_port();
    let web = rt
        .block_on(TestWeb::start_on(
            sites(port),
            port,
            Duration::from_millis(15),
        ))
        .unwrap();
    let addr_of: BTreeMap<String, usize> = web
        .hosts()
        .iter()
        .enumerate()
        .map(|(k, (_, a))| (a.to_string(), k))
        .collect();
    assert_eq!(addr_of.len(), HOSTS, "every site on its own address");
    let dir = tempfile::tempdir().unwrap();
    let resolve = resolve(port);
    let seeds = crate::support::toml_strings(seeds(port));
    let config = |name: &str| {
        let p = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &p,
            format!(
                "[crawl]\nseeds = [{}]\ndelay_ms = 0\nmax_depth = 8\npages_per_part = 7\nallow_private_addresses = true\nsitemaps = false\nstate_dir = \"{}\"\n[crawl.resolve]\n{}\n",
                seeds,
                dir.path().join(format!("journal-{name}")).display(),
                resolve
            ),
        )
        .unwrap();
        p
    };
    // written before any worker starts (a worker must not read a half-written file)
    let configs: BTreeMap<&str, std::path::PathBuf> = ["single", "multi", "killed"]
        .into_iter()
        .map(|n| (n, config(n)))
        .collect();
    let worker = |name: &str, shard: Option<(usize, usize)>| {
        let mut c = trawl();
        c.args(["crawl", "--quiet", "--config"])
            .arg(&configs[name])
            .args(["--output", &format!("s3://crawl/{name}")])
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if let Some((i, n)) = shard {
            c.args(["--shard", &format!("{i}/{n}")]);
        }
        server.env(&mut c);
        c.spawn().unwrap()
    };
    let finish = |c: std::process::Child, what: &str| {
        let o = c.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let objects = |name: &str| {
        crate::support::files(&server.dir.path().join("crawl").join(name))
            .into_iter()
            .filter(|(k, _)| !k.contains(".s3s"))
            .collect::<BTreeMap<_, _>>()
    };

    // one worker
    let t0 = Instant::now();
    finish(worker("single", None), "one worker");
    let one_secs = t0.elapsed().as_secs_f64();
    let single = objects("single");
    let one = fetched(&single, 1);
    // 32 hosts x 5 pages plus the 404s and the 403s of /private
    assert!(one.len() >= HOSTS * 5, "{} pages", one.len());

    // three workers at once
    let before = web.requests().len();
    let t0 = Instant::now();
    let children: Vec<_> = (0..WORKERS)
        .map(|i| worker("multi", Some((i, WORKERS))))
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        finish(c, &format!("worker {i}"));
    }
    let many_secs = t0.elapsed().as_secs_f64();
    let log: Vec<(String, String, Instant)> = web.request_times()[before..].to_vec();
    let multi = objects("multi");
    let many = fetched(&multi, WORKERS);
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        many.keys().collect::<Vec<_>>(),
        "three workers fetch the pages one worker fetches"
    );
    assert_eq!(
        excluded(&single),
        excluded(&multi),
        "and leave out the same URLs for the same reasons"
    );
    // every registered domain in one worker; the three subdomains of shop.test together
    let mut domain_workers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (u, w) in &many {
        let h = Url::parse(u).unwrap().host_str().unwrap().to_string();
        domain_workers
            .entry(trawl_crawler::partition::registered_domain(&h))
            .or_default()
            .insert(*w);
    }
    assert_eq!(domain_workers.len(), HOSTS - 2, "{domain_workers:?}");
    for (d, w) in &domain_workers {
        assert_eq!(w.len(), 1, "{d} crawled by workers {w:?}");
    }
    let used: BTreeSet<usize> = many.values().copied().collect();
    assert_eq!(used.len(), WORKERS, "every worker crawled some domains");
    // `trawl status` counts every worker's parts once all have ended
    let parts = multi
        .keys()
        .filter(|k| k.starts_with("crawl/warc/"))
        .count();
    let mut st = trawl();
    st.args(["status", "s3://crawl/multi"]);
    server.env(&mut st);
    let out = crate::support::ok(&mut st);
    assert!(
        out.lines()
            .any(|l| l.starts_with("crawl ") && l.contains(&format!("{parts}/{parts}"))),
        "{parts} parts: {out}"
    );
    // server side: each URL and each robots.txt requested once; crawl delays held
    let mut requested: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (h, p, _) in &log {
        *requested.entry((h.clone(), p.clone())).or_default() += 1;
    }
    let twice: Vec<_> = requested.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
    let robots = requested.keys().filter(|(_, p)| p == "/robots.txt").count();
    assert_eq!(robots, HOSTS, "robots.txt once per host");
    let mut last: BTreeMap<&str, Instant> = BTreeMap::new();
    let mut gaps = 0;
    for (h, p, t) in &log {
        // policy files (robots.txt, /.well-known/tdmrep.json) are read before the first page
        if p == "/robots.txt" || p.starts_with("/.well-known/") || !slow_host(addr_of[h]) {
            continue;
        }
        if let Some(prev) = last.insert(h, *t) {
            let gap = t.duration_since(prev).as_secs_f64();
            assert!(
                gap >= CRAWL_DELAY * 0.95,
                "{h}{p}: {gap:.3} s after the previous request, Crawl-delay {CRAWL_DELAY}"
            );
            gaps += 1;
        }
    }
    assert!(gaps >= 8, "crawl delays checked on {gaps} gaps");
    eprintln!(
        "{} pages: one worker {one_secs:.1} s, three workers {many_secs:.1} s; {} link objects",
        many.len(),
        multi
            .keys()
            .filter(|k| k.starts_with("crawl/links/"))
            .count()
    );

    // three workers again, worker 1 killed mid-crawl and rerun
    let owner = |h: &str| {
        let k = addr_of[h];
        trawl_crawler::partition::owner(&Url::parse(&base(k, port)).unwrap(), WORKERS)
    };
    let before = web.requests().len();
    let mut children: Vec<_> = (0..WORKERS)
        .map(|i| Some(worker("killed", Some((i, WORKERS)))))
        .collect();
    let mine = |from: usize| {
        web.requests()[from..]
            .iter()
            .filter(|(h, p)| p != "/robots.txt" && owner(h) == 1)
            .count()
    };
    let total_1 = many.values().filter(|w| **w == 1).count();
    let t0 = Instant::now();
    while mine(before) < total_1 / 2 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut victim = children[1].take().unwrap();
    let killed = victim.try_wait().unwrap().is_none();
    victim.kill().unwrap();
    victim.wait().unwrap();
    assert!(killed, "worker 1 finished before it could be killed");
    eprintln!(
        "worker 1 killed after {} of its {total_1} pages",
        mine(before)
    );
    std::thread::sleep(Duration::from_millis(300));
    children[1] = Some(worker("killed", Some((1, WORKERS))));
    for (i, c) in children.into_iter().enumerate() {
        finish(c.unwrap(), &format!("worker {i} of the killed crawl"));
    }
    let killed_run = objects("killed");
    let warcs = |o: &BTreeMap<String, Vec<u8>>| {
        o.iter()
            .filter(|(k, _)| k.starts_with("crawl/warc/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    let (a, b) = (warcs(&multi), warcs(&killed_run));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(
            b[k] == *v,
            "{k} differs after worker 1 was killed and rerun"
        );
    }
    assert_eq!(excluded(&multi), excluded(&killed_run));
}

/// A run root crawled by three workers refuses a crawl by another number of workers, and a
/// worker whose partners never come stops with an error naming them.
#[test]
fn crawl_workers_refuse_a_mismatch_and_name_a_missing_worker() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt
        .block_on(TestWeb::start(vec![
            Site::new("a").route("/", Response::html("<p>one page</p>"))
        ]))
        .unwrap();
    let seed = format!("{}/", web.base_url("a").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[crawl]\nseeds = [\"{seed}\"]\ndelay_ms = 0\nallow_private_addresses = true\nworker_timeout_secs = 2\nstate_dir = \"{}\"\n",
            dir.path().join("j").display()
        ),
    )
    .unwrap();
    let root = dir.path().join("run");
    let run = |shard: &str| {
        let mut c = trawl();
        c.args(["crawl", "--quiet", "--config"])
            .arg(&cfg)
            .arg("--output")
            .arg(&root)
            .args(["--shard", shard]);
        c.output().unwrap()
    };
    let o = run("0/2");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("worker 1/2") && err.contains("round 0"),
        "names the missing worker: {err}"
    );
    let o = run("0/3");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("crawl by 2 worker") && err.contains("--shard i/2"),
        "refuses another worker count: {err}"
    );
    // one process with --force starts the root over, whatever crawled it before (and no part
    // of the earlier crawl stays for the stages after it)
    std::fs::create_dir_all(root.join("crawl/warc")).unwrap();
    std::fs::write(
        root.join("crawl/warc/00007.warc.gz"),
        b"an earlier crawl's part",
    )
    .unwrap();
    let o = run("0/1");
    assert!(
        !o.status.success(),
        "without --force the root stays refused"
    );
    let mut c = trawl();
    c.args(["crawl", "--quiet", "--force", "--config"])
        .arg(&cfg)
        .arg("--output")
        .arg(&root);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(root.join("crawl/state.json").exists());
    assert!(
        crate::support::files(&root.join("crawl"))
            .keys()
            .all(|k| !k.starts_with("links/") && !k.starts_with("state/")),
        "the two-worker crawl's link objects and states are gone"
    );
    assert!(!root.join("crawl/warc/00007.warc.gz").exists());
    assert!(root.join("crawl/warc/00000.warc.gz").exists());
}

/// English prose for a page: sentences picked by host and page, so pages differ and some
/// repeat one another (near duplicates for dedup).
fn prose(k: usize, page: usize) -> String {
    const S: [&str; 12] = [
        "The river runs past the old mill where the town keeps its records of every flood.",
        "Each spring the farmers gather in the square to trade seeds and stories about the weather.",
        "A narrow bridge of grey stone connects the market to the houses on the northern bank.",
        "Children learn to swim in the shallow bend below the church when the summer is warm.",
        "The library opens late on Thursdays so that workers from the factory can borrow books.",
        "Visitors often ask why the clock on the tower has been stopped at a quarter past four.",
        "In the autumn the hills turn red and the roads fill with people who come to walk.",
        "The baker starts before dawn, and by seven the smell of bread reaches the station.",
        "Old maps in the museum show a second road that was lost when the valley was flooded.",
        "Most families here have kept bees for generations and sell honey at the Saturday fair.",
        "The school was built with money raised by a concert that lasted for three whole days.",
        "When the snow comes the buses stop running and the village depends on its own stores.",
    ];
    (0..8)
        .map(|j| S[(k * 5 + page * 3 + j * 7) % S.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// `trawl run --shard i/3`: three workers crawl and stream their parts through extract and
/// filter into one run root (the same documents as one worker); dedup and shards then run
/// over all of them as batch phases.
#[test]
fn three_run_workers_then_batch_phases() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let port = free_port();
    let sites: Vec<Site> = (0..HOSTS)
        .map(|k| {
            let page = |p: usize, links: &[String]| {
                let a: String = links
                    .iter()
                    .map(|l| format!("<li><a href=\"{l}\">more</a></li>"))
                    .collect();
                Response::html(format!(
                    "<html><head><title>Host {k} page {p}</title></head><body><article><h1>Notes from host {k}</h1><p>{}</p></article><ul>{a}</ul></body></html>",
                    prose(k, p)
                ))
            };
            let other = |d: usize| format!("{}/", base((k + d) % HOSTS, port));
            Site::new(&format!("h{k}"))
                .route("/robots.txt", Response::text("User-agent: *\n"))
                .route("/", page(0, &["/a".into(), other(1), other(9)]))
                .route("/a", page(1, &["/b".into(), other(3)]))
                .route("/b", page(2, &[]))
        })
        .collect();
    let _web = rt
        .block_on(TestWeb::start_on(sites, port, Duration::ZERO))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let resolve = resolve(port);
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[crawl]\nseeds = [\"{}/\", \"{}/\"]\ndelay_ms = 0\npages_per_part = 9\nallow_private_addresses = true\nsitemaps = false\nstate_dir = \"{}\"\n[crawl.resolve]\n{}\n[filter]\nmin_words = 20\n[captions]\nenabled = false\n",
            base(0, port),
            base(16, port),
            dir.path().join("journal").display(),
            resolve
        ),
    )
    .unwrap();
    let run = |out: &str, shard: Option<&str>| {
        let mut c = trawl();
        c.args(["run", "--quiet", "--config"])
            .arg(&cfg)
            .arg("--output")
            .arg(dir.path().join(out))
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if let Some(s) = shard {
            c.args(["--shard", s]);
        }
        c.spawn().unwrap()
    };
    let wait = |c: std::process::Child, what: &str| {
        let o = c.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    wait(run("single", None), "one worker");
    let children: Vec<_> = (0..WORKERS)
        .map(|i| run("multi", Some(&format!("{i}/{WORKERS}"))))
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        wait(c, &format!("run worker {i}"));
    }
    // the documents each stage kept or left out, whatever part they are in
    let docs = |root: &str, stage: &str| -> BTreeSet<(String, String)> {
        let files = crate::support::files(&dir.path().join(root).join(stage));
        let mut out = BTreeSet::new();
        for (k, v) in files {
            if !trawl_storage::docs::is_documents(&k) {
                continue;
            }
            for r in trawl_storage::jsonl::lines::<serde_json::Value>(&k, &v).unwrap() {
                let r = r.unwrap();
                out.insert((
                    r["url"].as_str().unwrap().to_string(),
                    r["text"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
        out
    };
    for stage in ["extract", "filter"] {
        let (a, b) = (docs("single", stage), docs("multi", stage));
        assert!(a.len() >= HOSTS, "{stage}: {} documents", a.len());
        assert_eq!(a, b, "{stage}: three workers keep what one keeps");
    }
    let (a, b) = (
        excluded_dir(&dir.path().join("single")),
        excluded_dir(&dir.path().join("multi")),
    );
    assert_eq!(a, b, "and leave out the same records for the same reasons");
    assert!(
        !dir.path().join("multi/dedup").exists(),
        "dedup waits for the batch phase"
    );
    // the batch phases over every worker's output
    let multi = dir.path().join("multi");
    let phases: Vec<(Vec<&str>, Option<&str>, usize)> = vec![
        (vec!["dedup", "signatures"], Some("filter"), WORKERS),
        (vec!["dedup", "buckets"], None, WORKERS),
        (vec!["dedup", "clusters"], None, 1),
        (vec!["dedup", "apply"], Some("filter"), WORKERS),
        (vec!["shards"], Some("dedup"), WORKERS),
    ];
    for (cmd, input, n) in phases {
        let children: Vec<_> = (0..n)
            .map(|i| {
                let mut c = trawl();
                c.args(&cmd)
                    .args(["--quiet", "--wait", "60", "--shard", &format!("{i}/{n}")])
                    .arg("--config")
                    .arg(&cfg)
                    .arg("--output")
                    .arg(&multi)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                if let Some(inp) = input {
                    c.arg("--input").arg(multi.join(inp));
                }
                c.spawn().unwrap()
            })
            .collect();
        for c in children {
            wait(c, &format!("{cmd:?}"));
        }
    }
    // the pages are rotations of twelve sentences: near duplicates across every worker's
    // domains, which only a dedup over all workers' documents can find
    let kept = docs("multi", "dedup");
    let filtered = docs("multi", "filter");
    assert!(
        !kept.is_empty() && kept.len() * 2 < filtered.len(),
        "{} of {} kept",
        kept.len(),
        filtered.len()
    );
    assert!(kept.is_subset(&filtered));
    let workers_kept: BTreeSet<usize> = kept
        .iter()
        .map(|(u, _)| trawl_crawler::partition::owner(&Url::parse(u).unwrap(), WORKERS))
        .collect();
    assert!(multi.join("shards/manifest.json").exists());
    eprintln!(
        "{} documents after filter, {} after the batch dedup (from {} workers' domains)",
        filtered.len(),
        kept.len(),
        workers_kept.len()
    );
}

/// Every exclusion under a local run root: (stage folder, url, reason).
fn excluded_dir(root: &std::path::Path) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for (k, v) in crate::support::files(&root.join("excluded")) {
        let stage = k.split('/').next().unwrap().to_string();
        if stage == "dedup" {
            continue;
        }
        for r in trawl_storage::jsonl::lines::<serde_json::Value>(&k, &v).unwrap() {
            let r = r.unwrap();
            out.insert((
                stage.clone(),
                r["url"].as_str().unwrap_or_default().to_string(),
                r["reason"].as_str().unwrap_or_default().to_string(),
            ));
        }
    }
    out
}

/// A later batch may use another number of workers: the URLs a crawl by three workers left
/// for lack of budget are the frontier of a crawl by two (`continue_from`).
#[test]
fn a_later_batch_continues_with_another_worker_count() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let port = free_port();
    let _web = rt
        .block_on(TestWeb::start_on(sites(port), port, Duration::ZERO))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let resolve = resolve(port);
    let seeds = seeds(port);
    let quoted = crate::support::toml_strings(&seeds);
    let batch = |name: &str, n: usize, extra: &str| {
        let cfg = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &cfg,
            format!(
                "[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\nsitemaps = false\nstate_dir = \"{}\"\n{extra}\n[crawl.resolve]\n{}\n",
                quoted,
                dir.path().join(format!("journal-{name}")).display(),
                resolve
            ),
        )
        .unwrap();
        let children: Vec<_> = (0..n)
            .map(|i| {
                let mut c = trawl();
                c.args(["crawl", "--quiet", "--config"])
                    .arg(&cfg)
                    .arg("--output")
                    .arg(dir.path().join(name))
                    .args(["--shard", &format!("{i}/{n}")])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                c.spawn().unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let root = dir.path().join(name);
        let objects: BTreeMap<String, Vec<u8>> = crate::support::files(&root);
        (fetched(&objects, n), excluded(&objects))
    };
    let (first, left) = batch("first", 3, "max_pages = 30");
    assert!(
        first.len() <= 30,
        "{} pages for a budget of 30",
        first.len()
    );
    let leftover: BTreeSet<String> = left
        .iter()
        .filter(|(_, r)| r == "budget_exhausted")
        .map(|(u, _)| u.clone())
        .collect();
    assert!(leftover.len() > 10, "{leftover:?}");
    let (second, _) = batch(
        "second",
        2,
        &format!(
            "max_depth = 0\ncontinue_from = \"{}\"",
            dir.path().join("first").display()
        ),
    );
    // the budget is checked before robots.txt: /private/ URLs were left for the budget and
    // are now left out as disallowed
    let mut want: BTreeSet<String> = leftover
        .iter()
        .filter(|u| !u.contains("/private/"))
        .cloned()
        .collect();
    want.extend(seeds.iter().cloned());
    assert_eq!(
        second.keys().cloned().collect::<BTreeSet<_>>(),
        want,
        "two workers fetch the seeds and what three workers left"
    );
}
