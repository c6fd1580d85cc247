#!/usr/bin/env python3
"""Which kinds of markup the extraction disagrees with the WCXB references on, by structure
rather than by class names (for those, `wcxb_classes.py`): for every block with a sentence's
worth of its own text (four words or more) on the tuning pages, whether trawl writes it and
whether the reference keeps it, counted against the block's tag and against what it sits in:
an ancestor's tag (`button`, `a`, `details`, `nav`, `form`, `label`, `table`, ...), an
ancestor marked hidden (`hidden`, `aria-hidden="true"`, `display:none`) and an ancestor's ARIA
role. A feature whose blocks the references keep while trawl leaves them out, on several
pages and rarely the other way, is a candidate for a general rule (this is how the
seventeenth session found React's streamed Suspense segments, `<div hidden id="S:4">`, and
FAQ questions in `<button>`s without ARIA). Tuning pages only: the validation part stays
unread, so that it can still tell whether a rule generalises.

  wcxb_structure.py PRED_DIR [--data DIR] [--type TYPE] [--show FEATURE] [--top N]

PRED_DIR holds `<id>.txt` from `trawl extract --format txt`. A block's own text is its text
outside its child elements (so a wrapper's text is not counted again for each ancestor);
it is matched against the reference and the output as lowercase `\\w+` words. Columns: blocks
with the feature, kept by the reference and not by trawl (missed), by trawl and not the
reference (extra), by both, and the pages with a missed block. `--show FEATURE` lists the
missed and extra blocks of one feature, page by page. Needs lxml (the reference tools' venv
has it: `~/.cache/trawl/venv/bin/python bench/wcxb_structure.py ...`).
"""
import argparse
import collections
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import WORD, page_type, part_of  # noqa: E402 (WORD: the metric's words)

BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt", "blockquote",
          "figcaption", "summary", "span", "div", "a", "button", "label", "strong", "b"}
CONTAINERS = {"button", "a", "details", "nav", "header", "footer", "aside", "form", "label",
              "table", "template", "noscript", "dialog"}


def norm(text):
    return " ".join(WORD.findall(text.lower()))


def features(el):
    """The block's tag, and what its ancestors say of it."""
    out = {"tag:" + el.tag}
    if el.get("aria-hidden") == "true":
        out.add("self:aria-hidden")
    for a in el.iterancestors():
        if not isinstance(a.tag, str):
            continue
        if a.tag in CONTAINERS:
            out.add("in:" + a.tag)
        if a.get("hidden") is not None:
            out.add("in:hidden")
        if a.get("aria-hidden") == "true":
            out.add("in:aria-hidden")
        if "display:none" in (a.get("style") or "").replace(" ", "").lower():
            out.add("in:display-none")
        if a.get("role"):
            out.add("role:" + a.get("role").strip().lower())
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pred", help="folder of <id>.txt from `trawl extract --format txt`")
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "testdata", "wcxb-dev"))
    ap.add_argument("--type", help="only pages of this WCXB page type")
    ap.add_argument("--show", help="list the missed and extra blocks of this feature")
    ap.add_argument("--top", type=int, default=40, help="features listed (by missed blocks)")
    a = ap.parse_args()
    try:
        import lxml.html
    except ImportError:
        sys.exit("wcxb_structure.py needs lxml: run it with the reference tools' venv "
                 "(~/.cache/trawl/venv/bin/python)")
    # feature -> [blocks, missed, extra, both, pages with a missed block]
    stats = collections.defaultdict(lambda: [0, 0, 0, 0, set()])
    shown = []
    pages = 0
    for name in sorted(os.listdir(os.path.join(a.data, "html"))):
        pid = name.split(".")[0]
        if part_of(pid) != "tune":
            continue  # the validation part is never read
        g = json.load(open(os.path.join(a.data, "ground-truth", pid + ".json")))
        if a.type and page_type(g) != a.type:
            continue
        ref = norm((g.get("ground_truth") or {}).get("main_content") or "")
        pred_path = os.path.join(a.pred, pid + ".txt")
        out = norm(open(pred_path, encoding="utf-8", errors="replace").read()) if os.path.exists(pred_path) else ""
        try:
            doc = lxml.html.fromstring(gzip.open(os.path.join(a.data, "html", name)).read())
        except (ValueError, lxml.etree.ParserError):  # an empty or unreadable page
            continue
        pages += 1
        for el in doc.iter():
            if not isinstance(el.tag, str) or el.tag not in BLOCKS:
                continue
            own = norm((el.text or "") + " " + " ".join(c.tail or "" for c in el))
            if len(own.split()) < 4:
                continue
            in_ref, in_out = own in ref, own in out
            f = features(el)
            for k in f:
                s = stats[k]
                s[0] += 1
                if in_ref and not in_out:
                    s[1] += 1
                    s[4].add(pid)
                elif in_out and not in_ref:
                    s[2] += 1
                elif in_out:
                    s[3] += 1
            if a.show in f and in_ref != in_out:
                shown.append((pid, "missed" if in_ref else "extra", own[:100]))
    print(f"{pages} tuning pages" + (f" of type {a.type}" if a.type else ""))
    print(f"{'feature':24s} {'blocks':>7s} {'missed':>7s} {'extra':>7s} {'both':>7s} {'pages':>6s}")
    for k, s in sorted(stats.items(), key=lambda kv: -kv[1][1])[:a.top]:
        print(f"{k:24s} {s[0]:7d} {s[1]:7d} {s[2]:7d} {s[3]:7d} {len(s[4]):6d}")
    if a.show:
        print(f"\n{a.show}: blocks trawl and the reference disagree on")
        for pid, kind, text in shown:
            print(f"  {pid} {kind:6s} {text}")


if __name__ == "__main__":
    main()
