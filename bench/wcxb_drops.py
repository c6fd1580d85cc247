#!/usr/bin/env python3
"""What the walker's negative-mass drop takes from the WCXB tuning pages, and how much of it
the references keep: every region the walker drops inside the content root (its trace event
`walker drops a region`, with the region's words), grouped by tag, by whether it has a class,
and by the share of its text under links; for each group, how many of the dropped word
triples (three words in a row, lowercased) stand in the page's reference text. A group whose
triples mostly stand there is text the drop should leave alone (this is how the twelfth
session's rule for paragraphs, lists, headings and tables with links was found: three in
four of the triples dropped from paragraphs without a class were in the references). Tuning
pages only: the validation part is skipped before it is read, so it can still tell whether
a rule generalises.

  wcxb_drops.py --trawl BIN [--data DIR] [--type TYPE] [--min-triples N] [--examples N]

BIN is a trawl binary (one run per page, with `--log-format json` and
TRAWL_LOG=trawl_extract=trace); `--type` keeps the pages of one WCXB page type;
`--examples N` lists, after the table, the N largest dropped regions of which the
reference holds 70% or more.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import page_type, part_of  # noqa: E402

WORD = re.compile(r"\w+")


def triples(text):
    w = WORD.findall(text.lower())
    return [tuple(w[i:i + 3]) for i in range(len(w) - 2)]


def link_bucket(link, text):
    share = link / max(text, 1)
    return "links <30%" if share < 0.3 else "links 30-60%" if share < 0.6 else "links 60%+"


def drops_of(trawl, html_gz, work):
    """The drop events of one page: (tag, class, text, link, words)."""
    inp = os.path.join(work, "in")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    shutil.copy(html_gz, inp)
    env = dict(os.environ, TRAWL_LOG="warn,trawl_extract=trace")
    r = subprocess.run([trawl, "--log-format", "json", "extract", "--format", "txt", "--input",
                        inp, "--output", os.path.join(work, "out")],
                       capture_output=True, text=True, env=env)
    out = []
    for line in r.stderr.splitlines():
        if "walker drops a region" not in line:
            continue
        try:
            f = json.loads(line)["fields"]
        except (ValueError, KeyError):
            continue
        # `class` is the attribute's Debug form: `None`, `Some("")` or `Some("a b")`
        cls = f.get("class", "None")
        has_class = cls not in ("None", 'Some("")')
        out.append((f.get("tag", "?"), has_class, int(f.get("text", 0)), int(f.get("link", 0)),
                    f.get("words", "")))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trawl", required=True)
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "testdata", "wcxb-dev"))
    ap.add_argument("--type", help="only pages of this WCXB page type")
    ap.add_argument("--min-triples", type=int, default=100, help="groups with fewer are not shown")
    ap.add_argument("--examples", type=int, default=0)
    args = ap.parse_args()
    html_dir, gt_dir = os.path.join(args.data, "html"), os.path.join(args.data, "ground-truth")
    if not os.path.isdir(html_dir):
        sys.exit(f"no WCXB pages at {html_dir} (../shared/testdata/wcxb-dev)")
    ids = sorted(f[:-len(".html.gz")] for f in os.listdir(html_dir) if f.endswith(".html.gz"))
    ids = [i for i in ids if part_of(i) == "tune"]  # the validation part stays unread
    kept = collections.Counter()
    dropped = collections.Counter()
    regions = collections.Counter()
    examples = []
    pages = 0
    with tempfile.TemporaryDirectory(prefix="wcxb-drops-") as work:
        for pid in ids:
            d = json.load(open(os.path.join(gt_dir, f"{pid}.json")))
            gt = d.get("ground_truth")
            if not isinstance(gt, dict) or (args.type and page_type(d) != args.type):
                continue
            ref = set(triples(gt.get("main_content") or ""))
            pages += 1
            for tag, has_class, text, link, words in drops_of(args.trawl, os.path.join(html_dir, f"{pid}.html.gz"), work):
                t = triples(words)
                if not t:
                    continue
                inside = sum(1 for x in t if x in ref)
                key = (tag, "class" if has_class else "no class", link_bucket(link, text))
                kept[key] += inside
                dropped[key] += len(t)
                regions[key] += 1
                if inside >= 0.7 * len(t):
                    examples.append((len(t), pid, tag, words[:140]))
    total, inside = sum(dropped.values()), sum(kept.values())
    print(f"{pages} tuning pages: {sum(regions.values())} regions dropped, {total} word triples, "
          f"{inside} ({inside / max(total, 1):.0%}) in the references")
    print(f"{'tag':<12} {'class':<9} {'link share':<13} {'regions':>7} {'triples':>8} {'in ref':>7} {'share':>6}")
    for key in sorted(dropped, key=lambda k: -kept[k]):
        if dropped[key] < args.min_triples:
            continue
        print(f"{key[0]:<12} {key[1]:<9} {key[2]:<13} {regions[key]:>7} {dropped[key]:>8} "
              f"{kept[key]:>7} {kept[key] / dropped[key]:>6.0%}")
    for n, pid, tag, words in sorted(examples, reverse=True)[:args.examples]:
        print(f"{pid} {tag} {n} triples: {words}")


if __name__ == "__main__":
    main()
