//! Text encoded twice: UTF-8 bytes read as Windows-1252 (or Latin-1) and encoded again, as a
//! page shows it when its database, feed or template mixed up encodings: `canâ€™t` for
//! `can’t`, `cafÃ©` for `café`, `Ð¿Ñ€Ð¸Ð²ÐµÑ‚` for `привет`. A model trained on it learns the
//! garbage; the repair reads such a run's characters back as the bytes they were and decodes
//! those as UTF-8. It runs on the decoded page before parsing, so text, alt text, titles and
//! descriptions are repaired alike. The same garbling written as character references
//! (`isn&acirc;&euro;&trade;t`) is read back too (see [`repair_references`]).
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
/// repaired too (up to three rounds), and so is a double encoding written as character
/// references (see [`repair_references`]).
pub(crate) fn repair(text: &str) -> Option<(String, usize)> {
    match repair_chars(text) {
        Some((fixed, n)) => match repair_references(&fixed) {
            Some((again, m)) => Some((again, n + m)),
            None => Some((fixed, n)),
        },
        None => repair_references(text),
    }
}

/// The double-encoded runs written as characters (see [`repair`]).
fn repair_chars(text: &str) -> Option<(String, usize)> {
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

/// A double encoding a CMS wrote as character references, `isn&acirc;&euro;&trade;t` for
/// `isn’t` (the parser turns them into the same `isnâ€™t`): the page is read with the
/// references of the characters Windows-1252 holds beyond ASCII (`&acirc;`, `&euro;`,
/// `&#195;`, `&#x92;`) written as those characters, and repaired as text is. Only when a
/// reference names a character a sequence starts with (U+00C2-U+00F4), and only when the
/// text read so shows sure signs: otherwise the page stays as written, byte for byte. The
/// references replaced are to characters, never to markup (`&lt;`, `&amp;` stay), so the
/// page parses as it did.
fn repair_references(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let lead = |c: char| ('\u{c2}'..='\u{f4}').contains(&c);
    // (the references most pages are full of name no such character: not looked up)
    let common = |at: usize| {
        let rest = &bytes[at + 1..];
        [&b"amp;"[..], b"nbsp;", b"quot;", b"lt;", b"gt;", b"#39;"]
            .iter()
            .any(|r| rest.starts_with(r))
    };
    memchr::memchr_iter(b'&', bytes)
        .find(|&at| !common(at) && reference(text, at).is_some_and(|(c, _)| lead(c)))?;
    let mut read = String::with_capacity(text.len());
    let mut at = 0;
    for amp in memchr::memchr_iter(b'&', bytes) {
        if amp < at {
            continue;
        }
        if let Some((c, end)) = reference(text, amp) {
            read.push_str(&text[at..amp]);
            read.push(c);
            at = end;
        }
    }
    read.push_str(&text[at..]);
    repair_chars(&read)
}

/// The character a reference at byte `at` (an `&`) names, when Windows-1252 holds it beyond
/// ASCII, and the byte after the reference's `;` (a reference without one is left alone).
fn reference(text: &str, at: usize) -> Option<(char, usize)> {
    let rest = &text.as_bytes()[at + 1..];
    let semi = rest.iter().take(MAX_REFERENCE).position(|&b| b == b';')?;
    let body = &text[at + 1..at + 1 + semi];
    let code = if let Some(num) = body.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16),
            None => (num, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        u32::from_str_radix(digits, radix).ok()?
    } else {
        // the table's keys end with their `;`
        let (code, _) = web_atoms::NAMED_ENTITIES.get(&text[at + 1..=at + 1 + semi])?;
        *code
    };
    // a numeric reference to 0x80-0x9F means the Windows-1252 character, as the parser
    // reads it (`&#150;` is `–`); the five bytes Windows-1252 leaves undefined stay controls
    let code = match u8::try_from(code) {
        Ok(b @ 0x80..=0x9f) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(&[b])
            .0
            .chars()
            .next()
            .filter(|&c| c != '\u{fffd}')
            .map_or(code, u32::from),
        _ => code,
    };
    let c = char::from_u32(code).filter(|&c| c as u32 >= 0x80 && cp1252(c).is_some())?;
    Some((c, at + semi + 2))
}

/// The longest reference read, `;` included (`&#x000000C3;`; named ones are shorter).
const MAX_REFERENCE: usize = 12;

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
    fn a_double_encoding_written_as_references_is_repaired() {
        // what a CMS writes for `isn’t — “café”`, named and numeric
        let named = "<p>isn&acirc;&euro;&trade;t &acirc;&euro;&rdquo; &acirc;&euro;&oelig;caf&Atilde;&copy;&acirc;&euro;&#157;</p>";
        assert_eq!(fixed(named).as_deref(), Some("<p>isn’t — “café”</p>"));
        let numeric = "<p>caf&#195;&#169; &#xC3;&#xA9;t&#xC3;&#xA9; &lt;b&gt; &amp;amp;</p>";
        assert_eq!(
            fixed(numeric).as_deref(),
            Some("<p>café été &lt;b&gt; &amp;amp;</p>")
        );
        // a reference to 0x80-0x9F is the Windows-1252 character, as the parser reads it
        let dash = "caf&Atilde;&copy; &#150; &#x97;";
        assert_eq!(fixed(dash).as_deref(), Some("café – —"));
        // written both ways on one page
        let both = format!("{} caf&Atilde;&copy;", garble("déjà"));
        assert_eq!(fixed(&both).as_deref(), Some("déjà café"));
    }

    #[test]
    fn references_without_a_double_encoding_stay_as_written() {
        for s in [
            "S&atilde;o Paulo &copy; 2026 &euro;5 &mdash; caf&eacute; &Atilde;",
            "&Acirc;ge &amp; &lt;p&gt; &nbsp; &#169; &#x20AC;",
            "a &Atilde without its semicolon &Acirc",
        ] {
            assert_eq!(fixed(s), None, "{s}");
        }
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
