#!/usr/bin/env python3
"""Headless rendering: rendered pages/s per browser and per core, and the fraction of a mixed
web that the static-first decision sends to the browser.

The web (`trawl-testweb`'s serve example, `render HOSTS PAGES`): HOSTS sites on 127.0.0.2..,
PAGES pages each; one page in five is a client-side app (empty `#root`, content fetched by
XHR and inserted by script), one in ten a listing with more items behind "Load more", one in
twenty a log loading entries on scroll, one in ten a static page with a large analytics
bundle, the rest plain HTML. `trawl crawl` runs it with `[render] mode = "auto"`, one browser with TABS tabs.

Reported per browser binary and tab count (medians of REPEAT runs):
  * decided: the fraction of fetched pages the decision rendered (must be the app pages);
  * rendered pages/s per browser: rendered pages / wall time of the whole crawl;
  * CPU per rendered page: machine CPU (all processes but the web server, from /proc/stat)
    of the rendering crawl minus that of the same crawl with rendering off, per rendered
    page; "pages/s per core" is its inverse.

Engine setups, taking turns: lightpanda alone, each Chromium binary alone, and the two-tier
default (lightpanda, then Chromium for what it cannot do) with each Chromium binary. Also
reported: which engine rendered how many pages, the share that fell back to Chromium (and
why), and whether the extracted text of every page equals Chromium's.

Usage: bench/render.py --trawl PATH --serve PATH [--hosts 4] [--pages 100] [--tabs 4]
       [--repeat 3] [--lightpanda PATH] [--browser /usr/bin/chromium ...]
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
ap.add_argument("--tabs", default="4")
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--lightpanda", default=os.path.expanduser(os.path.join(os.environ.get("TRAWL_CACHE", "~/.cache/trawl"), "bin/lightpanda")))
ap.add_argument("--browser", action="append", help="Chromium binaries to compare (default: chromium and chromium-headless-shell when installed)")
args = ap.parse_args()
browsers = args.browser or [b for b in ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"] if os.path.exists(b)]
# (label, engines, chromium binary): each engine alone, then the two-tier default with each
# Chromium binary behind lightpanda
setups = []
if os.path.exists(args.lightpanda):
    setups.append(("lightpanda", ["lightpanda"], browsers[0]))
for b in browsers:
    setups.append((os.path.basename(b), ["chromium"], b))
if os.path.exists(args.lightpanda):
    for b in browsers:
        setups.append((f"lightpanda > {os.path.basename(b)}", ["lightpanda", "chromium"], b))

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


def run(mode, engines, browser, tabs, keep=None):
    out = keep or os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    cfg = os.path.join(work, "crawl.toml")
    with open(cfg, "w") as f:
        f.write("[crawl]\nseeds = [%s]\ndelay_ms = 0\nmax_pages = %d\nmax_depth = 50\nmax_pages_per_host = %d\npages_per_part = 1000\n"
                "allow_private_addresses = true\nsitemaps = false\nconcurrency = 64\nstate_dir = \"%s\"\n[crawl.priority]\nmax_host_share = 1.0\n"
                "[render]\nmode = \"%s\"\nengines = [%s]\nlightpanda = \"%s\"\nchromium = \"%s\"\nbrowsers = 1\ntabs_per_browser = %d\n"
                % (", ".join(f'"{s}"' for s in seeds), total + 10, total + 10, os.path.join(work, "journal"), mode,
                   ", ".join(f'"{e}"' for e in engines), args.lightpanda, browser, tabs))
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


def texts(out):
    """url -> extracted text of a kept crawl (trawl extract over its WARC parts)."""
    ex = out + "-extract"
    shutil.rmtree(ex, ignore_errors=True)
    subprocess.run([args.trawl, "--quiet", "extract", "--input", os.path.join(out, "crawl", "warc"), "--output", ex], check=True, capture_output=True)
    import zstandard
    docs = {}
    d = os.path.join(ex, "extract")
    for n in sorted(os.listdir(d)):
        with open(os.path.join(d, n), "rb") as f:
            data = zstandard.ZstdDecompressor().stream_reader(f).read()
        for line in data.splitlines():
            j = json.loads(line)
            docs[j["url"]] = " ".join(j["text"].split())
    return docs


try:
    base = [run("never", ["chromium"], browsers[0], 1) for _ in range(args.repeat)]
    base_cpu = statistics.median(b[1] for b in base)
    base_secs = statistics.median(b[0] for b in base)
    print(f"static crawl (render never): {base[0][2]} pages, median {base_secs:.2f} s, CPU {base_cpu:.2f} s", flush=True)
    outputs = {}
    for tabs in [int(t) for t in args.tabs.split(",")]:
        # setups take turns within each repetition
        runs = {label: [] for label, _, _ in setups}
        for rep in range(args.repeat):
            for label, engines, browser in setups:
                keep = os.path.join(work, f"keep-{len(outputs)}") if rep == 0 else None
                runs[label].append(run("auto", engines, browser, tabs, keep))
                if keep:
                    outputs[label] = keep
        for label, _, _ in setups:
            rs = runs[label]
            secs = statistics.median(r[0] for r in rs)
            cpu = statistics.median(r[1] for r in rs)
            kept, c = rs[0][2], rs[0][3]
            rendered = c.get("render_rendered", 0)
            failed = c.get("render_failed", 0)
            sent = rendered + failed
            fell = sum(v for k, v in c.items() if k.startswith("render_fallback_"))
            by = ", ".join(f"{k[len('render_engine_'):]} {v}" for k, v in sorted(c.items()) if k.startswith("render_engine_"))
            cpu_page = (cpu - base_cpu) / max(rendered, 1)
            print(f"{label:<40} tabs={tabs}  {kept} pages, decided to render {sent} ({100 * sent / kept:.1f}%, failed {failed}); rendered by {by or '-'}; "
                  f"fell back to Chromium {fell} ({100 * fell / max(sent, 1):.1f}%: {', '.join(f'{k[16:]} {v}' for k, v in sorted(c.items()) if k.startswith('render_fallback_')) or '-'})  "
                  f"median {secs:6.2f} s  {rendered / secs:5.2f} rendered pages/s  CPU {1000 * cpu_page:6.1f} ms/rendered page "
                  f"= {1 / cpu_page if cpu_page > 0 else float('inf'):5.2f} pages/s per core  runs={[round(r[0], 1) for r in rs]}", flush=True)
    # extracted text of the rendered pages, each setup against the first Chromium alone
    ref_label = next(label for label, e, _ in setups if e == ["chromium"])
    ref = texts(outputs[ref_label])
    for label, _, _ in setups:
        if label == ref_label:
            continue
        other = texts(outputs[label])
        common = [u for u in ref if u in other]
        diff = [u for u in common if ref[u] != other[u]]
        print(f"text vs {ref_label}: {label}: {len(common) - len(diff)} of {len(common)} pages identical"
              + (f"; differ: {diff[:5]}" if diff else ""), flush=True)
        for u in diff[:3]:
            a, b = ref[u], other[u]
            k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print(f"  {u}: {ref_label} ...{a[max(0, k - 60):k + 80]!r}\n  {' ' * len(u)}  {label} ...{b[max(0, k - 60):k + 80]!r}")
finally:
    server.kill()
    shutil.rmtree(work, ignore_errors=True)
