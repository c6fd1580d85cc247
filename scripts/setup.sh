#!/usr/bin/env bash
# Installs what trawl's demo and tests need, skipping whatever is already present.
#
#   scripts/setup.sh demo   Debian's librocksdb-dev and clang (to link RocksDB), libturbojpeg0-dev,
#                             lightpanda (the light rendering engine, from its PyPI wheel)
#   scripts/setup.sh test   + Debian's chromium and time, the S3 test server (s3s-fs), a Python venv with
#                             megatron-core and datatrove (read our token shards back)
#
# Everything goes to $TRAWL_CACHE (default ~/.cache/trawl), outside the clone, so CI and
# later sessions reuse it. Only package registries are contacted (crates.io, PyPI, Debian).
set -euo pipefail

mode="${1:-test}"
CACHE="${TRAWL_CACHE:-$HOME/.cache/trawl}"
mkdir -p "$CACHE"
log() { printf 'setup: %s\n' "$*" >&2; }

apt_install() {
    local missing=()
    for p in "$@"; do
        # installed, not merely known to dpkg (a removed package keeps its config files)
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        log "apt-get install ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

if ! command -v cargo >/dev/null; then
    log "cargo not found: install the Rust toolchain first (https://rustup.rs)"
    exit 2
fi

# RocksDB: link Debian's library (.cargo/config.toml points ROCKSDB_LIB_DIR at it) instead of
# compiling the bundled C++; bindgen needs clang.
apt_install librocksdb-dev clang libclang-dev libturbojpeg0-dev pkg-config

# --- lightpanda, the light rendering engine (tried before Chromium): its PyPI wheel ships
# the binary; a venv of its own, linked as $CACHE/bin/lightpanda where trawl looks for it
LP="$CACHE/bin/lightpanda"
if [ ! -x "$LP" ]; then
    if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        apt_install python3 python3-venv
    fi
    log "installing lightpanda 1.0.2 from PyPI into $CACHE/lightpanda"
    [ -x "$CACHE/lightpanda/bin/pip" ] || python3 -m venv "$CACHE/lightpanda"
    "$CACHE/lightpanda/bin/pip" install --quiet --disable-pip-version-check 'lightpanda==1.0.2'
    mkdir -p "$CACHE/bin"
    ln -sf "$("$CACHE/lightpanda/bin/python" -c 'import lightpanda, os; print(os.path.join(os.path.dirname(lightpanda.__file__), "lightpanda"))')" "$LP"
fi

[ "$mode" = "demo" ] && exit 0

# --- Debian's Chromium (the report is checked in a real browser; never a downloaded one) -
command -v chromium >/dev/null || apt_install chromium
# --- GNU time: peak memory of a crawl process in a test ---------------------------------
[ -x /usr/bin/time ] || apt_install time

# --- S3-compatible test server: s3s-fs checks request signatures, like real S3 ---------
S3S="$CACHE/tools/bin/s3s-fs"
if [ ! -x "$S3S" ]; then
    log "installing s3s-fs 0.14.1 into $CACHE/tools (a few minutes, once)"
    # a debug build (the tests move a few MB through it): about half the CPU of a release
    # build, and it runs while the tests compile
    cargo install s3s-fs@0.14.1 --locked --debug --features binary --root "$CACHE/tools" --quiet
fi

# --- Python venv: megatron-core (and its torch), datatrove, webdataset, pyarrow, datasets --
VENV="$CACHE/venv"
if ! "$VENV/bin/python" -c 'import megatron.core.datasets.indexed_dataset, datatrove.utils.dataset, tokenizers, orjson, warcio, webdataset, PIL, pyarrow, datasets' >/dev/null 2>&1; then
    if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        apt_install python3 python3-venv
    fi
    log "creating $VENV with megatron-core and datatrove (downloads torch, a few minutes, once)"
    [ -x "$VENV/bin/pip" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check 'megatron-core==0.16.1' 'datatrove==0.10.1' tokenizers orjson warcio numpy 'webdataset==1.0.2' pillow 'pyarrow>=15' 'datasets>=3'
fi
log "ready: chromium=$(command -v chromium) lightpanda=$LP s3s-fs=$S3S python=$VENV/bin/python"
