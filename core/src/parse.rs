//! The HTML parser of every stage that builds a tree (extraction, the crawler's rendering
//! decision): html5ever's tree builder fed by a tokenizer of our own.
//!
//! html5ever's tokenizer reads tag and attribute names one character at a time through its
//! buffer queue, and appends each to a growing string: on the pages extraction parses (after
//! its pre-parse pass) that was a third of the parse. [`parse_document`] tokenizes the markup a
//! slice at a time instead (a name or a value is one copy) and hands the tokens to
//! html5ever's own [`TreeBuilder`], so the tree is the one html5ever builds: the same
//! insertion modes, foster parenting, adoption agency and quirks.
//!
//! The tokenizer follows html5ever's (WHATWG HTML 13.2.5) on the markup it handles: text and
//! character references (named, with html5ever's longest-prefix and attribute rules, and
//! numeric), start and end tags with attributes in every quoting, the raw-text and RCDATA
//! elements the tree builder switches it to (`<title>`, `<textarea>`, `<style>`,
//! `<noscript>`, ...), scripts with their escaped and double-escaped stretches (`<!--`,
//! `<script>` inside them), comments (bogus ones too: `<?xml ...?>`) and the doctypes pages
//! declare. Anything else (a CDATA section, a comment's rare forms, a NUL byte, an unfinished
//! tag, `<plaintext>`) gives the page back to html5ever's tokenizer from its start: 5 of 845
//! pages as extraction strips them, 6 of 845 as served. [`check`] compares the two trees:
//! the tests here, extraction's on its stripped pages, and the `html_parse` fuzz target;
//! [`check_tokens`] the two token streams a sink without a tree gets ([`tokenize`] feeds the
//! crawler's link scan): the tests here and the same fuzz target.
//! (The tokenizer's own parse errors are not reported: `Html::errors` holds the tree
//! builder's only. Nothing in trawl reads them.)

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    CharacterTokens, CommentToken, Doctype, DoctypeToken, EOFToken, EndTag, ParseError, StartTag,
    Tag, TagKind, TagToken, Token, TokenSink, TokenSinkResult,
};
use html5ever::tree_builder::{TreeBuilder, TreeSink};
use html5ever::{local_name, ns, Attribute, LocalName, QualName};
use scraper::{Html, HtmlTreeSink};

/// Parses a page as html5ever does (the same tree), faster on ordinary markup.
pub fn parse_document(html: &str) -> Html {
    fast(html).unwrap_or_else(|| slow(html))
}

/// A document whose tree has room for the nodes the markup will make: one `<` per element
/// or end tag, about as many text nodes, and the elements the tree builder adds (`<tbody>`,
/// formatting elements reopened). Growing the tree copies every node (a tag count alone
/// left 48 of 100 pages growing it).
fn new_document(html: &str) -> Html {
    let mut doc = Html::new_document();
    let tags = memchr::memchr_iter(b'<', html.as_bytes()).count();
    doc.tree = ego_tree::Tree::with_capacity(scraper::Node::Document, tags + tags / 2 + 64);
    doc
}

/// Parses `html` with both tokenizers; panics when both take it and the trees (or quirks
/// modes) differ. Returns whether trawl's took it. (For tests and the `html_parse` fuzz
/// target.)
pub fn check(html: &str) -> bool {
    let Some(f) = fast(html) else { return false };
    let s = slow(html);
    assert_eq!(f.html(), s.html(), "trees differ for {html:?}");
    assert_eq!(
        f.quirks_mode, s.quirks_mode,
        "quirks modes differ for {html:?}"
    );
    true
}

/// Tokenizes `html` with both tokenizers into a sink without a tree (one that switches them
/// to raw text by the element's name alone, as the crawler's link scan does); panics when
/// both take it and the token streams differ (text runs joined, parse errors left out: trawl's
/// tokenizer sends only those the tree builder reads). Returns whether trawl's took it. (For
/// tests and the `html_parse` fuzz target.)
pub fn check_tokens(html: &str) -> bool {
    let fast = Recorder::default();
    if !tokenize(html, &fast) {
        return false;
    }
    let slow = tokenize_html5ever(html, Recorder::default());
    let (f, s) = (fast.tokens.into_inner(), slow.tokens.into_inner());
    if f != s {
        // the first token that differs, and the markup's length: whole pages are long
        let at = f.iter().zip(&s).take_while(|(a, b)| a == b).count();
        panic!(
            "token streams differ at token {at} of {} (html5ever's: {}) in {} bytes of markup \
             starting {:?}: trawl's {:?}, html5ever's {:?}",
            f.len(),
            s.len(),
            html.len(),
            html.chars().take(80).collect::<String>(),
            f.get(at.saturating_sub(1)..(at + 2).min(f.len())),
            s.get(at.saturating_sub(1)..(at + 2).min(s.len())),
        );
    }
    true
}

