#!/usr/bin/env python3
"""trawl filter vs datatrove's Gopher/C4/FineWeb quality chain on the same documents.

Input: a folder of trawl Documents (JSONL, .zst) from `trawl extract`. The corpus is the
documents repeated --repeat times (so timings are long enough to measure); every tool sees
the same texts. datatrove runs GopherRepetitionFilter, GopherQualityFilter, C4QualityFilter
(filter_no_terminal_punct=False, as in FineWeb) and FineWebQualityFilter in one process.
trawl runs `trawl filter --threads 1` (whole command: reading, JSON, zstd output) in two
configurations, both with min_words 0 and the built-in English quality model:

- `chain`: the chain the issue compares with datatrove's: language ID (document and
  paragraph level), the heuristic signals and filters, and the quality model (PII and
  safety switched off);
- `full`: the default filter stage, which also replaces PII and scores profanity.

The tools take turns, one run each per round; medians of --runs rounds. Then, with
--speed-example (the `filter_speed` example binary), the same two configurations in process
(no shard I/O), per stage, medians of --runs. Finally how often the trawl and datatrove
keep/drop decisions agree per distinct page (trawl's decision from its heuristic reasons
in `--annotate-only` output).
"""
import argparse, atexit, json, pathlib, shutil, statistics, subprocess, sys, tempfile, time


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
    ap.add_argument("--trawl-only", action="store_true", help="time trawl only (no datatrove run, no agreement)")
    ap.add_argument("--speed-example", help="the filter_speed example binary: also time both configurations in process, per stage")
    a = ap.parse_args()
    docs = load(a.docs)
    texts = [d["text"] for d in docs] * a.repeat
    w = pathlib.Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, w, True)
    corpus = w / "in" / "corpus.jsonl"
    corpus.parent.mkdir()
    with open(corpus, "w") as f:
        for r in range(a.repeat):
            for d in docs:
                f.write(json.dumps(dict(d, id=f"{d['id']}-{r}")) + "\n")
    model = "[filter.quality.models]\neng = \"builtin:eng\"\n"
    configs = {
        "chain": "[filter]\nmin_words = 0\n[filter.pii]\nenabled = false\n[filter.safety]\nenabled = false\n" + model,
        "full": "[filter]\nmin_words = 0\n" + model,
    }
    for name, text in configs.items():
        (w / f"{name}.toml").write_text(text)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"{len(docs)} pages x {a.repeat} = {len(texts)} documents, {mb:.1f} MB of text")
    times = {name: [] for name in configs}
    dt = []
    for _ in range(a.runs):
        for name in configs:
            t = time.perf_counter()
            subprocess.run([a.trawl, "--threads", "1", "filter", "--quiet", "--force", "--config", str(w / f"{name}.toml"), "--input", str(corpus.parent), "--output", str(w / "out")], check=True, capture_output=True)
            times[name].append(time.perf_counter() - t)
        if a.trawl_only:
            continue
        t = time.perf_counter()
        dkeep = datatrove_run(texts)
        dt.append(time.perf_counter() - t)
    print(f"{'tool':<34} {'median s':>9} {'docs/s':>9} {'MB/s':>7}  runs")
    for name, tt in times.items():
        t = statistics.median(tt)
        label = "trawl filter, LID+heuristics+quality" if name == "chain" else "trawl filter, default (+PII, safety)"
        print(f"{label:<34} {t:>9.2f} {len(texts) / t:>9.0f} {mb / t:>7.2f}  {[round(x, 2) for x in tt]}")
    if not a.trawl_only:
        d = statistics.median(dt)
        print(f"{'datatrove Gopher+C4+FineWeb':<34} {d:>9.2f} {len(texts) / d:>9.0f} {mb / d:>7.2f}  {[round(x, 2) for x in dt]}")
        print(f"speed ratio trawl/datatrove: chain {d / statistics.median(times['chain']):.1f}x, default {d / statistics.median(times['full']):.1f}x")
    if a.speed_example:
        for name in configs:
            print(f"in process, {name} configuration (no shard I/O):")
            out = subprocess.run([a.speed_example, str(corpus), str(w / f"{name}.toml"), str(a.runs)], check=True, capture_output=True, text=True).stdout
            print("  " + out.strip().replace("\n", "\n  "))
    if a.trawl_only:
        return 0
    heur = ("gopher_", "c4_", "fineweb_")
    tkeep = {x["id"]: not any(r.startswith(heur) for r in x["attrs"].get("would_drop", [])) for x in load(a.annotated)}
    pairs = [(tkeep[x["id"]], k) for x, k in zip(docs, dkeep[: len(docs)]) if x["id"] in tkeep]
    agree = sum(1 for p, q in pairs if p == q)
    print(f"decisions on {len(pairs)} pages: agree {agree} ({agree / len(pairs):.1%}); trawl keeps {sum(p for p, _ in pairs)}, datatrove keeps {sum(q for _, q in pairs)}; "
          f"datatrove-only drops {sum(1 for p, q in pairs if p and not q)}, trawl-only drops {sum(1 for p, q in pairs if q and not p)}")


if __name__ == "__main__":
    sys.exit(main())
