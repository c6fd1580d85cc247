//! What kind of page this is: article, forum or Q&A thread, product, collection (a grid of
//! products), listing (an index of items), documentation, service (landing pages, company
//! and pricing pages) or other; from what the page declares (schema.org types in JSON-LD
//! and microdata, `og:type`) first, then from its DOM (a list of repeated items, code
//! blocks, how much prose). Recorded as `meta.page_type` with a confidence, counted per
//! type in the stats.

use serde::{Deserialize, Serialize};

/// A page type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageType {
    /// News, blog posts, essays, recipes: one body of prose.
    Article,
    /// A discussion thread or a question with answers.
    Forum,
    /// One product: name, description, specifications.
    Product,
    /// A grid of products (a shop's category page).
    Collection,
    /// An index of items: section fronts, search results, lists of links with blurbs.
    Listing,
    /// Reference and technical documentation.
    Documentation,
    /// Landing, company, feature and pricing pages.
    Service,
    /// Too little on the page to tell.
    Other,
}

impl PageType {
    /// Every type, in a fixed order (stats and reports).
    pub const ALL: [PageType; 8] = [
        PageType::Article,
        PageType::Forum,
        PageType::Product,
        PageType::Collection,
        PageType::Listing,
        PageType::Documentation,
        PageType::Service,
        PageType::Other,
    ];

    /// The snake_case name (`meta.page_type`).
    pub fn as_str(self) -> &'static str {
        match self {
            PageType::Article => "article",
            PageType::Forum => "forum",
            PageType::Product => "product",
            PageType::Collection => "collection",
            PageType::Listing => "listing",
            PageType::Documentation => "documentation",
            PageType::Service => "service",
            PageType::Other => "other",
        }
    }
}

/// What the classifier reads.
#[derive(Debug, Default)]
pub(crate) struct Evidence<'a> {
    /// schema.org types, lowercased, with counts.
    pub types: &'a [(String, u32)],
    /// `og:type`, lowercased.
    pub og_type: Option<&'a str>,
    /// The page holds a list of repeated items that outweighs its prose.
    pub listing: bool,
    /// Mass of the best prose root (about its characters of sentence text).
    pub prose: f32,
    /// `<pre>` blocks with text in the body.
    pub code_blocks: u32,
    /// Visible characters in the body.
    pub text: u32,
    /// The page says it is documentation: its site generator is a documentation
    /// generator, or its URL is a documentation URL (see [`docs_signal`]).
    pub docs: bool,
    /// The page's URL is a landing page's: a site's front page or a section of its
    /// offerings, and no article's (see [`landing_signal`]).
    pub landing: bool,
    /// The page's URL is a forum thread's (see [`forum_signal`]).
    pub forum: bool,
    /// The page's URL is an index's: a listing's or a shop's collection (see
    /// [`index_signal`]).
    pub index: Option<PageType>,
    /// The page's visible elements and prices (counted in the score pass).
    pub shape: Shape,
    /// Characters of link text in the body.
    pub link: u32,
    /// Characters of text under the content root.
    pub root_text: u32,
    /// The page states a publication date / an author.
    pub published: bool,
    pub author: bool,
    /// Every product the page declares is bare (see `PageMeta::bare_products`).
    pub bare_products: bool,
    /// The page's URL: path segments, words in the last one, a year among them.
    pub url: UrlShape,
}

/// What the classifier reads of the page's URL (the first of [`page_urls`]).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct UrlShape {
    pub depth: u32,
    pub slug_words: u32,
    pub dated: bool,
}

impl UrlShape {
    pub(crate) fn of(urls: &[url::Url]) -> UrlShape {
        urls.first().map_or_else(UrlShape::default, |u| {
            let segs = segments(u);
            UrlShape {
                depth: segs.len() as u32,
                slug_words: segs.last().map_or(0, |l| {
                    l.split(['-', '_', '.']).filter(|w| !w.is_empty()).count() as u32
                }),
                dated: segs.iter().any(|s| year(s)),
            }
        })
    }
}

/// How many numbers the classifier's model reads of a page.
pub(crate) const FEATURES: usize = 47;

