//! MinHash signatures over word n-gram shingles.
//!
//! Text is normalised (NFKC, lowercase, digits folded to `0`, punctuation dropped), split
//! into words (every CJK/Thai character is a word), and every run of `n` words is a shingle,
//! hashed with XXH3-64. The signature holds `bands * rows` values computed by one-permutation
//! hashing with densification (Shrivastava and Li): each shingle hash falls into one of the
//! bins by its high bits and the bin keeps the minimum of its low bits, so the cost is one
//! operation per shingle instead of one per shingle and hash function; empty bins borrow,
//! deterministically, from the next non-empty bin. The probability that two signatures
//! agree in a position is, as with classic MinHash, their Jaccard similarity. Buffers live
//! in the [`MinHasher`] and are reused: no allocation per document once warm.

use unicode_normalization::UnicodeNormalization;

/// Computes signatures; holds reusable buffers.
#[derive(Debug)]
pub struct MinHasher {
    n: usize,
    num: usize,
    seed: u64,
    norm: String,
    words: Vec<(usize, usize)>,
    /// Shingle hashes of the last document, sorted and deduplicated.
    pub shingles: Vec<u64>,
    /// Signature of the last document.
    pub sig: Vec<u64>,
    scratch: Vec<u64>,
}

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl MinHasher {
    /// `n`-word shingles, `num` hash functions, seeded.
    pub fn new(n: usize, num: usize, seed: u64) -> MinHasher {
        MinHasher {
            n: n.max(1),
            num,
            seed,
            norm: String::new(),
            words: Vec::new(),
            shingles: Vec::new(),
            sig: vec![u64::MAX; num],
            scratch: Vec::new(),
        }
    }

    fn normalise(&mut self, text: &str) {
        self.norm.clear();
        if text.is_ascii() {
            // NFKC is the identity on ASCII: the common case skips the decomposition
            let mut pending_space = false;
            for b in text.bytes() {
                let b = if b.is_ascii_digit() { b'0' } else { b };
                if b.is_ascii_alphanumeric() {
                    if pending_space && !self.norm.is_empty() {
                        self.norm.push(' ');
                    }
                    pending_space = false;
                    self.norm.push(b.to_ascii_lowercase() as char);
                } else {
                    pending_space = true;
                }
            }
            return;
        }
        let mut pending_space = false;
        for c in text.nfkc() {
            let c = if c.is_numeric() { '0' } else { c };
            if c.is_alphanumeric() {
                if pending_space && !self.norm.is_empty() {
                    self.norm.push(' ');
                }
                pending_space = false;
                for l in c.to_lowercase() {
                    self.norm.push(l);
                }
            } else {
                pending_space = true;
            }
        }
    }

    /// Computes `self.shingles` and `self.sig` for a text. Texts shorter than `n` words
    /// form one shingle of all their words (so very short documents still compare).
    pub fn compute(&mut self, text: &str) {
        self.normalise(text);
        self.words.clear();
        if self.norm.is_ascii() {
            // normalised ASCII text is words separated by single spaces
            let mut start = 0;
            for (i, b) in self.norm.bytes().enumerate() {
                if b == b' ' {
                    self.words.push((start, i));
                    start = i + 1;
                }
            }
            if start < self.norm.len() {
                self.words.push((start, self.norm.len()));
            }
        } else {
            let base = self.norm.as_ptr() as usize;
            let words = &mut self.words;
            trawl_core::text::for_each_word(&self.norm, |w| {
                let s = w.as_ptr() as usize - base;
                words.push((s, s + w.len()));
            });
        }
        self.shingles.clear();
        let n = self.n;
        if !self.words.is_empty() {
            let windows = if self.words.len() >= n {
                self.words.len() - n + 1
            } else {
                1
            };
            for i in 0..windows {
                let last = (i + n).min(self.words.len()) - 1;
                let (s, _) = self.words[i];
                let (_, e) = self.words[last];
                // words are separated by single spaces (or adjacent for CJK), so the span
                // identifies the shingle
                self.shingles.push(xxhash_rust::xxh3::xxh3_64_with_seed(
                    &self.norm.as_bytes()[s..e],
                    self.seed,
                ));
            }
        }
        self.shingles.sort_unstable();
        self.shingles.dedup();
        self.sig.clear();
        self.sig.resize(self.num, u64::MAX);
        let k = self.num as u64;
        for &h in &self.shingles {
            let m = mix(h);
            let bin = ((m >> 32) * k) >> 32;
            let v = m & 0xFFFF_FFFF;
            let slot = &mut self.sig[bin as usize];
            if v < *slot {
                *slot = v;
            }
        }
        // densification: an empty bin takes the value of the next non-empty bin (circularly),
        // salted by the distance so borrowed values stay distinct
        if self.shingles.is_empty() || !self.sig.contains(&u64::MAX) {
            return;
        }
        let n = self.sig.len();
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.sig);
        let src = &self.scratch;
        for i in 0..n {
            if src[i] != u64::MAX {
                continue;
            }
            let mut d = 1;
            while src[(i + d) % n] == u64::MAX {
                d += 1;
            }
            self.sig[i] = mix(src[(i + d) % n] ^ ((d as u64) << 40)) & 0xFFFF_FFFF | (1 << 32);
        }
    }
}

/// True Jaccard similarity of two sorted, deduplicated hash sets.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// The fraction of equal signature positions: an estimate of the Jaccard similarity.
pub fn estimate(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// The key of band `band` (`rows` signature values) in the LSH index.
pub fn band_key(sig: &[u64], band: usize, rows: usize) -> u64 {
    let mut h = mix(band as u64 ^ 0x5851_F42D_4C95_7F2D);
    for v in &sig[band * rows..(band + 1) * rows] {
        h = mix(h ^ v.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::word;

    #[test]
    fn similar_texts_have_similar_signatures() {
        let base: Vec<String> = (0..200).map(|i| word((i * 7919) % 1000)).collect();
        let a = base.join(" ");
        let mut edited = base.clone();
        for i in (0..200).step_by(40) {
            edited[i] = "changed".into();
        }
        let b = edited.join(" ");
        let mut m = MinHasher::new(5, 128, 1);
        m.compute(&a);
        let (sa, sha) = (m.sig.clone(), m.shingles.clone());
        m.compute(&b);
        let j = jaccard(&sha, &m.shingles);
        let e = estimate(&sa, &m.sig);
        assert!(j > 0.7 && j < 0.9, "{j}");
        assert!((e - j).abs() < 0.12, "estimate {e} vs true {j}");
        m.compute("something entirely different with other words in it and more");
        assert!(estimate(&sa, &m.sig) < 0.1);
    }

    #[test]
    fn normalisation_and_short_texts() {
        let mut m = MinHasher::new(5, 16, 1);
        m.compute("Hello, WORLD! 123 ｆｕｌｌｗｉｄｔｈ");
        let s1 = m.shingles.clone();
        m.compute("hello world 999 fullwidth");
        assert_eq!(
            s1, m.shingles,
            "case, punctuation, digits and NFKC are normalised"
        );
        assert_eq!(s1.len(), 1, "fewer than n words: one shingle");
        m.compute("");
        assert!(m.shingles.is_empty());
        m.compute("我们今天去公园玩了很久");
        assert_eq!(m.shingles.len(), 11 - 5 + 1, "CJK characters are words");
    }
}
