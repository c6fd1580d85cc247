//! WARC 1.1 (ISO 28500) with one gzip member per record, so any record can be read from its
//! offset. The crawler writes, per page: a `request`, a `response` (headers as received
//! except transfer framing, body decompressed), and a `metadata` record holding trawl's
//! JSON (consent, depth, final URL, rendered DOM) that refers to the response.

use std::io::{BufRead, Read, Write};

use trawl_core::{FetchedPage, WarcLocation};

use crate::StorageError;

/// One WARC record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Header fields in order.
    pub headers: Vec<(String, String)>,
    /// The record block.
    pub block: Vec<u8>,
    /// Byte offset of the record (its gzip member) in the file.
    pub offset: u64,
}

impl Record {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A deterministic record id from its identifying parts, so a rewritten file is identical.
pub fn record_id(parts: &[&str]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update(&[0]);
    }
    let s = format!("{:032x}", h.digest128());
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &s[0..8],
        &s[8..12],
        &s[12..16],
        &s[16..20],
        &s[20..32]
    )
}

/// Writes a WARC file into memory.
#[derive(Debug)]
pub struct WarcWriter {
    buf: Vec<u8>,
    file: String,
}

impl WarcWriter {
    /// A writer for the file `file` (its name relative to the run root), starting with a
    /// `warcinfo` record.
    pub fn new(file: &str, software: &str, date: &str) -> WarcWriter {
        let mut w = WarcWriter {
            buf: Vec::new(),
            file: file.to_string(),
        };
        let info = format!("software: {software}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n");
        w.record(
            &[
                ("WARC-Type", "warcinfo".into()),
                ("WARC-Record-ID", record_id(&[file, "warcinfo"])),
                ("WARC-Date", date.into()),
                (
                    "WARC-Filename",
                    file.rsplit('/').next().unwrap_or(file).into(),
                ),
                ("Content-Type", "application/warc-fields".into()),
            ],
            info.as_bytes(),
        );
        w
    }

