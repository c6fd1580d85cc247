//! Shards on a pool of CPU threads. Each thread builds its own stage state once (chains,
//! models, tokenizer); shards are taken in order from a shared counter, and each shard's
//! output depends only on its input, so the bytes written are the same for any number of
//! threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Result;

/// The number of CPU threads: `--threads`, else one per core.
pub fn threads() -> usize {
    THREADS
        .get()
        .copied()
        .flatten()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

static THREADS: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();

/// Sets `--threads` (once, at start).
pub fn set_threads(n: Option<usize>) {
    let _ = THREADS.set(n);
}

/// Runs `work` over `items` on up to `threads` threads, each with its own state made by
/// `init`; returns the results in item order. After the first error no new item is started;
/// the error of the earliest failed item is returned (the same one whatever the timing).
/// One thread runs inline, on the caller's thread.
pub fn map_ordered<I, S, T>(
    threads: usize,
    items: &[I],
    init: impl Fn() -> Result<S> + Sync,
    work: impl Fn(&mut S, &I) -> Result<T> + Sync,
) -> Result<Vec<T>>
where
    I: Sync,
    S: Send,
    T: Send,
{
    let threads = threads.clamp(1, items.len().max(1));
    let mut states = Vec::with_capacity(threads);
    if threads == 1 {
        states.push(init()?);
    } else {
        let made: Vec<Result<S>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(&init)).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for m in made {
            states.push(m?);
        }
    }
    map_with_states(&mut states, items, work)
}

/// Runs `work` over `items` with one thread per state; results in item order, the earliest
/// error.
fn map_with_states<I, S, T>(
    states: &mut [S],
    items: &[I],
    work: impl Fn(&mut S, &I) -> Result<T> + Sync,
) -> Result<Vec<T>>
where
    I: Sync,
    S: Send,
    T: Send,
{
    if states.is_empty() {
        return Err(anyhow::anyhow!("internal error: no worker state"));
    }
    if states.len() == 1 || items.len() <= 1 {
        let s = &mut states[0];
        return items.iter().map(|i| work(s, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<T>>>> =
        Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for state in states.iter_mut().take(items.len()) {
            let (next, failed, results, work) = (&next, &failed, &results, &work);
            scope.spawn(move || {
                while !failed.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = work(state, &items[i]);
                    if r.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    results.lock().expect("lock")[i] = Some(r);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(items.len());
    for r in results.into_inner().expect("lock") {
        match r {
            Some(Ok(v)) => out.push(v),
            Some(Err(e)) => return Err(e),
            // items are started in order, so an item not started comes after a failed one,
            // whose error was returned above
            None => {
                return Err(anyhow::anyhow!(
                    "internal error: a shard was not processed and no error was recorded"
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_order_and_the_earliest_error() {
        let items: Vec<usize> = (0..100).collect();
        for t in [1, 2, 7] {
            let r = map_ordered(
                t,
                &items,
                || Ok(0usize),
                |n, i| {
                    *n += 1;
                    Ok(i * 2)
                },
            )
            .unwrap();
            assert_eq!(r, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
        let e = map_ordered(
            4,
            &items,
            || Ok(()),
            |_, i| {
                if *i == 30 {
                    anyhow::bail!("item {i}")
                }
                Ok(*i)
            },
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("item"), "{e}");
    }
}
