#!/usr/bin/env bash
# Submits one batch of trawl as Slurm job arrays, one per phase, each starting when the
# previous phase has finished (afterok dependencies). Workers share only object storage.
#
#   CONFIG=/etc/trawl/nightly.toml ROOT=s3://bucket/trawl/$(date -u +%Y%m%d) WORKERS=64 \
#     CRAWLERS=8 deploy/slurm/nightly.sh
#
# The crawl runs as CRAWLERS tasks started together (crawl.sbatch: one frontier partitioned
# by registered domain); every later phase as a job array of WORKERS tasks.
set -euo pipefail
: "${CONFIG:?path of the pipeline config}"
: "${ROOT:?run root, e.g. s3://bucket/trawl/20261121}"
: "${WORKERS:=16}"
: "${CRAWLERS:=1}"
: "${BANDS:=20}"     # [dedup] bands: the buckets phase has one task per band at most
HERE="$(cd "$(dirname "$0")" && pwd)"
STAGE="$HERE/stage.sbatch"
last=""
submit() { # name array-size trawl-args...
    local name=$1 size=$2
    shift 2
    local dep=()
    [ -n "$last" ] && dep=(--dependency="afterok:$last")
    last=$(sbatch --parsable --job-name="trawl-$name" --array="0-$((size - 1))" "${dep[@]}" "$STAGE" "$@" --config "$CONFIG" --output "$ROOT")
    echo "submitted $name ($size tasks): job $last"
}
buckets=$(( WORKERS < BANDS ? WORKERS : BANDS ))
last=$(sbatch --parsable --job-name=trawl-crawl --ntasks="$CRAWLERS" "$HERE/crawl.sbatch" --config "$CONFIG" --output "$ROOT")
echo "submitted crawl ($CRAWLERS tasks together): job $last"
submit extract "$WORKERS" extract --input "$ROOT/crawl/warc"
submit filter "$WORKERS" filter --input "$ROOT/extract"
submit dedup-signatures "$WORKERS" dedup signatures --input "$ROOT/filter"
submit dedup-buckets "$buckets" dedup buckets
submit dedup-clusters 1 dedup clusters
submit dedup-apply "$WORKERS" dedup apply --input "$ROOT/filter"
submit captions "$WORKERS" captions --input "$ROOT/dedup"
submit shards "$WORKERS" shards --input "$ROOT/dedup"
submit pack 1 shards pack
submit report 1 report
