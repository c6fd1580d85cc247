//! Shared by the crawler's integration tests.

use trawl_crawler::{CrawlPart, Crawler};
use trawl_storage::Storage;

/// Runs a crawl under `root` to its end and returns every part it sent downstream.
pub async fn run(crawler: Crawler, root: &Storage) -> Vec<CrawlPart> {
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let root = root.clone();
    let h = tokio::spawn(async move { crawler.run(&root, tx, None).await });
    let mut parts = Vec::new();
    while let Some(p) = rx.recv().await {
        parts.push(p);
    }
    h.await.unwrap().unwrap();
    parts
}
