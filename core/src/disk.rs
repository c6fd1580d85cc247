//! The free space of a local disk a run writes to, against a floor: the crawl's state
//! (`crawl.min_free_disk_mb`), a local run root (`storage.min_free_disk_mb`) and the
//! persistent dedup index (`dedup.min_free_disk_mb`). A full disk fails writes in ways that
//! are hard to recover from cleanly (Debian's RocksDB aborts the process on an assertion after
//! a failed write; other programs on the machine fail too), so the writers look at the free
//! space first and stop, with an error that says what to do, while there is still room.
//! A disk can also run out of inodes (files) with bytes to spare (many small files beside
//! the run: a crawl's journals, RocksDB's tables); a guard that is on also stops under
//! [`MIN_FREE_INODES`] free inodes, on file systems that count them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the free space is looked up (a statvfs call), at most.
const CHECK_EVERY: Duration = Duration::from_millis(200);

/// Free inodes under which an enabled guard stops (a run writes a few files per shard and
/// per RocksDB compaction: this is hours of them, and room for the rest of the machine).
pub const MIN_FREE_INODES: u64 = 4096;

/// A check of the free space under one folder against a floor.
#[derive(Debug)]
pub struct DiskGuard {
    path: PathBuf,
    /// The floor in MiB (as the config says it); 0 disables the guard.
    min_free_mb: u64,
    /// The config section whose `min_free_disk_mb` is the floor (`crawl`, `storage`).
    section: &'static str,
    /// That section's key naming the folder (`state_dir`, `root`).
    folder: &'static str,
    /// What the folder holds, for the message (`the crawl state`).
    what: &'static str,
    /// When the space was last looked up, and the error once it is below the floor (it
    /// stays: the writer stops at the first).
    last: Mutex<(Option<Instant>, Option<String>)>,
}

impl DiskGuard {
    /// A guard on the disk holding `path` (a folder that exists, or will: the nearest
    /// existing ancestor is asked), with the floor `min_free_mb` of config key
    /// `{section}.min_free_disk_mb`; the folder is config key `{section}.{folder}` and holds
    /// `what`.
    pub fn new(
        path: &Path,
        min_free_mb: u64,
        section: &'static str,
        folder: &'static str,
        what: &'static str,
    ) -> DiskGuard {
        DiskGuard {
            path: path.to_path_buf(),
            min_free_mb,
            section,
            folder,
            what,
            last: Mutex::new((None, None)),
        }
    }

    /// A guard that never stops anything (tests of the stores themselves).
    pub fn off() -> DiskGuard {
        DiskGuard::new(Path::new("."), 0, "", "", "")
    }

    /// `Err` (a message naming the folder, the free space and the key) when the disk has less
    /// free space than the floor. A failed lookup (no statvfs on this file system) passes.
    pub fn check(&self) -> Result<(), String> {
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
        let Some(free) = free_space(&self.path) else {
            return Ok(());
        };
        if let Some(e) = self.below(free) {
            last.1 = Some(e.clone());
            return Err(e);
        }
        Ok(())
    }

    /// What is short on a disk with `free` space, if anything.
    fn below(&self, free: Free) -> Option<String> {
        if free.bytes < self.min_free_mb.saturating_mul(1 << 20) {
            return Some(format!(
                "the disk holding {} ({}) has {} MiB free, under {}.min_free_disk_mb = {}",
                self.what,
                self.path.display(),
                free.bytes >> 20,
                self.section,
                self.min_free_mb
            ));
        }
        match free.inodes {
            Some(n) if n < MIN_FREE_INODES => Some(format!(
                "the disk holding {} ({}) has {n} free inodes (files), under the {} an \
                 enabled {}.min_free_disk_mb keeps free",
                self.what,
                self.path.display(),
                MIN_FREE_INODES,
                self.section
            )),
            _ => None,
        }
    }

    /// [`DiskGuard::check`] for a write the run cannot go on without: its error says that the
    /// run stops, and what to do.
    pub fn stop(&self) -> Result<(), String> {
        self.check().map_err(|e| {
            format!(
                "{e}: the run stops before the disk fills; free space (or move {}.{} to a \
                 larger disk) and rerun, which goes on where this run stopped",
                self.section, self.folder
            )
        })
    }
}

/// What an unprivileged process may still write on a disk.
#[derive(Clone, Copy, Debug)]
struct Free {
    bytes: u64,
    /// Files it may still make; `None` where the file system does not count them (btrfs and
    /// others report no inode total).
    inodes: Option<u64>,
}

/// What may still be written on the disk holding `path` (or its nearest existing ancestor).
fn free_space(path: &Path) -> Option<Free> {
    let existing = path.ancestors().find(|p| p.exists())?;
    let s = rustix::fs::statvfs(existing).ok()?;
    Some(Free {
        bytes: s.f_bavail.saturating_mul(s.f_frsize),
        inodes: (s.f_files > 0).then_some(s.f_favail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(path: &Path, floor: u64) -> DiskGuard {
        DiskGuard::new(path, floor, "crawl", "state_dir", "the crawl state")
    }

    #[test]
    fn free_space_of_an_existing_disk_is_read() {
        let dir = std::env::temp_dir().join(format!("trawl-disk-{}", std::process::id()));
        // a folder not made yet: its parent's disk
        let free = free_space(&dir.join("not/yet")).expect("statvfs");
        assert!(free.bytes > 0);
        assert!(guard(&dir, 1).check().is_ok());
    }

    #[test]
    fn a_floor_above_the_free_space_stops_with_the_keys_named_and_stays_stopped() {
        let dir = std::env::temp_dir();
        let free_mb = free_space(&dir).unwrap().bytes >> 20;
        let g = guard(&dir, free_mb + 1_000_000);
        let e = g.check().unwrap_err();
        assert!(e.contains("crawl.min_free_disk_mb"), "{e}");
        assert!(e.contains("the crawl state"), "{e}");
        assert!(e.contains(&dir.display().to_string()), "{e}");
        let stop = g.stop().unwrap_err();
        assert!(
            stop.contains("rerun") && stop.contains("crawl.state_dir"),
            "{stop}"
        );
        // at once again, without a new lookup
        assert_eq!(g.check().unwrap_err(), e);
        assert!(guard(&dir, 0).check().is_ok());
        assert!(DiskGuard::off().stop().is_ok());
    }

    #[test]
    fn a_disk_out_of_inodes_stops_an_enabled_guard_with_bytes_to_spare() {
        let g = guard(Path::new("/state"), 256);
        let plenty = 1u64 << 40;
        let e = g
            .below(Free {
                bytes: plenty,
                inodes: Some(MIN_FREE_INODES - 1),
            })
            .expect("too few inodes");
        assert!(
            e.contains("inodes") && e.contains("crawl.min_free_disk_mb"),
            "{e}"
        );
        for inodes in [Some(MIN_FREE_INODES), None] {
            assert!(g
                .below(Free {
                    bytes: plenty,
                    inodes
                })
                .is_none());
        }
        let e = g
            .below(Free {
                bytes: 255 << 20,
                inodes: None,
            })
            .expect("too few bytes");
        assert!(e.contains("255 MiB free"), "{e}");
        // the inodes this machine's temporary folder has are read (or not counted)
        let free = free_space(&std::env::temp_dir()).expect("statvfs");
        assert!(free.inodes.is_none_or(|n| n > 0));
    }
}
