//! `trawl dedup signatures | buckets | clusters | apply`: sharded batch near-dedup.

use anyhow::{Context, Result};
use serde_json::json;
use trawl_core::{Chain, RunStats, ShardRunner, Stage, StageId};
use trawl_dedup::batch;
use trawl_storage::docs;
use trawl_storage::{shard_name, InputSet, RunRoot, ShardSpec, Storage};

use super::load_config;
use crate::cli::{DedupPhase, StageArgs};
use crate::{progress, UsageError};

struct Ctx {
    cfg: trawl_config::PipelineConfig,
    root: Storage,
    store: RunRoot,
    shard: ShardSpec,
    force: bool,
    wait: u64,
}

fn ctx(a: &StageArgs, rt: &tokio::runtime::Runtime) -> Result<Ctx> {
    let mut cfg = load_config(a.config.as_deref())?;
    if let Some(o) = &a.output {
        cfg.storage.root = o.clone();
    }
    let root = Storage::open(&cfg.storage.root, &cfg.storage)?;
    rt.block_on(root.check())
        .with_context(|| format!("cannot use run root {}", root.url()))?;
    let shard = super::stage::shard_of(a.shard)?;
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    Ok(Ctx {
        cfg,
        root,
        store,
        shard,
        force: a.force,
        wait: a.wait,
    })
}

impl Ctx {
    fn runner(&self) -> ShardRunner<'_> {
        ShardRunner::new(&self.store, self.force)
    }

    fn done(&self, stage: StageId, name: &str, inputs: &[String]) -> Result<bool> {
        Ok(self
            .runner()
            .is_done(&self.cfg.job(stage, name, inputs.to_vec()))?)
    }

    /// Commits a batch phase's shard whose outputs the phase wrote itself.
    fn commit(
        &self,
        stage: StageId,
        name: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        stats: RunStats,
    ) -> Result<()> {
        self.runner()
            .make(&self.cfg.job(stage, name, inputs), |w| {
                *w.stats() = stats;
                for o in outputs {
                    w.written(o);
                }
                anyhow::Ok(())
            })
            .with_context(|| format!("committing {stage}/{name}"))
    }
}

/// `--dry-run` of a batch phase: what it would read and where it would write, from the
/// config and a listing of the input; nothing is written and no index is opened.
fn dry_run(phase: &str, a: &StageArgs, rt: &tokio::runtime::Runtime) -> Result<()> {
    let c = ctx(a, rt)?;
    let stage = match phase {
        "signatures" => StageId::DedupSignatures,
        "buckets" => StageId::DedupBuckets,
        "clusters" => StageId::DedupClusters,
        _ => StageId::Dedup,
    };
    println!(
        "trawl dedup {phase} (dry run): worker {} writes under {}",
        c.shard,
        c.root.url_of("dedup/batch/")
    );
    if let Some(input) = &a.input {
        let set = rt.block_on(InputSet::open(
            input,
            &c.cfg.storage,
            c.shard,
            docs::is_documents,
        ))?;
        println!(
            "  {} inputs under {input}; this worker takes {}",
            set.total,
            set.objects.len()
        );
        let plan = super::stage::plan_of(&set);
        super::stage::print_plan(&c.cfg, &c.root, stage, c.force, &plan, rt)?;
    }
    let committed = rt.block_on(c.root.list(&format!("_done/{stage}")))?.len();
    println!("  {committed} shards of this phase committed; nothing was written");
    Ok(())
}

fn total_inputs(c: &Ctx, rt: &tokio::runtime::Runtime) -> Result<usize> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(c.wait);
    let b = loop {
        if let Some(b) = rt.block_on(c.root.get_opt("dedup/batch/inputs.json"))? {
            break b;
        }
        if std::time::Instant::now() >= deadline {
            return Err(UsageError(format!(
                "{}: no dedup/batch/inputs.json; run `trawl dedup signatures` first",
                c.root.url()
            ))
            .into());
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    };
    let v: serde_json::Value = serde_json::from_slice(&b)?;
    Ok(v["total"].as_u64().unwrap_or(0) as usize)
}

