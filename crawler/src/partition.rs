//! A crawl over many workers: which worker owns a URL, and the link objects through which
//! workers hand each other the links they find.
//!
//! Worker `i` of `n` owns the registered domains (eTLD+1 by the Public Suffix List; an IP
//! literal is its own domain) whose stable hash mod `n` is `i`. Everything kept per host
//! (robots.txt, politeness slot, crawl delay, error budget, page budget) therefore lives in
//! exactly one worker.
//!
//! The crawl runs in rounds, one per depth. Before round `d` every worker commits, under the
//! run root, one immutable object per destination worker holding the links of depth `d` it
//! found for that worker (sorted, each once), then a `.done` object with its counts. A worker
//! starts round `d` once every worker's `.done` of round `d` exists; its level is its own
//! links and the links addressed to it, less the URLs it has already seen. When the counts of
//! a round sum to zero, no worker has anything left and every worker ends, at the same round.
//! Object storage is the only shared state; a rerun worker finds its earlier objects
//! committed and the others' unchanged, so it rebuilds the same levels.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use trawl_storage::jsonl::JsonlWriter;
use trawl_storage::{ShardSpec, Storage};
use url::Url;

use crate::crawl::CrawlError;

/// The registered domain of a host: eTLD+1 by the Public Suffix List, the address itself for
/// an IP literal, the host itself when it has no registrable part (`localhost`, a bare
/// suffix). Lowercase, without port or trailing dot.
pub fn registered_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok() {
        return host;
    }
    match psl::domain_str(&host) {
        Some(d) => d.to_string(),
        None => host,
    }
}

/// The worker (of `count`) that owns a URL: a stable hash of its registered domain.
pub fn owner(u: &Url, count: usize) -> usize {
    if count <= 1 {
        return 0;
    }
    let domain = registered_domain(u.host_str().unwrap_or(""));
    (xxhash_rust::xxh3::xxh3_64(domain.as_bytes()) % count as u64) as usize
}

/// A worker's counts for one round (`.done` object): its own level and the links it sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundDone {
    /// The round (depth).
    pub round: u32,
    /// New URLs of the worker's own domains it found for this round.
    pub own: u64,
    /// Links sent to each worker (its own entry is 0).
    pub sent: Vec<u64>,
}

impl RoundDone {
    /// URLs this worker put into the round, for itself and for others.
    pub fn total(&self) -> u64 {
        self.own + self.sent.iter().sum::<u64>()
    }
}

/// The link exchange of one worker through a run root.
#[derive(Clone, Debug)]
pub struct Exchange {
    root: Storage,
    worker: ShardSpec,
    timeout: Duration,
}

/// Where the link objects of a crawl by `count` workers live.
pub fn prefix(count: usize) -> String {
    format!("crawl/links/{count:05}-workers")
}

impl Exchange {
    /// The exchange of `worker` under `root`; a round whose objects are missing after
    /// `timeout` is an error naming the worker that did not deliver.
    pub fn new(root: Storage, worker: ShardSpec, timeout: Duration) -> Exchange {
        Exchange {
            root,
            worker,
            timeout,
        }
    }

    fn round_dir(&self, round: u32) -> String {
        format!("{}/round-{round:05}", prefix(self.worker.count))
    }

    fn object(&self, round: u32, src: usize, dst: usize) -> String {
        format!("{}/{src:05}-to-{dst:05}.jsonl.zst", self.round_dir(round))
    }

    fn done(&self, round: u32, src: usize) -> String {
        format!("{}/{src:05}.done.json", self.round_dir(round))
    }

    /// Commits this worker's links of `round` (`outgoing[j]` for worker `j`: URL and depth,
    /// sorted, each once; its own entry is ignored) and `own`, the number of its own URLs in
    /// the round.
    /// Objects a previous attempt committed stay as they are (they are immutable: the same
    /// pages give the same links).
    pub async fn publish(
        &self,
        round: u32,
        own: u64,
        outgoing: &[Vec<(String, u32)>],
    ) -> Result<(), CrawlError> {
        let me = self.worker.index;
        let done = self.done(round, me);
        if self.root.get_opt(&done).await?.is_some() {
            return Ok(());
        }
        let mut sent = vec![0u64; self.worker.count];
        for (dst, urls) in outgoing.iter().enumerate() {
            if dst == me {
                continue;
            }
            let mut w = JsonlWriter::for_name("links.jsonl.zst");
            for u in urls {
                w.write(u);
            }
            sent[dst] = urls.len() as u64;
            self.root
                .put(&self.object(round, me, dst), w.finish().into())
                .await?;
        }
        let rec = RoundDone { round, own, sent };
        self.root
            .put(
                &done,
                serde_json::to_vec(&rec).expect("round record").into(),
            )
            .await?;
        Ok(())
    }

