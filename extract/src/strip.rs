//! Removes inert markup before parsing: `<script>` (except JSON-LD, which the metadata
//! reader needs), `<style>`, inline `<svg>`, `<link>` (except canonical and author links),
//! comments, and every attribute the extractor never reads on its element ([`READ_ATTRS`],
//! [`READ_ON`]). On real pages these are most of the bytes (on the WCXB pages, scripts,
//! styles and comments are half, and the unread attributes a third of what is left), and the
//! HTML tokenizer would otherwise walk every one of them.
//!
//! The scan follows the tokenizer's own rules (WHATWG HTML 13.2.5) closely enough that the
//! parser builds the same tree minus what was removed:
//! - a start or end tag is `<` and a letter, its attributes run to the first `>` outside a
//!   quoted value, and an attribute is a name, optionally `=` and a value (quoted with `"` or
//!   `'`, or unquoted up to whitespace or `>`);
//! - a script or style element ends at the first `</script`/`</style` followed by whitespace,
//!   `/` or `>`, a comment at the first `-->`;
//! - the content of the raw-text elements (`title`, `textarea`, `iframe`, ...) is copied as it
//!   is, because the tokenizer does not read tags there;
//! - a tag that never ends (its `>` or a quote is missing) stops the scan: the rest of the page
//!   is copied as it is, as the tokenizer would swallow it into that tag anyway;
//! - whitespace alone between two tags (indentation, a sixth of the markup left) becomes one
//!   space or newline, except inside `<pre>`: the walk collapses it there anyway.

/// The attributes the extractor reads on any element (`score::Attrs`, `meta::page_meta`'s
/// microdata and author links): the scan keeps these, and those of [`READ_ON`] on their
/// elements, and drops all others. Not `href`: a link's target is never read but for a place
/// on the page ([`in_page_link`]; and `<a href>` is a sixth of the bytes left); the canonical
/// `<link>` is kept whole. A new reader of an
/// attribute adds its name here or to [`READ_ON`]; `strip_keeps_what_extraction_reads`
/// compares the extraction of the labelled pages with and without the filter.
pub(crate) const READ_ATTRS: &[&str] = &[
    "class",
    "id",
    "role",
    "style",
    "hidden",
    "aria-hidden",
    "aria-labelledby",
    "aria-label",
    "data-testid",
    "data-component",
    "data-module",
    "itemprop",
    "itemtype",
    "itemscope",
    "content",
    "rel",
];

/// The attributes read only on one element: an image's sources (with the lazy-loading ones,
/// `dom::LAZY_ATTRS`), text and size; a `<picture>` source's; `<meta>`'s name and value;
/// `<time>`'s date; `<data>`'s and `<meter>`'s value (microdata); `<html lang>`; an
/// `<input>`'s `type` and `name` (a sign-up form's e-mail field); a `<button>`'s
/// `aria-expanded` and `aria-controls` (an FAQ's question, `dom::disclosure_question`); a
/// link's `hreflang` (a language switcher's entry, `score::Attrs`). A
/// link's `title` is never read (keeping it, and the fields' attributes, everywhere cost 4.5%
/// more instructions over the labelled pages). (`content`, a `<meta>`'s value, is in
/// [`READ_ATTRS`]: microdata gives it on any element.)
const READ_ON: &[(&str, &[&str])] = &[
    (
        "img",
        &[
            "src",
            "srcset",
            "data-srcset",
            "data-lazy-srcset",
            "alt",
            "title",
            "width",
            "height",
        ],
    ),
    ("source", &["srcset", "data-srcset", "type"]),
    ("meta", &["property", "name"]),
    ("time", &["datetime"]),
    ("data", &["value"]),
    ("meter", &["value"]),
    ("input", &["type", "name"]),
    ("button", &["aria-expanded", "aria-controls"]),
    ("html", &["lang"]),
    ("a", &["hreflang"]),
];

