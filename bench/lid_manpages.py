#!/usr/bin/env python3
"""Language-ID accuracy of `trawl filter` (whatlang, document level) on a labelled
multilingual set built from Debian's translated manual pages.

The set: the `manpages` (en) and `manpages-{de,fr,es,it,nl,pl,pt-br,ru,uk,ja,zh}` packages
from Debian bookworm (downloaded with `apt-get download` into ~/.cache/trawl/lid; free
licences, per page in /usr/share/doc/manpages-*/copyright). Each page's roff source is
reduced to plain paragraphs (macros and escapes dropped); paragraphs of at least MIN_CHARS
characters, at most PER_LANG per language, chosen by a hash. Each paragraph is one document;
`trawl filter --annotate-only` labels it; accuracy = share whose attrs.lang.code equals the
package's language. Prints accuracy per language and overall, and the confusions.

Usage: bench/lid.py --trawl PATH [--per-lang 300] [--min-chars 200] [--work DIR]
"""
import argparse
import collections
import glob
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--per-lang", type=int, default=300)
ap.add_argument("--min-chars", type=int, default=200)
ap.add_argument("--work", default=os.path.expanduser("~/.cache/trawl/lid"))
ap.add_argument("--lid-model", help="a fastText LID model to combine with whatlang ([filter] lid_model)")
args = ap.parse_args()

# package -> (man page folder language, whatlang ISO 639-3 code)
PACKAGES = {
    "manpages": ("", "eng"), "manpages-de": ("de", "deu"), "manpages-fr": ("fr", "fra"), "manpages-es": ("es", "spa"),
    "manpages-it": ("it", "ita"), "manpages-nl": ("nl", "nld"), "manpages-pl": ("pl", "pol"), "manpages-pt-br": ("pt_BR", "por"),
    "manpages-ru": ("ru", "rus"), "manpages-uk": ("uk", "ukr"), "manpages-ja": ("ja", "jpn"), "manpages-zh": ("zh_CN", "cmn"),
}

os.makedirs(args.work, exist_ok=True)
missing = [p for p in PACKAGES if not glob.glob(os.path.join(args.work, p + "_*.deb"))]
if missing:
    subprocess.run(["apt-get", "download"] + missing, cwd=args.work, check=True, capture_output=True)

ESC = re.compile(r"\\f(\[[^\]]*\]|\(..|.)|\\\(..|\\\[[^\]]*\]|\\[-&|^%e0 ]|\\\*(\(..|\[[^\]]*\]|.)")


def paragraphs(roff):
    out, cur = [], []
    for line in roff.splitlines():
        if line.startswith((".", "'")):
            if cur:
                out.append(" ".join(cur))
                cur = []
            # text-carrying macros keep their argument text
            m = re.match(r"\.(B|I|BI|BR|IR|RB|RI|IB)\s+(.*)", line)
            if m:
                cur.append(m.group(2).replace('"', ""))
            continue
        t = ESC.sub("", line).replace("\\", "").strip()
        if t:
            cur.append(t)
        elif cur:
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


# Translated pages keep untranslated strings (po4a falls back to the English original), so a
# paragraph is labelled only when it is not an English page's paragraph, and, for languages
# with their own script, when most of its letters are in that script.
SCRIPT = {"rus": "\u0400-\u04ff", "ukr": "\u0400-\u04ff", "jpn": "\u3040-\u30ff\u4e00-\u9fff", "cmn": "\u4e00-\u9fff"}


# Latin-script languages: the paragraph must use more of its language's function words than
# English ones (catches untranslated paragraphs that differ from the English page's version)
STOP = {
    "eng": "the and of to is in that for with are this be",
    "deu": "der die das und ist nicht mit ein eine für von zu",
    "fra": "le la les et est une des pour dans que pas sur",
    "spa": "el la los las y es una para que por con del",
    "ita": "il la le e è una per che con del della non",
    "nld": "de het een en is van dat niet voor met op te",
    "pol": "i w na jest się nie z do że to od lub",
    "por": "o a os as e é um uma para que com não",
}


def function_words(p, code):
    words = re.findall(r"\w+", p.lower())
    return sum(w in STOP[code].split() for w in words)


def in_script(p, code):
    if code in STOP and code != "eng":
        return function_words(p, code) >= 2 and function_words(p, code) > function_words(p, "eng")
    if code not in SCRIPT:
        return True
    letters = [c for c in p if c.isalpha()]
    own = re.findall("[" + SCRIPT[code] + "]", p)
    return letters and len(own) / len(letters) >= 0.5


english = set()
docs = []
for pkg, (folder, code) in PACKAGES.items():
    deb = sorted(glob.glob(os.path.join(args.work, pkg + "_*.deb")))[0]
    root = os.path.join(args.work, pkg)
    if not os.path.isdir(root):
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    base = os.path.join(root, "usr/share/man", folder) if folder else os.path.join(root, "usr/share/man")
    paras = []
    for f in sorted(glob.glob(os.path.join(base, "man*", "*.gz"))):
        try:
            text = gzip.open(f).read().decode("utf-8")
        except Exception:
            continue
        for p in paragraphs(text):
            if code == "eng":
                english.add(p)
            if len(p) >= args.min_chars and (code == "eng" or (p not in english and in_script(p, code))):
                paras.append(p)
    paras.sort(key=lambda p: hashlib.sha1(p.encode()).hexdigest())
    for i, p in enumerate(paras[: args.per_lang]):
        docs.append({"id": f"{code}-{i}", "text": p, "label": code})

work = tempfile.mkdtemp(prefix="trawl-lid-")
inp = os.path.join(work, "in")
os.makedirs(inp)
with open(os.path.join(inp, "docs.jsonl"), "w") as f:
    for d in docs:
        f.write(json.dumps({"id": d["id"], "text": d["text"]}) + "\n")
cfg = os.path.join(work, "c.toml")
open(cfg, "w").write("[filter]\nmin_words = 0\n" + (f"lid_model = \"{os.path.abspath(args.lid_model)}\"\n" if args.lid_model else ""))
subprocess.run([args.trawl, "--quiet", "filter", "--annotate-only", "--config", cfg, "--input", inp, "--output", os.path.join(work, "out")], check=True)
import zstandard  # noqa: E402  (installed by bench/lid.sh)
pred = {}
for p in glob.glob(os.path.join(work, "out", "filter", "*.jsonl.zst")):
    with open(p, "rb") as fh:
        for line in zstandard.ZstdDecompressor().stream_reader(fh).read().decode().splitlines():
            d = json.loads(line)
            pred[d["id"]] = d["attrs"]["lang"]["code"]
per = collections.defaultdict(lambda: [0, 0])
conf = collections.Counter()
for d in docs:
    got = pred.get(d["id"], "missing")
    per[d["label"]][1] += 1
    if got == d["label"]:
        per[d["label"]][0] += 1
    else:
        conf[(d["label"], got)] += 1
total_ok = sum(v[0] for v in per.values())
total = sum(v[1] for v in per.values())
print(f"{'lang':<6} {'n':>5} {'accuracy':>9}")
for lang, (ok, n) in sorted(per.items()):
    print(f"{lang:<6} {n:>5} {ok / n:9.3f}")
print(f"{'all':<6} {total:>5} {total_ok / total:9.3f}   (macro {sum(ok / n for ok, n in per.values()) / len(per):.3f})")
print("most frequent confusions:", ", ".join(f"{a}->{b}: {n}" for (a, b), n in conf.most_common(8)))
