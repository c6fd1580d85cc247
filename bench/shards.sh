#!/usr/bin/env bash
# Tokenize + write throughput, trawl vs datatrove's DocumentTokenizer, one core each.
# Needs ../shared/testdata (the labelled pages' texts are the corpus). Extra args go to
# bench/shards.py (e.g. --mb 80 --repeat 5).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
cargo build --release --locked --quiet
exec "${TRAWL_CACHE:-$HOME/.cache/trawl}/venv/bin/python" bench/shards.py --trawl "$CARGO_TARGET_DIR/release/trawl" --shared ../shared "$@"
