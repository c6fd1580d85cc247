//! JSONL with optional gzip or zstd compression, chosen by file extension.

use std::io::{BufRead, BufReader, Read, Write};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::StorageError;

/// Compression of a file, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain.
    None,
    /// `.gz`
    Gzip,
    /// `.zst` / `.zstd`
    Zstd,
}

impl Compression {
    /// From a file name's extension.
    pub fn from_name(name: &str) -> Compression {
        if name.ends_with(".gz") {
            Compression::Gzip
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Whether a key looks like a JSONL file trawl can read.
pub fn is_jsonl(name: &str) -> bool {
    [
        ".jsonl",
        ".jsonl.gz",
        ".jsonl.zst",
        ".jsonl.zstd",
        ".json.gz",
        ".json.zst",
        ".ndjson",
    ]
    .iter()
    .any(|e| name.ends_with(e))
}

/// A decompressing reader over bytes.
pub fn decoder<'a>(name: &str, data: &'a [u8]) -> Result<Box<dyn Read + 'a>, StorageError> {
    Ok(match Compression::from_name(name) {
        Compression::None => Box::new(data),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(data)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(data).map_err(
            |source| StorageError::Io {
                url: name.into(),
                source,
            },
        )?),
    })
}

/// Lines longer than this (after decompression) are skipped unread by default: a gzip of
/// zeros or a runaway record cannot make the reader hold more than this much of it.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Why one line of a JSONL object could not be read: counted as a record error of `kind`
/// by the stage reading it, and kept for review with the file and offset.
#[derive(Clone, Debug, PartialEq)]
pub struct LineError {
    /// A fixed, snake_case kind (see [`kinds`]).
    pub kind: &'static str,
    /// The object's name.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// Byte offset of the line in the decompressed stream.
    pub offset: u64,
    /// Bytes of the stream this error covers (the line, or what is lost of a broken stream).
    pub bytes: u64,
    /// The parser's or decoder's message.
    pub message: String,
    /// The line's first bytes (lossy UTF-8), so the record can be told apart in review.
    pub head: String,
}

/// The kinds of [`LineError`].
pub mod kinds {
    /// Not JSON (a syntax error, a cut line).
    pub const MALFORMED_JSON: &str = "malformed_json";
    /// JSON, but no `text` field (documents need one).
    pub const MISSING_TEXT: &str = "missing_text";
    /// JSON with fields of the wrong type.
    pub const INVALID_RECORD: &str = "invalid_record";
    /// Bytes that are not UTF-8.
    pub const INVALID_UTF8: &str = "invalid_utf8";
    /// A line over the reader's cap, skipped without being held in memory.
    pub const LINE_TOO_LONG: &str = "line_too_long";
    /// The compressed stream ends early or is damaged: the rest of the object is lost.
    pub const TRUNCATED_STREAM: &str = "truncated_stream";
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}:{} (offset {}): {}",
            self.kind, self.file, self.line, self.offset, self.message
        )
    }
}

impl std::error::Error for LineError {}

/// One line's outcome: the value, or why the line could not be read.
pub type LineResult<T> = Result<T, LineError>;

/// Reads every line of a JSONL object. A malformed line is returned as an `Err` with its
/// line number (a bad record is data to count, not a reason to abort); a broken compressed
/// stream ends the iteration with one `Err`.
pub fn read_lines<T: DeserializeOwned>(
    name: &str,
    data: &[u8],
) -> Result<Vec<LineResult<T>>, StorageError> {
    Ok(lines(name, data)?.collect())
}

/// An iterator over the records of a JSONL object, decoding one line at a time; lines are
/// read through a buffer of at most the cap, so memory stays bounded whatever the stream
/// holds. A UTF-8 byte order mark before the first line is skipped.
pub struct Lines<'a, T> {
    name: String,
    inner: BufReader<Box<dyn Read + 'a>>,
    buf: Vec<u8>,
    max_line: usize,
    line: usize,
    offset: u64,
    done: bool,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T> std::fmt::Debug for Lines<'a, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lines({}, line {})", self.name, self.line)
    }
}

/// Iterates the records of a JSONL object (see [`Lines`]) with the default line cap.
pub fn lines<'a, T: DeserializeOwned>(
    name: &str,
    data: &'a [u8],
) -> Result<Lines<'a, T>, StorageError> {
    lines_capped(name, data, DEFAULT_MAX_LINE_BYTES)
}

/// Iterates the records of a JSONL object; lines over `max_line` bytes are skipped as
/// [`kinds::LINE_TOO_LONG`].
pub fn lines_capped<'a, T: DeserializeOwned>(
    name: &str,
    data: &'a [u8],
    max_line: usize,
) -> Result<Lines<'a, T>, StorageError> {
    Ok(Lines {
        name: name.to_string(),
        inner: BufReader::with_capacity(64 * 1024, decoder(name, data)?),
        buf: Vec::new(),
        max_line,
        line: 0,
        offset: 0,
        done: false,
        _t: std::marker::PhantomData,
    })
}

