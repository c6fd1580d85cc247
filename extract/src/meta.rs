//! Page metadata from `<meta>`, OpenGraph, `<link rel=canonical>` and JSON-LD.

use crate::dom::attr;
use scraper::Html;
use serde_json::Value;

/// What the page says about itself.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct PageMeta {
    pub title: Option<String>,
    pub author: Option<String>,
    pub published: Option<String>,
    pub site_name: Option<String>,
    pub description: Option<String>,
    pub canonical_url: Option<String>,
    /// `og:url`, resolved like the canonical URL.
    pub og_url: Option<String>,
    /// `<meta name="generator">`, lowercased (the site generator: `mkdocs-1.6`,
    /// `Docusaurus v3`), or, where there is none, the generator its scripts name (`sphinx`).
    pub generator: Option<String>,
    /// The article's JSON-LD `articleBody` as paragraphs (plain-text bodies only).
    pub article_body: Option<String>,
    /// The declared product's JSON-LD text ([`product_text`]): its name, description,
    /// price and specifications.
    pub product: Option<String>,
    /// A declared how-to's or recipe's JSON-LD text ([`instructions_text`]): its
    /// description, ingredients and steps.
    pub instructions: Option<String>,
    /// The schema.org types the page declares (JSON-LD `@type`, also of a `mainEntity`, and
    /// microdata `itemtype`), lowercased, with how often each occurs; and `og:type`.
    pub types: Vec<(String, u32)>,
    pub og_type: Option<String>,
    /// Every product the page declares in JSON-LD is bare: a name, a description and rating
    /// stars, without an offer or an identifier (`sku`, `gtin`, `mpn`, `productID`). A
    /// business declares itself so for the stars in search results (a pest controller's
    /// testimonials, a moving guide's ratings): nothing on the page is sold, so its reviews
    /// are not customer reviews of a product.
    pub bare_products: bool,
    /// `<meta name="robots">` (or `name="trawl"`) directives.
    pub noai: bool,
    pub noimageai: bool,
    pub noindex: bool,
    /// TDMRep `<meta name="tdm-reservation">` and `tdm-policy`.
    pub signals: Vec<trawl_core::signals::ConsentSignal>,
}

/// A JSON-LD `articleBody` as paragraphs: each line a paragraph, whitespace inside a line
/// collapsed. Bodies holding markup are left out: the page's own elements are the better
/// source then.
fn body_paragraphs(s: &str) -> Option<String> {
    if s.contains('<') && s.contains('>') {
        return None;
    }
    let paras: Vec<String> = s
        .lines()
        .map(crate::dom::collapse)
        .filter(|l| !l.is_empty())
        .collect();
    (!paras.is_empty()).then(|| paras.join("\n\n"))
}

/// A JSON-LD text value as paragraphs, its markup read (product descriptions are often
/// HTML: `<p>`, `<br>`, `<li>`, entities).
fn markup_paragraphs(s: &str) -> Option<String> {
    if !s.contains(['<', '&']) {
        return body_paragraphs(s);
    }
    let frag = Html::parse_fragment(s);
    body_paragraphs(&block_lines(frag.tree.root(), false))
}

/// The text under `root`, a line break at each block and `<br>`: paragraphs as lines, for
/// [`body_paragraphs`]. `skip_code`: not the text of `<script>` and `<style>` elements.
fn block_lines(root: ego_tree::NodeRef<'_, scraper::Node>, skip_code: bool) -> String {
    let mut text = String::new();
    for node in root.descendants() {
        match node.value() {
            scraper::Node::Text(t)
                if !(skip_code
                    && node
                        .parent()
                        .and_then(|p| p.value().as_element())
                        .is_some_and(|p| matches!(p.name(), "script" | "style"))) =>
            {
                text.push_str(t)
            }
            scraper::Node::Element(e) if crate::score::is_block(e.name()) || e.name() == "br" => {
                text.push('\n')
            }
            _ => {}
        }
    }
    text
}

/// Whether a JSON-LD object's `@type` (a string or a list) is one of `types` (lowercase).
fn ld_type_in(v: &Value, types: &[&str]) -> bool {
    ld_type_any(v, |s| types.iter().any(|t| s.eq_ignore_ascii_case(t)))
}

