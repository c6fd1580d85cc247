#!/usr/bin/env python3
"""Word F1 (the WCXB metric) per page type on ../shared/testdata/wcxb-dev, split into a
tuning part and a validation part by a hash of the page id, so a rule can be checked on
pages it was not written against.

  wcxb_split.py PRED_DIR [--data DIR] [--json OUT] [--part tune|valid|all] [--worst N]

The split: sha1("trawl-split:" + id), first byte < 171 (2/3) is tuning, else validation.
Look at validation pages' text only to report, never to write a rule.
"""
import argparse, collections, hashlib, json, os, re, statistics, sys

WORD = re.compile(r"\w+")


def part_of(pid):
    return "tune" if hashlib.sha1(f"trawl-split:{pid}".encode()).digest()[0] < 171 else "valid"


def page_type(d):
    """A page's WCXB type from its ground-truth record (`_internal.page_type`, its `primary`
    when it is a dict; WCXB's `category` is called `collection` here, as trawl calls it)."""
    kind = (d.get("_internal") or {}).get("page_type") or {}
    kind = kind.get("primary", "article") if isinstance(kind, dict) else (kind or "article")
    return "collection" if kind == "category" else kind


def prf(pred, ref):
    p, r = WORD.findall(pred.lower()), WORD.findall(ref.lower())
    if not r:
        return (1.0, 1.0, 1.0) if not p else (0.0, 0.0, 0.0)
    if not p:
        return (0.0, 0.0, 0.0)
    common = sum((collections.Counter(p) & collections.Counter(r)).values())
    P, R = common / len(p), common / len(r)
    return P, R, (2 * P * R / (P + R) if P + R else 0.0)


def score(pred_dir, data):
    rows = []
    gt_dir = os.path.join(data, "ground-truth")
    for fn in sorted(os.listdir(gt_dir)):
        d = json.load(open(os.path.join(gt_dir, fn)))
        g = d.get("ground_truth")
        if not isinstance(g, dict):
            continue
        kind = page_type(d)
        pid = fn[:-5]
        path = os.path.join(pred_dir, pid + ".txt")
        text = open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
        P, R, F = prf(text, g.get("main_content") or "")
        rows.append({"id": pid, "type": kind, "part": part_of(pid), "p": P, "r": R, "f1": F})
    return rows


def table(rows):
    out = {}
    for part in ("tune", "valid", "all"):
        rs = [r for r in rows if part == "all" or r["part"] == part]
        by = collections.defaultdict(list)
        for r in rs:
            by[r["type"]].append(r)
        out[part] = {
            "pages": len(rs),
            "f1": statistics.fmean(r["f1"] for r in rs),
            "p": statistics.fmean(r["p"] for r in rs),
            "r": statistics.fmean(r["r"] for r in rs),
            "by_type": {k: {"pages": len(v), "f1": statistics.fmean(r["f1"] for r in v),
                            "p": statistics.fmean(r["p"] for r in v),
                            "r": statistics.fmean(r["r"] for r in v)} for k, v in sorted(by.items())},
        }
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pred")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata", "wcxb-dev"))
    ap.add_argument("--json")
    ap.add_argument("--worst", type=int, default=0, help="list the N worst TUNING pages")
    a = ap.parse_args()
    rows = score(a.pred, a.data)
    t = table(rows)
    types = sorted(t["all"]["by_type"])
    print(f"{'part':6} {'pages':>5} {'F1':>6} {'P':>6} {'R':>6}  " + " ".join(f"{k[:10]:>10}" for k in types))
    for part in ("tune", "valid", "all"):
        x = t[part]
        print(f"{part:6} {x['pages']:5d} {x['f1']:.3f} {x['p']:.3f} {x['r']:.3f}  " +
              " ".join(f"{x['by_type'].get(k, {}).get('f1', float('nan')):10.3f}" for k in types))
    if a.worst:
        for r in sorted((r for r in rows if r["part"] == "tune"), key=lambda r: r["f1"])[:a.worst]:
            print(f"  {r['id']} {r['type']:13} F1 {r['f1']:.3f} P {r['p']:.3f} R {r['r']:.3f}")
    if a.json:
        json.dump({"summary": t, "pages": rows}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
