use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{mpsc, Mutex, Semaphore};
use trawl_core::{Consent, ConsentBasis, DropReason, FetchedPage, RunStats};
use trawl_storage::jsonl::JsonlWriter;
use trawl_storage::markers::{self, Marker};
use trawl_storage::warc::{self, WarcWriter};
use trawl_storage::{shard_name, ShardSpec, Storage, StorageError};
use url::Url;

use crate::canon::canonicalize;
use crate::fetch::{FetchFail, Fetched, Fetcher};
use crate::robots::{authority, RobotsCache, RobotsDecision};
use crate::{reasons, CrawlConfig};

/// Stage name in stats and storage.
pub const STAGE: &str = "crawl";

/// The largest WARC record read back from a committed part (pages are capped far below).
const MAX_REPLAY_RECORD: usize = 256 * 1024 * 1024;

/// Errors that stop a crawl.
#[derive(Debug, Error)]
pub enum CrawlError {
    /// Invalid configuration.
    #[error("invalid crawl configuration: {0}")]
    Config(String),
    /// The local crawl journal could not be opened (held by another crawl, or unwritable).
    #[error("{0}")]
    Journal(String),
    /// Another crawl worker did not deliver its links in time, or this run root belongs to a
    /// crawl with another number of workers.
    #[error("{0}")]
    Worker(String),
    /// A fetch task failed (a bug).
    #[error("internal error: {0}")]
    Internal(String),
    /// Storage failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// Committed output does not match what this configuration produces.
    #[error("crawl part {part} was committed by a different configuration ({detail}); rerun with --force or use a new run root")]
    Diverged {
        /// The part.
        part: usize,
        /// What differs.
        detail: String,
    },
    /// The downstream consumer went away.
    #[error("downstream stopped")]
    Closed,
}

/// One committed unit of the crawl, sent downstream.
#[derive(Debug)]
pub struct CrawlPart {
    /// Part number (names `crawl/warc/NNNNN.warc.gz` and downstream shards).
    pub index: usize,
    /// WARC file of the part, relative to the run root.
    pub warc: String,
    /// Pages in crawl order (every HTTP response, whatever its status).
    pub pages: Vec<FetchedPage>,
    /// Stats of the part.
    pub stats: RunStats,
    /// True when the part was committed by an earlier run and replayed from its WARC.
    pub replayed: bool,
    /// Damaged records skipped while reading a replayed WARC (counted downstream).
    pub damage: Vec<warc::Damage>,
}

/// `crawl/state.json`: whether the crawl finished and how many parts it has.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlState {
    /// The crawl reached its end.
    pub complete: bool,
    /// Number of parts.
    pub parts: usize,
}

/// The crawler.
#[derive(Debug)]
pub struct Crawler {
    cfg: CrawlConfig,
    fetcher: Fetcher,
    robots: RobotsCache,
    guard: Arc<crate::guard::Guard>,
    renderer: Option<Arc<crate::render::Renderer>>,
    worker: ShardSpec,
}

enum Plan {
    /// Page `.1` of this worker's committed part `.0` (read when the replay reaches it).
    Committed(usize, usize),
    /// Fetched before an interruption: the page is in the journal.
    Journaled,
    /// Fetch, with the 429/503 answers the URL has had so far (the decision is shared by
    /// the host's URLs of the round).
    Fetch(Arc<RobotsDecision>, u32),
}

/// One URL of a host's queue in a round.
struct HostJob {
    url: Url,
    decision: Arc<RobotsDecision>,
    depth: u32,
    tries: u32,
}

/// What became of a URL sent to its host's queue.
enum Fate {
    /// The outcome is in the journal (read back when the page is emitted, so a round holds
    /// no page bodies in memory).
    Journaled,
    /// The outcome, when the journal could not take it.
    Done(Box<crate::journal::Outcome>),
    /// Its host is in backoff: it waits for a later round (429/503 answers so far).
    Deferred(u32),
}

/// A page carried over to a later round while its host is in backoff.
struct Carried {
    url: Url,
    depth: u32,
    decision: Arc<RobotsDecision>,
    tries: u32,
}

/// The longest a worker with partners idles before a round in which only hosts in backoff
/// have pages (it must not hold up the others' rounds for a long Retry-After).
const IDLE_ROUND: Duration = Duration::from_secs(2);

/// The journal key recording that a URL's host was in backoff in a round.
fn defer_key(round: u32, u: &Url) -> String {
    format!("defer:{round}:{u}")
}

/// What was decided for a URL: fetch/replay it, or drop it with a reason and detail.
type Decision = Result<Plan, (DropReason, Option<String>)>;

struct PartBuf {
    /// The part's number among this worker's parts.
    seq: usize,
    /// Its number in the run root (`seq * workers + worker`: unique across workers).
    index: usize,
    pages: Vec<FetchedPage>,
    /// The part's excluded records, compressed as they come (a round may leave out millions
    /// of URLs before the part fills with pages).
    excluded: JsonlWriter,
    stats: RunStats,
}

impl PartBuf {
    fn new(seq: usize, worker: ShardSpec) -> Self {
        let mut stats = RunStats::default();
        stats.stage_mut(STAGE);
        PartBuf {
            seq,
            index: part_index(seq, worker),
            pages: Vec::new(),
            excluded: JsonlWriter::for_name("x.jsonl.zst"),
            stats,
        }
    }
    fn exclude(&mut self, url: &str, reason: DropReason, detail: Option<String>) {
        let st = self.stats.stage_mut(STAGE);
        st.seen += 1;
        st.drop_for(reason.as_str());
        self.excluded.write(&trawl_core::Excluded {
            detail,
            ..trawl_core::Excluded::url(STAGE, reason.as_str(), url)
        });
    }
}

impl Crawler {
    /// A crawler for this configuration.
    pub fn new(cfg: CrawlConfig) -> Result<Crawler, CrawlError> {
        cfg.validate()
            .map_err(|(k, r)| CrawlError::Config(format!("{k}: {r}")))?;
        let guard = Arc::new(cfg.guard());
        let timeout = Duration::from_secs(cfg.timeout_secs);
        // pages: redirects are followed by the crawler, re-checking robots and the guard;
        // robots.txt: up to 5 redirects (RFC 9309 2.3.1.2), each hop checked by the guard
        let fetcher = Fetcher::new(
            &cfg.user_agent,
            timeout,
            cfg.max_body_bytes,
            0,
            guard.clone(),
        )
        .map_err(CrawlError::Config)?;
        let robots_fetcher = Fetcher::new(
            &cfg.user_agent,
            timeout,
            cfg.max_body_bytes,
            5,
            guard.clone(),
        )
        .map_err(CrawlError::Config)?;
        let robots = RobotsCache::new(
            robots_fetcher,
            &cfg.crawl_token,
            &cfg.training_token,
            Duration::from_secs(cfg.robots_max_age_secs),
        );
        Ok(Crawler {
            cfg,
            fetcher,
            robots,
            guard,
            renderer: None,
            worker: ShardSpec::default(),
        })
    }

    /// Makes this crawler worker `worker.index` of `worker.count`: it crawls the registered
    /// domains it owns (see [`crate::partition`]) and exchanges links with the other workers
    /// through the run root.
    pub fn with_worker(mut self, worker: ShardSpec) -> Crawler {
        self.worker = worker;
        self
    }

