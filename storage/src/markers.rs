//! Completion markers and stats files.
//!
//! A shard is done when `_done/<stage>/<shard>` exists. The marker is written last, after
//! every output of the shard has been committed, and carries the shard's stats and the
//! input it was made from, so a rerun skips finished shards and the report can merge
//! stats without reading any data.

use trawl_core::RunStats;

use crate::{Storage, StorageError};

pub use trawl_core::Marker;

/// Reads the marker of a shard, if the shard is done.
pub async fn read(
    root: &Storage,
    stage: &str,
    shard: &str,
) -> Result<Option<Marker>, StorageError> {
    let key = Marker::key(stage, shard);
    match root.get_opt(&key).await? {
        None => Ok(None),
        Some(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| StorageError::Malformed {
                what: "completion marker",
                url: root.url_of(&key),
                reason: e.to_string(),
            }),
    }
}

/// Commits a shard: writes its stats file, then the marker (last).
pub async fn commit(root: &Storage, marker: &Marker) -> Result<(), StorageError> {
    let (key, stats) = stats_object(marker);
    root.put(&key, stats.into()).await?;
    put_marker(root, marker).await
}

/// The stats file of a marker's shard: its key and bytes.
pub fn stats_object(marker: &Marker) -> (String, Vec<u8>) {
    (
        format!("stats/{}/{}.json", marker.stage, marker.shard),
        serde_json::to_vec_pretty(&marker.stats).expect("stats serialise"),
    )
}

/// Writes the marker itself (after everything it lists).
pub async fn put_marker(root: &Storage, marker: &Marker) -> Result<(), StorageError> {
    let m = serde_json::to_vec_pretty(marker).expect("marker serialises");
    root.put(&Marker::key(&marker.stage, &marker.shard), m.into())
        .await
}

/// Merges every committed shard's stats of a stage.
pub async fn merged_stats(root: &Storage, stage: &str) -> Result<(RunStats, usize), StorageError> {
    let mut total = RunStats::default();
    let keys = root.list(&format!("_done/{stage}")).await?;
    for k in &keys {
        let b = root.get(k).await?;
        let m: Marker = serde_json::from_slice(&b).map_err(|e| StorageError::Malformed {
            what: "completion marker",
            url: root.url_of(k),
            reason: e.to_string(),
        })?;
        total += &m.stats;
    }
    Ok((total, keys.len()))
}

/// Removes every marker of a stage (for `--force` reruns).
pub async fn clear(root: &Storage, stage: &str) -> Result<(), StorageError> {
    for k in root.list(&format!("_done/{stage}")).await? {
        root.delete(&k).await?;
    }
    Ok(())
}
