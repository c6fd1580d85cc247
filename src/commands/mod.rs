//! One module per command.

mod dedup;
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
        Command::Filter(a) => stage::docs_stage("filter", a.stage, quiet, rt, |c| c.filter.annotate_only |= a.annotate_only),
        Command::Dedup(a) => match a.phase {
            None => stage::docs_stage("dedup", a.stage, quiet, rt, |_| ()),
            Some(p) => dedup::phase(p, quiet, rt),
        },
        Command::Captions(a) => stage::docs_stage("captions", a, quiet, rt, |_| ()),
        Command::Shards(a) => match a.action {
            None => stage::docs_stage("shards", a.stage, quiet, rt, |_| ()),
            Some(action) => shards::action(action, rt),
        },
        Command::Report(a) => stage::report(a, rt),
        Command::Sample(a) => stage::sample(a, rt),
        Command::Status { root, config, prometheus } => {
            let cfg = load_config(config.as_deref())?;
            let r = trawl_storage::Storage::open(&root, &cfg.storage)?;
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
    vec![("words".into(), cfg.filter.min_words as f64), ("lang.confidence".into(), cfg.filter.min_lang_confidence)]
}

/// Loads the config file, or the code defaults.
pub fn load_config(path: Option<&Path>) -> Result<PipelineConfig> {
    Ok(match path {
        Some(p) => PipelineConfig::load(p)?,
        None => PipelineConfig::default(),
    })
}
