//! A fast encoder for byte-level BPE `tokenizer.json` files (GPT-2 style: no normalizer,
//! `ByteLevel` pre-tokenizer with its regex, BPE without dropout or affixes), giving exactly
//! the ids the `tokenizers` crate gives, several times faster:
//!
//! - the GPT-2 split `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
//!   is a hand-written scanner instead of a backtracking regex;
//! - each piece's ids are cached (natural text is Zipfian: most pieces repeat);
//! - merges work on ids with a pair table, lowest rank first, leftmost on ties (the order
//!   the `tokenizers` crate's merge queue produces).
//!
//! Added tokens are split out of the text first, as the `tokenizers` crate does.
//! Files with any other setting are not accepted here; the caller falls back to the
//! `tokenizers` crate for them.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use serde_json::Value;

/// GPT-2's byte -> printable char map.
fn bytes_to_unicode() -> [char; 256] {
    let mut map = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..256u32 {
        let printable =
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        map[b as usize] = if printable {
            char::from_u32(b).expect("valid")
        } else {
            n += 1;
            char::from_u32(255 + n).expect("valid")
        };
    }
    map
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Number,
    Space,
    Other,
}

struct Classifier {
    letter: regex::Regex,
    number: regex::Regex,
    cache: FxHashMap<char, Class>,
}

impl Classifier {
    fn new() -> Self {
        Classifier {
            letter: regex::Regex::new(r"^\p{L}$").expect("static"),
            number: regex::Regex::new(r"^\p{N}$").expect("static"),
            cache: FxHashMap::default(),
        }
    }

    #[inline]
    fn class(&mut self, c: char) -> Class {
        if c.is_ascii() {
            return if c.is_ascii_alphabetic() {
                Class::Letter
            } else if c.is_ascii_digit() {
                Class::Number
            } else if c.is_ascii_whitespace() || c == '\u{b}' {
                Class::Space
            } else {
                Class::Other
            };
        }
        if let Some(k) = self.cache.get(&c) {
            return *k;
        }
        let mut buf = [0u8; 4];
        let s = c.encode_utf8(&mut buf);
        let k = if c.is_whitespace() {
            Class::Space
        } else if self.letter.is_match(s) {
            Class::Letter
        } else if self.number.is_match(s) {
            Class::Number
        } else {
            Class::Other
        };
        self.cache.insert(c, k);
        k
    }
}

/// Splits text as the GPT-2 regex does; calls `f` with each piece.
fn split(text: &str, cls: &mut Classifier, mut f: impl FnMut(&str)) {
    let b = text.as_bytes();
    let mut i = 0;
    let next_char = |i: usize| text[i..].chars().next();
    while i < b.len() {
        let c = next_char(i).expect("in bounds");
        let start = i;
        // 1. contractions
        if c == '\'' {
            let rest = &b[i + 1..];
            let l = if rest.starts_with(b"re") || rest.starts_with(b"ve") || rest.starts_with(b"ll")
            {
                3
            } else if matches!(rest.first(), Some(b's' | b't' | b'm' | b'd')) {
                2
            } else {
                0
            };
            if l > 0 {
                f(&text[i..i + l]);
                i += l;
                continue;
            }
        }
        // 2-4: optional space, then a run of one class
        let (run_start, run_class) = if c == ' ' {
            match next_char(i + 1) {
                Some(n) => match cls.class(n) {
                    Class::Space => (i, Class::Space),
                    k => (i + 1, k),
                },
                None => (i, Class::Space),
            }
        } else {
            (i, cls.class(c))
        };
        if run_class != Class::Space {
            let mut j = run_start;
            while let Some(ch) = next_char(j) {
                if j >= b.len() || cls.class(ch) != run_class {
                    break;
                }
                j += ch.len_utf8();
            }
            f(&text[start..j]);
            i = j;
            continue;
        }
        // 5-6: whitespace
        let mut j = i;
        let mut last = i;
        while j < b.len() {
            let ch = next_char(j).expect("in bounds");
            if cls.class(ch) != Class::Space {
                break;
            }
            last = j;
            j += ch.len_utf8();
        }
        let end = if j < b.len() && last > i { last } else { j };
        f(&text[i..end]);
        i = end;
    }
}

/// Piece -> ids.
type PieceCache = FxHashMap<Box<str>, Box<[u32]>>;

/// The fast encoder.
pub(crate) struct FastBpe {
    byte_id: [u32; 256],
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    added: Vec<(String, u32)>,
    cache: RefCell<(PieceCache, Classifier)>,
}

const CACHE_MAX: usize = 1 << 20;

fn str_of(v: &Value) -> Option<&str> {
    v.as_str()
}

