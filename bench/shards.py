#!/usr/bin/env python3
"""Tokenize + write throughput: trawl vs datatrove's DocumentTokenizer, one core each.

Same documents (the labelled pages' main texts from ../shared/testdata/extract, repeated to
the requested size), same tokenizer.json (a byte-level BPE trained by
`trawl shards train-tokenizer` on those documents), both pinned to CPU 0 with taskset, both
writing their native shard format without shuffling. Each tool runs REPEAT times; medians
are reported.

Usage: bench/shards.py [--mb 40] [--repeat 3]   (run by bench/shards.sh, which builds
trawl in release mode and prepares the venv)
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
ap.add_argument("--mb", type=float, default=40)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--vocab", type=int, default=32000)
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-shards-")
gts = sorted(glob.glob(os.path.join(args.shared, "testdata/extract/*/gt/*.txt")))
if not gts:
    sys.exit(f"no ground-truth texts under {args.shared}/testdata/extract (needs ../shared)")
texts = [open(p, encoding="utf-8", errors="replace").read() for p in gts]
texts = [t for t in texts if t.strip()]
corpus_dir = os.path.join(work, "docs")
os.makedirs(corpus_dir)
target = int(args.mb * 1e6)
size, n = 0, 0
with open(os.path.join(corpus_dir, "docs.jsonl"), "w", encoding="utf-8") as f:
    while size < target:
        t = texts[n % len(texts)]
        f.write(json.dumps({"id": f"d{n}", "text": t, "url": f"https://bench.example/{n}"}) + "\n")
        size += len(t.encode())
        n += 1
print(f"corpus: {n} documents, {size / 1e6:.1f} MB of text", flush=True)

# the shared tokenizer file: trained once on the unrepeated texts
train_dir = os.path.join(work, "train")
os.makedirs(train_dir)
with open(os.path.join(train_dir, "docs.jsonl"), "w", encoding="utf-8") as f:
    for i, t in enumerate(texts):
        f.write(json.dumps({"id": f"t{i}", "text": t}) + "\n")
tok = os.path.join(work, "tokenizer.json")
subprocess.run([args.trawl, "--quiet", "shards", "train-tokenizer", "--input", train_dir, "--output", tok, "--vocab-size", str(args.vocab)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

cfg = os.path.join(work, "bench.toml")
with open(cfg, "w") as f:
    f.write(f'[shards]\ntokenizer = "{tok}"\neos_token = "<|endoftext|>"\ntarget_shard_tokens = 100000000000\nformats = ["megatron"]\n')

env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1")


def trawl_once():
    out = os.path.join(work, "trawl-out")
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", args.trawl, "--quiet", "shards", "--config", cfg, "--input", corpus_dir, "--output", out], check=True, env=env, stdout=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    m = json.load(open(os.path.join(out, "shards/manifest.json")))
    return dt, m["tokens"]


DT_SCRIPT = r"""
import sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.tokens import DocumentTokenizer
inp, out, tok, logs = sys.argv[1:5]
LocalPipelineExecutor(
    pipeline=[JsonlReader(inp), DocumentTokenizer(out, tokenizer_name_or_path=tok, eos_token="<|endoftext|>", shuffle_documents=False)],
    tasks=1, workers=1, logging_dir=logs,
).run()
"""


def datatrove_once():
    out = os.path.join(work, "dt-out")
    logs = os.path.join(work, "dt-logs")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(logs, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", sys.executable, "-c", DT_SCRIPT, corpus_dir, out, tok, logs], check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    meta = glob.glob(os.path.join(out, "*.ds.metadata"))[0]
    tokens = int(open(meta).read().split("\n")[1])
    return dt, tokens


rows = {}
for name, fn in [("trawl", trawl_once), ("datatrove", datatrove_once)]:
    runs = [fn() for _ in range(args.repeat)]
    secs = statistics.median(r[0] for r in runs)
    tokens = runs[0][1]
    rows[name] = (secs, tokens)
    print(f"{name:<10} {tokens:>12} tokens  median {secs:7.2f} s  {tokens / secs / 1e3:9.0f} k tokens/s/core  {size / secs / 1e6:6.2f} MB/s  runs={[round(r[0], 2) for r in runs]}", flush=True)

ratio = (rows["trawl"][1] / rows["trawl"][0]) / (rows["datatrove"][1] / rows["datatrove"][0])
print(f"ratio trawl/datatrove (tokens/s per core): {ratio:.1f}x")
if abs(rows["trawl"][1] - rows["datatrove"][1]) > 0:
    print(f"note: token counts differ by {rows['trawl'][1] - rows['datatrove'][1]} (tokenizer options)")
shutil.rmtree(work, ignore_errors=True)
