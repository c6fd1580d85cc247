//! The stage subcommands: one stage over files, so a stage can be rerun alone after a
//! config change. Output shard `k` is named after input `k` of the full sorted listing,
//! so names do not depend on the number of workers.

use std::io::Read;

use anyhow::{Context, Result};
use trawl_config::PipelineConfig;
use trawl_core::{FetchedPage, StageId};
use trawl_crawler::Crawler;
use trawl_storage::{shard_name, warc, InputSet, ShardSpec, Storage};

use super::load_config;
use crate::cli::{ExtractArgs, ExtractFormat, ReportArgs, SampleArgs, StageArgs};
use crate::pipeline::{read_input, Pipeline};
use crate::{progress, UsageError};
use trawl_core::Unreadable;
use trawl_storage::RunRoot;

/// HTML files per extract shard when the input is a folder of pages.
const HTML_PER_SHARD: usize = 1000;

/// `--shard`, else the shard from Slurm or Kubernetes variables, else the whole input.
pub fn shard_of(flag: Option<ShardSpec>) -> Result<ShardSpec> {
    match flag {
        Some(s) => Ok(s),
        None => Ok(ShardSpec::from_env()
            .map_err(UsageError)?
            .unwrap_or_default()),
    }
}

fn open_root(
    cfg: &mut PipelineConfig,
    output: Option<&String>,
    rt: &tokio::runtime::Runtime,
) -> Result<Storage> {
    if let Some(o) = output {
        cfg.storage.root = o.clone();
    }
    let root = Storage::open(&cfg.storage.root, &cfg.storage)?;
    rt.block_on(root.check())
        .with_context(|| format!("cannot use run root {}", root.url()))?;
    Ok(root)
}

/// Opens a run root that a read-only command (`report`, `sample`, `status`) inspects: it must
/// already hold a trawl run (`run.json` or a stage's completion markers). Nothing is created,
/// so a mistyped path is an error naming it, not an empty report in a new folder.
pub fn open_existing(
    url: &str,
    cfg: &PipelineConfig,
    rt: &tokio::runtime::Runtime,
) -> Result<Storage> {
    if !url.starts_with("s3://") {
        let path = std::path::Path::new(url.strip_prefix("file://").unwrap_or(url));
        if !path.is_dir() {
            return Err(UsageError(format!(
                "{}: no such folder (a run root is the --output of `trawl run` or a stage)",
                path.display()
            ))
            .into());
        }
    }
    let root = Storage::open(url, &cfg.storage)?;
    let found = rt.block_on(async {
        if root.exists("run.json").await? {
            return Ok::<bool, trawl_storage::StorageError>(true);
        }
        Ok(!root.list("_done/").await?.is_empty())
    });
    match found {
        Ok(true) => Ok(root),
        Ok(false) => Err(UsageError(format!(
            "{}: no trawl run there (no run.json and no committed stage shards); check the path",
            root.url()
        ))
        .into()),
        Err(e) => {
            Err(anyhow::Error::new(e).context(format!("cannot read run root {}", root.url())))
        }
    }
}

/// Fails the command when the stage's committed shards hold more record errors than
/// `run.max_error_share` of the records they saw (after everything is committed, so a rerun
/// with a fixed input or build redoes nothing that was fine).
pub fn check_error_share(
    cfg: &PipelineConfig,
    root: &Storage,
    stage: StageId,
    rt: &tokio::runtime::Runtime,
) -> Result<()> {
    let (stats, _) = rt.block_on(trawl_storage::markers::merged_stats(root, stage.name()))?;
    let Some(first) = stats.order.first() else {
        return Ok(());
    };
    let seen = stats.stages[first].seen;
    let errors: u64 = stats
        .stages
        .values()
        .map(|s| s.dropped.get("record_error").copied().unwrap_or(0))
        .sum();
    let bound = cfg.run.max_error_share;
    if seen > 0 && errors as f64 > bound * seen as f64 {
        let kinds: std::collections::BTreeMap<&String, u64> = stats
            .stages
            .values()
            .flat_map(|s| s.errors.iter())
            .fold(Default::default(), |mut m, (k, v)| {
                *m.entry(k).or_default() += v;
                m
            });
        return Err(anyhow::anyhow!(
            "{stage}: {errors} of {seen} records ({:.1}%) are record errors ({}), above run.max_error_share = {bound}; the shards are committed, the records are in {} (trawl sample {} --stage {stage} --reason record_error)",
            100.0 * errors as f64 / seen as f64,
            kinds.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "),
            root.url_of(&format!("excluded/{stage}/")),
            root.url()
        ));
    }
    Ok(())
}

