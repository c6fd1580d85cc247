//! A page's links, read with an HTML tokenizer alone (trawl's, [`trawl_core::parse::tokenize`],
//! or html5ever's where that one stops): no tree is built, so memory grows with
//! the links kept (not with the page: a link farm of 300,000 anchors costs its first
//! `max_links_per_page`), and time is linear in the page's size whatever its nesting.
//!
//! Like the tree builder, the tokenizer is told which elements hold raw text (script, style,
//! textarea, ...), so an `<a href>` written inside a script string is not a link.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use html5ever::local_name;
use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult};
use trawl_core::parse::RawText;
use url::Url;

/// What [`scan`] found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Links to follow, each once, in document order, at most `max`.
    pub urls: Vec<Url>,
    /// Links beyond `max` (not already among `urls`), counted, not kept.
    pub left_out: usize,
    /// `<meta name="robots" content="nofollow">` (or `none`): no link of the page is followed.
    pub nofollow_page: bool,
}

/// The links of `html`: every `<a href>` without `rel="nofollow"`, turned into a URL by
/// `resolve` (links it refuses are skipped), each once, the first `max` kept.
pub(crate) fn scan(html: &str, max: usize, resolve: impl Fn(&str) -> Option<Url>) -> Found {
    scan_with(html, max, &resolve, true)
}

/// [`scan`], with trawl's tokenizer first (`fast`) or html5ever's alone.
fn scan_with(html: &str, max: usize, resolve: &dyn Fn(&str) -> Option<Url>, fast: bool) -> Found {
    let sink = || Sink {
        resolve,
        max,
        seen: RefCell::new(HashSet::new()),
        found: RefCell::new(Found::default()),
        raw: RawText::default(),
        foreign: Cell::new(0),
    };
    // trawl's tokenizer reads a name or a value as one slice; what it leaves to html5ever's
    // (a NUL byte, CDATA, an unfinished tag, `<plaintext>`) is read again from the start
    if fast {
        let sink = sink();
        if trawl_core::parse::tokenize(html, &sink) {
            return sink.found.into_inner();
        }
    }
    // (the sink never asks to stop for a script)
    trawl_core::parse::tokenize_html5ever(html, sink())
        .found
        .into_inner()
}

struct Sink<F> {
    resolve: F,
    max: usize,
    /// the links kept, as strings
    seen: RefCell<HashSet<String>>,
    found: RefCell<Found>,
    /// whether it is inside a raw-text element (nothing in it is markup)
    raw: RawText,
    /// open `<svg>`/`<math>` elements: in foreign content `<title>` and `<style>` are
    /// ordinary elements (an SVG icon's `<title/>` is not the start of raw text)
    foreign: Cell<u32>,
}

fn attr(tag: &Tag, name: html5ever::LocalName) -> Option<&str> {
    tag.attrs
        .iter()
        .find(|a| a.name.local == name)
        .map(|a| &*a.value)
}

fn has_token(list: &str, token: &str) -> bool {
    list.split(|c: char| c.is_ascii_whitespace() || c == ',')
        .any(|t| t.eq_ignore_ascii_case(token))
}

impl<F: Fn(&str) -> Option<Url>> Sink<F> {
    fn anchor(&self, tag: &Tag) {
        let Some(href) = attr(tag, local_name!("href")) else {
            return;
        };
        if attr(tag, local_name!("rel")).is_some_and(|r| has_token(r, "nofollow")) {
            return;
        }
        let Some(url) = (self.resolve)(href) else {
            return;
        };
        let mut seen = self.seen.borrow_mut();
        let mut found = self.found.borrow_mut();
        if seen.contains(url.as_str()) {
            return;
        }
        if found.urls.len() >= self.max {
            found.left_out += 1;
            return;
        }
        seen.insert(url.to_string());
        found.urls.push(url);
    }

    fn meta(&self, tag: &Tag) {
        let robots =
            attr(tag, local_name!("name")).is_some_and(|n| n.eq_ignore_ascii_case("robots"));
        if robots
            && attr(tag, local_name!("content"))
                .is_some_and(|c| has_token(c, "nofollow") || has_token(c, "none"))
        {
            self.found.borrow_mut().nofollow_page = true;
        }
    }
}

