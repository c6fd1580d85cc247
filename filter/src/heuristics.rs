//! Heuristic quality signals (what the Gopher, C4 and FineWeb rules measure), computed once
//! into `attrs.heur`, and filters that decide from them with relaxed default thresholds.
//!
//! The seed pipeline moved from aggressive heuristics to model-based filtering because rules
//! threw away good tokens, so the defaults here only remove clear junk: each threshold is the
//! published one moved towards keeping more (the published value is in the comment), and the
//! signals stay on every document so a stricter cut is a config change, not a recomputation.

use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Document, DropReason, Filter, Map, RecordError, Verdict};

/// Drop reasons of the heuristic filters.
pub mod reasons {
    use trawl_core::DropReason;
    /// Too many words (Gopher: > 100,000).
    pub const LENGTH: DropReason = DropReason::new("gopher_length");
    /// Mean word length outside the allowed range.
    pub const WORD_LENGTH: DropReason = DropReason::new("gopher_word_length");
    /// Too many `#` and ellipsis symbols per word.
    pub const SYMBOLS: DropReason = DropReason::new("gopher_symbols");
    /// Mostly bullet lines.
    pub const BULLETS: DropReason = DropReason::new("gopher_bullets");
    /// Mostly lines ending in an ellipsis.
    pub const ELLIPSIS: DropReason = DropReason::new("gopher_ellipsis");
    /// Too few words with a letter.
    pub const ALPHA: DropReason = DropReason::new("gopher_alpha");
    /// Too few stop words (for languages with a list).
    pub const STOPWORDS: DropReason = DropReason::new("gopher_stopwords");
    /// Repeated lines, paragraphs or n-grams.
    pub const REPETITION: DropReason = DropReason::new("gopher_repetition");
    /// Placeholder text.
    pub const LOREM: DropReason = DropReason::new("c4_lorem_ipsum");
    /// Almost no line ends in punctuation.
    pub const PUNCTUATION: DropReason = DropReason::new("fineweb_punctuation");
    /// Mostly very short lines.
    pub const SHORT_LINES: DropReason = DropReason::new("fineweb_short_lines");
}

/// `[filter.heuristics]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HeuristicsConfig {
    /// Compute the signals and apply the filters below.
    pub enabled: bool,
    /// Only compute the signals (never drop).
    pub signals_only: bool,
    /// Drop above this many words (Gopher 100,000).
    pub max_words: u64,
    /// Mean word length bounds (Gopher 3..10).
    pub min_mean_word_len: f64,
    /// See `min_mean_word_len`.
    pub max_mean_word_len: f64,
    /// `#`/ellipsis per word (Gopher 0.1).
    pub max_symbol_ratio: f64,
    /// Lines starting with a bullet (Gopher 0.9).
    pub max_bullet_lines: f64,
    /// Lines ending with an ellipsis (Gopher 0.3).
    pub max_ellipsis_lines: f64,
    /// Words with at least one letter (Gopher 0.8).
    pub min_alpha_words: f64,
    /// Stop words required, for languages with a list (Gopher 2).
    pub min_stopwords: u64,
    /// Duplicate line fraction (Gopher 0.3).
    pub max_dup_lines: f64,
    /// Duplicate paragraph fraction (Gopher 0.3).
    pub max_dup_paragraphs: f64,
    /// Characters in the most frequent 2-gram (Gopher 0.2).
    pub max_top_2gram: f64,
    /// Characters in duplicated 5-grams (Gopher 0.15).
    pub max_dup_5gram: f64,
    /// Lines ending in terminal punctuation, minimum (FineWeb 0.12).
    pub min_punct_lines: f64,
    /// Lines under 30 characters, maximum (FineWeb 0.67).
    pub max_short_lines: f64,
    /// Drop lorem ipsum placeholder text (C4).
    pub drop_lorem_ipsum: bool,
}

