#!/usr/bin/env bash
# Near-dedup throughput and memory: trawl vs datatrove's MinHash stages on the same 100k
# synthetic documents, one core each (datatrove takes about half an hour here).
# Extra args go to bench/dedup.py (e.g. --docs 20000, --only trawl, --work DIR to keep the corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import spacy, regex, xxhash' 2>/dev/null || "$VENV/bin/pip" install --quiet spacy regex 'xxhash==3.4.1'  # datatrove's minhash passes str to xxhash, which newer xxhash refuses
cargo build --release --locked --quiet
exec "$VENV/bin/python" bench/dedup.py --trawl "$CARGO_TARGET_DIR/release/trawl" "$@"