    /// Where this worker records that its crawl is complete: `crawl/state.json` for a crawl
    /// by one worker, `crawl/state/IIIII-of-NNNNN.json` per worker otherwise.
    pub fn state_object(&self) -> String {
        state_object(self.worker)
    }

    /// Renders pages headlessly as `render` says (static first: see
    /// [`crate::render::decide`]). Sub-requests of rendered pages go through this crawler's
    /// robots.txt cache and SSRF guard, checked on `handle` (a multi-thread Tokio runtime's);
    /// browsers start on the first page that needs one.
    pub fn with_renderer(
        mut self,
        render: crate::RenderConfig,
        handle: tokio::runtime::Handle,
    ) -> Result<Crawler, CrawlError> {
        render
            .validate()
            .map_err(|(k, r)| CrawlError::Config(format!("{k}: {r}")))?;
        if render.enabled() {
            if handle.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
                return Err(CrawlError::Config(
                    "rendering needs a multi-thread Tokio runtime".into(),
                ));
            }
            self.renderer = Some(Arc::new(crate::render::Renderer::new(
                render,
                self.robots.clone(),
                self.guard.clone(),
                handle,
            )));
        }
        Ok(self)
    }

    /// The browser pool, when rendering is on.
    pub fn renderer(&self) -> Option<&Arc<crate::render::Renderer>> {
        self.renderer.as_ref()
    }

    fn in_scope(&self, u: &Url) -> bool {
        let host = u.host_str().unwrap_or("");
        (self.cfg.allowed_domains.is_empty()
            || self
                .cfg
                .allowed_domains
                .iter()
                .any(|d| trawl_core::host_matches(host, d)))
            && !self.cfg.blocked(u)
    }

    /// Runs (or resumes) the crawl under `root`, sending each committed part downstream.
    /// `progress` is called with the number of pages fetched so far.
    pub async fn run(
        &self,
        root: &Storage,
        tx: mpsc::Sender<CrawlPart>,
        progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    ) -> Result<CrawlState, CrawlError> {
        let r = self.run_crawl(root, tx, progress).await;
        // the browsers end with the crawl, whoever still holds the renderer (a process that
        // exits without dropping it would leave them running)
        if let Some(renderer) = &self.renderer {
            renderer.shutdown();
        }
        r
    }

    async fn run_crawl(
        &self,
        root: &Storage,
        tx: mpsc::Sender<CrawlPart>,
        progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    ) -> Result<CrawlState, CrawlError> {
        let worker = self.worker;
        self.check_workers(root).await?;
        // What earlier runs committed: the parts' markers, then their pages. Committed parts
        // are read past damage (a damaged record costs only itself).
        let mut committed_markers: Vec<Marker> = Vec::new();
        loop {
            let name = shard_name(part_index(committed_markers.len(), worker));
            let Some(marker) = markers::read(root, STAGE, &name).await? else {
                break;
            };
            committed_markers.push(marker);
        }
        let state: CrawlState = match root.get_opt(&self.state_object()).await? {
            Some(b) => serde_json::from_slice(&b).unwrap_or_default(),
            None => CrawlState::default(),
        };
        if state.complete && state.parts == committed_markers.len() {
            tracing::info!(
                parts = committed_markers.len(),
                "crawl already complete; replaying committed parts"
            );
            // one part at a time; damaged records go downstream with their part and are
            // counted there
            for (k, marker) in committed_markers.into_iter().enumerate() {
                let i = part_index(k, worker);
                let warc = format!("crawl/warc/{}.warc.gz", shard_name(i));
                let data = root.get(&warc).await?;
                let (pages, damage) = warc::read_pages_resync(&warc, &data, MAX_REPLAY_RECORD);
                let part = CrawlPart {
                    index: i,
                    warc,
                    pages,
                    stats: marker.stats,
                    replayed: true,
                    damage,
                };
                tx.send(part).await.map_err(|_| CrawlError::Closed)?;
            }
            return Ok(state);
        }
        // resuming an unfinished crawl replays its parts page by page to rebuild the
        // frontier: only their URLs are kept now (a part's pages are read again when the
        // replay reaches it), and a damaged part cannot be rebuilt
        let mut committed_urls: Vec<Vec<String>> = Vec::new();
        for k in 0..committed_markers.len() {
            let file = format!("crawl/warc/{}.warc.gz", shard_name(part_index(k, worker)));
            let data = root.get(&file).await?;
            let (pages, damage) = warc::read_pages_resync(&file, &data, MAX_REPLAY_RECORD);
            if let Some(d) = damage.first() {
                return Err(CrawlError::Storage(trawl_storage::StorageError::Malformed {
                    what: "committed WARC part",
                    url: root.url_of(&file),
                    reason: format!("{d}; an unfinished crawl cannot resume past a damaged part: rerun with --force or a new root"),
                }));
            }
            committed_urls.push(pages.into_iter().map(|p| p.url).collect());
        }
        if !committed_urls.is_empty() {
            tracing::info!(
                parts = committed_urls.len(),
                "resuming crawl after committed parts"
            );
        }
        // URL -> (part, position in it) of every committed page
        let replay: HashMap<String, (usize, usize)> = committed_urls
            .iter()
            .enumerate()
            .flat_map(|(k, urls)| {
                urls.iter()
                    .enumerate()
                    .map(move |(j, u)| (u.clone(), (k, j)))
            })
            .collect();
        let mut part_cache = PartCache::default();
        let journal_dir = self
            .cfg
            .state_dir
            .as_ref()
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| crate::journal::default_dir(root.url()));
        // workers sharing a machine (or a state_dir) each have their own journal
        let journal_dir = if worker.count > 1 {
            journal_dir.join(format!("worker-{:05}-of-{:05}", worker.index, worker.count))
        } else {
            journal_dir
        };
        // the journal and the frontier share a disk, and its free-space floor
        let guard = Arc::new(trawl_core::disk::DiskGuard::new(
            &journal_dir,
            self.cfg.min_free_disk_mb,
            "crawl",
            "state_dir",
            "the crawl state",
        ));
        let journal = Arc::new(
            crate::journal::Journal::open(&journal_dir, guard.clone())
                .map_err(CrawlError::Journal)?,
        );
        self.robots.set_journal(Some(journal.clone()));
        // the queued URLs, on disk beside the journal (rebuilt by every process)
        let mut frontier_dir = journal_dir.clone().into_os_string();
        frontier_dir.push("-frontier");
        let mut frontier = crate::frontier::Frontier::open(
            std::path::Path::new(&frontier_dir),
            self.cfg.seen_on_disk,
            guard,
        )
        .map_err(CrawlError::Journal)?;
        // a recrawl: the earlier crawl's pages, for conditional requests and revisit bodies
        let previous = Arc::new(match &self.cfg.recrawl_from {
            Some(prev) => {
                let mut dir = journal_dir.clone().into_os_string();
                dir.push("-previous");
                load_pages(prev, std::path::Path::new(&dir)).await?
            }
            None => crate::journal::Previous::none(),
        });
        let committed_stats: Vec<RunStats> =
            committed_markers.into_iter().map(|m| m.stats).collect();

        let strip = &self.cfg.strip_query_params;
        let mut seeds = self
            .cfg
            .all_seeds()
            .map_err(|(k, r)| CrawlError::Config(format!("{k}: {r}")))?;
        if let Some(prev) = &self.cfg.continue_from {
            let left = leftover_frontier(prev).await?;
            tracing::info!(urls = left.len(), from = %prev, "continuing the earlier batch's frontier");
            seeds.extend(left);
        }
        // every worker reads every seed and keeps its own; links for others go out by round
        let owns = |u: &Url| crate::partition::owner(u, worker.count) == worker.index;
        let mut own_seeds: Vec<Url> = Vec::new();
        for s in &seeds {
            if let Some(u) = canonicalize(s, None, strip) {
                if owns(&u) && frontier.queue_new(0, &u, 0).map_err(CrawlError::Journal)? {
                    own_seeds.push(u);
                }
            }
        }
        if self.cfg.sitemaps {
            // the sitemaps of this worker's seed hosts (`max_sitemap_urls` per worker);
            // URLs they list on other workers' domains are handed over like links
            let mut extra: Vec<Url> = self
                .sitemap_urls(&own_seeds, &journal)
                .await
                .into_iter()
                .filter(|u| !frontier.was_seen(u.as_str()))
                .collect();
            extra.truncate(self.cfg.max_sitemap_urls);
            if !extra.is_empty() {
                tracing::info!(urls = extra.len(), "seeds from sitemaps");
            }
            for u in extra {
                let o = crate::partition::owner(&u, worker.count);
                if o != worker.index {
                    frontier
                        .send(0, o, u.as_str(), 0)
                        .map_err(CrawlError::Journal)?;
                } else {
                    frontier.queue_new(0, &u, 0).map_err(CrawlError::Journal)?;
                }
            }
        }
        let exchange = (worker.count > 1).then(|| {
            crate::partition::Exchange::new(
                root.clone(),
                worker,
                Duration::from_secs(self.cfg.worker_timeout_secs),
            )
        });
        // a global page count would need coordination: each worker has its share
        let max_pages = self.cfg.max_pages.div_ceil(worker.count);
        let mut fetched_total = 0usize;
        let mut per_host: HashMap<String, usize> = HashMap::new();
        let quality = match &self.cfg.priority.quality_from {
            Some(prev) => host_survival(prev).await?,
            None => HashMap::new(),
        };
        let host_cap = self.cfg.max_pages_per_host.min(
            ((self.cfg.max_pages as f64 * self.cfg.priority.max_host_share).ceil() as usize).max(1),
        );
        let mut host_langs: HashMap<String, (u32, u32)> = HashMap::new();
        let polite = crate::fetch::Politeness::new(
            self.cfg.max_retries,
            Duration::from_secs(self.cfg.max_backoff_secs),
        );
        let mut buf = PartBuf::new(0, worker);
        let mut parts_done = 0usize;
        let ctx = Ctx {
            root,
            journal: &journal,
            tx: &tx,
            committed_urls: &committed_urls,
            committed_stats: &committed_stats,
        };

        // pages a host answered 429/503 wait out its backoff in later rounds, keeping their
        // depth, so a host in backoff holds up no other host
        let mut carried: Vec<Carried> = Vec::new();
        let mut round = 0u32;
        loop {
            // only hosts in backoff are left here: wait for the first of them (a worker with
            // partners waits at most IDLE_ROUND, so it does not hold up their rounds)
            if frontier.queued(round) == 0 && !carried.is_empty() {
                let hosts: BTreeSet<String> = carried.iter().map(|c| authority(&c.url)).collect();
                if let Some(mut wait) = polite.earliest_backoff(hosts.iter()).await {
                    if exchange.is_some() {
                        wait = wait.min(IDLE_ROUND);
                    }
                    tokio::time::sleep(wait).await;
                }
            }
            // hand over the links of this round found for other workers, take theirs
            if let Some(x) = &exchange {
                let mut out: Vec<Vec<(String, u32)>> = Vec::with_capacity(worker.count);
                for j in 0..worker.count {
                    out.push(if j == worker.index {
                        Vec::new()
                    } else {
                        frontier.take_sent(round, j).map_err(CrawlError::Journal)?
                    });
                }
                x.publish(round, frontier.queued(round) + carried.len() as u64, &out)
                    .await?;
                drop(out);
                let (incoming, total) = x.receive(round).await?;
                if total == 0 {
                    break;
                }
                for (s, d) in incoming {
                    if let Ok(u) = Url::parse(&s) {
                        frontier
                            .queue_new(round, &u, d)
                            .map_err(CrawlError::Journal)?;
                    }
                }
            } else if frontier.queued(round) == 0 && carried.is_empty() {
                break;
            }
            frontier
                .start(round, |u| self.score(u, &host_langs, &quality))
                .map_err(CrawlError::Journal)?;
            // the round goes through in chunks of its order, so memory holds one chunk; the
            // decisions, the budget and what is written are those of the whole round at once
            let round_start_total = fetched_total;
            let mut to_fetch = 0usize;
            let mut decisions: HashMap<String, Arc<RobotsDecision>> = HashMap::new();
            let host_failures: Arc<std::sync::Mutex<HashMap<String, u32>>> = Default::default();
            let mut first_chunk = true;
            loop {
                let chunk = frontier
                    .take(round, self.cfg.frontier_chunk)
                    .map_err(CrawlError::Journal)?;
                if chunk.is_empty() && (!first_chunk || carried.is_empty()) {
                    break;
                }
                // 1. decide, in order: pages carried over from a backoff first (decided and
                // budgeted when they were first met), then this round's new URLs
                let mut decided: Vec<(Url, u32, Decision)> = Vec::new();
                if first_chunk {
                    for c in carried.drain(..) {
                        to_fetch += 1;
                        decided.push((c.url, c.depth, Ok(Plan::Fetch(c.decision, c.tries))));
                    }
                    first_chunk = false;
                }
                let plans: Vec<(Url, u32, bool)> = chunk
                    .into_iter()
                    .map(|(u, d)| {
                        let s = self.in_scope(&u);
                        (u, d, s)
                    })
                    .collect();
                // robots.txt for every authority of the round, fetched concurrently
                let mut auths: BTreeMap<String, Url> = BTreeMap::new();
                for (u, _, in_scope) in &plans {
                    if *in_scope
                        && !replay.contains_key(u.as_str())
                        && self.guard.check_url(u).is_ok()
                    {
                        auths.entry(authority(u)).or_insert_with(|| u.clone());
                    }
                }
                futures::future::join_all(auths.values().map(|u| self.robots.decide(u))).await;
                for (u, depth, in_scope) in plans {
                    if !in_scope {
                        decided.push((u, depth, Err((reasons::OUT_OF_SCOPE, None))));
                        continue;
                    }
                    let host = authority(&u);
                    let host_count = per_host.get(&host).copied().unwrap_or(0);
                    if round_start_total + to_fetch >= max_pages || host_count >= host_cap {
                        decided.push((u, depth, Err((reasons::BUDGET, None))));
                        continue;
                    }
                    if let Some((k, j)) = replay.get(u.as_str()) {
                        to_fetch += 1;
                        *per_host.entry(host).or_default() += 1;
                        decided.push((u, depth, Ok(Plan::Committed(*k, *j))));
                        continue;
                    }
                    // fetched (or failed) before an interruption: never fetch a URL twice
                    match journal.get(u.as_str()) {
                        Some(Ok(_)) => {
                            to_fetch += 1;
                            *per_host.entry(host).or_default() += 1;
                            decided.push((u, depth, Ok(Plan::Journaled)));
                            continue;
                        }
                        Some(Err(fail)) => {
                            decided.push((u, depth, Err((fail.reason, Some(fail.detail)))));
                            continue;
                        }
                        None => {}
                    }
                    if let Err(e) = self.guard.check_url(&u) {
                        decided.push((u, depth, Err((reasons::PRIVATE_ADDRESS, Some(e)))));
                        continue;
                    }
                    let d = self.robots.decide(&u).await;
                    if let Some(refused) = d.refused_address {
                        decided.push((u, depth, Err((reasons::PRIVATE_ADDRESS, Some(refused)))));
                    } else if d.unreachable {
                        decided.push((
                            u,
                            depth,
                            Err((
                                reasons::ROBOTS_UNREACHABLE,
                                d.status.map(|s| format!("robots.txt status {s}")),
                            )),
                        ));
                    } else if !d.crawl_allowed {
                        decided.push((u, depth, Err((reasons::ROBOTS_DISALLOWED, None))));
                    } else if d
                        .crawl_delay
                        .is_some_and(|cd| cd as f64 > self.cfg.max_crawl_delay_secs)
                    {
                        decided.push((
                            u,
                            depth,
                            Err((
                                reasons::CRAWL_DELAY_TOO_HIGH,
                                d.crawl_delay.map(|cd| format!("Crawl-delay {cd}")),
                            )),
                        ));
                    } else {
                        to_fetch += 1;
                        // one shared copy per host while its decisions are equal (a decision holds
                        // a dozen strings)
                        let shared = match decisions.get(&host) {
                            Some(prev) if **prev == d => prev.clone(),
                            _ => {
                                let a = Arc::new(d);
                                decisions.insert(host.clone(), a.clone());
                                a
                            }
                        };
                        *per_host.entry(host).or_default() += 1;
                        decided.push((u, depth, Ok(Plan::Fetch(shared, 0))));
                    }
                }
                // 2. fetch: hosts in parallel, one request at a time per host
                let mut by_host: BTreeMap<String, Vec<HostJob>> = BTreeMap::new();
                for (u, depth, p) in &decided {
                    if let Ok(Plan::Fetch(d, tries)) = p {
                        by_host.entry(authority(u)).or_default().push(HostJob {
                            url: u.clone(),
                            decision: d.clone(),
                            depth: *depth,
                            tries: *tries,
                        });
                    }
                }
                let shared = Arc::new(HostFetch {
                    fetcher: self.fetcher.clone(),
                    robots: self.robots.clone(),
                    guard: self.guard.clone(),
                    polite: polite.clone(),
                    journal: journal.clone(),
                    previous: previous.clone(),
                    renderer: self.renderer.clone(),
                    strip: self.cfg.strip_query_params.clone(),
                    tokens: (
                        self.cfg.crawl_token.clone(),
                        self.cfg.training_token.clone(),
                    ),
                    delay_ms: self.cfg.delay_ms,
                    budget: self.cfg.host_error_budget,
                    round,
                    results: Default::default(),
                    host_failures: host_failures.clone(),
                    counter: std::sync::atomic::AtomicU64::new(fetched_total as u64),
                    progress: progress.clone(),
                    sem: Semaphore::new(self.cfg.concurrency),
                });
                let tasks: Vec<_> = by_host
                    .into_iter()
                    .map(|(host, jobs)| tokio::spawn(fetch_host(shared.clone(), host, jobs)))
                    .collect();
                for t in tasks {
                    t.await
                        .map_err(|e| CrawlError::Internal(format!("fetch task failed: {e}")))?;
                }
                let results = &shared.results;
                let mut results = std::mem::take(&mut *results.lock().await);
                // 3. emit in order, collect links
                for (u, depth, p) in decided {
                    // the outcome (None: the journal no longer has it), or no page to write
                    let outcome: Option<crate::journal::Outcome> = match p {
                        Err((reason, detail)) => {
                            buf.exclude(u.as_str(), reason, detail);
                            continue;
                        }
                        Ok(Plan::Committed(k, j)) => {
                            let mut page = part_cache.take(root, worker, k, j).await?;
                            if page.revisit_of.is_some() && page.body.is_empty() {
                                // a revisit record has no payload: the body is the earlier capture's
                                if let Some(p) = previous.get(u.as_str()) {
                                    page.body = p.body;
                                }
                            }
                            Some(Ok(page))
                        }
                        // decided from a page the journal held
                        Ok(Plan::Journaled) => journal.get(u.as_str()).filter(Result::is_ok),
                        Ok(Plan::Fetch(decision, _)) => match results.remove(u.as_str()) {
                            Some(Fate::Done(o)) => Some(*o),
                            Some(Fate::Journaled) => journal.get(u.as_str()),
                            Some(Fate::Deferred(tries)) => {
                                carried.push(Carried {
                                    url: u,
                                    depth,
                                    decision,
                                    tries,
                                });
                                continue;
                            }
                            None => Some(Err(FetchFail {
                                reason: reasons::FETCH_ERROR,
                                detail: "no result (task lost)".into(),
                            })),
                        },
                    };
                    let page = match outcome {
                        Some(Ok(page)) => page,
                        Some(Err(fail)) => {
                            buf.exclude(u.as_str(), fail.reason, Some(fail.detail));
                            continue;
                        }
                        None => {
                            buf.exclude(
                                u.as_str(),
                                reasons::FETCH_ERROR,
                                Some("the crawl journal lost the page".into()),
                            );
                            continue;
                        }
                    };
                    fetched_total += 1;
                    if !self.cfg.priority.target_languages.is_empty()
                        && (200..300).contains(&page.status)
                    {
                        let e = host_langs.entry(authority(&u)).or_default();
                        e.1 += 1;
                        if page_lang(&page).is_some_and(|l| {
                            self.cfg.priority.target_languages.iter().any(|t| t == l)
                        }) {
                            e.0 += 1;
                        }
                    }
                    if depth < self.cfg.max_depth {
                        let found = links(&page, strip, self.cfg.max_links_per_page);
                        if found.left_out > 0 {
                            let c = &mut buf.stats.stage_mut(STAGE).counters;
                            *c.entry("links_left_out".into()).or_default() += found.left_out as u64;
                            *c.entry("pages_links_capped".into()).or_default() += 1;
                        }
                        for link in found.urls {
                            let o = crate::partition::owner(&link, worker.count);
                            if o != worker.index {
                                frontier
                                    .send(round + 1, o, link.as_str(), depth + 1)
                                    .map_err(CrawlError::Journal)?;
                            } else {
                                frontier
                                    .queue_new(round + 1, &link, depth + 1)
                                    .map_err(CrawlError::Journal)?;
                            }
                        }
                    }
                    let st = buf.stats.stage_mut(STAGE);
                    st.seen += 1;
                    st.kept += 1;
                    st.bytes_out += page.body.len() as u64;
                    *st.counters
                        .entry(format!("status_{}xx", page.status / 100))
                        .or_default() += 1;
                    if let Some(r) = &page.render {
                        count_render(&mut st.counters, r);
                    }
                    buf.pages.push(page);
                    let part_bytes: u64 = buf.pages.iter().map(|p| p.body.len() as u64).sum();
                    if buf.pages.len() >= self.cfg.pages_per_part
                        || part_bytes >= self.cfg.max_part_bytes
                    {
                        let full =
                            std::mem::replace(&mut buf, PartBuf::new(parts_done + 1, worker));
                        self.flush(&ctx, full).await?;
                        parts_done += 1;
                    }
                }
            }
            frontier.finish(round).map_err(CrawlError::Journal)?;
            round += 1;
        }
        frontier.destroy();
        if let Ok(p) = Arc::try_unwrap(previous) {
            p.destroy();
        }
        if !buf.pages.is_empty() || buf.excluded.lines() > 0 || parts_done == 0 {
            self.flush(&ctx, buf).await?;
            parts_done += 1;
        }
        let state = CrawlState {
            complete: true,
            parts: parts_done,
        };
        root.put(
            &self.state_object(),
            serde_json::to_vec_pretty(&state).expect("state").into(),
        )
        .await?;
        // every outcome is in committed WARC parts now
        self.robots.set_journal(None);
        if let Ok(j) = Arc::try_unwrap(journal) {
            j.destroy();
        }
        Ok(state)
    }

    /// The frontier score of a URL (see [`crate::PriorityConfig`]).
    fn score(
        &self,
        u: &Url,
        host_langs: &HashMap<String, (u32, u32)>,
        quality: &HashMap<String, f64>,
    ) -> f64 {
        let p = &self.cfg.priority;
        let target = format!(
            "{}{}",
            u.path(),
            u.query().map(|q| format!("?{q}")).unwrap_or_default()
        )
        .to_ascii_lowercase();
        let mut s: f64 = p
            .path_weights
            .iter()
            .filter(|(k, _)| target.contains(k.as_str()))
            .map(|(_, w)| *w)
            .sum();
        s += p.query_param_weight * u.query_pairs().count() as f64;
        if p.quality_from.is_some() {
            s += p.quality_weight * quality.get(&authority(u)).copied().unwrap_or(0.5);
        }
        if !p.target_languages.is_empty() {
            if let Some((t, n)) = host_langs.get(&authority(u)) {
                if *n > 0 {
                    s += p.language_weight * (*t as f64 / *n as f64);
                }
            }
        }
        s
    }

    /// Page URLs from the sitemaps of the seeds' hosts (robots.txt `Sitemap:` lines, else
    /// `/sitemap.xml`), following index files two levels deep; every sitemap fetch goes
    /// through the guard and robots.txt and is journaled, so a resumed crawl sees the same.
    /// Hosts are read concurrently (`concurrency` at a time; a silent host costs one timeout,
    /// not one each), each on its own (at most [`SITEMAP_FILES_PER_HOST`] files and
    /// `max_sitemap_urls` URLs), and merged in host order up to `max_sitemap_urls`: the
    /// result depends only on what the hosts answer.
    async fn sitemap_urls(&self, seeds: &[Url], journal: &crate::journal::Journal) -> Vec<Url> {
        let mut hosts: BTreeMap<String, Url> = BTreeMap::new();
        for s in seeds {
            hosts.entry(authority(s)).or_insert_with(|| s.clone());
        }
        use futures::StreamExt;
        // owned seeds: a closure over borrowed ones is not general enough for a Send future
        let per_host: Vec<BTreeSet<String>> = futures::stream::iter(hosts.into_values())
            .map(|seed| async move { self.host_sitemap_urls(&seed, journal).await })
            .buffered(self.cfg.concurrency.max(1))
            .collect()
            .await;
        let mut out: BTreeSet<String> = BTreeSet::new();
        for urls in per_host {
            for u in urls {
                if out.len() >= self.cfg.max_sitemap_urls {
                    break;
                }
                out.insert(u);
            }
        }
        out.into_iter()
            .filter_map(|s| Url::parse(&s).ok())
            .collect()
    }

    /// The page URLs of one seed host's sitemaps (see [`Crawler::sitemap_urls`]).
    async fn host_sitemap_urls(
        &self,
        seed: &Url,
        journal: &crate::journal::Journal,
    ) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = BTreeSet::new();
        if self.guard.check_url(seed).is_err() || !self.robots.decide(seed).await.crawl_allowed {
            return out;
        }
        let mut queue: Vec<String> = self.robots.sitemaps(seed).await;
        if queue.is_empty() {
            if let Ok(u) = seed.join("/sitemap.xml") {
                queue.push(u.to_string());
            }
        }
        // sitemap files taken, fetched now or read from the journal alike (a resumed crawl
        // stops where the first attempt did)
        let mut files = 0usize;
        for _level in 0..3 {
            let mut next = Vec::new();
            for sm in std::mem::take(&mut queue) {
                let Some(u) = canonicalize(&sm, None, &[]) else {
                    continue;
                };
                let decision = self.robots.decide(&u).await;
                if files >= SITEMAP_FILES_PER_HOST
                    || out.len() >= self.cfg.max_sitemap_urls
                    || self.guard.check_url(&u).is_err()
                    || !decision.crawl_allowed
                {
                    continue;
                }
                files += 1;
                let key = format!("sitemap:{u}");
                let outcome = match journal.get(&key) {
                    Some(o) => o,
                    None => {
                        let o = self
                            .fetcher
                            .get(u.as_str(), None)
                            .await
                            .map(|f| FetchedPage {
                                url: u.to_string(),
                                status: f.status,
                                body: f.body,
                                ..Default::default()
                            });
                        journal.put(&key, &o);
                        // the same politeness as for pages before the next request
                        let gap =
                            Duration::from_millis(self.cfg.delay_ms).max(Duration::from_secs_f32(
                                decision
                                    .crawl_delay
                                    .unwrap_or(0.0)
                                    .clamp(0.0, self.cfg.max_crawl_delay_secs as f32),
                            ));
                        tokio::time::sleep(gap).await;
                        o
                    }
                };
                let Ok(page) = outcome else { continue };
                if !(200..300).contains(&page.status) {
                    continue;
                }
                let parsed = crate::sitemap::parse(&page.body, self.cfg.max_body_bytes);
                next.extend(parsed.sitemaps);
                for p in parsed.urls {
                    if let Some(pu) = canonicalize(&p, None, &self.cfg.strip_query_params) {
                        if self.in_scope(&pu) {
                            out.insert(pu.to_string());
                        }
                    }
                }
            }
            queue = next;
        }
        out
    }

    async fn flush(&self, ctx: &Ctx<'_>, mut buf: PartBuf) -> Result<(), CrawlError> {
        let name = shard_name(buf.index);
        let file = format!("crawl/warc/{name}.warc.gz");
        let replayed = buf.seq < ctx.committed_urls.len();
        if replayed {
            let urls: Vec<String> = buf.pages.iter().map(|p| p.url.clone()).collect();
            if urls != ctx.committed_urls[buf.seq] {
                return Err(CrawlError::Diverged {
                    part: buf.index,
                    detail: format!(
                        "{} pages now, {} committed",
                        urls.len(),
                        ctx.committed_urls[buf.seq].len()
                    ),
                });
            }
            buf.stats = ctx.committed_stats[buf.seq].clone();
        } else {
            let date = buf
                .pages
                .first()
                .map(|p| p.fetch_time.clone())
                .unwrap_or_else(|| trawl_core::time::rfc3339(trawl_core::time::record_now()));
            let mut w = WarcWriter::new(&file, concat!("trawl/", env!("CARGO_PKG_VERSION")), &date);
            let req_headers = vec![("User-Agent".to_string(), self.cfg.user_agent.clone())];
            for p in &mut buf.pages {
                w.write_page(p, &req_headers);
            }
            ctx.root.put(&file, w.finish().into()).await?;
            let ex = std::mem::replace(&mut buf.excluded, JsonlWriter::for_name("x.jsonl.zst"));
            let ex_file = trawl_storage::exclusions_object(STAGE, &name);
            ctx.root.put(&ex_file, ex.finish().into()).await?;
            markers::commit(
                ctx.root,
                &Marker {
                    stage: STAGE.into(),
                    shard: name.clone(),
                    inputs: vec![],
                    outputs: vec![file.clone(), ex_file],
                    stats: buf.stats.clone(),
                    config: String::new(),
                },
            )
            .await?;
            tracing::debug!(
                part = buf.index,
                pages = buf.pages.len(),
                "crawl part committed"
            );
            // committed pages live in the WARC now: the journal keeps only what is not
            for p in &buf.pages {
                ctx.journal.forget(&p.url);
            }
        }
        let part = CrawlPart {
            index: buf.index,
            warc: file,
            pages: buf.pages,
            stats: buf.stats,
            replayed,
            damage: Vec::new(),
        };
        ctx.tx.send(part).await.map_err(|_| CrawlError::Closed)
    }
}