/// Whether a JSON-LD object's `@type` (a string or a list) satisfies `is`.
fn ld_type_any(v: &Value, is: impl Fn(&str) -> bool) -> bool {
    match v.get("@type") {
        Some(Value::String(s)) => is(s),
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_str()).any(is),
        _ => false,
    }
}

/// The text a JSON-LD product declares: its name as a heading, its description, its price
/// (the first offer's) and its specifications (`additionalProperty` names and values), for a
/// page whose elements hold little of it (a shop rendering its product page from a script).
/// `None` without a description or specifications.
fn product_text(p: &Value) -> Option<String> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(crate::dom::collapse(s)),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let mut specs: Vec<String> = Vec::new();
    let offer = match p.get("offers") {
        Some(Value::Array(a)) => a.first(),
        o => o,
    };
    if let Some(price) = offer.and_then(|o| o.get("price")).and_then(text) {
        let currency = offer
            .and_then(|o| o.get("priceCurrency"))
            .and_then(text)
            .unwrap_or_default();
        specs.push(
            format!("- Price: {price} {currency}")
                .trim_end()
                .to_string(),
        );
    }
    // (a list, or one property alone: microdata gives a lone `additionalProperty` so)
    let props = match p.get("additionalProperty") {
        Some(Value::Array(a)) => a.as_slice(),
        Some(one @ Value::Object(_)) => std::slice::from_ref(one),
        _ => &[],
    };
    for prop in props.iter().take(100) {
        if let (Some(k), Some(v)) = (
            prop.get("name").and_then(text),
            prop.get("value").and_then(text),
        ) {
            if !k.is_empty() && !v.is_empty() {
                specs.push(format!("- {k}: {v}"));
            }
        }
    }
    let description = p
        .get("description")
        .and_then(|d| d.as_str())
        .and_then(markup_paragraphs);
    if description.is_none() && specs.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    if let Some(name) = p.get("name").and_then(text).filter(|n| !n.is_empty()) {
        out.push(format!("# {name}"));
    }
    out.extend(description);
    if !specs.is_empty() {
        out.push(specs.join("\n"));
    }
    Some(out.join("\n\n"))
}

/// A how-to's or a recipe's text from its JSON-LD (`HowTo`, `Recipe`): its description,
/// its ingredients as a list, and its steps (`step`, `recipeInstructions`: text, a list of
/// `HowToStep`s, or `HowToSection`s of them, each section's and each titled step's name a
/// heading), markup read ([`markup_paragraphs`]). None without steps.
fn instructions_text(v: &Value) -> Option<String> {
    fn steps(v: &Value, depth: usize, out: &mut Vec<String>) {
        if depth > INSTRUCTION_DEPTH || out.len() > INSTRUCTION_BLOCKS {
            return;
        }
        match v {
            Value::String(s) => out.extend(markup_paragraphs(s)),
            Value::Array(a) => a.iter().for_each(|x| steps(x, depth + 1, out)),
            Value::Object(o) => {
                let text = o.get("text").and_then(Value::as_str).unwrap_or("");
                let name = o
                    .get("name")
                    .and_then(Value::as_str)
                    .map(crate::dom::collapse)
                    .unwrap_or_default();
                let under = !text.trim().is_empty() || o.contains_key("itemListElement");
                // (a step's name is often its text's opening: no heading then)
                if !name.is_empty() && under && !crate::dom::collapse(text).starts_with(&name) {
                    let level = if ld_type_in(v, &["HowToSection"]) {
                        "##"
                    } else {
                        "###"
                    };
                    out.push(format!("{level} {name}"));
                }
                out.extend(markup_paragraphs(text));
                if let Some(items) = o.get("itemListElement") {
                    steps(items, depth + 1, out);
                }
            }
            _ => {}
        }
    }
    let mut body = Vec::new();
    steps(
        v.get("step").or_else(|| v.get("recipeInstructions"))?,
        0,
        &mut body,
    );
    if body.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    out.extend(
        v.get("description")
            .and_then(Value::as_str)
            .and_then(markup_paragraphs),
    );
    if let Some(Value::Array(items)) = v.get("recipeIngredient") {
        let list: Vec<String> = items
            .iter()
            .filter_map(Value::as_str)
            .map(crate::dom::collapse)
            .filter(|i| !i.is_empty())
            .map(|i| format!("- {i}"))
            .collect();
        if !list.is_empty() {
            out.push(list.join("\n"));
        }
    }
    out.extend(body);
    Some(out.join("\n\n"))
}

