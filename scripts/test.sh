#!/usr/bin/env bash
# The whole test suite: installs what the tests need (scripts/setup.sh), checks formatting
# and clippy, then runs every test of the workspace with the real parts (loopback test web,
# Chromium and lightpanda, s3s-fs, megatron-core).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
# what the build needs first; the test tools (Chromium, s3s-fs, the Python venv) install in
# the background while the tests compile
scripts/setup.sh demo
log="$(mktemp -t trawl-setup.XXXXXX)"
scripts/setup.sh test >"$log" 2>&1 &
setup=$!
# missing external tools fail the run instead of skipping tests
export TRAWL_REQUIRE_EXTERNAL=1
# the tree is formatted and lint-free (clippy's findings are errors); the optional CLIP
# scorer is built and tested too (the demo builds without it)
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked --quiet --features clip -- -D warnings
cargo test --workspace --locked --features clip --no-run --quiet
if ! wait "$setup"; then
    cat "$log" >&2
    echo "test.sh: scripts/setup.sh test failed" >&2
    exit 1
fi
cat "$log" >&2
exec cargo test --workspace --locked --features clip "$@"
