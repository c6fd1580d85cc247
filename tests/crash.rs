//! Killing `trawl run` at random moments and rerunning gives the same output, byte for byte.

use std::time::{Duration, Instant};

use crate::support::{demo_port, files, ok, trawl};

/// Data outputs compared byte for byte. Stats, markers and the report hold timings, so
/// they are evidence of the run, not its data, and are left out.
fn data_files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .filter(|(k, _)| {
            !(k.starts_with("stats/")
                || k.starts_with("_done/")
                || k.starts_with("report/")
                || k == "run.json")
        })
        .collect()
}

#[test]
fn kill_9_at_random_moments_then_rerun_is_byte_identical() {
    let port = demo_port();
    let args = |out: &std::path::Path| {
        let mut c = trawl();
        c.args([
            "--threads",
            "2",
            "run",
            "--quiet",
            "--demo-port",
            &port.to_string(),
            "--demo-delay-ms",
            "15",
            "--output",
        ])
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1767225600");
        c
    };
    let clean = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    ok(&mut args(clean.path()));
    let full = t0.elapsed();
    let expected = data_files(clean.path());
    assert!(expected.keys().any(|k| k.ends_with(".bin")));

    // moments spread over the run, plus a random jitter from the clock
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let mut moments = Vec::new();
    for i in 1..=5u64 {
        let frac =
            (i as f64 / 6.0) + ((seed.wrapping_mul(i * 2654435761) % 100) as f64 / 1000.0 - 0.05);
        moments.push(full.mul_f64(frac.clamp(0.02, 0.98)));
    }
    eprintln!("uninterrupted run took {full:?}; killing at {moments:?}");
    let crashed = tempfile::tempdir().unwrap();
    let mut killed = 0;
    for m in &moments {
        let mut child = args(crashed.path()).spawn().unwrap();
        std::thread::sleep(*m);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            killed += 1;
        }
        child.wait().unwrap();
    }
    assert!(
        killed >= 2,
        "the run finished before most kills ({killed} killed); slow it down"
    );
    ok(&mut args(crashed.path()));
    let got = data_files(crashed.path());
    let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, extra {extra:?}"
    );
    for (k, v) in &expected {
        assert!(got[k] == *v, "{k} differs after kill and rerun");
    }
    let _ = Duration::ZERO;
}

/// Each batch dedup phase killed at random moments and rerun gives the same bytes as an
/// uninterrupted run.
#[test]
fn dedup_batch_phases_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    // 6 files of 1500 documents, with near duplicates across files
    let word = trawl_dedup::testing::word;
    for f in 0..6usize {
        let mut out = String::new();
        for d in 0..1500usize {
            let base = (f * 1500 + d) % 4000;
            let mut words: Vec<String> = (0..120)
                .map(|i| word((base * 7919 + i * 104_729) % 60_000))
                .collect();
            words[(f * 7 + d) % 120] = word(f);
            out.push_str(&format!(
                "{}\n",
                serde_json::json!({ "id": format!("f{f}-d{d}"), "text": words.join(" ") })
            ));
        }
        std::fs::write(input.join(format!("part-{f}.jsonl")), out).unwrap();
    }
    let phases = ["signatures", "buckets", "clusters", "apply"];
    let cmd = |phase: &str, root: &std::path::Path| {
        let mut c = trawl();
        c.args(["dedup", phase, "--quiet", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(root);
        c
    };
    let clean = dir.path().join("clean");
    let mut durations = Vec::new();
    for p in phases {
        let t0 = Instant::now();
        ok(&mut cmd(p, &clean));
        durations.push(t0.elapsed());
    }
    let crashed = dir.path().join("crashed");
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let mut killed = 0;
    for (p, d) in phases.iter().zip(&durations) {
        for i in 1..=2u64 {
            let frac =
                (i as f64 / 3.0) + ((seed.wrapping_mul(i * 31 + 7) % 100) as f64 / 1000.0 - 0.05);
            let mut child = cmd(p, &crashed).spawn().unwrap();
            std::thread::sleep(d.mul_f64(frac.clamp(0.05, 0.95)));
            if child.try_wait().unwrap().is_none() {
                child.kill().unwrap();
                killed += 1;
            }
            child.wait().unwrap();
        }
        ok(&mut cmd(p, &crashed));
    }
    eprintln!("phase durations {durations:?}; {killed} kills landed");
    assert!(
        killed >= 4,
        "only {killed} of 8 kills landed before the phase finished"
    );
    let keep = |k: &String| !(k.starts_with("stats/") || k.starts_with("_done/"));
    let a: std::collections::BTreeMap<_, _> =
        files(&clean).into_iter().filter(|(k, _)| keep(k)).collect();
    let b: std::collections::BTreeMap<_, _> = files(&crashed)
        .into_iter()
        .filter(|(k, _)| keep(k))
        .collect();
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(b[k] == *v, "{k} differs after kills and reruns");
    }
    assert!(
        a.keys().any(|k| k.starts_with("excluded/dedup/")),
        "some near duplicates were found"
    );
}

