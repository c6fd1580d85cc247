//! Content scoring: which part of the page is the main content.
//!
//! Every text node belongs to its nearest block-level ancestor (its *block*). A block's
//! value is its non-link text, weighted by how much it looks like prose (sentence
//! punctuation, length), minus its link text and a fixed cost for short fragments; blocks
//! inside boilerplate regions (navigation, footers, sidebars, share bars, comments: by tag,
//! ARIA role, class/id words) count against their container, as do blocks whose
//! tag-and-class signature repeats across the page with short texts (teaser lists, menus).
//! An element's *mass* is the sum of the values of the blocks inside it.
//!
//! The content root is the element of greatest mass (with a bonus for article/main
//! semantics): prose adds to it, navigation and link lists subtract, so the winner is the
//! tightest container holding the prose, extended over an interruption (an ad, a share bar)
//! only when more prose lies beyond it. Inside the root, the walker drops children whose
//! mass is negative and that are link-heavy or clearly boilerplate.
//!
//! One pass over the tree (explicit stack, no recursion) and one reverse pass for the sums.

use rustc_hash::FxHashMap;
use scraper::node::Node;
use scraper::{ElementRef, Html};

use ego_tree::NodeId;

/// Per-element statistics.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stat {
    /// Visible characters in the subtree.
    pub text: u32,
    /// Of which inside links.
    pub link: u32,
    /// Sum of the block values in the subtree.
    pub mass: f32,
    /// The element or an ancestor is boilerplate by tag, role or class/id.
    pub boiler: bool,
    /// Sum of the positive block values outside boilerplate in the subtree (its prose,
    /// whatever link lists around it cost).
    pub prose: f32,
    /// A list introduced by a sentence ending in a colon: its links are the text.
    pub intro: bool,
}

pub(crate) struct Scores {
    index: FxHashMap<NodeId, u32>,
    stats: Vec<Stat>,
    /// The content root chosen.
    pub root: Option<NodeId>,
    /// When the page is a list of items (see [`items`]): the tightest element holding
    /// them, which replaces `root`.
    pub listing: Option<NodeId>,
    /// Mass of the best prose root (0 when there is none).
    pub prose: f32,
    /// The root was spread over the page's sections (see [`spread`]).
    pub spread: bool,
    /// `<pre>` blocks with text.
    pub code_blocks: u32,
    /// Visible characters on the page.
    pub text: u32,
    /// The page's elements and prices, for the page-type classifier.
    pub shape: crate::pagetype::Shape,
}

impl Scores {
    pub(crate) fn get(&self, id: NodeId) -> Option<&Stat> {
        self.index.get(&id).map(|&i| &self.stats[i as usize])
    }
}

/// Elements whose subtree is never visible content.
pub(crate) fn invisible(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "head"
            | "svg"
            | "canvas"
            | "object"
            | "embed"
            | "iframe"
            | "select"
            | "option"
            | "textarea"
            | "button"
            | "input"
            | "dialog"
    )
}

/// The slots of element `i`'s subtree: in pre-order (the scoring pass's `order`) a subtree
/// is the element's slot and the `size[i] - 1` slots after it.
fn subtree(size: &[u32], i: usize) -> std::ops::Range<usize> {
    i..i + size[i] as usize
}

/// Headings, `<h1>` to `<h6>`.
pub(crate) fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Block-level elements: text nodes belong to the nearest one.
pub(crate) fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "nav"
            | "aside"
            | "blockquote"
            | "figure"
            | "figcaption"
            | "dl"
            | "dt"
            | "dd"
            | "address"
            | "details"
            | "summary"
            | "center"
            | "hgroup"
            | "ul"
            | "ol"
            | "li"
            | "table"
            | "thead"
            | "tbody"
            | "tr"
            | "td"
            | "th"
            | "caption"
            | "pre"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "form"
            | "fieldset"
            | "body"
            | "html"
            | "menu"
    )
}

/// What a class/id word (split on whitespace, `-`, `_`, `:`; any ASCII case) says.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WordKind {
    /// Content containers.
    Content,
    /// Comment threads.
    Comment,
    /// Customer reviews: comments on a product's page.
    Review,
    /// Boilerplate regions, trusted whatever the region holds.
    Strong,
    /// Boilerplate that layout classes also use (`ad-wrapper` around the story, `rail`
    /// columns, `modal` article viewers): trusted only for regions without much prose. The
    /// number tells the words apart ([`ClassWords::weak_words`]).
    Weak(u8),
    /// Page layout (`page-wrapper`, `container`).
    Layout,
    /// A disclosure panel (an FAQ answer, an accordion or tab panel): hidden until opened,
    /// but the page's own text.
    Disclosure,
}

/// How many elements a weak word must be on to be a framework's convention ([`conventions`]).
const CONVENTION_ELEMENTS: u32 = 8;

fn word_kind(w: &[u8]) -> Option<WordKind> {
    if w.len() > 16 {
        return None; // longer than any listed word
    }
    let mut buf = [0u8; 16];
    let lower = &mut buf[..w.len()];
    lower.copy_from_slice(w);
    lower.make_ascii_lowercase();
    Some(match &*lower {
        b"wrapper" | b"wrap" | b"page" | b"container" | b"layout" => WordKind::Layout,
        b"answer" | b"faq" | b"accordion" | b"collapse" | b"collapsible" | b"panel"
        | b"tabpanel" | b"tab" | b"expand" | b"expandable" | b"spoiler" => WordKind::Disclosure,
        b"article" | b"content" | b"post" | b"entry" | b"story" | b"body" | b"text" | b"main"
        | b"blog" | b"prose" | b"markdown" | b"articlebody" => WordKind::Content,
        b"comment" | b"comments" | b"commentlist" | b"commentary" | b"disqus" | b"respond"
        | b"replies" | b"reply" => WordKind::Comment,
        b"review" | b"reviews" | b"ratings" => WordKind::Review,
        b"nav" | b"navbar" | b"navigation" | b"menu" | b"footer" | b"sidebar" | b"cookie"
        | b"cookies" | b"consent" | b"share" | b"sharing" | b"social" | b"breadcrumb"
        | b"breadcrumbs" | b"related" | b"newsletter" | b"subscribe" | b"skip" | b"pagination"
        | b"pager" | b"toolbar" | b"sponsored" | b"outbrain" | b"taboola" | b"recommended"
        | b"trending" | b"popular" | b"signup" | b"tagcloud" | b"footnav" | b"sitemap"
        | b"copyright" | b"signature" => WordKind::Strong,
        // MediaWiki's `Retrieved from "https://..."` and `Categories: ...` under every article
        b"printfooter" | b"catlinks" => WordKind::Strong,
        // a bar of controls (`actions`, `item-actions`, `product-actions`: reply, like, share,
        // add to cart)
        b"actions" => WordKind::Strong,
        // a forum post's poster card (name, rank, join date, post count, badges)
        b"userinfo" | b"userdetails" | b"userextras" | b"usertitle" | b"userbanner"
        | b"userstats" | b"postprofile" | b"posterinfo" => WordKind::Strong,
        // an author's box under an article ([`person_card`])
        b"authorbio" | b"authorbox" | b"authorcard" | b"authorprofile" | b"authorinfo"
        | b"aboutauthor" | b"abouttheauthor" => WordKind::Strong,
        b"ad" | b"ads" | b"advert" | b"advertisement" => WordKind::Weak(0),
        b"banner" => WordKind::Weak(1),
        b"promo" => WordKind::Weak(2),
        b"popup" | b"modal" => WordKind::Weak(3),
        b"widget" => WordKind::Weak(4),
        b"masthead" | b"topbar" => WordKind::Weak(5),
        b"paywall" => WordKind::Weak(6),
        b"tags" => WordKind::Weak(7),
        b"rail" => WordKind::Weak(8),
        b"byline" => WordKind::Weak(9),
        // legal small print under the text (`disclaimer`, `disclosures`; the singular
        // `disclosure` also names a show-and-hide widget)
        b"legal" | b"disclaimer" | b"disclaimers" | b"disclosures" => WordKind::Weak(10),
        _ => return None,
    })
}

/// What an element's class and id words say, in one pass.
#[derive(Clone, Copy, Default, Debug)]
struct ClassWords {
    content: bool,
    comment: bool,
    strong: bool,
    /// A card about a person, not the text ([`person_card`]): it wins over content words
    /// (`post__author-box`, `entry-author-profile`).
    card: bool,
    /// The page marks the region as not its text: text for screen readers only, hidden
    /// from view by a stylesheet's convention (`sr-only`, `visually-hidden`,
    /// `screen-reader-text`: a link's "(opens in a new window)", a product tile's
    /// description spelt out), or Google's `nocontent`, which a search appliance leaves out
    /// of its index (documentation sites' footers and feedback widgets). It wins over
    /// content words (`content-footer nocontent`).
    not_text: bool,
    /// The weak words among them (a bit per [`WordKind::Weak`] number; comment words on a
    /// thread's page are bit 11): none, no weak word.
    weak_words: u16,
    /// A consent vendor's name inside a word (`CybotCookiebotDialog`).
    consent: bool,
    /// Of which a consent management platform's name (`onetrust-consent-sdk`).
    cmp: bool,
    /// A page-layout word (`page-wrapper`, `container`, `layout`): a strong word next to it
    /// names what the layout is for (`left-navigation_page-wrapper` holds the whole page);
    /// `page` right before a strong word is not one (`page-footer` is the page's footer).
    layout: bool,
    /// A disclosure panel's word (`faq__answer`, `accordion-body`).
    disclosure: bool,
}

/// `reviews`: whether customer reviews are comments (on a product's page; elsewhere a
/// `review` is as likely the content: a critic's review). A page repeats its class values
/// (a builder's `widget-container` on every component), so what each says is read once per
/// page (`seen`; `reviews` and `thread` hold for the whole page).
fn class_words<'a>(
    a: &Attrs<'a>,
    reviews: bool,
    thread: bool,
    seen: &mut FxHashMap<&'a str, ClassWords>,
) -> ClassWords {
    // an id of many words is a heading's slug (`receive-and-reply-to-an-inbound-sms`), which
    // names the section's topic, not a component: its words say nothing of the region
    let slug = |v: &str| v.split(['-', '_']).filter(|w| !w.is_empty()).count() > SLUG_WORDS;
    // where class names are generated (`css-1x2y3z`), two names survive and are read as
    // class words: the accessible name, in words (`Mega menu navigation`, `Breadcrumb`; a
    // long one describes a link or a control and names no region), and a component's name
    // in a hook for tests or analytics (`data-testid="related-stories"`)
    let label = a
        .label
        .filter(|v| v.split_whitespace().count() <= LABEL_WORDS);
    let mut c = match a.class {
        Some(v) => *seen
            .entry(v)
            .or_insert_with(|| value_words(v, reviews, thread)),
        None => ClassWords::default(),
    };
    for v in
        a.id.filter(|v| !slug(v))
            .into_iter()
            .chain(label)
            .chain(a.component)
    {
        c.merge(value_words(v, reviews, thread));
    }
    c
}

impl ClassWords {
    fn merge(&mut self, o: ClassWords) {
        self.content |= o.content;
        self.comment |= o.comment;
        self.strong |= o.strong;
        self.card |= o.card;
        self.not_text |= o.not_text;
        self.weak_words |= o.weak_words;
        self.consent |= o.consent;
        self.cmp |= o.cmp;
        self.layout |= o.layout;
        self.disclosure |= o.disclosure;
    }
}

/// What one class, id, label or component value says ([`class_words`]).
fn value_words(v: &str, reviews: bool, thread: bool) -> ClassWords {
    let mut c = ClassWords::default();
    for m in consent_vendors().find_iter(v) {
        c.consent = true;
        c.cmp |= m.pattern().as_usize() >= FIRST_CMP;
    }
    // tokens split at ASCII whitespace, words at `-`, `_`, `:` (bytes: class values are ASCII
    // in practice, and a word with other bytes matches no listed word anyway); `user-info`
    // is read as `userinfo` ([`person_card`]). A class holding an expression (a utility
    // class with an arbitrary value, `pt-[calc(var(--banner-height))]`) names a style, not a
    // region.
    let (mut before, mut last): (&[u8], &[u8]) = (b"", b"");
    // content words, and a footer of the content (`article-footer`, `entry-footer`,
    // `content-footer`: a post's tags, share links, edit links and date stamp), which is a
    // footer: a content word beside it says whose
    let (mut content, mut content_footer) = (false, false);
    for t in v.split_ascii_whitespace() {
        let b = t.as_bytes();
        c.not_text |= b.eq_ignore_ascii_case(b"nocontent")
            || UNSEEN.iter().any(|u| {
                b.len() >= u.len()
                    && b[b.len() - u.len()..].eq_ignore_ascii_case(u.as_bytes())
                    && !b.ends_with(b"not-sr-only")
            });
        content_footer |= t
            .rsplit_once(['-', '_', ':'])
            .is_some_and(|(head, last)| !head.is_empty() && last.eq_ignore_ascii_case("footer"));
        if b.contains(&b'[') || b.contains(&b'(') || state_token(b) {
            continue;
        }
        // `page` before a strong word says whose the region is (`page-footer`, `page-nav`:
        // the page's), before anything else that it is the page's frame (`page-wrapper`,
        // `left-navigation_page-wrapper`)
        let mut page = false;
        // an owner word ([`OWNER_WORDS`]) before a strong one says whose the region is, as
        // `page` does (`post-copyright-info`, `article-share`, `entry-related`: the post's
        // box, not the post)
        let (mut tok_content, mut tok_owner, mut owned) = (false, false, false);
        for w in b
            .split(|x| matches!(x, b'-' | b'_' | b':'))
            .filter(|w| !w.is_empty())
        {
            let card = person_card(before, last, w);
            (before, last) = (last, w);
            if card {
                c.card = true;
                continue;
            }
            let kind = word_kind(w);
            if std::mem::take(&mut page) && kind != Some(WordKind::Strong) {
                c.layout = true;
            }
            match kind {
                Some(WordKind::Layout) if w.eq_ignore_ascii_case(b"page") => page = true,
                Some(WordKind::Layout) => c.layout = true,
                Some(WordKind::Disclosure) => c.disclosure = true,
                Some(WordKind::Content) => {
                    // (`content`, `main`, `body`, `text` before a strong word name a layout of
                    // areas as often: `content-nav-section`, `grid-toc-content-sidebar`)
                    if OWNER_WORDS
                        .iter()
                        .any(|o| w.eq_ignore_ascii_case(o.as_bytes()))
                    {
                        tok_owner = true;
                    }
                    tok_content = true;
                }
                // on a page that declares a discussion, the comments are its posts: only
                // those without much prose (a remark under an answer) are left out
                Some(WordKind::Comment) if thread => c.weak_words |= 1 << 11,
                Some(WordKind::Comment) => c.comment = true,
                Some(WordKind::Review) => c.comment |= reviews,
                Some(WordKind::Strong) => {
                    c.strong = true;
                    owned |= tok_owner;
                }
                Some(WordKind::Weak(k)) => c.weak_words |= 1 << k,
                None => {}
            }
        }
        content |= tok_content && !owned;
        c.layout |= page;
    }
    c.content = content && !content_footer;
    c
}

