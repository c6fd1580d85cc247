"""Reads WARC files with warcio (strict about the WARC and HTTP headers) and prints counts.

Usage: read_warc.py FILE.warc.gz [...]
Prints {"records": n, "types": {...}, "responses": [{"uri":..., "status":..., "length":...}]}.
"""
import json
import sys

from warcio.archiveiterator import ArchiveIterator

out = {"records": 0, "types": {}, "responses": []}
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f, check_digests=True, ensure_http_headers=True):
            out["records"] += 1
            out["types"][rec.rec_type] = out["types"].get(rec.rec_type, 0) + 1
            body = rec.content_stream().read()
            assert rec.rec_headers.get_header("WARC-Record-ID"), "record id"
            assert rec.rec_headers.get_header("WARC-Date"), "date"
            if rec.rec_type == "response":
                assert rec.http_headers is not None
                out["responses"].append({"uri": rec.rec_headers.get_header("WARC-Target-URI"), "status": int(rec.http_headers.get_statuscode()), "length": len(body)})
print(json.dumps(out))
