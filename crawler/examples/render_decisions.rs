//! The render decision (`[render] mode = "auto"`, default settings) over folders of saved
//! pages (`.html`, `.html.gz`): the share of pages sent to a browser, per reason, for a
//! tuning part and a validation part of the pages (split by a hash of the file name), so
//! false positives can be measured on pages whose content is in their static HTML.
//!
//! ```sh
//! cargo run --release -p trawl-crawler --example render_decisions -- \
//!     ../shared/testdata/extract/*/html ../shared/testdata/wcxb-dev/html [--list]
//! ```
//!
//! `--list` names the rendered pages of the tuning part only (the validation part is
//! reported as counts).

use std::collections::BTreeMap;
use std::io::Read;

use trawl_core::FetchedPage;
use trawl_crawler::{render, RenderConfig};

fn main() -> anyhow::Result<()> {
    let mut dirs = Vec::new();
    let mut list = false;
    for a in std::env::args().skip(1) {
        if a == "--list" {
            list = true;
        } else {
            dirs.push(a);
        }
    }
    let cfg = RenderConfig::default();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.to_string_lossy();
                n.ends_with(".html") || n.ends_with(".html.gz") || n.ends_with(".htm")
            })
            .collect();
        files.sort();
        // part -> reason -> pages
        let mut counts: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
        let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
        for f in files {
            let mut body = Vec::new();
            let mut file = std::fs::File::open(&f)?;
            if f.to_string_lossy().ends_with(".gz") {
                flate2::read::GzDecoder::new(file).read_to_end(&mut body)?;
            } else {
                file.read_to_end(&mut body)?;
            }
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            let id = name.split('.').next().unwrap_or("").to_string();
            let part = if xxhash_rust::xxh3::xxh3_64(format!("trawl-split:{id}").as_bytes()) % 3 < 2
            {
                "tune"
            } else {
                "valid"
            };
            let page = FetchedPage {
                url: format!("http://pages.test/{name}"),
                final_url: format!("http://pages.test/{name}"),
                status: 200,
                headers: vec![("content-type".into(), "text/html".into())],
                body,
                ..Default::default()
            };
            let (rendered, reason) = render::decide(&cfg, &page).unwrap_or((false, "off"));
            *totals.entry(part).or_default() += 1;
            if rendered {
                *counts
                    .entry(part)
                    .or_default()
                    .entry(reason.to_string())
                    .or_default() += 1;
                if list && part == "tune" {
                    println!("  {reason:<28} {}", f.display());
                }
            }
        }
        for (part, total) in &totals {
            let reasons = counts.get(part).cloned().unwrap_or_default();
            let sent: usize = reasons.values().sum();
            println!(
                "{dir} [{part}]: {sent} of {total} pages sent to a browser ({:.1}%) {:?}",
                100.0 * sent as f64 / (*total).max(1) as f64,
                reasons
            );
        }
    }
    Ok(())
}