/// Run-root folders that never hold a stage's input documents.
const NOT_INPUT: &[&str] = &["excluded", "_done"];

/// Refuses inputs that would read trawl's own bookkeeping as documents or overwrite what
/// is being read: a run root given as `--input` (its `excluded/` records, caption indexes
/// and every stage's output would be read as documents), or the stage's own output folder.
fn refuse_overlap(stage: &str, input: &str, set: &InputSet, root: &Storage) -> Result<()> {
    let canon = |u: &str| -> String {
        let p = u.strip_prefix("file://").unwrap_or(u).trim_end_matches('/');
        std::fs::canonicalize(p)
            .map_or_else(|_| p.to_string(), |c| c.to_string_lossy().into_owned())
    };
    let own = canon(&root.url_of(stage));
    if canon(set.storage.url()) == own || canon(input) == own {
        return Err(UsageError(format!(
            "--input {input} is this stage's own output folder: trawl {stage} would overwrite what it reads; pass the previous stage's folder or another --output"
        ))
        .into());
    }
    let layout = set.objects.iter().find(|(_, k)| {
        k.split('/')
            .next()
            .is_some_and(|first| NOT_INPUT.contains(&first))
    });
    if let Some((_, k)) = layout {
        return Err(UsageError(format!(
            "--input {input} holds a trawl run root (it has {k}): pass the stage folder to read, e.g. {}/extract or {}/filter",
            input.trim_end_matches('/'),
            input.trim_end_matches('/')
        ))
        .into());
    }
    Ok(())
}

/// The shards of a listing of JSONL inputs, one input file each: (index, [its URL]).
pub fn plan_of(set: &InputSet) -> Vec<(usize, Vec<String>)> {
    set.objects
        .iter()
        .map(|(k, key)| (*k, vec![set.storage.url_of(key)]))
        .collect()
}

/// The `--dry-run` listing: each shard (its index in the full listing, its input URLs) by
/// name, done or to do under `stage`'s completion markers.
pub fn print_plan(
    cfg: &PipelineConfig,
    root: &Storage,
    stage: StageId,
    force: bool,
    shards: &[(usize, Vec<String>)],
    rt: &tokio::runtime::Runtime,
) -> Result<()> {
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    let runner = trawl_core::ShardRunner::new(&store, force);
    for (k, inputs) in shards {
        let name = shard_name(*k);
        let done = runner.is_done(&cfg.job(stage, &name, inputs.clone()))?;
        let state = if done { "done" } else { "to do" };
        println!("  {name}  {state:<6} {}", inputs.join(" "));
    }
    Ok(())
}

fn require_input(a: &StageArgs, stage: &str) -> Result<String> {
    a.input.clone().ok_or_else(|| {
        UsageError(format!(
            "trawl {stage} needs --input (a file, folder or s3:// prefix)"
        ))
        .into()
    })
}

/// Forgets a crawl, for `--force` by one process: its end records, its WARC parts and their
/// excluded records (a new crawl with fewer parts would otherwise leave old parts for the
/// stages after it to read) and, of a crawl by several workers, their link objects (so the
/// root can be crawled again by any number of workers).
pub async fn clear_crawl_state(root: &Storage) -> Result<()> {
    root.delete("crawl/state.json").await?;
    for prefix in [
        "crawl/state",
        "crawl/links",
        "crawl/warc",
        "excluded/crawl",
        "stats/crawl",
    ] {
        for k in root.list(prefix).await? {
            root.delete(&k).await?;
        }
    }
    Ok(())
}

