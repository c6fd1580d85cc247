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

/// One line's outcome: the value, or why the line could not be read.
pub type LineResult<T> = Result<T, String>;

/// Reads every line of a JSONL object. A malformed line is returned as an `Err` with its
/// line number (a bad record is data to count, not a reason to abort); a broken compressed
/// stream ends the iteration with one `Err`.
pub fn read_lines<T: DeserializeOwned>(
    name: &str,
    data: &[u8],
) -> Result<Vec<LineResult<T>>, StorageError> {
    Ok(lines(name, data)?.collect())
}

/// An iterator over the records of a JSONL object, decoding one line at a time.
pub struct Lines<'a, T> {
    name: String,
    inner: std::io::Split<BufReader<Box<dyn Read + 'a>>>,
    line: usize,
    done: bool,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T> std::fmt::Debug for Lines<'a, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lines({}, line {})", self.name, self.line)
    }
}

/// Iterates the records of a JSONL object (see [`Lines`]).
pub fn lines<'a, T: DeserializeOwned>(
    name: &str,
    data: &'a [u8],
) -> Result<Lines<'a, T>, StorageError> {
    Ok(Lines {
        name: name.to_string(),
        inner: BufReader::new(decoder(name, data)?).split(b'\n'),
        line: 0,
        done: false,
        _t: std::marker::PhantomData,
    })
}

impl<T: DeserializeOwned> Iterator for Lines<'_, T> {
    type Item = LineResult<T>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.line += 1;
            match self.inner.next()? {
                Ok(l) => {
                    let l = l.strip_suffix(b"\r").unwrap_or(&l);
                    if l.iter().all(|b| b.is_ascii_whitespace()) {
                        continue;
                    }
                    return Some(
                        serde_json::from_slice::<T>(l)
                            .map_err(|e| format!("{}:{}: {e}", self.name, self.line)),
                    );
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(format!(
                        "{}: stream broken after line {}: {e}",
                        self.name,
                        self.line - 1
                    )));
                }
            }
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
    pub fn write<T: Serialize>(&mut self, v: &T) {
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
        assert!(back[1].as_ref().unwrap_err().contains("x.jsonl:2"));
        assert!(back[2].is_ok());
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
        assert!(back.last().unwrap().is_err());
    }
}
