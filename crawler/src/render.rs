//! Headless rendering, for the pages whose static HTML does not hold their content: pools
//! of lightpanda (light: its own DOM and V8, no layout) and Debian Chromium processes, both
//! driven over CDP by trawl's own client ([`crate::cdp`]; see `render/engine.rs`).
//!
//! * **Static first.** [`decide`] looks at the fetched HTML and sends a page to a browser
//!   only when it needs it (an empty client-side app root, a `<noscript>` asking for
//!   JavaScript, little visible text next to heavy scripts, content behind "load more",
//!   infinite scroll, hydration payloads, collapsed panels) or a per-domain rule says so.
//!   The decision and its reason are recorded on the page ([`RenderInfo`]).
//! * **Engines in tiers.** `engines` (default lightpanda, then Chromium): a page goes to the
//!   next engine when one crashes, times out, fails, or returns no more text than the static
//!   HTML where the decision expected some; pages whose content loads on scroll go straight
//!   to Chromium. The engine used and the fallback reason are recorded and counted.
//! * **The fetched response is what is rendered.** The browser never fetches the page
//!   itself: the main document request is fulfilled from the response the crawler already
//!   fetched (and archived), so the rendered DOM belongs to that WARC record and the host sees
//!   one request for the page, not two.
//! * **Every sub-request obeys the crawler's rules.** Scripts, XHR, stylesheets and images
//!   are intercepted (CDP `Fetch` domain): robots.txt for the crawl token and the SSRF guard
//!   are checked before each goes out; configured resource types and tracker hosts are
//!   refused; other navigations (frames, popups, redirects away) are refused; each refusal is
//!   counted by reason. Downloads are denied and permission prompts refused.
//! * **Interaction.** After the load: cookie banners hiding content are dismissed, the page
//!   is scrolled to the bottom in steps until its height stops growing, elements that reveal
//!   content ("load more", "show more", "read more", `<details>`) are clicked, each bounded in
//!   count and by one time budget.
//! * **The pools.** `browsers` processes per engine with up to `tabs_per_browser` pages each,
//!   pages reused; a browser is restarted after `restart_after_pages` pages, when its process
//!   tree exceeds `max_browser_memory_mb`, or when it dies (a Chromium page is then retried
//!   once on the new browser). Each Chromium gets a fresh `--user-data-dir`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use trawl_core::{FetchedPage, RenderInfo};
use url::Url;

use crate::guard::Guard;
use crate::robots::RobotsCache;

mod engine;

pub use engine::EngineStats;

/// When to render a page in a headless browser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderMode {
    /// Never render (static HTML only).
    Never,
    /// Render when the static HTML needs it (see [`decide`]): the default. Without a
    /// browser installed, those pages are counted (`render_unavailable`) and kept static.
    #[default]
    Auto,
    /// Always render.
    Always,
}

/// A rendering engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// lightpanda, over its CDP server.
    Lightpanda,
    /// Debian's Chromium (or chromium-headless-shell).
    Chromium,
}

impl EngineKind {
    /// The name recorded per page and in the counters.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Lightpanda => "lightpanda",
            EngineKind::Chromium => "chromium",
        }
    }
}

/// The `[render]` section: headless rendering with lightpanda and Debian's Chromium.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenderConfig {
    /// `never`, `auto` (render what needs it) or `always`.
    pub mode: RenderMode,
    /// Per-domain override of `mode` (the host or a parent domain: `"example.org" = "always"`).
    pub domains: BTreeMap<String, RenderMode>,
    /// The engines a page is tried in, in order: `lightpanda` (light: its own DOM and V8,
    /// no layout, about a tenth of Chromium's CPU) and `chromium`. A page goes to the next
    /// engine when one crashes, times out, fails, or returns a DOM without more text than the
    /// static HTML when the decision expected some. Engines not installed are skipped.
    pub engines: Vec<EngineKind>,
    /// The lightpanda binary; empty: `lightpanda` on `PATH`, else the one
    /// `scripts/setup.sh` installs (`~/.cache/trawl/bin/lightpanda`, or under
    /// `$TRAWL_CACHE`).
    pub lightpanda: String,
    /// The Chromium binary (Debian's `chromium` or `chromium-headless-shell`); empty: the
    /// first of [`BROWSER_NAMES`] on `PATH`. With no engine installed, pages that need a
    /// browser are counted as `render_unavailable` and kept static.
    pub chromium: String,
    /// Browser processes in the pool.
    pub browsers: usize,
    /// Pages rendered at once per browser (one tab each, reused).
    pub tabs_per_browser: usize,
    /// A browser is restarted after this many pages (bounds leaks).
    pub restart_after_pages: usize,
    /// A browser is restarted when its process tree's resident memory exceeds this (MiB).
    pub max_browser_memory_mb: u64,
    /// Until the document has loaded (`readyState == complete`), milliseconds; past it the
    /// render is abandoned as `timeout` and the static HTML stands.
    pub page_timeout_ms: u64,
    /// After the load, waiting at most this long for every sub-request to finish,
    /// milliseconds.
    pub settle_ms: u64,
    /// Time budget for all interaction on a page (banners, scrolling, clicks), milliseconds.
    pub interaction_budget_ms: u64,
    /// Scroll steps (one viewport each) at most per round.
    pub scroll_max_steps: u32,
    /// After a scroll step or click, waiting at most this long for the requests it started
    /// to finish, milliseconds.
    pub scroll_wait_ms: u64,
    /// Elements clicked at most per page (reveal buttons and cookie banners).
    pub max_clicks: u32,
    /// Buttons, `[role=button]`, `<summary>` and script links whose text contains one of
    /// these (case-insensitive) are clicked to reveal content.
    pub click_texts: Vec<String>,
    /// CSS selectors clicked on every page (in addition to `click_texts`).
    pub click_selectors: Vec<String>,
    /// Per-domain CSS selectors to click (the host or a parent domain).
    pub domain_click_selectors: BTreeMap<String, Vec<String>>,
    /// Cookie-banner accept buttons (CSS); banners whose id/class mention cookies or consent
    /// are also searched for an accept/agree button, and removed when none is found.
    pub cookie_selectors: Vec<String>,
    /// CDP resource types never loaded: `image`, `media`, `font`, `stylesheet`, `script`,
    /// `xhr`, `fetch`, `websocket`, `eventsource`, `manifest`, `ping`, `texttrack`, `other`.
    /// Images are off by default: the DOM keeps every `<img>`, and the captions stage fetches
    /// the images it wants with its own politeness.
    pub block_resource_types: Vec<String>,
    /// Hosts (and their subdomains) never contacted: trackers, ads, analytics.
    pub block_hosts: Vec<String>,
    /// Sub-requests allowed per page; later ones are refused (`budget`).
    pub max_requests_per_page: u32,
    /// Auto decision: pages with less visible text than this (characters) are candidates.
    pub min_text_chars: usize,
    /// Auto decision: a candidate is rendered when its inline script bytes plus 10 KB per
    /// external script reach this.
    pub min_script_bytes: usize,
}

impl Default for RenderConfig {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        RenderConfig {
            mode: RenderMode::Auto,
            domains: BTreeMap::new(),
            engines: vec![EngineKind::Lightpanda, EngineKind::Chromium],
            lightpanda: String::new(),
            chromium: String::new(),
            browsers: 1,
            tabs_per_browser: 2,
            restart_after_pages: 500,
            max_browser_memory_mb: 2048,
            page_timeout_ms: 15_000,
            settle_ms: 2_000,
            interaction_budget_ms: 5_000,
            scroll_max_steps: 20,
            scroll_wait_ms: 1_500,
            max_clicks: 5,
            click_texts: s(&[
                "load more",
                "show more",
                "read more",
                "see more",
                "view more",
                "more results",
                "continue reading",
                "expand",
                "show all",
            ]),
            click_selectors: Vec::new(),
            domain_click_selectors: BTreeMap::new(),
            cookie_selectors: s(&[
                "#onetrust-accept-btn-handler",
                "#CybotCookiebotDialogBodyButtonAccept",
                "#didomi-notice-agree-button",
                ".cc-accept",
                ".cc-allow",
                ".cc-dismiss",
                "button[data-cookie-accept]",
                "[aria-label='Accept cookies']",
            ]),
            block_resource_types: s(&["image", "media", "font", "websocket", "manifest", "ping"]),
            block_hosts: s(&[
                "google-analytics.com",
                "googletagmanager.com",
                "doubleclick.net",
                "googlesyndication.com",
                "facebook.net",
                "hotjar.com",
                "scorecardresearch.com",
                "quantserve.com",
                "adnxs.com",
                "criteo.com",
                "taboola.com",
                "outbrain.com",
                "segment.io",
                "mixpanel.com",
            ]),
            max_requests_per_page: 300,
            min_text_chars: 300,
            min_script_bytes: 10_000,
        }
    }
}

