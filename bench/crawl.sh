#!/usr/bin/env bash
# Crawl throughput, trawl vs Scrapy, on a generated local web (extra args go to bench/crawl.py,
# e.g. --hosts 20 --pages 500).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import scrapy' 2>/dev/null || "$VENV/bin/pip" install --quiet scrapy
cargo build --release --locked --quiet --bin trawl --example serve -p trawl -p trawl-testweb
exec "$VENV/bin/python" bench/crawl.py --trawl "$CARGO_TARGET_DIR/release/trawl" --serve "$CARGO_TARGET_DIR/release/examples/serve" "$@"
