//! The crawl journal (RocksDB, local disk): every fetch outcome is recorded the moment it is
//! known, so a crawl killed at any point resumes without fetching any URL twice. Committed
//! WARC parts are replayed from storage; outcomes after the last commit come from here.

use std::path::{Path, PathBuf};

use rocksdb::{Options, DB};
use trawl_core::FetchedPage;

use crate::fetch::FetchFail;

/// A recorded outcome: the page, or why there is none.
pub(crate) type Outcome = Result<FetchedPage, FetchFail>;

pub(crate) struct Journal {
    db: DB,
    path: PathBuf,
    /// A write failed (a full or failing disk) or the disk is nearly full: the journal writes
    /// nothing more in this process and the crawl goes on without it (see [`Journal::write`]).
    broken: std::sync::atomic::AtomicBool,
    /// The free space of the disk under the journal (and the frontier beside it).
    guard: std::sync::Arc<trawl_core::disk::DiskGuard>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Journal({})", self.path.display())
    }
}

/// Where the journal of a run root lives: `state_dir` if set, else under
/// `$TRAWL_CACHE` (default `~/.cache/trawl`) keyed by the run root's URL.
pub fn default_dir(root_url: &str) -> PathBuf {
    let cache = std::env::var("TRAWL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/tmp".into()))
                .join(".cache/trawl")
        });
    cache.join("crawl-journal").join(format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(root_url.as_bytes())
    ))
}

impl Journal {
    pub(crate) fn open(
        dir: &Path,
        guard: std::sync::Arc<trawl_core::disk::DiskGuard>,
    ) -> Result<Journal, String> {
        guard.stop()?;
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut opts = store_options();
        opts.create_if_missing(true);
        let db = DB::open(&opts, dir).map_err(|e| {
            let e = e.to_string();
            if e.to_ascii_lowercase().contains("lock") {
                format!(
                    "another trawl process is crawling into this run root (its crawl journal {} is locked); wait for it to finish, or use another --output ({e})",
                    dir.display()
                )
            } else {
                format!("cannot open the crawl journal at {}: {e}", dir.display())
            }
        })?;
        Ok(Journal {
            db,
            path: dir.to_path_buf(),
            broken: Default::default(),
            guard,
        })
    }

    pub(crate) fn get(&self, url: &str) -> Option<Outcome> {
        let v = self.db.get(url.as_bytes()).ok()??;
        match v.first()? {
            b'P' => decode_page(&v).map(Ok),
            b'F' => {
                let (reason, detail): (String, String) = serde_json::from_slice(&v[1..]).ok()?;
                Some(Err(FetchFail {
                    reason: crate::reasons::by_name(&reason)?,
                    detail,
                }))
            }
            _ => None,
        }
    }

    /// Records an outcome durably (the write is synced before the crawl goes on); false when
    /// the write failed (the caller keeps the outcome itself).
    pub(crate) fn put(&self, url: &str, o: &Outcome) -> bool {
        let mut v = Vec::new();
        match o {
            Ok(p) => v = encode_page(p),
            Err(f) => {
                v.push(b'F');
                v.extend_from_slice(
                    &serde_json::to_vec(&(f.reason.as_str(), &f.detail)).expect("json"),
                );
            }
        }
        self.write(url.as_bytes(), &v)
    }

    /// A synced put; false when it failed now or an earlier write did, or the disk is nearly
    /// full. Losing the journal only costs refetches after a crash: the crawl does not stop
    /// for it here (the frontier beside it stops the crawl when the disk is nearly full).
    fn write(&self, key: &[u8], value: &[u8]) -> bool {
        use std::sync::atomic::Ordering;
        if self.broken.load(Ordering::Relaxed) {
            return false;
        }
        let r = self.guard.check().and_then(|()| {
            let mut wo = rocksdb::WriteOptions::default();
            wo.set_sync(true);
            self.db
                .put_opt(key, value, &wo)
                .map_err(|e| format!("crawl journal write failed: {e}"))
        });
        match r {
            Ok(()) => true,
            Err(e) => {
                self.fail(&e);
                false
            }
        }
    }