const RESOURCE_TYPES: &[&str] = &[
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "other",
];

/// The browsers looked for on `PATH` when `chromium` is empty, in this order (the headless
/// shell first: about a third of the full browser's CPU per page, `bench/render.sh`).
pub const BROWSER_NAMES: &[&str] = &["chromium-headless-shell", "chromium", "chromium-browser"];

impl RenderConfig {
    /// The browser binary: `chromium` when set, else the first of [`BROWSER_NAMES`] on
    /// `PATH`; `None` when there is none.
    pub fn browser(&self) -> Option<std::path::PathBuf> {
        if !self.chromium.is_empty() {
            return Some(self.chromium.clone().into());
        }
        let path = std::env::var_os("PATH")?;
        BROWSER_NAMES.iter().find_map(|name| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
    }

    /// The lightpanda binary: `lightpanda` when set, else `lightpanda` on `PATH`, else the
    /// one `scripts/setup.sh` installs in the cache folder; `None` when there is none.
    pub fn lightpanda_binary(&self) -> Option<std::path::PathBuf> {
        if !self.lightpanda.is_empty() {
            return Some(self.lightpanda.clone().into());
        }
        let on_path = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("lightpanda"))
                .find(|p| p.is_file())
        });
        on_path.or_else(|| {
            let cache = std::env::var_os("TRAWL_CACHE")
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| std::path::PathBuf::from(h).join(".cache/trawl"))
                })?;
            Some(cache.join("bin/lightpanda")).filter(|p| p.is_file())
        })
    }

    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let e = |k: &str, r: String| Err((format!("render.{k}"), r));
        if self.engines.is_empty() {
            return e(
                "engines",
                "must name at least one engine (\"lightpanda\", \"chromium\"); to turn rendering off set mode = \"never\"".into(),
            );
        }
        if let Some((i, twice)) = self
            .engines
            .iter()
            .enumerate()
            .find(|(i, k)| self.engines[..*i].contains(k))
        {
            let _ = i;
            return e("engines", format!("{} is listed twice", twice.name()));
        }
        if self.enabled()
            && !self.lightpanda.is_empty()
            && !std::path::Path::new(&self.lightpanda).exists()
        {
            return e("lightpanda", format!("{} does not exist; `scripts/setup.sh` installs lightpanda from its PyPI wheel, or leave it empty", self.lightpanda));
        }
        if self.enabled()
            && !self.chromium.is_empty()
            && !std::path::Path::new(&self.chromium).exists()
        {
            return e("chromium", format!("{} does not exist; install Debian's chromium (`scripts/setup.sh` does) or set the path", self.chromium));
        }
        if self.browsers == 0 {
            return e("browsers", "must be at least 1".into());
        }
        if self.tabs_per_browser == 0 {
            return e("tabs_per_browser", "must be at least 1".into());
        }
        if self.page_timeout_ms == 0 {
            return e("page_timeout_ms", "must be positive".into());
        }
        if self.restart_after_pages == 0 {
            return e("restart_after_pages", "must be at least 1".into());
        }
        if let Some(t) = self
            .block_resource_types
            .iter()
            .find(|t| !RESOURCE_TYPES.contains(&t.to_ascii_lowercase().as_str()))
        {
            return e(
                "block_resource_types",
                format!(
                    "unknown resource type {t:?}; known: {}",
                    RESOURCE_TYPES.join(", ")
                ),
            );
        }
        if self
            .block_resource_types
            .iter()
            .any(|t| t.eq_ignore_ascii_case("document"))
        {
            return e(
                "block_resource_types",
                "`document` cannot be blocked (the page itself is one)".into(),
            );
        }
        Ok(())
    }

    /// The mode for a host: the most specific `domains` entry, else `mode`.
    pub fn mode_for(&self, host: &str) -> (RenderMode, bool) {
        match domain_lookup(&self.domains, host) {
            Some(m) => (*m, true),
            None => (self.mode, false),
        }
    }

    /// Whether any page can be rendered under this configuration.
    pub fn enabled(&self) -> bool {
        self.mode != RenderMode::Never || self.domains.values().any(|m| *m != RenderMode::Never)
    }
}

/// The entry for `host` or its closest parent domain.
fn domain_lookup<'a, T>(map: &'a BTreeMap<String, T>, host: &str) -> Option<&'a T> {
    let host = host.to_ascii_lowercase();
    let mut h = host.as_str();
    loop {
        if let Some(v) = map.get(h) {
            return Some(v);
        }
        h = h.split_once('.')?.1;
    }
}

/// What the static HTML says about needing a browser.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaticSignals {
    /// Visible text characters (outside script, style, template, noscript).
    pub text_chars: usize,
    /// Bytes of inline `<script>` code (JSON data blocks included).
    pub inline_script_bytes: usize,
    /// `<script src>` elements.
    pub external_scripts: usize,
    /// A client-side framework root (`#root`, `#app`, `#__next`, `#__nuxt`, `app-root`,
    /// `[ng-app]`, `[data-reactroot]`) with no text in it.
    pub empty_app_root: bool,
    /// A `<noscript>` asking the reader to enable JavaScript.
    pub noscript_requires_js: bool,
    /// Controls that load more content by script: buttons (or links going nowhere) reading
    /// "load more", "show more", "more results" ...
    pub load_more_controls: usize,
    /// Infinite scroll: an inline script that loads and inserts content from a scroll
    /// listener or an `IntersectionObserver`, or a sentinel element (`infinite-scroll`,
    /// `sentinel`, `data-next-page` ...).
    pub infinite_scroll: bool,
    /// Characters of prose in hydration payloads (`__NEXT_DATA__`, `__NUXT__`, state
    /// objects, `<script type="application/json">`) that the visible text does not hold.
    pub payload_text_chars: usize,
    /// Characters of text inside `<template>` elements that the visible text does not hold.
    pub template_text_chars: usize,
    /// Disclosure controls (`aria-expanded="false"` naming a panel with `aria-controls`)
    /// whose panel is empty: its content arrives by script on expansion. Menus, navigation
    /// and search panels are not counted.
    pub collapsed_empty: usize,
}

/// Texts of controls that load more content (compared lowercased, without punctuation, at
/// the start of the control's text).
/// "Show more", "see more" and "view more" are left out: they mostly expand text the page
/// already holds (a clipped description), which extraction reads without a browser.
const LOAD_MORE_TEXTS: &[&str] = &[
    "load more",
    "more results",
    "more posts",
    "more articles",
    "more stories",
    "more comments",
    "more replies",
    "more reviews",
    "more products",
    "load all",
];

/// Class/id fragments of infinite-scroll sentinels and pagers filled by script.
/// (A bare "sentinel" is left out: sticky headers and sidebars use sentinels too.)
const SCROLL_SENTINELS: &[&str] = &[
    "infinite-scroll",
    "infinite_scroll",
    "infinitescroll",
    "scroll-sentinel",
];

/// Attributes of infinite-scroll containers.
const SCROLL_ATTRS: &[&str] = &[
    "data-infinite-scroll",
    "data-next-page",
    "data-next-url",
    "data-load-more",
    "data-infinite",
];

/// Globals that carry a server-side state object into the client.
const STATE_GLOBALS: &[&str] = &[
    "__NEXT_DATA__",
    "__NUXT__",
    "__INITIAL_STATE__",
    "__APOLLO_STATE__",
    "__PRELOADED_STATE__",
    "__remixContext",
    "__INITIAL_DATA__",
];

