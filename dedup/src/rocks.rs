//! The persistent LSH index in RocksDB: recurring crawls deduplicate each batch against
//! every earlier one.
//!
//! Keys: `B` + band (u32, big-endian) + band key (u64, big-endian) -> owner DocId;
//! `D` + DocId -> shingle count (u32 LE) + shingle hashes + signature (u64 LE each);
//! `R` + DocId -> the DocId of its cluster's survivor (documents in clusters of two or
//! more); `M` + survivor DocId -> cluster size (u64 LE), then the members kept for
//! verification, each a u16 LE length and the DocId.
//! Every document's entries are written in one atomic batch. Entries of a shard that was
//! interrupted before its commit are harmless: reprocessing meets its own entries (the
//! owner is the document itself) and makes the same decisions.

use std::path::Path;

use rocksdb::{Options, WriteBatch, DB};
use trawl_core::DocId;

use crate::near::{Cluster, LshIndex, MAX_VERIFIED_MEMBERS};

/// A RocksDB-backed index.
pub struct RocksIndex {
    db: DB,
    batch: WriteBatch,
    /// The first read or write that failed (a full disk): from then on nothing more is
    /// written, reads answer "not there", and the stage stops at the end of the shard
    /// ([`LshIndex::fault`]) instead of counting every later record as an error.
    fault: std::sync::OnceLock<String>,
    /// The index disk's free-space floor (`dedup.min_free_disk_mb`), checked before writes.
    disk: trawl_core::disk::DiskGuard,
}

impl std::fmt::Debug for RocksIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RocksIndex({})", self.db.path().display())
    }
}

fn band_key(band: u32, key: u64) -> [u8; 13] {
    let mut k = [0u8; 13];
    k[0] = b'B';
    k[1..5].copy_from_slice(&band.to_be_bytes());
    k[5..].copy_from_slice(&key.to_be_bytes());
    k
}

fn doc_key(id: &DocId) -> Vec<u8> {
    prefixed(b'D', id)
}

fn prefixed(tag: u8, id: &DocId) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + id.as_str().len());
    k.push(tag);
    k.extend_from_slice(id.as_str().as_bytes());
    k
}

/// A DocId stored as bytes.
fn id_of(bytes: &[u8]) -> DocId {
    DocId::from_external(String::from_utf8_lossy(bytes).into_owned())
}

fn decode_cluster(root: DocId, v: &[u8]) -> Option<Cluster> {
    let size = u64::from_le_bytes(v.get(..8)?.try_into().ok()?);
    let mut members = Vec::new();
    let mut p = 8;
    while p + 2 <= v.len() {
        let n = u16::from_le_bytes(v[p..p + 2].try_into().ok()?) as usize;
        let id = v.get(p + 2..p + 2 + n)?;
        members.push(id_of(id));
        p += 2 + n;
    }
    Some(Cluster {
        root,
        size,
        members,
    })
}

impl RocksIndex {
    /// Opens (or creates) the index in a local directory, writing nothing while its disk has
    /// less than `min_free_mb` MiB free (0: no floor).
    pub fn open(dir: &Path, min_free_mb: u64) -> Result<RocksIndex, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.set_max_open_files(256);
        // RocksDB's own info log records only fatal errors: on a full disk, RocksDB writing an
        // error there after a failed write aborts the process (an assertion in Debian's
        // build) instead of returning the error
        opts.set_log_level(rocksdb::LogLevel::Fatal);
        let db = DB::open(&opts, dir)
            .map_err(|e| format!("cannot open the dedup index at {}: {e}", dir.display()))?;
        Ok(RocksIndex {
            db,
            batch: WriteBatch::default(),
            fault: std::sync::OnceLock::new(),
            disk: trawl_core::disk::DiskGuard::new(
                dir,
                min_free_mb,
                "dedup",
                "index_dir",
                "the dedup index",
            ),
        })
    }

    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        if self.fault.get().is_some() {
            return None;
        }
        self.db
            .get(key)
            .map_err(|e| self.fail("reading", e))
            .ok()
            .flatten()
    }

    fn flush_batch(&mut self) {
        let b = std::mem::take(&mut self.batch);
        // an index write failure must stop the run: decisions would silently change
        if !b.is_empty() && self.fault.get().is_none() {
            if let Err(e) = self.disk.stop() {
                // (RocksDB on a full disk may abort the process rather than fail the write)
                let _ = self
                    .fault
                    .set(format!("{e}; nothing is committed for this shard"));
            } else if let Err(e) = self.db.write(b) {
                self.fail("writing", e);
            }
        }
    }

    fn fail(&self, what: &str, e: rocksdb::Error) {
        let _ = self.fault.set(format!(
            "{what} the dedup index failed (a full disk?): {e}; nothing is committed for \
             this shard, and a rerun goes on from the last committed one"
        ));
    }
}