/// The tokens a sink without a tree is handed, as text ([`check_tokens`]).
#[derive(Default)]
struct Recorder {
    tokens: std::cell::RefCell<Vec<String>>,
    raw: RawText,
}

impl TokenSink for Recorder {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut tokens = self.tokens.borrow_mut();
        match token {
            ParseError(_) => {}
            CharacterTokens(t) => match tokens.last_mut().filter(|l| l.starts_with("text ")) {
                Some(last) => last.push_str(&t),
                None => tokens.push(format!("text {t}")),
            },
            TagToken(tag) => {
                // (written out: a tendril's `Debug` names its storage, which differs)
                let attrs: Vec<String> = tag
                    .attrs
                    .iter()
                    .map(|a| format!("{}={:?}", &*a.name.local, &*a.value))
                    .collect();
                tokens.push(format!(
                    "{:?} {} {attrs:?} self_closing={} duplicates={}",
                    tag.kind, &*tag.name, tag.self_closing, tag.had_duplicate_attributes
                ));
                if tag.kind == EndTag {
                    self.raw.end();
                    return TokenSinkResult::Continue;
                }
                return self.raw.start(&tag.name);
            }
            CommentToken(c) => tokens.push(format!("comment {:?}", &*c)),
            DoctypeToken(d) => {
                let part = |p: &Option<StrTendril>| p.as_deref().map(str::to_string);
                tokens.push(format!(
                    "doctype {:?} {:?} {:?} quirks={}",
                    part(&d.name),
                    part(&d.public_id),
                    part(&d.system_id),
                    d.force_quirks
                ));
            }
            other => tokens.push(format!("{other:?}")),
        }
        TokenSinkResult::Continue
    }
}

/// The raw-text switching of a sink without a tree: a start tag of an element whose content
/// is not markup (`<script>`, `<style>`, `<title>`, `<textarea>`, ...) switches the tokenizer
/// to raw text or RCDATA, by the name alone (the tree builder also weighs where the element
/// stands), until an end tag; `<plaintext>` asks for the state neither sink handles.
#[derive(Debug, Default)]
pub struct RawText {
    inside: std::cell::Cell<bool>,
}

impl RawText {
    /// What the sink answers a start tag named `name` with.
    pub fn start(&self, name: &LocalName) -> TokenSinkResult<()> {
        let kind = match *name {
            local_name!("script") => RawKind::ScriptData,
            local_name!("style")
            | local_name!("xmp")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("noscript") => RawKind::Rawtext,
            local_name!("textarea") | local_name!("title") => RawKind::Rcdata,
            local_name!("plaintext") => return TokenSinkResult::Plaintext,
            _ => return TokenSinkResult::Continue,
        };
        if self.inside.replace(true) {
            TokenSinkResult::Continue
        } else {
            TokenSinkResult::RawData(kind)
        }
    }

    /// An end tag: raw text, if the tokenizer was in it, has ended.
    pub fn end(&self) {
        self.inside.set(false);
    }
}

/// html5ever's tokenizer over all of `html` into `sink`, which is handed back (for a sink
/// that never asks the tokenizer to stop for a script: one feed reads everything).
pub fn tokenize_html5ever<S: TokenSink>(html: &str, sink: S) -> S {
    let t = html5ever::tokenizer::Tokenizer::new(sink, Default::default());
    let input = html5ever::tokenizer::BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = t.feed(&input);
    t.end();
    t.sink
}

/// html5ever's own tokenizer (into a tree sized as [`parse_document`]'s).
pub fn slow(html: &str) -> Html {
    html5ever::driver::parse_document(HtmlTreeSink::new(new_document(html)), Default::default())
        .one(html)
}

/// trawl's tokenizer into html5ever's tree builder; `None` when the markup needs a state it
/// does not handle.
pub fn fast(html: &str) -> Option<Html> {
    let tb = TreeBuilder::new(HtmlTreeSink::new(new_document(html)), Default::default());
    if !tokenize(html, &tb) {
        return None;
    }
    tb.end();
    Some(tb.sink.finish())
}

