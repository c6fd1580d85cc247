#!/usr/bin/env python3
"""fastText's lid.176 model on the language-ID set of bench/lid_data.py, through the
reference implementation (PyPI `fasttext-wheel`): the Rust `fasttext` crate trawl links
misreads quantized models (`.ftz`: garbage labels at probability 1.0), and lid.176.bin is
not on a package registry. The answer is the best of the top 5 labels that is one of
whatlang's languages, with its probability.

Writes one JSON line per text ({split, id, fasttext: [code, prob]}) for bench/lid_score.py
and prints the time.

Usage: bench/lid_fasttext.py MODEL SET_DIR OUT.jsonl
"""
import json
import sys
import time

import fasttext


ISO = {  # fastText's two-letter labels as whatlang's ISO 639-3 codes
    "af": "afr", "ak": "aka", "am": "amh", "ar": "ara", "az": "aze", "be": "bel", "bg": "bul",
    "bn": "ben", "ca": "cat", "cs": "ces", "cy": "cym", "da": "dan", "de": "deu", "el": "ell",
    "en": "eng", "eo": "epo", "es": "spa", "et": "est", "fa": "pes", "fi": "fin", "fr": "fra",
    "gu": "guj", "he": "heb", "hi": "hin", "hr": "hrv", "hu": "hun", "hy": "hye", "id": "ind",
    "it": "ita", "ja": "jpn", "jv": "jav", "ka": "kat", "km": "khm", "kn": "kan", "ko": "kor",
    "la": "lat", "lt": "lit", "lv": "lav", "mk": "mkd", "ml": "mal", "mr": "mar", "my": "mya",
    "no": "nob", "nb": "nob", "ne": "nep", "nl": "nld", "or": "ori", "pa": "pan", "pl": "pol",
    "pt": "por", "ro": "ron", "ru": "rus", "si": "sin", "sk": "slk", "sl": "slv", "sn": "sna",
    "sr": "srp", "sv": "swe", "ta": "tam", "te": "tel", "th": "tha", "tk": "tuk", "tl": "tgl",
    "tr": "tur", "uk": "ukr", "ur": "urd", "uz": "uzb", "vi": "vie", "yi": "yid", "zh": "cmn",
    "zu": "zul",
}
model, set_dir, out = sys.argv[1:4]
m = fasttext.load_model(model)
rows = []
for split in ("tune", "valid"):
    for line in open(f"{set_dir}/{split}.jsonl", encoding="utf-8"):
        r = json.loads(line)
        rows.append((split, r["id"], " ".join(r["text"].split())))
t0 = time.perf_counter()
labels, probs = m.predict([t for _, _, t in rows], k=5)
secs = time.perf_counter() - t0
mb = sum(len(t.encode()) for _, _, t in rows) / 1e6
with open(out, "w", encoding="utf-8") as f:
    for (split, id_, _), ls, ps in zip(rows, labels, probs):
        ans = next(((ISO[l[9:]], float(p)) for l, p in zip(ls, ps) if l[9:] in ISO), ("und", 0.0))
        f.write(json.dumps({"split": split, "id": id_, "fasttext": [ans[0], round(ans[1], 3)]}) + "\n")
print(f"fasttext     lid.176.ftz (C++ reference)  detect {secs:7.1f} s  {mb / secs:7.2f} MB/s  {len(rows) / secs:8.0f} texts/s", file=sys.stderr)
