#!/usr/bin/env bash
# Runs every cargo-fuzz target under fuzz/ for a bounded time (not part of CI).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 300 s, every target
#
# Installs cargo-fuzz into $TRAWL_CACHE/tools on first use. The machine's toolchain is
# stable: targets build without sanitizers (`-s none`, libFuzzer's coverage-guided search
# still runs), with RUSTC_BOOTSTRAP=1 for the one unstable flag cargo-fuzz passes. New
# inputs that widen coverage are kept, minimised after each run (`cargo fuzz cmin`), in
# fuzz/corpus/<target>.tar.gz beside the hand-written seeds of fuzz/seeds/<target>/; a crash
# leaves its input in fuzz/artifacts/<target>/ and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-300}"
shift || true
CACHE="${TRAWL_CACHE:-$HOME/.cache/trawl}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}-fuzz"
FUZZ="$CACHE/tools/bin/cargo-fuzz"
if [ ! -x "$FUZZ" ]; then
    echo "fuzz: installing cargo-fuzz into $CACHE/tools (once)" >&2
    cargo install cargo-fuzz --locked --root "$CACHE/tools" --quiet
fi
scripts/setup.sh demo >/dev/null   # librocksdb-dev etc. for the crates the targets link
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^trawl-fuzz$')
fi
export RUSTC_BOOTSTRAP=1
status=0
for t in "${targets[@]}"; do
    # the working corpus: the kept one (fuzz/corpus/<target>.tar.gz) plus the hand-written
    # seeds (fuzz/seeds/<target>/)
    work="$CACHE/fuzz-corpus/$t"
    rm -rf "$work" && mkdir -p "$work"
    [ -f "fuzz/corpus/$t.tar.gz" ] && tar -xzf "fuzz/corpus/$t.tar.gz" -C "$work" --strip-components=1
    [ -d "fuzz/seeds/$t" ] && cp -r "fuzz/seeds/$t/." "$work/"
    echo "fuzz: $t for ${secs}s" >&2
    start=$(date +%s)
    if "$FUZZ" fuzz run -s none --release "$t" "$work" -- \
        -max_total_time="$secs" -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        2> "fuzz/$t.log"; then
        result=ok
    else
        result="FAILED (see fuzz/$t.log and fuzz/artifacts/$t/)"
        status=1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/$t.log" | tail -1)
    # keep the corpus small enough to commit: only inputs that add coverage, one archive
    "$FUZZ" fuzz cmin -s none --release "$t" "$work" >> "fuzz/$t.log" 2>&1 || true
    mkdir -p fuzz/corpus
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$(dirname "$work")" "$t" \
        | gzip -n -9 > "fuzz/corpus/$t.tar.gz"
    echo "fuzz: $t: $result after $(( $(date +%s) - start ))s, ${runs:-?} executions, corpus $(ls "$work" | wc -l) inputs" >&2
done
exit $status