/// One raw line: whether it fit under the cap, and its length without the newline.
enum Raw {
    End,
    Line { fits: bool, len: u64 },
}

impl<T> Lines<'_, T> {
    /// Reads the next line into `self.buf` (cleared first), holding at most `max_line`
    /// bytes of it.
    fn read_raw(&mut self) -> std::io::Result<Raw> {
        self.buf.clear();
        let (mut len, mut fits, mut any) = (0u64, true, false);
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(if any {
                    Raw::Line { fits, len }
                } else {
                    Raw::End
                });
            }
            any = true;
            let (piece, used, eol) = match memchr::memchr(b'\n', avail) {
                Some(p) => (&avail[..p], p + 1, true),
                None => (avail, avail.len(), false),
            };
            len += piece.len() as u64;
            if fits && self.buf.len() + piece.len() > self.max_line {
                fits = false;
                self.buf = Vec::new();
            }
            if fits {
                self.buf.extend_from_slice(piece);
            }
            self.inner.consume(used);
            if eol {
                return Ok(Raw::Line { fits, len });
            }
        }
    }

    fn error(&self, kind: &'static str, offset: u64, bytes: u64, message: String) -> LineError {
        LineError {
            kind,
            file: self.name.clone(),
            line: self.line,
            offset,
            bytes,
            message,
            head: String::from_utf8_lossy(&self.buf[..self.buf.len().min(200)]).into_owned(),
        }
    }
}

impl<T: DeserializeOwned> Iterator for Lines<'_, T> {
    type Item = LineResult<T>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let offset = self.offset;
            let raw = match self.read_raw() {
                Ok(r) => r,
                Err(e) => {
                    self.done = true;
                    self.line += 1;
                    return Some(Err(self.error(
                        kinds::TRUNCATED_STREAM,
                        offset,
                        0,
                        format!("compressed stream broken after line {}: {e}", self.line - 1),
                    )));
                }
            };
            let Raw::Line { fits, len } = raw else {
                self.done = true;
                return None;
            };
            self.line += 1;
            self.offset += len + 1;
            if !fits {
                return Some(Err(self.error(
                    kinds::LINE_TOO_LONG,
                    offset,
                    len,
                    format!(
                        "line of {len} bytes is over the cap of {} bytes",
                        self.max_line
                    ),
                )));
            }
            let mut l: &[u8] = &self.buf;
            if self.line == 1 {
                l = l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l);
            }
            let l = l.strip_suffix(b"\r").unwrap_or(l);
            if l.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            return Some(serde_json::from_slice::<T>(l).map_err(|e| {
                let kind = if std::str::from_utf8(l).is_err() {
                    kinds::INVALID_UTF8
                } else if e.classify() != serde_json::error::Category::Data {
                    kinds::MALFORMED_JSON
                } else if e.to_string().starts_with("missing field `text`") {
                    kinds::MISSING_TEXT
                } else {
                    kinds::INVALID_RECORD
                };
                self.error(kind, offset, len, e.to_string())
            }));
        }
        None
    }
}

/// Like [`read_lines`], but hands each line to `f` as it is decoded, so only one record is
/// in memory at a time (besides the object's bytes).
pub fn for_each_line<T: DeserializeOwned>(
    name: &str,
    data: &[u8],
    f: impl FnMut(LineResult<T>),
) -> Result<(), StorageError> {
    lines(name, data)?.for_each(f);
    Ok(())
}

/// Writes JSONL into memory, compressed as the target name says.
pub struct JsonlWriter {
    inner: Inner,
    lines: usize,
}

enum Inner {
    Plain(Vec<u8>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
}

impl std::fmt::Debug for JsonlWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JsonlWriter({} lines)", self.lines)
    }
}

