//! The pending part of a worker's frontier on local disk (RocksDB), so memory does not grow
//! with the URLs a round holds.
//!
//! Three key spaces, each prefixed by the round (big-endian, so rounds sort in order):
//!
//! - `A round authority NUL url -> depth`: URLs queued for a round, grouped by host;
//! - `B round rank score url -> depth`: the same once the round starts, in the order it is
//!   processed: round-robin across hosts (`rank` is the URL's place in its host's list),
//!   best score first within a rank, then by URL — the order [`crate::Crawler`] always used;
//! - `O round worker url -> depth`: links for another worker's domains, handed over at the
//!   start of the round;
//! - `S fingerprint`: the URLs the worker has queued, with `seen_on_disk` (otherwise the
//!   fingerprints are kept in memory, 16 bytes each).
//!
//! The store is rebuilt by every process (a resumed crawl replays its rounds from the
//! journal and the committed parts), so it is opened empty and written without a WAL.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rocksdb::{BlockBasedOptions, Direction, IteratorMode, WriteBatch, WriteOptions, DB};
use url::Url;

use crate::robots::authority;

pub(crate) struct Frontier {
    db: DB,
    /// The free space of the disk under the store: checked before every write.
    guard: std::sync::Arc<trawl_core::disk::DiskGuard>,
    path: PathBuf,
    /// URLs queued per round (`A` keys).
    queued: HashMap<u32, u64>,
    /// Where [`Frontier::take`] goes on in each started round.
    cursor: HashMap<u32, Vec<u8>>,
    /// The URLs queued so far, as fingerprints; `None`: they are in the store (`S` keys).
    seen: Option<std::collections::HashSet<u128, BuildXxh>>,
}

impl std::fmt::Debug for Frontier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Frontier({})", self.path.display())
    }
}

/// A key and its value read from the store.
type Entry = Result<(Box<[u8]>, Box<[u8]>), String>;

fn key(space: u8, round: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(96);
    k.push(space);
    k.extend_from_slice(&round.to_be_bytes());
    k
}

/// A score as bytes that sort best first (higher scores first; NaN last).
fn score_bytes(s: f64) -> [u8; 8] {
    let s = if s.is_nan() { f64::NEG_INFINITY } else { s };
    let bits = s.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits ^ (1 << 63)
    };
    (!ordered).to_be_bytes()
}

fn depth_of(v: &[u8]) -> u32 {
    v.get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .unwrap_or(0)
}

impl Frontier {
    /// An empty frontier store in `dir` (whatever an earlier process left there is removed);
    /// the seen set in the store too with `seen_on_disk`.
    pub(crate) fn open(
        dir: &Path,
        seen_on_disk: bool,
        guard: std::sync::Arc<trawl_core::disk::DiskGuard>,
    ) -> Result<Frontier, String> {
        guard.stop()?;
        let mut opts = crate::journal::store_options();
        // most lookups of the seen set are for URLs it does not hold yet
        let mut table = BlockBasedOptions::default();
        table.set_bloom_filter(10.0, false);
        opts.set_block_based_table_factory(&table);
        let db = crate::journal::fresh_db(dir, opts, "the crawl frontier")?;
        Ok(Frontier {
            db,
            guard,
            path: dir.to_path_buf(),
            queued: HashMap::new(),
            cursor: HashMap::new(),
            seen: (!seen_on_disk).then(Default::default),
        })
    }

    fn write(&self, batch: WriteBatch) -> Result<(), String> {
        self.guard.stop()?;
        let mut wo = WriteOptions::default();
        wo.disable_wal(true);
        self.db
            .write_opt(batch, &wo)
            .map_err(|e| format!("crawl frontier write failed: {e}"))
    }

    /// A URL's 128-bit fingerprint, as the seen set holds it.
    fn fingerprint(url: &str) -> u128 {
        xxhash_rust::xxh3::xxh3_128(url.as_bytes())
    }

    /// The store's key for a fingerprint in the seen set.
    fn seen_key(fingerprint: u128) -> [u8; 17] {
        let mut k = [0u8; 17];
        k[0] = b'S';
        k[1..].copy_from_slice(&fingerprint.to_be_bytes());
        k
    }

