//! Language identification at document and paragraph level, with whatlang deciding,
//! stop-word evidence keeping the cost bounded, and lingua as a second opinion on short
//! documents whatlang is unsure of ([`document`], [`SECOND_OPINION_BELOW`]); [`settle`]
//! gives short and mixed texts `und` or a confidence that says so.
//!
//! whatlang's trigram method costs about 60 µs per call before it reads a byte (it scores
//! the text against the profile of every language of the script: 37 for Latin) and about
//! 45 µs per KB after that. Calling it on every document and every paragraph ran at 4 MB/s,
//! most of the filter chain's time. The rule now:
//!
//! - **Document**: whatlang on a sample ([`sample_budget`]: 600 bytes of Latin-script text,
//!   900 characters of any other or mixed text; three windows, at the
//!   start, a third and two thirds in, cut at spaces, so a long page is judged on its body,
//!   not only its first lines). Before that, the sample's words are looked up in short
//!   stop-word lists of 39 languages. When one language is clearly ahead (at least
//!   [`MIN_HITS`] hits from [`MIN_DISTINCT`] different stop words, [`MIN_HIT_SHARE`] of the
//!   words, and 1.5 times the runner-up), whatlang scores only the leader, the runner-up (or,
//!   with none, the leader's listed relatives) and the languages of the leader's family that
//!   have no list (Latin and Esperanto beside the Romance languages, ...) instead of every
//!   language of the script (about 2 us each).
//!   whatlang still picks the language and its confidence; its confidence comes from the best
//!   two scores and is 1.0 once the best is clearly ahead. On the 387 labelled pages of
//!   `../shared/testdata/extract`, 352 are narrowed and every narrowed answer, language and
//!   confidence, equals whatlang scoring every language (unit test below for a few texts).
//!   With no clear leader (languages without a list, short or odd text), whatlang scores
//!   every language as before.
//! - **Paragraphs** (blocks separated by a blank line, at least 20 characters; shares by
//!   length, for mixed pages): a paragraph in the document's script whose stop words point to
//!   the document's language, or that has none, counts for the document's language without a
//!   whatlang call. A paragraph in another script, or whose stop words point to another
//!   language, is judged by whatlang on its first 400 bytes (at most
//!   [`MAX_PARAGRAPH_CALLS`] calls per document; later ones go by their stop words).
//!
//! `bench/lid.sh` measures accuracy per language; `filter/examples/filter_speed.rs` the cost.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;
use whatlang::{Detector, Lang, Script};

/// Bytes of a document whatlang reads (three windows) when the text is all Latin script
/// (see [`sample_budget`]; on the labelled pages 600 and 900 bytes give the same answers).
pub const SAMPLE_BYTES: usize = 600;
/// Characters of a document whatlang reads when the text is not all Latin (see
/// [`sample_budget`]).
pub const MIXED_SAMPLE_CHARS: usize = 900;
/// Stop-word hits the leading language needs for the narrowed whatlang call.
pub const MIN_HITS: usize = 4;
/// Different stop words among those hits.
pub const MIN_DISTINCT: usize = 3;
/// Share of the sample's words the leader's stop words must make up.
pub const MIN_HIT_SHARE: f64 = 0.08;
/// whatlang calls on paragraphs per document.
pub const MAX_PARAGRAPH_CALLS: usize = 8;
const PARAGRAPH_BYTES: usize = 400;
/// Bytes of a paragraph whose stop words are counted.
const EVIDENCE_BYTES: usize = 120;
const MIN_PARAGRAPH_CHARS: usize = 20;

