#!/usr/bin/env python3
"""Crawl throughput: trawl vs Scrapy on the same local web, one core each.

The web (`trawl-testweb`'s serve example, `bench HOSTS PAGES`) runs on CPU 0: HOSTS sites on
127.0.0.2.. with PAGES pages each, ~300 words per page, 9 links per page. Each crawler runs
pinned to CPU 1 with zero delay, robots.txt obeyed, one request at a time per host (the
politeness trawl always keeps; Scrapy: CONCURRENT_REQUESTS_PER_DOMAIN = 1), until every page
is fetched. trawl also writes every response to gzip WARC; Scrapy only extracts links.
Reported: pages/s and CPU time per page (user + sys from GNU time), medians of REPEAT runs.

Usage: bench/crawl.py --trawl PATH --serve PATH [--hosts 10] [--pages 300] [--repeat 3]
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
ap.add_argument("--trawl", required=True)
ap.add_argument("--serve", required=True)
ap.add_argument("--hosts", type=int, default=10)
ap.add_argument("--pages", type=int, default=300)
ap.add_argument("--repeat", type=int, default=3)
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="trawl-bench-crawl-")
server = subprocess.Popen(["taskset", "-c", "0", args.serve, "bench", str(args.hosts), str(args.pages)], stdout=subprocess.PIPE, text=True)
seeds = json.loads(server.stdout.readline())
total = args.hosts * args.pages


def timed(cmd):
    out = subprocess.run(["/usr/bin/time", "-v", "taskset", "-c", "1"] + cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {cmd}\n{out.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr).group(1)
    secs = sum(float(p) * 60 ** i for i, p in enumerate(reversed(wall.split(":"))))
    user = float(re.search(r"User time \(seconds\): (\S+)", out.stderr).group(1))
    sys_ = float(re.search(r"System time \(seconds\): (\S+)", out.stderr).group(1))
    return secs, user + sys_, out.stdout


def trawl_once():
    out = os.path.join(work, "trawl-out")
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, "crawl.toml")
    with open(cfg, "w") as f:
        f.write("[crawl]\nseeds = [%s]\ndelay_ms = 0\nmax_pages = %d\nmax_depth = 50\nmax_pages_per_host = %d\npages_per_part = 1000\n"
                "allow_private_addresses = true\nsitemaps = false\nconcurrency = 64\nstate_dir = \"%s\"\n[crawl.priority]\nmax_host_share = 1.0\n"
                % (", ".join(f'"{s}"' for s in seeds), total + 10, total + 10, os.path.join(work, "journal")))
    secs, cpu, _ = timed([args.trawl, "--quiet", "crawl", "--config", cfg, "--output", out])
    pages = 0
    for p in os.listdir(os.path.join(out, "stats/crawl")):
        pages += json.load(open(os.path.join(out, "stats/crawl", p)))["stages"]["crawl"]["kept"]
    return secs, cpu, pages


SPIDER = r'''
import sys, json
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
seeds = json.loads(sys.argv[1])
class Bench(scrapy.Spider):
    name = "bench"
    start_urls = seeds
    le = LinkExtractor()
    def parse(self, response):
        self.crawler.stats.inc_value("bench/pages")
        for link in self.le.extract_links(response):
            yield response.follow(link.url, self.parse)
p = CrawlerProcess(settings={
    "ROBOTSTXT_OBEY": True, "CONCURRENT_REQUESTS": 64, "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 0, "LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False, "COOKIES_ENABLED": False,
    "DEPTH_LIMIT": 50, "RETRY_ENABLED": False, "USER_AGENT": "trawl-bench-scrapy",
})
crawler = p.create_crawler(Bench)
p.crawl(crawler)
p.start()
print(json.dumps({"pages": crawler.stats.get_value("bench/pages", 0)}))
'''


def scrapy_once():
    # a file, not `python -c`: Scrapy inspects the source of callbacks
    spider = os.path.join(work, "bench_spider.py")
    with open(spider, "w") as f:
        f.write(SPIDER)
    secs, cpu, out = timed([sys.executable, spider, json.dumps(seeds)])
    return secs, cpu, json.loads(out.strip().splitlines()[-1])["pages"]


results = {}
try:
    for name, fn in [("trawl", trawl_once), ("scrapy", scrapy_once)]:
        runs = [fn() for _ in range(args.repeat)]
        secs = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        pages = runs[0][2]
        results[name] = (secs, cpu, pages)
        print(f"{name:<7} {pages:>6} pages  median {secs:6.2f} s  {pages / secs:8.0f} pages/s  CPU {1000 * cpu / pages:6.2f} ms/page  runs={[round(r[0], 2) for r in runs]}", flush=True)
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
t, s = results["trawl"], results["scrapy"]
print(f"ratio pages/s trawl/scrapy: {(t[2] / t[0]) / (s[2] / s[0]):.1f}x; CPU per page scrapy/trawl: {(s[1] / s[2]) / (t[1] / t[2]):.1f}x")