    /// Appends a record; returns its offset.
    pub fn record(&mut self, headers: &[(&str, String)], block: &[u8]) -> u64 {
        let offset = self.buf.len() as u64;
        let mut head = String::from("WARC/1.1\r\n");
        for (k, v) in headers {
            head.push_str(k);
            head.push_str(": ");
            head.push_str(&v.replace(['\r', '\n'], " "));
            head.push_str("\r\n");
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        gz.write_all(head.as_bytes()).expect("memory");
        gz.write_all(block).expect("memory");
        gz.write_all(b"\r\n\r\n").expect("memory");
        self.buf.extend_from_slice(&gz.finish().expect("memory"));
        offset
    }

    /// Appends request, response and metadata records for a fetched page; sets
    /// `page.warc` to the response's location.
    pub fn write_page(&mut self, page: &mut FetchedPage, request_headers: &[(String, String)]) {
        let (path, host) = split_target(&page.url);
        let mut req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n");
        for (k, v) in request_headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        let req_id = record_id(&[&self.file, &page.url, "request"]);
        let resp_id = record_id(&[&self.file, &page.url, "response"]);
        self.record(
            &[
                ("WARC-Type", "request".into()),
                ("WARC-Record-ID", req_id),
                ("WARC-Date", page.fetch_time.clone()),
                ("WARC-Target-URI", page.url.clone()),
                ("WARC-Concurrent-To", resp_id.clone()),
                ("Content-Type", "application/http;msgtype=request".into()),
            ],
            req.as_bytes(),
        );
        let offset = if let Some(earlier) = &page.revisit_of {
            // 304 Not Modified: a revisit record (server-not-modified profile) without payload
            let mut block = b"HTTP/1.1 304 Not Modified\r\n".to_vec();
            for (k, v) in page
                .headers
                .iter()
                .filter(|(k, _)| k == "etag" || k == "last-modified" || k == "date")
            {
                block.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
            }
            block.extend_from_slice(b"\r\n");
            self.record(
                &[
                    ("WARC-Type", "revisit".into()),
                    ("WARC-Record-ID", resp_id.clone()),
                    ("WARC-Date", page.fetch_time.clone()),
                    ("WARC-Target-URI", page.url.clone()),
                    (
                        "WARC-Profile",
                        "http://netpreserve.org/warc/1.1/revisit/server-not-modified".into(),
                    ),
                    ("WARC-Refers-To-Target-URI", page.url.clone()),
                    ("WARC-Refers-To-Date", earlier.clone()),
                    ("Content-Type", "application/http;msgtype=response".into()),
                ],
                &block,
            )
        } else {
            let mut block = format!(
                "HTTP/1.1 {} {}\r\n",
                page.status,
                reason_phrase(page.status)
            )
            .into_bytes();
            for (k, v) in &page.headers {
                block.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
            }
            block.extend_from_slice(b"\r\n");
            block.extend_from_slice(&page.body);
            self.record(
                &[
                    ("WARC-Type", "response".into()),
                    ("WARC-Record-ID", resp_id.clone()),
                    ("WARC-Date", page.fetch_time.clone()),
                    ("WARC-Target-URI", page.url.clone()),
                    ("Content-Type", "application/http;msgtype=response".into()),
                ],
                &block,
            )
        };
        page.warc = Some(WarcLocation {
            file: self.file.clone(),
            offset,
        });
        // the rendered DOM has its own record; the metadata JSON does not repeat it
        let rendered = page.rendered.take();
        let meta = serde_json::to_vec(&*page).expect("page metadata serialises");
        page.rendered = rendered;
        self.record(
            &[
                ("WARC-Type", "metadata".into()),
                (
                    "WARC-Record-ID",
                    record_id(&[&self.file, &page.url, "metadata"]),
                ),
                ("WARC-Date", page.fetch_time.clone()),
                ("WARC-Target-URI", page.url.clone()),
                ("WARC-Refers-To", resp_id.clone()),
                ("Content-Type", "application/vnd.trawl.page+json".into()),
            ],
            &meta,
        );
        if let Some(dom) = &page.rendered {
            // WARC 1.1 6.7: a conversion is "an alternative version of another record's
            // content", here the DOM after headless rendering and interaction
            self.record(
                &[
                    ("WARC-Type", "conversion".into()),
                    (
                        "WARC-Record-ID",
                        record_id(&[&self.file, &page.url, "conversion"]),
                    ),
                    ("WARC-Date", page.fetch_time.clone()),
                    ("WARC-Target-URI", page.url.clone()),
                    ("WARC-Refers-To", resp_id),
                    ("Content-Type", "text/html; charset=utf-8".into()),
                ],
                dom.as_bytes(),
            );
        }
    }

    /// The finished file.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

fn split_target(url: &str) -> (String, String) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (host, path) = rest
        .find('/')
        .map_or((rest, "/"), |i| (&rest[..i], &rest[i..]));
    (
        path.split('#').next().unwrap_or("/").to_string(),
        host.to_string(),
    )
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        403 => "Forbidden",
        404 => "Not Found",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Damage found while reading a WARC file: what was skipped, where, and why. Reading goes
/// on after it (at the next gzip member, or the next `WARC/1.` line), so one bad record
/// costs only itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Damage {
    /// `warc_damaged` (bad gzip, bad header, truncated) or `warc_record_too_large`.
    pub kind: &'static str,
    /// Offset in the file where the damage starts.
    pub offset: u64,
    /// Bytes of the file (compressed, as stored) skipped because of it.
    pub bytes_skipped: u64,
    /// What was wrong.
    pub reason: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at offset {} ({} bytes skipped): {}",
            self.kind, self.offset, self.bytes_skipped, self.reason
        )
    }
}

/// The kinds of [`Damage`].
pub mod damage {
    /// A gzip member, header or block that cannot be read.
    pub const DAMAGED: &str = "warc_damaged";
    /// A record whose block is over the reader's cap (skipped without being held).
    pub const TOO_LARGE: &str = "warc_record_too_large";
}

/// The default cap on one record's block after decompression (`storage.max_record_bytes`).
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 * 1024 * 1024;

