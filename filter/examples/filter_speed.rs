//! Times each stage of the filter chain over a JSONL file of Documents, in process, one
//! thread, without reading or writing shards:
//! `cargo run --release -p trawl-filter --example filter_speed -- DOCS.jsonl [CONFIG.toml] [RUNS]`
//! (CONFIG holds a `[filter]` section; RUNS, default 1, repeats the whole chain on fresh
//! copies of the documents). Prints MB/s of text per stage and for the chain: the medians
//! over the runs, then every run's chain time.
use std::io::BufRead as _;
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .expect("usage: filter_speed DOCS.jsonl [CONFIG.toml] [RUNS]");
    let cfg: trawl_filter::FilterConfig = match args.get(2) {
        Some(c) => {
            let v: toml::Value = toml::from_str(&std::fs::read_to_string(c).expect("read config"))
                .expect("config is TOML");
            v.get("filter")
                .cloned()
                .map(|f| f.try_into().expect("[filter] section"))
                .unwrap_or_default()
        }
        None => trawl_filter::FilterConfig {
            annotate_only: true,
            min_words: 0,
            ..Default::default()
        },
    };
    let runs: usize = args
        .get(3)
        .map_or(1, |r| r.parse().expect("RUNS is a number"));
    let docs: Vec<trawl_core::Document> =
        std::io::BufReader::new(std::fs::File::open(path).expect("open docs"))
            .lines()
            .map(|l| serde_json::from_str(&l.expect("read")).expect("a Document per line"))
            .collect();
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    let mb = bytes as f64 / 1e6;
    let mut stages = cfg.build().expect("filter config");
    let mut per_stage: Vec<Vec<f64>> = vec![Vec::new(); stages.len()];
    let mut chains = Vec::new();
    for _ in 0..runs.max(1) {
        let mut spent = vec![Duration::ZERO; stages.len()];
        let copies = docs.clone();
        let start = Instant::now();
        for mut d in copies {
            for (i, s) in stages.iter_mut().enumerate() {
                let t = Instant::now();
                let v = s.apply(&mut d);
                spent[i] += t.elapsed();
                if !matches!(v, Ok(trawl_core::Verdict::Keep)) {
                    break;
                }
            }
        }
        chains.push(start.elapsed().as_secs_f64());
        for (p, t) in per_stage.iter_mut().zip(spent) {
            p.push(t.as_secs_f64());
        }
    }
    let all = median(chains.clone());
    println!(
        "{mb:.1} MB of text, {} documents; chain {all:.3} s = {:.1} MB/s (median of {} runs)",
        docs.len(),
        mb / all,
        chains.len()
    );
    for (s, t) in stages.iter().zip(per_stage) {
        let t = median(t);
        println!(
            "  {:<18} {:>8.3} s {:>9.1} MB/s",
            s.name(),
            t,
            mb / t.max(1e-9)
        );
    }
    println!(
        "runs: {:?}",
        chains
            .iter()
            .map(|c| (c * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>()
    );
}
