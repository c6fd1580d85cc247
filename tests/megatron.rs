//! megatron-core's own reader (IndexedDataset, in a venv made by scripts/setup.sh) reads
//! the shards trawl writes, token for token.

use crate::support::{demo_run, ok, python, trawl};
use trawl_shards::{megatron, Manifest};

#[test]
fn megatron_core_reads_every_token() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    demo_run(dir.path());
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.path().join("shards/manifest.json")).unwrap())
            .unwrap();
    // the manifest lists the final prefixes, and only those: nothing intermediate under
    // shards/ looks like a Megatron pair
    assert_eq!(m.prefixes.len(), m.shards.len());
    let prefixes: Vec<String> = m
        .prefixes
        .iter()
        .map(|p| dir.path().join(p).to_string_lossy().into_owned())
        .collect();
    let mut pairs = Vec::new();
    for e in walk(&dir.path().join("shards")) {
        if e.extension().is_some_and(|x| x == "idx") {
            pairs.push(e.with_extension("").to_string_lossy().into_owned());
        }
    }
    pairs.sort();
    assert_eq!(
        pairs, prefixes,
        "every .idx under shards/ is a final shard in the manifest"
    );
    let script = crate::support::manifest_dir().join("tests/python/read_megatron.py");
    let o = std::process::Command::new(&py)
        .arg(script)
        .args(&prefixes)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "megatron-core failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let read: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut total = 0u64;
    for (s, prefix) in m.shards.iter().zip(&prefixes) {
        let theirs = &read[prefix];
        assert_eq!(theirs["documents"].as_u64().unwrap(), s.documents);
        let ours = megatron::read(
            &std::fs::read(dir.path().join(&s.idx)).unwrap(),
            &std::fs::read(dir.path().join(&s.bin)).unwrap(),
        )
        .unwrap();
        let theirs: Vec<Vec<u32>> = serde_json::from_value(theirs["sequences"].clone()).unwrap();
        assert_eq!(theirs, ours, "shard {}", s.shard);
        total += theirs.iter().map(|d| d.len() as u64).sum::<u64>();
    }
    assert_eq!(
        total, m.tokens,
        "megatron-core's token count equals the manifest's"
    );
}

/// warcio (the Python WARC library most tools use) reads every WARC trawl writes.
#[test]
fn warcio_reads_the_crawl_warc() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    demo_run(dir.path());
    let mut warcs: Vec<_> = std::fs::read_dir(dir.path().join("crawl/warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    warcs.sort();
    let o = std::process::Command::new(&py)
        .arg(crate::support::manifest_dir().join("tests/python/read_warc.py"))
        .args(&warcs)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "warcio failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pages = std::fs::read_dir(dir.path().join("crawl/warc"))
        .unwrap()
        .count() as u64;
    assert_eq!(
        v["types"]["warcinfo"].as_u64(),
        Some(pages),
        "one warcinfo per file"
    );
    let responses = v["types"]["response"].as_u64().unwrap();
    assert!(responses >= 20);
    assert_eq!(v["types"]["request"].as_u64(), Some(responses));
    assert_eq!(v["types"]["metadata"].as_u64(), Some(responses));
    assert!(v["responses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["status"] == 200 && r["length"].as_u64().unwrap() > 500));
}

/// A recrawl sends conditional requests; unchanged pages become WARC `revisit` records that
/// warcio reads, and the pipeline still gets their bodies (the same documents as before).
#[test]
fn recrawl_writes_revisit_records_and_keeps_documents() {
    let Some(py) = python() else { return };
    let demo = crate::support::demo_web();
    let seeds = &demo.seeds;
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let cfg = |extra: &str| {
        let p = dir.path().join(format!("c{}.toml", extra.len()));
        std::fs::write(
            &p,
            format!(
                "[crawl]\nseeds = [{}]\ndelay_ms = 0\nallow_private_addresses = true\n{extra}",
                seeds
            ),
        )
        .unwrap();
        p
    };
    ok(trawl()
        .args(["run", "--quiet", "--config"])
        .arg(cfg(""))
        .arg("--output")
        .arg(&a));
    ok(trawl()
        .args(["run", "--quiet", "--config"])
        .arg(cfg(&format!("recrawl_from = \"{}\"\n", a.display())))
        .arg("--output")
        .arg(&b));
    let mut warcs: Vec<_> = std::fs::read_dir(b.join("crawl/warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    warcs.sort();
    let o = std::process::Command::new(&py)
        .arg(crate::support::manifest_dir().join("tests/python/read_warc.py"))
        .args(&warcs)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "warcio: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let revisits = v["types"]["revisit"].as_u64().unwrap_or(0);
    assert!(
        revisits >= 10,
        "unchanged pages are revisits: {}",
        v["types"]
    );
    let docs = |r: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(r.join("shards/manifest.json")).unwrap()).unwrap()
    };
    assert_eq!(
        docs(&a)["documents"],
        docs(&b)["documents"],
        "the revisited pages' bodies reached the pipeline"
    );
    assert_eq!(docs(&a)["tokens"], docs(&b)["tokens"]);
    drop(demo);
}

/// Every file under a folder.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