pub fn crawl(a: StageArgs, quiet: bool, rt: &tokio::runtime::Runtime) -> Result<()> {
    let mut cfg = load_config(a.config.as_deref())?;
    let shard = shard_of(a.shard)?;
    if shard.count > 1 && a.force {
        return Err(UsageError(format!("--shard {shard} --force: one worker cannot safely clear a crawl that other workers share; start a fresh crawl by {} workers under a new run root (--output)", shard.count)).into());
    }
    if let Some(input) = &a.input {
        let text = if input.starts_with("s3://") {
            let (parent, name) = input.rsplit_once('/').unwrap_or((input, ""));
            let s = Storage::open(parent, &cfg.storage)?;
            String::from_utf8_lossy(&rt.block_on(s.get(name))?).into_owned()
        } else {
            std::fs::read_to_string(input.strip_prefix("file://").unwrap_or(input))
                .with_context(|| format!("reading seeds from {input}"))?
        };
        cfg.crawl.seeds.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(String::from),
        );
        cfg.validate().map_err(|(k, r)| trawl_config::ConfigError {
            file: input.clone(),
            key: k,
            reason: r,
        })?;
    }
    if cfg.crawl.seeds.is_empty() && cfg.crawl.seeds_file.is_none() {
        return Err(UsageError("no seed URLs: set crawl.seeds or crawl.seeds_file in the config, or pass --input SEEDS_FILE".into()).into());
    }
    if a.dry_run {
        if let Some(o) = &a.output {
            cfg.storage.root = o.clone();
        }
        let c = &cfg.crawl;
        println!(
            "trawl crawl (dry run): worker {shard}; {} seed URLs{}; up to {} pages, depth {}, {} per host; WARC parts under {}/crawl/warc/; rendering {:?}",
            c.seeds.len(),
            c.seeds_file.as_ref().map_or(String::new(), |f| format!(" (and those in {f})")),
            c.max_pages,
            c.max_depth,
            c.max_pages_per_host,
            cfg.storage.root.trim_end_matches('/'),
            cfg.render.mode,
        );
        for s in c.seeds.iter().take(20) {
            println!("  {s}");
        }
        println!("  no request was sent and nothing was written");
        return Ok(());
    }
    if a.wait > 0 {
        // a crawl by several workers: how long to wait for the others each round
        cfg.crawl.worker_timeout_secs = a.wait;
    }
    let root = open_root(&mut cfg, a.output.as_ref(), rt)?;
    if a.force {
        rt.block_on(trawl_storage::markers::clear(&root, "crawl"))?;
        rt.block_on(clear_crawl_state(&root))?;
    }
    let crawler = Crawler::new(cfg.crawl.clone())?
        .with_renderer(cfg.render.clone(), rt.handle().clone())?
        .with_worker(shard);
    let bar = progress::bar(progress::enabled(quiet), None, "crawl");
    bar.set_message("pages fetched");
    let pb = bar.clone();
    let progress: std::sync::Arc<dyn Fn(u64) + Send + Sync> =
        std::sync::Arc::new(move |n| pb.set_position(n));
    let (tx, mut rx) = tokio::sync::mpsc::channel(2);
    let root2 = root.clone();
    let task = rt.spawn(async move { crawler.run(&root2, tx, Some(progress)).await });
    let mut pages = 0;
    while let Some(p) = rx.blocking_recv() {
        pages += p.pages.len();
    }
    let state = rt.block_on(task)??;
    bar.finish_and_clear();
    let who = if shard.count > 1 {
        format!(" (worker {shard})")
    } else {
        String::new()
    };
    println!(
        "trawl crawl{who}: {pages} pages in {} parts under {}",
        state.parts,
        root.url_of("crawl/warc/")
    );
    Ok(())
}

fn is_html(k: &str) -> bool {
    [".html", ".htm", ".html.gz", ".htm.gz", ".xhtml"]
        .iter()
        .any(|e| k.to_ascii_lowercase().ends_with(e))
}

fn html_page(url: String, key: &str, bytes: &[u8]) -> Result<FetchedPage> {
    let body = if key.ends_with(".gz") {
        let mut out = Vec::new();
        // bounded: a gzip bomb stops at 64 MiB and the page is then dropped as too large
        flate2::read::GzDecoder::new(bytes)
            .take(64 * 1024 * 1024)
            .read_to_end(&mut out)
            .with_context(|| format!("decompressing {key}"))?;
        out
    } else {
        bytes.to_vec()
    };
    Ok(FetchedPage {
        url: url.clone(),
        final_url: url,
        status: 200,
        body,
        ..Default::default()
    })
}

