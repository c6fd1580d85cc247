//! Document files: JSON Lines (plain, gzip or zstd) or Parquet.
//!
//! Every document stage reads either, by the file's name, and writes the format
//! `[storage] documents` names. A Parquet file trawl writes has one row per document and
//! the columns `id`, `text`, `url` (strings) and `meta`, `attrs`, `consent`, `images`,
//! `extra` (JSON strings: the typed metadata, the annotators' signals, the consent record,
//! the images in the text, and the top-level fields other tools wrote), in zstd-compressed
//! row groups of [`ROW_GROUP_ROWS`] documents. Parquet files of other tools (FineWeb, DCLM:
//! `id` and `text`, plus columns of their own) are read too: columns trawl does not know
//! become top-level fields of the document (`Document::extra`), as they would from JSONL.

use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression as PqCompression, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use trawl_core::Document;

use crate::jsonl::{self, kinds, JsonlWriter, LineError};
use crate::StorageError;

/// The format document stages write (`[storage] documents`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocFormat {
    /// zstd-compressed JSON Lines (`.jsonl.zst`).
    #[default]
    Jsonl,
    /// Parquet with zstd-compressed row groups (`.parquet`).
    Parquet,
}

impl DocFormat {
    /// The object name of shard `name` under `prefix` (`filter/00003.parquet`).
    pub fn object(self, prefix: &str, name: &str) -> String {
        match self {
            DocFormat::Jsonl => format!("{prefix}/{name}.jsonl.zst"),
            DocFormat::Parquet => format!("{prefix}/{name}.parquet"),
        }
    }

    /// The config value.
    pub fn name(self) -> &'static str {
        match self {
            DocFormat::Jsonl => "jsonl",
            DocFormat::Parquet => "parquet",
        }
    }
}

/// Documents per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 10_000;

/// The columns trawl writes after `id`, `text` and `url`, each a JSON string.
const JSON_COLUMNS: [&str; 5] = ["meta", "attrs", "consent", "images", "extra"];

/// Whether an object is a Parquet file (by its name).
pub fn is_parquet(name: &str) -> bool {
    name.ends_with(".parquet")
}

/// Whether an object holds documents a stage can read (JSONL or Parquet).
pub fn is_documents(name: &str) -> bool {
    jsonl::is_jsonl(name) || is_parquet(name)
}

/// The documents of one file, each read or the record that could not be (a malformed
/// JSONL line; a Parquet row without `text` or with an unreadable JSON column).
pub fn read(
    name: &str,
    bytes: &[u8],
    max_line: usize,
) -> Result<Vec<Result<Document, LineError>>, StorageError> {
    if is_parquet(name) {
        read_parquet(name, Bytes::copy_from_slice(bytes))
    } else {
        Ok(jsonl::lines_capped::<Document>(name, bytes, max_line)?.collect())
    }
}

/// Like [`read`], one document at a time to `f` (JSONL is decoded as it goes; a Parquet
/// file is read row by row).
pub fn for_each(
    name: &str,
    bytes: &[u8],
    max_line: usize,
    mut f: impl FnMut(Result<Document, LineError>),
) -> Result<(), StorageError> {
    if is_parquet(name) {
        read_parquet(name, Bytes::copy_from_slice(bytes))?
            .into_iter()
            .for_each(f);
    } else {
        jsonl::lines_capped::<Document>(name, bytes, max_line)?.for_each(&mut f);
    }
    Ok(())
}

fn pq_error(name: &str, e: impl std::fmt::Display) -> StorageError {
    StorageError::Malformed {
        what: "Parquet file",
        url: name.to_string(),
        reason: e.to_string(),
    }
}

fn read_parquet(
    name: &str,
    bytes: Bytes,
) -> Result<Vec<Result<Document, LineError>>, StorageError> {
    let reader = SerializedFileReader::new(bytes).map_err(|e| pq_error(name, e))?;
    let rows = reader.get_row_iter(None).map_err(|e| pq_error(name, e))?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| pq_error(name, e))?;
        // a row's position stands in for the line (offset: the row's index)
        let bad = |kind: &'static str, message: String, head: String| LineError {
            file: name.to_string(),
            line: i + 1,
            offset: i as u64,
            bytes: 0,
            kind,
            message,
            head,
        };
        let mut obj = Map::new();
        let mut failed = None;
        for (col, field) in row.get_column_iter() {
            let known_json = JSON_COLUMNS.contains(&col.as_str());
            match (known_json, field) {
                (true, Field::Str(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(m)) if col == "extra" => obj.extend(m),
                    Ok(v) => {
                        obj.insert(col.clone(), v);
                    }
                    Err(e) => {
                        failed = Some(format!("column `{col}` is not JSON: {e}"));
                        break;
                    }
                },
                (_, Field::Null) => {}
                _ => {
                    obj.insert(col.clone(), field.to_json_value());
                }
            }
        }
        let head = obj
            .get("text")
            .and_then(Value::as_str)
            .map(|t| t.chars().take(200).collect())
            .unwrap_or_default();
        if let Some(e) = failed {
            out.push(Err(bad(kinds::MALFORMED_JSON, e, head)));
            continue;
        }
        let kind = if obj.get("text").is_some_and(Value::is_string) {
            kinds::INVALID_RECORD
        } else {
            kinds::MISSING_TEXT
        };
        out.push(
            serde_json::from_value::<Document>(Value::Object(obj))
                .map_err(|e| bad(kind, e.to_string(), head)),
        );
    }
    Ok(out)
}

