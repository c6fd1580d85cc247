#!/usr/bin/env bash
# Extraction quality (score.py of ../shared/testdata/extract) and one-core speed, trawl vs
# trafilatura, resiliparse and readability-lxml (installed into the venv). Extra args go to
# bench/extract.py (e.g. --only trawl --repeat 1 --keep /tmp/pred).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import trafilatura, resiliparse, readability, lxml_html_clean' 2>/dev/null || {
  "$VENV/bin/pip" install --quiet trafilatura resiliparse
  "$VENV/bin/pip" install --quiet readability-lxml lxml_html_clean
}
cargo build --release --locked --quiet --bin trawl
exec python3 bench/extract.py --trawl "$CARGO_TARGET_DIR/release/trawl" "$@"