    /// Queues a URL for `round` unless it was seen before (then false), and marks it seen:
    /// with the seen set on disk, both keys go in one write.
    pub(crate) fn queue_new(&mut self, round: u32, u: &Url, depth: u32) -> Result<bool, String> {
        let mut b = WriteBatch::default();
        if !self.mark_seen_in(u.as_str(), &mut b)? {
            return Ok(false);
        }
        self.queue_in(round, u, depth, &mut b);
        self.write(b)?;
        Ok(true)
    }

    /// Adds a URL to the seen set (on disk: a put in `b`); false when it was there already.
    /// URLs are compared by their 128-bit fingerprint (a collision among 10^12 URLs has odds
    /// below 10^-14).
    fn mark_seen_in(&mut self, url: &str, b: &mut WriteBatch) -> Result<bool, String> {
        let fp = Self::fingerprint(url);
        if let Some(set) = &mut self.seen {
            return Ok(set.insert(fp));
        }
        let k = Self::seen_key(fp);
        if self
            .db
            .get_pinned(k)
            .map_err(|e| format!("crawl frontier read failed: {e}"))?
            .is_some()
        {
            return Ok(false);
        }
        b.put(k, []);
        Ok(true)
    }

    /// Whether a URL is in the seen set.
    pub(crate) fn was_seen(&self, url: &str) -> bool {
        let fp = Self::fingerprint(url);
        match &self.seen {
            Some(set) => set.contains(&fp),
            None => matches!(self.db.get_pinned(Self::seen_key(fp)), Ok(Some(_))),
        }
    }

    /// Puts a URL in `round`'s queue (in `b`), counted.
    fn queue_in(&mut self, round: u32, u: &Url, depth: u32, b: &mut WriteBatch) {
        let mut k = key(b'A', round);
        k.extend_from_slice(authority(u).as_bytes());
        k.push(0);
        k.extend_from_slice(u.as_str().as_bytes());
        b.put(k, depth.to_le_bytes());
        *self.queued.entry(round).or_default() += 1;
    }

    /// [`Frontier::mark_seen_in`] on its own (the tests' view of the seen set).
    #[cfg(test)]
    fn mark_seen(&mut self, url: &str) -> Result<bool, String> {
        let mut b = WriteBatch::default();
        let new = self.mark_seen_in(url, &mut b)?;
        self.write(b)?;
        Ok(new)
    }

    /// [`Frontier::queue_in`] on its own, seen or not (the tests' view of the queue).
    #[cfg(test)]
    fn queue(&mut self, round: u32, u: &Url, depth: u32) -> Result<(), String> {
        let mut b = WriteBatch::default();
        self.queue_in(round, u, depth, &mut b);
        self.write(b)
    }

    /// URLs queued for `round` so far.
    pub(crate) fn queued(&self, round: u32) -> u64 {
        self.queued.get(&round).copied().unwrap_or(0)
    }

    /// Records a link for worker `dst`'s domains, handed over at the start of `round` (the
    /// smallest depth wins when it is found twice).
    pub(crate) fn send(
        &mut self,
        round: u32,
        dst: usize,
        url: &str,
        depth: u32,
    ) -> Result<(), String> {
        let mut k = key(b'O', round);
        k.extend_from_slice(&(dst as u32).to_be_bytes());
        k.extend_from_slice(url.as_bytes());
        let keep = match self.db.get(&k).map_err(|e| e.to_string())? {
            Some(v) => depth < depth_of(&v),
            None => true,
        };
        if keep {
            let mut b = WriteBatch::default();
            b.put(k, depth.to_le_bytes());
            self.write(b)?;
        }
        Ok(())
    }

    /// The links for worker `dst` handed over at the start of `round`, sorted by URL; they
    /// are removed.
    pub(crate) fn take_sent(
        &mut self,
        round: u32,
        dst: usize,
    ) -> Result<Vec<(String, u32)>, String> {
        let mut prefix = key(b'O', round);
        prefix.extend_from_slice(&(dst as u32).to_be_bytes());
        let mut out = Vec::new();
        for item in self.scan(&prefix, &prefix) {
            let (k, v) = item?;
            let url = String::from_utf8_lossy(&k[prefix.len()..]).into_owned();
            out.push((url, depth_of(&v)));
        }
        self.delete_prefix(&prefix)?;
        Ok(out)
    }