/// Hands the tokens of `html` to `sink` as html5ever's tokenizer would (the sink switches it
/// to raw text as html5ever's sinks do, with [`TokenSinkResult::RawData`]), up to the end of
/// file. `false` when the markup needs a state this tokenizer leaves to html5ever's (see the
/// module's comment): the sink has then seen the tokens before that point, and the caller
/// starts over with html5ever's tokenizer and a fresh sink.
pub fn tokenize<S: TokenSink>(html: &str, sink: &S) -> bool {
    let bytes = html.as_bytes();
    if memchr::memchr(0, bytes).is_some() {
        return false;
    }
    // the input stream's preprocessing: CR LF and CR alone are LF
    let owned;
    let html = if memchr::memchr(b'\r', bytes).is_some() {
        owned = html.replace("\r\n", "\n").replace('\r', "\n");
        owned.as_str()
    } else {
        html
    };
    let html = html.strip_prefix('\u{feff}').unwrap_or(html);
    let mut t = Tokenizer {
        s: html,
        b: html.as_bytes(),
        pos: 0,
        text: StrTendril::new(),
        sink,
        last_start: None,
    };
    t.run().is_some()
}

struct Tokenizer<'a, S: TokenSink> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Text read and not yet handed on.
    text: StrTendril,
    sink: &'a S,
    /// The last start tag's name (the end of a raw-text element is its end tag).
    last_start: Option<LocalName>,
}

fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\x0C' | b' ')
}