/// Reads every record of a WARC file (gzip per record, gzip as one stream, or
/// uncompressed). Stops at the first damage with an error naming its offset; records before
/// it are returned with it. See [`read_records_resync`] for the reader that goes on.
pub fn read_records(name: &str, data: &[u8]) -> (Vec<Record>, Option<StorageError>) {
    let (records, damage) = read_records_resync(data, DEFAULT_MAX_RECORD_BYTES);
    match damage.first() {
        Some(d) => {
            let before: Vec<Record> = records
                .into_iter()
                .filter(|r| r.offset < d.offset)
                .collect();
            (before, Some(malformed(name, d.offset, d.reason.clone())))
        }
        None => (records, None),
    }
}

/// Reads every record of a WARC file, skipping damage: a damaged gzip member is skipped to
/// the next member (each record is its own member in well-formed files), damaged
/// uncompressed data to the next `WARC/1.` line, and a block over `max_record` bytes is
/// read through without being kept. Memory stays within one record of at most the cap.
pub fn read_records_resync(data: &[u8], max_record: usize) -> (Vec<Record>, Vec<Damage>) {
    let mut out = Vec::new();
    let mut damage = Vec::new();
    if looks_gzipped(data) {
        let mut pos = 0usize;
        while pos < data.len() {
            let member = &data[pos..];
            let mut dec = flate2::bufread::GzDecoder::new(member);
            let result = parse_stream(
                &mut std::io::BufReader::new(&mut dec),
                pos as u64,
                max_record,
                &mut out,
                &mut damage,
            );
            let next = match result {
                Ok(()) => {
                    let rest = dec.into_inner().len();
                    pos + (member.len() - rest).max(1)
                }
                Err(e) => {
                    // resync at the next gzip member header
                    let next = next_gzip_member(data, pos + 1);
                    damage.push(Damage {
                        kind: damage::DAMAGED,
                        offset: pos as u64,
                        bytes_skipped: (next - pos) as u64,
                        reason: format!("bad gzip member: {e}"),
                    });
                    next
                }
            };
            pos = next;
        }
    } else {
        let mut pos = 0usize;
        while pos < data.len() {
            let mut r = &data[pos..];
            let before = r.len();
            match parse_stream(&mut r, pos as u64, max_record, &mut out, &mut damage) {
                Ok(()) => break,
                Err(e) => {
                    let at = pos + (before - r.len());
                    let next = next_warc_line(data, at + 1);
                    damage.push(Damage {
                        kind: damage::DAMAGED,
                        offset: at as u64,
                        bytes_skipped: (next - at) as u64,
                        reason: e.to_string(),
                    });
                    pos = next;
                }
            }
        }
    }
    (out, damage)
}

/// Whether `data` is a gzip-per-record WARC: it starts with a gzip header, or its start is
/// damaged and it holds gzip member headers but no plain `WARC/1.` record line (a plain
/// WARC's header lines are readable bytes; a compressed one's never are).
fn looks_gzipped(data: &[u8]) -> bool {
    if data.starts_with(&[0x1f, 0x8b]) {
        return true;
    }
    if data.starts_with(b"WARC/") {
        return false;
    }
    memchr::memmem::find(data, b"\nWARC/1.").is_none()
        && memchr::memmem::find(data, &[0x1f, 0x8b, 0x08]).is_some()
}

/// The offset of the next gzip member header (`1f 8b 08`) at or after `from`.
fn next_gzip_member(data: &[u8], from: usize) -> usize {
    memchr::memmem::find(&data[from.min(data.len())..], &[0x1f, 0x8b, 0x08])
        .map_or(data.len(), |p| from + p)
}

/// The offset of the next line starting `WARC/1.` at or after `from`.
fn next_warc_line(data: &[u8], from: usize) -> usize {
    let mut i = from.min(data.len());
    while let Some(p) = memchr::memmem::find(&data[i..], b"WARC/1.") {
        let at = i + p;
        if at == 0 || data[at - 1] == b'\n' {
            return at;
        }
        i = at + 1;
    }
    data.len()
}