/// (language, family, stop words). Families group the languages whatlang most often
/// confuses; only Latin-script families narrow the document call (other scripts have at
/// most six languages each, so whatlang is cheap there), but every list serves as
/// paragraph evidence.
const LISTS: &[(Lang, u8, &str)] = &[
    (Lang::Eng, 1, "the of and to in is that for it with as was on are be by this from at or an have not but which his they you were has had their"),
    (Lang::Deu, 1, "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach bei"),
    (Lang::Nld, 1, "de het een en van in is dat op te zijn met voor niet die aan er ook als bij door maar om nog wordt"),
    (Lang::Swe, 1, "och i att det som en på är av för med till den har de inte om ett var jag men sig från"),
    (Lang::Dan, 1, "og i at det er en til på som de med for af den ikke har et var jeg men sig fra ved"),
    (Lang::Nob, 1, "og i er det som på en til av at for med har ikke de den et var jeg fra men seg om"),
    (Lang::Afr, 1, "die en van in is het nie te dat op vir met wat as ook sy was word hy"),
    (Lang::Fra, 2, "le la les de des et est un une du en que qui dans pour pas sur au par avec ce il elle sont ne se plus ou"),
    (Lang::Spa, 2, "el la de que y a en los del se las por un para con no una su al es lo como más pero sus le ha"),
    (Lang::Por, 2, "o a de que e do da em um para é com não uma os no se na por mais as dos como mas ao ele das à seu sua ou"),
    (Lang::Ita, 2, "il di che e la per un in è del della non una sono le si con da al dei gli anche come ma più nel alla"),
    (Lang::Cat, 2, "el la de i que a en els les per un una amb no és del al es com més"),
    (Lang::Ron, 2, "și de în la a cu că nu o pe din se care un mai este pentru sau ce fost"),
    (Lang::Pol, 3, "i w na z że się nie do to jest jak o co ale od po tak przez dla jego jej są być czy"),
    (Lang::Ces, 3, "a v se na je že to s z do o jako by ale pro jsou které který jeho také nebo podle jsem"),
    (Lang::Slk, 3, "a v sa na je že to s z do o ako by ale pre sú ktoré ktorý jeho aj alebo podľa som"),
    (Lang::Hrv, 3, "i je u na da se za su od s ne koji to kao iz ali biti ili sa će bio"),
    (Lang::Slv, 3, "in je v na da se za so z ki ne pa bi po tudi ali iz kot sem to"),
    (Lang::Fin, 4, "ja on ei se että hän oli ovat mutta myös kun tai joka sen niin kuin mitä vain ole olla"),
    (Lang::Est, 4, "ja on et ei see oli ka kui aga mis ta nii ning"),
    (Lang::Hun, 4, "a az és hogy nem is egy van meg de el ez már csak volt mint ha ki még azt"),
    (Lang::Lit, 4, "ir yra kad į su o iš bet tai kaip jo buvo apie"),
    (Lang::Lav, 4, "un ir ar par ka no uz kas arī tas bet kā to"),
    (Lang::Tur, 5, "ve bir bu da de için ile ne olarak çok daha gibi ama olan sonra kadar her en değil"),
    (Lang::Ind, 6, "dan yang di ini itu dengan untuk tidak dari dalam akan pada juga ke ada adalah atau oleh karena"),
    (Lang::Tgl, 6, "ang ng sa na at mga ay para hindi si ni ko"),
    (Lang::Vie, 7, "và của là có không được các những trong cho với này một người đã khi để đến"),
    (Lang::Rus, 10, "и в не на что с по это как он к но из у за от так же то для все она только"),
    (Lang::Ukr, 10, "і в не на що з та як до це у від за але його по для так є він"),
    (Lang::Bel, 10, "і ў не на што з як да гэта па але ад ён"),
    (Lang::Bul, 10, "и на в да се за с от не е че са по като това но ще"),
    (Lang::Srp, 10, "и у на да се је за од не су са из као то али који"),
    (Lang::Mkd, 10, "и на во да се за со од не е што ќе ги како тоа"),
    (Lang::Ara, 11, "في من على أن إلى التي الذي عن مع هذا هذه كان ما لا"),
    (Lang::Pes, 11, "و در به از که این را با است آن برای یک می"),
    (Lang::Urd, 11, "کے میں کی ہے اور سے کو نے پر یہ کہ ہیں"),
    (Lang::Hin, 12, "के है में की और से को का एक पर यह भी नहीं"),
    (Lang::Mar, 12, "आणि आहे या हे की ने त्या"),
    (Lang::Heb, 13, "של את על לא הוא זה עם כי גם"),
];

/// Languages whatlang knows that have no list, by family (they join their family's
/// narrowed call).
const RELATIVES: &[(Lang, u8)] = &[
    (Lang::Lat, 2),
    (Lang::Epo, 2),
    (Lang::Aze, 5),
    (Lang::Uzb, 5),
    (Lang::Tuk, 5),
    (Lang::Jav, 6),
];

/// Bits of the set of stop words seen in [`Evidence::of`] (at least the distinct words of
/// all lists).
const TABLE_BITS: usize = 1024;

struct Table {
    /// word -> (id, bit mask of the languages whose list has it)
    words: FxHashMap<&'static str, (u32, u64)>,
    /// The same for ASCII words of at most 8 bytes, keyed by [`ascii_key`] (one multiply
    /// to hash, no string comparison).
    short: FxHashMap<u64, (u32, u64)>,
    /// The longest listed word, in bytes.
    longest: usize,
}

/// An ASCII word of at most 8 bytes as a number, lowercased.
fn ascii_key(w: &[u8]) -> u64 {
    w.iter()
        .fold(0u64, |k, &b| (k << 8) | u64::from(b.to_ascii_lowercase()))
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let mut words: FxHashMap<&'static str, (u32, u64)> = FxHashMap::default();
        for (i, (_, _, list)) in LISTS.iter().enumerate() {
            for w in list.split(' ') {
                let n = words.len() as u32;
                words.entry(w).or_insert((n, 0)).1 |= 1 << i;
            }
        }
        let longest = words.keys().map(|w| w.len()).max().unwrap_or(0);
        assert!(
            words.len() <= TABLE_BITS,
            "more stop words than Evidence::of's bit set holds"
        );
        assert!(
            words.keys().all(|w| !w.is_ascii() || w.len() <= 8),
            "ASCII stop words are looked up as 8-byte keys"
        );
        let short = words
            .iter()
            .filter(|(w, _)| w.is_ascii() && w.len() <= 8)
            .map(|(w, v)| (ascii_key(w.as_bytes()), *v))
            .collect();
        Table {
            words,
            short,
            longest,
        }
    })
}