/// Words in a panel's or control's class/id that make it a menu, not content.
const NOT_CONTENT_PANELS: &[&str] = &[
    "menu", "nav", "search", "dropdown", "cart", "login", "account", "sidebar", "drawer", "modal",
    "dialog", "popup", "popover", "tooltip", "help", "filter", "lang", "cookie", "consent",
    "share",
];

/// Measures the static HTML.
pub fn static_signals(html: &str) -> StaticSignals {
    use scraper::Node;
    let doc = trawl_core::parse::parse_document(html);
    let mut s = StaticSignals::default();
    let mut visible = String::new();
    let mut payloads: Vec<String> = Vec::new();
    let mut templates: Vec<String> = Vec::new();
    // the panels named by disclosure controls outside navigation
    let mut controls: Vec<String> = Vec::new();
    let mut names = String::new();
    for node in doc.tree.root().descendants() {
        match node.value() {
            Node::Text(t) => {
                let mut hidden = false;
                let mut in_template = false;
                for a in node.ancestors() {
                    if let Some(e) = a.value().as_element() {
                        match e.name() {
                            "template" => in_template = true,
                            "script" | "style" | "noscript" | "head" => hidden = true,
                            _ => {}
                        }
                    }
                }
                if in_template {
                    let t = t.trim();
                    if !t.is_empty() {
                        templates.push(t.to_string());
                    }
                } else if !hidden {
                    let t = t.trim();
                    s.text_chars += t.chars().count();
                    if !t.is_empty() {
                        visible.push_str(t);
                        visible.push(' ');
                    }
                }
            }
            Node::Element(e) => match e.name() {
                "script" => {
                    if e.attr("src").is_some() {
                        s.external_scripts += 1;
                        continue;
                    }
                    let code: String = node
                        .children()
                        .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
                        .collect();
                    s.inline_script_bytes += code.len();
                    let kind = e.attr("type").unwrap_or("").trim().to_ascii_lowercase();
                    if kind == "application/json"
                        || e.attr("id") == Some("__NEXT_DATA__")
                        || STATE_GLOBALS.iter().any(|g| code.contains(g))
                    {
                        payloads.push(code);
                    } else if (kind.is_empty() || kind.contains("javascript") || kind == "module")
                        && loads_on_scroll(&code)
                    {
                        s.infinite_scroll = true;
                    }
                }
                "noscript" => {
                    // html5ever keeps <noscript> content as raw text when scripting is on
                    let text: String = node
                        .descendants()
                        .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if text.contains("javascript")
                        && [
                            "enable", "turn on", "requires", "required", "need", "disabled",
                            "activate",
                        ]
                        .iter()
                        .any(|w| text.contains(w))
                    {
                        s.noscript_requires_js = true;
                    }
                }
                name => {
                    let id = e.attr("id").unwrap_or("");
                    let root = matches!(
                        id,
                        "root" | "app" | "__next" | "__nuxt" | "___gatsby" | "svelte" | "q-app"
                    ) || name == "app-root"
                        || e.attr("ng-app").is_some()
                        || e.attr("data-reactroot").is_some();
                    if root && text_len(node) < 20 {
                        s.empty_app_root = true;
                    }
                    let class = e.attr("class").unwrap_or("");
                    names.clear();
                    names.push_str(id);
                    names.push(' ');
                    names.push_str(class);
                    names.make_ascii_lowercase();
                    if !s.infinite_scroll
                        && (SCROLL_SENTINELS.iter().any(|w| names.contains(w))
                            || e.attrs()
                                .any(|(k, _)| k.starts_with("data-") && SCROLL_ATTRS.contains(&k)))
                    {
                        s.infinite_scroll = true;
                    }
                    let control = name == "button"
                        || e.attr("role") == Some("button")
                        || (name == "a" && goes_nowhere(e.attr("href")));
                    if control {
                        let text: String = node
                            .descendants()
                            .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
                            .collect::<Vec<_>>()
                            .join(" ");
                        if is_load_more(&text) {
                            s.load_more_controls += 1;
                        }
                        if let (Some("false"), Some(panel)) =
                            (e.attr("aria-expanded"), e.attr("aria-controls"))
                        {
                            let in_nav = NOT_CONTENT_PANELS.iter().any(|w| names.contains(w))
                                || node.ancestors().any(|a| {
                                    a.value().as_element().is_some_and(|p| {
                                        matches!(p.name(), "nav" | "header" | "footer")
                                            || p.attr("role") == Some("navigation")
                                    })
                                });
                            if !in_nav {
                                controls.push(panel.to_string());
                            }
                        }
                    }
                }
            },
            _ => {}
        }
    }
    if !controls.is_empty() {
        for node in doc.tree.root().descendants() {
            let Some(e) = node.value().as_element() else {
                continue;
            };
            let Some(id) = e.attr("id") else { continue };
            if !controls.iter().any(|c| c == id) {
                continue;
            }
            let names = format!("{id} {}", e.attr("class").unwrap_or("")).to_ascii_lowercase();
            if NOT_CONTENT_PANELS.iter().any(|w| names.contains(w))
                || matches!(e.attr("role"), Some("dialog" | "menu" | "listbox"))
                || e.name() == "dialog"
            {
                continue;
            }
            if text_len(node) < 20 {
                s.collapsed_empty += 1;
            }
        }
    }
    let visible = squash(&visible);
    s.payload_text_chars = payloads
        .iter()
        .flat_map(|code| string_literals(code))
        .filter_map(|lit| prose(&lit))
        .filter(|p| !visible.contains(&probe(p)))
        .map(|p| p.chars().count())
        .sum();
    s.template_text_chars = templates
        .iter()
        .map(|t| squash(t))
        .filter(|t| t.chars().count() >= 20 && !visible.contains(&probe(t)))
        .map(|t| t.chars().count())
        .sum();
    s
}

/// Bytes of trimmed text under `node`.
fn text_len(node: ego_tree::NodeRef<'_, scraper::Node>) -> usize {
    node.descendants()
        .filter_map(|c| c.value().as_text().map(|t| t.trim().len()))
        .sum()
}

/// Whether an `<a href>` leads nowhere a crawler could follow (so a script handles it).
fn goes_nowhere(href: Option<&str>) -> bool {
    match href.map(str::trim) {
        None | Some("") => true,
        Some(h) => h.starts_with('#') || h.to_ascii_lowercase().starts_with("javascript:"),
    }
}

/// Whether a control's text asks for more content.
fn is_load_more(text: &str) -> bool {
    let t: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    t.len() <= 40 && LOAD_MORE_TEXTS.iter().any(|w| t.starts_with(w))
}

/// Whether inline JavaScript loads and inserts content when the reader scrolls: a scroll
/// listener or an `IntersectionObserver` followed closely by a request for content and an
/// insertion into the DOM; scripts that post data (analytics beacons) are not loaders.
fn loads_on_scroll(code: &str) -> bool {
    const TRIGGERS: &[&str] = &[
        "addEventListener('scroll'",
        "addEventListener(\"scroll\"",
        "addEventListener(`scroll`",
        ".onscroll",
        "IntersectionObserver(",
        ".on('scroll'",
        ".on(\"scroll\"",
        ".scroll(function",
    ];
    const LOADS: &[&str] = &[
        "fetch(",
        "XMLHttpRequest",
        ".ajax(",
        "$.get(",
        ".load(",
        "axios",
    ];
    const INSERTS: &[&str] = &[
        "appendChild(",
        "insertAdjacentHTML(",
        "innerHTML",
        ".append(",
        ".after(",
        "insertBefore(",
    ];
    const POSTS: &[&str] = &["sendBeacon", "'POST'", "\"POST\"", "'post'", "\"post\""];
    const WINDOW: usize = 1_500;
    for t in TRIGGERS {
        let mut from = 0;
        while let Some(p) = code[from..].find(t) {
            let at = from + p;
            let mut end = (at + WINDOW).min(code.len());
            while !code.is_char_boundary(end) {
                end -= 1;
            }
            let w = &code[at..end];
            if LOADS.iter().any(|l| w.contains(l))
                && INSERTS.iter().any(|i| w.contains(i))
                && !POSTS.iter().any(|x| w.contains(x))
            {
                return true;
            }
            from = at + t.len();
        }
    }
    false
}

