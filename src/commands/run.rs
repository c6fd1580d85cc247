//! `trawl run`: every enabled stage in one process. The crawler (async) sends committed
//! parts over a bounded channel to a pool of CPU threads that runs extract -> filter ->
//! dedup -> captions -> shards per part (`flow`); the manifest and the report are written
//! at the end.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use trawl_config::PipelineConfig;
use trawl_core::StageId;
use trawl_crawler::{CrawlPart, Crawler};
use trawl_storage::{warc, Storage};

use crate::cli::RunArgs;
use crate::pipeline::Pipeline;
use crate::{progress, UsageError};
use trawl_storage::RunRoot;

/// The embedded demo config (`config/examples/demo.toml`).
const DEMO_TOML: &str = include_str!("../../config/examples/demo.toml");

pub fn run(a: RunArgs, quiet: bool, rt: &tokio::runtime::Runtime) -> Result<()> {
    let demo = a.config.is_none();
    let mut cfg = match &a.config {
        Some(p) => PipelineConfig::load(p)?,
        None => PipelineConfig::parse(DEMO_TOML, "<embedded demo config>")?,
    };
    let config_text = cfg.to_toml();
    let digest = super::runinfo::digest(&config_text);
    let shard = super::stage::shard_of(a.shard)?;
    if shard.count > 1 {
        if demo {
            return Err(UsageError(format!("--shard {shard}: the embedded demo runs as one process; give the workers a --config")).into());
        }
        if a.output.is_none() && a.run_id.is_none() {
            return Err(UsageError(format!("--shard {shard}: give every worker the same --output (or --run-id), so they share one run root")).into());
        }
        if a.force {
            return Err(UsageError(format!("--shard {shard} --force: one worker cannot safely clear a run that other workers share; use a new run root")).into());
        }
        // the stages that need every worker's documents run afterwards as batch phases
        let batch: Vec<&str> = [
            (StageId::Dedup, "dedup"),
            (StageId::Captions, "captions"),
            (StageId::Shards, "shards"),
        ]
        .into_iter()
        .filter(|(s, _)| cfg.enabled(*s))
        .map(|(_, n)| n)
        .collect();
        if !batch.is_empty() || cfg.report.enabled {
            tracing::info!(worker = %shard, batch = ?batch, "a crawl by several workers: this worker runs crawl, extract and filter; run the batch phases (and trawl report) over the run root once every worker is done");
        }
        cfg.dedup.enabled = false;
        cfg.captions.enabled = false;
        cfg.shards.enabled = false;
        cfg.report.enabled = false;
    }
    // the run root: --output as given; the demo's ./trawl-out; else <storage.root>/<run id>
    let run_id = match (&a.output, demo) {
        (Some(_), _) | (None, true) => a
            .run_id
            .clone()
            .unwrap_or_else(|| super::runinfo::default_run_id(&digest)),
        (None, false) => {
            let base = Storage::open(&cfg.storage.root, &cfg.storage)?;
            let id = match &a.run_id {
                Some(id) => id.clone(),
                None => match rt.block_on(super::runinfo::latest_incomplete(&base, &digest))? {
                    Some(id) => {
                        tracing::info!(run = %id, "continuing the unfinished run made with this config");
                        id
                    }
                    None => super::runinfo::default_run_id(&digest),
                },
            };
            cfg.storage.root = base.url_of(&id);
            id
        }
    };
    if let Some(o) = &a.output {
        cfg.storage.root = o.clone();
    }
    if a.dry_run {
        println!("run {run_id} -> {}", cfg.storage.root);
        if shard.count > 1 {
            println!("worker {shard}: the registered domains it owns; dedup, captions, shards and the report run afterwards as batch phases");
        }
        let mut stages: Vec<&str> = StageId::PIPELINE
            .into_iter()
            .filter(|s| cfg.enabled(*s))
            .map(StageId::name)
            .collect();
        if cfg.report.enabled {
            stages.push("report");
        }
        println!("stages: {}", stages.join(" -> "));
        if demo {
            println!(
                "seeds: the embedded demo web on 127.0.0.2-8:{}",
                a.demo_port
            );
        } else if cfg.crawl.enabled {
            println!(
                "seeds ({}): {}",
                cfg.crawl.seeds.len(),
                cfg.crawl.seeds.join(" ")
            );
        } else {
            println!(
                "inputs: the WARC files under {}/crawl/warc/",
                cfg.storage.root
            );
        }
        // a dry run creates nothing: a local root that does not exist has nothing done yet
        let local = !cfg.storage.root.starts_with("s3://");
        if !local || std::path::Path::new(cfg.storage.root.trim_start_matches("file://")).exists() {
            let root = Storage::open(&cfg.storage.root, &cfg.storage)?;
            for stage in StageId::PIPELINE {
                let done = rt.block_on(root.list(&format!("_done/{stage}")))?.len();
                if done > 0 {
                    println!("already done: {stage}: {done} shards");
                }
            }
        }
        return Ok(());
    }
    let _web = if demo {
        let web = rt
            .block_on(trawl_testweb::TestWeb::start_on(
                trawl_testweb::demo::sites(),
                a.demo_port,
                Duration::from_millis(a.demo_delay_ms),
            ))
            .map_err(|e| UsageError(format!("{e} (choose another port with --demo-port)")))?;
        cfg.crawl.seeds = trawl_testweb::demo::seeds(&web);
        tracing::info!(seeds = ?cfg.crawl.seeds, "demo: serving the bundled test web on loopback");
        Some(web)
    } else {
        None
    };
    if cfg.crawl.enabled && cfg.crawl.seeds.is_empty() && cfg.crawl.seeds_file.is_none() {
        return Err(UsageError(format!("{}: `crawl.seeds`: no seed URLs (add seeds, or set crawl.enabled = false to process existing WARC under crawl/warc/)", a.config.as_ref().map(|p| p.display().to_string()).unwrap_or_default())).into());
    }
    let root = Storage::open(&cfg.storage.root, &cfg.storage)?;
    rt.block_on(root.check())
        .with_context(|| format!("cannot use run root {}", root.url()))?;
    tracing::info!(root = root.url(), run = %run_id, "run started");
    if shard.count > 1 {
        // run.json describes one process's run; the workers' progress is in their markers
        return run_stages(&a, &cfg, &root, shard, quiet, rt);
    }
    let info = rt.block_on(super::runinfo::start(&root, &run_id, &config_text))?;
    let heartbeat = super::runinfo::Heartbeat::start(rt, root.clone(), info.clone());
    let result = run_stages(&a, &cfg, &root, shard, quiet, rt);
    heartbeat.stop(rt);
    rt.block_on(super::runinfo::finish(
        &root,
        info,
        result.as_ref().err().map(|e| format!("{e:#}")),
    ))?;
    result
}