/// Stop-word hits per language over some text.
#[derive(Clone, Debug)]
pub struct Evidence {
    /// Hits per entry of the lists (index into the internal table).
    hits: [u32; 64],
    distinct: [u32; 64],
    /// Words looked at.
    pub words: usize,
}

impl Evidence {
    /// Counts the stop words of `text`.
    pub fn of(text: &str) -> Evidence {
        let t = table();
        let mut e = Evidence {
            hits: [0; 64],
            distinct: [0; 64],
            words: 0,
        };
        // stop words seen so far, a bit per table entry
        let mut seen = [0u64; TABLE_BITS / 64];
        let mut buf = String::new();
        trawl_core::text::for_each_word(text, |tok| {
            let w = trawl_core::text::trim_non_alphanumeric(tok);
            if w.is_empty() {
                return;
            }
            e.words += 1;
            let found = if w.is_ascii() {
                // short ASCII words are looked up as numbers
                if w.len() > 8 {
                    return;
                }
                t.short.get(&ascii_key(w.as_bytes()))
            } else {
                if w.len() > t.longest {
                    return;
                }
                buf.clear();
                trawl_core::text::push_lowercase(&mut buf, w);
                t.words.get(buf.as_str())
            };
            if let Some(&(id, mask)) = found {
                let (slot, bit) = (id as usize / 64, 1u64 << (id % 64));
                let new = seen[slot] & bit == 0;
                seen[slot] |= bit;
                let mut m = mask;
                while m != 0 {
                    let i = m.trailing_zeros() as usize;
                    e.hits[i] += 1;
                    e.distinct[i] += u32::from(new);
                    m &= m - 1;
                }
            }
        });
        e
    }

    /// The languages with the most hits: (best, hits), (runner-up, hits).
    fn top2(&self) -> Option<((usize, u32), (usize, u32))> {
        let mut best: Option<(usize, u32)> = None;
        let mut second = (usize::MAX, 0u32);
        for (i, &h) in self.hits.iter().enumerate().take(LISTS.len()) {
            match best {
                Some((_, b)) if h <= b => {
                    if h > second.1 {
                        second = (i, h);
                    }
                }
                _ => {
                    if let Some(b) = best {
                        second = b;
                    }
                    best = Some((i, h));
                }
            }
        }
        best.filter(|b| b.1 > 0).map(|b| (b, second))
    }

    /// The language whose stop words lead, if any.
    pub fn leader(&self) -> Option<Lang> {
        let ((i, h), (_, s)) = self.top2()?;
        (h > s).then_some(LISTS[i].0)
    }

    /// The languages to score when one clearly leads (see the module docs).
    fn narrowed(&self) -> Option<Vec<Lang>> {
        let ((i, h), (j, s)) = self.top2()?;
        let clear = h as usize >= MIN_HITS
            && self.distinct[i] as usize >= MIN_DISTINCT
            && h as f64 >= MIN_HIT_SHARE * self.words as f64
            && h as f64 >= 1.5 * s as f64;
        let fam = LISTS[i].1;
        if !clear || fam >= 10 {
            return None;
        }
        let mut langs = vec![LISTS[i].0];
        if s > 0 {
            langs.push(LISTS[j].0);
        } else {
            // no runner-up among the lists: the leader's listed relatives stand in, so
            // whatlang's confidence still compares it with its nearest neighbours
            langs.extend(
                LISTS
                    .iter()
                    .filter(|l| l.1 == fam && l.0 != LISTS[i].0)
                    .map(|l| l.0),
            );
        }
        langs.extend(RELATIVES.iter().filter(|r| r.1 == fam).map(|r| r.0));
        Some(langs)
    }
}