/// The page's evidence as named numbers (the model's columns, in order): counts on a log
/// scale, shares in 0..1, flags 0 or 1.
pub(crate) fn named_features(e: &Evidence<'_>) -> [(&'static str, f32); FEATURES] {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let log = |n: f32| (1.0 + n.max(0.0)).ln();
    let text = e.text as f32;
    let share = |n: f32| {
        if text > 0.0 {
            (n / text).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let og = e.og_type.unwrap_or("");
    let sh = &e.shape;
    [
        ("forum_types", flag(e.count(FORUM_TYPES) > 0)),
        ("product_types", log(e.count(PRODUCT_TYPES) as f32)),
        ("list_types", flag(e.count(LIST_TYPES) > 0)),
        ("doc_types", flag(e.count(DOC_TYPES) > 0)),
        ("article_types", flag(e.count(ARTICLE_TYPES) > 0)),
        (
            "service_types",
            flag(e.count(SERVICE_TYPES) > e.count(&["faqpage"])),
        ),
        ("faq_page", flag(e.count(&["faqpage"]) > 0)),
        ("comments", log(e.count(&["comment"]) as f32)),
        ("og_article", flag(og == "article")),
        ("og_product", flag(og.contains("product"))),
        ("og_website", flag(og == "website")),
        ("item_list", flag(e.listing)),
        ("prose", log(e.prose)),
        ("text", log(text)),
        ("prose_share", share(e.prose)),
        ("code_blocks", log(e.code_blocks as f32)),
        ("docs_signal", flag(e.docs)),
        ("landing_url", flag(e.landing)),
        ("forum_url", flag(e.forum)),
        ("listing_url", flag(e.index == Some(PageType::Listing))),
        (
            "collection_url",
            flag(e.index == Some(PageType::Collection)),
        ),
        ("published", flag(e.published)),
        ("author", flag(e.author)),
        ("bare_products", flag(e.bare_products)),
        ("url_depth", log(e.url.depth as f32)),
        ("slug_words", log(e.url.slug_words as f32)),
        ("dated_url", flag(e.url.dated)),
        ("front_page", flag(e.url.depth == 0)),
        ("h1", log(sh.h1 as f32)),
        ("h2", log(sh.h2 as f32)),
        ("h3", log(sh.h3 as f32)),
        ("p", log(sh.p as f32)),
        ("li", log(sh.li as f32)),
        ("a", log(sh.a as f32)),
        ("img", log(sh.img as f32)),
        ("form", log(sh.form as f32)),
        ("table", log(sh.table as f32)),
        ("article", log(sh.article as f32)),
        ("time", log(sh.time as f32)),
        ("section", log(sh.section as f32)),
        ("nav", log(sh.nav as f32)),
        ("blockquote", log(sh.blockquote as f32)),
        ("prices", log(sh.prices as f32)),
        ("link_share", share(e.link as f32)),
        ("root_share", share(e.root_text as f32)),
        ("text_per_p", log(text / (sh.p as f32 + 1.0))),
        ("links_per_kchar", log(1000.0 * sh.a as f32 / (text + 1.0))),
    ]
}

/// [`named_features`]' values: the model's input.
pub(crate) fn features(e: &Evidence<'_>) -> [f32; FEATURES] {
    named_features(e).map(|(_, v)| v)
}

/// Site generators that build documentation (`<meta name="generator">`), as words in the
/// lowercased value.
const DOC_GENERATORS: &[&str] = &[
    "antora",
    "bookdown",
    "docsy",
    "docusaurus",
    "docutils",
    "doxygen",
    "gitbook",
    "javadoc",
    "mdbook",
    "mkdocs",
    "nextra",
    "rustdoc",
    "sphinx",
    "starlight",
    "vitepress",
];

/// First host labels of documentation sites (`docs.`, `developer.`).
const DOC_HOSTS: &[&str] = &["doc", "docs", "developer", "developers", "devdocs"];

/// Path segments (among the first three) of documentation sections (`/docs/`, `/manual/`).
const DOC_PATHS: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "handbook",
    "manual",
    "reference",
];

/// Whether the page says it is documentation: built by a documentation generator, or at a
/// documentation URL (its own URL, its canonical URL or its `og:url`: a page saved to a file
/// still names where it lives) outside a blog or news section.
pub(crate) fn docs_signal(meta: &crate::meta::PageMeta, urls: &[url::Url]) -> bool {
    let generator = meta.generator.as_deref().is_some_and(|g| {
        g.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| DOC_GENERATORS.contains(&w))
    });
    let docs_url = |u: &url::Url| {
        first_label_in(u, DOC_HOSTS)
            || u.path_segments().is_some_and(|mut s| {
                s.by_ref()
                    .take(3)
                    .any(|seg| DOC_PATHS.contains(&seg.to_ascii_lowercase().as_str()))
            })
    };
    // a blog or news section of a documentation host (`developer.example.com/blog/...`)
    let blog = |u: &url::Url| {
        segments(u)
            .iter()
            .any(|seg| ARTICLE_PATHS.contains(&seg.as_str()) || year(seg))
    };
    generator || urls.iter().any(|u| docs_url(u) && !blog(u))
}

