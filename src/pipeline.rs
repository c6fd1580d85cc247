//! The stage runtimes of one config, and the per-part path of `trawl run`. Every shard is
//! made through trawl-core's [`ShardRunner`] (skip-if-done, accounting, exclusion records,
//! outputs, then the completion marker last) over the run root ([`RunRoot`]); this file
//! only builds the stages a command needs from the config and says which slot each runs in.

use anyhow::{Context, Result};
use trawl_captions::Captioner;
use trawl_config::PipelineConfig;
use trawl_core::{
    Chain, Document, FetchedPage, PageStage, ShardRunner, StageId, StageStats, Unreadable,
};
use trawl_extract::Extractor;
use trawl_shards::pack::PackReport;
use trawl_shards::{PartBuilder, ShardManifest, Tokenizer};
use trawl_storage::jsonl::{self, JsonlWriter};
use trawl_storage::{RunRoot, Storage};

/// Stage runtimes built from one config.
pub struct Pipeline {
    pub cfg: PipelineConfig,
    pub store: RunRoot,
    pub force: bool,
    extractor: Extractor,
    filter: Option<Chain>,
    dedup: Option<Chain>,
    captioner: Captioner,
    scorer_loaded: bool,
    image_dedup: trawl_captions::ImageDedup,
    image_fetcher: Option<trawl_crawler::ResourceFetcher>,
    tokenizer: Option<Tokenizer>,
}

/// The object holding shard `name`'s JSON Lines under `prefix` (`captions/pairs/00003.jsonl.zst`).
pub fn jsonl_name(prefix: &str, name: &str) -> String {
    trawl_storage::docs::DocFormat::Jsonl.object(prefix, name)
}

impl Pipeline {
    /// The object holding a document stage's output for shard `name`, in the configured
    /// format (`[storage] documents`).
    pub fn doc_name(&self, stage: &str, name: &str) -> String {
        self.store.doc_object(stage, name)
    }

    /// The run root.
    pub fn root(&self) -> &Storage {
        self.store.storage()
    }

    fn runner(&self) -> ShardRunner<'_> {
        ShardRunner::new(&self.store, self.force)
    }
}

impl Pipeline {
    /// The stage runtimes for `stages`, built now so a list or model that cannot be loaded
    /// stops the command before any work (exit 2, naming the key); the others are built on
    /// first use, so a command pays only for what it runs (`trawl shards` loads no filter
    /// model and opens no dedup index).
    pub fn new(
        cfg: PipelineConfig,
        store: RunRoot,
        force: bool,
        stages: &[StageId],
    ) -> Result<Pipeline> {
        let extractor = Extractor::new(cfg.extract.clone());
        let mut captioner = Captioner::new(cfg.captions.clone());
        captioner.set_signal_policy(cfg.filter.consent_signals.clone());
        let mut p = Pipeline {
            cfg,
            store,
            force,
            extractor,
            filter: None,
            dedup: None,
            captioner,
            scorer_loaded: false,
            image_dedup: Default::default(),
            image_fetcher: None,
            tokenizer: None,
        };
        for s in stages {
            match s {
                StageId::Filter => drop(p.filter_chain()?),
                StageId::Dedup => drop(p.dedup_chain()?),
                StageId::Shards => drop(p.tokenizer()?),
                StageId::Captions => p.load_scorer()?,
                StageId::Crawl
                | StageId::Extract
                | StageId::DedupSignatures
                | StageId::DedupBuckets
                | StageId::DedupClusters => {}
            }
        }
        Ok(p)
    }

    /// The filter chain, built on first use. Documents taken down from this run root are
    /// dropped by the filter of later runs.
    fn filter_chain(&mut self) -> Result<&mut Chain> {
        if self.filter.is_none() {
            let takedowns = self
                .store
                .block(trawl_shards::pack::run_blocklist(self.store.storage()))?;
            let stages = self
                .cfg
                .filter
                .build_with(takedowns)
                .map_err(|(key, reason)| trawl_config::ConfigError {
                    file: "config".into(),
                    key,
                    reason,
                })?;
            self.filter = Some(Chain::new("filter", stages));
        }
        Ok(self.filter.as_mut().expect("built above"))
    }

