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