/// The string literals (`"..."`) of JSON or JavaScript code, decoded; literals that are
/// not valid JSON strings are skipped.
fn string_literals(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        if i < b.len() {
            if i - start > 40 {
                if let Ok(s) = serde_json::from_str::<String>(&code[start..=i]) {
                    out.push(s);
                }
            }
            i += 1;
        }
    }
    out
}

/// A payload string as prose (tags removed, whitespace squashed) when it reads as text: at
/// least eight words, mostly letters, not a URL.
fn prose(lit: &str) -> Option<String> {
    let mut text = String::with_capacity(lit.len());
    let mut in_tag = false;
    for c in lit.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = squash(&text);
    let words = text.split(' ').count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    (words >= 8 && letters * 10 >= text.chars().count() * 6 && !text.contains("://"))
        .then_some(text)
}

/// Whitespace squashed to single spaces.
fn squash(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The part of a text looked for in the visible text: its first 60 characters.
fn probe(t: &str) -> String {
    t.chars().take(60).collect()
}

/// The render decision for a fetched page: `None` when rendering is off for its host,
/// else whether to render and why.
pub fn decide(cfg: &RenderConfig, page: &FetchedPage) -> Option<(bool, &'static str)> {
    let host = Url::parse(&page.final_url)
        .or_else(|_| Url::parse(&page.url))
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let (mode, by_domain) = cfg.mode_for(&host);
    if mode == RenderMode::Never {
        return if by_domain && cfg.mode != RenderMode::Never {
            Some((false, "domain_never"))
        } else {
            None
        };
    }
    if !(200..300).contains(&page.status) {
        return Some((false, "status"));
    }
    if !page
        .header("content-type")
        .unwrap_or("text/html")
        .to_ascii_lowercase()
        .contains("html")
    {
        return Some((false, "not_html"));
    }
    if mode == RenderMode::Always {
        return Some((
            true,
            if by_domain {
                "domain_always"
            } else {
                "mode_always"
            },
        ));
    }
    let html = String::from_utf8_lossy(&page.body);
    // without a script nothing on the page can change once loaded: no parse needed
    if !page
        .body
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"<script"))
    {
        return Some((false, "static_ok"));
    }
    if trawl_core::html::max_depth_exceeds(&html, trawl_core::html::BROWSER_MAX_DEPTH) {
        // a browser flattens it; measuring it would cost the square of its depth
        return Some((false, "too_deep"));
    }
    let s = static_signals(&html);
    if s.empty_app_root && s.text_chars < cfg.min_text_chars * 2 {
        return Some((true, "empty_app_root"));
    }
    if s.noscript_requires_js && s.text_chars < cfg.min_text_chars * 3 {
        return Some((true, "noscript_requires_js"));
    }
    if s.text_chars < cfg.min_text_chars
        && s.inline_script_bytes + 10_000 * s.external_scripts >= cfg.min_script_bytes
    {
        return Some((true, "little_text_heavy_scripts"));
    }
    // pages with text that still hold more behind script: interaction or hydration
    // a payload or template holding more unseen text than the page shows (server-rendered
    // pages carry their own text in their payload, and some extras: related items, labels)
    let unseen = cfg.min_text_chars.max(s.text_chars);
    if s.payload_text_chars >= unseen {
        return Some((true, "hydration_payload"));
    }
    if s.template_text_chars >= unseen {
        return Some((true, "template_content"));
    }
    if s.load_more_controls > 0 {
        return Some((true, "load_more"));
    }
    if s.infinite_scroll {
        return Some((true, "infinite_scroll"));
    }
    if s.collapsed_empty > 0 {
        return Some((true, "collapsed_content"));
    }
    Some((false, "static_ok"))
}

/// The page a tab is rendering, shared with its request interceptor.
#[derive(Debug, Default)]
pub(crate) struct PageCtx {
    /// The main document URL (fragment removed); its request is fulfilled from `body`.
    main: String,
    status: u16,
    content_type: String,
    body: Arc<Vec<u8>>,
    requests: u32,
    blocked: BTreeMap<String, u32>,
}

/// What sub-requests may do.
pub(crate) struct Policy {
    robots: RobotsCache,
    guard: Arc<Guard>,
    /// Name lookups of sub-requests, cached like the crawler's own.
    dns: crate::guard::DnsCache,
    handle: tokio::runtime::Handle,
    block_types: Vec<String>,
    block_hosts: Vec<String>,
    max_requests: u32,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("block_types", &self.block_types)
            .field("block_hosts", &self.block_hosts)
            .finish()
    }
}

fn strip_fragment(u: &str) -> String {
    match Url::parse(u) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => u.split('#').next().unwrap_or(u).to_string(),
    }
}

impl Policy {
    /// Why a sub-request is refused, or `None` to let it go out.
    /// `overrides`: whether the engine connects to `[crawl] resolve` overrides (Chromium
    /// gets them as host-resolver rules; lightpanda resolves names itself, so a name the
    /// guard checked by its override would reach whatever the name resolves to).
    fn refuse(&self, url: &str, rtype: &str, nth: u32, overrides: bool) -> Option<&'static str> {
        if nth > self.max_requests {
            return Some("budget");
        }
        let Ok(u) = Url::parse(url) else {
            return Some("guard");
        };
        if !matches!(u.scheme(), "http" | "https") {
            return Some("guard");
        }
        if rtype == "document" {
            return Some("navigation");
        }
        if u.path().ends_with("/favicon.ico") {
            return Some("type"); // the browser's own request, not the page's
        }
        if self.block_types.iter().any(|t| t == rtype) {
            return Some("type");
        }
        let host = u.host_str().unwrap_or("").to_ascii_lowercase();
        if !overrides && self.guard.resolve.contains_key(&host) {
            return Some("guard");
        }
        if self
            .block_hosts
            .iter()
            .any(|b| trawl_core::host_matches(&host, b))
        {
            return Some("tracker");
        }
        if self.guard.check_url(&u).is_err() {
            return Some("guard");
        }
        let is_literal = matches!(
            u.host(),
            Some(url::Host::Ipv4(_)) | Some(url::Host::Ipv6(_))
        ) || self.guard.resolve.contains_key(&host);
        if !is_literal {
            // names: every address must be allowed, since Chromium resolves again itself and
            // may pick any of them (the crawler's resolver only drops the refused ones)
            let addrs = self.handle.block_on(async {
                tokio::time::timeout(
                    Duration::from_secs(5),
                    crate::guard::lookup_cached(&self.dns, &host),
                )
                .await
            });
            match addrs {
                Ok(Ok(a)) if !a.is_empty() && a.iter().all(|a| self.guard.ip_allowed(a.ip())) => {}
                _ => return Some("guard"),
            }
        }
        let d = self.handle.block_on(self.robots.decide(&u));
        if d.unreachable || !d.crawl_allowed {
            return Some("robots");
        }
        None
    }
}

/// Counters of the pools (launches, restarts and their causes), for logs and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Chromium processes launched.
    pub launches: u64,
    /// Chromium restarts after `restart_after_pages`.
    pub restarts_pages: u64,
    /// Chromium restarts over the memory bound.
    pub restarts_memory: u64,
    /// Chromium processes found dead after a failed render.
    pub crashes: u64,
    /// lightpanda's counters.
    pub lightpanda: EngineStats,
}

/// The browser pools. Cheap to share (`Arc`); browsers start on first use.
pub struct Renderer {
    cfg: RenderConfig,
    /// Chromium's pool; `None`: not installed or not among the engines.
    chromium: Option<engine::Pool>,
    /// lightpanda's pool; `None`: not installed or not among the engines.
    light: Option<engine::Pool>,
    policy: Arc<Policy>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("chromium", &self.chromium)
            .field("lightpanda", &self.light)
            .field("browsers", &self.cfg.browsers)
            .field("tabs", &self.cfg.tabs_per_browser)
            .finish()
    }
}

