//! Command-line flags. Flags say how to run (where, how fast, how loud); what changes the
//! output lives in the config file.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use trawl_storage::ShardSpec;

/// trawl turns the live web into pretraining data: crawl, extract, filter, dedup, caption
/// and shard, writing to a local folder or S3.
#[derive(Debug, Parser)]
#[command(
    name = "trawl",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// No progress bars (they are also hidden when stderr is not a terminal), and only
    /// warnings and errors in the log.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// More log output (-v: debug, -vv: trace). TRAWL_LOG=<filter> overrides.
    #[arg(long, short, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Log format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// CPU threads for the stages (shards are processed concurrently by the stage commands;
    /// the output is the same for any number) and worker threads of the async runtime
    /// (network and storage); default: one per core.
    #[arg(long, global = true)]
    pub threads: Option<usize>,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Log output formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run every enabled stage in one process, streaming from crawl to shards and report.
    /// Without --config, runs the embedded demo: the bundled test web served on loopback.
    Run(RunArgs),
    /// Crawl the configured seeds into WARC parts under crawl/warc/.
    Crawl(StageArgs),
    /// Extract Documents from WARC files (or .html/.html.gz files).
    Extract(ExtractArgs),
    /// Annotate documents (language, word counts, PII, safety, heuristic signals) and filter
    /// them.
    Filter(FilterArgs),
    /// Remove duplicate documents (streaming, one worker), or run one phase of the sharded
    /// batch mode: signatures, buckets, clusters, apply.
    ///
    /// Streaming reads its inputs twice: first it looks ahead over all of them (within
    /// `[dedup] max_memory_mb`), so a copy in an early input is removed through an original in
    /// a later one, and each kept document records `attrs.dedup.cluster_size`; then it writes
    /// one output shard per input, in input order.
    Dedup(DedupArgs),
    /// Build image/alt-text pairs and interleaved documents; also: fetch (a URL list into
    /// WebDataset shards).
    Captions(CaptionsArgs),
    /// Tokenize documents and pack them into Megatron (and datatrove) shards with
    /// manifests; also: pack, train-tokenizer, takedown.
    Shards(ShardsArgs),
    /// Write the sampling report (report/index.html) of a run root, optionally compared
    /// with another run.
    Report(ReportArgs),
    /// Print seeded, stratified samples of removed (or kept) records for the terminal, or
    /// as JSONL for tools.
    Sample(SampleArgs),
    /// Print a run's status: stages, shards done, documents kept/dropped, errors.
    Status {
        /// The run root.
        root: String,
        /// Print every stage's counters in the Prometheus text format instead (for
        /// node_exporter's textfile collector: `trawl status ROOT --prometheus > trawl.prom`).
        #[arg(long)]
        prometheus: bool,
        /// Pipeline config (TOML), for [storage] settings.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Validate a config file or print the commented default.
    #[command(subcommand)]
    Config(ConfigCommand),
}

/// Flags of `trawl run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Pipeline config (TOML). Without it, the embedded demo config and test web are used.
    #[arg(long, short)]
    pub config: Option<PathBuf>,
    /// Run root (local folder, file://, or s3://bucket/prefix), used as given. Without it,
    /// the run root is `<storage.root>/<run id>`.
    #[arg(long, short)]
    pub output: Option<String>,
    /// Run id. Default: continue the newest unfinished run under storage.root made with the
    /// same config (a rerun after a crash), else a new id from the UTC time and the config
    /// digest (`20261121T020000Z-1a2b3c4d`).
    #[arg(long)]
    pub run_id: Option<String>,
    /// Print what would run (stages, seeds or inputs found, run root) and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Ignore completion markers and recompute every shard.
    #[arg(long)]
    pub force: bool,
    /// This crawl worker, `i/n` (0-based; default from SLURM_ARRAY_TASK_ID with
    /// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with TRAWL_SHARD_COUNT, else 0/1). With
    /// n > 1 the worker crawls the registered domains it owns and streams its parts through
    /// extract and filter; dedup, captions, shards and the report then run over every
    /// worker's output as batch phases (`trawl dedup signatures` ... `trawl shards`). Needs
    /// --config and --output (or --run-id), the same for every worker.
    #[arg(long)]
    pub shard: Option<trawl_storage::ShardSpec>,
    /// Demo only: port the embedded test web binds on 127.0.0.2, 127.0.0.3, ... (fixed, so
    /// a rerun sees the same URLs and resumes).
    #[arg(long, default_value_t = 18080)]
    pub demo_port: u16,
    /// Demo only: latency added to every test-web response, in milliseconds (to watch or
    /// interrupt a slower run).
    #[arg(long, default_value_t = 0)]
    pub demo_delay_ms: u64,
}