/// Whether the extractor reads attribute `attr` on element `tag` (both as written).
fn reads(tag: &[u8], attr: &[u8]) -> bool {
    let is = |k: &&str| k.as_bytes().eq_ignore_ascii_case(attr);
    READ_ATTRS.iter().any(is)
        || READ_ON
            .iter()
            .find(|(t, _)| t.as_bytes().eq_ignore_ascii_case(tag))
            .is_some_and(|(t, attrs)| {
                attrs.iter().any(is) || (*t == "img" && crate::dom::LAZY_ATTRS.iter().any(is))
            })
}

/// Bytes of stripped markup a thread keeps allocated between pages.
const KEEP_BYTES: usize = 16 << 20;

/// Runs `f` on `html` without scripts (JSON-LD kept), styles, comments, unread attributes
/// and indentation, and on whether the parsed page would nest deeper than `max_depth`
/// elements (such a page is not to be parsed; the pass stops reading tags where that became
/// clear). The depth is followed in the same pass ([`trawl_core::html::DepthScan`]). The
/// text is built in a buffer the thread keeps between pages: fresh memory for every page
/// costs as much again in the kernel's page zeroing.
pub(crate) fn with_stripped<R>(html: &str, max_depth: usize, f: impl FnOnce(&str, bool) -> R) -> R {
    thread_local!(static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) });
    BUF.with_borrow_mut(|buf| {
        buf.clear();
        let mut depth = trawl_core::html::DepthScan::new(max_depth);
        strip_into(html, true, buf, Some(&mut depth));
        let r = f(buf, depth.exceeded());
        if buf.capacity() > KEEP_BYTES {
            *buf = String::new();
        }
        r
    })
}

/// [`with_stripped`]'s text as a new string.
#[cfg(test)]
pub(crate) fn strip_inert(html: &str) -> String {
    strip(html, true)
}

/// The scan into a new string; `minify` false keeps every attribute and all whitespace (for
/// comparisons in tests).
#[cfg(test)]
pub(crate) fn strip(html: &str, minify: bool) -> String {
    let mut out = String::new();
    strip_into(html, minify, &mut out, None);
    out
}

