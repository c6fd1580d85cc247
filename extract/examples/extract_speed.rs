//! Where extraction time goes, one thread: parsing alone vs the whole extraction, over a
//! folder of `.html` files (each decoded once up front):
//! `cargo run --release -p trawl-extract --example extract_speed -- DIR [REPEAT]`.
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
                std::hint::black_box(scraper::Html::parse_document(&s));
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
}