/// The page's web addresses: its own URL, its canonical URL and its `og:url` (a page saved
/// to a file still names where it lives), those over HTTP(S): parsed once for the signals
/// below.
pub(crate) fn page_urls(meta: &crate::meta::PageMeta, url: Option<&url::Url>) -> Vec<url::Url> {
    let declared = [&meta.canonical_url, &meta.og_url]
        .into_iter()
        .filter_map(|u| url::Url::parse(u.as_deref()?).ok());
    url.cloned()
        .into_iter()
        .chain(declared)
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .collect()
}

/// Path segments (among the first three) of the sections where a site presents what it
/// offers (`/services/`, `/solutions/`, `/pricing`).
const LANDING_PATHS: &[&str] = &[
    "capabilities",
    "consulting",
    "expertise",
    "features",
    "platform",
    "pricing",
    "service",
    "services",
    "solution",
    "solutions",
    "what-we-do",
];

/// First host labels of forum sites (`forum.`, `bbs.`, `community.`).
const FORUM_HOSTS: &[&str] = &[
    "bbs",
    "board",
    "boards",
    "community",
    "discourse",
    "discuss",
    "discussion",
    "discussions",
    "forum",
    "forums",
];

/// Path segments of a forum thread (`/threads/<slug>`, phpBB's `viewtopic.php`, vBulletin's
/// `showthread.php`, a subreddit's `/comments/`).
const THREAD_PATHS: &[&str] = &[
    "comments",
    "showthread.php",
    "thread",
    "threads",
    "viewtopic.php",
];

/// Whether the page's URL is a forum thread's: on a forum host (`forum.`, `bbs.`,
/// `community.`, ...) or at a thread path (`/threads/`, `viewtopic.php`, `showthread.php`,
/// a subreddit's `/comments/`, Discourse's `/t/<slug>`).
pub(crate) fn forum_signal(urls: &[url::Url]) -> bool {
    urls.iter().any(|u| {
        let segs = segments(u);
        first_label_in(u, FORUM_HOSTS)
            || segs.iter().any(|s| THREAD_PATHS.contains(&s.as_str()))
            || (segs.len() >= 2 && segs[0] == "t")
    })
}

/// Last path segments of a section's index (`/news`, `/blog/`).
const INDEX_LAST: &[&str] = &[
    "articles", "blog", "blogs", "episodes", "events", "news", "podcasts", "posts", "reviews",
    "stories",
];
/// Path segments of an index of articles (`/category/...`, `/tag/...`).
const LISTING_PATHS: &[&str] = &[
    "archive",
    "archives",
    "categories",
    "category",
    "hub",
    "tag",
    "tags",
];
/// Path segments of a shop's collection (`/collections/...`, `/browse/...`).
const COLLECTION_PATHS: &[&str] = &["browse", "collections"];

/// Whether the page's URL is an index's: a section's index (`/news`, `/blog/`) or a
/// category or tag archive (a listing), or a shop's collection (`/collections/`,
/// `/browse/`, `/c/...`, `/shop`); not when the URL is also an article's (a year in the
/// path, a slug of many words).
pub(crate) fn index_signal(urls: &[url::Url]) -> Option<PageType> {
    urls.iter().find_map(|u| {
        let segs = segments(u);
        let last = segs.last().map(String::as_str);
        // a dated path or an article's slug: an article filed under the section
        if segs.iter().any(|s| year(s)) || last.is_some_and(slug) {
            return None;
        }
        if segs.iter().any(|s| COLLECTION_PATHS.contains(&s.as_str()))
            || (segs.len() >= 2 && segs[0] == "c")
            || last == Some("shop")
        {
            Some(PageType::Collection)
        } else if last.is_some_and(|l| INDEX_LAST.contains(&l))
            || segs.iter().any(|s| LISTING_PATHS.contains(&s.as_str()))
        {
            Some(PageType::Listing)
        } else {
            None
        }
    })
}

/// Whether the URL's host starts with one of `labels` (`docs.`, `forum.`).
fn first_label_in(u: &url::Url, labels: &[&str]) -> bool {
    u.host_str()
        .and_then(|h| h.split('.').next())
        .is_some_and(|l| labels.contains(&l.to_ascii_lowercase().as_str()))
}

