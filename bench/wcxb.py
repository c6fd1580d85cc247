#!/usr/bin/env python3
"""Main-content extraction on the WCXB development pages (../shared/testdata/wcxb-dev, 1,358
pages of seven page types), trawl side by side with rs-trafilatura and trafilatura (and
resiliparse): word F1 per page type on the tuning and the validation part of
bench/wcxb_split.py, and pages/s on one core.

Speed counts only extraction of pages already in memory (decompressed and decoded to text
for the Python tools; trawl reports its own parse + extract time), each tool pinned to CPU 1
with taskset; the tools take turns, one run each per round, and each keeps the median of its
rounds. No tool is given the page URL.

With --perturb MODE (names, tags, both, links, related, signup, wrap, ads, consent,
comments, menu, crumbs, rail, br, headings), every page is first rewritten (bench/perturb.py: class and id
tokens hashed, sectioning tags made divs, both, paragraphs opening with a link, related-
story lines, a sign-up box, paragraphs in wrappers of their own, advertisement slots, a
cookie banner, a comment section, a site menu, a breadcrumb trail, a teaser rail); the drop
against the unperturbed figures is how much an extractor leans on naming, on where links
stand, on boxes being named or on depth.

Usage: bench/wcxb.py --trawl PATH [--data DIR] [--repeat 3] [--only trawl,rs-trafilatura]
       [--keep PRED_DIR] [--perturb MODE]
"""
import argparse
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
import wcxb_split  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "testdata", "wcxb-dev"))
ap.add_argument("--python", default=os.path.expanduser("~/.cache/trawl/venv/bin/python"))
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--only", help="comma-separated: trawl,rs-trafilatura,trafilatura,resiliparse")
ap.add_argument("--keep", help="write predictions here (default: a temporary folder)")
ap.add_argument("--perturb", choices=perturb.MODES,
                help="rewrite the pages first (see above)")
args = ap.parse_args()
data = os.path.abspath(args.data)
pred_root = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="trawl-bench-wcxb-")
os.makedirs(pred_root, exist_ok=True)

html_dir = os.path.join(data, "html")
if args.perturb:
    html_dir = os.path.join(pred_root, f"html-{args.perturb}")
    perturb.rewrite_dir(os.path.join(data, "html"), html_dir, args.perturb)
    print(f"pages rewritten: --perturb {args.perturb}", flush=True)

REF = r'''
import gzip, json, os, sys, time
name, html_dir, out, bench = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
sys.path.insert(0, bench)
from ref_tools import extractor
ex = extractor(name)
pages = []
for fn in sorted(os.listdir(html_dir)):
    raw = gzip.open(os.path.join(html_dir, fn)).read()
    pages.append((fn.split(".")[0], raw.decode("utf-8", errors="replace"), len(raw)))
busy = 0.0
os.makedirs(out, exist_ok=True)
for pid, html, _ in pages:
    t = time.perf_counter()
    try:
        text = ex(html)
    except Exception:
        text = ""
    busy += time.perf_counter() - t
    open(os.path.join(out, pid + ".txt"), "w").write(text)
print(json.dumps({"pages": len(pages), "bytes": sum(p[2] for p in pages), "secs": busy}))
'''


def run_trawl(out):
    return extract_run.run(args.trawl, html_dir, out)


def run_ref(name, out):
    script = os.path.join(pred_root, "ref.py")
    open(script, "w").write(REF)
    r = subprocess.run(["taskset", "-c", "1", args.python, script, name, html_dir, out,
                        os.path.dirname(os.path.abspath(__file__))],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout.strip().splitlines()[-1])
    return j["pages"], j["bytes"], j["secs"]


KNOWN = ["trawl", "rs-trafilatura", "trafilatura", "resiliparse"]
# --only may name tools of bench/extract.py too (bench/extract.sh passes it to both)
names = [n for n in args.only.split(",") if n in KNOWN] if args.only else KNOWN
try:
    runs = {n: [] for n in names}
    for _ in range(args.repeat):
        for n in list(names):
            out = os.path.join(pred_root, n)
            shutil.rmtree(out, ignore_errors=True)
            try:
                runs[n].append(run_trawl(out) if n == "trawl" else run_ref(n, out))
            except RuntimeError as e:
                # one reference tool that cannot run (a missing module) leaves the others' run
                print(f"{e}\n{n}: left out of this run", file=sys.stderr)
                names.remove(n)
    if not names:
        sys.exit("no extractor ran")
    tables = {n: wcxb_split.table(wcxb_split.score(os.path.join(pred_root, n), data)) for n in names}
    types = sorted(tables[names[0]]["all"]["by_type"])
    for part in ("tune", "valid", "all"):
        print(f"\nword F1, {part} part ({tables[names[0]][part]['pages']} pages)")
        print(f"{'extractor':16} {'all':>6} " + " ".join(f"{t[:10]:>10}" for t in types))
        for n in names:
            x = tables[n][part]
            print(f"{n:16} {x['f1']:6.3f} " + " ".join(f"{x['by_type'][t]['f1']:10.3f}" for t in types))
    print(f"\n{'extractor':16} {'pages/s':>8} {'MB/s':>7}   (one core, median of {args.repeat})")
    speed = {}
    for n in names:
        pages, nbytes = runs[n][0][0], runs[n][0][1]
        secs = statistics.median(r[2] for r in runs[n])
        speed[n] = pages / secs
        print(f"{n:16} {pages / secs:8.0f} {nbytes / 1e6 / secs:7.1f}")
    if "trawl" in speed:
        for n in names:
            if n != "trawl":
                print(f"speed trawl/{n}: {speed['trawl'] / speed[n]:.2f}x")
finally:
    if not args.keep:
        shutil.rmtree(pred_root, ignore_errors=True)
