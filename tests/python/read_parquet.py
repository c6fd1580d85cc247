"""Reads trawl's Parquet document files with pyarrow and with Hugging Face `datasets`, and
prints their rows as JSON lines (sorted by nothing: file order), so the Rust test can compare
them with the JSONL path. Also writes a FineWeb-style Parquet file when asked.

  read_parquet.py read FILE...         -> one JSON object per row on stdout
  read_parquet.py fineweb OUT IN.jsonl -> OUT: columns id, text, url, dump (snappy, pyarrow's default)
"""
import json
import sys

import pyarrow.parquet as pq


def read(files):
    import datasets

    total = 0
    for f in files:
        t = pq.read_table(f)
        names = t.column_names
        assert names[:3] == ["id", "text", "url"], names
        assert str(t.schema.field("text").type) == "string", t.schema
        meta = pq.ParquetFile(f).metadata
        for g in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                assert meta.row_group(g).column(c).compression == "ZSTD", meta.row_group(g).column(c)
        for r in t.to_pylist():
            print(json.dumps(r, ensure_ascii=False))
        total += t.num_rows
    # Hugging Face datasets reads the same rows (all files as one split)
    ds = datasets.load_dataset("parquet", data_files=list(files), split="train")
    assert ds.num_rows == total, (ds.num_rows, total)


def fineweb(out, src):
    import pyarrow as pa

    rows = [json.loads(l) for l in open(src, encoding="utf-8") if l.strip()]
    t = pa.table({
        "id": [r["id"] for r in rows],
        "text": [r["text"] for r in rows],
        "url": [r.get("url", "") for r in rows],
        "dump": [r.get("dump") for r in rows],
    })
    pq.write_table(t, out)


if __name__ == "__main__":
    if sys.argv[1] == "read":
        read(sys.argv[2:])
    elif sys.argv[1] == "fineweb":
        fineweb(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