/// Levels of nesting and blocks read of a how-to's steps ([`instructions_text`]).
const INSTRUCTION_DEPTH: usize = 6;
const INSTRUCTION_BLOCKS: usize = 500;

fn clean(s: Option<String>) -> Option<String> {
    s.map(|v| crate::dom::collapse(&v))
        .filter(|v| !v.is_empty())
        .map(|v| v.chars().take(1000).collect())
}

/// Nesting of microdata items read (an item inside an item inside ...), at most.
const MICRODATA_DEPTH: usize = 4;

/// A microdata item (an element with `itemscope`) in the shape JSON-LD gives the same item:
/// `@type` from `itemtype`, each `itemprop` a key (a repeated one a list), a nested item an
/// object. A property's value is its `content` (a `<meta>`'s, or a price's beside the price
/// as shown), a `<time>`'s `datetime`, a `<data>`'s `value`, else its text (a line per
/// block: a description's paragraphs). URLs (a link's, an image's) are not read: the text a
/// product declares holds none.
fn microdata_item(scope: scraper::ElementRef<'_>, depth: usize) -> Value {
    let mut obj = serde_json::Map::new();
    if let Some(t) = attr(scope.value(), "itemtype") {
        let t = t.split_ascii_whitespace().next().unwrap_or("");
        obj.insert(
            "@type".into(),
            Value::String(t.rsplit('/').next().unwrap_or(t).to_string()),
        );
    }
    microdata_props(scope, &mut obj, depth);
    Value::Object(obj)
}

/// The properties under `e` (not those of items nested in it) added to `obj`.
fn microdata_props(
    e: scraper::ElementRef<'_>,
    obj: &mut serde_json::Map<String, Value>,
    depth: usize,
) {
    for child in e.children().filter_map(scraper::ElementRef::wrap) {
        let v = child.value();
        let scoped = attr(v, "itemscope").is_some();
        // (an item nested deeper than `MICRODATA_DEPTH` is left out, with its properties)
        let value = match attr(v, "itemprop") {
            Some(_) if scoped => {
                (depth < MICRODATA_DEPTH).then(|| microdata_item(child, depth + 1))
            }
            Some(_) => Some(Value::String(microdata_value(child))),
            None => None,
        };
        if let (Some(names), Some(value)) = (attr(v, "itemprop"), value) {
            for name in names.split_ascii_whitespace() {
                match obj.get_mut(name) {
                    Some(Value::Array(a)) => a.push(value.clone()),
                    Some(old) => *old = Value::Array(vec![old.take(), value.clone()]),
                    None => {
                        obj.insert(name.to_string(), value.clone());
                    }
                }
            }
        }
        if !scoped {
            microdata_props(child, obj, depth);
        }
    }
}

/// A microdata property's value (see [`microdata_item`]).
fn microdata_value(e: scraper::ElementRef<'_>) -> String {
    let v = e.value();
    let from = match v.name() {
        "time" => attr(v, "datetime"),
        "data" | "meter" => attr(v, "value"),
        _ => None,
    };
    if let Some(s) = attr(v, "content").or(from) {
        return s.to_string();
    }
    // the element's text, a line per block (a description's paragraphs)
    block_lines(*e, true)
}

/// Article-like JSON-LD objects (top level, arrays, `@graph`).
fn ld_objects(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| ld_objects(x, out)),
        Value::Object(o) => {
            if let Some(g) = o.get("@graph") {
                ld_objects(g, out);
            }
            out.push(v.clone());
        }
        _ => {}
    }
}

fn ld_type_is_article(v: &Value) -> bool {
    ld_type_any(v, |s| {
        s.contains("Article")
            || s.contains("BlogPosting")
            || s == "Report"
            || s == "WebPage"
            || s == "Recipe"
            || s == "NewsArticle"
    })
}

fn count_type(types: &mut Vec<(String, u32)>, t: &str) {
    let t = t.trim().to_ascii_lowercase();
    if t.is_empty() || types.len() >= 64 {
        return;
    }
    match types.iter_mut().find(|(k, _)| *k == t) {
        Some((_, n)) => *n += 1,
        None => types.push((t, 1)),
    }
}