impl FastBpe {
    /// Builds the encoder when the file uses only what this encoder implements.
    pub(crate) fn from_json(json: &Value) -> Option<FastBpe> {
        if !json.get("normalizer").is_none_or(Value::is_null) {
            return None;
        }
        let pre = json.get("pre_tokenizer")?;
        if pre.get("type").and_then(str_of) != Some("ByteLevel")
            || pre.get("add_prefix_space").and_then(Value::as_bool) != Some(false)
            || pre.get("use_regex").and_then(Value::as_bool) == Some(false)
        {
            return None;
        }
        let model = json.get("model")?;
        if model.get("type").and_then(str_of) != Some("BPE") {
            return None;
        }
        for k in ["dropout", "unk_token"] {
            if !model.get(k).is_none_or(Value::is_null) {
                return None;
            }
        }
        for k in ["continuing_subword_prefix", "end_of_word_suffix"] {
            if !model
                .get(k)
                .is_none_or(|v| v.is_null() || v.as_str() == Some(""))
            {
                return None;
            }
        }
        for k in ["byte_fallback", "ignore_merges"] {
            if model.get(k).and_then(Value::as_bool) == Some(true) {
                return None;
            }
        }
        let vocab: FxHashMap<&str, u32> = model
            .get("vocab")?
            .as_object()?
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_u64()? as u32)))
            .collect();
        let b2u = bytes_to_unicode();
        let mut byte_id = [0u32; 256];
        for (b, c) in b2u.iter().enumerate() {
            byte_id[b] = *vocab.get(c.to_string().as_str())?;
        }
        let mut merges = FxHashMap::default();
        for (rank, m) in model.get("merges")?.as_array()?.iter().enumerate() {
            let (a, b) = match m {
                Value::String(s) => s.split_once(' ')?,
                Value::Array(p) if p.len() == 2 => (p[0].as_str()?, p[1].as_str()?),
                _ => return None,
            };
            let (ia, ib) = (*vocab.get(a)?, *vocab.get(b)?);
            let new = *vocab.get(format!("{a}{b}").as_str())?;
            merges.entry((ia, ib)).or_insert((rank as u32, new));
        }
        let mut added = Vec::new();
        for t in json
            .get("added_tokens")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for k in ["single_word", "lstrip", "rstrip"] {
                if t.get(k).and_then(Value::as_bool) == Some(true) {
                    return None;
                }
            }
            added.push((
                t.get("content")?.as_str()?.to_string(),
                t.get("id")?.as_u64()? as u32,
            ));
        }
        // longest first, so overlapping added tokens match like the tokenizers crate's
        added.sort_by_key(|a| std::cmp::Reverse(a.0.len()));
        Some(FastBpe {
            byte_id,
            merges,
            added,
            cache: RefCell::new((FxHashMap::default(), Classifier::new())),
        })
    }

    fn merge(&self, syms: &mut Vec<u32>) {
        loop {
            let mut best: Option<(u32, usize, u32)> = None;
            for i in 0..syms.len().saturating_sub(1) {
                if let Some(&(rank, new)) = self.merges.get(&(syms[i], syms[i + 1])) {
                    if best.is_none_or(|(r, _, _)| rank < r) {
                        best = Some((rank, i, new));
                    }
                }
            }
            let Some((_, i, new)) = best else { return };
            syms[i] = new;
            syms.remove(i + 1);
        }
    }

    fn encode_plain(&self, text: &str, out: &mut Vec<u32>) {
        let mut guard = self.cache.borrow_mut();
        let (cache, cls) = &mut *guard;
        let mut syms = Vec::with_capacity(32);
        split(text, cls, |piece| {
            if let Some(ids) = cache.get(piece) {
                out.extend_from_slice(ids);
                return;
            }
            syms.clear();
            syms.extend(piece.bytes().map(|b| self.byte_id[b as usize]));
            self.merge(&mut syms);
            out.extend_from_slice(&syms);
            if cache.len() >= CACHE_MAX {
                cache.clear();
            }
            cache.insert(piece.into(), syms.as_slice().into());
        });
    }

    /// Ids of a text.
    pub(crate) fn encode(&self, text: &str, out: &mut Vec<u32>) {
        if self.added.is_empty() {
            return self.encode_plain(text, out);
        }
        let mut rest = text;
        loop {
            let hit = self
                .added
                .iter()
                .filter_map(|(s, id)| rest.find(s.as_str()).map(|p| (p, s.len(), *id)))
                .min_by_key(|(p, len, _)| (*p, usize::MAX - len));
            match hit {
                None => return self.encode_plain(rest, out),
                Some((p, len, id)) => {
                    self.encode_plain(&rest[..p], out);
                    out.push(id);
                    rest = &rest[p + len..];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(t: &str) -> Vec<String> {
        let mut c = Classifier::new();
        let mut v = Vec::new();
        split(t, &mut c, |p| v.push(p.to_string()));
        v
    }

    #[test]
    fn gpt2_split() {
        assert_eq!(pieces("Hello world"), vec!["Hello", " world"]);
        assert_eq!(
            pieces("don't  stop\n\nnow  "),
            vec!["don", "'t", " ", " stop", "\n", "\n", "now", "  "]
        );
        assert_eq!(pieces("a  b"), vec!["a", " ", " b"]);
        assert_eq!(pieces("x\n  y"), vec!["x", "\n ", " y"]);
        assert_eq!(
            pieces("12.5%!! 'hi"),
            vec!["12", ".", "5", "%!!", " '", "hi"]
        );
        assert_eq!(pieces("日本語のテキスト。"), vec!["日本語のテキスト", "。"]);
        assert_eq!(pieces(" \u{a0}x"), vec![" ", "\u{a0}", "x"]);
        assert_eq!(pieces("  \nword"), vec!["  ", "\n", "word"]);
        assert!(pieces("").is_empty());
    }
}
