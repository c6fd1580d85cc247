//! `trawl captions fetch`: a URL list into WebDataset shards of checked images, fetched with
//! the crawl's manners. Shards commit atomically with a completion marker, so a rerun skips
//! finished shards and redoes an interrupted one.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::json;
use trawl_captions::Captioner;
use trawl_core::{ShardJob, ShardRunner};
use trawl_storage::jsonl::JsonlWriter;
use trawl_storage::{shard_name, RunRoot, Storage};

use crate::progress;

pub fn fetch(
    urls: &Path,
    output: &str,
    config: Option<&Path>,
    shard_size: usize,
    quiet: bool,
    rt: &tokio::runtime::Runtime,
) -> Result<()> {
    if shard_size == 0 {
        return Err(crate::UsageError("--shard-size must be at least 1".into()).into());
    }
    let cfg = super::load_config(config)?;
    let text =
        std::fs::read_to_string(urls).with_context(|| format!("reading {}", urls.display()))?;
    let list: Vec<(String, String)> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((u, c)) => (u.trim().to_string(), c.trim().to_string()),
            None => (l.trim().to_string(), String::new()),
        })
        .collect();
    let root = Storage::open(output, &cfg.storage)?;
    let store = RunRoot::new(root.clone(), rt.handle().clone(), cfg.storage.documents);
    let runner = ShardRunner::new(&store, false);
    let fetcher = crate::pipeline::image_fetcher(&cfg)?;
    let captioner = Captioner::new(cfg.captions.clone());
    let fingerprint = format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(
            serde_json::to_string(&json!([
                &cfg.crawl,
                &cfg.captions.fetch,
                &cfg.captions.images
            ]))?
            .as_bytes()
        )
    );
    let bar = progress::bar(progress::enabled(quiet), Some(list.len() as u64), "images");
    let (mut kept_total, mut dropped_total) = (0u64, 0u64);
    for (i, chunk) in list.chunks(shard_size).enumerate() {
        let name = shard_name(i);
        let input = format!("{}#{}", urls.display(), i * shard_size);
        let job = ShardJob::new("images", &name, vec![input], fingerprint.clone());
        if runner.is_done(&job)? {
            bar.inc(chunk.len() as u64);
            continue;
        }
        let t0 = std::time::Instant::now();
        let chunk_urls: Vec<String> = chunk.iter().map(|(u, _)| u.clone()).collect();
        let b = bar.clone();
        let base = bar.position();
        let progress: Arc<dyn Fn(u64) + Send + Sync> = Arc::new(move |n| b.set_position(base + n));
        let fetched = rt.block_on(crate::pipeline::fetch_images(
            &fetcher,
            &chunk_urls,
            Some(progress),
        ));
        let checked = captioner.check_images(fetched);
        let (kept, dropped) = runner
            .make(&job, |w| {
                let mut tar = trawl_captions::wds::TarWriter::new();
                let mut index = JsonlWriter::for_name("x.jsonl.zst");
                for (k, ((url, caption), r)) in chunk.iter().zip(checked).enumerate() {
                    w.stage_stats().seen += 1;
                    match r {
                        Ok(img) => {
                            let key = format!("{name}{k:06}");
                            let meta = json!({
                                "key": key, "url": url, "caption": caption, "format": img.format,
                                "original_size": [img.original.0, img.original.1], "size": [img.size.0, img.size.1],
                                "phash": format!("{:016x}", img.phash), "sha": format!("{:016x}", img.exact),
                            });
                            tar.append(&format!("{key}.{}", img.extension), &img.bytes)?;
                            tar.append(&format!("{key}.json"), &serde_json::to_vec(&meta)?)?;
                            index.write(&meta);
                            let st = w.stage_stats();
                            st.kept += 1;
                            st.bytes_out += img.bytes.len() as u64;
                        }
                        Err((reason, detail)) => {
                            w.stage_stats().drop_for(reason.as_str());
                            w.exclude(&trawl_core::Excluded {
                                detail: Some(detail.to_string()),
                                ..trawl_core::Excluded::url("images", reason.as_str(), url)
                            });
                        }
                    }
                }
                let st = w.stage_stats();
                st.nanos = t0.elapsed().as_nanos() as u64;
                let counts = (st.kept, st.seen - st.kept);
                w.output(format!("images/{name}.tar"), tar.finish()?);
                w.output(crate::pipeline::jsonl_name("images", &name), index.finish());
                anyhow::Ok(counts)
            })
            .with_context(|| format!("writing shard {name}"))?;
        kept_total += kept;
        dropped_total += dropped;
        bar.set_position(base + chunk.len() as u64);
    }
    bar.finish_and_clear();
    println!(
        "trawl: {} images kept, {} dropped -> {}",
        kept_total,
        dropped_total,
        root.url_of("images/")
    );
    Ok(())
}
