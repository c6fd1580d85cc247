//! Any text as markup: trawl's tokenizer, feeding html5ever's tree builder, builds the tree
//! html5ever's own tokenizer builds whenever it takes the markup (it hands the rest to
//! html5ever's), in the same quirks mode; and a sink without a tree (the crawler's link
//! scan's kind) is handed the same tokens by both.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    trawl_core::parse::check(&text);
    trawl_core::parse::check_tokens(&text);
});