/// A language decision: whatlang's language, confidence and reliability.
#[derive(Clone, Debug, PartialEq)]
pub struct Detected {
    /// ISO 639-3 (`und` when whatlang found nothing).
    pub code: &'static str,
    /// whatlang's confidence.
    pub confidence: f64,
    /// whatlang's reliability flag.
    pub reliable: bool,
    /// Whether whatlang scored only the stop-word leader and its neighbours (see the module
    /// docs).
    pub narrowed: bool,
    /// The sample's script.
    pub script: Option<Script>,
    /// lingua's answer (language, confidence) when whatlang was unsure and lingua was asked
    /// (see [`document`]); `code` and `confidence` are then lingua's.
    pub second: Option<(&'static str, f64)>,
    /// whatlang's own answer when lingua's replaced it.
    pub whatlang: Option<(&'static str, f64)>,
}

/// Up to `max` bytes of `text` as three windows (start, one third, two thirds), each cut
/// at whitespace.
pub fn sample(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let w = max / 3;
    let mut out = String::with_capacity(max + 4);
    for k in 0..3 {
        let mut s = trawl_core::text::ceil_char_boundary(text, text.len() * k / 3);
        if k > 0 {
            // start after the next space, so no word is cut
            // (the whitespace may be several bytes: U+00A0, U+3000, ...)
            s = text[s..]
                .char_indices()
                .find(|&(_, c)| c.is_whitespace())
                .map_or(s, |(p, c)| s + p + c.len_utf8());
        }
        let mut e = trawl_core::text::floor_char_boundary(text, s + w);
        if e < text.len() {
            e = text[s..e].rfind(char::is_whitespace).map_or(e, |p| s + p);
        }
        if k > 0 {
            out.push('\n');
        }
        out.push_str(&text[s..e]);
    }
    out.into()
}

/// whatlang on `text`, narrowed by `evidence` when one language clearly leads.
pub fn detect(text: &str, evidence: &Evidence) -> Detected {
    let script = script_of(text);
    let narrowed = if script == Some(Script::Latin) {
        evidence.narrowed()
    } else {
        None
    };
    let was_narrowed = narrowed.is_some();
    let info = match narrowed {
        Some(langs) => Detector::with_allowlist(langs).detect(text),
        None => whatlang::detect(text),
    };
    match info {
        Some(i) => Detected {
            code: i.lang().code(),
            confidence: i.confidence(),
            reliable: i.is_reliable(),
            narrowed: was_narrowed,
            script,
            second: None,
            whatlang: None,
        },
        None => Detected {
            code: "und",
            confidence: 0.0,
            reliable: false,
            narrowed: false,
            script,
            second: None,
            whatlang: None,
        },
    }
}

/// whatlang's script of `text`. Text of Latin letters, digits and punctuation (ASCII, Latin-1,
/// Latin Extended, general punctuation: most paragraphs of most pages) is Latin after one
/// quick look per character; anything else goes to whatlang's script detection.
pub fn script_of(text: &str) -> Option<Script> {
    match latin_only(text) {
        Some(true) => Some(Script::Latin),
        Some(false) => None,
        None => whatlang::detect_script(text),
    }
}

/// Whether every character of `text` is Latin or neutral (digits, punctuation, symbols of
/// the general punctuation, currency and letterlike blocks): `Some(has a letter)`, or `None`
/// at the first character of another script.
fn latin_only(text: &str) -> Option<bool> {
    let b = text.as_bytes();
    let mut latin = false;
    let mut i = 0;
    while i < b.len() {
        if latin {
            // once a letter is seen, ASCII runs only need skipping
            match trawl_core::text::next_non_ascii(b, i) {
                Some(at) => i = at,
                None => break,
            }
        }
        if b[i] < 0x80 {
            latin |= b[i].is_ascii_alphabetic();
            i += 1;
            continue;
        }
        // `i` is a char boundary: it only ever moves by whole characters or ASCII bytes
        let c = text[i..].chars().next().unwrap_or(' ');
        match c as u32 {
            0x80..=0xBF | 0xD7 | 0xF7 | 0x2000..=0x206F | 0x20A0..=0x20CF | 0x2100..=0x214F => {}
            0xC0..=0x24F | 0x1E00..=0x1EFF => latin = true,
            _ => return None,
        }
        i += c.len_utf8();
    }
    Some(latin)
}

/// Scripts that one language writes together (Japanese mixes kanji, hiragana and katakana)
/// count as one for the paragraph test.
fn script_group(s: Option<Script>) -> Option<Script> {
    match s {
        Some(Script::Mandarin | Script::Hiragana | Script::Katakana) => Some(Script::Mandarin),
        other => other,
    }
}

/// The document's language (on its [`sample`] of [`sample_budget`] bytes): whatlang, and,
/// for a document no longer than the sample, lingua's answer instead when whatlang's
/// confidence is below [`SECOND_OPINION_BELOW`] and lingua knows whatlang's language (see
/// [`second_opinion`]).
pub fn document(text: &str) -> Detected {
    let budget = sample_budget(text);
    let s = sample(text, budget);
    let mut d = detect(&s, &Evidence::of(&s));
    // only short documents (whatlang read all of it): lingua's strength is short text, it
    // costs about 5 ms on 400 bytes, and a long page whatlang is unsure of mixes languages
    // or is mostly names and lists, where lingua's answer is no better
    if text.len() <= budget
        && d.confidence < SECOND_OPINION_BELOW
        && second_knows(d.code)
        && second_scripts_only(&s)
    {
        if let Some((code, confidence)) = second_opinion(&s) {
            d.whatlang = Some((d.code, d.confidence));
            d.second = Some((code, confidence));
            d.code = code;
            d.confidence = confidence;
            d.reliable = confidence >= SECOND_OPINION_BELOW;
        }
    }
    d
}

/// whatlang's confidence below which lingua is asked (see [`second_opinion`]).
///
/// On the tuning part of `bench/lid.sh`'s set (short interface strings and descriptions in
/// 63 languages), whatlang alone labels 91.7% of the sentences and 99.2% of the 5-sentence
/// paragraphs right, lingua alone (high accuracy) 90.3% and 92.9% (it lacks a dozen of
/// whatlang's languages). Asking lingua below 0.3, 0.5, 0.8 or always: 96.1, 96.5, 96.6,
/// 96.5% of sentences and 99.51, 99.58, 99.63, 99.70% of paragraphs, with lingua called on
/// 17%, 25%, 35% and 100% of the sentences and 1-4% of the paragraphs. lingua costs about
/// 1 ms a sentence (whatlang 40 us), so 0.5.
pub const SECOND_OPINION_BELOW: f64 = 0.5;
/// Bytes of the sample lingua reads (its cost grows with the text).
pub const SECOND_OPINION_BYTES: usize = 400;

struct Second {
    detector: lingua::LanguageDetector,
    /// lingua's language -> whatlang's code
    codes: FxHashMap<lingua::Language, &'static str>,
}

fn second() -> &'static Second {
    static S: OnceLock<Second> = OnceLock::new();
    S.get_or_init(|| {
        use lingua::Language::*;
        // every language of whatlang's that shares its script with another (the workspace's
        // lingua features are these)
        let langs = [
            Afrikaans,
            Azerbaijani,
            Catalan,
            Croatian,
            Czech,
            Danish,
            Dutch,
            English,
            Esperanto,
            Estonian,
            Finnish,
            French,
            German,
            Hungarian,
            Indonesian,
            Italian,
            Latin,
            Latvian,
            Lithuanian,
            Bokmal,
            Polish,
            Portuguese,
            Romanian,
            Shona,
            Slovak,
            Slovene,
            Spanish,
            Swedish,
            Tagalog,
            Turkish,
            Vietnamese,
            Zulu,
            Welsh,
            Belarusian,
            Bulgarian,
            Macedonian,
            Russian,
            Serbian,
            Ukrainian,
            Arabic,
            Persian,
            Urdu,
            Hindi,
            Marathi,
        ];
        let mut codes = FxHashMap::default();
        for l in langs {
            let iso = l.iso_code_639_3().to_string();
            let iso = match iso.as_str() {
                "fas" => "pes",
                other => other,
            };
            let w = Lang::from_code(iso).expect("a language whatlang knows");
            codes.insert(l, w.code());
        }
        // high accuracy mode (low accuracy: 94.6% of the tuning sentences instead of 96.5%);
        // a language's models load the first time it is a candidate
        Second {
            detector: lingua::LanguageDetectorBuilder::from_languages(&langs).build(),
            codes,
        }
    })
}

/// Whether lingua is asked about a text whatlang labels `code`: lingua knows the language
/// (built with the languages that share a script with another of whatlang's: Latin,
/// Cyrillic, Arabic, Devanagari; not Javanese, Turkmen, Uzbek, Nepali or Yiddish, whose
/// labels it would only ever replace).
pub fn second_knows(code: &str) -> bool {
    code != "und" && second().codes.values().any(|c| *c == code)
}

/// Whether every letter of `text` is in a script lingua's languages write (Latin, Cyrillic,
/// Arabic, Devanagari): lingua knows none of the others, so on a Japanese man page full of
/// English command names it would pick a Latin-script language (on `bench/lid.sh`'s man
/// pages Japanese fell from 0.88 to 0.82 before this check).
pub fn second_scripts_only(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphabetic()).all(|c| {
        matches!(c as u32,
            0..=0x24F | 0x1E00..=0x1EFF | 0x400..=0x52F | 0x600..=0x6FF | 0x750..=0x77F
            | 0x8A0..=0x8FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF | 0x900..=0x97F | 0xA8E0..=0xA8FF)
    })
}

