use crate::{ShardSpec, Storage, StorageConfig, StorageError};

/// The objects a stage reads: a file, a folder or a prefix, listed recursively and sorted,
/// each with its index in the full listing (which names the outputs, whatever the sharding).
#[derive(Debug)]
pub struct InputSet {
    /// The storage the keys are relative to.
    pub storage: Storage,
    /// `(index in the full listing, key)`, only this worker's when sharded.
    pub objects: Vec<(usize, String)>,
    /// Size of the full listing.
    pub total: usize,
}

impl InputSet {
    /// Lists `url` keeping keys accepted by `accept` (e.g. by extension), then this worker's
    /// share.
    pub async fn open(
        url: &str,
        cfg: &StorageConfig,
        shard: ShardSpec,
        accept: impl Fn(&str) -> bool,
    ) -> Result<InputSet, StorageError> {
        let is_s3 = url.starts_with("s3://");
        let local_path = url.strip_prefix("file://").unwrap_or(url);
        let (storage, keys) = if !is_s3 && std::path::Path::new(local_path).is_file() {
            let p = std::path::Path::new(local_path);
            let parent = p
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| ".".into());
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (Storage::open(&parent, cfg)?, vec![name])
        } else if !is_s3 {
            if !std::path::Path::new(local_path).exists() {
                return Err(StorageError::NotFound(url.to_string()));
            }
            let s = Storage::open(url, cfg)?;
            let keys = s.list("").await?;
            (s, keys)
        } else {
            let s = Storage::open(url, cfg)?;
            let keys = s.list("").await?;
            if keys.is_empty() {
                // maybe the URL names one object: open its parent
                let (parent, name) = url.rsplit_once('/').unwrap_or((url, ""));
                let p = Storage::open(parent, cfg)?;
                if !name.is_empty() && p.exists(name).await? {
                    (p, vec![name.to_string()])
                } else {
                    (s, keys)
                }
            } else {
                (s, keys)
            }
        };
        let mut keys: Vec<String> = keys
            .into_iter()
            .filter(|k| accept(k) && !is_hidden(k))
            .collect();
        keys.sort();
        let total = keys.len();
        let objects = keys
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.owns(*i))
            .collect();
        Ok(InputSet {
            storage,
            objects,
            total,
        })
    }
}

/// Temporary or hidden files (editor swaps, staging files) are never inputs.
fn is_hidden(key: &str) -> bool {
    key.rsplit('/')
        .next()
        .is_some_and(|n| n.starts_with('.') || n.starts_with('#') || n.ends_with('~'))
}
