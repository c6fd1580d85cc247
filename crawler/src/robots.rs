use std::collections::HashMap;
use std::sync::Arc;

use texting_robots::Robot;
use tokio::sync::Mutex;
use trawl_core::signals::{self, ConsentSignal};
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
    /// robots.txt was not fetched because its host resolves only to addresses the address
    /// guard refuses (the guard's message): the URL is refused for its address, not counted
    /// as an unreachable robots.txt.
    pub refused_address: Option<String>,
    /// AI-use preferences for the training token at this URL: robots.txt `Content-Signal`
    /// and `Content-Usage` lines, and the matching `/.well-known/tdmrep.json` rule.
    pub signals: Vec<ConsentSignal>,
    /// The rule that decided for the crawl token, with its line (`None`: no rule matched).
    pub crawl_rule: Option<(String, usize)>,
    /// The rule that decided for the training token, with its line.
    pub training_rule: Option<(String, usize)>,
    /// When it was fetched (RFC 3339).
    pub fetched: String,
    /// XXH3-64 of the body, hex (empty when there was no body).
    pub digest: String,
}

impl RobotsDecision {
    /// The preferences for a response: this decision's (robots.txt, tdmrep.json) and those
    /// in the response's own headers.
    pub fn signals_with(&self, headers: &[(String, String)]) -> Vec<ConsentSignal> {
        let mut v = self.signals.clone();
        v.extend(signals::from_headers(headers));
        v
    }
}

#[derive(Clone)]
enum Rules {
    AllowAll,
    DisallowAll,
    Parsed {
        crawl: Arc<Robot>,
        training: Arc<Robot>,
        /// The file has Content-Signal or Content-Usage lines (decided once per file, so
        /// the many URLs of a file without them cost no parse).
        signal_lines: bool,
    },
}

#[derive(Clone)]
struct Entry {
    rules: Rules,
    body: Arc<Vec<u8>>,
    status: Option<u16>,
    url: String,
    fetched: String,
    digest: String,
    at: std::time::Instant,
    /// The address guard refused the robots.txt host (its message).
    refused: Option<String>,
    /// The rules of `/.well-known/tdmrep.json` (`Err`: the file was there but unreadable).
    tdm: Option<Result<Vec<signals::TdmRule>, String>>,
}

/// Prepares a robots.txt body for the parser: every `user-agent` value is read up to its
/// first space, as Google's reference matcher does (`User-agent: FOO BAR` names the product
/// token `FOO`), so such groups are not silently ignored.
pub fn preprocess(body: &[u8]) -> Vec<u8> {
    // CR, LF and CRLF all end lines (RFC 9309 2.2)
    let text = String::from_utf8_lossy(body)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let lower: String = trimmed
            .chars()
            .take(11)
            .collect::<String>()
            .to_ascii_lowercase();
        if lower.starts_with("user-agent") {
            if let Some((key, value)) = trimmed.split_once(':') {
                let (value, comment) = value.split_once('#').map_or((value, ""), |(v, c)| (v, c));
                let token = value.split_whitespace().next().unwrap_or("");
                out.push_str(key.trim_end());
                out.push_str(": ");
                out.push_str(token);
                if !comment.is_empty() {
                    out.push_str(" #");
                    out.push_str(comment.trim_end_matches(['\r', '\n']));
                }
                out.push('\n');
                continue;
            }
        }
        out.push_str(line);
    }
    out.into_bytes()
}

/// The product token of a user-agent string: up to the first `/` or space
/// (`FooBot/1.0 (+https://x)` -> `FooBot`).
pub fn product_token(agent: &str) -> &str {
    agent.split(['/', ' ']).next().unwrap_or("").trim()
}

/// Whether `agent` may fetch `url` under `robots_txt`.
///
/// The matcher compares the URL as given: the crawler hands it URLs canonicalised by the
/// WHATWG parser, which percent-encodes what RFC 9309 2.2.2 asks to encode, so they are
/// ASCII. A URL still holding raw non-ASCII octets was not normalised by its caller; its
/// octets are compared as they are and so cannot equal a percent-encoded rule, as in
/// Google's reference matcher (they are escaped here in a form no rule can contain, because
/// the parser library would otherwise encode them itself).
pub fn allowed(robots_txt: &[u8], agent: &str, url: &str) -> bool {
    let token = product_token(agent);
    if token.is_empty() {
        return true;
    }
    let Ok(robot) = Robot::new(token, &preprocess(robots_txt)) else {
        return true;
    };
    if url.is_ascii() {
        return robot.allowed(url);
    }
    let mut raw = String::with_capacity(url.len() * 3);
    for c in url.chars() {
        if c.is_ascii() {
            raw.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                raw.push_str(&format!("%25{b:02X}"));
            }
        }
    }
    robot.allowed(&raw)
}