/// lingua (n-gram models of 1 to 5 characters plus rules on unique characters; Apache-2.0)
/// on the first [`SECOND_OPINION_BYTES`] bytes of `text`: its language and its confidence
/// (the best language's share of the relative probabilities).
pub fn second_opinion(text: &str) -> Option<(&'static str, f64)> {
    let s = second();
    let head = &text[..trawl_core::text::floor_char_boundary(text, SECOND_OPINION_BYTES)];
    let v = s.detector.compute_language_confidence_values(head);
    let (l, c) = v.first()?;
    (*c > 0.0).then(|| Some((*s.codes.get(l)?, *c)))?
}

/// The sample's size in bytes: [`SAMPLE_BYTES`] for text all in Latin script (most pages;
/// whatlang's cost grows with the sample), [`MIXED_SAMPLE_CHARS`] characters for anything
/// else, counted in bytes at the text's own bytes per character (Cyrillic takes two, CJK
/// three). On `bench/lid.sh`, 600 bytes for every text lost Russian and Japanese man pages
/// whose English command names then filled more of the sample (accuracy 0.975; 0.984 this
/// way; 900 bytes for every text gave 0.985 at a tenth more language-ID time).
pub fn sample_budget(text: &str) -> usize {
    if latin_only(text).is_some() {
        return SAMPLE_BYTES;
    }
    let chars = text.chars().count().max(1);
    MIXED_SAMPLE_CHARS * text.len().max(1) / chars
}