/// The run-root number of a worker's part `seq`: parts of worker `i` of `n` are `i`, `i + n`,
/// `i + 2n`, ..., so names never collide and a one-worker crawl numbers them 0, 1, 2, ...
fn part_index(seq: usize, worker: ShardSpec) -> usize {
    seq * worker.count + worker.index
}

/// See [`Crawler::state_object`].
pub fn state_object(worker: ShardSpec) -> String {
    if worker.count <= 1 {
        "crawl/state.json".to_string()
    } else {
        format!(
            "crawl/state/{:05}-of-{:05}.json",
            worker.index, worker.count
        )
    }
}

impl Crawler {
    /// Refuses a run root that a crawl with another number of workers wrote: its parts, its
    /// rounds and its budgets were cut for that number.
    async fn check_workers(&self, root: &Storage) -> Result<(), CrawlError> {
        let n = self.worker.count;
        let mut others = crate::partition::Exchange::other_counts(root, n).await?;
        if n > 1 && root.get_opt("crawl/state.json").await?.is_some() {
            others.insert(0, 1);
        }
        if let Some(m) = others.first() {
            return Err(CrawlError::Worker(format!(
                "this run root holds a crawl by {m} worker(s) and this crawl has {n}: rerun with --shard i/{m}, or use a new run root (--output) for a crawl by {n}"
            )));
        }
        Ok(())
    }
}