impl Default for HeuristicsConfig {
    fn default() -> Self {
        HeuristicsConfig {
            enabled: true,
            signals_only: false,
            max_words: 200_000,
            min_mean_word_len: 2.0,
            max_mean_word_len: 14.0,
            max_symbol_ratio: 0.2,
            max_bullet_lines: 0.95,
            max_ellipsis_lines: 0.5,
            min_alpha_words: 0.6,
            min_stopwords: 1,
            max_dup_lines: 0.5,
            max_dup_paragraphs: 0.5,
            max_top_2gram: 0.3,
            max_dup_5gram: 0.3,
            min_punct_lines: 0.05,
            max_short_lines: 0.85,
            drop_lorem_ipsum: true,
        }
    }
}

fn stopwords(lang: &str) -> Option<&'static [&'static str]> {
    Some(match lang {
        "eng" => &[
            "the", "be", "to", "of", "and", "that", "have", "with", "is", "in", "it", "for",
        ],
        "fra" => &[
            "le", "la", "les", "de", "des", "et", "est", "un", "une", "que", "dans", "pour",
        ],
        "deu" => &[
            "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "zu", "mit", "den", "von",
        ],
        "spa" => &[
            "el", "la", "los", "las", "de", "y", "que", "en", "un", "una", "es", "por",
        ],
        _ => return None,
    })
}

/// The key of one n-gram of word hashes: a polynomial of its words' hashes, finalised so
/// every bit depends on every word.
fn ngram_key(words: &[u64]) -> u64 {
    const P: u64 = 0x9e37_79b9_7f4a_7c15;
    let h = words
        .iter()
        .fold(0u64, |h, w| h.wrapping_mul(P).wrapping_add(*w));
    finish(h, words.len())
}