/// The path (with query, without fragment) robots.txt rules are matched against, for any
/// URL form a link can take (`http://h/a`, `//h/a`, `h/a`, `/a`); `/` when there is none.
pub fn match_path(url: &str) -> String {
    let u = url.split('#').next().unwrap_or("");
    if u.starts_with('/') && !u.starts_with("//") {
        return u.to_string();
    }
    let rest = if let Some(r) = u.strip_prefix("//") {
        r
    } else {
        let first_sep = u.find(['/', '?']).unwrap_or(u.len());
        match u.find("://") {
            Some(i) if i < first_sep => &u[i + 3..],
            _ => u,
        }
    };
    match rest.find(['/', '?']) {
        Some(i) if rest[i..].starts_with('?') => format!("/{}", &rest[i..]),
        Some(i) => rest[i..].to_string(),
        None => "/".to_string(),
    }
}

/// A rule pattern with non-ASCII octets percent-encoded and existing escapes upper-cased
/// (RFC 9309 2.2.2), as the matcher compares them.
pub fn escape_pattern(p: &str) -> String {
    let b = p.as_bytes();
    let mut out = String::with_capacity(p.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            out.push('%');
            out.push(b[i + 1].to_ascii_uppercase() as char);
            out.push(b[i + 2].to_ascii_uppercase() as char);
            i += 3;
        } else if b[i] >= 0x80 {
            out.push_str(&format!("%{:02X}", b[i]));
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// robots.txt per authority (scheme, host, port), fetched once per crawl.
#[derive(Clone)]
pub struct RobotsCache {
    fetcher: Fetcher,
    crawl_token: String,
    training_token: String,
    max_age: std::time::Duration,
    /// One slot per authority: the map's lock is held only to find the slot, the slot's
    /// across its fetch, so robots.txt files of different hosts are fetched concurrently
    /// and each authority's once.
    entries: Arc<std::sync::Mutex<HashMap<String, Slot>>>,
    journal: Arc<std::sync::Mutex<Option<Arc<crate::journal::Journal>>>>,
}

/// An authority's cached robots.txt, locked while it is fetched.
type Slot = Arc<Mutex<Option<Arc<Entry>>>>;

impl std::fmt::Debug for RobotsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsCache")
            .field("crawl_token", &self.crawl_token)
            .finish()
    }
}

/// The robots.txt key of a URL: one robots.txt per scheme + host + port.
pub(crate) fn authority(u: &Url) -> String {
    format!(
        "{}://{}:{}",
        u.scheme(),
        u.host_str().unwrap_or(""),
        u.port_or_known_default().unwrap_or(0)
    )
}

impl RobotsCache {
    pub(crate) fn new(
        fetcher: Fetcher,
        crawl_token: &str,
        training_token: &str,
        max_age: std::time::Duration,
    ) -> Self {
        RobotsCache {
            fetcher,
            crawl_token: crawl_token.into(),
            training_token: training_token.into(),
            max_age,
            entries: Default::default(),
            journal: Default::default(),
        }
    }

    /// Records robots.txt fetches in the crawl journal (and reuses recorded ones), so a
    /// resumed crawl does not fetch them again while they are fresh.
    pub(crate) fn set_journal(&self, j: Option<Arc<crate::journal::Journal>>) {
        *self.journal.lock().expect("journal lock") = j;
    }