/// Chromium's command-line flags (besides headless, the sandbox, the endpoint and the
/// profile, which the pool adds).
fn chromium_args(cfg: &RenderConfig, guard: &Guard) -> Vec<String> {
    let mut args: Vec<String> = [
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--deny-permission-prompts",
        "--block-new-web-contents",
        "--mute-audio",
        "--disable-domain-reliability",
        "--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
        "--dns-prefetch-disable",
        "--no-pings",
        "--hide-scrollbars",
        "--window-size=1280,1024",
        // pages in tabs the browser thinks are in the background get their timers clamped
        // to once a second (full Chromium's new headless mode does this; the driver's
        // polling then takes seconds per page)
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
        "--disable-renderer-backgrounding",
        "--disable-ipc-flooding-protection",
        "--disable-hang-monitor",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-component-extensions-with-background-pages",
        "--disable-default-apps",
        "--disable-breakpad",
        "--disable-client-side-phishing-detection",
        "--metrics-recording-only",
        "--password-store=basic",
        "--use-mock-keychain",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let heap = (cfg.max_browser_memory_mb / 2).max(128);
    args.push(format!("--js-flags=--max-old-space-size={heap}"));
    if !guard.resolve.is_empty() {
        let rules: Vec<String> = guard
            .resolve
            .iter()
            .map(|(h, a)| format!("MAP {h} {}", a.ip()))
            .collect();
        args.push(format!("--host-resolver-rules={}", rules.join(", ")));
    }
    args
}

impl Renderer {
    /// The pools for this configuration. Sub-requests are checked with `robots` (the crawl
    /// token) and `guard`; `handle` runs those checks (a multi-thread runtime).
    pub fn new(
        cfg: RenderConfig,
        robots: RobotsCache,
        guard: Arc<Guard>,
        handle: tokio::runtime::Handle,
    ) -> Renderer {
        let args = chromium_args(&cfg, &guard);
        let policy = Arc::new(Policy {
            robots,
            guard,
            dns: Default::default(),
            handle,
            block_types: cfg
                .block_resource_types
                .iter()
                .map(|t| t.to_ascii_lowercase())
                .collect(),
            block_hosts: cfg
                .block_hosts
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            max_requests: cfg.max_requests_per_page,
        });
        let wants = |k: EngineKind| cfg.engines.contains(&k);
        let chromium = wants(EngineKind::Chromium)
            .then(|| cfg.browser())
            .flatten()
            .map(|bin| engine::Pool::new(EngineKind::Chromium, bin, args, cfg.browsers));
        let light = wants(EngineKind::Lightpanda)
            .then(|| cfg.lightpanda_binary())
            .flatten()
            .map(|bin| engine::Pool::new(EngineKind::Lightpanda, bin, Vec::new(), cfg.browsers));
        if chromium.is_none() && light.is_none() {
            tracing::warn!(
                engines = %cfg.engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
                looked_for = %BROWSER_NAMES.join(", "),
                "no headless browser found: pages that need rendering are kept static and counted as render_unavailable; `scripts/setup.sh` installs lightpanda and chromium, or set [render] lightpanda / chromium, or [render] mode = \"never\""
            );
        } else if wants(EngineKind::Lightpanda) && light.is_none() {
            tracing::info!("lightpanda not found (`scripts/setup.sh` installs it): rendering with chromium alone");
        } else if wants(EngineKind::Chromium) && chromium.is_none() {
            tracing::info!(looked_for = %BROWSER_NAMES.join(", "), "chromium not found: rendering with lightpanda alone, no fallback");
        }
        Renderer {
            cfg,
            chromium,
            light,
            policy,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RenderConfig {
        &self.cfg
    }

    /// Whether an engine is installed (else pages that need one stay static).
    pub fn available(&self) -> bool {
        self.chromium.is_some() || self.light.is_some()
    }

    /// The engines pages are tried in, in order, among those installed.
    pub fn engines(&self) -> Vec<EngineKind> {
        self.cfg
            .engines
            .iter()
            .copied()
            .filter(|k| match k {
                EngineKind::Lightpanda => self.light.is_some(),
                EngineKind::Chromium => self.chromium.is_some(),
            })
            .collect()
    }

    /// Pool counters so far.
    pub fn stats(&self) -> PoolStats {
        let c = self
            .chromium
            .as_ref()
            .map(|p| p.stats())
            .unwrap_or_default();
        PoolStats {
            launches: c.launches,
            restarts_pages: c.restarts_pages,
            restarts_memory: c.restarts_memory,
            crashes: c.crashes,
            lightpanda: self.light.as_ref().map(|p| p.stats()).unwrap_or_default(),
        }
    }

    /// Process ids of the running Chromium browsers.
    pub fn browser_pids(&self) -> Vec<u32> {
        self.chromium.as_ref().map(|p| p.pids()).unwrap_or_default()
    }

    /// Stops every browser process now (pages rendered later start new ones).
    pub fn shutdown(&self) {
        for pool in [&self.chromium, &self.light].into_iter().flatten() {
            pool.shutdown();
        }
    }

    /// Process ids of the running lightpanda processes.
    pub fn lightpanda_pids(&self) -> Vec<u32> {
        self.light.as_ref().map(|p| p.pids()).unwrap_or_default()
    }

    /// Renders a fetched page (blocking: call from a blocking thread). Returns what happened
    /// and the DOM after interaction; on failure the static HTML stands (`None`).
    ///
    /// The engines are tried in order; a page goes on to the next when one fails (crash,
    /// timeout, error) or, when the decision expected content the static HTML lacks, returns
    /// a DOM without more visible text than the static HTML (`no_new_content`). The last
    /// engine's DOM is taken as it is; when every engine fails, the static HTML stands.
    pub fn render(&self, page: &FetchedPage, reason: &str) -> (RenderInfo, Option<String>) {
        let start = Instant::now();
        let mut info = RenderInfo {
            rendered: false,
            reason: reason.to_string(),
            ..Default::default()
        };
        let visit = Visit::new(&self.cfg, page);
        let expect_new = !reason.ends_with("_always");
        let engines = self.engines();
        let mut attempt = |engine: EngineKind| {
            let (pool, retries) = match engine {
                // the last resort: a crash is retried once on a new browser
                EngineKind::Chromium => (self.chromium.as_ref(), 1),
                // a crash goes to the next engine
                EngineKind::Lightpanda => (self.light.as_ref(), 0),
            };
            let answer = pool.expect("an installed engine").render(
                &self.cfg,
                &self.policy,
                page,
                &visit,
                &mut info,
                retries,
            )?;
            visit_answer(&answer, &mut info)
        };
        // what the decision expected: more text than the static HTML, and for content behind
        // interaction, the interaction having loaded something
        // (the static HTML's text is measured once, when an engine's DOM is first judged)
        let before = std::cell::OnceCell::new();
        let expected = |v: &Visited| {
            let before = *before.get_or_init(|| text_chars(&String::from_utf8_lossy(&page.body)));
            gained_text(before, &v.dom)
                && match reason {
                    "infinite_scroll" => v.scroll_loads > 0,
                    "load_more" | "collapsed_content" => v.clicks > 0,
                    _ => true,
                }
        };
        let t = tiers(&engines, expect_new, &mut attempt, expected);
        if let Some(f) = &t.fallback {
            tracing::debug!(url = %page.url, fallback = %f, "the first engine's result was not taken; tried the next");
        }
        let dom = t.taken.map(|(engine, v)| {
            info.engine = Some(engine.name().to_string());
            v.dom
        });
        info.rendered = dom.is_some();
        info.error = if dom.is_some() { None } else { t.error };
        info.fallback = t.fallback;
        info.ms = start.elapsed().as_millis() as u64;
        (info, dom)
    }
}

/// What the engine tiers gave: the engine whose DOM is taken and the DOM, else the last
/// error; why the first engine's result was not taken, when a next engine was tried.
#[derive(Debug, PartialEq)]
struct Tiered<E, T> {
    taken: Option<(E, T)>,
    error: Option<String>,
    fallback: Option<String>,
}

/// Tries `engines` in order. A DOM is taken when it is the last engine's, when no new
/// content is expected, or when `gained` says it holds more text than the static HTML;
/// otherwise (or on an error) the next engine is tried. When every later engine fails, the
/// static HTML stands (a DOM without the expected text is no better).
fn tiers<E: Copy, T>(
    engines: &[E],
    expect_new: bool,
    attempt: &mut dyn FnMut(E) -> Result<T, String>,
    gained: impl Fn(&T) -> bool,
) -> Tiered<E, T> {
    let mut out = Tiered {
        taken: None,
        error: None,
        fallback: None,
    };
    for (k, &engine) in engines.iter().enumerate() {
        let last = k + 1 == engines.len();
        match attempt(engine) {
            Ok(d) if last || !expect_new || gained(&d) => {
                out.taken = Some((engine, d));
                return out;
            }
            Ok(_) => {
                if k == 0 {
                    out.fallback = Some("no_new_content".into());
                }
            }
            Err(e) => {
                if k == 0 && !last {
                    let kind = if e == "timeout" || e == "crash" {
                        e.as_str()
                    } else {
                        "error"
                    };
                    out.fallback = Some(kind.to_string());
                }
                out.error = Some(e);
            }
        }
    }
    out
}

/// One page's visit, the same in every engine: where, the in-page driver, the time allowed.
pub(crate) struct Visit {
    /// The page's URL (fragment removed): its request is fulfilled from the fetched body.
    url: String,
    /// The driver script with its options.
    js: String,
    /// When the visit must have ended.
    deadline: Instant,
}

impl Visit {
    fn new(cfg: &RenderConfig, page: &FetchedPage) -> Visit {
        let url = strip_fragment(if page.final_url.is_empty() {
            &page.url
        } else {
            &page.final_url
        });
        let host = Url::parse(&url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let mut selectors = cfg.click_selectors.clone();
        if let Some(extra) = domain_lookup(&cfg.domain_click_selectors, &host) {
            selectors.extend(extra.iter().cloned());
        }
        let opts = serde_json::json!({
            "pageTimeout": cfg.page_timeout_ms,
            "settle": cfg.settle_ms,
            "budget": cfg.interaction_budget_ms,
            "steps": cfg.scroll_max_steps,
            "wait": cfg.scroll_wait_ms,
            "maxClicks": cfg.max_clicks,
        });
        // the whole visit is one in-page script: every CDP round trip costs latency, so load
        // wait, settling, banners, scrolling, clicks and the DOM come back from a single
        // evaluation
        let driver = DRIVER
            .replace("COOKIE", &cookie_js(&cfg.cookie_selectors))
            .replace("CLICK", &click_js(&selectors, &cfg.click_texts));
        Visit {
            url,
            js: format!("({driver})({opts})"),
            deadline: Instant::now()
                + Duration::from_millis(
                    cfg.page_timeout_ms + cfg.settle_ms + cfg.interaction_budget_ms + 5_000,
                ),
        }
    }

    /// The request context of a tab rendering this visit.
    fn ctx(&self, page: &FetchedPage) -> PageCtx {
        PageCtx {
            main: self.url.clone(),
            status: page.status,
            content_type: page
                .header("content-type")
                .unwrap_or("text/html")
                .to_string(),
            body: Arc::new(page.body.clone()),
            ..Default::default()
        }
    }
}

/// The DOM from the driver's answer, counting scrolls and clicks; a visit that timed out or
/// never left the blank page is an error (`timeout`).
fn visit_answer(r: &serde_json::Value, info: &mut RenderInfo) -> Result<Visited, String> {
    if r["timeout"].as_bool() == Some(true) || r["url"].as_str() == Some("about:blank") {
        return Err("timeout".into());
    }
    let n = |k: &str| r[k].as_u64().unwrap_or(0) as u32;
    info.scrolls += n("scrolls");
    info.clicks += n("clicks");
    Ok(Visited {
        dom: r["html"].as_str().unwrap_or_default().to_string(),
        clicks: n("clicks"),
        scroll_loads: n("scrollLoads"),
    })
}

/// What one engine's visit gave.
struct Visited {
    /// The DOM after interaction.
    dom: String,
    /// Elements clicked.
    clicks: u32,
    /// Scroll steps that started requests.
    scroll_loads: u32,
}

/// Whether a rendered DOM holds more visible text than the static HTML's `before`
/// characters: at least 20 characters and 5% more.
fn gained_text(before: usize, dom: &str) -> bool {
    text_chars(dom) >= before + (before / 20).max(20)
}

/// Visible text characters of an HTML document (as the decision counts them).
fn text_chars(html: &str) -> usize {
    static_signals(html).text_chars
}

/// Runs in the tab before any page script: counts fetch/XHR requests in flight, so the
/// driver knows when content loaded by script has arrived.
const INIT: &str = r#"(() => {
  if (window.__trawlInit) return;
  window.__trawlInit = 1; window.__trawlPending = 0; window.__trawlStarted = 0; window.__trawlLast = Date.now();
  const start = () => { window.__trawlPending++; window.__trawlStarted++; window.__trawlLast = Date.now(); };
  const done = () => { window.__trawlPending--; window.__trawlLast = Date.now(); };
  const f = window.fetch;
  if (f) window.fetch = function (...a) { start(); return f.apply(this, a).finally(done); };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...a) { start(); this.addEventListener('loadend', done); return send.apply(this, a); };
})();"#;

/// The visit, in the page: wait for the load (bounded), let the network settle, dismiss
/// cookie banners, scroll until the height stops growing once what each step loaded has
/// arrived, click what reveals content, open `<details>`, and return the DOM as JSON.
const DRIVER: &str = r#"async (o) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const t0 = Date.now();
  const r = { timeout: false, scrolls: 0, scrollLoads: 0, clicks: 0, url: location.href, html: '' };
  while (document.readyState !== 'complete') {
    if (Date.now() - t0 > o.pageTimeout) { r.timeout = true; return JSON.stringify(r); }
    await sleep(20);
  }
  const quiet = async (max) => {
    const end = Date.now() + Math.max(0, max);
    let seen = -1, since = Date.now();
    while (Date.now() < end) {
      const pending = window.__trawlPending || 0;
      const n = performance.getEntriesByType('resource').length;
      if (n !== seen) { seen = n; since = Date.now(); }
      else if (pending === 0 && Date.now() - since >= 80 && Date.now() - (window.__trawlLast || 0) >= 80) return;
      await sleep(20);
    }
  };
  try { performance.setResourceTimingBufferSize(100000); } catch (e) {}
  await quiet(o.settle);
  const end = Date.now() + o.budget;
  try { r.clicks += COOKIE; } catch (e) {}
  const click = CLICK;
  for (;;) {
    let last = 0;
    let lastStarted = window.__trawlStarted || 0;
    for (let i = 0; i < o.steps && Date.now() < end; i++) {
      const y = window.scrollY;
      window.scrollBy(0, window.innerHeight);
      // an engine without layout (lightpanda) does not move: the page's scroll listeners
      // are told anyway, at what is for them the bottom
      if (window.scrollY === y) window.dispatchEvent(new Event('scroll'));
      r.scrolls++;
      await sleep(40);
      await quiet(Math.min(o.wait, end - Date.now()));
      const h = document.documentElement.scrollHeight;
      const started = window.__trawlStarted || 0;
      if (started !== lastStarted) r.scrollLoads++;
      // at the bottom, and the step neither grew the page nor started a request
      if (Math.ceil(window.scrollY + window.innerHeight) >= h && h === last && started === lastStarted) break;
      last = h;
      lastStarted = started;
    }
    if (r.clicks >= o.maxClicks || Date.now() >= end) break;
    let n = 0;
    try { n = click(o.maxClicks - r.clicks); } catch (e) {}
    if (n === 0) break;
    r.clicks += n;
    await sleep(40);
    await quiet(Math.min(o.wait, end - Date.now()));
  }
  document.querySelectorAll('details:not([open])').forEach(d => d.open = true);
  r.url = location.href;
  r.html = (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + document.documentElement.outerHTML;
  return JSON.stringify(r);
}"#;

fn js_list(v: &[String]) -> String {
    serde_json::to_string(v).expect("strings")
}

/// Clicks accept buttons of cookie banners (configured selectors, then buttons saying
/// accept/agree inside elements whose id/class mention cookies or consent); removes such
/// banners when nothing could be clicked. Returns the number of clicks.
fn cookie_js(selectors: &[String]) -> String {
    format!(
        r#"(() => {{
  let n = 0;
  for (const s of {sel}) {{ let el; try {{ el = document.querySelector(s); }} catch (e) {{ continue; }}
    if (el && el.offsetParent !== null) {{ el.click(); n++; }} }}
  const banner = /cookie|consent|gdpr|cmp-|privacy-banner/i;
  const ok = /^(accept|agree|allow|ok|got it|i agree|accept all|allow all|close)\b/i;
  for (const b of document.querySelectorAll('[id],[class]')) {{
    const tag = (b.id || '') + ' ' + (typeof b.className === 'string' ? b.className : '');
    if (!banner.test(tag) || b.tagName === 'BODY' || b.tagName === 'HTML') continue;
    const btn = Array.from(b.querySelectorAll('button,a,[role=button]')).find(x => ok.test((x.innerText || '').trim()));
    if (btn && n < 3) {{ btn.click(); n++; continue; }}
    const pos = getComputedStyle(b).position;
    if (pos === 'fixed' || pos === 'sticky') b.remove();
  }}
  document.documentElement.style.overflow = ''; document.body && (document.body.style.overflow = '');
  return n;
}})()"#,
        sel = js_list(selectors)
    )
}