fn finish(h: u64, k: usize) -> u64 {
    let x = h ^ (k as u64).rotate_left(56);
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Counts of n-gram keys (already well mixed 64-bit hashes): open addressing with linear
/// probing, one table per n-gram size sized to the positions counted (a third of the cost of
/// a general hash map here).
struct NgramTable {
    /// (key, count)
    slots: Vec<(u64, u32)>,
    mask: usize,
}

impl NgramTable {
    fn with_room(n: usize) -> NgramTable {
        let cap = (2 * n.max(8)).next_power_of_two();
        NgramTable {
            slots: vec![(0, 0); cap],
            mask: cap - 1,
        }
    }

    /// Adds one occurrence of `key`; returns its slot (for [`NgramTable::final_count`]) and
    /// its count so far.
    fn count(&mut self, key: u64) -> (usize, u32) {
        let key = key.max(1); // 0 marks an empty slot
        let mut i = (key as usize) & self.mask;
        loop {
            let s = &mut self.slots[i];
            if s.0 == key {
                s.1 += 1;
                return (i, s.1);
            }
            if s.0 == 0 {
                *s = (key, 1);
                return (i, 1);
            }
            i = (i + 1) & self.mask;
        }
    }

    fn final_count(&self, slot: usize) -> u32 {
        self.slots[slot].1
    }
}

/// The n-gram repetition signals over word hashes `wh` with character lengths `wc` (Gopher's
/// top 2- and 3-gram and duplicated 5- and 10-gram character fractions, of `total_chars`).
///
/// Only 2-grams are counted at every position. A k-gram can occur twice only if every
/// shorter n-gram inside it does, so the 3-grams counted are those whose two 2-grams repeat,
/// the 5-grams those whose three 3-grams repeat, the 10-grams those whose two halves repeat:
/// the n-grams left out occur once, which none of the signals counts, so the result is the
/// same as counting every position (`ngram_signals_equal_counting_every_position`), at about
/// a third of the cost on prose.
fn ngram_signals(wh: &[u64], wc: &[u32], total_chars: f64) -> [f64; 4] {
    let n = wh.len();
    if n < 2 {
        return [0.0; 4];
    }
    let mut prefix: Vec<u32> = Vec::with_capacity(n + 1);
    prefix.push(0);
    for c in wc {
        prefix.push(prefix[prefix.len() - 1] + c);
    }
    // counts the k-grams at `starts` (ascending); returns, per start, whether it repeats
    // anywhere in the text, the top n-gram's character fraction (count x length) and the
    // fraction of characters in repeated occurrences (Gopher's duplicated n-grams; positions
    // go in order, so covered words are summed by prefix sums, each once)
    let pass = |k: usize, starts: &[u32]| -> (Vec<bool>, f64, f64) {
        let mut table = NgramTable::with_room(starts.len());
        let mut slots: Vec<u32> = Vec::with_capacity(starts.len());
        let (mut best, mut dup_chars, mut covered) = (0usize, 0usize, 0usize);
        for &i in starts {
            let i = i as usize;
            let (slot, count) = table.count(ngram_key(&wh[i..i + k]));
            if count > 1 {
                // every occurrence has the same words, so the same length
                best = best.max(count as usize * (prefix[i + k] - prefix[i]) as usize);
                let from = covered.max(i);
                dup_chars += (prefix[i + k] - prefix[from.min(i + k)]) as usize;
                covered = i + k;
            }
            slots.push(slot as u32);
        }
        let mut repeats = vec![false; n];
        for (&i, &slot) in starts.iter().zip(&slots) {
            repeats[i as usize] = table.final_count(slot as usize) > 1;
        }
        (
            repeats,
            best as f64 / total_chars,
            dup_chars as f64 / total_chars,
        )
    };
    let all: Vec<u32> = (0..(n - 1) as u32).collect();
    let (rep2, top2, _) = pass(2, &all);
    let starts = |len: usize, keep: &dyn Fn(usize) -> bool| -> Vec<u32> {
        (0..n.saturating_sub(len - 1))
            .filter(|&i| keep(i))
            .map(|i| i as u32)
            .collect()
    };
    let (rep3, top3, _) = pass(3, &starts(3, &|i| rep2[i] && rep2[i + 1]));
    let (rep5, _, dup5) = pass(5, &starts(5, &|i| rep3[i] && rep3[i + 1] && rep3[i + 2]));
    let (_, _, dup10) = pass(10, &starts(10, &|i| rep5[i] && rep5[i + 5]));
    [top2, top3, dup5, dup10]
}

/// `javascript`, `cookie`, `lorem ipsum` in any ASCII case. A regex rather than an
/// Aho-Corasick automaton: the regex engine searches for a few case variants of the
/// patterns' first bytes with SIMD and runs the automaton only there (6x faster over pages).
fn boilerplate() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new("(?i-u)javascript|cookie|lorem ipsum").expect("static pattern")
    })
}

/// Gopher's symbols: `#`, `...` (non-overlapping) and `…`, in one SIMD scan for their first
/// bytes (the same count as three `str::matches`).
fn symbol_count(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut n, mut skip_to) = (0, 0);
    for i in memchr::memchr3_iter(b'#', b'.', 0xE2, b) {
        if i < skip_to {
            continue;
        }
        match b[i] {
            b'#' => n += 1,
            b'.' if b[i..].starts_with(b"...") => {
                n += 1;
                skip_to = i + 3;
            }
            0xE2 if b[i..].starts_with("…".as_bytes()) => n += 1,
            _ => {}
        }
    }
    n
}

/// Which boilerplate pattern a match is: 0 `javascript`, 1 `cookie`, 2 `lorem ipsum`.
fn boilerplate_kind(m: &str) -> usize {
    match m.as_bytes()[0].to_ascii_lowercase() {
        b'j' => 0,
        b'c' => 1,
        _ => 2,
    }
}

