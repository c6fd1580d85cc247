#!/usr/bin/env bash
# Language-ID accuracy on Debian's translated man pages (bench/lid.py; extra args go there).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import zstandard' 2>/dev/null || "$VENV/bin/pip" install --quiet zstandard
cargo build --release --locked --quiet --bin trawl
exec "$VENV/bin/python" bench/lid.py --trawl "$CARGO_TARGET_DIR/release/trawl" "$@"
