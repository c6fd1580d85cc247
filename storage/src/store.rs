use std::sync::Arc;

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, WriteMultipart};
use serde::{Deserialize, Serialize};

use crate::StorageError;

/// The `[storage]` section: where a run's output goes and how to reach S3.
///
/// Credentials and endpoint come from the standard AWS environment variables
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`/`AWS_DEFAULT_REGION`,
/// `AWS_ENDPOINT_URL`/`AWS_ENDPOINT`, `AWS_ALLOW_HTTP`); values set here override them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StorageConfig {
    /// The run root: a local folder (plain path or `file://`) or `s3://bucket/prefix`.
    pub root: String,
    /// S3-compatible endpoint URL (e.g. `http://127.0.0.1:9000`).
    pub endpoint: Option<String>,
    /// S3 region.
    pub region: Option<String>,
    /// Access key id (prefer the environment for secrets).
    pub access_key_id: Option<String>,
    /// Secret access key (prefer the environment for secrets).
    pub secret_access_key: Option<String>,
    /// Allow plain-HTTP endpoints (needed for a local S3 server).
    pub allow_http: Option<bool>,
    /// Objects larger than this many MiB are uploaded in parts of this size (S3 requires
    /// at least 5 MiB per part except the last).
    pub part_size_mib: usize,
    /// The largest record read from input files, in bytes: a JSONL line or a WARC record
    /// body after decompression. Longer ones are counted (`line_too_long`,
    /// `warc_record_too_large`) and skipped without being held in memory, and the rest of
    /// the file is read.
    pub max_record_bytes: usize,
    /// Let the AWS credential chain ask the instance metadata service (169.254.169.254)
    /// when neither the config nor the environment (static keys, web identity, container
    /// credentials) supplies credentials: what an EC2 instance role needs. Off: an S3 root
    /// without credentials is an error (or anonymous access with `anonymous`), and no request
    /// ever goes to the metadata address.
    pub instance_metadata: bool,
    /// Unsigned requests (a public bucket): no credentials are looked up at all.
    pub anonymous: bool,
    /// The format document stages (extract, filter, dedup) write: `jsonl` (zstd JSON
    /// Lines) or `parquet` (columns `id`, `text`, `url`, and JSON strings `meta`, `attrs`,
    /// `consent`, `images`, `extra`; zstd row groups). Stages read either.
    pub documents: crate::docs::DocFormat,
    /// A local run root: no object is written while its disk has less free space than this
    /// many MiB (the stage stops with an error naming this key; the rerun goes on from the
    /// last committed shard), so a run never fills the disk it shares with the machine. 0:
    /// no floor. Not used for S3.
    pub min_free_disk_mb: u64,
}

impl Default for StorageConfig {
    fn default() -> Self {
        StorageConfig {
            root: "trawl-out".into(),
            endpoint: None,
            region: None,
            access_key_id: None,
            secret_access_key: None,
            allow_http: None,
            part_size_mib: 16,
            max_record_bytes: 64 * 1024 * 1024,
            instance_metadata: true,
            anonymous: false,
            documents: crate::docs::DocFormat::Jsonl,
            min_free_disk_mb: 256,
        }
    }
}

impl StorageConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.root.trim().is_empty() {
            return Err(("storage.root".into(), "must not be empty".into()));
        }
        if self.max_record_bytes < 1024 * 1024 {
            return Err((
                "storage.max_record_bytes".into(),
                format!(
                    "is {}, below 1 MiB (records of ordinary pages would be skipped)",
                    self.max_record_bytes
                ),
            ));
        }
        if self.part_size_mib < 5 {
            return Err((
                "storage.part_size_mib".into(),
                format!("is {}, S3 parts must be at least 5 MiB", self.part_size_mib),
            ));
        }
        if let Some(e) = &self.endpoint {
            if !(e.starts_with("http://") || e.starts_with("https://")) {
                return Err((
                    "storage.endpoint".into(),
                    format!("`{e}` must start with http:// or https://"),
                ));
            }
        }
        Ok(())
    }
}

/// Whether something other than the instance metadata service supplies S3 credentials: the
/// sources object_store's chain tries before it (static keys, web identity, ECS/EKS
/// container credentials).
fn has_credentials_besides_imds(b: &AmazonS3Builder) -> bool {
    use object_store::aws::AmazonS3ConfigKey as K;
    let set = |k: K| b.get_config_value(&k).is_some_and(|v| !v.is_empty());
    let env = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
    set(K::AccessKeyId)
        || env("AWS_WEB_IDENTITY_TOKEN_FILE")
        || env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        || env("AWS_CONTAINER_CREDENTIALS_FULL_URI")
}

