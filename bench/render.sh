#!/usr/bin/env bash
# Headless rendering throughput and the render decision on a mixed local web (extra args go
# to bench/render.py, e.g. --hosts 4 --pages 100 --tabs 1,2,4): lightpanda, Chromium and the
# two-tier default side by side. Installs Debian's chromium-headless-shell next to chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
if [ ! -x /usr/bin/chromium-headless-shell ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium-headless-shell >/dev/null || echo "chromium-headless-shell not installed: benchmarking chromium only" >&2
fi
cargo build --release --locked --quiet --bin trawl --example serve -p trawl -p trawl-testweb
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import zstandard' 2>/dev/null || "$VENV/bin/pip" install --quiet zstandard
exec "$VENV/bin/python" bench/render.py --trawl "$CARGO_TARGET_DIR/release/trawl" --serve "$CARGO_TARGET_DIR/release/examples/serve" "$@"
