"""Reads Megatron shards with megatron-core's IndexedDataset and prints their tokens.

Usage: read_megatron.py PREFIX [PREFIX ...]   (PREFIX = path without .bin/.idx)
Prints one JSON object: {prefix: {"documents": n, "sequences": [[tok, ...], ...]}}.
"""
import json
import sys

from megatron.core.datasets.indexed_dataset import IndexedDataset

out = {}
for prefix in sys.argv[1:]:
    ds = IndexedDataset(prefix, multimodal=False, mmap=True)
    seqs = [ds[i].tolist() for i in range(len(ds))]
    out[prefix] = {
        "documents": int(ds.document_indices.shape[0] - 1),
        "sequences": seqs,
        "dtype": str(ds.index.dtype.__name__) if hasattr(ds.index.dtype, "__name__") else str(ds.index.dtype),
    }
print(json.dumps(out))
