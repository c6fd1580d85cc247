//! Progress bars on stderr: hidden with --quiet or when stderr is not a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub fn enabled(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A counter bar (`len` known) or spinner (`len` None).
pub fn bar(show: bool, len: Option<u64>, what: &str) -> ProgressBar {
    let pb = match len {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    if !show {
        pb.set_draw_target(ProgressDrawTarget::hidden());
        return pb;
    }
    let style = match len {
        Some(_) => ProgressStyle::with_template(
            "{prefix:>9} [{bar:30}] {pos}/{len} {msg} ({per_sec}, eta {eta})",
        )
        .expect("template")
        .progress_chars("=> "),
        None => {
            ProgressStyle::with_template("{prefix:>9} {spinner} {pos} {msg} ({per_sec}, {elapsed})")
                .expect("template")
        }
    };
    pb.set_style(style);
    pb.set_prefix(what.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}