impl LshIndex for RocksIndex {
    fn owner(&self, band: u32, key: u64) -> Option<DocId> {
        self.get(&band_key(band, key)).map(|v| id_of(&v))
    }

    fn claim(&mut self, band: u32, key: u64, id: &DocId) {
        let k = band_key(band, key);
        // (after a failure `get` answers "not there", and `flush_batch` writes nothing)
        if self.get(&k).is_none() {
            self.batch.put(k, id.as_str().as_bytes());
        }
    }

    fn store(&mut self, id: &DocId, shingles: Vec<u64>, sig: Vec<u64>) {
        let mut v = Vec::with_capacity(4 + 8 * (shingles.len() + sig.len()));
        v.extend_from_slice(&(shingles.len() as u32).to_le_bytes());
        for x in shingles.iter().chain(&sig) {
            v.extend_from_slice(&x.to_le_bytes());
        }
        self.batch.put(doc_key(id), v);
        self.flush_batch();
    }

    fn load(&self, id: &DocId) -> Option<(Vec<u64>, Vec<u64>)> {
        let v = self.get(&doc_key(id))?;
        let n = u32::from_le_bytes(v.get(..4)?.try_into().ok()?) as usize;
        let all: Vec<u64> = v[4..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        Some((
            all[..n.min(all.len())].to_vec(),
            all[n.min(all.len())..].to_vec(),
        ))
    }

    fn cluster(&self, id: &DocId) -> Option<Cluster> {
        let root = self.get(&prefixed(b'R', id))?;
        let root = id_of(&root);
        let v = self.get(&prefixed(b'M', &root))?;
        decode_cluster(root, &v)
    }

    fn join(&mut self, id: &DocId, of: &DocId) {
        if self.get(&prefixed(b'R', id)).is_some() {
            return;
        }
        let root = self
            .get(&prefixed(b'R', of))
            .map_or_else(|| of.clone(), |r| id_of(&r));
        let mut c = self
            .get(&prefixed(b'M', &root))
            .and_then(|v| decode_cluster(root.clone(), &v))
            .unwrap_or_else(|| Cluster {
                root: root.clone(),
                size: 1,
                members: vec![root.clone()],
            });
        c.size += 1;
        if c.members.len() < MAX_VERIFIED_MEMBERS {
            c.members.push(id.clone());
        }
        let mut v = c.size.to_le_bytes().to_vec();
        for m in &c.members {
            let b = &m.as_str().as_bytes()[..m.as_str().len().min(u16::MAX as usize)];
            v.extend_from_slice(&(b.len() as u16).to_le_bytes());
            v.extend_from_slice(b);
        }
        self.batch.put(prefixed(b'M', &root), v);
        self.batch.put(prefixed(b'R', of), root.as_str().as_bytes());
        self.batch.put(prefixed(b'R', id), root.as_str().as_bytes());
    }

    fn commit(&mut self) {
        self.flush_batch();
    }

    fn fault(&self) -> Option<String> {
        self.fault.get().cloned()
    }
}