impl<F: Fn(&str) -> Option<Url>> TokenSink for Sink<F> {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind == TagKind::EndTag {
            self.raw.end();
            if matches!(tag.name, local_name!("svg") | local_name!("math")) {
                self.foreign.set(self.foreign.get().saturating_sub(1));
            }
            return TokenSinkResult::Continue;
        }
        match tag.name {
            local_name!("svg") | local_name!("math") if !tag.self_closing => {
                self.foreign.set(self.foreign.get() + 1);
            }
            // HTML elements that end foreign content (the tree builder's breakout list, in
            // part): an unclosed `<svg>` does not turn the rest of the page foreign
            local_name!("p")
            | local_name!("div")
            | local_name!("body")
            | local_name!("table")
            | local_name!("ul")
            | local_name!("ol")
            | local_name!("li")
            | local_name!("pre")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("span")
            | local_name!("img")
            | local_name!("br") => self.foreign.set(0),
            _ => {}
        }
        if self.foreign.get() > 0 && tag.name != local_name!("a") {
            return TokenSinkResult::Continue;
        }
        match tag.name {
            local_name!("a") => self.anchor(&tag),
            local_name!("meta") => self.meta(&tag),
            _ => {}
        }
        self.raw.start(&tag.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(html: &str, max: usize) -> Found {
        let base = Url::parse("https://a.example/dir/page").unwrap();
        scan(html, max, |h| base.join(h).ok())
    }

    #[test]
    fn anchors_in_order_once_without_nofollow_or_raw_text() {
        let f = urls(
            r#"<title><a href="/in-title"></title>
            <p><a href="/one">1</a> <A HREF="two">2</A> <a href="/one">again</a>
            <a rel="external NoFollow" href="/skipped">x</a>
            <script>document.write('<a href="/in-script">')</script>
            <style>a[href="/in-style"]{}</style>
            <textarea><a href="/in-textarea"></textarea>
            <a>no href</a><a href="/three">3</a>"#,
            10,
        );
        let got: Vec<&str> = f.urls.iter().map(|u| u.as_str()).collect();
        assert_eq!(
            got,
            [
                "https://a.example/one",
                "https://a.example/dir/two",
                "https://a.example/three"
            ]
        );
        assert_eq!(f.left_out, 0);
        assert!(!f.nofollow_page);
    }

    #[test]
    fn a_page_keeps_its_first_links_and_counts_the_rest() {
        let page: String = (0..300_000)
            .map(|i| format!("<a href=\"/p{}\">x</a>", i % 250_000))
            .collect();
        let f = urls(&page, 1000);
        assert_eq!(f.urls.len(), 1000);
        assert_eq!(f.urls[999].as_str(), "https://a.example/p999");
        // links beyond the cap are counted (repeats of kept links are not)
        assert_eq!(f.left_out, 300_000 - 1000 - 1000);
    }

    #[test]
    fn an_svg_title_is_no_raw_text() {
        let f = urls(
            r#"<svg viewBox="0 0 1 1"><title/><path d="M0"/></svg><a href="/after-icon">x</a>
            <svg><title>icon</title></svg><a href="/after-titled-icon">y</a>
            <svg><p><title><a href="/in-html-title"></title><a href="/after-title">z</a>"#,
            10,
        );
        let got: Vec<&str> = f.urls.iter().map(|u| u.path()).collect();
        assert_eq!(got, ["/after-icon", "/after-titled-icon", "/after-title"]);
    }

    #[test]
    fn robots_meta_nofollow_and_malformed_markup() {
        let f = urls(
            r#"<meta name="Robots" content="noindex, nofollow"><a href="/x">"#,
            10,
        );
        assert!(f.nofollow_page);
        let f = urls(r#"<meta name="robots" content="none">"#, 10);
        assert!(f.nofollow_page);
        // unclosed tags, stray quotes, bytes that are no markup: whatever parses is taken
        let f = urls("<div><a href='/ok'<a href=\"/b\">\u{0}<<<a href=/c>", 10);
        assert!(!f.nofollow_page);
        assert!(f.urls.iter().any(|u| u.path() == "/c"), "{:?}", f.urls);
        // nesting costs nothing: 100,000 open elements around a link
        let deep = "<div>".repeat(100_000) + "<a href=\"/deep\">";
        assert_eq!(urls(&deep, 10).urls.len(), 1);
    }
}

/// The tokenizer scan against a tree parser (scraper, what the crawler used before) on real
/// pages of `../shared/testdata` (skipped when absent): the same links, in the same order;
/// and trawl's tokenizer against html5ever's in the scan, on the same pages.
#[cfg(test)]
mod real_pages {
    use super::*;

    fn tree_links(html: &str, base: &Url) -> Vec<String> {
        let doc = scraper::Html::parse_document(html);
        let sel = scraper::Selector::parse("a[href]").expect("static selector");
        let mut seen = HashSet::new();
        doc.select(&sel)
            .filter(|a| {
                !a.value()
                    .attr("rel")
                    .is_some_and(|r| has_token(r, "nofollow"))
            })
            .filter_map(|a| a.value().attr("href"))
            .filter_map(|h| base.join(h).ok())
            .map(|u| u.to_string())
            .filter(|u| seen.insert(u.clone()))
            .collect()
    }

    #[test]
    fn the_scan_finds_what_a_tree_parser_finds() {
        // the labelled pages and every fourth WCXB page (about 740 pages, a few seconds)
        let all = trawl_core::testdata::pages(4);
        if all.is_empty() {
            return;
        }
        let base = Url::parse("https://example.org/a/b.html").unwrap();
        let (mut pages, mut same, mut links, mut missed, mut extra) =
            (0, 0, 0usize, 0usize, 0usize);
        let mut fast = 0;
        for html in &all {
            // trawl's tokenizer and html5ever's find the same links, under caps too
            super::tokenizers::same(html, usize::MAX);
            super::tokenizers::same(html, 50);
            fast += usize::from(super::tokenizers::taken(html));
            let want = tree_links(html, &base);
            let got: Vec<String> = scan(html, usize::MAX, |h| base.join(h).ok())
                .urls
                .iter()
                .map(|u| u.to_string())
                .collect();
            pages += 1;
            links += want.len();
            let w: HashSet<&String> = want.iter().collect();
            let g: HashSet<&String> = got.iter().collect();
            missed += w.difference(&g).count();
            extra += g.difference(&w).count();
            same += usize::from(want == got);
        }
        eprintln!(
            "{pages} pages: {same} with the same links in the same order; {links} links, {missed} missed, {extra} extra"
        );
        assert!(pages > 0);
        // all 1,750 pages gave the same links in the same order when this was written
        assert_eq!((missed, extra), (0, 0), "of {links} links");
        // (725 of 732 read by trawl's tokenizer when this was written)
        eprintln!("{fast} read by trawl's tokenizer");
        assert!(fast * 100 >= pages * 95, "{fast} of {pages}");
    }
}

/// trawl's tokenizer against html5ever's in the scan: the same links, the same count of those
/// left out and the same robots verdict, on hand-written and random markup (and on real
/// pages, in [`real_pages`]).
#[cfg(test)]
mod tokenizers {
    use super::*;

    /// Whether trawl's tokenizer reads `html` to its end (the scan's sink switching it).
    pub(super) fn taken(html: &str) -> bool {
        let resolve = |_: &str| None;
        let sink = Sink {
            resolve: &resolve,
            max: 0,
            seen: RefCell::new(HashSet::new()),
            found: RefCell::new(Found::default()),
            raw: RawText::default(),
            foreign: Cell::new(0),
        };
        trawl_core::parse::tokenize(html, &sink)
    }

    pub(super) fn same(html: &str, max: usize) {
        let base = Url::parse("https://a.example/dir/page").unwrap();
        let resolve = |h: &str| base.join(h).ok();
        let (f, s) = (
            scan_with(html, max, &resolve, true),
            scan_with(html, max, &resolve, false),
        );
        assert_eq!(
            (&f.urls, f.left_out, f.nofollow_page),
            (&s.urls, s.left_out, s.nofollow_page),
            "{html:?}"
        );
    }

    #[test]
    fn both_tokenizers_find_the_same_links() {
        for html in [
            r#"<a href="/a">x</a><a href='b'>y</a><a href=c>z</a><a href=/a>again</a>"#,
            r#"<A HREF="/upper" REL="NOFOLLOW">x</A><a rel="external nofollow" href="/n"><a href="/y">"#,
            r#"<a href="?q=1&amp;r=2&copy=3&lt">x</a><a href="/&#x41;&#66;">y</a>"#,
            r#"<script>var s = '<a href="/in-script">'; if (a<b) {}</script><a href="/after">"#,
            r#"<script><!--<script>'<a href="/escaped">'</script>--></script><a href="/x">"#,
            r#"<title><a href="/in-title"></title><textarea><a href="/ta"></textarea><a href="/t">"#,
            r#"<style>a[href="/css"]{}</style><noscript><a href="/ns"></noscript><a href="/s">"#,
            r#"<svg><title/><a href="/svg-a"/></svg><svg><style>x</style></svg><a href="/z">"#,
            r#"<!-- <a href="/commented"> --><!DOCTYPE html><?xml x?><a href="/c">"#,
            "<meta name=robots content='noindex,nofollow'><a href=\"/m\">",
            "<a href=\"/crlf\r\nx\">\r<a href=/bom>\u{feff}",
            // left to html5ever's tokenizer: NUL, CDATA, an unfinished tag, plaintext
            "<a href=/nul>\u{0}<a href=/after-nul>",
            "<svg><![CDATA[<a href=/cdata>]]></svg><a href=/after-cdata>",
            "<a href=/ok><a href=\"/unfinished",
            "<a href=/before><plaintext><a href=/in-plaintext>",
        ] {
            same(html, 10);
            same(html, 1);
        }
        assert!(taken(
            r#"<script><!--<script>'<a href="/x">'</script>--></script>"#
        ));
        assert!(!taken("<a href=/before><plaintext><a href=/in-plaintext>"));
    }

    #[test]
    fn both_tokenizers_find_the_same_links_in_random_markup() {
        let (mut fast, mut total) = (0, 0);
        for html in trawl_core::testdata::random_markup(3000) {
            same(&html, 10);
            same(&html, 1);
            total += 1;
            fast += usize::from(taken(&html));
        }
        eprintln!("{total} documents, {fast} read by trawl's tokenizer");
        assert!(fast * 10 >= total * 6, "{fast} of {total}");
    }
}