/// A function of `left` clicking up to `left` visible, not yet clicked elements that reveal
/// content; returns the number clicked. Links that navigate are never clicked.
fn click_js(selectors: &[String], texts: &[String]) -> String {
    let texts: Vec<String> = texts.iter().map(|t| t.to_lowercase()).collect();
    format!(
        r#"(left) => {{
  const seen = new Set(); const out = [];
  const add = el => {{ if (!seen.has(el) && !el.dataset.trawlClicked && el.offsetParent !== null) {{ seen.add(el); out.push(el); }} }};
  for (const s of {sel}) {{ try {{ document.querySelectorAll(s).forEach(add); }} catch (e) {{}} }}
  const texts = {texts};
  for (const el of document.querySelectorAll('button, [role=button], summary, a, input[type=button]')) {{
    if (el.tagName === 'A') {{ const h = (el.getAttribute('href') || '').trim(); if (h && !h.startsWith('#') && !h.toLowerCase().startsWith('javascript:')) continue; }}
    const t = (el.innerText || el.value || '').trim().toLowerCase();
    if (t.length > 0 && t.length <= 40 && texts.some(x => t.includes(x))) add(el);
  }}
  // disclosure controls whose panel is empty: its content arrives when it is expanded
  const notContent = {not_content};
  for (const el of document.querySelectorAll('[aria-expanded="false"][aria-controls]')) {{
    if (el.closest('nav, header, footer, dialog, [role=navigation], [role=dialog]')) continue;
    const p = document.getElementById(el.getAttribute('aria-controls'));
    if (!p || (p.textContent || '').trim().length >= 20) continue;
    const names = [el.id, el.getAttribute('class'), p.id, p.getAttribute('class')].join(' ').toLowerCase();
    if (notContent.some(w => names.includes(w))) continue;
    add(el);
  }}
  let n = 0;
  for (const el of out) {{ if (n >= left) break; el.dataset.trawlClicked = '1'; try {{ el.click(); n++; }} catch (e) {{}} }}
  return n;
}}"#,
        sel = js_list(selectors),
        texts = js_list(&texts),
        not_content = js_list(
            &NOT_CONTENT_PANELS
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
        )
    )
}