    /// The dedup chain (exact, then near with its LSH index), built on first use.
    fn dedup_chain(&mut self) -> Result<&mut Chain> {
        if self.dedup.is_none() {
            let cfg = &self.cfg;
            let mut stages = Vec::new();
            if cfg.dedup.exact {
                stages.push(trawl_core::Stage::Task(Box::new(
                    trawl_dedup::ExactDedup::default(),
                )));
            }
            if cfg.dedup.near {
                let index = cfg
                    .dedup
                    .open_index()
                    .map_err(|e| trawl_config::ConfigError {
                        file: "config".into(),
                        key: "dedup.index_dir".into(),
                        reason: e,
                    })?;
                stages.push(trawl_core::Stage::Task(Box::new(
                    trawl_dedup::NearDedup::new(&cfg.dedup, index),
                )));
            }
            self.dedup = Some(Chain::new("dedup", stages));
        }
        Ok(self.dedup.as_mut().expect("built above"))
    }

    /// Loads the CLIP model of `[captions.alignment]` the first time the captions stage
    /// runs (other stages never pay for it).
    fn load_scorer(&mut self) -> Result<()> {
        if self.scorer_loaded || !self.cfg.captions.enabled {
            return Ok(());
        }
        self.scorer_loaded = true;
        match &self.cfg.captions.alignment.model {
            #[cfg(feature = "clip")]
            Some(dir) => {
                let scorer = trawl_captions::align::ClipScorer::load(std::path::Path::new(dir))
                    .map_err(|reason| trawl_config::ConfigError {
                        file: "config".into(),
                        key: "captions.alignment.model".into(),
                        reason,
                    })?;
                tracing::info!(model = %dir, "image-text alignment scores from a CLIP model");
                self.captioner.set_scorer(std::sync::Arc::new(scorer));
            }
            #[cfg(not(feature = "clip"))]
            Some(_) => {
                return Err(trawl_config::ConfigError {
                    file: "config".into(),
                    key: "captions.alignment.model".into(),
                    reason: "this trawl was built without CLIP; build it with `cargo build --release --features clip` (or scripts/install.sh --clip)".into(),
                }
                .into())
            }
            None => tracing::info!(
                "no [captions.alignment] model configured: pairs get no alignment score"
            ),
        }
        Ok(())
    }

    /// Whether `stage` is already done for shard `name` from these inputs.
    pub fn done(&self, stage: StageId, name: &str, inputs: &[String]) -> Result<bool> {
        Ok(self
            .runner()
            .is_done(&self.cfg.job(stage, name, inputs.to_vec()))?)
    }

    /// The documents a stage before produced in this process, or else its committed output.
    fn take_or_read(&self, docs: &mut Option<Vec<Document>>, key: &str) -> Result<Vec<Document>> {
        match docs.take() {
            Some(d) => Ok(d),
            None => self.read_docs(key),
        }
    }

    /// Reads documents from a JSONL or Parquet object under the run root. Malformed lines are counted
    /// and logged, not fatal.
    pub fn read_docs(&self, key: &str) -> Result<Vec<Document>> {
        let bytes = self
            .store
            .block(self.root().get(key))
            .with_context(|| format!("reading {}", self.root().url_of(key)))?;
        read_docs_bytes(key, &bytes)
    }

    fn tokenizer(&mut self) -> Result<&Tokenizer> {
        if self.tokenizer.is_none() {
            let t = self
                .cfg
                .shards
                .load_tokenizer()
                .map_err(|e| trawl_config::ConfigError {
                    file: "config".into(),
                    key: "shards.tokenizer".into(),
                    reason: e,
                })?;
            self.tokenizer = Some(t);
        }
        Ok(self.tokenizer.as_ref().expect("loaded above"))
    }

    /// Extracts one shard of pages (the page -> document slot). Each document gets
    /// `attrs.tokens` (its token count with the configured tokenizer) so every later stage
    /// can count tokens in and out.
    pub fn extract(
        &mut self,
        name: &str,
        pages: &[FetchedPage],
        bad: &[Unreadable],
        inputs: Vec<String>,
    ) -> Result<Vec<Document>> {
        if self.cfg.shards.enabled {
            self.tokenizer()?;
        }
        let job = self.cfg.job(StageId::Extract, name, inputs);
        let mut stage = ExtractPages {
            extractor: &self.extractor,
            tokenizer: self.tokenizer.as_ref().filter(|_| self.cfg.shards.enabled),
        };
        self.runner().make(&job, |w| {
            w.read_step(pages.len(), bad);
            anyhow::Ok(w.pages(&mut stage, pages))
        })
    }

