use std::collections::HashMap;
use std::sync::Arc;

use texting_robots::Robot;
use tokio::sync::Mutex;
use url::Url;

use crate::fetch::Fetcher;

/// RFC 9309 §2.5: crawlers must parse at least 500 KiB.
const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// What robots.txt says about one URL, for both tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotsDecision {
    /// The crawl token may fetch.
    pub crawl_allowed: bool,
    /// The training token may use it.
    pub training_allowed: bool,
    /// Crawl-delay for the crawl token, seconds.
    pub crawl_delay: Option<f32>,
    /// robots.txt URL.
    pub robots_url: String,
    /// HTTP status of the robots.txt fetch (None: transport failure).
    pub status: Option<u16>,
    /// robots.txt was unreachable (5xx, 429, network error): everything disallowed.
    pub unreachable: bool,
}

enum Rules {
    AllowAll,
    DisallowAll,
    Parsed { crawl: Box<Robot>, training: Box<Robot> },
}

struct Entry {
    rules: Rules,
    status: Option<u16>,
    url: String,
}

/// robots.txt per authority (scheme, host, port), fetched once per crawl.
#[derive(Clone)]
pub struct RobotsCache {
    fetcher: Fetcher,
    crawl_token: String,
    training_token: String,
    entries: Arc<Mutex<HashMap<String, Arc<Entry>>>>,
}

impl std::fmt::Debug for RobotsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsCache").field("crawl_token", &self.crawl_token).finish()
    }
}

/// The robots.txt key of a URL: one robots.txt per scheme + host + port.
pub(crate) fn authority(u: &Url) -> String {
    format!("{}://{}:{}", u.scheme(), u.host_str().unwrap_or(""), u.port_or_known_default().unwrap_or(0))
}

impl RobotsCache {
    pub(crate) fn new(fetcher: Fetcher, crawl_token: &str, training_token: &str) -> Self {
        RobotsCache {
            fetcher,
            crawl_token: crawl_token.into(),
            training_token: training_token.into(),
            entries: Default::default(),
        }
    }

    async fn entry(&self, u: &Url) -> Arc<Entry> {
        let key = authority(u);
        let mut map = self.entries.lock().await;
        if let Some(e) = map.get(&key) {
            return e.clone();
        }
        let robots_url = format!("{}://{}/robots.txt", u.scheme(), u.host_str().unwrap_or("").to_string() + &u.port().map(|p| format!(":{p}")).unwrap_or_default());
        let entry = Arc::new(match self.fetcher.get(&robots_url, Some(MAX_ROBOTS_BYTES)).await {
            Ok(f) if (200..300).contains(&f.status) => {
                let body = cut_on_line(&f.body, MAX_ROBOTS_BYTES);
                match (Robot::new(&self.crawl_token, body), Robot::new(&self.training_token, body)) {
                    (Ok(c), Ok(t)) => Entry { rules: Rules::Parsed { crawl: Box::new(c), training: Box::new(t) }, status: Some(f.status), url: robots_url },
                    // An unparseable file is treated like an empty one: no rules apply.
                    _ => Entry { rules: Rules::AllowAll, status: Some(f.status), url: robots_url },
                }
            }
            Ok(f) if f.status == 429 || f.status >= 500 => Entry { rules: Rules::DisallowAll, status: Some(f.status), url: robots_url },
            Ok(f) if (400..500).contains(&f.status) => Entry { rules: Rules::AllowAll, status: Some(f.status), url: robots_url },
            Ok(f) => Entry { rules: Rules::DisallowAll, status: Some(f.status), url: robots_url },
            Err(e) => {
                tracing::debug!(url = %robots_url, error = %e.detail, "robots.txt unreachable");
                Entry { rules: Rules::DisallowAll, status: None, url: robots_url }
            }
        });
        map.insert(key, entry.clone());
        entry
    }

    /// The decision for a URL (fetching robots.txt on first use of its authority).
    pub async fn decide(&self, u: &Url) -> RobotsDecision {
        let e = self.entry(u).await;
        let (crawl_allowed, training_allowed, crawl_delay, unreachable) = match &e.rules {
            Rules::AllowAll => (true, true, None, false),
            Rules::DisallowAll => (false, false, None, true),
            Rules::Parsed { crawl, training } => {
                let s = u.as_str();
                (crawl.allowed(s), training.allowed(s), crawl.delay, false)
            }
        };
        RobotsDecision { crawl_allowed, training_allowed, crawl_delay, robots_url: e.url.clone(), status: e.status, unreachable }
    }
}

/// Cuts a body at `max` bytes on a line boundary.
fn cut_on_line(b: &[u8], max: usize) -> &[u8] {
    if b.len() <= max {
        return b;
    }
    match b[..max].iter().rposition(|c| *c == b'\n') {
        Some(i) => &b[..=i],
        None => &b[..max],
    }
}
