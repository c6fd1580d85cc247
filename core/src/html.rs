//! A linear pre-scan of HTML that measures how deep the parsed tree would nest, before any
//! parser sees the page.
//!
//! html5ever checks element scopes by walking its stack of open elements, so a page nested
//! `n` deep costs `O(n^2)` to parse (80,000 `<ul><li>` took minutes), and every recursive
//! walk over the tree afterwards needs stack in proportion to the depth. Browsers stop
//! nesting at 512. [`max_depth_exceeds`] follows the tree builder closely enough to tell a
//! deep page from a page of unclosed `<p>`, `<li>` or `<td>` (which the parser closes
//! itself), in one pass over the bytes; the stages drop a page that exceeds the cap with
//! its own reason instead of parsing it.

/// The depth at which browsers stop nesting elements (Chromium, WebKit and Firefox all
/// flatten beyond it): the default cap of the stages that parse pages.
pub const BROWSER_MAX_DEPTH: usize = 512;

/// Elements without content: never on the stack of open elements.
fn void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"keygen"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
            | b"basefont"
            | b"bgsound"
            | b"frame"
            | b"image"
            | b"command"
    )
}

/// Elements whose content is raw text up to their own end tag.
fn raw_text(name: &[u8]) -> bool {
    matches!(
        name,
        b"script"
            | b"style"
            | b"textarea"
            | b"title"
            | b"xmp"
            | b"iframe"
            | b"noembed"
            | b"noframes"
            | b"plaintext"
    )
}

/// Start tags that close an open `<p>` (HTML's "close a p element in button scope").
fn closes_p(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"center"
            | b"details"
            | b"dialog"
            | b"dir"
            | b"div"
            | b"dl"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"header"
            | b"hgroup"
            | b"hr"
            | b"li"
            | b"main"
            | b"menu"
            | b"nav"
            | b"ol"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"ul"
            | b"dd"
            | b"dt"
            | b"listing"
            | b"xmp"
            | b"plaintext"
    )
}

/// For a start tag that implicitly closes an open element of its own family: the family,
/// and the elements at which the search down the stack stops.
fn implied_close(name: &[u8]) -> Option<(&'static [&'static str], &'static [&'static str])> {
    const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];
    Some(match name {
        b"li" => (&["li"], &["ul", "ol", "menu", "table", "td", "th", "body"]),
        b"dd" | b"dt" => (&["dd", "dt"], &["dl", "table", "td", "th", "body"]),
        b"tr" => (&["tr"], &["table", "tbody", "thead", "tfoot"]),
        b"td" | b"th" => (&["td", "th"], &["tr", "table"]),
        b"tbody" | b"thead" | b"tfoot" => (&["tbody", "thead", "tfoot"], &["table"]),
        b"option" => (&["option"], &["select", "datalist", "optgroup", "body"]),
        b"optgroup" => (&["optgroup", "option"], &["select", "body"]),
        b"a" => (&["a"], &["table", "td", "th", "body"]),
        b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" => (HEADINGS, &["body"]),
        b"rb" | b"rt" | b"rp" | b"rtc" => (&["rb", "rt", "rp", "rtc"], &["ruby", "body"]),
        b"button" => (&["button"], &["body"]),
        b"form" => (&["form"], &["body"]),
        _ => return None,
    })
}

/// At most this many elements are searched down the stack for an implied close (the search
/// is what keeps the scan linear on deep pages).
const SEARCH: usize = 64;

/// A tag name, ASCII-lowercased, as the scan keeps it: names longer than the buffer are cut
/// (custom elements; only equality between them matters, and a cut name still equals itself).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Name {
    buf: [u8; 24],
    len: u8,
}

impl Name {
    fn new(raw: &[u8]) -> Name {
        let mut buf = [0u8; 24];
        let len = raw.len().min(buf.len());
        for (d, s) in buf.iter_mut().zip(raw) {
            *d = s.to_ascii_lowercase();
        }
        Name {
            buf,
            len: len as u8,
        }
    }

    /// ASCII-lowercased bytes (a name cut inside a multi-byte character matches no list of
    /// ASCII names, as it should).
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    fn is(&self, names: &[&str]) -> bool {
        names.iter().any(|n| n.as_bytes() == self.bytes())
    }
}

/// The open-element stack of the scan, with a count per name so an end tag without an open
/// element of its name costs nothing.
#[derive(Default, Debug)]
struct Stack {
    names: Vec<Name>,
    open: rustc_hash::FxHashMap<Name, usize>,
}

impl Stack {
    fn push(&mut self, name: Name) {
        self.names.push(name);
        *self.open.entry(name).or_default() += 1;
    }

