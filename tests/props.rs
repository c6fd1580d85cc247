//! Property tests (issue 18): arbitrary Unicode and arbitrary HTML through every text
//! function and every stage's per-record path. No input may panic, and each stage keeps its
//! invariants. Text is drawn from the characters that broke real code: every Unicode space,
//! combining marks, right-to-left scripts, emoji with joiners, CJK, line and paragraph
//! separators, NUL and other controls, byte-order marks and lone surrogates' replacement.

use proptest::prelude::*;
use trawl_core::{Document, ImageRef};

/// Characters that stress byte offsets, whitespace handling and script detection.
const HARD: &[char] = &[
    ' ',
    '\t',
    '\n',
    '\r',
    '\u{0b}',
    '\u{0c}',
    '\u{85}',
    '\u{a0}',
    '\u{1680}',
    '\u{2000}',
    '\u{2002}',
    '\u{2007}',
    '\u{2009}',
    '\u{200a}',
    '\u{200b}',
    '\u{200d}',
    '\u{2028}',
    '\u{2029}',
    '\u{202f}',
    '\u{205f}',
    '\u{3000}',
    '\u{feff}',
    '\u{fffd}',
    '\u{0}',
    '\u{1b}',
    '\u{7f}',
    '\u{9b}',
    '\u{301}',
    '\u{308}',
    '\u{20dd}',
    '\u{5d0}',
    '\u{5e9}',
    '\u{627}',
    '\u{644}',
    '\u{200f}',
    '\u{202e}',
    '\u{4e2d}',
    '\u{6587}',
    '\u{3042}',
    '\u{30ab}',
    '\u{ac00}',
    '\u{e01}',
    '\u{915}',
    '\u{94d}',
    '\u{1f600}',
    '\u{1f44d}',
    '\u{1f3fd}',
    '\u{1f1fa}',
    '\u{10ffff}',
    '\u{ad}',
    '.',
    ',',
    '!',
    '?',
    '。',
    '、',
    '-',
    '\'',
    '"',
    '@',
    '<',
    '>',
    '&',
    '#',
    '/',
    '0',
    '9',
    'a',
    'Z',
    'ß',
    'İ',
    'ı',
    'ǅ',
    'ﬃ',
];

/// A word or a run of hard characters.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z]{1,12}",
        2 => proptest::collection::vec(proptest::sample::select(HARD), 1..6)
            .prop_map(|v| v.into_iter().collect::<String>()),
        1 => any::<String>(),
        1 => "[\u{4e00}-\u{4fff}\u{3040}-\u{30ff}]{1,20}",
        1 => "[\u{0600}-\u{06ff}\u{0590}-\u{05ff} ]{1,20}",
    ]
}

/// Text of up to a few hundred pieces, joined by arbitrary separators.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            piece(),
            proptest::sample::select(
                &[
                    " ", "\u{a0}", "\u{3000}", "\n", "\n\n", "", "\u{2028}", "\t",
                ][..],
            ),
        ),
        0..300,
    )
    .prop_map(|v| v.into_iter().map(|(p, s)| p + s).collect())
}

