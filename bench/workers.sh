#!/usr/bin/env bash
# A crawl by 1 vs 2 workers on the generated bench web (issue 21); extra args go to
# bench/workers.py (e.g. --hosts 20 --pages 500 --repeat 5).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
cargo build --release --locked --quiet --bin trawl --example serve -p trawl -p trawl-testweb
exec python3 bench/workers.py --trawl "$CARGO_TARGET_DIR/release/trawl" --serve "$CARGO_TARGET_DIR/release/examples/serve" "$@"
