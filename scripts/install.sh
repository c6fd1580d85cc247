#!/usr/bin/env bash
# A release-optimised trawl on PATH: installs what the build needs (scripts/setup.sh demo),
# builds with the release profile and copies the binary to $PREFIX/bin (default ~/.local).
#
#   scripts/install.sh          the default features
#   scripts/install.sh --clip   also the CLIP image-text alignment scorer ([captions.alignment])
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
features=()
for a in "$@"; do
    case "$a" in
        --clip) features=(--features clip) ;;
        *) echo "install.sh: unknown argument $a (known: --clip)" >&2; exit 2 ;;
    esac
done
scripts/setup.sh demo
cargo build --release --locked "${features[@]}" --bin trawl
PREFIX="${PREFIX:-$HOME/.local}"
mkdir -p "$PREFIX/bin"
install -m 0755 "$CARGO_TARGET_DIR/release/trawl" "$PREFIX/bin/trawl"
echo "installed $PREFIX/bin/trawl ($("$PREFIX/bin/trawl" --version))"
