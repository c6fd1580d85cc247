#!/usr/bin/env python3
"""Image fetching for captions: images/s per core for fetch + decode + check + resize +
encode, trawl (`trawl captions fetch`) against img2dataset on the same URL list.

The image server (`trawl-testweb`'s serve example, `images HOSTS N`): HOSTS sites on
127.0.0.2.., N JPEG photos each (640x480 to 1280x960, about 60-200 KB). Both tools resize
so the shorter side is at most 512 (only shrinking), re-encode to JPEG quality 90 and write
WebDataset tars. Both run pinned to one core (taskset -c 0); trawl with one async worker and
one check thread, img2dataset with one process and 16 fetch threads (trawl fetches 16 hosts
at once; with HOSTS < 16 it fetches HOSTS at once, one request at a time per host, since
politeness is not optional: `delay_ms = 0` here, robots.txt is fetched and obeyed).

CPU per image: user + system time of the tool's process tree (getrusage of children),
server excluded. The tools take turns (trawl, img2dataset, trawl, ...) so the machine's
slow spells hit both. Reported per tool as medians of REPEAT runs: wall seconds, images written,
images/s of wall time, CPU seconds, images/s per core (= images / CPU seconds), and the
ratio trawl / img2dataset of images/s per core.

Usage: bench/captions.py --trawl PATH --serve PATH --img2dataset PATH [--hosts 4] [--n 500]
       [--repeat 3] [--only trawl|img2dataset]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tarfile
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--serve", required=True)
ap.add_argument("--img2dataset", required=True)
ap.add_argument("--hosts", type=int, default=4)
ap.add_argument("--n", type=int, default=500)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--only")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-captions-")
server = subprocess.Popen([args.serve, "images", str(args.hosts), str(args.n)], stdout=subprocess.PIPE, text=True)
bases = json.loads(server.stdout.readline())
urls = [f"{b}img/{i}.jpg" for i in range(args.n) for b in bases]
url_file = os.path.join(work, "urls.txt")
with open(url_file, "w") as f:
    f.write("\n".join(urls) + "\n")
cfg_file = os.path.join(work, "trawl.toml")
with open(cfg_file, "w") as f:
    f.write("""[crawl]
allow_private_addresses = true
delay_ms = 0
[captions]
threads = 1
[captions.fetch]
concurrency = 16
[captions.images]
resize_shorter_side = 512
jpeg_quality = 90
min_side = 1
max_aspect = 100.0
""")


def count_tar_images(folder):
    n = 0
    for root, _, files in os.walk(folder):
        for fn in files:
            if fn.endswith(".tar"):
                with tarfile.open(os.path.join(root, fn)) as t:
                    n += sum(1 for m in t.getmembers() if m.name.endswith(".jpg"))
    return n


def timed(cmd):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(["taskset", "-c", "0"] + [c.replace("{OUT}", out) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed:\n{p.stderr[-3000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return secs, cpu, count_tar_images(out)


tools = {
    "trawl": [args.trawl, "--quiet", "--threads", "1", "captions", "fetch", "--urls", url_file, "--output", "{OUT}", "--config", cfg_file, "--shard-size", "10000"],
    "img2dataset": [args.img2dataset, "--url_list", url_file, "--input_format", "txt", "--output_folder", "{OUT}", "--output_format", "webdataset",
                    "--processes_count", "1", "--thread_count", "16", "--image_size", "512", "--resize_mode", "keep_ratio", "--resize_only_if_bigger", "True",
                    "--encode_format", "jpg", "--encode_quality", "90", "--timeout", "20", "--retries", "0", "--number_sample_per_shard", "10000",
                    "--enable_wandb", "False"],
}
print(f"{len(urls)} image URLs on {args.hosts} hosts; one core each (taskset -c 0); medians of {args.repeat}", flush=True)
per_core = {}
try:
    names = [n for n in tools if not args.only or n == args.only]
    runs = {n: [] for n in names}
    # the tools take turns, so a slow spell of this shared machine hits both alike
    for _ in range(args.repeat):
        for name in names:
            runs[name].append(timed(tools[name]))
    for name in names:
        r = runs[name]
        secs = statistics.median(x[0] for x in r)
        cpu = statistics.median(x[1] for x in r)
        imgs = r[0][2]
        per_core[name] = imgs / cpu
        print(f"{name:12} {imgs:5d} images  wall {secs:6.2f} s  {imgs / secs:7.1f} images/s  CPU {cpu:6.2f} s  {imgs / cpu:7.1f} images/s per core"
              f"  runs={[(round(x[0], 2), round(x[1], 2)) for x in r]}", flush=True)
    if len(per_core) == 2:
        print(f"ratio trawl / img2dataset (images/s per core): {per_core['trawl'] / per_core['img2dataset']:.2f}x")
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