    async fn entry(&self, u: &Url) -> Arc<Entry> {
        let key = authority(u);
        let slot = self
            .entries
            .lock()
            .expect("robots map lock")
            .entry(key.clone())
            .or_default()
            .clone();
        let mut cached = slot.lock().await;
        let previous = cached.clone();
        if let Some(e) = &previous {
            // RFC 9309 2.4: a cached copy is used for at most max_age (24 h by default)
            if e.at.elapsed() < self.max_age {
                return e.clone();
            }
        }
        let robots_url = format!(
            "{}://{}/robots.txt",
            u.scheme(),
            u.host_str().unwrap_or("").to_string()
                + &u.port().map(|p| format!(":{p}")).unwrap_or_default()
        );
        let (fetched, result) = self
            .fetch_journaled(&robots_url, &format!("robots:{key}"), previous.is_none())
            .await;
        // TDMRep's well-known file, once per authority like robots.txt (and right after it,
        // exempt from Crawl-delay like it), when robots.txt lets the crawl token fetch it
        let tdm_url = format!(
            "{}/.well-known/tdmrep.json",
            robots_url.trim_end_matches("/robots.txt")
        );
        let may_fetch_tdm = match &result {
            Ok(f) if (200..300).contains(&f.status) => allowed(
                cut_on_line(&f.body, MAX_ROBOTS_BYTES),
                &self.crawl_token,
                &tdm_url,
            ),
            Ok(f) => (400..500).contains(&f.status) && f.status != 429,
            Err(_) => false,
        };
        let tdm_result = if may_fetch_tdm {
            Some(
                self.fetch_journaled(&tdm_url, &format!("tdmrep:{key}"), previous.is_none())
                    .await
                    .1,
            )
        } else {
            None
        };
        let tdm = match tdm_result {
            Some(Ok(f)) if (200..300).contains(&f.status) => {
                Some(signals::parse_tdmrep(&f.body).map_err(|e| {
                    tracing::debug!(url = %tdm_url, error = %e, "tdmrep.json unreadable (recorded)");
                    e
                }))
            }
            _ => None,
        };
        let digest = match &result {
            Ok(f) if (200..300).contains(&f.status) => format!(
                "{:016x}",
                xxhash_rust::xxh3::xxh3_64(cut_on_line(&f.body, MAX_ROBOTS_BYTES))
            ),
            _ => String::new(),
        };
        let at = std::time::Instant::now();
        let body = Arc::new(match &result {
            Ok(f) if (200..300).contains(&f.status) => {
                preprocess(cut_on_line(&f.body, MAX_ROBOTS_BYTES))
            }
            _ => Vec::new(),
        });
        // what the answer means (RFC 9309 2.3.1): the rules of a 2xx file (an unparseable one
        // is like an empty one), none for a 4xx or too many redirects, everything disallowed
        // for 429/5xx or no answer
        let (rules, status, refused) = match result {
            Ok(f) if (200..300).contains(&f.status) => {
                let rules = match (
                    Robot::new(&self.crawl_token, &body),
                    Robot::new(&self.training_token, &body),
                ) {
                    (Ok(c), Ok(t)) => Rules::Parsed {
                        crawl: Arc::new(c),
                        training: Arc::new(t),
                        signal_lines: has_signal_lines(&body),
                    },
                    _ => Rules::AllowAll,
                };
                (rules, Some(f.status), None)
            }
            Ok(f) if f.status == 429 || f.status >= 500 => {
                (Rules::DisallowAll, Some(f.status), None)
            }
            Ok(f) if (400..500).contains(&f.status) => (Rules::AllowAll, Some(f.status), None),
            Ok(f) => (Rules::DisallowAll, Some(f.status), None),
            // more than 5 redirects: RFC 9309 2.3.1.2 allows treating it as unavailable
            Err(e) if e.reason == crate::reasons::REDIRECTS => (Rules::AllowAll, None, None),
            Err(e) => {
                tracing::debug!(url = %robots_url, error = %e.detail, "robots.txt unreachable");
                let refused = (e.reason == crate::reasons::PRIVATE_ADDRESS).then_some(e.detail);
                (Rules::DisallowAll, None, refused)
            }
        };
        let entry = Arc::new(Entry {
            rules,
            status,
            url: robots_url,
            fetched,
            digest,
            at,
            body,
            refused,
            tdm,
        });
        // a failed refresh (unreachable) keeps the copy that was there, renewed
        if let (Rules::DisallowAll, Some(prev)) = (&entry.rules, &previous) {
            if entry.status.is_none_or(|s| s == 429 || s >= 500)
                && !matches!(prev.rules, Rules::DisallowAll)
            {
                tracing::info!(url = %entry.url, "robots.txt refresh failed; keeping the cached copy");
                let kept = Arc::new(Entry {
                    at,
                    ..(**prev).clone()
                });
                *cached = Some(kept.clone());
                return kept;
            }
        }
        *cached = Some(entry.clone());
        entry
    }

