#!/usr/bin/env bash
# Whole-command figures of `mirage analyze` on a synthetic trace of JOBS jobs
# (default 10M; `mirage synth` on 880 nodes, then `mirage ingest`): wall
# time, CPU time and peak RSS on GOMAXPROCS cores (default 2). The budget:
# 10M jobs within 2 minutes and under 1 GB on 2 cores. The
# replays are bounded by --replay-max-jobs (500,000 by default), so a 10M
# trace is analysed in one streaming pass; figures and the page included.
# Usage: scripts/bench-analyze.sh [JOBS] [GOMAXPROCS]
# TRACE=path reuses an ingested trace instead of generating one.
set -euo pipefail
jobs=${1:-10000000}
procs=${2:-2}
bin=${MIRAGE:-bin/mirage}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-analyze-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trace=${TRACE:-}
if [ -z "$trace" ]; then
	"$bin" synth --jobs "$jobs" --partition-nodes 880 --seed 1 -o "$tmp/in.sacct" --log-level error >/dev/null
	"$bin" ingest --tz America/Chicago -o "$tmp/trace.parquet" "$tmp/in.sacct" --log-level error >/dev/null
	rm -f "$tmp/in.sacct"
	trace=$tmp/trace.parquet
fi
export GOMAXPROCS=$procs
/usr/bin/time -v -o "$tmp/time" "$bin" analyze "$trace" -o "$tmp/out" --log-level error >/dev/null
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
user=$(awk -F': ' '/User time/ {print $2}' "$tmp/time")
sys=$(awk -F': ' '/System time/ {print $2}' "$tmp/time")
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
rows=$("$bin" trace stats "$trace" --json --log-level error | awk -F'[:,]' '/"jobs"/ {gsub(/ /, "", $2); print $2; exit}')
echo "analyze $rows jobs, GOMAXPROCS=$GOMAXPROCS: wall $wall, cpu $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f s", u+s}'), peak RSS $(awk -v m="$rss" 'BEGIN {printf "%.0f MB", m/1024}') (budget: 2 min, 1 GB on 2 cores)"
