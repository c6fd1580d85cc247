#!/usr/bin/env python3
"""Main-content extraction: quality and speed of trawl side by side with trafilatura,
resiliparse and readability-lxml, on the labelled pages of ../shared/testdata/extract.

Quality: every extractor writes PRED/<name>/<dataset>/<id>.txt and the data set's own
score.py scores it (token P/R/F1 on scrapinghub + readability pages, snippet P/R/F1 on
trafilatura pages). Speed: pages/s and MB/s on one core (each extractor pinned to CPU 1 with
taskset), counting only the extraction of pages already in memory (parse + extract; trawl
reports its own time, the Python tools are timed around their call), median of REPEAT runs.

Each figure is also given for the tuning and the validation part of the pages (the split of
bench/wcxb_split.py: sha1("trawl-split:" + "<dataset>/<id>"), 2/3 tuning): rules are changed
looking at tuning pages only, and a change that lifts tuning but not validation stays out.

With --perturb MODE (names, tags, both, links, related, signup, wrap, ads, consent,
comments, menu, crumbs, rail, br, headings), every page is first rewritten (bench/perturb.py: class and id
tokens hashed, sectioning tags made divs, both, paragraphs opening with a link, related-
story lines, a sign-up box, paragraphs in wrappers of their own, advertisement slots, a
cookie banner, a comment section, a site menu, a breadcrumb trail, a teaser rail) and scored
against the same ground truth: the drop against the unperturbed figures is how much an
extractor leans on naming, on where links stand, on boxes being named or on depth.

Usage: bench/extract.py --trawl PATH [--data DIR] [--repeat 3] [--only trawl]
       [--keep PRED_DIR] [--perturb MODE]
"""
import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_run  # noqa: E402
import perturb  # noqa: E402
from wcxb_split import part_of  # noqa: E402
ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "testdata", "extract"))
ap.add_argument("--python", default=os.path.expanduser("~/.cache/trawl/venv/bin/python"))
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--only", help="comma-separated extractors (trawl,trafilatura,resiliparse,readability)")
ap.add_argument("--keep", help="write predictions here (default: a temporary folder)")
ap.add_argument("--perturb", choices=perturb.MODES, help="rewrite the pages first (see above)")
args = ap.parse_args()
data = os.path.abspath(args.data)
datasets = sorted(d for d in os.listdir(data) if os.path.isdir(os.path.join(data, d, "html")))
pred_root = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="trawl-bench-extract-")
os.makedirs(pred_root, exist_ok=True)
# where the extractors read the pages (<dataset>/html/); scoring always reads `data`
html_root = data
if args.perturb:
    html_root = os.path.join(pred_root, f"data-{args.perturb}")
    for ds in datasets:
        perturb.rewrite_dir(os.path.join(data, ds, "html"), os.path.join(html_root, ds, "html"), args.perturb)
    print(f"pages rewritten: --perturb {args.perturb}", flush=True)

REF = r'''
import json, os, sys, time
name, data, out, datasets, bench = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(","), sys.argv[5]
sys.path.insert(0, bench)
from ref_tools import extractor
ex = extractor(name)
pages = []
for ds in datasets:
    d = os.path.join(data, ds, "html")
    for fn in sorted(os.listdir(d)):
        raw = open(os.path.join(d, fn), "rb").read()
        pages.append((ds, fn.rsplit(".", 1)[0], raw.decode("utf-8", errors="replace"), len(raw)))
busy = 0.0
for ds, pid, html, _ in pages:
    t = time.perf_counter()
    try:
        text = ex(html)
    except Exception as e:
        text = ""
    busy += time.perf_counter() - t
    os.makedirs(os.path.join(out, ds), exist_ok=True)
    open(os.path.join(out, ds, pid + ".txt"), "w").write(text)
print(json.dumps({"pages": len(pages), "bytes": sum(p[3] for p in pages), "secs": busy}))
'''


