//! Golden tests: real pages (Mozilla Readability's test pages, Apache-2.0) whose extracted
//! text is pinned, so any change of the extractor's output shows up as a reviewed diff; and
//! each output must still agree with the labelled main text (token F1, as score.py counts).

use std::collections::HashMap;

use trawl_extract::{ExtractConfig, Extractor};

fn tokens(s: &str) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for t in s
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|t| !t.is_empty())
    {
        *m.entry(t.to_string()).or_default() += 1;
    }
    m
}

fn token_f1(pred: &str, gt: &str) -> f64 {
    let (p, g) = (tokens(pred), tokens(gt));
    let overlap: usize = p
        .iter()
        .map(|(t, n)| (*n).min(*g.get(t).unwrap_or(&0)))
        .sum();
    let (np, ng) = (
        p.values().sum::<usize>() as f64,
        g.values().sum::<usize>() as f64,
    );
    if overlap == 0 {
        return 0.0;
    }
    let (pr, rc) = (overlap as f64 / np, overlap as f64 / ng);
    2.0 * pr * rc / (pr + rc)
}

#[test]
fn golden_pages() {
    let dir = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"),
    )
    .join("tests/golden");
    let ex = Extractor::new(ExtractConfig {
        min_text_chars: 0,
        ..Default::default()
    });
    let mut seen = 0;
    for name in [
        "v8-blog",
        "keep-tabular-data",
        "dropbox-blog",
        "lazy-image-3",
        "replace-brs",
    ] {
        let path = dir.join(format!("{name}.html"));
        let html = std::fs::read(&path).unwrap();
        let doc = ex
            .extract_html(&format!("file://{}", path.display()), &html, None)
            .unwrap();
        let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.txt"))).unwrap();
        assert_eq!(
            doc.text,
            expected.trim_end(),
            "{name}: output changed (see tests/golden/README.md to update)"
        );
        let gt = std::fs::read_to_string(dir.join(format!("{name}.gt.txt"))).unwrap();
        let f1 = token_f1(&doc.text, &gt);
        assert!(
            f1 >= 0.9,
            "{name}: token F1 {f1:.3} against the labelled text"
        );
        seen += 1;
    }
    assert_eq!(seen, 5);
    // the tabular page keeps its table as Markdown
    let tab = std::fs::read_to_string(dir.join("keep-tabular-data.expected.txt")).unwrap();
    assert!(
        tab.lines()
            .any(|l| l.starts_with("| ") && l.ends_with(" |"))
            && tab.contains("| --- |"),
        "a Markdown table"
    );
}
