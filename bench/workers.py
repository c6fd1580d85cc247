#!/usr/bin/env python3
"""A crawl by 1 vs 2 workers (`trawl crawl --shard i/n`) on the generated bench web.

The web (`serve bench HOSTS PAGES`: HOSTS sites on 127.0.0.2.., PAGES pages each, ~300 words
and 9 links per page) runs pinned to CPU 0; the workers run pinned to CPU 1 (this machine has
two cores, so the web server's core is the limit and the workers share the other one). Each
configuration crawls the whole web into a fresh local run root with zero delay, robots.txt
obeyed, one request at a time per host; the configurations take turns, medians of REPEAT
runs. Reported: aggregate pages/s (pages over wall time until the last worker ends) and CPU
per page (user + sys of every worker, GNU time), plus the link objects the workers exchanged.

Usage: bench/workers.py --trawl PATH --serve PATH [--hosts 20] [--pages 500] [--repeat 5]
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
import time

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--serve", required=True)
ap.add_argument("--hosts", type=int, default=20)
ap.add_argument("--pages", type=int, default=500)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--workers", default="1,2", help="worker counts to compare")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-workers-")
server = subprocess.Popen(["taskset", "-c", "0", args.serve, "bench", str(args.hosts), str(args.pages)],
                          stdout=subprocess.PIPE, text=True)
seeds = json.loads(server.stdout.readline())
total = args.hosts * args.pages


def crawl(n):
    out = os.path.join(work, f"out-{n}")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(os.path.join(work, "journal"), ignore_errors=True)
    cfg = os.path.join(work, "crawl.toml")
    with open(cfg, "w") as f:
        f.write("[crawl]\nseeds = [%s]\ndelay_ms = 0\nmax_pages = %d\nmax_depth = 50\nmax_pages_per_host = %d\n"
                "pages_per_part = 1000\nallow_private_addresses = true\nsitemaps = false\nconcurrency = 64\n"
                "state_dir = \"%s\"\n[crawl.priority]\nmax_host_share = 1.0\n"
                # max_pages is split between the workers (each takes ceil(max_pages / n)): set
                # high enough that neither worker's share cuts the crawl short
                % (", ".join(f'"{s}"' for s in seeds), 10 * total, total + 10, os.path.join(work, "journal")))
    t0 = time.monotonic()
    procs = [subprocess.Popen(["/usr/bin/time", "-f", "cpu=%U+%S", "taskset", "-c", "1", args.trawl, "--quiet",
                               "crawl", "--config", cfg, "--output", out, "--shard", f"{i}/{n}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(n)]
    cpu = 0.0
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"worker failed:\n{err[-3000:]}")
        u, s = re.search(r"cpu=([\d.]+)\+([\d.]+)", err).groups()
        cpu += float(u) + float(s)
    secs = time.monotonic() - t0
    pages = 0
    for p in os.listdir(os.path.join(out, "stats/crawl")):
        pages += json.load(open(os.path.join(out, "stats/crawl", p)))["stages"]["crawl"]["kept"]
    # link objects: files, bytes, links handed over
    objects, size, sent = 0, 0, 0
    for dirpath, _, files in os.walk(os.path.join(out, "crawl/links")):
        for f in files:
            objects += 1
            size += os.path.getsize(os.path.join(dirpath, f))
            if f.endswith(".done.json"):
                sent += sum(json.load(open(os.path.join(dirpath, f)))["sent"])
    return secs, cpu, pages, (objects, size, sent)


counts = [int(c) for c in args.workers.split(",")]
runs = {n: [] for n in counts}
try:
    for _ in range(args.repeat):
        for n in counts:
            runs[n].append(crawl(n))
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
print(f"{total} pages on {args.hosts} hosts; medians of {args.repeat}, configurations taking turns")
base = None
for n in counts:
    secs = statistics.median(r[0] for r in runs[n])
    cpu = statistics.median(r[1] for r in runs[n])
    pages = runs[n][0][2]
    rate = pages / secs
    base = base or rate
    print(f"{n} worker(s): {pages} pages  {secs:6.2f} s  {rate:7.0f} pages/s ({rate / base:.2f}x)  "
          f"CPU {1000 * cpu / pages:5.2f} ms/page  runs={[round(r[0], 2) for r in runs[n]]}",
          flush=True)
    objects, size, sent = runs[n][0][3]
    if objects:
        print(f"  link exchange: {objects} objects, {size} bytes, {sent} links handed over "
              f"({size / pages:.1f} bytes and {objects / pages:.4f} objects per page, {size / max(sent, 1):.1f} bytes per link)")
