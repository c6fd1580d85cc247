//! The DOM walk: choose the content root, then emit blocks as Markdown-ish text.

use std::sync::LazyLock;

use scraper::node::Node;
use scraper::{ElementRef, Html, Selector};
use trawl_core::ImageRef;

pub(crate) struct Extracted {
    pub text: String,
    pub images: Vec<ImageRef>,
    pub title: Option<String>,
    pub meta: crate::meta::PageMeta,
    pub html_lang: Option<String>,
    pub noai: bool,
    pub noimageai: bool,
    pub noindex: bool,
    /// With a chooser: `Ok` when its blocks are the text, else why the rules decided.
    pub llm: Option<Result<(), String>>,
    /// The raw markup of the body's `<noscript>` elements (empty once `extract` returns).
    pub noscript: String,
    /// The page's type and the classifier's confidence.
    pub page_type: (crate::PageType, f32),
}

/// Elements that never hold main content.
const SKIP_TAGS: &[&str] = &[
    "script", "style", "noscript", "nav", "footer", "aside", "iframe", "svg", "button", "select",
    "option", "template", "textarea", "input", "label", "head", "canvas", "object", "embed",
    "dialog", "menu",
];

static BODY: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("body").expect("static selector"));
static FIGCAPTION: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("figcaption").expect("static selector"));
static ANCHOR: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("a").expect("static selector"));
static TR: LazyLock<Selector> = LazyLock::new(|| Selector::parse("tr").expect("static selector"));

const BLOCK_TAGS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "blockquote",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "address",
    "details",
    "summary",
    "center",
    "hgroup",
];

/// Chooses the content blocks of a page for the LLM step: `(title, blocks)` to the indices
/// of the chosen blocks, or why there are none.
pub(crate) type Chooser<'a> = &'a dyn Fn(Option<&str>, &[&str]) -> Result<Vec<usize>, String>;

/// Extracts the main content. With `choose`, the page's every visible block (nothing pruned)
/// goes to it first, from the same parse; the rule-based walk runs only when it has no
/// answer (`Extracted::llm` says what happened).
/// The page's time budget ran out (checked between parsing, scoring and the walks, each
/// linear in the page's size).
#[derive(Debug)]
pub(crate) struct Overrun;

fn check(deadline: Option<std::time::Instant>) -> Result<(), Overrun> {
    match deadline {
        Some(d) if std::time::Instant::now() > d => Err(Overrun),
        _ => Ok(()),
    }
}

pub(crate) fn extract(
    html: &str,
    base_url: &str,
    keep_images: bool,
    choose: Option<Chooser<'_>>,
    deadline: Option<std::time::Instant>,
) -> Result<Extracted, Overrun> {
    let mut out = extract_parsed(html, base_url, keep_images, choose, deadline)?;
    // Pages that build their view with script often serve the whole content to readers
    // without scripts inside <noscript> (forum software, shops, single-page apps): when the
    // walk found little and the noscript blocks hold more, the page is read as a browser
    // without scripts reads it. (The parser keeps noscript content as raw text, as a
    // browser with scripts does, so it is parsed here on its own.)
    if out.llm.is_none() && out.noscript.len() >= NOSCRIPT_MIN_BYTES {
        let inner_html = format!("<html><body>{}</body></html>", out.noscript);
        let inner = extract_parsed(&inner_html, base_url, keep_images, None, deadline)?;
        let (found, inner_words) = (
            trawl_core::text::word_count(&out.text),
            trawl_core::text::word_count(&inner.text),
        );
        if inner_words >= NOSCRIPT_MIN_WORDS && inner_words > 2 * found {
            tracing::trace!(found, inner_words, "content from <noscript>");
            if inner.page_type.1 > out.page_type.1 {
                out.page_type = inner.page_type;
            }
            // the page's title above the text, but not above a thread's posts: the title
            // is the thread's name, in the metadata, and none of its posts
            let forum = out.page_type.0 == crate::PageType::Forum;
            out.text = match &out.title {
                Some(t)
                    if !forum
                        && !inner.text.starts_with('#')
                        && !inner.text.contains(t.as_str()) =>
                {
                    format!("# {t}\n\n{}", inner.text)
                }
                _ => inner.text,
            };
            out.images = inner.images;
        }
    }
    out.noscript = String::new();
    out.text = drop_controls(std::mem::take(&mut out.text), &mut out.images);
    Ok(out)
}

/// The text without control characters other than newline and tab (from `<pre>`, tables,
/// JSON-LD bodies: every path), image offsets moved with it. Such characters are not text:
/// no document, terminal or tokenizer downstream meets them.
fn drop_controls(text: String, images: &mut [ImageRef]) -> String {
    let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(bad) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    // (byte offset in the old text, bytes removed before it)
    let mut removed_before: Vec<(usize, usize)> = Vec::new();
    let mut removed = 0;
    for (i, c) in text.char_indices() {
        if bad(c) {
            removed += c.len_utf8();
            removed_before.push((i + c.len_utf8(), removed));
        } else {
            out.push(c);
        }
    }
    for im in images.iter_mut() {
        let k = removed_before.partition_point(|(at, _)| *at <= im.offset);
        let shift = if k == 0 { 0 } else { removed_before[k - 1].1 };
        im.offset = im.offset.saturating_sub(shift).min(out.len());
        while !out.is_char_boundary(im.offset) {
            im.offset -= 1;
        }
    }
    out
}

/// Bytes of `<noscript>` markup below which it is never read as the page's content (the
/// usual "please enable JavaScript" notice and tracking pixels are far smaller).
const NOSCRIPT_MIN_BYTES: usize = 2000;
/// Words the `<noscript>` content needs (and more than twice the walk's) to be taken.
const NOSCRIPT_MIN_WORDS: usize = 50;

fn extract_parsed(
    html: &str,
    base_url: &str,
    keep_images: bool,
    choose: Option<Chooser<'_>>,
    deadline: Option<std::time::Instant>,
) -> Result<Extracted, Overrun> {
    let doc = trawl_core::parse::parse_document(html);
    check(deadline)?;
    let base = url::Url::parse(base_url).ok();
    let meta = crate::meta::page_meta(&doc, base.as_ref());
    let title = meta.title.clone();
    let html_lang = attr(doc.root_element().value(), "lang")
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| !l.is_empty());
    let (noai, noimageai, noindex) = (meta.noai, meta.noimageai, meta.noindex);

    let declared_article = crate::pagetype::declares_article(&meta);
    let urls = crate::pagetype::page_urls(&meta, base.as_ref());
    let thread = crate::pagetype::declares_thread(&meta);
    let declared_product = crate::pagetype::declares_product(&meta);
    let declared = crate::score::Declared {
        // a product without an offer or an identifier is a business's rating stars
        product: declared_product && !meta.bare_products,
        article: declared_article,
        thread,
    };
    let scores = crate::score::score(&doc, declared);
    check(deadline)?;
    let body_sel = &*BODY;
    let body = doc
        .select(body_sel)
        .next()
        .unwrap_or_else(|| doc.root_element());
    let evidence = crate::pagetype::Evidence {
        types: &meta.types,
        og_type: meta.og_type.as_deref(),
        listing: scores.listing.is_some(),
        prose: scores.prose,
        code_blocks: scores.code_blocks,
        text: scores.text,
        docs: crate::pagetype::docs_signal(&meta, &urls),
        landing: crate::pagetype::landing_signal(&urls),
        forum: crate::pagetype::forum_signal(&urls),
        index: crate::pagetype::index_signal(&urls),
        shape: scores.shape,
        link: scores.get(body.id()).map_or(0, |s| s.link),
        root_text: scores
            .listing
            .or(scores.root)
            .and_then(|r| scores.get(r))
            .map_or(0, |s| s.text),
        published: meta.published.is_some(),
        author: meta.author.is_some(),
        bare_products: meta.bare_products,
        url: crate::pagetype::UrlShape::of(&urls),
    };
    let ruled = crate::pagetype::rules(&evidence);
    if tracing::enabled!(tracing::Level::TRACE) {
        let named = crate::pagetype::named_features(&evidence);
        tracing::trace!(url = base_url, names = ?named.map(|(n, _)| n), features = ?named.map(|(_, v)| v), rules = ruled.0.as_str(), sure = ruled.1, "page type features");
    }
    let page_type = crate::pagetype::classify_ruled(&evidence, ruled);
    // a page typed a thread that declares none (old forum software, a link post whose
    // discussion is all of its text) is scored again as one: its comments are its posts
    let undeclared_thread = page_type.0 == crate::PageType::Forum && !thread;
    let (scores, thread) = if undeclared_thread {
        tracing::trace!("scored again as a thread");
        let again = crate::score::score(
            &doc,
            crate::score::Declared {
                thread: true,
                ..declared
            },
        );
        check(deadline)?;
        (again, true)
    } else {
        (scores, thread)
    };
    let walker = |root_is_content: bool, prune: Prune| Walker {
        out: String::new(),
        cur: String::new(),
        images: Vec::new(),
        base: base.clone(),
        keep_images,
        root_is_content,
        depth: 0,
        scores: &scores,
        prune,
        root_text: 0,
        comment_labels: comment_labels(thread),
        labelled: Vec::new(),
        terms: Vec::new(),
        term_next: false,
        quotes: 0,
        said: Default::default(),
        written: Default::default(),
        pushed: 0,
        layout: 0,
        code_written: false,
        inline_end: false,
        space_pending: false,
    };
    let mut llm = None;
    if let Some(choose) = choose {
        let mut w = walker(true, Prune::Nothing);
        w.walk(body, 0);
        w.flush();
        let blocks = split_blocks(&w.out);
        let strs: Vec<&str> = blocks.iter().map(|b| b.1).collect();
        match choose(title.as_deref(), &strs) {
            Ok(ids) => {
                let mut keep = vec![false; blocks.len()];
                ids.iter().for_each(|&i| keep[i] = true);
                let (text, images) = rebuild(&blocks, &keep, w.images);
                return Ok(Extracted {
                    text,
                    images,
                    title,
                    meta,
                    html_lang,
                    noai,
                    noimageai,
                    noindex,
                    llm: Some(Ok(())),
                    noscript: String::new(),
                    page_type,
                });
            }
            Err(why) => llm = Some(Err(why)),
        }
    }
    // a list inside the prose root (an index of a guide's chapters under its introduction)
    // is read with the prose around it: the root, with its lists kept as items
    // (a root holding most of the page is its wrapper, and says nothing of the list)
    let inside_root = |l: ego_tree::NodeId| {
        scores.root.is_some_and(|r| {
            (scores.spread || scores.get(r).is_some_and(|s| s.text * 2 < scores.text))
                && doc
                    .tree
                    .get(l)
                    .is_some_and(|n| n.ancestors().any(|a| a.id() == r))
        })
    };
    // a list headed by a teaser section's label (`Most read`, `Related stories`) is a rail
    // of other pages, not the page's own list
    let teasers = |l: ego_tree::NodeId| {
        doc.tree
            .get(l)
            .and_then(ElementRef::wrap)
            .is_some_and(|e| labelled_section(e, &[]) == Some(Label::Teasers))
    };
    let (listing, lists_in_root) = match scores.listing {
        Some(l) if teasers(l) => {
            tracing::trace!("the item list is a rail of teasers");
            (None, false)
        }
        Some(l) if inside_root(l) => (None, true),
        l => (l, false),
    };
    let root = listing
        .or(scores.root)
        .and_then(|id| doc.tree.get(id))
        .and_then(ElementRef::wrap)
        .unwrap_or(body);
    // Landing and service pages: the best prose block is one section among many (features,
    // pricing, FAQ) inside the page's declared main region; when it holds under half of
    // that region's text, the region is the content.
    let service = page_type.0 == crate::PageType::Service;
    let root = match (listing, main_region(root)) {
        (None, Some(main)) if service && main.id() != root.id() => {
            let text = |e: ElementRef<'_>| scores.get(e.id()).map_or(0, |s| s.text);
            if text(root) * 2 < text(main) {
                main
            } else {
                root
            }
        }
        _ => root,
    };
    // documentation keeps the lists of links inside its root (an API index, "see also")
    let docs = page_type.0 == crate::PageType::Documentation;
    let prune = if listing.is_some() || lists_in_root || docs {
        Prune::Items
    } else if scores.spread || !declared_article {
        Prune::Sections
    } else {
        Prune::Full
    };
    let walk_root = |prune: Prune| {
        let mut w = walker(root.id() != body.id(), prune);
        w.root_text = scores.get(root.id()).map_or(0, |s| s.text);
        // a root that is itself a list (a listing's `<ul>`) keeps its list formatting
        if matches!(root.value().name(), "ul" | "ol") {
            w.element(root, 0);
        } else {
            w.walk(root, 0);
        }
        w.flush();
        w
    };
    let mut w = walk_root(prune);
    if w.out.trim().is_empty() {
        // nothing scored as prose, or the walk dropped every region of the root (a
        // schedule's table of linked names under its heading, a grid of tiles): keep what
        // is not boilerplate rather than nothing (a walk of its own: what the first one
        // noted of labels and copies is not carried over)
        w = walk_root(Prune::Boilerplate);
    }
    check(deadline)?;
    tracing::trace!(chars = w.out.len(), "walked");
    if page_type.0 == crate::PageType::Article {
        if let Some(cut) = meta.author.as_deref().and_then(|a| author_bio(&w.out, a)) {
            tracing::trace!(at = cut, of = w.out.len(), "the author's bio");
            w.out.truncate(cut);
            w.images.retain(|im| im.offset < cut);
        }
    }
    let (mut text, mut images) = tidy(
        &w.out,
        w.images,
        title.as_deref(),
        thread,
        page_type.0,
        &w.labelled,
        // on documentation a definition term is an API signature or a glossary word; on a
        // forum or a product page it is as often a field's name (`Joined:`, `Posts:`)
        if docs { &w.terms } else { &[] },
    );
    tracing::trace!(chars = text.len(), "tidied");
    // Off on articles: the benchmarks' article texts leave a news dek out (on the WCXB
    // tuning pages 6 of the 9 articles it changed fell), other pages' texts keep it.
    if page_type.0 != crate::PageType::Article {
        if let Some(lede) = meta
            .description
            .as_deref()
            .and_then(|d| standfirst(&doc, &scores, root, d, &text))
        {
            tracing::trace!(chars = lede.len(), "standfirst");
            // under the page's `# title` when the text opens with it, else first
            let at = match text.strip_prefix("# ").and_then(|t| t.find("\n\n")) {
                Some(end) => end + 4,
                None => 0,
            };
            let lede = if text.is_empty() { lede } else { lede + "\n\n" };
            text.insert_str(at, &lede);
            for im in images.iter_mut().filter(|im| im.offset >= at) {
                im.offset += lede.len();
            }
        }
    }
    // Pages that render their content from JSON leave a teaser in the elements (a menu, a
    // gallery's instructions) and the whole text in JSON-LD: an article's `articleBody` or a
    // how-to's or recipe's steps (500+ characters), or the product a page declares. Taken
    // when it says more than twice what the walk found, then without images (their
    // positions were in the walk's text).
    // (the JSON-LD text, its minimum length, whether it takes the title as its heading)
    let declared = [
        (meta.article_body.as_deref(), ARTICLE_BODY_MIN_CHARS, true),
        (meta.instructions.as_deref(), ARTICLE_BODY_MIN_CHARS, true),
        (
            meta.product.as_deref().filter(|_| declared_product),
            0,
            false,
        ),
    ];
    for (json, min, titled) in declared {
        let Some(json) = json else { continue };
        let (found, whole) = (text.chars().count(), json.chars().count());
        if whole >= min && found * 2 < whole {
            tracing::trace!(found, whole, titled, "content from JSON-LD");
            text = match &title {
                Some(t) if titled && !json.starts_with(t.as_str()) => format!("# {t}\n\n{json}"),
                _ => json.to_string(),
            };
            images.clear();
        }
    }
    Ok(Extracted {
        text,
        images,
        title,
        meta,
        html_lang,
        noai,
        noimageai,
        noindex,
        llm,
        noscript: noscript_markup(&doc),
        page_type,
    })
}

static NOSCRIPT: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("body noscript").expect("static selector"));

/// The raw markup inside the body's `<noscript>` elements, in document order.
fn noscript_markup(doc: &Html) -> String {
    let mut out = String::new();
    for n in doc.select(&NOSCRIPT) {
        for t in n.text() {
            out.push_str(t);
        }
        out.push('\n');
    }
    out
}

/// An element's attribute (no namespace) by name: what `Element::attr` returns, found by
/// comparing names instead of first interning `name` as an atom (a hash of the name on
/// every call: a twentieth of the extraction's instructions, most of it in the metadata
/// pass's lookups on every element).
pub(crate) fn attr<'a>(e: &'a scraper::node::Element, name: &str) -> Option<&'a str> {
    e.attrs
        .iter()
        .find(|(q, _)| q.ns.is_empty() && &*q.local == name)
        .map(|(_, v)| &**v)
}

/// Characters a page's description needs to be read as its standfirst.
const STANDFIRST_MIN_CHARS: usize = 60;

/// The page's standfirst when the walk left it out: the description the page gives of
/// itself (`<meta name=description>`, `og:description`), shown as the text of an element
/// before the content root and outside boilerplate (a news site's dek and a blog's lede sit
/// in the article's header, above the body the root holds).
fn standfirst(
    doc: &Html,
    scores: &crate::score::Scores,
    root: ElementRef<'_>,
    description: &str,
    text: &str,
) -> Option<String> {
    let want = collapse(description);
    let want = want.trim_end_matches(['.', '…', ' ']);
    let len = want.chars().count();
    if len < STANDFIRST_MIN_CHARS {
        return None;
    }
    let probe: String = want.chars().take(STANDFIRST_MIN_CHARS).collect();
    if collapse(text).contains(&probe) {
        return None;
    }
    for node in doc.tree.root().descendants() {
        if node.id() == root.id() {
            break;
        }
        let Some(t) = node.value().as_text() else {
            continue;
        };
        // the text starts with the description's first word (no allocation on the way)
        if t.split_whitespace().next() != want.split(' ').next() {
            continue;
        }
        let t = collapse(t);
        if t.chars().count() < 10 || !(want.starts_with(&t) || t.starts_with(&probe)) {
            continue;
        }
        // the smallest element around it holding the description and little more
        let found = node
            .ancestors()
            .take(4)
            .filter_map(ElementRef::wrap)
            .find_map(|e| {
                let shown = collapse(&rendered_text(e));
                (shown.starts_with(&probe) && shown.chars().count() * 2 <= len * 3)
                    .then_some((e, shown))
            });
        let Some((e, shown)) = found else { continue };
        // the scoring marks an element boilerplate when it or an ancestor is, and scores no
        // element inside an invisible one (`<noscript>`, `<template>`)
        let hidden = scores.get(e.id()).is_none_or(|s| s.boiler)
            || std::iter::once(e)
                .chain(e.ancestors().filter_map(ElementRef::wrap))
                .any(|a| a.value().name() == "a");
        if hidden {
            continue;
        }
        return Some(shown);
    }
    None
}

/// The nearest `<main>` (or `role=main`) element at or above `e`.
fn main_region(e: ElementRef<'_>) -> Option<ElementRef<'_>> {
    std::iter::once(e)
        .chain(e.ancestors().filter_map(ElementRef::wrap))
        .find(|a| a.value().name() == "main" || attr(a.value(), "role") == Some("main"))
}

/// Characters a JSON-LD `articleBody` needs before it can replace the extracted text.
const ARTICLE_BODY_MIN_CHARS: usize = 500;

/// A paragraph whose text is all bold, short (2+ words, at most 80 characters) and not a
/// sentence: a subheading.
fn bold_subheading(e: ElementRef<'_>) -> bool {
    let (mut bold, mut total) = (0usize, 0usize);
    let mut text = String::new();
    let mut stack: Vec<(ego_tree::NodeRef<'_, scraper::Node>, bool)> =
        e.children().map(|c| (c, false)).collect();
    stack.reverse();
    while let Some((n, in_bold)) = stack.pop() {
        match n.value() {
            scraper::Node::Text(t) => {
                let len = t.trim().chars().count();
                total += len;
                bold += if in_bold { len } else { 0 };
                text.push_str(t);
                if total > 80 || bold < total {
                    return false;
                }
            }
            scraper::Node::Element(x) => {
                if matches!(x.name(), "a" | "img" | "br" | "p" | "div") {
                    return false;
                }
                let b = in_bold || matches!(x.name(), "b" | "strong");
                let at = stack.len();
                stack.extend(n.children().map(|c| (c, b)));
                stack[at..].reverse();
            }
            _ => {}
        }
    }
    let t = text.trim();
    // one bold word alone is more often a label ("Update", "BVINEWS.COM") than a heading
    total > 0
        && t.split_whitespace().count() >= 2
        && !t.ends_with(['.', '!', '?', ':', ',', ';', '…'])
}

/// Whether a block at the edge of the content is a fragment around it (section labels,
/// credits, "related" headings, share and copyright lines) rather than content; `leading`:
/// at the top edge.
fn edge_fragment(block: &str, leading: bool) -> bool {
    let t = block.trim();
    if t.contains("```") || t.starts_with('|') {
        return false;
    }
    let plain = t.trim_start_matches(['#', '-', '>', ' ']).trim();
    let n = plain.chars().count();
    let lower = plain.to_lowercase();
    // calls to action and site furniture that close many articles
    let phrase = [
        "©",
        "copyright",
        "all rights reserved",
        "share this",
        "follow us",
        "sign up",
        "subscribe",
        "advertisement",
        "read more",
        "tags:",
        "filed under",
        "newsletter",
        "if you enjoyed",
        "support us",
        "unterstütze",
        "folge uns",
        "folgen sie",
        "abonnier",
        "suivez-nous",
        "síguenos",
        "seguici",
        "written permission",
        "reprint",
    ]
    .iter()
    .any(|p| lower.contains(p));
    let sentence_end = plain.ends_with(SENTENCE_ENDS);
    if phrase && n < 200 {
        return true;
    }
    // `related` labels a list of links ("Related articles", "Related: ..."); in a sentence
    // it is a word of the text ("news related to the project.")
    if lower.contains("related") && (n < 60 || !sentence_end) && n < 200 {
        return true;
    }
    // a copyright notice with its reprint terms runs longer, under the text (above it, a
    // long block opening with `©` is a photo credit run into the first paragraph: `© Provided
    // by Example Inc Nintendo and Apple shocked the world ...`)
    if !leading && n < 500 && (plain.starts_with('©') || lower.starts_with("copyright")) {
        return true;
    }
    // credits and captions in parentheses, dates and times (a line of them: a post's
    // created and updated stamps, `2024-02-16 10:00 Created 2024-02-17 11:30 Updated`)
    let credit = plain.starts_with('(') && plain.ends_with(')') && n < 150;
    let date = n <= 100
        && plain.chars().filter(|c| c.is_ascii_digit()).count() * 2
            >= plain.chars().filter(|c| c.is_alphanumeric()).count();
    credit || date || (n < 60 && !sentence_end)
}

/// Whether a block is a line of the text's own markup: a heading, a table row, a list item or
/// a quote ([`label_block`], [`credit_line`], [`meta_line`] read none of them).
fn markup_line(t: &str) -> bool {
    t.starts_with(['#', '|', '-', '>'])
}

/// Characters of a post's metadata line at most ([`meta_line`]).
const META_LINE_CHARS: usize = 160;
/// Blocks from the text's top edge in which a metadata line is looked for.
const META_LINE_BLOCKS: usize = 3;

/// Whether a line is a post's metadata: under [`META_LINE_CHARS`], not the text's own
/// markup ([`markup_line`]), three or more fields set apart by `|`, `·` or `•`, one of them a
/// date (a year, or day and month in digits).
fn meta_line(t: &str) -> bool {
    if markup_line(t) || t.trim().chars().count() >= META_LINE_CHARS {
        return false;
    }
    let fields = t
        .split(['|', '·', '•'])
        .filter(|f| !f.trim().is_empty())
        .count();
    if fields < 3 {
        return false;
    }
    let b = t.as_bytes();
    // a year 19xx/20xx standing alone, or a date in digits (14.06.2019, 6/14/19)
    let year = b.windows(4).enumerate().any(|(i, w)| {
        (w.starts_with(b"19") || w.starts_with(b"20"))
            && w.iter().all(u8::is_ascii_digit)
            && !b.get(i.wrapping_sub(1)).is_some_and(u8::is_ascii_digit)
            && !b.get(i + 4).is_some_and(u8::is_ascii_digit)
    });
    let numeric = b.windows(5).any(|w| {
        w[0].is_ascii_digit()
            && matches!(w[2], b'.' | b'/' | b'-')
            && w[1].is_ascii_digit()
            && w[3].is_ascii_digit()
            && w[4].is_ascii_digit()
    });
    year || numeric
}

/// Section labels that end an article: what follows is teasers, not the story.
const STOP_LABELS: &[&str] = &[
    "most popular",
    "most read",
    "related",
    "related articles",
    "related stories",
    "related posts",
    "related content",
    "recommended",
    "recommended for you",
    "read next",
    "more stories",
    "more from",
    "more on this story",
    "you may also like",
    "you might also like",
    "trending",
    "trending now",
    "popular",
    "latest",
    "latest news",
    "top stories",
    "editor's picks",
    "around the web",
    "mehr zum thema",
    "auch interessant",
    "das könnte sie auch interessieren",
    "weitere artikel",
    "meistgelesen",
    "meistgelesene artikel",
    "ähnliche artikel",
    "lesen sie auch",
    "à lire aussi",
    "a lire aussi",
    "sur le même sujet",
    "articles similaires",
    "les plus lus",
    "te puede interesar",
    "noticias relacionadas",
    "lo más leído",
    "leggi anche",
    "articoli correlati",
    "читайте также",
    "похожие статьи",
    "самые популярные",
    "популярное",
    "czytaj także",
    "zobacz także",
    "najpopularniejsze",
    "lees ook",
    "gerelateerde artikelen",
    "leia também",
    "veja também",
    "mais lidas",
    "zum weiterlesen",
    "lesen sie auch",
    "top themen",
    "you might like",
    "you may like",
    "you may also be interested in",
    "popular posts",
    "recent posts",
    "ähnliche beiträge",
    "weitere beiträge",
    "das könnte dich auch interessieren",
    "también te puede interesar",
    "vous aimerez aussi",
    "ti potrebbe interessare",
    "potrebbe interessarti",
    "czytaj również",
    // WordPress's like button, over its related posts and comments (`Like this:`)
    "like this",
];

/// One-word teaser labels that a noun of what they list may follow ([`section_label`]).
const TEASER_WORDS: &[&str] = &["trending", "popular", "latest", "related", "recent"];
/// Nouns of what a teaser section lists.
const LISTED_NOUNS: &[&str] = &[
    "stories", "articles", "posts", "news", "videos", "reads", "content", "guides", "reviews",
];

/// Labels of a comment section, which closes an article too (but not a thread, where each
/// answer carries its comments and the next answer follows).
const COMMENT_LABELS: &[&str] = &[
    "comments",
    "comment",
    "leave a reply",
    "leave a comment",
    "join the discussion",
    "kommentare",
    "kommentar schreiben",
    "schreibe einen kommentar",
    "commentaires",
    "laisser un commentaire",
    "comentarios",
    "deja un comentario",
    "commenti",
    "lascia un commento",
    "komentarze",
    "reacties",
    "комментарии",
    "post a comment",
    "view comments",
    "show comments",
    "read comments",
    "keine kommentare",
    "ein kommentar",
    // WordPress's own headings over a post's comments: "12 thoughts on “Title”"
    "comments on",
    "thoughts on",
    "responses to",
    "replies to",
    "one thought on",
    "one response to",
    "one reply to",
    "one comment on",
    "reader comments",
    "user comments",
];

/// The comment-section labels that end or mark a section: none on a page that declares a
/// thread, whose comments are its posts.
fn comment_labels(thread: bool) -> &'static [&'static str] {
    if thread {
        &[]
    } else {
        COMMENT_LABELS
    }
}

/// Where the content ends at a teaser-section label (a heading or a short line like
/// "Most Popular") in the second half of the text, or at a comment section's heading
/// anywhere after the opening: the text's blocks with their offsets
/// ([`split_blocks`]), which of them are code ([`in_code`]), and the text's length.
fn stop_label_cut(
    blocks: &[(usize, &str)],
    code: &[bool],
    len: usize,
    thread: bool,
    labelled: &[(usize, usize, Label)],
) -> usize {
    // the text as the walk would have written it with the labelled sections it left out
    // (each stood at its offset, its label first)
    let whole = len + labelled.iter().map(|l| l.1).sum::<usize>();
    let before = |pos: usize, with: bool| {
        pos + labelled
            .iter()
            .take_while(|l| l.0 < pos || (with && l.0 == pos))
            .map(|l| l.1)
            .sum::<usize>()
    };
    // a section left out in the second half ends the text, unless the story goes on after
    // it (a box of related stories set among its last paragraphs)
    let story_after = |pos: usize| {
        blocks
            .iter()
            .zip(code)
            .filter(|(&(at, b), &code)| {
                at > pos
                    && !code
                    && !markup_line(b)
                    && b.chars().count() >= STORY_BLOCK_CHARS
                    && sentence_end(b)
            })
            .count()
            >= STORY_BLOCKS_AFTER
    };
    // (not after a comment section: what follows one is more of its comments)
    let first_left_out = labelled
        .iter()
        .find(|l| before(l.0, false) * 2 >= whole && !(l.2 == Label::Teasers && story_after(l.0)))
        .map_or(len, |l| l.0);
    let comments = comment_labels(thread);
    // a hit is a label and up to LABEL_TITLE_BYTES more ([`section_label`]); lowercasing
    // shrinks a character to no less than a third of its bytes (the Kelvin sign's `k`):
    // longer blocks cannot hit
    let longest = STOP_LABELS
        .iter()
        .chain(comments)
        .map(|l| l.len())
        .max()
        .unwrap_or(0);
    for (&(pos, b), &code) in blocks.iter().zip(code) {
        if pos >= first_left_out {
            break;
        }
        // in the first half only a comment section's heading (of the first four levels: a
        // post's `###### No comments` under its date is its metadata), after some text: a
        // short post with a longer thread under it
        let early = before(pos, true) * 2 < whole;
        let early_heading =
            b.starts_with('#') && !b.starts_with("#####") && pos >= EARLY_COMMENTS_AFTER;
        if code || pos == 0 || (early && !early_heading) {
            continue;
        }
        let raw = bare_label(b);
        if raw.len() > 3 * (longest + LABEL_TITLE_BYTES) {
            continue;
        }
        let label = raw.to_lowercase();
        let heading_like =
            b.starts_with('#') || (label.chars().count() <= 40 && !label.contains('.'));
        let hit = section_label(&label, comments);
        if heading_like && hit.is_some() && (!early || hit == Some(Label::Comments)) {
            return pos.saturating_sub(2);
        }
    }
    first_left_out
}

/// What a line ending a sentence ends with (a quote closing after its full stop too).
const SENTENCE_ENDS: [char; 10] = ['.', '!', '?', '…', '"', '”', '»', '。', '！', '？'];

/// Whether a block ends a sentence ([`SENTENCE_ENDS`]), and not with an ellipsis (a teaser's
/// blurb cut short).
fn sentence_end(b: &str) -> bool {
    let b = b.trim_end();
    b.ends_with(SENTENCE_ENDS)
        && !b.ends_with("...")
        && !b.trim_end_matches(['"', '”', '»']).ends_with('…')
}

/// Characters of a paragraph of the story, at least, as [`stop_label_cut`] counts those
/// after a section it left out.
const STORY_BLOCK_CHARS: usize = 80;
/// Paragraphs of the story after a section left out, at least, for it not to end the text.
const STORY_BLOCKS_AFTER: usize = 3;

/// Bytes of text before a comment section's heading in the first half of the text for the
/// heading to end it ([`stop_label_cut`]).
const EARLY_COMMENTS_AFTER: usize = 200;

/// A label's words without a heading's marks or a count after them ("Comments (12)",
/// "Kommentare: 3" are the label), or before them on a heading ("## 59 Comments").
fn bare_label(b: &str) -> &str {
    let words = b.trim_start_matches(['#', ' ']).trim();
    // a count before the label only on a heading: a line "3 comments" under each teaser
    // of a listing is the teaser's
    let words = if b.starts_with('#') {
        words.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ')
    } else {
        words
    };
    words
        .trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, ':' | '.' | '(' | ')' | ' '))
        .trim()
}

/// Whether a lowercased heading or short line names a teaser section ([`STOP_LABELS`]) or,
/// with `comments`, a comment section ([`COMMENT_LABELS`]): the label exactly, or a
/// multi-word label heading a longer title ("most popular diets"), or a label followed by a
/// separator and a gloss ("related — 有關", "comments | 3").
fn section_label(label: &str, comments: &[&str]) -> Option<Label> {
    let hit = |l: &&str| {
        // a label ending in a preposition names what follows it: a post's whole title
        let gloss = if l.ends_with(" on") || l.ends_with(" to") {
            LABEL_TITLE_BYTES
        } else {
            LABEL_GLOSS_BYTES
        };
        label == *l
            || (label.len() <= l.len() + gloss
                && label.starts_with(l)
                && (l.contains(' ')
                    || label[l.len()..].starts_with(|c: char| !c.is_alphanumeric() && c != ' ')
                    || label[l.len()..]
                        .trim_start()
                        .starts_with(|c: char| !c.is_alphanumeric())))
    };
    // a one-word label naming what its section lists (`trending stories in travel`,
    // `popular articles`, `latest videos`) is the label too
    let listed = || {
        let mut words = label.split_whitespace();
        let (Some(first), Some(second)) = (words.next(), words.next()) else {
            return false;
        };
        // (a gloss after them, as after a multi-word label)
        TEASER_WORDS.contains(&first)
            && LISTED_NOUNS.contains(&second)
            && label.len() <= first.len() + 1 + second.len() + LABEL_GLOSS_BYTES
    };
    if STOP_LABELS.iter().any(hit) || listed() {
        Some(Label::Teasers)
    } else if comments.iter().any(hit) {
        Some(Label::Comments)
    } else {
        None
    }
}

/// What a section label names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    /// Teasers: related, most read, recommended.
    Teasers,
    /// The comments.
    Comments,
}

/// Bytes of a line that opens a comment section without a heading ("View comments (27)").
const COMMENT_LINE_BYTES: usize = 40;

/// Bytes of a gloss a label may carry after it ("related — 有關", "comments | 3").
const LABEL_GLOSS_BYTES: usize = 30;

/// Bytes of a title a label may name after it ("thoughts on “...”").
const LABEL_TITLE_BYTES: usize = 200;

/// An element's first text, outside elements that are never rendered.
fn first_text(e: ElementRef<'_>) -> Option<ego_tree::NodeRef<'_, scraper::Node>> {
    e.descendants().find(|n| {
        n.value().as_text().is_some_and(|t| !t.trim().is_empty())
            && !n.ancestors().take_while(|a| a.id() != e.id()).any(|a| {
                a.value()
                    .as_element()
                    .is_some_and(|x| UNRENDERED.contains(&x.name()))
            })
    })
}

/// What section a container is when it opens with a heading naming a teaser or comment
/// section ("Most read in world news", "Related stories", "3 Comments"): such a section set
/// inside the article (a widget between two paragraphs) is not the article, wherever it
/// stands.
fn labelled_section(e: ElementRef<'_>, comments: &[&str]) -> Option<Label> {
    if crate::score::is_heading(e.value().name()) {
        return None;
    }
    let first = first_text(e)?;
    let heading = first
        .ancestors()
        .take_while(|a| a.id() != e.id())
        .filter_map(ElementRef::wrap)
        .find(|a| crate::score::is_heading(a.value().name()));
    let Some(heading) = heading else {
        // a comment section's count on a line of its own ("View comments (27)"), unless the
        // elements beside it open with one too (each post of a blog's index: "0 Comments")
        let line = |x: ElementRef<'_>| {
            let first = if x.id() == e.id() {
                first
            } else {
                first_text(x)?
            };
            let block = first
                .ancestors()
                .take_while(|a| a.id() != x.id())
                .filter_map(ElementRef::wrap)
                .find(|a| crate::score::is_block(a.value().name()))?;
            // (a line, not a paragraph: read no further than a label's length)
            let mut raw = String::new();
            for t in block.text() {
                raw.push_str(t);
                if raw.len() > 4 * COMMENT_LINE_BYTES {
                    return None;
                }
            }
            let text = collapse(&raw).to_lowercase();
            (text.len() <= COMMENT_LINE_BYTES)
                .then(|| section_label(bare_label(&format!("# {text}")), comments))
                .flatten()
                .filter(|l| *l == Label::Comments)
        };
        let label = line(e)?;
        let name = e.value().name();
        let beside = e
            .prev_siblings()
            .chain(e.next_siblings())
            .filter_map(ElementRef::wrap)
            .filter(|x| x.value().name() == name)
            .take(4)
            .any(|x| line(x).is_some());
        return (!beside).then_some(label);
    };
    let label = format!(
        "# {}",
        collapse(&heading.text().collect::<String>()).to_lowercase()
    );
    let label = bare_label(&label);
    if label.is_empty() || label.len() > 3 * LABEL_TITLE_BYTES {
        return None;
    }
    section_label(label, comments)
}