/// Whether link `a` points at itself or at the heading (or `dt`) holding it,
/// `<h2 id="x"><a href="#x">Title</a></h2>`: a permalink wrapped around the title is the
/// heading's text, not a way out of the page.
fn self_link(a: &scraper::node::Element, owner: Option<&scraper::node::Element>) -> bool {
    let Some(f) = a.attr("href").and_then(|h| h.strip_prefix('#')) else {
        return false;
    };
    !f.is_empty()
        && (a.id() == Some(f)
            || owner
                .is_some_and(|o| (is_heading(o.name()) || o.name() == "dt") && o.id() == Some(f)))
}

/// Content words that, before a strong word in one class token, say whose the region is
/// (`post-copyright`, `article-share`, `entry-related`).
const OWNER_WORDS: &[&str] = &["post", "entry", "article", "story", "blog"];

/// Whether a class token states what the element has or lacks rather than what it is:
/// `has-sidebar`, `with-sidebar`, `no-comments`, `without-ads` (a layout holding a sidebar,
/// a post whose comments are closed, a paragraph with a text colour: `has-text-color`). Its
/// words name something beside or inside the element, so none of them names the element.
fn state_token(b: &[u8]) -> bool {
    let Some(i) = b.iter().position(|x| matches!(x, b'-' | b'_')) else {
        return false;
    };
    let (head, rest) = (&b[..i], &b[i + 1..]);
    !rest.is_empty()
        && ["has", "with", "no", "without"]
            .iter()
            .any(|p| head.eq_ignore_ascii_case(p.as_bytes()))
}

/// Whether word `w`, after `before` and `last` in one class value, completes the name of a
/// card about a person rather than the text: a forum poster's (`user-info`, `user-card`) or
/// an author's box under an article (`author-bio`, `author__box`, `about-the-author`; its
/// photo, a paragraph of biography and links to the author's other posts, the same on every
/// page the author wrote). `author` alone is a byline as often as a box, and a byline's
/// name is kept; `author-details` and `author-affiliation` name a paper's authors, which
/// are its text.
fn person_card(before: &[u8], last: &[u8], w: &[u8]) -> bool {
    let is = |a: &[u8], b: &str| a.eq_ignore_ascii_case(b.as_bytes());
    let any = |a: &[u8], bs: &[&str]| bs.iter().any(|b| is(a, b));
    (is(last, "user") && any(w, USER_CARD))
        || (is(last, "author") && any(w, AUTHOR_BOX))
        || (is(w, "author") && (is(last, "about") || (is(last, "the") && is(before, "about"))))
}

/// The class names (or their endings: `u-visually-hidden`) of text for screen readers only
/// ([`ClassWords::not_text`]).
const UNSEEN: &[&str] = &[
    "sr-only",
    "sr_only",
    "visually-hidden",
    "visuallyhidden",
    "screen-reader-text",
    "screen-reader-only",
    "element-invisible",
];

/// The words after `user` that name a poster's card ([`person_card`]).
const USER_CARD: &[&str] = &["info", "details", "extras", "stats", "card"];

/// The words after `author` that name an author's box ([`person_card`]).
const AUTHOR_BOX: &[&str] = &[
    "bio",
    "biography",
    "box",
    "card",
    "profile",
    "info",
    "desc",
    "description",
    "about",
    "wrap",
    "wrapper",
    "section",
    "block",
];

/// The boxes around sign-up forms (a newsletter's, a waiting list's: an e-mail field, at most
/// three fields a reader fills in, no text area, so not a contact form): from the form (or,
/// where a script sends the address, from an e-mail field outside any form) up to the
/// highest ancestor under [`SIGNUP_TEXT`] characters with little link text (a quarter),
/// not past an item or a cell (a product card that holds a waiting-list form) or the
/// article. Its heading and small print go with it (`Get our morning briefing`, `You can
/// unsubscribe at any time`), whatever its class names. A box already named boilerplate
/// (`newsletter-signup`) is not one of them: it weighs as such regions do.
fn signup_boxes(
    order: &[(NodeId, u32)],
    els: &[&scraper::node::Element],
    boiler: &[Boiler],
    fields: &[Fields],
    own: &[Own],
    (sub_text, sub_link): (&[u32], &[u32]),
) -> Vec<bool> {
    let n = order.len();
    // (most pages ask for no e-mail address)
    if !fields.iter().any(|f| f.email) {
        return vec![false; n];
    }
    let mut sub = fields.to_vec();
    sum_subtrees(order, &mut sub);
    // the longest block in each subtree
    let mut longest: Vec<u32> = own.iter().map(|o| o.text).collect();
    fold_subtrees(order, &mut longest, |p, x| *p = (*p).max(x));
    let mut boxes = vec![false; n];
    // an e-mail field outside any form (a script sends it): its box starts at the field's
    // parent
    let in_form = |mut i: usize| loop {
        if els[i].name() == "form" {
            break true;
        }
        match order[i].1 {
            u32::MAX => break false,
            p => i = p as usize,
        }
    };
    for i in 0..n {
        let f = sub[i];
        let start = els[i].name() == "form" || (fields[i].email && !in_form(i));
        if !start || !f.email || f.textarea || f.visible > SIGNUP_FIELDS {
            continue;
        }
        let mut at = i;
        // climb while the parent is still the box: not the page, an item, a cell or the
        // article, short, and with little link text
        while order[at].1 != u32::MAX {
            let p = order[at].1 as usize;
            if matches!(
                els[p].name(),
                "body" | "html" | "main" | "article" | "li" | "td"
            ) || sub_text[p] >= SIGNUP_TEXT
                || sub_link[p] * 4 > sub_text[p]
                // a paragraph of prose beside the box is the page's (a notice the box
                // was set after)
                || (longest[p] >= SIGNUP_PROSE && longest[at] < SIGNUP_PROSE)
            {
                break;
            }
            at = p;
        }
        if sub_text[at] < SIGNUP_TEXT && boiler[at] == Boiler::No {
            tracing::trace!(tag = els[at].name(), text = sub_text[at], "a sign-up box");
            boxes[at] = true;
        }
    }
    boxes
}

/// A form's fields, as far as its kind goes: an e-mail field, a text area, how many fields
/// a reader fills in.
#[derive(Clone, Copy, Default)]
struct Fields {
    email: bool,
    textarea: bool,
    visible: u32,
}

/// A subtree's fields: those of its forms together ([`sum_subtrees`]).
impl std::ops::AddAssign for Fields {
    fn add_assign(&mut self, o: Fields) {
        self.email |= o.email;
        self.textarea |= o.textarea;
        self.visible += o.visible;
    }
}

/// Non-space characters under which the box around a sign-up form is the sign-up box.
const SIGNUP_TEXT: u32 = 400;

/// Non-space characters of a block that is prose, longer than a sign-up box's sentences
/// (`Sign up to receive the best stories of the day in your inbox.`).
const SIGNUP_PROSE: u32 = 150;

/// Fields a reader fills in, at most, on a sign-up form (an e-mail address, a name, a
/// postcode).
const SIGNUP_FIELDS: u32 = 3;

/// Words beyond which an id is a heading's slug.
const SLUG_WORDS: usize = 4;

/// Words beyond which an `aria-label` describes rather than names.
const LABEL_WORDS: usize = 4;

/// The attributes scoring reads, found in one pass over the element's attributes.
#[derive(Default, Clone, Copy)]
struct Attrs<'a> {
    class: Option<&'a str>,
    id: Option<&'a str>,
    role: Option<&'a str>,
    itemprop: Option<&'a str>,
    /// Hidden from view: `hidden`, `aria-hidden="true"`, or a style of `display: none` or
    /// `visibility: hidden` (a style is read only for these).
    hides: bool,
    labelled_by: bool,
    /// Hidden right after a question (`What does it cover?`): an FAQ's collapsed answer
    /// (`dom::answers_question_before`), read only for hidden elements.
    after_question: bool,
    /// `aria-label`: the region's accessible name.
    label: Option<&'a str>,
    /// `data-testid`, `data-component` or `data-module`: a component's name in a hook for
    /// tests or analytics, where class names are generated (`css-1x2y3z`).
    component: Option<&'a str>,
    /// `hreflang`: a link to the page in another language (a language switcher's entry).
    hreflang: bool,
}

impl<'a> Attrs<'a> {
    fn of(e: &'a scraper::node::Element) -> Attrs<'a> {
        let mut a = Attrs::default();
        for (k, v) in e.attrs() {
            match k {
                "class" => a.class = Some(v),
                "id" => a.id = Some(v),
                "role" => a.role = Some(v),
                // a style hides the element, or says nothing read here
                "style" if style_may_hide(v.as_bytes()) => {
                    let v = v.replace(' ', "").to_ascii_lowercase();
                    a.hides |= v.contains("display:none") || v.contains("visibility:hidden");
                }
                "itemprop" => a.itemprop = Some(v),
                "hidden" => a.hides = true,
                "aria-hidden" if v == "true" => a.hides = true,
                "aria-labelledby" => a.labelled_by = !v.trim().is_empty(),
                "aria-label" => a.label = Some(v),
                "data-testid" | "data-component" | "data-module" => a.component = Some(v),
                "hreflang" => a.hreflang = !v.trim().is_empty(),
                _ => {}
            }
        }
        a
    }
}

/// Consent notices ([`Own::cookie`]) in a region that make it a consent dialog
/// ([`consent_dialogs`]).
const CONSENT_NOTICES: u32 = 3;
/// The share of a consent dialog's text its notices hold at least, `1 / CONSENT_SHARE` (a
/// preference centre's panels each speak of cookies; its list of partners' purposes, which
/// fills most of it, need not). Measured with class and id names hashed (WCXB tuning pages):
/// the same six dialogs found at any share from 1/6 to 1/10, two at 1/4; as served, no page
/// of the 1,750 changes at 1/8.
const CONSENT_SHARE: u32 = 8;

/// What a link's text is to a pager.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pager {
    /// A step to the page before or after: `Prev`, `Next »`, `Older posts`, `Weiter`.
    Step,
    /// Another of a pager's links: `Up`, `Home`, `First`, `Last`, a page number.
    Other,
    /// Not a pager's.
    None,
}

/// The words of a pager's step links, lowercase, in the languages of the benchmarks and
/// beyond (matched whole, arrows and brackets around them left out).
const PAGER_STEPS: &[&str] = &[
    "prev",
    "previous",
    "next",
    "older",
    "newer",
    "older posts",
    "newer posts",
    "older entries",
    "newer entries",
    "next page",
    "previous page",
    "prev page",
    "zurück",
    "weiter",
    "vorherige",
    "nächste",
    "vorherige seite",
    "nächste seite",
    "précédent",
    "précédente",
    "suivant",
    "suivante",
    "page précédente",
    "page suivante",
    "anterior",
    "siguiente",
    "próximo",
    "próxima",
    "precedente",
    "successivo",
    "successiva",
    "vorige",
    "volgende",
    "poprzedni",
    "poprzednia",
    "następny",
    "następna",
    "předchozí",
    "další",
    "предыдущая",
    "следующая",
    "назад",
    "далее",
    "вперед",
    "上一页",
    "下一页",
    "上一篇",
    "下一篇",
    "前へ",
    "次へ",
    "이전",
    "다음",
];

/// The other words of a pager's links.
const PAGER_OTHERS: &[&str] = &[
    "up",
    "home",
    "first",
    "last",
    "top",
    "erste",
    "letzte",
    "première",
    "dernière",
    "primero",
    "último",
    "primo",
    "ultimo",
];

/// What a link's text node is to a pager; `None` for a node of no letter or digit (an arrow,
/// a space), which is no link text of its own.
fn pager_word(t: &str) -> Option<Pager> {
    let w = t.trim_matches(|c: char| !c.is_alphanumeric());
    if w.is_empty() {
        return None;
    }
    if w.len() > 24 {
        return Some(Pager::None);
    }
    // a page number, or a version's (`9.6`, `3.12.1`: a manual's versions)
    if (w.len() <= 3 && w.bytes().all(|b| b.is_ascii_digit()))
        || (w.len() <= 8
            && w.contains('.')
            && w.split('.')
                .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())))
    {
        return Some(Pager::Other);
    }
    let w = lowered(w);
    let is = |list: &[&str]| in_lowercase_list(&w, list);
    Some(if is(PAGER_STEPS) {
        Pager::Step
    } else if is(PAGER_OTHERS) {
        Pager::Other
    } else {
        Pager::None
    })
}

