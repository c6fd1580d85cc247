#!/usr/bin/env python3
"""Line shapes on the WCXB tuning pages, and what dropping lines of a shape would do, before a
rule is written in Rust (how the fifteenth session found its rules: comment stamps, post
numbers, bylines, a post's controls).

  wcxb_lines.py mine PRED_DIR [--data DIR] [--missed] [--served DIR] [--min-pages N]
  wcxb_lines.py try PRED_DIR REGEX [--data DIR] [--type TYPE] [--blocks] [--max-len N]

`mine` lists line shapes (lowercase, numbers as `0`, at most 50 characters) that trawl writes
on many tuning pages while the references leave them out (`--missed`: the reverse, reference
lines trawl leaves out). With `--served DIR` (the outputs of the pages as served) it lists
only lines that PRED_DIR (say, the names-hashed outputs of bench/perturb.py) holds and the
served outputs do not: what trawl keeps when names say nothing.

`try` drops every line (`--blocks`: every paragraph under `--max-len` characters) whose text,
without its markup's opening marks, matches REGEX in full (case-insensitive; `--blocks`: at
its start), on pages of `--type` (by the reference's type) or all, rescores, and prints per
part how many pages changed, how many rose and fell and the summed word-F1 change. The
validation part is reported as counts and sums only: no page's text or id is printed from it.
A candidate worth writing lifts both parts with none down, as served and with names hashed.
"""
import argparse, collections, json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import page_type, part_of, prf  # noqa: E402

WORD = re.compile(r"\w+")
MARKS = "-*#> "


def references(data):
    out = {}
    for fn in os.listdir(os.path.join(data, "ground-truth")):
        pid = fn[:-5]
        d = json.load(open(os.path.join(data, "ground-truth", fn)))
        gt = d.get("ground_truth") or {}
        out[pid] = (gt.get("main_content") or "", page_type(d))
    return out


def shape(words):
    return " ".join("0" if w.isdigit() else w for w in words)


def mine(a, refs):
    stat = collections.defaultdict(lambda: [set(), 0, 0])  # pages, against, with
    for fn in sorted(os.listdir(a.pred)):
        pid = fn[:-4]
        if part_of(pid) != "tune" or pid not in refs:
            continue
        pred = open(os.path.join(a.pred, fn)).read()
        ref = refs[pid][0]
        served = set()
        if a.served:
            p = os.path.join(a.served, fn)
            served = set(open(p).read().split("\n")) if os.path.exists(p) else set()
        src, other = (ref, pred) if a.missed else (pred, ref)
        hay = " " + " ".join(WORD.findall(other.lower())) + " "
        for line in src.split("\n"):
            if a.served and line in served:
                continue
            core = line.strip().strip(MARKS).strip()
            words = WORD.findall(core.lower())
            if not words or len(core) > 50:
                continue
            s = stat[shape(words)]
            s[0].add(pid)
            if f" {' '.join(words)} " in hay:
                s[2] += 1
            else:
                s[1] += 1
    rows = [(len(v[0]), v[1], v[2], k) for k, v in stat.items() if len(v[0]) >= a.min_pages and v[1] > v[2]]
    label = "missed" if a.missed else "extra"
    for n, against, kept, k in sorted(rows, reverse=True)[:80]:
        print(f"{n:4d} pages  {label} {against:4d}  agreeing {kept:4d}  {k!r}")


def try_regex(a, refs):
    rx = re.compile(a.regex, re.I)
    moved = {"tune": [], "valid": []}
    dropped = collections.Counter()
    for fn in sorted(os.listdir(a.pred)):
        pid = fn[:-4]
        if pid not in refs:
            continue
        ref, kind = refs[pid]
        text = open(os.path.join(a.pred, fn)).read()
        if a.type and kind != a.type:
            continue
        sep = "\n\n" if a.blocks else "\n"
        kept = []
        for unit in text.split(sep):
            core = unit.strip().strip(MARKS).strip()
            hit = core and (
                (len(core) < a.max_len and rx.match(core)) if a.blocks else rx.fullmatch(core)
            )
            if hit:
                dropped[part_of(pid)] += 1
            else:
                kept.append(unit)
        after = sep.join(kept)
        if after != text:
            d = prf(after, ref)[2] - prf(text, ref)[2]
            if abs(d) > 1e-9:
                moved[part_of(pid)].append((d, pid, kind))
    for part in ("tune", "valid"):
        ch = moved[part]
        up, down = sum(d > 0 for d, _, _ in ch), sum(d < 0 for d, _, _ in ch)
        print(f"{part}: {dropped[part]} {'blocks' if a.blocks else 'lines'} dropped, {len(ch)} pages changed "
              f"(+{up} / -{down}), summed word F1 {sum(d for d, _, _ in ch):+.3f}")
        if part == "tune":
            for d, pid, kind in sorted(ch)[:5]:
                if d < 0:
                    print(f"  fell: {pid} {kind} {d:+.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    default_data = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata", "wcxb-dev")
    m = sub.add_parser("mine", help="line shapes trawl and the references disagree on (tuning part)")
    m.add_argument("pred", help="folder of <id>.txt from `trawl extract --format txt`")
    m.add_argument("--data", default=default_data, help="the WCXB development folder")
    m.add_argument("--missed", action="store_true", help="reference lines trawl leaves out")
    m.add_argument("--served", help="outputs as served: list only lines PRED holds and these do not")
    m.add_argument("--min-pages", type=int, default=4, help="pages a shape stands on at least")
    t = sub.add_parser("try", help="what dropping lines (or blocks) matching REGEX would do")
    t.add_argument("pred", help="folder of <id>.txt from `trawl extract --format txt`")
    t.add_argument("regex", help="matched in full against a line without its opening marks")
    t.add_argument("--data", default=default_data, help="the WCXB development folder")
    t.add_argument("--type", help="only pages of this reference type (article, forum, ...)")
    t.add_argument("--blocks", action="store_true", help="paragraphs matching at their start")
    t.add_argument("--max-len", type=int, default=400, help="characters of a dropped block under")
    a = ap.parse_args()
    refs = references(a.data)
    (mine if a.cmd == "mine" else try_regex)(a, refs)


if __name__ == "__main__":
    main()