/// A crawl killed with SIGKILL and resumed requests again only what was in flight at the
/// kill (the journal records every outcome the moment it is known; a request whose answer
/// never arrived cannot be known to have happened), and ends with the same pages as an
/// uninterrupted crawl.
#[test]
fn killed_crawl_resumes_without_fetching_any_page_twice() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt
        .block_on(trawl_testweb::TestWeb::start_with_delay(
            trawl_testweb::demo::sites(),
            Duration::from_millis(40),
        ))
        .unwrap();
    let seeds = crate::support::toml_strings(trawl_testweb::demo::seeds(&web));
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, format!("[crawl]\nseeds = [{}]\ndelay_ms = 0\npages_per_part = 4\nallow_private_addresses = true\nstate_dir = \"{}\"\n", seeds, dir.path().join("journal").display())).unwrap();
    let root = dir.path().join("run");
    let cmd = || {
        let mut c = trawl();
        c.args(["crawl", "--quiet", "--config"])
            .arg(&cfg)
            .arg("--output")
            .arg(&root)
            .env("SOURCE_DATE_EPOCH", "1767225600");
        c
    };
    let pages = |reqs: &[(String, String)]| reqs.iter().filter(|(_, p)| p != "/robots.txt").count();
    let mut kills = 0;
    for wait_for in [6, 14, 22] {
        let mut child = cmd().spawn().unwrap();
        let t0 = Instant::now();
        while pages(&web.requests()) < wait_for
            && t0.elapsed() < Duration::from_secs(20)
            && child.try_wait().unwrap().is_none()
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    ok(&mut cmd());
    assert!(kills >= 2, "the crawl finished before it could be killed");
    let reqs = web.requests();
    let mut seen = std::collections::BTreeSet::new();
    let mut repeated = Vec::new();
    for (host, path) in &reqs {
        if path != "/robots.txt" && !seen.insert((host.clone(), path.clone())) {
            repeated.push(format!("{host}{path}"));
        }
    }
    // one request per host at a time: at most one in flight per host (5 hosts) per kill
    assert!(
        repeated.len() <= kills * 5,
        "{} pages fetched again after {kills} kills: {repeated:?}",
        repeated.len()
    );
    eprintln!(
        "{kills} kills, {} page requests, {} repeated (in flight at a kill)",
        seen.len(),
        repeated.len()
    );
    let robots = reqs.iter().filter(|(_, p)| p == "/robots.txt").count();
    assert!(
        robots <= 5 + kills * 5,
        "robots.txt is journaled too: {robots} fetches for 5 hosts"
    );
    eprintln!("robots.txt fetched {robots} times for 5 hosts");
    // the same pages as a crawl that was never interrupted
    let clean = dir.path().join("clean");
    let cfg2 = dir.path().join("c2.toml");
    std::fs::write(&cfg2, format!("[crawl]\nseeds = [{}]\ndelay_ms = 0\npages_per_part = 4\nallow_private_addresses = true\nstate_dir = \"{}\"\n", seeds, dir.path().join("journal2").display())).unwrap();
    ok(trawl()
        .args(["crawl", "--quiet", "--config"])
        .arg(&cfg2)
        .arg("--output")
        .arg(&clean)
        .env("SOURCE_DATE_EPOCH", "1767225600"));
    let warcs = |r: &std::path::Path| files(&r.join("crawl/warc"));
    assert_eq!(
        warcs(&root),
        warcs(&clean),
        "resumed WARC parts equal an uninterrupted crawl, byte for byte"
    );
    assert!(
        !dir.path().join("journal").exists() && !dir.path().join("journal-frontier").exists(),
        "the journal and the frontier store are removed once the crawl is committed"
    );
}

