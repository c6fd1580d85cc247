#!/usr/bin/env python3
"""What a queued URL costs a crawl worker in memory.

One page links to LINKS distinct URLs on nine other hosts (`serve farm LINKS`). trawl crawls
it with max_links_per_page = LINKS, max_depth = 1 and max_pages = 1, so every link enters the
frontier, is decided (left out for the page budget) and written as an excluded record. Peak
resident memory (GNU time) minus that of the same crawl keeping 10 links, divided by the
links, is the cost of one queued URL: its fingerprint in the seen set, its frontier entry, its
decision and its excluded record until the part is committed. Medians of REPEAT runs; several
--trawl binaries (e.g. before and after a change) take turns.

Usage: bench/frontier.py --serve PATH --trawl NAME=PATH [--trawl NAME=PATH ...] [--links 200000]
       [--seen-on-disk NAME]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--serve", required=True)
ap.add_argument("--trawl", action="append", required=True, help="NAME=PATH")
ap.add_argument("--links", type=int, default=200_000)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--seen-on-disk", action="append", default=[], metavar="NAME",
                help="run this --trawl binary with [crawl] seen_on_disk = true")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-frontier-")
server = subprocess.Popen([args.serve, "farm", str(args.links)], stdout=subprocess.PIPE, text=True)
seed = json.loads(server.stdout.readline())[0]


def peak_kib(name, binary, keep):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, "c.toml")
    with open(cfg, "w") as f:
        f.write(f'[crawl]\nseeds = ["{seed}"]\ndelay_ms = 0\nmax_pages = 1\nmax_depth = 1\n'
                f'max_links_per_page = {keep}\nallow_private_addresses = true\nsitemaps = false\n'
                f'state_dir = "{os.path.join(work, "journal")}"\n'
                + ("seen_on_disk = true\n" if name in args.seen_on_disk else ""))
    r = subprocess.run(["/usr/bin/time", "-f", "peak_kib=%M", binary, "--quiet", "crawl", "--config", cfg,
                        "--output", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{binary} failed:\n{r.stderr[-3000:]}")
    return int(re.search(r"peak_kib=(\d+)", r.stderr).group(1))


bins = [t.split("=", 1) for t in args.trawl]
res = {name: {"base": [], "farm": []} for name, _ in bins}
try:
    for _ in range(args.repeat):
        for name, path in bins:
            res[name]["base"].append(peak_kib(name, path, 10))
            res[name]["farm"].append(peak_kib(name, path, args.links))
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
print(f"{args.links} queued URLs, medians of {args.repeat}")
print(f"{'build':<12} {'10 links MiB':>13} {'farm MiB':>10} {'bytes/URL':>10}")
for name, _ in bins:
    b = statistics.median(res[name]["base"])
    f = statistics.median(res[name]["farm"])
    print(f"{name:<12} {b / 1024:>13.1f} {f / 1024:>10.1f} {(f - b) * 1024 / (args.links - 10):>10.0f}")
