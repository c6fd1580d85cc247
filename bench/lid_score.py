#!/usr/bin/env python3
"""Scores the language-ID predictions `bench/lid-eval` writes: accuracy per detector on the
tuning and validation parts, sentences and paragraphs, per source and per language, and the
most common confusions.

A text counts as right when the detector's code equals its label; `und` is wrong. UDHR
texts (tuning part only; whatlang was built from them) are reported on their own line and
left out of the headline figures.

Usage: bench/lid_score.py PREDICTIONS.jsonl [MORE.jsonl ...] [--detail DETECTOR] [--json OUT]
"""
import argparse
import collections
import json

ap = argparse.ArgumentParser()
ap.add_argument("predictions", nargs="+", help="bench/lid-eval's predictions, then any more (e.g. bench/lid_fasttext.py's), joined by split and id")
ap.add_argument("--detail", default="trawl", help="detector whose per-language figures and confusions are printed")
ap.add_argument("--json", help="write every figure here")
args = ap.parse_args()

rows = [json.loads(line) for line in open(args.predictions[0], encoding="utf-8")]
by_id = {(r["split"], r["id"]): r for r in rows}
for extra in args.predictions[1:]:
    for line in open(extra, encoding="utf-8"):
        e = json.loads(line)
        by_id[(e.pop("split"), e.pop("id"))].update(e)
detectors = [k for k in ("whatlang", "whatlang-trigram", "whatlang-alphabet", "trawl", "lingua-low", "lingua-high", "fasttext") if k in rows[0]]


def acc(rs, det):
    return sum(r[det][0] == r["label"] for r in rs) / len(rs) if rs else float("nan")


groups = collections.defaultdict(list)
for r in rows:
    part = "udhr" if r["source"] == "udhr" else r["split"]
    groups[(part, r["kind"])].append(r)
    groups[(part, r["kind"], r["source"])].append(r)
    groups[(part, r["kind"], "lang", r["label"])].append(r)

out = {"overall": {}, "per_source": {}, "per_language": {}}
print(f"{'part':7} {'kind':10} {'texts':>7} " + " ".join(f"{d:>11}" for d in detectors))
for part in ("tune", "valid", "udhr"):
    for kind in ("sentence", "paragraph"):
        rs = groups.get((part, kind), [])
        if not rs:
            continue
        figs = {d: acc(rs, d) for d in detectors}
        out["overall"][f"{part}/{kind}"] = {"texts": len(rs), **figs}
        print(f"{part:7} {kind:10} {len(rs):7} " + " ".join(f"{100 * figs[d]:10.2f}%" for d in detectors))
print()
print("per source (sentences / paragraphs, tuning | validation):")
sources = sorted({r["source"] for r in rows if r["source"] != "udhr"})
for src in sources:
    for part in ("tune", "valid"):
        for kind in ("sentence", "paragraph"):
            rs = groups.get((part, kind, src), [])
            if rs:
                figs = {d: acc(rs, d) for d in detectors}
                out["per_source"][f"{part}/{kind}/{src}"] = {"texts": len(rs), **figs}
                print(f"  {src:9} {part:6} {kind:10} {len(rs):6} " + " ".join(f"{100 * figs[d]:10.2f}%" for d in detectors))
print()
det = args.detail
if det in detectors:
    print(f"per language, validation part, {det} (sentences, paragraphs; worst first):")
    langs = sorted({r["label"] for r in rows if r["split"] == "valid"})
    table = []
    for lang in langs:
        s = groups.get(("valid", "sentence", "lang", lang), [])
        p = groups.get(("valid", "paragraph", "lang", lang), [])
        table.append((acc(s, det) if s else 1.0, lang, len(s), acc(s, det), len(p), acc(p, det)))
        out["per_language"][lang] = {"sentences": len(s), "paragraphs": len(p),
                                     **{f"{d}/sentence": acc(s, d) for d in detectors},
                                     **{f"{d}/paragraph": acc(p, d) for d in detectors}}
    for _, lang, ns, a_s, np_, a_p in sorted(table):
        print(f"  {lang} {ns:5} {100 * a_s:6.1f}%  {np_:4} {100 * a_p:6.1f}%")
    conf = collections.Counter((r["label"], r[det][0]) for r in rows if r["split"] == "valid" and r[det][0] != r["label"])
    print(f"most common confusions, validation part, {det}: " + ", ".join(f"{a}->{b} {n}" for (a, b), n in conf.most_common(20)))
if args.json:
    json.dump(out, open(args.json, "w"), indent=1)