/// Parses records from `r` until it ends: `Ok` at a clean end, `Err` when the stream itself
/// is damaged (bad gzip, a bad header, a truncated block). An oversized block is read
/// through and recorded in `damage`; parsing goes on after it. Every record gets `offset`
/// (the start of its gzip member, or of its uncompressed position for plain files).
fn parse_stream<R: BufRead>(
    r: &mut R,
    offset: u64,
    max_record: usize,
    out: &mut Vec<Record>,
    damage: &mut Vec<Damage>,
) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    let bad = |m: String| Error::new(ErrorKind::InvalidData, m);
    let mut plain_offset = offset;
    let mut first = true;
    loop {
        // skip blank lines between records
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = Read::take(&mut *r, 64 * 1024).read_until(b'\n', &mut line)?;
            if n == 0 {
                return Ok(());
            }
            if !line.iter().all(|b| b.is_ascii_whitespace()) {
                break;
            }
            plain_offset += n as u64;
        }
        let record_offset = plain_offset;
        if !line.starts_with(b"WARC/1.") {
            return Err(bad(format!(
                "not a WARC record (starts with {:?})",
                String::from_utf8_lossy(&line[..line.len().min(20)])
            )));
        }
        let mut head_len = line.len();
        let mut headers = Vec::new();
        loop {
            line.clear();
            let n = Read::take(&mut *r, 64 * 1024).read_until(b'\n', &mut line)?;
            head_len += n;
            if n == 0 {
                return Err(bad("truncated: no end of WARC header".into()));
            }
            if line == b"\r\n" || line == b"\n" {
                break;
            }
            if headers.len() > 1000 || head_len > 1 << 20 {
                return Err(bad("WARC header over 1 MiB".into()));
            }
            let l =
                std::str::from_utf8(&line).map_err(|_| bad("WARC header is not UTF-8".into()))?;
            if let Some((k, v)) = l.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let len: u64 = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("Content-Length"))
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| bad("missing or invalid Content-Length".into()))?;
        // the first record of a stream is at the stream's offset (its gzip member); later
        // ones (a WARC gzipped as one stream) at their offset in the decompressed data
        let rec_offset = if first { offset } else { record_offset };
        first = false;
        if len > max_record as u64 {
            let skipped = std::io::copy(&mut Read::take(&mut *r, len), &mut std::io::sink())?;
            if skipped < len {
                return Err(bad(format!(
                    "truncated: block of {len} bytes, {skipped} present"
                )));
            }
            damage.push(Damage {
                kind: damage::TOO_LARGE,
                offset: rec_offset,
                bytes_skipped: 0,
                reason: format!("record block of {len} bytes is over the cap of {max_record}"),
            });
        } else {
            let mut block = Vec::with_capacity(len as usize);
            Read::take(&mut *r, len).read_to_end(&mut block)?;
            if (block.len() as u64) < len {
                return Err(bad(format!(
                    "truncated: block of {len} bytes, {} present",
                    block.len()
                )));
            }
            out.push(Record {
                headers,
                block,
                offset: rec_offset,
            });
        }
        plain_offset = record_offset + head_len as u64 + len;
    }
}