    fn pop(&mut self) {
        if let Some(n) = self.names.pop() {
            if let Some(c) = self.open.get_mut(&n) {
                *c -= 1;
            }
        }
    }

    fn open_count(&self, name: &Name) -> usize {
        self.open.get(name).copied().unwrap_or(0)
    }

    fn is_open(&self, name: &str) -> bool {
        self.open_count(&Name::new(name.as_bytes())) > 0
    }

    /// Pops down to and including the nearest element of `family`, when it is found before
    /// any of `stop` (and within [`SEARCH`] elements).
    fn close(&mut self, family: &[&str], stop: &[&str]) {
        if !family.iter().any(|f| self.is_open(f)) {
            return;
        }
        let found = self
            .names
            .iter()
            .rev()
            .take(SEARCH)
            .position(|n| n.is(family) || n.is(stop));
        if let Some(p) = found {
            let at = self.names.len() - 1 - p;
            if self.names[at].is(family) {
                while self.names.len() > at {
                    self.pop();
                }
            }
        }
    }

    /// An end tag: pops down to the nearest element of that name (ignored when none is open).
    fn end(&mut self, name: Name) {
        if self.open_count(&name) == 0 {
            return;
        }
        while let Some(&top) = self.names.last() {
            self.pop();
            if top == name {
                break;
            }
        }
    }
}

/// Whether the element named `raw_name` (any case) holds raw text up to its own end tag:
/// the tokenizer reads no tags inside it.
pub fn is_raw_text(raw_name: &[u8]) -> bool {
    raw_text(Name::new(raw_name).bytes())
}

/// The depth of the tree html5ever would build, followed tag by tag: [`max_depth_exceeds`]
/// feeds it from its own scan, and a caller that already scans every tag (the extractor's
/// pre-parse pass) feeds it from there instead of scanning the page twice.
#[derive(Debug)]
pub struct DepthScan {
    stack: Stack,
    cap: usize,
    exceeded: bool,
}

impl DepthScan {
    /// A scan that reports a depth over `cap`.
    pub fn new(cap: usize) -> DepthScan {
        DepthScan {
            stack: Stack::default(),
            cap,
            exceeded: false,
        }
    }

    /// Whether the depth went over the cap at any point so far.
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// A start tag. Returns true when its content is raw text up to its own end tag (the
    /// caller skips it: tags there are text) or, for `plaintext`, up to the end of the page.
    pub fn start(&mut self, raw_name: &[u8], self_closing: bool) -> bool {
        let name = Name::new(raw_name);
        let n = name.bytes();
        if closes_p(n) {
            self.stack
                .close(&["p"], &["button", "table", "td", "th", "body"]);
        }
        if let Some((family, stop)) = implied_close(n) {
            self.stack.close(family, stop);
        }
        if raw_text(n) {
            return true;
        }
        if !(void(n) || self_closing) {
            self.stack.push(name);
            self.exceeded |= self.stack.names.len() > self.cap;
        }
        false
    }

    /// An end tag.
    pub fn end(&mut self, raw_name: &[u8]) {
        let name = Name::new(raw_name);
        let n = name.bytes();
        if n == b"br" || n == b"p" && !self.stack.is_open("p") {
            return; // </br> and </p> without a <p> insert an element and close it
        }
        self.stack.end(name);
    }
}

/// Whether the tree html5ever would build from `html` nests deeper than `cap` elements.
/// One pass over the bytes with a stack of open element names: linear in the page size
/// whatever its shape.
pub fn max_depth_exceeds(html: &str, cap: usize) -> bool {
    let b = html.as_bytes();
    let mut depth = DepthScan::new(cap);
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'<', &b[i..]) {
        i += p + 1;
        let Some(&c) = b.get(i) else { break };
        if c == b'!' || c == b'?' {
            // comment, doctype, CDATA or processing instruction
            let end = if b[i..].starts_with(b"!--") {
                memchr::memmem::find(&b[i + 3..], b"-->").map(|e| i + 3 + e + 3)
            } else {
                memchr::memchr(b'>', &b[i..]).map(|e| i + e + 1)
            };
            match end {
                Some(e) => i = e,
                None => break,
            }
            continue;
        }
        let closing = c == b'/';
        let start = if closing { i + 1 } else { i };
        if !b.get(start).is_some_and(u8::is_ascii_alphabetic) {
            continue; // a bare '<' in text
        }
        let name_end = b[start..]
            .iter()
            .position(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'>')
            .map_or(b.len(), |e| start + e);
        let Some(tag_end) = tag_end(b, name_end) else {
            break;
        };
        let raw_name = &b[start..name_end];
        i = tag_end;
        if closing {
            depth.end(raw_name);
            continue;
        }
        if depth.start(raw_name, b[..tag_end].ends_with(b"/>")) {
            if raw_name.eq_ignore_ascii_case(b"plaintext") {
                break;
            }
            let n = Name::new(raw_name);
            i = find_end_tag(b, i, n.bytes());
        }
        if depth.exceeded() {
            return true;
        }
    }
    false
}

