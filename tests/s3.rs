//! Object storage against a real S3-compatible server (s3s-fs, which verifies request
//! signatures) on 127.0.0.1: put, get, list, multipart, missing bucket, and a whole run.

use bytes::Bytes;
use trawl_storage::{Storage, StorageError};

use crate::support::{demo_port, ok, s3s_fs, trawl, S3Server};

#[test]
fn s3_put_get_list_multipart_and_missing_bucket() {
    let Some(bin) = s3s_fs() else { return };
    let server = S3Server::start(&bin, &["trawl-test"]);
    let cfg = server.storage_config();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let s = Storage::open("s3://trawl-test/run1", &cfg).unwrap();
        s.check().await.unwrap();
        s.put("a/1.txt", Bytes::from_static(b"one")).await.unwrap();
        s.put("a/2.txt", Bytes::from_static(b"two")).await.unwrap();
        assert_eq!(s.get("a/1.txt").await.unwrap(), Bytes::from_static(b"one"));
        assert_eq!(s.list("a").await.unwrap(), vec!["a/1.txt", "a/2.txt"]);
        assert!(s.exists("a/2.txt").await.unwrap());
        assert!(s.get_opt("a/3.txt").await.unwrap().is_none());
        // larger than the 5 MiB part size: a multipart upload
        let big: Vec<u8> = (0..12 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
        s.put("big.bin", Bytes::from(big.clone())).await.unwrap();
        assert_eq!(s.get("big.bin").await.unwrap().len(), big.len());
        assert!(s.get("big.bin").await.unwrap() == big);
        // the object really is on the server's disk
        assert!(server.dir.path().join("trawl-test/run1/big.bin").exists());

        // (s3s-fs creates a bucket folder on PUT, so the missing bucket is probed by the
        // reads and the listing every run starts with)
        let missing = Storage::open("s3://no-such-bucket/x", &cfg).unwrap();
        let err = missing.list("").await.unwrap_err();
        assert!(matches!(err, StorageError::BucketNotFound { .. }), "{err}");
        assert!(err.to_string().contains("no-such-bucket"), "{err}");
        let err = missing.check().await.unwrap_err();
        assert!(matches!(err, StorageError::BucketNotFound { .. }), "{err}");
        // wrong credentials are refused by the server, with a clear error
        let mut bad = cfg.clone();
        bad.secret_access_key = Some("wrong".into());
        let err = Storage::open("s3://trawl-test/run1", &bad)
            .unwrap()
            .get("a/1.txt")
            .await
            .unwrap_err();
        assert!(!matches!(err, StorageError::NotFound(_)), "{err}");
    });
}

