//! Any bytes as a WARC file (gzip per record, one gzip stream, or plain): the resyncing
//! reader never panics, never returns a record over the cap, and accounts for what it skips.
#![no_main]

use libfuzzer_sys::fuzz_target;

const CAP: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let (records, damage) = trawl_storage::warc::read_records_resync(data, CAP);
    for r in &records {
        assert!(r.block.len() <= CAP);
    }
    for d in &damage {
        assert!(d.offset <= data.len() as u64);
    }
    let _ = trawl_storage::warc::read_pages_resync("x.warc.gz", data, CAP);
});