/// What the fetch tasks of one chunk share.
struct HostFetch {
    fetcher: Fetcher,
    robots: RobotsCache,
    guard: Arc<crate::guard::Guard>,
    polite: crate::fetch::Politeness,
    journal: Arc<crate::journal::Journal>,
    /// The earlier crawl's pages (a recrawl).
    previous: Arc<crate::journal::Previous>,
    renderer: Option<Arc<crate::render::Renderer>>,
    strip: Vec<String>,
    /// The crawl and training tokens.
    tokens: (String, String),
    delay_ms: u64,
    /// `host_error_budget`.
    budget: u32,
    round: u32,
    results: Mutex<HashMap<String, Fate>>,
    /// Consecutive failures per host, across the round's chunks.
    host_failures: Arc<std::sync::Mutex<HashMap<String, u32>>>,
    counter: std::sync::atomic::AtomicU64,
    progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    /// Hosts fetched at once (`concurrency`).
    sem: Semaphore,
}

/// Fetches one host's URLs of a chunk, one request at a time, and records each outcome (in
/// the journal, and its fate in `f.results`).
async fn fetch_host(f: Arc<HostFetch>, host: String, jobs: Vec<HostJob>) {
    let _permit = f.sem.acquire().await.expect("semaphore open");
    // consecutive failures count across the round's chunks
    let mut failures = f
        .host_failures
        .lock()
        .expect("failures lock")
        .get(&host)
        .copied()
        .unwrap_or(0);
    let mut deferring = false;
    for job in jobs {
        let HostJob {
            url: u,
            decision: d,
            depth,
            tries,
        } = job;
        // the host is in backoff (a 429/503 earlier in this round or before):
        // its pages wait for a later round; journaled, so a rerun decides the same
        let key = defer_key(f.round, &u);
        if let Some(t) = f.journal.deferred(&key) {
            f.results
                .lock()
                .await
                .insert(u.to_string(), Fate::Deferred(t));
            continue;
        }
        if deferring || f.polite.in_backoff(&host).await {
            deferring = true;
            f.journal.put_deferred(&key, tries);
            f.results
                .lock()
                .await
                .insert(u.to_string(), Fate::Deferred(tries));
            continue;
        }
        if f.budget > 0 && failures >= f.budget {
            let fail: crate::journal::Outcome = Err(FetchFail {
                reason: reasons::HOST_ERROR_BUDGET,
                detail: format!("{failures} consecutive failures on this host"),
            });
            let fate = if f.journal.put(u.as_str(), &fail) {
                Fate::Journaled
            } else {
                Fate::Done(Box::new(fail))
            };
            f.results.lock().await.insert(u.to_string(), fate);
            continue;
        }
        let gap = Duration::from_millis(f.delay_ms).max(Duration::from_secs_f32(
            d.crawl_delay.unwrap_or(0.0).max(0.0),
        ));
        let prev = f.previous.get(u.as_str());
        let conditional: Vec<(String, String)> = prev
            .as_ref()
            .map(|p| {
                let mut h = Vec::new();
                if let Some(e) = p.header("etag") {
                    h.push(("If-None-Match".to_string(), e.to_string()));
                }
                if let Some(l) = p.header("last-modified") {
                    h.push(("If-Modified-Since".to_string(), l.to_string()));
                }
                h
            })
            .unwrap_or_default();
        let r = match f
            .polite
            .fetch_or_defer(&host, gap, tries, || {
                fetch_following(&f.fetcher, &f.robots, &f.guard, &f.strip, &u, &conditional)
            })
            .await
        {
            crate::fetch::Attempt::Done(r) => r,
            crate::fetch::Attempt::Backoff => {
                deferring = true;
                f.journal.put_deferred(&key, tries + 1);
                f.results
                    .lock()
                    .await
                    .insert(u.to_string(), Fate::Deferred(tries + 1));
                continue;
            }
        };
        let failed = match &r {
            Ok(f) => f.status >= 500,
            Err(e) => {
                e.reason != reasons::TOO_LARGE
                    && e.reason != reasons::REDIRECT_DISALLOWED
                    && e.reason != reasons::REDIRECTS
            }
        };
        failures = if failed { failures + 1 } else { 0 };
        let outcome = r.map(|fetched| match prev {
            // unchanged since the earlier crawl: its body, a revisit record
            Some(p) if fetched.status == 304 => {
                let mut page = make_page(
                    &f.tokens.0,
                    &f.tokens.1,
                    u.as_str(),
                    Fetched {
                        status: p.status,
                        final_url: p.final_url.clone(),
                        headers: p.headers.clone(),
                        body: p.body.clone(),
                    },
                    &d,
                    depth,
                );
                page.revisit_of = Some(p.fetch_time.clone());
                page
            }
            _ => make_page(&f.tokens.0, &f.tokens.1, u.as_str(), fetched, &d, depth),
        });
        // the next request to this host waits for the render (and its sub-requests)
        let outcome = match (outcome, &f.renderer) {
            (Ok(page), Some(r)) => Ok(render_page(r, page).await),
            (o, _) => o,
        };
        let fate = if f.journal.put(u.as_str(), &outcome) {
            Fate::Journaled
        } else {
            Fate::Done(Box::new(outcome))
        };
        f.results.lock().await.insert(u.to_string(), fate);
        let n = f.counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Some(p) = &f.progress {
            p(n);
        }
    }
    f.host_failures
        .lock()
        .expect("failures lock")
        .insert(host, failures);
}