/// Lowercases ASCII letters only (html5ever's tag and attribute names).
fn lower(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().any(|c| c.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(s.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// A decoded character reference.
struct CharRef {
    chars: [char; 2],
    /// How many of `chars` it is.
    n: usize,
    /// The bytes it took after the `&`.
    len: usize,
    /// Whether html5ever reports a parse error for it (a missing `;`, a value out of range).
    error: bool,
}

impl<S: TokenSink> Tokenizer<'_, S> {
    fn run(&mut self) -> Option<()> {
        loop {
            let Some(off) = memchr::memchr2(b'<', b'&', &self.b[self.pos..]) else {
                self.text.push_slice(&self.s[self.pos..]);
                self.flush();
                self.emit(EOFToken)?;
                return Some(());
            };
            let at = self.pos + off;
            self.text.push_slice(&self.s[self.pos..at]);
            if self.b[at] == b'&' {
                self.pos = at + 1 + self.text_ref(self.b, at + 1);
                continue;
            }
            // '<'
            match self.b.get(at + 1) {
                Some(c) if c.is_ascii_alphabetic() => {
                    self.flush();
                    self.pos = at + 1;
                    self.tag(StartTag)?;
                }
                Some(b'/') => match self.b.get(at + 2)? {
                    c if c.is_ascii_alphabetic() => {
                        self.flush();
                        self.pos = at + 2;
                        self.tag(EndTag)?;
                    }
                    // `</>` is nothing but a parse error
                    b'>' => {
                        self.flush();
                        self.error();
                        self.pos = at + 3;
                    }
                    // `</ p>`: a comment to the next `>`
                    _ => {
                        self.flush();
                        self.comment(at + 2)?;
                    }
                },
                Some(b'!') => {
                    self.flush();
                    self.pos = at + 2;
                    if self.b[at + 2..].starts_with(b"--") {
                        self.comment_block(at + 4)?;
                    } else {
                        self.doctype()?;
                    }
                }
                // `<?xml ...?>`: a comment to the next `>`, its `?` included
                Some(b'?') => {
                    self.flush();
                    self.comment(at + 1)?;
                }
                // a `<` that opens nothing is text
                _ => {
                    self.text.push_char('<');
                    self.pos = at + 1;
                }
            }
        }
    }

    /// The character reference after an `&` in text (`i` the byte after it), appended to the
    /// text; returns the bytes it took after the `&`. A parse error html5ever reports for it
    /// goes to the tree builder as html5ever sends it, before the characters: it ends the
    /// tree builder's skipping of a newline right after `<pre>`, `<listing>` or
    /// `<textarea>` (`<pre>&#10` keeps its newline, `<pre>&#10;` does not).
    fn text_ref(&mut self, b: &[u8], i: usize) -> usize {
        let Some(r) = char_ref(b, i, false) else {
            self.text.push_char('&');
            return 0;
        };
        if r.error && self.text.is_empty() {
            self.error();
        }
        for c in &r.chars[..r.n] {
            self.text.push_char(*c);
        }
        r.len
    }

    /// A parse error, as html5ever's tokenizer reports it (the message is not kept).
    fn error(&mut self) {
        let _ = self
            .sink
            .process_token(ParseError(std::borrow::Cow::Borrowed("")), 1);
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            // (text never switches the tokenizer's state)
            let _ = self.sink.process_token(CharacterTokens(text), 1);
        }
    }

    /// Hands a token to the tree builder; `None` when it asks for a state not handled here.
    fn emit(&mut self, token: Token) -> Option<Option<RawKind>> {
        match self.sink.process_token(token, 1) {
            TokenSinkResult::Continue
            | TokenSinkResult::Script(_)
            | TokenSinkResult::EncodingIndicator(_) => Some(None),
            TokenSinkResult::RawData(kind) => Some(Some(kind)),
            TokenSinkResult::Plaintext => None,
        }
    }

    /// A tag from its name's first letter (at `pos`) to its `>`, emitted; then the raw text
    /// of an element whose content is not markup, when the tree builder says so.
    fn tag(&mut self, kind: TagKind) -> Option<()> {
        let (b, s) = (self.b, self.s);
        let start = self.pos;
        let mut i = start;
        while i < b.len() && !is_space(b[i]) && b[i] != b'/' && b[i] != b'>' {
            i += 1;
        }
        let name = LocalName::from(&*lower(&s[start..i]));
        self.pos = i;
        self.rest_of_tag(kind, name)
    }

    /// The attributes and the end of a tag whose name is read (`pos` just after it).
    fn rest_of_tag(&mut self, kind: TagKind, name: LocalName) -> Option<()> {
        let (b, s) = (self.b, self.s);
        let mut i = self.pos;
        let mut attrs: Vec<Attribute> = Vec::new();
        let mut dup = false;
        let mut self_closing = false;
        let mut push = |attrs: &mut Vec<Attribute>, name: &str, value: StrTendril| {
            let local = LocalName::from(&*lower(name));
            if attrs.iter().any(|a| a.name.local == local) {
                dup = true;
            } else {
                attrs.push(Attribute {
                    name: QualName::new(None, ns!(), local),
                    value,
                });
            }
        };
        // before an attribute's name
        loop {
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            match b.get(i)? {
                b'>' => {
                    i += 1;
                    break;
                }
                b'/' => {
                    if b.get(i + 1)? == &b'>' {
                        self_closing = true;
                        i += 2;
                        break;
                    }
                    i += 1;
                    continue;
                }
                _ => {}
            }
            // the name: its first character may be `=`
            let n0 = i;
            i += 1;
            while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
                i += 1;
            }
            let aname = &s[n0..i];
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            if b.get(i)? != &b'=' {
                // no value (`/`, `>` or the next name follow)
                push(&mut attrs, aname, StrTendril::new());
                continue;
            }
            i += 1;
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            let value = match b.get(i)? {
                q @ (b'"' | b'\'') => {
                    let q = *q;
                    let mut v = StrTendril::new();
                    i += 1;
                    loop {
                        let off = memchr::memchr2(q, b'&', &b[i..])?;
                        v.push_slice(&s[i..i + off]);
                        i += off;
                        if b[i] == q {
                            i += 1;
                            break;
                        }
                        i = value_ref(b, i, &mut v);
                    }
                    // after a quoted value: anything but space, `/` or `>` starts the next
                    // name (a parse error), as the tokenizer reconsumes it there
                    v
                }
                b'>' => StrTendril::new(),
                _ => {
                    let mut v = StrTendril::new();
                    loop {
                        let r = i;
                        while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'&' | b'>') {
                            i += 1;
                        }
                        v.push_slice(&s[r..i]);
                        match b.get(i)? {
                            b'&' => i = value_ref(b, i, &mut v),
                            _ => break,
                        }
                    }
                    v
                }
            };
            push(&mut attrs, aname, value);
        }
        self.pos = i;
        if kind == StartTag {
            self.last_start = Some(name.clone());
        }
        let token = TagToken(Tag {
            kind,
            name,
            self_closing,
            attrs,
            had_duplicate_attributes: dup,
        });
        match self.emit(token)? {
            None => Some(()),
            Some(raw) => self.raw(raw),
        }
    }

    /// The content of a raw-text, RCDATA or script element up to its end tag, and the end
    /// tag.
    fn raw(&mut self, kind: RawKind) -> Option<()> {
        let name = self.last_start.clone()?;
        let (b, s) = (self.b, self.s);
        let start = self.pos;
        let end = if kind == RawKind::ScriptData {
            script_end(b, start)?
        } else {
            let mut i = start;
            loop {
                let at = i + memchr::memmem::find(&b[i..], b"</")?;
                if end_tag_at(b, at, name.as_bytes()) {
                    break at;
                }
                i = at + 2;
            }
        };
        let content = &s[start..end];
        match kind {
            RawKind::Rcdata => {
                let mut i = start;
                while let Some(off) = memchr::memchr(b'&', &b[i..end]) {
                    self.text.push_slice(&s[i..i + off]);
                    i += off + 1;
                    i += self.text_ref(&b[..end], i);
                }
                self.text.push_slice(&s[i..end]);
            }
            RawKind::Rawtext => self.text.push_slice(content),
            RawKind::ScriptData => self.text.push_slice(content),
            RawKind::ScriptDataEscaped(_) => return None,
        }
        self.flush();
        self.pos = end + 2 + name.len();
        self.rest_of_tag(EndTag, name)
    }

    /// A bogus comment: its text from `from` to the next `>`.
    fn comment(&mut self, from: usize) -> Option<()> {
        let gt = from + memchr::memchr(b'>', &self.b[from..])?;
        self.pos = gt + 1;
        self.emit(CommentToken(StrTendril::from_slice(&self.s[from..gt])))?;
        Some(())
    }

    /// `<!-- ... -->` from the byte after `<!--`; the comment states' rarer paths (`<!-->`,
    /// `--!>`) are left to html5ever's tokenizer.
    fn comment_block(&mut self, start: usize) -> Option<()> {
        let rest = &self.b[start..];
        if rest.starts_with(b">") || rest.starts_with(b"->") {
            return None;
        }
        let end = start + memchr::memmem::find(rest, b"-->")?;
        if memchr::memmem::find(&self.b[start..end], b"--!").is_some() {
            return None;
        }
        self.pos = end + 3;
        self.emit(CommentToken(StrTendril::from_slice(&self.s[start..end])))?;
        Some(())
    }

    /// `<!DOCTYPE name>`, with a public and a system identifier or without (`pos` after
    /// `<!`); any other markup declaration is not handled here.
    fn doctype(&mut self) -> Option<()> {
        let b = self.b;
        let mut i = self.pos;
        if !b.get(i..i + 7)?.eq_ignore_ascii_case(b"doctype") {
            return None;
        }
        i += 7;
        let spaces = |i: &mut usize| {
            let s = *i;
            while *i < b.len() && is_space(b[*i]) {
                *i += 1;
            }
            *i > s
        };
        if !spaces(&mut i) {
            return None;
        }
        let n0 = i;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i == n0 {
            return None;
        }
        let name = StrTendril::from_slice(&self.s[n0..i].to_ascii_lowercase());
        let spaced = spaces(&mut i);
        let quoted = |i: &mut usize| -> Option<StrTendril> {
            spaces(i);
            let q = *b.get(*i)?;
            if q != b'"' && q != b'\'' {
                return None;
            }
            let off = memchr::memchr2(q, b'>', &b[*i + 1..])?;
            if b[*i + 1 + off] != q {
                return None;
            }
            let id = StrTendril::from_slice(&self.s[*i + 1..*i + 1 + off]);
            *i += off + 2;
            Some(id)
        };
        let (mut public_id, mut system_id) = (None, None);
        if b.get(i)? != &b'>' {
            if !spaced || i + 6 > b.len() {
                return None;
            }
            let word = &b[i..i + 6];
            i += 6;
            if word.eq_ignore_ascii_case(b"public") {
                public_id = Some(quoted(&mut i)?);
                spaces(&mut i);
                if b.get(i)? != &b'>' {
                    system_id = Some(quoted(&mut i)?);
                }
            } else if word.eq_ignore_ascii_case(b"system") {
                system_id = Some(quoted(&mut i)?);
            } else {
                return None;
            }
            spaces(&mut i);
            if b.get(i)? != &b'>' {
                return None;
            }
        }
        self.pos = i + 1;
        self.emit(DoctypeToken(Doctype {
            name: Some(name),
            public_id,
            system_id,
            force_quirks: false,
        }))?;
        Some(())
    }
}