/// Per block, whether it is part of a code block: blank lines inside a fenced block split it
/// into several blocks, and no line of code is a label, a teaser heading or a fragment.
fn in_code(blocks: &[(usize, &str)]) -> Vec<bool> {
    let mut open = false;
    blocks
        .iter()
        .map(|(_, b)| {
            let fences = b.matches("```").count();
            let code = open || fences > 0;
            open ^= fences % 2 == 1;
            code
        })
        .collect()
}

/// A short label standing alone inside the content ("Advertisement:", "Credit:", "Twitter",
/// "Kommentieren"): a few words, no sentence, not a heading, list item, table or code.
fn label_block(block: &str) -> bool {
    let t = block.trim();
    // an advertisement's label set as a heading (`### Advertisement`) is one too
    if t.starts_with('#') {
        let words = t.trim_start_matches('#').trim().to_lowercase();
        return AD_LABELS.contains(&words.as_str());
    }
    // (under 40 characters, so under 160 bytes: a paragraph is not read through)
    if t.len() >= 160
        || markup_line(t)
        || t.contains("```")
        || t.split_once(". ")
            .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
    {
        return false;
    }
    let words = t.split_whitespace().count();
    let sentence_end = t.ends_with(SENTENCE_ENDS);
    words <= 3 && t.chars().count() < 40 && !sentence_end
}

/// A line telling the reader that the text goes on past an advertisement (`Story continues
/// below advertisement`, `Article continues after this ad`, `Weiter nach der Anzeige`): not
/// the text's own markup, under [`AD_NOTICE_CHARS`] and [`AD_NOTICE_WORDS`], no question or
/// exclamation, naming an advertisement ([`AD_LABELS`], `ad`, `ads`) and the text's going on
/// ([`AD_GOES_ON`]) in a notice's words alone ([`AD_NOTICE_VOCABULARY`]).
fn ad_notice(t: &str) -> bool {
    if markup_line(t)
        || t.ends_with(['!', '?', ':'])
        || t.chars().count() >= AD_NOTICE_CHARS
        || t.split_whitespace().count() > AD_NOTICE_WORDS
    {
        return false;
    }
    let lower = t.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let ad = |w: &&str| AD_LABELS.contains(w) || matches!(*w, "ad" | "ads" | "anuncio");
    // (every other word one of a notice's: `How ads continue to fund local news` is a
    // heading)
    words.iter().any(ad)
        && words.iter().any(|w| AD_GOES_ON.contains(w))
        && words
            .iter()
            .all(|w| ad(w) || AD_GOES_ON.contains(w) || AD_NOTICE_VOCABULARY.contains(w))
}

/// Characters of an advertisement's notice under this ([`ad_notice`]).
const AD_NOTICE_CHARS: usize = 70;
/// Words of an advertisement's notice at most ([`ad_notice`]).
const AD_NOTICE_WORDS: usize = 8;
/// Words saying the text goes on, lowercase ([`ad_notice`]).
const AD_GOES_ON: &[&str] = &[
    "continue",
    "continues",
    "continued",
    "below",
    "weiter",
    "suite",
    "sigue",
    "continúa",
    "continua",
    "prosegue",
    "verder",
];
/// The other words an advertisement's notice is made of, besides the advertisement's and
/// those of going on ([`AD_GOES_ON`]), lowercase ([`ad_notice`]).
const AD_NOTICE_VOCABULARY: &[&str] = &[
    "after",
    "under",
    "story",
    "article",
    "text",
    "content",
    "post",
    "reading",
    "read",
    "scroll",
    "keep",
    "to",
    "with",
    "the",
    "this",
    "an",
    "a",
    "nach",
    "der",
    "dem",
    "geht",
    "es",
    "lesen",
    "artikel",
    "la",
    "le",
    "après",
    "cette",
    "l'article",
    "leyendo",
    "después",
    "del",
    "leggere",
    "dopo",
    "na",
    "de",
    "onder",
    "gaat",
];

/// A photo credit on a line of its own, under [`CREDIT_LINE_CHARS`] and not a sentence, a
/// heading or a list item: it opens with a credit's word (`Photo:`, `Foto:`, `Bild:`,
/// `Credit:`, `©`), or names a photo or wire agency at its start or end in at most
/// [`CREDIT_WORDS`] words (`Patrick Semansky, ASSOCIATED PRESS`), or is a name and its agency
/// in parentheses (`(Reed Saxon / Associated Press)`).
fn credit_line(t: &str) -> bool {
    if markup_line(t)
        || t.ends_with(['.', '!', '?', ':', '…'])
        || t.chars().count() >= CREDIT_LINE_CHARS
    {
        return false;
    }
    let lower = t.to_lowercase();
    let opens = CREDIT_OPENINGS.iter().any(|o| lower.starts_with(o));
    // (at the line's start or end, `Getty Images / Name`, `Name, ASSOCIATED PRESS`, in a
    // few words: a sentence naming one goes on past it, and a short paragraph closing on its
    // wire source, `... it called unfounded. (Reuters)`, is text)
    let core = lower.trim_matches(|c: char| !c.is_alphanumeric());
    let few = t.split_whitespace().count() <= CREDIT_WORDS;
    let agency = few
        && CREDIT_AGENCIES.iter().any(|a| {
            (core.starts_with(a) && !core[a.len()..].starts_with(char::is_alphanumeric))
                || (core.ends_with(a)
                    && !core[..core.len() - a.len()].ends_with(char::is_alphanumeric))
        });
    let paren = t.starts_with('(') && t.ends_with(')') && t.contains(" / ");
    opens || agency || paren
}

/// A photo's caption ending in its credit in parentheses (`Teachers rally at the Statehouse
/// in Indianapolis, Tuesday, Nov. 19, 2019. (AP Photo/Michael Conroy)`, `... (Photo by Kevin
/// Mazur/Getty Images)`), under [`CAPTION_CHARS`], not a heading, list item or table row.
fn captioned(t: &str) -> bool {
    if markup_line(t) || !t.ends_with(')') || t.len() >= CAPTION_CHARS * 4 {
        return false;
    }
    let Some(open) = t.rfind('(') else {
        return false;
    };
    let inner = &t[open + 1..t.len() - 1];
    // (a photographer and an agency, or a credit's word: a paragraph closing on its wire
    // source, `(Reuters)`, is text)
    let lower = inner.to_lowercase();
    let credited = inner.contains('/') || CREDIT_OPENINGS.iter().any(|o| lower.starts_with(o));
    open > 0
        && t.chars().count() < CAPTION_CHARS
        && !inner.contains('(')
        && credited
        && credit_line(inner)
}

/// Characters of a caption ending in its credit at most ([`captioned`]).
const CAPTION_CHARS: usize = 400;

/// Characters of a photo credit's line at most ([`credit_line`]).
const CREDIT_LINE_CHARS: usize = 100;
/// Words of a line naming an agency at most, for it to be a credit ([`credit_line`]).
const CREDIT_WORDS: usize = 8;

/// How a photo credit opens, lowercase ([`credit_line`]).
const CREDIT_OPENINGS: &[&str] = &[
    "photo:",
    "photos:",
    "photo by",
    "photograph:",
    "image:",
    "images:",
    "picture:",
    "credit:",
    "credits:",
    "foto:",
    "fotos:",
    "bild:",
    "bilder:",
    "bildquelle:",
    "crédit photo",
    "crédits photo",
    "photo :",
    "crédit :",
    "©",
    "(c) ",
];

/// Photo and wire agencies a credit names, lowercase, matched as whole words at a line's
/// start or end (not names that are also common words or other bodies' acronyms: `EPA`,
/// `Keystone`).
const CREDIT_AGENCIES: &[&str] = &[
    "associated press",
    "ap photo",
    "getty images",
    "reuters",
    "afp",
    "dpa",
    "shutterstock",
    "istock",
    "imago",
    "picture alliance",
    "picture-alliance",
    "xinhua",
];

/// An advertisement's label, lowercase, in the benchmarks' languages ([`label_block`]).
const AD_LABELS: &[&str] = &[
    "advertisement",
    "advertisements",
    "advertising",
    "anzeige",
    "werbung",
    "publicité",
    "publicidad",
    "pubblicità",
    "reklama",
    "advertentie",
    "реклама",
];

/// Levels above a region the walk would drop at which a spared entry ([`kept_twin`]) keeps
/// it (an entry's answer in its own `div`, its paragraph).
const SPARED_DEPTH: usize = 3;

/// Share of a text block's characters under links below which the walker's negative-mass
/// drop leaves it alone.
const BLOCK_LINK_SHARE: f32 = 0.6;

/// A block of the text itself that carries links, not a link list: a paragraph (without a
/// class, or with an empty one: `entry-meta`, a result's author line are components), a
/// list, a heading or a table, with under [`BLOCK_LINK_SHARE`] of its text in links. In the
/// content root these are the article's own sentences pointing elsewhere (`Read our full
/// review of ...`, `Best budget pick: <a>...</a> ($75)`, a guide's list of the forms it
/// names), which the negative-mass drop would otherwise take for link lists (on the WCXB
/// tuning pages, three in four of the word triples it took from such paragraphs were in the
/// reference text). A list without a class is one the author wrote in the body (an editor
/// writes none; a theme's or a plugin's list is named, `related-posts`): its links are the
/// text whatever their share (the forms a guide links, its further reading), two in three of
/// the triples dropped from such lists being in the references (`bench/wcxb_drops.py`); a
/// list of short links (a menu) still goes by [`link_dense_list`].
fn linked_text_block(e: ElementRef<'_>, st: &crate::score::Stat) -> bool {
    let name = e.value().name();
    let bare = e.value().attr("class").is_none_or(|c| c.trim().is_empty());
    let under = (st.link as f32) < BLOCK_LINK_SHARE * st.text as f32;
    match name {
        "ul" | "ol" => bare || under,
        "p" => bare && under,
        "table" => under,
        _ => crate::score::is_heading(name) && under,
    }
}

/// Whether a sibling of `e` with its tag and class (an item of the same list of regions: an
/// FAQ's entries, a guide's steps) is walked into where `e` would be dropped (`drops`).
fn kept_twin(
    e: ElementRef<'_>,
    scores: &crate::score::Scores,
    drops: &impl Fn(&crate::score::Stat) -> bool,
) -> bool {
    let (name, class) = (e.value().name(), e.value().attr("class"));
    if class.is_none() {
        return false;
    }
    e.prev_siblings()
        .chain(e.next_siblings())
        .filter_map(ElementRef::wrap)
        .filter(|s| s.value().name() == name && s.value().attr("class") == class)
        .any(|s| {
            scores
                .get(s.id())
                .is_some_and(|st| !st.boiler && !drops(st))
        })
}

/// Whether a button is the question of an FAQ: it reads as a question (three words or more,
/// under [`QUESTION_MAX_CHARS`] characters, ending in a question mark) and opens a disclosure
/// (`aria-expanded`, `aria-controls`: the answer below it) or has its answer right after it
/// ([`answer_follows`]) or holds a heading (an accordion whose closed answers the page
/// loads on a click: the questions are still the FAQ's headings). Other buttons are controls
/// (`Menu`, `Show more`, a tab's name) and never text.
fn disclosure_question(e: ElementRef<'_>) -> bool {
    let v = e.value();
    reads_as_question(&collapse(&rendered_text(e)))
        && (v.attr("aria-expanded").is_some()
            || v.attr("aria-controls").is_some()
            || answer_follows(e)
            || e.descendants()
                .filter_map(ElementRef::wrap)
                .any(|d| crate::score::is_heading(d.value().name())))
}

/// Characters of prose in the element after a question's button (or after the heading that
/// holds it) that read as its answer, at least.
const ANSWER_MIN_CHARS: usize = 60;

/// Whether an answer follows a button that reads as a question: the element after it, or
/// after the heading it sits in, holds [`ANSWER_MIN_CHARS`] characters of text and no button
/// (a chat box or a dialog opened by a `Need help?` button is not an answer). Script sets
/// the ARIA state of many accordions only once it runs; the question and its answer side by
/// side are what make the button an FAQ's and not a control.
fn answer_follows(e: ElementRef<'_>) -> bool {
    let holder = e
        .ancestors()
        .filter_map(ElementRef::wrap)
        .take(2)
        .find(|p| crate::score::is_heading(p.value().name()))
        .unwrap_or(e);
    holder
        .next_siblings()
        .filter_map(ElementRef::wrap)
        .next()
        .is_some_and(|a| {
            // a panel of controls (a chat box, a dialog) is not an answer
            !holds_button(a) && collapse(&rendered_text(a)).chars().count() >= ANSWER_MIN_CHARS
        })
}

/// Characters under which a button's text may be an FAQ's question.
const QUESTION_MAX_CHARS: usize = 200;

/// Whether a control's (collapsed) text reads as an FAQ's question: three words or more, under
/// [`QUESTION_MAX_CHARS`] characters, ending in a question mark.
pub(crate) fn reads_as_question(t: &str) -> bool {
    t.split_whitespace().count() >= 3
        && t.chars().count() < QUESTION_MAX_CHARS
        && t.ends_with(['?', '？', '؟'])
}

/// Whether `e` reads as the answer to the question right before it: the previous element
/// sibling reads as an FAQ's question ([`reads_as_question`]) and `e` holds no button (a chat
/// box or a dialog opened by a `Need help planning?` button is controls, not an answer). A
/// panel hidden there is the answer its question opens.
pub(crate) fn answers_question_before(e: ElementRef<'_>) -> bool {
    // the question first: it is bounded and rare, while the panel may be a large hidden menu
    // (and hidden panels nest)
    e.prev_siblings()
        .filter_map(ElementRef::wrap)
        .next()
        .is_some_and(|q| {
            // a large block before it is no question: its text is not gathered
            let mut bytes = 0;
            q.text().all(|t| {
                bytes += t.trim().len();
                bytes <= 4 * QUESTION_MAX_CHARS
            }) && reads_as_question(&collapse(&rendered_text(q)))
        })
        && !holds_button(e)
}

fn holds_button(e: ElementRef<'_>) -> bool {
    e.descendants()
        .filter_map(ElementRef::wrap)
        .any(|d| d.value().name() == "button")
}

/// Blocks from the end of an article among which one may be its author's bio.
const BIO_LAST_BLOCKS: usize = 3;
/// Characters of a block read as an author's bio, at most (two or three sentences).
const BIO_MAX_CHARS: usize = 700;
/// Characters of a block read as an author's bio, at least.
const BIO_MIN_CHARS: usize = 30;

/// Where the box about an article's author begins, when the walk took it as text: one of the
/// last [`BIO_LAST_BLOCKS`] blocks, of [`BIO_MIN_CHARS`] to [`BIO_MAX_CHARS`] characters,
/// begins with the name the page declares as its author (`Ana Ruiz is a reporter ...`), or
/// with its first name where the whole name stands in one of the two blocks before
/// (`Written by` / `Ana Ruiz` / `Ana covers ...`). What follows it goes with it (the author's
/// links, their other posts). Only names that read as a person's (two to four capitalised
/// words of letters): an organisation named as the author (`Example Team`) begins the
/// paragraphs about its own products. The class words read an author's box where it is named
/// one (`score::person_card`); this reads those whose names say nothing. Never the bulk: the
/// text before the bio must outweigh it.
fn author_bio(text: &str, author: &str) -> Option<usize> {
    let names: Vec<&str> = author
        .split([',', ';', '&'])
        .flat_map(|a| a.split(" and "))
        .map(str::trim)
        .filter(|a| {
            let words: Vec<&str> = a.split_whitespace().collect();
            (2..=4).contains(&words.len())
                && words.iter().all(|w| {
                    w.starts_with(char::is_uppercase)
                        && w.chars()
                            .all(|c| c.is_alphabetic() || matches!(c, '-' | '.' | '\''))
                })
        })
        .collect();
    if names.is_empty() {
        return None;
    }
    let blocks = split_blocks(text);
    // the name, then something other than a letter or digit
    let opens = |b: &str, name: &str| {
        b.strip_prefix(name)
            .is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
    };
    for k in blocks.len().saturating_sub(BIO_LAST_BLOCKS).max(1)..blocks.len() {
        let (at, block) = blocks[k];
        let b = block.trim_start_matches(['#', '*', '>', '-', ' ']).trim();
        if !(BIO_MIN_CHARS..=BIO_MAX_CHARS).contains(&b.chars().count()) {
            continue;
        }
        let before = &blocks[k.saturating_sub(2)..k];
        let bio = names.iter().any(|name| {
            let first = name.split_whitespace().next().unwrap_or(name);
            opens(b, name) || (opens(b, first) && before.iter().any(|(_, p)| p.contains(name)))
        });
        if bio && at > text.len() - at {
            return Some(at);
        }
    }
    None
}

/// Cleans the walked text: cuts at a teaser-section label, drops fragments at both edges
/// (trailing headings, labels, credits, bylines, the title repeated, leading headings) and
/// labels standing alone inside (but for the cells of a table or a card laid out as lines;
/// never the blocks starting at `terms`); image offsets follow their text. Never removes the
/// bulk. `kind`: the page's type.
fn tidy(
    text: &str,
    images: Vec<ImageRef>,
    title: Option<&str>,
    thread: bool,
    kind: crate::PageType,
    labelled: &[(usize, usize, Label)],
    terms: &[usize],
) -> (String, Vec<ImageRef>) {
    // on listings and threads a run of short lines is an item's metadata (a date, a
    // category, a reply count); elsewhere a table's or a card's cells (a plan, its price)
    let cells = !matches!(kind, crate::PageType::Listing | crate::PageType::Forum);
    let forum = kind == crate::PageType::Forum;
    let blocks = split_blocks(text);
    let code = in_code(&blocks);
    let cut = stop_label_cut(&blocks, &code, text.len(), thread, labelled);
    let mut keep: Vec<bool> = blocks.iter().map(|(p, _)| *p < cut).collect();
    let n = keep.iter().filter(|k| **k).count();
    let (mut lo, mut hi) = (0usize, n);
    while hi > lo && (blocks[hi - 1].1.starts_with('#') || edge_fragment(blocks[hi - 1].1, false)) {
        hi -= 1;
    }
    let norm = |s: &str| {
        s.trim_start_matches(['#', ' '])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let title = title.map(norm).unwrap_or_default();
    let is_title_block = |b: &str| {
        b.starts_with("# ") && !title.is_empty() && {
            let h = norm(b);
            !h.is_empty() && (title.contains(&h) || h.contains(&title))
        }
    };
    // kickers and teaser headings above the page's title heading are not the article
    if let Some(j) = (lo..hi.min(lo + 4)).find(|&j| is_title_block(blocks[j].1)) {
        if blocks[lo..j]
            .iter()
            .all(|(_, b)| b.starts_with('#') || b.chars().count() < 100)
        {
            lo = j;
        }
    }
    while lo < hi {
        let b = blocks[lo].1;
        let is_title = is_title_block(b);
        if is_title || (!b.starts_with('#') && edge_fragment(b, true)) {
            lo += 1;
        } else {
            break;
        }
    }
    // a photo credit on a line of its own goes, as does a caption ending in one and an
    // advertisement's notice, and is no cell beside a label
    let credits: Vec<bool> = blocks
        .iter()
        .zip(&code)
        .map(|((_, b), &c)| {
            let t = b.trim();
            !c && (credit_line(t) || captioned(t) || ad_notice(t))
        })
        .collect();
    let credit = |i: usize| credits[i] && terms.binary_search(&blocks[i].0).is_err();
    // a post's metadata line under its title: a date among fields set apart by bars or dots
    // (`Freitag | 14. Juni 2019 | 15:49 VON Sina Giebel IN Fashion | 0 COMMENTS`)
    let meta = |i: usize| i < lo + META_LINE_BLOCKS && !code[i] && meta_line(blocks[i].1);
    // a label standing alone ("Advertisement", "Credit:") goes; with `cells`, labels in a
    // row stay: the cells of a table or a card laid out as lines (plans, prices, figures)
    let label: Vec<bool> = blocks
        .iter()
        .zip(&code)
        .zip(&credits)
        .map(|(((_, b), &c), &cr)| !c && !cr && label_block(b))
        .collect();
    // (a cell holds a letter or a digit: a block of zero-width spaces or a lone comma is
    // markup debris, whatever stands beside it)
    let cell: Vec<bool> = blocks
        .iter()
        .zip(&label)
        .map(|((_, b), &l)| cells && l && b.chars().any(char::is_alphanumeric))
        .collect();
    // (and a line repeating the one beside it is a copy, not a second cell: a photo credit
    // twice, a number twice)
    let beside = |i: usize, j: usize| cell[j] && blocks[i].1.trim() != blocks[j].1.trim();
    let lone = |i: usize| {
        label[i]
            && terms.binary_search(&blocks[i].0).is_err()
            && !(cell[i]
                && ((i > 0 && beside(i, i - 1)) || (i + 1 < cell.len() && beside(i, i + 1))))
    };
    for (i, k) in keep.iter_mut().enumerate() {
        *k = *k && i >= lo && i < hi && !lone(i) && !credit(i) && !meta(i);
    }
    // a comment's stamp (`Commented Oct 17, 2010 at 1:03`) goes, and the comment above it
    for i in 0..blocks.len() {
        if !code[i] && comment_stamp(blocks[i].1) {
            keep[i] = false;
            // (above the stamp, the commenter's name and score may stand between: short
            // lines already dropped as labels)
            let above = (i.saturating_sub(3)..i).rev().find(|&j| keep[j]);
            if let Some(j) = above.filter(|&j| !code[j] && comment_above(blocks[j].1)) {
                keep[j] = false;
            }
        }
    }
    let kept: usize = blocks
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|((_, b), _)| b.len())
        .sum();
    // fringes only, never the bulk (of the text before a teaser-section label, which is
    // in the second half by construction and trusted)
    if lo >= hi || kept * 2 < cut.min(text.len()) {
        keep = blocks.iter().map(|(p, _)| *p < cut).collect();
        if keep.iter().all(|k| !k) {
            keep = vec![true; blocks.len()];
        }
    }
    // a bare address (an image's, a share link's) is markup leaking into the text, however
    // much of it there is; an edit or update notice is the page's date stamp and a control's
    // label standing alone a button's text, neither the page's text
    for ((k, (_, b)), &c) in keep.iter_mut().zip(&blocks).zip(&code) {
        let t = b.trim();
        if t.is_empty()
            || update_notice(t)
            || control_label(t)
            || retrieved_from(t)
            || written_by(t)
            || see_all(t)
            || (forum && (poster_label(t) || (!c && post_number(t))))
        {
            *k = false;
        }
        if (t.starts_with("http://") || t.starts_with("https://"))
            && !t.contains(char::is_whitespace)
        {
            *k = false;
        }
    }
    // on a thread, a post's number goes from the list of its date and number too (alone, it
    // went above); only a thread's blocks are read, and copied only where one is edited
    let edited: Vec<Option<String>> = if forum {
        blocks
            .iter()
            .zip(&code)
            .map(|((_, b), &c)| {
                (!c && b.contains('\n') && b.lines().any(post_number)).then(|| {
                    b.lines()
                        .filter(|l| !post_number(l))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let blocks: Vec<(usize, &str)> = if edited.is_empty() {
        blocks
    } else {
        blocks
            .iter()
            .zip(&edited)
            .map(|((p, b), e)| (*p, e.as_deref().unwrap_or(b)))
            .collect()
    };
    // (a list of numbers alone is left empty)
    for ((k, (_, b)), e) in keep.iter_mut().zip(&blocks).zip(&edited) {
        *k &= !(e.is_some() && b.trim().is_empty());
    }
    // (not in an article, whose author may repeat a paragraph on purpose, nor in
    // documentation, where one sentence describes many items: `Returns the value.`)
    if !matches!(
        kind,
        crate::PageType::Article | crate::PageType::Documentation | crate::PageType::Other
    ) {
        drop_repeats(&blocks, &code, &mut keep);
    }
    rebuild(&blocks, &keep, images)
}

/// Whether a block is a comment's stamp under a post (a Q&A site's remark under a question or
/// an answer): `Commented` and when (`Commented Oct 17, 2010 at 1:03`, `commented 3 hours
/// ago`, [`when`]), in one short line. Where the comments' names are known they are
/// left out as regions; their stamps are what is left of them in the text when the names
/// say nothing.
fn comment_stamp(b: &str) -> bool {
    let t = b.trim().trim_start_matches(['-', '*', ' ']);
    if t.len() > COMMENT_STAMP_BYTES || t.contains('\n') {
        return false;
    }
    let lower = t.to_lowercase();
    COMMENT_STAMPS.iter().any(|w| {
        lower
            .strip_prefix(w)
            .filter(|rest| rest.starts_with(' '))
            .is_some_and(|rest| when(rest.trim()))
    })
}

/// Whether a short text is only a time: a clock time or a year among at most five words
/// (`Oct 17, 2010 at 1:03`, `17.10.2010, 01:03`), or so long ago (`3 hours ago`, `vor 3
/// Stunden`, `il y a 3 heures`, `hace 3 horas`) ([`comment_stamp`]).
fn when(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 5 || t.ends_with('.') {
        return false;
    }
    let clock = words.iter().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit() && c != ':');
        w.split_once(':').is_some_and(|(h, m)| {
            !h.is_empty() && !m.is_empty() && h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit())
        })
    });
    let year = words.iter().any(|w| {
        let d: String = w.chars().filter(char::is_ascii_digit).collect();
        d.len() >= 4 && (d.starts_with("19") || d.starts_with("20"))
    });
    let ago = t.contains(|c: char| c.is_ascii_digit())
        && ["ago", "vor ", "il y a", "hace", "há "]
            .iter()
            .any(|a| t.contains(a));
    clock || year || ago
}

/// Bytes of a comment's stamp at most ([`comment_stamp`]).
const COMMENT_STAMP_BYTES: usize = 60;

/// How a comment's stamp opens ([`comment_stamp`]), lowercase.
const COMMENT_STAMPS: &[&str] = &[
    "commented",
    "kommentiert",
    "commenté",
    "comentado",
    "comentó",
];

/// Whether the block above a comment's stamp is the comment: a paragraph (not a heading, a
/// list, a table or a quote) of a comment's length ([`COMMENT_BYTES`]).
fn comment_above(b: &str) -> bool {
    !markup_line(b) && b.len() <= COMMENT_BYTES
}

/// Bytes of a comment at most ([`comment_above`]): a Q&A site's comments hold 600
/// characters.
const COMMENT_BYTES: usize = 700;

/// Whether a line is only a post's number in its thread (`#12`, `- #3`): the permalink
/// forum software sets beside each post's date, not a line of the post.
fn post_number(line: &str) -> bool {
    line.trim_start_matches(['-', '*', ' '])
        .strip_prefix('#')
        .map(str::trim)
        .is_some_and(|n| {
            (1..=POST_NUMBER_DIGITS).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Digits of a post's number at most ([`post_number`]).
const POST_NUMBER_DIGITS: usize = 6;

/// Whether a block is a wiki's note of where the printed page came from (MediaWiki's
/// `Retrieved from "https://..."`, in the benchmarks' languages): one line, the opening words
/// and then only the address in quotes. Where the wiki's names are known it is left out as a
/// region (`printfooter`).
fn retrieved_from(t: &str) -> bool {
    if t.len() > RETRIEVED_BYTES || t.contains('\n') {
        return false;
    }
    let lower = t.to_lowercase();
    RETRIEVED_FROM.iter().any(|o| {
        lower.strip_prefix(o).is_some_and(|rest| {
            let url = rest.trim().trim_matches(|c: char| "\"“”„«» ".contains(c));
            (url.starts_with("http://") || url.starts_with("https://"))
                && !url.contains(char::is_whitespace)
        })
    })
}

/// Whether a block is an article's byline on a line of its own: `Written by`, alone (the
/// name in a link beside it) or with a name (`Written by: Sean Peek, Senior Analyst`), in
/// the benchmarks' languages; no sentence. On the WCXB tuning pages no reference keeps one.
fn written_by(t: &str) -> bool {
    let t = unmarked(t);
    if t.len() > BYLINE_BYTES || t.contains('\n') || t.ends_with(['.', '!', '?']) {
        return false;
    }
    let lower = t.to_lowercase();
    WRITTEN_BY.iter().any(|o| {
        lower
            .strip_prefix(o)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']))
    })
}

/// Bytes of a byline on a line of its own at most ([`written_by`]).
const BYLINE_BYTES: usize = 80;

/// How a byline on a line of its own opens ([`written_by`]), lowercase.
const WRITTEN_BY: &[&str] = &[
    "written by",
    "geschrieben von",
    "verfasst von",
    "écrit par",
    "escrito por",
    "scritto da",
    "geschreven door",
];

/// Whether a block is a line of a poster's card on a thread: a rank standing alone
/// (`Senior Member`, `Moderator`), a reputation (`Reputation: 1,204`, `3.2k points`) or a
/// reply count (`12 replies`).
fn poster_label(t: &str) -> bool {
    let t = unmarked(t);
    if t.len() > POSTER_LABEL_BYTES {
        return false;
    }
    let lower = t
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if POSTER_RANKS.contains(&lower.as_str()) {
        return true;
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    let number = |w: &str| {
        let w = w.trim_end_matches(['k', 'K']);
        !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_digit() || b == b',' || b == b'.')
    };
    match words.as_slice() {
        [n, "replies" | "reply"] => number(n) || *n == "no",
        [n, "reputation" | "karma" | "points"] => number(n),
        [w, n] => {
            matches!(
                w.trim_end_matches(':'),
                "reputation" | "rep" | "karma" | "points"
            ) && number(n)
        }
        _ => false,
    }
}

/// Bytes of a line of a poster's card at most ([`poster_label`]).
const POSTER_LABEL_BYTES: usize = 40;

/// Forum ranks standing alone on a line ([`poster_label`]), lowercase.
const POSTER_RANKS: &[&str] = &[
    "moderator",
    "administrator",
    "admin",
    "member",
    "senior member",
    "junior member",
    "new member",
    "active member",
    "well-known member",
    "established member",
    "registered user",
    "guest",
];

/// Whether a block is a link's label to the rest of a list: `See all 12 reviews`, `View all
/// 240`, `Show all 3 sizes` (a count and at most three words after it).
fn see_all(t: &str) -> bool {
    let t = unmarked(t);
    if t.len() > CONTROL_LABEL_BYTES {
        return false;
    }
    let lower = t.to_lowercase();
    let mut words = lower.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (Some("see" | "view" | "show"), Some("all"))
    ) && words.next().is_some_and(|n| {
        n.trim_end_matches(|c: char| !c.is_ascii_digit())
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b',')
            && n.starts_with(|c: char| c.is_ascii_digit())
    }) && words.count() <= 3
}

/// Bytes of a wiki's note of where a page came from at most ([`retrieved_from`]).
const RETRIEVED_BYTES: usize = 400;

/// How a wiki's note of where a printed page came from opens ([`retrieved_from`]), lowercase.
const RETRIEVED_FROM: &[&str] = &[
    "retrieved from",
    "abgerufen von",
    "récupérée de",
    "obtenido de",
    "estratto da",
    "opgehaald van",
    "obtida de",
    "pobrano z",
];

/// Whether a block is a notice of when the page (or a post) was last changed: `This page was
/// last modified on Jul 15, 2025 by ...` under a documentation page, `Last edited by ... on
/// ...` under a forum post, `Last updated on ...` by an article's byline. It opens with one
/// of [`UPDATE_OPENINGS`] and is short (under [`UPDATE_NOTICE_BYTES`]): a paragraph that
/// begins so and goes on is text. On the WCXB tuning pages 44 of the 50 such lines (in
/// English) trawl wrote were not in the references (the rest: two shops' `Last updated on
/// ... View all revisions`, three articles' date lines and one forum post's edit notice).
fn update_notice(t: &str) -> bool {
    let t = t.trim_start_matches(['#', '*', '_', ' ']);
    if t.len() >= UPDATE_NOTICE_BYTES {
        return false;
    }
    // (the longest opening is 21 characters)
    let head = t.chars().take(24).collect::<String>().to_lowercase();
    UPDATE_OPENINGS.iter().any(|o| head.starts_with(o))
}

/// Bytes under which a block opening like an update notice is one ([`update_notice`]).
const UPDATE_NOTICE_BYTES: usize = 200;

/// How notices of a page's last change open ([`update_notice`]), lowercase, in the
/// languages of the benchmarks' pages and their neighbours.
const UPDATE_OPENINGS: &[&str] = &[
    "last modified",
    "last edited",
    "last reviewed",
    "last update",
    "updated on",
    "this page was last",
    "page last updated",
    "page last modified",
    "zuletzt aktualisiert",
    "zuletzt geändert",
    "zuletzt bearbeitet",
    "letzte aktualisierung",
    "letzte änderung",
    "dernière mise à jour",
    "mis à jour le",
    "última actualización",
    "ultima actualización",
    "actualizado el",
    "ultimo aggiornamento",
    "laatst bijgewerkt",
];

/// A block's text without the marks its markup opens with (a heading's `#`, a list item's
/// `-`, emphasis), for the whole-line tests below.
fn unmarked(t: &str) -> &str {
    t.trim_start_matches(['#', '*', '_', ' ', '-'])
}

/// Whether a block is the label of a control standing alone, not text: a quote's `Click to
/// expand...` (XenForo's), a teaser's `Read more »` or `Read full article`, `Show more`,
/// `Sign in` (compared whole, lowercase, without the arrows and dots after it), and the same
/// labels in the other languages of the benchmarks' pages (`Weiterlesen`, `Lire la suite`).
/// Of such blocks trawl wrote on the WCXB tuning pages, the references kept a few `Read more`
/// sentences (`Read more about ...`, text: not a whole label) and no bare label.
fn control_label(t: &str) -> bool {
    let t = unmarked(t);
    if t.len() > CONTROL_LABEL_BYTES {
        return false;
    }
    let core = t
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    CONTROL_LABELS.contains(&core.as_str()) || loading_placeholder(&core, t)
}

/// Whether a block is a placeholder a script fills when it loads (`Loading...`,
/// `Loading specifications…`, `Chargement…`): a loading word and at most one more, then
/// dots.
fn loading_placeholder(core: &str, t: &str) -> bool {
    let mut words = core.split_whitespace();
    words.next().is_some_and(|w| LOADING_WORDS.contains(&w))
        && words.count() <= 1
        && (t.ends_with("...") || t.ends_with('…'))
}

/// A placeholder's loading word ([`loading_placeholder`]), lowercase.
const LOADING_WORDS: &[&str] = &[
    "loading",
    "chargement",
    "cargando",
    "carregando",
    "caricamento",
    "laden",
    "lädt",
];

/// Bytes over which a block is no control's label ([`control_label`]).
const CONTROL_LABEL_BYTES: usize = 60;

/// Controls' labels ([`control_label`]), lowercase. (A reading time, `6 min read`, was
/// tried too: a listing's reference keeps it on each item.)
const CONTROL_LABELS: &[&str] = &[
    "click to expand",
    "read more",
    "read full article",
    "read full story",
    "continue reading",
    "show more",
    "see more",
    "load more",
    "view more",
    "sign in",
    "log in",
    // a post's controls on a thread or under a comment
    "reply",
    "reply with quote",
    "quote",
    "multi-quote",
    "multiquote",
    "report",
    "report post",
    "report abuse",
    "report this post",
    "report this comment",
    "permalink",
    "link to post",
    "link to this post",
    // a poster's presence
    "online",
    "offline",
    "online now",
    // the same in the benchmarks' other languages
    "weiterlesen",
    "mehr lesen",
    "mehr anzeigen",
    "mehr laden",
    "artikel lesen",
    "anmelden",
    "einloggen",
    "lire la suite",
    "lire plus",
    "voir plus",
    "afficher plus",
    "se connecter",
    "leer más",
    "seguir leyendo",
    "ver más",
    "mostrar más",
    "iniciar sesión",
    "leggi tutto",
    "leggi di più",
    "continua a leggere",
    "mostra di più",
    "accedi",
    "lees meer",
    "lees verder",
    "toon meer",
    "inloggen",
    "leia mais",
    "continuar lendo",
    "ver mais",
    "czytaj więcej",
    "czytaj dalej",
    "pokaż więcej",
    "zaloguj się",
];

/// Characters a block needs before a second copy of it is a repeat, not a phrase that
/// recurs (`Read more`, a product's name under each of its photos).
const REPEAT_MIN_CHARS: usize = 80;

/// A block written again word for word ([`REPEAT_MIN_CHARS`] or more, not code) goes: the
/// same description under each variant of a product, a template's placeholder in every
/// card, a quoted post, a notice served twice; the first copy stays where it was. On the
/// pages a template builds (threads, products, grids, listings, service pages).
fn drop_repeats(blocks: &[(usize, &str)], code: &[bool], keep: &mut [bool]) {
    let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for (i, (_, b)) in blocks.iter().enumerate() {
        let t = b.trim();
        if keep[i] && !code[i] && t.len() >= REPEAT_MIN_CHARS && !seen.insert(t) {
            keep[i] = false;
        }
    }
}

/// The blocks of walked text (`\n\n`-separated) with their byte offsets.
fn split_blocks(text: &str) -> Vec<(usize, &str)> {
    let mut blocks = Vec::new();
    let mut pos = 0;
    for b in trawl_core::text::split_paragraphs(text) {
        blocks.push((pos, b));
        pos += b.len() + 2;
    }
    blocks
}

/// The kept blocks joined again; each image moves with the text it stands before.
fn rebuild(
    blocks: &[(usize, &str)],
    keep: &[bool],
    mut images: Vec<ImageRef>,
) -> (String, Vec<ImageRef>) {
    let mut out = String::new();
    // new offset of each old block start (kept or not: where its text would have been)
    let mut new_start = Vec::with_capacity(blocks.len());
    for ((_, b), k) in blocks.iter().zip(keep) {
        new_start.push(out.len()); // before the separator, as the walker records it
        if *k {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(b);
        }
    }
    for im in &mut images {
        // images stand at a block boundary: the first kept block starting at or after them
        let i = blocks.partition_point(|(p, _)| *p < im.offset);
        im.offset = (i..blocks.len())
            .find(|&j| keep[j])
            .map_or(out.len(), |j| new_start[j])
            .min(out.len());
    }
    (out, images)
}

/// Whether two inline elements written one after the other with no space between them
/// (`<span>HOKA</span><span>Clifton 10</span>`, a card's brand and name that a style sheet
/// lays out on two lines) meet at a word boundary: `left` is the last character before, then
/// the first two shown after. A lowercase letter then a capital (`NecklacesSee`), a capital
/// word then a capitalised one (`HOKAClifton`, not `AC`/`TUARIAL`), a letter then a digit
/// (`Time50`), a number then a capital (`26Sep`, not `1st` or `51g`).
fn inline_boundary(left: Option<char>, first: char, second: Option<char>) -> bool {
    let Some(left) = left else {
        return false;
    };
    if left.is_lowercase() {
        first.is_uppercase() || first.is_numeric()
    } else if left.is_uppercase() {
        first.is_numeric() || (first.is_uppercase() && second.is_some_and(char::is_lowercase))
    } else if left.is_numeric() {
        first.is_uppercase()
    } else {
        false
    }
}

pub(crate) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Walker<'s> {
    scores: &'s crate::score::Scores,
    out: String,
    cur: String,
    images: Vec<ImageRef>,
    base: Option<url::Url>,
    keep_images: bool,
    root_is_content: bool,
    depth: usize,
    /// What the walk drops.
    prune: Prune,
    /// The root's text (characters), against which a labelled teaser section is small.
    root_text: u32,
    /// The comment-section labels that mark a section to leave out (none on a thread).
    comment_labels: &'static [&'static str],
    /// The labelled teaser and comment sections left out: where in `out` each stood, its
    /// text (characters, about its bytes), and what its label names.
    labelled: Vec<(usize, usize, Label)>,
    /// Where in `out` each definition term (`<dt>`) starts: on documentation, the term a
    /// definition list defines (an API signature, a glossary word), never a stray label
    /// ([`tidy`]).
    terms: Vec<usize>,
    /// The next block written is a definition term.
    term_next: bool,
    /// Nesting inside `<blockquote>`.
    quotes: usize,
    /// Hashes of the blocks written so far (those of [`QUOTE_MIN_BYTES`] or more).
    said: rustc_hash::FxHashSet<u64>,
    /// The containers written so far (those of [`COPY_MIN_BYTES`] or more, of more than one
    /// block), where their text lies in `out`, by a key of its length and edges.
    written: rustc_hash::FxHashMap<u64, Vec<(usize, usize)>>,
    /// Bytes of text other than whitespace at its edges written so far (a text node's
    /// trimmed length).
    pushed: usize,
    /// A code block has been written.
    code_written: bool,
    /// Nesting inside layout tables ([`layout_table`]): their rows and cells are blocks.
    layout: usize,
    /// The last thing written was an inline element with 2+ characters, nothing after it.
    inline_end: bool,
    /// An inline element starts right after such a one: a space goes between them if they
    /// meet at a word boundary ([`inline_boundary`]).
    space_pending: bool,
}