/// A word to compare with a lowercase list ([`in_lowercase_list`]): as it is when it is
/// ASCII (no allocation for the usual link text), lowered otherwise (a capital outside ASCII
/// is rare enough to lower the word for).
fn lowered(w: &str) -> std::borrow::Cow<'_, str> {
    if w.is_ascii() {
        std::borrow::Cow::Borrowed(w)
    } else {
        std::borrow::Cow::Owned(w.to_lowercase())
    }
}

/// Whether a word from [`lowered`] is one of a lowercase list's, ASCII case aside.
fn in_lowercase_list(w: &str, list: &[&str]) -> bool {
    list.iter().any(|c| c.eq_ignore_ascii_case(w))
}

/// Characters of text a pager holds at most (its links, the titles of the pages it steps
/// to, a chapter's name).
const PAGER_TEXT: u32 = 250;

/// Links of a pager without a step (`1 2 3 4`, a manual's versions), at least.
const PAGER_RUN: u32 = 4;

/// The pagers: small regions ([`PAGER_TEXT`]) whose links are mostly a pager's words, at
/// least two, one of them a step (`Prev`, `Next`); a navigation by its text, whatever its
/// names (a generator's `Prev | Up | Home | Next` table, `« Older posts`, `1 2 3 Next`);
/// never the page's `html`, `body` or `main` (a page of a few lines).
fn pagers(
    order: &[(NodeId, u32)],
    els: &[&scraper::node::Element],
    own: &[Own],
    links: &[u32],
    (sub_text, link_text): (&[u32], &[u32]),
) -> Vec<bool> {
    let (pager, step) = (
        own_sums(order, own, |o| o.pager),
        own_sums(order, own, |o| o.step),
    );
    (0..order.len())
        .map(|i| {
            // a pager steps (`1 2 3 Next`); a run of numbers alone is one when its
            // links are nothing else and much of its text (`Versions: 13 / 12 / 11 / 9.6`;
            // not a sentence's footnote marks)
            let steps = step[i] >= 1 && pager[i] >= 2 && pager[i] * 2 >= links[i];
            let numbers = pager[i] >= PAGER_RUN
                && pager[i] == links[i]
                && link_text[i] * 10 >= sub_text[i] * 3;
            (steps || numbers)
                && sub_text[i] <= PAGER_TEXT
                && !matches!(els[i].name(), "html" | "body" | "main")
        })
        .collect()
}

/// A count the blocks keep ([`Own`]), summed over each element's subtree.
fn own_sums(order: &[(NodeId, u32)], own: &[Own], of: fn(&Own) -> u16) -> Vec<u32> {
    let mut v: Vec<u32> = own.iter().map(|o| u32::from(of(o))).collect();
    sum_subtrees(order, &mut v);
    v
}

/// Items holding a list of their own, at least, for a list to be a menu tree
/// ([`menu_trees`]).
const MENU_TREE_ITEMS: usize = 4;
/// Links in such a list, at least.
const MENU_TREE_LINKS: u32 = 12;

/// Menus known by their shape, whatever their names: a list of which [`MENU_TREE_ITEMS`]
/// items or more, and half of its items or more, hold a list of their own (a section's link
/// and the dropdown of its pages; `Home` and a few sections have none), its text links
/// alone ([`links_alone`]), with [`MENU_TREE_LINKS`] links or more. A listing's items say
/// more than their links; a table of contents that nests its sections is a list of links
/// to places on the page, and left alone. Such a menu is boilerplate even when it holds most
/// of the page's text (an empty shell of a page, a short story under a mega-menu).
fn menu_trees(
    order: &[(NodeId, u32)],
    els: &[&scraper::node::Element],
    links: &[u32],
    (sub_text, sub_link): (&[u32], &[u32]),
) -> Vec<bool> {
    let n = order.len();
    let is_list = |i: usize| matches!(els[i].name(), "ul" | "ol");
    // lists below each element, and links (and those pointing to a place on the page)
    let mut lists: Vec<u32> = (0..n).map(|i| u32::from(is_list(i))).collect();
    let mut in_page: Vec<u32> = (0..n)
        .map(|i| {
            u32::from(
                els[i].name() == "a" && els[i].attr("href").is_some_and(|h| h.starts_with('#')),
            )
        })
        .collect();
    sum_subtrees(order, &mut lists);
    sum_subtrees(order, &mut in_page);
    // per list, its items and those holding a list
    let mut items = vec![(0usize, 0usize); n];
    for i in 0..n {
        let p = order[i].1;
        if p != u32::MAX && els[i].name() == "li" && is_list(p as usize) {
            let it = &mut items[p as usize];
            it.0 += 1;
            it.1 += usize::from(lists[i] > 0);
        }
    }
    (0..n)
        .map(|i| {
            let (all, nested) = items[i];
            is_list(i)
                && nested >= MENU_TREE_ITEMS
                && nested * 2 >= all
                && sub_text[i] > 0
                && links_alone(sub_text[i], sub_link[i])
                && links[i] >= MENU_TREE_LINKS
                && in_page[i] * 2 < links[i]
        })
        .collect()
}

/// Characters of a text node, at most, read for a copyright line ([`Own::copyright`]).
const COPYRIGHT_TEXT: u32 = 200;
/// Links a footer holds beside its copyright line, at least ([`footers`]).
const FOOTER_LINKS: u32 = 3;
/// Characters of a footer, at most.
const FOOTER_TEXT: u32 = 2500;
/// Characters outside links after a footer's copyright line, at most.
const FOOTER_AFTER: u32 = 200;

/// Footers known by their text, whatever their names and tags: the smallest regions (not
/// the page's `html`, `body`, `main` or `article`) holding a copyright line and
/// [`FOOTER_LINKS`] links or more (the legal pages, the site's sections), under
/// [`FOOTER_TEXT`] characters, a third of it or more under links, the line closing the
/// region: [`FOOTER_AFTER`] characters outside links after it at most. A photo's credit
/// (`© Reuters`) opens a story's region, whose paragraphs follow it.
fn footers(
    order: &[(NodeId, u32)],
    size: &[u32],
    own: &[Own],
    els: &[&scraper::node::Element],
    links: &[u32],
    (sub_text, sub_link): (&[u32], &[u32]),
) -> Vec<bool> {
    // (a page without a copyright line has no footer to find)
    if !own.iter().any(|o| o.copyright) {
        return vec![false; order.len()];
    }
    let n = order.len();
    // the last copyright line in each subtree, and the text outside links before each slot
    let mut last: Vec<u32> = (0..n)
        .map(|i| if own[i].copyright { i as u32 + 1 } else { 0 })
        .collect();
    fold_subtrees(order, &mut last, |p, x| *p = (*p).max(x));
    let mut before = Vec::with_capacity(n + 1);
    before.push(0u32);
    for o in own {
        before.push(before.last().copied().unwrap_or(0) + o.text.saturating_sub(o.link));
    }
    smallest_regions(order, |i| {
        // (the line closes the region: little but links after it, as a footer's small print
        // sits under its columns or over its legal links; not a photo's credit over a story)
        let closes = last[i] > 0 && {
            let line = last[i] as usize - 1;
            let end = subtree(size, i).end;
            before[end] - before[line + 1] <= FOOTER_AFTER
        };
        let holds = closes
            && links[i] >= FOOTER_LINKS
            && sub_text[i] <= FOOTER_TEXT
            && sub_link[i] * 3 >= sub_text[i]
            && !matches!(els[i].name(), "html" | "body" | "main" | "article");
        if holds {
            tracing::trace!(text = sub_text[i], tag = els[i].name(), class = ?els[i].attr("class"), "a footer by its text");
        }
        holds
    })
}

/// The smallest regions for which `holds` is true: no region holding another is one
/// (`holds` is asked of every element, in reverse document order, until a region below an
/// element is found).
fn smallest_regions(order: &[(NodeId, u32)], mut holds: impl FnMut(usize) -> bool) -> Vec<bool> {
    let n = order.len();
    // (pre-order backwards: every subtree before its root)
    let mut region = vec![false; n];
    let mut below = vec![false; n];
    for i in (0..n).rev() {
        if !below[i] && holds(i) {
            region[i] = true;
            below[i] = true;
        }
        let p = order[i].1;
        if p != u32::MAX && below[i] {
            below[p as usize] = true;
        }
    }
    region
}

/// Language switchers known by their text, whatever their names: the smallest regions
/// (not the page's `html`, `body` or `main`) holding [`SWITCHER_ENTRIES`] language names or
/// more, each a text of its own ([`Own::langs`]: `Deutsch`, `English (United States)`, or a
/// country's name and its language), a third of the region's text or more, under
/// [`SWITCHER_TEXT`] characters. A list of languages in a sentence is not one: its names
/// are not texts of their own.
fn switchers(
    order: &[(NodeId, u32)],
    own: &[Own],
    els: &[&scraper::node::Element],
    sub_text: &[u32],
) -> Vec<bool> {
    // (most pages name no language on its own)
    if own.iter().map(|o| u32::from(o.langs)).sum::<u32>() < SWITCHER_ENTRIES {
        return vec![false; order.len()];
    }
    let mut langs: Vec<u32> = own.iter().map(|o| u32::from(o.langs)).collect();
    let mut lang_text: Vec<u32> = own.iter().map(|o| o.lang_text).collect();
    sum_subtrees(order, &mut langs);
    sum_subtrees(order, &mut lang_text);
    smallest_regions(order, |i| {
        let holds = !matches!(els[i].name(), "html" | "body" | "main")
            && langs[i] >= SWITCHER_ENTRIES
            && lang_text[i] * 3 >= sub_text[i]
            && sub_text[i] <= SWITCHER_TEXT;
        if holds {
            tracing::trace!(names = langs[i], text = sub_text[i], tag = els[i].name(), class = ?els[i].attr("class"), "a language switcher by its text");
        }
        holds
    })
}

/// Language names a language switcher holds at least ([`switchers`]).
const SWITCHER_ENTRIES: u32 = 4;
/// Characters of a language switcher at most.
const SWITCHER_TEXT: u32 = 4000;
/// Characters of a text that names a language at most (`English (United Kingdom)`).
const LANGUAGE_NAME_CHARS: u32 = 40;

/// Languages by the names a switcher gives them: their own (`Deutsch`, `日本語`), lowercase,
/// and the English names (`German`), which switchers use too.
const LANGUAGE_NAMES: &[&str] = &[
    "english",
    "deutsch",
    "español",
    "espanol",
    "français",
    "francais",
    "italiano",
    "português",
    "portugues",
    "nederlands",
    "polski",
    "русский",
    "日本語",
    "한국어",
    "中文",
    "简体中文",
    "繁體中文",
    "繁体中文",
    "türkçe",
    "svenska",
    "dansk",
    "norsk",
    "norsk bokmål",
    "suomi",
    "čeština",
    "magyar",
    "română",
    "ελληνικά",
    "العربية",
    "עברית",
    "हिन्दी",
    "bahasa indonesia",
    "bahasa melayu",
    "tiếng việt",
    "ไทย",
    "українська",
    "català",
    "hrvatski",
    "slovenčina",
    "slovenščina",
    "български",
    "srpski",
    "српски",
    "lietuvių",
    "latviešu",
    "eesti",
    "filipino",
    "فارسی",
    "íslenska",
    "euskara",
    "galego",
    "shqip",
    "spanish",
    "french",
    "german",
    "italian",
    "portuguese",
    "dutch",
    "polish",
    "russian",
    "japanese",
    "korean",
    "chinese",
    "turkish",
    "swedish",
    "danish",
    "norwegian",
    "finnish",
    "czech",
    "hungarian",
    "romanian",
    "greek",
    "arabic",
    "hebrew",
    "hindi",
    "indonesian",
    "vietnamese",
    "thai",
    "ukrainian",
];

/// Whether a text names a language and nothing else: one of [`LANGUAGE_NAMES`], a region
/// or script in brackets after it allowed (`English (Canada)`, `中文（简体）`).
fn language_name(t: &str) -> bool {
    let t = t.trim();
    let name = match t.find(['(', '（']) {
        Some(at) if t.ends_with([')', '）']) => t[..at].trim_end(),
        _ => t,
    };
    // (the longest name is 20 bytes: most texts are not one by their length alone)
    if !(2..=20).contains(&name.len()) {
        return false;
    }
    in_lowercase_list(&lowered(name), LANGUAGE_NAMES)
}

