//! `trawl-config`: the pipeline TOML schema. Each stage crate owns its section's struct
//! (`deny_unknown_fields`, documented defaults); this crate gathers them, validates, and
//! reports errors naming the file, the key and the reason.
//!
//! ```
//! let cfg = trawl_config::PipelineConfig::parse("[filter]\nmin_words = 10\n", "inline.toml").unwrap();
//! assert_eq!(cfg.filter.min_words, 10);
//! let err = trawl_config::PipelineConfig::parse("[filter]\nmin_wrods = 10\n", "inline.toml").unwrap_err();
//! assert_eq!(err.key, "filter.min_wrods");
//! ```
#![deny(missing_docs)]

use std::path::Path;

use serde::{Deserialize, Serialize};
use thiserror::Error;
pub use trawl_core::StageId;

pub use trawl_captions::CaptionsConfig;
pub use trawl_crawler::{CrawlConfig, RenderConfig};
pub use trawl_dedup::DedupConfig;
pub use trawl_extract::ExtractConfig;
pub use trawl_filter::FilterConfig;
pub use trawl_report::ReportConfig;
pub use trawl_shards::ShardsConfig;
pub use trawl_storage::StorageConfig;

/// The fully commented default configuration (`trawl config default`).
pub const DEFAULT_TOML: &str = include_str!("../examples/default.toml");

/// A configuration error: which file, which key, and why.
#[derive(Debug, Error, PartialEq)]
#[error("{file}: {}{reason}", if key.is_empty() { String::new() } else { format!("`{key}`: ") })]
pub struct ConfigError {
    /// The file (or a label for inline text).
    pub file: String,
    /// Dotted key path (`crawl.max_pages`); empty when the file itself is unreadable.
    pub key: String,
    /// Why.
    pub reason: String,
}

/// The `[run]` section: what a run tolerates before it fails.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// A stage command fails (exit 1, after committing what it wrote) when more than this
    /// share of the records it has seen are record errors (unreadable input lines, damaged
    /// WARC records, panics): one bad record is data, a tenth of them is a broken input or a
    /// bug. 1.0 never fails.
    pub max_error_share: f64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            max_error_share: 0.05,
        }
    }
}

impl RunConfig {
    /// Checks values; returns the offending key and reason.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if !(0.0..=1.0).contains(&self.max_error_share) {
            return Err((
                "run.max_error_share".into(),
                format!("{} is not a share between 0 and 1", self.max_error_share),
            ));
        }
        Ok(())
    }
}

/// One pipeline: a section per stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// How a run treats failures.
    pub run: RunConfig,
    /// Where output goes.
    pub storage: StorageConfig,
    /// Crawling.
    pub crawl: CrawlConfig,
    /// Headless rendering.
    pub render: RenderConfig,
    /// Main-content extraction.
    pub extract: ExtractConfig,
    /// Language, quality and consent filters.
    pub filter: FilterConfig,
    /// Duplicate removal.
    pub dedup: DedupConfig,
    /// Image/alt-text pairs and interleaved documents.
    pub captions: CaptionsConfig,
    /// Token shards.
    pub shards: ShardsConfig,
    /// Sampling report.
    pub report: ReportConfig,
}

impl PipelineConfig {
    /// Shard `shard` of `stage`, made from `inputs`, with the fingerprint of this config.
    pub fn job(&self, stage: StageId, shard: &str, inputs: Vec<String>) -> trawl_core::ShardJob {
        trawl_core::ShardJob::new(stage.name(), shard, inputs, self.fingerprint(stage))
    }