/// Flags shared by the stage subcommands.
#[derive(Debug, Args)]
pub struct StageArgs {
    /// Input: a file, a folder or a prefix (local or s3://), listed recursively. The crawl
    /// reads seed URLs from it (one per line) in addition to the config's seeds.
    #[arg(long, short)]
    pub input: Option<String>,
    /// Run root the stage writes under (its folder, excluded/, stats/, _done/); overrides
    /// storage.root.
    #[arg(long, short)]
    pub output: Option<String>,
    /// Pipeline config (TOML); only this stage's section (and [storage]) is used.
    #[arg(long, short)]
    pub config: Option<PathBuf>,
    /// This worker's share of the inputs, `i/n` (0-based); for `trawl crawl`, the registered
    /// domains whose hash mod n is i, the workers exchanging links through the run root.
    /// Defaults to SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX
    /// with TRAWL_SHARD_COUNT, else 0/1.
    #[arg(long)]
    pub shard: Option<ShardSpec>,
    /// Ignore completion markers and recompute.
    #[arg(long)]
    pub force: bool,
    /// Print the inputs found and which of this worker's shards are done or to do, then exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Phases that need a barrier (dedup buckets, clusters, apply; shards pack) wait up to
    /// this many seconds for the completion markers of the phase before them, instead of
    /// failing at once (for cluster engines that start every phase together). A crawl by
    /// several workers waits this long for the others' links each round
    /// (crawl.worker_timeout_secs).
    #[arg(long, default_value_t = 0)]
    pub wait: u64,
}

/// Flags of `trawl captions`.
#[derive(Debug, Args)]
pub struct CaptionsArgs {
    /// An action instead of the stage.
    #[command(subcommand)]
    pub action: Option<CaptionsAction>,
    /// Stage flags.
    #[command(flatten)]
    pub stage: StageArgs,
}

/// `trawl captions` actions.
#[derive(Debug, Subcommand)]
pub enum CaptionsAction {
    /// Fetch a list of image URLs with the crawl's manners ([crawl]: robots.txt, delay,
    /// Retry-After, SSRF guard; [captions.fetch]) and decode, check, resize and re-encode
    /// them ([captions.images]) into WebDataset shards: `images/NNNNN.tar` (`KEY.jpg` +
    /// `KEY.json`), a JSONL index per shard, and `excluded/images/` with every refusal's
    /// reason. Like img2dataset, politely.
    Fetch {
        /// File of image URLs, one per line; a tab after the URL starts its caption text.
        #[arg(long)]
        urls: PathBuf,
        /// Output folder or run root (local or s3://).
        #[arg(long, short)]
        output: String,
        /// Pipeline config (TOML): [crawl], [captions.fetch], [captions.images], [storage].
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// Samples per shard (the unit of fetching and of writing).
        #[arg(long, default_value_t = 10_000)]
        shard_size: usize,
    },
}

/// Flags of `trawl filter`.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// An action instead of filtering.
    #[command(subcommand)]
    pub action: Option<FilterAction>,
    /// Stage flags.
    #[command(flatten)]
    pub stage: StageArgs,
    /// Keep every document (but blocklisted ones) and record in `attrs.would_drop` the
    /// reasons the filters would have dropped it; same as `[filter] annotate_only = true`.
    #[arg(long)]
    pub annotate_only: bool,
}

