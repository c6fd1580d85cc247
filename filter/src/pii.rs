//! Personal data removal: e-mail addresses, phone numbers (international formats), IP
//! addresses, payment card numbers (Luhn-checked), IBANs (ISO 13616 mod-97-checked) and US
//! social security numbers are replaced by fixed placeholders. The counts per kind go to
//! `attrs.pii`, so the report shows how much was replaced and where.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::json;
use trawl_core::{Document, Map, RecordError};

/// `[filter.pii]`: which kinds are replaced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PiiConfig {
    /// Replace personal data at all.
    pub enabled: bool,
    /// `name@example.org` -> `<EMAIL>`.
    pub emails: bool,
    /// `+44 20 7946 0958`, `(555) 123-4567` -> `<PHONE>`.
    pub phones: bool,
    /// IPv4 and full IPv6 addresses -> `<IP>`.
    pub ip_addresses: bool,
    /// Luhn-valid 13-19 digit card numbers -> `<CREDIT_CARD>`.
    pub credit_cards: bool,
    /// mod-97-valid IBANs -> `<IBAN>`.
    pub ibans: bool,
    /// US social security numbers `123-45-6789` -> `<US_SSN>`.
    pub us_ssns: bool,
}

impl Default for PiiConfig {
    fn default() -> Self {
        PiiConfig {
            enabled: true,
            emails: true,
            phones: true,
            ip_addresses: true,
            credit_cards: true,
            ibans: true,
            us_ssns: true,
        }
    }
}

/// The replacing annotator.
#[derive(Debug)]
pub struct Pii {
    cfg: PiiConfig,
    email: Regex,
    iban: Regex,
    card: Regex,
    ssn: Regex,
    ipv4: Regex,
    ipv6: Regex,
    phone: Regex,
}

