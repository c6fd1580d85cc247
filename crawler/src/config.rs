use serde::{Deserialize, Serialize};

/// The `[crawl]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrawlConfig {
    /// Whether `trawl run` crawls (false: start from existing WARC under `crawl/warc/`).
    pub enabled: bool,
    /// Start URLs.
    pub seeds: Vec<String>,
    /// A file of further start URLs, one per line (`#` comments).
    pub seeds_file: Option<String>,
    /// The product token robots.txt rules are matched against for fetching.
    pub crawl_token: String,
    /// The token whose robots.txt rules decide training use (recorded in consent).
    pub training_token: String,
    /// The full User-Agent header sent (should contain the crawl token and a contact URL).
    pub user_agent: String,
    /// Stop after this many fetched pages. In a crawl by `n` workers (`--shard i/n`) each
    /// worker stops after `ceil(max_pages / n)` of its own (a global count would need
    /// coordination); the per-host cap below keeps its meaning, as a host lives in one worker.
    pub max_pages: usize,
    /// Links deeper than this from a seed are not followed.
    pub max_depth: u32,
    /// At most this many pages per host.
    pub max_pages_per_host: usize,
    /// Links followed from one page, the first in document order; further ones are counted
    /// (`links_left_out` in the crawl stats). Bounds what one page (a link farm) adds to the
    /// frontier.
    pub max_links_per_page: usize,
    /// Hosts allowed (suffix match, e.g. `example.org`); empty = any.
    pub allowed_domains: Vec<String>,
    /// Hosts never crawled (suffix match).
    pub blocked_domains: Vec<String>,
    /// URLs containing any of these substrings are skipped.
    pub blocked_patterns: Vec<String>,
    /// Query parameters removed during canonicalisation (session ids, trackers).
    pub strip_query_params: Vec<String>,
    /// Minimum delay between two requests to the same host, milliseconds.
    pub delay_ms: u64,
    /// Crawl-delay from robots.txt is honoured up to this many seconds; above it the host
    /// is skipped.
    pub max_crawl_delay_secs: f64,
    /// Hosts fetched concurrently.
    pub concurrency: usize,
    /// Per-request timeout, seconds.
    pub timeout_secs: u64,
    /// Bodies larger than this (after decompression) are dropped as `too_large`.
    pub max_body_bytes: usize,
    /// Pages per WARC part (the unit of commit and of downstream shards).
    pub pages_per_part: usize,
    /// A WARC part also closes once its response bodies reach this many bytes (rotation by
    /// size; the part that reaches it keeps the page that crossed it).
    pub max_part_bytes: u64,
    /// Retries of a page answered 429 or 503 (after `Retry-After`, or an exponential backoff
    /// from `delay_ms`).
    pub max_retries: u32,
    /// Longest wait for one retry, seconds (a longer Retry-After drops the page instead).
    pub max_backoff_secs: u64,
    /// After this many consecutive failures (5xx, 429, timeouts, connection errors) the rest
    /// of a host's URLs are skipped for this crawl.
    pub host_error_budget: u32,
    /// Allow private, loopback, link-local and other non-public addresses (the SSRF guard
    /// refuses them by default; tests and the demo web on 127.0.0.x need this).
    pub allow_private_addresses: bool,
    /// `"host:port" = "ip:port"` overrides, like curl's --resolve, so named hosts can be
    /// served from chosen addresses (the guard still applies to them).
    pub resolve: std::collections::BTreeMap<String, String>,
    /// A robots.txt is used for at most this long before it is fetched again (RFC 9309:
    /// 24 hours); when the refresh fails, the cached copy stays in force.
    pub robots_max_age_secs: u64,
    /// Use the seeds' sitemaps (`Sitemap:` lines of robots.txt, else `/sitemap.xml`; index
    /// files and gzip followed) as further seeds.
    pub sitemaps: bool,
    /// At most this many URLs taken from sitemaps per crawl (and per seed host).
    pub max_sitemap_urls: usize,
    /// How URLs are ordered within each crawl depth (what the page budget keeps).
    pub priority: PriorityConfig,
    /// Run root of an earlier batch whose frontier this crawl continues: the URLs it found
    /// but left for lack of budget (`budget_exhausted`) become seeds of this one.
    pub continue_from: Option<String>,
    /// Run root of an earlier crawl of the same sites: pages it holds are requested with
    /// If-None-Match / If-Modified-Since, and a 304 becomes a WARC `revisit` record whose
    /// page carries the earlier body downstream.
    pub recrawl_from: Option<String>,
    /// Local directory of the crawl journal (RocksDB; every fetch outcome, so a killed crawl
    /// never fetches a URL twice). Default: under ~/.cache/trawl, keyed by the run root.
    pub state_dir: Option<String>,
    /// The crawl stops, with an error saying so, when the disk holding `state_dir` has less
    /// free space than this (MiB): RocksDB on a full disk can abort the process. A rerun goes
    /// on where it stopped. 0 turns the check off.
    pub min_free_disk_mb: u64,
    /// A round's URLs are decided, fetched and written this many at a time, in the round's
    /// order (the queue itself waits on disk beside the journal): memory holds one chunk, and
    /// fetches run concurrently within a chunk. What is fetched and written does not depend
    /// on it.
    pub frontier_chunk: usize,
    /// Keep the set of URLs already queued on local disk too (in the frontier store) instead of
    /// memory, where it takes 16-40 bytes a URL: for a worker that queues billions of URLs.
    /// Costs a lookup in the store per link found; what is fetched does not change.
    pub seen_on_disk: bool,
    /// In a crawl by several workers, how long one waits for the others to deliver a round's
    /// links before it stops with an error naming the missing worker, seconds.
    pub worker_timeout_secs: u64,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            enabled: true,
            seeds: Vec::new(),
            seeds_file: None,
            crawl_token: "trawl".into(),
            training_token: "trawl-extended".into(),
            user_agent: "trawl/0.1 (+https://example.invalid/trawl-bot)".into(),
            max_pages: 1000,
            max_depth: 5,
            max_pages_per_host: 1000,
            max_links_per_page: 1000,
            allowed_domains: Vec::new(),
            blocked_domains: Vec::new(),
            blocked_patterns: Vec::new(),
            strip_query_params: vec![
                "utm_source".into(),
                "utm_medium".into(),
                "utm_campaign".into(),
                "sessionid".into(),
                "phpsessid".into(),
                "sid".into(),
            ],
            delay_ms: 1000,
            max_crawl_delay_secs: 30.0,
            concurrency: 16,
            timeout_secs: 30,
            max_body_bytes: 10 * 1024 * 1024,
            pages_per_part: 1000,
            max_part_bytes: 1 << 30,
            max_retries: 3,
            max_backoff_secs: 120,
            host_error_budget: 10,
            allow_private_addresses: false,
            resolve: std::collections::BTreeMap::new(),
            state_dir: None,
            min_free_disk_mb: 256,
            worker_timeout_secs: 3600,
            frontier_chunk: 10_000,
            seen_on_disk: false,
            robots_max_age_secs: 86_400,
            continue_from: None,
            recrawl_from: None,
            sitemaps: true,
            max_sitemap_urls: 50_000,
            priority: PriorityConfig::default(),
        }
    }
}