/// A run root (or any prefix) on object storage.
#[derive(Clone, Debug)]
pub struct Storage {
    store: Arc<dyn ObjectStore>,
    prefix: Path,
    url: String,
    part_size: usize,
    bucket: Option<(String, String)>,
    /// A local root's free-space floor (`storage.min_free_disk_mb`), checked before writes
    /// (none on S3).
    disk: Option<Arc<trawl_core::disk::DiskGuard>>,
}

impl Storage {
    /// Opens `url`: `s3://bucket/prefix`, `file:///abs/path`, or a plain path (created if
    /// missing). S3 settings come from the environment, overridden by `cfg`.
    pub fn open(url: &str, cfg: &StorageConfig) -> Result<Storage, StorageError> {
        let part_size = cfg.part_size_mib.max(5) * 1024 * 1024;
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(StorageError::InvalidUrl {
                    url: url.into(),
                    reason: "no bucket name after s3://".into(),
                });
            }
            let mut b = AmazonS3Builder::from_env().with_bucket_name(bucket);
            if let Ok(ep) = std::env::var("AWS_ENDPOINT_URL") {
                b = b.with_endpoint(ep);
            }
            if let Some(e) = &cfg.endpoint {
                b = b.with_endpoint(e);
            }
            if let Some(r) = &cfg.region {
                b = b.with_region(r);
            }
            if let Some(k) = &cfg.access_key_id {
                b = b.with_access_key_id(k);
            }
            if let Some(k) = &cfg.secret_access_key {
                b = b.with_secret_access_key(k);
            }
            if cfg.anonymous {
                b = b.with_skip_signature(true);
            } else if !cfg.instance_metadata && !has_credentials_besides_imds(&b) {
                return Err(StorageError::InvalidUrl {
                    url: url.into(),
                    reason: "no S3 credentials: storage.instance_metadata = false keeps the \
                             credential chain off the instance metadata service; set \
                             AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (or storage.access_key_id \
                             and storage.secret_access_key), a web identity or container \
                             credentials, or storage.anonymous = true for a public bucket"
                        .into(),
                });
            }
            let endpoint = cfg
                .endpoint
                .clone()
                .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok())
                .or_else(|| std::env::var("AWS_ENDPOINT").ok())
                .unwrap_or_else(|| "AWS".into());
            let allow_http = cfg.allow_http.unwrap_or(endpoint.starts_with("http://"));
            b = b.with_allow_http(allow_http);
            let s3 = b.build().map_err(|e| StorageError::InvalidUrl {
                url: url.into(),
                reason: e.to_string(),
            })?;
            return Ok(Storage {
                store: Arc::new(s3),
                prefix: Path::from(prefix.trim_matches('/')),
                url: url.trim_end_matches('/').to_string(),
                part_size,
                bucket: Some((bucket.to_string(), endpoint)),
                disk: None,
            });
        }
        if url.contains("://") && !url.starts_with("file://") {
            return Err(StorageError::InvalidUrl {
                url: url.into(),
                reason: "supported locations are s3://bucket/prefix, file:///path, or a plain path"
                    .into(),
            });
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        std::fs::create_dir_all(path).map_err(|source| StorageError::Io {
            url: url.into(),
            source,
        })?;
        let abs = std::fs::canonicalize(path).map_err(|source| StorageError::Io {
            url: url.into(),
            source,
        })?;
        let local = LocalFileSystem::new_with_prefix(&abs)
            .map_err(|source| StorageError::Store {
                url: url.into(),
                source,
            })?
            .with_automatic_cleanup(true);
        Ok(Storage {
            store: Arc::new(local),
            prefix: Path::default(),
            // (a floor of 0 is a guard that never stops anything)
            disk: Some(Arc::new(trawl_core::disk::DiskGuard::new(
                &abs,
                cfg.min_free_disk_mb,
                "storage",
                "root",
                "the run root",
            ))),
            url: abs.to_string_lossy().into_owned(),
            part_size,
            bucket: None,
        })
    }

    /// The location as a URL or absolute path.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// True for local folders.
    pub fn is_local(&self) -> bool {
        self.bucket.is_none()
    }

    /// The URL of an object under this root.
    pub fn url_of(&self, rel: &str) -> String {
        format!("{}/{}", self.url, rel.trim_start_matches('/'))
    }

    /// A storage rooted at `rel` below this one.
    pub fn child(&self, rel: &str) -> Storage {
        let mut s = self.clone();
        s.prefix = self.path(rel);
        s.url = self.url_of(rel);
        s
    }

    fn path(&self, rel: &str) -> Path {
        let rel = rel.trim_matches('/');
        if self.prefix.as_ref().is_empty() {
            Path::from(rel)
        } else if rel.is_empty() {
            self.prefix.clone()
        } else {
            Path::from(format!("{}/{}", self.prefix.as_ref(), rel))
        }
    }

    fn rel_of(&self, p: &Path) -> String {
        let full = p.as_ref();
        let pre = self.prefix.as_ref();
        if pre.is_empty() {
            full.to_string()
        } else {
            full.strip_prefix(pre)
                .unwrap_or(full)
                .trim_start_matches('/')
                .to_string()
        }
    }

    fn map_err(&self, rel: &str, source: object_store::Error) -> StorageError {
        if let object_store::Error::NotFound { .. } = source {
            let msg = source.to_string();
            if let Some((bucket, endpoint)) = &self.bucket {
                if msg.contains("NoSuchBucket") || msg.contains("bucket does not exist") {
                    return StorageError::BucketNotFound {
                        bucket: bucket.clone(),
                        endpoint: endpoint.clone(),
                    };
                }
            }
            return StorageError::NotFound(self.url_of(rel));
        }
        let msg = source.to_string();
        if let Some((bucket, endpoint)) = &self.bucket {
            if msg.contains("NoSuchBucket") {
                return StorageError::BucketNotFound {
                    bucket: bucket.clone(),
                    endpoint: endpoint.clone(),
                };
            }
        }
        StorageError::Store {
            url: self.url_of(rel),
            source,
        }
    }

    /// Writes an object atomically (multipart above the part size).
    pub async fn put(&self, rel: &str, data: Bytes) -> Result<(), StorageError> {
        if let Some(guard) = &self.disk {
            guard.stop().map_err(|reason| StorageError::LowDisk {
                url: self.url_of(rel),
                reason,
            })?;
        }
        let path = self.path(rel);
        if data.len() <= self.part_size {
            self.store
                .put(&path, PutPayload::from(data))
                .await
                .map_err(|e| self.map_err(rel, e))?;
            return Ok(());
        }
        let upload = self
            .store
            .put_multipart(&path)
            .await
            .map_err(|e| self.map_err(rel, e))?;
        let mut w = WriteMultipart::new_with_chunk_size(upload, self.part_size);
        for chunk in data.chunks(self.part_size) {
            w.wait_for_capacity(4)
                .await
                .map_err(|e| self.map_err(rel, e))?;
            w.write(chunk);
        }
        w.finish().await.map_err(|e| self.map_err(rel, e))?;
        tracing::debug!(object = %self.url_of(rel), bytes = data.len(), "multipart upload committed");
        Ok(())
    }

    /// Reads a whole object.
    pub async fn get(&self, rel: &str) -> Result<Bytes, StorageError> {
        let path = self.path(rel);
        let r = self
            .store
            .get(&path)
            .await
            .map_err(|e| self.map_err(rel, e))?;
        r.bytes().await.map_err(|e| self.map_err(rel, e))
    }

    /// Reads bytes `start..end` of an object (for streaming large files in chunks).
    pub async fn get_range(&self, rel: &str, start: u64, end: u64) -> Result<Bytes, StorageError> {
        let path = self.path(rel);
        self.store
            .get_range(&path, start..end)
            .await
            .map_err(|e| self.map_err(rel, e))
    }

    /// The size of an object in bytes.
    pub async fn size(&self, rel: &str) -> Result<u64, StorageError> {
        let path = self.path(rel);
        Ok(self
            .store
            .head(&path)
            .await
            .map_err(|e| self.map_err(rel, e))?
            .size)
    }

    /// Reads an object, `None` if it does not exist.
    pub async fn get_opt(&self, rel: &str) -> Result<Option<Bytes>, StorageError> {
        match self.get(rel).await {
            Ok(b) => Ok(Some(b)),
            Err(StorageError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether an object exists.
    pub async fn exists(&self, rel: &str) -> Result<bool, StorageError> {
        match self.store.head(&self.path(rel)).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.map_err(rel, e)),
        }
    }

    /// Deletes an object (absent objects are fine).
    pub async fn delete(&self, rel: &str) -> Result<(), StorageError> {
        match self.store.delete(&self.path(rel)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.map_err(rel, e)),
        }
    }

    /// Lists objects below `rel_prefix` recursively, as paths relative to this root, sorted.
    pub async fn list(&self, rel_prefix: &str) -> Result<Vec<String>, StorageError> {
        let p = self.path(rel_prefix);
        let prefix = if p.as_ref().is_empty() {
            None
        } else {
            Some(&p)
        };
        let metas: Vec<_> = match self.store.list(prefix).try_collect().await {
            Ok(m) => m,
            Err(object_store::Error::NotFound { .. }) if self.is_local() => Vec::new(),
            Err(e) => return Err(self.map_err(rel_prefix, e)),
        };
        let mut out: Vec<String> = metas.iter().map(|m| self.rel_of(&m.location)).collect();
        out.sort();
        Ok(out)
    }

    /// Checks that the root is reachable (bucket exists, credentials work).
    pub async fn check(&self) -> Result<(), StorageError> {
        let p = self.path("");
        let mut s = self.store.list(if p.as_ref().is_empty() {
            None
        } else {
            Some(&p)
        });
        match s.try_next().await {
            Ok(_) => Ok(()),
            Err(object_store::Error::NotFound { .. }) if self.is_local() => Ok(()),
            Err(e) => Err(self.map_err("", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn local_roundtrip_and_listing() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = StorageConfig {
            part_size_mib: 5,
            ..Default::default()
        };
        let s = Storage::open(&format!("file://{}", dir.path().display()), &cfg).unwrap();
        s.put("x/2.txt", Bytes::from_static(b"2")).await.unwrap();
        s.put("x/1.txt", Bytes::from_static(b"1")).await.unwrap();
        let big = Bytes::from(vec![7u8; 11 * 1024 * 1024]);
        s.put("x/big.bin", big.clone()).await.unwrap();
        assert_eq!(
            s.list("x").await.unwrap(),
            vec!["x/1.txt", "x/2.txt", "x/big.bin"]
        );
        assert_eq!(s.get("x/big.bin").await.unwrap(), big);
        assert!(s.exists("x/1.txt").await.unwrap());
        assert!(!s.exists("nope").await.unwrap());
        assert!(s.get_opt("nope").await.unwrap().is_none());
        assert!(matches!(
            s.get("nope").await,
            Err(StorageError::NotFound(_))
        ));
        let c = s.child("x");
        assert_eq!(c.list("").await.unwrap(), vec!["1.txt", "2.txt", "big.bin"]);
        assert!(s.list("empty").await.unwrap().is_empty());
        s.delete("x/1.txt").await.unwrap();
        s.delete("x/1.txt").await.unwrap();
    }

    #[tokio::test]
    async fn a_local_root_below_its_free_space_floor_writes_nothing_and_names_the_keys() {
        let dir = tempfile::tempdir().unwrap();
        let url = dir.path().display().to_string();
        // a floor no disk has room for: a petabyte
        let full = StorageConfig {
            min_free_disk_mb: 1 << 30,
            ..Default::default()
        };
        let s = Storage::open(&url, &full).unwrap();
        // reading is not writing
        assert!(!s.exists("x").await.unwrap());
        let e = s
            .put("x/1.txt", Bytes::from_static(b"1"))
            .await
            .unwrap_err();
        assert!(matches!(e, StorageError::LowDisk { .. }), "{e}");
        let msg = e.to_string();
        for part in [
            "storage.min_free_disk_mb = 1073741824",
            "storage.root",
            "x/1.txt",
            url.as_str(),
        ] {
            assert!(msg.contains(part), "{part} not in: {msg}");
        }
        assert!(!dir.path().join("x/1.txt").exists());
        // the floor off: written
        let off = StorageConfig {
            min_free_disk_mb: 0,
            ..Default::default()
        };
        let s = Storage::open(&url, &off).unwrap();
        s.put("x/1.txt", Bytes::from_static(b"1")).await.unwrap();
        assert!(dir.path().join("x/1.txt").exists());
    }

    #[test]
    fn rejects_unknown_schemes() {
        assert!(matches!(
            Storage::open("gs://b/p", &Default::default()),
            Err(StorageError::InvalidUrl { .. })
        ));
        assert!(matches!(
            Storage::open("s3://", &Default::default()),
            Err(StorageError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn instance_metadata_can_be_turned_off() {
        let off = StorageConfig {
            instance_metadata: false,
            endpoint: Some("http://127.0.0.1:9".into()),
            ..Default::default()
        };
        let env_creds = [
            "AWS_ACCESS_KEY_ID",
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        ]
        .iter()
        .any(|k| std::env::var_os(k).is_some());
        if !env_creds {
            let e = Storage::open("s3://bucket/p", &off)
                .unwrap_err()
                .to_string();
            assert!(e.contains("storage.instance_metadata"), "{e}");
        }
        // keys from the config, or anonymous access, need no metadata service
        let keys = StorageConfig {
            access_key_id: Some("k".into()),
            secret_access_key: Some("s".into()),
            ..off.clone()
        };
        assert!(Storage::open("s3://bucket/p", &keys).is_ok());
        let anon = StorageConfig {
            anonymous: true,
            ..off
        };
        assert!(Storage::open("s3://bucket/p", &anon).is_ok());
    }
}
