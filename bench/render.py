#!/usr/bin/env python3
"""Headless rendering: rendered pages/s per browser and per core, and the fraction of a mixed
web that the static-first decision sends to the browser.

The web (`trawl-testweb`'s serve example, `render HOSTS PAGES`): HOSTS sites on 127.0.0.2..,
PAGES pages each; one page in five is a client-side app (empty `#root`, content fetched by
XHR and inserted by script), one in ten a static page with a large analytics bundle, the rest
plain HTML. `trawl crawl` runs it with `[render] mode = "auto"`, one browser with TABS tabs.

Reported per browser binary and tab count (medians of REPEAT runs):
  * decided: the fraction of fetched pages the decision rendered (must be the app pages);
  * rendered pages/s per browser: rendered pages / wall time of the whole crawl;
  * CPU per rendered page: machine CPU (all processes but the web server, from /proc/stat)
    of the rendering crawl minus that of the same crawl with rendering off, per rendered
    page; "pages/s per core" is its inverse.

Usage: bench/render.py --trawl PATH --serve PATH [--hosts 4] [--pages 100] [--tabs 1,2,4]
       [--repeat 3] [--browser /usr/bin/chromium ...]
"""
import argparse
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
ap.add_argument("--hosts", type=int, default=4)
ap.add_argument("--pages", type=int, default=100)
ap.add_argument("--tabs", default="1,2,4")
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--browser", action="append")
args = ap.parse_args()
browsers = args.browser or [b for b in ["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"] if os.path.exists(b)]

work = tempfile.mkdtemp(prefix="trawl-bench-render-")
server = subprocess.Popen([args.serve, "render", str(args.hosts), str(args.pages)], stdout=subprocess.PIPE, text=True)
seeds = json.loads(server.stdout.readline())
total = args.hosts * args.pages
TICK = os.sysconf("SC_CLK_TCK")


def busy_ticks():
    f = open("/proc/stat").readline().split()[1:]
    v = [int(x) for x in f]
    return sum(v) - v[3] - v[4]  # minus idle and iowait


def proc_ticks(pid):
    s = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(s[11]) + int(s[12])


def run(mode, browser, tabs):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, "crawl.toml")
    with open(cfg, "w") as f:
        f.write("[crawl]\nseeds = [%s]\ndelay_ms = 0\nmax_pages = %d\nmax_depth = 50\nmax_pages_per_host = %d\npages_per_part = 1000\n"
                "allow_private_addresses = true\nsitemaps = false\nconcurrency = 64\nstate_dir = \"%s\"\n[crawl.priority]\nmax_host_share = 1.0\n"
                "[render]\nmode = \"%s\"\nchromium = \"%s\"\nbrowsers = 1\ntabs_per_browser = %d\n"
                % (", ".join(f'"{s}"' for s in seeds), total + 10, total + 10, os.path.join(work, "journal"), mode, browser, tabs))
    b0, s0, t0 = busy_ticks(), proc_ticks(server.pid), time.monotonic()
    r = subprocess.run([args.trawl, "--quiet", "crawl", "--config", cfg, "--output", out], capture_output=True, text=True)
    secs = time.monotonic() - t0
    cpu = ((busy_ticks() - b0) - (proc_ticks(server.pid) - s0)) / TICK
    if r.returncode != 0:
        sys.exit(f"trawl crawl failed:\n{r.stderr[-3000:]}")
    c = {}
    kept = 0
    for p in os.listdir(os.path.join(out, "stats/crawl")):
        st = json.load(open(os.path.join(out, "stats/crawl", p)))["stages"]["crawl"]
        kept += st["kept"]
        for k, v in st.get("counters", {}).items():
            c[k] = c.get(k, 0) + v
    return secs, cpu, kept, c


try:
    base = [run("never", browsers[0], 1) for _ in range(args.repeat)]
    base_cpu = statistics.median(b[1] for b in base)
    base_secs = statistics.median(b[0] for b in base)
    print(f"static crawl (render never): {base[0][2]} pages, median {base_secs:.2f} s, CPU {base_cpu:.2f} s", flush=True)
    for browser in browsers:
        for tabs in [int(t) for t in args.tabs.split(",")]:
            runs = [run("auto", browser, tabs) for _ in range(args.repeat)]
            secs = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            kept, c = runs[0][2], runs[0][3]
            rendered = c.get("render_rendered", 0)
            failed = c.get("render_failed", 0)
            sent = rendered + failed
            cpu_page = (cpu - base_cpu) / max(rendered, 1)
            print(f"{os.path.basename(browser):<24} tabs={tabs}  {kept} pages, decided to render {sent} ({100 * sent / kept:.1f}%, failed {failed})  "
                  f"median {secs:6.2f} s  {rendered / secs:5.2f} rendered pages/s per browser  CPU {1000 * cpu_page:6.1f} ms/rendered page "
                  f"= {1 / cpu_page if cpu_page > 0 else float('inf'):5.2f} pages/s per core  runs={[round(r[0], 1) for r in runs]}", flush=True)
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
