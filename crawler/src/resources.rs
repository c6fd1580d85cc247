//! Fetching the resources of pages (images for the captions stage) with the same manners as
//! pages: robots.txt for the crawl token (and the training token recorded), the SSRF guard
//! on every address and every redirect hop, the crawl's blocked domains and patterns, one
//! request at a time per host with the crawl's delay (or the robots.txt Crawl-delay), 429/503
//! retried after Retry-After, a per-host error budget, size caps and content-type checks,
//! and concurrency across hosts. Each URL is fetched once however often it is asked for.
//!
//! ```no_run
//! # async fn f() {
//! let crawl = trawl_crawler::CrawlConfig::default();
//! let limits = trawl_crawler::ResourceLimits::default();
//! let fetcher = trawl_crawler::ResourceFetcher::new(&crawl, limits).unwrap();
//! let out = fetcher.fetch_all(&["https://example.org/cat.jpg".to_string()], None).await;
//! match &out[0] {
//!     Ok(r) => println!("{} bytes of {:?}", r.body.len(), r.header("content-type")),
//!     Err((reason, detail)) => println!("dropped: {reason} ({detail})"),
//! }
//! # }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use trawl_core::DropReason;
use url::Url;

use crate::crawl::CrawlError;
use crate::fetch::{FetchFail, Fetcher, Politeness};
use crate::robots::{authority, RobotsCache};
use crate::{canonicalize, reasons, CrawlConfig};

/// Drop reasons particular to resources (the crawl's own reasons apply too).
pub mod resource_reasons {
    use trawl_core::DropReason;
    /// Not an http(s) URL (a `data:` URI, a relative URL without base, garbage).
    pub const INVALID_URL: DropReason = DropReason::new("invalid_url");
    /// The server answered with a status other than 2xx.
    pub const HTTP_STATUS: DropReason = DropReason::new("http_status");
    /// The response's Content-Type is not one the caller accepts.
    pub const WRONG_TYPE: DropReason = DropReason::new("wrong_content_type");
}

/// Limits of a resource fetch.
#[derive(Debug, Clone)]
pub struct ResourceLimits {
    /// Bodies larger than this (after decoding) are dropped as `too_large`.
    pub max_bytes: usize,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Hosts fetched at once.
    pub concurrency: usize,
    /// Accepted Content-Type prefixes (`image/`); a response without the header passes
    /// (the caller sniffs the bytes).
    pub content_types: Vec<String>,
}

impl Default for ResourceLimits {
    fn default() -> Self {
        ResourceLimits {
            max_bytes: 8 << 20,
            timeout: Duration::from_secs(20),
            concurrency: 16,
            content_types: vec!["image/".into()],
        }
    }
}

/// A fetched resource.
#[derive(Debug, Clone)]
pub struct Resource {
    /// The URL asked for.
    pub url: String,
    /// The URL the body came from (after redirects).
    pub final_url: String,
    /// HTTP status (2xx).
    pub status: u16,
    /// Response headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body (decoded from any transfer encoding).
    pub body: Vec<u8>,
    /// RFC 3339 fetch time.
    pub fetch_time: String,
    /// Whether robots.txt allows the training token this URL.
    pub training_allowed: bool,
    /// AI-use preferences for this URL: robots.txt Content-Signal/Content-Usage lines, the
    /// tdmrep.json rule, and the response's own headers.
    pub signals: Vec<trawl_core::signals::ConsentSignal>,
}

impl Resource {
    /// A response header (name in lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A resource, or why it was not fetched.
pub type ResourceOutcome = Result<Resource, (DropReason, String)>;

/// Fetches resources politely; see the module documentation.
#[derive(Clone)]
pub struct ResourceFetcher {
    cfg: Arc<CrawlConfig>,
    limits: ResourceLimits,
    fetcher: Fetcher,
    robots: RobotsCache,
    guard: Arc<crate::guard::Guard>,
    polite: Politeness,
}

impl std::fmt::Debug for ResourceFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceFetcher")
            .field("limits", &self.limits)
            .finish()
    }
}

impl ResourceFetcher {
    /// A fetcher with the manners of `crawl` (user agent, tokens, delay, retries, guard,
    /// blocked domains and patterns) and the given limits.
    pub fn new(crawl: &CrawlConfig, limits: ResourceLimits) -> Result<ResourceFetcher, CrawlError> {
        crawl
            .validate()
            .map_err(|(k, r)| CrawlError::Config(format!("{k}: {r}")))?;
        let guard = Arc::new(crawl.guard());
        let fetcher = Fetcher::new(
            &crawl.user_agent,
            limits.timeout,
            limits.max_bytes,
            0,
            guard.clone(),
        )
        .map_err(CrawlError::Config)?;
        let robots_fetcher = Fetcher::new(
            &crawl.user_agent,
            limits.timeout,
            crawl.max_body_bytes,
            5,
            guard.clone(),
        )
        .map_err(CrawlError::Config)?;
        let robots = RobotsCache::new(
            robots_fetcher,
            &crawl.crawl_token,
            &crawl.training_token,
            Duration::from_secs(crawl.robots_max_age_secs),
        );
        let polite = Politeness::new(
            crawl.max_retries,
            Duration::from_secs(crawl.max_backoff_secs),
        );
        Ok(ResourceFetcher {
            cfg: Arc::new(crawl.clone()),
            limits,
            fetcher,
            robots,
            guard,
            polite,
        })
    }