/// The barrier: every shard of the previous phase must be committed (waiting up to
/// `--wait` seconds, polling its markers).
fn require(
    c: &Ctx,
    rt: &tokio::runtime::Runtime,
    stage: StageId,
    expected: usize,
    hint: &str,
) -> Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(c.wait);
    loop {
        let n = rt.block_on(c.root.list(&format!("_done/{stage}")))?.len();
        if n >= expected {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(UsageError(format!(
                "{n} of {expected} `{stage}` shards are done; {hint}"
            ))
            .into());
        }
        tracing::info!(
            stage = stage.name(),
            done = n,
            expected,
            "waiting for the previous phase"
        );
        std::thread::sleep(
            std::time::Duration::from_secs(2).min(deadline - std::time::Instant::now()),
        );
    }
}

pub fn phase(p: DedupPhase, quiet: bool, rt: &tokio::runtime::Runtime) -> Result<()> {
    let show = progress::enabled(quiet);
    let (name, args) = match &p {
        DedupPhase::Signatures(a) => ("signatures", a),
        DedupPhase::Buckets(a) => ("buckets", a),
        DedupPhase::Clusters(a) => ("clusters", a),
        DedupPhase::Apply(a) => ("apply", a),
    };
    if args.dry_run {
        return dry_run(name, args, rt);
    }
    match p {
        DedupPhase::Signatures(a) => {
            let c = ctx(&a, rt)?;
            let input = a
                .input
                .clone()
                .ok_or_else(|| UsageError("trawl dedup signatures needs --input".into()))?;
            let set = rt.block_on(InputSet::open(
                &input,
                &c.cfg.storage,
                c.shard,
                docs::is_documents,
            ))?;
            rt.block_on(c.root.put("dedup/batch/inputs.json", serde_json::to_vec(&json!({ "total": set.total, "bands": c.cfg.dedup.bands, "rows": c.cfg.dedup.rows }))?.into()))?;
            let bar = progress::bar(show, Some(set.objects.len() as u64), "signatures");
            for (k, key) in &set.objects {
                let name = shard_name(*k);
                let inputs = vec![set.storage.url_of(key)];
                if !c.done(StageId::DedupSignatures, &name, &inputs)? {
                    let bytes = rt.block_on(set.storage.get(key))?;
                    let n =
                        rt.block_on(batch::signatures(&c.root, &c.cfg.dedup, *k, key, &bytes))?;
                    let mut stats = RunStats::default();
                    let st = stats.stage_mut("signatures");
                    st.seen = n as u64;
                    st.kept = n as u64;
                    c.commit(
                        StageId::DedupSignatures,
                        &name,
                        inputs,
                        vec![format!("dedup/batch/docs/{name}.bin")],
                        stats,
                    )?;
                }
                bar.inc(1);
            }
            bar.finish_and_clear();
            println!(
                "trawl dedup signatures: {} of {} inputs (shard {})",
                set.objects.len(),
                set.total,
                c.shard
            );
        }
        DedupPhase::Buckets(a) => {
            let c = ctx(&a, rt)?;
            let total = total_inputs(&c, rt)?;
            require(
                &c,
                rt,
                StageId::DedupSignatures,
                total,
                "run the signatures phase for every input first",
            )?;
            let mine: Vec<usize> = (0..c.cfg.dedup.bands)
                .filter(|b| c.shard.owns(*b))
                .collect();
            let bar = progress::bar(show, Some(mine.len() as u64), "buckets");
            let mut pairs = 0;
            for b in &mine {
                let name = format!("{b:03}");
                let inputs = vec![format!("{total} signature files")];
                if !c.done(StageId::DedupBuckets, &name, &inputs)? {
                    let n = rt.block_on(batch::buckets(&c.root, *b, total))?;
                    pairs += n;
                    let mut stats = RunStats::default();
                    stats.stage_mut("buckets").count("pairs", n as u64);
                    c.commit(
                        StageId::DedupBuckets,
                        &name,
                        inputs,
                        vec![format!("dedup/batch/pairs/{name}.bin")],
                        stats,
                    )?;
                }
                bar.inc(1);
            }
            bar.finish_and_clear();
            println!(
                "trawl dedup buckets: {} bands, {pairs} candidate pairs (shard {})",
                mine.len(),
                c.shard
            );
        }
        DedupPhase::Clusters(a) => {
            let c = ctx(&a, rt)?;
            if c.shard.index != 0 {
                println!(
                    "trawl dedup clusters: runs on worker 0 only; nothing to do for shard {}",
                    c.shard
                );
                return Ok(());
            }
            let total = total_inputs(&c, rt)?;
            require(
                &c,
                rt,
                StageId::DedupBuckets,
                c.cfg.dedup.bands,
                "run the buckets phase for every band first",
            )?;
            let inputs = vec![format!("{total} inputs, {} bands", c.cfg.dedup.bands)];
            if !c.done(StageId::DedupClusters, "00000", &inputs)? {
                let (confirmed, removed) =
                    rt.block_on(batch::clusters(&c.root, &c.cfg.dedup, total))?;
                let mut stats = RunStats::default();
                let st = stats.stage_mut("clusters");
                st.count("pairs_confirmed", confirmed as u64);
                st.count("removed", removed as u64);
                c.commit(
                    StageId::DedupClusters,
                    "00000",
                    inputs,
                    vec!["dedup/batch/remove/".into()],
                    stats,
                )?;
                println!("trawl dedup clusters: {confirmed} confirmed pairs, {removed} documents to remove");
            } else {
                println!("trawl dedup clusters: already done");
            }
        }
        DedupPhase::Apply(a) => {
            let c = ctx(&a, rt)?;
            let input = a.input.clone().ok_or_else(|| UsageError("trawl dedup apply needs --input (the same documents the signatures phase read)".into()))?;
            require(
                &c,
                rt,
                StageId::DedupClusters,
                1,
                "run the clusters phase first",
            )?;
            let set = rt.block_on(InputSet::open(
                &input,
                &c.cfg.storage,
                c.shard,
                docs::is_documents,
            ))?;
            let bar = progress::bar(show, Some(set.objects.len() as u64), "apply");
            for (k, key) in &set.objects {
                let name = shard_name(*k);
                let inputs = vec![set.storage.url_of(key)];
                if c.done(StageId::Dedup, &name, &inputs)? {
                    bar.inc(1);
                    continue;
                }
                let bytes = rt.block_on(set.storage.get(key))?;
                let stage = batch::ApplyRemovals::new(rt.block_on(batch::decisions(&c.root, *k))?);
                let expected = stage.expected();
                let input =
                    crate::pipeline::read_input(key, &bytes, c.cfg.storage.max_record_bytes)?;
                let mut chain =
                    Chain::new(StageId::Dedup.name(), vec![Stage::Task(Box::new(stage))]);
                let job = c.cfg.job(StageId::Dedup, &name, inputs);
                c.runner().make(&job, |w| {
                    w.read_step(input.docs.len(), &input.bad);
                    w.chain(&mut chain, input.docs);
                    let removed = w
                        .stats()
                        .stage("near_dedup")
                        .and_then(|s| s.dropped.get(trawl_dedup::reasons::NEAR_DUPLICATE.as_str()))
                        .copied()
                        .unwrap_or(0);
                    if removed != expected as u64 {
                        anyhow::bail!("{}: {} document ids decided for removal are not in this input; the inputs changed since the signatures phase", set.storage.url_of(key), expected as u64 - removed.min(expected as u64));
                    }
                    Ok(())
                })?;
                bar.inc(1);
            }
            bar.finish_and_clear();
            println!(
                "trawl dedup apply: {} inputs (shard {})",
                set.objects.len(),
                c.shard
            );
        }
    }
    Ok(())
}