fn run_stages(
    a: &RunArgs,
    cfg: &PipelineConfig,
    root: &Storage,
    shard: trawl_storage::ShardSpec,
    quiet: bool,
    rt: &tokio::runtime::Runtime,
) -> Result<()> {
    let cfg = cfg.clone();
    let root = root.clone();
    if a.force {
        for stage in StageId::PIPELINE {
            rt.block_on(trawl_storage::markers::clear(&root, stage.name()))?;
        }
        if cfg.crawl.enabled {
            rt.block_on(super::stage::clear_crawl_state(&root))?;
        } else {
            rt.block_on(root.delete("crawl/state.json"))?;
        }
    }
    // every stage's lists and models load before the first request: a broken config stops
    // here (exit 2), not after a night of crawling
    let enabled: Vec<StageId> = StageId::PIPELINE
        .into_iter()
        .filter(|s| cfg.enabled(*s))
        .collect();
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    let pipeline = Pipeline::new(cfg.clone(), store.clone(), a.force, &enabled)?;

    let show = progress::enabled(quiet);
    let crawl_bar = progress::bar(show, None, "crawl");
    crawl_bar.set_message("pages fetched");
    let (tx, rx) = tokio::sync::mpsc::channel::<CrawlPart>(crate::parallel::threads().max(2));
    let crawl_task = if cfg.crawl.enabled {
        let crawler = Crawler::new(cfg.crawl.clone())?
            .with_renderer(cfg.render.clone(), rt.handle().clone())?
            .with_worker(shard);
        let root2 = root.clone();
        let pb = crawl_bar.clone();
        let progress: Arc<dyn Fn(u64) + Send + Sync> = Arc::new(move |n| pb.set_position(n));
        rt.spawn(async move {
            crawler
                .run(&root2, tx, Some(progress))
                .await
                .map(|s| s.parts)
                .map_err(anyhow::Error::from)
        })
    } else {
        let root2 = root.clone();
        let max_record = cfg.storage.max_record_bytes;
        rt.spawn(async move {
            let keys: Vec<String> = root2
                .list("crawl/warc")
                .await?
                .into_iter()
                .filter(|k| warc::is_warc(k))
                .collect();
            // worker i of n takes WARC files i, i + n, ... of the sorted listing
            let mut taken = 0;
            for (i, key) in keys.iter().enumerate().filter(|(i, _)| shard.owns(*i)) {
                taken += 1;
                let data = root2.get(key).await?;
                let (pages, damage) = warc::read_pages_resync(key, &data, max_record);
                let part = CrawlPart {
                    index: i,
                    warc: key.clone(),
                    pages,
                    stats: Default::default(),
                    replayed: true,
                    damage,
                };
                if tx.send(part).await.is_err() {
                    break;
                }
            }
            Ok(taken)
        })
    };

    let parts_bar = progress::bar(show, None, "process");
    parts_bar.set_message("parts through extract..shards");
    let pb = parts_bar.clone();
    // Parts go through the stages on a work queue (see `flow`): extract and filter on any
    // thread, dedup and captions on one in arrival order, tokenization on any thread. The
    // bytes written do not depend on the number of threads or on timing.
    let threads = crate::parallel::threads();
    let cfg_w = cfg.clone();
    let force = a.force;
    let worker = std::thread::Builder::new()
        .name("trawl-stages".into())
        .spawn(move || -> Result<usize> {
            let mut pool: Vec<Pipeline> = Vec::with_capacity(threads);
            for _ in 0..threads {
                pool.push(Pipeline::new(
                    cfg_w.clone(),
                    pipeline.store.clone(),
                    force,
                    &[],
                )?);
            }
            let t0 = std::time::Instant::now();
            let on_part = |p: &super::flow::Progress| {
                pb.set_position(p.parts as u64);
                let secs = t0.elapsed().as_secs_f64().max(1e-3);
                pb.set_message(format!(
                    "parts; {} pages, {:.0} pages/s, {:.1} MB/s through the stages",
                    p.pages,
                    p.pages as f64 / secs,
                    p.bytes as f64 / secs / 1e6
                ));
            };
            super::flow::process_parts(rx, pipeline, pool, &on_part)
        })?;
    let processed = worker
        .join()
        .map_err(|_| anyhow::anyhow!("internal error: the stage thread panicked"))?;
    let crawled = rt.block_on(crawl_task).context("crawl task")?;
    crawl_bar.finish_and_clear();
    parts_bar.finish_and_clear();
    let processed = processed?;
    let parts = crawled?;
    if processed != parts {
        anyhow::bail!("internal error: {parts} crawl parts but {processed} processed");
    }

    let p = Pipeline::new(cfg.clone(), store, false, &[])?;
    let packed = if cfg.shards.enabled {
        p.pack(parts)?
    } else {
        None
    };
    let report = if cfg.report.enabled {
        Some(rt.block_on(trawl_report::write(
            &root,
            None,
            &cfg.report,
            &super::thresholds(&cfg),
        ))?)
    } else {
        None
    };
    let (fstats, _) = rt.block_on(trawl_storage::markers::merged_stats(&root, "crawl"))?;
    let fetched = fstats.stage("crawl").map(|s| s.kept).unwrap_or(0);
    println!(
        "trawl: run complete: {} pages fetched, {} parts",
        fetched, parts
    );
    if let Some(r) = &packed {
        if cfg.shards.mix.enabled {
            print!("{}", r.table());
        }
        println!(
            "  shards:   {} ({} documents, {} tokens, {} shards, tokenizer {})",
            root.url_of("shards/tokens/"),
            r.documents,
            r.tokens,
            r.shards,
            cfg.shards.tokenizer
        );
        println!("  manifest: {}", root.url_of("shards/manifest.json"));
    }
    if let Some(r) = report {
        println!("  report:   {r}");
    }
    // everything is committed and reported; a stage with too many record errors fails the run
    for stage in StageId::PIPELINE {
        if stage != StageId::Crawl && cfg.enabled(stage) {
            super::stage::check_error_share(&cfg, &root, stage, rt)?;
        }
    }
    Ok(())
}