/// `trawl filter` actions.
#[derive(Debug, Subcommand)]
pub enum FilterAction {
    /// Train a fastText quality classifier from labelled JSONL (`text`, and `label`: hq/lq,
    /// good/bad, 1/0 or true/false); holds out a validation split and prints precision,
    /// recall, accuracy and AUC. Use the model with `[filter.quality] models.<lang>`.
    TrainQuality {
        /// Labelled JSONL file.
        #[arg(long, short)]
        input: PathBuf,
        /// The language the model is for (ISO 639-3 as whatlang reports it, e.g. eng);
        /// printed in the config line to use.
        #[arg(long)]
        lang: String,
        /// Where to write the model (.bin).
        #[arg(long, short)]
        output: PathBuf,
        /// Share of the examples held out for validation (by a hash of the text).
        #[arg(long, default_value_t = 0.1)]
        valid_fraction: f64,
        /// Passes over the training data.
        #[arg(long, default_value_t = 10)]
        epochs: i32,
        /// Learning rate.
        #[arg(long, default_value_t = 0.5)]
        lr: f64,
        /// Word n-grams used as features.
        #[arg(long, default_value_t = 2)]
        word_ngrams: i32,
        /// Embedding size.
        #[arg(long, default_value_t = 64)]
        dim: i32,
        /// Hash buckets for word n-grams (the model holds dim x (buckets + words) floats).
        #[arg(long, default_value_t = 200_000)]
        bucket: i32,
        /// Random seed (training uses one thread, so a seed gives the same model).
        #[arg(long, default_value_t = 1)]
        seed: i32,
        /// Shortest character n-gram of a word used as a feature (with --maxn).
        #[arg(long, default_value_t = 3)]
        minn: i32,
        /// Longest character n-gram of a word used as a feature; 0 (the default, as in
        /// fastText's classifiers) uses whole words only. Character n-grams help with
        /// misspellings but make scoring about ten times slower.
        #[arg(long, default_value_t = 0)]
        maxn: i32,
    },
}

/// Flags of `trawl extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Stage flags.
    #[command(flatten)]
    pub stage: StageArgs,
    /// `jsonl` writes Documents under the run root; `text` prints the main text of the input
    /// to stdout (for inspecting single pages).
    #[arg(long, value_enum, default_value_t = ExtractFormat::Jsonl)]
    pub format: ExtractFormat,
}

/// Output of `trawl extract`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExtractFormat {
    /// Documents as JSONL.zst under the run root.
    Jsonl,
    /// Main text on stdout.
    Text,
    /// One `.txt` of main text per input page under `--output` (the input's relative path
    /// with `.txt`; pages of a WARC file as `FILE.N.txt`), for review and scoring; reports
    /// the extraction time (parse + extract, no I/O) on stdout.
    Txt,
}

/// `trawl shards`: without a subcommand, tokenize the input documents (one part per input
/// file) and pack the final shards once every part is done.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ShardsArgs {
    /// A shards action; without one, tokenize and pack.
    #[command(subcommand)]
    pub action: Option<ShardsAction>,
    /// Stage flags (tokenize and pack).
    #[command(flatten)]
    pub stage: StageArgs,
}

