//! Any bytes as a page: extraction never panics, its text holds no control characters and
//! every image offset is a char boundary inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static EX: LazyLock<trawl_extract::Extractor> = LazyLock::new(|| {
    trawl_extract::Extractor::new(trawl_extract::ExtractConfig {
        min_text_chars: 0,
        ..Default::default()
    })
});

fuzz_target!(|data: &[u8]| {
    // the first byte picks the declared charset, as a Content-Type header would
    let (declared, body) = match data.split_first() {
        Some((b, rest)) => (
            ["utf-8", "windows-1252", "shift_jis", "utf-16le", "gb18030", "koi8-r"]
                .get(*b as usize % 8)
                .copied(),
            rest,
        ),
        None => (None, data),
    };
    if let Ok(doc) = EX.extract_html("https://h.example/dir/page", body, declared) {
        assert!(!doc
            .text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'));
        for im in &doc.images {
            assert!(im.offset <= doc.text.len() && doc.text.is_char_boundary(im.offset));
        }
    }
});
