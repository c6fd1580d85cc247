#!/usr/bin/env python3
"""Which class and id words the extraction disagrees with the WCXB references on: for every
block (paragraph, list item, heading, cell, ...) of the tuning pages, whether trawl writes it
and whether the reference keeps it, counted against the class and id words of the block and
of its ancestors (up to six levels). A word whose blocks trawl mostly writes while the
references leave them out (or the reverse) on many pages, and rarely agrees with them, names
a kind of region a general rule may be about (this is how the author-box, screen-reader and
`nocontent` rules of the eleventh session were found). It looks at tuning pages only: the
validation part stays unread, so that it can still tell whether a rule generalises.

  wcxb_classes.py PRED_DIR [--data DIR] [--min-pages N] [--type TYPE] [--show WORD,...]

PRED_DIR holds `<id>.txt` from `trawl extract --format txt`. A page counts for a word under
the status of most of its blocks' words there: both (kept by trawl and the reference), none
(left out by both), extra (trawl only), missed (the reference only). Needs lxml (the
reference tools' venv has it). A block is matched by 20 characters from its middle, so short
blocks (under 25 characters) are not counted.
"""
import argparse
import collections
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import page_type, part_of  # noqa: E402

try:
    import lxml.html
except ImportError:
    sys.exit("wcxb_classes.py needs lxml (pip install lxml, or run it with the venv's python)")

SPACE = re.compile(r"\s+")
WORD = re.compile(r"[a-z]+")
BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt", "blockquote",
          "pre", "figcaption")
MARKS = re.compile(r"[#*|>`]+ ?")


def norm(t):
    return SPACE.sub(" ", t).strip().lower()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pred")
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "testdata", "wcxb-dev"))
    ap.add_argument("--min-pages", type=int, default=4, help="pages a word needs to be listed")
    ap.add_argument("--type", help="only pages of this WCXB page type")
    ap.add_argument("--show", help="comma-separated words: list their pages and word counts")
    a = ap.parse_args()

    status = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    kinds = {}
    gt_dir = os.path.join(a.data, "ground-truth")
    for fn in sorted(os.listdir(gt_dir)):
        pid = fn[:-5]
        if part_of(pid) != "tune":
            continue
        d = json.load(open(os.path.join(gt_dir, fn)))
        kind = page_type(d)
        if a.type and kind != a.type:
            continue
        kinds[pid] = kind
        ref = norm((d.get("ground_truth") or {}).get("main_content") or "")
        pred_path = os.path.join(a.pred, pid + ".txt")
        out = norm(MARKS.sub("", open(pred_path).read())) if os.path.exists(pred_path) else ""
        try:
            doc = lxml.html.fromstring(gzip.open(os.path.join(a.data, "html", pid + ".html.gz")).read())
        except (ValueError, OSError, lxml.etree.ParserError):
            continue
        for bad in doc.xpath("//script|//style"):
            bad.drop_tree()
        for e in doc.iter(*BLOCKS):
            t = norm(e.text_content())
            if len(t) < 25:
                continue
            probe = t[len(t) // 2 - 10: len(t) // 2 + 10]
            in_ref, in_out = probe in ref, probe in out
            st = "both" if in_ref and in_out else "none" if not (in_ref or in_out) else "extra" if in_out else "missed"
            words = set()
            for x in [e] + list(e.iterancestors())[:6]:
                words |= set(WORD.findall(((x.get("class") or "") + " " + (x.get("id") or "")).lower()))
            for w in words:
                status[w][pid][st] += len(t.split())

    rows = []
    for w, pages in status.items():
        c = collections.Counter(max(cnt, key=cnt.get) for cnt in pages.values())
        rows.append((w, c))
    for title, key, against in (("mostly written by trawl, left out by the reference", "extra", "both"),
                                ("mostly kept by the reference, left out by trawl", "missed", "none")):
        print(f"{title} (pages: extra / both / none / missed)")
        for w, c in sorted(rows, key=lambda r: -(r[1][key] - r[1][against]))[:40]:
            if c[key] >= a.min_pages:
                print(f"  {w:24} {c['extra']:4} {c['both']:4} {c['none']:4} {c['missed']:4}")
    if a.show:
        for w in a.show.split(","):
            for pid, cnt in sorted(status.get(w, {}).items()):
                print(w, pid, kinds[pid], dict(cnt))


if __name__ == "__main__":
    main()
