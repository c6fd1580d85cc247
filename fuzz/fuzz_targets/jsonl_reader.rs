//! Any bytes as a JSONL file, plain or compressed: every line is a document or a counted
//! error, and nothing longer than the cap is held.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for name in ["x.jsonl", "x.jsonl.gz", "x.jsonl.zst"] {
        if let Ok(lines) = trawl_storage::jsonl::lines_capped::<trawl_core::Document>(name, data, 4096) {
            for l in lines {
                if let Ok(d) = l {
                    assert!(d.text.len() <= 4096);
                }
            }
        }
    }
});
