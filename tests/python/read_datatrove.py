"""Reads a datatrove .ds file with datatrove's own DatatroveFileDataset and prints its
documents as JSON lists of token ids.

Usage: read_datatrove.py DS_PATH TOKEN_SIZE TOTAL_TOKENS
One window of TOTAL_TOKENS tokens holds the whole file; document starts come from the
.ds.index file through return_positions (position 0 starts a document).
"""
import json
import sys

from datatrove.utils.dataset import DatatroveFileDataset

path, token_size, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = DatatroveFileDataset(path, seq_len=total - 1, token_size=token_size, return_positions=True)
assert len(ds) == 1, f"expected one window, got {len(ds)}"
item = ds[0]
ids = item["input_ids"].tolist()
pos = item["positions"].tolist()
docs = []
for t, p in zip(ids, pos):
    if p == 0:
        docs.append([])
    docs[-1].append(t)
print(json.dumps(docs))