def run_trawl(out):
    pages = nbytes = secs = 0
    for ds in datasets:
        p, b, t = extract_run.run(args.trawl, os.path.join(html_root, ds, "html"), os.path.join(out, ds))
        pages += p
        nbytes += b
        secs += t
    return pages, nbytes, secs


def run_ref(name, out):
    script = os.path.join(pred_root, "ref.py")
    open(script, "w").write(REF)
    r = subprocess.run(["taskset", "-c", "1", args.python, script, name, html_root, out, ",".join(datasets),
                        os.path.dirname(os.path.abspath(__file__))], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{name} failed:\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout.strip().splitlines()[-1])
    return j["pages"], j["bytes"], j["secs"]


@functools.cache
def part_ids(part):
    """`<dataset>/<id>` of every labelled page in `part` ("tune" or "valid"), as score.py's
    --ids file."""
    path = os.path.join(pred_root, f"{part}.ids")
    with open(path, "w") as f:
        for ds in datasets:
            for fn in os.listdir(os.path.join(data, ds, "html")):
                pid = f"{ds}/{fn.rsplit('.', 1)[0]}"
                if part_of(pid) == part:
                    f.write(pid + "\n")
    return path


def score(name, out, part=None):
    j = os.path.join(pred_root, f"{name}.{part or 'all'}.score.json")
    cmd = [sys.executable, os.path.join(data, "score.py"), out, "--data", data, "--json", j, "--name", name]
    if part:
        cmd += ["--ids", part_ids(part)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"score.py failed:\n{r.stderr}")
    if part is None:
        print(r.stdout, flush=True)
    s = json.load(open(j))
    tok = s["token"].get("overall", {}).get("mean_f1", float("nan"))
    snip = s["snippet"].get("trafilatura", {}).get("F1", float("nan"))
    return tok, snip


KNOWN = ["trawl", "trafilatura", "resiliparse", "readability"]
# --only may name tools of bench/wcxb.py too (bench/extract.sh passes it to both)
names = [n for n in args.only.split(",") if n in KNOWN] if args.only else KNOWN
rows = []
try:
    # the tools take turns, one run each per round, so a noisy moment on this shared machine
    # hits them alike; each keeps the median of its runs
    runs = {name: [] for name in names}
    for _ in range(args.repeat):
        for name in names:
            out = os.path.join(pred_root, name)
            shutil.rmtree(out, ignore_errors=True)
            runs[name].append(run_trawl(out) if name == "trawl" else run_ref(name, out))
    for name in names:
        out = os.path.join(pred_root, name)
        pages, nbytes = runs[name][0][0], runs[name][0][1]
        secs = statistics.median(r[2] for r in runs[name])
        tok, snip = score(name, out)
        parts = [score(name, out, part) for part in ("tune", "valid")]
        rows.append((name, tok, snip, pages / secs, nbytes / 1e6 / secs, parts))
    print(f"{'extractor':<12} {'token F1':>9} {'snippet F1':>11} {'pages/s':>9} {'MB/s':>7}   (one core; scrapinghub+readability token F1, trafilatura snippet F1)")
    for name, tok, snip, pps, mbs, _ in rows:
        print(f"{name:<12} {tok:9.3f} {snip:11.3f} {pps:9.0f} {mbs:7.1f}")
    print(f"\n{'extractor':<12} {'tune token':>11} {'tune snip':>10} {'valid token':>12} {'valid snip':>11}   (tuning / validation part)")
    for name, _, _, _, _, ((tt, ts), (vt, vs)) in rows:
        print(f"{name:<12} {tt:11.3f} {ts:10.3f} {vt:12.3f} {vs:11.3f}")
    if len(rows) > 1 and rows[0][0] == "trawl":
        for name, _, _, pps, _, _ in rows[1:]:
            per_round = [round((r[2] / r[0]) / (t[2] / t[0]), 2) for t, r in zip(runs["trawl"], runs[name])]
            print(f"speed trawl/{name}: {rows[0][3] / pps:.2f}x (per round: {per_round})")
finally:
    if not args.keep:
        shutil.rmtree(pred_root, ignore_errors=True)