impl CrawlConfig {
    /// Whether a URL is on a blocked domain (suffix match) or contains a blocked pattern:
    /// for pages and their resources alike.
    pub(crate) fn blocked(&self, u: &url::Url) -> bool {
        let host = u.host_str().unwrap_or("");
        self.blocked_domains
            .iter()
            .any(|d| trawl_core::host_matches(host, d))
            || self
                .blocked_patterns
                .iter()
                .any(|p| u.as_str().contains(p.as_str()))
    }

    /// The SSRF guard this config asks for.
    pub fn guard(&self) -> crate::guard::Guard {
        let resolve = self
            .resolve
            .iter()
            .filter_map(|(k, v)| {
                Some((k.rsplit_once(':')?.0.to_ascii_lowercase(), v.parse().ok()?))
            })
            .collect();
        crate::guard::Guard {
            allow_private: self.allow_private_addresses,
            resolve,
        }
    }

    /// The seeds of the config and of `seeds_file`.
    pub fn all_seeds(&self) -> Result<Vec<String>, (String, String)> {
        let mut out = self.seeds.clone();
        if let Some(f) = &self.seeds_file {
            let text = std::fs::read_to_string(f).map_err(|e| {
                (
                    "crawl.seeds_file".to_string(),
                    format!("cannot read `{f}`: {e}"),
                )
            })?;
            out.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(String::from),
            );
        }
        Ok(out)
    }

    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, r: String| Err((format!("crawl.{k}"), r));
        let seeds = self.all_seeds()?;
        for s in &seeds {
            match url::Url::parse(s) {
                Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
                Ok(u) => {
                    return bad(
                        "seeds",
                        format!("`{s}`: scheme `{}` is not http or https", u.scheme()),
                    )
                }
                Err(e) => return bad("seeds", format!("`{s}` is not a URL: {e}")),
            }
        }
        if self.max_links_per_page == 0 {
            return bad(
                "max_links_per_page",
                "must be at least 1 (max_depth = 0 follows no link)".into(),
            );
        }
        if self.crawl_token.is_empty()
            || !self
                .crawl_token
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
        {
            return bad(
                "crawl_token",
                format!(
                    "`{}` must be a non-empty product token of letters, `-` and `_` (RFC 9309)",
                    self.crawl_token
                ),
            );
        }
        if self.training_token.is_empty()
            || !self
                .training_token
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
        {
            return bad(
                "training_token",
                format!(
                    "`{}` must be a non-empty product token of letters, `-` and `_`",
                    self.training_token
                ),
            );
        }
        if !self
            .user_agent
            .to_ascii_lowercase()
            .contains(&self.crawl_token.to_ascii_lowercase())
        {
            return bad(
                "user_agent",
                format!(
                    "`{}` must contain the crawl token `{}` so site owners can match it",
                    self.user_agent, self.crawl_token
                ),
            );
        }
        if self.concurrency == 0 {
            return bad("concurrency", "must be at least 1".into());
        }
        if self.max_body_bytes < 1024 {
            return bad(
                "max_body_bytes",
                format!(
                    "{} is too small to hold any page (minimum 1024)",
                    self.max_body_bytes
                ),
            );
        }
        if self.frontier_chunk == 0 {
            return bad(
                "frontier_chunk",
                "must be at least 1 (URLs of a round handled at a time)".into(),
            );
        }
        if self.worker_timeout_secs == 0 {
            return bad(
                "worker_timeout_secs",
                "must be at least 1 (seconds a worker waits for the others' links)".into(),
            );
        }
        if self.robots_max_age_secs == 0 {
            return bad(
                "robots_max_age_secs",
                "must be at least 1 (0 would fetch robots.txt again before every page)".into(),
            );
        }
        if !(self.max_crawl_delay_secs >= 0.0 && self.max_crawl_delay_secs.is_finite()) {
            return bad(
                "max_crawl_delay_secs",
                format!(
                    "{} must be a finite number of seconds >= 0",
                    self.max_crawl_delay_secs
                ),
            );
        }
        if !(self.priority.max_host_share > 0.0 && self.priority.max_host_share <= 1.0) {
            return bad(
                "priority.max_host_share",
                format!("{} must be in (0, 1]", self.priority.max_host_share),
            );
        }
        if self.pages_per_part == 0 {
            return bad("pages_per_part", "must be at least 1".into());
        }
        if self.timeout_secs == 0 {
            return bad("timeout_secs", "must be at least 1".into());
        }
        for (k, v) in &self.resolve {
            if k.rsplit_once(':')
                .is_none_or(|(h, p)| h.is_empty() || p.parse::<u16>().is_err())
            {
                return bad("resolve", format!("`{k}` must be host:port"));
            }
            if v.parse::<std::net::SocketAddr>().is_err() {
                return bad("resolve", format!("`{v}` (for `{k}`) must be ip:port"));
            }
        }
        if self.max_crawl_delay_secs.is_nan() || self.max_crawl_delay_secs < 0.0 {
            return bad(
                "max_crawl_delay_secs",
                "must be a non-negative number".into(),
            );
        }
        Ok(())
    }
}