    /// Fetches a per-authority file (robots.txt, tdmrep.json), or takes the copy the crawl
    /// journal recorded (younger than max_age, on the first use in this process), so a
    /// resumed crawl does not fetch it again; records what it fetched.
    async fn fetch_journaled(
        &self,
        url: &str,
        jkey: &str,
        first_use: bool,
    ) -> (
        String,
        Result<crate::fetch::Fetched, crate::fetch::FetchFail>,
    ) {
        let journal = self.journal.lock().expect("journal lock").clone();
        let recorded = journal.as_ref().and_then(|j| j.get(jkey)).filter(|o| {
            let t = match o {
                Ok(p) => trawl_core::time::parse_rfc3339(&p.fetch_time),
                Err(_) => None,
            };
            first_use
                && t.is_some_and(|t| {
                    trawl_core::time::record_now()
                        .duration_since(t)
                        .unwrap_or_default()
                        < self.max_age
                })
        });
        match recorded {
            Some(Ok(p)) => (
                p.fetch_time.clone(),
                Ok(crate::fetch::Fetched {
                    status: p.status,
                    final_url: p.final_url.clone(),
                    headers: Vec::new(),
                    body: p.body,
                }),
            ),
            _ => {
                let fetched = trawl_core::time::rfc3339(trawl_core::time::record_now());
                let result = self.fetcher.get(url, Some(MAX_ROBOTS_BYTES)).await;
                if let (Some(j), Ok(f)) = (&journal, &result) {
                    let page = trawl_core::FetchedPage {
                        url: url.to_string(),
                        final_url: f.final_url.clone(),
                        fetch_time: fetched.clone(),
                        status: f.status,
                        body: f.body.clone(),
                        ..Default::default()
                    };
                    j.put(jkey, &Ok(page));
                }
                (fetched, result)
            }
        }
    }

    /// The `Sitemap:` URLs of the robots.txt of a URL's authority.
    pub async fn sitemaps(&self, u: &Url) -> Vec<String> {
        match &self.entry(u).await.rules {
            Rules::Parsed { crawl, .. } => crawl.sitemaps.clone(),
            _ => Vec::new(),
        }
    }

    /// The decision for a URL (fetching robots.txt on first use of its authority).
    pub async fn decide(&self, u: &Url) -> RobotsDecision {
        let e = self.entry(u).await;
        let (crawl_allowed, training_allowed, crawl_delay, unreachable) = match &e.rules {
            Rules::AllowAll => (true, true, None, false),
            Rules::DisallowAll => (false, false, None, true),
            Rules::Parsed {
                crawl, training, ..
            } => {
                let s = u.as_str();
                (crawl.allowed(s), training.allowed(s), crawl.delay, false)
            }
        };
        // the explanation is recorded only where it agrees with the matcher's verdict
        let explain = |token: &str, allowed: bool| {
            matched_rule(&e.body, token, u.as_str())
                .filter(|(rule, _)| rule.to_ascii_lowercase().starts_with("allow") == allowed)
        };
        let (crawl_rule, training_rule) = match &e.rules {
            Rules::Parsed { .. } => (
                explain(&self.crawl_token, crawl_allowed),
                explain(&self.training_token, training_allowed),
            ),
            _ => (None, None),
        };
        RobotsDecision {
            crawl_allowed,
            training_allowed,
            crawl_delay,
            robots_url: e.url.clone(),
            status: e.status,
            unreachable,
            refused_address: e.refused.clone(),
            signals: {
                let mut v = match &e.rules {
                    Rules::Parsed {
                        signal_lines: true, ..
                    } => robots_signals(&e.body, &self.training_token, u.as_str()),
                    _ => Vec::new(),
                };
                match &e.tdm {
                    Some(Ok(rules)) => v.extend(signals::tdmrep_signal(rules, u.path())),
                    Some(Err(why)) => v.push(ConsentSignal {
                        signal: "tdm-reservation".into(),
                        source: "tdmrep.json".into(),
                        value: why.chars().take(200).collect(),
                        training: None,
                        parsed: false,
                    }),
                    None => {}
                }
                v
            },
            crawl_rule,
            training_rule,
            fetched: e.fetched.clone(),
            digest: e.digest.clone(),
        }
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

/// A line of a robots.txt group: its key (lowercase), value, 1-based line number and text.
struct GroupLine {
    key: String,
    value: String,
    line: usize,
    text: String,
}

/// A group of a robots.txt: its user agents and its lines. Lines before the first
/// `User-agent` form a group without agents.
type Group = (Vec<String>, Vec<GroupLine>);

/// The groups of a robots.txt, as RFC 9309 2.1 reads them (consecutive `User-agent` lines
/// open one group; any other line ends the run of agents).
fn groups(robots_txt: &[u8]) -> Vec<Group> {
    let text = String::from_utf8_lossy(robots_txt)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let mut groups: Vec<Group> = vec![(Vec::new(), Vec::new())];
    let mut last_was_agent = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        if k == "user-agent" {
            let agent = v
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if !last_was_agent {
                groups.push((Vec::new(), Vec::new()));
            }
            groups.last_mut().expect("pushed").0.push(agent);
            last_was_agent = true;
        } else {
            last_was_agent = false;
            groups
                .last_mut()
                .expect("one group at least")
                .1
                .push(GroupLine {
                    key: k,
                    value: v.to_string(),
                    line: i + 1,
                    text: line.to_string(),
                });
        }
    }
    groups
}

/// The groups that apply to `token`: those naming it, else those for `*` (RFC 9309 2.2.1).
fn chosen<'a>(groups: &'a [Group], token: &str) -> Vec<&'a Group> {
    let token = token.to_ascii_lowercase();
    let specific: Vec<&Group> = groups.iter().filter(|g| g.0.contains(&token)).collect();
    if specific.is_empty() {
        groups
            .iter()
            .filter(|g| g.0.iter().any(|a| a == "*"))
            .collect()
    } else {
        specific
    }
}