/// The [`COPY_WINDOW`] elements on either side of `n`.
fn beside<'a>(n: ego_tree::NodeRef<'a, Node>) -> impl Iterator<Item = ElementRef<'a>> {
    let before = n
        .prev_siblings()
        .filter_map(ElementRef::wrap)
        .take(COPY_WINDOW);
    let after = n
        .next_siblings()
        .filter_map(ElementRef::wrap)
        .take(COPY_WINDOW);
    before.chain(after)
}

/// An element and the elements it wraps alone, two levels down (a component's wrapper
/// around its one block): where a copy's responsive class may sit, and where a card's
/// caption holds its blocks ([`is_caption`]).
fn wrapped(e: ElementRef<'_>) -> impl Iterator<Item = ElementRef<'_>> {
    std::iter::successors(Some(e), |x| {
        let mut kids = x.children().filter(|c| match c.value() {
            Node::Text(t) => !t.trim().is_empty(),
            Node::Element(_) => true,
            _ => false,
        });
        let only = kids.next().and_then(ElementRef::wrap);
        only.filter(|_| kids.next().is_none())
    })
    .take(3)
}

/// How far up from a phone's copy of a section its desktop copy is looked for: beside the
/// element itself, its parent or its grandparent ([`Walker::phone_copy`]; a label's phone
/// and desktop copies often sit in wrappers of their own).
const PHONE_COPY_DEPTH: usize = 3;

/// How many elements on either side of a phone's copy (and of its parent and grandparent) are
/// looked at for its desktop copy ([`Walker::phone_copy`]): the two copies stand side by side.
const COPY_WINDOW: usize = 4;

/// How much longer than a phone's copy its desktop copy may be, times and bytes more
/// ([`Walker::phone_copy`]): a desktop copy shows the same section, perhaps with a picture's
/// caption or a column more, not the page.
const COPY_LENGTH: f32 = 4.0;
const COPY_SLACK: f32 = 400.0;

/// How many of a phone copy's words (distinct ones) its desktop copy holds at least
/// ([`Walker::phone_copy`]): a desktop copy that shows a part of a list (a script loads the
/// rest), or another section shown on desktops only, is no copy.
const WIDE_COPY_SHARE: f32 = 0.8;

/// A container's text this long, of more than one block, that repeats an earlier
/// container's is a copy of it (a section served once per screen size).
const COPY_MIN_BYTES: usize = 200;
/// Bytes at each edge of a container's text that key it (with its length).
const COPY_EDGE: usize = 32;

/// A quoted block this long that repeats a block already written is a quotation of the
/// page's own text (a forum reply quoting the post above): written once.
const QUOTE_MIN_BYTES: usize = 60;

/// What the walk drops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prune {
    /// Boilerplate regions and regions of negative mass.
    Full,
    /// Boilerplate regions and link-heavy regions of negative mass: a root spread over a
    /// landing page's sections, whose headings and short feature lines cost more than
    /// they bring one by one but are the page's text.
    Sections,
    /// Boilerplate regions only (a page where nothing scores as prose).
    Boilerplate,
    /// Boilerplate regions only, and lists of links are items (a listing page's root).
    Items,
    /// Nothing (the LLM's view of the page).
    Nothing,
}

/// Prose (about its characters of sentence text: one sentence) that keeps a region of
/// negative mass from being dropped whole: its link lists go, its sentences stay.
const KEEP_PROSE: f32 = 60.0;

/// Nesting beyond this is flattened to inline text, so hostile pages cannot overflow the
/// stack (browsers cap nesting similarly).
const MAX_DEPTH: usize = 256;

/// Whether an inline element holds more text than its scores count: the scorer gives an
/// inline element's own text to the block around it, so an element it does not know as a
/// block (a custom element, a `<span>` or `<font>` holding a story's paragraphs split by
/// `<br>`s) is scored by the blocks inside it alone (an ad, a link list), and its mass says
/// nothing of the text around them.
fn holds_unscored_text(e: ElementRef<'_>, st: &crate::score::Stat) -> bool {
    if crate::score::is_block(e.value().name()) {
        return false;
    }
    let mut n = 0u32;
    for t in e.text() {
        n += t.chars().filter(|c| !c.is_whitespace()).count() as u32;
        if n > 2 * st.text + KEEP_PROSE as u32 {
            return true;
        }
    }
    false
}

impl Walker<'_> {
    fn flush(&mut self) {
        self.inline_end = false;
        let block = self.cur.trim();
        let only_marker = block
            .trim_start_matches(['#', '-', '>', ' '])
            .trim()
            .is_empty();
        if !block.is_empty() && !only_marker {
            let cleaned = block
                .lines()
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join("\n");
            let said = cleaned.len() >= QUOTE_MIN_BYTES && {
                let bare = cleaned.trim_start_matches(['>', ' ']);
                !self.said.insert(std::hash::BuildHasher::hash_one(
                    &rustc_hash::FxBuildHasher,
                    bare,
                ))
            };
            if !(said && self.quotes > 0) {
                if !self.out.is_empty() {
                    self.out.push_str("\n\n");
                }
                if self.term_next {
                    self.terms.push(self.out.len());
                }
                self.out.push_str(&cleaned);
            }
        }
        self.cur.clear();
        self.term_next = false;
    }

    /// Whether `e` is the copy of a section a page serves for phones beside the desktop one:
    /// its class hides it on a desktop-wide screen ([`crate::score::responsive`]), and an
    /// element near it (among the [`COPY_WINDOW`] elements on either side of it, of its
    /// parent or of its grandparent, [`PHONE_COPY_DEPTH`], or wrapped alone in one of them:
    /// [`wrapped`]), shown from a desktop's width on
    /// and about as long ([`COPY_LENGTH`]), holds at least [`WIDE_COPY_SHARE`] of its words.
    /// A reader on a desktop sees that one; written, the text would stand twice. Without such
    /// an element it stays: the desktop layout may be drawn by a script, the phone's copy the
    /// only text served. The window and the length keep the check linear in the page: a page
    /// of ten thousand phone-only spans beside one long desktop block reads each span's
    /// neighbours, not every sibling's words for every span.
    fn phone_copy(&self, e: ElementRef<'_>) -> bool {
        use crate::score::{responsive, Screens};
        if attr(e.value(), "class").and_then(responsive) != Some(Screens::Narrow) {
            return false;
        }
        let Some(text) = self.scores.get(e.id()).map(|s| s.text as f32) else {
            return false;
        };
        let words = |x: ElementRef<'_>| -> rustc_hash::FxHashSet<String> {
            x.text()
                .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        };
        let mut phone = None;
        std::iter::once(*e)
            .chain(e.ancestors())
            .take(PHONE_COPY_DEPTH)
            .flat_map(beside)
            .flat_map(wrapped)
            .filter(|s| {
                attr(s.value(), "class").and_then(responsive) == Some(Screens::Wide)
                    && self.scores.get(s.id()).is_some_and(|st| {
                        let t = st.text as f32;
                        t >= WIDE_COPY_SHARE * text && t <= COPY_LENGTH * text + COPY_SLACK
                    })
            })
            .any(|s| {
                let phone = phone.get_or_insert_with(|| words(e));
                let desk = words(s);
                let shared = phone.iter().filter(|w| desk.contains(*w)).count();
                !phone.is_empty() && shared as f32 >= WIDE_COPY_SHARE * phone.len() as f32
            })
    }

    fn push_text(&mut self, t: &str) {
        if !t.is_empty() {
            self.inline_end = false;
            if std::mem::take(&mut self.space_pending) {
                let mut shown = t.chars();
                if let Some(first) = shown.next().filter(|c| !c.is_whitespace()) {
                    if inline_boundary(self.cur.chars().next_back(), first, shown.next()) {
                        self.cur.push(' ');
                    }
                }
            }
        }
        let mut last_space = self.cur.is_empty() || self.cur.ends_with([' ', '\n']);
        self.pushed += t.trim().len();
        let b = t.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // a run of printable ASCII other than spaces goes in at once
            let run = b[i..]
                .iter()
                .position(|c| !c.is_ascii_graphic())
                .map_or(b.len(), |k| i + k);
            if run > i {
                self.cur.push_str(&t[i..run]);
                last_space = false;
                i = run;
                continue;
            }
            let Some(ch) = t[i..].chars().next() else {
                break;
            };
            i += ch.len_utf8();
            // soft hyphens and stray byte-order marks are invisible: a reader sees one word
            if matches!(ch, '\u{ad}' | '\u{feff}') {
                continue;
            }
            // control characters (ESC sequences, BEL, C1 such as CSI) are not text: a document
            // holds none, so no reader's terminal or tokenizer meets them
            if ch.is_control() && !ch.is_whitespace() {
                continue;
            }
            if ch.is_whitespace() {
                if !last_space {
                    self.cur.push(' ');
                    last_space = true;
                }
            } else {
                self.cur.push(ch);
                last_space = false;
            }
        }
    }

    fn walk(&mut self, e: ElementRef<'_>, list_depth: usize) {
        if self.depth >= MAX_DEPTH {
            for t in e.text() {
                self.push_text(t);
            }
            return;
        }
        self.depth += 1;
        self.walk_children(e, list_depth);
        self.depth -= 1;
    }

    fn walk_children(&mut self, e: ElementRef<'_>, list_depth: usize) {
        for child in e.children() {
            match child.value() {
                Node::Text(t) => self.push_text(t),
                Node::Element(_) => {
                    let Some(ce) = ElementRef::wrap(child) else {
                        continue;
                    };
                    self.element(ce, list_depth);
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, e: ElementRef<'_>, list_depth: usize) {
        let before = (self.out.len(), self.cur.len());
        self.element_body(e, list_depth);
        // a block left out (a share bar, a navigation, an ad between two runs of a
        // paragraph's text) still ends the line before it: the words on either side of it
        // are two, not one (`ends herethe second`)
        if before == (self.out.len(), self.cur.len())
            && crate::score::is_block(e.value().name())
            && !self.cur.is_empty()
            && !self.cur.ends_with([' ', '\n'])
        {
            self.cur.push(' ');
        }
    }

    fn element_body(&mut self, e: ElementRef<'_>, list_depth: usize) {
        let name = e.value().name();
        if name == "button" && disclosure_question(e) {
            // inside a heading it is the heading's text; elsewhere a line of its own
            let heading = e
                .ancestors()
                .filter_map(ElementRef::wrap)
                .take(3)
                .any(|p| crate::score::is_heading(p.value().name()));
            if !heading {
                self.flush();
            }
            self.walk(e, list_depth);
            if !heading {
                self.flush();
            }
            return;
        }
        if SKIP_TAGS.contains(&name) {
            return;
        }
        // a form is a search box or a login, unless it holds prose: forum software wraps a
        // thread's posts in one (for moderation), ASP.NET the whole page
        if name == "form" && self.scores.get(e.id()).is_none_or(|s| s.prose < KEEP_PROSE) {
            return;
        }
        if self.prune != Prune::Nothing && self.phone_copy(e) {
            return;
        }
        if let Some(st) = self
            .scores
            .get(e.id())
            .filter(|_| self.prune != Prune::Nothing)
        {
            if st.boiler {
                if st.text >= 100 {
                    tracing::trace!(tag = name, class = ?e.value().attr("class"), text = st.text, "walker skips a boilerplate region");
                }
                return;
            }
            // negative mass: more links, fragments and boilerplate than prose
            // (a region of negative mass holding a good deal of prose is walked into: its
            // link lists go, its prose stays)
            let drops = |st: &crate::score::Stat| {
                let link_heavy = st.link as f32 > 0.3 * st.text as f32;
                ((self.prune == Prune::Full && (link_heavy || st.mass < -20.0))
                    || (self.prune == Prune::Sections && link_heavy))
                    && st.mass < 0.0
                    && st.prose < KEEP_PROSE
            };
            // unless it is one of a list of like regions the walk keeps (an FAQ's entries,
            // a guide's steps) and no more than half link text (an answer of links to the
            // tools it names), or lies in such a region
            let spared = |x: ElementRef<'_>| {
                self.scores.get(x.id()).is_some_and(|s| {
                    drops(s) && s.link * 2 < s.text && kept_twin(x, self.scores, &drops)
                })
            };
            if drops(st)
                && !linked_text_block(e, st)
                && !holds_unscored_text(e, st)
                && !spared(e)
                && !e
                    .ancestors()
                    .filter_map(ElementRef::wrap)
                    .take(SPARED_DEPTH)
                    .any(spared)
            {
                // every drop with its words, for `bench/wcxb_drops.py` (rendered only when the
                // trace is on)
                if tracing::enabled!(tracing::Level::TRACE) {
                    tracing::trace!(tag = name, class = ?e.value().attr("class"), text = st.text, link = st.link, mass = st.mass, prose = st.prose, words = %collapse(&e.text().collect::<Vec<_>>().join(" ")), "walker drops a region");
                }
                return;
            }
        }
        // a teaser section set inside the article (a third of it at most), or a comment
        // section, is left out; where it stood may still end the article
        // ([`stop_label_cut`])
        if let Some(st) = self.scores.get(e.id()).filter(|_| {
            matches!(self.prune, Prune::Full | Prune::Sections)
                && matches!(name, "div" | "section" | "aside" | "article" | "ul" | "ol")
        }) {
            let small = st.text * 3 < self.root_text;
            if let Some(label) =
                labelled_section(e, self.comment_labels).filter(|l| small || *l == Label::Comments)
            {
                tracing::trace!(tag = name, class = ?e.value().attr("class"), ?label, "walker drops a labelled section");
                self.flush();
                self.labelled
                    .push((self.out.len(), st.text as usize, label));
                return;
            }
        }
        if name == "header" && !self.root_is_content {
            return;
        }
        if name == "figcaption" || is_caption(&e) {
            // captions and photo credits belong to their image (ImageRef::caption), not to
            // the running text; an image without a <figure> takes the caption after it
            if let Some(last) = self
                .images
                .last_mut()
                .filter(|im| im.caption.is_none() && im.offset == self.out.len())
            {
                let c = collapse(&rendered_text(e));
                if !c.is_empty() && name != "figcaption" {
                    last.caption = Some(c);
                }
            }
            return;
        }
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                let level = name[1..].parse::<usize>().unwrap_or(1);
                self.cur.push_str(&"#".repeat(level));
                self.cur.push(' ');
                self.walk(e, list_depth);
                // a heading is one line: its line breaks (`<h3><br>Step 1</h3>`) are spaces
                if self.cur.contains('\n') {
                    self.cur = collapse(&self.cur);
                }
                self.flush();
            }
            "ul" | "ol" => {
                let intro = self.scores.get(e.id()).is_some_and(|s| s.intro);
                if self.prune != Prune::Items && !intro && link_dense_list(e) {
                    return;
                }
                self.flush();
                let ordered = name == "ol";
                let mut n = 0;
                for li in e.children().filter_map(ElementRef::wrap) {
                    if li.value().name() != "li" {
                        self.element(li, list_depth + 1);
                        continue;
                    }
                    n += 1;
                    self.flush();
                    self.cur.push_str(&"  ".repeat(list_depth));
                    if ordered {
                        self.cur.push_str(&format!("{n}. "));
                    } else {
                        self.cur.push_str("- ");
                    }
                    self.walk(li, list_depth + 1);
                    self.flush_list_item();
                }
                self.flush();
            }
            "pre" => {
                self.flush();
                let code = pre_text(e);
                // (the last line's trailing spaces are invisible: the space before a copy
                // button)
                let code = code.trim_start_matches('\n').trim_end();
                if !code.trim().is_empty() {
                    self.cur.push_str("```\n");
                    self.cur.push_str(code);
                    self.cur.push_str("\n```");
                    // verbatim: bypass trimming of inner lines
                    if !self.out.is_empty() {
                        self.out.push_str("\n\n");
                    }
                    self.out.push_str(&self.cur);
                    self.cur.clear();
                    self.code_written = true;
                }
            }
            // a table laying out the page (posts beside their authors, columns): its cells are
            // blocks, walked like the rest of the page (a Markdown table would keep the reply
            // links and the author cards beside each post)
            "table" if layout_table(e) => {
                self.flush();
                self.layout += 1;
                self.walk(e, list_depth);
                self.layout -= 1;
                self.flush();
            }
            "tr" | "td" | "th" if self.layout > 0 => {
                self.flush();
                self.walk(e, list_depth);
                self.flush();
            }
            "table" => {
                self.flush();
                let table = render_table(e);
                if !table.is_empty() {
                    if !self.out.is_empty() {
                        self.out.push_str("\n\n");
                    }
                    self.out.push_str(&table);
                }
            }
            "br" => self.cur.push('\n'),
            "hr" => self.flush(),
            "img" => self.image(e, None),
            "figure" => {
                self.flush();
                let first = self.images.len();
                self.walk(e, list_depth);
                self.flush();
                let cap_sel = &*FIGCAPTION;
                if let Some(cap) = e.select(cap_sel).next() {
                    let c = collapse(&rendered_text(cap));
                    if !c.is_empty() {
                        for im in &mut self.images[first..] {
                            im.caption = Some(c.clone());
                        }
                    }
                }
            }
            "blockquote" => {
                self.flush();
                self.quotes += 1;
                self.cur.push_str("> ");
                self.walk(e, list_depth);
                self.flush();
                self.quotes -= 1;
            }
            "p" | "div"
                if bold_subheading(e)
                    && (name == "p"
                        || e.next_siblings()
                            .find_map(ElementRef::wrap)
                            .is_some_and(|n| n.value().name() == "p")) =>
            {
                // `<p><strong>Short title</strong></p>`: how many sites write subheadings
                // (and page builders, in a `<div>` of its own above the paragraphs it heads;
                // a `<div>` of bold words elsewhere is as often a badge, `Senior Member`)
                self.flush();
                self.cur.push_str("#### ");
                self.walk(e, list_depth);
                self.flush();
            }
            n if BLOCK_TAGS.contains(&n) => {
                self.flush();
                let (start, first_image) = (self.out.len(), self.images.len());
                self.walk(e, list_depth);
                self.term_next = n == "dt";
                self.flush();
                self.drop_copy(start, first_image);
                // (a copy dropped takes its terms with it; they are the last ones noted)
                while self.terms.last().is_some_and(|&t| t >= self.out.len()) {
                    self.terms.pop();
                }
            }
            _ => {
                // inline: a card's fields in spans side by side (`<span>HOKA</span><span>
                // Clifton 10</span>`) are laid out apart by the style sheet; without it
                // they would run together (an empty element between them changes nothing)
                let was = self.inline_end;
                self.space_pending = was;
                let before = self.pushed;
                self.walk(e, list_depth);
                self.space_pending = false;
                self.inline_end = if self.pushed == before {
                    was
                } else {
                    self.pushed >= before + 2
                };
            }
        }
    }

    /// A container whose text repeats a container written before it, word for word, is a
    /// copy: page builders serve one copy of a section per screen size and let the style
    /// sheet hide all but one. The copy goes (with its images).
    fn drop_copy(&mut self, start: usize, first_image: usize) {
        let text = self.out[start..].trim_start_matches('\n');
        if text.len() < COPY_MIN_BYTES || !several_blocks(text, self.code_written) {
            return;
        }
        // keyed by length and edges, so a container costs the same however long its text
        // (wrappers nest deep); equal keys compare the text itself
        let (b, n) = (text.as_bytes(), text.len());
        let key = std::hash::BuildHasher::hash_one(
            &rustc_hash::FxBuildHasher,
            (n, &b[..COPY_EDGE], &b[n - COPY_EDGE..]),
        );
        let at = self.out.len() - n;
        let copy = self.written.get(&key).is_some_and(|ranges| {
            ranges.iter().any(|&(s, e)| {
                // an earlier container that ends before this one starts (not a wrapper's
                // child), its text still in place
                e <= start && self.out.get(s..e) == Some(text)
            })
        });
        if copy {
            tracing::trace!(bytes = n, "walker drops a copy of a container");
            self.out.truncate(start);
            self.images.truncate(first_image);
        } else {
            self.written.entry(key).or_default().push((at, at + n));
        }
    }

    /// List items are single lines joined by one newline, not a blank line.
    fn flush_list_item(&mut self) {
        let item = self.cur.trim_end().to_string();
        self.cur.clear();
        let content = item
            .trim_start()
            .trim_start_matches(|c: char| c == '-' || c.is_ascii_digit() || c == '.')
            .trim();
        if content.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            let prev_is_item = self.out.rsplit('\n').next().is_some_and(|l| {
                let l = l.trim_start();
                l.starts_with("- ")
                    || l.split_once(". ")
                        .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
            });
            self.out.push_str(if prev_is_item { "\n" } else { "\n\n" });
        }
        self.out.push_str(&item);
    }

    fn image(&mut self, e: ElementRef<'_>, caption: Option<String>) {
        if !self.keep_images {
            return;
        }
        let v = e.value();
        let src = image_source(e);
        let src = src.as_deref().unwrap_or("").trim();
        if src.is_empty() || src.starts_with("data:") {
            return;
        }
        let abs = match &self.base {
            Some(b) => b
                .join(src)
                .map(|u| u.to_string())
                .unwrap_or_else(|_| src.to_string()),
            None => src.to_string(),
        };
        self.flush();
        let dim =
            |k: &str| attr(v, k).and_then(|s| s.trim().trim_end_matches("px").parse::<u32>().ok());
        self.images.push(ImageRef {
            src: abs,
            alt: collapse(attr(v, "alt").unwrap_or("")),
            offset: self.out.len(),
            title: attr(v, "title").map(collapse).filter(|t| !t.is_empty()),
            caption,
            width: dim("width"),
            height: dim("height"),
        });
    }
}

/// An element whose class marks it as an image caption or photo credit.
/// A caption by its class (`wp-caption-text`, `photo-credit`); one holding a heading or
/// three blocks of its own, inside wrappers or not (a card's `caption` with the item's
/// category, name and blurb, the name in a heading or a `div`), is a text block, and a
/// wrapper around an image and its caption (`wp-caption`) is walked into.
fn is_caption(e: &ElementRef<'_>) -> bool {
    let named = attr(e.value(), "class").is_some_and(|c| {
        c.split(|ch: char| ch.is_whitespace() || ch == '-' || ch == '_')
            .any(|w| {
                let w = w.to_ascii_lowercase();
                matches!(
                    w.as_str(),
                    "caption"
                        | "figcaption"
                        | "credit"
                        | "credits"
                        | "imagecaption"
                        | "photocaption"
                        | "photocredit"
                        | "copyright"
                )
            })
    });
    named
        && !e.descendants().filter_map(ElementRef::wrap).any(|d| {
            let name = d.value().name();
            crate::score::is_heading(name) || name == "img"
        })
        // (through wrappers that hold the rest alone)
        && wrapped(*e)
            .last()
            .unwrap_or(*e)
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| crate::score::is_block(c.value().name()))
            .take(3)
            .count()
            < 3
}

/// Lazy-loading attributes carrying the real image URL (`src` is often a placeholder).
pub(crate) const LAZY_ATTRS: &[&str] = &[
    "data-src",
    "data-lazy-src",
    "data-original",
    "data-url",
    "data-hi-res-src",
    "data-full-src",
    "data-lazy",
];

/// The best URL of an `<img>`: the largest candidate of `srcset`/`data-srcset` (or of a
/// `<source>` in its `<picture>`), a lazy-load attribute, then `src` unless it is a
/// placeholder (`data:` URI, 1x1 spacer).
fn image_source(e: ElementRef<'_>) -> Option<String> {
    let v = e.value();
    let mut sets: Vec<&str> = ["srcset", "data-srcset", "data-lazy-srcset"]
        .iter()
        .filter_map(|k| attr(v, k))
        .collect();
    if let Some(pic) = e
        .parent()
        .and_then(ElementRef::wrap)
        .filter(|p| p.value().name() == "picture")
    {
        for src in pic
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| c.value().name() == "source")
        {
            let ty = attr(src.value(), "type").unwrap_or("");
            if ty.is_empty()
                || ty.contains("jpeg")
                || ty.contains("png")
                || ty.contains("webp")
                || ty.contains("gif")
            {
                sets.extend(
                    ["srcset", "data-srcset"]
                        .iter()
                        .filter_map(|k| attr(src.value(), k)),
                );
            }
        }
    }
    let best = sets
        .iter()
        .flat_map(|set| set.split(',').map(str::trim).filter(|c| !c.is_empty()))
        .filter_map(|cand| {
            let mut parts = cand.split_whitespace();
            let url = parts.next()?;
            let w = parts.next().map_or(1.0, |d| {
                d.trim_end_matches(['w', 'x']).parse::<f64>().unwrap_or(1.0)
            });
            (!url.starts_with("data:")).then_some((w, url))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, u)| u.to_string());
    let placeholder = |s: &str| {
        s.is_empty()
            || s.starts_with("data:")
            || ["spacer", "blank.gif", "pixel.gif", "1x1", "placeholder"]
                .iter()
                .any(|p| s.to_ascii_lowercase().contains(p))
    };
    best.or_else(|| {
        LAZY_ATTRS
            .iter()
            .filter_map(|k| attr(v, k))
            .map(str::trim)
            .find(|s| !placeholder(s))
            .map(str::to_string)
    })
    .or_else(|| {
        attr(v, "src")
            .map(str::trim)
            .filter(|s| !placeholder(s))
            .map(str::to_string)
    })
}

/// A list that is mostly short links (menus, tag clouds) is boilerplate.
fn link_dense_list(e: ElementRef<'_>) -> bool {
    let total: usize = e.text().map(|t| t.trim().len()).sum();
    if total == 0 {
        return true;
    }
    let a_sel = &*ANCHOR;
    let linked: usize = e
        .select(a_sel)
        .flat_map(|a| a.text())
        .map(|t| t.trim().len())
        .sum();
    let items = e
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| c.value().name() == "li")
        .count()
        .max(1);
    linked * 10 >= total * 8 && total / items < 40
}

/// Elements whose text a browser never shows: the parser keeps `<noscript>` content as raw
/// markup (a lazy-loading `<img>` tag, a tracking pixel), and a `<template>` is inert.
const UNRENDERED: &[&str] = &["noscript", "script", "style", "template"];

/// Whether written text holds more than one block: a blank line outside a code block (a code
/// block's own blank lines separate no blocks; `code`: the walk has written one).
fn several_blocks(text: &str, code: bool) -> bool {
    if !text.contains("\n\n") {
        return false;
    }
    if !code || !text.contains("```") {
        return true;
    }
    let mut in_code = false;
    for line in text.split('\n') {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if line.is_empty() && !in_code {
            return true;
        }
    }
    false
}

/// Elements beside [`BLOCK_TAGS`] that a browser starts on a line of their own.
const LINE_TAGS: &[&str] = &[
    "li", "ol", "ul", "table", "tr", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
];

/// The text of a `<pre>` as a browser lays it out: the text as written, a line break at
/// `<br>` and around block elements (highlighters write one `<div>` per line, with no line
/// break between them), and a line-number gutter left out (see [`pre_gutter`]).
fn pre_text(pre: ElementRef<'_>) -> String {
    let mut numbers = Vec::new();
    let out = pre_render(pre, &[], Some(&mut numbers));
    let gutter = pre_gutter(&numbers);
    if gutter.is_empty() {
        out
    } else {
        pre_render(pre, &gutter, None)
    }
}

/// Renders a `<pre>` (see [`pre_text`]) without the elements in `skip` (in document order);
/// with `numbers`, collects the elements that hold only a number and open a line, with their
/// number and whether code follows them on their line.
fn pre_render(
    pre: ElementRef<'_>,
    skip: &[ego_tree::NodeId],
    mut numbers: Option<&mut Vec<(ego_tree::NodeId, u32, bool)>>,
) -> String {
    let mut out = String::new();
    // the next element of `skip` the walk meets (a gutter of thousands of lines costs one
    // comparison per element)
    let mut skip = skip.iter().peekable();
    let line_break = |out: &mut String| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
    };
    let mut skipping: Option<ego_tree::NodeId> = None;
    for edge in pre.traverse() {
        match edge {
            ego_tree::iter::Edge::Open(n) => {
                if skipping.is_some() || n == *pre {
                    continue;
                }
                match n.value() {
                    Node::Text(t) => out.push_str(t),
                    Node::Element(el) => {
                        let name = el.name();
                        if skip.peek() == Some(&&n.id()) {
                            skip.next();
                            skipping = Some(n.id());
                            continue;
                        }
                        // (a button in a code block is its copy or run control, not code)
                        if UNRENDERED.contains(&name) || name == "button" {
                            skipping = Some(n.id());
                            continue;
                        }
                        if name == "br" {
                            out.push('\n');
                        } else if own_line(n) {
                            if blank(n) {
                                // a highlighter's icon or button: its spaces are the
                                // markup's indentation, not the code's
                                skipping = Some(n.id());
                                continue;
                            }
                            line_break(&mut out);
                        } else if el
                            .has_class("line", scraper::CaseSensitivity::AsciiCaseInsensitive)
                        {
                            // a highlighter's element per line (Shiki's `<span class="line">`)
                            // on a page that lost the line breaks between them (minified):
                            // each opens a line; where a break is there (with the template's
                            // indentation after it, which the browser shows), it adds none
                            let line = &out[out.rfind('\n').map_or(0, |i| i + 1)..];
                            if !line.trim().is_empty() {
                                out.push('\n');
                            }
                        }
                        let Some(numbers) = numbers.as_deref_mut() else {
                            continue;
                        };
                        if !(out.is_empty() || out.ends_with('\n')) {
                            continue;
                        }
                        let e = ElementRef::wrap(n).expect("an element");
                        let text: String = e.text().collect();
                        let digits = text.trim_matches([' ', '\t']);
                        if (1..=6).contains(&digits.len())
                            && digits.bytes().all(|b| b.is_ascii_digit())
                        {
                            let followed = code_follows(n);
                            numbers.push((n.id(), digits.parse().unwrap_or(0), followed));
                            out.push_str(&text);
                            skipping = Some(n.id());
                        }
                    }
                    _ => {}
                }
            }
            ego_tree::iter::Edge::Close(n) => {
                if skipping == Some(n.id()) {
                    skipping = None;
                } else if skipping.is_none() && n != *pre && own_line(n) {
                    line_break(&mut out);
                }
            }
        }
    }
    out
}

/// Whether a browser lays an element out on lines of its own: a block element (inside a
/// `<pre>` a line break, elsewhere on one line a space).
fn own_line(n: ego_tree::NodeRef<'_, Node>) -> bool {
    n.value()
        .as_element()
        .is_some_and(|el| BLOCK_TAGS.contains(&el.name()) || LINE_TAGS.contains(&el.name()))
}

/// Whether a node inside a `<pre>` shows nothing: no text but spaces, no line break.
fn blank(n: ego_tree::NodeRef<'_, Node>) -> bool {
    !n.descendants().any(|d| match d.value() {
        Node::Text(t) => t.chars().any(|c| c == '\n' || !c.is_whitespace()),
        Node::Element(el) => el.name() == "br",
        _ => false,
    })
}

/// Whether text follows an element on its line inside a `<pre>`: text in the siblings after
/// it before the next line break written in the page.
fn code_follows(n: ego_tree::NodeRef<'_, Node>) -> bool {
    for sibling in n.next_siblings() {
        for t in sibling.descendants().filter_map(|d| d.value().as_text()) {
            let (line, rest) = t
                .split_once('\n')
                .map_or((&**t, None), |(l, r)| (l, Some(r)));
            if !line.trim().is_empty() {
                return true;
            }
            if rest.is_some() {
                return false;
            }
        }
    }
    false
}

