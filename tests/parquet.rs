//! Parquet documents (`[storage] documents = "parquet"`): every document stage writes
//! Parquet that pyarrow and Hugging Face `datasets` read (in the venv scripts/setup.sh
//! makes), holding the same documents as the JSONL path; the stages read Parquet input,
//! their own and a FineWeb-style file pyarrow wrote.

use std::path::Path;

use crate::support::{demo_run, ok, python, read_jsonl, trawl};

const DEMO_TOML: &str = include_str!("../config/examples/demo.toml");

/// The demo config, with documents in `format`.
fn config(dir: &Path, format: &str) -> std::path::PathBuf {
    let p = dir.join(format!("{format}.toml"));
    let toml = DEMO_TOML.replacen(
        "[storage]\n",
        &format!("[storage]\ndocuments = \"{format}\"\n"),
        1,
    );
    assert!(
        toml.contains("documents ="),
        "the demo config has a [storage] table"
    );
    std::fs::write(&p, toml).unwrap();
    p
}

/// `trawl extract`, `filter`, `dedup` and `shards` in turn from the crawl under `crawl`.
fn stages(cfg: &Path, crawl: &Path, out: &Path) {
    let mut input = crawl.to_path_buf();
    for stage in ["extract", "filter", "dedup", "shards"] {
        ok(trawl()
            .args([stage, "--quiet", "--config"])
            .arg(cfg)
            .arg("--input")
            .arg(&input)
            .arg("--output")
            .arg(out));
        input = out.join(stage);
    }
}

/// The documents under `dir` as pyarrow reads them (and `datasets` agrees on the count),
/// with their JSON columns parsed: what the JSONL path writes as one object per line.
fn read_with_pyarrow(py: &Path, dir: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no Parquet files under {}",
        dir.display()
    );
    let o = std::process::Command::new(py)
        .arg(crate::support::manifest_dir().join("tests/python/read_parquet.py"))
        .arg("read")
        .args(&files)
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_CACHE", dir.join(".hf-cache"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "pyarrow/datasets failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut row: serde_json::Value = serde_json::from_str(l).unwrap();
            let o = row.as_object_mut().unwrap();
            for k in ["meta", "attrs", "consent", "images", "extra"] {
                let parsed: serde_json::Value =
                    serde_json::from_str(o[k].as_str().expect("a JSON string column")).unwrap();
                o.insert(k.into(), parsed);
            }
            let extra = o.remove("extra").unwrap();
            o.extend(extra.as_object().unwrap().clone());
            row
        })
        .collect()
}

/// A JSONL stage folder's documents in file order, through trawl's own types (so fields
/// left out when empty compare equal to the Parquet path's explicit empty values).
fn read_jsonl_docs(dir: &Path) -> Vec<serde_json::Value> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.zst"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| read_jsonl(f))
        .map(normal)
        .collect()
}

fn normal(v: serde_json::Value) -> serde_json::Value {
    let d: trawl_core::Document = serde_json::from_value(v).unwrap();
    serde_json::to_value(d).unwrap()
}

#[test]
fn parquet_documents_hold_what_jsonl_holds() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // a crawl of the demo web to start from
    let demo = dir.path().join("demo");
    demo_run(&demo);
    let (jsonl, parquet) = (dir.path().join("jsonl"), dir.path().join("parquet"));
    stages(&config(dir.path(), "jsonl"), &demo.join("crawl"), &jsonl);
    stages(
        &config(dir.path(), "parquet"),
        &demo.join("crawl"),
        &parquet,
    );
    for stage in ["extract", "filter", "dedup"] {
        let ours = read_jsonl_docs(&jsonl.join(stage));
        assert!(!ours.is_empty(), "{stage}: no documents");
        let theirs: Vec<serde_json::Value> = read_with_pyarrow(&py, &parquet.join(stage))
            .into_iter()
            .map(normal)
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{stage}");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{stage}: the same document either way");
        }
    }
    // the tokens from Parquet input are the tokens from JSONL input
    let manifest = |root: &Path| -> trawl_shards::Manifest {
        serde_json::from_slice(&std::fs::read(root.join("shards/manifest.json")).unwrap()).unwrap()
    };
    let (a, b) = (manifest(&jsonl), manifest(&parquet));
    assert!(a.tokens > 0);
    assert_eq!((a.documents, a.tokens), (b.documents, b.tokens));

    // a FineWeb-style file pyarrow wrote (id, text, url, dump; snappy): read like JSONL
    let src = dir.path().join("fw.jsonl");
    let docs = read_jsonl_docs(&jsonl.join("dedup"));
    let lines: Vec<String> = docs
        .iter()
        .map(|d| {
            serde_json::json!({ "id": d["id"], "text": d["text"], "url": d["url"], "dump": "CC-MAIN-2024-10" })
                .to_string()
        })
        .collect();
    std::fs::write(&src, lines.join("\n") + "\n").unwrap();
    let (fw_pq, fw_jsonl) = (dir.path().join("fw-pq"), dir.path().join("fw-jsonl"));
    std::fs::create_dir_all(&fw_pq).unwrap();
    std::fs::create_dir_all(&fw_jsonl).unwrap();
    std::fs::copy(&src, fw_jsonl.join("part.jsonl")).unwrap();
    let o = std::process::Command::new(&py)
        .arg(crate::support::manifest_dir().join("tests/python/read_parquet.py"))
        .arg("fineweb")
        .arg(fw_pq.join("part.parquet"))
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (out_pq, out_jsonl) = (dir.path().join("out-pq"), dir.path().join("out-jsonl"));
    for (input, out) in [(&fw_pq, &out_pq), (&fw_jsonl, &out_jsonl)] {
        ok(trawl()
            .args(["filter", "--quiet", "--input"])
            .arg(input)
            .arg("--output")
            .arg(out));
    }
    let a = read_jsonl_docs(&out_jsonl.join("filter"));
    let b = read_jsonl_docs(&out_pq.join("filter"));
    assert!(!a.is_empty());
    assert_eq!(a, b, "a Parquet input filters like the same JSONL");
    assert_eq!(b[0]["dump"], "CC-MAIN-2024-10", "unknown columns survive");
}

#[test]
fn an_unknown_document_format_names_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[storage]\ndocuments = \"csv\"\n").unwrap();
    let o = crate::support::run(trawl().args(["config", "check"]).arg(&cfg));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("storage.documents") && err.contains("parquet"),
        "{err}"
    );
}
