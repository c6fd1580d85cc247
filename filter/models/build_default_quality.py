#!/usr/bin/env python3
"""Builds the labelled set for trawl's default English quality model and trains it.

Source: the labelled pages of ../shared/testdata/extract (scrapinghub's
article-extraction-benchmark, MIT; Mozilla Readability's test pages, Apache-2.0), real web
pages with their main text marked by people. Positives ("hq"): the labelled main text, in
chunks of up to three paragraphs. Negatives ("lq"): the rest of each page's visible text
(navigation, footers, teasers, consent notices, share bars), in chunks of up to eight lines.
So the model scores how much a text reads like the body of an article rather than page
furniture: the boilerplate-heavy documents extraction lets through score low.

Only English pages are used (whatlang decides in trawl; here: an ASCII-letter share and a
stop-word test). Stdlib only.

Usage: filter/models/build_default_quality.py --trawl PATH [--data DIR] [--out DIR]
"""
import argparse
import hashlib
import html.parser
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "..", "shared", "testdata", "extract"))
ap.add_argument("--out", default=HERE)
args = ap.parse_args()

STOP = {"the", "and", "of", "to", "in", "is", "that", "for", "it", "with", "was", "on", "as", "are", "this"}


class Text(html.parser.HTMLParser):
    """Visible text, one entry per block-ish element."""
    SKIP = {"script", "style", "noscript", "template", "svg", "head"}
    BLOCK = {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr", "section", "article", "header", "footer", "nav", "aside", "ul", "ol", "br", "blockquote", "figcaption", "form", "span", "a"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines, self.cur, self.skip = [], [], 0

    def flush(self):
        t = " ".join("".join(self.cur).split())
        if t:
            self.lines.append(t)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        if tag in self.BLOCK:
            self.flush()

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in self.BLOCK:
            self.flush()

    def handle_data(self, d):
        if not self.skip:
            self.cur.append(d)


def english(t):
    words = re.findall(r"[A-Za-z']+", t.lower())
    return len(words) >= 8 and sum(w in STOP for w in words) / len(words) > 0.08


def norm(t):
    return " ".join(t.lower().split())


rows = []
for ds in ("scrapinghub", "readability"):
    d = os.path.join(args.data, ds)
    for fn in sorted(os.listdir(os.path.join(d, "gt"))):
        pid = fn[:-4]
        gt = open(os.path.join(d, "gt", fn), encoding="utf-8", errors="replace").read()
        if not english(gt):
            continue
        paras = [p.strip() for p in gt.split("\n") if len(p.strip()) >= 80]
        for i in range(0, len(paras), 3):
            rows.append({"text": "\n\n".join(paras[i:i + 3]), "label": "hq", "page": f"{ds}/{pid}"})
        p = Text()
        try:
            p.feed(open(os.path.join(d, "html", pid + ".html"), encoding="utf-8", errors="replace").read())
            p.close()
        except Exception:
            continue
        gtn = norm(gt)
        rest = [l for l in p.lines if norm(l) not in gtn and len(l) >= 3]
        for i in range(0, len(rest), 8):
            chunk = "\n".join(rest[i:i + 8])
            if len(chunk) >= 40:
                rows.append({"text": chunk, "label": "lq", "page": f"{ds}/{pid}"})

os.makedirs(args.out, exist_ok=True)
labelled = os.path.join(args.out, "quality-eng.labelled.jsonl")
with open(labelled, "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
hq = sum(r["label"] == "hq" for r in rows)
print(f"{len(rows)} examples ({hq} hq, {len(rows) - hq} lq) from {len({r['page'] for r in rows})} English pages -> {labelled}")
model = os.path.join(args.out, "quality-eng.bin")
subprocess.run([args.trawl, "filter", "train-quality", "--input", labelled, "--lang", "eng", "--output", model,
                "--epochs", "15", "--lr", "0.3", "--dim", "16", "--bucket", "20000", "--word-ngrams", "2", "--seed", "1", "--minn", "3", "--maxn", "6"], check=True)
digest = hashlib.sha256(open(model, "rb").read()).hexdigest()
print(f"{model}: {os.path.getsize(model)} bytes, sha256 {digest}")