/// Whether `</name` followed by a space, `/` or `>` starts at `at` (`name` lowercase): the
/// end tag of a raw-text element (its "appropriate end tag").
fn end_tag_at(b: &[u8], at: usize, name: &[u8]) -> bool {
    let n = at + 2 + name.len();
    b.get(at..at + 2) == Some(b"</")
        && n <= b.len()
        && b[at + 2..n].eq_ignore_ascii_case(name)
        && b.get(n).is_some_and(|c| delimits(*c))
}

/// What ends a tag's name: a space, `/` or `>`.
fn delimits(c: u8) -> bool {
    is_space(c) || c == b'/' || c == b'>'
}

/// Where a script's end tag starts, from its content's first byte at `start`, through the
/// script data states of WHATWG HTML 13.2.5.4-13.2.5.14 (html5ever's `ScriptDataEscaped`):
/// after `<!--` the script is "escaped" until `-->`, and inside that a `<script` starts a
/// "double escaped" stretch in which `</script>` does not end the script but only that
/// stretch. `None`: the script never ends.
fn script_end(b: &[u8], start: usize) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum St {
        Data,
        Escaped,
        EscapedDash,
        EscapedDashDash,
        Double,
        DoubleDash,
        DoubleDashDash,
    }
    // a run of letters from `at` and whether it is `script` followed by a delimiter; `None`
    // when the input ends inside it
    let script_word = |at: usize| -> Option<(bool, usize)> {
        let mut j = at;
        while j < b.len() && b[j].is_ascii_alphabetic() {
            j += 1;
        }
        let c = *b.get(j)?;
        Some((delimits(c) && b[at..j].eq_ignore_ascii_case(b"script"), j))
    };
    let mut st = St::Data;
    let mut i = start;
    loop {
        if st == St::Data {
            i += memchr::memchr(b'<', b.get(i..)?)?;
            if end_tag_at(b, i, b"script") {
                return Some(i);
            }
            if b[i..].starts_with(b"<!--") {
                st = St::EscapedDashDash;
                i += 4;
            } else {
                i += 1;
            }
            continue;
        }
        let c = *b.get(i)?;
        let double = matches!(st, St::Double | St::DoubleDash | St::DoubleDashDash);
        match c {
            b'-' => {
                st = match st {
                    St::Escaped => St::EscapedDash,
                    St::EscapedDash | St::EscapedDashDash => St::EscapedDashDash,
                    St::Double => St::DoubleDash,
                    _ => St::DoubleDashDash,
                };
                i += 1;
            }
            b'>' if matches!(st, St::EscapedDashDash | St::DoubleDashDash) => {
                st = St::Data;
                i += 1;
            }
            b'<' if !double => {
                if b.get(i + 1) == Some(&b'/') {
                    if end_tag_at(b, i, b"script") {
                        return Some(i);
                    }
                    st = St::Escaped;
                    i += 2;
                } else if b.get(i + 1)?.is_ascii_alphabetic() {
                    let (script, j) = script_word(i + 1)?;
                    st = if script { St::Double } else { St::Escaped };
                    i = if script { j + 1 } else { j };
                } else {
                    st = St::Escaped;
                    i += 1;
                }
            }
            b'<' => {
                if b.get(i + 1) == Some(&b'/') {
                    let (script, j) = script_word(i + 2)?;
                    st = if script { St::Escaped } else { St::Double };
                    i = if script { j + 1 } else { j };
                } else {
                    st = St::Double;
                    i += 1;
                }
            }
            _ => {
                st = if double { St::Double } else { St::Escaped };
                i += 1;
            }
        }
    }
}