    /// Waits for every worker's `.done` of `round`, then returns the links addressed to this
    /// worker (URL and depth, in worker order) and the round's total over all workers (0: the
    /// crawl is over for everyone).
    pub async fn receive(&self, round: u32) -> Result<(Vec<(String, u32)>, u64), CrawlError> {
        let me = self.worker.index;
        let start = Instant::now();
        let mut pause = Duration::from_millis(50);
        let mut dones: Vec<Option<RoundDone>> = vec![None; self.worker.count];
        loop {
            // one listing per look (not one request per worker), then each record read once
            let listed: std::collections::HashSet<String> = self
                .root
                .list(&self.round_dir(round))
                .await?
                .into_iter()
                .collect();
            for (j, slot) in dones.iter_mut().enumerate() {
                if slot.is_some() || !listed.contains(&self.done(round, j)) {
                    continue;
                }
                if let Some(b) = self.root.get_opt(&self.done(round, j)).await? {
                    let rec: RoundDone = serde_json::from_slice(&b).map_err(|e| {
                        CrawlError::Storage(trawl_storage::StorageError::Malformed {
                            what: "crawl round record",
                            url: self.root.url_of(&self.done(round, j)),
                            reason: e.to_string(),
                        })
                    })?;
                    *slot = Some(rec);
                }
            }
            let missing: Vec<usize> = (0..self.worker.count)
                .filter(|j| dones[*j].is_none())
                .collect();
            if missing.is_empty() {
                break;
            }
            if start.elapsed() >= self.timeout {
                let names: Vec<String> = missing
                    .iter()
                    .map(|j| format!("{j}/{}", self.worker.count))
                    .collect();
                return Err(CrawlError::Worker(format!(
                    "crawl worker {} waited {} s for round {round} of worker {} (no {}); is it running? A dead worker resumes where it stopped when rerun with the same --shard; crawl.worker_timeout_secs sets this wait",
                    self.worker,
                    self.timeout.as_secs(),
                    names.join(", "),
                    self.root.url_of(&self.done(round, missing[0])),
                )));
            }
            tracing::debug!(round, waiting_for = ?missing, "waiting for other crawl workers");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
        let mut urls = Vec::new();
        let mut total = 0u64;
        for (j, d) in dones.into_iter().enumerate() {
            let d = d.expect("every round record read");
            total += d.total();
            if j == me || d.sent.get(me).copied().unwrap_or(0) == 0 {
                continue;
            }
            let name = self.object(round, j, me);
            let b = self.root.get(&name).await?;
            for u in trawl_storage::jsonl::lines::<(String, u32)>(&name, &b)? {
                match u {
                    Ok(u) => urls.push(u),
                    Err(e) => {
                        tracing::warn!(object = %name, error = %e, "unreadable link record skipped")
                    }
                }
            }
        }
        Ok((urls, total))
    }

    /// The worker counts other crawls of this run root used (their link objects exist).
    pub async fn other_counts(root: &Storage, count: usize) -> Result<Vec<usize>, CrawlError> {
        let mut out = std::collections::BTreeSet::new();
        for k in root.list("crawl/links").await? {
            let Some(rest) = k.strip_prefix("crawl/links/") else {
                continue;
            };
            if let Some(n) = rest
                .split('/')
                .next()
                .and_then(|d| d.strip_suffix("-workers"))
                .and_then(|d| d.parse::<usize>().ok())
            {
                if n != count {
                    out.insert(n);
                }
            }
        }
        Ok(out.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_domains() {
        assert_eq!(registered_domain("www.example.co.uk"), "example.co.uk");
        assert_eq!(registered_domain("a.b.example.com."), "example.com");
        assert_eq!(registered_domain("Example.COM"), "example.com");
        assert_eq!(registered_domain("127.0.0.5"), "127.0.0.5");
        assert_eq!(registered_domain("[::1]"), "[::1]");
        // not in the list: the implicit `*` rule makes the last label the suffix
        assert_eq!(registered_domain("shop.big.test"), "big.test");
        assert_eq!(registered_domain("localhost"), "localhost");
    }

    #[test]
    fn subdomains_share_an_owner() {
        for n in 2..9 {
            let a = owner(&Url::parse("http://a.big.test/x").unwrap(), n);
            let b = owner(&Url::parse("http://b.big.test:8080/y").unwrap(), n);
            let c = owner(&Url::parse("https://big.test/").unwrap(), n);
            assert!(a == b && b == c && a < n);
        }
        assert_eq!(owner(&Url::parse("http://x.test/").unwrap(), 1), 0);
    }

    #[test]
    fn owners_spread_over_workers() {
        let n = 4;
        let mut per = vec![0usize; n];
        for i in 0..400 {
            per[owner(&Url::parse(&format!("http://site{i}.example/")).unwrap(), n)] += 1;
        }
        assert!(per.iter().all(|c| (60..140).contains(c)), "{per:?}");
    }
}
