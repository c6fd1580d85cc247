//! Word splitting shared by the filters (word counts) and dedup (shingles): whitespace
//! separates words, and in scripts written without spaces (CJK ideographs, kana, hangul
//! syllables, Thai) every character is a word.

/// Whether `c` belongs to a script written without spaces between words.
pub fn is_dense_script(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x3040..=0x30FF | 0xAC00..=0xD7AF | 0x0E00..=0x0E7F | 0x20000..=0x2A6DF | 0xF900..=0xFAFF)
}

/// Calls `f` with every word of `text` (see the module docs).
pub fn for_each_word<'a>(text: &'a str, mut f: impl FnMut(&'a str)) {
    // ASCII whitespace splits first (a byte loop); a piece with any non-ASCII byte goes
    // through Unicode whitespace splitting and the dense-script rule, which gives the same
    // words as applying them to the whole text (ASCII whitespace is Unicode whitespace)
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && is_ascii_space(b[i]) {
            i += 1;
        }
        let start = i;
        let mut ascii = true;
        while i < b.len() && !is_ascii_space(b[i]) {
            ascii &= b[i] < 0x80;
            i += 1;
        }
        if start == i {
            break;
        }
        // piece boundaries are ASCII bytes, so they are char boundaries
        let piece = &text[start..i];
        if ascii {
            f(piece);
        } else {
            unicode_words(piece, &mut f);
        }
    }
}

/// The whitespace `split_whitespace` knows among ASCII bytes: space and 9..=13 (tab, line
/// feed, vertical tab, form feed, carriage return), without branches so loops vectorise.
fn is_ascii_space(b: u8) -> bool {
    (b == b' ') | (b.wrapping_sub(9) < 5)
}

fn unicode_words<'a>(piece: &'a str, f: &mut impl FnMut(&'a str)) {
    for tok in piece.split_whitespace() {
        if !tok.chars().any(is_dense_script) {
            f(tok);
            continue;
        }
        let mut start = None;
        for (i, c) in tok.char_indices() {
            if is_dense_script(c) {
                if let Some(s) = start.take() {
                    f(&tok[s..i]);
                }
                f(&tok[i..i + c.len_utf8()]);
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            f(&tok[s..]);
        }
    }
}

/// The blocks of `text` between blank lines: exactly `text.split("\n\n")`, found with a
/// SIMD substring search (the standard library's two-way search took most of the time of
/// splitting pages into paragraphs).
pub fn split_paragraphs(text: &str) -> impl Iterator<Item = &str> {
    let mut starts = memchr::memmem::find_iter(text.as_bytes(), b"\n\n");
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        match starts.next() {
            Some(i) => {
                from = Some(i + 2);
                Some(&text[start..i])
            }
            None => {
                from = None;
                Some(&text[start..])
            }
        }
    })
}

/// `s` safe to print on a terminal: control characters other than newline and tab (ESC and
/// the rest of C0, DEL, C1 such as CSI U+009B) are shown as `\u{1b}`, so text from the web
/// cannot move the cursor, recolour or retitle the reader's terminal.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `path` matches `pattern`, where `*` matches any run of characters; `anchored`:
/// the match must reach the end of `path` (robots.txt's final `$`, TDMRep locations), else
/// the pattern matches a prefix.
pub fn wildcard_match(pattern: &str, path: &str, anchored: bool) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut pos = 0;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(part) {
                return false;
            }
            pos = part.len();
        } else if i == parts.len() - 1 && anchored {
            return path.len() >= pos + part.len() && path.ends_with(part);
        } else {
            match path[pos..].find(part) {
                Some(j) => pos += j + part.len(),
                None => return false,
            }
        }
    }
    !anchored || pos == path.len()
}

