//! Golden pipeline fixtures: each `tests/golden/<case>/` holds `pipeline.toml`, a `command`
//! file (the stage subcommand to run, e.g. `filter`), an `input/` folder, and `expected/`
//! files: plain JSONL that must equal the decompressed output at the same path under the
//! run root. A new case is files, not code. `TRAWL_BLESS=1` rewrites `expected/`.

use std::path::Path;

use crate::support::{ok, trawl};

fn decompressed(p: &Path) -> String {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let lines = trawl_storage::jsonl::read_lines::<serde_json::Value>(&p.to_string_lossy(), &bytes)
        .unwrap();
    lines
        .into_iter()
        .map(|l| serde_json::to_string(&l.unwrap()).unwrap() + "\n")
        .collect()
}

#[test]
fn golden_cases() {
    let base = crate::support::manifest_dir().join("tests/golden");
    let bless = std::env::var("TRAWL_BLESS").is_ok_and(|v| v == "1");
    let mut cases = 0;
    for case in std::fs::read_dir(&base).unwrap() {
        let case = case.unwrap().path();
        let command = std::fs::read_to_string(case.join("command")).unwrap();
        let out = tempfile::tempdir().unwrap();
        ok(trawl()
            .args(["--quiet", command.trim(), "--config"])
            .arg(case.join("pipeline.toml"))
            .arg("--input")
            .arg(case.join("input"))
            .arg("--output")
            .arg(out.path()));
        let expected_dir = case.join("expected");
        for e in walk(&expected_dir) {
            let rel = e.strip_prefix(&expected_dir).unwrap();
            let produced = out.path().join(format!("{}.zst", rel.display()));
            let got = decompressed(&produced);
            if bless {
                std::fs::write(&e, &got).unwrap();
            } else {
                let want = std::fs::read_to_string(&e).unwrap();
                assert_eq!(
                    got,
                    want,
                    "golden case {} differs at {}",
                    case.display(),
                    rel.display()
                );
            }
        }
        cases += 1;
    }
    assert!(cases >= 2);
}

fn walk(d: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}
