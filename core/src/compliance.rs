//! The compliance helper every stage test calls: it runs a stage over documents through the
//! real runner and checks the accounting invariants.

use crate::{Chain, Document, RunStats, Stage};

/// Runs `stage` over `docs` and asserts: seen == kept + sum of dropped, every drop has a
/// non-empty snake_case reason, every excluded record carries its reason, and bytes never
/// grow for filters. Returns the kept documents and the stats for further assertions.
pub fn check_stage(stage: Stage, docs: Vec<Document>) -> (Vec<Document>, RunStats) {
    let is_filter = matches!(stage, Stage::Filter(_));
    let name = stage.name();
    assert!(is_snake(name), "stage name `{name}` must be snake_case");
    let mut chain = Chain::new("test", vec![stage]);
    let n = docs.len() as u64;
    let kept: Vec<Document> = docs.into_iter().filter_map(|d| chain.process(d)).collect();
    let excluded = chain.take_excluded();
    let stats = chain.stats().clone();
    let st = stats.stage(name).expect("runner recorded the stage");
    assert_eq!(st.seen, n, "seen must count every input");
    assert_eq!(st.kept, kept.len() as u64, "kept must count every output");
    assert_eq!(
        st.seen,
        st.kept + st.dropped_total(),
        "seen == kept + dropped"
    );
    assert_eq!(
        excluded.len() as u64,
        st.dropped_total(),
        "every drop reaches the exclusion sink"
    );
    for (reason, count) in &st.dropped {
        assert!(
            is_snake(reason),
            "drop reason `{reason}` must be snake_case"
        );
        assert!(*count > 0);
    }
    for e in &excluded {
        assert!(
            st.dropped.contains_key(&e.reason),
            "excluded record with uncounted reason"
        );
        assert_eq!(e.stage, name);
    }
    if is_filter {
        assert!(st.bytes_out <= st.bytes_in, "a filter never adds text");
    }
    (kept, stats)
}

fn is_snake(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !s.starts_with('_')
}