/// The regions made of consent notices: three or more blocks that speak of the site's
/// cookies ([`Own::cookie`]), holding a share of the region's text ([`CONSENT_SHARE`]); the
/// smallest such regions (a page wrapper holding a banner and a preference centre holds
/// their notices too), never the page's `html`, `body` or `main`; and the banners, one
/// notice and its buttons.
fn consent_dialogs(
    order: &[(NodeId, u32)],
    own: &[Own],
    els: &[&scraper::node::Element],
    sub_text: &[u32],
) -> Vec<bool> {
    let n = order.len();
    // the notices in each subtree, and their text
    let mut notices: Vec<u32> = own.iter().map(|o| u32::from(o.cookie)).collect();
    let mut notice_text: Vec<u32> = own
        .iter()
        .map(|o| if o.cookie { o.text } else { 0 })
        .collect();
    sum_subtrees(order, &mut notices);
    sum_subtrees(order, &mut notice_text);
    let mut dialog = smallest_regions(order, |i| {
        let holds = !matches!(els[i].name(), "html" | "body" | "main")
            && notices[i] >= CONSENT_NOTICES
            && notice_text[i] * CONSENT_SHARE >= sub_text[i];
        if holds {
            tracing::trace!(notices = notices[i], text = sub_text[i], tag = els[i].name(), class = ?els[i].attr("class"), "consent dialog by its text");
        }
        holds
    });
    // a banner: the smallest region around a single notice that holds a consent control
    // ([`Own::control`]), under [`BANNER_TEXT`], the notice a third of its text or more,
    // outside the page's `main` and `article` (a page about cookies that asks its reader to
    // accept them is still a page)
    // (most pages say nothing of cookies, or nothing with a control beside it)
    if !own.iter().any(|o| o.control) || !own.iter().any(|o| o.cookie) {
        return dialog;
    }
    let mut controls: Vec<u32> = own.iter().map(|o| u32::from(o.control)).collect();
    sum_subtrees(order, &mut controls);
    let page = |i: usize| matches!(els[i].name(), "html" | "body" | "main" | "article");
    for i in (0..n).filter(|&i| own[i].cookie) {
        let mut at = i;
        while controls[at] == 0 {
            match order[at].1 {
                p if p != u32::MAX && !page(p as usize) && sub_text[p as usize] <= BANNER_TEXT => {
                    at = p as usize
                }
                _ => break,
            }
        }
        // (a banner sits outside the content's landmarks: a notice inside `main` or an
        // `article` with a `Cookie settings` link is a cookie policy's paragraph)
        let in_content = || {
            let mut j = at;
            while order[j].1 != u32::MAX {
                j = order[j].1 as usize;
                if matches!(els[j].name(), "main" | "article") {
                    return true;
                }
            }
            false
        };
        if controls[at] > 0
            && !page(at)
            && sub_text[at] <= BANNER_TEXT
            && own[i].text * 3 >= sub_text[at]
            && !in_content()
        {
            tracing::trace!(
                text = sub_text[at],
                tag = els[at].name(),
                "a consent banner"
            );
            dialog[at] = true;
        }
    }
    dialog
}

/// Non-space characters of a consent banner at most ([`consent_dialogs`]).
const BANNER_TEXT: u32 = 1000;

/// Non-space characters of a consent control's text at most ([`consent_control`]).
const CONTROL_TEXT: u32 = 24;

/// Whether a link's or a button's text is a consent control's (`Accept all`, `Alle
/// akzeptieren`, `Manage choices`): the whole text, in the benchmarks' languages.
fn consent_control(t: &str) -> bool {
    let t = t.trim().trim_end_matches(['.', '!']).to_lowercase();
    CONSENT_CONTROLS.contains(&t.as_str())
}

/// A consent control's texts, lowercase ([`consent_control`]).
const CONSENT_CONTROLS: &[&str] = &[
    "accept",
    "accept all",
    "accept cookies",
    "accept all cookies",
    "allow",
    "allow all",
    "allow cookies",
    "allow all cookies",
    "agree",
    "i agree",
    "i accept",
    "got it",
    "ok",
    "okay",
    "reject",
    "reject all",
    "decline",
    "deny",
    "manage choices",
    "manage cookies",
    "manage preferences",
    "cookie settings",
    "customize",
    "customise",
    "akzeptieren",
    "alle akzeptieren",
    "zustimmen",
    "alle zulassen",
    "ablehnen",
    "alle ablehnen",
    "accepter",
    "tout accepter",
    "j'accepte",
    "refuser",
    "tout refuser",
    "aceptar",
    "aceptar todo",
    "rechazar",
    "accetta",
    "accetto",
    "accetta tutti",
    "rifiuta",
    "accepteren",
    "weigeren",
];

/// Where the consent management platforms' names start in [`CONSENT_VENDORS`].
const FIRST_CMP: usize = 5;

fn consent_vendors() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(CONSENT_VENDORS)
            .expect("static patterns")
    });
    &AC
}

/// Substrings of class/id words naming cookie and consent banners (`cookiebanner`,
/// `CybotCookiebotDialog`, `onetrust-consent-sdk`, `cmplz-cookiebanner`, ...).
const CONSENT_VENDORS: &[&str] = &[
    "cookie",
    "consent",
    "gdpr",
    "rgpd",
    "dsgvo",
    // consent management platforms by name: their dialogs (a preference centre listing
    // hundreds of partners) are never a page's content, however much of it they hold
    "onetrust",
    "didomi",
    "usercentrics",
    "borlabs",
    "cmplz",
    "tarteaucitron",
    "truste",
    "osano",
    "cookiebot",
    "iubenda",
    "quantcast",
];

/// With "cookie" in the same text, the wording of a consent notice (an article about
/// cookies does not ask for consent).
const CONSENT_PHRASES: &[&str] = &[
    "we use",
    "this site uses",
    "this website uses",
    "you agree",
    "you consent",
    "accept",
    "continuing to use",
    "by using",
    "wir verwenden",
    "wir nutzen",
    "diese website verwendet",
    "weiterhin nutzt",
    "zustimm",
    "einverstanden",
    "akzeptier",
    "nous utilisons",
    "ce site utilise",
    "en poursuivant",
    "acceptez",
    "utilizamos",
    "este sitio",
    "acepta",
    "utilizziamo",
    "questo sito",
    "accett",
    // consent / consentement / consentimiento, Einwilligung, consenso, tracking wording
    "consent",
    "einwillig",
    "consens",
    "traceurs",
    "tracker",
    "your preferences",
    "vos choix",
    "paramétrer",
    // a site speaking of its own cookies, as a preference centre's panels do (`These cookies
    // allow us to count visits ... of our site`), in the benchmarks' languages
    "our site",
    "our website",
    "allow us",
    "your browser",
    "your device",
    "switched off",
    "legitimate interest",
    "unsere website",
    "ihr browser",
    "ihrem browser",
    "berechtigte",
    "notre site",
    "votre navigateur",
    "intérêt légitime",
    "nuestro sitio",
    "su navegador",
    "interés legítimo",
    "nostro sito",
    "tuo browser",
    "legittimo interesse",
];

fn cookie_word() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["cookie"])
            .expect("static pattern")
    });
    &AC
}

/// How sure the element is a boilerplate region (by tag, ARIA role, class/id words).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Boiler {
    No,
    Weak,
    Strong,
    /// A consent banner (`cookie-notice`, `intro-rgpd`, `onetrust-...`) or a comment thread
    /// (`comment-body`, `commentlist`) by its class/id: never the content, however much
    /// prose it holds (unless it holds most of the page: a cookie policy page, a forum).
    Always,
}

/// Whether an element is a boilerplate region by tag, ARIA role or class/id words (`c`).
fn boilerplate(name: &str, a: &Attrs<'_>, c: ClassWords) -> Boiler {
    if name == "footer" {
        // a page's or an article's footer: never the content, whatever it holds (a list of
        // the cities served, a long legal notice)
        return Boiler::Always;
    }
    if matches!(name, "nav" | "aside" | "menu") {
        return Boiler::Strong;
    }
    // a tab panel (or accordion panel) hidden until its tab is chosen holds the page's own
    // text (a product's description, specifications, reviews): hidden is not boilerplate
    let panel = match a.role {
        Some("tabpanel") | Some("region") => true,
        // an accordion or disclosure panel names the control that opens it
        None => a.labelled_by,
        Some(_) => false,
    } || c.disclosure
        || a.after_question;
    if a.hides && !panel {
        return Boiler::Strong;
    }
    if matches!(
        a.role.unwrap_or(""),
        "navigation"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "search"
            | "menu"
            | "menubar"
            | "dialog"
            | "alertdialog"
    ) {
        return Boiler::Strong;
    }
    if name == "a" && a.hreflang {
        // the page in another language: a language switcher's entry, never the content
        return Boiler::Strong;
    }
    if a.class.is_none() && a.id.is_none() {
        return if name == "form" {
            Boiler::Weak
        } else {
            Boiler::No
        };
    }
    // a comment's or a consent banner's own words win over content words
    // (`comment-content`, `comment-body`, `cookie-text`)
    if c.comment || c.consent {
        return Boiler::Always;
    }
    if c.card || c.not_text {
        return Boiler::Strong;
    }
    if c.content {
        return Boiler::No;
    }
    if name == "form" {
        // search boxes and logins, but also whole pages (ASP.NET) and, after a stray
        // unclosed <form>, article text the parser put inside one
        return Boiler::Weak;
    }
    if c.strong && !c.layout {
        Boiler::Strong
    } else if c.weak_words != 0 || c.strong {
        Boiler::Weak
    } else {
        Boiler::No
    }
}

/// Where a CSS framework's responsive utilities show an element ([`responsive`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Screens {
    /// Hidden on a desktop-wide screen: shown on phones (and tablets) only.
    Narrow,
    /// Hidden on phones, shown from a breakpoint a desktop reaches.
    Wide,
}

/// The breakpoints a desktop-wide screen (1280 pixels) reaches: Tailwind's `sm` to `xl` (640
/// to 1280 pixels), Bootstrap's `sm` to `xl` (576 to 1200).
const DESKTOP_BREAKPOINTS: &[&str] = &["sm", "md", "lg", "xl"];

/// Where a class value's responsive utilities show the element, if they say: the widest
/// breakpoint a desktop reaches that sets its display decides (Tailwind's `md:hidden`,
/// unless `lg:block` follows; Bootstrap's `d-md-none`, unless `d-xl-block`); Bootstrap 3's
/// `hidden-lg` and `visible-xs`, Foundation's `hide-for-large` and `show-for-small-only`,
/// Bulma's `is-hidden-tablet` and `is-hidden-desktop` say narrow. Wide: hidden without a
/// breakpoint (`hidden`, `d-none`) and shown from one (`md:block`, `d-lg-flex`).
pub(crate) fn responsive(v: &str) -> Option<Screens> {
    // (what every value saying it holds: most class values say nothing)
    if !["hidden", "none", "visible-", "show-for-"]
        .iter()
        .any(|w| v.contains(w))
    {
        return None;
    }
    // (breakpoint rank, shown) of the widest display utility a desktop reaches
    let mut widest: Option<(usize, bool)> = None;
    let (mut hidden, mut small_only, mut wide_too) = (false, false, false);
    for t in v.split_ascii_whitespace() {
        let (bp, display) = if let Some((bp, d)) = t.split_once(':') {
            (bp, d)
        } else if let Some((bp, d)) = t.strip_prefix("d-").and_then(|r| r.split_once('-')) {
            (bp, if d == "none" { "hidden" } else { d })
        } else {
            match t {
                "hidden" | "d-none" => hidden = true,
                "hidden-lg" | "hide-for-large" | "is-hidden-tablet" | "is-hidden-desktop" => {
                    return Some(Screens::Narrow);
                }
                "visible-xs" | "visible-sm" | "show-for-small-only" | "show-for-medium-only" => {
                    small_only = true
                }
                _ if t.starts_with("visible-xs-") || t.starts_with("visible-sm-") => {
                    small_only = true
                }
                _ if t.starts_with("visible-md") || t.starts_with("visible-lg") => wide_too = true,
                _ => {}
            }
            continue;
        };
        let Some(rank) = DESKTOP_BREAKPOINTS.iter().position(|b| *b == bp) else {
            continue;
        };
        let shown = match display {
            "hidden" => false,
            "block" | "flex" | "grid" | "inline" | "inline-block" | "inline-flex"
            | "inline-grid" | "table" | "contents" | "flow-root" => true,
            _ => continue,
        };
        if widest.is_none_or(|(r, _)| rank >= r) {
            widest = Some((rank, shown));
        }
    }
    match widest {
        Some((_, false)) => Some(Screens::Narrow),
        Some((_, true)) if hidden => Some(Screens::Wide),
        _ if small_only && !wide_too => Some(Screens::Narrow),
        _ => None,
    }
}

/// Whether a `style` value holds a word [`boilerplate`] reads as hiding (`display: none`,
/// `visibility: hidden`); a style without one is not read further (nor kept by the pre-parse
/// pass, `strip::may_hide`).
pub(crate) fn style_may_hide(style: &[u8]) -> bool {
    use trawl_core::text::bytes_contain_ascii_ci as has;
    has(style, b"none") || has(style, b"hidden")
}

fn content_bonus(name: &str, a: &Attrs<'_>, content_word: bool) -> f32 {
    let mut b = 0.0;
    if matches!(name, "article" | "main") || a.role == Some("main") {
        b += 0.2;
    }
    if a.itemprop
        .is_some_and(|p| p.contains("articleBody") || p.contains("text"))
    {
        b += 0.3;
    }
    if content_word {
        b += 0.1;
    }
    b
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '。'
            | '，'
            | '、'
            | '！'
            | '？'
            | '；'
            | '：'
            | '؟'
            | '،'
            | '।'
    )
}

/// Own text of a block (not counting nested blocks).
#[derive(Default, Clone, Copy)]
struct Own {
    text: u32,
    link: u32,
    punct: u32,
    /// The block talks about cookies (consent notices).
    cookie: bool,
    /// The block holds a consent control: a link or a button that accepts, rejects or
    /// manages cookies ([`consent_control`]).
    control: bool,
    /// Links' texts in the block (a link's text nodes holding a letter or a digit each).
    links: u16,
    /// Of them, the words of a pager ([`pager_word`]): `Prev`, `Next`, `Up`, a page number.
    pager: u16,
    /// Of those, the words that step to the page before or after (`Prev`, `Next`).
    step: u16,
    /// The block opens with a short label ending in a colon (`Read more:`, `See also:`).
    label: bool,
    /// A link's text in the block is a web address (`https://…`, `www.…`).
    address: bool,
    /// Text nodes of the block that name a language and nothing else ([`language_name`]):
    /// a language switcher's entries.
    langs: u16,
    /// Their characters.
    lang_text: u32,
    /// A copyright line in the block (`©`, `Copyright`, `All rights reserved`): a footer's
    /// small print ([`footers`]).
    copyright: bool,
}

