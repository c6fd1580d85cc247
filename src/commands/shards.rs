//! `trawl shards pack | train-tokenizer | takedown`.

use anyhow::{Context, Result};
use trawl_shards::train::{sample_by_language, train_bpe, TrainOptions};
use trawl_storage::{InputSet, ShardSpec, Storage};

use super::load_config;
use crate::cli::ShardsAction;
use crate::pipeline::read_docs_bytes;
use crate::UsageError;

fn root_of(
    cfg: &mut trawl_config::PipelineConfig,
    output: Option<String>,
    rt: &tokio::runtime::Runtime,
) -> Result<Storage> {
    if let Some(o) = output {
        cfg.storage.root = o;
    }
    let root = Storage::open(&cfg.storage.root, &cfg.storage)?;
    rt.block_on(root.check())
        .with_context(|| format!("cannot use run root {}", root.url()))?;
    Ok(root)
}

pub fn action(a: ShardsAction, rt: &tokio::runtime::Runtime) -> Result<()> {
    match a {
        ShardsAction::Pack { output, config } => {
            let mut cfg = load_config(config.as_deref())?;
            let root = root_of(&mut cfg, output, rt)?;
            let r = rt.block_on(trawl_shards::pack::pack(&root, &cfg.shards))?;
            print!("{}", r.table());
            println!("trawl shards pack: {} documents, {} tokens in {} shards ({} blocked by takedowns) -> {}", r.documents, r.tokens, r.shards, r.blocked, root.url_of("shards/manifest.json"));
            Ok(())
        }
        ShardsAction::Takedown {
            urls,
            output,
            config,
        } => {
            let mut cfg = load_config(config.as_deref())?;
            let root = root_of(&mut cfg, output, rt)?;
            let text = std::fs::read_to_string(&urls)
                .with_context(|| format!("reading {}", urls.display()))?;
            if trawl_core::UrlBlocklist::parse(&text).is_empty() {
                return Err(UsageError(format!(
                    "{}: no URLs, prefixes or domains in the file",
                    urls.display()
                ))
                .into());
            }
            let changed =
                rt.block_on(trawl_shards::takedown::takedown(&root, &cfg.shards, &text))?;
            if changed.is_empty() {
                println!(
                    "trawl shards takedown: no shard holds these URLs; the list is recorded in {}",
                    root.url_of("takedown/urls.txt")
                );
            }
            for c in &changed {
                println!(
                    "shard {}: removed {} documents ({} tokens): {}",
                    c.shard,
                    c.documents,
                    c.tokens,
                    c.urls.join(" ")
                );
            }
            println!(
                "trawl shards takedown: {} shards rewritten; list recorded in {}",
                changed.len(),
                root.url_of("takedown/urls.txt")
            );
            Ok(())
        }
        ShardsAction::TrainTokenizer {
            input,
            output,
            vocab_size,
            min_frequency,
            special_tokens,
            lang_temperature,
            max_chars,
            seed,
        } => {
            if vocab_size < 256 + special_tokens.len() {
                return Err(UsageError(format!(
                    "--vocab-size {vocab_size}: a byte-level BPE needs at least 256 + {} ids",
                    special_tokens.len()
                ))
                .into());
            }
            if special_tokens.is_empty() {
                return Err(UsageError(
                    "at least one --special-token (the end-of-text token) is needed".into(),
                )
                .into());
            }
            let cfg = trawl_config::StorageConfig::default();
            let set = rt.block_on(InputSet::open(
                &input,
                &cfg,
                ShardSpec::default(),
                trawl_storage::docs::is_documents,
            ))?;
            if set.objects.is_empty() {
                return Err(
                    UsageError(format!("no documents (JSONL or Parquet) under {input}")).into(),
                );
            }
            let mut docs = Vec::new();
            for (_, key) in &set.objects {
                let bytes = rt.block_on(set.storage.get(key))?;
                docs.extend(read_docs_bytes(key, &bytes)?);
            }
            let opts = TrainOptions {
                vocab_size,
                min_frequency,
                special_tokens,
                lang_temperature,
                max_chars,
                seed,
            };
            let (chosen, table) = sample_by_language(&docs, &opts);
            eprintln!("{:<6} {:>14} {:>14}", "lang", "chars", "used");
            for (l, (avail, used)) in &table {
                eprintln!("{l:<6} {avail:>14} {used:>14}");
            }
            let t0 = std::time::Instant::now();
            let json = train_bpe(chosen.iter().map(|i| docs[*i].text.as_str()), &opts)
                .map_err(anyhow::Error::msg)?;
            std::fs::write(&output, json)
                .with_context(|| format!("writing {}", output.display()))?;
            println!(
                "trawl shards train-tokenizer: {} documents, vocabulary {vocab_size}, {:.1}s -> {}",
                chosen.len(),
                t0.elapsed().as_secs_f64(),
                output.display()
            );
            Ok(())
        }
    }
}