#[test]
fn whole_run_to_s3() {
    let Some(bin) = s3s_fs() else { return };
    let server = S3Server::start(&bin, &["runs"]);
    let mut c = trawl();
    c.args([
        "run",
        "--quiet",
        "--demo-port",
        &demo_port().to_string(),
        "--output",
        "s3://runs/nightly/2026-11-21",
    ]);
    server.env(&mut c);
    let out = ok(&mut c);
    assert!(
        out.contains("s3://runs/nightly/2026-11-21/shards/manifest.json"),
        "{out}"
    );
    let root = server.dir.path().join("runs/nightly/2026-11-21");
    for f in [
        "shards/manifest.json",
        "report/index.html",
        "crawl/warc/00000.warc.gz",
        "_done/shards/00000",
        "shards/tokens/00000.bin",
    ] {
        assert!(root.join(f).exists(), "{f} missing on the S3 server");
    }
    // a takedown on S3 rewrites the shard holding the URL and the manifest
    let m: trawl_shards::Manifest =
        serde_json::from_slice(&std::fs::read(root.join("shards/manifest.json")).unwrap()).unwrap();
    let victim = m.shards[0].docs[0].url.clone();
    let list = server.dir.path().join("takedown.txt");
    std::fs::write(&list, format!("{victim}\n")).unwrap();
    let mut c = trawl();
    c.args([
        "shards",
        "takedown",
        "--output",
        "s3://runs/nightly/2026-11-21",
        "--urls",
    ])
    .arg(&list);
    server.env(&mut c);
    let out = ok(&mut c);
    assert!(out.contains("1 shards rewritten"), "{out}");
    let m2: trawl_shards::Manifest =
        serde_json::from_slice(&std::fs::read(root.join("shards/manifest.json")).unwrap()).unwrap();
    assert_eq!(m2.documents + 1, m.documents);
    assert!(root.join("takedown/urls.txt").exists());
    // a missing bucket is a clear failure, not a panic
    let mut c = trawl();
    c.args([
        "run",
        "--quiet",
        "--demo-port",
        &demo_port().to_string(),
        "--output",
        "s3://absent/x",
    ]);
    server.env(&mut c);
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bucket `absent` does not exist"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// N worker processes per phase, started together against the S3 server, produce the same
/// objects as one worker.
#[test]
fn many_workers_on_one_bucket_equal_one_worker() {
    let Some(bin) = s3s_fs() else { return };
    let server = S3Server::start(&bin, &["work"]);
    let mut c = trawl();
    c.args([
        "run",
        "--quiet",
        "--demo-port",
        &demo_port().to_string(),
        "--output",
        "s3://work/crawl",
    ]);
    server.env(&mut c);
    ok(&mut c);
    let phases: Vec<(Vec<&str>, Option<&str>)> = vec![
        (vec!["extract"], Some("crawl/crawl/warc")),
        (vec!["filter"], Some("extract")),
        (vec!["dedup", "signatures"], Some("filter")),
        (vec!["dedup", "buckets"], None),
        (vec!["dedup", "clusters"], None),
        (vec!["dedup", "apply"], Some("filter")),
        (vec!["captions"], Some("dedup")),
        (vec!["shards"], Some("dedup")),
    ];
    for (root, workers) in [("single", 1usize), ("many", 3)] {
        for (cmd, input) in &phases {
            let n = if cmd == &vec!["dedup", "clusters"] {
                1
            } else {
                workers
            };
            let children: Vec<_> = (0..n)
                .map(|i| {
                    let mut c = trawl();
                    c.args(cmd).args([
                        "--quiet",
                        "--wait",
                        "60",
                        "--shard",
                        &format!("{i}/{n}"),
                        "--output",
                        &format!("s3://work/{root}"),
                    ]);
                    if let Some(inp) = input {
                        // the crawl is shared; every later phase reads what the previous one wrote
                        let src = if inp.starts_with("crawl/") {
                            format!("s3://work/{inp}")
                        } else {
                            format!("s3://work/{root}/{inp}")
                        };
                        c.args(["--input", &src]);
                    }
                    server.env(&mut c);
                    c.stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            for ch in children {
                let o = ch.wait_with_output().unwrap();
                assert!(
                    o.status.success(),
                    "{cmd:?} on {root}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
    let objects = |root: &str| {
        crate::support::files(&server.dir.path().join("work").join(root))
            .into_iter()
            .filter(|(k, _)| {
                !(k.starts_with("stats/")
                    || k.starts_with("_done/")
                    || k.starts_with("report/")
                    || k == "run.json"
                    || k.contains(".s3s"))
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (one, many) = (objects("single"), objects("many"));
    assert!(
        one.keys().any(|k| k.starts_with("shards/tokens/")),
        "{:?}",
        one.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        many.keys().collect::<Vec<_>>()
    );
    for (k, v) in &one {
        assert!(many[k] == *v, "{k} differs between 1 and 3 workers");
    }
}

/// kill -9 at random moments of a run writing to the S3 server, then a rerun: every object
/// is byte-identical to an uninterrupted run's.
#[test]
fn kill_9_against_s3_then_rerun_is_byte_identical() {
    let Some(bin) = s3s_fs() else { return };
    let server = S3Server::start(&bin, &["crash"]);
    let port = demo_port().to_string();
    let run = |root: &str| {
        let mut c = trawl();
        c.args([
            "run",
            "--quiet",
            "--demo-port",
            &port,
            "--demo-delay-ms",
            "15",
            "--output",
            root,
        ])
        .env("SOURCE_DATE_EPOCH", "1767225600");
        server.env(&mut c);
        c
    };
    let t0 = std::time::Instant::now();
    ok(&mut run("s3://crash/clean"));
    let full = t0.elapsed();
    let mut killed = 0;
    for i in 1..=4u32 {
        let mut child = run("s3://crash/killed").spawn().unwrap();
        std::thread::sleep(full.mul_f64(i as f64 / 5.0));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed += 1;
        }
        child.wait().unwrap();
    }
    ok(&mut run("s3://crash/killed"));
    assert!(killed >= 2, "only {killed} kills landed");
    let objects = |root: &str| {
        crate::support::files(&server.dir.path().join("crash").join(root))
            .into_iter()
            .filter(|(k, _)| {
                !(k.starts_with("stats/")
                    || k.starts_with("_done/")
                    || k.starts_with("report/")
                    || k == "run.json"
                    || k.contains(".s3s"))
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (a, b) = (objects("clean"), objects("killed"));
    assert!(a.keys().any(|k| k.starts_with("shards/tokens/")));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(b[k] == *v, "{k} differs after kills on S3");
    }
}