/// The pages of one input (a WARC file, read past damage, or an HTML file), and what of it
/// could not be read.
fn pages_of(
    storage: &Storage,
    key: &str,
    max_record: usize,
    rt: &tokio::runtime::Runtime,
) -> Result<(Vec<FetchedPage>, Vec<Unreadable>)> {
    let data = rt.block_on(storage.get(key))?;
    if warc::is_warc(key) {
        let (pages, damage) = warc::read_pages_resync(key, &data, max_record);
        let bad = damage.iter().map(|d| d.unreadable(key)).collect();
        Ok((pages, bad))
    } else {
        let url = if storage.is_local() {
            format!("file://{}", storage.url_of(key))
        } else {
            storage.url_of(key)
        };
        Ok((vec![html_page(url, key, &data)?], Vec::new()))
    }
}

/// Logs what of an input could not be read (the modes that write no stats).
fn warn_unreadable(bad: &[Unreadable]) {
    for b in bad {
        tracing::warn!(error = %b.error, "unreadable input skipped");
    }
}

/// One page through the extractor, a panic contained to the page (reported as its reason).
fn extract_contained(
    ex: &trawl_extract::Extractor,
    p: &FetchedPage,
) -> std::result::Result<trawl_core::Document, String> {
    match trawl_core::RecordError::catch(|| ex.extract(p)) {
        Ok(r) => r.map_err(|reason| reason.to_string()),
        Err(e) => Err(format!("record_error ({e})")),
    }
}

