#!/usr/bin/env bash
# Extraction quality and one-core speed, side by side:
#  1. the 392 labelled pages of ../shared/testdata/extract (token and snippet F1; score.py):
#     trawl, trafilatura, resiliparse, readability-lxml (bench/extract.py)
#  2. the 1,358 WCXB development pages of ../shared/testdata/wcxb-dev (word F1 per page type, on
#     the tuning and the validation part of bench/wcxb_split.py): trawl, rs-trafilatura,
#     trafilatura, resiliparse (bench/wcxb.py)
#  3. page-type accuracy on the same pages (meta.page_type against WCXB's labels: the rules,
#     the model, both; bench/pagetype_train.py without --write, so the model is not changed)
# Extra args go to the first two scripts (e.g. --repeat 1; --only takes names from either list).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import trafilatura, resiliparse, readability, lxml_html_clean' 2>/dev/null || {
  "$VENV/bin/pip" install --quiet trafilatura resiliparse
  "$VENV/bin/pip" install --quiet readability-lxml lxml_html_clean
}
"$VENV/bin/python" -c 'import rs_trafilatura' 2>/dev/null || "$VENV/bin/pip" install --quiet rs-trafilatura
cargo build --release --locked --quiet --bin trawl
python3 bench/extract.py --trawl "$CARGO_TARGET_DIR/release/trawl" "$@"
if [ -d ../shared/testdata/wcxb-dev ]; then
    python3 bench/wcxb.py --trawl "$CARGO_TARGET_DIR/release/trawl" "$@"
    "$VENV/bin/python" -c 'import numpy' 2>/dev/null || "$VENV/bin/pip" install --quiet numpy
    "$VENV/bin/python" bench/pagetype_train.py --trawl "$CARGO_TARGET_DIR/release/trawl"
else
    echo "bench/extract.sh: ../shared/testdata/wcxb-dev not found: WCXB part skipped" >&2
fi