    /// The Filter/Map/Task slot: filter or dedup over one shard of documents.
    fn run_chain(
        &mut self,
        which: StageId,
        name: &str,
        input: Input,
        inputs: Vec<String>,
    ) -> Result<Vec<Document>> {
        let job = self.cfg.job(which, name, inputs);
        if which == StageId::Filter {
            self.filter_chain()?;
        } else {
            self.dedup_chain()?;
        }
        let chain = if which == StageId::Filter {
            self.filter.as_mut()
        } else {
            self.dedup.as_mut()
        }
        .expect("built above");
        ShardRunner::new(&self.store, self.force).make(&job, |w| {
            w.read_step(input.docs.len(), &input.bad);
            let kept = w.chain(chain, input.docs);
            // a task's own storage failed (the dedup index's disk): the shard is not
            // committed, with its records counted as errors or not
            if let Some(e) = chain.fault() {
                anyhow::bail!("{e}");
            }
            Ok(kept)
        })
    }

    pub fn filter(
        &mut self,
        name: &str,
        input: Input,
        inputs: Vec<String>,
    ) -> Result<Vec<Document>> {
        self.run_chain(StageId::Filter, name, input, inputs)
    }

    pub fn dedup(
        &mut self,
        name: &str,
        input: Input,
        inputs: Vec<String>,
    ) -> Result<Vec<Document>> {
        self.run_chain(StageId::Dedup, name, input, inputs)
    }

    /// Shows the dedup chain every document of the run before any shard is processed, in
    /// input order (see [`trawl_core::Task::look_ahead`]): near dedup then links a copy to
    /// its cluster through a member in any later shard of the run, within
    /// `dedup.max_memory_mb`. Reads every input once more. Must come before
    /// [`Pipeline::seed_dedup`] of a resumed run.
    pub fn dedup_look_ahead(
        &mut self,
        inputs: &[(usize, String)],
        storage: &trawl_storage::Storage,
        bar: &indicatif::ProgressBar,
    ) -> Result<()> {
        if !self.cfg.dedup.near {
            return Ok(());
        }
        let max_line = self.cfg.storage.max_record_bytes;
        for (_, key) in inputs {
            let bytes = self.store.block(storage.get(key))?;
            let input = read_input(key, &bytes, max_line)?;
            if !self.dedup_chain()?.look_ahead(&input.docs) {
                return Ok(());
            }
            bar.inc(1);
        }
        self.dedup_chain()?.end_look_ahead();
        Ok(())
    }

    /// Registers what a committed dedup shard decided (resume): the documents it kept, and
    /// the ones it excluded with the stages that kept them before, so a rerun after a kill
    /// makes the decisions (and writes the exclusion records) of an uninterrupted run.
    /// Returns the kept documents.
    pub fn seed_dedup(&mut self, name: &str) -> Result<Vec<Document>> {
        let kept = self.read_docs(&self.doc_name("dedup", name))?;
        let chain = self.dedup_chain()?;
        for d in &kept {
            chain.seed(d);
        }
        let key = trawl_storage::exclusions_object("dedup", name);
        if let Some(bytes) = self.store.block(self.root().get_opt(&key))? {
            for r in jsonl::read_lines::<trawl_core::Excluded>(&key, &bytes)? {
                let ex = r.map_err(|e| {
                    anyhow::anyhow!(
                        "{}: unreadable exclusion record ({e}); rerun `trawl dedup --force`",
                        self.root().url_of(&key)
                    )
                })?;
                self.dedup_chain()?.seed_excluded(&ex);
            }
        }
        Ok(kept)
    }

    /// Registers the images of a committed captions shard (resume), so later shards still
    /// drop their duplicates.
    pub fn seed_captions(&mut self, name: &str) -> Result<()> {
        if !self.cfg.captions.dedup {
            return Ok(());
        }
        let key = jsonl_name("captions/pairs", name);
        let Some(bytes) = self.store.block(self.root().get_opt(&key))? else {
            return Ok(());
        };
        for v in jsonl::read_lines::<serde_json::Value>(&key, &bytes)?
            .into_iter()
            .flatten()
        {
            let hex = |k: &str| {
                v["attrs"][k]
                    .as_str()
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
            };
            if let (Some(sha), Some(ph), Some(k)) = (hex("sha"), hex("phash"), v["key"].as_str()) {
                self.image_dedup.insert(sha, ph, k);
            }
        }
        Ok(())
    }

