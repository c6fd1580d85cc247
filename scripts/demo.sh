#!/usr/bin/env bash
# The main job on the embedded default: `trawl run` crawls the bundled test web (served on
# 127.0.0.2-8), runs every stage and writes shards, manifest and report to ./trawl-out.
# Extra arguments go to `trawl run` (e.g. --output DIR, --demo-port N).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh demo
exec cargo run --locked --quiet -- run "$@"
