//! One module per command.

mod dedup;
mod flow;
mod images;
mod run;
pub mod runinfo;
mod shards;
mod stage;

use std::path::Path;

use anyhow::Result;
use trawl_config::PipelineConfig;

use crate::cli::{Cli, Command, ConfigCommand};

pub fn dispatch(cli: Cli, rt: &tokio::runtime::Runtime) -> Result<()> {
    let quiet = cli.quiet;
    match cli.command {
        Command::Run(a) => run::run(a, quiet, rt),
        Command::Crawl(a) => stage::crawl(a, quiet, rt),
        Command::Extract(a) => stage::extract(a, quiet, rt),
        Command::Filter(a) => match a.action {
            None => stage::docs_stage(trawl_core::StageId::Filter, a.stage, quiet, rt, |c| {
                c.filter.annotate_only |= a.annotate_only
            }),
            Some(crate::cli::FilterAction::TrainQuality {
                input,
                lang,
                output,
                valid_fraction,
                epochs,
                lr,
                word_ngrams,
                dim,
                bucket,
                seed,
                minn,
                maxn,
            }) => {
                if !(0.0..1.0).contains(&valid_fraction) {
                    return Err(crate::UsageError(format!(
                        "--valid-fraction {valid_fraction}: must be in [0, 1)"
                    ))
                    .into());
                }
                let opts = trawl_filter::quality::TrainOptions {
                    valid_fraction,
                    epochs,
                    lr,
                    word_ngrams,
                    dim,
                    bucket,
                    seed,
                    minn,
                    maxn,
                };
                let t0 = std::time::Instant::now();
                let r = trawl_filter::quality::train(&input, &output, &opts)
                    .map_err(|e| anyhow::anyhow!("train-quality: {e}"))?;
                println!("trained on {} examples ({} hq, {} lq) in {:.1} s; validation: {} ({} hq, {} lq)", r.train.0 + r.train.1, r.train.0, r.train.1, t0.elapsed().as_secs_f64(), r.valid.0 + r.valid.1, r.valid.0, r.valid.1);
                println!("precision {:.3}  recall {:.3}  accuracy {:.3}  AUC {:.3}  (positive class, threshold 0.5)", r.precision, r.recall, r.accuracy, r.auc);
                println!("use it: [filter.quality] models.{lang} = \"{}\" (and thresholds.{lang} = 0.5 to filter)", output.display());
                Ok(())
            }
        },
        Command::Dedup(a) => match a.phase {
            None => stage::docs_stage(trawl_core::StageId::Dedup, a.stage, quiet, rt, |_| ()),
            Some(p) => dedup::phase(p, quiet, rt),
        },
        Command::Captions(a) => match a.action {
            None => stage::docs_stage(trawl_core::StageId::Captions, a.stage, quiet, rt, |_| ()),
            Some(crate::cli::CaptionsAction::Fetch {
                urls,
                output,
                config,
                shard_size,
            }) => images::fetch(&urls, &output, config.as_deref(), shard_size, quiet, rt),
        },
        Command::Shards(a) => match a.action {
            None => stage::docs_stage(trawl_core::StageId::Shards, a.stage, quiet, rt, |_| ()),
            Some(action) => shards::action(action, rt),
        },
        Command::Report(a) => stage::report(a, rt),
        Command::Sample(a) => stage::sample(a, rt),
        Command::Status {
            root,
            config,
            prometheus,
        } => {
            let cfg = load_config(config.as_deref())?;
            let r = stage::open_existing(&root, &cfg, rt)?;
            if prometheus {
                print!("{}", rt.block_on(runinfo::prometheus(&r))?);
            } else {
                print!("{}", rt.block_on(runinfo::status(&r))?);
            }
            Ok(())
        }
        Command::Config(ConfigCommand::Default) => {
            print!("{}", trawl_config::DEFAULT_TOML);
            Ok(())
        }
        Command::Config(ConfigCommand::Check { file }) => {
            PipelineConfig::load(&file)?;
            println!("{}: ok", file.display());
            Ok(())
        }
    }
}

/// The thresholds drawn on the report's signal histograms, from the filter config.
pub fn thresholds(cfg: &PipelineConfig) -> trawl_report::Thresholds {
    let mut t: trawl_report::Thresholds = vec![
        ("words".into(), cfg.filter.min_words as f64),
        ("lang.confidence".into(), cfg.filter.min_lang_confidence),
    ];
    // quality scores are charted per language (`quality.eng [eng]`), each with its threshold
    for (lang, v) in &cfg.filter.quality.thresholds {
        t.push((format!("quality.{lang} [{lang}]"), *v));
    }
    t
}

/// Loads the config file, or the code defaults.
pub fn load_config(path: Option<&Path>) -> Result<PipelineConfig> {
    Ok(match path {
        Some(p) => PipelineConfig::load(p)?,
        None => PipelineConfig::default(),
    })
}