/// Decides whether a page needs the browser and renders it if so (in a blocking thread).
async fn render_page(r: &Arc<crate::render::Renderer>, page: FetchedPage) -> FetchedPage {
    // the decision parses the page: off the async workers
    let r2 = r.clone();
    let task = tokio::task::spawn_blocking(move || {
        // a bug in the decision costs the page its rendering, not the page
        let d = trawl_core::RecordError::catch(|| crate::render::decide(r2.config(), &page))
            .unwrap_or(Some((false, "decision_failed")));
        (page, d)
    });
    let (mut page, decision) = task.await.expect("the decision task does not panic");
    let Some((render, reason)) = decision else {
        return page;
    };
    if !render || !r.available() {
        page.render = Some(trawl_core::RenderInfo {
            reason: reason.to_string(),
            error: (render && !r.available()).then(|| UNAVAILABLE.to_string()),
            ..Default::default()
        });
        return page;
    }
    let r = r.clone();
    let page2 = page.clone();
    match tokio::task::spawn_blocking(move || r.render(&page2, reason)).await {
        Ok((info, dom)) => {
            page.render = Some(info);
            page.rendered = dom;
        }
        Err(e) => {
            page.render = Some(trawl_core::RenderInfo {
                reason: reason.to_string(),
                error: Some(format!("render task: {e}")),
                ..Default::default()
            })
        }
    }
    page
}

