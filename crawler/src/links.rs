//! A page's links, read with the HTML tokenizer alone: no tree is built, so memory grows with
//! the links kept (not with the page: a link farm of 300,000 anchors costs its first
//! `max_links_per_page`), and time is linear in the page's size whatever its nesting.
//!
//! Like the tree builder, the tokenizer is told which elements hold raw text (script, style,
//! textarea, ...), so an `<a href>` written inside a script string is not a link.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use html5ever::local_name;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
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
    let sink = Sink {
        resolve,
        max,
        seen: RefCell::new(HashSet::new()),
        found: RefCell::new(Found::default()),
        raw: Cell::new(false),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // the sink never asks to stop for a script, so one feed reads everything
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.found.into_inner()
}

struct Sink<F> {
    resolve: F,
    max: usize,
    /// the links kept, as strings
    seen: RefCell<HashSet<String>>,
    found: RefCell<Found>,
    /// inside a raw-text element (nothing in it is markup)
    raw: Cell<bool>,
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
            self.raw.set(false);
            return TokenSinkResult::Continue;
        }
        let raw = match tag.name {
            local_name!("a") => {
                self.anchor(&tag);
                None
            }
            local_name!("meta") => {
                self.meta(&tag);
                None
            }
            local_name!("script") => Some(RawKind::ScriptData),
            local_name!("style")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript") => Some(RawKind::Rawtext),
            local_name!("textarea") | local_name!("title") => Some(RawKind::Rcdata),
            local_name!("plaintext") => return TokenSinkResult::Plaintext,
            _ => None,
        };
        match raw {
            Some(kind) if !self.raw.get() => {
                self.raw.set(true);
                TokenSinkResult::RawData(kind)
            }
            _ => TokenSinkResult::Continue,
        }
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
