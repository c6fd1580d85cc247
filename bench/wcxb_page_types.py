#!/usr/bin/env python3
"""Page-type accuracy of trawl's classifier (meta.page_type) on ../shared/testdata/wcxb-dev,
on the tuning and validation parts of bench/wcxb_split.py, with the tuning confusion matrix.

  trawl config default | sed 's/^min_text_chars = 200/min_text_chars = 0/' > /tmp/pt.toml
  trawl extract --config /tmp/pt.toml --input ../shared/testdata/wcxb-dev/html --output ROOT
  wcxb_page_types.py ROOT [--data DIR]
"""
import argparse, collections, glob, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import page_type, part_of  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("root")
ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata", "wcxb-dev"))
a = ap.parse_args()
pred = {}
for f in glob.glob(os.path.join(a.root, "extract", "*.jsonl.zst")):
    for line in subprocess.run(["zstd", "-dc", f], capture_output=True, text=True, check=True).stdout.splitlines():
        d = json.loads(line)
        m = re.search(r"/(\d+)\.html", d["url"])
        if m:
            pred[m.group(1)] = d["meta"].get("page_type", "none")
conf, hit, tot = collections.Counter(), collections.Counter(), collections.Counter()
for f in sorted(glob.glob(os.path.join(a.data, "ground-truth", "*.json"))):
    g = json.load(open(f))
    pid = os.path.basename(f)[:-5]
    k = page_type(g)
    part, p = part_of(pid), pred.get(pid, "missing")
    tot[part] += 1
    hit[part] += p == k
    if part == "tune":
        conf[(k, p)] += 1
print("accuracy: " + ", ".join(f"{p} {hit[p] / tot[p]:.3f} ({tot[p]} pages)" for p in ("tune", "valid")))
cols = ["article", "forum", "product", "collection", "listing", "documentation", "service", "other", "missing"]
print("tuning part, gold (rows) x predicted:")
print(f"{'':14}" + "".join(f"{c[:7]:>8}" for c in cols))
for k in sorted({k for k, _ in conf}):
    print(f"{k:14}" + "".join(f"{conf[(k, c)]:8d}" for c in cols))