/// The render error of a page that needed a browser when none is installed.
const UNAVAILABLE: &str = "unavailable";

/// Crawl-stage counters of a render decision: rendered vs static, reasons, failures, refused
/// sub-requests.
fn count_render(c: &mut BTreeMap<String, u64>, r: &trawl_core::RenderInfo) {
    let mut add = |k: String, n: u64| *c.entry(k).or_default() += n;
    if r.error.as_deref() == Some(UNAVAILABLE) {
        add("render_unavailable".into(), 1);
        add(format!("render_reason_{}", r.reason), 1);
        return;
    }
    let sent = r.rendered || r.error.is_some();
    add(
        if r.rendered {
            "render_rendered".into()
        } else if sent {
            "render_failed".into()
        } else {
            "render_static".into()
        },
        1,
    );
    add(format!("render_reason_{}", r.reason), 1);
    if let Some(e) = &r.error {
        let kind = if e == "timeout" || e == "crash" {
            e.as_str()
        } else {
            "error"
        };
        add(format!("render_{kind}"), 1);
    }
    // a retry on a new browser after a crash (moving on to the next engine is not one)
    if r.attempts > 1 + u32::from(r.fallback.is_some()) {
        add("render_retried".into(), 1);
    }
    if let Some(e) = &r.engine {
        add(format!("render_engine_{e}"), 1);
    }
    if let Some(f) = &r.fallback {
        add(format!("render_fallback_{f}"), 1);
    }
    for (k, n) in &r.blocked {
        add(format!("render_blocked_{k}"), u64::from(*n));
    }
    add("render_subrequests".into(), u64::from(r.requests));
}