/// Letters (see [`letters`]) below which a text gets no language: `und`.
pub const MIN_LETTERS: usize = 8;
/// Letters of a short sentence: a text with fewer keeps its label, marked unreliable, with a
/// confidence of at most letters / (2 x this), so at most 0.5.
pub const SENTENCE_LETTERS: usize = 24;
/// Share of the text the document's language must hold for its confidence to stand; below,
/// the confidence is at most that share (a mixed page).
pub const MIXED_BELOW: f64 = 0.8;

/// Letters of `text`, counting at most `cap`: alphabetic characters, a CJK or Hangul
/// character as three (one carries about a word).
pub fn letters(text: &str, cap: usize) -> usize {
    let mut n = 0;
    for c in text.chars() {
        if c.is_alphabetic() {
            n += if (c as u32) >= 0x2E80 { 3 } else { 1 };
            if n >= cap {
                return cap;
            }
        }
    }
    n
}

/// A document's language once its length and its paragraphs are taken into account.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    /// ISO 639-3, or `und`.
    pub code: String,
    /// The detector's confidence, capped for short and mixed texts.
    pub confidence: f64,
    /// False for short texts, mixed texts whose language holds less than half, and unsure
    /// detectors.
    pub reliable: bool,
    /// Why the label or its confidence was limited: `too_short` (`und`), `short`, `mixed`.
    pub caveat: Option<&'static str>,
}

/// Settles a document's language (item 2 of issue 19: short and mixed texts never get a
/// confident label): fewer than [`MIN_LETTERS`] letters -> `und` with confidence 0; fewer
/// than [`SENTENCE_LETTERS`] -> the label, unreliable, confidence capped (see there); when
/// the detected language holds less than [`MIXED_BELOW`] of the paragraphs' text, the
/// confidence is at most its share (unreliable below half).
pub fn settle(
    text: &str,
    code: &str,
    confidence: f64,
    reliable: bool,
    shares: &[(&str, f64)],
) -> Settled {
    let n = letters(text, SENTENCE_LETTERS);
    if n < MIN_LETTERS {
        return Settled {
            code: "und".into(),
            confidence: 0.0,
            reliable: false,
            caveat: Some("too_short"),
        };
    }
    let mut s = Settled {
        code: code.to_string(),
        confidence,
        reliable,
        caveat: None,
    };
    if n < SENTENCE_LETTERS {
        s.confidence = s.confidence.min(n as f64 / (2.0 * SENTENCE_LETTERS as f64));
        s.reliable = false;
        s.caveat = Some("short");
    }
    // the label stays the document's (paragraph labels are noisier: code and option lists
    // in a Japanese man page come out Latin or French), its confidence capped by its share
    if !shares.is_empty() {
        let own = shares
            .iter()
            .find(|(k, _)| *k == s.code)
            .map_or(0.0, |x| x.1);
        if own < MIXED_BELOW {
            s.confidence = s.confidence.min(own);
            s.reliable &= own >= 0.5;
            s.caveat = Some("mixed");
        }
    }
    s
}