impl JsonlWriter {
    /// A writer for an object called `name` (compression from its extension).
    pub fn for_name(name: &str) -> JsonlWriter {
        let inner = match Compression::from_name(name) {
            Compression::None => Inner::Plain(Vec::new()),
            Compression::Gzip => Inner::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::new(6),
            )),
            Compression::Zstd => Inner::Zstd(
                zstd::stream::write::Encoder::new(Vec::new(), 3).expect("zstd level 3 is valid"),
            ),
        };
        JsonlWriter { inner, lines: 0 }
    }

    /// Appends one record.
    pub fn write<T: Serialize + ?Sized>(&mut self, v: &T) {
        let mut line = serde_json::to_vec(v).expect("records serialise to JSON");
        line.push(b'\n');
        let w: &mut dyn Write = match &mut self.inner {
            Inner::Plain(b) => b,
            Inner::Gzip(g) => g,
            Inner::Zstd(z) => z,
        };
        w.write_all(&line).expect("writing to memory cannot fail");
        self.lines += 1;
    }

    /// Records written so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The finished, compressed bytes.
    pub fn finish(self) -> Vec<u8> {
        match self.inner {
            Inner::Plain(b) => b,
            Inner::Gzip(g) => g.finish().expect("in-memory gzip"),
            Inner::Zstd(z) => z.finish().expect("in-memory zstd"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_all_compressions() {
        for name in ["a.jsonl", "a.jsonl.gz", "a.jsonl.zst"] {
            let mut w = JsonlWriter::for_name(name);
            w.write(&serde_json::json!({"id": "1", "text": "x"}));
            w.write(&serde_json::json!({"id": "2", "text": "y"}));
            let bytes = w.finish();
            let back: Vec<LineResult<serde_json::Value>> = read_lines(name, &bytes).unwrap();
            assert_eq!(back.len(), 2, "{name}");
            assert_eq!(back[1].as_ref().unwrap()["id"], "2");
        }
    }

    #[test]
    fn malformed_lines_are_reported_not_fatal() {
        let data = b"{\"a\":1}\nnot json\n\n{\"a\":2}\n";
        let back: Vec<LineResult<serde_json::Value>> = read_lines("x.jsonl", data).unwrap();
        assert_eq!(back.len(), 3);
        let e = back[1].as_ref().unwrap_err();
        assert_eq!((e.kind, e.line, e.offset), (kinds::MALFORMED_JSON, 2, 8));
        assert!(e.to_string().contains("x.jsonl:2"), "{e}");
        assert_eq!(e.head, "not json");
        assert!(back[2].is_ok());
    }

    #[test]
    fn each_malformed_kind_is_named() {
        let mut data = b"\xEF\xBB\xBF{\"id\":\"1\",\"text\":\"bom on line one\"}\n".to_vec();
        data.extend_from_slice(b"{\"id\":\"2\"}\n");
        data.extend_from_slice(b"{\"id\":\"3\",\"text\":\"bad \xff\xfe bytes\"}\n");
        data.extend_from_slice(b"{\"id\":\"4\",\"text\":5}\n");
        data.extend_from_slice(b"{\"id\":\"5\",\"text\":\"cut\n");
        data.extend_from_slice(&[b'x'; 5000]);
        data.extend_from_slice(b"\n{\"id\":\"6\",\"text\":\"last\"}");
        #[derive(Debug, serde::Deserialize)]
        struct Doc {
            #[allow(dead_code)]
            text: String,
        }
        let back: Vec<LineResult<Doc>> = lines_capped("d.jsonl", &data, 1000).unwrap().collect();
        let kinds: Vec<&str> = back
            .iter()
            .map(|r| r.as_ref().map_or_else(|e| e.kind, |_| "ok"))
            .collect();
        assert_eq!(
            kinds,
            [
                "ok",
                kinds::MISSING_TEXT,
                kinds::INVALID_UTF8,
                kinds::INVALID_RECORD,
                kinds::MALFORMED_JSON,
                kinds::LINE_TOO_LONG,
                "ok"
            ]
        );
        let long = back[5].as_ref().unwrap_err();
        assert_eq!((long.bytes, long.line), (5000, 6));
    }

    #[test]
    fn a_gzip_bomb_line_is_skipped_with_bounded_memory() {
        // 1 GiB of zeros without a newline, then a record: the cap keeps the buffer small
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            enc.write_all(&zeros).unwrap();
        }
        enc.write_all(b"\n{\"text\":\"after\"}\n").unwrap();
        let gz = enc.finish().unwrap();
        let mut it = lines_capped::<serde_json::Value>("bomb.jsonl.gz", &gz, 1 << 20).unwrap();
        let first = it.next().unwrap().unwrap_err();
        assert_eq!((first.kind, first.bytes), (kinds::LINE_TOO_LONG, 1 << 30));
        assert!(it.buf.capacity() <= 2 << 20, "{}", it.buf.capacity());
        assert_eq!(it.next().unwrap().unwrap()["text"], "after");
        assert!(it.next().is_none());
    }

    #[test]
    fn truncated_zstd_reports_error() {
        let mut w = JsonlWriter::for_name("a.jsonl.zst");
        for i in 0..1000 {
            w.write(&serde_json::json!({"id": i, "text": "some text that compresses"}));
        }
        let bytes = w.finish();
        let cut = &bytes[..bytes.len() / 2];
        let back: Vec<LineResult<serde_json::Value>> = read_lines("a.jsonl.zst", cut).unwrap();
        assert_eq!(
            back.last().unwrap().as_ref().unwrap_err().kind,
            kinds::TRUNCATED_STREAM
        );
    }
}