fn luhn(digits: &[u32]) -> bool {
    let mut sum = 0;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = *d;
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

/// Whether the digits have the issuer prefix and length of a real card scheme (Visa,
/// Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro): fewer false positives than
/// Luhn alone, which one random number in ten passes.
fn card_scheme(d: &[u32]) -> bool {
    let n = d.len();
    let p = |k: usize| d.iter().take(k).fold(0u32, |a, x| a * 10 + x);
    match d[0] {
        4 => matches!(n, 13 | 16 | 19),
        5 => {
            (51..=55).contains(&p(2)) && n == 16
                || (p(2) == 50 || (56..=59).contains(&p(2))) && (12..=19).contains(&n)
        }
        2 => (2221..=2720).contains(&p(4)) && n == 16,
        3 => {
            (matches!(p(2), 34 | 37) && n == 15)
                || ((3528..=3589).contains(&p(4)) && (16..=19).contains(&n))
                || ((matches!(p(2), 36 | 38 | 39) || (300..=305).contains(&p(3)))
                    && (14..=19).contains(&n))
        }
        6 => {
            (p(4) == 6011
                || p(2) == 65
                || (644..=649).contains(&p(3))
                || p(2) == 62
                || (60..=69).contains(&p(2)))
                && (12..=19).contains(&n)
        }
        _ => false,
    }
}

fn iban_valid(s: &str) -> bool {
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() < 15 || compact.len() > 34 {
        return false;
    }
    let rearranged = format!("{}{}", &compact[4..], &compact[..4]);
    let mut rem: u32 = 0;
    for c in rearranged.chars() {
        let v = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'A'..='Z' => c as u32 - 'A' as u32 + 10,
            _ => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

/// What one pass over the bytes tells about which detectors can match at all.
#[derive(Debug, Default, PartialEq)]
struct Scan {
    /// An `@` (e-mail).
    at: bool,
    /// Digits in the longest run of digits where at most two separators (space, `.`, `-`,
    /// `/`, `(`, `)`, `+`, `:`) stand between neighbours: phone numbers need 8, SSNs 9,
    /// cards 12.
    run: usize,
    /// The most `.` between digits of one run (IPv4 needs 3).
    dots: usize,
    /// Colons (a full IPv6 address has 7).
    colons: usize,
    /// Two capital letters then two digits (an IBAN's start).
    iban_start: bool,
}

impl Scan {
    fn of(text: &str) -> Scan {
        Scan::of_bytes(text, true)
    }

    fn of_bytes(text: &str, skip_blocks: bool) -> Scan {
        let b = text.as_bytes();
        let mut s = Scan::default();
        let (mut cur, mut gap, mut dots) = (0usize, 0usize, 0usize);
        let mut i = 0;
        while i < b.len() {
            // A 16-byte block without digits, `@` or `:` changes nothing but ending the
            // current run (it holds a letter, or three separators in a row): skipped whole.
            if skip_blocks
                && i % 16 == 0
                && i + 16 <= b.len()
                && b[i..i + 16]
                    .iter()
                    .all(|&c| !c.is_ascii_digit() && c != b'@' && c != b':')
            {
                (cur, gap, dots) = (0, 0, 0);
                i += 16;
                continue;
            }
            let c = b[i];
            if c.is_ascii_digit() {
                cur += 1;
                gap = 0;
                s.run = s.run.max(cur);
                s.dots = s.dots.max(dots);
                if i >= 3
                    && b[i - 1].is_ascii_digit()
                    && b[i - 2].is_ascii_uppercase()
                    && b[i - 3].is_ascii_uppercase()
                {
                    s.iban_start = true;
                }
            } else if matches!(c, b' ' | b'.' | b'-' | b'/' | b'(' | b')' | b'+' | b':') && gap < 2
            {
                gap += 1;
                dots += usize::from(c == b'.' && cur > 0);
                s.colons += usize::from(c == b':');
            } else {
                cur = 0;
                gap = 0;
                dots = 0;
                s.at |= c == b'@';
                s.colons += usize::from(c == b':');
            }
            i += 1;
        }
        s
    }
}

impl Pii {
    /// Compiles the detectors.
    pub fn new(cfg: PiiConfig) -> Pii {
        let r = |p: &str| Regex::new(p).expect("static pattern");
        Pii {
            cfg,
            // ASCII word boundaries and digits ((?-u)): the patterns are ASCII, and Unicode
            // `\b` forces the regex crate onto its slowest engine
            email: r(r"(?i-u)\b[a-z0-9][a-z0-9._%+-]*@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b"),
            iban: r(r"(?-u)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b"),
            card: r(r"(?-u)\b\d(?:[ -]?\d){12,18}\b"),
            ssn: r(r"(?-u)\b\d{3}-\d{2}-\d{4}\b"),
            ipv4: r(
                r"(?-u)\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b",
            ),
            ipv6: r(r"(?i-u)\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b"),
            phone: r(
                r"(?-u)(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,5}){1,4}",
            ),
        }
    }

    /// Replaces personal data in `text`; returns the new text and the count per kind.
    pub fn redact<'a>(
        &self,
        text: &'a str,
    ) -> (std::borrow::Cow<'a, str>, Vec<(&'static str, usize)>) {
        let mut t = std::borrow::Cow::Borrowed(text);
        let mut counts = Vec::new();
        // cheap prefilters from one pass: most pages cannot match most detectors
        let scan = Scan::of(text);
        // `possible`: the scan says the detector can match at all
        let mut apply = |t: &mut std::borrow::Cow<'_, str>,
                         on: bool,
                         possible: bool,
                         re: &Regex,
                         kind: &'static str,
                         placeholder: &str,
                         check: &dyn Fn(&str) -> bool| {
            if !on || !possible {
                return;
            }
            let mut n = 0;
            let out = re.replace_all(t.as_ref(), |c: &regex::Captures<'_>| {
                let m = &c[0];
                if check(m) {
                    n += 1;
                    placeholder.to_string()
                } else {
                    m.to_string()
                }
            });
            if n > 0 {
                *t = std::borrow::Cow::Owned(out.into_owned());
                counts.push((kind, n));
            }
        };
        apply(
            &mut t,
            self.cfg.emails,
            scan.at,
            &self.email,
            "email",
            "<EMAIL>",
            &|_| true,
        );
        apply(
            &mut t,
            self.cfg.ibans,
            scan.iban_start,
            &self.iban,
            "iban",
            "<IBAN>",
            &iban_valid,
        );
        apply(
            &mut t,
            self.cfg.credit_cards,
            scan.run >= 12,
            &self.card,
            "credit_card",
            "<CREDIT_CARD>",
            &|m| {
                let d: Vec<u32> = m.chars().filter_map(|c| c.to_digit(10)).collect();
                (12..=19).contains(&d.len())
                    && card_scheme(&d)
                    && luhn(&d)
                    && d.iter().any(|x| *x != d[0])
            },
        );
        apply(
            &mut t,
            self.cfg.us_ssns,
            scan.run >= 9,
            &self.ssn,
            "us_ssn",
            "<US_SSN>",
            &|m| {
                let (a, rest) = m.split_at(3);
                let g = &rest[1..3];
                let s = &rest[4..];
                a != "000" && a != "666" && !a.starts_with('9') && g != "00" && s != "0000"
            },
        );
        apply(
            &mut t,
            self.cfg.ip_addresses,
            scan.run >= 4 && scan.dots >= 3,
            &self.ipv4,
            "ip",
            "<IP>",
            &|_| true,
        );
        apply(
            &mut t,
            self.cfg.ip_addresses,
            scan.colons >= 7,
            &self.ipv6,
            "ip",
            "<IP>",
            &|_| true,
        );
        apply(
            &mut t,
            self.cfg.phones,
            scan.run >= 8,
            &self.phone,
            "phone",
            "<PHONE>",
            &|m| {
                let digits = m.chars().filter(char::is_ascii_digit).count();
                // 8-15 digits (E.164 allows 15), and either an international prefix, a bracketed
                // area code or at least three groups: years, prices and dates stay
                let groups = m.split([' ', '.', '-']).filter(|g| !g.is_empty()).count();
                let b = m.as_bytes();
                let looks_date = m.len() == 10 && (b[4] == b'-' || b[4] == b'.');
                // the SSN shape (3-2-4) is the SSN detector's, valid or not
                let ssn_shape = m.len() == 11 && b[3] == b'-' && b[6] == b'-';
                (8..=15).contains(&digits)
                    && !looks_date
                    && !ssn_shape
                    && (m.starts_with('+') || m.contains('(') || groups >= 3)
            },
        );
        (t, counts)
    }
}