    fn delete_prefix(&self, prefix: &[u8]) -> Result<(), String> {
        let mut end = prefix.to_vec();
        // the first key after every key with this prefix
        while let Some(last) = end.pop() {
            if last < u8::MAX {
                end.push(last + 1);
                break;
            }
        }
        let mut b = WriteBatch::default();
        b.delete_range(prefix, &end);
        self.write(b)
    }

    /// Starts `round`: orders its queued URLs (see the module) with `score` computed now, and
    /// returns how many there are.
    pub(crate) fn start(
        &mut self,
        round: u32,
        mut score: impl FnMut(&Url) -> f64,
    ) -> Result<u64, String> {
        let prefix = key(b'A', round);
        let mut host: Vec<u8> = Vec::new();
        let mut urls: Vec<(f64, String, u32)> = Vec::new();
        let mut n = 0u64;
        let flush = |urls: &mut Vec<(f64, String, u32)>, db: &Frontier| -> Result<(), String> {
            urls.sort_by(|a, b| {
                b.0.partial_cmp(&a.0)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a.1.cmp(&b.1))
            });
            let mut batch = WriteBatch::default();
            for (rank, (s, u, d)) in urls.drain(..).enumerate() {
                let mut k = key(b'B', round);
                k.extend_from_slice(&(rank as u64).to_be_bytes());
                k.extend_from_slice(&score_bytes(s));
                k.extend_from_slice(u.as_bytes());
                batch.put(k, d.to_le_bytes());
            }
            db.write(batch)
        };
        // one host's URLs at a time in memory (the keys come grouped by host)
        for item in self.scan(&prefix, &prefix) {
            let (k, v) = item?;
            let rest = &k[prefix.len()..];
            let Some(nul) = rest.iter().position(|b| *b == 0) else {
                continue;
            };
            if rest[..nul] != host[..] {
                flush(&mut urls, self)?;
                host = rest[..nul].to_vec();
            }
            let u = String::from_utf8_lossy(&rest[nul + 1..]).into_owned();
            let s = Url::parse(&u).map(|p| score(&p)).unwrap_or(0.0);
            urls.push((s, u, depth_of(&v)));
            n += 1;
        }
        flush(&mut urls, self)?;
        self.delete_prefix(&prefix)?;
        self.queued.remove(&round);
        self.cursor.insert(round, key(b'B', round));
        Ok(n)
    }

    /// The next (at most) `max` URLs of a started round, in order; empty when it is done.
    pub(crate) fn take(&mut self, round: u32, max: usize) -> Result<Vec<(Url, u32)>, String> {
        let prefix = key(b'B', round);
        let from = self
            .cursor
            .get(&round)
            .cloned()
            .unwrap_or_else(|| prefix.clone());
        let mut out = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        for item in self.scan(&from, &prefix) {
            let (k, v) = item?;
            if out.len() >= max {
                break;
            }
            // rank (8) and score (8) come before the URL
            let url = &k[prefix.len() + 16..];
            if let Ok(u) = Url::parse(&String::from_utf8_lossy(url)) {
                out.push((u, depth_of(&v)));
            }
            last = Some(k.to_vec());
        }
        if let Some(mut k) = last {
            // the next read starts just after the last key taken
            k.push(0);
            self.cursor.insert(round, k);
        }
        Ok(out)
    }

    /// Forgets a finished round.
    pub(crate) fn finish(&mut self, round: u32) -> Result<(), String> {
        self.cursor.remove(&round);
        self.delete_prefix(&key(b'B', round))
    }

    /// Removes the store (the crawl is over).
    pub(crate) fn destroy(self) {
        crate::journal::remove_db(self.db, &self.path);
    }

    /// The entries from key `from` on, while their keys start with `prefix`.
    fn scan<'a>(&'a self, from: &[u8], prefix: &'a [u8]) -> impl Iterator<Item = Entry> + 'a {
        self.db
            .iterator(IteratorMode::From(from, Direction::Forward))
            .map(|item| item.map_err(|e| format!("crawl frontier read failed: {e}")))
            .take_while(move |item| item.as_ref().map_or(true, |(k, _)| k.starts_with(prefix)))
    }
}

