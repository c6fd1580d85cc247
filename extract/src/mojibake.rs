//! Text encoded twice: UTF-8 bytes read as Windows-1252 (or Latin-1) and encoded again, as a
//! page shows it when its database, feed or template mixed up encodings: `canâ€™t` for
//! `can’t`, `cafÃ©` for `café`, `Ð¿Ñ€Ð¸Ð²ÐµÑ‚` for `привет`. A model trained on it learns the
//! garbage; the repair reads such a run's characters back as the bytes they were and decodes
//! those as UTF-8. It runs on the decoded page before parsing, so text, alt text, titles and
//! descriptions are repaired alike.
//!
//! A run is repaired only when its bytes are valid UTF-8 that decodes to characters of a
//! script or symbol block (see [`plausible`]), and only on a page that shows sure signs of
//! the double encoding (see [`Seq::sure`]: a run of two or more such characters, `Ã©`, `Â®`,
//! `â€™`). A single pair such as German `ß“` or French `É…` in a page without them stays as
//! written.

/// The Windows-1252 byte of a character, with the C1 controls (what Latin-1 makes of the
/// bytes 0x80-0x9F) as themselves; `None` for characters outside that encoding.
fn cp1252(c: char) -> Option<u8> {
    if let Ok(b) = u8::try_from(c as u32) {
        return Some(b);
    }
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8a,
        '‹' => 0x8b,
        'Œ' => 0x8c,
        'Ž' => 0x8e,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9a,
        '›' => 0x9b,
        'œ' => 0x9c,
        'ž' => 0x9e,
        'Ÿ' => 0x9f,
        _ => return None,
    })
}

/// Whether a character is one a double encoding plausibly hid: letters of the scripts whose
/// UTF-8 is two or three bytes (Latin beyond ASCII, Greek, Cyrillic, Hebrew, Arabic, Thai,
/// the CJK blocks, Hangul), punctuation, currency and common symbols, emoji, the modifier
/// letters Windows-1252 holds (`ˆ`, `˜`); and the C1
/// controls, which text encoded three times passes through (`”` is `â€` and U+009D after
/// one round; the controls left at the end are dropped with every other control). Not
/// combining marks or rare scripts, which an accident of real text forms (`ß“` is the bytes
/// of an N'Ko letter).
fn plausible(c: char) -> bool {
    matches!(c as u32,
        0x80..=0x24f
            | 0x2b0..=0x2ff
            | 0x370..=0x3ff
            | 0x400..=0x52f
            | 0x590..=0x6ff
            | 0xe00..=0xe7f
            | 0x1e00..=0x1eff
            | 0x2000..=0x206f
            | 0x20a0..=0x20cf
            | 0x2100..=0x22ff
            | 0x2500..=0x27bf
            | 0x3000..=0x30ff
            | 0x3400..=0x9fff
            | 0xac00..=0xd7af
            | 0xff00..=0xffef
            | 0x1f300..=0x1faff)
}

/// One repairable sequence: its byte range in the text, what it decodes to, the byte it
/// starts with and its length in bytes, and whether another sequence touches it (a run).
struct Seq {
    start: usize,
    end: usize,
    decoded: char,
    lead: u8,
    len: usize,
    run: bool,
}

impl Seq {
    /// Whether it is repaired on a page with sure signs: a lone letter of a CJK block is an
    /// accident of real text (French `é”` and a no-break space are the bytes of `锠`); a
    /// garbled CJK text is one long run.
    fn repairable(&self) -> bool {
        self.run || (self.decoded as u32) < 0x3000 || self.len == 4
    }

    /// Whether it alone is a sure sign of double encoding: a run, what U+0080-U+00FF become
    /// (`Ã©`, `Â®`), punctuation (`â€™`) or an emoji.
    fn sure(&self) -> bool {
        self.run
            || (self.len == 2 && matches!(self.lead, 0xc2 | 0xc3))
            || (self.len == 3 && self.lead == 0xe2)
            || self.len == 4
    }
}