/// The xxh3 hashes of `lang`'s stop words, and the longest one's length in bytes.
fn stopword_hashes(lang: &str) -> Option<(&'static rustc_hash::FxHashSet<u64>, usize)> {
    type Sets = Vec<(&'static str, rustc_hash::FxHashSet<u64>, usize)>;
    static SETS: std::sync::OnceLock<Sets> = std::sync::OnceLock::new();
    let sets = SETS.get_or_init(|| {
        ["eng", "fra", "deu", "spa"]
            .into_iter()
            .map(|l| {
                let words = stopwords(l).unwrap_or_default();
                (
                    l,
                    words
                        .iter()
                        .map(|w| xxhash_rust::xxh3::xxh3_64(w.as_bytes()))
                        .collect(),
                    words.iter().map(|w| w.len()).max().unwrap_or(0),
                )
            })
            .collect()
    });
    sets.iter()
        .find(|(l, _, _)| *l == lang)
        .map(|(_, s, n)| (s, *n))
}

/// Computes `attrs.heur` (see the module docs).
#[derive(Debug)]
pub struct Signals;

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl Map for Signals {
    fn name(&self) -> &'static str {
        "heuristic_signals"
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        let text = &doc.text;
        let lang = doc.meta.lang.clone().unwrap_or_default();
        let stop_list = stopword_hashes(&lang);
        // one pass over the words: per word its lowercase hash (for the n-grams) and length
        // in characters; ASCII words (most of them in most languages) skip Unicode work
        let mut wh: Vec<u64> = Vec::with_capacity(text.len() / 5);
        let mut wc: Vec<u32> = Vec::with_capacity(text.len() / 5);
        let (mut chars, mut alpha, mut dense, mut stop) = (0usize, 0usize, 0usize, 0usize);
        let mut buf = String::new();
        trawl_core::text::for_each_word(text, |w| {
            // one branch-free look at the bytes: any non-ASCII, any letter, any capital
            let (mut high, mut letter, mut upper) = (0u8, false, false);
            for &c in w.as_bytes() {
                high |= c;
                letter |= (c | 0x20).wrapping_sub(b'a') < 26;
                upper |= c.wrapping_sub(b'A') < 26;
            }
            let ascii = high < 0x80;
            let (n, lower): (usize, &str) = if ascii {
                alpha += usize::from(letter);
                if upper {
                    buf.clear();
                    buf.push_str(w);
                    buf.make_ascii_lowercase();
                    (w.len(), buf.as_str())
                } else {
                    (w.len(), w)
                }
            } else {
                alpha += usize::from(letter || w.chars().any(char::is_alphabetic));
                dense += usize::from(w.chars().any(trawl_core::text::is_dense_script));
                buf.clear();
                trawl_core::text::push_lowercase(&mut buf, w);
                (w.chars().count(), buf.as_str())
            };
            chars += n;
            let hash = xxhash_rust::xxh3::xxh3_64(lower.as_bytes());
            if let Some((set, longest)) = stop_list {
                // stop words are matched on the word without surrounding punctuation, by hash
                // (only words short enough to be one)
                let trimmed = trawl_core::text::trim_non_alphanumeric(lower);
                if trimmed.len() <= longest {
                    let th = if trimmed.len() == lower.len() {
                        hash
                    } else {
                        xxhash_rust::xxh3::xxh3_64(trimmed.as_bytes())
                    };
                    stop += usize::from(set.contains(&th));
                }
            }
            wh.push(hash);
            wc.push(if ascii {
                n as u32
            } else {
                lower.chars().count() as u32
            });
        });
        let n = wh.len().max(1) as f64;
        let symbols = symbol_count(text);
        let stop = stop_list.map(|_| stop);
        // one pass over the lines
        let (mut nl, mut bullets, mut ellipsis, mut punct, mut short, mut js, mut cookie) =
            (0usize, 0, 0, 0, 0, 0, 0);
        let mut distinct_lines: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        // boilerplate words, found in one case-insensitive scan of the text (rare, so the
        // line pass below only walks a short list of positions)
        let marks: Vec<(usize, usize)> = boilerplate()
            .find_iter(text.as_str())
            .map(|m| (m.start(), boilerplate_kind(m.as_str())))
            .collect();
        let mut next_mark = 0;
        for l in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (start, end) = (
                l.as_ptr() as usize - text.as_ptr() as usize,
                l.as_ptr() as usize - text.as_ptr() as usize + l.len(),
            );
            let (mut has_js, mut has_cookie) = (false, false);
            while next_mark < marks.len() && marks[next_mark].0 < end {
                if marks[next_mark].0 >= start {
                    has_js |= marks[next_mark].1 == 0;
                    has_cookie |= marks[next_mark].1 == 1;
                }
                next_mark += 1;
            }
            nl += 1;
            bullets += usize::from(l.starts_with(['•', '-', '*', '·', '‣', '▪']));
            ellipsis += usize::from(l.ends_with("...") || l.ends_with('…'));
            punct += usize::from(l.ends_with([
                '.', '!', '?', '"', '\'', '。', '！', '？', ':', ';', ')', '”',
            ]));
            short += usize::from(l.len() < 30 || (l.len() < 120 && l.chars().count() < 30));
            js += usize::from(has_js);
            cookie += usize::from(
                has_cookie
                    && (trawl_core::text::contains_ascii_ci(l, "accept")
                        || trawl_core::text::contains_ascii_ci(l, "use")
                        || trawl_core::text::contains_ascii_ci(l, "policy")),
            );
            distinct_lines.insert(l);
        }
        let dup_lines = (nl - distinct_lines.len()) as f64 / nl.max(1) as f64;
        let nl = nl.max(1) as f64;
        let (mut np, mut distinct_paras) = (0usize, rustc_hash::FxHashSet::default());
        for p in trawl_core::text::split_paragraphs(text)
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            np += 1;
            distinct_paras.insert(p);
        }
        let dup_paragraphs = (np - distinct_paras.len()) as f64 / np.max(1) as f64;
        // n-gram repetition over lowercased words, measured in characters (Gopher). Each word
        // is hashed once; an n-gram's key is a polynomial of its words' hashes (no joined
        // strings), its length a difference of prefix sums.
        let [top_2gram, top_3gram, dup_5gram, dup_10gram] =
            ngram_signals(&wh, &wc, chars.max(1) as f64);
        let mut h = json!({
            "dense_words": round(dense as f64 / n),
            "mean_word_len": round(chars as f64 / n),
            "symbol_ratio": round(symbols as f64 / n),
            "bullet_lines": round(bullets as f64 / nl),
            "ellipsis_lines": round(ellipsis as f64 / nl),
            "alpha_words": round(alpha as f64 / n),
            "punct_lines": round(punct as f64 / nl),
            "short_lines": round(short as f64 / nl),
            "dup_lines": round(dup_lines),
            "dup_paragraphs": round(dup_paragraphs),
            "top_2gram": round(top_2gram),
            "top_3gram": round(top_3gram),
            "dup_5gram": round(dup_5gram),
            "dup_10gram": round(dup_10gram),
            "lorem_ipsum": marks.iter().any(|m| m.1 == 2),
            "curly_brackets": text.contains('{'),
            "javascript_lines": js,
            "cookie_lines": cookie,
        });
        if let Some(s) = stop {
            h["stopwords"] = json!(s);
        }
        doc.attrs.insert("heur".into(), h);
        Ok(())
    }
}

