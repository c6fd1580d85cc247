#!/usr/bin/env python3
"""trawl filter vs datatrove's Gopher/C4/FineWeb quality chain on the same documents.

Input: a folder of trawl Documents (JSONL, .zst) from `trawl extract`. The corpus is the
documents repeated --repeat times (so timings are long enough to measure); both tools see the
same texts. datatrove runs GopherRepetitionFilter, GopherQualityFilter, C4QualityFilter
(filter_no_terminal_punct=False, as in FineWeb) and FineWebQualityFilter in one process;
trawl runs `trawl filter --threads 1` with min_words 0 (which also does language ID, PII,
safety and consent, so it does more work per document). Reports the median of --runs
wall times, docs/s, and how often the two keep/drop decisions agree per distinct page
(trawl's decision from its heuristic reasons in `--annotate-only` output).
"""
import argparse, json, pathlib, statistics, subprocess, sys, tempfile, time


def load(folder):
    docs = []
    for f in sorted(pathlib.Path(folder).glob("*.jsonl.zst")):
        out = subprocess.run(["zstd", "-qdc", str(f)], capture_output=True, check=True).stdout
        docs += [json.loads(l) for l in out.splitlines()]
    return docs


def datatrove_run(texts):
    from datatrove.data import Document
    from datatrove.pipeline.filters import C4QualityFilter, FineWebQualityFilter, GopherQualityFilter, GopherRepetitionFilter
    chain = [GopherRepetitionFilter(), GopherQualityFilter(), C4QualityFilter(filter_no_terminal_punct=False), FineWebQualityFilter()]
    keep = []
    for i, t in enumerate(texts):
        d = Document(text=t, id=str(i))
        ok = True
        for f in chain:
            r = f.filter(d)
            if r is False or (isinstance(r, tuple) and r[0] is False):
                ok = False
                break
        keep.append(ok)
    return keep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", required=True)
    ap.add_argument("--docs", required=True, help="folder of extracted Documents")
    ap.add_argument("--annotated", required=True, help="folder of --annotate-only output of the same docs")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quality", action="store_true", help="also score with the built-in English quality model ([filter.quality] models.eng = builtin:eng)")
    ap.add_argument("--trawl-only", action="store_true", help="time trawl only (no datatrove run, no agreement)")
    a = ap.parse_args()
    docs = load(a.docs)
    texts = [d["text"] for d in docs] * a.repeat
    w = pathlib.Path(tempfile.mkdtemp())
    corpus = w / "in" / "corpus.jsonl"
    corpus.parent.mkdir()
    with open(corpus, "w") as f:
        for r in range(a.repeat):
            for d in docs:
                f.write(json.dumps(dict(d, id=f"{d['id']}-{r}")) + "\n")
    (w / "cfg.toml").write_text("[filter]\nmin_words = 0\n" + ("[filter.quality.models]\neng = \"builtin:eng\"\n" if a.quality else ""))
    mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"{len(docs)} pages x {a.repeat} = {len(texts)} documents, {mb:.1f} MB of text")
    tt, dt = [], []
    for _ in range(a.runs):
        t = time.perf_counter()
        subprocess.run([a.trawl, "--threads", "1", "filter", "--quiet", "--force", "--config", str(w / "cfg.toml"), "--input", str(corpus.parent), "--output", str(w / "out")], check=True, capture_output=True)
        tt.append(time.perf_counter() - t)
        if a.trawl_only:
            continue
        t = time.perf_counter()
        dkeep = datatrove_run(texts)
        dt.append(time.perf_counter() - t)
    if a.trawl_only:
        t = statistics.median(tt)
        print(f"trawl{' + quality model' if a.quality else ''}: median {t:.2f} s, {len(texts) / t:.0f} docs/s, {mb / t:.2f} MB/s (runs {[round(x, 2) for x in tt]})")
        return 0
    t, d = statistics.median(tt), statistics.median(dt)
    print(f"{'tool':<10} {'median s':>9} {'docs/s':>9} {'MB/s':>7}")
    print(f"{'trawl':<10} {t:>9.2f} {len(texts) / t:>9.0f} {mb / t:>7.2f}")
    print(f"{'datatrove':<10} {d:>9.2f} {len(texts) / d:>9.0f} {mb / d:>7.2f}")
    print(f"speed ratio trawl/datatrove: {d / t:.1f}x (runs: trawl {[round(x, 2) for x in tt]}, datatrove {[round(x, 2) for x in dt]})")
    heur = ("gopher_", "c4_", "fineweb_")
    tkeep = {x["id"]: not any(r.startswith(heur) for r in x["attrs"].get("would_drop", [])) for x in load(a.annotated)}
    pairs = [(tkeep[x["id"]], k) for x, k in zip(docs, dkeep[: len(docs)]) if x["id"] in tkeep]
    agree = sum(1 for p, q in pairs if p == q)
    print(f"decisions on {len(pairs)} pages: agree {agree} ({agree / len(pairs):.1%}); trawl keeps {sum(p for p, _ in pairs)}, datatrove keeps {sum(q for _, q in pairs)}; "
          f"datatrove-only drops {sum(1 for p, q in pairs if p and not q)}, trawl-only drops {sum(1 for p, q in pairs if q and not p)}")


if __name__ == "__main__":
    sys.exit(main())
