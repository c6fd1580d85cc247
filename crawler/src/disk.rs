//! The free space of the disk that holds the crawl's local state (the journal and the
//! frontier, both RocksDB). RocksDB on a full disk does not always fail cleanly: Debian's
//! build aborts the process on an assertion after a failed write. So the crawl looks at the
//! free space before it writes and stops, with an error that says what to do, while there is
//! still room (`crawl.min_free_disk_mb`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the free space is looked up (a statvfs call), at most.
const CHECK_EVERY: Duration = Duration::from_millis(200);

/// A check of the free space under one folder against a floor.
#[derive(Debug)]
pub(crate) struct DiskGuard {
    path: PathBuf,
    /// The floor in MiB (as the config says it); 0 disables the guard.
    min_free_mb: u64,
    /// When the space was last looked up, and the error once it is below the floor (it stays:
    /// the crawl stops at the first).
    last: Mutex<(Option<Instant>, Option<String>)>,
}

impl DiskGuard {
    /// A guard on the disk holding `path` (a folder that exists, or will: the nearest existing
    /// ancestor is asked).
    pub(crate) fn new(path: &Path, min_free_mb: u64) -> DiskGuard {
        DiskGuard {
            path: path.to_path_buf(),
            min_free_mb,
            last: Mutex::new((None, None)),
        }
    }

    /// A guard that never stops anything (tests of the stores themselves).
    #[cfg(test)]
    pub(crate) fn off() -> DiskGuard {
        DiskGuard::new(Path::new("."), 0)
    }

    /// `Err` (a message naming the folder, the free space and the key) when the disk has less
    /// free space than the floor. A failed lookup (no statvfs on this file system) passes.
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.min_free_mb == 0 {
            return Ok(());
        }
        let mut last = self.last.lock().expect("disk guard lock");
        if let Some(e) = &last.1 {
            return Err(e.clone());
        }
        if last.0.is_some_and(|t| t.elapsed() < CHECK_EVERY) {
            return Ok(());
        }
        last.0 = Some(Instant::now());
        let Some(free) = free_bytes(&self.path) else {
            return Ok(());
        };
        if free < self.min_free_mb.saturating_mul(1 << 20) {
            let e = format!(
                "the disk holding the crawl state ({}) has {} MiB free, under \
                 crawl.min_free_disk_mb = {}",
                self.path.display(),
                free >> 20,
                self.min_free_mb
            );
            last.1 = Some(e.clone());
            return Err(e);
        }
        Ok(())
    }

    /// [`DiskGuard::check`] for a write the crawl cannot go on without: its error says that
    /// the crawl stops, and what to do.
    pub(crate) fn stop(&self) -> Result<(), String> {
        self.check().map_err(|e| {
            format!(
                "{e}: the crawl stops before the disk fills; free space (or move \
                 crawl.state_dir to a larger disk) and rerun, which goes on where this run \
                 stopped"
            )
        })
    }
}

/// The bytes an unprivileged process may still write on the disk holding `path` (or its
/// nearest existing ancestor).
fn free_bytes(path: &Path) -> Option<u64> {
    let existing = path.ancestors().find(|p| p.exists())?;
    let s = rustix::fs::statvfs(existing).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_of_an_existing_disk_is_read() {
        let dir = tempfile::tempdir().unwrap();
        // a folder not made yet: its parent's disk
        let free = free_bytes(&dir.path().join("not/yet")).expect("statvfs");
        assert!(free > 0);
        assert!(DiskGuard::new(dir.path(), 1).check().is_ok());
    }

    #[test]
    fn a_floor_above_the_free_space_stops_with_the_key_named_and_stays_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let free_mb = free_bytes(dir.path()).unwrap() >> 20;
        let g = DiskGuard::new(dir.path(), free_mb + 1_000_000);
        let e = g.check().unwrap_err();
        assert!(e.contains("crawl.min_free_disk_mb"), "{e}");
        assert!(g.stop().unwrap_err().contains("rerun"));
        assert!(e.contains(&dir.path().display().to_string()), "{e}");
        // at once again, without a new lookup
        assert_eq!(g.check().unwrap_err(), e);
        assert!(DiskGuard::new(dir.path(), 0).check().is_ok());
    }
}