/// What a paused request gets, whatever the engine.
#[derive(Debug)]
pub(crate) enum Paused {
    /// The main document, from the fetched response: status, content type, body.
    Fulfill(u16, String, Arc<Vec<u8>>),
    /// Let it go out.
    Continue,
    /// Refused.
    Fail,
}

/// The request policy of a tab: the main document from the fetched response, every other
/// request through the policy (refusals counted by reason on the page).
pub(crate) fn paused(
    policy: &Policy,
    ctx: &Mutex<PageCtx>,
    url: &str,
    rtype: &str,
    overrides: bool,
) -> Paused {
    let url = strip_fragment(url);
    let rtype = rtype.to_ascii_lowercase();
    let (main, nth) = {
        let mut c = ctx.lock().expect("ctx");
        if rtype == "document" && url == c.main {
            return Paused::Fulfill(c.status, c.content_type.clone(), c.body.clone());
        }
        c.requests += 1;
        (c.main.clone(), c.requests)
    };
    if main.is_empty() {
        // no page in this tab (about:blank between pages): nothing may go out
        return Paused::Fail;
    }
    match policy.refuse(&url, &rtype, nth, overrides) {
        None => Paused::Continue,
        Some(reason) => {
            tracing::trace!(%url, %rtype, reason, "sub-request refused");
            *ctx.lock()
                .expect("ctx")
                .blocked
                .entry(reason.to_string())
                .or_default() += 1;
            Paused::Fail
        }
    }
}

/// Resident memory of a process and all its descendants, MiB (Linux `/proc`).
pub fn tree_rss_mb(pid: u32) -> u64 {
    let page_kb = 4u64;
    process_tree(pid)
        .iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/statm")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map(|pages| pages * page_kb)
        .sum::<u64>()
        / 1024
}

