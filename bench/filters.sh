#!/usr/bin/env bash
# What the filters would remove from known-good pages: extracts the labelled pages of
# ../shared/testdata/extract (hand-picked articles, blogs and docs in several languages),
# runs `trawl filter --annotate-only` with the default config (min_words lowered to 0 so
# short pages still reach every rule), and prints, per drop reason, how many pages it would
# remove, with an example URL. Most pages here are content a pretraining set wants, so most
# counts are false positives the relaxed defaults aim to keep low; exceptions worth knowing:
# readability's synthetic test pages are lorem ipsum (c4_lorem_ipsum is right there), and
# training_opt_out counts pages whose meta robots say noindex/noai (honoured by design).
# Then bench/filters.py times `trawl filter` (LID + heuristics + quality model, and the
# default stage with PII and safety too) against datatrove's Gopher/C4/FineWeb chain on the
# same documents, the same trawl configurations in process per stage, and reports how often
# the decisions agree.
# Usage: bench/filters.sh [TESTDATA_EXTRACT_DIR] [-- args of bench/filters.py]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
DATA=../shared/testdata/extract
if [ $# -gt 0 ] && [ "$1" != "--" ]; then DATA="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p trawl-filter --example filter_speed
T="$CARGO_TARGET_DIR/release/trawl"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
printf '[filter]\nmin_words = 0\n' > "$W/cfg.toml"
for d in "$DATA"/*/html; do
  name="$(basename "$(dirname "$d")")"
  "$T" extract --quiet --input "$d" --output "$W/$name" >/dev/null
  "$T" filter --quiet --annotate-only --config "$W/cfg.toml" --input "$W/$name/extract" --output "$W/$name" >/dev/null
  mkdir -p "$W/all/extract" "$W/all/filter"
  for f in "$W/$name"/extract/*.jsonl.zst; do cp "$f" "$W/all/extract/$name-$(basename "$f")"; done
  for f in "$W/$name"/filter/*.jsonl.zst; do cp "$f" "$W/all/filter/$name-$(basename "$f")"; done
done
python3 - "$W" <<'PY'
import collections, json, pathlib, subprocess, sys
w = pathlib.Path(sys.argv[1])
total, flagged, reasons, langs = 0, 0, collections.Counter(), collections.Counter()
examples = collections.defaultdict(list)
for f in sorted(w.glob("all/filter/*.jsonl.zst")):
    for line in subprocess.run(["zstd", "-dc", str(f)], capture_output=True, check=True).stdout.splitlines():
        d = json.loads(line)
        total += 1
        langs[d["attrs"].get("lang", {}).get("code")] += 1
        flagged += bool(d["attrs"].get("would_drop"))
        for r in set(d["attrs"].get("would_drop", [])):
            reasons[r] += 1
            examples[r].append(d["url"])
clean = total - flagged
print(f"{total} extracted pages; languages: {dict(langs.most_common(8))}")
print(f"kept by every rule: {clean} ({clean / total:.1%})")
print(f"{'reason':<28} {'pages':>6} {'share':>7}")
for r, n in reasons.most_common():
    print(f"{r:<28} {n:>6} {n / total:>7.1%}  e.g. {examples[r][0]}")
PY
echo
"$VENV/bin/python" bench/filters.py --trawl "$T" --speed-example "$CARGO_TARGET_DIR/release/examples/filter_speed" --docs "$W/all/extract" --annotated "$W/all/filter" "$@"