    /// Fetches every URL (each distinct one once), in parallel across hosts and one at a
    /// time per host; returns one outcome per input, in input order. `progress` is called
    /// with the number of distinct URLs finished so far.
    pub async fn fetch_all(
        &self,
        urls: &[String],
        progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    ) -> Vec<ResourceOutcome> {
        let mut distinct: BTreeMap<&str, Option<ResourceOutcome>> =
            urls.iter().map(|u| (u.as_str(), None)).collect();
        let mut by_host: BTreeMap<String, Vec<(String, Url)>> = BTreeMap::new();
        for (raw, slot) in distinct.iter_mut() {
            match canonicalize(raw, None, &[]) {
                None => {
                    *slot = Some(Err((
                        resource_reasons::INVALID_URL,
                        format!(
                            "not an absolute http(s) URL: {}",
                            raw.chars().take(80).collect::<String>()
                        ),
                    )))
                }
                Some(u) if self.cfg.blocked(&u) => {
                    *slot = Some(Err((
                        reasons::OUT_OF_SCOPE,
                        "blocked domain or pattern".into(),
                    )))
                }
                Some(u) => by_host
                    .entry(authority(&u))
                    .or_default()
                    .push((raw.to_string(), u)),
            }
        }
        let sem = Arc::new(Semaphore::new(self.limits.concurrency.max(1)));
        let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut tasks = Vec::new();
        for (host, list) in by_host {
            let (me, sem, done, progress) =
                (self.clone(), sem.clone(), done.clone(), progress.clone());
            tasks.push(tokio::spawn(async move {
                let _permit = sem.acquire().await.expect("semaphore open");
                let mut failures = 0u32;
                let mut out = Vec::with_capacity(list.len());
                for (raw, u) in list {
                    let budget = me.cfg.host_error_budget;
                    let r = if budget > 0 && failures >= budget {
                        Err((
                            reasons::HOST_ERROR_BUDGET,
                            format!("{failures} consecutive failures on this host"),
                        ))
                    } else {
                        let r = me.fetch_one(&host, &u).await;
                        let failed = match &r {
                            Err((reason, _)) => {
                                [reasons::FETCH_ERROR, reasons::TIMEOUT, reasons::OVERLOADED]
                                    .contains(reason)
                            }
                            Ok(_) => false,
                        };
                        failures = if failed { failures + 1 } else { 0 };
                        r
                    };
                    out.push((raw, r));
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if let Some(p) = &progress {
                        p(n);
                    }
                }
                out
            }));
        }
        for t in tasks {
            match t.await {
                Ok(list) => {
                    for (raw, r) in list {
                        if let Some(slot) = distinct.get_mut(raw.as_str()) {
                            *slot = Some(r);
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "resource fetch task failed"),
            }
        }
        let lost = || Err((reasons::FETCH_ERROR, "no result (task lost)".to_string()));
        let map: HashMap<&str, ResourceOutcome> = distinct
            .into_iter()
            .map(|(k, v)| (k, v.unwrap_or_else(lost)))
            .collect();
        urls.iter()
            .map(|u| map.get(u.as_str()).cloned().unwrap_or_else(lost))
            .collect()
    }

    async fn fetch_one(&self, host: &str, u: &Url) -> ResourceOutcome {
        self.guard
            .check_url(u)
            .map_err(|d| (reasons::PRIVATE_ADDRESS, d))?;
        let d = self.robots.decide(u).await;
        if let Some(refused) = d.refused_address {
            return Err((reasons::PRIVATE_ADDRESS, refused));
        }
        if d.unreachable {
            return Err((reasons::ROBOTS_UNREACHABLE, d.robots_url.clone()));
        }
        if !d.crawl_allowed {
            let rule = d
                .crawl_rule
                .as_ref()
                .map(|(r, line)| format!("{r} (line {line})"))
                .unwrap_or_default();
            return Err((
                reasons::ROBOTS_DISALLOWED,
                format!("{} {rule}", d.robots_url).trim_end().to_string(),
            ));
        }
        if d.crawl_delay
            .is_some_and(|cd| cd as f64 > self.cfg.max_crawl_delay_secs)
        {
            return Err((
                reasons::CRAWL_DELAY_TOO_HIGH,
                format!("Crawl-delay {}", d.crawl_delay.unwrap_or_default()),
            ));
        }
        let gap = Duration::from_millis(self.cfg.delay_ms).max(Duration::from_secs_f32(
            d.crawl_delay.unwrap_or(0.0).max(0.0),
        ));
        let fetch_time = trawl_core::time::rfc3339(trawl_core::time::record_now());
        let strip = &self.cfg.strip_query_params;
        let f = self
            .polite
            .fetch(host, gap, || {
                crate::crawl::fetch_following(
                    &self.fetcher,
                    &self.robots,
                    &self.guard,
                    strip,
                    u,
                    &[],
                )
            })
            .await
            .map_err(|FetchFail { reason, detail }| (reason, detail))?;
        if !(200..300).contains(&f.status) {
            return Err((
                resource_reasons::HTTP_STATUS,
                format!("status {}", f.status),
            ));
        }
        let ctype = f
            .headers
            .iter()
            .find(|(k, _)| k == "content-type")
            .map(|(_, v)| v.to_ascii_lowercase());
        if let Some(ct) = &ctype {
            if !self.limits.content_types.is_empty()
                && !self
                    .limits
                    .content_types
                    .iter()
                    .any(|p| ct.trim_start().starts_with(p.as_str()))
            {
                return Err((resource_reasons::WRONG_TYPE, format!("Content-Type {ct}")));
            }
        }
        let signals = d.signals_with(&f.headers);
        Ok(Resource {
            url: u.to_string(),
            final_url: f.final_url,
            status: f.status,
            headers: f.headers,
            body: f.body,
            fetch_time,
            training_allowed: d.training_allowed,
            signals,
        })
    }
}