    /// A fingerprint of the config sections a stage's output depends on (its own and those
    /// of the stages upstream of it, [`StageId::lineage`]), stored in its completion
    /// markers: a shard committed under another config is redone, so a rerun after a config
    /// change recomputes that stage and everything downstream instead of silently keeping
    /// old output. Files named by the config (lists, blocklists) count by path, not content:
    /// use `--force` after editing one. The crawl has none: its committed parts stay valid
    /// across config changes.
    pub fn fingerprint(&self, stage: StageId) -> String {
        if stage == StageId::Crawl {
            return String::new();
        }
        let parts: Vec<serde_json::Value> = stage
            .lineage()
            .into_iter()
            .map(|s| self.section_of(s))
            .collect();
        format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(serde_json::Value::from(parts).to_string().as_bytes())
        )
    }

    /// The config a stage's own work reads (and, for the document stages writing Parquet,
    /// the format: their outputs' names and bytes change with it).
    fn section_of(&self, stage: StageId) -> serde_json::Value {
        let own = self.own_section(stage);
        let writes_docs = matches!(stage, StageId::Extract | StageId::Filter | StageId::Dedup);
        match self.storage.documents {
            trawl_storage::docs::DocFormat::Parquet if writes_docs => {
                serde_json::json!([own, "parquet"])
            }
            _ => own,
        }
    }

    fn own_section(&self, stage: StageId) -> serde_json::Value {
        match stage {
            StageId::Crawl => serde_json::Value::Null,
            // extraction counts each document's tokens with the [shards] tokenizer
            // (`attrs.tokens`) when token shards are on
            StageId::Extract => serde_json::json!([
                &self.extract,
                &self.render,
                self.shards.enabled.then_some(&self.shards.tokenizer)
            ]),
            StageId::Filter => serde_json::json!(&self.filter),
            StageId::Dedup
            | StageId::DedupSignatures
            | StageId::DedupBuckets
            | StageId::DedupClusters => serde_json::json!(&self.dedup),
            StageId::Captions => serde_json::json!(&self.captions),
            StageId::Shards => serde_json::json!(&self.shards),
        }
    }

    /// Whether `trawl run` runs the stage (the batch dedup phases are commands of their own
    /// and follow `[dedup] enabled`).
    pub fn enabled(&self, stage: StageId) -> bool {
        match stage {
            StageId::Crawl => self.crawl.enabled,
            StageId::Extract => self.extract.enabled,
            StageId::Filter => self.filter.enabled,
            StageId::Dedup
            | StageId::DedupSignatures
            | StageId::DedupBuckets
            | StageId::DedupClusters => self.dedup.enabled,
            StageId::Captions => self.captions.enabled,
            StageId::Shards => self.shards.enabled,
        }
    }

    /// Parses and validates TOML text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<PipelineConfig, ConfigError> {
        let de = toml::Deserializer::new(text);
        let cfg: PipelineConfig = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let msg = inner.message().to_string();
            let mut key = if path == "." { String::new() } else { path };
            // unknown fields: name the field itself, not only its section
            if let Some(rest) = msg.strip_prefix("unknown field `") {
                if let Some(name) = rest.split('`').next() {
                    if !key.ends_with(name) {
                        key = if key.is_empty() {
                            name.to_string()
                        } else {
                            format!("{key}.{name}")
                        };
                    }
                }
            }
            let location = inner.span().map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" (line {line})")
            });
            ConfigError {
                file: file.to_string(),
                key,
                reason: format!("{msg}{}", location.unwrap_or_default()),
            }
        })?;
        cfg.validate().map_err(|(key, reason)| ConfigError {
            file: file.to_string(),
            key,
            reason,
        })?;
        Ok(cfg)
    }

    /// Reads, parses and validates a file.
    pub fn load(path: &Path) -> Result<PipelineConfig, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: file.clone(),
            key: String::new(),
            reason: format!("cannot read the config file: {e}"),
        })?;
        Self::parse(&text, &file)
    }

    /// Validates every section.
    pub fn validate(&self) -> Result<(), (String, String)> {
        self.run.validate()?;
        self.storage.validate()?;
        self.crawl.validate()?;
        self.render.validate()?;
        self.extract.validate()?;
        self.filter.validate()?;
        self.dedup.validate()?;
        self.captions.validate()?;
        self.shards.validate()?;
        self.report.validate()?;
        Ok(())
    }

    /// The configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("config serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_follow_only_their_section() {
        use StageId::*;
        let a = PipelineConfig::default();
        let mut b = a.clone();
        b.filter.min_words += 1;
        assert_ne!(a.fingerprint(Filter), b.fingerprint(Filter));
        assert_eq!(
            a.fingerprint(Extract),
            b.fingerprint(Extract),
            "upstream stages keep theirs"
        );
        for stage in [Dedup, DedupBuckets, Captions, Shards] {
            assert_ne!(
                a.fingerprint(stage),
                b.fingerprint(stage),
                "{stage}: downstream of the change"
            );
        }
        let mut c = a.clone();
        c.shards.shuffle_seed += 1;
        assert_eq!(
            a.fingerprint(Captions),
            c.fingerprint(Captions),
            "captions do not read [shards]"
        );
        assert_ne!(a.fingerprint(Shards), c.fingerprint(Shards));
        // extraction's token counts follow the tokenizer
        let mut t = a.clone();
        t.shards.tokenizer = "o200k_base".into();
        assert_ne!(a.fingerprint(Extract), t.fingerprint(Extract));
        assert_eq!(a.fingerprint(Crawl), "", "committed crawl parts stay valid");
        assert_eq!(
            a.fingerprint(Filter),
            PipelineConfig::default().fingerprint(Filter),
            "stable"
        );
        // every stage but the crawl has its own, distinct fingerprint lineage
        for s in StageId::ALL.into_iter().filter(|s| *s != Crawl) {
            assert_eq!(a.fingerprint(s).len(), 16, "{s}");
        }
    }

    #[test]
    fn commented_default_equals_code_default() {
        let parsed = PipelineConfig::parse(DEFAULT_TOML, "default.toml").unwrap();
        assert_eq!(
            parsed,
            PipelineConfig::default(),
            "examples/default.toml is out of date with the code defaults"
        );
    }

    #[test]
    fn commented_default_lists_every_key() {
        let v: toml::Value = toml::from_str(&PipelineConfig::default().to_toml()).unwrap();
        let mut missing = Vec::new();
        fn walk(prefix: &str, v: &toml::Value, missing: &mut Vec<String>) {
            if let toml::Value::Table(t) = v {
                for (k, x) in t {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    if x.is_table() && !matches!(k.as_str(), "resolve" | "path_weights") {
                        walk(&path, x, missing);
                    } else if !DEFAULT_TOML.lines().any(|l| {
                        let l = l.trim_start_matches(['#', ' ']);
                        l.starts_with(&format!("{k} =")) || l.starts_with(&format!("{k}="))
                    }) {
                        missing.push(path);
                    }
                }
            }
        }
        walk("", &v, &mut missing);
        assert!(
            missing.is_empty(),
            "keys without an entry in examples/default.toml: {missing:?}"
        );
    }

    #[test]
    fn every_example_is_valid() {
        let dir = std::path::PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"),
        )
        .join("examples");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                PipelineConfig::load(&p).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 3);
    }

    #[test]
    fn roundtrip_through_toml() {
        let mut c = PipelineConfig::default();
        c.crawl.seeds = vec!["https://example.org/".into()];
        c.filter.languages = vec!["eng".into(), "fra".into()];
        let back = PipelineConfig::parse(&c.to_toml(), "x").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn errors_name_file_key_and_reason() {
        let e = PipelineConfig::parse("[crawl]\nmax_pages = \"many\"\n", "p.toml").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str()),
            ("p.toml", "crawl.max_pages")
        );
        assert!(e.reason.contains("line 2"), "{}", e.reason);
        let e = PipelineConfig::parse("[crawl]\nseeds = [\"ftp://x/\"]\n", "p.toml").unwrap_err();
        assert_eq!(e.key, "crawl.seeds");
        let e = PipelineConfig::parse("[nope]\n", "p.toml").unwrap_err();
        assert_eq!(e.key, "nope");
        let e = PipelineConfig::parse("[shards]\ntokenizer = \"gpt5\"\n", "p.toml").unwrap_err();
        assert_eq!(e.key, "shards.tokenizer");
        // a tokenizer file that exists but does not load (truncated, another format)
        let tok =
            std::env::temp_dir().join(format!("trawl-bad-tokenizer-{}.json", std::process::id()));
        std::fs::write(&tok, "{\"model\": {\"type\": \"BPE\", \"vocab\": ").unwrap();
        let e = PipelineConfig::parse(
            &format!("[shards]\ntokenizer = \"{}\"\n", tok.display()),
            "p.toml",
        )
        .unwrap_err();
        assert_eq!(e.key, "shards.tokenizer");
        assert!(e.reason.contains("cannot be loaded"), "{e}");
        let _ = std::fs::remove_file(&tok);
        // NaN and negative thresholds name their key
        for (toml, key) in [
            (
                "[filter]\nmin_lang_confidence = nan\n",
                "filter.min_lang_confidence",
            ),
            (
                "[filter.quality.thresholds]\neng = -0.5\n",
                "filter.quality.thresholds.eng",
            ),
            (
                "[filter.quality.thresholds]\neng = nan\n",
                "filter.quality.thresholds.eng",
            ),
            ("[dedup]\nthreshold = nan\n", "dedup.threshold"),
            ("[run]\nmax_error_share = nan\n", "run.max_error_share"),
        ] {
            let e = PipelineConfig::parse(toml, "p.toml").unwrap_err();
            assert_eq!(e.key, key, "{toml}");
        }
        let e = PipelineConfig::parse("[storage\n", "p.toml").unwrap_err();
        assert!(e.reason.contains("line 1"), "{e}");
        let e = PipelineConfig::parse("[render]\nmode = \"sometimes\"\n", "p.toml").unwrap_err();
        assert_eq!(e.key, "render.mode");
        let e = PipelineConfig::parse(
            "[render]\nmode = \"auto\"\nchromium = \"/nonexistent/chromium\"\n",
            "p.toml",
        )
        .unwrap_err();
        assert_eq!(e.key, "render.chromium");
        assert!(e.reason.contains("setup.sh"), "{e}");
        for (toml, why) in [
            ("[render]\nengines = []\n", "at least one"),
            (
                "[render]\nengines = [\"chromium\", \"chromium\"]\n",
                "twice",
            ),
        ] {
            let e = PipelineConfig::parse(toml, "p.toml").unwrap_err();
            assert_eq!(e.key, "render.engines", "{toml}");
            assert!(e.reason.contains(why), "{e}");
        }
        let e = PipelineConfig::parse("[render]\nlightpanda = \"/nonexistent/lp\"\n", "p.toml")
            .unwrap_err();
        assert_eq!(e.key, "render.lightpanda");
        let e = PipelineConfig::parse("[render]\nengines = [\"webkit\"]\n", "p.toml").unwrap_err();
        assert_eq!(e.key, "render.engines[0]");
        assert!(e.reason.contains("lightpanda"), "{e}");
        let e = PipelineConfig::load(Path::new("/nonexistent.toml")).unwrap_err();
        assert!(e.reason.contains("cannot read"));
        // no empty key in the message when the file itself is the problem
        assert!(
            e.to_string()
                .starts_with("/nonexistent.toml: cannot read the config file:"),
            "{e}"
        );
    }

    #[test]
    fn values_that_cannot_work_are_refused_with_their_key() {
        for (text, key) in [
            ("[crawl]\nmax_body_bytes = 0\n", "crawl.max_body_bytes"),
            (
                "[crawl]\nrobots_max_age_secs = 0\n",
                "crawl.robots_max_age_secs",
            ),
            (
                "[crawl]\nmax_crawl_delay_secs = -1.0\n",
                "crawl.max_crawl_delay_secs",
            ),
            (
                "[crawl]\nmax_crawl_delay_secs = nan\n",
                "crawl.max_crawl_delay_secs",
            ),
            ("[run]\nmax_error_share = nan\n", "run.max_error_share"),
            ("[run]\nmax_error_share = 1.5\n", "run.max_error_share"),
            (
                "[storage]\nmax_record_bytes = 10\n",
                "storage.max_record_bytes",
            ),
            ("[extract]\nmax_depth = 0\n", "extract.max_depth"),
        ] {
            let e = PipelineConfig::parse(text, "p.toml").unwrap_err();
            assert_eq!(e.key, key, "{text}: {e}");
        }
    }
}