/// What the page declares of itself (JSON-LD, microdata, OpenGraph), as scoring reads it.
#[derive(Clone, Copy, Default)]
pub(crate) struct Declared {
    /// The page declares a product, so its customer reviews are comments, not its content.
    pub product: bool,
    /// The page declares an article (or a publication date): its prose is one piece.
    pub article: bool,
    /// The page declares a discussion thread or a question with answers: its content is
    /// every post.
    pub thread: bool,
}

/// Scores the document and picks the content root under `body`.
pub(crate) fn score(doc: &Html, declared: Declared) -> Scores {
    let product = declared.product;
    // at most one slot per node of the tree (elements are about half of them): the
    // per-element tables never grow
    let cap = doc.tree.nodes().len();
    // pre-order with context: (node, parent slot, owner block slot, in link)
    let mut order: Vec<(NodeId, u32)> = Vec::with_capacity(cap); // (element, parent slot)
    let mut els: Vec<&scraper::node::Element> = Vec::with_capacity(cap);
    let mut index: FxHashMap<NodeId, u32> =
        FxHashMap::with_capacity_and_hasher(cap, Default::default());
    let mut own: Vec<Own> = Vec::with_capacity(cap);
    let mut boiler: Vec<Boiler> = Vec::with_capacity(cap);
    let mut fields: Vec<Fields> = Vec::with_capacity(cap);
    // the semantic bonus of each element as a content root
    let mut bonus: Vec<f32> = Vec::with_capacity(cap);
    let mut by_words: Vec<bool> = Vec::with_capacity(cap);
    let mut seen: FxHashMap<&str, ClassWords> =
        FxHashMap::with_capacity_and_hasher(256, Default::default());
    // the weak words that alone make each element a weak region (0: none, or more than them)
    let mut weak_words: Vec<u16> = Vec::with_capacity(cap);
    let mut cmp: Vec<bool> = Vec::with_capacity(cap);
    // the main landmark: `<main>` or role=main
    let mut landmark: Vec<bool> = Vec::with_capacity(cap);
    let mut is_blk: Vec<bool> = Vec::with_capacity(cap);
    let mut sig: Vec<u64> = Vec::with_capacity(cap);
    // tag + first class token, wherever it sits (0: no class, nothing to match on)
    let mut comp: Vec<u64> = Vec::with_capacity(cap);
    let mut has_class: Vec<bool> = Vec::with_capacity(cap);
    // whether the first text inside each element is link text (a headline link)
    let mut first_link: Vec<bool> = Vec::with_capacity(cap);
    let mut pending = 0usize;
    // whether a block's first text is link text that the text after it carries on (a
    // lowercase letter or a comma: `<a>Tidal energy production</a> has the potential`): a
    // link set in a sentence, not a headline; and the block whose first text, a link, waits
    // for the text after it
    let mut link_flows: Vec<bool> = Vec::with_capacity(cap);
    let mut open_link = u32::MAX;
    // lists introduced by a sentence ending in a colon (`... to do the following:`): their
    // links are the text, not a link list beside it
    let mut introduced: Vec<bool> = Vec::with_capacity(cap);
    // the block that holds the last text seen, and whether that text ended in a colon
    let (mut last_owner, mut last_colon) = (u32::MAX, false);
    let mut shape = crate::pagetype::Shape::default();
    let root = doc.tree.root();
    let mut stack: Vec<(ego_tree::NodeRef<'_, Node>, u32, u32, bool)> =
        vec![(root, u32::MAX, u32::MAX, false)];
    while let Some((node, parent, owner, in_link)) = stack.pop() {
        match node.value() {
            Node::Element(e) => {
                let name = e.name();
                if invisible(name) {
                    // a form's fields: what kind of form holds them
                    if parent != u32::MAX {
                        match name {
                            "textarea" => fields[parent as usize].textarea = true,
                            "button" => {
                                // (read up to a control's length: a button may hold a
                                // whole subtree)
                                let limit = CONTROL_TEXT as usize * 4;
                                let mut text = String::new();
                                for t in node.descendants().filter_map(|d| d.value().as_text()) {
                                    text.push_str(t);
                                    if text.len() > limit {
                                        break;
                                    }
                                }
                                if text.len() <= limit && consent_control(&text) {
                                    own[parent as usize].control = true;
                                }
                            }
                            "input" => {
                                let ty = e.attr("type").unwrap_or("text");
                                let ty = ty.trim().to_ascii_lowercase();
                                let named_mail = e.attr("name").is_some_and(|v| {
                                    trawl_core::text::contains_ascii_ci(v, "mail")
                                });
                                if ty == "email" || (ty == "text" && named_mail) {
                                    fields[parent as usize].email = true;
                                }
                                // a field for bots in a hidden box (a sign-up form's
                                // honeypot, as Mailchimp's) is none a reader fills in
                                let box_hidden = {
                                    let p = els[parent as usize];
                                    p.attr("aria-hidden") == Some("true")
                                        || p.attr("hidden").is_some()
                                };
                                if !box_hidden
                                    && !matches!(
                                        ty.as_str(),
                                        "hidden"
                                            | "submit"
                                            | "button"
                                            | "checkbox"
                                            | "radio"
                                            | "image"
                                            | "reset"
                                    )
                                {
                                    fields[parent as usize].visible += 1;
                                }
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                shape.element(name);
                let slot = order.len() as u32;
                fields.push(Fields::default());
                // own flag here; whether it holds is decided once sizes are known
                let mut attrs = Attrs::of(e);
                if attrs.hides {
                    attrs.after_question =
                        ElementRef::wrap(node).is_some_and(crate::dom::answers_question_before);
                }
                let cw = class_words(&attrs, product, declared.thread, &mut seen);
                let b = if matches!(name, "html" | "body") {
                    Boiler::No
                } else {
                    boilerplate(name, &attrs, cw)
                };
                // flagged by its class/id words alone (not by tag, role, hiding or as a
                // consent banner): such regions may be the page's building blocks
                let tag_only = Attrs {
                    class: None,
                    id: None,
                    ..attrs
                };
                by_words.push(
                    b != Boiler::No
                        && !cw.consent
                        && boilerplate(name, &tag_only, ClassWords::default()) == Boiler::No,
                );
                weak_words.push(if b == Boiler::Weak && name != "form" && !cw.strong {
                    cw.weak_words
                } else {
                    0
                });
                cmp.push(cw.cmp);
                landmark.push(name == "main" || attrs.role == Some("main"));
                bonus.push(content_bonus(name, &attrs, cw.content));
                order.push((node.id(), parent));
                els.push(e);
                index.insert(node.id(), slot);
                own.push(Own::default());
                boiler.push(b);
                let blk = is_block(name);
                is_blk.push(blk);
                // tag + class signature, for structural repetition
                let mut h = rustc_hash::FxHasher::default();
                std::hash::Hash::hash(&name, &mut h);
                // the class list's first token names the component (`carousel-cell post-94972
                // category-bowl ...`: WordPress appends per-post tokens, which differ item by item)
                let component = attrs
                    .class
                    .and_then(|c| c.split_ascii_whitespace().next())
                    .unwrap_or("");
                std::hash::Hash::hash(component, &mut h);
                comp.push(if component.is_empty() && name != "article" {
                    0
                } else {
                    std::hash::Hasher::finish(&h)
                });
                if parent != u32::MAX {
                    std::hash::Hash::hash(&sig[parent as usize], &mut h);
                }
                sig.push(std::hash::Hasher::finish(&h));
                has_class.push(attrs.class.is_some_and(|c| !c.trim().is_empty()));
                first_link.push(false);
                link_flows.push(false);
                introduced.push(
                    matches!(name, "ul" | "ol")
                        && last_colon
                        && last_owner != u32::MAX
                        && own[last_owner as usize].text >= INTRO_TEXT
                        && !is_heading(els[last_owner as usize].name()),
                );
                // a code block owns all of its text: a highlighter's one `<div>` per line
                // is a line of the block, not a block of its own
                let in_pre = owner != u32::MAX && els[owner as usize].name() == "pre";
                let owner = if (blk && !in_pre) || owner == u32::MAX {
                    slot
                } else {
                    owner
                };
                let link = in_link
                    || (name == "a"
                        && !self_link(e, (owner != u32::MAX).then(|| els[owner as usize])));
                for c in node.children().rev() {
                    stack.push((c, slot, owner, link));
                }
            }
            Node::Text(t) if owner != u32::MAX => {
                shape.text(t);
                let o = &mut own[owner as usize];
                let (n, punct) = if t.is_ascii() {
                    let b = t.as_bytes();
                    (
                        b.iter().filter(|c| !c.is_ascii_whitespace()).count() as u32,
                        b.iter()
                            .filter(|c| matches!(c, b'.' | b',' | b';' | b':' | b'!' | b'?'))
                            .count() as u32,
                    )
                } else {
                    t.chars().fold((0u32, 0u32), |(n, p), c| {
                        if c.is_whitespace() {
                            (n, p)
                        } else {
                            (n + 1, p + u32::from(is_punct(c)))
                        }
                    })
                };
                if n > 0 {
                    if in_link {
                        if o.text == 0 {
                            open_link = owner;
                        } else if open_link != owner {
                            open_link = u32::MAX;
                        }
                    } else {
                        if open_link == owner {
                            link_flows[owner as usize] = t
                                .trim_start()
                                .starts_with(|c: char| c.is_lowercase() || c == ',');
                        }
                        open_link = u32::MAX;
                    }
                    for f in &mut first_link[pending..] {
                        *f = in_link;
                    }
                    pending = first_link.len();
                    last_owner = owner;
                    last_colon = t.trim_end().ends_with([':', '\u{ff1a}']);
                    if o.text == 0 && !in_link && n <= LABEL_TEXT && last_colon {
                        o.label = true;
                    }
                }
                o.text += n;
                if n <= LANGUAGE_NAME_CHARS && language_name(t) {
                    o.langs = o.langs.saturating_add(1);
                    o.lang_text += n;
                }
                if in_link {
                    o.link += n;
                    // (read only for a labelled block, whose label came first)
                    if o.label {
                        let t = t.trim_start();
                        o.address |= t.starts_with("www.") || t.contains("://");
                    }
                    if let Some(w) = pager_word(t) {
                        o.links = o.links.saturating_add(1);
                        o.pager = o.pager.saturating_add(u16::from(w != Pager::None));
                        o.step = o.step.saturating_add(u16::from(w == Pager::Step));
                    }
                }
                o.punct += punct;
                if !o.cookie
                    && cookie_word().is_match(&**t)
                    && CONSENT_PHRASES
                        .iter()
                        .any(|p| trawl_core::text::contains_ascii_ci(t, p))
                {
                    o.cookie = true;
                }
                if !o.copyright && !in_link && n <= COPYRIGHT_TEXT {
                    o.copyright = t.contains('©')
                        || trawl_core::text::contains_ascii_ci(t, "copyright")
                        || trawl_core::text::contains_ascii_ci(t, "all rights reserved");
                }
                // a consent control's words on a link (`Accept all`, `Reject`; on a button,
                // with the fields above)
                if in_link && !o.control && n <= CONTROL_TEXT {
                    o.control = consent_control(t);
                }
            }
            Node::Document | Node::Fragment => {
                for c in node.children().rev() {
                    stack.push((c, parent, owner, in_link));
                }
            }
            _ => {}
        }
    }
    // structural repetition: signatures of short blocks seen many times
    let mut sig_count: FxHashMap<u64, u32> = FxHashMap::default();
    let mut teaser_count: FxHashMap<u64, u32> = FxHashMap::default();
    for (i, s) in sig.iter().enumerate() {
        if is_blk[i] && own[i].text > 0 && own[i].text < 120 {
            *sig_count.entry(*s).or_default() += 1;
        }
    }
    // teasers: blocks at the same path with a link making up a good part of their text (a
    // headline) repeated down a list; their subtree text counts, so sum own text per parent
    let mut sub_text = vec![0u32; order.len()];
    let mut sub_link = vec![0u32; order.len()];
    for i in (0..order.len()).rev() {
        sub_text[i] += own[i].text;
        sub_link[i] += own[i].link;
        let p = order[i].1;
        if p != u32::MAX {
            sub_text[p as usize] += sub_text[i];
            sub_link[p as usize] += sub_link[i];
        }
    }
    // an item of an introduced list
    let in_intro = |i: usize| {
        els[i].name() == "li" && order[i].1 != u32::MAX && introduced[order[i].1 as usize]
    };
    let teaser = |i: usize| {
        !in_intro(i)
            && is_blk[i]
            && first_link[i]
            // a paragraph that opens with a link in its first sentence is prose (a blog
            // links a paragraph's opening words), not a headline and its blurb
            && !(link_flows[i] && els[i].name() == "p")
            && sub_text[i] >= 40
            && sub_text[i] < 1500
            && sub_link[i] * 100 >= sub_text[i] * 12
            && sub_link[i] * 100 <= sub_text[i] * 90
    };
    for (i, s) in sig.iter().enumerate() {
        if teaser(i) {
            *teaser_count.entry(*s).or_default() += 1;
        }
    }
    let n = order.len();
    // a consent platform's preference centre or banner known by its text, whatever its names
    for (i, _) in consent_dialogs(&order, &own, &els, &sub_text)
        .iter()
        .enumerate()
        .filter(|(_, d)| **d)
    {
        boiler[i] = Boiler::Always;
        cmp[i] = true;
    }
    // language switchers known by their text, whatever their names
    for (i, _) in switchers(&order, &own, &els, &sub_text)
        .iter()
        .enumerate()
        .filter(|(_, s)| **s)
    {
        boiler[i] = Boiler::Strong;
    }
    // pre-order: a subtree is a range of slots ([`subtree`])
    let mut size = vec![1u32; n];
    sum_subtrees(&order, &mut size);
    // links (their texts) in each subtree, which menus, footers and pagers count
    let links = own_sums(&order, &own, |o| o.links);
    // menus known by their shape: a list of sections, each with its dropdown of links
    let trees = menu_trees(&order, &els, &links, (&sub_text, &sub_link));
    // (inside the page's main landmark such a tree is the page's own table of contents: a
    // manual's chapters under the chapter's title)
    let mut in_main = vec![false; n];
    for i in 0..n {
        let p = order[i].1;
        in_main[i] = landmark[i] || (p != u32::MAX && in_main[p as usize]);
    }
    for (i, _) in trees
        .iter()
        .enumerate()
        .filter(|(i, m)| **m && !in_main[*i])
    {
        boiler[i] = Boiler::Strong;
    }
    // footers known by their copyright line and links
    for (i, _) in footers(&order, &size, &own, &els, &links, (&sub_text, &sub_link))
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
    {
        boiler[i] = Boiler::Strong;
    }
    // pagers: left out of the text (a listing's pages, a manual's Prev / Up / Next table)
    for (b, _) in boiler
        .iter_mut()
        .zip(pagers(&order, &els, &own, &links, (&sub_text, &sub_link)))
        .filter(|(_, p)| *p)
    {
        *b = Boiler::Strong;
    }
    // sign-up boxes: left out of the text, and of no weight against the region holding them
    let mut weightless = signup_boxes(&order, &els, &boiler, &fields, &own, (&sub_text, &sub_link));
    // so are labelled pointers to other pages (`Read more: <a>headline</a>` between an
    // article's paragraphs): neither its prose nor a sign of a link list
    for i in pointer_lines(&order, &els, &own, &sub_text, &size) {
        weightless[i] = true;
    }
    for (b, _) in boiler.iter_mut().zip(&weightless).filter(|(_, s)| **s) {
        *b = Boiler::Strong;
    }
    let mut stats: Vec<Stat> = vec![Stat::default(); n];
    for i in 0..n {
        let o = own[i];
        let nonlink = o.text.saturating_sub(o.link) as f32;
        let link = o.link as f32;
        // a list item that annotates its link with a sentence (`<a>Sandbox</a>: get started
        // at no cost.`) is prose at half a sentence's length
        let in_intro = in_intro(i);
        let annotated = els[i].name() == "li" && o.link > 0 && nonlink >= 30.0 && o.punct >= 2;
        let (nonlink, link) = if in_intro {
            (o.text as f32 * 0.5, 0.0)
        } else {
            (nonlink, link)
        };
        let mut v = if o.text == 0 {
            0.0
        } else if (nonlink >= 60.0 || annotated) && o.punct >= 1 {
            nonlink
        } else if nonlink >= 150.0 {
            nonlink * 0.7
        } else {
            nonlink * 0.35
        };
        v -= link * 1.25;
        if o.cookie && o.text < 1500 {
            // a consent notice: prose, but never the content
            v = -(o.text as f32) * 0.5;
        }
        let structured = matches!(
            els[i].name(),
            "h1" | "h2"
                | "h3"
                | "h4"
                | "h5"
                | "h6"
                | "li"
                | "td"
                | "th"
                | "dt"
                | "dd"
                | "figcaption"
                | "caption"
                | "pre"
        );
        if o.text > 0 && o.text < 25 && !structured {
            v -= 6.0;
        }
        // a repeated short item (menus, teasers, tag lists: mostly link text; ingredient and
        // spec lists of plain text are content)
        if o.text > 0
            && o.text < 120
            && has_class[i]
            && !in_intro
            && sig_count.get(&sig[i]).copied().unwrap_or(0) >= 6
            && o.punct <= 1
            && o.link * 2 >= o.text
        {
            v -= 0.5 * o.text as f32;
        }
        // subtree sums (the masses are summed bottom-up below)
        stats[i] = Stat {
            text: sub_text[i],
            link: sub_link[i],
            mass: v,
            boiler: false,
            prose: 0.0,
            intro: introduced[i],
        };
    }
    // a repeated teaser: its whole subtree weighs against the list holding it
    let mut penalty = vec![0f32; n];
    for i in 0..n {
        if teaser(i) && teaser_count.get(&sig[i]).copied().unwrap_or(0) >= 4 {
            penalty[i] = sub_text[i] as f32 * 0.8;
        }
    }
    // sums bottom-up; a boilerplate region's mass turns negative (a region holding most of
    // the page's text is a wrapper whatever its class says: `has-sidebar` on a layout div)
    let total_text: u32 = own.iter().map(|o| o.text).sum::<u32>().max(1);
    for i in 0..n {
        if penalty[i] > 0.0 {
            stats[i].mass = stats[i].mass.min(0.0) - penalty[i] * 0.5;
        }
    }
    // masses as if no region were boilerplate: a region holding (most of) the page's best
    // prose is not boilerplate whatever its class says (`pg-side-of-rail` around a story)
    let mut plain: Vec<f32> = stats.iter().map(|s| s.mass).collect();
    sum_subtrees(&order, &mut plain);
    let top = (0..n)
        .filter(|&i| !matches!(els[i].name(), "html" | "body"))
        .map(|i| plain[i])
        .fold(0f32, f32::max);
    // the best plain mass anywhere in each subtree: a weak region (`render-target-modal`
    // around a story viewer) whose sum is dragged down by link lists next to the story
    // still holds that story
    let mut best_in = plain.clone();
    fold_subtrees(&order, &mut best_in, |p, x| *p = p.max(x));
    let flip: Vec<bool> = (0..n)
        .map(|i| match boiler[i] {
            Boiler::Strong => plain[i] < 0.6 * top,
            Boiler::Always => true,
            // weak words: only regions without much prose
            Boiler::Weak => best_in[i] < 300f32.min(0.3 * top),
            Boiler::No => false,
        })
        .collect();
    let conv = conventions(&order, &weak_words, &sub_text);
    // flip the boilerplate regions (but those `spared`), sum the masses and pick the root
    let resolve = |stats: &mut [Stat], spared: &[bool]| {
        for i in (0..n).rev() {
            if flip[i] && !spared[i] {
                if tracing::enabled!(tracing::Level::TRACE) && stats[i].text >= 100 {
                    tracing::trace!(kind = ?boiler[i], text = stats[i].text, tag = els[i].name(), id = ?els[i].attr("id"), class = ?els[i].attr("class"), "boilerplate region");
                }
                let s = &mut stats[i];
                // a sign-up box or a labelled pointer sits inside articles: its text says
                // nothing of the region around it
                s.mass = if weightless[i] {
                    0.0
                } else {
                    -((s.text - s.link.min(s.text)) as f32 * 0.5 + s.link as f32) - 4.0
                };
                s.boiler = true;
            }
            let p = order[i].1;
            if p != u32::MAX {
                let m = stats[i].mass;
                stats[p as usize].mass += m;
            }
        }
        // inside a boilerplate region is boilerplate too (comment threads are not the root)
        for i in 1..n {
            let p = order[i].1;
            if p != u32::MAX && stats[p as usize].boiler {
                stats[i].boiler = true;
            }
        }
        best_root(
            order
                .iter()
                .enumerate()
                .filter(|(i, _)| els[*i].name() != "html"),
            stats,
            &bonus,
        )
    };
    // a region holding half of the page is a wrapper whatever its class says (but a
    // consent platform's dialog, and a navigation element that is mostly links: a
    // mega-menu, named or known by its shape)
    let single: Vec<bool> = (0..n)
        .map(|i| {
            stats[i].text * 2 >= total_text
                && !cmp[i]
                && els[i].name() != "footer"
                && !(matches!(els[i].name(), "nav" | "menu") && stats[i].link * 2 >= stats[i].text)
                && !trees[i]
        })
        .collect();
    let unflipped = stats.clone();
    let values: Vec<f32> = stats.iter().map(|s| s.mass).collect();
    let mut best = resolve(&mut stats, &single);
    let mut spared = single;
    // a page with little prose of its own outside its boilerplate-named groups (a forum
    // thread's posts, a page builder's widgets) is made of them
    if best.is_none_or(|(_, id)| stats[index[&id] as usize].mass < MAX_LIST_PROSE) {
        // (a region that is itself a link, a card pointing to another post with its blurb,
        // points away from the page: it is never its text)
        let groupable: Vec<bool> = (0..n)
            .map(|i| flip[i] && by_words[i] && els[i].name() != "a")
            .collect();
        let mut blocks = building_blocks(&order, &size, &els, &own, &groupable, total_text);
        if blocks.iter().zip(&spared).any(|(b, s)| *b && !*s) {
            tracing::trace!("boilerplate-named groups hold the page");
            // (a region holding half the page stays a wrapper: the app's root, taken for a
            // footer by the copyright line that closes it)
            for (b, s) in blocks.iter_mut().zip(&spared) {
                *b |= *s;
            }
            stats = unflipped.clone();
            best = resolve(&mut stats, &blocks);
            spared = blocks;
        }
    }
    // A page that marks its main landmark says where its content is: a root outside it (a
    // promotion carousel, a mega-menu) or around it (the body holding both) gives way to the
    // best root inside it, when the landmark holds a share of the root's mass; a root inside
    // it is widened only within it.
    // a skip link's target (`<a href="#content">Skip to content</a>`) is where the page says
    // its content is: a main landmark, whatever its tag
    skip_targets(doc, &order, &els, &sub_text, &mut landmark);
    let main = main_landmark(&size, &stats, &landmark);
    if let (Some(m), Some((_, id))) = (&main, best) {
        let r = index[&id] as usize;
        // (a root known as boilerplate, by its name, tag, role or shape, and spared as the
        // best prose there is, gives way whatever the landmark weighs: a footer's line
        // beside a short page's headings)
        let known = !matches!(boiler[r], Boiler::No);
        if !m.contains(&r) && (known || stats[m.start].mass >= MAIN_SHARE * stats[r].mass) {
            let inner = best_root(
                order.iter().enumerate().skip(m.start).take(m.len()),
                &stats,
                &bonus,
            );
            if inner.is_some() {
                tracing::trace!("the root gives way to the main landmark's");
                best = inner;
            }
        }
    }
    let within = main.filter(|m| best.is_some_and(|(_, id)| m.contains(&(index[&id] as usize))));
    if tracing::enabled!(tracing::Level::TRACE) {
        if let Some((score, id)) = best {
            let i = index[&id] as usize;
            tracing::trace!(score, tag = els[i].name(), id = ?els[i].attr("id"), class = ?els[i].attr("class"), "content root");
        }
        let mut v: Vec<(f32, usize)> = (0..n)
            .filter(|&i| stats[i].mass > 0.0)
            .map(|i| (stats[i].mass, i))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (m, i) in v.iter().take(12) {
            let (s, e) = (stats[*i], els[*i]);
            tracing::trace!(mass = m, text = s.text, link = s.link, boiler = s.boiler, tag = e.name(), id = ?e.attr("id"), class = ?e.attr("class"), "content candidate");
        }
    }
    set_prose(&order, &values, &mut stats);
    let prose = best.map_or(0.0, |(_, id)| stats[index[&id] as usize].mass);
    // a root holding a small share of the page's prose spreads over the page's sections;
    // otherwise it joins its sibling sections of the same shape, if it has any. (The wider
    // root, and whether it was spread.)
    let wider = best.and_then(|(_, id)| {
        let root = index[&id];
        let all = stats.first().map_or(0.0, |s| s.prose);
        // a page that declares no article is as likely a landing page of sections
        let small = if declared.article {
            SPREAD_SMALL
        } else {
            SPREAD_SHARE
        };
        let spread = if prose < MAX_LIST_PROSE || stats[root as usize].prose < small * all {
            spread(&order, &stats, root).map(|w| (w, true))
        } else {
            None
        };
        let thread = if declared.thread {
            thread_posts(&order, &size, &stats, &comp, root)
        } else {
            None
        };
        thread
            .map(|w| (w, false))
            .or(spread)
            .or_else(|| sibling_sections(&order, &size, &stats, &sig, root).map(|w| (w, false)))
    });
    let wider = wider.filter(|(w, _)| within.as_ref().is_none_or(|m| m.contains(&(*w as usize))));
    // a root of hardly any prose inside a main landmark of links, half its text or more (a
    // contents page: a line under the title, then the chapters as links), or inside a short
    // one (a title, a quote and a pointer), is not the text: the landmark is
    let wider = wider.or_else(|| {
        let m = within.as_ref()?;
        let region = &stats[m.start];
        (prose < SMALL_ROOT
            && (region.link * 2 >= region.text || region.text < SHORT_MAIN)
            && m.start != best.map(|(_, id)| index[&id] as usize)?)
        .then_some((m.start as u32, false))
    });
    if let Some((wider, spread)) = wider {
        if tracing::enabled!(tracing::Level::TRACE) {
            let e = els[wider as usize];
            tracing::trace!(spread, tag = e.name(), id = ?e.attr("id"), class = ?e.attr("class"), "content root widened");
        }
        best = best.map(|(s, _)| (s, order[wider as usize].0));
    }
    // regions named by a page builder's convention between prose blocks of the content (a
    // feature box between a service page's paragraphs) are part of it; at its edges (an
    // author box, a call to action, teasers) they stay out
    if let (Some(conv), Some((_, id))) = (&conv, best) {
        let range = subtree(&size, index[&id] as usize);
        let prose_block = |i: &usize| !stats[*i].boiler && values[*i] >= 60.0;
        let first = range.clone().find(prose_block);
        let last = range.clone().rev().find(prose_block);
        if let (Some(first), Some(last)) = (first, last) {
            let mut inner = spared.clone();
            let mut any = false;
            // the end of the outermost region kept (those inside it go with it)
            let mut kept_end = 0;
            for i in first + 1..last {
                if !conv[i] || !flip[i] || spared[i] {
                    continue;
                }
                let end = subtree(&size, i).end;
                let top = order[i].1 == u32::MAX || !stats[order[i].1 as usize].boiler;
                if i < kept_end || (top && end <= last) {
                    inner[i] = true;
                    any = true;
                    kept_end = kept_end.max(end);
                }
            }
            if any {
                tracing::trace!("builder regions inside the content are kept");
                let mut again = unflipped.clone();
                resolve(&mut again, &inner);
                set_prose(&order, &values, &mut again);
                stats = again;
            }
        }
    }
    let code_blocks = (0..n)
        .filter(|&i| els[i].name() == "pre" && sub_text[i] > 0)
        .count() as u32;
    let listing = items(&Items {
        order: &order,
        els: &els,
        sig: &sig,
        is_blk: &is_blk,
        first_link: &first_link,
        sub_text: &sub_text,
        sub_link: &sub_link,
        stats: &stats,
        prose,
        within: within.as_ref(),
    })
    .filter(|l| {
        let Some((_, r)) = best else { return true };
        let (li, ri) = (index[l] as usize, index[&r] as usize);
        // a list beside (not around, not inside) a prose root of several paragraphs is a
        // rail of teasers beside an article, however much text its blurbs hold (a
        // listing's own text is an introduction above its items, or its items' blurbs)
        let apart = !subtree(&size, li).contains(&ri) && !subtree(&size, ri).contains(&li);
        let paragraphs = || {
            subtree(&size, ri)
                .filter(|&j| own[j].text >= RAIL_PARAGRAPH && own[j].link * 5 < own[j].text)
                .count()
        };
        if apart && prose >= RAIL_PROSE && paragraphs() >= RAIL_PARAGRAPHS {
            tracing::trace!("an item list beside the text's paragraphs is a rail");
            return false;
        }
        // a list that ends before the page's title, with the prose root after it: the
        // site's menu above an article (a listing's title heads its items); the title is
        // the first `h1` outside boilerplate, or else the first (a page builder's heading
        // widget may be named like a site's furniture)
        let h1 = |boiler_too: bool| {
            (0..n).find(|&i| els[i].name() == "h1" && (boiler_too || !stats[i].boiler))
        };
        let Some(h) = h1(false).or_else(|| h1(true)) else {
            return true;
        };
        let before = subtree(&size, li).end <= h;
        let root_after = ri >= h || subtree(&size, ri).contains(&h);
        if before && root_after {
            tracing::trace!("an item list before the title is no listing");
        }
        !(before && root_after)
    });
    // a list beside the page's own prose, both inside the main landmark (a shop's front
    // page: a product slider among its sections): the content is what holds both
    let listing = listing.map(|l| {
        let (Some(m), Some((_, r))) = (&within, best) else {
            return l;
        };
        // their nearest common ancestor: the first ancestor of the root whose subtree (a
        // range of slots) holds the list
        let (li, ri) = (index[&l] as usize, index[&r] as usize);
        let mut c = ri;
        while c != u32::MAX as usize && !subtree(&size, c).contains(&li) {
            c = order[c].1 as usize;
        }
        if c != li && c != ri && m.contains(&c) {
            tracing::trace!("the item list joins the prose beside it");
            order[c].0
        } else {
            l
        }
    });
    Scores {
        index,
        stats,
        root: best.map(|(_, id)| id),
        listing,
        prose,
        spread: wider.is_some_and(|(_, spread)| spread),
        code_blocks,
        text: total_text,
        shape,
    }
}

/// Labelled pointers to other pages: a paragraph that is a short label ending in a colon
/// and a link with words (`Read more: <a>Council approves the budget</a>`), set between an
/// article's paragraphs. Lines of that shape one after another, or in a list's items, are a
/// list of their own (`Speaker: <a>talk title</a>` per line), and a link written as an address
/// (`Download: <a>https://…</a>`) is the text itself: neither is a pointer.
fn pointer_lines(
    order: &[(NodeId, u32)],
    els: &[&scraper::node::Element],
    own: &[Own],
    sub_text: &[u32],
    size: &[u32],
) -> Vec<usize> {
    let shaped = |i: usize| {
        let o = &own[i];
        o.label
            && !o.address
            && matches!(els[i].name(), "p" | "div")
            && order[i].1 != u32::MAX
            && !matches!(els[order[i].1 as usize].name(), "li" | "dd" | "td" | "th")
            && sub_text[i] == o.text
            && (1..=2).contains(&o.links)
            && o.link >= 15
            && o.text - o.link <= LABEL_TEXT
    };
    // (few blocks on a page are of the shape: their slots, in order)
    let lines: Vec<usize> = (0..order.len()).filter(|&i| shaped(i)).collect();
    let next_of = |i: usize| {
        let next = i + size[i] as usize;
        (next < order.len() && order[next].1 == order[i].1).then_some(next)
    };
    let listed = |i: usize| {
        next_of(i).is_some_and(|x| lines.binary_search(&x).is_ok())
            || lines
                .iter()
                .take_while(|&&p| p < i)
                .any(|&p| next_of(p) == Some(i))
    };
    lines.iter().copied().filter(|&i| !listed(i)).collect()
}

/// Non-space characters of a label before a link (`Read more:`, `Lesen Sie auch:`).
const LABEL_TEXT: u32 = 24;

/// Non-space characters a block needs for its closing colon to introduce a list (a
/// sentence, not a `Read more:` label).
const INTRO_TEXT: u32 = 40;

/// Weak words a page builder puts on every component (`elementor-widget`,
/// `elementor-widget-container` around each heading, paragraph and feature box): a word on
/// [`CONVENTION_ELEMENTS`] elements or more whose outermost ones hold half the page's text
/// or more names the framework's parts, not boilerplate regions. Returns, per element,
/// whether such words alone make it a weak region (`None`: the page has no such word).
/// (A sidebar's `widget` boxes hold a small part of the text.)
fn conventions(order: &[(NodeId, u32)], weak_words: &[u16], sub_text: &[u32]) -> Option<Vec<bool>> {
    if weak_words.iter().all(|w| *w == 0) {
        return None;
    }
    let n = order.len();
    let mut count = [0u32; 16];
    let mut cover = [0u32; 16];
    // the weak words of each element's ancestors
    let mut above = vec![0u16; n];
    for i in 0..n {
        let p = order[i].1;
        if p != u32::MAX {
            above[i] = above[p as usize] | weak_words[p as usize];
        }
        let w = weak_words[i];
        if w == 0 {
            continue;
        }
        for (k, (c, v)) in count.iter_mut().zip(&mut cover).enumerate() {
            if w & (1 << k) != 0 {
                *c += 1;
                if above[i] & (1 << k) == 0 {
                    *v += sub_text[i];
                }
            }
        }
    }
    let total = sub_text.first().copied().unwrap_or(0);
    let mut conv = 0u16;
    for k in 0..16 {
        if count[k] >= CONVENTION_ELEMENTS && cover[k] * 2 >= total && total > 0 {
            conv |= 1 << k;
        }
    }
    (conv != 0).then(|| {
        weak_words
            .iter()
            .map(|w| *w != 0 && *w & !conv == 0)
            .collect()
    })
}

/// Sets each element's `prose`: the positive block values (`values`, each block's own)
/// outside boilerplate in its subtree.
fn set_prose(order: &[(NodeId, u32)], values: &[f32], stats: &mut [Stat]) {
    let mut prose_in: Vec<f32> = stats
        .iter()
        .zip(values)
        .map(|(s, v)| if s.boiler { 0.0 } else { v.max(0.0) })
        .collect();
    sum_subtrees(order, &mut prose_in);
    for (s, p) in stats.iter_mut().zip(prose_in) {
        s.prose = p;
    }
}

/// Adds each element's value into its parent's, children first (the elements are in
/// pre-order): afterwards each holds the sum over its subtree.
fn sum_subtrees<T: Copy + std::ops::AddAssign>(order: &[(NodeId, u32)], v: &mut [T]) {
    fold_subtrees(order, v, |p, x| *p += x);
}

/// Folds each element's value into its parent's with `f`, children first (the elements are
/// in pre-order): afterwards each holds the fold over its subtree (a sum, a maximum).
fn fold_subtrees<T: Copy>(order: &[(NodeId, u32)], v: &mut [T], f: impl Fn(&mut T, T)) {
    for i in (1..order.len()).rev() {
        let p = order[i].1;
        if p != u32::MAX {
            let x = v[i];
            f(&mut v[p as usize], x);
        }
    }
}

/// On a page without a main landmark, marks as landmarks the elements skip links point to
/// ([`skip_link`]): for `<a href="#main-content">Skip to main content</a>`, the element
/// whose id is `main-content`; not an empty target (a mark where the content starts),
/// which would stand for no region.
fn skip_targets(
    doc: &Html,
    order: &[(NodeId, u32)],
    els: &[&scraper::node::Element],
    sub_text: &[u32],
    landmark: &mut [bool],
) {
    // (a page that marks its main landmark has said where its content is: a skip link on it
    // may lead to a part of it, a product's summary beside its description)
    if landmark.iter().any(|l| *l) {
        return;
    }
    let mut targets: Vec<&str> = Vec::new();
    for (i, e) in els.iter().enumerate() {
        if e.name() != "a" {
            continue;
        }
        let Some(target) = e
            .attr("href")
            .and_then(|h| h.trim().strip_prefix('#'))
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        let text: String = doc
            .tree
            .get(order[i].0)
            .and_then(ElementRef::wrap)
            .map(|a| a.text().collect())
            .unwrap_or_default();
        if skip_link(&text) {
            targets.push(target);
        }
    }
    if targets.is_empty() {
        return;
    }
    for (i, e) in els.iter().enumerate() {
        if sub_text[i] > 0 && e.attr("id").is_some_and(|id| targets.contains(&id)) {
            tracing::trace!(tag = e.name(), id = ?e.attr("id"), "a skip link's target");
            landmark[i] = true;
        }
    }
}

/// Whether a link's text is a skip link's that leads to the content (`Skip to main
/// content`, `Zum Inhalt springen`, `本文へスキップ`), not to a menu or a footer.
fn skip_link(text: &str) -> bool {
    let t = text.trim();
    if t.len() > SKIP_LINK_BYTES {
        return false;
    }
    let t = t.to_lowercase();
    SKIP_LINKS.iter().any(|s| t.contains(s))
}

/// Bytes of a skip link's text at most.
const SKIP_LINK_BYTES: usize = 80;

/// What a skip link to the content says, lowercase, in the languages of the benchmarks and
/// beyond (found anywhere in its text).
const SKIP_LINKS: &[&str] = &[
    "skip to content",
    "skip to main",
    "skip to the content",
    "skip to the main",
    "skip to article",
    "skip to primary content",
    "skip navigation",
    "jump to content",
    "jump to main",
    "go to content",
    "go to main content",
    "zum inhalt",
    "zum hauptinhalt",
    "zum seiteninhalt",
    "aller au contenu",
    "passer au contenu",
    "ir al contenido",
    "saltar al contenido",
    "vai al contenuto",
    "salta al contenuto",
    "naar de inhoud",
    "naar inhoud",
    "przejdź do treści",
    "pular para o conteúdo",
    "ir para o conteúdo",
    "перейти к содержимому",
    "перейти к основному",
    "hoppa till innehåll",
    "gå til indhold",
    "siirry sisältöön",
    "本文へ",
    "跳到主要内容",
    "跳至主要內容",
    "跳转到主要内容",
    "본문 바로가기",
];

/// Share of the root's mass the main landmark needs to hold for the root to move into it.
const MAIN_SHARE: f32 = 0.25;

/// The page's main landmark (`<main>`, role=main; the one of greatest mass if several), as
/// its range of slots (pre-order: a subtree is a range).
fn main_landmark(
    size: &[u32],
    stats: &[Stat],
    landmark: &[bool],
) -> Option<std::ops::Range<usize>> {
    let main = (0..size.len())
        .filter(|&i| landmark[i] && !stats[i].boiler)
        .max_by(|&a, &b| stats[a].mass.total_cmp(&stats[b].mass))?;
    Some(subtree(size, main))
}

/// The content root among `candidates` (slot, (node, parent)): greatest mass with its
/// semantic bonus, never a boilerplate region; the last of equals (the deepest).
fn best_root<'a>(
    candidates: impl Iterator<Item = (usize, &'a (NodeId, u32))>,
    stats: &[Stat],
    bonus: &[f32],
) -> Option<(f32, NodeId)> {
    let mut best: Option<(f32, NodeId)> = None;
    for (i, (id, _)) in candidates {
        let s = stats[i];
        if s.boiler || s.mass <= 0.0 {
            continue;
        }
        let score = s.mass * (1.0 + bonus[i]);
        if best.is_none_or(|(b, _)| score >= b) {
            best = Some((score, *id));
        }
    }
    best
}

/// Boilerplate regions that are the page's building blocks: when the regions sharing one
/// tag and class (`comment`, `elementor-widget-container`, `post-body`) together hold half
/// of the page's visible text, the class names what the page is made of (a forum thread's
/// posts, a page builder's widgets), not what surrounds the content. Returns, per element,
/// whether it belongs to such a group (nested regions of one group are counted once).
fn building_blocks(
    order: &[(NodeId, u32)],
    size: &[u32],
    els: &[&scraper::node::Element],
    own: &[Own],
    flip: &[bool],
    total_text: u32,
) -> Vec<bool> {
    let n = order.len();
    let mut prefix = vec![0u64; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + u64::from(own[i].text);
    }
    let key = |i: usize| {
        let e = els[i];
        let mut h = rustc_hash::FxHasher::default();
        std::hash::Hash::hash(e.name(), &mut h);
        for c in crate::dom::attr(e, "class")
            .unwrap_or("")
            .split_ascii_whitespace()
        {
            std::hash::Hash::hash(c, &mut h);
        }
        std::hash::Hasher::finish(&h)
    };
    // per group: text under the union of its regions (pre-order, so a nested region
    // starts before the end of the one holding it)
    let mut groups: FxHashMap<u64, (u64, usize)> = FxHashMap::default();
    let mut keys = vec![0u64; n];
    for i in 0..n {
        if !flip[i] {
            continue;
        }
        keys[i] = key(i);
        let end = subtree(size, i).end;
        let g = groups.entry(keys[i]).or_insert((0, 0));
        if i >= g.1 {
            g.0 += prefix[end] - prefix[i];
            g.1 = end;
        }
    }
    if tracing::enabled!(tracing::Level::TRACE) {
        for i in 0..n {
            if flip[i] && groups[&keys[i]].0 * 5 >= u64::from(total_text) {
                tracing::trace!(text = groups[&keys[i]].0, total_text, tag = els[i].name(), class = ?els[i].attr("class"), "boilerplate-named group");
            }
        }
    }
    (0..n)
        .map(|i| {
            flip[i] && {
                let g = groups[&keys[i]];
                g.0 * 2 >= u64::from(total_text)
            }
        })
        .collect()
}

/// Share of the page's prose (outside boilerplate) below which a small content root gives
/// way to an ancestor holding the rest (0.5 and 0.8 tried: the tuning part was within 0.001
/// of 0.65 for both, and 0.8 lost snippet F1 on the 392 pages' tuning part).
const SPREAD_SHARE: f32 = 0.65;
/// Share of the page's prose below which a root of any size spreads: one section of many.
const SPREAD_SMALL: f32 = 0.2;
/// Share of the page's prose the wider root must hold (0.7 before; 0.8 and 0.95 tried, the
/// tuning part rose from 0.7 to 0.9 and was flat after).
const SPREAD_COVER: f32 = 0.9;

/// Landing, service and builder pages spread their text over many sections of similar
/// weight (a feature, a pricing table, a FAQ), separated by headings, buttons and images
/// that cost more than one section's prose brings, so the best root is one section. When
/// that root holds under [`SPREAD_SHARE`] of the page's prose (the positive block values
/// outside boilerplate regions), the tightest ancestor holding [`SPREAD_COVER`] of it is the
/// content; the walker still drops the link lists and boilerplate inside it. Only for pages
/// without an article-sized root (the caller checks).
fn spread(order: &[(NodeId, u32)], stats: &[Stat], root: u32) -> Option<u32> {
    let pos = |i: u32| stats[i as usize].prose;
    let all = stats.first().map_or(0.0, |s| s.prose);
    if all <= 0.0 || pos(root) >= SPREAD_SHARE * all {
        return None;
    }
    let mut at = root;
    while pos(at) < SPREAD_COVER * all {
        at = order[at as usize].1;
        if at == u32::MAX {
            return None;
        }
    }
    Some(at)
}

/// Mass of a root (about its characters of sentence text) below which, inside a main
/// landmark of links or a short one ([`SHORT_MAIN`]), the landmark is the content
/// ([`score`]).
const SMALL_ROOT: f32 = 100.0;

/// Characters of a main landmark below which it is the whole of a short page's content.
const SHORT_MAIN: u32 = 400;

/// Share of the root's prose a sibling of the same tag and class needs to join it.
const SIBLING_SHARE: f32 = 0.25;

/// A long page cut into sections of one shape (`<section class="doc-section">` per heading of
/// a reference page, one `<div class="chapter">` each): the root is the largest, and its
/// siblings of the same tag-and-class path holding a good share of its prose are the rest of
/// the text, so the parent holding them is the content.
///
/// A root shorter than an article may be the body of one section (a forum post's text inside
/// its post block): its ancestors that add little prose to it (a tenth at most) are tried the
/// same way.
fn sibling_sections(
    order: &[(NodeId, u32)],
    size: &[u32],
    stats: &[Stat],
    sig: &[u64],
    root: u32,
) -> Option<u32> {
    let prose = stats[root as usize].prose;
    let mut r = root as usize;
    loop {
        let parent = order[r].1;
        if parent == u32::MAX || stats[parent as usize].boiler {
            return None;
        }
        // the parent's children: its first slot after it, then each next one past the
        // previous child's subtree
        let p = parent as usize;
        let end = subtree(size, p).end;
        let mut children =
            std::iter::successors(Some(p + 1), |&c| size.get(c).map(|&s| c + s as usize))
                .take_while(|&c| c < end);
        let joins = children.any(|i| {
            i != r
                && sig[i] == sig[r]
                && !stats[i].boiler
                && stats[i].prose >= SIBLING_SHARE * prose
                && stats[i].mass >= SIBLING_SHARE * stats[r].mass
        });
        if joins {
            return Some(parent);
        }
        // (a long root stays put: a stream of articles repeats the block holding it; but
        // a wrapper that adds no prose to it is the same block)
        let adds = stats[parent as usize].prose - prose;
        if (prose >= MAX_LIST_PROSE && adds > 0.0) || adds > 0.1 * prose {
            return None;
        }
        r = parent as usize;
    }
}

/// A thread's posts: the root is one post's body (the question, the longest answer), and
/// the other posts are elements of the same component (tag and first class token: the
/// `s-prose` of every answer, each post's `messageContent`), wherever they sit: the
/// question and the answers often hang under different parents. The component is taken
/// from the root or the nearest ancestor that adds little prose to it (the post block
/// around the body), and the content is the nearest element holding every post of it.
/// Only for pages that declare a thread (the caller checks): elsewhere a repeated body
/// class is as likely the next story of an infinite scroll.
fn thread_posts(
    order: &[(NodeId, u32)],
    size: &[u32],
    stats: &[Stat],
    comp: &[u64],
    root: u32,
) -> Option<u32> {
    let prose = stats[root as usize].prose;
    // the root and its ancestors that add little prose to it, those with a component
    let mut chain: Vec<usize> = Vec::new();
    let mut at = root as usize;
    loop {
        if comp[at] != 0 {
            chain.push(at);
        }
        let parent = order[at].1;
        if parent == u32::MAX || stats[parent as usize].prose > 1.1 * prose {
            break;
        }
        at = parent as usize;
    }
    // per component of the chain, in one pass: the posts not nested in another post of it (a
    // quote inside a post counts once), the first and the last, where the open post ends
    let mut posts: FxHashMap<u64, (u32, usize, usize, usize)> = chain
        .iter()
        .map(|&c| (comp[c], (0, usize::MAX, 0, 0)))
        .collect();
    for i in 0..order.len() {
        if comp[i] == 0 || stats[i].boiler || stats[i].prose <= 0.0 {
            continue;
        }
        if let Some(g) = posts.get_mut(&comp[i]) {
            if i >= g.3 {
                g.0 += 1;
                g.3 = subtree(size, i).end;
            }
            g.1 = g.1.min(i);
            g.2 = i;
        }
    }
    let at = chain.into_iter().find(|c| posts[&comp[*c]].0 >= 2)?;
    let (_, first, last, _) = posts[&comp[at]];
    // the nearest element holding the first and the last post holds every post between them
    // (a subtree is a range of slots)
    let mut c = first;
    while !subtree(size, c).contains(&last) {
        let p = order[c].1;
        if p == u32::MAX {
            return None;
        }
        c = p as usize;
    }
    (!stats[c].boiler && c != at).then_some(c as u32)
}

/// What [`items`] reads of the scoring pass.
struct Items<'a> {
    order: &'a [(NodeId, u32)],
    els: &'a [&'a scraper::node::Element],
    sig: &'a [u64],
    is_blk: &'a [bool],
    first_link: &'a [bool],
    sub_text: &'a [u32],
    sub_link: &'a [u32],
    stats: &'a [Stat],
    /// The mass of the prose root the article rules chose.
    prose: f32,
    /// The main landmark's slots, when it holds that root: items outside it do not count.
    within: Option<&'a std::ops::Range<usize>>,
}

/// Non-space characters of a paragraph, at least (a fifth of them or less under links),
/// as [`RAIL_PARAGRAPHS`] counts them.
const RAIL_PARAGRAPH: u32 = 80;
/// Paragraphs a prose root holds, at least, for an item list beside it to be a rail of
/// teasers, not the page ([`score`]).
const RAIL_PARAGRAPHS: usize = 5;
/// Mass of such a prose root, at least (a listing's introduction weighs less).
const RAIL_PROSE: f32 = 500.0;

/// Percent of a group's item text under links, at least, for its items to be links alone
/// ([`items`]).
const LINKS_ALONE: u32 = 95;

/// Whether a region's (or a group's) text is links alone ([`LINKS_ALONE`]).
fn links_alone(text: u32, links: u32) -> bool {
    links * 100 >= text * LINKS_ALONE
}

/// Percent of a group's item text under links, at most, for its items to say more than
/// their links ([`items`]).
const BLURBS: u32 = 80;

/// Items fewer than this in a group are not a list.
const MIN_ITEMS: u32 = 5;
/// Characters of item text below which a page is never read as a list.
const MIN_ITEM_TEXT: u32 = 300;
/// A page whose best prose root has at least this mass (about this many characters of
/// sentence text) is read as prose whatever lists surround it: teaser rails and related
/// links beside an article often hold more text than the article.
const MAX_LIST_PROSE: f32 = 1000.0;

/// Listing, category, collection and search pages: the content is a list of items, each a
/// block that starts with a link (a headline, a product name) and has a little text with
/// it, repeated with the same tag-and-class path. The article rules count such items
/// against their container (teaser lists beside an article are boilerplate); here, when
/// the best prose root is small and the repeated items outweigh it, the tightest element
/// holding (80% of) them becomes the content root. Items inside boilerplate regions (menus,
/// footers) never count, nor, on a page whose main landmark holds the prose root, items
/// outside it (a menu written without `nav` or a name, a footer's link boxes).
fn items(x: &Items<'_>) -> Option<NodeId> {
    let n = x.order.len();
    let is_item = |i: usize| {
        x.is_blk[i]
            && !x.stats[i].boiler
            && x.first_link[i]
            && (20..2000).contains(&x.sub_text[i])
            && x.sub_link[i] * 100 >= x.sub_text[i] * 12
            && !is_heading(x.els[i].name())
            && x.within.is_none_or(|m| m.contains(&i))
    };
    // (items, their text, their link text, the first's slot)
    let mut groups: FxHashMap<u64, (u32, u32, u32, usize)> = FxHashMap::default();
    for i in 0..n {
        if is_item(i) {
            let g = groups.entry(x.sig[i]).or_insert((0, 0, 0, i));
            g.0 += 1;
            g.1 += x.sub_text[i];
            g.2 += x.sub_link[i];
        }
    }
    if x.prose >= MAX_LIST_PROSE {
        return None;
    }
    let (best, best_links) = groups
        .values()
        .filter(|g| g.0 >= MIN_ITEMS)
        .map(|g| (g.1, g.2))
        .max()?;
    if best < MIN_ITEM_TEXT {
        return None;
    }
    // every sizeable group counts (a page of sections, each its own list), but for links
    // alone beside items that say more than their links and twice as much (a menu beside a
    // page of headlines and blurbs, of posts; not a list of headlines as long as the rail of
    // teasers beside it)
    let blurbs = best_links * 100 <= best * BLURBS;
    if tracing::enabled!(tracing::Level::TRACE) {
        for g in groups.values().filter(|g| g.0 >= MIN_ITEMS) {
            let e = x.els[g.3];
            tracing::trace!(items = g.0, text = g.1, links = g.2, tag = e.name(), class = ?e.attr("class"), "item group");
        }
    }
    let member = |i: usize| {
        is_item(i)
            && groups.get(&x.sig[i]).is_some_and(|g| {
                g.0 >= MIN_ITEMS
                    && g.1 * 4 >= best
                    && !(blurbs && g.1 * 2 < best && links_alone(g.1, g.2))
            })
    };
    // an item inside another item (a card's inner block) is counted with its outer item
    let mut inside = vec![false; n];
    for i in 0..n {
        let p = x.order[i].1;
        if p != u32::MAX {
            inside[i] = inside[p as usize] || member(p as usize);
        }
    }
    let mut in_sub = vec![0u32; n];
    let mut total = 0u32;
    for i in (0..n).rev() {
        if member(i) && !inside[i] {
            in_sub[i] += x.sub_text[i];
            total += x.sub_text[i];
        }
        let p = x.order[i].1;
        if p != u32::MAX {
            in_sub[p as usize] += in_sub[i];
        }
    }
    if (total as f32) < x.prose {
        return None;
    }
    // the deepest element holding 80% of the item text (those elements form one chain of
    // ancestors, so the last in document order is the deepest)
    let at = (0..n)
        .rev()
        .find(|&i| in_sub[i] as f32 >= 0.8 * total as f32)?;
    if tracing::enabled!(tracing::Level::TRACE) {
        let e = x.els[at];
        tracing::trace!(total, prose = x.prose, tag = e.name(), id = ?e.attr("id"), class = ?e.attr("class"), "item list root");
    }
    Some(x.order[at].0)
}
