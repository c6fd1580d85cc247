#!/usr/bin/env python3
"""Threads 1 vs 2 for trawl's CPU stages, on one crawl of the generated bench web.

The web (`serve bench HOSTS PAGES`) is crawled once into WARC parts. Then, taking turns,
REPEAT times each: `trawl --threads T extract` over the parts, `trawl --threads T filter`
over that extraction, and `trawl --threads T run` with the crawl off (the parts replayed
through extract -> filter -> dedup -> captions -> shards), each pinned to T cores (taskset). Wall time medians, pages/s,
the 2-vs-1 ratio, the machine's own ceiling for extract and filter (two independent 1-thread
processes, one per core, on half of the input each: what two cores give with nothing shared),
and whether both thread counts wrote the same bytes (stats, markers,
run.json and the report hold timings and are left out of the comparison).

Usage: bench/run.py --trawl PATH --serve PATH [--hosts 10] [--pages 300] [--repeat 5]
"""
import argparse
import hashlib
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
ap.add_argument("--serve", required=True)
ap.add_argument("--hosts", type=int, default=10)
ap.add_argument("--pages", type=int, default=300)
ap.add_argument("--repeat", type=int, default=5)
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-run-")
total = args.hosts * args.pages


def sh(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    return out.stdout


# one crawl, shared by every measured command
server = subprocess.Popen([args.serve, "bench", str(args.hosts), str(args.pages)], stdout=subprocess.PIPE, text=True)
seeds = json.loads(server.stdout.readline())
crawl_root = os.path.join(work, "crawl")
cfg = os.path.join(work, "crawl.toml")
with open(cfg, "w") as f:
    f.write("[crawl]\nseeds = [%s]\ndelay_ms = 0\nmax_pages = %d\nmax_depth = 50\nmax_pages_per_host = %d\npages_per_part = 250\n"
            "allow_private_addresses = true\nsitemaps = false\nconcurrency = 64\nstate_dir = \"%s\"\n[crawl.priority]\nmax_host_share = 1.0\n"
            % (", ".join(f'"{s}"' for s in seeds), total + 10, total + 10, os.path.join(work, "journal")))
t0 = time.time()
sh([args.trawl, "--quiet", "crawl", "--config", cfg, "--output", crawl_root])
server.terminate()
warc = os.path.join(crawl_root, "crawl", "warc")
parts = len(os.listdir(warc))
print(f"crawled {total} pages into {parts} WARC parts in {time.time() - t0:.1f} s", file=sys.stderr)

run_cfg = os.path.join(work, "run.toml")
with open(run_cfg, "w") as f:
    f.write("[crawl]\nenabled = false\n[captions]\nenabled = false\n[report]\nenabled = false\n")


def data_digest(root):
    h = {}
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            if rel.startswith(("stats/", "_done/", "report/")) or rel == "run.json" or "#" in n:
                continue
            h[rel] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return h


def halves(src):
    """The input folder's files split in two folders (alternating), made once: the input of
    the two-process ceiling."""
    out = [src + ".half0", src + ".half1"]
    if not os.path.exists(out[0]):
        for d in out:
            os.makedirs(d)
        for i, n in enumerate(sorted(os.listdir(src))):
            shutil.copy(os.path.join(src, n), out[i % 2])
    return out


def ceiling(kind):
    """The machine's own 2-vs-1 ceiling for this command: two independent `--threads 1`
    processes, each pinned to its own core, on half of the input each. Nothing is shared
    between them, so their speed-up over one process is what the two cores give (shared
    caches, memory bandwidth, the hypervisor), not what trawl's threading loses."""
    src = warc if kind == "extract" else os.path.join(work, "extracted", "extract")
    procs = []
    t = time.perf_counter()
    for core, half in enumerate(halves(src)):
        out = os.path.join(work, f"{kind}-ceiling-{core}")
        shutil.rmtree(out, ignore_errors=True)
        procs.append(subprocess.Popen(["taskset", "-c", str(core), args.trawl, "--quiet", "--threads", "1", kind, "--input", half, "--output", out],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    for p in procs:
        if p.wait() != 0:
            sys.exit(f"two-process {kind} failed: {p.stderr.read()[-3000:]}")
    return time.perf_counter() - t


def once(kind, threads):
    out = os.path.join(work, f"{kind}-{threads}")
    shutil.rmtree(out, ignore_errors=True)
    # pinned to as many cores as threads: `--threads 1` alone would still decode WARC parts
    # on the async runtime's other core
    cpus = ",".join(str(c) for c in range(threads))
    base = ["taskset", "-c", cpus, args.trawl, "--quiet", "--threads", str(threads)]
    if kind == "extract":
        cmd = base + ["extract", "--input", warc, "--output", out]
    elif kind == "filter":
        # the input: one extraction, made once (outside the timing)
        src = os.path.join(work, "extracted")
        if not os.path.exists(src):
            sh([args.trawl, "--quiet", "extract", "--input", warc, "--output", src])
        cmd = base + ["filter", "--input", os.path.join(src, "extract"), "--output", out]
    else:
        os.makedirs(os.path.join(out, "crawl"), exist_ok=True)
        shutil.copytree(warc, os.path.join(out, "crawl", "warc"))
        cmd = base + ["run", "--config", run_cfg, "--output", out]
    t = time.perf_counter()
    sh(cmd)
    return time.perf_counter() - t, data_digest(out)


results = {}
identical = {}
for r in range(args.repeat):
    for kind in ["extract", "filter", "run"]:
        digests = {}
        for threads in ([1, 2] if r % 2 == 0 else [2, 1]):
            secs, dig = once(kind, threads)
            results.setdefault((kind, threads), []).append(secs)
            digests[threads] = dig
        identical[kind] = identical.get(kind, True) and digests[1] == digests[2]
        line = f"round {r + 1}: {kind} 1 thread {results[(kind, 1)][-1]:.2f} s, 2 threads {results[(kind, 2)][-1]:.2f} s"
        if kind != "run":
            results.setdefault((kind, "2p"), []).append(ceiling(kind))
            line += f", 2 processes {results[(kind, '2p')][-1]:.2f} s"
        print(line, file=sys.stderr)

print(f"\n{total} pages ({args.hosts} hosts x {args.pages}), {parts} parts, medians of {args.repeat}, tools taking turns\n")
print(f"{'command':<10} {'1 thread s':>11} {'2 threads s':>12} {'pages/s 1':>10} {'pages/s 2':>10} {'ratio 2/1':>10} {'2 procs s':>10} {'ceiling':>8}  same bytes")
for kind in ["extract", "filter", "run"]:
    a = statistics.median(results[(kind, 1)])
    b = statistics.median(results[(kind, 2)])
    ceil = f"{statistics.median(results[(kind, '2p')]):>10.2f} {a / statistics.median(results[(kind, '2p')]):>8.2f}" if kind != "run" else f"{'-':>10} {'-':>8}"
    print(f"{kind:<10} {a:>11.2f} {b:>12.2f} {total / a:>10.0f} {total / b:>10.0f} {a / b:>10.2f} {ceil}  {'yes' if identical[kind] else 'NO'}")
print("\nceiling: 1 thread / two independent 1-thread processes on half of the input each, one per core")
shutil.rmtree(work, ignore_errors=True)
if not all(identical.values()):
    sys.exit("outputs differ between 1 and 2 threads")