/// The rule that decides for `token` and `url` in a robots.txt, as `"Disallow: /x"` with its
/// 1-based line number, for the consent record. `None` when no rule matches (allowed by
/// default). Group choice and longest-match-wins follow RFC 9309 2.2.
pub fn matched_rule(robots_txt: &[u8], token: &str, url: &str) -> Option<(String, usize)> {
    let groups = groups(robots_txt);
    let path = escape_pattern(&match_path(url));
    let mut best: Option<(usize, bool, String, usize)> = None;
    for g in chosen(&groups, token) {
        for l in
            g.1.iter()
                .filter(|l| l.key == "allow" || l.key == "disallow")
        {
            let allow = l.key == "allow";
            if l.value.is_empty() {
                continue; // an empty Disallow allows everything: it matches nothing
            }
            let pat = escape_pattern(&l.value);
            if pattern_matches(&pat, &path) {
                let len = pat.len();
                let better = match &best {
                    None => true,
                    Some((blen, ballow, _, _)) => {
                        len > *blen || (len == *blen && allow && !*ballow)
                    }
                };
                if better {
                    best = Some((len, allow, l.text.clone(), l.line));
                }
            }
        }
    }
    best.map(|(_, _, rule, line)| (rule, line))
}

/// Whether a robots.txt has any `Content-Signal` or `Content-Usage` line.
fn has_signal_lines(robots_txt: &[u8]) -> bool {
    let text = String::from_utf8_lossy(robots_txt);
    trawl_core::text::contains_ascii_ci(&text, "content-signal")
        || trawl_core::text::contains_ascii_ci(&text, "content-usage")
}

/// The AI-use preferences a robots.txt states for `token` at `url`: the `Content-Signal` and
/// `Content-Usage` lines of the groups that apply to the token (and lines before any group).
/// A line may start with a path (`Content-Usage: /private/ train-ai=n`); of each kind the
/// line with the longest matching path applies, a line without a path matching everything.
pub fn robots_signals(robots_txt: &[u8], token: &str, url: &str) -> Vec<ConsentSignal> {
    let groups = groups(robots_txt);
    let mut applicable: Vec<&Group> = chosen(&groups, token);
    applicable.push(&groups[0]);
    let path = escape_pattern(&match_path(url));
    let mut out = Vec::new();
    for kind in ["content-signal", "content-usage"] {
        let mut best: Option<(usize, &GroupLine, &str)> = None;
        for g in &applicable {
            for l in g.1.iter().filter(|l| l.key == kind) {
                let (scope, value) = match l.value.split_once(char::is_whitespace) {
                    Some((p, rest)) if p.starts_with('/') => (p, rest.trim()),
                    _ if l.value.starts_with('/') => (l.value.as_str(), ""),
                    _ => ("", l.value.as_str()),
                };
                let len = if scope.is_empty() {
                    0
                } else {
                    let pat = escape_pattern(scope);
                    if !pattern_matches(&pat, &path) {
                        continue;
                    }
                    pat.len()
                };
                if best.as_ref().is_none_or(|(b, _, _)| len > *b) {
                    best = Some((len, l, value));
                }
            }
        }
        if let Some((_, l, value)) = best {
            let source = format!("robots.txt line {}", l.line);
            out.push(match kind {
                "content-signal" => signals::content_signal(source, value),
                _ => signals::content_usage(source, value),
            });
        }
    }
    out
}

/// `*` matches any run of octets, a final `$` anchors the end.
fn pattern_matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('$') {
        Some(p) => trawl_core::text::wildcard_match(p, path, true),
        None => trawl_core::text::wildcard_match(pattern, path, false),
    }
}
