//! `trawl-crawler`: a polite crawler that obeys robots.txt for two product tokens, records
//! consent, fetches deterministically and writes WARC.
//!
//! The crawl is breadth-first and runs in rounds, one per depth: a round's URLs are taken
//! from the on-disk queue in a fixed order (round-robin across hosts, best score first),
//! decided (robots, limits) in that order, fetched concurrently across hosts but one at a
//! time per host with the configured delay, and emitted in that order, a chunk at a time.
//! The same web therefore yields the same pages in the same order, and pages are grouped into
//! WARC parts of a fixed size, each committed atomically with a completion marker. A host
//! answering 429/503 waits out its backoff in later rounds while the others go on. Every
//! outcome is journaled the moment it is known; a rerun replays committed parts from their
//! WARC files and the journal instead of fetching again and continues where the crawl
//! stopped. Several workers share a crawl by registered domain and exchange links through
//! the run root ([`partition`]).
//!
//! ```no_run
//! # async fn f(root: trawl_storage::Storage) {
//! let cfg = trawl_crawler::CrawlConfig { seeds: vec!["http://127.0.0.2:8080/".into()], ..Default::default() };
//! let (tx, mut rx) = tokio::sync::mpsc::channel(2);
//! let crawler = trawl_crawler::Crawler::new(cfg).unwrap();
//! tokio::spawn(async move { crawler.run(&root, tx, None).await });
//! while let Some(part) = rx.recv().await { println!("part {} with {} pages", part.index, part.pages.len()); }
//! # }
//! ```
#![deny(missing_docs)]

mod canon;
pub mod cdp;
mod config;
mod crawl;
mod fetch;
mod frontier;
pub mod guard;
mod journal;
mod links;
pub mod partition;
pub mod render;
mod resources;
mod robots;
mod sitemap;

pub use canon::canonicalize;
pub use config::{CrawlConfig, PriorityConfig};
pub use crawl::{CrawlError, CrawlPart, CrawlState, Crawler};
pub use render::{EngineKind, RenderConfig, RenderMode, Renderer};
pub use resources::{resource_reasons, Resource, ResourceFetcher, ResourceLimits, ResourceOutcome};
pub use robots::{
    allowed as robots_allowed, escape_pattern, match_path, matched_rule,
    preprocess as robots_preprocess, product_token, RobotsCache, RobotsDecision,
};

/// Drop reasons of the crawl stage.
pub mod reasons {
    use trawl_core::DropReason;

    /// A reason by its name (for the crawl journal).
    pub fn by_name(name: &str) -> Option<DropReason> {
        [
            ROBOTS_DISALLOWED,
            ROBOTS_UNREACHABLE,
            CRAWL_DELAY_TOO_HIGH,
            OUT_OF_SCOPE,
            BUDGET,
            FETCH_ERROR,
            TIMEOUT,
            TOO_LARGE,
            REDIRECTS,
            PRIVATE_ADDRESS,
            HOST_ERROR_BUDGET,
            OVERLOADED,
            REDIRECT_DISALLOWED,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }
    /// robots.txt disallows the crawl token.
    pub const ROBOTS_DISALLOWED: DropReason = DropReason::new("robots_disallowed");
    /// robots.txt could not be fetched (5xx, 429, network): RFC 9309 says assume disallow.
    pub const ROBOTS_UNREACHABLE: DropReason = DropReason::new("robots_unreachable");
    /// Crawl-delay above the configured cap: the host is skipped, not crawled impolitely.
    pub const CRAWL_DELAY_TOO_HIGH: DropReason = DropReason::new("crawl_delay_too_high");
    /// Outside the allowed domains or matching a blocked pattern.
    pub const OUT_OF_SCOPE: DropReason = DropReason::new("out_of_scope");
    /// Page budget for the crawl or host exhausted.
    pub const BUDGET: DropReason = DropReason::new("budget_exhausted");
    /// Transport error (connection refused, reset, DNS).
    pub const FETCH_ERROR: DropReason = DropReason::new("fetch_error");
    /// Timed out.
    pub const TIMEOUT: DropReason = DropReason::new("timeout");
    /// Body larger than the configured cap.
    pub const TOO_LARGE: DropReason = DropReason::new("too_large");
    /// Too many redirects or a redirect loop.
    pub const REDIRECTS: DropReason = DropReason::new("too_many_redirects");
    /// The URL (or a redirect) leads to a private, loopback or otherwise non-public address.
    pub const PRIVATE_ADDRESS: DropReason = DropReason::new("private_address");
    /// The host failed too often in a row; its remaining URLs are skipped.
    pub const HOST_ERROR_BUDGET: DropReason = DropReason::new("host_error_budget");
    /// Still 429/503 after the allowed retries (or a Retry-After beyond the cap).
    pub const OVERLOADED: DropReason = DropReason::new("server_overloaded");
    /// A redirect leads to a URL robots.txt disallows.
    pub const REDIRECT_DISALLOWED: DropReason = DropReason::new("redirect_robots_disallowed");
}