    fn image_fetcher(&mut self) -> Result<trawl_crawler::ResourceFetcher> {
        if self.image_fetcher.is_none() {
            self.image_fetcher = Some(image_fetcher(&self.cfg)?);
        }
        Ok(self.image_fetcher.clone().expect("built above"))
    }

    /// Image/alt-text pairs and interleaved documents of one shard (a whole-shard task):
    /// images fetched with the crawl's manners, checked, de-duplicated across the run,
    /// scored when a model is configured, written as WebDataset tars with JSONL indexes.
    pub fn captions(
        &mut self,
        name: &str,
        docs: &[Document],
        bad: &[Unreadable],
        inputs: Vec<String>,
    ) -> Result<()> {
        self.load_scorer()?;
        let fetcher = CrawlerImages {
            fetcher: self.image_fetcher()?,
            store: self.store.clone(),
        };
        let job = self.cfg.job(StageId::Captions, name, inputs);
        let (store, force) = (&self.store, self.force);
        let (captioner, image_dedup) = (&mut self.captioner, &mut self.image_dedup);
        ShardRunner::new(store, force).make(&job, |w| {
            w.read_step(docs.len(), bad);
            let t0 = std::time::Instant::now();
            let out = captioner.caption(docs, &fetcher, image_dedup);
            let (pair_tar, pair_idx, inter_tar, inter_idx) =
                trawl_captions::write_shards(&out).context("writing WebDataset shards")?;
            let st = w.stage_stats();
            *st += &out.stats;
            st.nanos = t0.elapsed().as_nanos() as u64;
            for (pair, reason, detail) in &out.dropped {
                // the image's page as the document, with the image's alt text as its text
                let mut doc = Document::new(pair.page_url.clone(), pair.alt.clone());
                if let Some(id) = &pair.doc_id {
                    doc.id = id.clone();
                }
                doc.attrs = pair.attrs.clone();
                w.exclude(&trawl_core::Excluded {
                    detail: Some(detail.clone()),
                    doc: Some(doc),
                    ..trawl_core::Excluded::url("captions", reason.as_str(), &pair.image_url)
                });
            }
            let index = |rows: Vec<serde_json::Value>| {
                let mut w = JsonlWriter::for_name("x.jsonl.zst");
                for r in &rows {
                    w.write(r);
                }
                w.finish()
            };
            w.output(format!("captions/pairs/{name}.tar"), pair_tar);
            w.output(jsonl_name("captions/pairs", name), index(pair_idx));
            w.output(format!("captions/interleaved/{name}.tar"), inter_tar);
            w.output(jsonl_name("captions/interleaved", name), index(inter_idx));
            anyhow::Ok(())
        })
    }

    /// Tokenizes one input shard into `_parts/shards/<name>.*` (input order; a whole-shard
    /// task).
    pub fn shards(
        &mut self,
        name: &str,
        docs: &[Document],
        bad: &[Unreadable],
        inputs: Vec<String>,
    ) -> Result<ShardManifest> {
        self.tokenizer()?;
        let job = self.cfg.job(StageId::Shards, name, inputs);
        let tok = self.tokenizer.as_ref().expect("loaded above");
        let cfg = &self.cfg.shards;
        ShardRunner::new(&self.store, self.force).make(&job, |w| {
            w.read_step(docs.len(), bad);
            let t0 = std::time::Instant::now();
            let mut b = PartBuilder::new(cfg, tok, name);
            let st = w.stage_stats();
            for d in docs {
                st.seen += 1;
                st.kept += 1;
                st.bytes_in += d.text.len() as u64;
                let n = b.add(d);
                st.count("tokens", n);
                st.count("tokens_in", trawl_core::doc_tokens(d));
                st.count("tokens_out", n);
            }
            st.nanos = t0.elapsed().as_nanos() as u64;
            let out = b.finish();
            // megatron-core cannot open an empty .bin (mmap of an empty file fails), so a
            // part without documents has a manifest but no token files
            if out.manifest.documents > 0 {
                w.output(out.manifest.bin.clone(), out.bin);
                w.output(out.manifest.idx.clone(), out.idx);
            }
            w.output(
                trawl_shards::part_key(name, "json"),
                serde_json::to_vec_pretty(&out.manifest)?,
            );
            anyhow::Ok(out.manifest)
        })
    }

