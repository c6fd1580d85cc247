#!/usr/bin/env bash
# The whole test suite: installs what the tests need (scripts/setup.sh), checks formatting
# and clippy, then runs every test of the workspace with the real parts (loopback test web,
# s3s-fs, megatron-core).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
scripts/setup.sh test
# missing external tools fail the run instead of skipping tests
export TRAWL_REQUIRE_EXTERNAL=1
# the tree is formatted and lint-free (clippy's findings are errors)
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked --quiet -- -D warnings
exec cargo test --workspace --locked "$@"