/// The sequences of `text` that are UTF-8 read as Windows-1252, in order. Each starts with
/// a character U+00C2-U+00F4, whose own UTF-8 starts with the byte 0xC3: the scan jumps from
/// one such byte to the next, so a page costs what its accented letters cost.
fn sequences(text: &str) -> Vec<Seq> {
    let mut out: Vec<Seq> = Vec::new();
    let mut from = 0;
    while let Some(p) = memchr::memchr(0xc3, &text.as_bytes()[from..]) {
        let start = from + p;
        from = start + 1;
        let mut chars = text[start..].chars();
        let lead = match chars.next().and_then(cp1252) {
            Some(b @ 0xc2..=0xf4) => b,
            _ => continue,
        };
        let len = match lead {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        let mut bytes = [lead, 0, 0, 0];
        let mut end = start + 2;
        let mut ok = true;
        for slot in bytes.iter_mut().take(len).skip(1) {
            match chars.next().map(|n| (n, cp1252(n))) {
                Some((n, Some(b @ 0x80..=0xbf))) => {
                    *slot = b;
                    end += n.len_utf8();
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        let Some(decoded) = std::str::from_utf8(&bytes[..len])
            .ok()
            .and_then(|s| s.chars().next())
            .filter(|&d| plausible(d))
        else {
            continue;
        };
        from = end;
        // a second sequence right after the first: a run
        let run = match out.last_mut().filter(|p| p.end == start) {
            Some(prev) => {
                prev.run = true;
                true
            }
            None => false,
        };
        out.push(Seq {
            start,
            end,
            decoded,
            lead,
            len,
            run,
        });
    }
    out
}

/// `text` with its double-encoded runs repaired and how many characters were read back, or
/// `None` when it has none (or shows no sure sign of them). Text encoded three times is
/// repaired too (up to three rounds).
pub(crate) fn repair(text: &str) -> Option<(String, usize)> {
    // every sequence starts with a character U+00C2-U+00F4, whose UTF-8 starts with 0xC3
    memchr::memchr(0xc3, text.as_bytes())?;
    let mut fixed: Option<String> = None;
    let mut repaired = 0;
    for _ in 0..3 {
        let current = fixed.as_deref().unwrap_or(text);
        let mut seqs = sequences(current);
        seqs.retain(Seq::repairable);
        if !seqs.iter().any(Seq::sure) {
            break;
        }
        let mut out = String::with_capacity(current.len());
        let mut at = 0;
        for s in &seqs {
            out.push_str(&current[at..s.start]);
            out.push(s.decoded);
            at = s.end;
        }
        out.push_str(&current[at..]);
        repaired += seqs.len();
        fixed = Some(out);
    }
    fixed.map(|f| (f, repaired))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(s: &str) -> Option<String> {
        repair(s).map(|(f, _)| f)
    }

    /// What a misconfigured page makes of `s`: its UTF-8 bytes read as Windows-1252.
    fn garble(s: &str) -> String {
        let (text, _, _) = encoding_rs::WINDOWS_1252.decode(s.as_bytes());
        text.into_owned()
    }

    /// The same read as Latin-1: the bytes 0x80-0x9F become C1 controls.
    fn garble_latin1(s: &str) -> String {
        s.bytes().map(char::from).collect()
    }

    #[test]
    fn double_encoded_text_is_repaired() {
        for s in [
            "They can’t protect you — it’s the “rule”.",
            "Le café était à côté de l’église, déjà fermée.",
            "Zażółć gęślą jaźń: Łódź.",
            "Привет, как дела? Всё хорошо.",
            "Γειά σου κόσμε",
            "価格は5,000円です。",
            "Price: 5 € · 20 % off ™",
            "The ☕ emoji 🎉 party",
        ] {
            assert_eq!(fixed(&garble(s)).as_deref(), Some(s), "{}", garble(s));
            assert_eq!(
                fixed(&garble_latin1(s)).as_deref(),
                Some(s),
                "{s} (Latin-1)"
            );
            // encoded three times
            assert_eq!(
                fixed(&garble(&garble(s))).as_deref(),
                Some(s),
                "{s} (twice)"
            );
        }
        // mixed: one part of a page garbled, the rest correct
        let page = format!("Déjà vu. {} Un être déterminé”\u{a0}».", garble("Déjà vu."));
        assert_eq!(
            fixed(&page).as_deref(),
            Some("Déjà vu. Déjà vu. Un être déterminé”\u{a0}».")
        );
    }

    #[test]
    fn correct_text_is_left_alone() {
        for s in [
            "Plain ASCII text.",
            "Le café était à côté de l’église.",
            "Sie sagte „Spaß“ und „CAFÉ…“, dann „PRÄ“.",
            "São Paulo, NÃO, Ñandú, ÀÉÎÕÜ.",
            "Привет",
            "© 2026 Ärzte · Größe ± 5 °C",
            "Ã on its own, Â and Ð too.",
            "Un être « déterminé”\u{a0}».",
        ] {
            assert_eq!(fixed(s), None, "{s}");
        }
    }
}