fn malformed(name: &str, offset: u64, reason: String) -> StorageError {
    StorageError::Malformed {
        what: "WARC record",
        url: format!("{name}@{offset}"),
        reason,
    }
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

/// Reassembles the pages of a WARC file: each `response` with its trawl `metadata` record
/// when present. Responses from other crawlers (no metadata) become pages with the
/// response's URL, date, status, headers and body.
pub fn read_pages(name: &str, data: &[u8]) -> (Vec<FetchedPage>, Option<StorageError>) {
    let (records, err) = read_records(name, data);
    (pages_of(name, &records), err)
}

/// Like [`read_pages`], reading past damage (see [`read_records_resync`]).
pub fn read_pages_resync(
    name: &str,
    data: &[u8],
    max_record: usize,
) -> (Vec<FetchedPage>, Vec<Damage>) {
    let (records, damage) = read_records_resync(data, max_record);
    (pages_of(name, &records), damage)
}

fn pages_of(name: &str, records: &[Record]) -> Vec<FetchedPage> {
    let mut pages: Vec<FetchedPage> = Vec::new();
    let mut by_id: std::collections::HashMap<String, usize> = Default::default();
    for r in records {
        match r.header("WARC-Type") {
            Some("response") | Some("revisit") => {
                let mut p = FetchedPage {
                    url: r
                        .header("WARC-Target-URI")
                        .unwrap_or("")
                        .trim_matches(['<', '>'])
                        .to_string(),
                    fetch_time: r.header("WARC-Date").unwrap_or("").to_string(),
                    warc: Some(WarcLocation {
                        file: name.to_string(),
                        offset: r.offset,
                    }),
                    ..Default::default()
                };
                p.final_url = p.url.clone();
                if let Some(i) = find(&r.block, b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&r.block[..i]);
                    let mut lines = head.split("\r\n");
                    let status_line = lines.next().unwrap_or("");
                    p.status = status_line
                        .split_whitespace()
                        .nth(1)
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    for l in lines {
                        if let Some((k, v)) = l.split_once(':') {
                            p.headers
                                .push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                        }
                    }
                    p.body = r.block[i + 4..].to_vec();
                } else {
                    p.body = r.block.clone();
                }
                if let Some(id) = r.header("WARC-Record-ID") {
                    by_id.insert(id.to_string(), pages.len());
                }
                pages.push(p);
            }
            Some("metadata") => {
                let target = r
                    .header("WARC-Refers-To")
                    .and_then(|id| by_id.get(id))
                    .copied();
                if let (Some(i), Some("application/vnd.trawl.page+json")) =
                    (target, r.header("Content-Type"))
                {
                    if let Ok(meta) = serde_json::from_slice::<FetchedPage>(&r.block) {
                        let body = std::mem::take(&mut pages[i].body);
                        let warc = pages[i].warc.clone();
                        let rendered = pages[i].rendered.take().or(meta.rendered.clone());
                        pages[i] = FetchedPage {
                            body,
                            warc,
                            rendered,
                            ..meta
                        };
                    }
                }
            }
            Some("conversion") => {
                if let Some(&i) = r.header("WARC-Refers-To").and_then(|id| by_id.get(id)) {
                    pages[i].rendered = Some(String::from_utf8_lossy(&r.block).into_owned());
                }
            }
            _ => {}
        }
    }
    pages
}

/// Whether a key looks like a WARC file.
pub fn is_warc(name: &str) -> bool {
    name.ends_with(".warc.gz") || name.ends_with(".warc")
}

#[cfg(test)]
mod tests {
    use super::*;
    use trawl_core::Consent;

    fn page(url: &str, body: &str) -> FetchedPage {
        FetchedPage {
            url: url.into(),
            final_url: url.into(),
            fetch_time: "2026-01-01T00:00:00Z".into(),
            status: 200,
            headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
            body: body.as_bytes().to_vec(),
            consent: Consent {
                crawl_allowed: Some(true),
                ..Default::default()
            },
            depth: 2,
            ..Default::default()
        }
    }

