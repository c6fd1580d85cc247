//! Synthetic text for the dedup tests, the quality example and the CLI tests, so their
//! corpora are built the same way.

/// The `i`th distinct letter-only word (`a`, `b`, ..., `z`, `ba`, ...): base 26 in letters.
/// Letters only, because the signature normalisation folds digits.
pub fn word(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'a' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            return s;
        }
    }
}

/// Three documents: `b` and `c` are copies of `o` (300 words), 6 words edited each, in
/// different halves: J(b, o) and J(c, o) about 0.82, J(b, c) about 0.66. In this order `b`
/// survives and `c` is within the threshold of `o` only.
pub fn survivor_original_copy() -> Vec<trawl_core::Document> {
    let base: Vec<String> = (0..300).map(|i| word((i * 7919) % 5000)).collect();
    let edit = |from: usize, tag: &str| {
        let mut v = base.clone();
        for k in 0..6 {
            v[from + k * 20] = format!("{tag}{k}");
        }
        v.join(" ")
    };
    vec![
        trawl_core::Document::new("b", edit(10, "bb")),
        trawl_core::Document::new("o", base.join(" ")),
        trawl_core::Document::new("c", edit(160, "cc")),
    ]
}
