//! The part flow of `trawl run`: a work queue over a pool of CPU threads.
//!
//! Each crawl part goes front (extract, filter: no state across parts, any thread), middle
//! (dedup, captions' image dedup: state carried from part to part, one thread, in the order
//! the parts arrived), back (tokenization, any thread). Threads take the next job as soon as
//! they are free, so a slow part holds up no other part's front or back; only the middle
//! waits for the parts before it. The bytes written do not depend on the number of threads:
//! the front and back of a part depend only on the part, and the middle sees the parts in
//! arrival order whatever the timing.
//!
//! Memory is bounded: at most [`in_flight`] parts are between arrival and the end of their
//! back at any time (the feeder waits for a part to finish before taking another from the
//! crawler), plus the crawler's channel.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

use anyhow::{Context, Result};
use trawl_core::Unreadable;
use trawl_crawler::CrawlPart;
use trawl_storage::shard_name;

use crate::pipeline::{PartDocs, Pipeline};

/// Parts in flight for `threads` CPU threads: every thread busy with one part and as many
/// again waiting, plus one, so the middle thread never starves while the fronts run.
pub fn in_flight(threads: usize) -> usize {
    2 * threads + 1
}

enum Job {
    Front(usize, CrawlPart),
    Back(String, PartDocs),
}

enum Fronted {
    Part(usize, Result<(String, PartDocs)>),
    /// The crawler sent this many parts in all.
    End(usize),
}

/// Counts parts in flight; `acquire` waits while `limit` are, unless the flow stopped.
struct Permits {
    used: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

impl Permits {
    fn acquire(&self, stop: &AtomicBool) -> bool {
        let mut used = self.used.lock().expect("permits lock");
        while *used >= self.limit && !stop.load(Ordering::SeqCst) {
            used = self.freed.wait(used).expect("permits lock");
        }
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        *used += 1;
        true
    }

    fn release(&self) {
        *self.used.lock().expect("permits lock") -= 1;
        self.freed.notify_all();
    }

    fn wake(&self) {
        let _guard = self.used.lock().expect("permits lock");
        self.freed.notify_all();
    }
}

/// What the flow has done so far, for the progress line.
#[derive(Debug, Default)]
pub struct Progress {
    pub parts: usize,
    pub pages: usize,
    pub bytes: usize,
}

/// Runs every part `rx` delivers through `middle` (one, in order) and `pool` (one per
/// thread); returns the number of parts. `on_part` is called after each part's back.
pub fn process_parts(
    mut rx: tokio::sync::mpsc::Receiver<CrawlPart>,
    mut middle: Pipeline,
    pool: Vec<Pipeline>,
    on_part: &(dyn Fn(&Progress) + Sync),
) -> Result<usize> {
    let threads = pool.len().max(1);
    let permits = Permits {
        used: Mutex::new(0),
        freed: Condvar::new(),
        limit: in_flight(threads),
    };
    let stop = AtomicBool::new(false);
    let progress = Mutex::new(Progress::default());
    // the first error (a later one is a consequence of stopping, or as serious)
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let fail = |e: anyhow::Error| {
        failure.lock().expect("failure lock").get_or_insert(e);
        stop.store(true, Ordering::SeqCst);
        permits.wake();
    };
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(in_flight(threads));
    let job_rx = Mutex::new(job_rx);
    let (front_tx, front_rx) = mpsc::channel::<Fronted>();
    std::thread::scope(|scope| {
        // the feeder: parts from the crawler, each once a permit is free
        {
            let (job_tx, front_tx) = (job_tx.clone(), front_tx.clone());
            let (permits, stop, progress) = (&permits, &stop, &progress);
            std::thread::Builder::new()
                .name("trawl-feed".into())
                .spawn_scoped(scope, move || {
                    let mut seq = 0;
                    while let Some(part) = rx.blocking_recv() {
                        if !permits.acquire(stop) {
                            break;
                        }
                        {
                            let mut p = progress.lock().expect("progress lock");
                            p.pages += part.pages.len();
                            p.bytes += part.pages.iter().map(|p| p.body.len()).sum::<usize>();
                        }
                        if job_tx.send(Job::Front(seq, part)).is_err() {
                            break;
                        }
                        seq += 1;
                    }
                    // dropping rx here tells the crawler to stop when the flow stopped
                    let _ = front_tx.send(Fronted::End(seq));
                })
                .expect("spawning the feeder thread");
        }
        // the pool: fronts and backs as they come
        for (k, mut p) in pool.into_iter().enumerate() {
            let (job_rx, front_tx) = (&job_rx, front_tx.clone());
            let (permits, stop, progress, fail) = (&permits, &stop, &progress, &fail);
            std::thread::Builder::new()
                .name(format!("trawl-cpu-{k}"))
                .spawn_scoped(scope, move || loop {
                    let job = job_rx.lock().expect("job lock").recv();
                    let Ok(job) = job else { break };
                    if stop.load(Ordering::SeqCst) {
                        if let Job::Back(..) = job {
                            permits.release();
                        }
                        continue;
                    }
                    match job {
                        Job::Front(seq, part) => {
                            let name = shard_name(part.index);
                            // damaged records are counted as record errors of extraction
                            let bad: Vec<Unreadable> = part
                                .damage
                                .iter()
                                .map(|d| d.unreadable(&part.warc))
                                .collect();
                            let pages = part.pages;
                            let r = p
                                .part_front(&name, &part.warc, move || Ok((pages, bad)))
                                .with_context(|| format!("processing part {name}"))
                                .map(|docs| (name, docs));
                            let _ = front_tx.send(Fronted::Part(seq, r));
                        }
                        Job::Back(name, docs) => {
                            let r = p
                                .part_back(&name, docs)
                                .with_context(|| format!("processing part {name}"));
                            permits.release();
                            match r {
                                Ok(()) => {
                                    let mut pr = progress.lock().expect("progress lock");
                                    pr.parts += 1;
                                    on_part(&pr);
                                }
                                Err(e) => fail(e),
                            }
                        }
                    }
                })
                .expect("spawning a CPU thread");
        }
        drop(front_tx);
        // the middle, on this thread: parts in arrival order
        let mut waiting: BTreeMap<usize, (String, PartDocs)> = BTreeMap::new();
        let (mut next, mut total) = (0, None);
        while total != Some(next) {
            let Ok(msg) = front_rx.recv() else { break };
            match msg {
                Fronted::End(n) => total = Some(n),
                Fronted::Part(seq, Ok(x)) => {
                    waiting.insert(seq, x);
                }
                Fronted::Part(_, Err(e)) => fail(e),
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
            while let Some((name, docs)) = waiting.remove(&next) {
                match middle
                    .part_middle(&name, docs)
                    .with_context(|| format!("processing part {name}"))
                {
                    Ok(docs) => {
                        if job_tx.send(Job::Back(name, docs)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        fail(e);
                        break;
                    }
                }
                next += 1;
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
        // the pool ends when the feeder and this thread have dropped their senders
        drop(job_tx);
        drop(front_rx);
    });
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e);
    }
    let parts = progress.into_inner().expect("progress lock").parts;
    Ok(parts)
}
