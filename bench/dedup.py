#!/usr/bin/env python3
"""Near-dedup end to end: trawl vs datatrove's four MinHash stages, one core each.

The corpus: N synthetic documents (Zipfian vocabulary of 30,000 words, 150-600 words each)
in clusters of near duplicates (0-4 variants per base document with 0-35% of words
replaced), written once as JSONL and read by both tools. datatrove runs
MinhashDedupSignature -> MinhashDedupBuckets -> MinhashDedupCluster -> MinhashDedupFilter
(5-grams, 14 buckets x 8 hashes, its defaults for English: spaCy word splitting) with one
task; trawl runs `trawl dedup` (streaming MinHash LSH, 5-word shingles, 20 bands x 6 rows,
true-Jaccard verification). Both are pinned to CPU 0; wall time and peak RSS come from
GNU time.

Usage: bench/dedup.py --trawl PATH [--docs 100000] [--only trawl|datatrove] [--work DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--trawl")
ap.add_argument("--docs", type=int, default=100_000)
ap.add_argument("--only", choices=["trawl", "datatrove"])
ap.add_argument("--work", default=None)
args = ap.parse_args()

work = args.work or tempfile.mkdtemp(prefix="trawl-bench-dedup-")
os.makedirs(work, exist_ok=True)
corpus = os.path.join(work, "corpus")
if not os.path.exists(os.path.join(corpus, "docs.jsonl")):
    os.makedirs(corpus, exist_ok=True)
    rng = random.Random(42)
    def word(i):
        s = ""
        while True:
            s += chr(97 + i % 26)
            i //= 26
            if i == 0:
                return s
    vocab = [word(i) for i in range(30000)]
    from itertools import accumulate
    cum = list(accumulate(1 / (r ** 1.1) for r in range(1, 30001)))
    n = 0
    with open(os.path.join(corpus, "docs.jsonl"), "w") as f:
        c = 0
        while n < args.docs:
            base = rng.choices(vocab, cum_weights=cum, k=150 + rng.randrange(450))
            f.write(json.dumps({"id": f"c{c}-0", "text": " ".join(base)}) + "\n")
            n += 1
            for k in range(1, 1 + rng.randrange(5)):
                if n >= args.docs:
                    break
                rate = rng.random() * 0.35
                repl = iter(rng.choices(vocab, cum_weights=cum, k=len(base)))
                w = [next(repl) if rng.random() < rate else x for x in base]
                f.write(json.dumps({"id": f"c{c}-{k}", "text": " ".join(w)}) + "\n")
                n += 1
            c += 1
    print(f"corpus: {n} documents in {c} clusters -> {corpus}", flush=True)


def timed(cmd, env=None):
    out = subprocess.run(["/usr/bin/time", "-v", "taskset", "-c", "0"] + cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr).group(1)
    parts = [float(p) for p in wall.split(":")]
    secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1))
    return secs, rss


results = {}
if args.only in (None, "trawl"):
    out = os.path.join(work, "trawl-out")
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, "trawl.toml")
    with open(cfg, "w") as f:
        f.write("[dedup]\nexact = true\nnear = true\n")
    secs, rss = timed([args.trawl, "--quiet", "dedup", "--config", cfg, "--input", corpus, "--output", out])
    stats = json.load(open(os.path.join(out, "stats/dedup/00000.json")))
    kept = stats["stages"]["near_dedup"]["kept"]
    results["trawl"] = {"secs": secs, "rss_mb": rss / 1024, "kept": kept}

if args.only in (None, "datatrove"):
    script = r'''
import sys
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup import MinhashDedupSignature, MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter
from datatrove.pipeline.dedup.minhash import MinhashConfig
inp, base = sys.argv[1], sys.argv[2]
cfg = MinhashConfig()
run = lambda steps, name, tasks=1: LocalPipelineExecutor(pipeline=steps, tasks=tasks, workers=1, logging_dir=f"{base}/logs/{name}").run()
run([JsonlReader(inp), MinhashDedupSignature(output_folder=f"{base}/sigs", config=cfg)], "sigs")
run([MinhashDedupBuckets(input_folder=f"{base}/sigs", output_folder=f"{base}/buckets", config=cfg)], "buckets", tasks=cfg.num_buckets)
run([MinhashDedupCluster(input_folder=f"{base}/buckets", output_folder=f"{base}/ids", config=cfg)], "cluster")
run([JsonlReader(inp), MinhashDedupFilter(input_folder=f"{base}/ids"), JsonlWriter(f"{base}/out")], "filter")
'''
    base = os.path.join(work, "dt")
    shutil.rmtree(base, ignore_errors=True)
    secs, rss = timed([sys.executable, "-c", script, corpus, base])
    kept = 0
    import glob, gzip
    for p in glob.glob(os.path.join(base, "out", "*")):
        op = gzip.open if p.endswith(".gz") else open
        with op(p, "rt") as f:
            kept += sum(1 for _ in f)
    results["datatrove"] = {"secs": secs, "rss_mb": rss / 1024, "kept": kept}

n = args.docs
for name, r in results.items():
    print(f"{name:<10} {n / r['secs']:10.0f} docs/s/core  {r['secs']:9.1f} s  peak RSS {r['rss_mb']:8.0f} MB  kept {r['kept']}")
json.dump(results, open(os.path.join(work, f"results-{args.only or 'all'}.json"), "w"))
if len(results) == 2:
    print(f"ratio trawl/datatrove: {results['datatrove']['secs'] / results['trawl']['secs']:.0f}x")
