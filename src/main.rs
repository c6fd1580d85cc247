//! The `trawl` binary: parse flags, load and validate the config, wire the stages, run, and
//! map errors to exit codes (0 ok, 1 run failed, 2 usage or config error).

mod cli;
mod commands;
mod parallel;
mod pipeline;
mod progress;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;

/// An error that is the user's to fix (bad flags or config): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn init_logging(cli: &cli::Cli) {
    use tracing_subscriber::EnvFilter;
    // --quiet: warnings and errors only; -v, -vv: more. Libraries are held a level or more
    // below trawl's own lines (the browser driver's transport chatter only at -vv).
    let (default, libs) = match (cli.quiet, cli.verbose) {
        (true, 0) => ("warn", "tungstenite=off"),
        (false, 0) => ("info", "tungstenite=error"),
        (_, 1) => ("debug", "tungstenite=warn"),
        _ => ("trace", "tungstenite=debug"),
    };
    let filter = EnvFilter::try_from_env("TRAWL_LOG").unwrap_or_else(|_| {
        EnvFilter::new(format!(
            "{default},{libs},html5ever=error,scraper=error,selectors=warn,hyper=warn,reqwest=warn"
        ))
    });
    let b = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match cli.log_format {
        cli::LogFormat::Text => b.init(),
        cli::LogFormat::Json => b.json().init(),
    }
}

/// Panics go to the log (not raw to stderr, so `--quiet` and `--log-format json` hold):
/// those inside one record are contained by the runner and counted as record errors.
fn init_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = trawl_core::panic_message(info.payload());
        // `trawl sample ... | head`: the reader went away. End like any Unix filter killed by
        // SIGPIPE (status 141, which `set -o pipefail` sees), without a bug report; whatever
        // a stage committed is intact and a rerun resumes.
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        let location = info.location().map(|l| l.to_string()).unwrap_or_default();
        tracing::error!(%location, "panic (a bug in trawl, please report): {message}");
    }));
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    init_logging(&cli);
    init_panic_hook();
    parallel::set_threads(cli.threads);
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = cli.threads {
        builder.worker_threads(n.max(1));
    }
    let rt = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = commands::dispatch(cli, &rt);
    rt.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(u) = e.downcast_ref::<UsageError>() {
                eprintln!("error: {u}");
                return ExitCode::from(2);
            }
            if let Some(c) = e.downcast_ref::<trawl_config::ConfigError>() {
                eprintln!("error: invalid config: {c}");
                return ExitCode::from(2);
            }
            eprintln!("error: {}", error_text(&e));
            ExitCode::from(1)
        }
    }
}

/// An error and its causes on one line, each cause left out when the text before already
/// says it: many errors (object_store's, io's wrappers) repeat their source in their own
/// message, and `{:#}` wrote a full disk's `No space left on device` four times.
fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let t = cause.to_string();
        if out.is_empty() {
            out = t;
        } else if !out.contains(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// An error that repeats its source in its own message, as object_store's do.
    #[derive(Debug)]
    struct Repeats(std::io::Error);

    impl std::fmt::Display for Repeats {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "Unable to copy data to file: {}", self.0)
        }
    }

    impl std::error::Error for Repeats {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_error_chain_says_each_cause_once() {
        let io = std::io::Error::other("No space left on device (os error 28)");
        let e = anyhow::Error::new(Repeats(io)).context("storage error at run/report/index.html");
        assert_eq!(
            super::error_text(&e),
            "storage error at run/report/index.html: Unable to copy data to file: No space left \
             on device (os error 28)"
        );
        // causes that add something are all written
        let e = anyhow::anyhow!("disk full").context("cannot write part 3");
        assert_eq!(super::error_text(&e), "cannot write part 3: disk full");
    }
}
