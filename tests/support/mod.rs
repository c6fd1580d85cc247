//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Every record of a JSONL file (any compression trawl writes), each line required to parse.
pub fn read_jsonl(p: &Path) -> Vec<serde_json::Value> {
    let bytes = std::fs::read(p).unwrap();
    trawl_storage::jsonl::read_lines::<serde_json::Value>(&p.to_string_lossy(), &bytes)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

/// The binary under test.
pub fn trawl() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_trawl"));
    c.env_remove("AWS_ENDPOINT_URL").env("TRAWL_LOG", "warn");
    c
}

/// Runs and returns output, panicking with stderr on spawn failure.
pub fn run(c: &mut Command) -> Output {
    c.output().expect("spawn trawl")
}

/// Asserts success, showing stderr otherwise.
pub fn ok(c: &mut Command) -> String {
    let o = run(c);
    assert!(
        o.status.success(),
        "trawl failed ({:?}):\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `trawl run` on the embedded demo web into `out`; its stdout.
pub fn demo_run(out: &Path) -> String {
    ok(trawl()
        .args([
            "run",
            "--quiet",
            "--demo-port",
            &demo_port().to_string(),
            "--output",
        ])
        .arg(out))
}

/// A port free on 127.0.0.2..127.0.0.8 (where the demo web binds).
pub fn demo_port() -> u16 {
    for _ in 0..200 {
        let l = TcpListener::bind("127.0.0.2:0").expect("bind loopback");
        let port = l.local_addr().unwrap().port();
        drop(l);
        if (2..9).all(|i| TcpListener::bind(format!("127.0.0.{i}:{port}")).is_ok()) {
            return port;
        }
    }
    panic!("no free port for the demo web");
}

/// Whether external tools (S3 server, Python venv) must be present: set by scripts/test.sh,
/// so CI fails rather than skips when setup is broken.
pub fn require_external() -> bool {
    std::env::var("TRAWL_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1")
}

fn cache_dir() -> PathBuf {
    std::env::var("TRAWL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/root".into()))
                .join(".cache/trawl")
        })
}

/// Skips (returns None) or fails when an external tool is missing.
pub fn external(what: &str, path: PathBuf) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    if require_external() {
        panic!(
            "{what} not found at {} (scripts/setup.sh installs it)",
            path.display()
        );
    }
    eprintln!(
        "SKIP: {what} not found at {}; run scripts/setup.sh",
        path.display()
    );
    None
}

pub fn python() -> Option<PathBuf> {
    let p = std::env::var("TRAWL_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| cache_dir().join("venv/bin/python"));
    external("python venv with megatron-core", p)
}

pub fn s3s_fs() -> Option<PathBuf> {
    let p = std::env::var("TRAWL_S3FS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| cache_dir().join("tools/bin/s3s-fs"));
    external("s3s-fs", p)
}

/// A real S3-compatible server (s3s-fs, which checks request signatures) on 127.0.0.1.
pub struct S3Server {
    child: Child,
    pub endpoint: String,
    pub dir: tempfile::TempDir,
}

pub const S3_KEY: &str = "trawltestkey";
pub const S3_SECRET: &str = "trawltestsecret123";

impl S3Server {
    pub fn start(bin: &Path, buckets: &[&str]) -> S3Server {
        let dir = tempfile::tempdir().unwrap();
        for b in buckets {
            std::fs::create_dir_all(dir.path().join(b)).unwrap();
        }
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let child = Command::new(bin)
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--access-key",
                S3_KEY,
                "--secret-key",
                S3_SECRET,
            ])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start s3s-fs");
        let t0 = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "s3s-fs did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        S3Server {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            dir,
        }
    }

    /// Sets the AWS variables for a child process.
    pub fn env(&self, c: &mut Command) {
        c.env("AWS_ACCESS_KEY_ID", S3_KEY)
            .env("AWS_SECRET_ACCESS_KEY", S3_SECRET)
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ENDPOINT_URL", &self.endpoint)
            .env("AWS_ALLOW_HTTP", "true");
    }

    pub fn storage_config(&self) -> trawl_storage::StorageConfig {
        trawl_storage::StorageConfig {
            endpoint: Some(self.endpoint.clone()),
            region: Some("us-east-1".into()),
            access_key_id: Some(S3_KEY.into()),
            secret_access_key: Some(S3_SECRET.into()),
            allow_http: Some(true),
            part_size_mib: 5,
            ..Default::default()
        }
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every regular file under `dir` (relative path -> bytes), skipping in-flight staging
/// files (`name#123`).
pub fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                if rel
                    .rsplit_once('#')
                    .is_some_and(|(_, s)| s.chars().all(|c| c.is_ascii_digit()))
                {
                    continue;
                }
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

pub fn chromium() -> Option<PathBuf> {
    external(
        "Debian's chromium",
        PathBuf::from(
            std::env::var("TRAWL_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
        ),
    )
}

/// lightpanda as `scripts/setup.sh` installs it (where trawl looks for it after `PATH`).
pub fn lightpanda() -> Option<PathBuf> {
    external("lightpanda", cache_dir().join("bin/lightpanda"))
}

/// Runs headless Chromium on a local file with the closed-network flags; returns
/// (stdout, stderr).
pub fn chromium_run(bin: &Path, profile: &Path, args: &[&str], url: &str) -> (String, String) {
    let o = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("run chromium");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// This package's folder, read when the test runs: `env!("CARGO_MANIFEST_DIR")` would name
/// the checkout the test binary was compiled in, and cargo reuses test binaries between
/// checkouts that share a target folder (the scripts' default `~/.cache/trawl/target`).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
}

/// The bundled demo web served on loopback, with the runtime that serves it (dropped with
/// it).
pub struct DemoWeb {
    pub web: trawl_testweb::TestWeb,
    /// Its seed URLs as the inside of a TOML array.
    pub seeds: String,
    _rt: tokio::runtime::Runtime,
}

/// Starts the demo web (its sites on 127.0.0.x, a free port).
pub fn demo_web() -> DemoWeb {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let web = rt
        .block_on(trawl_testweb::TestWeb::start(trawl_testweb::demo::sites()))
        .unwrap();
    let seeds = toml_strings(trawl_testweb::demo::seeds(&web));
    DemoWeb {
        web,
        seeds,
        _rt: rt,
    }
}

/// Strings as the inside of a TOML array: `"a", "b"` (for the seed lists of test configs).
pub fn toml_strings<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    items
        .into_iter()
        .map(|s| format!("\"{}\"", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