/// The fetched page with its consent record.
fn make_page(
    crawl_token: &str,
    training_token: &str,
    url: &str,
    f: Fetched,
    d: &RobotsDecision,
    depth: u32,
) -> FetchedPage {
    let fetch_time = trawl_core::time::rfc3339(trawl_core::time::record_now());
    let xrt: String = f
        .headers
        .iter()
        .filter(|(k, _)| k == "x-robots-tag")
        .map(|(_, v)| v.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(",");
    let consent = Consent {
        basis: ConsentBasis::Robots,
        crawl_token: Some(crawl_token.to_string()),
        crawl_allowed: Some(d.crawl_allowed),
        crawl_rule: d
            .crawl_rule
            .as_ref()
            .map(|(r, l)| format!("{r} (line {l})")),
        training_token: Some(training_token.to_string()),
        training_allowed: Some(d.training_allowed),
        training_rule: d
            .training_rule
            .as_ref()
            .map(|(r, l)| format!("{r} (line {l})")),
        robots_url: Some(d.robots_url.clone()),
        robots_status: d.status,
        noai: has_directive(&xrt, "noai"),
        noimageai: has_directive(&xrt, "noimageai") || has_directive(&xrt, "noai"),
        noindex: has_directive(&xrt, "noindex") || has_directive(&xrt, "none"),
        robots_fetched: Some(d.fetched.clone()).filter(|s| !s.is_empty()),
        robots_digest: Some(d.digest.clone()).filter(|s| !s.is_empty()),
        fetch_time: Some(fetch_time.clone()),
        signals: d.signals_with(&f.headers),
    };
    FetchedPage {
        url: url.to_string(),
        final_url: f.final_url,
        fetch_time,
        status: f.status,
        headers: f.headers,
        body: f.body,
        rendered: None,
        render: None,
        warc: None,
        consent,
        depth,
        revisit_of: None,
    }
}

/// The URLs an earlier crawl found but did not fetch for lack of budget, in its order.
async fn leftover_frontier(prev: &str) -> Result<Vec<String>, CrawlError> {
    let root = Storage::open(prev, &Default::default())?;
    let mut out = Vec::new();
    for k in root.list("excluded/crawl").await? {
        let b = root.get(&k).await?;
        for v in trawl_storage::jsonl::lines::<serde_json::Value>(&k, &b)?.flatten() {
            if v["reason"] == reasons::BUDGET.as_str() {
                if let Some(u) = v["url"].as_str() {
                    out.push(u.to_string());
                }
            }
        }
    }
    Ok(out)
}

/// Every successful page of a run root's committed crawl, with its body (only `response`
/// records carry one; a chain of recrawls refers to the last full capture it was given), into
/// a store on local disk at `dir`.
async fn load_pages(
    prev: &str,
    dir: &std::path::Path,
) -> Result<crate::journal::Previous, CrawlError> {
    let root = Storage::open(prev, &Default::default())?;
    let out = crate::journal::Previous::create(dir).map_err(CrawlError::Journal)?;
    for k in root.list("crawl/warc").await? {
        if !warc::is_warc(&k) {
            continue;
        }
        let data = root.get(&k).await?;
        let (pages, err) = warc::read_pages(&k, &data);
        if let Some(e) = err {
            tracing::warn!(error = %e, "damaged WARC in the earlier crawl: keeping what was readable");
        }
        for p in pages {
            if (200..300).contains(&p.status) && !p.body.is_empty() {
                out.put(&p).map_err(CrawlError::Journal)?;
            }
        }
    }
    Ok(out)
}

/// Per host (authority) of an earlier run: the fraction of its extracted documents that
/// reached the end of the pipeline (dedup output, else filter output).
async fn host_survival(prev: &str) -> Result<HashMap<String, f64>, CrawlError> {
    let root = Storage::open(prev, &Default::default())?;
    let count = |dir: &'static str| {
        let root = root.clone();
        async move {
            let mut n: HashMap<String, u64> = HashMap::new();
            for k in root.list(dir).await? {
                if !trawl_storage::docs::is_documents(&k) {
                    continue;
                }
                let b = root.get(&k).await?;
                let max = trawl_storage::jsonl::DEFAULT_MAX_LINE_BYTES;
                trawl_storage::docs::for_each(&k, &b, max, |d| {
                    if let Some(u) = d.ok().and_then(|d| Url::parse(&d.url).ok()) {
                        *n.entry(authority(&u)).or_default() += 1;
                    }
                })?;
            }
            Ok::<_, StorageError>(n)
        }
    };
    let extracted = count("extract").await?;
    let mut kept = count("dedup").await?;
    if kept.is_empty() {
        kept = count("filter").await?;
    }
    Ok(extracted
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(h, n)| (h.clone(), *kept.get(&h).unwrap_or(&0) as f64 / n as f64))
        .collect())
}

