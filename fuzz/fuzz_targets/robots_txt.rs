//! Any bytes as robots.txt, matched against a URL taken from the input: preprocessing,
//! matching and the rule explanation never panic, and matching is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // the last line of the input is the path to match
    let (body, path) = match data.iter().rposition(|b| *b == b'\n') {
        Some(i) => (&data[..i], String::from_utf8_lossy(&data[i + 1..]).into_owned()),
        None => (data, "/".to_string()),
    };
    let url = format!("https://h.example/{}", path.trim_start_matches('/'));
    let _ = trawl_crawler::robots_preprocess(body);
    let allowed = trawl_crawler::robots_allowed(body, "trawl", &url);
    assert_eq!(allowed, trawl_crawler::robots_allowed(body, "trawl", &url));
    let _ = trawl_crawler::matched_rule(body, "trawl", &url);
    let _ = trawl_crawler::match_path(&url);
});