/// The `@type` of a JSON-LD value (string or list), and of the items of an `ItemList`.
fn ld_types(v: &Value, types: &mut Vec<(String, u32)>) {
    match v.get("@type") {
        Some(Value::String(s)) => count_type(types, s),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .for_each(|s| count_type(types, s)),
        _ => {}
    }
    if let Some(Value::Array(items)) = v.get("itemListElement") {
        for it in items.iter().take(200) {
            let inner = it.get("item").unwrap_or(it);
            if let Some(Value::String(s)) = inner.get("@type") {
                count_type(types, s);
            }
        }
    }
}

/// A name from a JSON-LD person/organisation value (string, object, or a list of them).
fn ld_name(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("name").and_then(|n| n.as_str()).map(str::to_string),
        Value::Array(a) => {
            let names: Vec<String> = a.iter().filter_map(ld_name).collect();
            (!names.is_empty()).then(|| names.join(", "))
        }
        _ => None,
    }
}

/// The JSON-LD keys by which a declared product is one the page sells or identifies
/// ([`PageMeta::bare_products`]).
const PRODUCT_SOLD: &[&str] = &[
    "offers",
    "sku",
    "gtin",
    "gtin8",
    "gtin12",
    "gtin13",
    "gtin14",
    "mpn",
    "productID",
    "productGroupID",
    "hasVariant",
    "isVariantOf",
];

/// Scripts only one site generator writes, by file name, and the generator: Sphinx (8.1, and
/// most Sphinx sites among the WCXB pages) writes no `<meta name="generator">`, but every
/// theme loads these.
pub(crate) const GENERATOR_ASSETS: &[(&str, &str)] = &[
    ("documentation_options.js", "sphinx"),
    ("doctools.js", "sphinx"),
    ("sphinx_highlight.js", "sphinx"),
];

/// The generator a script's address names ([`GENERATOR_ASSETS`]): its file name, without a
/// query (`_static/doctools.js?v=9a2dae69`).
fn generator_by_asset(src: &str) -> Option<&'static str> {
    let path = src.split(['?', '#']).next().unwrap_or(src);
    let file = path.rsplit('/').next().unwrap_or(path);
    GENERATOR_ASSETS
        .iter()
        .find(|(f, _)| file.eq_ignore_ascii_case(f))
        .map(|(_, g)| *g)
}