/// A character reference in an attribute value at `i` (its `&`), appended to `v`; returns
/// where reading goes on.
fn value_ref(b: &[u8], i: usize, v: &mut StrTendril) -> usize {
    match char_ref(b, i + 1, true) {
        Some(r) => {
            for c in &r.chars[..r.n] {
                v.push_char(*c);
            }
            i + 1 + r.len
        }
        None => {
            v.push_char('&');
            i + 1
        }
    }
}

/// The character reference after an `&` (at `i`, the byte after it), as html5ever's
/// tokenizer reads it: `None` when the `&` is text (the bytes after it are then read
/// again as text).
fn char_ref(b: &[u8], i: usize, in_attribute: bool) -> Option<CharRef> {
    match b.get(i)? {
        b'#' => numeric(b, i + 1),
        c if c.is_ascii_alphanumeric() => named(b, i, in_attribute),
        _ => None,
    }
}

fn numeric(b: &[u8], mut i: usize) -> Option<CharRef> {
    let start = i - 1;
    let base = match b.get(i) {
        Some(b'x' | b'X') => {
            i += 1;
            16
        }
        _ => 10,
    };
    let (mut num, mut too_big, mut digits) = (0u32, false, 0);
    while let Some(d) = b.get(i).and_then(|c| (*c as char).to_digit(base)) {
        num = num.wrapping_mul(base);
        if num > 0x10FFFF {
            too_big = true;
        }
        num = num.wrapping_add(d);
        digits += 1;
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    let semicolon = b.get(i) == Some(&b';');
    if semicolon {
        i += 1;
    }
    let (c, bad) = match num {
        n if n > 0x10FFFF || too_big => ('\u{fffd}', true),
        0x00 | 0xD800..=0xDFFF => ('\u{fffd}', true),
        0x80..=0x9F => (
            html5ever::data::C1_REPLACEMENTS[(num - 0x80) as usize]
                .unwrap_or_else(|| char::from_u32(num).unwrap_or('\u{fffd}')),
            true,
        ),
        0x01..=0x08 | 0x0B | 0x0D..=0x1F | 0x7F | 0xFDD0..=0xFDEF => (char::from_u32(num)?, true),
        n => (char::from_u32(n)?, n & 0xFFFE == 0xFFFE),
    };
    Some(CharRef {
        chars: [c, '\0'],
        n: 1,
        len: i - start,
        error: bad || !semicolon,
    })
}

fn named(b: &[u8], i: usize, in_attribute: bool) -> Option<CharRef> {
    let table = &html5ever::data::NAMED_ENTITIES;
    // grow the name while it is an entity or the start of one (the table holds every
    // prefix, mapped to (0, 0)); remember the longest whole entity
    let mut found: Option<(usize, (u32, u32))> = None;
    let mut end = i;
    while end < b.len() && b[end].is_ascii() {
        // (ASCII, so a char boundary)
        let name = std::str::from_utf8(&b[i..=end]).ok()?;
        match table.get(name) {
            Some(&m) => {
                if m.0 != 0 {
                    found = Some((end + 1 - i, m));
                }
                end += 1;
            }
            None => break,
        }
    }
    let (len, (c1, c2)) = found?;
    let last = b[i + len - 1];
    // the byte after the match, if the name read went on past it
    let next = (i + len < b.len() && i + len <= end).then(|| b[i + len]);
    if last != b';' && in_attribute && next.is_some_and(|c| c == b'=' || c.is_ascii_alphanumeric())
    {
        return None;
    }
    let c1 = char::from_u32(c1)?;
    let (chars, n) = match char::from_u32(c2).filter(|_| c2 != 0) {
        Some(c2) => ([c1, c2], 2),
        None => ([c1, '\0'], 1),
    };
    Some(CharRef {
        chars,
        n,
        len,
        error: last != b';',
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both tokenizers give the same tree, and the same tokens to a sink without one.
    fn same(html: &str) -> bool {
        let tree = check(html);
        let tokens = check_tokens(html);
        tree && tokens
    }

    #[test]
    fn markup_parses_to_html5evers_tree() {
        let handled = [
            "<!DOCTYPE html><html><head><title>A &amp; B</title></head><body><p class=x id='y' data-z=\"1\">Hi</p></body></html>",
            "<!doctype HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\"><p>x",
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"><table><tr><td>a<p>b</table>",
            "<!DOCTYPE html SYSTEM 'about:legacy-compat'><p>x</p>",
            "<p>AT&T &copy2024 &notit; &notin; &amp &#39; &#x27; &#X41; &#; &#x; &#128; &#0; &#xD800; &#99999999999; &nbsp;x</p>",
            "<a title='&copy=1' data-x=\"&amp=\" alt=&notit; href=a&b>&lt;</a>",
            "<P CLASS=A Class=b>dup</P><DIV/><br/><img src=x alt=\"a\"title=b>",
            "<div a b = c d=\"e\"f='g'>x</div><div =x>y</div><div x/y>z</div>",
            "a < b <3 <> <<p>c</p>",
            "<title>a <b> &amp; </titlex> </title>x",
            "<textarea>\n\nline &lt; <p></TEXTAREA >after",
            "<pre>\nfirst\n</pre><pre>&#10;x</pre><listing>\ny</listing>",
            "<style>p > a { x: '</p>' }</style><p>x",
            "<noscript><p>no</p></noscript><p>y",
            "<script type=\"application/ld+json\">{\"a\": \"</scrip\"}</script><p>z",
            "<table><tr><td>1</td></tr>text<tr><td>2</table><b><i>x</b>y</i>",
            "<svg><title>t</title><style>s</style><p>x</svg>",
            "<math><mi>x</mi></math><select><option>a<option>b</select>",
            "<ul><li>a<li>b</ul><dl><dt>x<dd>y</dl><h1>a<h2>b</h1>",
            "<iframe>inner <b></iframe><xmp><b></xmp><noembed>x</noembed>",
            "<body>\r\n<p>crlf\r</p>\r</body>",
            "\u{feff}<p>bom</p>",
            "<p>unicode: héllo 日本 &eacute;&Eacute;&acE;</p>",
            "<frameset><frame></frameset>",
            "<meta charset=utf-8><meta http-equiv=Content-Type content='text/html; charset=latin1'><p>x",
            "",
            "text only",
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><!DOCTYPE html><p>x",
            "<!-- c --><p>x<!-- a --- --><!----><!-- <!-- x -->y<!-- - -->",
            "<p>a</ p>b</>c</3 x>",
            "<script><!-- </script> --></script>x",
            "<script><!-- <script> </script> --> </script>y<script>a<!--b--></script>z",
            "<script><!--<script></script>--></script>w</script>v",
            "<script><!-- <SCRIPT>x</Script > - -> --></script>u",
            "<script><!-- a <b </ </x <scripty> -- --> <!--> </script>t",
            "<script>if (a <!--b) x = '</scr' + 'ipt>'</script>s",
            "<pre\n<b>&#10<>x</pre><pre>&#10;y</pre><pre>&#x0A z</pre><pre></>\nw</pre>",
            "<textarea>&#10\nv</textarea><textarea>&#10;u</textarea><listing>&#13\nt</listing>",
            "<pre>&#0\ns</pre><pre>&notit\nr</pre><pre>&amp\nq</pre><pre>&#xFFFE;\np</pre>",
        ];
        for h in handled {
            assert!(same(h), "fell back on {h:?}");
        }
        // markup the fast tokenizer leaves to html5ever's, which must still parse it
        for h in [
            "<!-->x",
            "<!-- a --!> b -->",
            "<p>a</",
            "<p>a\0b</p>",
            "<p class=\"x",
            "<plaintext><p>x",
            "<script><!-- <script> </script>",
            "<script><!-- <scr",
            "<title>never ends",
            "<svg><![CDATA[x]]></svg>",
        ] {
            assert!(fast(h).is_none(), "handled {h:?}");
            let _ = parse_document(h);
        }
    }

    /// Markup put together at random from pieces that exercise the tree builder's modes and
    /// the tokenizer's states: every one the fast tokenizer takes must give html5ever's
    /// tree, and it must take most of them (it leaves a raw-text element or a script that never
    /// ends to html5ever's).
    #[test]
    fn random_markup_parses_to_html5evers_tree() {
        let (mut taken, mut total) = (0, 0);
        for h in crate::testdata::random_markup(3000) {
            total += 1;
            if same(&h) {
                taken += 1;
            }
        }
        assert!(
            taken * 10 >= total * 6,
            "the fast tokenizer took {taken} of {total}"
        );
    }

    /// Every labelled page and a third of the WCXB pages, as served (scripts, styles,
    /// comments and all), parse to html5ever's tree (needs `../shared/testdata`; skipped
    /// without it). Extraction's strip tests do the same on the pages as it strips them.
    #[test]
    fn a_page_parses_to_html5evers_tree() {
        let (mut taken, mut total) = (0, 0);
        for html in crate::testdata::pages(3) {
            total += 1;
            if same(&html) {
                taken += 1;
            }
        }
        if total > 0 {
            assert!(
                taken * 20 >= total * 17,
                "the fast tokenizer took {taken} of {total}"
            );
        }
        eprintln!("the fast tokenizer took {taken} of {total} pages");
    }
}