/// Share of the text per language over its paragraphs (see the module docs), given the
/// document's language and script. Shares are by paragraph length and sum to 1 (empty when
/// no paragraph qualifies).
pub fn paragraph_shares(
    text: &str,
    doc_lang: &str,
    doc_script: Option<Script>,
) -> Vec<(&'static str, f64)> {
    let doc = Lang::from_code(doc_lang);
    let doc_script = doc.and(doc_script);
    let mut by_lang: Vec<(&'static str, usize)> = Vec::new();
    let mut total = 0usize;
    let mut calls = 0usize;
    for para in trawl_core::text::split_paragraphs(text).map(str::trim) {
        // (a paragraph of 4 bytes per character or more has enough characters for sure)
        if para.len() < MIN_PARAGRAPH_CHARS
            || (para.len() < 4 * MIN_PARAGRAPH_CHARS
                && para.chars().take(MIN_PARAGRAPH_CHARS).count() < MIN_PARAGRAPH_CHARS)
        {
            continue;
        }
        let head = &para[..trawl_core::text::floor_char_boundary(para, PARAGRAPH_BYTES)];
        let ev = Evidence::of(&para[..trawl_core::text::floor_char_boundary(head, EVIDENCE_BYTES)]);
        let same_script =
            doc_script.is_some() && script_group(script_of(head)) == script_group(doc_script);
        let leader = ev.leader();
        let lang: Option<&'static str> = match (doc, leader) {
            (Some(d), None) if same_script => Some(d.code()),
            (Some(d), Some(l)) if same_script && l == d => Some(d.code()),
            _ if calls < MAX_PARAGRAPH_CALLS => {
                calls += 1;
                // narrowed like the document call when the stop words allow it
                let d = detect(head, &Evidence::of(head));
                (d.code != "und").then_some(d.code)
            }
            _ => leader.or(doc).map(|l| l.code()),
        };
        if let Some(l) = lang {
            match by_lang.iter_mut().find(|(k, _)| *k == l) {
                Some(e) => e.1 += para.len(),
                None => by_lang.push((l, para.len())),
            }
            total += para.len();
        }
    }
    by_lang.sort_by(|a, b| a.0.cmp(b.0));
    by_lang
        .into_iter()
        .map(|(l, n)| {
            (
                l,
                ((n as f64 / total.max(1) as f64) * 1000.0).round() / 1000.0,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: &str = "The library has extended its opening hours on weekday evenings after a survey showed that many students could not visit during the day.";
    const FR: &str = "La bibliothèque municipale organise tout au long de l'année des lectures pour les enfants et des rencontres avec des auteurs.";
    const PT: &str = "A biblioteca municipal ampliou o horário de funcionamento durante a semana, depois que uma pesquisa mostrou que muitos estudantes não podiam visitar durante o dia.";
    const SW: &str = "Maktaba ya mji imeongeza saa za kufunguliwa jioni baada ya utafiti kuonyesha kwamba wanafunzi wengi hawawezi kutembelea mchana.";

    #[test]
    fn sample_cuts_after_multibyte_whitespace() {
        // issue 18: `s + p + 1` assumed one-byte whitespace and panicked inside U+00A0
        for ws in [
            '\u{a0}', '\u{3000}', '\u{2028}', '\u{2029}', '\u{1680}', '\u{202f}', '\u{85}', ' ',
            '\t',
        ] {
            for word in ["word", "слово", "字", "🦀", "e\u{301}"] {
                let text: String = (0..400).map(|i| format!("{word}{i}{ws}")).collect();
                for max in [3, 10, 60, 600, 900, text.len() - 1] {
                    let s = sample(&text, max);
                    assert!(s.len() <= max + 4 + 2 * ws.len_utf8(), "{ws:?} {max}");
                    for piece in s.split('\n') {
                        assert!(!piece.starts_with(ws), "{ws:?} {max}: {piece:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn lists_are_lowercase_single_words() {
        for (l, _, list) in LISTS {
            for w in list.split(' ') {
                assert!(
                    !w.is_empty()
                        && !w
                            .chars()
                            .any(|c| c.is_whitespace() || c.is_ascii_punctuation()),
                    "{l:?}: `{w}`"
                );
                assert_eq!(w.to_lowercase(), w, "{l:?}: `{w}`");
            }
        }
        assert!(LISTS.len() <= 64);
    }

    #[test]
    fn narrowing_keeps_whatlangs_answer() {
        for text in [EN, FR, PT] {
            let ev = Evidence::of(text);
            let d = detect(text, &ev);
            let full = whatlang::detect(text).unwrap();
            assert!(d.narrowed, "{text}");
            assert_eq!(d.code, full.lang().code(), "{text}");
            assert!(
                (d.confidence - full.confidence()).abs() < 0.05,
                "{text}: {} vs {}",
                d.confidence,
                full.confidence()
            );
        }
        // a language without a list: no clear leader, whatlang scores every language
        let d = detect(SW, &Evidence::of(SW));
        assert!(!d.narrowed);
        assert_eq!(d.code, whatlang::detect(SW).unwrap().lang().code());
    }

    #[test]
    fn quick_script_agrees_with_whatlang() {
        for t in [
            "plain ascii",
            "“Curly” quotes — and dashes…",
            "Ça coûte 5 € à Zürich",
            "Tiếng Việt có dấu",
            "Книга о городе",
            "我们今天去公园",
            "日本語のテキスト",
            "12 34",
            "",
            "mixed Latin and Кириллица text",
        ] {
            assert_eq!(script_of(t), whatlang::detect_script(t), "{t}");
        }
    }

    #[test]
    fn sample_is_three_windows_of_whole_words() {
        let text = (0..2_000)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let s = sample(&text, 300);
        assert!(s.len() <= 300, "{}", s.len());
        assert_eq!(s.lines().count(), 3);
        for w in s.split_whitespace() {
            assert!(text.split(' ').any(|t| t == w), "cut word {w}");
        }
        assert!(s.starts_with("w0 "));
        assert_eq!(sample("short", 300), "short");
        // multi-byte text never splits a character
        let ru = "Библиотека продлила часы работы. ".repeat(200);
        assert!(sample(&ru, SAMPLE_BYTES).len() <= SAMPLE_BYTES);
    }

    #[test]
    fn short_texts_get_und_or_a_low_confidence() {
        // below a few letters: no language at all
        for t in ["OK", "Home", "12 34 56", "→ ✓", "", "日本"] {
            let s = settle(t, "eng", 1.0, true, &[]);
            assert_eq!(s.code, "und", "{t}");
            assert_eq!(s.confidence, 0.0);
            assert!(!s.reliable);
            assert_eq!(s.caveat, Some("too_short"));
        }
        // shorter than a sentence: the label stands, never confident
        for t in ["Read more", "Datenschutz", "Mentions légales"] {
            let d = document(t);
            let s = settle(t, d.code, d.confidence, d.reliable, &[]);
            assert!(s.confidence <= 0.5, "{t}: {s:?}");
            assert!(!s.reliable, "{t}");
            assert_eq!(s.caveat, Some("short"));
        }
        // a sentence: whatever the detector says
        let s = settle(EN, "eng", 0.9, true, &[("eng", 1.0)]);
        assert_eq!(
            (s.code.as_str(), s.confidence, s.reliable),
            ("eng", 0.9, true)
        );
        assert_eq!(s.caveat, None);
        // CJK characters carry about a word each
        let zh = "我们今天下午去公园散步";
        assert!(letters(zh, 100) >= SENTENCE_LETTERS);
    }

    #[test]
    fn mixed_texts_get_a_confidence_no_higher_than_their_share() {
        let half = format!("{EN}\n\n{FR}\n\n{EN}\n\n{FR}");
        let d = document(&half);
        let shares = paragraph_shares(&half, d.code, d.script);
        let s = settle(&half, d.code, d.confidence, d.reliable, &shares);
        assert!(s.code == "eng" || s.code == "fra", "{s:?}");
        assert!(s.confidence <= 0.6, "{s:?} {shares:?}");
        assert_eq!(s.caveat, Some("mixed"));
        // a language holding a third of the text: its label, never a confident one
        let s = settle(&half, "fra", 1.0, true, &[("eng", 0.7), ("fra", 0.3)]);
        assert_eq!(s.code, "fra");
        assert!(s.confidence <= 0.3 && !s.reliable, "{s:?}");
        // a page that is mostly one language keeps its confidence
        let s = settle(&half, "eng", 0.95, true, &[("eng", 0.9), ("fra", 0.1)]);
        assert_eq!(
            (s.code.as_str(), s.confidence, s.caveat),
            ("eng", 0.95, None)
        );
        // no majority at all: unreliable
        let s = settle(
            &half,
            "eng",
            1.0,
            true,
            &[("eng", 0.4), ("fra", 0.35), ("deu", 0.25)],
        );
        assert!(!s.reliable && s.confidence <= 0.4, "{s:?}");
    }

    #[test]
    fn lingua_settles_short_texts_whatlang_confuses() {
        // Czech beside Slovak and Portuguese, Bokmål beside Danish, Croatian beside Slovak:
        // whatlang's trigrams pick the wrong one, unsure; lingua is asked and is right
        for (text, want) in [
            (
                "Tento program obsahuje nástroje pro správu tiskáren.",
                "ces",
            ),
            ("Pro více informací se podívejte do dokumentace.", "ces"),
            ("Denne pakken inneholder verktøy for skrivere.", "nob"),
            ("Ovaj paket sadrži alate za pisače.", "hrv"),
        ] {
            let w = whatlang::detect(text).unwrap();
            assert!(
                w.lang().code() != want && w.confidence() < SECOND_OPINION_BELOW,
                "{text}: whatlang changed: {w:?}"
            );
            let d = document(text);
            assert_eq!(d.code, want, "{text}: {d:?}");
            assert_eq!(d.whatlang.map(|w| w.0), Some(w.lang().code()));
            assert!(d.second.is_some());
        }
        // text with letters of other scripts never goes to lingua, which knows none of them
        assert!(!second_scripts_only("コマンド ls は files を一覧する"));
        assert!(second_scripts_only(
            "Книга о городе and some English, مرحبا, नमस्ते"
        ));
        // a long document never waits for lingua
        let long = format!("{EN} ").repeat(20);
        assert!(document(&long).second.is_none());
        assert!(second_knows("dan") && second_knows("rus") && !second_knows("jav"));
        assert!(!second_knows("und") && !second_knows("tha"));
    }

    #[test]
    fn paragraph_shares_of_a_mixed_page() {
        let text =
            format!("{EN}\n\n{FR}\n\n{EN}\n\nКнига о городе и его библиотеке вышла в этом году.");
        let shares = paragraph_shares(&text, "eng", Some(Script::Latin));
        let get = |l: &str| {
            shares
                .iter()
                .find(|(k, _)| *k == l)
                .map_or(0.0, |(_, v)| *v)
        };
        assert!(
            get("eng") > 0.5 && get("fra") > 0.2 && get("rus") > 0.05,
            "{shares:?}"
        );
        assert!((shares.iter().map(|(_, v)| v).sum::<f64>() - 1.0).abs() < 0.01);
        assert_eq!(
            paragraph_shares(EN, "eng", Some(Script::Latin)),
            vec![("eng", 1.0)]
        );
        assert!(paragraph_shares("short", "eng", Some(Script::Latin)).is_empty());
    }
}
