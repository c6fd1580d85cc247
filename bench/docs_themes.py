#!/usr/bin/env python3
"""Documentation under themes no rule was written for (`bench/docs_themes.sh` sets it up).

Sphinx's own documentation (the `doc/` folder of its PyPI source) is built once with Sphinx's
text builder, the reference, and once per HTML theme: the same words in fifteen layouts
(sidebars, headers, footers, breadcrumbs, "previous/next" bars, search boxes, permalinks
and API signatures as each theme writes them). Every page but the indexes, the search page,
module sources and the changelog; word F1 as WCXB scores it (lowercase `\\w+` words, bag of
words, per page, averaged). What the reference holds that no extractor should keep is the
same under every theme (a toctree written as a list of links), so a theme's figure says how
well a tool reads that theme, and the tools are compared on equal terms. The pages split
into a tuning and a validation part as the WCXB pages do (`wcxb_split.part_of` of the page's
path, `usage/quickstart`): a page's themes fall on the same side.

  docs_themes.py --trawl BIN --python VENV_PYTHON --sphinx SPHINX_VENV_BIN --work DIR
                 [--only trawl,rs-trafilatura,resiliparse,trafilatura]

(`--ref TOOL IN OUT` is the worker the reference tools run in, under `--python`.)
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import part_of  # noqa: E402

SPHINX = "8.1.3"
THEMES = ["alabaster", "classic", "sphinxdoc", "scrolls", "agogo", "traditional", "nature",
          "haiku", "pyramid", "bizstyle", "basic", "furo", "sphinx_rtd_theme",
          "pydata_sphinx_theme", "sphinx_book_theme"]
SKIP = ("genindex", "search", "py-modindex", "_modules", "_sources", "_static", "_images",
        "changes")
TOOLS = ["trawl", "rs-trafilatura", "resiliparse", "trafilatura"]
WORD = re.compile(r"\w+")


def ref_worker(tool, inp, out):
    """Runs one reference tool over a folder of pages (inside the reference venv)."""
    if tool == "rs-trafilatura":
        import rs_trafilatura
        def ex(h): return rs_trafilatura.extract(h).main_content or ""
    elif tool == "trafilatura":
        import trafilatura
        def ex(h): return trafilatura.extract(h, include_comments=False, include_tables=True) or ""
    else:
        from resiliparse.extract.html2text import extract_plain_text
        def ex(h): return extract_plain_text(h, main_content=True)
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(inp):
        with open(os.path.join(inp, f), encoding="utf-8", errors="replace") as fh:
            html = fh.read()
        try:
            text = ex(html)
        except Exception:  # a tool's failure on one page scores as an empty extraction
            text = ""
        with open(os.path.join(out, f[:-5] + ".txt"), "w") as fh:
            fh.write(text)


def sources(work, sphinx_bin):
    """Sphinx's `doc/` folder, its conf.py made offline and theme-neutral."""
    src = os.path.join(work, f"sphinx-{SPHINX}", "doc")
    if os.path.isdir(src):
        return src
    dl = os.path.join(work, "dl")
    subprocess.run([os.path.join(sphinx_bin, "pip"), "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"sphinx=={SPHINX}", "-d", dl], check=True)
    with tarfile.open(os.path.join(dl, f"sphinx-{SPHINX}.tar.gz")) as t:
        t.extractall(work, filter="data")
    conf = os.path.join(src, "conf.py")
    with open(conf) as fh:
        s = fh.read()
    # intersphinx fetches other projects' inventories over the network: not here
    s = s.replace("    'sphinx.ext.intersphinx',\n", "")
    s = s.replace("html_theme = 'sphinx13'", "html_theme = os.environ['DOCS_THEME']")
    s = s.replace("html_additional_pages = {'contents': 'contents.html'}", "html_additional_pages = {}")
    s += "\nhtml_css_files = []\nintersphinx_mapping = {}\n"
    with open(conf, "w") as fh:
        fh.write(s)
    return src


def build(work, sphinx_bin):
    src = sources(work, sphinx_bin)
    builds = [("text", "alabaster")] + [(f"html/{t}", t) for t in THEMES]
    for out, theme in builds:
        dest = os.path.join(work, out)
        if os.path.isdir(dest):
            continue
        print(f"building {out}", file=sys.stderr)
        kind = "text" if out == "text" else "html"
        env = dict(os.environ, DOCS_THEME=theme)
        r = subprocess.run([os.path.join(sphinx_bin, "sphinx-build"), "-q", "-b", kind, src,
                            dest + ".part"], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"sphinx-build {kind} ({theme}) failed:\n{r.stderr[-2000:]}")
        os.rename(dest + ".part", dest)


def pages(work):
    text = os.path.join(work, "text")
    out = []
    for f in glob.glob(os.path.join(text, "**", "*.txt"), recursive=True):
        rel = os.path.relpath(f, text)[:-4]
        if rel.split(os.sep)[0] not in SKIP:
            out.append(rel)
    return sorted(out)


def inputs(work, rels):
    """Per theme, a folder of the pages (links to the build), named `dir__page.html`."""
    for theme in THEMES:
        d = os.path.join(work, "in", theme)
        if os.path.isdir(d):
            continue
        os.makedirs(d + ".part", exist_ok=True)
        for rel in rels:
            src = os.path.join(work, "html", theme, rel + ".html")
            if os.path.exists(src):
                os.symlink(src, os.path.join(d + ".part", rel.replace(os.sep, "__") + ".html"))
        os.rename(d + ".part", d)


def f1(pred, ref):
    p = collections.Counter(WORD.findall(pred.lower()))
    r = collections.Counter(WORD.findall(ref.lower()))
    if not p and not r:
        return 1.0
    common = sum((p & r).values())
    if not common:
        return 0.0
    prec, rec = common / sum(p.values()), common / sum(r.values())
    return 2 * prec * rec / (prec + rec)


def run(tool, a, theme):
    inp = os.path.join(a.work, "in", theme)
    out = os.path.join(a.work, "out", tool, theme)
    subprocess.run(["rm", "-rf", out], check=True)
    if tool == "trawl":
        subprocess.run([a.trawl, "--quiet", "extract", "--format", "txt", "--input", inp,
                        "--output", out], check=True, stdout=subprocess.DEVNULL)
    else:
        subprocess.run([a.python, os.path.abspath(__file__), "--ref", tool, inp, out], check=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trawl")
    ap.add_argument("--python", help="the venv's python with the reference tools")
    ap.add_argument("--sphinx", help="bin folder of a venv with Sphinx and the themes")
    ap.add_argument("--work", help="where the sources, builds and outputs live")
    ap.add_argument("--only", default=",".join(TOOLS))
    ap.add_argument("--ref", nargs=3, metavar=("TOOL", "IN", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ref:
        ref_worker(*a.ref)
        return
    build(a.work, a.sphinx)
    rels = pages(a.work)
    inputs(a.work, rels)
    tools = [t for t in a.only.split(",") if t]
    table = {}
    for tool in tools:
        for theme in THEMES:
            out = run(tool, a, theme)
            scores = {"tune": [], "valid": []}
            for rel in rels:
                key = rel.replace(os.sep, "__")
                if not os.path.exists(os.path.join(a.work, "in", theme, key + ".html")):
                    continue
                pred_f = os.path.join(out, key + ".txt")
                pred = open(pred_f).read() if os.path.exists(pred_f) else ""
                ref = open(os.path.join(a.work, "text", rel + ".txt")).read()
                scores[part_of(rel.replace(os.sep, "/"))].append(f1(pred, ref))
            table[(tool, theme)] = scores
    mean = lambda v: sum(v) / len(v) if v else 0.0  # noqa: E731
    n = {p: len(table[(tools[0], THEMES[0])][p]) for p in ("tune", "valid")}
    print(f"Sphinx {SPHINX} documentation, {len(rels)} pages per theme ({n['tune']} tuning, "
          f"{n['valid']} validation): word F1 against the text builder, tuning / validation")
    print(f"{'theme':22}" + "".join(f"{t:>18}" for t in tools))
    for theme in THEMES:
        print(f"{theme:22}" + "".join(
            f"{mean(table[(t, theme)]['tune']):11.3f} /{mean(table[(t, theme)]['valid']):.3f}" for t in tools))
    for label, pick in (("mean", lambda v: sum(v) / len(v)), ("worst theme", min)):
        print(f"{label:22}" + "".join(
            f"{pick([mean(table[(t, th)]['tune']) for th in THEMES]):11.3f} /"
            f"{pick([mean(table[(t, th)]['valid']) for th in THEMES]):.3f}" for t in tools))


if __name__ == "__main__":
    main()
