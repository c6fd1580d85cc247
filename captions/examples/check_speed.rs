//! Times the phases of image checking on JPEGs from the command line (for profiling):
//! `cargo run --release -p trawl-captions --example check_speed -- FILE.jpg [...]`

use std::time::Instant;

fn main() {
    let files: Vec<Vec<u8>> = std::env::args()
        .skip(1)
        .map(|f| std::fs::read(f).expect("read"))
        .collect();
    let cfg = trawl_captions::ImageConfig::default();
    let n = 20;
    let t = Instant::now();
    for _ in 0..n {
        for f in &files {
            let _ = image::load_from_memory(f).unwrap();
        }
    }
    let decode = t.elapsed().as_secs_f64() / (n * files.len()) as f64;
    let t = Instant::now();
    for _ in 0..n {
        for f in &files {
            trawl_captions::image::check(f, Some("image/jpeg"), &cfg).unwrap();
        }
    }
    let all = t.elapsed().as_secs_f64() / (n * files.len()) as f64;
    println!(
        "decode {:.2} ms, whole check {:.2} ms per image",
        decode * 1e3,
        all * 1e3
    );
}