    /// Packs every tokenized part into the final shards and manifests, once `expected`
    /// parts are committed; `None` while parts are missing (another worker's share).
    pub fn pack(&self, expected: usize) -> Result<Option<PackReport>> {
        let done = self.store.block(self.root().list("_done/shards"))?.len();
        if done < expected {
            return Ok(None);
        }
        let report = self
            .store
            .block(trawl_shards::pack::pack(self.root(), &self.cfg.shards))
            .context("packing token shards")?;
        Ok(Some(report))
    }

    /// For one crawl part, `part_front`, `part_middle` and `part_back` run extract ->
    /// filter -> dedup -> captions -> shards, skipping stages whose shard is already
    /// committed (`trawl run` runs the front and back of several parts at once).
    /// The per-part stages without state across parts (extract, filter): any number of
    /// parts at once, each on its own `Pipeline`.
    pub fn part_front(
        &mut self,
        name: &str,
        warc: &str,
        pages: impl FnOnce() -> Result<(Vec<FetchedPage>, Vec<Unreadable>)>,
    ) -> Result<PartDocs> {
        let mut part = PartDocs {
            docs: None,
            current: self.doc_name("extract", name),
        };
        if self.cfg.extract.enabled && !self.done(StageId::Extract, name, &[warc.to_string()])? {
            let (pages, bad) = pages()?;
            part.docs = Some(self.extract(name, &pages, &bad, vec![warc.to_string()])?);
        }
        if self.cfg.filter.enabled {
            let current = part.current.clone();
            if !self.done(StageId::Filter, name, std::slice::from_ref(&current))? {
                let input = self.take_or_read(&mut part.docs, &current)?;
                part.docs = Some(self.filter(name, input.into(), vec![current])?);
            } else {
                part.docs = None;
            }
            part.current = self.doc_name("filter", name);
        }
        Ok(part)
    }

    /// The stages whose decisions depend on earlier parts (dedup, captions' image dedup):
    /// one `Pipeline`, parts in order.
    pub fn part_middle(&mut self, name: &str, mut part: PartDocs) -> Result<PartDocs> {
        if self.cfg.dedup.enabled {
            let current = part.current.clone();
            if !self.done(StageId::Dedup, name, std::slice::from_ref(&current))? {
                let input = self.take_or_read(&mut part.docs, &current)?;
                part.docs = Some(self.dedup(name, input.into(), vec![current])?);
            } else {
                part.docs = Some(self.seed_dedup(name)?);
            }
            part.current = self.doc_name("dedup", name);
        }
        if self.cfg.captions.enabled {
            let current = part.current.clone();
            if !self.done(StageId::Captions, name, std::slice::from_ref(&current))? {
                let d = self.take_or_read(&mut part.docs, &current)?;
                self.captions(name, &d, &[], vec![current])?;
                part.docs = Some(d);
            } else {
                self.seed_captions(name)?;
            }
        }
        Ok(part)
    }

    /// Tokenization (per part, any number at once).
    pub fn part_back(&mut self, name: &str, mut part: PartDocs) -> Result<()> {
        let current = part.current.clone();
        if self.cfg.shards.enabled
            && !self.done(StageId::Shards, name, std::slice::from_ref(&current))?
        {
            let d = self.take_or_read(&mut part.docs, &current)?;
            self.shards(name, &d, &[], vec![current])?;
        }
        Ok(())
    }
}

/// A crawl part between stages: the documents the last stage produced in this process (or
/// `None`: read them from its committed output), and that output's key.
#[derive(Debug)]
pub struct PartDocs {
    docs: Option<Vec<Document>>,
    current: String,
}

/// The captions stage's image fetcher: the crawl's manners (`[crawl]`) with the limits of
/// `[captions.fetch]` and `[captions.images]`.
pub fn image_fetcher(cfg: &PipelineConfig) -> Result<trawl_crawler::ResourceFetcher> {
    let c = &cfg.captions;
    let limits = trawl_crawler::ResourceLimits {
        max_bytes: c.images.max_bytes,
        timeout: std::time::Duration::from_secs(c.fetch.timeout_secs),
        concurrency: c.fetch.concurrency,
        content_types: vec![
            "image/".into(),
            "application/octet-stream".into(),
            "binary/octet-stream".into(),
        ],
    };
    trawl_crawler::ResourceFetcher::new(&cfg.crawl, limits).context("image fetcher")
}