/// Drops documents on the heuristic signals (see [`HeuristicsConfig`]).
#[derive(Debug)]
pub struct Heuristics {
    /// Thresholds.
    pub cfg: HeuristicsConfig,
}

impl Filter for Heuristics {
    fn name(&self) -> &'static str {
        "heuristics"
    }

    fn filter(&self, doc: &Document) -> Verdict {
        let c = &self.cfg;
        let Some(h) = doc.attrs.get("heur") else {
            return Verdict::Keep;
        };
        let f = |k: &str| h.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
        let words = doc.attrs.get("words").and_then(|w| w.as_u64()).unwrap_or(0);
        let drop = |r: DropReason| Verdict::Drop(r);
        if words > c.max_words {
            return drop(reasons::LENGTH);
        }
        if c.drop_lorem_ipsum
            && h.get("lorem_ipsum")
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
        {
            return drop(reasons::LOREM);
        }
        // word length means nothing where every character is a word (CJK, Thai)
        if words > 0
            && f("dense_words") < 0.5
            && !(c.min_mean_word_len..=c.max_mean_word_len).contains(&f("mean_word_len"))
        {
            return drop(reasons::WORD_LENGTH);
        }
        if f("ellipsis_lines") > c.max_ellipsis_lines {
            return drop(reasons::ELLIPSIS);
        }
        if f("symbol_ratio") > c.max_symbol_ratio {
            return drop(reasons::SYMBOLS);
        }
        if f("bullet_lines") > c.max_bullet_lines {
            return drop(reasons::BULLETS);
        }
        if f("alpha_words") < c.min_alpha_words {
            return drop(reasons::ALPHA);
        }
        if let Some(s) = h.get("stopwords").and_then(|v| v.as_u64()) {
            if s < c.min_stopwords {
                return drop(reasons::STOPWORDS);
            }
        }
        if f("dup_lines") > c.max_dup_lines
            || f("dup_paragraphs") > c.max_dup_paragraphs
            || f("top_2gram") > c.max_top_2gram
            || f("dup_5gram") > c.max_dup_5gram
        {
            return drop(reasons::REPETITION);
        }
        if f("punct_lines") < c.min_punct_lines {
            return drop(reasons::PUNCTUATION);
        }
        if f("short_lines") > c.max_short_lines {
            return drop(reasons::SHORT_LINES);
        }
        Verdict::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::compliance::check_stage;
    use trawl_core::Stage;

    /// Every position counted, with words as strings: the definition the pruned passes of
    /// [`ngram_signals`] must equal.
    fn ngram_signals_by_definition(words: &[&str]) -> [f64; 4] {
        let chars: Vec<usize> = words.iter().map(|w| w.chars().count()).collect();
        let total = chars.iter().sum::<usize>().max(1) as f64;
        let top = |k: usize| {
            let mut counts: std::collections::HashMap<&[&str], usize> =
                std::collections::HashMap::new();
            let mut best = 0;
            for i in 0..words.len().saturating_sub(k - 1) {
                let c = counts.entry(&words[i..i + k]).or_insert(0);
                *c += 1;
                if *c > 1 {
                    best = best.max(*c * chars[i..i + k].iter().sum::<usize>());
                }
            }
            best as f64 / total
        };
        let dup = |k: usize| {
            let mut seen = std::collections::HashSet::new();
            let mut dup = vec![false; words.len()];
            for i in 0..words.len().saturating_sub(k - 1) {
                if !seen.insert(&words[i..i + k]) {
                    dup[i..i + k].fill(true);
                }
            }
            (0..words.len())
                .filter(|&i| dup[i])
                .map(|i| chars[i])
                .sum::<usize>() as f64
                / total
        };
        [top(2), top(3), dup(5), dup(10)]
    }

    #[test]
    fn symbol_count_is_three_matches() {
        for t in [
            "",
            "#",
            "a.b..c...d....e.....f......",
            "…#…...#",
            "x…",
            "é.. .. ...",
            "#hash ## and ... … end...",
        ] {
            assert_eq!(
                symbol_count(t),
                t.matches('#').count() + t.matches("...").count() + t.matches('…').count(),
                "{t}"
            );
        }
    }

    #[test]
    fn ngram_signals_equal_counting_every_position() {
        // texts over small vocabularies repeat n-grams of every size
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let vocab = [
            "a", "the", "cat", "sat", "on", "mat", "über", "日", "x", "naïve",
        ];
        for case in 0..300 {
            let len = case % 120;
            let size = 2 + case % (vocab.len() - 1);
            let words: Vec<&str> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    vocab[(x % size as u64) as usize]
                })
                .collect();
            let wh: Vec<u64> = words
                .iter()
                .map(|w| xxhash_rust::xxh3::xxh3_64(w.as_bytes()))
                .collect();
            let wc: Vec<u32> = words.iter().map(|w| w.chars().count() as u32).collect();
            let total = wc.iter().sum::<u32>().max(1) as f64;
            let got = ngram_signals(&wh, &wc, total);
            let want = ngram_signals_by_definition(&words);
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-12, "{words:?}: {got:?} vs {want:?}");
            }
        }
    }

    fn signals(text: &str, lang: &str) -> Document {
        let mut d = Document::new("u", text);
        d.meta.lang = Some(lang.into());
        d.attrs
            .insert("words".into(), json!(trawl_core::text::word_count(text)));
        Signals.map(&mut d).unwrap();
        d
    }

    const GOOD: &str = "The harbour town woke slowly on Monday as the first ferries crossed the grey water.\nFishermen who had been out since four o'clock unloaded crates of mackerel and cod.\nLocal officials say the new breakwater has already reduced the damage caused by winter storms.";

    #[test]
    fn each_reason() {
        let h = || {
            Stage::Filter(Box::new(Heuristics {
                cfg: HeuristicsConfig::default(),
            }))
        };
        let cases = [
            (GOOD.to_string(), None),
            (format!("{GOOD}\nlorem ipsum dolor sit amet, consectetur."), Some("c4_lorem_ipsum")),
            ("### ### ### ### word ### ### ###\n".repeat(3), Some("gopher_symbols")),
            ("- home\n- about\n- contact\n- shop\n- news\n".to_string(), Some("gopher_bullets")),
            ("Read more...\nContinue...\nClick here...\nAnd then...\n".to_string(), Some("gopher_ellipsis")),
            ("1234 5678 9012 3456 7890 1234 5678 9012 3456 7890 the end.".to_string(), Some("gopher_alpha")),
            ("Harbour ferries crossed water. Fishermen unloaded crates. Officials reduced damage.".to_string(), Some("gopher_stopwords")),
            (format!("{0}\n{0}\n{0}\n{0}", "The same line of text is repeated here again and again."), Some("gopher_repetition")),
            ("A line without punctuation\nAnother line without any\nAnd a third line of text here\nStill no full stop anywhere in it".to_string(), Some("fineweb_punctuation")),
        ];
        for (text, want) in cases {
            let (kept, stats) = check_stage(h(), vec![signals(&text, "eng")]);
            match want {
                None => assert_eq!(
                    kept.len(),
                    1,
                    "{text}: {:?}",
                    stats.stage("heuristics").unwrap().dropped
                ),
                Some(r) => assert_eq!(
                    stats.stage("heuristics").unwrap().dropped.get(r),
                    Some(&1),
                    "{text}: {:?}",
                    stats.stage("heuristics").unwrap().dropped
                ),
            }
        }
    }

    #[test]
    fn ngram_keys_tell_ngrams_apart() {
        let words: Vec<u64> = (0..50u64)
            .map(|i| xxhash_rust::xxh3::xxh3_64(&(i % 7).to_le_bytes()))
            .collect();
        for k in [1, 2, 3, 5, 10] {
            // equal n-grams (the words repeat every 7) get equal keys, others differ
            for i in 0..=words.len() - k {
                for j in 0..=words.len() - k {
                    assert_eq!(
                        ngram_key(&words[i..i + k]) == ngram_key(&words[j..j + k]),
                        words[i..i + k] == words[j..j + k],
                        "k={k} {i} {j}"
                    );
                }
            }
        }
    }

    #[test]
    fn cjk_and_languages_without_a_stopword_list() {
        let d = signals(
            "我们今天去公园散步，看到很多人在湖边钓鱼。孩子们在草地上放风筝，老人在树下下棋聊天。",
            "cmn",
        );
        assert!(d.attrs["heur"].get("stopwords").is_none());
        let (kept, _) = check_stage(
            Stage::Filter(Box::new(Heuristics {
                cfg: HeuristicsConfig::default(),
            })),
            vec![d],
        );
        assert_eq!(kept.len(), 1, "{:?}", kept);
    }
}