/// A process and all its descendants (Linux `/proc`), the process first.
pub(crate) fn process_tree(pid: u32) -> Vec<u32> {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) {
                // the field after the parenthesised command: state, then ppid
                if let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) {
                    if let Some(pp) = rest.split_whitespace().nth(1).and_then(|s| s.parse().ok()) {
                        parent.push((p, pp));
                    }
                }
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let cur = tree[i];
        tree.extend(parent.iter().filter(|(_, pp)| *pp == cur).map(|(p, _)| *p));
        i += 1;
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> FetchedPage {
        FetchedPage {
            url: "http://a.test/".into(),
            final_url: "http://a.test/".into(),
            status: 200,
            headers: vec![("content-type".into(), "text/html".into())],
            body: body.as_bytes().to_vec(),
            ..Default::default()
        }
    }

    fn auto() -> RenderConfig {
        RenderConfig {
            mode: RenderMode::Auto,
            ..Default::default()
        }
    }

    #[test]
    fn engine_tiers_fall_back_on_failure_and_on_no_new_content() {
        let run = |results: Vec<Result<&str, &str>>, expect_new: bool| {
            let mut tried = Vec::new();
            let engines: Vec<usize> = (0..results.len()).collect();
            let t = tiers(
                &engines,
                expect_new,
                &mut |e: usize| {
                    tried.push(e);
                    results[e].map(String::from).map_err(String::from)
                },
                |d: &String| d.contains("more"),
            );
            (t, tried)
        };
        let taken = |e: usize, d: &str| Some((e, d.to_string()));
        // the light engine's DOM has the new text: Chromium is not started
        let (t, tried) = run(vec![Ok("more text"), Ok("more text")], true);
        assert_eq!(
            (t.taken, t.fallback, tried),
            (taken(0, "more text"), None, vec![0])
        );
        // no new text where the decision expected some: the next engine's DOM
        let (t, tried) = run(vec![Ok("same"), Ok("more")], true);
        assert_eq!(t.taken, taken(1, "more"));
        assert_eq!(
            (t.fallback.as_deref(), tried),
            (Some("no_new_content"), vec![0, 1])
        );
        // the last engine's DOM is taken as it is
        let (t, _) = run(vec![Ok("same"), Ok("same too")], true);
        assert_eq!(t.taken, taken(1, "same too"));
        // a crash or timeout of the first engine
        let (t, _) = run(vec![Err("crash"), Ok("more")], true);
        assert_eq!(
            (t.taken, t.fallback.as_deref()),
            (taken(1, "more"), Some("crash"))
        );
        let (t, _) = run(vec![Err("evaluate: boom"), Ok("x")], true);
        assert_eq!(t.fallback.as_deref(), Some("error"));
        // the next engine failing too: the static HTML stands
        let (t, _) = run(vec![Ok("same"), Err("timeout")], true);
        assert_eq!(
            (t.taken, t.error.as_deref(), t.fallback.as_deref()),
            (None, Some("timeout"), Some("no_new_content"))
        );
        // nothing came back: the last error
        let (t, _) = run(vec![Err("crash"), Err("timeout")], true);
        assert_eq!((t.taken, t.error.as_deref()), (None, Some("timeout")));
        // mode = "always": no content is expected, the first DOM is taken
        let (t, tried) = run(vec![Ok("same"), Ok("more")], false);
        assert_eq!((t.taken, tried), (taken(0, "same"), vec![0]));
        // one engine: no fallback to speak of
        let (t, _) = run(vec![Err("timeout")], true);
        assert_eq!((t.taken, t.fallback), (None, None));
    }

    #[test]
    fn static_pages_are_not_rendered() {
        let article = format!("<html><head><script src=/analytics.js></script></head><body><article><h1>Title</h1><p>{}</p></article><noscript>Please enable JavaScript to see comments.</noscript></body></html>", "Words of a real article. ".repeat(60));
        assert_eq!(decide(&auto(), &page(&article)), Some((false, "static_ok")));
        // short but script-free pages are static too
        assert_eq!(
            decide(&auto(), &page("<p>Contact us at the harbour office.</p>")),
            Some((false, "static_ok"))
        );
        // a server-rendered Next.js page carries its content
        let next = format!("<div id=__next><main><p>{}</p></main></div><script id=__NEXT_DATA__ type=application/json>{{\"props\":{{}}}}</script>", "Server rendered text. ".repeat(40));
        assert_eq!(decide(&auto(), &page(&next)), Some((false, "static_ok")));
    }

    #[test]
    fn js_only_pages_are_rendered_with_their_reason() {
        assert_eq!(decide(&auto(), &page("<html><body><div id=\"root\"></div><script src=\"/bundle.js\"></script></body></html>")), Some((true, "empty_app_root")));
        assert_eq!(decide(&auto(), &page("<body><noscript>You need to enable JavaScript to run this app.</noscript><main></main><script src=/a.js></script></body>")), Some((true, "noscript_requires_js")));
        let heavy = format!(
            "<body><h1>Shop</h1><script>{}</script></body>",
            "var x = 1;".repeat(2000)
        );
        assert_eq!(
            decide(&auto(), &page(&heavy)),
            Some((true, "little_text_heavy_scripts"))
        );
        assert_eq!(
            decide(
                &auto(),
                &page("<body><app-root></app-root><script src=main.js></script></body>")
            ),
            Some((true, "empty_app_root"))
        );
    }

    #[test]
    fn pages_with_text_that_hold_more_behind_script_are_rendered() {
        let text = format!(
            "<p>{}</p>",
            "Words of a real article about the harbour. ".repeat(20)
        );
        let with = |extra: &str| {
            page(&format!(
                "<html><body><main>{text}{extra}</main><script src=/app.js></script></body></html>"
            ))
        };
        // a load-more button, or a link going nowhere
        assert_eq!(
            decide(&auto(), &with("<button type=button>Load more</button>")),
            Some((true, "load_more"))
        );
        assert_eq!(
            decide(
                &auto(),
                &with("<a href=\"#\" class=x>More results &rarr;</a>")
            ),
            Some((true, "load_more"))
        );
        // a link the crawler follows, and "show more" (clipped text already there), do not count
        assert_eq!(
            decide(
                &auto(),
                &with("<a href=\"/page/2\">Load more</a><button>Show more</button>")
            ),
            Some((false, "static_ok"))
        );
        // infinite scroll: a loader script, or a sentinel
        let loader = "<script>window.addEventListener('scroll', () => { fetch('/next').then(r => r.text()).then(t => list.insertAdjacentHTML('beforeend', t)); });</script>";
        assert_eq!(
            decide(&auto(), &with(loader)),
            Some((true, "infinite_scroll"))
        );
        assert_eq!(
            decide(
                &auto(),
                &with("<div class=\"infinite-scroll-trigger\"></div>")
            ),
            Some((true, "infinite_scroll"))
        );
        assert_eq!(
            decide(&auto(), &with("<div data-next-url=\"/p/2\"></div>")),
            Some((true, "infinite_scroll"))
        );
        // analytics that beacon on scroll are not loaders; a sticky header's sentinel is not one
        let beacon = "<script>window.addEventListener('scroll', () => { fetch('/collect', {method: 'POST', body: '1'}); document.body.appendChild(img); });</script><div class=header-sentinel></div>";
        assert_eq!(decide(&auto(), &with(beacon)), Some((false, "static_ok")));
        // a hydration payload holding more text than the page shows
        let story = "The council met on Tuesday to decide the future of the old ferry terminal and its market hall. ".repeat(12);
        let payload = format!("<script id=__NEXT_DATA__ type=application/json>{{\"props\":{{\"body\":\"{story}\"}}}}</script>");
        let short = page(&format!(
            "<main><p>{}</p></main>{payload}<script src=/a.js></script>",
            "Short teaser text for the story. ".repeat(12)
        ));
        assert_eq!(decide(&auto(), &short), Some((true, "hydration_payload")));
        // ... but not when the page shows that text
        let shown = page(&format!(
            "<main><p>{story}</p></main>{payload}<script src=/a.js></script>"
        ));
        assert_eq!(decide(&auto(), &shown), Some((false, "static_ok")));
        // a template with the text
        assert_eq!(
            decide(
                &auto(),
                &with(&format!(
                    "<template><section><p>{story}{story}</p></section></template>"
                ))
            ),
            Some((true, "template_content"))
        );
        // a disclosure control naming an empty panel; a menu toggle does not count
        assert_eq!(decide(&auto(), &with("<button aria-expanded=false aria-controls=faq1>How do refunds work?</button><div id=faq1></div>")), Some((true, "collapsed_content")));
        assert_eq!(decide(&auto(), &with("<nav><button aria-expanded=false aria-controls=m>Menu</button></nav><div id=m></div><button aria-expanded=false aria-controls=site-search>Search</button><div id=site-search></div>")), Some((false, "static_ok")));
        // without any script nothing can change after load
        let noscript = page(&format!("<main>{text}<button>Load more</button></main>"));
        assert_eq!(decide(&auto(), &noscript), Some((false, "static_ok")));
    }

    #[test]
    fn modes_domains_status_and_type() {
        let mut cfg = RenderConfig {
            mode: RenderMode::Never,
            ..Default::default()
        };
        assert_eq!(
            decide(&cfg, &page("<div id=root></div>")),
            None,
            "never: no decision recorded"
        );
        cfg.domains.insert("a.test".into(), RenderMode::Always);
        assert_eq!(
            decide(&cfg, &page("<p>x</p>")),
            Some((true, "domain_always"))
        );
        let mut sub = page("<p>x</p>");
        sub.final_url = "http://www.a.test/x".into();
        assert_eq!(
            decide(&cfg, &sub),
            Some((true, "domain_always")),
            "parent domains match"
        );
        cfg.mode = RenderMode::Always;
        cfg.domains.insert("a.test".into(), RenderMode::Never);
        assert_eq!(
            decide(&cfg, &page("<div id=root></div>")),
            Some((false, "domain_never"))
        );
        cfg.domains.clear();
        let mut p = page("<div id=root></div>");
        p.status = 404;
        assert_eq!(decide(&cfg, &p), Some((false, "status")));
        let mut p = page("{}");
        p.headers = vec![("content-type".into(), "application/json".into())];
        assert_eq!(decide(&cfg, &p), Some((false, "not_html")));
    }

    #[test]
    fn config_errors_name_the_key() {
        let c = RenderConfig {
            mode: RenderMode::Auto,
            chromium: "/nonexistent/chromium".into(),
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "render.chromium");
        let c = RenderConfig {
            block_resource_types: vec!["sound".into()],
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "render.block_resource_types");
        let c = RenderConfig {
            browsers: 0,
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "render.browsers");
        assert!(RenderConfig::default().validate().is_ok());
    }
}