/// The scan, appended to `out`; with `depth`, every tag goes to it too, and once the depth is
/// over its cap the rest of the page is copied as it is.
fn strip_into(
    html: &str,
    minify: bool,
    out: &mut String,
    mut depth: Option<&mut trawl_core::html::DepthScan>,
) {
    let b = html.as_bytes();
    out.reserve(html.len() / 2);
    let mut copied = 0; // html[copied..pos] not yet copied
    let mut pos = 0;
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    let mut pre = 0usize; // open <pre> and <listing> elements
    while let Some(off) = memchr::memchr(b'<', &b[pos..]) {
        let i = pos + off;
        if minify && pre == 0 && off >= 2 && b[pos..i].iter().all(|&c| is_space(c)) {
            // indentation between tags: one character says as much outside <pre>
            out.push_str(&html[copied..pos]);
            out.push(if b[pos..i].iter().any(|&c| c == b'\n' || c == b'\r') {
                '\n'
            } else {
                ' '
            });
            copied = i;
        }
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            let end =
                memchr::memmem::find(&b[i + 4..], b"-->").map_or(html.len(), |e| i + 4 + e + 3);
            out.push_str(&html[copied..i]);
            copied = end;
            pos = end;
            continue;
        }
        let end_tag = rest.get(1) == Some(&b'/');
        let name_at = i + 1 + usize::from(end_tag);
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            pos = i + 1; // `<!DOCTYPE`, `<?xml`, a `<` in text
            continue;
        }
        let mut name_end = name_at + 1;
        while name_end < b.len() && !matches!(b[name_end], b'/' | b'>') && !is_space(b[name_end]) {
            name_end += 1;
        }
        let name = &html[name_at..name_end];
        if !end_tag && name.eq_ignore_ascii_case("link") {
            // stylesheets, preloads, icons, feeds: never text; a canonical or author link is
            // metadata and stays
            let end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            let tag = &html[i..end];
            if !(trawl_core::text::contains_ascii_ci(tag, "canonical")
                || trawl_core::text::contains_ascii_ci(tag, "author"))
            {
                out.push_str(&html[copied..i]);
                copied = end;
            }
            pos = end.max(i + 1);
            continue;
        }
        let inert = ["script", "style", "svg"]
            .into_iter()
            .find(|t| !end_tag && name.eq_ignore_ascii_case(t));
        if let Some(tag) = inert {
            // `svg`: inline icons, never text, often large paths
            let open_end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            let close = find_close(html, open_end, tag);
            let end = html[close..]
                .find('>')
                .map_or(html.len(), |e| close + e + 1);
            // (JSON-LD, and a script whose file names the site generator, which writes no
            // `<meta name="generator">`: `crate::meta::GENERATOR_ASSETS`)
            let keep = tag == "script" && {
                let open = html[i..open_end].to_ascii_lowercase();
                open.contains("ld+json")
                    || crate::meta::GENERATOR_ASSETS
                        .iter()
                        .any(|(f, _)| open.contains(f))
            };
            if !keep {
                out.push_str(&html[copied..i]);
                copied = end;
            }
            pos = end.max(i + 1);
            continue;
        }
        dropped.clear();
        let filter = minify && !end_tag;
        let Some(tag_end) =
            scan_attrs(b, name_end, name.as_bytes(), filter.then_some(&mut dropped))
        else {
            break; // a tag that never ends: the rest is copied as it is
        };
        for &(from, to) in &dropped {
            out.push_str(&html[copied..from]);
            // `a="1"b="2"` without `a`: `b` must not join the name before it
            if to < tag_end && !matches!(b[to], b'/' | b'>') && !is_space(b[to]) {
                out.push(' ');
            }
            copied = to;
        }
        pos = tag_end;
        if name.eq_ignore_ascii_case("pre") || name.eq_ignore_ascii_case("listing") {
            pre = if end_tag {
                pre.saturating_sub(1)
            } else {
                pre + 1
            };
        }
        if end_tag {
            if let Some(d) = depth.as_deref_mut() {
                d.end(name.as_bytes());
            }
            continue;
        }
        // the tokenizer reads no tags in a title, a textarea, an iframe, ... (scripts and
        // styles are gone by now; `noscript` is raw text to the parser too, but the walk
        // parses its markup again, `dom::noscript_markup`, so it is scanned like the page);
        // the depth scan says so of each start tag it is given
        let raw = match depth.as_deref_mut() {
            Some(d) => {
                let raw = d.start(name.as_bytes(), b[..tag_end].ends_with(b"/>"));
                if d.exceeded() {
                    break;
                }
                raw
            }
            None => trawl_core::html::is_raw_text(name.as_bytes()),
        };
        if name.eq_ignore_ascii_case("plaintext") {
            break; // everything after it is text
        }
        if raw {
            pos = find_close(html, tag_end, name).max(tag_end);
        }
    }
    out.push_str(&html[copied.min(html.len())..]);
}

/// HTML's whitespace (tab, LF, FF, CR, space).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// Reads a tag's attributes from `from` (just after its name) to its `>`, as the tokenizer
/// does, and returns the offset just past the `>`, or `None` when the input ends first. With
/// `drop`, the ranges of attributes the extractor does not read on element `tag` ([`reads`];
/// each with the whitespace before it) are pushed there.
fn scan_attrs(
    b: &[u8],
    from: usize,
    tag: &[u8],
    mut drop: Option<&mut Vec<(usize, usize)>>,
) -> Option<usize> {
    let n = b.len();
    let mut p = from;
    let mut style_seen = false;
    loop {
        let lead = p;
        while p < n && (is_space(b[p]) || b[p] == b'/') {
            p += 1;
        }
        if p >= n {
            return None;
        }
        if b[p] == b'>' {
            return Some(p + 1);
        }
        let name_start = p;
        p += 1; // the first character is the name's, even `=`
        while p < n && !matches!(b[p], b'/' | b'>' | b'=') && !is_space(b[p]) {
            p += 1;
        }
        let name = &b[name_start..p];
        let mut q = p;
        while q < n && is_space(b[q]) {
            q += 1;
        }
        // where the value starts (its quote, if any), when there is one
        let mut value_at = None;
        if q < n && b[q] == b'=' {
            q += 1;
            while q < n && is_space(b[q]) {
                q += 1;
            }
            value_at = Some(q);
            match b.get(q) {
                None => return None,
                Some(&quote @ (b'"' | b'\'')) => {
                    p = q + 1 + memchr::memchr(quote, &b[q + 1..])? + 1;
                }
                Some(b'>') => p = q, // `a=>`: no value, the tag ends
                Some(_) => {
                    while q < n && b[q] != b'>' && !is_space(b[q]) {
                        q += 1;
                    }
                    p = q;
                }
            }
        }
        if let Some(d) = drop.as_deref_mut() {
            let value = value_at.map_or(&b[p..p], |v| &b[v..p]);
            // (a second `style` is one the tokenizer drops: it goes whatever it says, so
            // that it never stands in for a first one dropped here)
            let style = name.eq_ignore_ascii_case(b"style")
                && (std::mem::replace(&mut style_seen, true) || !may_hide(value));
            if style || !(reads(tag, name) || in_page_link(tag, name, value)) {
                d.push((lead, p));
            }
        }
    }
}