/// `[crawl.priority]`: the frontier score of a URL is the sum of the weights of the path
/// patterns it contains, `query_param_weight` per query parameter (faceted search), and
/// `language_weight` times the fraction of its host's pages already fetched that whatlang
/// finds in `target_languages`. Within a depth, URLs are taken round-robin across hosts in
/// score order (diversity), and no host gets more than `max_host_share` of `max_pages`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PriorityConfig {
    /// Substring of the lowercased path and query -> weight.
    pub path_weights: std::collections::BTreeMap<String, f64>,
    /// Weight per query parameter.
    pub query_param_weight: f64,
    /// ISO 639-3 languages the crawl wants more of (empty: language is not used).
    pub target_languages: Vec<String>,
    /// Weight of the host's fraction of target-language pages.
    pub language_weight: f64,
    /// No host gets more than this fraction of `max_pages`.
    pub max_host_share: f64,
    /// Run root of an earlier batch: each host's fraction of extracted documents that
    /// survived its filters and dedup there raises (or lowers) its URLs' scores.
    pub quality_from: Option<String>,
    /// Weight of that fraction (hosts the earlier batch did not see count 0.5).
    pub quality_weight: f64,
}

impl Default for PriorityConfig {
    fn default() -> Self {
        let w: &[(&str, f64)] = &[
            ("/login", -5.0),
            ("/signin", -5.0),
            ("/register", -5.0),
            ("/cart", -5.0),
            ("/checkout", -5.0),
            ("/wp-admin", -5.0),
            ("/wp-json", -5.0),
            ("/search", -3.0),
            ("/calendar", -3.0),
            ("/share", -3.0),
            ("/tag/", -2.0),
            ("/tags/", -2.0),
            ("/print/", -2.0),
            ("/feed", -2.0),
            ("/category/", -1.0),
            ("sort=", -1.0),
            ("filter=", -1.0),
            ("replytocom=", -3.0),
            ("/article", 1.0),
            ("/news/", 0.5),
            ("/blog/", 0.5),
            ("/wiki/", 0.5),
            ("/docs/", 0.5),
        ];
        PriorityConfig {
            path_weights: w.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            query_param_weight: -0.5,
            target_languages: Vec::new(),
            language_weight: 2.0,
            max_host_share: 0.25,
            quality_from: None,
            quality_weight: 2.0,
        }
    }
}