/// The language of a fetched HTML page (whatlang over its text, tags stripped roughly).
fn page_lang(page: &FetchedPage) -> Option<&'static str> {
    let html = String::from_utf8_lossy(&page.body[..page.body.len().min(64 * 1024)]);
    let mut text = String::with_capacity(html.len() / 2);
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    whatlang::detect(&text)
        .filter(|i| i.is_reliable())
        .map(|i| i.lang().code())
}

/// Fetches a page, following up to 5 redirects itself: every hop is canonicalised and
/// checked against the SSRF guard and robots.txt (crawl token) before it is requested, and a
/// loop ends the chain. The result's `final_url` is the last URL requested.
pub(crate) async fn fetch_following(
    fetcher: &Fetcher,
    robots: &RobotsCache,
    guard: &crate::guard::Guard,
    strip: &[String],
    start: &Url,
    conditional: &[(String, String)],
) -> Result<Fetched, FetchFail> {
    let mut url = start.clone();
    let mut seen = BTreeSet::from([url.to_string()]);
    for hop in 0..=5 {
        let f = fetcher
            .get_with(url.as_str(), None, if hop == 0 { conditional } else { &[] })
            .await?;
        let location = f
            .headers
            .iter()
            .find(|(k, _)| k == "location")
            .map(|(_, v)| v.clone());
        let Some(loc) = location.filter(|_| (300..400).contains(&f.status)) else {
            return Ok(f);
        };
        let Some(next) = canonicalize(&loc, Some(&url), strip) else {
            return Ok(f); // not an http(s) target: keep the redirect response itself
        };
        if hop == 5 {
            break;
        }
        if !seen.insert(next.to_string()) {
            return Err(FetchFail {
                reason: reasons::REDIRECTS,
                detail: format!("redirect loop at {next}"),
            });
        }
        guard.check_url(&next).map_err(|detail| FetchFail {
            reason: reasons::PRIVATE_ADDRESS,
            detail,
        })?;
        let d = robots.decide(&next).await;
        if !d.crawl_allowed {
            return Err(FetchFail {
                reason: reasons::REDIRECT_DISALLOWED,
                detail: format!("{url} redirects to {next}, which robots.txt disallows"),
            });
        }
        url = next;
    }
    Err(FetchFail {
        reason: reasons::REDIRECTS,
        detail: format!("more than 5 redirects from {start}"),
    })
}

/// The committed part a resumed crawl is replaying, read when the replay reaches it (parts
/// are replayed in order, so each is read once and only one is in memory).
#[derive(Default)]
struct PartCache {
    seq: Option<usize>,
    pages: Vec<Option<FetchedPage>>,
}

impl PartCache {
    async fn take(
        &mut self,
        root: &Storage,
        worker: ShardSpec,
        seq: usize,
        idx: usize,
    ) -> Result<FetchedPage, CrawlError> {
        if self.seq != Some(seq) {
            let file = format!("crawl/warc/{}.warc.gz", shard_name(part_index(seq, worker)));
            let data = root.get(&file).await?;
            let (pages, _) = warc::read_pages_resync(&file, &data, MAX_REPLAY_RECORD);
            self.pages = pages.into_iter().map(Some).collect();
            self.seq = Some(seq);
        }
        self.pages
            .get_mut(idx)
            .and_then(Option::take)
            .ok_or_else(|| {
                CrawlError::Storage(StorageError::Malformed {
                    what: "committed WARC part",
                    url: root.url_of(&format!(
                        "crawl/warc/{}.warc.gz",
                        shard_name(part_index(seq, worker))
                    )),
                    reason: format!("page {idx} changed since the crawl resumed"),
                })
            })
    }
}

struct Ctx<'a> {
    root: &'a Storage,
    journal: &'a crate::journal::Journal,
    tx: &'a mpsc::Sender<CrawlPart>,
    committed_urls: &'a [Vec<String>],
    committed_stats: &'a [RunStats],
}

fn has_directive(list: &str, d: &str) -> bool {
    list.split([',', ' ', ';', ':']).any(|t| t.trim() == d)
}

/// Sitemap files read per seed host (index files included).
const SITEMAP_FILES_PER_HOST: usize = 100;

/// A page's links to follow, in document order, each once: at most `max` of them (further
/// links are counted, not kept). Read with the HTML tokenizer alone (no tree): memory grows
/// with the links kept, not with the page, and time is linear in its size whatever its
/// nesting. None for a page that is not HTML or asks not to be followed.
fn links(page: &FetchedPage, strip: &[String], max: usize) -> crate::links::Found {
    let none = crate::links::Found::default;
    if !(200..300).contains(&page.status) {
        return none();
    }
    let ct = page.header("content-type").unwrap_or("text/html");
    if !ct.contains("html") {
        return none();
    }
    let Ok(base) = Url::parse(&page.final_url).or_else(|_| Url::parse(&page.url)) else {
        return none();
    };
    // links script inserted are in the rendered DOM
    let html = match &page.rendered {
        Some(dom) => std::borrow::Cow::Borrowed(dom.as_str()),
        None => String::from_utf8_lossy(&page.body),
    };
    if trawl_core::html::max_depth_exceeds(&html, trawl_core::html::BROWSER_MAX_DEPTH) {
        // a page no browser would build: extraction drops it as too_deep, and its links are
        // not followed either
        tracing::debug!(url = %page.url, "links not followed: elements nest too deep");
        return none();
    }
    let found = crate::links::scan(&html, max, |href| canonicalize(href, Some(&base), strip));
    if found.nofollow_page {
        return none();
    }
    found
}
