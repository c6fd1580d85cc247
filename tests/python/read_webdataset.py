"""Iterates WebDataset shards with the `webdataset` package and prints what it saw.

Usage: read_webdataset.py pairs|interleaved SHARD.tar [...]
Prints {"samples": [{"key":..., "files": [...], "json": {...}, "image_sizes": [[w, h], ...]}]}.
Images are decoded with PIL through webdataset's own decoder.
"""
import json
import sys

import webdataset as wds

kind, shards = sys.argv[1], sys.argv[2:]
out = {"samples": []}
# empty shards are legal (a part without images); webdataset cannot open a tar with no members
shards = [s for s in shards if any(True for _ in wds.tariterators.tar_file_expander([{"stream": open(s, "rb"), "url": s}]))]
if shards:
    ds = wds.WebDataset(shards, shardshuffle=False).decode("pil")
    for sample in ds:
        images = {k: v for k, v in sample.items() if k.endswith("jpg")}
        meta = sample["json"]
        if kind == "interleaved":
            files = [m["file"] for m in meta["image_meta"] if m]
            assert sorted(files) == sorted(images), (files, list(images))
            assert len(meta["texts"]) == len(meta["images"]) == len(meta["image_meta"])
            assert all((t is None) != (i is None) for t, i in zip(meta["texts"], meta["images"]))
        else:
            assert list(images) == ["jpg"], list(sample)
        out["samples"].append({"key": sample["__key__"], "files": sorted(images), "json": meta, "image_sizes": [list(images[k].size) for k in sorted(images)]})
print(json.dumps(out))