/// `trawl crawl` of the demo web with `{section}.min_free_disk_mb` at a floor no disk meets
/// (a petabyte): it stops, writes no WARC part and does not panic; the rerun into the same run
/// root with room (the default floor) writes the same WARC parts as a crawl that never
/// stopped. Returns the first run's stderr and the run root, for the caller's checks of what
/// the error names.
fn a_floor_stops_the_crawl_and_a_rerun_resumes(section: &str) -> (String, std::path::PathBuf) {
    let demo = crate::support::demo_web();
    let seeds = &demo.seeds;
    let dir = tempfile::tempdir().unwrap();
    let config = |name: &str, floor: u64, state: &std::path::Path| {
        let crawl = format!("[crawl]\nseeds = [{}]\ndelay_ms = 0\npages_per_part = 4\nallow_private_addresses = true\nstate_dir = \"{}\"\n", seeds, state.display());
        let floor = format!("min_free_disk_mb = {floor}\n");
        let toml = if section == "crawl" {
            crawl + &floor
        } else {
            format!("[{section}]\n{floor}{crawl}")
        };
        let cfg = dir.path().join(name);
        std::fs::write(&cfg, toml).unwrap();
        cfg
    };
    let crawl = |cfg: &std::path::Path, root: &std::path::Path| {
        let mut c = trawl();
        c.args(["crawl", "--quiet", "--config"])
            .arg(cfg)
            .arg("--output")
            .arg(root)
            .env("SOURCE_DATE_EPOCH", "1767225600");
        c
    };
    let (root, journal) = (dir.path().join("run"), dir.path().join("journal"));
    let o = crate::support::run(&mut crawl(&config("full.toml", 1 << 30, &journal), &root));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success(), "the crawl stops: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let warc = root.join("crawl/warc");
    assert!(!warc.exists() || files(&warc).is_empty());
    ok(&mut crawl(&config("room.toml", 256, &journal), &root));
    let clean = dir.path().join("clean");
    ok(&mut crawl(
        &config("clean.toml", 256, &dir.path().join("journal2")),
        &clean,
    ));
    let warcs = |r: &std::path::Path| files(&r.join("crawl/warc"));
    assert!(!warcs(&clean).is_empty());
    assert_eq!(warcs(&root), warcs(&clean));
    // (the run root's name, as the error writes it: the folder goes with `dir`)
    (err, root.canonicalize().unwrap())
}

/// A crawl whose state disk (journal and frontier) has less free space than
/// `crawl.min_free_disk_mb` stops before RocksDB writes anything (RocksDB on a full disk can
/// abort the process instead of failing), with an error naming the key and the folder.
#[test]
fn a_nearly_full_state_disk_stops_the_crawl_with_the_key_named_and_a_rerun_resumes() {
    let (err, _) = a_floor_stops_the_crawl_and_a_rerun_resumes("crawl");
    assert!(
        err.contains("crawl.min_free_disk_mb = 1073741824") && err.contains("journal"),
        "the error names the key and the folder: {err}"
    );
}

/// A run root whose disk has less free space than `storage.min_free_disk_mb` gets nothing
/// written: the crawl stops at its first WARC part with an error naming the key and the run
/// root.
#[test]
fn a_nearly_full_run_root_disk_stops_the_run_with_the_key_named_and_a_rerun_resumes() {
    let (err, root) = a_floor_stops_the_crawl_and_a_rerun_resumes("storage");
    assert!(
        err.contains("storage.min_free_disk_mb = 1073741824")
            && err.contains("storage.root")
            && err.contains(&root.display().to_string()),
        "the error names the key and the run root: {err}"
    );
}

/// The number of CPU threads changes nothing that is written: `trawl run` and the stage
/// commands with 1 and 2 threads give the same bytes.
#[test]
fn one_or_two_threads_write_the_same_bytes() {
    let port = demo_port();
    let run = |threads: &str, out: &std::path::Path| {
        ok(trawl()
            .args([
                "--threads",
                threads,
                "run",
                "--quiet",
                "--demo-port",
                &port.to_string(),
                "--output",
            ])
            .arg(out)
            .env("SOURCE_DATE_EPOCH", "1767225600"));
    };
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    run("1", &one);
    run("2", &two);
    let (a, b) = (data_files(&one), data_files(&two));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(b[k] == *v, "{k} differs between 1 and 2 threads");
    }
    // the stage commands over the same crawl, shard by shard on every thread
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("stages-{threads}"));
        ok(trawl()
            .args(["--threads", threads, "extract", "--quiet", "--input"])
            .arg(one.join("crawl/warc"))
            .arg("--output")
            .arg(&out));
        ok(trawl()
            .args(["--threads", threads, "filter", "--quiet", "--input"])
            .arg(out.join("extract"))
            .arg("--output")
            .arg(&out));
    }
    let (a, b) = (
        data_files(&dir.path().join("stages-1")),
        data_files(&dir.path().join("stages-2")),
    );
    assert!(a.keys().any(|k| k.starts_with("filter/")));
    assert_eq!(
        a, b,
        "extract and filter write the same bytes with 1 and 2 threads"
    );
}
