#!/usr/bin/env bash
# Documentation pages from generators and themes no rule was written for: Sphinx 8.1.3's own
# documentation (from its PyPI source) built with fifteen themes (Sphinx's eleven and furo,
# Read the Docs', PyData's and the Book theme), scored against Sphinx's text builder on the
# same sources (word F1, the WCXB metric); trawl beside rs-trafilatura, resiliparse and
# trafilatura. Then, where the machine has Node.js's API reference as Markdown and HTML
# (NodeSource's nodejs package: /usr/share/doc/nodejs/api), its own layout, MkDocs' two
# themes and Material, VitePress, Docusaurus and mdBook built from the same Markdown, against
# Python-Markdown's text of it; and Node.js's project guides as a blog under twelve Hexo themes.
# Pins and builds into $TRAWL_CACHE/docs-themes once (a few minutes); reruns score only.
# Extra args go to bench/docs_themes.py (e.g. --only trawl,rs-trafilatura).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/trawl/target}"
CACHE="${TRAWL_CACHE:-$HOME/.cache/trawl}"
scripts/setup.sh test
VENV="$CACHE/venv"
"$VENV/bin/python" -c 'import rs_trafilatura' 2>/dev/null || "$VENV/bin/pip" install --quiet rs-trafilatura
"$VENV/bin/python" -c 'import trafilatura, resiliparse' 2>/dev/null || "$VENV/bin/pip" install --quiet trafilatura resiliparse
DOCS="$CACHE/docs-themes"
if [ ! -x "$DOCS/venv/bin/sphinx-build" ]; then
    python3 -m venv "$DOCS/venv"
    "$DOCS/venv/bin/pip" install --quiet sphinx==8.1.3 furo==2025.12.19 sphinx_rtd_theme==3.1.0 \
        pydata-sphinx-theme==0.17.1 sphinx-book-theme==1.3.0 mkdocs==1.6.1 mkdocs-material==9.8.2
fi
# VitePress and Docusaurus (the npm registry) and mdBook (crates.io), pinned, where the
# machine has Node.js and its API Markdown: the same Markdown under three more generators
GEN="$DOCS/generators"
if command -v npm >/dev/null && ls /usr/share/doc/nodejs/api/*.md >/dev/null 2>&1; then
    npm_once() { # DIR PACKAGE... : a package.json of its own (no "type": webpack reads ESM)
        if [ ! -d "$GEN/$1/node_modules" ]; then
            mkdir -p "$GEN/$1" && echo '{"private": true}' > "$GEN/$1/package.json"
            (cd "$GEN/$1" && npm install --silent --no-audit --no-fund "${@:2}")
        fi
    }
    npm_once vitepress vitepress@1.6.4
    npm_once docusaurus @docusaurus/core@3.10.2 @docusaurus/preset-classic@3.10.2 react@18.3.1 react-dom@18.3.1
    [ -x "$GEN/mdbook/bin/mdbook" ] || cargo install --quiet --locked mdbook --version 0.4.52 --root "$GEN/mdbook"
    # Hexo, the renderers and generators its themes use, and twelve themes; a site's
    # package.json names Hexo's version (Hexo looks for it)
    if [ ! -d "$GEN/hexo/node_modules/hexo-theme-anzhiyu" ]; then
        mkdir -p "$GEN/hexo" && echo '{"private": true, "hexo": {"version": "8.1.2"}}' > "$GEN/hexo/package.json"
        (cd "$GEN/hexo" && npm install --silent --no-audit --no-fund hexo@8.1.2 \
            hexo-renderer-marked@7.0.1 hexo-renderer-ejs@2.0.0 hexo-renderer-stylus@3.0.1 \
            hexo-renderer-pug@3.0.0 hexo-renderer-inferno@1.0.2 hexo-generator-index@4.0.0 \
            hexo-generator-archive@2.0.0 hexo-generator-category@2.0.0 hexo-generator-tag@2.0.0 \
            hexo-theme-landscape@1.1.0 hexo-theme-next@8.29.0 hexo-theme-butterfly@5.7.0 \
            hexo-theme-fluid@1.9.9 hexo-theme-redefine@2.9.0 hexo-theme-keep@4.3.0 \
            hexo-theme-icarus@6.1.1 hexo-theme-stellar@1.44.0 hexo-theme-volantis@6.8.3 \
            hexo-theme-pure@1.0.2 hexo-theme-apollo@1.0.6 hexo-theme-anzhiyu@1.7.0)
    fi
fi
cargo build --release --locked --quiet --bin trawl
python3 bench/docs_themes.py --trawl "$CARGO_TARGET_DIR/release/trawl" --python "$VENV/bin/python" \
    --sphinx "$DOCS/venv/bin" --work "$DOCS" --generators "$GEN" "$@"