/// Writes one shard of documents in either format.
pub enum DocWriter {
    /// zstd JSON Lines.
    Jsonl(JsonlWriter),
    /// Parquet: the rows' column values, written out by [`DocWriter::finish`].
    Parquet {
        /// One entry per document (see `columns`).
        docs: Vec<[String; 8]>,
    },
}

impl std::fmt::Debug for DocWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let format = match self {
            DocWriter::Jsonl(_) => "jsonl",
            DocWriter::Parquet { .. } => "parquet",
        };
        write!(f, "DocWriter({format}, {} documents)", self.len())
    }
}

impl DocWriter {
    /// A writer of `format`.
    pub fn new(format: DocFormat) -> DocWriter {
        match format {
            DocFormat::Jsonl => DocWriter::Jsonl(JsonlWriter::for_name("x.jsonl.zst")),
            DocFormat::Parquet => DocWriter::Parquet { docs: Vec::new() },
        }
    }

    /// Adds a document.
    pub fn write(&mut self, d: &Document) {
        match self {
            DocWriter::Jsonl(w) => w.write(d),
            DocWriter::Parquet { docs } => docs.push(columns(d)),
        }
    }

    /// Documents written.
    pub fn len(&self) -> usize {
        match self {
            DocWriter::Jsonl(w) => w.lines(),
            DocWriter::Parquet { docs } => docs.len(),
        }
    }

    /// No documents written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's bytes.
    pub fn finish(self) -> Vec<u8> {
        match self {
            DocWriter::Jsonl(w) => w.finish(),
            DocWriter::Parquet { docs } => {
                write_parquet(&docs).expect("writing Parquet to memory cannot fail")
            }
        }
    }
}

/// A document's column values: id, text, url, then [`JSON_COLUMNS`].
fn columns(d: &Document) -> [String; 8] {
    let json = |v: Value| serde_json::to_string(&v).expect("JSON values serialize");
    let mut extra = Map::new();
    for (k, v) in &d.extra {
        extra.insert(k.clone(), v.clone());
    }
    [
        d.id.as_str().to_string(),
        d.text.clone(),
        d.url.clone(),
        json(serde_json::to_value(&d.meta).unwrap_or_default()),
        json(serde_json::to_value(&d.attrs).unwrap_or_default()),
        json(serde_json::to_value(&d.consent).unwrap_or_default()),
        json(serde_json::to_value(&d.images).unwrap_or_default()),
        json(Value::Object(extra)),
    ]
}

const SCHEMA: &str = "message document {
    REQUIRED BYTE_ARRAY id (UTF8);
    REQUIRED BYTE_ARRAY text (UTF8);
    REQUIRED BYTE_ARRAY url (UTF8);
    REQUIRED BYTE_ARRAY meta (UTF8);
    REQUIRED BYTE_ARRAY attrs (UTF8);
    REQUIRED BYTE_ARRAY consent (UTF8);
    REQUIRED BYTE_ARRAY images (UTF8);
    REQUIRED BYTE_ARRAY extra (UTF8);
}";

fn write_parquet(rows: &[[String; 8]]) -> Result<Vec<u8>, parquet::errors::ParquetError> {
    let schema = Arc::new(parquet::schema::parser::parse_message_type(SCHEMA)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(PqCompression::ZSTD(ZstdLevel::try_new(3)?))
            .set_created_by("trawl".into())
            .build(),
    );
    let mut buf = Vec::new();
    let mut w = SerializedFileWriter::new(&mut buf, schema, props)?;
    for group in rows.chunks(ROW_GROUP_ROWS) {
        let mut rg = w.next_row_group()?;
        let mut c = 0;
        while let Some(mut col) = rg.next_column()? {
            let values: Vec<ByteArray> = group
                .iter()
                .map(|r| ByteArray::from(r[c].as_bytes().to_vec()))
                .collect();
            col.typed::<ByteArrayType>()
                .write_batch(&values, None, None)?;
            col.close()?;
            c += 1;
        }
        rg.close()?;
    }
    w.close()?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(i: usize) -> Document {
        let mut d = Document::new(
            format!("https://h.test/{i}"),
            format!("Text {i}\n\nwith ü, 中文"),
        );
        d.attrs.insert("tokens".into(), (i as u64).into());
        d.meta.lang = Some("en".into());
        d.extra
            .insert("dump".into(), Value::String("CC-MAIN-2024-10".into()));
        d
    }

    #[test]
    fn parquet_round_trip_keeps_every_field() {
        let docs: Vec<Document> = (0..25_003).map(doc).collect();
        let mut w = DocWriter::new(DocFormat::Parquet);
        for d in &docs {
            w.write(d);
        }
        let bytes = w.finish();
        let back: Vec<Document> = read("x.parquet", &bytes, 1 << 20)
            .unwrap()
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(back, docs);
        // three row groups
        let r = SerializedFileReader::new(Bytes::from(bytes)).unwrap();
        assert_eq!(r.metadata().num_row_groups(), 3);
    }

    #[test]
    fn garbage_is_an_error_naming_the_file() {
        let e = read("bad.parquet", b"PAR1 not really", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("bad.parquet"), "{e}");
    }
}
