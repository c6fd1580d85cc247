//! Where extraction time goes, one thread: parsing alone (trawl's parser on the page as
//! served, before the pre-parse pass extraction runs first) vs the whole extraction, over a
//! folder of `.html` files (each decoded once up front):
//! `cargo run --release -p trawl-extract --example extract_speed -- DIR [REPEAT]`.
//! With `SLOWEST=N` it also lists the N pages that take longest, each timed alone (the best
//! of REPEAT runs), with their size: a page far slower per byte than the rest is a place to
//! look for work that grows faster than the page.
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("usage: extract_speed DIR [REPEAT]");
    let repeat: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .map(|p| {
            (
                format!("file://{}", p.display()),
                std::fs::read(&p).expect("read page"),
            )
        })
        .collect();
    pages.sort();
    let mb = pages.iter().map(|p| p.1.len()).sum::<usize>() as f64 / 1e6;
    let ex = trawl_extract::Extractor::new(Default::default());
    for _ in 0..repeat {
        let t = Instant::now();
        if std::env::var_os("WHOLE_ONLY").is_none() {
            for (_, html) in &pages {
                let s = String::from_utf8_lossy(html);
                std::hint::black_box(trawl_core::parse::parse_document(&s));
            }
        }
        let parse = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for (url, html) in &pages {
            let _ = std::hint::black_box(ex.extract_html(url, html, None));
        }
        let all = t.elapsed().as_secs_f64();
        println!("{} pages, {mb:.1} MB: parse only {parse:.3} s ({:.0} pages/s), whole extraction {all:.3} s ({:.0} pages/s)", pages.len(), pages.len() as f64 / parse, pages.len() as f64 / all);
    }
    let slowest: usize = std::env::var("SLOWEST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if slowest > 0 {
        let mut times: Vec<(f64, usize, &str)> = pages
            .iter()
            .map(|(url, html)| {
                let best = (0..repeat.max(1))
                    .map(|_| {
                        let t = Instant::now();
                        let _ = std::hint::black_box(ex.extract_html(url, html, None));
                        t.elapsed().as_secs_f64()
                    })
                    .fold(f64::INFINITY, f64::min);
                (best, html.len(), url.as_str())
            })
            .collect();
        let total: f64 = times.iter().map(|t| t.0).sum();
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (secs, bytes, url) in times.iter().take(slowest) {
            println!(
                "{:8.2} ms {:6.1}% {:8} bytes {:6.1} MB/s  {url}",
                secs * 1e3,
                secs / total * 100.0,
                bytes,
                *bytes as f64 / secs / 1e6
            );
        }
    }
}