/// The URL's non-empty path segments, lowercased.
fn segments(u: &url::Url) -> Vec<String> {
    u.path_segments()
        .map(|s| {
            s.filter(|s| !s.is_empty())
                .map(|s| s.to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

/// A path segment that is a year (`/2024/`): dated paths are articles'.
fn year(seg: &str) -> bool {
    seg.len() == 4 && seg.bytes().all(|b| b.is_ascii_digit())
}

/// A path segment that is an article's slug: [`ARTICLE_SLUG_WORDS`] or more words.
fn slug(seg: &str) -> bool {
    seg.split(['-', '_']).filter(|w| !w.is_empty()).count() >= ARTICLE_SLUG_WORDS
}

/// Path segments of the sections where a site publishes articles.
const ARTICLE_PATHS: &[&str] = &[
    "article", "articles", "blog", "blogs", "news", "post", "posts", "stories",
];

/// Words in a path segment from which it is an article's slug
/// (`/10-easy-steps-for-a-great-interior-design`).
const ARTICLE_SLUG_WORDS: usize = 5;

/// Whether the page's URL is a landing page's: the site's front page, or a page under a
/// section of what the site offers (`/services/...`), unless the URL is also an article's
/// (a blog section, a dated path, a slug of many words). Pages that declare nothing and
/// hold a good deal of prose are read as articles unless this holds.
pub(crate) fn landing_signal(urls: &[url::Url]) -> bool {
    let article = urls.iter().any(|u| {
        segments(u)
            .iter()
            .any(|seg| ARTICLE_PATHS.contains(&seg.as_str()) || year(seg) || slug(seg))
    });
    !article
        && urls.iter().any(|u| {
            let segs = segments(u);
            segs.is_empty()
                || segs
                    .iter()
                    .take(3)
                    .any(|seg| LANDING_PATHS.contains(&seg.as_str()))
        })
}

impl Evidence<'_> {
    fn count(&self, names: &[&str]) -> u32 {
        count(self.types, names)
    }
}

/// How many of the declared types are among `names`.
fn count(types: &[(String, u32)], names: &[&str]) -> u32 {
    types
        .iter()
        .filter(|(t, _)| names.contains(&t.as_str()))
        .map(|(_, n)| n)
        .sum()
}

const FORUM_TYPES: &[&str] = &[
    "discussionforumposting",
    "qapage",
    "question",
    "answer",
    "socialmediaposting",
];
pub(crate) const PRODUCT_TYPES: &[&str] = &[
    "product",
    "productgroup",
    "individualproduct",
    "productmodel",
    "car",
    "vehicle",
];
const LIST_TYPES: &[&str] = &[
    "itemlist",
    "collectionpage",
    "searchresultspage",
    "offercatalog",
];
const DOC_TYPES: &[&str] = &["techarticle", "apireference", "softwaresourcecode"];
const ARTICLE_TYPES: &[&str] = &[
    "article",
    "newsarticle",
    "blogposting",
    "reportagenewsarticle",
    "analysisnewsarticle",
    "opinionnewsarticle",
    "scholarlyarticle",
    "report",
    "recipe",
    "review",
    "liveblogposting",
    "posting",
];
const SERVICE_TYPES: &[&str] = &["service", "offer", "faqpage", "softwareapplication"];

/// Whether the page declares one product (not a grid of many): one or two product items,
/// a product group (one product in its variants), or `og:type` product.
pub(crate) fn declares_product(meta: &crate::meta::PageMeta) -> bool {
    (1..3).contains(&count(&meta.types, PRODUCT_TYPES))
        || count(&meta.types, &["productgroup"]) > 0
        || meta
            .og_type
            .as_deref()
            .is_some_and(|t| t.contains("product"))
}

/// Whether the page declares a discussion thread or a question with its answers (not a
/// `Question` alone: an FAQ page's questions are declared so).
pub(crate) fn declares_thread(meta: &crate::meta::PageMeta) -> bool {
    count(&meta.types, &["discussionforumposting", "qapage"]) > 0
}

/// Whether the page declares an article: a schema.org article type, `og:type` article, or a
/// publication date.
pub(crate) fn declares_article(meta: &crate::meta::PageMeta) -> bool {
    count(&meta.types, ARTICLE_TYPES) > 0
        || meta.og_type.as_deref() == Some("article")
        || meta.published.is_some()
}

/// Counts of the page's visible elements and text that tell page types apart (taken in
/// the score pass): headings, paragraphs, list items, links, images, forms, tables,
/// `<article>`s and `<time>`s, and prices (a currency sign beside a digit).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Shape {
    pub h1: u32,
    pub h2: u32,
    pub h3: u32,
    pub p: u32,
    pub li: u32,
    pub a: u32,
    pub img: u32,
    pub form: u32,
    pub table: u32,
    pub article: u32,
    pub time: u32,
    pub section: u32,
    pub nav: u32,
    pub blockquote: u32,
    pub prices: u32,
}

/// Currency signs a price is written with.
const CURRENCY: &[char] = &['$', '€', '£', '¥', '₹', '₩', '₽', '₺', '₪', '฿'];

/// Whether `text` holds a price: a currency sign with a digit right before or after it
/// (`$19.99`, `19,99 €`, `US$ 5`).
fn has_price(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    let space = |i: usize| chars.get(i).is_some_and(|&c| c == ' ' || c == '\u{a0}');
    chars.iter().enumerate().any(|(i, c)| {
        CURRENCY.contains(c)
            && ((i >= 1 && digit(i - 1))
                || (i >= 2 && space(i - 1) && digit(i - 2))
                || digit(i + 1)
                || (space(i + 1) && digit(i + 2)))
    })
}

impl Shape {
    /// Counts a visible element (the score pass calls it for each).
    pub(crate) fn element(&mut self, name: &str) {
        match name {
            "h1" => self.h1 += 1,
            "h2" => self.h2 += 1,
            "h3" | "h4" | "h5" | "h6" => self.h3 += 1,
            "p" => self.p += 1,
            "li" => self.li += 1,
            "a" => self.a += 1,
            "img" => self.img += 1,
            "form" => self.form += 1,
            "table" => self.table += 1,
            "article" => self.article += 1,
            "time" => self.time += 1,
            "section" => self.section += 1,
            "nav" => self.nav += 1,
            "blockquote" => self.blockquote += 1,
            _ => {}
        }
    }

    /// Counts a visible text node that holds a price.
    pub(crate) fn text(&mut self, t: &str) {
        // first bytes of the currency signs (`$`; `£`, `¥`; `€`, `₹` and the others of
        // U+20A0..; `฿`): most text nodes have none, and are passed over at memchr's speed
        let b = t.as_bytes();
        let maybe =
            memchr::memchr(b'$', b).is_some() || memchr::memchr3(0xC2, 0xE2, 0xE0, b).is_some();
        if maybe && t.contains(CURRENCY) && has_price(t) {
            self.prices += 1;
        }
    }
}

/// Confidence of the rules below which the model decides (what the page declares, a
/// documentation generator or URL, a forum URL, a declared list of items: the rules are
/// surer than the model there; the DOM's shape alone is where the model is better).
const RULES_SURE: f32 = 0.7;

/// [`classify_ruled`] with the rules run here.
#[cfg(test)]
pub(crate) fn classify(e: &Evidence<'_>) -> (PageType, f32) {
    classify_ruled(e, rules(e))
}

/// The page's type and how sure the classifier is (0..1), given the rules' verdict on `e`
/// (the caller's trace reports it too): declared types first ([`rules`]); where they are
/// unsure, a multinomial logistic model over [`features`] trained on the tuning part of the
/// WCXB development pages (`bench/pagetype_train.py`, which writes `pagetype_model.rs`); a
/// page with too little text to tell stays [`PageType::Other`].
pub(crate) fn classify_ruled(e: &Evidence<'_>, ruled: (PageType, f32)) -> (PageType, f32) {
    let (kind, sure) = ruled;
    if sure >= RULES_SURE || kind == PageType::Other {
        return (kind, sure);
    }
    model(&features(e))
}

/// The model's type for `x` ([`features`]), with its probability.
fn model(x: &[f32]) -> (PageType, f32) {
    use crate::pagetype_model::{BIAS, MEAN, SCALE, TYPES, WEIGHTS};
    let z: [f32; TYPES.len()] = std::array::from_fn(|k| {
        BIAS[k]
            + x.iter()
                .enumerate()
                .map(|(i, v)| (v - MEAN[i]) / SCALE[i] * WEIGHTS[i][k])
                .sum::<f32>()
    });
    let top = z.iter().copied().fold(f32::MIN, f32::max);
    let sum: f32 = z.iter().map(|v| (v - top).exp()).sum();
    let best = (0..z.len())
        .max_by(|&a, &b| z[a].total_cmp(&z[b]))
        .unwrap_or(0);
    (TYPES[best], ((1.0 / sum) * 100.0).round() / 100.0)
}

/// The rules' type and how sure they are (0..1): declared types count most.
pub(crate) fn rules(e: &Evidence<'_>) -> (PageType, f32) {
    let og = e.og_type.unwrap_or("");
    // (an FAQ page declares its questions and answers too)
    if e.count(FORUM_TYPES) > 0 && e.count(&["faqpage"]) == 0 {
        return (PageType::Forum, 0.9);
    }
    let products = e.count(PRODUCT_TYPES);
    if products >= 3 || (products > 0 && e.count(LIST_TYPES) > 0) {
        return (PageType::Collection, 0.85);
    }
    if products > 0 || og.contains("product") {
        return (PageType::Product, 0.85);
    }
    if e.count(DOC_TYPES) > 0 {
        return (PageType::Documentation, 0.8);
    }
    if e.docs {
        return (PageType::Documentation, 0.7);
    }
    // a forum that declares nothing (most forum software declares no types)
    if e.forum {
        return (PageType::Forum, 0.6);
    }
    // comments under an article are `Comment` items too: a thread is many of them and
    // little prose of its own
    if e.count(&["comment"]) >= 3 && e.prose < 1000.0 {
        return (PageType::Forum, 0.7);
    }
    // an index by its URL, before the item-list decision (which cannot tell a shop's grid
    // from a list of articles) and before `og:type` article (which CMSs give every page)
    if let Some(t) = e.index {
        return (t, 0.6);
    }
    let article = e.count(ARTICLE_TYPES) > 0 || og == "article";
    if e.listing {
        let declared = e.count(LIST_TYPES) > 0;
        return (PageType::Listing, if declared { 0.85 } else { 0.6 });
    }
    if article {
        // `og:type` article alone is what many CMSs give every page (a firm's service
        // pages too): the model decides those
        let sure = if e.count(ARTICLE_TYPES) > 0 { 0.8 } else { 0.6 };
        return (PageType::Article, sure);
    }
    if e.code_blocks >= 3 {
        return (PageType::Documentation, 0.5);
    }
    if e.count(LIST_TYPES) > 0 {
        return (PageType::Listing, 0.5);
    }
    if e.prose >= 1000.0 && !e.landing {
        return (PageType::Article, 0.5);
    }
    if e.count(SERVICE_TYPES) > 0 {
        return (PageType::Service, 0.6);
    }
    if e.text < 200 {
        return (PageType::Other, 0.5);
    }
    (PageType::Service, 0.3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(t: &[(&str, u32)]) -> Vec<(String, u32)> {
        t.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    }

    #[test]
    fn declared_types_decide_first() {
        let t = types(&[("discussionforumposting", 1), ("comment", 12)]);
        let e = Evidence {
            types: &t,
            prose: 3000.0,
            ..Default::default()
        };
        assert_eq!(classify(&e).0, PageType::Forum);
        let t = types(&[("product", 1), ("breadcrumblist", 1)]);
        let e = Evidence {
            types: &t,
            listing: true,
            ..Default::default()
        };
        assert_eq!(classify(&e).0, PageType::Product);
        let t = types(&[("itemlist", 1), ("product", 24)]);
        assert_eq!(
            classify(&Evidence {
                types: &t,
                ..Default::default()
            })
            .0,
            PageType::Collection
        );
        let t = types(&[("techarticle", 1)]);
        assert_eq!(
            classify(&Evidence {
                types: &t,
                ..Default::default()
            })
            .0,
            PageType::Documentation
        );
        let t = types(&[("newsarticle", 1)]);
        let e = Evidence {
            types: &t,
            og_type: Some("article"),
            ..Default::default()
        };
        assert_eq!(classify(&e), (PageType::Article, 0.8));
        // `og:type` article alone leaves the rules unsure (CMSs give it every page)
        let e = Evidence {
            og_type: Some("article"),
            ..Default::default()
        };
        assert_eq!(rules(&e), (PageType::Article, 0.6));
        // an FAQ page declares its questions (`mainEntity`) but is no thread
        let t = types(&[("faqpage", 1), ("question", 6), ("article", 1)]);
        let e = Evidence {
            types: &t,
            prose: 3000.0,
            ..Default::default()
        };
        assert_eq!(classify(&e).0, PageType::Article);
    }

    #[test]
    fn the_model_reads_every_feature_it_was_trained_on() {
        // the same columns, in the same order, as the model was trained on
        let names = named_features(&Evidence::default()).map(|(n, _)| n);
        assert_eq!(names, crate::pagetype_model::COLUMNS);
        let n = names.len();
        assert!(crate::pagetype_model::SCALE.iter().all(|&s| s > 0.0));
        // a probability, whatever the input
        let (_, p) = model(&vec![1e6; n]);
        assert!((0.0..=1.0).contains(&p), "{p}");
    }

    #[test]
    fn a_price_is_a_currency_sign_beside_a_digit() {
        for yes in [
            "$19.99",
            "19,99 €",
            "from £5",
            "US$ 5",
            "¥1200",
            "12\u{a0}€",
        ] {
            assert!(has_price(yes), "{yes}");
        }
        for no in ["$", "costs a few €", "5 x $ y", "€ and 5", "no sign 42"] {
            assert!(!has_price(no), "{no}");
        }
    }

    #[test]
    fn the_rules_read_the_dom_when_nothing_is_declared() {
        let listing = Evidence {
            listing: true,
            text: 5000,
            ..Default::default()
        };
        assert_eq!(rules(&listing), (PageType::Listing, 0.6));
        let docs = Evidence {
            code_blocks: 5,
            prose: 2000.0,
            text: 5000,
            ..Default::default()
        };
        assert_eq!(rules(&docs).0, PageType::Documentation);
        let prose = Evidence {
            prose: 2500.0,
            text: 4000,
            ..Default::default()
        };
        assert_eq!(rules(&prose).0, PageType::Article);
        let empty = Evidence {
            text: 40,
            ..Default::default()
        };
        assert_eq!(rules(&empty).0, PageType::Other);
        let landing = Evidence {
            prose: 300.0,
            text: 2000,
            ..Default::default()
        };
        assert_eq!(rules(&landing).0, PageType::Service);
    }

    #[test]
    fn documentation_by_its_generator_or_its_url() {
        let meta = |generator: Option<&str>, canonical: Option<&str>| crate::meta::PageMeta {
            generator: generator.map(str::to_string),
            canonical_url: canonical.map(str::to_string),
            ..Default::default()
        };
        let parsed = |u: &str| url::Url::parse(u).unwrap();
        let docs =
            |m: &crate::meta::PageMeta, u: Option<&url::Url>| docs_signal(m, &page_urls(m, u));
        let file = &parsed("file:///data/pages/0001.html");
        assert!(docs(
            &meta(Some("mkdocs-1.6.1, mkdocs-material-9.7.1"), None),
            Some(file)
        ));
        assert!(docs(&meta(Some("docusaurus v3.5.2"), None), Some(file)));
        assert!(!docs(&meta(Some("wordpress 6.4"), None), Some(file)));
        assert!(!docs(&meta(Some("hugo 0.120"), None), Some(file)));
        // the page's own URL, or where a saved page says it lives
        assert!(docs(
            &meta(None, None),
            Some(&parsed("https://docs.example.org/start/"))
        ));
        assert!(docs(
            &meta(None, None),
            Some(&parsed("https://example.org/en/docs/install"))
        ));
        assert!(docs(
            &meta(None, Some("https://example.org/manual/ch01.html")),
            Some(file)
        ));
        for u in [
            "https://example.org/news/2024/docs-leak",
            "https://example.org/a/b/c/docs/",
            // a documentation host's blog
            "https://developer.example.com/blog/launch-week",
            "https://docs.example.com/news/2024/release",
        ] {
            assert!(!docs(&meta(None, None), Some(&parsed(u))), "{u}");
        }
        assert!(!docs(&meta(None, Some("/docs/relative")), Some(file)));
        // a declared article at a documentation URL is documentation; a declared product not
        let e = Evidence {
            og_type: Some("article"),
            docs: true,
            prose: 3000.0,
            ..Default::default()
        };
        assert_eq!(classify(&e).0, PageType::Documentation);
        let t = types(&[("product", 1)]);
        let e = Evidence {
            types: &t,
            docs: true,
            ..Default::default()
        };
        assert_eq!(classify(&e).0, PageType::Product);
    }

    #[test]
    fn a_landing_url_makes_an_undeclared_page_of_prose_a_service_page() {
        let meta = |canonical: Option<&str>| crate::meta::PageMeta {
            canonical_url: canonical.map(str::to_string),
            ..Default::default()
        };
        let parsed = |u: &str| url::Url::parse(u).unwrap();
        let signal =
            |m: &crate::meta::PageMeta, u: Option<&url::Url>| landing_signal(&page_urls(m, u));
        let landing = |u: &str| signal(&meta(None), Some(&parsed(u)));
        // a front page, a section of what the site offers
        assert!(landing("https://example.com/"));
        assert!(landing("https://example.com/services/tax-advice"));
        assert!(landing("https://example.com/en/solutions/analytics/"));
        assert!(landing("https://example.com/pricing"));
        // a saved page by where it says it lives
        assert!(signal(
            &meta(Some("https://example.com/what-we-do/audit.html")),
            Some(&parsed("file:///data/0001.html"))
        ));
        // articles: a blog section, a dated path, a slug of many words
        assert!(!landing("https://example.com/blog/services-we-offer"));
        assert!(!landing("https://example.com/2024/05/new-pricing"));
        assert!(!landing(
            "https://example.com/services/how-to-choose-a-tax-advisor-this-year"
        ));
        // neither
        assert!(!landing("https://example.com/about/team"));
        assert!(!landing("https://example.com/a/b/c/services"));
        assert!(!signal(
            &meta(None),
            Some(&parsed("file:///data/0001.html"))
        ));
        // an undeclared page of prose is an article unless its URL is a landing page's
        let page = |landing| Evidence {
            prose: 2500.0,
            text: 4000,
            landing,
            ..Default::default()
        };
        assert_eq!(rules(&page(false)).0, PageType::Article);
        assert_eq!(rules(&page(true)).0, PageType::Service);
        // a declared article stays one
        let declared = Evidence {
            og_type: Some("article"),
            ..page(true)
        };
        assert_eq!(classify(&declared).0, PageType::Article);
    }

    #[test]
    fn an_index_url_makes_a_listing_or_a_collection() {
        let parsed = |u: &str| url::Url::parse(u).unwrap();
        let index = |u: &str| index_signal(&[parsed(u)]);
        assert_eq!(index("https://example.org/news"), Some(PageType::Listing));
        assert_eq!(
            index("https://example.org/en/blog/"),
            Some(PageType::Listing)
        );
        assert_eq!(
            index("https://example.org/category/recipes/air-fryer/"),
            Some(PageType::Listing)
        );
        assert_eq!(
            index("https://shop.example.org/collections/headphones"),
            Some(PageType::Collection)
        );
        assert_eq!(
            index("https://example.org/c/fire-pits"),
            Some(PageType::Collection)
        );
        assert_eq!(
            index("https://example.org/shop/"),
            Some(PageType::Collection)
        );
        // an article filed under a section: a dated path, a slug of many words
        assert_eq!(
            index("https://example.org/archive/2014/04/plato/361373/"),
            None
        );
        assert_eq!(
            index("https://example.org/news/how-the-city-voted-on-the-new-budget"),
            None
        );
        assert_eq!(index("https://example.org/about"), None);
        // in the rules, the URL decides over the item-list decision and og:type
        let e = Evidence {
            og_type: Some("article"),
            listing: true,
            index: Some(PageType::Collection),
            ..Default::default()
        };
        assert_eq!(rules(&e).0, PageType::Collection);
    }

    #[test]
    fn a_thread_url_makes_an_undeclared_page_a_forum() {
        let parsed = |u: &str| url::Url::parse(u).unwrap();
        let forum = |u: &str| forum_signal(&[parsed(u)]);
        assert!(forum("https://forum.example.org/some-question"));
        assert!(forum("https://bbs.example.org/viewtopic.php?id=309936"));
        assert!(forum("https://example.org/threads/best-hosts-2025.691400/"));
        assert!(forum(
            "https://example.org/community/showthread.php?t=186269"
        ));
        assert!(forum(
            "https://example.org/r/science/comments/1rku5x9/title/"
        ));
        assert!(forum("https://example.org/t/whats-your-range/3275"));
        assert!(!forum("https://example.org/topic/car-rental"));
        assert!(!forum("https://example.org/blog/forum-software-compared"));
        assert!(!forum("https://example.org/t"));
        let page = |forum| Evidence {
            prose: 2500.0,
            text: 4000,
            og_type: Some("article"),
            forum,
            ..Default::default()
        };
        assert_eq!(classify(&page(false)).0, PageType::Article);
        assert_eq!(classify(&page(true)).0, PageType::Forum);
        // declared types still come first
        let t = types(&[("product", 1)]);
        let product = Evidence {
            types: &t,
            ..page(true)
        };
        assert_eq!(classify(&product).0, PageType::Product);
    }
}
