#!/usr/bin/env bash
# Image fetch + decode + check + resize + encode, images/s per core: trawl against
# img2dataset (PyPI, in its own venv made here) on the same local image server. Extra args go
# to bench/captions.py (e.g. --hosts 4 --n 500 --repeat 3).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv-img2dataset"
if ! "$VENV/bin/python" -c 'import img2dataset' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'img2dataset==1.47.0'
fi
cargo build --release --locked --quiet --bin trawl --example serve -p trawl -p trawl-testweb
exec python3 bench/captions.py --trawl "$CARGO_TARGET_DIR/release/trawl" --serve "$CARGO_TARGET_DIR/release/examples/serve" --img2dataset "$VENV/bin/img2dataset" "$@"