/// HTML built from a small grammar: nesting, unclosed and misnested tags, attributes with
/// hard characters, entities, comments, scripts, images and hard text.
fn html() -> impl Strategy<Value = String> {
    let tag = proptest::sample::select(
        &[
            "div",
            "p",
            "article",
            "main",
            "section",
            "ul",
            "li",
            "table",
            "tr",
            "td",
            "a",
            "h1",
            "h2",
            "span",
            "pre",
            "code",
            "nav",
            "footer",
            "aside",
            "script",
            "style",
            "noscript",
            "template",
            "figure",
            "figcaption",
            "img",
            "br",
            "form",
            "button",
            "svg",
            "math",
            "select",
            "option",
            "b",
            "i",
            "header",
            "body",
            "html",
            "head",
            "title",
            "meta",
        ][..],
    );
    let attr = proptest::sample::select(
        &[
            "",
            " class=\"content\"",
            " class=\"comment nav\"",
            " id=\"main\"",
            " role=\"main\"",
            " hidden",
            " style=\"display:none\"",
            " href=\"/x\u{a0}y\"",
            " src=\"/i.jpg\" alt=\"a\u{301}lt\"",
            " lang=\"ar\" dir=\"rtl\"",
            " itemprop=\"articleBody\"",
            " aria-hidden=\"true\"",
        ][..],
    );
    let node = prop_oneof![
        4 => (tag.clone(), attr, text(), any::<bool>()).prop_map(|(t, a, x, close)| {
            if close { format!("<{t}{a}>{x}</{t}>") } else { format!("<{t}{a}>{x}") }
        }),
        1 => tag.prop_map(|t| format!("</{t}>")),
        1 => proptest::sample::select(&["&amp;", "&nbsp;", "&#0;", "&#x1F600;", "&bogus;", "<!-- c -->", "<!--", "<![CDATA[x]]>", "<!DOCTYPE html>", "<?xml?>", "\u{feff}"][..]).prop_map(String::from),
        2 => text(),
    ];
    proptest::collection::vec(node, 0..60).prop_map(|v| v.concat())
}

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("TRAWL_PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Record errors (contained panics included) counted by a chain.
fn errors(stats: &trawl_core::RunStats) -> Vec<String> {
    stats
        .stages
        .iter()
        .flat_map(|(n, s)| s.errors.keys().map(move |k| format!("{n}: {k}")))
        .collect()
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn text_helpers_hold_on_any_text(t in text(), i in 0usize..4000) {
        use trawl_core::text::*;
        let f = floor_char_boundary(&t, i);
        let c = ceil_char_boundary(&t, i);
        prop_assert!(t.is_char_boundary(f) && t.is_char_boundary(c) && f <= c);
        prop_assert!(f <= i.min(t.len()) && c >= i.min(t.len()));
        let mut words = 0;
        for_each_word(&t, |w| { words += 1; assert!(!w.is_empty()); });
        let _ = word_count(&t);
        for p in split_paragraphs(&t) {
            prop_assert!(t.contains(p));
        }
        let e = escape_controls(&t);
        prop_assert!(!e.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        for w in t.split_whitespace() {
            let _ = trim_non_alphanumeric(w);
            let mut b = String::new();
            push_lowercase(&mut b, w);
        }
    }

    #[test]
    fn language_id_samples_on_char_boundaries(t in text(), max in 1usize..2000) {
        let s = trawl_filter::lid::sample(&t, max);
        // a sample is made of the text's own characters
        prop_assert!(s.chars().all(|c| t.contains(c) || c == ' ' || c == '\n'));
        let d = trawl_filter::lid::document(&t);
        let _ = d;
        let _ = trawl_filter::lid::script_of(&t);
    }

    #[test]
    fn the_filter_chain_never_errs(t in text()) {
        let cfg = trawl_filter::FilterConfig::default();
        let mut chain = trawl_core::Chain::new("filter", cfg.build().unwrap());
        let doc = Document::new("https://h.example/a", t.clone());
        let kept = chain.process(doc);
        let stats = chain.take_stats();
        prop_assert!(errors(&stats).is_empty(), "{:?}", errors(&stats));
        if let Some(k) = kept {
            // the filter annotates; PII redaction may change the text, never to invalid UTF-8
            prop_assert!(k.text.len() <= t.len() * 8 + 64);
        }
    }

    #[test]
    fn pii_redaction_keeps_text_valid(t in text()) {
        let pii = trawl_filter::pii::Pii::new(Default::default());
        let (out, counts) = pii.redact(&t);
        prop_assert!(counts.iter().all(|(_, n)| *n > 0));
        if counts.is_empty() {
            prop_assert_eq!(out.as_ref(), t.as_str());
        }
    }

    #[test]
    fn dedup_keys_ignore_case_and_spacing(t in text()) {
        let spaced: String = t.split_whitespace().collect::<Vec<_>>().join("  \n ");
        prop_assert_eq!(trawl_dedup::text_key(&t), trawl_dedup::text_key(&spaced));
        let mut h = trawl_dedup::minhash::MinHasher::new(5, 120, 1);
        h.compute(&t);
        let mut chain = trawl_core::Chain::new(
            "dedup",
            vec![trawl_core::Stage::Task(Box::new(trawl_dedup::ExactDedup::default()))],
        );
        let a = Document::new("https://h/a", t.clone());
        let b = Document::new("https://h/b", spaced);
        prop_assert!(chain.process(a).is_some());
        prop_assert!(chain.process(b).is_none(), "an exact copy up to spacing is removed");
    }

    #[test]
    fn extraction_of_any_html(h in html()) {
        let ex = trawl_extract::Extractor::new(trawl_extract::ExtractConfig {
            min_text_chars: 0,
            ..Default::default()
        });
        if let Ok(doc) = ex.extract_html("https://h.example/dir/page", h.as_bytes(), None) {
            prop_assert!(!doc.text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
            for im in &doc.images {
                prop_assert!(im.offset <= doc.text.len() && doc.text.is_char_boundary(im.offset));
            }
        }
        // the same bytes as a page with arbitrary headers
        let page = trawl_core::FetchedPage {
            url: "https://h.example/".into(),
            status: 200,
            headers: vec![("content-type".into(), "text/html; charset=windows-1252".into())],
            body: h.into_bytes(),
            ..Default::default()
        };
        let _ = ex.extract(&page);
    }

    #[test]
    fn extraction_of_any_bytes(b in proptest::collection::vec(any::<u8>(), 0..4000)) {
        let ex = trawl_extract::Extractor::new(Default::default());
        let _ = ex.extract_html("https://h.example/", &b, None);
        let _ = ex.extract_html("https://h.example/", &b, Some("shift_jis"));
    }

    #[test]
    fn caption_context_at_any_offset(t in text(), offsets in proptest::collection::vec(0usize..5000, 0..8)) {
        let mut doc = Document::new("https://h.example/a", t);
        doc.images = offsets
            .into_iter()
            .enumerate()
            .map(|(i, o)| ImageRef { src: format!("https://h.example/{i}.jpg"), alt: "a picture of a river at dusk".into(), offset: o, ..Default::default() })
            .collect();
        let c = trawl_captions::Captioner::new(Default::default());
        let _ = c.plan(&[doc]);
    }

    #[test]
    fn tokenizer_round_trips_any_text(t in text()) {
        let tok = trawl_shards::ShardsConfig::default().load_tokenizer().unwrap();
        let ids = tok.encode(&t);
        prop_assert!(t.is_empty() || !ids.is_empty());
        let mut b = trawl_shards::PartBuilder::new(&trawl_shards::ShardsConfig::default(), &tok, "00000");
        b.add(&Document::new("https://h/a", t));
        let out = b.finish();
        prop_assert_eq!(out.manifest.documents, 1);
    }

    #[test]
    fn jsonl_reader_counts_any_bytes(b in proptest::collection::vec(any::<u8>(), 0..3000), cut in 0usize..3000) {
        // arbitrary bytes, and a valid file cut anywhere: every line is a record or an error
        for (name, data) in [("x.jsonl", b.clone()), ("x.jsonl.gz", b)] {
            if let Ok(lines) = trawl_storage::jsonl::lines::<Document>(name, &data) {
                for _ in lines {}
            }
        }
        let mut w = trawl_storage::jsonl::JsonlWriter::for_name("x.jsonl.zst");
        for i in 0..20 {
            w.write(&Document::new(format!("https://h/{i}"), "some text"));
        }
        let full = w.finish();
        let part = &full[..cut.min(full.len())];
        let (mut ok, mut bad) = (0, 0);
        if let Ok(lines) = trawl_storage::jsonl::lines::<Document>("x.jsonl.zst", part) {
            for l in lines {
                if l.is_ok() { ok += 1 } else { bad += 1 }
            }
        };
        prop_assert!(ok <= 20 && bad <= 1);
    }

    #[test]
    fn warc_reader_resyncs_over_any_damage(at in 0usize..100_000, len in 1usize..400, flip in 1u8..=255) {
        let mut w = trawl_storage::warc::WarcWriter::new("a.warc.gz", "t", "2026-01-01T00:00:00Z");
        for i in 0..6 {
            let mut p = trawl_core::FetchedPage {
                url: format!("http://a.test/{i}"),
                final_url: format!("http://a.test/{i}"),
                status: 200,
                headers: vec![("content-type".into(), "text/html".into())],
                body: format!("<p>page {i}</p>").repeat(40).into_bytes(),
                ..Default::default()
            };
            w.write_page(&mut p, &[]);
        }
        let mut bytes = w.finish();
        let at = at % bytes.len();
        let end = (at + len).min(bytes.len());
        for x in &mut bytes[at..end] {
            *x ^= flip;
        }
        let (pages, damage) = trawl_storage::warc::read_pages_resync("a.warc.gz", &bytes, 1 << 20);
        // damage costs at most the records it touches (gzip members of a few hundred
        // bytes), never the rest of the file, and every loss is reported
        prop_assert!(pages.len() <= 6);
        if pages.len() < 6 {
            prop_assert!(!damage.is_empty());
        }
        prop_assert!(pages.len() + 3 + len / 150 >= 6, "{} pages, {:?}", pages.len(), damage);
    }

    #[test]
    fn robots_txt_of_any_bytes(b in proptest::collection::vec(any::<u8>(), 0..2000), path in "/[a-z%0-9/*$?=&]{0,30}") {
        let url = format!("https://h.example{path}");
        let _ = trawl_crawler::robots_preprocess(&b);
        let allowed = trawl_crawler::robots_allowed(&b, "trawl", &url);
        // the explanation, when there is one, agrees with the verdict or is withheld
        if let Some((rule, _)) = trawl_crawler::matched_rule(&b, "trawl", &url) {
            let _ = (rule, allowed);
        }
    }
}
