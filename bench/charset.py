#!/usr/bin/env python3
"""Charset detection on pages written in legacy encodings without their declarations.

Every WCXB development page (../shared/testdata/wcxb-dev) that holds text beyond ASCII is
written again in the first legacy encoding that can hold all of it (windows-1252, then
iso-8859-2, windows-1250, windows-1251, koi8-r, iso-8859-7, windows-1253 to -1257, cp874,
shift_jis, euc-jp; gb18030, big5 and euc-kr only for pages with CJK text), with its
`<meta charset>` and `http-equiv` declarations removed, so trawl must detect the encoding.
(Pages that no legacy encoding holds, an emoji beside Latin text, are left out.) The set is
harder than the web in one way, no declaration at all, and easier in another: the text is
the page's own, in one encoding throughout.

Each page's extraction is compared with the extraction of the same page as UTF-8 (with the
same binary): the pages read back exactly, and the mean word F1 against it.

Usage: bench/charset.py --trawl PATH [--data DIR]
"""
import argparse, collections, gzip, os, re, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../shared/testdata/wcxb-dev"))
args = ap.parse_args()

ENCODINGS = ["windows-1252", "iso-8859-2", "windows-1250", "windows-1251", "koi8-r", "iso-8859-7",
             "windows-1253", "windows-1254", "windows-1255", "windows-1256", "windows-1257",
             "cp874", "shift_jis", "euc-jp", "gb18030", "big5", "euc-kr"]
CJK_ONLY = {"gb18030", "big5", "euc-kr"}
DECL = re.compile(r"<meta[^>]*charset[^>]*>", re.I)
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
WORD = re.compile(r"\w+")

html_dir = os.path.join(args.data, "html")
if not os.path.isdir(html_dir):
    sys.exit(f"bench/charset.py: {html_dir} not found")
root = tempfile.mkdtemp(prefix="trawl-charset-")
legacy, utf = os.path.join(root, "legacy"), os.path.join(root, "utf8")
os.makedirs(legacy), os.makedirs(utf)
used = collections.Counter()
for fn in sorted(os.listdir(html_dir)):
    text = gzip.open(os.path.join(html_dir, fn)).read().decode("utf-8", "replace")
    if text.isascii():
        continue
    text = DECL.sub("", text).replace("\ufffd", "")
    cjk = bool(CJK.search(text))
    for enc in ENCODINGS:
        if enc in CJK_ONLY and not cjk:
            continue
        try:
            data = text.encode(enc)
        except UnicodeEncodeError:
            continue
        pid = fn.split(".")[0]
        open(os.path.join(legacy, pid + ".html"), "wb").write(data)
        open(os.path.join(utf, pid + ".html"), "w").write(text)
        used[enc] += 1
        break


def extract(src):
    out = src + ".out"
    r = subprocess.run([args.trawl, "--quiet", "extract", "--format", "txt", "--input", src,
                        "--output", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"trawl extract failed:\n{r.stderr[-2000:]}")
    return out


def f1(a, b):
    A, B = collections.Counter(WORD.findall(a.lower())), collections.Counter(WORD.findall(b.lower()))
    if not A and not B:
        return 1.0
    c = sum((A & B).values())
    return 0.0 if c == 0 else 2 * c / (sum(A.values()) + sum(B.values()))


want, got = extract(utf), extract(legacy)
ids = sorted(os.listdir(want))
exact = sum(open(os.path.join(want, i)).read() == open(os.path.join(got, i)).read() for i in ids)
mean = sum(f1(open(os.path.join(want, i)).read(), open(os.path.join(got, i)).read()) for i in ids) / len(ids)
print("pages by encoding: " + ", ".join(f"{e} {n}" for e, n in used.most_common()))
print(f"read back exactly: {exact} / {len(ids)}; mean word F1 against the UTF-8 page's text: {mean:.4f}")
shutil.rmtree(root)