/// The index after the `>` that ends a tag whose name ends at `from`, honouring quoted
/// attribute values; `None` when the page ends inside the tag.
fn tag_end(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut quote = 0u8;
    while i < b.len() {
        let c = b[i];
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
        } else if c == b'>' {
            return Some(i + 1);
        } else if (c == b'"' || c == b'\'') && i > from && b[i - 1] == b'=' {
            quote = c;
        }
        i += 1;
    }
    None
}

/// The index after `</name ...>` from `from`, or the end of the page.
fn find_end_tag(b: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(p) = memchr::memmem::find(&b[i..], b"</") {
        let s = i + p + 2;
        let e = s + name.len();
        if e <= b.len()
            && b[s..e].eq_ignore_ascii_case(name)
            && b.get(e)
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/')
        {
            return memchr::memchr(b'>', &b[e..]).map_or(b.len(), |g| e + g + 1);
        }
        i = s;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_over(html: &str, cap: usize) -> bool {
        max_depth_exceeds(html, cap)
    }

    #[test]
    fn nested_lists_and_divs_are_deep() {
        assert!(depth_over(&"<ul><li>".repeat(300), 512));
        assert!(!depth_over(&"<ul><li>".repeat(200), 512));
        assert!(depth_over(&"<div>".repeat(600), 512));
        assert!(depth_over(&"<DIV class='a>b'>".repeat(600), 512));
        assert!(depth_over(&"<b>".repeat(600), 512));
    }

    #[test]
    fn implied_end_tags_do_not_count() {
        let p = format!("<html><body>{}</body></html>", "<p>para".repeat(5000));
        assert!(!depth_over(&p, 64));
        let li = format!("<ul>{}</ul>", "<li>item <div>x</div>".repeat(5000));
        assert!(!depth_over(&li, 64));
        let li_in_div = format!("<ul>{}</ul>", "<li><div>unclosed".repeat(50));
        // div is not special for li: the next li closes the div and the li
        assert!(!depth_over(&li_in_div, 64));
        let table = format!("<table>{}</table>", "<tr><td>a<td>b<th>c".repeat(5000));
        assert!(!depth_over(&table, 64));
        let dl = format!("<dl>{}</dl>", "<dt>t<dd>d".repeat(5000));
        assert!(!depth_over(&dl, 64));
        let opts = format!("<select>{}</select>", "<option>o".repeat(5000));
        assert!(!depth_over(&opts, 64));
        let p_in_span = "<span><p>text".repeat(3) + &"<p>x".repeat(5000);
        assert!(!depth_over(&p_in_span, 64));
        let anchors = "<a href=x>link".repeat(5000);
        assert!(!depth_over(&anchors, 64));
    }

    #[test]
    fn closed_elements_voids_comments_and_raw_text_do_not_count() {
        let flat =
            "<div><img src=a><br><input><span>t</span></div><!-- <div><div> -->".repeat(5000);
        assert!(!depth_over(&flat, 8));
        let svg = "<svg><path d='M0'/><circle/></svg>".repeat(1000);
        assert!(!depth_over(&svg, 8));
        let script = format!("<script>{}</script><p>after", "<div>".repeat(5000));
        assert!(!depth_over(&script, 8));
        let style = format!("<STYLE>{}</style ><p>after", "<div>".repeat(5000));
        assert!(!depth_over(&style, 8));
        let text = "a < b and c<d; 3 <4".repeat(1000);
        assert!(!depth_over(&text, 8));
    }

    #[test]
    fn truncated_and_odd_markup_ends_cleanly() {
        for html in [
            "<",
            "<div",
            "<div class='",
            "<!--",
            "<script>",
            "</",
            "<a\u{a0}b>",
            "<é>",
        ] {
            assert!(!depth_over(html, 8), "{html:?}");
        }
    }

    #[test]
    fn linear_on_a_megabyte_of_nesting() {
        let html = "<ul><li>".repeat(160_000);
        let t = std::time::Instant::now();
        assert!(depth_over(&html, 512));
        let html = "<p>x".repeat(300_000);
        assert!(!depth_over(&html, 512));
        // (a correctness test, not a timing assertion: a quadratic scan would take minutes)
        assert!(t.elapsed().as_secs() < 30);
    }
}