/// Fingerprints are already uniform: hashing them again would be wasted work.
#[derive(Clone, Default)]
pub(crate) struct BuildXxh;

impl std::hash::BuildHasher for BuildXxh {
    type Hasher = FirstBits;
    fn build_hasher(&self) -> FirstBits {
        FirstBits(0)
    }
}

/// A hasher that keeps the low 64 bits of a fingerprint.
#[derive(Default)]
pub(crate) struct FirstBits(u64);

impl std::hash::Hasher for FirstBits {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes.iter().take(8) {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = v as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn off() -> std::sync::Arc<trawl_core::disk::DiskGuard> {
        std::sync::Arc::new(trawl_core::disk::DiskGuard::off())
    }

    #[test]
    fn a_round_comes_out_round_robin_best_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = Frontier::open(&dir.path().join("f"), false, off()).unwrap();
        let urls = [
            "http://b.test/1",
            "http://a.test/low",
            "http://a.test/high",
            "http://a.test/mid",
            "http://b.test/2",
            "https://a.test/other-scheme",
        ];
        for u in urls {
            f.queue(3, &Url::parse(u).unwrap(), 2).unwrap();
        }
        f.queue(4, &Url::parse("http://c.test/").unwrap(), 3)
            .unwrap();
        assert_eq!(f.queued(3), 6);
        let score = |u: &Url| match u.path() {
            "/high" => 2.0,
            "/mid" => 1.0,
            "/low" => -1.0,
            _ => 0.0,
        };
        assert_eq!(f.start(3, score).unwrap(), 6);
        let mut got = Vec::new();
        loop {
            let chunk = f.take(3, 4).unwrap();
            if chunk.is_empty() {
                break;
            }
            got.extend(chunk.into_iter().map(|(u, d)| {
                assert_eq!(d, 2);
                u.to_string()
            }));
        }
        // rank 0 of every host (best score first, then URL), then rank 1, ...
        assert_eq!(
            got,
            [
                "http://a.test/high",
                "http://b.test/1",
                "https://a.test/other-scheme",
                "http://a.test/mid",
                "http://b.test/2",
                "http://a.test/low",
            ]
        );
        f.finish(3).unwrap();
        assert_eq!(f.queued(4), 1, "the next round is untouched");
        f.send(5, 1, "http://x.test/", 4).unwrap();
        f.send(5, 1, "http://x.test/", 2).unwrap();
        f.send(5, 1, "http://w.test/", 7).unwrap();
        f.send(5, 2, "http://y.test/", 4).unwrap();
        assert_eq!(
            f.take_sent(5, 1).unwrap(),
            [
                ("http://w.test/".to_string(), 7),
                ("http://x.test/".to_string(), 2)
            ]
        );
        assert!(f.take_sent(5, 1).unwrap().is_empty());
        assert_eq!(f.take_sent(5, 2).unwrap().len(), 1);
    }

    #[test]
    fn the_seen_set_in_memory_or_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        for on_disk in [false, true] {
            let mut f =
                Frontier::open(&dir.path().join(format!("f{on_disk}")), on_disk, off()).unwrap();
            assert!(f.mark_seen("http://a.test/1").unwrap());
            assert!(!f.mark_seen("http://a.test/1").unwrap());
            assert!(f.mark_seen("http://a.test/2").unwrap());
            assert!(f.was_seen("http://a.test/2") && !f.was_seen("http://a.test/3"));
            // queued URLs are not mistaken for seen ones, nor the other way round
            f.queue(0, &Url::parse("http://a.test/4").unwrap(), 0)
                .unwrap();
            assert!(!f.was_seen("http://a.test/4"));
            assert_eq!(f.start(0, |_| 0.0).unwrap(), 1);
            f.destroy();
        }
    }

    #[test]
    fn scores_sort_best_first() {
        let v = [f64::NEG_INFINITY, -3.5, -0.0, 0.0, 1e-9, 2.0, f64::INFINITY];
        for w in v.windows(2) {
            assert!(score_bytes(w[0]) >= score_bytes(w[1]), "{w:?}");
        }
        assert!(score_bytes(f64::NAN) >= score_bytes(-1e300));
    }
}