/// Whether an attribute is a link's `href` to a place on the page (`#main-content`), which
/// the scorer reads of skip links (`score::skip_targets`); other targets go. (Its value as
/// written, in its quotes if it has them.)
fn in_page_link(tag: &[u8], name: &[u8], value: &[u8]) -> bool {
    let value = value
        .strip_prefix(b"\"")
        .or_else(|| value.strip_prefix(b"'"))
        .unwrap_or(value);
    tag.eq_ignore_ascii_case(b"a")
        && name.eq_ignore_ascii_case(b"href")
        && value.first() == Some(&b'#')
        && value.len() > 2
}

/// Whether a `style` value may hide its element, as the scorer reads it
/// ([`crate::score::style_may_hide`]); one with a character reference might spell the words,
/// and stays. (Inline styles are 2% of a page's markup after scripts and styles.)
fn may_hide(value: &[u8]) -> bool {
    value.contains(&b'&') || crate::score::style_may_hide(value)
}

/// Offset of the closing `</tag` at or after `from` (the end of the input when missing).
fn find_close(html: &str, from: usize, tag: &str) -> usize {
    let b = html.as_bytes();
    let mut p = from;
    while let Some(off) = memchr::memmem::find(&b[p..], b"</") {
        let i = p + off;
        let after = i + 2 + tag.len();
        if b.len() >= after
            && b[i + 2..after].eq_ignore_ascii_case(tag.as_bytes())
            && (after == b.len()
                || matches!(
                    b[after],
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>' | b'/'
                ))
        {
            return i;
        }
        p = i + 2;
    }
    html.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_scripts_that_name_the_site_generator() {
        // (what `meta` reads of them is their address: Sphinx writes no generator meta)
        let html = r#"<head><script src="_static/doctools.js?v=9a"></script><script src="app.js"></script><script>var doctools = 1;</script></head>"#;
        assert_eq!(
            strip_inert(html),
            r#"<head><script src="_static/doctools.js?v=9a"></script></head>"#
        );
    }

    #[test]
    fn strips_scripts_styles_comments_keeps_json_ld() {
        let html = "<p>a</p><SCRIPT type=text/javascript>if (a < b) { x = '</p>'; }</Script ><style>p{}</style><!-- c <p>hidden</p> --><scripts>kept</scripts>\
                    <script type=\"application/ld+json\">{\"@type\":\"Article\"}</script><p>b</p><script>never closed";
        assert_eq!(strip_inert(html), "<p>a</p><scripts>kept</scripts><script type=\"application/ld+json\">{\"@type\":\"Article\"}</script><p>b</p>");
        assert_eq!(strip_inert("<!-- open"), "");
        // a tag cut off by the end of the page is dropped, as the tokenizer drops it
        assert_eq!(strip_inert("x < y <script"), "x < y ");
        assert_eq!(strip_inert("é<style>ü</style>ß"), "éß");
        assert_eq!(
            strip_inert("<p>a<svg viewBox=\"0 0 9 9\"><path d=\"M0 0\"/></svg>b</p>"),
            "<p>ab</p>"
        );
        assert_eq!(
            strip_inert("<head><LINK rel=stylesheet href=a.css><link rel=\"canonical\" href=\"/c\"><link rel=author href=/me><links>x</links></head>"),
            "<head><link rel=\"canonical\" href=\"/c\"><link rel=author href=/me><links>x</links></head>"
        );
    }

    #[test]
    fn drops_unread_attributes_as_the_tokenizer_reads_them() {
        let cases = [
            // unread attributes go, read ones stay in their order and spelling
            (
                r#"<div data-x="1" class="a b" onclick='go()' ID=main>t</div>"#,
                r#"<div class="a b" ID=main>t</div>"#,
            ),
            // a `>` or a quote inside a quoted value does not end the tag
            (
                r#"<img data-tip="1 > 0 'q'" class="x" title='say "hi" >'>t"#,
                r#"<img class="x" title='say "hi" >'>t"#,
            ),
            // some attributes are read on one element only: an image's title, not a link's;
            // a <meta>'s name and content, and an <input>'s name and type (a sign-up form's
            // e-mail field); the <html>'s language, not a paragraph's
            (
                r#"<html lang=en><meta name=description content=d><a title=t rel=author class=c>a</a><img title=t alt=a data-src=/l.png width=3><input name=q type=text class=c><p lang=de>x</p>"#,
                r#"<html lang=en><meta name=description content=d><a rel=author class=c>a</a><img title=t alt=a data-src=/l.png width=3><input name=q type=text class=c><p>x</p>"#,
            ),
            // a link's target is never read; a canonical <link> stays whole
            (
                r#"<a href="/a">a</a><LINK HREF="/c" rel=canonical data-x=1>"#,
                r#"<a>a</a><LINK HREF="/c" rel=canonical data-x=1>"#,
            ),
            // values without quotes end at whitespace or `>`; names without values
            (
                "<input disabled value=a>b checked><p hidden data-n=3>",
                "<input>b checked><p hidden>",
            ),
            // no whitespace between attributes: the next one must not join the name
            (r#"<img data-a="1"src="/i.png">"#, r#"<img src="/i.png">"#),
            (r#"<img src="/i.png"data-a="1"/>"#, r#"<img src="/i.png"/>"#),
            // spaces around `=`, `/` between attributes, uppercase names
            (
                "<td colspan = 2 / CLASS = c STYLE='display : NONE'>",
                "<td / CLASS = c STYLE='display : NONE'>",
            ),
            // a style is read only for hiding (`display: none`, `visibility: hidden`); one
            // that cannot hide goes, and a second style (the tokenizer keeps the first) too
            (
                r#"<p style="color: red" class=a style="display:none">x<p style=visibility:HIDDEN><p style="&#100;isplay:n&#111;ne"><p style>"#,
                r#"<p class=a>x<p style=visibility:HIDDEN><p style="&#100;isplay:n&#111;ne"><p>"#,
            ),
            // end tags keep what they have (the parser ignores it)
            ("</div data-x=1>", "</div data-x=1>"),
            // an attribute named `=x` (the tokenizer's reading of `<b =x>`)
            ("<b =x class=k>", "<b class=k>"),
        ];
        for (html, want) in cases {
            assert_eq!(strip_inert(html), want, "{html}");
            assert_eq!(strip(html, false), html, "{html}");
        }
    }

    #[test]
    fn raw_text_and_unfinished_tags_are_copied_as_they_are() {
        // a title's and a textarea's content are text, not tags
        let html =
            r#"<title>a <b data-x=1> c</title><textarea><i data-y=2></textarea><p data-z=3>"#;
        assert_eq!(
            strip_inert(html),
            r#"<title>a <b data-x=1> c</title><textarea><i data-y=2></textarea><p>"#
        );
        // everything after <plaintext> is text
        assert_eq!(
            strip_inert("<plaintext><b data-x=1>"),
            "<plaintext><b data-x=1>"
        );
        // the page ends inside a tag or inside a quoted value: the rest stays as it is
        assert_eq!(
            strip_inert("<p data-a=1>x<div data-b=\"open"),
            "<p>x<div data-b=\"open"
        );
        assert_eq!(strip_inert("<p data-a=1>x<div data-b"), "<p>x<div data-b");
        // a `<script` inside an attribute value is not a script
        assert_eq!(
            strip_inert(r#"<div data-t="<script>x</script>" class=c>y</div>"#),
            r#"<div class=c>y</div>"#
        );
        // `<` not starting a tag, doctype and processing instructions
        assert_eq!(
            strip_inert("<!DOCTYPE html><?xml v?>1 < 2 <3 <p data-a=1>"),
            "<!DOCTYPE html><?xml v?>1 < 2 <3 <p>"
        );
    }

    #[test]
    fn indentation_between_tags_shrinks_outside_pre() {
        let html = "<ul>\n    <li>a</li>\t\t<li> b  c </li>  </ul>\n<pre>\n  <b>x</b>\n    <i>y</i></pre>\n\n<p>";
        assert_eq!(
            strip_inert(html),
            "<ul>\n<li>a</li> <li> b  c </li> </ul>\n<pre>\n  <b>x</b>\n    <i>y</i></pre>\n<p>"
        );
        assert_eq!(strip(html, false), html);
    }

    #[test]
    fn multibyte_text_and_values_survive() {
        let html = "<p data-ü=\"ö\" class=\"日本\">ß</p><a data-€='€'>€</a>";
        assert_eq!(strip_inert(html), "<p class=\"日本\">ß</p><a>€</a>");
    }

    /// The pages as this pass strips them (the labelled pages and a third of the WCXB
    /// pages; skipped without `../shared/testdata`) parse with trawl's tokenizer to
    /// html5ever's tree, and nearly all take it (`trawl_core::parse`).
    #[test]
    fn stripped_pages_parse_to_html5evers_tree() {
        let (mut taken, mut total) = (0, 0);
        for html in trawl_core::testdata::pages(3) {
            with_stripped(&html, usize::MAX, |s, _| {
                total += 1;
                if trawl_core::parse::check(s) {
                    taken += 1;
                }
            });
        }
        if total > 0 {
            assert!(
                taken * 20 >= total * 19,
                "trawl's tokenizer took {taken} of {total}"
            );
        }
        eprintln!("trawl's tokenizer took {taken} of {total} stripped pages");
    }

    /// Needs `../shared/testdata/extract` (skipped when absent): every labelled page
    /// extracts to the same text, images, title, metadata and page type with and without
    /// the minifying (so [`READ_ATTRS`] and [`READ_ON`] hold every attribute the extractor
    /// reads, and the whitespace that goes never mattered).
    #[test]
    fn strip_keeps_what_extraction_reads() {
        let Some(root) = trawl_core::testdata::shared("extract") else {
            return;
        };
        let Ok(sets) = std::fs::read_dir(&root) else {
            return;
        };
        let mut pages: Vec<std::path::PathBuf> = sets
            .filter_map(|d| std::fs::read_dir(d.ok()?.path().join("html")).ok())
            .flatten()
            .filter_map(|e| Some(e.ok()?.path()))
            .collect();
        pages.sort();
        let mut compared = 0;
        for path in &pages {
            let html =
                String::from_utf8_lossy(&std::fs::read(path).expect("read page")).into_owned();
            let run = |filter| {
                crate::dom::extract(
                    &strip(&html, filter),
                    "https://h.example/page",
                    true,
                    None,
                    None,
                )
                .unwrap_or_else(|_| panic!("no deadline: {}", path.display()))
            };
            let (a, b) = (run(true), run(false));
            let what = path.display();
            assert_eq!(a.text, b.text, "{what}");
            assert_eq!(a.images, b.images, "{what}");
            assert_eq!(a.meta, b.meta, "{what}");
            assert_eq!((&a.title, &a.html_lang), (&b.title, &b.html_lang), "{what}");
            assert_eq!(
                (a.noai, a.noimageai, a.noindex),
                (b.noai, b.noimageai, b.noindex),
                "{what}"
            );
            assert_eq!(a.page_type, b.page_type, "{what}");
            compared += 1;
        }
        assert!(compared > 300, "{compared} pages compared");
    }
}