pub(crate) fn page_meta(doc: &Html, base: Option<&url::Url>) -> PageMeta {
    // one pass over the elements collects everything the fields below choose from
    let mut by_key: Vec<(String, String)> = Vec::new();
    let (mut title_el, mut author_el, mut time_attr, mut canonical) = (None, None, None, None);
    let mut ld: Vec<Value> = Vec::new();
    let mut ld_seen = 0;
    let (mut noai, mut noimageai, mut noindex) = (false, false, false);
    let mut signals = Vec::new();
    let mut types: Vec<(String, u32)> = Vec::new();
    // the first microdata product (`itemscope itemtype=".../Product"`)
    let mut product_item = None;
    let mut asset_generator = None;
    for node in doc.tree.root().descendants() {
        let Some(el) = scraper::ElementRef::wrap(node) else {
            continue;
        };
        let v = el.value();
        if let Some(t) = attr(v, "itemtype") {
            for t in t.split_ascii_whitespace() {
                let t = t.rsplit('/').next().unwrap_or(t);
                count_type(&mut types, t);
                if product_item.is_none()
                    && attr(v, "itemscope").is_some()
                    && crate::pagetype::PRODUCT_TYPES
                        .iter()
                        .any(|p| t.eq_ignore_ascii_case(p))
                {
                    product_item = Some(el);
                }
            }
        }
        match v.name() {
            "meta" => {
                let Some(content) = attr(v, "content") else {
                    continue;
                };
                let key = attr(v, "property")
                    .or_else(|| attr(v, "name"))
                    .or_else(|| attr(v, "itemprop"))
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if key == "robots" || key == "trawl" {
                    let c = content.to_ascii_lowercase();
                    let toks: Vec<&str> = c.split([',', ' ']).map(str::trim).collect();
                    noai |= toks.contains(&"noai");
                    noimageai |= toks.contains(&"noimageai");
                    noindex |= toks.contains(&"noindex") || toks.contains(&"none");
                }
                if key == "tdm-reservation" {
                    signals.push(trawl_core::signals::tdm_reservation("meta", content));
                } else if key == "tdm-policy" {
                    let mut p = trawl_core::signals::tdm_reservation("meta", "");
                    p.signal = "tdm-policy".into();
                    p.value = content.chars().take(300).collect();
                    p.parsed = true;
                    signals.push(p);
                }
                if !key.is_empty() {
                    by_key.push((key, content.to_string()));
                }
            }
            "title" if title_el.is_none() => title_el = Some(el.text().collect::<String>()),
            "link"
                if canonical.is_none()
                    && attr(v, "rel").is_some_and(|r| r.eq_ignore_ascii_case("canonical")) =>
            {
                canonical = attr(v, "href").map(str::to_string)
            }
            "script"
                if ld_seen < 20
                    && attr(v, "type")
                        .is_some_and(|t| t.eq_ignore_ascii_case("application/ld+json")) =>
            {
                ld_seen += 1;
                let raw: String = el.text().collect();
                if let Ok(j) = serde_json::from_str::<Value>(raw.trim().trim_end_matches(';')) {
                    ld_objects(&j, &mut ld);
                }
            }
            "script" if asset_generator.is_none() => {
                asset_generator = attr(v, "src").and_then(generator_by_asset);
            }
            "time" if time_attr.is_none() => time_attr = attr(v, "datetime").map(str::to_string),
            _ => {}
        }
        if author_el.is_none()
            && (attr(v, "rel") == Some("author") || attr(v, "itemprop") == Some("author"))
        {
            author_el = Some(el.text().collect::<String>());
        }
    }
    let get = |keys: &[&str]| {
        keys.iter().find_map(|k| {
            by_key
                .iter()
                .find(|(kk, v)| kk == k && !v.trim().is_empty())
                .map(|(_, v)| v.clone())
        })
    };
    let article = ld
        .iter()
        .find(|v| {
            ld_type_is_article(v) && v.get("@type").and_then(|t| t.as_str()) != Some("WebPage")
        })
        .or_else(|| ld.iter().find(|v| ld_type_is_article(v)));
    let ld_str = |k: &str| {
        article
            .and_then(|a| a.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let title = clean(title_el)
        .or_else(|| clean(get(&["og:title", "twitter:title"])))
        .or_else(|| clean(ld_str("headline")));
    let author = clean(
        get(&[
            "author",
            "article:author",
            "dc.creator",
            "parsely-author",
            "sailthru.author",
        ])
        .filter(|a| !a.starts_with("http")),
    )
    .or_else(|| clean(article.and_then(|a| a.get("author")).and_then(ld_name)))
    .or_else(|| clean(author_el));
    let published = clean(get(&[
        "article:published_time",
        "datepublished",
        "pubdate",
        "publishdate",
        "date",
        "dc.date",
        "dcterms.date",
        "dc.date.issued",
        "sailthru.date",
        "parsely-pub-date",
    ]))
    .or_else(|| clean(ld_str("datePublished")))
    .or_else(|| clean(time_attr));
    let site_name = clean(get(&["og:site_name", "application-name"]))
        .or_else(|| clean(article.and_then(|a| a.get("publisher")).and_then(ld_name)));
    let description = clean(get(&[
        "description",
        "og:description",
        "twitter:description",
    ]))
    .or_else(|| clean(ld_str("description")));
    let resolve = |h: String| match base {
        Some(b) => b.join(h.trim()).ok().map(|u| u.to_string()),
        None => url::Url::parse(h.trim()).ok().map(|u| u.to_string()),
    };
    let canonical_url = canonical.and_then(resolve);
    let og_url = get(&["og:url"]).and_then(resolve);
    let generator = get(&["generator"])
        .map(|g| g.trim().to_ascii_lowercase())
        .or(asset_generator.map(str::to_string));
    for o in &ld {
        ld_types(o, &mut types);
        if let Some(m) = o.get("mainEntity") {
            ld_types(m, &mut types);
        }
    }
    let og_type = get(&["og:type"]).map(|t| t.trim().to_ascii_lowercase());
    let article_body = article
        .and_then(|a| a.get("articleBody"))
        .and_then(|v| v.as_str())
        .and_then(body_paragraphs);
    // JSON-LD's product, else microdata's read the same way
    let product = ld
        .iter()
        .find(|v| ld_type_in(v, crate::pagetype::PRODUCT_TYPES))
        .and_then(product_text)
        .or_else(|| product_item.and_then(|e| product_text(&microdata_item(e, 0))));
    let bare_products = product_item.is_none() && {
        let mut products = ld
            .iter()
            .filter(|v| ld_type_in(v, crate::pagetype::PRODUCT_TYPES))
            .peekable();
        products.peek().is_some()
            && products.all(|p| !PRODUCT_SOLD.iter().any(|k| p.get(k).is_some()))
    };
    let instructions = ld
        .iter()
        .find(|v| ld_type_in(v, &["HowTo", "Recipe"]))
        .and_then(instructions_text);
    PageMeta {
        title,
        author,
        published,
        site_name,
        description,
        canonical_url,
        og_url,
        generator,
        article_body,
        product,
        instructions,
        types,
        og_type,
        bare_products,
        noai,
        noimageai,
        noindex,
        signals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_microdata_product_is_read_as_its_json_ld_would_be() {
        let html = r#"<html><body><div itemscope itemtype="http://schema.org/Product">
            <h1 itemprop="name">Steel <b>kettle</b></h1>
            <div itemprop="description"><p>Boils a litre in three minutes.</p><p>Keeps water warm for an hour.</p></div>
            <span itemprop="offers" itemscope itemtype="http://schema.org/Offer">
              <span itemprop="price" content="49.90">49,90 €</span><meta itemprop="priceCurrency" content="EUR">
            </span>
            <div itemprop="additionalProperty" itemscope itemtype="http://schema.org/PropertyValue"><span itemprop="name">Capacity</span><span itemprop="value">1.7 l</span></div>
            <div itemprop="additionalProperty" itemscope itemtype="http://schema.org/PropertyValue"><span itemprop="name">Power</span><span itemprop="value">2200 W</span></div>
            <div itemprop="brand" itemscope itemtype="http://schema.org/Brand"><span itemprop="name">Acme</span></div>
            </div></body></html>"#;
        let m = page_meta(&Html::parse_document(html), None);
        assert_eq!(
            m.product.as_deref(),
            Some("# Steel kettle\n\nBoils a litre in three minutes.\n\nKeeps water warm for an hour.\n\n- Price: 49.90 EUR\n- Capacity: 1.7 l\n- Power: 2200 W")
        );
        // JSON-LD's product wins over microdata's
        let ld = r#"<script type="application/ld+json">{"@type":"Product","name":"Kettle two","description":"From JSON-LD."}</script>"#;
        let m = page_meta(&Html::parse_document(&format!("{ld}{html}")), None);
        assert_eq!(m.product.as_deref(), Some("# Kettle two\n\nFrom JSON-LD."));
    }

    #[test]
    fn meta_opengraph_and_json_ld() {
        let html = r#"<html><head><title> Harbour news | Daily </title>
            <meta property="og:site_name" content="The Daily">
            <meta name="description" content="Ferries  and markets.">
            <link rel="canonical" href="/news/harbour?ref=x">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"x"},
              {"@type":"NewsArticle","headline":"Harbour","datePublished":"2026-03-01T08:00:00Z","author":[{"@type":"Person","name":"Ana Ruiz"},{"name":"Bo Li"}],"publisher":{"name":"Daily Ltd"}}]}</script>
            </head><body><p>x</p></body></html>"#;
        let doc = Html::parse_document(html);
        let base = url::Url::parse("https://daily.example/a/b").unwrap();
        let m = page_meta(&doc, Some(&base));
        assert_eq!(m.title.as_deref(), Some("Harbour news | Daily"));
        assert_eq!(m.author.as_deref(), Some("Ana Ruiz, Bo Li"));
        assert_eq!(m.published.as_deref(), Some("2026-03-01T08:00:00Z"));
        assert_eq!(m.site_name.as_deref(), Some("The Daily"));
        assert_eq!(m.description.as_deref(), Some("Ferries and markets."));
        assert_eq!(
            m.canonical_url.as_deref(),
            Some("https://daily.example/news/harbour?ref=x")
        );
        // meta tags win; broken JSON-LD is ignored
        let html = r#"<head><meta name="author" content="Kim"><meta property="article:published_time" content="2025-01-02">
            <script type="application/ld+json">{not json</script></head><body><time datetime="2020-01-01">old</time></body>"#;
        let m = page_meta(&Html::parse_document(html), None);
        assert_eq!(
            (m.author.as_deref(), m.published.as_deref()),
            (Some("Kim"), Some("2025-01-02"))
        );
        assert_eq!(m.title, None);
    }
}
