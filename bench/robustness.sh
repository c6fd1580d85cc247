#!/usr/bin/env bash
# Extraction without the names it may have learnt: the 1,358 WCXB development pages and the
# 392 labelled pages rewritten fifteen ways (bench/perturb.py: class/id tokens hashed;
# sectioning tags made divs and roles dropped; both; the opening words of every other
# paragraph made a link; a related-story link line after every third paragraph; a sign-up
# box with no class names after the fourth; every paragraph in three wrappers of its own; an
# unnamed advertisement slot after every fourth paragraph; a cookie banner at the top; a
# comment section after the text; a site menu with no nav tag; a breadcrumb trail; a teaser
# rail after the text; paragraphs written as runs of text split by <br><br>; headings written as bold divs): word F1 per page type, token and snippet F1, on the tuning and the
# validation part; trawl beside rs-trafilatura (WCXB) and trafilatura and readability-lxml
# (the 392 pages). Quality only: one round each, speed lines not comparable. Extra args go
# to both scripts (e.g. --only trawl).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
[ -d ../shared/testdata/wcxb-dev ] || { echo "bench/robustness.sh: ../shared/testdata/wcxb-dev not found" >&2; exit 1; }
scripts/setup.sh test
VENV="${TRAWL_CACHE:-$HOME/.cache/trawl}/venv"
"$VENV/bin/python" -c 'import rs_trafilatura' 2>/dev/null || "$VENV/bin/pip" install --quiet rs-trafilatura
"$VENV/bin/python" -c 'import trafilatura, readability, lxml_html_clean' 2>/dev/null || {
  "$VENV/bin/pip" install --quiet trafilatura
  "$VENV/bin/pip" install --quiet readability-lxml lxml_html_clean
}
cargo build --release --locked --quiet --bin trawl
for mode in names tags both links related signup wrap ads consent comments menu crumbs rail br headings; do
    echo "=== --perturb $mode"
    python3 bench/wcxb.py --trawl "$CARGO_TARGET_DIR/release/trawl" --repeat 1 \
        --only trawl,rs-trafilatura --perturb "$mode" "$@" | sed '/pages\/s/,$d'
    python3 bench/extract.py --trawl "$CARGO_TARGET_DIR/release/trawl" --repeat 1 \
        --only trawl,trafilatura,readability --perturb "$mode" "$@" \
        | sed -n '/^extractor  *tune token/,/^$/p' | grep -v '^speed'
done
