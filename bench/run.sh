#!/usr/bin/env bash
# CPU-stage throughput with --threads 1 vs 2 (issue 20): `trawl extract`, `trawl filter` and
# `trawl run` over the same crawl of the generated bench web, taking turns, medians; checks
# that 1 and 2 threads write the same bytes. Extra args go to bench/run.py
# (e.g. --hosts 20 --pages 500 --repeat 5).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh demo
cargo build --release --locked --quiet --bin trawl --example serve -p trawl -p trawl-testweb
exec python3 bench/run.py --trawl "$CARGO_TARGET_DIR/release/trawl" --serve "$CARGO_TARGET_DIR/release/examples/serve" "$@"