impl Map for Pii {
    fn name(&self) -> &'static str {
        "pii"
    }

    fn map(&self, doc: &mut Document) -> Result<(), RecordError> {
        if !self.cfg.enabled {
            return Ok(());
        }
        let (text, counts) = self.redact(&doc.text);
        // the text is only copied when something was replaced
        if let (std::borrow::Cow::Owned(text), false) = (text, counts.is_empty()) {
            let mut m = serde_json::Map::new();
            for (k, n) in &counts {
                let e = m.entry(k.to_string()).or_insert(json!(0));
                *e = json!(e.as_u64().unwrap_or(0) + *n as u64);
            }
            doc.attrs.insert("pii".into(), serde_json::Value::Object(m));
            // image offsets point into the text: keep them inside it
            doc.text = text;
            for im in &mut doc.images {
                im.offset = trawl_core::text::floor_char_boundary(&doc.text, im.offset);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::compliance::check_stage;
    use trawl_core::Stage;

    fn red(t: &str) -> String {
        Pii::new(PiiConfig::default()).redact(t).0.into_owned()
    }

    #[test]
    fn each_kind_is_replaced() {
        assert_eq!(
            red("write to jane.doe+news@mail.example.co.uk today"),
            "write to <EMAIL> today"
        );
        assert_eq!(
            red("call +44 20 7946 0958 or (555) 123-4567"),
            "call <PHONE> or <PHONE>"
        );
        assert_eq!(
            red("server 192.168.1.20 and 2001:0db8:85a3:0000:0000:8a2e:0370:7334"),
            "server <IP> and <IP>"
        );
        assert_eq!(red("card 4111 1111 1111 1111 ok"), "card <CREDIT_CARD> ok");
        assert_eq!(
            red("amex 3782-822463-10005, mc 5555555555554444"),
            "amex <CREDIT_CARD>, mc <CREDIT_CARD>"
        );
        assert_eq!(
            red("pay to DE89 3704 0044 0532 0130 00 please"),
            "pay to <IBAN> please"
        );
        assert_eq!(red("ssn 123-45-6789"), "ssn <US_SSN>");
    }

    #[test]
    fn prefilter_scan() {
        assert_eq!(Scan::of("no digits"), Scan::default());
        // the block skip gives what a byte-by-byte pass gives
        let alphabet = b"0123456789 .-/()+:@aZDE x\n";
        let mut x = 0x1234_5678_9abc_def1u64;
        for len in 0..600 {
            let t: String = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // mostly letters, so blocks get skipped
                    if x % 3 == 0 {
                        alphabet[(x >> 8) as usize % alphabet.len()] as char
                    } else {
                        'q'
                    }
                })
                .collect();
            assert_eq!(Scan::of_bytes(&t, true), Scan::of_bytes(&t, false), "{t:?}");
        }
        assert_eq!(Scan::of("call +44 20 7946 0958 now").run, 12);
        assert_eq!(Scan::of("(555) 123-4567").run, 10);
        assert_eq!(Scan::of("in 2024, 35 stalls").run, 4);
        let ip = Scan::of("server 192.168.1.20 up");
        assert_eq!((ip.run, ip.dots), (9, 3));
        assert_eq!(Scan::of("version 3.14 of 2024").dots, 1);
        assert!(Scan::of("pay DE89 3704").iban_start && !Scan::of("pay De89").iban_start);
        assert!(Scan::of("a@b").at);
        assert_eq!(
            Scan::of("2001:0db8:85a3:0000:0000:8a2e:0370:7334").colons,
            7
        );
    }

    #[test]
    fn ordinary_numbers_stay() {
        for t in [
            "In 2024 the market had 120,000 visitors and 35 stalls.",
            "The meeting is on 2026-11-21 at 14:30.",
            "Order 4111 1111 1111 1112 failed the checksum.",
            "Invalid SSN 000-12-3456 and 666-12-3456.",
            "Version 3.14 costs 12.50 euros.",
            "DE89 3704 0044 0532 0130 01 is not a valid IBAN.",
        ] {
            assert_eq!(red(t), t, "{t}");
        }
    }

    #[test]
    fn counts_in_attrs_and_switches() {
        let d = Document::new(
            "u",
            "mail a@b.example and c@d.example, call +1 415 555 0100",
        );
        let (kept, _) = check_stage(
            Stage::Map(Box::new(Pii::new(PiiConfig::default()))),
            vec![d],
        );
        assert_eq!(kept[0].attrs["pii"]["email"], 2);
        assert_eq!(kept[0].attrs["pii"]["phone"], 1);
        let off = Pii::new(PiiConfig {
            emails: false,
            ..Default::default()
        });
        assert!(off.redact("a@b.example").0.contains('@'));
    }
}