/// `trawl extract --format txt`: one text file per page, and the extraction speed.
fn extract_txt(
    cfg: &PipelineConfig,
    all: &InputSet,
    output: Option<&str>,
    quiet: bool,
    rt: &tokio::runtime::Runtime,
) -> Result<()> {
    let out = output.ok_or_else(|| {
        UsageError("--format txt needs --output (a folder or prefix for the .txt files)".into())
    })?;
    let out = Storage::open(out, &cfg.storage)?;
    let mut ex_cfg = cfg.extract.clone();
    ex_cfg.min_text_chars = 0;
    let ex = trawl_extract::Extractor::new(ex_cfg);
    let bar = progress::bar(
        progress::enabled(quiet),
        Some(all.objects.len() as u64),
        "extract",
    );
    let (mut pages, mut bytes, mut busy) = (0u64, 0u64, std::time::Duration::ZERO);
    for (_, key) in &all.objects {
        let (ps, bad) = pages_of(&all.storage, key, cfg.storage.max_record_bytes, rt)?;
        warn_unreadable(&bad);
        let many = ps.len() > 1 || warc::is_warc(key);
        for (i, p) in ps.iter().enumerate() {
            let t = std::time::Instant::now();
            let text = match extract_contained(&ex, p) {
                Ok(d) => d.text,
                Err(r) => {
                    tracing::info!(url = %p.url, reason = %r, "no main text");
                    String::new()
                }
            };
            busy += t.elapsed();
            pages += 1;
            bytes += p.body.len() as u64;
            let stem = key
                .trim_end_matches(".gz")
                .rsplit_once('.')
                .map_or(key.as_str(), |(s, _)| s)
                .to_string();
            let name = if many {
                format!("{key}.{i}.txt")
            } else {
                format!("{stem}.txt")
            };
            rt.block_on(out.put(&name, text.into_bytes().into()))?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let secs = busy.as_secs_f64().max(1e-9);
    // the command's result, on stdout (stderr is the log's: `--quiet` leaves warnings only)
    println!("trawl extract: {pages} pages ({:.1} MB) in {secs:.3} s of extraction: {:.0} pages/s, {:.1} MB/s", bytes as f64 / 1e6, pages as f64 / secs, bytes as f64 / 1e6 / secs);
    Ok(())
}

pub fn extract(a: ExtractArgs, quiet: bool, rt: &tokio::runtime::Runtime) -> Result<()> {
    let mut cfg = load_config(a.stage.config.as_deref())?;
    let input = require_input(&a.stage, "extract")?;
    let accept = |k: &str| warc::is_warc(k) || is_html(k);
    let all = rt.block_on(InputSet::open(
        &input,
        &cfg.storage,
        ShardSpec::default(),
        accept,
    ))?;
    if all.objects.is_empty() {
        return Err(UsageError(format!("no WARC or HTML files under {input}")).into());
    }
    if a.format == ExtractFormat::Text {
        let mut ex_cfg = cfg.extract.clone();
        ex_cfg.min_text_chars = 0;
        let ex = trawl_extract::Extractor::new(ex_cfg);
        for (_, key) in &all.objects {
            let (ps, bad) = pages_of(&all.storage, key, cfg.storage.max_record_bytes, rt)?;
            warn_unreadable(&bad);
            for p in ps {
                match extract_contained(&ex, &p) {
                    Ok(d) => println!("{}", trawl_core::text::escape_controls(&d.text)),
                    Err(r) => eprintln!(
                        "{}: dropped: {r}",
                        trawl_core::text::escape_controls(&p.url)
                    ),
                }
            }
        }
        return Ok(());
    }
    if a.format == ExtractFormat::Txt {
        return extract_txt(&cfg, &all, a.stage.output.as_deref(), quiet, rt);
    }
    let shard = shard_of(a.stage.shard)?;
    let root = open_root(&mut cfg, a.stage.output.as_ref(), rt)?;
    // WARC files are one shard each; loose HTML files are grouped HTML_PER_SHARD at a time.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut html_group: Vec<String> = Vec::new();
    for (_, key) in &all.objects {
        if warc::is_warc(key) {
            groups.push((key.clone(), vec![key.clone()]));
        } else {
            html_group.push(key.clone());
        }
    }
    for chunk in html_group.chunks(HTML_PER_SHARD) {
        groups.push((chunk[0].clone(), chunk.to_vec()));
    }
    groups.sort();
    let total_groups = groups.len();
    let mine: Vec<(usize, Vec<String>)> = groups
        .into_iter()
        .enumerate()
        .filter(|(k, _)| shard.owns(*k))
        .map(|(k, (_, keys))| (k, keys))
        .collect();
    if a.stage.dry_run {
        println!(
            "trawl extract (dry run): {} WARC/HTML inputs in {} shards; this worker ({shard}) takes {}; output under {}",
            all.objects.len(),
            total_groups,
            mine.len(),
            root.url_of("extract/")
        );
        let plan: Vec<(usize, Vec<String>)> = mine
            .iter()
            .map(|(k, keys)| (*k, keys.iter().map(|key| all.storage.url_of(key)).collect()))
            .collect();
        print_plan(&cfg, &root, StageId::Extract, a.stage.force, &plan, rt)?;
        println!("  nothing was written");
        return Ok(());
    }
    let bar = progress::bar(progress::enabled(quiet), Some(mine.len() as u64), "extract");
    let force = a.stage.force;
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    // each shard (a WARC file, or a group of HTML files) on its own: any number of threads
    // writes the same bytes
    let outcomes = crate::parallel::map_ordered(
        crate::parallel::threads(),
        &mine,
        || Pipeline::new(cfg.clone(), store.clone(), force, &[StageId::Extract]),
        |p, (k, keys)| -> Result<bool> {
            let name = shard_name(*k);
            let inputs: Vec<String> = keys.iter().map(|key| all.storage.url_of(key)).collect();
            if p.done(StageId::Extract, &name, &inputs)? {
                bar.inc(1);
                return Ok(false);
            }
            let (mut pages, mut bad) = (Vec::new(), Vec::new());
            for key in keys {
                match pages_of(&all.storage, key, p.cfg.storage.max_record_bytes, rt) {
                    Ok((ps, b)) => {
                        pages.extend(ps);
                        bad.extend(b);
                    }
                    Err(e) => {
                        tracing::warn!(input = %all.storage.url_of(key), error = %format!("{e:#}"), "unreadable input skipped")
                    }
                }
            }
            p.extract(&name, &pages, &bad, inputs)?;
            bar.inc(1);
            Ok(true)
        },
    )?;
    bar.finish_and_clear();
    let done = outcomes.iter().filter(|d| **d).count();
    let skipped = outcomes.len() - done;
    println!(
        "trawl extract: {done} shards written, {skipped} already done, under {}",
        root.url_of("extract/")
    );
    check_error_share(&cfg, &root, StageId::Extract, rt)
}

pub fn docs_stage(
    stage: StageId,
    a: StageArgs,
    quiet: bool,
    rt: &tokio::runtime::Runtime,
    flags: impl FnOnce(&mut PipelineConfig),
) -> Result<()> {
    let mut cfg = load_config(a.config.as_deref())?;
    flags(&mut cfg);
    let input = require_input(&a, stage.name())?;
    let shard = shard_of(a.shard)?;
    if stage == StageId::Dedup && shard.count > 1 {
        return Err(UsageError(format!("--shard {shard}: exact dedup needs every document in order, so it runs as one worker in this version")).into());
    }
    let set = rt.block_on(InputSet::open(
        &input,
        &cfg.storage,
        shard,
        trawl_storage::docs::is_documents,
    ))?;
    if set.total == 0 {
        return Err(UsageError(format!(
            "no document files (.jsonl, .jsonl.gz, .jsonl.zst, .parquet) under {input}"
        ))
        .into());
    }
    let root = open_root(&mut cfg, a.output.as_ref(), rt)?;
    refuse_overlap(stage.name(), &input, &set, &root)?;
    if a.dry_run {
        // before the stage is built: building opens the dedup index and loads models
        println!(
            "trawl {stage} (dry run): {} inputs under {input}; this worker ({shard}) takes {}; output under {}",
            set.total,
            set.objects.len(),
            root.url_of(&format!("{stage}/"))
        );
        print_plan(&cfg, &root, stage, a.force, &plan_of(&set), rt)?;
        println!("  nothing was written");
        return Ok(());
    }
    let bar = progress::bar(
        progress::enabled(quiet),
        Some(set.objects.len() as u64),
        stage.name(),
    );
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    let force = a.force;
    // filter and tokenization work shard by shard, so shards run on every thread; dedup and
    // captions carry state from one shard to the next (documents and images seen) and run
    // in input order on one thread
    let threads = match stage {
        StageId::Filter | StageId::Shards => crate::parallel::threads(),
        _ => 1,
    };
    // dedup sees the whole run before deciding on its first shard (a copy in an early input
    // joins its cluster through an original in a later one)
    let ahead = if stage == StageId::Dedup {
        let mut p = Pipeline::new(cfg.clone(), store.clone(), force, &[stage])?;
        // a finished run reads no input again (stops at the first shard not done)
        let mut pending = false;
        for (k, key) in &set.objects {
            if !p.done(stage, &shard_name(*k), &[set.storage.url_of(key)])? {
                pending = true;
                break;
            }
        }
        let look = progress::bar(
            progress::enabled(quiet),
            Some(set.objects.len() as u64),
            "dedup look-ahead",
        );
        if pending {
            p.dedup_look_ahead(&set.objects, &set.storage, &look)?;
        }
        look.finish_and_clear();
        Some(p)
    } else {
        None
    };
    let ahead = std::sync::Mutex::new(ahead);
    let outcomes = crate::parallel::map_ordered(
        threads,
        &set.objects,
        || match ahead.lock().expect("not poisoned").take() {
            Some(p) => Ok(p),
            None => Pipeline::new(cfg.clone(), store.clone(), force, &[stage]),
        },
        |p, (k, key)| -> Result<bool> {
            let name = shard_name(*k);
            let inputs = vec![set.storage.url_of(key)];
            if p.done(stage, &name, &inputs)? {
                match stage {
                    StageId::Dedup => drop(p.seed_dedup(&name)?),
                    StageId::Captions => p.seed_captions(&name)?,
                    _ => {}
                }
                bar.inc(1);
                return Ok(false);
            }
            let bytes = rt.block_on(set.storage.get(key))?;
            let input = read_input(key, &bytes, p.cfg.storage.max_record_bytes)?;
            match stage {
                StageId::Filter => drop(p.filter(&name, input, inputs)?),
                StageId::Dedup => drop(p.dedup(&name, input, inputs)?),
                StageId::Captions => p.captions(&name, &input.docs, &input.bad, inputs)?,
                StageId::Shards => drop(p.shards(&name, &input.docs, &input.bad, inputs)?),
                StageId::Crawl
                | StageId::Extract
                | StageId::DedupSignatures
                | StageId::DedupBuckets
                | StageId::DedupClusters => {
                    return Err(anyhow::anyhow!(
                        "internal error: {stage} is not a document stage"
                    ))
                }
            }
            bar.inc(1);
            Ok(true)
        },
    )?;
    let done = outcomes.iter().filter(|d| **d).count();
    let skipped = outcomes.len() - done;
    let p = Pipeline::new(cfg, store, force, &[])?;
    bar.finish_and_clear();
    if stage == StageId::Shards {
        match p.pack(set.total)? {
            Some(r) => {
                if p.cfg.shards.mix.enabled {
                    print!("{}", r.table());
                }
                println!("trawl shards: manifest with {} documents, {} tokens in {} shards ({} blocked by takedowns)", r.documents, r.tokens, r.shards, r.blocked);
            }
            None => println!("trawl shards: not all {} parts are tokenized yet; the last worker (or `trawl shards pack`) writes the final shards", set.total),
        }
    }
    println!(
        "trawl {stage}: {done} shards written, {skipped} already done, under {}",
        p.root().url_of(&format!("{stage}/"))
    );
    check_error_share(&p.cfg, p.root(), stage, rt)
}

pub fn report(a: ReportArgs, rt: &tokio::runtime::Runtime) -> Result<()> {
    let mut cfg = load_config(a.config.as_deref())?;
    let out = a.root.or(a.output);
    if let Some(o) = &out {
        cfg.storage.root = o.clone();
    }
    let root = open_existing(&cfg.storage.root, &cfg, rt)?;
    rt.block_on(root.check())
        .with_context(|| format!("cannot write the report under {}", root.url()))?;
    let other = match &a.compare {
        Some(o) => Some(open_existing(o, &cfg, rt)?),
        None => None,
    };
    let url = rt.block_on(trawl_report::write(
        &root,
        other.as_ref(),
        &cfg.report,
        &super::thresholds(&cfg),
    ))?;
    println!("trawl report: {url}");
    Ok(())
}

pub fn sample(a: SampleArgs, rt: &tokio::runtime::Runtime) -> Result<()> {
    let cfg = load_config(a.config.as_deref())?;
    let root = open_existing(&a.root, &cfg, rt)?;
    let picked = rt.block_on(trawl_report::sample_records(
        &root, &a.stage, &a.reason, a.n, a.seed, a.chars,
    ))?;
    if picked.is_empty() {
        let (stats, _) = rt.block_on(trawl_storage::markers::merged_stats(&root, &a.stage))?;
        let reasons: std::collections::BTreeSet<String> = stats
            .stages
            .values()
            .flat_map(|s| s.dropped.keys().cloned())
            .collect();
        return Err(UsageError(format!(
            "no `{}` records in stage `{}` (its drop reasons: {})",
            a.reason,
            a.stage,
            reasons.into_iter().collect::<Vec<_>>().join(", ")
        ))
        .into());
    }
    for (s, full) in picked {
        if a.jsonl {
            println!("{}", serde_json::to_string(&full)?);
        } else {
            // records may come from any tool's JSONL: nothing in them reaches the terminal raw
            use trawl_core::text::escape_controls as esc;
            println!(
                "── {} [{}] {} {}",
                esc(&s.url),
                if s.reason.is_empty() {
                    "kept"
                } else {
                    &s.reason
                },
                esc(&s.lang),
                esc(&s.id)
            );
            if !s.attrs.is_empty() {
                println!(
                    "   signals: {}",
                    esc(&s.attrs.split_whitespace().collect::<Vec<_>>().join(" "))
                );
            }
            for line in s.text.lines().filter(|l| !l.trim().is_empty()) {
                println!("   {}", esc(line));
            }
            println!();
        }
    }
    Ok(())
}