/// `trawl shards` actions.
#[derive(Debug, Subcommand)]
pub enum ShardsAction {
    /// Pack the tokenized parts under ROOT/shards/parts into the final shards and manifests
    /// (applies [shards] target size, formats, shuffle and [shards.mix]); prints the mixture.
    Pack {
        /// Run root.
        #[arg(long, short)]
        output: Option<String>,
        /// Pipeline config (TOML); the [shards] section is used.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Train a byte-level BPE tokenizer on documents and write its tokenizer.json.
    TrainTokenizer {
        /// Documents: a JSONL file, folder or s3:// prefix.
        #[arg(long, short)]
        input: String,
        /// Where to write tokenizer.json (local path).
        #[arg(long, short)]
        output: PathBuf,
        /// Vocabulary size, special tokens included.
        #[arg(long, default_value_t = 32_000)]
        vocab_size: usize,
        /// Pairs seen fewer times are not merged.
        #[arg(long, default_value_t = 2)]
        min_frequency: u64,
        /// Special tokens (repeatable); the first is the end-of-text token.
        #[arg(long = "special-token", default_values_t = vec!["<|endoftext|>".to_string()])]
        special_tokens: Vec<String>,
        /// Sample documents by language (meta.lang) with this temperature: a language with
        /// n characters gets a budget proportional to n^(1/T), so T > 1 gives low-resource
        /// languages a larger share of the merges.
        #[arg(long)]
        lang_temperature: Option<f64>,
        /// With --lang-temperature: characters of training text in total.
        #[arg(long, default_value_t = 1_000_000_000)]
        max_chars: usize,
        /// Seed of the sampling.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Remove documents by URL, URL prefix (ending in *) or domain from the written shards:
    /// rewrites only the shards holding them, updates the manifests, records the list in
    /// ROOT/takedown/urls.txt (honoured by later runs' filter stage), and prints what changed.
    Takedown {
        /// File with one URL, prefix or domain per line (`#` comments).
        #[arg(long)]
        urls: PathBuf,
        /// Run root.
        #[arg(long, short)]
        output: Option<String>,
        /// Pipeline config (TOML).
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
}

/// `trawl dedup`: without a phase, streaming exact + near dedup in input order.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DedupArgs {
    /// A batch phase; without one, streaming dedup.
    #[command(subcommand)]
    pub phase: Option<DedupPhase>,
    /// Stage flags (streaming mode).
    #[command(flatten)]
    pub stage: StageArgs,
}

/// The phases of sharded batch near-dedup, run in this order, each with any number of
/// workers (`--shard i/n`); they share only the run root.
#[derive(Debug, Subcommand)]
pub enum DedupPhase {
    /// MinHash every document of this worker's input files; write per-band sorted keys.
    Signatures(StageArgs),
    /// Merge each of this worker's bands into candidate pairs (needs every signature file).
    Buckets(StageArgs),
    /// Connected components over all confirmed pairs; decide who is removed (one worker).
    Clusters(StageArgs),
    /// Remove the decided documents by DocId from this worker's input files.
    Apply(StageArgs),
}

/// Flags of `trawl report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run root to report on (same as --output).
    pub root: Option<String>,
    /// The run root to report on.
    #[arg(long, short)]
    pub output: Option<String>,
    /// Pipeline config (TOML); the [report] section is used.
    #[arg(long, short)]
    pub config: Option<PathBuf>,
    /// Another run root: every number and chart shows both runs with deltas, plus the
    /// documents kept in one run and removed in the other.
    #[arg(long)]
    pub compare: Option<String>,
}

/// Flags of `trawl sample`.
#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The run root.
    pub root: String,
    /// Stage whose records to sample (crawl, extract, filter, dedup, captions).
    #[arg(long, default_value = "filter")]
    pub stage: String,
    /// Drop reason to sample (e.g. too_few_words), or `kept` for the stage's kept documents.
    #[arg(long)]
    pub reason: String,
    /// Number of samples.
    #[arg(long, short, default_value_t = 10)]
    pub n: usize,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the full records as JSONL instead of a readable summary.
    #[arg(long)]
    pub jsonl: bool,
    /// Characters of text shown per sample (summary output).
    #[arg(long, default_value_t = 600)]
    pub chars: usize,
    /// Pipeline config (TOML), for [storage] settings.
    #[arg(long, short)]
    pub config: Option<PathBuf>,
}

/// `trawl config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a config file: errors name the file, the key and the reason.
    Check {
        /// The file.
        file: PathBuf,
    },
    /// Print the fully commented default config.
    Default,
}