/// The largest char boundary of `s` at or below `i` (clamped to `s.len()`): what
/// `str::floor_char_boundary` does, which is newer than the project's minimum Rust.
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` at or above `i` (clamped to `s.len()`).
pub fn ceil_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `word` without the characters that are not alphanumeric at either end (bytes for an ASCII
/// word, characters otherwise).
pub fn trim_non_alphanumeric(word: &str) -> &str {
    if !word.is_ascii() {
        return word.trim_matches(|c: char| !c.is_alphanumeric());
    }
    let b = word.as_bytes();
    let start = b
        .iter()
        .position(u8::is_ascii_alphanumeric)
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(u8::is_ascii_alphanumeric)
        .map_or(start, |e| e + 1);
    &word[start..end]
}

/// Whether `hay` contains `needle`, ignoring ASCII case (non-ASCII bytes must match
/// exactly).
pub fn contains_ascii_ci(hay: &str, needle: &str) -> bool {
    bytes_contain_ascii_ci(hay.as_bytes(), needle.as_bytes())
}

/// [`contains_ascii_ci`] on bytes.
pub fn bytes_contain_ascii_ci(h: &[u8], n: &[u8]) -> bool {
    let Some((&first, rest)) = n.split_first() else {
        return true;
    };
    if h.len() < n.len() {
        return false;
    }
    // candidates: the needle's first byte in either case (memchr's vector search), then the
    // rest compared
    let starts = &h[..=h.len() - n.len()];
    memchr::memchr2_iter(
        first.to_ascii_lowercase(),
        first.to_ascii_uppercase(),
        starts,
    )
    .any(|i| h[i + 1..i + n.len()].eq_ignore_ascii_case(rest))
}

/// Appends the lowercase of `word` to `buf`, exactly as `str::to_lowercase` would (final
/// sigma included), without an allocation for ASCII and most other words.
pub fn push_lowercase(buf: &mut String, word: &str) {
    if word.is_ascii() {
        let at = buf.len();
        buf.push_str(word);
        buf[at..].make_ascii_lowercase();
    } else if word.contains('Σ') {
        // the one context-dependent mapping (word-final sigma)
        buf.push_str(&word.to_lowercase());
    } else {
        // ASCII runs in bulk, other characters one by one
        let b = word.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let run = next_non_ascii(b, i).unwrap_or(b.len());
            if run > i {
                let at = buf.len();
                buf.push_str(&word[i..run]);
                buf[at..].make_ascii_lowercase();
                i = run;
                continue;
            }
            // `i` is at a non-ASCII byte that follows an ASCII one or a whole character
            let c = word[i..].chars().next().unwrap_or(' ');
            match quick_lowercase(c) {
                Some(l) => buf.push(l),
                None => buf.extend(c.to_lowercase()),
            }
            i += c.len_utf8();
        }
    }
}

/// The lowercase of `c` for the blocks most web text uses (ASCII, Latin-1, Cyrillic, Greek
/// capitals, scripts without case such as CJK, kana, hangul and Thai), where it is one
/// character found by arithmetic; `None` elsewhere (the caller asks the Unicode tables,
/// which cost a search per character). Equal to `char::to_lowercase` wherever it answers
/// (`quick_lowercase_is_to_lowercase` checks every character).
fn quick_lowercase(c: char) -> Option<char> {
    let u = c as u32;
    let l = match u {
        0x41..=0x5A | 0xC0..=0xD6 | 0xD8..=0xDE | 0x391..=0x3A1 | 0x3A3..=0x3AB | 0x410..=0x42F => {
            u + 0x20
        }
        0x400..=0x40F => u + 0x50,
        0..=0x40 | 0x5B..=0xBF | 0xD7 | 0xDF..=0xFF | 0x3AC..=0x3CE | 0x430..=0x45F => u,
        _ if is_dense_script(c)
            || (0x2000..=0x206F).contains(&u)
            || (0x3000..=0x303F).contains(&u)
            || (0xFF01..=0xFF20).contains(&u) =>
        {
            u
        }
        _ => return None,
    };
    char::from_u32(l)
}

/// Number of words (see the module docs).
pub fn word_count(text: &str) -> usize {
    // Count the starts of ASCII-whitespace-separated pieces in one branch-free pass over the
    // bytes (the compiler vectorises it). A piece with a non-ASCII byte may hold Unicode
    // whitespace or dense-script characters, so it is counted again the general way and
    // replaces its count of one. The result equals counting `for_each_word`'s words.
    let b = text.as_bytes();
    let mut n = usize::from(b.first().is_some_and(|&c| !is_ascii_space(c)));
    if b.len() > 1 {
        // a word starts where a space is followed by a non-space; summed in u32 per block
        // so the loop vectorises
        let (prev, next) = (&b[..b.len() - 1], &b[1..]);
        for (p, c) in prev.chunks(1 << 16).zip(next.chunks(1 << 16)) {
            n += p
                .iter()
                .zip(c)
                .map(|(&p, &c)| u32::from(is_ascii_space(p) & !is_ascii_space(c)))
                .sum::<u32>() as usize;
        }
    }
    if text.is_ascii() {
        return n;
    }
    // Non-ASCII characters: a piece is recounted only when one of its characters is
    // Unicode whitespace or of a dense script (accents, curly quotes and dashes are not)
    let mut i = 0;
    while let Some(at) = next_non_ascii(b, i) {
        let c = text[at..].chars().next().unwrap_or(' ');
        if !(c.is_whitespace() || is_dense_script(c)) {
            i = at + c.len_utf8();
            continue;
        }
        let start = b[..at]
            .iter()
            .rposition(|&c| is_ascii_space(c))
            .map_or(0, |p| p + 1);
        let end = b[at..]
            .iter()
            .position(|&c| is_ascii_space(c))
            .map_or(b.len(), |p| at + p);
        // piece boundaries are ASCII bytes, so they are char boundaries
        let mut k = 0;
        unicode_words(&text[start..end], &mut |_| k += 1);
        n = n + k - 1;
        i = end;
    }
    n
}

/// The position of the first byte at or after `from` that is not ASCII (16 bytes at a time
/// over ASCII runs).
pub fn next_non_ascii(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 16 <= b.len() && b[i..i + 16].is_ascii() {
        i += 16;
    }
    b[i..].iter().position(|&c| c >= 0x80).map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_for_terminals() {
        assert_eq!(escape_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            escape_controls("a\u{1b}[31mred\u{9b}2J\u{7}\r"),
            "a\\u{1b}[31mred\\u{9b}2J\\u{7}\\u{d}"
        );
        assert!(matches!(
            escape_controls("ok"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn ascii_case_insensitive_contains() {
        assert!(contains_ascii_ci("Accept all COOKIES", "cookies"));
        assert!(contains_ascii_ci("x", ""));
        assert!(!contains_ascii_ci("cook", "cookie"));
        assert!(!contains_ascii_ci("ÉTÉ", "été"), "only ASCII letters fold");
        assert!(contains_ascii_ci("style=\"DISPLAY:None\"", "none"));
        assert!(contains_ascii_ci("none", "none") && contains_ascii_ci("xnonx NoNe", "none"));
        assert!(!contains_ascii_ci("nonnonno", "none"));
        assert!(contains_ascii_ci("été!", "é!") && !contains_ascii_ci("", "a"));
    }

    #[test]
    fn quick_lowercase_is_to_lowercase() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if let Some(l) = quick_lowercase(c) {
                assert_eq!(
                    c.to_lowercase().collect::<String>(),
                    l.to_string(),
                    "{c:?} U+{:04X}",
                    c as u32
                );
            }
        }
    }

    #[test]
    fn push_lowercase_is_to_lowercase() {
        let long =
            "Ein LANGER Text — mit Ümlauten, ΕΛΛΗΝΙΚΑ, Кириллица, 日本語 and ASCII runs İİ. "
                .repeat(50);
        for w in [
            "ABC",
            "Straße",
            "ΟΔΟΣ",
            "ΣΑΣ",
            "İstanbul",
            "Ünïcödé",
            "ПРИВЕТ",
            "日本",
            "aÉb",
            "É",
            &long,
        ] {
            let mut b = String::from("x");
            push_lowercase(&mut b, w);
            assert_eq!(b, format!("x{}", w.to_lowercase()), "{w}");
        }
    }

    #[test]
    fn fast_split_agrees_with_split_whitespace() {
        for t in [
            "",
            "  a  b ",
            "non\u{a0}breaking\u{2003}em space",
            "mixed 我们今天 words\tand\u{3000}ideographic space",
            "ünï cödé\n\n",
            "x\u{85}y",
        ] {
            let mut got = Vec::new();
            for_each_word(t, |w| got.push(w));
            let mut want = Vec::new();
            unicode_words(t, &mut |w| want.push(w));
            assert_eq!(got, want, "{t:?}");
        }
    }

    #[test]
    fn word_count_agrees_with_for_each_word() {
        let mixed = "Ça\u{a0}coûte — 5 €\u{2003}à Zürich 我们今天去公园 abc日本def\u{a0} \u{a0}\u{3000}ภาษาไทย “quoted” Σ end";
        for t in [
            "",
            " ",
            "one",
            " two  words ",
            "a\tb\nc\rd\x0Be\x0Cf",
            "tail ",
            "\u{a0}",
            " \u{a0} ",
            "日",
            "x\u{a0}y",
            mixed,
            &mixed.repeat(300),
        ] {
            let mut n = 0;
            for_each_word(t, |_| n += 1);
            assert_eq!(word_count(t), n, "{t:?}");
        }
        // random strings over an alphabet of the interesting cases
        let alphabet = [
            'a', 'Z', ' ', '\n', '\t', '\u{a0}', '\u{3000}', 'é', '—', '日', 'ภ', '“', '.',
            '\u{2003}',
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in 0..400 {
            let t: String = (0..len % 60)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            let mut n = 0;
            for_each_word(&t, |_| n += 1);
            assert_eq!(word_count(&t), n, "{t:?}");
        }
    }

    #[test]
    fn trims_non_alphanumerics() {
        for w in [
            "(word),", "...", "", "don't", "«mot»", "x", "—", "«»a»", "12:30.",
        ] {
            assert_eq!(
                trim_non_alphanumeric(w),
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "{w}"
            );
        }
    }

    #[test]
    fn char_boundaries() {
        let s = "aé日b";
        assert_eq!(
            (0..=8)
                .map(|i| floor_char_boundary(s, i))
                .collect::<Vec<_>>(),
            [0, 1, 1, 3, 3, 3, 6, 7, 7]
        );
        assert_eq!(
            (0..=8)
                .map(|i| ceil_char_boundary(s, i))
                .collect::<Vec<_>>(),
            [0, 1, 3, 3, 6, 6, 6, 7, 7]
        );
    }

    #[test]
    fn paragraphs_split_like_str_split() {
        for t in [
            "",
            "a",
            "a\n\nb",
            "\n\n",
            "a\n\n\nb",
            "a\n\n\n\nb\n\n",
            "é\n\n日本\n\n\n\n\nx",
            "\n",
            "no break\nhere",
        ] {
            assert_eq!(
                split_paragraphs(t).collect::<Vec<_>>(),
                t.split("\n\n").collect::<Vec<_>>(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn words() {
        assert_eq!(word_count("one two three"), 3);
        assert_eq!(word_count("我们今天去公园"), 7);
        assert_eq!(word_count("ภาษาไทย"), 7);
        let mut v = Vec::new();
        for_each_word("abc日本def", |w| v.push(w));
        assert_eq!(v, vec!["abc", "日", "本", "def"]);
    }
}