/// A line-number gutter among the numbers that open lines of a `<pre>`: two or more, counting
/// up by one from line to line, most of them with the line's code after them
/// (`<span>1</span><div>export ...</div>`). A program's output that counts (`1`, `2`, `3` each
/// on a line of its own) has nothing after its numbers and stays.
fn pre_gutter(numbers: &[(ego_tree::NodeId, u32, bool)]) -> Vec<ego_tree::NodeId> {
    let counts_up = numbers.windows(2).all(|w| w[1].1 == w[0].1 + 1);
    let followed = numbers.iter().filter(|n| n.2).count();
    if numbers.len() < 2 || !counts_up || followed * 2 < numbers.len() {
        return Vec::new();
    }
    numbers.iter().map(|n| n.0).collect()
}

/// The text of `e` as a browser shows it, on one line: without [`UNRENDERED`] elements, a
/// space where a browser breaks the line (`<br>`, the edges of a block: a table cell's
/// paragraphs, a caption's lines), so that words on two lines do not run together.
fn rendered_text(e: ElementRef<'_>) -> String {
    // in document order, without recursion (the depth is the page's)
    let mut out = String::new();
    let breaks = |n: ego_tree::NodeRef<'_, Node>| {
        own_line(n) || n.value().as_element().is_some_and(|el| el.name() == "br")
    };
    let mut skipping: Option<ego_tree::NodeId> = None;
    for edge in e.traverse() {
        match edge {
            ego_tree::iter::Edge::Open(n) if skipping.is_none() => match n.value() {
                Node::Text(t) => out.push_str(t),
                Node::Element(el) if UNRENDERED.contains(&el.name()) => skipping = Some(n.id()),
                _ if breaks(n) => out.push(' '),
                _ => {}
            },
            ego_tree::iter::Edge::Close(n) => {
                if skipping == Some(n.id()) {
                    skipping = None;
                } else if skipping.is_none() && breaks(n) {
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
    out
}

/// Text in one cell, in blocks, that makes its table a layout table.
const LAYOUT_CELL_BYTES: usize = 200;
/// The blocks of text a layout table's cell holds.
const LAYOUT_BLOCKS: &[&str] = &[
    "p",
    "div",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
];

/// Whether a table lays out a page rather than holding data (as old forums lay out a post
/// beside its author's card, and page templates their columns): `role=presentation`, a
/// table inside it (tables side by side under a common title are laid out, each its own
/// data), or a cell holding blocks (a paragraph, a list, a heading) with
/// [`LAYOUT_CELL_BYTES`] of text unless the table has a header row or a caption (a
/// schedule whose cells hold long notes is data).
fn layout_table(t: ElementRef<'_>) -> bool {
    if attr(t.value(), "role") == Some("presentation")
        || t.descendants()
            .skip(1)
            .filter_map(ElementRef::wrap)
            .any(|e| e.value().name() == "table")
    {
        return true;
    }
    // a header row or a caption: the table holds data, however long its cells
    if t.descendants()
        .filter_map(ElementRef::wrap)
        .any(|e| matches!(e.value().name(), "th" | "thead" | "caption"))
    {
        return false;
    }
    t.descendants()
        .skip(1)
        .filter_map(ElementRef::wrap)
        .any(|e| {
            if e.value().name() != "td" {
                return false;
            }
            let blocks = e
                .descendants()
                .filter_map(ElementRef::wrap)
                .any(|b| LAYOUT_BLOCKS.contains(&b.value().name()));
            blocks && e.text().map(|x| x.trim().len()).sum::<usize>() >= LAYOUT_CELL_BYTES
        })
}

/// A data table as Markdown: its rows and their cells, padded to the widest row. Only for
/// a table holding no table ([`layout_table`] lays such a table out instead), so every row
/// below it is its own.
fn render_table(t: ElementRef<'_>) -> String {
    let rows: Vec<Vec<String>> = t
        .select(&TR)
        .map(|r| {
            r.children()
                .filter_map(ElementRef::wrap)
                .filter(|c| matches!(c.value().name(), "td" | "th"))
                .map(|c| collapse(&rendered_text(c)).replace('|', "\\|"))
                .collect::<Vec<_>>()
        })
        .filter(|r| r.iter().any(|c| !c.is_empty()))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let mut cells = r.clone();
        cells.resize(width, String::new());
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if i == 0 {
            out.push_str(&format!("|{}\n", " --- |".repeat(width)));
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tidy` on a text alone: no images, title, thread, labels or terms.
    fn tidied(text: &str, kind: crate::PageType) -> String {
        tidy(text, Vec::new(), None, false, kind, &[], &[]).0
    }

    #[test]
    fn attribute_lookup_matches_the_parsers_own() {
        // plain attributes, a missing one, and namespaced ones on foreign elements (an SVG
        // link's `xlink:href`, MathML's `xml:lang`): those are not the plain `href`/`lang`
        let doc = Html::parse_document(
            r#"<p class="a b" id=x data-n="1">t</p><svg><a xlink:href="/u" title="s">l</a></svg><math><mi xml:lang="de">x</mi></math><a href="/v" hidden>k</a>"#,
        );
        let mut seen = 0;
        for node in doc.tree.root().descendants() {
            let Some(e) = node.value().as_element() else {
                continue;
            };
            for name in [
                "class", "id", "data-n", "href", "title", "lang", "hidden", "nope",
            ] {
                assert_eq!(attr(e, name), e.attr(name), "<{}> {name}", e.name());
                seen += usize::from(attr(e, name).is_some());
            }
        }
        // class, id, data-n; title; href, hidden (not the SVG link's href, not xml:lang)
        assert_eq!(seen, 6);
    }

    #[test]
    fn structure_and_boilerplate() {
        let html = r#"<html lang="en"><head><title> The title </title><meta name="robots" content="index, noai"></head><body>
            <div class="cookie-banner">We use cookies</div>
            <nav><ul><li><a href="/">Home</a></li></ul></nav>
            <main>
              <h2>Section</h2>
              <p>First   paragraph<br>second line.</p>
              <ul><li>one item that is long enough</li><li>two <a href="/x">link</a> and text</li></ul>
              <figure><img src="/a.png" alt=" A  cat " width="640" height="480"><figcaption>The cat.</figcaption></figure>
              <pre>fn main() {
    println!("hi");
}</pre>
              <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
              <p style="display: none">hidden</p>
            </main>
            <footer>Copyright</footer></body></html>"#;
        let x = extract(html, "https://h.example/dir/page", true, None, None).unwrap();
        assert_eq!(x.title.as_deref(), Some("The title"));
        assert!(x.noai && !x.noimageai);
        assert_eq!(x.html_lang.as_deref(), Some("en"));
        let expected = "## Section\n\nFirst paragraph\nsecond line.\n\n- one item that is long enough\n- two link and text\n\n```\nfn main() {\n    println!(\"hi\");\n}\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |";
        assert_eq!(x.text, expected);
        assert_eq!(x.images.len(), 1);
        let im = &x.images[0];
        assert_eq!(im.src, "https://h.example/a.png");
        assert_eq!(im.alt, "A cat");
        assert_eq!(im.caption.as_deref(), Some("The cat."));
        assert_eq!((im.width, im.height), (Some(640), Some(480)));
        assert_eq!(&x.text[..im.offset], "## Section\n\nFirst paragraph\nsecond line.\n\n- one item that is long enough\n- two link and text");
    }

    #[test]
    fn images_from_srcset_picture_and_lazy_attributes() {
        let prose = "A paragraph of real article text that is long enough to count as content, with punctuation. ".repeat(3);
        let html = format!(
            r#"<html><body><article><p>{prose}</p>
            <img src="data:image/gif;base64,R0lGOD" data-src="/lazy.jpg" alt="lazy">
            <img src="/small.jpg" srcset="/a-320.jpg 320w, /a-1280.jpg 1280w, /a-640.jpg 640w" alt="set">
            <picture><source type="image/avif" srcset="/p.avif 2x"><source srcset="/p-1x.webp 1x, /p-2x.webp 2x"><img src="/p.jpg" alt="pic"></picture>
            <img src="/spacer.gif" alt="">
            <p>{prose}</p></article></body></html>"#
        );
        let x = extract(&html, "https://h.example/post", true, None, None).unwrap();
        let srcs: Vec<&str> = x.images.iter().map(|i| i.src.as_str()).collect();
        assert_eq!(
            srcs,
            [
                "https://h.example/lazy.jpg",
                "https://h.example/a-1280.jpg",
                "https://h.example/p-2x.webp"
            ]
        );
    }

    #[test]
    fn malformed_html_does_not_panic() {
        for html in [
            "",
            "<",
            "<p>unclosed <b>bold <i>it",
            "<table><td>x</table></td>",
            "\u{0}\u{fffd}<html><<<>>>",
            "<ul><li><ul><li>deep",
        ] {
            let _ = extract(html, "not a url", true, None, None).unwrap();
        }
        let deep = "<div>".repeat(5000) + "text" + &"</div>".repeat(5000);
        let x = extract(&deep, "https://h/", true, None, None).unwrap();
        assert_eq!(x.text, "text");
    }

    #[test]
    fn hundreds_of_thousands_of_nodes_are_one_linear_pass() {
        // 200k elements: scoring is one iterative pass plus one reverse pass, the walk is
        // bounded in depth; a quadratic step would not finish in any reasonable time here
        let mut html = String::from("<html><body><article>");
        for i in 0..50_000 {
            html.push_str(&format!("<p><span>Paragraph {i}</span> of a <b>long</b> article, with <i>enough</i> words to read as prose.</p>"));
        }
        html.push_str("</article><ul>");
        html.push_str(&"<li><a href=/x>menu</a></li>".repeat(1000));
        html.push_str("</ul></body></html>");
        let x = extract(&html, "https://h/", true, None, None).unwrap();
        let n = x.text.matches(" of a long article").count();
        assert!(n == 50_000 && !x.text.contains("menu"), "{n} paragraphs");
        // unbalanced nesting of inline elements (the adoption agency's worst case)
        let bad = "<b><i><u>".repeat(3000) + "text";
        assert!(extract(&bad, "https://h/", true, None, None)
            .unwrap()
            .text
            .contains("text"));
    }

    /// Sentences of prose, numbered so each is a distinct string.
    /// Whether the scorer reads the element with an id as boilerplate, by the id.
    fn boiler_by_id(html: &str) -> impl Fn(&str) -> bool {
        let doc = trawl_core::parse::parse_document(html);
        let scores = crate::score::score(&doc, crate::score::Declared::default());
        move |id: &str| {
            let e = doc
                .select(&Selector::parse(&format!("#{id}")).unwrap())
                .next()
                .unwrap();
            scores.get(e.id()).unwrap().boiler
        }
    }

    fn sentences(tag: &str, n: usize) -> String {
        (0..n)
            .map(|i| format!("Sentence {i} about the {tag} runs on for a good while, with a clause, and ends here. "))
            .collect()
    }

    #[test]
    fn a_photo_credit_run_into_the_first_paragraph_keeps_the_paragraph() {
        // generated class names: nothing names the credit, so its text opens the paragraph;
        // a copyright notice under the text still goes
        let html = format!(
            r#"<html><body><div class="x0h"><h1>Game launch</h1></div><article>
            <p><span class="x1a"><img src="/p.jpg" width="600" height="400"><span class="x2b">© Provided by Example Media Inc</span></span> The studio shocked the world this year by announcing its first game for phones, {}</p>
            <p>{}</p>
            <p>© 2016 Example Media Inc. All rights reserved. This material may not be published, broadcast, rewritten or redistributed without the written consent of the publisher, which is given only for reprints in print.</p>
            </article></body></html>"#,
            sentences("launch", 3),
            sentences("price", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("shocked the world"), "{}", x.text);
        assert!(x.text.contains("Sentence 3 about the price"), "{}", x.text);
        assert!(!x.text.contains("reprints"), "{}", x.text);
    }

    #[test]
    fn the_main_landmark_holds_the_content() {
        // a promotion carousel outside <main> repeats more prose than the page's own text
        let slides: String = (0..12)
            .map(|i| format!(r#"<div class="promo-slide">Free shipping on orders over {i}0 euros. For more information on rates and times, please visit our shipping page today.</div>"#))
            .collect();
        let html = format!(
            r#"<html><body><div class="promo-bar">{slides}</div><main><h1>Promotion terms</h1><p>{}</p></main></body></html>"#,
            sentences("terms", 8)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Sentence 7 about the terms"), "{}", x.text);
        assert!(!x.text.contains("Free shipping"), "{}", x.text);
    }

    #[test]
    fn a_footer_is_never_the_content() {
        // the footer's list of served cities is longer than the page's own text
        let cities: String = (0..400).map(|i| format!("Town{i} ")).collect();
        let html = format!(
            r#"<html><body><section><h1>Equipment rentals</h1><p>{}</p></section><footer><div class="zipcodes">{cities}</div></footer></body></html>"#,
            sentences("rentals", 3)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(
            x.text.contains("Sentence 2 about the rentals"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("Town7"), "{}", x.text);
    }

    #[test]
    fn a_mega_menu_holding_half_the_page_is_navigation() {
        let menu: String = (0..300)
            .map(|i| format!(r#"<li><a href="/c{i}">Category number {i}</a></li>"#))
            .collect();
        let items: String = (0..12)
            .map(|i| format!(r#"<div class="card"><a href="/p{i}">Clay pot model {i}</a><span>SKU X{i}, glazed, 20 cm wide, with a saucer.</span></div>"#))
            .collect();
        let html = format!(
            r#"<html><body><nav><div class="menu"><ul>{menu}</ul></div></nav><div class="intro"><p>{}</p></div><div class="grid">{items}</div></body></html>"#,
            sentences("pottery", 2)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Clay pot model 11"), "{}", x.text);
        assert!(!x.text.contains("Category number 5"), "{}", x.text);
    }

    #[test]
    fn collapsed_faq_answers_are_text() {
        let faq: String = (0..5)
            .map(|i| format!(r#"<div class="faq__question">Question {i}?</div><div class="faq__answer" style="display: none;"><p>Answer {i}: {}</p></div>"#, sentences("answer", 2)))
            .collect();
        let html = format!(
            r#"<html><body><div class="page"><h1>Courses</h1><p>{}</p><div class="faq">{faq}</div></div><div class="modal" style="display:none"><p>{}</p></div></body></html>"#,
            sentences("courses", 3),
            sentences("login", 3)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Answer 4:"), "{}", x.text);
        assert!(!x.text.contains("about the login"), "{}", x.text);
    }

    #[test]
    fn an_faqs_questions_in_buttons_are_text() {
        // an accordion: each question is the button that opens its answer; the menu's
        // button (it opens a panel too) and a button that is no question stay out
        let faq: String = (0..4)
            .map(|i| {
                format!(
                    r#"<div class="item"><h3><button aria-expanded="false" aria-controls="a{i}">How does plan {i} work for teams?</button></h3><div id="a{i}" class="faq-answer"><p>Answer {i}: {}</p></div></div>"#,
                    sentences("plan", 2)
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><header><button aria-expanded="false" aria-controls="m">Open the main menu?</button></header><main><h1>Plans</h1><p>{}</p><section class="faq"><h2>FAQ</h2>{faq}</section><button aria-expanded="false" aria-controls="more">Show all the questions</button></main></body></html>"#,
            sentences("plans", 4)
        );
        // through the pre-parse pass, which must keep the attributes read
        let html = crate::strip::strip_inert(&html);
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for i in 0..4 {
            assert!(
                x.text
                    .contains(&format!("### How does plan {i} work for teams?")),
                "{}",
                x.text
            );
        }
        assert!(x.text.contains("Answer 3:"), "{}", x.text);
        assert!(!x.text.contains("main menu"), "{}", x.text);
        assert!(!x.text.contains("Show all"), "{}", x.text);
    }

    #[test]
    fn a_block_left_out_between_two_runs_of_text_keeps_their_words_apart() {
        // a share bar, a navigation and an ad between two runs of one block's text: left out,
        // but each still ends the line before it, so the words on either side stay two
        let html = format!(
            r#"<html><body><main><h1>Title</h1><p>{}</p><div>The first run ends here<div class="share-links"><a href="/a">Share</a> <a href="/b">Tweet</a></div>then the second run goes on.</div><div>Alpha before<nav><a href="/1">One</a><a href="/2">Two</a></nav>beta after the navigation.</div><ul><li>Gamma item<div class="advertisement">Buy now</div>delta item</li></ul><p>{}</p></main></body></html>"#,
            sentences("story", 4),
            sentences("ending", 2)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for joined in [
            "The first run ends here then the second run",
            "Alpha before beta after",
            "- Gamma item delta item",
        ] {
            assert!(x.text.contains(joined), "{joined}: {}", x.text);
        }
        assert!(
            !x.text.contains("Share") && !x.text.contains("One"),
            "{}",
            x.text
        );
    }

    #[test]
    fn an_accordions_questions_are_text_when_its_answers_load_on_a_click() {
        // each question a heading inside a button, no ARIA, no answer in the page (fetched
        // when opened): the questions are the FAQ's text; a button holding a heading that is
        // no question (a tab's name) stays out, as does a question button with no heading
        let faq: String = (0..4)
            .map(|i| {
                format!(
                    r#"<div class="b{i}"><button class="q7"><h3 class="t2">How long can I keep device {i} at home?</h3><svg></svg></button></div>"#
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Rentals</h1><p>{}</p><button class="t"><h4>Delivery options</h4></button><section class="s"><h2>Rental questions</h2><p>{}</p><div class="c">{faq}</div></section><p>{}</p><button class="x">Did you find what you need?</button></main></body></html>"#,
            sentences("rental", 4),
            sentences("faq", 1),
            sentences("closing", 2)
        );
        let html = crate::strip::strip_inert(&html);
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for i in 0..4 {
            assert!(
                x.text
                    .contains(&format!("How long can I keep device {i} at home?")),
                "{}",
                x.text
            );
        }
        assert!(!x.text.contains("Delivery options"), "{}", x.text);
        assert!(!x.text.contains("find what you need"), "{}", x.text);
    }

    #[test]
    fn a_hidden_panel_right_after_a_question_is_its_answer() {
        // generated class names, no ARIA: each answer hidden (`visibility:hidden`, `hidden`)
        // right after its question; a hidden panel after no question and a chat box (it
        // holds a button) after a question-like button stay out
        let faq: String = (0..4)
            .map(|i| {
                let hide = if i % 2 == 0 { r#"style="visibility:hidden""# } else { "hidden" };
                format!(
                    r#"<div class="x{i}a"><div class="x9q"><div>What does plan {i} cover for pets?</div></div><div {hide} class="x9p"><div>Answer {i}: {}</div></div></div>"#,
                    sentences("cover", 2)
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Pet insurance</h1><p>{}</p><div class="x7f">{faq}</div><p>{}</p><div class="x3"><span>Meet our helper</span><div style="display:none"><p>{}</p></div></div><button class="x5">Need help planning a party?</button><div class="x6" hidden><button>Close</button><p>{}</p></div></main></body></html>"#,
            sentences("insurance", 4),
            sentences("plans", 2),
            sentences("promo", 2),
            sentences("chat", 2)
        );
        let html = crate::strip::strip_inert(&html);
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for i in 0..4 {
            assert!(x.text.contains(&format!("Answer {i}:")), "{}", x.text);
        }
        for out in ["about the promo", "about the chat"] {
            assert!(!x.text.contains(out), "{out}: {}", x.text);
        }
    }

    #[test]
    fn a_question_button_with_its_answer_after_it_is_text_without_aria() {
        // an accordion whose script sets the ARIA state only once it runs: the question is a
        // button (bare, or in a heading) and its answer the element after it; a button that
        // opens a chat box (controls, not an answer) and one followed by nothing stay out
        let faq: String = (0..4)
            .map(|i| {
                let q = if i % 2 == 0 {
                    format!(r#"<button class="q"><div>Can I pay for plan {i} yearly?</div></button>"#)
                } else {
                    format!(r#"<h3><button class="q"><span>Can I pay for plan {i} yearly?</span></button></h3>"#)
                };
                format!(
                    r#"<div class="item">{q}<div class="answer"><p>Answer {i}: {}</p></div></div>"#,
                    sentences("billing", 2)
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Pricing</h1><p>{}</p><section class="faq"><h2>FAQ</h2>{faq}</section><p>{}</p><button class="help">Need help with planning?</button><div class="chat"><button>Close</button><p>{}</p></div><button class="more">Is there anything else?</button></main></body></html>"#,
            sentences("pricing", 4),
            sentences("support", 2),
            sentences("chat", 2)
        );
        let html = crate::strip::strip_inert(&html);
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for i in 0..4 {
            assert!(
                x.text.contains(&format!("Can I pay for plan {i} yearly?")),
                "{}",
                x.text
            );
        }
        assert!(
            x.text.contains("### Can I pay for plan 1 yearly?"),
            "{}",
            x.text
        );
        assert!(x.text.contains("Answer 3:"), "{}", x.text);
        assert!(!x.text.contains("Need help"), "{}", x.text);
        assert!(!x.text.contains("anything else"), "{}", x.text);
    }

    #[test]
    fn a_root_the_walk_drops_whole_is_kept_without_its_boilerplate() {
        // a service page's main region holding a heading and a table of linked team names
        // (no sentence anywhere): the walk drops the region as a link list, and the page
        // would say nothing; it says what is not boilerplate instead (the footer stays out)
        let teams: String = (1..=20)
            .map(|i| format!(r#"<a href="/team/{i}">Harbour Rovers {i}</a> "#))
            .collect();
        let html = format!(
            r#"<html><head><link rel="canonical" href="https://h.example/pricing"></head><body>
            <nav><a href="/">Home</a> <a href="/about">About</a></nav>
            <main><div><h1>Fixtures</h1><div>Team pages {teams}</div></div></main>
            <footer><p>Copyright 2026 The League. All rights reserved.</p></footer>
            </body></html>"#
        );
        let x = extract(&html, "https://h.example/pricing", false, None, None).unwrap();
        assert!(x.text.contains("Harbour Rovers 7"), "{:?}", x.text);
        assert!(x.text.contains("Fixtures"), "{:?}", x.text);
        assert!(!x.text.contains("All rights reserved"), "{:?}", x.text);
    }

    #[test]
    fn the_texts_own_sentences_with_links_are_kept() {
        // a review's paragraphs pointing to other reviews, a picks list of linked names with
        // their prices, a heading naming a linked product, the author's own list of guides
        // (all links, no class), a table of linked names and their figures: text with links,
        // not link lists; the theme's list of links under it (named, its items as long as the
        // author's, so that the list filter does not take it) is one and stays out
        let html = format!(
            r#"<html><body><main><h1>Trail shoes</h1><p>{}</p>
            <p class="">Read our full <a href="/r/a">Acme Ridge 9 review</a>.</p>
            <ul><li>Best overall: <a href="/p/a">Acme Ridge 9</a> ($150)</li><li>Best budget: <a href="/p/b">Bolt Trail 2</a> ($75)</li></ul>
            <h2>Best for mud: <a href="/p/c">Crag Grip</a> ($140)</h2><p>{}</p>
            <p>{}</p><ul><li><a href="/g/1">Our sizing guide for trail shoes of every brand we tested</a></li><li><a href="/g/2">How we test trail shoes on rock, mud and wet roots</a></li></ul>
            <table><tr><th>Shoe</th><th>Drop</th></tr><tr><td><a href="/p/a">Acme Ridge 9</a></td><td>8 mm heel to toe</td></tr><tr><td><a href="/p/b">Bolt Trail 2</a></td><td>4 mm heel to toe</td></tr></table>
            <ul class="more"><li><a href="/x/1">The road running shoes we tested on asphalt this year</a></li><li><a href="/x/2">The hiking boots we tested on three long summer trips</a></li></ul>
            </main></body></html>"#,
            sentences("the shoes", 4),
            sentences("the grip", 3),
            sentences("the fit", 2)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for kept in [
            "Acme Ridge 9 review",
            "Best budget: Bolt Trail 2 ($75)",
            "Best for mud: Crag Grip",
            "4 mm heel to toe",
            "How we test trail shoes on rock, mud and wet roots",
        ] {
            assert!(x.text.contains(kept), "{kept}: {}", x.text);
        }
        assert!(!x.text.contains("hiking boots"), "{}", x.text);
    }

    #[test]
    fn a_notice_of_the_last_change_is_not_text() {
        // a reference page's date stamp under its text, a post's edit notice, one in German;
        // a paragraph that opens the same way and goes on is text
        let html = format!(
            r#"<html><body><main><h1>Task queues</h1><p>{}</p>
            <p>Last updated versions of the runtime keep the queue order described above, and older ones differ only in how they treat timers that fire while a microtask runs, which the next section shows with two short examples.</p>
            <p>Last edited by ana_r on Sun Feb 22, 2026 2:08 am, edited 3 times in total.</p>
            <p>{}</p><p><em>Zuletzt aktualisiert: 3. März 2025</em></p>
            <p>This page was last modified on Jul 15, 2025 by the site's contributors.</p></main></body></html>"#,
            sentences("the queue", 4),
            sentences("the timers", 3)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(
            x.text.contains("Last updated versions of the runtime"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains("Sentence 2 about the the timers"),
            "{}",
            x.text
        );
        for gone in ["Last edited by", "Zuletzt aktualisiert", "last modified on"] {
            assert!(!x.text.contains(gone), "{gone}: {}", x.text);
        }
    }

    #[test]
    fn a_controls_label_standing_alone_is_not_text() {
        // a quote's expander and a teaser's link, as forum and blog software write them; a
        // sentence opening with the same words is text
        let html = format!(
            r#"<html><body><main><h1>Headphones for sleeping</h1><p>{}</p>
            <blockquote><p>Have you considered in-ear monitors for this?</p><div class="expand">Click to expand...</div></blockquote>
            <p>Read more about how we test in our methods page, which lists every measurement.</p>
            <p>{}</p><p><a href="/more">Read more »</a></p></main></body></html>"#,
            sentences("the buds", 4),
            sentences("the fit", 3)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("in-ear monitors"), "{}", x.text);
        assert!(x.text.contains("Read more about how we test"), "{}", x.text);
        assert!(!x.text.contains("Click to expand"), "{}", x.text);
        assert!(!x.text.contains("Read more »"), "{}", x.text);
        // the same labels in the other languages of the benchmarks' pages
        for (label, sentence) in [
            (
                "Weiterlesen",
                "Weiterlesen lohnt sich, denn der zweite Teil erklärt die Messung.",
            ),
            (
                "Lire la suite",
                "Lire la suite du rapport prend une heure, mais elle en vaut la peine.",
            ),
            (
                "Leer más",
                "Leer más de una vez el manual ayuda a entender cada ajuste del equipo.",
            ),
        ] {
            let html = format!(
                r#"<html><body><main><h1>Kopfhörer</h1><p>{}</p><p>{sentence}</p>
                <p>{}</p><div class="toggle">{label} »</div></main></body></html>"#,
                sentences("the buds", 4),
                sentences("the fit", 3)
            );
            let x = extract(&html, "https://h.example/", false, None, None).unwrap();
            assert!(x.text.contains(sentence), "{}", x.text);
            assert!(!x.text.contains(&format!("{label} »")), "{}", x.text);
        }
        // a script's placeholders, left in the page as served; a sentence about loading
        // is text
        let html = format!(
            r#"<html><body><main><h1>Headphones</h1><p>{}</p><div class="spec">Loading specifications…</div>
            <p>Loading the case takes a second, and it charges the buds on the way...</p><p>{}</p><div>Chargement...</div></main></body></html>"#,
            sentences("the buds", 4),
            sentences("the fit", 3)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Loading the case takes"), "{}", x.text);
        assert!(!x.text.contains("Loading specifications"), "{}", x.text);
        assert!(!x.text.contains("Chargement"), "{}", x.text);
    }

    #[test]
    fn a_wikis_retrieved_from_line_is_not_text() {
        // MediaWiki writes the page's address and its categories under every article (here
        // inside the root, as when the root spreads over the article's sections)
        let html = format!(
            r#"<html><body><div id="content"><h1>Pacman</h1><div id="bodyContent"><div class="mw-parser-output"><p>{}</p><p>{}</p><div class="printfooter">Retrieved from "<a href="https://wiki.example/index.php?title=Pacman&amp;oldid=8">https://wiki.example/index.php?title=Pacman&amp;oldid=8</a>"</div><div id="catlinks" class="catlinks"><div class="mw-normal-catlinks">Categories of this wiki's pages: <ul><li><a href="/c/1">Package management tools of the distribution</a></li><li><a href="/c/2">Official software maintained by the distribution</a></li></ul></div></div></div></div></div></body></html>"#,
            sentences("the package manager", 4),
            sentences("the mirrors", 3)
        );
        // (a documentation URL: the walk keeps link lists there, so only the name drops it)
        let x = extract(&html, "https://wiki.example/docs/Pacman", false, None, None).unwrap();
        assert!(
            x.text.contains("Sentence 2 about the the mirrors"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("Retrieved from"), "{}", x.text);
        assert!(!x.text.contains("Categories of this wiki"), "{}", x.text);
    }

    #[test]
    fn a_footer_of_the_content_is_a_footer() {
        // a reference page's footer section, named for the article it closes (and sharing a
        // content word with the sections above it), holds a feedback widget and a link
        let section = |h: &str, t: &str| {
            format!(r#"<section class="content-section"><h2>{h}</h2><p>{t}</p></section>"#)
        };
        let html = format!(
            r#"<html><body><main><article><h1>Event loop</h1>{}{}<section class="content-section article-footer"><h2>Help improve this guide</h2><p>Was this page helpful to you? Yes No. Learn how to contribute to the guide and its examples.</p></section></article></main></body></html>"#,
            section("Tasks", &sentences("the tasks", 4)),
            section("Microtasks", &sentences("the microtasks", 3))
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(
            x.text.contains("Sentence 2 about the the microtasks"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("Help improve"), "{}", x.text);
    }

    #[test]
    fn a_bar_of_actions_is_not_text() {
        // each post of a thread ends with its bar of controls, worded as a sentence here (a
        // content word beside it, `post-actions`, still wins: measured, it did not pay)
        let post = |i: usize| {
            format!(
                r#"<article class="post"><div class="post-body"><p>{}</p></div><div class="actions">Reply to this post, like it, or share it with a friend who knows the answer.</div></article>"#,
                sentences(&format!("post {i}"), 3)
            )
        };
        let html = format!(
            r#"<html><body><main><h1>Which queue?</h1>{}{}</main></body></html>"#,
            post(0),
            post(1)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Sentence 2 about the post 1"), "{}", x.text);
        assert!(!x.text.contains("Reply to this post"), "{}", x.text);
    }

    #[test]
    fn an_entry_like_its_kept_siblings_is_kept_with_its_links() {
        // four FAQ entries; the answer of one names the free tools with links to them, more
        // links than prose: it is an entry like the others all the same
        let entry = |q: &str, a: &str| {
            format!(r#"<div class="qna"><h4>{q}</h4><div class="answer"><p>{a}</p></div></div>"#)
        };
        let mut faq: String = (0..3)
            .map(|i| {
                entry(
                    &format!("Question {i}?"),
                    &sentences(&format!("topic {i}"), 2),
                )
            })
            .collect();
        faq.push_str(&entry(
            "Are there free tools?",
            r#"Yes, a few for small firms: <a href="/t/a">the rank checker</a>, <a href="/t/b">the
            listing scanner</a> and <a href="/t/c">the review link maker</a>, all of them free."#,
        ));
        // a row of link lists of one class next to prose stays out
        let lists: String = (0..3)
            .map(|i| format!(r#"<div class="links"><a href="/x{i}">Other page {i} of the site</a> <a href="/y{i}">Another page {i} here</a></div>"#))
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Local search</h1><p>{}</p><section>{faq}</section>{lists}</main></body></html>"#,
            sentences("search", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("about the topic 2"), "{}", x.text);
        assert!(x.text.contains("the review link maker"), "{}", x.text);
        assert!(!x.text.contains("Other page"), "{}", x.text);
    }

    #[test]
    fn a_region_marked_nocontent_is_not_the_text() {
        // the documentation's licence line and feedback widget, marked as not content for
        // a search appliance, inside and after the article
        let html = format!(
            r#"<html><body><main><article><h1>Tables</h1><p>{}</p><p>{}</p>
            <div class="nocontent"><p>Was this page helpful? Send us your feedback about this
            page, it helps us improve the documentation.</p></div></article>
            <div class="content-footer nocontent"><p>Except as otherwise noted, the content of
            this page is licensed under a free licence, and code samples under another.</p></div>
            </main></body></html>"#,
            sentences("table", 4),
            sentences("schema", 4)
        );
        let x = extract(&html, "https://docs.example/", false, None, None).unwrap();
        assert!(x.text.contains("about the schema"), "{}", x.text);
        assert!(!x.text.contains("helpful"), "{}", x.text);
        assert!(!x.text.contains("otherwise noted"), "{}", x.text);
    }

    #[test]
    fn text_for_screen_readers_only_is_not_the_pages_text() {
        // hidden from view by the stylesheet's convention: a link's note and a tile's
        // description spelt out; a skip link that shows on focus is not text either, but a
        // class that undoes the convention (`focus:not-sr-only`) hides nothing, and a class
        // beyond ASCII is read without harm
        let html = format!(
            r#"<html><body><main class="página ééééééé"><p>{} <a href="/x">the report<span class="sr-only">
            (opens in a new window)</span></a>.</p><p>{}</p><dl><dd class="u-visually-hidden">Spinner
            is available in 5 colours, priced at 219.99 USD.</dd></dl><p class="md:not-sr-only">
            The harbour opens at dawn every day of the week.</p></main></body></html>"#,
            sentences("harbour", 4),
            sentences("ferry", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("the report."), "{}", x.text);
        assert!(!x.text.contains("new window"), "{}", x.text);
        assert!(!x.text.contains("219.99"), "{}", x.text);
        assert!(x.text.contains("opens at dawn"), "{}", x.text);
    }

    #[test]
    fn responsive_utilities_say_where_an_element_shows() {
        use crate::score::{responsive, Screens};
        for (class, want) in [
            ("flex md:hidden", Some(Screens::Narrow)),
            ("block sm:hidden", Some(Screens::Narrow)),
            ("md:hidden lg:block", None),
            ("hidden md:block", Some(Screens::Wide)),
            ("hidden lg:flex xl:hidden", Some(Screens::Narrow)),
            // Tailwind's 2xl (1536 pixels) is wider than the desktop assumed
            ("2xl:hidden", None),
            ("d-block d-md-none", Some(Screens::Narrow)),
            ("d-none d-lg-flex", Some(Screens::Wide)),
            ("d-none", None),
            ("hidden", None),
            ("hidden-lg", Some(Screens::Narrow)),
            ("visible-xs visible-sm", Some(Screens::Narrow)),
            ("visible-xs visible-lg", None),
            ("show-for-small-only", Some(Screens::Narrow)),
            ("is-hidden-desktop", Some(Screens::Narrow)),
            ("group-hover:hidden card-none", None),
            ("overflow-hidden", None),
        ] {
            assert_eq!(responsive(class), want, "{class}");
        }
    }

    #[test]
    fn phone_only_elements_by_the_thousand_are_one_pass() {
        // ten thousand phone-only spans beside one long desktop-only block, all under one
        // parent: the copy check reads each span's neighbours, and a desktop block forty
        // times a span's length is no copy of it, so the page takes one pass; reading every
        // sibling's words for every span would not finish in any reasonable time here
        let spans: String = (0..10_000)
            .map(|i| format!(r#"<div><span class="md:hidden">Tide table {i}</span></div>"#))
            .collect();
        let desk: String = (0..20_000).map(|i| format!("Tide table {i}. ")).collect();
        let html = format!(
            r#"<html><body><main><p>{}</p><div>{spans}<div class="hidden md:block"><p>{desk}</p></div></div></main></body></html>"#,
            sentences("tide", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Tide table 19999."), "{}", &x.text[..200]);
    }

    #[test]
    fn a_sections_phone_copy_goes_when_its_desktop_copy_is_served() {
        // Tailwind's pair (a phone's copy, `md:hidden`, and a desktop's, `hidden md:block`, in
        // wrappers of their own) and Bootstrap's (`d-lg-none` / `d-none d-lg-flex`): the text
        // once, as a desktop shows it. A phone-only section with no desktop copy beside it
        // stays (a script may draw the desktop's), and so does one a wider breakpoint shows
        // again (`md:hidden lg:block`).
        let tips = "Water the fern weekly, keep it out of direct sun and mist its leaves often.";
        let hours = "Open Monday to Friday from nine to five, and on Saturday mornings too.";
        // (and a component's pair: each copy inside a wrapper of its own component, the
        // phone's in an accordion)
        let repot = "Repot a fern every spring into a pot one size larger, with fresh peat.";
        let html = format!(
            r#"<html><body><main><h1>Ferns</h1><p>{}</p>
            <div><div class="md:hidden"><p>{tips}</p></div></div><div class="hidden md:block"><p>{tips}</p></div>
            <div class="d-lg-none">{hours}</div><div class="d-none d-lg-flex">{hours}</div>
            <div class="cmp-a"><div class="d-none d-md-block"><h4>Repotting</h4><p>{repot}</p></div></div><div class="cmp-b"><div class="acc d-md-none"><button aria-expanded="false">Repotting</button><div class="panel"><h4>Repotting</h4><p>{repot}</p></div></div></div>
            <p class="md:hidden">Tap the leaf to see this guide's photos of every fern we sell.</p>
            <p class="md:hidden lg:block">Delivery is free on every order above forty euros.</p>
            <p>{}</p></main></body></html>"#,
            sentences("fern", 4),
            sentences("frond", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert_eq!(x.text.matches("Water the fern").count(), 1, "{}", x.text);
        assert_eq!(x.text.matches("Open Monday").count(), 1, "{}", x.text);
        assert_eq!(x.text.matches("Repot a fern").count(), 1, "{}", x.text);
        assert!(x.text.contains("Tap the leaf"), "{}", x.text);
        assert!(x.text.contains("Delivery is free"), "{}", x.text);
    }

    #[test]
    fn a_thread_of_short_posts_keeps_every_post() {
        // each post's text sits inside its post block: the best root is one post's body
        let posts: String = (0..4)
            .map(|i| format!(r#"<div class="blockpost"><div class="postleft"><a href="/u{i}">user{i}</a></div><div class="postright"><div class="postmsg"><p>Post {i}: {}</p></div></div></div>"#, sentences("iso size", if i == 0 { 3 } else { 2 })))
            .collect();
        let html = format!(r#"<html><body><div id="brdmain">{posts}</div></body></html>"#);
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for i in 0..4 {
            assert!(
                x.text.contains(&format!("Post {i}:")),
                "post {i} missing: {}",
                x.text
            );
        }
    }

    #[test]
    fn a_reply_quoting_the_post_above_keeps_the_post_once() {
        let first = "My first question is how the rental course should be named for the school. ";
        let posts: String = (0..3)
            .map(|i| {
                let quote = if i > 0 { format!("<blockquote><div>{first}</div></blockquote>") } else { String::new() };
                format!(r#"<div class="message"><div class="body">{quote}<p>Reply {i}: {}</p></div></div>"#, sentences("name", 2))
            })
            .collect();
        let html =
            format!("<html><body><div class=\"thread\"><p>{first}</p>{posts}</div></body></html>");
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert_eq!(x.text.matches("My first question").count(), 1, "{}", x.text);
        assert!(x.text.contains("Reply 2:"), "{}", x.text);
    }

    #[test]
    fn a_landing_page_spreads_over_its_sections() {
        // no article declared; the longest section (testimonials) holds under half the prose
        let section = |name: &str, n: usize| {
            format!(
                r#"<section class="{name}"><div class="container"><h2>{name}</h2><p>{}</p><a class="btn" href="/go">Get started</a></div></section>"#,
                sentences(name, n)
            )
        };
        let html = format!(
            "<html><body>{}{}{}{}</body></html>",
            section("features", 5),
            section("pricing", 4),
            section("testimonials", 7),
            section("integrations", 4)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for name in ["features", "pricing", "testimonials", "integrations"] {
            assert!(
                x.text.contains(&format!("about the {name}")),
                "{name} missing: {}",
                x.text
            );
        }
    }

    #[test]
    fn a_builders_widgets_between_paragraphs_are_content() {
        // a page builder names every component a widget (`pb-widget`, `pb-widget-container`
        // around each heading, paragraph and box): short feature boxes between the page's
        // paragraphs are its text; the call to action after the last paragraph is not, nor
        // are the sidebar's widgets on a blog where few elements carry the word
        let widget = |inner: &str| {
            format!(
                r#"<div class="pb-element pb-widget"><div class="pb-widget-container">{inner}</div></div>"#
            )
        };
        let para = |topic: &str| widget(&format!("<p>{}</p>", sentences(topic, 5)));
        let feature = |name: &str| {
            widget(&format!(
                "<h3>{name}</h3><p>Our {name} team helps you grow with care.</p>"
            ))
        };
        let features: String = ["audits", "campaigns", "reporting", "training"]
            .iter()
            .map(|f| feature(f))
            .collect();
        let html = format!(
            r#"<html><body><nav><a href="/">Home</a> <a href="/services">Services</a></nav>
            <div class="pb-page"><section class="pb-section">{}</section>
            <section class="pb-section">{features}</section>
            <section class="pb-section">{}</section>
            <section class="pb-section">{}</section></div>
            <footer>Example Agency, 1 Main Street</footer></body></html>"#,
            para("strategy"),
            para("results"),
            widget("<h3>Ready to start?</h3><p>Call us today.</p>"),
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        for f in ["audits", "campaigns", "reporting", "training"] {
            assert!(x.text.contains(&format!("Our {f} team")), "{f}: {}", x.text);
        }
        assert!(x.text.contains("about the results"), "{}", x.text);
        assert!(!x.text.contains("Call us today"), "{}", x.text);

        // a blog's sidebar widgets: the word is on a few boxes holding a small part of the text
        let side: String = (0..3)
            .map(|i| format!(r#"<div class="widget"><h3>Archive {i}</h3><p>Posts from the year {i} are listed here.</p></div>"#))
            .collect();
        let html = format!(
            r#"<html><body><article><p>{}</p><p>{}</p></article><div class="sidebar-col">{side}</div></body></html>"#,
            sentences("post", 6),
            sentences("ending", 6)
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("about the ending"), "{}", x.text);
        assert!(!x.text.contains("Posts from the year"), "{}", x.text);
    }

    #[test]
    fn an_authors_box_under_the_article_is_not_its_text() {
        // the box about the author under a post (photo, a paragraph of biography, a link to
        // their other posts) is the same on every post they wrote: whichever way the theme
        // names it, it goes; the byline's name above the text stays, as does a paper's list
        // of authors
        for class in [
            "author-bio",
            "post__author-box",
            "about-the-author",
            "authorbox",
        ] {
            let html = format!(
                r#"<html><body><article><p class="author">By Ana Ruiz</p><p>{}</p><p>{}</p>
                <div class="{class}"><img src="/ana.jpg" alt=""><h4>Ana Ruiz</h4><p>Ana Ruiz has
                written about coastal towns for twenty years and lives by the sea with two cats.
                She also teaches writing at the local college.</p><a href="/author/ana">More
                posts by Ana</a></div></article></body></html>"#,
                sentences("harbour", 5),
                sentences("ferry", 5)
            );
            let x = extract(&html, "https://h.example/", false, None, None).unwrap();
            assert!(x.text.contains("about the ferry"), "{class}: {}", x.text);
            assert!(!x.text.contains("twenty years"), "{class}: {}", x.text);
        }
        let html = format!(
            r#"<html><body><article><h1>Tidal mixing</h1><div class="author-affiliation">
            <p>Ana Ruiz, Department of Oceanography, University of the Coast</p></div><p>{}</p>
            <p>{}</p></article></body></html>"#,
            sentences("tide", 5),
            sentences("salinity", 5)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Department of Oceanography"), "{}", x.text);
    }

    #[test]
    fn the_declared_authors_bio_at_the_end_is_not_the_text() {
        // a theme that names nothing: the bio is a paragraph like the others, known by the
        // name the page declares as its author, at the end
        let page = |author: &str, tail: &str| {
            format!(
                r#"<html><head><meta name="author" content="{author}"><meta property="og:type" content="article"></head><body><article>
                <h1>Harbour works</h1><p>{}</p><p>{}</p><p>{}</p>{tail}</article></body></html>"#,
                sentences("harbour", 5),
                sentences("ferry", 5),
                sentences("quay", 5)
            )
        };
        let text = |author: &str, tail: &str| {
            extract(&page(author, tail), "https://h.example/", false, None, None)
                .unwrap()
                .text
        };
        let bio = "<p>Ana Ruiz is a reporter who has covered coastal towns for twenty years.</p>\
                   <p>Follow her on the fediverse.</p>";
        let x = text("Ana Ruiz", bio);
        assert!(x.contains("about the quay"), "{x}");
        assert!(!x.contains("twenty years"), "{x}");
        assert!(!x.contains("fediverse"), "{x}");
        // the name on its own line, then the first name
        let bio = "<p>Written by</p><p>Ana Ruiz</p><p>Ana has covered coastal towns for twenty \
                   years.</p>";
        let x = text("Ana Ruiz", bio);
        assert!(!x.contains("twenty years"), "{x}");
        // an organisation as the author begins paragraphs about its own work: they stay
        let own = "<p>Harbourworks builds quays in twelve countries with local crews.</p>";
        let x = text("Harbourworks", own);
        assert!(x.contains("twelve countries"), "{x}");
        // another person's paragraph at the end stays
        let quote =
            "<p>Bo Li, the harbour master, said the quay will open in spring this year.</p>";
        let x = text("Ana Ruiz", quote);
        assert!(x.contains("open in spring"), "{x}");
    }

    #[test]
    fn a_definition_term_is_no_stray_label() {
        // an API reference: each signature is a short `<dt>` above its description, which
        // reads like a label standing alone; a label between paragraphs still goes
        let entry = |name: &str| {
            format!(
                "<dl><dt>class {name} [source]</dt><dd><p>{}</p></dd></dl>",
                sentences(name, 3)
            )
        };
        let html = format!(
            "<html><body><main><h1>Middleware</h1><p>{}</p>{}{}<p>Advertisement</p><p>{}</p>{}</main></body></html>",
            sentences("intro", 3),
            entry("CacheMiddleware"),
            entry("GzipMiddleware"),
            sentences("outro", 3),
            entry("SessionMiddleware"),
        );
        let x = extract(&html, "https://docs.example/", false, None, None).unwrap();
        for name in ["CacheMiddleware", "GzipMiddleware", "SessionMiddleware"] {
            assert!(
                x.text.contains(&format!("class {name} [source]")),
                "{name}: {}",
                x.text
            );
        }
        assert!(!x.text.contains("Advertisement"), "{}", x.text);
    }

    #[test]
    fn story_inside_a_weak_region_with_link_lists() {
        // a story viewer (`render-target-modal`) whose region sum is negative from the link
        // lists beside the story: the story is still the content
        let para = "The cargo ship broke up in the atmosphere minutes after the launch, the agency said in a statement on Thursday evening. ";
        let links: String = (0..60).map(|i| format!("<li><a href=\"/s{i}\">Another headline number {i} about something else entirely</a></li>")).collect();
        let html = format!(
            r#"<html><body><div id="render-target-modal"><div class="col"><article>{}</article></div><ul class="rel">{links}</ul></div>
            <div class="feed">{}</div></body></html>"#,
            format!("<p>{}</p>", para.repeat(3)).repeat(6),
            (0..120).map(|i| format!(r#"<div class="item"><a href="/t{i}">Unrelated teaser headline {i}</a> <span>a summary line of the teaser that runs on for a while</span></div>"#)).collect::<String>()
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("cargo ship broke up"), "{}", x.text);
        assert!(!x.text.contains("unrelated teaser"), "{}", x.text);
    }

    #[test]
    fn plain_text_lists_consent_banners_comments_and_soft_hyphens() {
        let para =
            "Beat the eggs with the sugar until pale, then fold in the flour and the lemon zest. ";
        let items: String = [
            "6 eggs",
            "200 g sugar",
            "250 g flour",
            "1 lemon",
            "1 pinch salt",
            "100 ml milk",
            "2 tsp baking powder",
            "50 g butter",
            "1 tbsp rum",
            "100 g icing sugar",
            "2 tbsp lemon juice",
            "1 vanilla pod",
            "zest of 1 orange",
            "50 g almonds",
        ]
        .iter()
        .map(|i| format!(r#"<li class="ingredient">{i}</li>"#))
        .collect();
        let menu: String = (0..8)
            .map(|i| format!(r#"<li class="menu-item"><a href="/c{i}">Category {i}</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><ul class="nav-list">{menu}</ul>
            <div id="intro-rgpd"><main class="modal__content"><p>{consent}</p></main></div>
            <article><h1>Lemon cake</h1><p>{p}</p><ul class="ingredients">{items}</ul><p>{p}</p><p>Mit&shy;tel&shy;al&shy;ter {p}</p>
            <h3>Comments (2)</h3><div class="comment-body"><p>{comment}</p></div></article></body></html>"#,
            consent = "We and our partners store and access information on your device; your consent is needed for the cookies of audience measurement and social sharing. ".repeat(4),
            p = para.repeat(3),
            comment = "Lovely recipe, I baked it on Sunday and my family loved it, thank you so much for sharing it with us all. ".repeat(2),
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(
            x.text.contains("- 6 eggs\n- 200 g sugar"),
            "ingredient list kept: {}",
            x.text
        );
        assert!(!x.text.contains("Category"), "menu dropped: {}", x.text);
        assert!(
            !x.text.contains("consent"),
            "consent banner dropped: {}",
            x.text
        );
        assert!(
            !x.text.contains("Lovely recipe") && !x.text.contains("Comments"),
            "comments cut: {}",
            x.text
        );
        assert!(
            x.text.contains("Mittelalter"),
            "soft hyphens dropped: {}",
            x.text
        );
    }

    #[test]
    fn teaser_label_cut_survives_the_bulk_guard() {
        // trimming would remove most of the text before the label (many short label lines),
        // so the guard keeps the fringes, but still not the teasers after "Mehr zum Thema"
        let labels: Vec<String> = (0..30).map(|i| format!("Label {i}")).collect();
        let text = format!("A paragraph of the article that ends with a full stop.\n\n{}\n\n## Mehr zum Thema\n\nTeaser one about something else.\n\nTeaser two about another thing.", labels.join("\n\n"));
        let out = tidied(&text, crate::PageType::Article);
        assert!(out.contains("A paragraph of the article"), "{out}");
        assert!(
            !out.contains("Teaser one") && !out.contains("Mehr zum Thema"),
            "{out}"
        );
        // a label with a gloss after a separator is still the label
        let para = "The foundation welcomed the decision to restore access to the encyclopedia. "
            .repeat(3);
        for label in [
            "### Related — 有關",
            "## Comments (12)",
            "### Related: more",
        ] {
            let text =
                format!("{para}\n\n{para}\n\n{label}\n\nRead further in the pursuit of knowledge.");
            let out = tidied(&text, crate::PageType::Article);
            assert!(
                !out.contains("pursuit") && out.contains("foundation welcomed"),
                "{label}: {out}"
            );
        }
    }

    #[test]
    fn a_teaser_word_and_what_its_section_lists_is_a_label() {
        // a one-word label followed by a noun of what it lists, and what may follow that
        for label in [
            "trending stories in world travel",
            "popular articles",
            "latest videos",
            "related guides",
            "recent news",
        ] {
            assert_eq!(section_label(label, &[]), Some(Label::Teasers), "{label}");
        }
        // not a sentence that opens with the word, nor a forum's heading over a thread's
        // posts (`Recommended Posts`)
        for label in [
            "latest developments in the case",
            "recommended posts",
            "popular demand",
        ] {
            assert_eq!(section_label(label, &[]), None, "{label}");
        }
        // in the text: the teasers after the label go
        let para =
            "The ferry line opens in spring and links the old docks with the station. ".repeat(3);
        let text = format!(
            "{para}\n\n{para}\n\n## Trending stories in travel\n\nA bakery that has run for a hundred years."
        );
        let out = tidied(&text, crate::PageType::Article);
        assert!(
            out.contains("ferry line") && !out.contains("bakery"),
            "{out}"
        );
    }

    #[test]
    fn labels_in_a_row_are_cells_and_stay_a_label_alone_goes() {
        let para = "Every plan includes backups, a support line that answers within the hour, and the migration of your existing site at no cost.";
        let text = format!(
            "{para}\n\nStarter\n\n$9\n\nper month\n\n10 GB storage\n\n{para}\n\nAdvertisement\n\n{para}\n\n\u{200b}\n\n\u{200b}\n\n{para}\n\nPhoto: Agency\n\nPhoto: Agency\n\n{para}"
        );
        let out = tidied(&text, crate::PageType::Article);
        assert!(
            out.contains("$9\n\nper month\n\n10 GB storage"),
            "cells: {out}"
        );
        assert!(!out.contains("Advertisement"), "a label alone: {out}");
        assert!(
            !out.contains('\u{200b}'),
            "blocks of no word are no cells: {out}"
        );
        assert!(
            !out.contains("Photo: Agency"),
            "a line twice is no row: {out}"
        );
        // a photo credit on a line of its own, by its opening word, its agency or its
        // parentheses; not beside a label as a row's cell; a sentence naming an agency stays
        for credit in [
            "Photo: John Doe, AP",
            "Patrick Semansky, ASSOCIATED PRESS",
            "(Reed Saxon / Associated Press)",
            "Getty Images / Holger Leue",
            "Foto: dpa",
        ] {
            let text = format!("{para}\n\n{credit}\n\nAdvertisement\n\n{para}\n\nYou could try the Associated Press: https://apnews.com/\n\n{para}");
            let out = tidied(&text, crate::PageType::Article);
            assert!(
                !out.contains(credit)
                    && !out.contains("Advertisement")
                    && out.contains("You could try"),
                "{credit}: {out}"
            );
        }
        // a caption ending in its credit goes; a paragraph closing on its wire source stays
        let caption = "Teachers rally at the Statehouse in Indianapolis, Tuesday, Nov. 19, 2019. (AP Photo/Michael Conroy)";
        let wire =
            "The company said it would appeal the ruling, which it called unfounded. (Reuters)";
        let text = format!("{para}\n\n{caption}\n\n{para}\n\n{wire}\n\n{para}");
        let out = tidied(&text, crate::PageType::Article);
        assert!(
            !out.contains("Teachers rally") && out.contains(wire),
            "{out}"
        );
        // a post's metadata line under its title goes; a line of fields without a date, and
        // the same line further down, stay
        let meta = "Freitag | 14. Juni 2019 | 15:49 VON Sina Giebel IN Fashion | 0 COMMENTS";
        let text = format!("## Ear Candy\n\n{meta}\n\n{para}\n\nRed | Blue | Green\n\n{para}\n\n{para}\n\n{meta}\n\n{para}");
        let out = tidied(&text, crate::PageType::Article);
        assert!(
            out.starts_with("## Ear Candy\n\nEvery plan")
                && out.contains("Red | Blue | Green")
                && out.contains(meta),
            "{out}"
        );
        // set as a heading too, in any of the benchmarks' languages; a heading with more
        // words stays
        let ads = format!("{para}\n\n### Anzeige\n\n{para}\n\n### Advertising standards\n\n{para}");
        let out = tidied(&ads, crate::PageType::Article);
        assert!(
            !out.contains("Anzeige") && out.contains("### Advertising standards"),
            "{out}"
        );
        // a notice that the text goes on past an advertisement goes, in any language; a
        // sentence about an advertisement's wording, or about reading on, stays
        for notice in [
            "Story continues below advertisement",
            "Article continues after this ad",
            "ADVERTISEMENT - CONTINUE READING BELOW",
            "Weiter nach der Anzeige",
            "La suite après cette publicité",
        ] {
            let kept = [
                "The advertisement below continues a campaign the brand began in the spring.",
                "How ads continue to fund local news",
                "Readers who continue past the advertisement",
            ];
            let text = format!(
                "{para}\n\n{notice}\n\n{para}\n\n{}\n\n{para}\n\n{}\n\n{para}\n\n{}\n\n{para}",
                kept[0], kept[1], kept[2]
            );
            let out = tidied(&text, crate::PageType::Article);
            assert!(
                !out.contains(notice) && kept.iter().all(|k| out.contains(k)),
                "{notice}: {out}"
            );
        }
        // on a listing or a thread (no cells), a row of short lines is item metadata
        let out = tidied(&text, crate::PageType::Listing);
        assert!(
            !out.contains("$9") && !out.contains("Advertisement"),
            "{out}"
        );

        // the whole page: a landing page's pricing cards keep their plans and prices
        let cards: String = [("Starter", "$9"), ("Team", "$29"), ("Business", "$99")]
            .iter()
            .map(|(plan, price)| {
                format!(r#"<div class="plan-card"><div class="plan-name">{plan}</div><div class="price">{price}</div><div class="period">per month</div><div>10 GB storage</div></div>"#)
            })
            .collect();
        let html = format!(
            r#"<html><head><title>Hosting for small teams</title></head><body><main><h1>Hosting for small teams</h1><p>{para}</p><p>{para}</p><div class="plans">{cards}</div><p>{para}</p></main></body></html>"#
        );
        let x = extract(&html, "https://h.example/pricing", true, None, None).unwrap();
        for cell in ["Starter", "$29", "Business", "per month"] {
            assert!(x.text.contains(cell), "{cell}: {}", x.text);
        }
    }

    #[test]
    fn layout_wrapper_named_after_its_navigation() {
        // `left-navigation_page-wrapper` wraps the whole page, navigation and article: it is
        // judged by the prose inside it, not dropped as navigation
        let para = "The delegates elected the new president of the association on Wednesday, the first woman in the office. ";
        let links: String = (0..80)
            .map(|i| format!(r#"<li><a href="/n{i}">Section number {i} of the site</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><div id="left-navigation_page-wrapper"><ul>{links}</ul><main><div class="article"><p>{p}</p><p>{p}</p><p>{p}</p></div></main></div>
            <div class="more"><ul>{more}</ul></div></body></html>"#,
            p = para.repeat(4),
            more = (0..200)
                .map(|i| format!(
                    r#"<li><a href="/m{i}">Another story from the archive {i}</a></li>"#
                ))
                .collect::<String>()
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("elected the new president"), "{}", x.text);
    }

    #[test]
    fn page_before_a_boilerplate_word_says_whose_it_is() {
        // `page-footer` is the page's footer, not its frame: its small print goes however
        // much prose it holds (no `footer` tag, no other name)
        let story = "The council approved the new cycle lanes after a long debate about parking on the high street. ";
        let print = "This material is for general information only and is not advice; consult a qualified adviser before acting on anything said here. ";
        let html = format!(
            r#"<html><body><div class="x0"><div class="x1"><h1>Cycle lanes</h1><p>{s}</p><p>{s}</p><p>{s}</p></div>
            <div id="page-footer" class="x2"><p>{p}</p><p>{p}</p><p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></p></div></div></body></html>"#,
            s = story.repeat(4),
            p = print.repeat(2),
        );
        let x = extract(&html, "https://h.example/news/lanes", true, None, None).unwrap();
        assert!(
            x.text.contains("approved the new cycle lanes"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("general information only"), "{}", x.text);
    }

    #[test]
    fn a_utility_class_with_an_expression_names_no_region() {
        // `pt-[calc(var(--banner-height))]` sets a padding; the word `banner` inside its
        // expression does not make the section a banner
        let para = "Our crews insulate lofts and cavity walls in a day, and the survey before the work is free of charge. ";
        let html = format!(
            r#"<html><body><main>
            <section class="stack"><h2>Insulation</h2><p>{a}</p></section>
            <section class="stack lg:pt-[calc(var(--banner-height)+2rem)]"><h2>Heating</h2>
            <p>We fit heat pumps and service the boilers we installed.</p>
            <p>Every job comes with a two-year warranty on the labour.</p>
            <p>Quotes are fixed, and we tidy up before we leave.</p></section>
            </main></body></html>"#,
            a = para.repeat(5),
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("two-year warranty"), "{}", x.text);
    }

    #[test]
    fn a_heading_with_a_line_break_is_one_line() {
        let para =
            "Place the screen at arm's length, with its top edge at the height of your eyes. ";
        let html = format!(
            "<html><body><article><h1>Desk setup</h1><p>{p}</p><h3>\n<br>Step 1:<br>the monitor</h3><p>{q}</p></article></body></html>",
            p = para.repeat(3),
            q = sentences("monitor", 3)
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("\n### Step 1: the monitor\n"), "{}", x.text);
    }

    #[test]
    fn a_region_named_by_its_accessible_name_is_read_as_named() {
        // generated class names say nothing; the mega menu set inside the article names
        // itself in its aria-label (without it, its links outweigh the notice around it and
        // the page is read as a list of them; set beside a notice of five paragraphs, it
        // would be a rail, named or not; a dropdown's entry says what it holds, so its
        // text is more than links and its shape names no menu: `menu_trees`)
        let items: String = (0..8)
            .map(|i| {
                format!(
                    r#"<li class="k1x"><a href="/s/{i}">Safety programme number {i} for mines</a>
                    <ul class="q9z"><li><a href="/s/{i}/a">Materials and courses for section {i}</a></li>
                    <li><a href="/s/{i}/b">Quarterly calls and meetings of group {i}</a> (audio)</li></ul></li>"#
                )
            })
            .collect();
        let para = "Operators must report every accident at a mine within fifteen minutes of \
                    learning of it, and keep the site as it was until inspectors arrive. ";
        let banner = "An official website of the government. Here is how you know that this \
                      site is secure and that what you send on it goes only to the agency. ";
        let page = |label: &str| {
            format!(
                r#"<html><body><div class="h7"><p>{banner}</p><p>{banner}</p></div>
                <main class="c69f971"><div class="c040f06"><article><h2>Reporting an accident</h2>
                <ul class="c5c0f1a c584f8f"{label}>{items}</ul>{}</article></div>
                </main></body></html>"#,
                format!("<p>{para}</p>").repeat(5)
            )
        };
        let text = |label: &str| {
            extract(
                &page(label),
                "https://agency.example/notice",
                true,
                None,
                None,
            )
            .unwrap()
            .text
        };
        let named = text(r#" aria-label="Mega menu navigation""#);
        assert!(named.contains("within fifteen minutes"), "{named}");
        assert!(!named.contains("Safety programme"), "{named}");
        // a long label describes a link or a control: it names no region
        let long = text(r#" aria-label="Courses and materials, not a navigation menu""#);
        assert!(long.contains("Safety programme"), "{long}");
        assert_eq!(long, text(""));
    }

    #[test]
    fn a_component_named_in_a_test_hook_is_read_as_named() {
        // class names generated by a CSS-in-JS library; the sign-up box inside the story
        // names itself only in its data-testid
        let para = "The council voted on Tuesday to keep the ferry running through the winter, \
                    after a season in which the crossing carried more passengers than the bridge. ";
        let page = |hook: &str| {
            format!(
                r#"<html><body><article class="css-1q2w3e"><h1>Ferry stays</h1>{}
                <div class="css-9o8i7u"{hook}><p>Sign up for our weekly email with the best local
                stories of the week, delivered to your inbox every Friday morning.</p></div>{}
                </article></body></html>"#,
                format!("<p class=\"css-0p9o8i\">{para}</p>").repeat(3),
                format!("<p class=\"css-0p9o8i\">{para}</p>").repeat(2),
            )
        };
        let text = |hook: &str| {
            extract(&page(hook), "https://news.example/ferry", true, None, None)
                .unwrap()
                .text
        };
        let named = text(r#" data-testid="newsletter-signup""#);
        assert!(named.contains("keep the ferry running"), "{named}");
        assert!(!named.contains("weekly email"), "{named}");
        assert!(text("").contains("weekly email"));
    }

    #[test]
    fn a_teaser_rail_beside_an_article_of_paragraphs_is_no_listing() {
        // a short article of six paragraphs, and beside it (not inside) a rail of teasers,
        // no names or teaser label to go by, whose items hold more text than the article
        let para = "The harbour board met on Tuesday to decide how the old quay will be \
                    repaired before the winter storms, and who pays for it. ";
        let story: String = (0..6).map(|i| format!("<p>{para}Point {i}.</p>")).collect();
        let cards: String = (0..8)
            .map(|i| {
                format!(
                    r#"<div class="c7"><a href="/s/{i}"><h4>Another story number {i} from the region</h4></a><p>Region news, {i} hours ago, four minutes to read, {i}2 comments</p></div>"#
                )
            })
            .collect();
        let page = |story: &str| {
            format!(
                r#"<html><body><div class="c1"><div class="c2"><h1>Quay repairs</h1>{story}</div>
                <div class="c3"><h3>From the region</h3>{cards}</div></div></body></html>"#
            )
        };
        let x = extract(&page(&story), "https://news.example/quay", true, None, None).unwrap();
        assert!(x.text.contains("old quay will be repaired"), "{}", x.text);
        assert!(!x.text.contains("Another story number"), "{}", x.text);
        // a listing's short introduction beside its items does not hold them off
        let intro = format!("<p>{para}</p><p>{para}</p>");
        let x = extract(&page(&intro), "https://news.example/quay", true, None, None).unwrap();
        assert!(x.text.contains("Another story number 5"), "{}", x.text);
    }

    #[test]
    fn a_list_of_links_above_the_title_is_the_menu_not_a_listing() {
        // a site menu written without <nav> or a named class, above a short story: its
        // links outweigh the story, but they end before the story's title (a flat list: a
        // menu of sections and their dropdowns is known by its shape, `menu_trees`)
        let menu: String = (0..6)
            .map(|i| {
                format!(
                    r#"<li class="m1"><a href="/c{i}">Championship news number {i}</a></li>
                    <li class="m1"><a href="/c{i}/t">Tables and standings of series {i}</a></li>
                    <li class="m1"><a href="/c{i}/d">Drivers and teams of series {i}</a></li>"#
                )
            })
            .collect();
        let para = "The calendar for the season has twelve rounds, from March to December, and \
                    the organiser may still move two of them. ";
        let page = |title: &str, holder: &str| {
            format!(
                r#"<html><body><div class="c1"><ul class="c2">{menu}</ul></div>
                <{holder} class="c3">{title}<p>{}</p></{holder}></body></html>"#,
                para.repeat(4)
            )
        };
        let text_in = |title: &str, holder: &str| {
            extract(
                &page(title, holder),
                "https://races.example/calendar",
                true,
                None,
                None,
            )
            .unwrap()
            .text
        };
        let text = |title: &str| text_in(title, "div");
        let titled = text("<h1>Calendar 2018</h1>");
        assert!(titled.contains("twelve rounds"), "{titled}");
        assert!(!titled.contains("Championship news"), "{titled}");
        // so is a title set in a box named like furniture (a page builder's heading widget)
        let boxed = text(r#"<div class="heading-widget"><h1>Calendar 2018</h1></div>"#);
        assert!(boxed.contains("twelve rounds"), "{boxed}");
        assert!(!boxed.contains("Championship news"), "{boxed}");
        // without a title to go by, the links are still read as the page's list
        assert!(text("").contains("Championship news"));
        // unless the page marks its main landmark, holding the story: a list outside it is
        // the site's furniture
        let marked = text_in("", "main");
        assert!(marked.contains("twelve rounds"), "{marked}");
        assert!(!marked.contains("Championship news"), "{marked}");
        // or a skip link's target says where the content is, whatever its tag (through the
        // pre-parse pass, which keeps a link's target on the page alone)
        let skipping = |link: &str| {
            let html = page("", r#"div id="story""#)
                .replacen(
                    "<body>",
                    &format!(r##"<body><a href="#story">{link}</a>"##),
                    1,
                )
                .replace(r#"</div id="story">"#, "</div>");
            let html = crate::strip::strip_inert(&html);
            extract(&html, "https://races.example/calendar", true, None, None)
                .unwrap()
                .text
        };
        let skipped = skipping("Skip to main content");
        assert!(skipped.contains("twelve rounds"), "{skipped}");
        assert!(!skipped.contains("Championship news"), "{skipped}");
        // (a link to another place on the page says nothing of the content)
        assert!(skipping("Jump to the calendar").contains("Championship news"));
    }

    #[test]
    fn legal_small_print_under_the_text_is_not_the_text() {
        let para = "Index funds follow a market benchmark as closely as they can, which keeps their costs low and their returns close to the market's. ";
        let html = format!(
            r#"<html><body><main><h1>Index funds</h1><p>{p}</p><p>{p}</p>
            <div class="cmp-richtext--disclaimer"><p>All investing is subject to risk, including loss.</p>
            <p>Past performance is no guarantee of future results.</p></div></main></body></html>"#,
            p = para.repeat(2)
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        assert!(x.text.contains("market benchmark"), "{}", x.text);
        assert!(!x.text.contains("Past performance"), "{}", x.text);
    }

    /// Paragraph `n` of a made-up story about a river (the labelled-section tests' text).
    fn river_paragraph(n: usize) -> String {
        format!(
            "<p>Paragraph {n} of the story tells how the river moved its gravel over the \
             season, what the farmers saw, and why the banks held for another year.</p>"
        )
    }

    #[test]
    fn labelled_teaser_section_inside_the_article_is_left_out() {
        let paras = |r: std::ops::Range<usize>| r.map(river_paragraph).collect::<String>();
        // a "Most read" widget between two paragraphs, its teasers plain text (no links to
        // give it away) and no class naming it: the story goes on after it
        let widget = r#"<div><h3>Most read in world news</h3>
            <div><h4>RIVER RAGE</h4><p>Angler says the pike took his boot, and his hat</p></div>
            <div><h4>TIME TRAVELLER</h4><p>Old photo shows a man with a phone, fans claim</p></div></div>"#;
        let html = format!(
            "<html><body><article><h1>River</h1>{}{widget}{}</article></body></html>",
            paras(0..4),
            paras(4..9)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(
            !x.text.contains("Most read") && !x.text.contains("pike"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains("Paragraph 3 ") && x.text.contains("Paragraph 8 "),
            "{}",
            x.text
        );
        // at the end of the article the section ends it, as its label would: what follows
        // (a subscription pitch) goes with it
        let html = format!(
            "<html><body><article><h1>River</h1>{}<section><h2>Related stories</h2><p>Pike \
             season opens early</p></section><p>Subscribe today and get a welcome gift with \
             your first month.</p></article></body></html>",
            paras(0..6)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Paragraph 5 "), "{}", x.text);
        assert!(
            !x.text.contains("Pike") && !x.text.contains("Subscribe"),
            "{}",
            x.text
        );
        // a section whose heading only starts like a label is the story's own
        let html = format!(
            "<html><body><article><h1>River</h1>{}<section><h2>Latest readings of the gauge at \
             the old mill bridge</h2><p>The gauge rose by a metre in a week.</p></section>{}</article></body></html>",
            paras(0..4),
            paras(4..8)
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("gauge rose"), "{}", x.text);
        // a comment section, whatever its size (here longer than the story) and with no
        // class to name it
        let comment = |n: usize| {
            format!(
                "<div><h4>Reader {n}</h4><p>I grew up by that river and never saw the banks \
                 move, though my grandfather always said they would one day, and he was right \
                 about most things.</p><a href=\"#r{n}\">Reply</a></div>"
            )
        };
        let html = format!(
            "<html><body><div><h1>River</h1>{}<div><h3>12 thoughts on “River”</h3>{}</div></div></body></html>",
            paras(0..4),
            (0..12).map(comment).collect::<String>()
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Paragraph 3 "), "{}", x.text);
        assert!(
            !x.text.contains("grandfather") && !x.text.contains("thoughts"),
            "{}",
            x.text
        );
    }

    #[test]
    fn a_comment_count_line_opens_a_comment_section_unless_every_item_has_one() {
        let story: String = (0..5).map(river_paragraph).collect();
        let comment = |n: usize| {
            format!("<div><p>Reader {n} writes: my grandfather always said the banks would move one day, and he was right about most things.</p></div>")
        };
        // more comment than story: the label stands in the text's first half, where it
        // would not cut it
        let comments: String = (0..9).map(comment).collect();
        let html = format!(
            "<html><body><div><h1>River</h1>{story}<div><div>View comments (9)</div>{comments}</div></div></body></html>"
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Paragraph 4 "), "{}", x.text);
        assert!(!x.text.contains("grandfather"), "{}", x.text);
        // text that is never rendered before the line (a template for new comments) is not
        // the section's first text
        let html = html.replace(
            "<div><div>View comments (9)</div>",
            "<div><template><p>Write a reply</p></template><div>View comments (9)</div>",
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(!x.text.contains("grandfather"), "{}", x.text);
        // a blog's index, every post opening with its count: the posts stay
        let post = |n: usize| {
            format!(
                "<article><div>0 Comments</div><h2>Post {n}</h2>{}</article>",
                river_paragraph(n)
            )
        };
        let html = format!(
            "<html><body><section>{}</section></body></html>",
            (0..4).map(post).collect::<String>()
        );
        let x = extract(&html, "https://h.example/", false, None, None).unwrap();
        assert!(
            x.text.contains("Paragraph 0 ") && x.text.contains("Paragraph 3 "),
            "{}",
            x.text
        );
    }

    #[test]
    fn comment_headings_with_a_count_or_a_title_end_the_article() {
        let para =
            "The river moved its gravel over the season, and the banks held for another year. "
                .repeat(3);
        let story = format!("{para}\n\n{para}\n\n{para}");
        for heading in [
            "## 59 Comments",
            "### 12 thoughts on “The river report, with a title long enough to need more than thirty bytes”",
            "### One response to “The river report”",
            "## 124 Reader Comments",
            "### Like this:",
        ] {
            let text = format!("{story}\n\n{heading}\n\nGreat post, thanks!\n\nI agree with Anna.");
            let out = tidied(&text, crate::PageType::Article);
            assert_eq!(out, story, "{heading}");
        }
        // a short post with a longer thread under it: the heading still ends it; a post's
        // `No comments` under its date (a fifth- or sixth-level heading) does not
        let thread =
            "Great post, thanks! I walked the same bank last week and saw the gravel too. "
                .repeat(4);
        let text = format!("{para}\n\n### 3 Kommentare\n\n{thread}\n\n{thread}");
        let out = tidied(&text, crate::PageType::Article);
        assert_eq!(out.trim_end(), para.trim_end(), "a short post");
        let text = format!("{para}\n\n###### Keine Kommentare\n\n{story}");
        let out = tidied(&text, crate::PageType::Article);
        assert!(out.contains(story.trim()), "{out}");
        // a count before a label on a plain line is a teaser's metadata, not a heading
        let text = format!("{story}\n\n3 comments\n\n{para}");
        let out = tidied(&text, crate::PageType::Article);
        assert!(out.trim_end().ends_with(para.trim()), "{out}");
    }

    #[test]
    fn kicker_above_the_title_heading_is_dropped() {
        let para = "Good hay is the staple food of horses, and haylage has a worse reputation among riders. ".repeat(3);
        let text = format!("### Read a sample: the perfect dinner\n\nNew\n\n# Haylage: better than its reputation?\n\n{para}\n\n{para}");
        let (out, _) = tidy(
            &text,
            Vec::new(),
            Some("Haylage: better than its reputation? | Riders Review"),
            false,
            crate::PageType::Article,
            &[],
            &[],
        );
        assert!(out.starts_with("Good hay"), "{out}");
        // a lead paragraph above the title stays
        let lead = "A long lead paragraph that opens the story before the heading, as some sites place it, with more than a hundred characters in it.";
        let text = format!("{lead}\n\n# Haylage: better than its reputation?\n\n{para}");
        let (out, _) = tidy(
            &text,
            Vec::new(),
            Some("Haylage: better than its reputation?"),
            false,
            crate::PageType::Article,
            &[],
            &[],
        );
        assert!(out.starts_with("A long lead"), "{out}");
    }

    #[test]
    fn a_described_standfirst_above_the_root_joins_the_text_but_not_on_articles() {
        let dek = "A daypack for long trail days, with pockets galore for quick access to all your essentials.";
        let page = |ld: &str, dek_at: &str| {
            let header = if dek_at == "header" {
                format!("<p class=dek>{dek}</p>")
            } else {
                String::new()
            };
            let nav = if dek_at == "nav" {
                format!("<p>{dek}</p>")
            } else {
                String::new()
            };
            format!(
                r#"<html><head><title>Trail 25 pack</title><meta name="description" content="{dek}">{ld}</head><body>
                <nav><a href="/">Home</a>{nav}</nav>
                <div class=top><h1>Trail 25 pack</h1>{header}<span>4.5 stars</span></div>
                <article class=details><h2>Details</h2><p>{}</p><img src="/pack.jpg" alt="The pack"><p>{}</p></article>
                <footer><p>{dek}</p></footer></body></html>"#,
                sentences("pack", 4),
                sentences("strap", 4)
            )
        };
        let product = r#"<script type="application/ld+json">{"@type":"Product","name":"Trail 25 pack","offers":{"@type":"Offer","price":"99"}}</script>"#;
        let x = extract(
            &page(product, "header"),
            "https://shop.example/p/trail-25",
            true,
            None,
            None,
        )
        .unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Product);
        assert!(x.text.starts_with(&format!("{dek}\n\n")), "{}", x.text);
        assert_eq!(x.text.matches("pockets galore").count(), 1, "{}", x.text);
        // the image stays where it stood in the text
        let im = x
            .images
            .iter()
            .find(|i| i.src.ends_with("/pack.jpg"))
            .unwrap();
        assert!(
            x.text[..im.offset].ends_with(&sentences("pack", 4).trim_end().to_string()[60..]),
            "{}",
            &x.text[..im.offset]
        );
        // shown only in navigation or after the content: not a standfirst
        for at in ["nav", "none"] {
            let x = extract(
                &page(product, at),
                "https://shop.example/p/trail-25",
                true,
                None,
                None,
            )
            .unwrap();
            assert!(!x.text.contains("pockets galore"), "{at}: {}", x.text);
        }
        // an article's dek stays out (the benchmarks' article texts leave it out)
        let article = r#"<script type="application/ld+json">{"@type":"NewsArticle","headline":"Trail 25 pack"}</script>"#;
        let x = extract(
            &page(article, "header"),
            "https://news.example/2026/01/trail-25",
            true,
            None,
            None,
        )
        .unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Article);
        assert!(!x.text.contains("pockets galore"), "{}", x.text);
    }

    /// A product page's extraction, images kept.
    fn shop_page(html: &str) -> Extracted {
        extract(
            html,
            "https://shop.example/p/trail-runner-2",
            true,
            None,
            None,
        )
        .unwrap()
    }

    #[test]
    fn microdata_product_replaces_a_page_that_holds_little_of_it() {
        // the product in microdata only, in `<meta>`s a script renders the page from
        let page = r#"<html><head><title>Trail Runner 2</title></head><body>
            <ul class="menu"><li>Women</li><li>Men</li></ul>
            <div itemscope itemtype="https://schema.org/Product">
              <meta itemprop="name" content="Trail Runner 2">
              <div class="gallery"><p>Use the arrows to move between images.</p></div>
              <meta itemprop="description" content="A light trail shoe with a grippy outsole for wet rock &amp; mud. Its upper is recycled mesh, and a rock plate guards the sole.">
              <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="89.00"><meta itemprop="priceCurrency" content="EUR"></div>
              <div itemprop="additionalProperty" itemscope itemtype="https://schema.org/PropertyValue"><meta itemprop="name" content="Weight"><meta itemprop="value" content="280 g"></div>
              <div itemprop="review" itemscope itemtype="https://schema.org/Review"><meta itemprop="name" content="Not the product's name"></div>
            </div></body></html>"#;
        let x = shop_page(page);
        assert_eq!(
            x.text,
            "# Trail Runner 2\n\nA light trail shoe with a grippy outsole for wet rock & mud. Its upper is recycled mesh, and a rock plate guards the sole.\n\n- Price: 89.00 EUR\n- Weight: 280 g"
        );
        assert_eq!(x.page_type.0, crate::PageType::Product);
    }

    #[test]
    fn json_ld_product_replaces_a_page_that_holds_little_of_it() {
        let ld = |description: &str| {
            format!(
                r#"<script type="application/ld+json">{{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 2","description":{},"offers":[{{"@type":"Offer","price":"89.00","priceCurrency":"EUR"}}],"additionalProperty":[{{"@type":"PropertyValue","name":"Weight","value":"280 g"}},{{"@type":"PropertyValue","name":"Drop","value":8}}]}}</script>"#,
                serde_json::json!(description)
            )
        };
        let description = "<p>A light trail shoe with a grippy outsole for wet rock &amp; mud.</p><ul><li>Recycled mesh upper</li><li>Rock plate</li></ul>";
        // the elements hold a menu and a gallery's instructions: the product is taken
        let script_page = format!(
            r#"<html><head><title>Trail Runner 2</title>{}</head><body><ul class="menu"><li>Women</li><li>Men</li></ul><div class="gallery"><p>Use the arrows to move between images.</p></div></body></html>"#,
            ld(description)
        );
        let x = shop_page(&script_page);
        assert_eq!(
            x.text,
            "# Trail Runner 2\n\nA light trail shoe with a grippy outsole for wet rock & mud.\n\nRecycled mesh upper\n\nRock plate\n\n- Price: 89.00 EUR\n- Weight: 280 g\n- Drop: 8"
        );
        assert_eq!(x.page_type.0, crate::PageType::Product);
        // the elements hold the product: they stay the source
        let prose = "The Trail Runner 2 is a light shoe for long days on rough ground, with a grippy outsole that holds on wet rock and mud. ".repeat(4);
        let full = format!(
            r#"<html><head><title>Trail Runner 2</title>{}</head><body><main><h1>Trail Runner 2</h1><p>{prose}</p><p>Only in the page.</p></main></body></html>"#,
            ld(description)
        );
        let x = shop_page(&full);
        assert!(
            x.text.contains("Only in the page.") && !x.text.contains("Price:"),
            "{}",
            x.text
        );
        // a page declaring many products (a grid) is not one product's page
        let grid: String = (0..4)
            .map(|i| {
                ld(&format!(
                    "Shoe number {i}, a light trail shoe with a grippy outsole for wet rock."
                ))
            })
            .collect();
        let listing = script_page.replace(&ld(description), &grid);
        let x = extract(&listing, "https://shop.example/c/shoes", true, None, None).unwrap();
        assert!(!x.text.contains("Price:"), "{}", x.text);
    }

    #[test]
    fn json_ld_article_body_replaces_a_teaser() {
        let body =
            "The council approved the new library budget after a long debate on Tuesday evening. "
                .repeat(12);
        let ld = |b: &str| {
            format!(
                r#"<script type="application/ld+json">{{"@context":"https://schema.org","@type":"NewsArticle","headline":"Library budget","articleBody":{}}}</script>"#,
                serde_json::json!(b)
            )
        };
        // the elements hold a teaser only: the JSON-LD body is taken, under the title
        let teaser = format!("<html><head><title>Library budget</title>{}</head><body><article><h1>Library budget</h1><p>The council approved the new library budget.</p></article></body></html>", ld(&format!("{body}\nA second paragraph.")));
        let x = extract(&teaser, "https://h.example/a", true, None, None).unwrap();
        assert!(
            x.text
                .starts_with("# Library budget\n\nThe council approved")
                && x.text.ends_with("A second paragraph."),
            "{}",
            x.text
        );
        assert_eq!(x.text.matches("\n\n").count(), 2, "{}", x.text);
        // the elements hold the article: they stay the source
        let full = format!("<html><head><title>Library budget</title>{}</head><body><article><h1>Library budget</h1><p>{body}</p><p>Only in the page.</p></article></body></html>", ld(&body));
        assert!(extract(&full, "https://h.example/a", true, None, None)
            .unwrap()
            .text
            .contains("Only in the page."));
        // a body with markup is not used
        let marked = format!("<html><head>{}</head><body><article><p>The council approved the new library budget.</p></article></body></html>", ld(&format!("<p>{body}</p>")));
        assert!(!extract(&marked, "https://h.example/a", true, None, None)
            .unwrap()
            .text
            .contains("debate"));
    }

    #[test]
    fn json_ld_how_to_and_recipe_steps_replace_a_script_shell() {
        let step = |i: usize| {
            format!("<p>Measure the table top and add the drop on each side, step {i}; then cut the cloth along the chalk line you drew around the plate.</p>")
        };
        // a how-to whose page renders from script: the elements say to update the browser
        let how_to = serde_json::json!({
            "@context": "https://schema.org", "@type": "HowTo", "name": "A round tablecloth",
            "description": "<p>A round table deserves a cloth that fits it.</p>",
            "step": (1..=4).map(|i| serde_json::json!({"@type": "HowToStep", "name": format!("Step {i}: measure"),
                "itemListElement": {"@type": "HowToDirection", "text": step(i)}})).collect::<Vec<_>>(),
        });
        let page = |ld: &serde_json::Value, body: &str| {
            format!(
                r#"<html><head><title>A round tablecloth</title><script type="application/ld+json">{ld}</script></head><body>{body}</body></html>"#
            )
        };
        let shell = "<div><p>Please download a newer browser for a better experience.</p></div>";
        let text_of = |ld: &serde_json::Value, body: &str| {
            extract(&page(ld, body), "https://h.example/diy/1", true, None, None)
                .unwrap()
                .text
        };
        let text = text_of(&how_to, shell);
        assert!(
            text.starts_with("# A round tablecloth\n\nA round table deserves")
                && text.contains("### Step 2: measure\n\nMeasure the table top")
                && !text.contains("newer browser"),
            "{text}"
        );
        // a recipe: its ingredients as a list, its instructions as text
        let recipe = serde_json::json!({
            "@context": "https://schema.org", "@type": "Recipe", "name": "Barley soup",
            "recipeIngredient": ["200 g barley", "1 onion"],
            "recipeInstructions": [{"@type": "HowToSection", "name": "The broth", "itemListElement": (1..=6).map(|i| serde_json::json!({"@type": "HowToStep", "text": format!("Simmer the barley with the onion for twenty minutes, stirring now and then, batch {i} of six, until soft.")})).collect::<Vec<_>>()}],
        });
        let text = text_of(&recipe, shell);
        assert!(
            text.contains("- 200 g barley\n- 1 onion\n\n## The broth\n\nSimmer the barley"),
            "{text}"
        );
        // the elements hold the steps: they stay the source
        let steps: String = (1..=4).map(step).collect();
        let full = format!("<article><h1>A round tablecloth</h1>{steps}<p>Only in the page, a last word on hemming.</p></article>");
        assert!(text_of(&how_to, &full).contains("Only in the page"));
    }

    /// Where the rules are unsure (nothing declared, no telling URL), the model types the
    /// page from its shape: a landing page of short sections, plans and a form; a shop's
    /// grid of priced items; a page of long paragraphs.
    #[test]
    fn the_model_types_what_the_rules_cannot() {
        let kind = |html: &str, url: &str| extract(html, url, true, None, None).unwrap().page_type;
        let mut sections = String::new();
        for (name, blurb) in [
            (
                "Audits",
                "We check your books every quarter and tell you what to fix.",
            ),
            (
                "Payroll",
                "Salaries, taxes and filings handled for teams of any size.",
            ),
            (
                "Advice",
                "Talk to an accountant whenever a decision comes up.",
            ),
            (
                "Reports",
                "Clear monthly reports you can read in five minutes.",
            ),
        ] {
            sections.push_str(&format!(
                r#"<section><h2>{name}</h2><p>{blurb}</p><a href="/{name}">Learn more</a></section>"#
            ));
        }
        let landing = format!(
            r#"<html><head><title>Acme Accounting</title></head><body><nav><a href="/">Home</a><a href="/about">About</a><a href="/contact">Contact</a></nav>
            <main><h1>Accounting for small firms</h1><p>Books, payroll and advice from one team.</p>{sections}
            <section><h2>Plans</h2><ul><li>Starter $29 / month</li><li>Growth $79 / month</li><li>Scale $199 / month</li></ul></section>
            <form action="/contact"><label>Email</label><input name="email"></form></main><footer>Acme Ltd</footer></body></html>"#
        );
        let (t, sure) = kind(&landing, "https://acme.example/");
        assert_eq!(t, crate::PageType::Service, "{sure}");
        let mut items = String::new();
        for i in 0..16 {
            items.push_str(&format!(
                r#"<li class="tile"><a href="/p/{i}"><img src="/img/{i}.jpg" alt=""></a><h3><a href="/p/{i}">Ceramic mug model {i}</a></h3><span>€{i}.99</span></li>"#
            ));
        }
        let grid = format!(
            r#"<html><head><title>Mugs</title></head><body><nav><a href="/">Home</a><a href="/cart">Cart</a></nav>
            <main><h1>Mugs</h1><p>Sort by: price</p><ul class="tiles">{items}</ul></main><footer>Shop Ltd</footer></body></html>"#
        );
        let (t, sure) = kind(&grid, "https://shop.example/kitchen/mugs");
        assert_eq!(t, crate::PageType::Collection, "{sure}");
        let paragraph = "The river rose through the night, and by morning the lower streets of the town were under water that nobody had expected to see again so soon. ";
        let body: String = (0..8)
            .map(|i| format!("<p>{} Paragraph {i} goes on.</p>", paragraph.repeat(3)))
            .collect();
        let prose = format!(
            r#"<html><head><title>The flood</title></head><body><nav><a href="/">Home</a></nav><main><h1>The flood</h1>{body}</main><footer>Paper</footer></body></html>"#
        );
        let (t, sure) = kind(&prose, "https://paper.example/local/the-flood");
        assert_eq!(t, crate::PageType::Article, "{sure}");
    }

    /// A section front: twelve teasers (a headline link and a blurb each) and no article.
    fn listing_page(extra_article: &str) -> String {
        let mut items = String::new();
        for i in 0..12 {
            items.push_str(&format!(
                r#"<div class="card"><h3><a href="/story/{i}">Headline number {i} about the harbour</a></h3><p class="dek">A short blurb of story {i}, one sentence.</p></div>"#
            ));
        }
        format!(
            r#"<html><head><title>Section</title></head><body><nav><ul><li><a href="/">Home</a></li><li><a href="/a">News</a></li></ul></nav>
            <main>{extra_article}<section class="river">{items}</section></main><footer>Copyright</footer></body></html>"#
        )
    }

    #[test]
    fn a_listing_keeps_its_items_and_drops_the_menus() {
        let x = extract(
            &listing_page(""),
            "https://h.example/news",
            true,
            None,
            None,
        )
        .unwrap();
        for i in [0, 5, 11] {
            assert!(
                x.text
                    .contains(&format!("Headline number {i} about the harbour")),
                "{}",
                x.text
            );
            assert!(
                x.text.contains(&format!("A short blurb of story {i}")),
                "{}",
                x.text
            );
        }
        assert!(
            !x.text.contains("Copyright") && !x.text.contains("Home"),
            "{}",
            x.text
        );
        assert_eq!(x.page_type.0, crate::PageType::Listing);
    }

    #[test]
    fn a_link_to_the_page_in_another_language_is_boilerplate() {
        // a language switcher's entries carry `hreflang`, whatever the list is named; links
        // in the text do not
        let langs: String = ["Deutsch", "Français", "Español", "Italiano", "Svenska"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                format!(r#"<li class="x1"><a href="https://l{i}.h.example/" lang="l{i}" hreflang="l{i}" class="x2"><span>{n}</span></a></li>"#)
            })
            .collect();
        let html = format!(
            r#"<html><body><main><div class="x3"><ul class="x4">{langs}</ul></div><h1>Setting up</h1><p>{} See <a href="/docs/a">the configuration</a>.</p></main></body></html>"#,
            sentences("setup", 4)
        );
        // through the pre-parse pass, which must keep the attribute
        let html = crate::strip::strip_inert(&html);
        let doc = trawl_core::parse::parse_document(&html);
        let scores = crate::score::score(&doc, crate::score::Declared::default());
        let links: Vec<_> = doc.select(&Selector::parse("a").unwrap()).collect();
        assert_eq!(links.len(), 6);
        for a in links {
            let switcher = a.text().any(|t| t != "the configuration");
            assert_eq!(scores.get(a.id()).unwrap().boiler, switcher, "{}", a.html());
        }
    }

    #[test]
    fn a_footer_is_known_by_its_copyright_line() {
        // no `footer` tag, no names: the site's columns of links and its small print; a
        // photo's credit over a short story whose wrapper holds a breadcrumb trail and share
        // links (a third of its text under links, the credit near its top, under half the
        // page's text: no wrapper of the page); a list of other stories between them
        let links = |ws: &[&str]| {
            ws.iter()
                .map(|w| format!(r#"<li><a href="/{w}">{w}</a></li>"#))
                .collect::<String>()
        };
        let html = format!(
            r#"<html><body><div id="post"><p><a href="/">Home</a> › <a href="/arts">Arts</a> › <a href="/arts/books">Books</a></p><span>© Harbour Photo Agency</span><p id="story">{}</p><ul>{}</ul></div>
            <div><ul>{}</ul></div><div id="bottom"><ul>{}</ul><ul>{}</ul><ul>{}</ul><p id="print">© 2025 Harbour Media Ltd. All rights reserved.</p><p>{}</p></div></body></html>"#,
            sentences("the author's novel", 3),
            links(&[
                "Share on Facebook",
                "Share on X",
                "Share on LinkedIn",
                "Share on WhatsApp",
                "Share on Reddit",
                "Share on Bluesky",
                "Share on Threads",
                "Share by email",
                "Save for later",
                "Print this page"
            ]),
            (1..=12)
                .map(|i| format!(
                    r#"<li><a href="/s/{i}">Another story of the week, number {i}</a></li>"#
                ))
                .collect::<String>(),
            links(&["About us", "Careers", "Advertise", "Contact"]),
            links(&["Newsletters", "Subscriptions", "Gift cards", "Archive"]),
            links(&[
                "News", "Sport", "Culture", "Travel", "Science", "Weather", "Podcasts", "Puzzles"
            ]),
            links(&["Privacy policy", "Terms of use", "Cookie settings"]).replace("li>", "span>"),
        );
        let boiler = boiler_by_id(&html);
        assert!(boiler("bottom"));
        assert!(boiler("print"));
        assert!(!boiler("post"));
        assert!(!boiler("story"));
    }

    #[test]
    fn a_menu_tree_is_known_by_its_shape() {
        // a site menu without `nav` or a name: eight sections, each with its dropdown of
        // pages; a table of contents nesting its sections (links to places on the page); a
        // list of courses, each with a nested list of dates (more than links); a short
        // story with no `h1` under them, shorter than the menu
        let tree = |id: &str, href: &dyn Fn(&str, usize) -> String, extra: &str| {
            let items: String = [
                "News", "World", "Sport", "Money", "Travel", "Culture", "Food", "Video",
            ]
            .map(|s| {
                let sub: String = (1..=3)
                    .map(|k| {
                        format!(
                            r#"<li><a href="{}">{s} pages of day {k}</a>{extra}</li>"#,
                            href(s, k)
                        )
                    })
                    .collect();
                format!(r#"<li><a href="{}">{s}</a><ul>{sub}</ul></li>"#, href(s, 0))
            })
            .concat();
            format!(r#"<ul id="{id}">{items}</ul>"#)
        };
        let menu = tree("sections", &|s, k| format!("/{s}/{k}"), "");
        let toc = tree("chapters", &|s, k| format!("#{s}-{k}"), "");
        let courses = tree(
            "courses",
            &|s, k| format!("/c/{s}/{k}"),
            " <span>starts on the first Monday of each month, in the evening</span>",
        );
        let html = format!(
            r#"<html><body><div>{menu}</div><div><h2>Harbour ferry</h2><p id="story">{}</p>{toc}{courses}</div></body></html>"#,
            sentences("the ferry", 3)
        );
        let boiler = boiler_by_id(&html);
        assert!(boiler("sections"));
        assert!(!boiler("chapters"));
        assert!(!boiler("courses"));
        assert!(!boiler("story"));
        // the story alone, without the menu over it
        let page = format!(
            r#"<html><body><div>{menu}</div><div><h2>Harbour ferry</h2><p>{}</p></div></body></html>"#,
            sentences("the ferry", 3)
        );
        let x = extract(&page, "https://h.example/a", true, None, None).unwrap();
        assert!(x.text.contains("the ferry"), "{}", x.text);
        assert!(!x.text.contains("Sport pages"), "{}", x.text);
        // the same tree inside the main landmark, under the page's title, is the page's
        // table of contents (a manual's chapters), while the one above it is still a menu
        let contents = tree("contents", &|s, k| format!("/guide/{s}/{k}"), "");
        let html = format!(
            r#"<html><body><div>{menu}</div><div role="main"><h1>The guide</h1><p>{}</p>{contents}</div></body></html>"#,
            sentences("the guide", 1)
        );
        let boiler = boiler_by_id(&html);
        assert!(boiler("sections"));
        assert!(!boiler("contents"));
    }

    #[test]
    fn a_language_switcher_is_known_by_its_names() {
        // a site's languages as a list without `nav`, a name or `hreflang`; a region picker
        // (each entry a country and its language on lines of their own); a post naming
        // languages in a sentence and in a list shorter than a switcher's
        let langs: String = [
            "Deutsch",
            "Español",
            "Français",
            "Italiano",
            "日本語",
            "Polski",
            "Русский",
        ]
        .map(|n| format!(r#"<li><a href="/{n}/">{n}</a></li>"#))
        .concat();
        let regions: String = [
            ("Egypt", "English"),
            ("Maroc", "Français"),
            ("Brasil", "Português"),
            ("México", "Español"),
            ("Japan", "日本語 (日本)"),
        ]
        .map(|(c, l)| format!(r#"<div><a href="/{c}/"><h4>{c}</h4><p>{l}</p></a></div>"#))
        .concat();
        let short = ["English", "Deutsch", "Français"]
            .map(|l| format!("<li>{l}</li>"))
            .concat();
        let html = format!(
            r#"<html><body><div id="regions">{regions}</div><main><h1>Which board?</h1><p id="said">{} We answer in English, Deutsch, Français and Español.</p><ul id="short">{short}</ul><p>{}</p></main><ul id="langs">{langs}</ul></body></html>"#,
            sentences("the board", 3),
            sentences("the answer", 3)
        );
        let boiler = boiler_by_id(&html);
        assert!(boiler("langs"));
        assert!(boiler("regions"));
        assert!(!boiler("said"));
        assert!(!boiler("short"));
    }

    #[test]
    fn a_box_of_related_stories_among_the_last_paragraphs_does_not_end_the_story() {
        // a story's box of related links set in its second half, the story going on after
        // it (three paragraphs that end their sentences)
        let p = |i: usize| format!("<p>{}</p>", sentences(&format!("part {i}"), 2));
        let story: String = (0..6).map(p).collect();
        let more: String = (6..9).map(p).collect();
        let related = r#"<div><h3>Related stories</h3><div><a href="/a">The ferry line opens</a><p>The line links the old docks with the station in twelve minutes.</p></div></div>"#;
        let page = |after: &str| {
            format!(
                r#"<html><body><main><article><h1>The harbour</h1>{story}{related}{after}</article></main></body></html>"#
            )
        };
        let x = extract(&page(&more), "https://h.example/", false, None, None).unwrap();
        assert!(x.text.contains("Sentence 1 about the part 8"), "{}", x.text);
        assert!(!x.text.contains("The ferry line opens"), "{}", x.text);
    }

    #[test]
    fn a_menu_of_links_alone_does_not_join_a_listing_of_blurbs() {
        // a news index (headlines, each with a blurb) under a site menu written without
        // `nav`, a name or a title between them: the menu's entries are links alone, a
        // group of items of its own that the listing's root must not reach out to
        let menu: String = ["World", "Business", "Science", "Culture", "Sport", "Travel"]
            .map(|s| {
                format!(
                    r#"<li><a href="/{s}">{s}</a><ul><li><a href="/{s}/t">{s} today</a></li><li><a href="/{s}/a">{s} archive</a></li></ul></li>"#
                )
            })
            .concat();
        let teasers: String = (0..6)
            .map(|i| {
                format!(
                    r#"<div><a href="/story/{i}">Harbour story number {i} of the week</a><p>The council said on Monday that the ferry line {i} opens in spring and links the old docks with the station.</p></div>"#
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><div><ul>{menu}</ul></div><div><div id="teasers">{teasers}</div></div></body></html>"#
        );
        let doc = trawl_core::parse::parse_document(&html);
        let scores = crate::score::score(&doc, crate::score::Declared::default());
        let listing = scores
            .listing
            .and_then(|l| doc.tree.get(l))
            .and_then(ElementRef::wrap);
        assert_eq!(listing.and_then(|l| l.value().attr("id")), Some("teasers"));
    }

    #[test]
    fn a_list_headed_by_a_teaser_label_is_a_rail_not_the_listing() {
        // a short page beside a rail of five cards (a linked headline, a blurb) that holds
        // more text than the page: the rail's heading says what it is
        let cards: String = (0..5)
            .map(|i| {
                format!(r#"<div class="r2"><a href="/story/{i}"><img src="/i/{i}.jpg" alt=""><h4>Story number {i} from the harbour district</h4></a><p>The blurb of story {i} runs for one sentence about the ferry line and the old docks.</p></div>"#)
            })
            .collect();
        let page = |label: &str| {
            format!(
                r#"<html><body><div class="c1"><h1>Opening hours</h1><p>{}</p></div><div class="r1"><h3>{label}</h3>{cards}</div></body></html>"#,
                "The library opens at nine on weekdays and at ten on Saturdays; it is closed on Sundays and public holidays. "
                    .repeat(2)
            )
        };
        let text = |label: &str| {
            extract(&page(label), "https://h.example/hours", true, None, None)
                .unwrap()
                .text
        };
        let rail = text("Most read");
        assert!(rail.contains("closed on Sundays"), "{rail}");
        assert!(!rail.contains("Story number 3"), "{rail}");
        // under a heading of its own the list is the page's (a listing's section)
        let own = text("Harbour district stories");
        assert!(own.contains("Story number 3"), "{own}");
    }

    #[test]
    fn a_story_in_an_inline_element_split_by_line_breaks_is_walked() {
        // a story written as runs of text split by `<br><br>`, inside an element the scorer
        // does not know as a block (a custom element), with a list of links to other stories
        // in it: the element's scores count the list alone, the text is the block's around it
        let runs: String = (0..6)
            .map(|i| format!("Run {i} of the story tells how the ferry kept the island's school open through the winter, and who paid for the extra crossings.<br><br>"))
            .collect();
        let links: String = (0..4)
            .map(|i| format!(r#"<li><a href="/s/{i}">Another story number {i} about the ferry and the island</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><div class="story"><h1>The winter ferry</h1><{tag}>{runs}<ul class="more">{links}</ul>The last run of the story, after the list, says the crossings go on.</{tag}></div></body></html>"#,
            tag = "story-body"
        );
        let x = extract(&html, "https://news.example/ferry", true, None, None).unwrap();
        assert!(x.text.contains("Run 4 of the story"), "{}", x.text);
        assert!(x.text.contains("the crossings go on"), "{}", x.text);
    }

    #[test]
    fn a_div_of_bold_words_above_paragraphs_is_a_subheading_and_a_badge_is_not() {
        // a page builder's subheading: a `<div>` holding bold words alone, the paragraphs it
        // heads after it; a forum's badge is the same markup with no paragraph after it
        let para = "<p>The accelerator is in a planned maintenance phase anyway, and the experiment is being rebuilt over the next two years.</p>";
        let html = format!(
            r#"<html><body><article><h1>Saving energy at the lab</h1>{para}{para}<div><b>Savings through maintenance</b></div>{para}{para}<div><strong>Senior team member</strong></div><div>{}</div></article></body></html>"#,
            "The last part of the story says the savings go on through the winter and beyond. "
                .repeat(2)
        );
        let x = extract(&html, "https://news.example/energy", true, None, None).unwrap();
        assert!(
            x.text
                .contains("#### Savings through maintenance\n\nThe accelerator"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("# Senior team member"), "{}", x.text);
    }

    #[test]
    fn a_cards_caption_with_blocks_of_its_own_is_text_not_a_photo_caption() {
        // a shop grid's cards: the item's name, blurb and category in a box named `caption`,
        // the name in a `div` of bold link text rather than a heading
        let grid = |wrapper: bool| {
            let (open, close) = if wrapper {
                (r#"<div class="pad">"#, "</div>")
            } else {
                ("", "")
            };
            let cards: String = (0..6)
                .map(|i| {
                    format!(r#"<li class="product"><a href="/p/{i}"><img src="/i/{i}.jpg" alt=""></a><div class="product-caption">{open}<div class="posted-in"><a href="/c/bags">Bags</a></div><div class="loop-title"><b><a href="/p/{i}">Travel bag model {i}</a></b></div><div class="short-description">A roomy bag number {i} for long trips, with two side pockets.</div><span class="price">${i}9.00</span>{close}</div></li>"#)
                })
                .collect::<String>();
            format!(
                r#"<html><body><main><h1>Travel gear</h1><ul class="products">{cards}</ul></main></body></html>"#
            )
        };
        // (the blocks also inside a wrapper that holds them alone)
        for wrapper in [false, true] {
            let x = extract(
                &grid(wrapper),
                "https://shop.example/c/travel",
                true,
                None,
                None,
            )
            .unwrap();
            assert!(x.text.contains("Travel bag model 4"), "{}", x.text);
            assert!(x.text.contains("A roomy bag number 4"), "{}", x.text);
        }
        // a photo's caption with its credit stays a caption
        let photo = r#"<html><body><article><h1>The harbour</h1><figure><img src="/h.jpg" alt=""></figure><div class="wp-caption-text"><p>Boats at dawn.</p><p>Photo: A. Smith</p></div><p>The harbour board met on Tuesday to decide how the old quay will be repaired before the winter storms.</p></article></body></html>"#;
        let x = extract(photo, "https://news.example/harbour", true, None, None).unwrap();
        assert!(!x.text.contains("Photo: A. Smith"), "{}", x.text);
    }

    #[test]
    fn an_article_beside_a_teaser_rail_stays_the_content() {
        let story = "<article><h1>Council approves the budget</h1>".to_string()
            + &"<p>The council approved the new library budget after a long debate on Tuesday evening, with most members in favour.</p>".repeat(12)
            + "</article>";
        let x = extract(
            &listing_page(&story),
            "https://h.example/a",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(
            x.text.starts_with("# Council approves the budget"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("Headline number 3"), "{}", x.text);
        assert_eq!(x.page_type.0, crate::PageType::Article);
    }

    /// A page of `n` posts, each in a `comment`-classed block, under `lead` prose.
    fn thread_page(lead: &str, n: usize) -> String {
        let posts: String = (0..n)
            .map(|i| format!("<li class='comment'><div class='comment-meta'><a href='/u/{i}'>user{i}</a></div><div class='comment-text'><p>Post {i}: the ferry timetable changed in spring, and the early boat now leaves at six, which suits the commuters from the island.</p></div></li>"))
            .collect();
        format!(
            r#"<html><head><title>Ferry timetable</title></head><body><nav><a href="/">Home</a> <a href="/f">Forums</a></nav>
            <div class="wrap">{lead}<ol class="comments">{posts}</ol></div><footer>Copyright</footer></body></html>"#
        )
    }

    #[test]
    fn a_page_made_of_comment_blocks_keeps_them() {
        // a thread: the posts are the page, whatever their class calls them
        let x = extract(
            &thread_page("", 12),
            "https://h.example/t/1",
            true,
            None,
            None,
        )
        .unwrap();
        for i in [0, 6, 11] {
            assert!(
                x.text.contains(&format!("Post {i}: the ferry")),
                "{}",
                x.text
            );
        }
        assert!(!x.text.contains("Copyright"), "{}", x.text);
        // an article with a long comment section under it: the article alone
        let story = "<article><h1>Ferries change their timetable</h1>".to_string()
            + &"<p>The harbour authority moved the first crossing of the day to six in the morning, after a survey of the island's commuters found most of them start work before eight.</p>".repeat(10)
            + "</article>";
        let x = extract(
            &thread_page(&story, 30),
            "https://h.example/a",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.starts_with("# Ferries change"), "{}", x.text);
        assert!(!x.text.contains("Post 3:"), "{}", x.text);
    }

    #[test]
    fn a_landing_page_keeps_every_section() {
        // sections of similar weight, each cut off from the next by a button and a link
        // strip that cost more than one section's prose brings
        let topics = ["Backups", "Monitoring", "Alerts", "Reports", "Support"];
        let strip: String = (0..16)
            .map(|i| format!("<a href='/l{i}'>Related link {i}</a> "))
            .collect();
        let sections: String = topics
            .iter()
            .map(|t| format!(
                "<div class='row'><div class='col'><h2>{t}</h2><p>{t} for every server you run, set up in minutes and kept for a year, with nothing to install on your machines.</p></div>\
                 <div class='col'><span>Start today</span> <a class='btn' href='/start'>Sign up</a> {strip}</div></div>"
            ))
            .collect();
        let html = format!(
            r#"<html><head><title>Server care</title></head><body><header><a href="/">Logo</a></header>
            <div class="page">{sections}</div><footer>Copyright</footer></body></html>"#
        );
        let x = extract(&html, "https://h.example/", true, None, None).unwrap();
        for t in topics {
            assert!(
                x.text.contains(&format!("{t} for every server")),
                "{}",
                x.text
            );
        }
        assert!(
            !x.text.contains("Copyright") && !x.text.contains("Related link"),
            "{}",
            x.text
        );
    }

    #[test]
    fn a_consent_dialog_is_known_by_its_text_whatever_its_names() {
        // a preference centre with no names to go by: its panels speak of the site's cookies,
        // its list of partners' purposes (most of its text) does not
        let panels: String = ["Performance", "Functional", "Targeting"]
            .iter()
            .map(|k| format!("<div><h4>{k} Cookies</h4><p>These cookies allow us to count visits and improve the performance of our site. If you do not allow them, we will not know when you visited.</p></div>"))
            .collect();
        let purposes: String = (0..15)
            .map(|i| format!("<div><h4>Purpose {i}: 70 partners can use this purpose</h4><p>Information about your activity on this service can be stored and combined with other information about you to build a profile for purpose {i}.</p></div>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Soup recipes</title></head><body><div class="x1"><h1>Soup recipes</h1>
            <p>Our collection of soups has something for every season, from chilled gazpacho to a slow winter broth.</p>
            <p>Each recipe was tested twice in our kitchen and comes with notes on freezing.</p></div>
            <div class="x2"><h3>Your privacy</h3>{panels}<div class="x4">{purposes}</div></div></body></html>"#
        );
        let x = extract(&html, "https://h.example/soups", true, None, None).unwrap();
        assert!(x.text.contains("Our collection of soups"), "{}", x.text);
        assert!(!x.text.contains("Purpose 3"), "{}", x.text);
        // cookies that are baked, spoken of in every paragraph, are no consent notices
        let recipe = format!(
            "<html><body><div><h1>Cookies</h1>{}</div></body></html>",
            "<p>These cookies keep for a week in a tin; bake them on the middle shelf until golden, then let them cool on the tray.</p>".repeat(6)
        );
        let x = extract(&recipe, "https://h.example/cookies", true, None, None).unwrap();
        assert!(x.text.contains("keep for a week"), "{}", x.text);
    }

    #[test]
    fn a_consent_banner_is_known_by_its_notice_and_buttons_whatever_its_names() {
        let banner = r#"<div><div><p>We use cookies and similar technologies to run this site and to measure how it is used. You can accept all cookies or reject those that are not necessary.</p><a href="/privacy">Privacy policy</a></div><div><button>Accept all</button><button>Reject all</button></div></div>"#;
        // an empty shell of a page (its text comes with a script) is empty, not its banner
        let shell = format!(
            r#"<html><head><title>App</title></head><body>{banner}<div id="root"></div></body></html>"#
        );
        let x = extract(&shell, "https://h.example/app", true, None, None).unwrap();
        assert!(!x.text.contains("We use cookies"), "{}", x.text);
        // beside a short product text, the banner is no part of it
        let product = format!(
            r#"<html><head><title>Lantern</title></head><body>{banner}<div><h1>Storm lantern</h1><p>A brass storm lantern that burns for twenty hours on one filling, with a glass shield that stays cool.</p></div></body></html>"#
        );
        let x = extract(&product, "https://h.example/lantern", true, None, None).unwrap();
        assert!(
            x.text.contains("brass storm lantern") && !x.text.contains("We use cookies"),
            "{}",
            x.text
        );
        // a page about the site's cookies that asks its reader to accept them is a page: the
        // notice is a small part of the region holding the button
        let policy = format!(
            r#"<html><body><article><h1>Cookie policy</h1><p>We use cookies to remember your settings.</p>{}<p><button>Accept all</button></p></article></body></html>"#,
            "<p>Session cookies last until the browser closes; the preference cookie lasts a year and holds the language and the region you chose on your first visit.</p>".repeat(4)
        );
        let x = extract(&policy, "https://h.example/cookies", true, None, None).unwrap();
        assert!(
            x.text.contains("We use cookies to remember") && x.text.contains("Session cookies"),
            "{}",
            x.text
        );
        // nor is a policy's paragraph that links to the settings, inside the main landmark
        let settings = format!(
            r#"<html><body><main><h1>Privacy</h1><div><p>We use cookies to remember your settings; you can change them at any time.</p><p><a href="/settings">Cookie settings</a></p></div>{}</main></body></html>"#,
            "<p>Session cookies last until the browser closes; the preference cookie lasts a year and holds the language and the region you chose on your first visit.</p>".repeat(2)
        );
        let x = extract(&settings, "https://h.example/privacy", true, None, None).unwrap();
        assert!(x.text.contains("We use cookies to remember"), "{}", x.text);
    }

    #[test]
    fn a_consent_platform_dialog_is_never_the_content() {
        // a preference centre listing its partners holds most of the page's text
        let partners: String = (0..40)
            .map(|i| format!("<div class='ot-vendor'><h4>Partner {i}</h4><p>Partner {i} stores and reads information on your device, measures how content performs and develops its products, based on your consent or its legitimate interest.</p></div>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Soup recipes</title></head><body><main><h1>Soup recipes</h1>
            <p>Our collection of soups has something for every season, from chilled gazpacho to a slow winter broth.</p>
            <p>Each recipe was tested twice in our kitchen and comes with notes on freezing.</p></main>
            <div id="onetrust-consent-sdk"><div class="ot-pc-content">{partners}</div></div></body></html>"#
        );
        let x = extract(&html, "https://h.example/soups", true, None, None).unwrap();
        assert!(x.text.contains("Our collection of soups"), "{}", x.text);
        assert!(!x.text.contains("Partner 3"), "{}", x.text);
    }

    #[test]
    fn a_card_caption_with_a_heading_is_text_and_a_photo_caption_is_not() {
        let cards: String = (0..8)
            .map(|i| format!("<div class='card'><a href='/p/{i}'><img src='/i/{i}.jpg' alt=''><div class='caption'><h3>Lantern model {i}</h3><div>Maker: Northlight</div><div>Price: ${i}9.00</div></div></a></div>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Lanterns</title></head><body><h1>Lanterns</h1><div class="grid">{cards}</div>
            <figure><img src="/i/shop.jpg"><div class="photo-caption">Our shop in winter</div></figure></body></html>"#
        );
        let x = extract(&html, "https://h.example/lanterns", true, None, None).unwrap();
        for i in [0, 4, 7] {
            assert!(x.text.contains(&format!("Lantern model {i}")), "{}", x.text);
        }
        assert!(x.text.contains("Maker: Northlight"), "{}", x.text);
        assert!(!x.text.contains("Our shop in winter"), "{}", x.text);
    }

    #[test]
    fn customer_reviews_are_comments_on_a_product_page_only() {
        let said = [
            "sturdy and easy to assemble, I bought two more for the spare room.",
            "the white finish chipped at one corner after a month of use.",
            "holds all my records; the bottom shelf bows a little under the weight.",
            "took us forty minutes, and the instructions were clear enough.",
            "good value for the price, though the back panel is thin.",
            "we use it as a room divider and it looks fine from both sides.",
        ];
        let reviews: String = said
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!("<div class='review'><p>Reviewer {i} wrote that it is {t}</p></div>")
            })
            .collect();
        let page = |ld: &str| {
            format!(
                r#"<html><head><title>Shelf unit</title>{ld}</head><body><main><h1>Shelf unit, white</h1>
                <p>A simple shelf unit of solid pine with four compartments, for books, boxes and records; it stands on the floor or lies on its side as a bench.</p>
                <p>Width 77 cm, depth 39 cm, height 147 cm. Maximum load per shelf 13 kg. Assembly takes about an hour with two people.</p>
                <p>The pine comes from managed forests and is finished with a water-based lacquer; wipe it with a damp cloth and dry it with a clean one.</p>
                <p>Inserts with doors or drawers fit every compartment and are sold separately, as are the wall fittings that keep a tall unit from tipping.</p>
                <section class="reviews"><h2>Customer reviews</h2>{reviews}</section></main></body></html>"#
            )
        };
        let product = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Shelf unit","offers":{"@type":"Offer","price":"49.00"}}</script>"#;
        let x = extract(&page(product), "https://h.example/p/1", true, None, None).unwrap();
        assert!(x.text.contains("solid pine"), "{}", x.text);
        assert!(!x.text.contains("Reviewer 2"), "{}", x.text);
        // an identifier says the same without an offer
        let sku = r#"<script type="application/ld+json">{"@type":"Product","name":"Shelf unit","sku":"SU-77"}</script>"#;
        let x = extract(&page(sku), "https://h.example/p/1", true, None, None).unwrap();
        assert!(!x.text.contains("Reviewer 2"), "{}", x.text);
        // a product with neither, only rating stars, is a business declaring itself for
        // search results: nothing is sold, its testimonials are its text
        let stars = r#"<script type="application/ld+json">{"@type":"Product","name":"Pine Joinery Ltd","aggregateRating":{"@type":"AggregateRating","ratingValue":"5","ratingCount":"6"}}</script>"#;
        let x = extract(&page(stars), "https://h.example/p/1", true, None, None).unwrap();
        assert!(x.text.contains("Reviewer 2"), "{}", x.text);
        // without a declared product, a `review` region may be the content (a critic's review)
        let x = extract(&page(""), "https://h.example/p/1", true, None, None).unwrap();
        assert!(x.text.contains("Reviewer 2"), "{}", x.text);
    }

    #[test]
    fn a_list_inside_the_prose_root_is_read_with_its_prose() {
        // a guide's index page: a short introduction, then its chapters as a list of links
        // with a line each, inside the article; a site menu and footer beside it
        let chapters: String = (0..8)
            .map(|i| format!("<li><a href='/guide/{i}'>Chapter {i}: working with types</a> how the compiler checks chapter {i} code, step by step.</li>"))
            .collect();
        let menu: String = (0..150)
            .map(|i| format!("<li><a href='/m/{i}'>Menu entry {i}</a></li>"))
            .collect();
        let html = format!(
            r#"<html><head><title>The guide</title></head><body><nav><ul>{menu}</ul></nav>
            <div class="layout"><article><h1>The guide</h1><p>This guide explains the type system from the ground up, with examples you can run.</p>
            <p>Each chapter builds on the one before it, so read them in order the first time through.</p>
            <p>The examples need version four or later of the compiler; older versions reject some of them.</p>
            <p>Exercises close every chapter, and their answers are in the appendix at the end of the guide.</p>
            <p>If you find a mistake, the issue tracker linked from every page is the place to report it.</p>
            <ul class="chapters">{chapters}</ul></article></div><footer>Copyright</footer></body></html>"#
        );
        let x = extract(&html, "https://h.example/guide", true, None, None).unwrap();
        assert!(x.text.contains("explains the type system"), "{}", x.text);
        assert!(
            x.text.contains("Chapter 5: working with types"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("Menu entry"), "{}", x.text);
    }

    #[test]
    fn posts_inside_a_form_are_read_and_a_search_form_is_not() {
        let said = [
            "the update broke my printer driver, and rolling back fixed it",
            "same here on two machines; the vendor's beta driver works",
            "it is fixed in the next release according to the changelog",
            "thanks, the beta driver solved it for me as well",
        ];
        let posts: String = said
            .iter()
            .map(|t| format!("<article class='post'><p>Reply: {t}, after a morning of trying everything else.</p></article>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Printer driver</title></head><body>
            <div class="top"><form action="/search"><span>Search the forums for answers to your question</span><input name="q"></form></div>
            <main><h1>Printer driver broken</h1><form action="/moderate" method="post">{posts}</form></main></body></html>"#
        );
        let x = extract(&html, "https://h.example/t/9", true, None, None).unwrap();
        for t in said {
            assert!(x.text.contains(t), "{}", x.text);
        }
        assert!(!x.text.contains("Search the forums"), "{}", x.text);
    }

    #[test]
    fn a_section_served_once_per_screen_size_is_read_once() {
        // a page builder's three copies of one section (desktop, tablet, phone), each hidden
        // by the style sheet at the other sizes; and a short note the text really repeats
        let section = "<h2>Choosing a heat pump</h2>\
            <p>A heat pump moves heat rather than making it, so its running cost depends on the \
            gap between the outdoor and the indoor temperature more than on the unit itself.</p>\
            <p>Size it to the house's heat loss on a cold day, not to the floor area alone.</p>";
        let copies: String = ["desktop", "tablet", "phone"]
            .iter()
            .map(|v| format!("<div class='variant hidden-{v}'>{section}</div>"))
            .collect();
        let note =
            "<div class='note'><p>Note</p><p>Ask for the installer's heat-loss figures.</p></div>";
        let html = format!(
            r#"<html><head><title>Heat pumps</title></head><body><main>
            <h1>Heat pumps, a buyer's guide</h1>{copies}
            <p>Installers quote a flow temperature: the lower it is, the cheaper the heat.</p>{note}
            <p>Radiators sized for a boiler may need replacing for a low flow temperature.</p>{note}
            </main></body></html>"#
        );
        let x = extract(&html, "https://h.example/guide", true, None, None).unwrap();
        assert_eq!(
            x.text.matches("Size it to the house").count(),
            1,
            "{}",
            x.text
        );
        assert_eq!(x.text.matches("heat-loss figures").count(), 2, "{}", x.text);
    }

    #[test]
    fn sections_of_one_shape_are_read_together() {
        // a reference page: three sections of one shape, each cut from the next by a long
        // strip of links that costs more than a section brings
        let strip: String = (0..100)
            .map(|i| format!("<a href='/l{i}'>Link {i}</a> "))
            .collect();
        let section = |name: &str, n: usize| {
            let paras: String = (0..n)
                .map(|i| format!("<p>The {name} call, part {i}: it takes a request object, checks its fields against the schema and returns a response or an error.</p>"))
                .collect();
            format!("<section class='doc-section'><h2>{name}</h2>{paras}</section><div class='strip'>{strip}</div>")
        };
        let html = format!(
            r#"<html><head><title>API reference</title></head><body><div class="doc">{}{}{}</div></body></html>"#,
            section("create", 14),
            section("update", 11),
            section("delete", 10)
        );
        let x = extract(&html, "https://h.example/api", true, None, None).unwrap();
        for name in ["create", "update", "delete"] {
            assert!(
                x.text.contains(&format!("The {name} call, part 3")),
                "{}",
                x.text
            );
        }
        assert!(!x.text.contains("Link 7"), "{}", x.text);
    }

    #[test]
    fn a_long_text_block_wrapped_alone_joins_its_sibling_blocks() {
        // a site builder cuts a post into text blocks, each wrapped twice
        // (`block > block-content > html-content`), with image blocks between them: the
        // longest block's wrappers add nothing to it, and its siblings are the post's rest
        let block = |topic: &str, n: usize| {
            format!(
                r#"<div class="blk html-blk"><div class="blk-content"><div class="html-content"><h2>The {topic}</h2><p>{}</p></div></div></div>"#,
                sentences(topic, n)
            )
        };
        let image = |i: usize| {
            format!(
                r#"<div class="blk image-blk"><div class="blk-content"><figure><img src="/i/{i}.jpg" alt=""></figure></div></div>"#
            )
        };
        // the post declares itself an article, and ends in a long list of links
        let cities: String = (0..60)
            .map(|i| {
                format!(r#"<li><a href="/city/{i}">Cleaning services in city number {i}</a></li>"#)
            })
            .collect();
        let html = format!(
            r#"<html><head><meta property="og:type" content="article"></head><body><article><h1>Cleaning costs</h1><div class="grid">{}{}{}{}{}<div class="blk"><ul>{cities}</ul></div></div></article></body></html>"#,
            block("prices", 20),
            image(1),
            block("budget", 6),
            image(2),
            block("savings", 5)
        );
        let x = extract(&html, "https://h.example/blog/costs", false, None, None).unwrap();
        for topic in ["prices", "budget", "savings"] {
            assert!(
                x.text.contains(&format!("Sentence 4 about the {topic}")),
                "{topic}: {}",
                x.text
            );
        }
        assert!(!x.text.contains("city number"), "{}", x.text);
    }

    #[test]
    fn items_whose_classes_carry_per_item_tokens_are_one_list() {
        // WordPress's post_class(): the component class first, then the post's id and terms
        let cats = ["soup", "salad", "dinner", "quick"];
        let items: String = (0..10)
            .map(|i| format!("<article class='recipe-card post-{} category-{} tag-{}'><a href='/r/{i}'><img src='/i/{i}.jpg' alt=''><h3>Recipe number {i} with lentils</h3></a><span>{i}0 reviews, ready in 30 minutes</span></article>", 9000 + i, cats[i % 4], i * 7))
            .collect();
        let menu: String = (0..12)
            .map(|i| format!("<li><a href='/m/{i}'>Section {i}</a></li>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Lentil recipes</title></head><body><nav><ul>{menu}</ul></nav>
            <main><h1>Lentil recipes</h1><p>Our best lentil recipes.</p><div class="grid">{items}</div></main><footer>Copyright</footer></body></html>"#
        );
        let x = extract(&html, "https://h.example/lentils", true, None, None).unwrap();
        for i in [0, 4, 9] {
            assert!(
                x.text.contains(&format!("Recipe number {i} with lentils")),
                "{}",
                x.text
            );
        }
        assert_eq!(x.page_type.0, crate::PageType::Listing, "{}", x.text);
    }

    #[test]
    fn documentation_keeps_its_lists_of_links() {
        let code: String = (0..3)
            .map(|i| format!("<p>Example {i} opens a file and reads it line by line, closing it when the block ends.</p><pre>with open(path) as f{i}:\n    for line in f{i}:\n        print(line)</pre>"))
            .collect();
        let refs: String = ["open", "read", "readline", "close", "seek", "tell"]
            .iter()
            .map(|f| format!("<li><a href='/api/{f}'>io.{f}</a></li>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Reading files</title></head><body><nav><a href="/">Docs</a></nav>
            <main><h1>Reading files</h1><p>Files are read through the io module, which buffers what it reads and decodes it as text unless asked for bytes.</p>{code}
            <h2>See also</h2><ul>{refs}</ul></main></body></html>"#
        );
        let x = extract(&html, "https://h.example/docs/files", true, None, None).unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Documentation);
        assert!(x.text.contains("io.readline"), "{}", x.text);
    }

    #[test]
    fn sphinx_is_known_by_its_scripts() {
        // Sphinx writes no `<meta name="generator">`, and a project's docs need not live
        // under a documentation URL: the scripts every theme loads say what built the page,
        // and the page keeps its API signatures (their types are links) and its "see also"
        let para = "The collector gathers what each document says about the others and keeps it in the build environment between builds. ";
        let page = |scripts: &str| {
            format!(
                r##"<html><head><title>Collector API</title>{scripts}</head><body><div class="related"><a href="/">Home</a></div>
                <div class="body" role="main"><h1>Collector API<a class="headerlink" href="#collector-api">¶</a></h1><p>{p}</p>
                <dl><dt id="c.merge"><span>merge</span>(<em>app: <a href="/api#app">Sphinx</a></em>, <em>env: <a href="/api#env">BuildEnvironment</a></em>) → None<a href="/src/c.html">[source]</a><a class="headerlink" href="#c.merge">¶</a></dt>
                <dd><p>Merge in data from another environment.</p><div class="admonition seealso"><p>See also</p><p><a href="/events#merge">env-merge-info</a></p></div></dd></dl>
                <p>{p}</p></div></body></html>"##,
                p = para.repeat(3)
            )
        };
        let run = |scripts: &str| {
            let html = crate::strip::strip_inert(&page(scripts));
            extract(
                &html,
                "https://h.example/en/stable/extdev/collectorapi.html",
                true,
                None,
                None,
            )
            .unwrap()
        };
        let x = run(
            r#"<script src="../_static/documentation_options.js?v=b04e2b79"></script><script src="../_static/doctools.js?v=9bcbadda"></script>"#,
        );
        assert_eq!(x.page_type.0, crate::PageType::Documentation, "{}", x.text);
        assert!(x.text.contains("BuildEnvironment"), "{}", x.text);
        assert!(x.text.contains("env-merge-info"), "{}", x.text);
        // (another script says nothing)
        let x = run(r#"<script src="../_static/app.js"></script>"#);
        assert_ne!(x.page_type.0, crate::PageType::Documentation, "{}", x.text);
    }

    #[test]
    fn a_named_region_outside_main_gives_way_to_main() {
        // a short page of headings and pointers in its main landmark; outside it a footer
        // named by its class (no `footer` tag) whose line of text is the best prose there
        // is: the content is found in the landmark
        let html = r#"<html><body><div role="main"><h1>Domains</h1><h2>Moved: basic markup</h2>
            <p>See <a href="/domains">Domains</a>.</p><h2>Moved: the Python domain</h2>
            <p>See <a href="/py">The Python Domain</a>.</p></div>
            <div class="footer">Copyright 2007-2026, the project's developers, who wrote every page of it by hand over many years.</div></body></html>"#;
        let x = extract(html, "https://h.example/usage/domains", true, None, None).unwrap();
        assert!(x.text.contains("Moved: "), "{}", x.text);
        assert!(!x.text.contains("Copyright 2007"), "{}", x.text);
    }

    #[test]
    fn a_class_that_says_what_the_element_has_does_not_name_it() {
        // a documentation layout whose content column says it has a sidebar beside it
        // (`has-sidebar`), on a short page under an edit link and a pager: the column is
        // not a sidebar
        let links: String = (0..20)
            .map(|i| format!(r#"<div class="item"><a href="/api/m{i}"><p class="text">Module number {i}</p></a></div>"#))
            .collect();
        let html = format!(
            r#"<html><body><div class="layout"><aside class="site-sidebar"><nav>{links}</nav></aside>
            <div id="content" class="content has-sidebar"><div class="doc has-sidebar"><main><h1>Policies</h1><p>The former policies page is now the permissions page.</p></main>
            <footer><a href="/edit/policy">Edit this page</a><nav><a href="/permissions">Previous page: Permissions</a> <a href="/process">Next page: Process</a></nav></footer></div></div>
            <footer class="footer has-sidebar"><p class="message">Released under the MIT License.</p></footer></div></body></html>"#
        );
        let x = extract(&html, "https://h.example/docs/policy", true, None, None).unwrap();
        assert!(x.text.contains("now the permissions page"), "{}", x.text);
        assert!(!x.text.contains("Module number"), "{}", x.text);
        assert!(!x.text.contains("MIT License"), "{}", x.text);
    }

    #[test]
    fn an_app_root_closed_by_a_copyright_line_is_not_a_footer() {
        // a short documentation page whose sidebar of links is most of the page's text,
        // and the app's root element ends with the site's copyright line: the root is a
        // wrapper, the page's few lines its text
        let links: String = (0..30)
            .map(|i| format!(r#"<li class="menu__item"><a href="/api/m{i}">Module {i}</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><div id="app"><aside><nav class="menu"><ul>{links}</ul></nav></aside>
            <main><article><h1>Policies</h1><blockquote><p>Stability: 1 - Experimental</p></blockquote>
            <p>The former policies page is now the permissions page.</p></article></main>
            <div>Copyright © 2026 The Authors</div></div></body></html>"#
        );
        let x = extract(&html, "https://h.example/docs/policy", true, None, None).unwrap();
        assert!(x.text.contains("now the permissions page"), "{}", x.text);
        assert!(!x.text.contains("Module 3"), "{}", x.text);
    }

    #[test]
    fn related_in_a_closing_sentence_is_a_word_of_the_text() {
        // the last paragraph of a guide says "related" in a sentence: it is the text; a
        // "Related posts" label closing the text is still left out
        let p = "The project publishes a discussion item every year where the teams collect the news of their work for newsletter writers. ";
        for (last, kept) in [
            ("We trust collaborators to post project related news versus news that promotes a company.", true),
            ("Related posts", false),
        ] {
            let html = format!(
                r#"<html><body><article><h1>Sharing project news</h1><p>{p}{p}</p><p>{p}</p><p>{last}</p></article></body></html>"#
            );
            let x = extract(&html, "https://h.example/posts/news/", true, None, None).unwrap();
            assert_eq!(x.text.contains(last), kept, "{}", x.text);
        }
    }

    #[test]
    fn a_post_word_before_a_boilerplate_word_says_whose_box_it_is() {
        // under a post, its licence box (`post-copyright-info`: the post's copyright box)
        // lists the title, author, link and licence; the post's text above it stays
        let p = "The project scans its source code every night and reports the issues it finds to the people who maintain it. ";
        let html = format!(
            r#"<html><body><div class="post-body"><h1>Static analysis</h1><p>{p}{p}</p><p>{p}</p></div>
            <div class="post-copyright-info"><ul><li><strong>Title:</strong> Static analysis</li><li><strong>Author:</strong> The Editors</li>
            <li><strong>Link:</strong> https://h.example/posts/static-analysis/</li><li><strong>License:</strong> This work is licensed under a Creative Commons licence.</li></ul></div></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/posts/static-analysis/",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("The project scans"), "{}", x.text);
        assert!(!x.text.contains("The Editors"), "{}", x.text);
        assert!(!x.text.contains("This work is licensed"), "{}", x.text);
    }

    #[test]
    fn cards_that_are_links_never_hold_the_page() {
        // a short post under which eight related posts are cards, each one link around a
        // title, a date and a long blurb, named `related`: together they outweigh the post,
        // but a link points away from the page and is never its text
        let blurb = "This guide explains how the team plans its releases, who signs them and how the notes are written for every line that is still supported. ";
        let cards: String = (0..8)
            .map(|i| {
                format!(
                    r#"<a class="pagination-related" href="/posts/p{i}/"><div class="info"><div>2024-04-1{i}</div><div>Guide number {i}</div><div>{blurb}{blurb}</div></div></a>"#
                )
            })
            .collect();
        let p = "The project scans its source code every night and reports the issues it finds to the people who maintain it. ";
        let html = format!(
            r#"<html><body><article id="article-container"><h1>Static analysis</h1><p>{p}{p}</p><p>{p}</p></article>
            <div class="relatedPosts"><div class="headline"><span>Related Articles</span></div><div class="relatedPosts-list">{cards}</div></div></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/posts/static-analysis/",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("The project scans"), "{}", x.text);
        assert!(!x.text.contains("Guide number"), "{}", x.text);
    }

    #[test]
    fn a_line_of_dates_at_the_top_of_a_post_is_its_stamp() {
        // a theme writes a post's created and updated stamps as one line over the text:
        // mostly digits, it is a stamp, not the text
        let p = "The project scans its source code every night and reports the issues it finds to the people who maintain it. ";
        let html = format!(
            r#"<html><body><article><div class="meta">2024-02-16 10:00 2024-02-16 10:00 Created 2024-02-17 11:30 2024-02-17 11:30 Updated</div>
            <p>{p}{p}</p><p>{p}</p></article></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/posts/static-analysis/",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("The project scans"), "{}", x.text);
        assert!(!x.text.contains("Created"), "{}", x.text);
    }

    #[test]
    fn a_short_page_is_its_main_landmark() {
        // a page of three short lines in its main landmark, beside a book's chapter list
        // and a hidden help box of keyboard shortcuts: the line of the quote weighed most
        // and was the root alone; the landmark is the content
        let links: String = (0..20)
            .map(|i| format!(r#"<li class="chapter-item"><a href="/api/m{i}.html">Module number {i}</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><div class="help-container"><div class="help-popup"><h2>Keyboard shortcuts</h2><div><p>Press ← or → to navigate between chapters</p>
            <p>Press S or / to search in the book</p><p>Press ? to show this help</p><p>Press Esc to hide this help</p></div></div></div>
            <nav id="sidebar" class="sidebar"><ol class="chapter">{links}</ol></nav>
            <div id="page-wrapper"><div id="content" class="content"><main><h1 id="policies">Policies</h1>
            <blockquote><p>Stability: 1 - Experimental</p></blockquote>
            <p>The former policies page is now at <a href="/permissions.html">the permissions page</a>.</p></main></div></div></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/docs/policy.html",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("Stability: 1"), "{}", x.text);
        assert!(x.text.contains("The former policies page"), "{}", x.text);
        assert!(!x.text.contains("Keyboard shortcuts"), "{}", x.text);
    }

    #[test]
    fn a_heading_linked_to_itself_is_text() {
        // headings wrapped in a link to their own anchor (a permalink): they stay in the
        // text; a heading that links elsewhere is still a link
        let p = "Parses a query string into a collection of key and value pairs, decoding percent-encoded characters on the way. ";
        let html = format!(
            r##"<html><body><main><h1 id="query-string"><a class="header" href="#query-string">Query string</a></h1>
            <p>{p}{p}</p><h2 id="parse"><a href="#parse">querystring.parse(str)</a></h2><p>{p}{p}</p>
            <h2 id="next"><a href="/url.html">URL module</a></h2></main></body></html>"##
        );
        let x = extract(
            &html,
            "https://h.example/api/querystring.html",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("# Query string"), "{}", x.text);
        assert!(x.text.contains("querystring.parse(str)"), "{}", x.text);
        assert!(!x.text.contains("URL module"), "{}", x.text);
    }

    #[test]
    fn a_contents_page_is_its_main_landmark() {
        // a manual's contents page: a line under the title, then the chapters as links, in
        // the main landmark (the line alone weighed as prose and was the root, and the
        // page's prose spread past the landmark, to a line under it); the site's menu
        // beside it is still left out
        let chapters: String = ["Installing", "Configuring", "Building", "Publishing"]
            .iter()
            .map(|c| {
                let parts: String = ["Synopsis", "Options", "Examples"]
                    .iter()
                    .map(|p| format!(r##"<li><a href="{c}.html#{p}">{p} of {c}</a></li>"##))
                    .collect();
                format!(r#"<li><a href="{c}.html">{c} the site</a><ul>{parts}</ul></li>"#)
            })
            .collect();
        let menu: String = (0..12)
            .map(|i| format!(r#"<li><a href="/s{i}">Section {i}</a></li>"#))
            .collect();
        let html = format!(
            r#"<html><body><nav><ul>{menu}</ul></nav><div role="main"><section><h1>Command-line tools</h1>
            <p>These are the tools the package installs.</p><section><h2>Core tools</h2><div class="toc"><ul>{chapters}</ul></div></section></section></div>
            <div><p>Kept up by volunteers, on the web.</p></div></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/docs/man/index.html",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("Configuring the site"), "{}", x.text);
        assert!(x.text.contains("Options of Publishing"), "{}", x.text);
        assert!(!x.text.contains("Section 3"), "{}", x.text);
    }

    /// A question page: the question under one parent, the answers under another, every
    /// body of one class and marked as the text (microdata), so the long answer's body is
    /// the best root.
    fn question_page(declared: bool) -> String {
        let ld = if declared {
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"QAPage","mainEntity":{"@type":"Question","name":"Boiling rice"}}</script>"#
        } else {
            ""
        };
        let body = |id: &str, text: String| {
            format!(
                r#"<div class="post" id="{id}"><div class="votes">12</div><div class="post-body" itemprop="text">{text}</div><div class="post-user"><a href="/u/{id}">user {id}</a></div></div>"#
            )
        };
        let question = body(
            "q",
            format!("<p>The question: {}</p>", sentences("rice", 2)),
        );
        let long = body(
            "a1",
            format!("<p>The long answer: {}</p>", sentences("pot", 14)),
        );
        let short = body(
            "a2",
            format!("<p>The short answer: {}</p>", sentences("lid", 2)),
        );
        format!(
            r#"<html><head><title>Boiling rice</title>{ld}</head><body><nav><a href="/">Home</a> <a href="/q">Questions</a></nav>
            <div id="mainbar"><div class="question">{question}</div><div id="answers"><h2>2 answers</h2>{long}{short}</div></div>
            <div class="sidebar"><ul><li><a href="/q/1">Another question about rice</a></li><li><a href="/q/2">A question about pasta</a></li></ul></div></body></html>"#
        )
    }

    #[test]
    fn a_declared_thread_keeps_the_question_and_every_answer() {
        let x = extract(
            &question_page(true),
            "https://h.example/q/7",
            true,
            None,
            None,
        )
        .unwrap();
        for post in ["The question:", "The long answer:", "The short answer:"] {
            assert!(x.text.contains(post), "{post} missing: {}", x.text);
        }
        assert!(!x.text.contains("A question about pasta"), "{}", x.text);
        assert_eq!(x.page_type.0, crate::PageType::Forum);
        // undeclared, the long answer is read as the page's article (the thread widening
        // needs the declaration: a repeated body class is as likely an infinite scroll of
        // stories)
        let x = extract(
            &question_page(false),
            "https://h.example/q/7",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.contains("The long answer:"), "{}", x.text);
        assert!(!x.text.contains("The question:"), "{}", x.text);
    }

    #[test]
    fn an_undeclared_thread_typed_a_forum_keeps_its_posts() {
        // a link post on old forum software: a title, a link, and the discussion under it,
        // each post in a `comment` block, beside a sidebar of the board's rule and a cloud of
        // links to other boards; nothing declared, the URL and the shape say thread: the posts are
        // the text, not the rule
        let posts: String = (0..8)
            .map(|i| {
                format!(
                    r#"<div class="comment" id="c{i}"><div class="comment-meta"><a href="/user/u{i}">u{i}</a> {i} hours ago</div><div class="comment-body"><p>Reply {i}: {}</p></div><ul class="comment-actions"><li><a href="/c/{i}">permalink</a></li><li><a href="/r/{i}">reply</a></li></ul></div>"#,
                    sentences(&format!("follicle{i}"), 6)
                )
            })
            .collect();
        let boards: String = (0..200)
            .map(|j| format!(r#"<a href="/r/b{j}">Board number {j} on its topic</a> "#))
            .collect();
        let rules = format!("<p>Rule 0: {}</p><p>{boards}</p>", sentences("rule", 2));
        let html = format!(
            r#"<html><head><title>Hair follicles grown in the lab</title></head><body><div class="header"><a href="/">Home</a> <a href="/new">New</a></div><div class="link"><h1><a href="https://news.example/follicles">Hair follicles grown in the lab</a></h1><p class="tagline">submitted 15 hours ago by someone</p></div><div class="commentarea"><h2>all 8 comments</h2>{posts}</div><div class="side"><h3>Board rules</h3>{rules}<ul><li><a href="/r/a">Another board</a></li><li><a href="/r/b">A third board</a></li></ul></div></body></html>"#
        );
        let x = extract(
            &html,
            "https://h.example/forum/showthread.php?t=1207",
            true,
            None,
            None,
        )
        .unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Forum, "{:?}", x.page_type);
        for i in 0..8 {
            assert!(x.text.contains(&format!("Reply {i}:")), "{i}: {}", x.text);
        }
        assert!(!x.text.contains("Board number"), "{}", x.text);
    }

    #[test]
    fn a_block_repeated_word_for_word_is_written_once_on_template_pages() {
        // a product's description under each of its three variants, a short label that
        // recurs (kept: a phrase, not a repeat) and a code block twice (kept: code)
        let desc = "A minimalist front-pocket wallet of machined aluminium that holds twelve cards and blocks card readers.";
        let text = format!(
            "# The Ridge\n\n{desc}\n\nIn stock and ships within two days from our warehouse.\n\n{desc}\n\nIn stock and ships within two days from our warehouse.\n\n{desc}\n\n```\nsize = 86 x 54 mm, weight = 64 grams, cards = 12, warranty = lifetime\n```\n\n```\nsize = 86 x 54 mm, weight = 64 grams, cards = 12, warranty = lifetime\n```"
        );
        let out = tidied(&text, crate::PageType::Product);
        assert_eq!(out.matches("A minimalist").count(), 1, "{out}");
        assert_eq!(out.matches("In stock and ships").count(), 2, "{out}");
        assert_eq!(out.matches("size = 86").count(), 2, "{out}");
        // an article's author may repeat a paragraph on purpose; documentation describes
        // many items in one sentence
        for kind in [crate::PageType::Article, crate::PageType::Documentation] {
            let out = tidied(&text, kind);
            assert_eq!(out.matches("A minimalist").count(), 3, "{kind:?}: {out}");
        }
    }

    #[test]
    fn a_comments_label_ends_an_article_but_not_a_thread() {
        // a Q&A page puts a "Comments" heading under each answer; the next answer follows
        let answer =
            |n: usize| format!("The answer number {n} explains how to cook rice well. ").repeat(4);
        let text = format!(
            "{}\n\n{}\n\n## Comments\n\n{}\n\n## Comments\n\nthanks",
            answer(1),
            answer(2),
            answer(3)
        );
        let (thread, _) = tidy(
            &text,
            Vec::new(),
            None,
            true,
            crate::PageType::Article,
            &[],
            &[],
        );
        assert!(thread.contains("answer number 3"), "{thread}");
        let article = tidied(&text, crate::PageType::Article);
        assert!(!article.contains("answer number 3"), "{article}");
    }

    #[test]
    fn poster_cards_and_signatures_are_not_the_posts() {
        // phpBB and XenForo shapes: a profile column or a `user-details` block beside each
        // post, a signature under it
        let posts: String = (0..4)
            .map(|i| {
                let card = if i % 2 == 0 {
                    format!(r#"<dl class="postprofile"><dt><a href="/u/{i}">poster{i}</a></dt><dd>Rank {i}, Full Member</dd><dd>Joined: {i} Mar 2019</dd></dl>"#)
                } else {
                    format!(r#"<div class="user-details"><a href="/u/{i}">poster{i}</a><span>Full Member since {i} March</span></div>"#)
                };
                format!(r#"<div class="post">{card}<div class="postbody"><p>Reply {i}: {}</p></div><div class="signature">Proud owner of {i} rescued cats and a very patient dog.</div></div>"#, sentences("kernel", 2))
            })
            .collect();
        let html = format!(r#"<html><body><div id="page-body">{posts}</div></body></html>"#);
        let x = extract(&html, "https://h.example/t/9", true, None, None).unwrap();
        for i in 0..4 {
            assert!(x.text.contains(&format!("Reply {i}:")), "{}", x.text);
        }
        assert!(!x.text.contains("Joined:"), "{}", x.text);
        assert!(!x.text.contains("Full Member"), "{}", x.text);
        assert!(!x.text.contains("rescued cats"), "{}", x.text);
    }

    #[test]
    fn a_byline_and_a_see_all_link_on_lines_of_their_own_go() {
        let text = "A paragraph of the article that runs on for a good while.\n\nWritten by: Ana Costa, Senior Analyst\n\nAnother paragraph of the article that runs on for a while.\n\nSee all 12 reviews\n\nWritten by hand, the letters ran on for pages, and we kept them.\n\nThe last paragraph of the article, also running on a while.";
        let out = tidied(text, crate::PageType::Article);
        assert!(!out.contains("Ana Costa"), "{out}");
        assert!(!out.contains("See all 12"), "{out}");
        assert!(out.contains("Written by hand"), "{out}");
        assert!(out.contains("Another paragraph"), "{out}");
    }

    #[test]
    fn a_posters_rank_and_a_posts_controls_go_on_a_thread() {
        // (as list items: a label standing alone on a plain line goes anyway)
        let text = "The first post of the thread, which runs on for a good while.\n\n- Senior Member\n\n- Reputation: 1,204\n\nThe second post of the thread, which runs on for a while too.\n\n- Reply\n\n- Report\n\n- 12 replies\n\nThe third post, with its own words, running on for a while.";
        let out = tidied(text, crate::PageType::Forum);
        for gone in ["Senior Member", "1,204", "Reply", "Report", "12 replies"] {
            assert!(!out.contains(gone), "{gone}: {out}");
        }
        assert!(out.contains("The second post"), "{out}");
        // a rank is a poster's only on a thread; a post's controls go everywhere
        let out = tidied(text, crate::PageType::Article);
        assert!(out.contains("Senior Member"), "{out}");
        assert!(!out.contains("- Report"), "{out}");
    }

    #[test]
    fn a_wikis_retrieved_from_line_goes() {
        let text = "A paragraph of the wiki's article that runs on for a good while.\n\nRetrieved from \"https://wiki.example.org/index.php?title=Tides&oldid=4242\"\n\nAnother paragraph of the article that runs on for a while too.\n\nRetrieved from the archive of 1911, the article says more about tides than this.";
        let out = tidied(text, crate::PageType::Article);
        assert!(!out.contains("oldid=4242"), "{out}");
        assert!(out.contains("Retrieved from the archive"), "{out}");
        assert!(out.contains("Another paragraph"), "{out}");
    }

    #[test]
    fn a_posts_number_goes_and_its_date_stays() {
        // XenForo's shape: a list of the post's date and its number above each post, in a
        // thread that declares itself; an article's ranked heading `#1` is text
        let posts: String = (1..=4)
            .map(|i| {
                format!(r#"<article class="c1a"><ul class="c2b"><li><time>Jul {i}, 2022</time></li><li><a href="/t/9/post-{i}">#{i}</a></li></ul><div class="c3c"><p>Reply {i}: {}</p></div></article>"#, sentences("router", 2))
            })
            .collect();
        let ld = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Router drops"}</script>"#;
        let html = format!(
            r#"<html><head><title>Router drops</title>{ld}</head><body><div class="c0">{posts}</div></body></html>"#
        );
        let x = extract(&html, "https://h.example/t/9", true, None, None).unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Forum);
        for i in 1..=4 {
            assert!(x.text.contains(&format!("Reply {i}:")), "{}", x.text);
            // (the first post's date stands at the text's top edge, where a date goes)
            assert!(
                i == 1 || x.text.contains(&format!("Jul {i}, 2022")),
                "{}",
                x.text
            );
            assert!(!x.text.contains(&format!("#{i}")), "{}", x.text);
        }
        let out = tidied("Intro paragraph of the list.\n\n- #1\n- The first pick\n\nThe second pick runs on for a while, and ends here.", crate::PageType::Article);
        assert!(out.contains("#1"), "{out}");
    }

    #[test]
    fn comments_under_an_answer_go_by_their_stamps_whatever_their_names() {
        // a Q&A page whose class names say nothing: each comment is its text, the
        // commenter's name in a box of its own, its date for machines, then its stamp (Stack
        // Exchange's shape, whose hiding classes are hashed too); the question and the
        // answers stay (they are most of the text: a removal never takes the bulk)
        let comments = |k: usize| -> String {
            (0..3)
                .map(|i| format!(r#"<li class="c9f1"><div class="c2e8"><span class="c7aa">Remark {k}.{i}: have you checked the log first, it usually says why.</span><div class="c6e2">– <a class="c0b3" href="/u/{i}">user{i}</a></div><div class="c3f3">2010-10-{} 01:0{i}:31 +00:00</div><span class="c5d2">Commented Oct {}, 2010 at 1:0{i}</span></div></li>"#, 10 + i, 10 + i))
                .collect()
        };
        let posts: String = (0..3)
            .map(|k| format!(r#"<div class="c4b1"><div class="c3e0"><p>Answer {k}: {}</p></div><ul class="c8d7">{}</ul></div>"#, sentences("backup", 6), comments(k)))
            .collect();
        let ld = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"QAPage","mainEntity":{"@type":"Question","name":"How to back up the system"}}</script>"#;
        let html = format!(
            r#"<html><head><title>How to back up the system</title>{ld}</head><body><div class="c1a0"><h1>How to back up the system</h1><div class="c4b1"><p>The question: {}</p></div>{posts}</div></body></html>"#,
            sentences("system", 3)
        );
        let x = extract(&html, "https://h.example/q/1", true, None, None).unwrap();
        assert!(x.text.contains("The question:"), "{}", x.text);
        for k in 0..3 {
            assert!(x.text.contains(&format!("Answer {k}:")), "{}", x.text);
        }
        assert!(!x.text.contains("Commented Oct"), "{}", x.text);
        assert!(!x.text.contains("Remark 1.1"), "{}", x.text);
        // a sentence that opens with the word is text
        let out = tidied("A paragraph of the post that runs on for a while.\n\nCommented code is kept in the repository for 30 days.\n\nThe last paragraph, also running on a while.", crate::PageType::Forum);
        assert!(out.contains("Commented code"), "{out}");
    }

    #[test]
    fn a_declared_discussion_keeps_the_replies_its_classes_call_comments() {
        let page = |ld: &str| {
            let replies: String = (0..3)
                .map(|i| format!(r#"<div class="comment reply-box"><a href="/u/{i}">member{i}</a><div class="comment-body"><p>Reply {i}: {}</p></div></div>"#, sentences("smoker", 5)))
                .collect();
            format!(
                r#"<html><head><title>Smoker temperatures</title>{ld}</head><body><nav><a href="/">Forum</a></nav>
                <div class="topic"><div class="first-post"><p>The opening post: {}</p></div>{replies}</div></body></html>"#,
                sentences("brisket", 16)
            )
        };
        let ld = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Smoker temperatures"}</script>"#;
        let x = extract(&page(ld), "https://h.example/t/5", true, None, None).unwrap();
        assert!(x.text.contains("The opening post:"), "{}", x.text);
        for i in 0..3 {
            assert!(x.text.contains(&format!("Reply {i}:")), "{}", x.text);
        }
        // the same page without the declaration, at a blog post's address: a post and the
        // comments under it
        let blog = "https://h.example/2019/05/smoker-temperatures";
        let x = extract(&page(""), blog, true, None, None).unwrap();
        assert!(x.text.contains("The opening post:"), "{}", x.text);
        assert!(!x.text.contains("Reply 1:"), "{:?} {}", x.page_type, x.text);
        // and at a thread's address, typed a forum: scored again as a thread
        let x = extract(&page(""), "https://h.example/t/5", true, None, None).unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Forum);
        assert!(x.text.contains("Reply 1:"), "{}", x.text);
    }

    #[test]
    fn lines_inside_a_code_block_are_never_labels() {
        // blank lines split a `<pre>` into several blocks; a line of it that reads like a
        // teaser label ("Comments?") or a stand-alone label (`}`) is still code
        let code = "static int probe(void)\n{\n\treturn 0;\n}\n\n}\n\nComments, ideas, improvements?\n\nint attach(void);";
        let html = format!(
            r#"<html><body><article><p>{}</p><pre>{code}</pre><p>The day after, I was satisfied with the driver and sent it for review.</p></article></body></html>"#,
            sentences("driver", 8)
        );
        let x = extract(&html, "https://h.example/log", true, None, None).unwrap();
        assert!(
            x.text.contains("Comments, ideas, improvements?"),
            "{}",
            x.text
        );
        assert!(x.text.contains("int attach(void);"), "{}", x.text);
        assert!(x.text.contains("The day after"), "{}", x.text);
        assert_eq!(
            x.text.lines().filter(|l| l.trim() == "}").count(),
            2,
            "{}",
            x.text
        );
    }

    #[test]
    fn a_list_introduced_by_a_sentence_keeps_its_links() {
        let tasks: String = [
            "Create a table",
            "Load data",
            "Run a query",
            "Export results",
            "Share a dataset",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| format!("<li><a href='/docs/t{i}'>{t}</a></li>"))
        .collect();
        let more: String = (0..5)
            .map(|i| format!("<li><a href='/blog/{i}'>Blog post number {i}</a></li>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>{}</p>
            <p>The console lets you do each of the following tasks without writing code:</p><ul>{tasks}</ul>
            <p>{}</p><p>Read more:</p><ul>{more}</ul></main><footer>Copyright</footer></body></html>"#,
            sentences("console", 6),
            sentences("query", 4)
        );
        let x = extract(&html, "https://h.example/guide", true, None, None).unwrap();
        assert!(x.text.contains("Run a query"), "{}", x.text);
        assert!(x.text.contains("Share a dataset"), "{}", x.text);
        // a label is not a sentence: its link list stays a link list
        assert!(!x.text.contains("Blog post number 3"), "{}", x.text);
    }

    #[test]
    fn code_blocks_keep_their_lines_and_lose_their_gutter() {
        // highlighters write one <div> per line with no line break between them, and a
        // line-number gutter as an element before each line's code
        let gutter = ["export A=1", "\n", "export B=2"]
            .iter()
            .enumerate()
            .map(|(i, code)| {
                format!(
                    "<div><span class=x>{}</span><div><div>{code}</div></div></div>",
                    i + 1
                )
            })
            .collect::<String>();
        // a doctest's output lines count up too, but nothing follows them on their line
        let doctest = "<span class=gp>&gt;&gt;&gt; </span>len(())\n<span class=go>0</span>\n<span class=gp>&gt;&gt;&gt; </span>len((1,))\n<span class=go>1</span>";
        let html = format!(
            r#"<html><body><article><p>{}</p>
            <pre><div><span>import os</span></div><div><span>print</span>(os.sep)</div></pre>
            <pre>{gutter}</pre>
            <pre>{doctest}</pre>
            <pre><div class=icon> </div><span>x = 1</span></pre>
            <pre><code><span class="line"><span>cd app</span></span><span class="line"><span>npm run dev</span></span></code></pre>
            <pre><code><span class="line">a:</span>
                <span class="line">b</span></code></pre>
            <pre><code>export {{ addTwo }};</code> <button class="x9">copy</button></pre>
            <p>{}</p></article></body></html>"#,
            sentences("shell", 6),
            sentences("prompt", 6)
        );
        let x = extract(&html, "https://h.example/docs/env", true, None, None).unwrap();
        assert!(
            x.text.contains("```\nimport os\nprint(os.sep)\n```"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains("```\nexport A=1\n\nexport B=2\n```"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains(">>> len(())\n0\n>>> len((1,))\n1\n```"),
            "{}",
            x.text
        );
        assert!(x.text.contains("```\nx = 1\n```"), "{}", x.text);
        // Shiki's one `<span class="line">` per line, on a page minified without the line
        // breaks between them; and with a break and the template's indentation (which a
        // browser shows) between them, no line is added
        assert!(
            x.text.contains("```\ncd app\nnpm run dev\n```"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains("```\na:\n                b\n```"),
            "{}",
            x.text
        );
        // a code block's copy button is a control, not code
        assert!(
            x.text.contains("```\nexport { addTwo };\n```"),
            "{}",
            x.text
        );
    }

    #[test]
    fn inline_fields_side_by_side_stay_apart_and_words_stay_whole() {
        let cards: String = [("HOKA", "Clifton 10"), ("Brooks", "Ghost 16"), ("On", "Cloudsurfer")]
            .iter()
            .map(|(brand, name)| {
                format!("<li><a href='/p/{name}'><span class=b>{brand}</span><i class=icon></i><span class=n>{name}</span></a><span class=p>$145</span><span class=r>4.5 stars</span><p>A cushioned road shoe for daily miles, with a soft foam midsole.</p></li>")
            })
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Road running shoes</h1><ul class=grid>{cards}</ul>
            <p>{}</p><p>Finished <span>1</span><sup>st</sup> and <b>AC</b><b>TUARIAL</b> and Le<span>arn</span> more, <span>26</span><span>Sep</span>.</p></main></body></html>"#,
            sentences("shoe", 4)
        );
        let x = extract(&html, "https://shop.example/c/road", true, None, None).unwrap();
        for want in ["HOKA Clifton 10", "Brooks Ghost 16", "On Cloudsurfer"] {
            assert!(x.text.contains(want), "{want}: {}", x.text);
        }
        assert!(
            x.text
                .contains("Finished 1st and ACTUARIAL and Learn more, 26 Sep."),
            "{}",
            x.text
        );
    }

    #[test]
    fn code_block_written_a_line_per_div_is_one_block() {
        // a short introduction and a highlighted listing: each line is a `<div>` with a
        // line number, and the listing is still the page's content, whole
        let lines: String = (0..40)
            .map(|i| {
                format!(
                    "<div><span>{}</span><div>let x{i} = {i};</div></div>",
                    i + 1
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><nav><a href="/">Home</a></nav><article><p>Intro text of the page that goes on for a while with some words.</p><pre>{lines}</pre></article></body></html>"#
        );
        let x = extract(&html, "https://h.example/snippets/7", true, None, None).unwrap();
        assert!(
            x.text.contains("```\nlet x0 = 0;\nlet x1 = 1;"),
            "{}",
            x.text
        );
        assert!(x.text.contains("let x39 = 39;\n```"), "{}", x.text);
    }

    #[test]
    fn a_table_laying_out_posts_is_walked_a_table_of_data_stays_a_table() {
        // an old forum: each post a table, its author's card in one cell, the post in the
        // next, the reply links in a row below
        let posts: String = (0..4)
            .map(|i| {
                format!(
                    "<table class='post'><tr><td class='author'><a href='/u/{i}'>user{i}</a><br>Member<br>Posts: {i}0</td><td><div class='message'>{}</div></td></tr><tr><td>#{}</td><td><a href='/reply?p={i}'>Reply</a> <a href='/quote?p={i}'>Quote</a></td></tr></table>",
                    sentences(&format!("router{i}"), 3),
                    i + 1
                )
            })
            .collect();
        let html = format!(
            "<html><head><title>Router drops the connection</title></head><body>{posts}</body></html>"
        );
        let x = extract(
            &html,
            "https://h.example/showthread.php?t=9",
            true,
            None,
            None,
        )
        .unwrap();
        for i in 0..4 {
            assert!(
                x.text
                    .contains(&format!("Sentence 0 about the router{i} runs on")),
                "{}",
                x.text
            );
        }
        assert!(!x.text.contains('|'), "{}", x.text);
        assert!(!x.text.contains("Reply"), "{}", x.text);
        // a schedule: a header row, cells with long notes in paragraphs: data
        let rows: String = (0..4)
            .map(|i| {
                format!(
                    "<tr><td>Week {i}</td><td><p>{}</p></td></tr>",
                    sentences(&format!("topic{i}"), 2)
                )
            })
            .collect();
        let html = format!(
            "<html><body><article><p>{}</p><table><tr><th>Date</th><th>Notes</th></tr>{rows}</table></article></body></html>",
            sentences("course", 3)
        );
        let x = extract(&html, "https://h.example/course", true, None, None).unwrap();
        assert!(
            x.text.contains(
                "| Date | Notes |\n| --- | --- |\n| Week 0 | Sentence 0 about the topic0"
            ),
            "{}",
            x.text
        );
    }

    #[test]
    fn words_in_a_cell_on_two_lines_stay_two_words() {
        let prose = sentences("plant", 6);
        let html = format!(
            r#"<html><body><article><p>{prose}</p>
            <table><tr><td><h3>Corn plant</h3><p>Dracaena spp.<br>Low light</p></td><td>Water weekly</td></tr>
            <tr><td><div>Snake plant</div><div>Sansevieria</div></td><td>Water monthly</td></tr></table>
            <p>{prose}</p></article></body></html>"#
        );
        let x = extract(&html, "https://h.example/plants", true, None, None).unwrap();
        assert!(
            x.text
                .contains("| Corn plant Dracaena spp. Low light | Water weekly |"),
            "{}",
            x.text
        );
        assert!(x.text.contains("| Snake plant Sansevieria |"), "{}", x.text);
    }

    #[test]
    fn table_cells_and_captions_hold_only_rendered_text() {
        // lazy-loading plugins put the real <img> tag in a <noscript>, which the parser keeps
        // as raw markup: a cell or caption shows none of it
        let prose = "A paragraph of real article text that is long enough to count as content, with punctuation. ".repeat(3);
        let html = format!(
            r#"<html><body><article><p>{prose}</p>
            <table><tr><th>Insurer</th><th>Rating</th></tr>
            <tr><td><img data-src="/a.png" alt="A"><noscript><img src="/a.png" alt="A logo"></noscript> Acme</td><td>4.5<template><b>x</b></template></td></tr>
            <tr><td>Bolt <script>track()</script></td><td>4.1</td></tr></table>
            <figure><img src="/f.jpg"><figcaption>A cat<noscript><img src="/f.jpg"></noscript>.</figcaption></figure>
            <p>{prose}</p></article></body></html>"#
        );
        let x = extract(&html, "https://h.example/post", true, None, None).unwrap();
        assert!(
            x.text
                .contains("| Insurer | Rating |\n| --- | --- |\n| Acme | 4.5 |\n| Bolt | 4.1 |"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("img"), "{}", x.text);
        let cap = x.images.iter().find(|i| i.src.ends_with("/f.jpg"));
        assert_eq!(cap.and_then(|i| i.caption.as_deref()), Some("A cat."));
    }

    #[test]
    fn tables_side_by_side_in_a_table_are_each_a_table_written_once() {
        // an outer table under a common title whose two cells each hold a table of data:
        // each inner table is written once, as its own table of its own rows, and the title
        // is a line; no row of the outer table gathers the inner tables' cells
        let inner = |by: &str, rows: &[(&str, u32)]| {
            let body: String = rows
                .iter()
                .map(|(n, c)| format!("<tr><td>{n}</td><td>{c}</td></tr>"))
                .collect();
            format!(r#"<table><tr><th colspan="2">{by}</th></tr>{body}</table>"#)
        };
        let left = inner("By commits", &[("Ada", 63), ("Brook", 56), ("Cyd", 40)]);
        let right = inner("By lines", &[("Dee", 9100), ("Eli", 7200), ("Fay", 5100)]);
        let html = format!(
            r#"<html><body><article><h1>Development activity</h1><p>{}</p><table><tr><th colspan="2">Most active developers of the last year</th></tr><tr><td>{left}</td><td>{right}</td></tr></table><p>{}</p></article></body></html>"#,
            sentences("activity", 4),
            sentences("release", 3)
        );
        let x = extract(&html, "https://h.example/post", true, None, None).unwrap();
        assert!(
            x.text
                .contains("\n\nMost active developers of the last year\n\n"),
            "{}",
            x.text
        );
        assert!(
            x.text.contains(
                "| By commits |  |\n| --- | --- |\n| Ada | 63 |\n| Brook | 56 |\n| Cyd | 40 |"
            ),
            "{}",
            x.text
        );
        assert!(
            x.text.contains("| Dee | 9100 |\n| Eli | 7200 |"),
            "{}",
            x.text
        );
        assert_eq!(x.text.matches("Ada").count(), 1, "{}", x.text);
        assert_eq!(x.text.matches("Dee").count(), 1, "{}", x.text);
    }

    #[test]
    fn a_thread_served_inside_noscript_is_read_from_it() {
        let posts: String = (0..14)
            .map(|i| format!("<div class='post'><p>Reply {i}: I had the same problem after the update, and reinstalling the driver fixed it for me on two machines.</p></div>"))
            .collect();
        let html = format!(
            r#"<html><head><title>Driver broken after update</title></head><body><div id="app"></div>
            <noscript><div id="main-outlet"><h1>Driver broken after update</h1>{posts}</div></noscript></body></html>"#
        );
        let x = extract(&html, "https://forum.example/t/1", true, None, None).unwrap();
        assert!(
            x.text.contains("Reply 0:") && x.text.contains("Reply 13:"),
            "{}",
            x.text
        );
        // a small notice in <noscript> is never the content
        let notice = r#"<html><body><article><p>The page's own text, long enough to be kept as its content here.</p></article>
            <noscript><p>Please enable JavaScript to use this site.</p></noscript></body></html>"#;
        let x = extract(notice, "https://h.example/", true, None, None).unwrap();
        assert!(!x.text.contains("enable JavaScript"), "{}", x.text);
    }

    #[test]
    fn a_thread_read_from_noscript_gets_no_title_heading() {
        // the page's title (the thread's name and the forum's) is metadata, none of the
        // posts; above an article read from <noscript> it stays the text's heading
        let posts: String = (0..14)
            .map(|i| format!("<div class='post'><p>Reply {i}: I had the same problem after the update, and reinstalling the driver fixed it for me on two machines.</p></div>"))
            .collect();
        let page = |ld: &str| {
            format!(
                r#"<html><head><title>Driver broken - Support - Example Forums</title><script type="application/ld+json">{{"@context":"https://schema.org","@type":"{ld}","headline":"Driver broken"}}</script></head><body><div id="app"></div>
                <noscript><div id="main-outlet">{posts}</div></noscript></body></html>"#
            )
        };
        let x = extract(
            &page("DiscussionForumPosting"),
            "https://forum.example/t/1",
            true,
            None,
            None,
        )
        .unwrap();
        assert_eq!(x.page_type.0, crate::PageType::Forum);
        assert!(x.text.starts_with("Reply 0:"), "{}", x.text);
        let x = extract(
            &page("NewsArticle"),
            "https://news.example/a/1",
            true,
            None,
            None,
        )
        .unwrap();
        assert!(x.text.starts_with("# Driver broken"), "{}", x.text);
    }

    #[test]
    fn a_landing_page_keeps_every_section_of_its_main_region() {
        let feature = |n: &str| {
            format!("<section class='feature'><h2>{n}</h2><p>{n} works with the tools your team already uses.</p></section>")
        };
        let html = format!(
            r#"<html><head><title>Acme</title></head><body><header><a href="/">Acme</a></header><main>
            <section class="hero"><h1>Ship faster</h1><p>Acme builds, tests and deploys every change, so your team can spend its time on the product. Teams of every size use it, from two people to two thousand, and it runs in the cloud or on your own machines.</p></section>
            {}<section class="pricing"><h2>Pricing</h2><ul><li>Free for five users</li><li>Team: 10 USD a month per user</li></ul></section>{}{}
            </main><footer>Copyright Acme</footer></body></html>"#,
            feature("Fast builds"),
            feature("Preview links"),
            feature("Rollbacks")
        );
        let x = extract(&html, "https://acme.example/", true, None, None).unwrap();
        for part in [
            "Ship faster",
            "Fast builds",
            "Preview links",
            "Rollbacks",
            "Team: 10 USD",
        ] {
            assert!(x.text.contains(part), "{part}: {}", x.text);
        }
        assert!(!x.text.contains("Copyright"), "{}", x.text);
    }

    #[test]
    fn hidden_tab_and_accordion_panels_are_content_other_hidden_elements_are_not() {
        let para = |w: &str| {
            format!("<p>The {w} kettle boils a full litre in under three minutes and keeps water warm for an hour after it switches off.</p>")
        };
        let html = format!(
            r#"<html><body><main><h1>Steel kettle</h1>{}
            <div role="tablist"><button role="tab">Description</button><button role="tab">Specifications</button></div>
            <div role="tabpanel" id="desc">{}</div>
            <div role="tabpanel" id="specs" hidden><table><tr><th>Capacity</th><td>1.7 litres</td></tr><tr><th>Power</th><td>2200 watts</td></tr></table>{}</div>
            <div role="tabpanel" style="display:none">{}</div>
            <h3><button aria-expanded="false" aria-controls="faq1" id="q1">Does it whistle?</button></h3>
            <div id="faq1" aria-labelledby="q1" hidden>{}</div>
            <div role="dialog" aria-labelledby="t" hidden>{}</div>
            <div class="promo" hidden>{}</div>
            <div aria-hidden="true">{}</div>
            </main></body></html>"#,
            para("steel"),
            para("described"),
            para("specified"),
            para("reviewed"),
            para("answered"),
            para("dialogue"),
            para("promoted"),
            para("ariahidden"),
        );
        let x = extract(&html, "https://shop.example/kettle", true, None, None).unwrap();
        for kept in [
            "described",
            "specified",
            "2200 watts",
            "reviewed",
            "answered",
        ] {
            assert!(x.text.contains(kept), "{kept} missing: {}", x.text);
        }
        for gone in ["promoted", "ariahidden", "dialogue"] {
            assert!(!x.text.contains(gone), "{gone} kept: {}", x.text);
        }
    }

    #[test]
    fn paragraphs_opening_with_a_link_in_a_sentence_are_prose_not_teasers() {
        // a blog links the opening words of its paragraphs; below the story, under its
        // label, a list of teasers, each a headline link and then its blurb (without the
        // label such a list stays: until the label, its headlines' word `Unrelated` read
        // as a "related" label and cut them)
        let topics = [
            "Tidal energy",
            "Solar glass",
            "Green hydrogen",
            "Carbon capture",
            "Heat pumps",
            "Wind kites",
        ];
        let story: String = topics
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!(
                    r#"{}<p><a href="/wiki/{i}">{t} production</a> has the potential to provide vast amounts of energy, as <a href="/report/{i}">the national energy agency's report</a> says, and the first projects are planned for the coming years.</p>"#,
                    format!("<p>{}</p>", sentences("coast", 3)).repeat(3)
                )
            })
            .collect();
        let teasers: String = (0..6)
            .map(|i| {
                format!(
                    r#"<p><a href="/story/{i}">Other headline number {i}</a> Another story about something else entirely, summed up here in a line.</p>"#
                )
            })
            .collect();
        let html = format!(
            r#"<html><body><main><h1>Energy from the sea</h1>{story}<div class="more"><h2>More stories</h2>{teasers}</div></main></body></html>"#
        );
        let x = extract(&html, "https://h.example/blog/energy", false, None, None).unwrap();
        for t in topics {
            assert!(
                x.text
                    .contains(&format!("{t} production has the potential")),
                "{t} missing: {}",
                x.text
            );
        }
        assert!(!x.text.contains("Other headline"), "{}", x.text);
    }

    #[test]
    fn pagers_are_left_out_by_their_words_whatever_their_names() {
        // a manual's Prev / Up / Home / Next tables above and below a chapter (generated
        // names, a chapter title among the links), a blog's `« Older posts 1 2 3 Next »` in
        // German; a paragraph that links one `next` step and a list of chapters stay
        let header = r#"<div class="c1a"><table width="100%"><tr><th colspan="5">Chapter 4. Storage</th></tr><tr><td><a href="c3.html">Prev</a></td><td><a href="p1.html">Up</a></td><th>Part I. Basics</th><td><a href="index.html">Home</a></td><td><a href="c4s1.html">Next</a></td></tr></table></div>"#;
        let footer = r#"<div class="c2b"><table><tr><td><a href="c3.html">Prev</a></td><td><a href="p1.html">Up</a></td><td><a href="c4s1.html">Next</a></td></tr><tr><td>3.9. Backups</td><td><a href="index.html">Home</a></td><td>4.1. Disks</td></tr></table></div>"#;
        let pager = r#"<div class="x9"><a href="/p/2">« Ältere Beiträge</a> <a href="/p/1">1</a> <a href="/p/2">2</a> <a href="/p/3">3</a> <a href="/p/2">Weiter »</a></div>"#;
        // the manual's other versions, numbers alone; a short paragraph's footnote marks
        let versions: String = [
            "13", "12", "11", "10", "9.6", "9.5", "9.4", "9.3", "9.2", "9.1", "9.0", "8.4", "8.3",
            "8.2",
        ]
        .map(|v| format!(r#"<a href="/{v}/c4.html">{v}</a>"#))
        .join(" / ");
        let versions = format!(r#"<div class="c5">Older versions: {versions}</div>"#);
        let notes = r##"<p>Disks fail often<a href="#n1">1</a>, volumes rarely<a href="#n2">2</a>, and snapshots<a href="#n3">3</a> almost never<a href="#n4">4</a>.</p>"##;
        let html = format!(
            r#"<html><body><div class="c0">{versions}{header}<h2>Chapter 4. Storage</h2><p>{}</p>{notes}<ul class="c7"><li><a href="c4s1.html">4.1. Disks and their layout</a></li><li><a href="c4s2.html">4.2. Volumes and snapshots</a></li></ul><p>{}</p><p>When the disks are in place, the <a href="c4s1.html">next</a> section sets up the volumes that hold the data.</p>{footer}{pager}</div></body></html>"#,
            sentences("storage", 4),
            sentences("disks", 3)
        );
        let x = extract(&html, "https://h.example/docs/c4.html", false, None, None).unwrap();
        for kept in [
            "4.1. Disks and their layout",
            "the next section sets up",
            "Sentence 2 about the disks",
            "volumes rarely2, and snapshots3",
        ] {
            assert!(x.text.contains(kept), "{kept}: {}", x.text);
        }
        for gone in [
            "Prev",
            "Home",
            "Part I. Basics",
            "Weiter",
            "Ältere",
            "3.9. Backups",
            "Older versions",
        ] {
            assert!(!x.text.contains(gone), "{gone} kept: {}", x.text);
        }
    }

    #[test]
    fn labelled_pointers_between_paragraphs_weigh_nothing_and_are_left_out() {
        // `Read more: <a>headline</a>` lines between a short story's paragraphs, and a rail
        // of teasers with blurbs beside it: the pointers' links must not tip the story
        // below the rail, and they are not its text
        let pointers = [
            (
                "Read more:",
                "Council approves new budget for the harbour district",
            ),
            (
                "See also:",
                "Why the price of coffee keeps rising, growers say",
            ),
            (
                "Related:",
                "Five things to know before the election on Sunday",
            ),
            (
                "Also read:",
                "The town that rebuilt its library with volunteers",
            ),
        ];
        let mut story = String::new();
        for i in 0..5 {
            story += &format!("<p>{}</p>", sentences("harbour", 3));
            if let Some((label, headline)) = pointers.get(i) {
                story += &format!(r#"<p>{label} <a href="/news/{i}">{headline}</a></p>"#);
            }
        }
        let rail: String = (0..10)
            .map(|i| format!(r#"<li><a href="/news/v{i}">Story number {i} of the week in the valley</a> {}</li>"#, sentences("valley", 2)))
            .collect();
        let html = format!(
            r#"<html><body><div class="x1"><h1>The harbour</h1>{story}</div><div class="x2"><ul>{rail}</ul></div></body></html>"#
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert_eq!(
            x.text.matches("Sentence 1 about the harbour").count(),
            5,
            "{}",
            x.text
        );
        assert!(!x.text.contains("valley"), "{}", x.text);
        for (label, headline) in pointers {
            assert!(
                !x.text.contains(label) && !x.text.contains(headline),
                "{label} kept: {}",
                x.text
            );
        }
    }

    #[test]
    fn a_sign_up_box_inside_the_story_is_left_out_whatever_its_names() {
        // a newsletter box between two paragraphs, with generated class names; a contact
        // form (a text area) is a page's own content
        let story = |n: usize| format!("<p>{}</p>", sentences("harbour", 3)).repeat(n);
        let signup = r#"<div class="c8f2a1"><h3>Get our morning briefing</h3><p>Sign up to receive the best stories of the day in your inbox, every morning, for free.</p><form action="/subscribe"><input type="email" name="address"><input type="hidden" name="list" value="7"><button>Sign up</button></form><p>You can unsubscribe at any time.</p></div>"#;
        let html = format!(
            r#"<html><body><article><h1>The harbour</h1>{}{signup}{}</article></body></html>"#,
            story(3),
            story(3)
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert_eq!(
            x.text.matches("Sentence 2 about the harbour").count(),
            6,
            "{}",
            x.text
        );
        for gone in ["morning briefing", "Sign up to receive", "unsubscribe"] {
            assert!(!x.text.contains(gone), "{gone} kept: {}", x.text);
        }
        // a box set inside a short notice: the notice's paragraph is the page's own text
        let notice = format!(
            r#"<div class="c7"><h4>Important: sync your new profile</h4><p>{}</p>{signup}</div>"#,
            "The new edition comes with a profile of its own, so that you can run it beside the others on one machine. To reach your bookmarks and your browsing history there, sign in once with your account."
        );
        let html = format!(
            r#"<html><body><article><h1>The harbour</h1>{}{notice}{}</article></body></html>"#,
            story(3),
            story(3)
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert!(
            x.text.contains("sync your new profile") && x.text.contains("sign in once"),
            "{}",
            x.text
        );
        assert!(!x.text.contains("morning briefing"), "{}", x.text);
        let contact = r#"<div class="c8f2a1"><h3>Write to the editors</h3><p>Tell us what we got wrong, and we answer within a week.</p><form action="/contact"><input type="email" name="address"><textarea name="message"></textarea><button>Send</button></form></div>"#;
        let html = format!(
            r#"<html><body><article><h1>The harbour</h1>{}{contact}{}</article></body></html>"#,
            story(3),
            story(3)
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert!(x.text.contains("Write to the editors"), "{}", x.text);
        // an embedded sign-up form with three fields and a honeypot for bots in a hidden box
        let embedded = r#"<div class="c91b"><h2>Join our list</h2><p>Monthly news from the harbour, no spam.</p><form action="/list"><input type="email" name="EMAIL"><input type="text" name="FNAME"><input type="text" name="LNAME"><div aria-hidden="true"><input type="text" name="b_5f3a"></div><input type="submit" value="Subscribe"></form></div>"#;
        let html = format!(
            r#"<html><body><article><h1>The harbour</h1>{}{embedded}{}</article></body></html>"#,
            story(3),
            story(3)
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert!(!x.text.contains("Join our list"), "{}", x.text);
        // a box whose script sends the address: an e-mail field and a button, no form
        let scripted = r#"<div class="c4d0"><h3>Weekly harbour letter</h3><p>One e-mail on Fridays with the week's stories.</p><div class="c77e"><input type="email" placeholder="you@example.org"><button type="button">Subscribe</button></div></div>"#;
        let html = format!(
            r#"<html><body><article><h1>The harbour</h1>{}{scripted}{}</article></body></html>"#,
            story(3),
            story(3)
        );
        let x = extract(&html, "https://h.example/news/harbour", false, None, None).unwrap();
        assert!(!x.text.contains("Weekly harbour letter"), "{}", x.text);
        assert!(!x.text.contains("One e-mail on Fridays"), "{}", x.text);
    }
}