    #[test]
    fn a_damaged_first_gzip_header_costs_only_the_first_record() {
        // found by tests/props.rs: one flipped bit in the file's first byte made the reader
        // take the whole file for a plain WARC and lose every page (it now costs the first
        // member)
        let mut w = WarcWriter::new("a.warc.gz", "t", "2026-01-01T00:00:00Z");
        for i in 0..4 {
            w.write_page(&mut page(&format!("http://a.test/{i}"), "<p>text</p>"), &[]);
        }
        let mut bytes = w.finish();
        bytes[0] ^= 1;
        let (pages, damage) = read_pages_resync("a.warc.gz", &bytes, 1 << 20);
        // the first member is the warcinfo record: every page is still there
        assert_eq!(pages.len(), 4, "{damage:?}");
        assert_eq!(pages[0].url, "http://a.test/0");
        assert_eq!((damage.len(), damage[0].offset), (1, 0));
        // a plain WARC whose first byte is damaged still reads as plain
        let mut plain = b"XARC/1.1\r\n".to_vec();
        plain.extend_from_slice(b"WARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n");
        plain.extend_from_slice(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n\r\n\x1f\x8b\x08");
        assert!(!looks_gzipped(&plain));
        assert!(looks_gzipped(&bytes));
    }

    #[test]
    fn roundtrip_pages() {
        let mut w = WarcWriter::new(
            "crawl/warc/00000.warc.gz",
            "trawl test",
            "2026-01-01T00:00:00Z",
        );
        let mut a = page("http://a.test/x", "<p>hello</p>");
        let mut b = page("http://b.test/", "<p>world \r\n\r\n with blank lines</p>");
        w.write_page(&mut a, &[("User-Agent".into(), "trawl".into())]);
        w.write_page(&mut b, &[]);
        let bytes = w.finish();
        let (pages, err) = read_pages("crawl/warc/00000.warc.gz", &bytes);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0], a);
        assert_eq!(pages[1].body, b.body);
        assert_eq!(pages[1].depth, 2);
        // deterministic bytes
        let mut w2 = WarcWriter::new(
            "crawl/warc/00000.warc.gz",
            "trawl test",
            "2026-01-01T00:00:00Z",
        );
        let (mut a2, mut b2) = (
            page("http://a.test/x", "<p>hello</p>"),
            page("http://b.test/", "<p>world \r\n\r\n with blank lines</p>"),
        );
        w2.write_page(&mut a2, &[("User-Agent".into(), "trawl".into())]);
        w2.write_page(&mut b2, &[]);
        assert_eq!(w2.finish(), bytes);
    }

    #[test]
    fn rendered_dom_is_a_conversion_record_referring_to_the_response() {
        let mut w = WarcWriter::new("f.warc.gz", "t", "2026-01-01T00:00:00Z");
        let mut p = page("http://a.test/app", "<div id=root></div>");
        p.rendered =
            Some("<html><body><div id=root><p>inserted by script</p></div></body></html>".into());
        p.render = Some(trawl_core::RenderInfo {
            rendered: true,
            reason: "empty_app_root".into(),
            attempts: 1,
            ..Default::default()
        });
        w.write_page(&mut p, &[]);
        let bytes = w.finish();
        let (records, _) = read_records("f.warc.gz", &bytes);
        let resp = records
            .iter()
            .find(|r| r.header("WARC-Type") == Some("response"))
            .unwrap();
        let conv = records
            .iter()
            .find(|r| r.header("WARC-Type") == Some("conversion"))
            .expect("a conversion record");
        assert_eq!(conv.header("WARC-Refers-To"), resp.header("WARC-Record-ID"));
        assert_eq!(conv.block, p.rendered.as_ref().unwrap().as_bytes());
        let meta = records
            .iter()
            .find(|r| r.header("WARC-Type") == Some("metadata"))
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&meta.block).contains("inserted by script"),
            "the DOM is stored once"
        );
        let (pages, err) = read_pages("f.warc.gz", &bytes);
        assert!(err.is_none());
        assert_eq!(pages[0], p);
    }

    #[test]
    fn truncated_file_keeps_what_is_readable() {
        let mut w = WarcWriter::new("f.warc.gz", "t", "2026-01-01T00:00:00Z");
        for i in 0..5 {
            w.write_page(&mut page(&format!("http://a.test/{i}"), "<p>x</p>"), &[]);
        }
        let bytes = w.finish();
        let cut = &bytes[..bytes.len() - 30];
        let (pages, err) = read_pages("f.warc.gz", cut);
        assert_eq!(
            pages.len(),
            5,
            "responses before the damaged metadata record survive"
        );
        assert!(err.is_some());
        let (_, err) = read_pages("junk.warc.gz", b"\x1f\x8bnot really gzip");
        assert!(err.is_some());
        let (pages, err) = read_pages("junk.warc", b"hello");
        assert!(pages.is_empty() && err.is_some());
    }

    #[test]
    fn reads_uncompressed_foreign_warc() {
        let body = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>";
        let rec = format!("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://z.test/\r\nWARC-Date: 2020-01-01T00:00:00Z\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n", body.len());
        let data = format!("{rec}{rec}");
        let (pages, err) = read_pages("x.warc", data.as_bytes());
        assert!(err.is_none(), "{err:?}");
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].status, 200);
        assert_eq!(pages[0].body, b"<p>x</p>");
    }

    fn five_pages() -> Vec<u8> {
        let mut w = WarcWriter::new("f.warc.gz", "t", "2026-01-01T00:00:00Z");
        for i in 0..5 {
            w.write_page(&mut page(&format!("http://a.test/{i}"), "<p>x</p>"), &[]);
        }
        w.finish()
    }

    /// The gzip member (start, end) of the response record of `url` in a per-record WARC.
    fn response_member(bytes: &[u8], url: &str) -> (usize, usize) {
        let (records, damage) = read_records_resync(bytes, DEFAULT_MAX_RECORD_BYTES);
        assert!(damage.is_empty());
        let i = records
            .iter()
            .position(|r| {
                r.header("WARC-Type") == Some("response")
                    && r.header("WARC-Target-URI") == Some(url)
            })
            .unwrap();
        (records[i].offset as usize, records[i + 1].offset as usize)
    }

    #[test]
    fn a_damaged_member_costs_only_its_record() {
        let bytes = five_pages();
        // spoil the middle of the second page's response member
        let (a, b) = response_member(&bytes, "http://a.test/1");
        let mut bad = bytes.clone();
        for x in &mut bad[a + 20..b - 10] {
            *x ^= 0x5a;
        }
        let (pages, damage) = read_pages_resync("f.warc.gz", &bad, DEFAULT_MAX_RECORD_BYTES);
        assert_eq!(damage.len(), 1, "{damage:?}");
        assert_eq!(damage[0].kind, damage::DAMAGED);
        assert_eq!(damage[0].offset, a as u64);
        assert_eq!(damage[0].bytes_skipped, (b - a) as u64);
        let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(urls.len(), 4, "every other page survives: {urls:?}");
        assert!(!urls.contains(&"http://a.test/1"));
        // the stopping reader still returns everything before the damage
        let (before, err) = read_pages("f.warc.gz", &bad);
        assert_eq!(before.len(), 1);
        assert!(err.is_some());
    }

    #[test]
    fn a_warc_gzipped_as_one_stream_is_read() {
        let bytes = five_pages();
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut plain)
            .unwrap();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        let one = enc.finish().unwrap();
        let (pages, damage) = read_pages_resync("one.warc.gz", &one, DEFAULT_MAX_RECORD_BYTES);
        assert!(damage.is_empty(), "{damage:?}");
        assert_eq!(pages.len(), 5);
        let (pages, err) = read_pages("one.warc.gz", &one);
        assert_eq!((pages.len(), err.is_none()), (5, true));
        // and uncompressed, with garbage in the middle: resync at the next WARC/1. line
        let mut junk = plain.clone();
        let second = memchr::memmem::find_iter(&plain, b"WARC/1.")
            .nth(3)
            .unwrap();
        junk.splice(
            second..second,
            b"garbage that is no record\r\n".iter().copied(),
        );
        let (pages, damage) = read_pages_resync("p.warc", &junk, DEFAULT_MAX_RECORD_BYTES);
        assert_eq!(damage.len(), 1, "{damage:?}");
        assert_eq!(pages.len(), 5);
    }

    #[test]
    fn an_oversized_record_is_skipped_with_bounded_memory() {
        // a response whose block is 256 MiB of zeros (a few hundred KB gzipped)
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
        let len = 256u64 << 20;
        write!(
            enc,
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.test/big\r\nContent-Length: {len}\r\n\r\n"
        )
        .unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..256 {
            enc.write_all(&zeros).unwrap();
        }
        enc.write_all(b"\r\n\r\n").unwrap();
        let mut bytes = enc.finish().unwrap();
        bytes.extend(five_pages());
        let (pages, damage) = read_pages_resync("big.warc.gz", &bytes, 1 << 20);
        assert_eq!(damage.len(), 1);
        assert_eq!(damage[0].kind, damage::TOO_LARGE);
        assert_eq!(pages.len(), 5, "the records after it are read");
    }
}
