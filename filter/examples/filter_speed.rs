//! Times each stage of the filter chain over a JSONL file of Documents, one thread:
//! `cargo run --release -p trawl-filter --example filter_speed -- DOCS.jsonl [CONFIG.toml]`
//! (CONFIG holds a `[filter]` section). Prints MB/s of text per stage and for the chain.
use std::io::BufRead as _;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: filter_speed DOCS.jsonl [CONFIG.toml]");
    let cfg: trawl_filter::FilterConfig = match args.get(2) {
        Some(c) => {
            let v: toml::Value = toml::from_str(&std::fs::read_to_string(c).expect("read config")).expect("config is TOML");
            v.get("filter").cloned().map(|f| f.try_into().expect("[filter] section")).unwrap_or_default()
        }
        None => trawl_filter::FilterConfig { annotate_only: true, min_words: 0, ..Default::default() },
    };
    let docs: Vec<trawl_core::Document> = std::io::BufReader::new(std::fs::File::open(path).expect("open docs")).lines().map(|l| serde_json::from_str(&l.expect("read")).expect("a Document per line")).collect();
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let mb = bytes as f64 / 1e6;
    let mut stages = cfg.build();
    let mut spent = vec![Duration::ZERO; stages.len()];
    let start = Instant::now();
    for mut d in docs {
        for (i, s) in stages.iter_mut().enumerate() {
            let t = Instant::now();
            let v = s.apply(&mut d);
            spent[i] += t.elapsed();
            if !matches!(v, Ok(trawl_core::Verdict::Keep)) {
                break;
            }
        }
    }
    let all = start.elapsed().as_secs_f64();
    println!("{mb:.1} MB of text; chain {:.2} s = {:.1} MB/s", all, mb / all);
    for (s, t) in stages.iter().zip(spent) {
        println!("  {:<14} {:>8.3} s {:>9.1} MB/s", s.name(), t.as_secs_f64(), mb / t.as_secs_f64().max(1e-9));
    }
}