    /// Stops the journal's writes in this process, saying so once.
    fn fail(&self, e: &str) {
        if !self.broken.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::error!(
                journal = %self.path.display(),
                "{e}; the journal records no more outcomes in this process, so a rerun after \
                 a crash fetches again what was fetched since the last committed part"
            );
        }
    }

    /// The 429/503 answers recorded with a deferral (see [`Journal::put_deferred`]).
    pub(crate) fn deferred(&self, key: &str) -> Option<u32> {
        let v = self.db.get(key.as_bytes()).ok()??;
        Some(u32::from_le_bytes(v.get(..4)?.try_into().ok()?))
    }

    /// Records that a URL waited for its host's backoff in a round (`key`), with the 429/503
    /// answers it has had: a rerun defers it in the same round instead of fetching it earlier.
    pub(crate) fn put_deferred(&self, key: &str, tries: u32) {
        self.write(key.as_bytes(), &tries.to_le_bytes());
    }

    /// Forgets an outcome (its page is now in a committed WARC part), so the journal holds at
    /// most about one part's bodies on disk.
    pub(crate) fn forget(&self, url: &str) {
        if self.broken.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Err(e) = self.db.delete(url.as_bytes()) {
            self.fail(&format!("crawl journal write failed: {e}"));
        }
    }

    /// Removes the journal (the crawl is complete and committed).
    pub(crate) fn destroy(self) {
        remove_db(self.db, &self.path);
    }
}

/// Options for the crawl's RocksDB stores. RocksDB's own info log (`LOG`, beside the data)
/// records only fatal errors: the crawl logs its errors itself, and on a full disk RocksDB
/// writing an error to that log after a failed write aborts the process (an assertion in
/// Debian's build) before the error reaches the crawl.
pub(crate) fn store_options() -> Options {
    let mut opts = Options::default();
    opts.set_log_level(rocksdb::LogLevel::Fatal);
    opts
}

/// A new, empty RocksDB in `dir` for a store every process rebuilds (whatever an earlier
/// process left there is removed); `what` names the store in errors.
pub(crate) fn fresh_db(dir: &Path, mut opts: Options, what: &str) -> Result<DB, String> {
    if dir.exists() {
        remove_files(dir);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    opts.create_if_missing(true);
    DB::open(&opts, dir).map_err(|e| format!("cannot open {what} at {}: {e}", dir.display()))
}

/// Closes a RocksDB and removes its folder.
pub(crate) fn remove_db(db: DB, dir: &Path) {
    drop(db);
    remove_files(dir);
}

fn remove_files(dir: &Path) {
    let _ = DB::destroy(&Options::default(), dir);
    let _ = std::fs::remove_dir_all(dir);
}

/// A page as stored: `P`, the length of its JSON metadata, the metadata, the body.
pub(crate) fn encode_page(p: &FetchedPage) -> Vec<u8> {
    let meta = serde_json::to_vec(p).expect("page metadata serialises");
    let mut v = Vec::with_capacity(5 + meta.len() + p.body.len());
    v.push(b'P');
    v.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    v.extend_from_slice(&meta);
    v.extend_from_slice(&p.body);
    v
}

/// See [`encode_page`].
pub(crate) fn decode_page(v: &[u8]) -> Option<FetchedPage> {
    if v.first() != Some(&b'P') {
        return None;
    }
    let n = u32::from_le_bytes(v.get(1..5)?.try_into().ok()?) as usize;
    let mut page: FetchedPage = serde_json::from_slice(v.get(5..5 + n)?).ok()?;
    page.body = v.get(5 + n..)?.to_vec();
    Some(page)
}

/// The pages of an earlier crawl (`recrawl_from`) on local disk: a recrawl needs, for every
/// URL, the validators for a conditional request and the body a 304 stands for, which in
/// memory would grow with the earlier crawl. Loaded by every process, removed at the end.
pub(crate) struct Previous {
    db: Option<DB>,
    path: PathBuf,
}

impl std::fmt::Debug for Previous {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Previous({})", self.path.display())
    }
}

impl Previous {
    /// No earlier crawl.
    pub(crate) fn none() -> Previous {
        Previous {
            db: None,
            path: PathBuf::new(),
        }
    }

    /// An empty store in `dir` (whatever an earlier process left there is removed).
    pub(crate) fn create(dir: &Path) -> Result<Previous, String> {
        let db = fresh_db(dir, store_options(), "the store of the earlier crawl")?;
        Ok(Previous {
            db: Some(db),
            path: dir.to_path_buf(),
        })
    }

    /// Adds a page (a later one for the same URL replaces it).
    pub(crate) fn put(&self, p: &FetchedPage) -> Result<(), String> {
        let Some(db) = &self.db else { return Ok(()) };
        let mut wo = rocksdb::WriteOptions::default();
        wo.disable_wal(true);
        db.put_opt(p.url.as_bytes(), encode_page(p), &wo)
            .map_err(|e| format!("store of the earlier crawl: {e}"))
    }

    /// The earlier crawl's page for a URL.
    pub(crate) fn get(&self, url: &str) -> Option<FetchedPage> {
        let v = self.db.as_ref()?.get(url.as_bytes()).ok()??;
        decode_page(&v)
    }

    /// Removes the store.
    pub(crate) fn destroy(self) {
        if let Some(db) = self.db {
            remove_db(db, &self.path);
        }
    }
}