/// The crawler's fetcher as captions' [`trawl_captions::ImageFetcher`].
struct CrawlerImages {
    fetcher: trawl_crawler::ResourceFetcher,
    store: RunRoot,
}

impl trawl_captions::ImageFetcher for CrawlerImages {
    fn fetch(&self, urls: &[String]) -> Vec<trawl_captions::FetchOutcome> {
        self.store.block(fetch_images(&self.fetcher, urls, None))
    }
}

/// Fetches image URLs (one outcome per URL, in order) in the form the captions checks take.
pub async fn fetch_images(
    fetcher: &trawl_crawler::ResourceFetcher,
    urls: &[String],
    progress: Option<std::sync::Arc<dyn Fn(u64) + Send + Sync>>,
) -> Vec<trawl_captions::FetchOutcome> {
    let outcomes = fetcher.fetch_all(urls, progress).await;
    outcomes
        .into_iter()
        .map(|o| {
            o.map(|r| trawl_captions::FetchedImage {
                content_type: r.header("content-type").map(String::from),
                x_robots_tag: r.header("x-robots-tag").map(String::from),
                training_allowed: r.training_allowed,
                signals: r.signals,
                body: r.body,
            })
        })
        .collect()
}

/// Parses documents from JSONL or Parquet bytes; malformed lines are logged and skipped (for trawl's
/// own committed outputs; input files go through [`read_input`], which keeps them).
pub fn read_docs_bytes(key: &str, bytes: &[u8]) -> Result<Vec<Document>> {
    let input = read_input(key, bytes, jsonl::DEFAULT_MAX_LINE_BYTES)?;
    for e in input.bad.iter().take(5) {
        tracing::warn!(error = %e.error, "skipping malformed document line");
    }
    if input.bad.len() > 5 {
        tracing::warn!(
            file = key,
            count = input.bad.len(),
            "malformed document lines skipped"
        );
    }
    Ok(input.docs)
}

/// The records of one input object: the documents, and the lines that could not be read.
#[derive(Debug, Default)]
pub struct Input {
    pub docs: Vec<Document>,
    pub bad: Vec<Unreadable>,
}

impl From<Vec<Document>> for Input {
    fn from(docs: Vec<Document>) -> Input {
        Input {
            docs,
            bad: Vec::new(),
        }
    }
}

/// Reads documents from JSONL or Parquet bytes (by the key's name), keeping every line or
/// row that could not be read (with its file, line and offset) for the stage to count and
/// write to `excluded/`.
pub fn read_input(key: &str, bytes: &[u8], max_line: usize) -> Result<Input> {
    let mut input = Input::default();
    for r in trawl_storage::docs::read(key, bytes, max_line)? {
        match r {
            Ok(d) => input.docs.push(d),
            Err(e) => input.bad.push(Unreadable::from(&e)),
        }
    }
    Ok(input)
}

/// Extraction in the page -> document slot, with its own counters: page types, LLM use,
/// and the token count of each document when token shards are on.
struct ExtractPages<'a> {
    extractor: &'a Extractor,
    tokenizer: Option<&'a Tokenizer>,
}

impl PageStage for ExtractPages<'_> {
    fn process(
        &mut self,
        page: &FetchedPage,
        st: &mut StageStats,
    ) -> Result<Document, trawl_core::DropReason> {
        let mut d = self.extractor.extract(page)?;
        // LLM-assisted pages, and those where the rule-based result stood instead
        if d.attrs.get("extractor").and_then(|v| v.as_str()) == Some("llm") {
            st.count("llm_extracted", 1);
        }
        if d.attrs.contains_key("llm_fallback") {
            st.count("llm_fallback", 1);
        }
        if let Some(t) = &d.meta.page_type {
            st.count(&format!("page_type_{t}"), 1);
        }
        // pages whose text was encoded twice and read back
        if d.attrs.contains_key("mojibake_repaired") {
            st.count("mojibake_repaired", 1);
        }
        if let Some(tok) = self.tokenizer {
            let n = tok.encode(&d.text).len() as u64;
            d.attrs.insert("tokens".into(), n.into());
            st.count("tokens_out", n);
        }
        Ok(d)
    }
}
