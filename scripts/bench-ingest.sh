#!/usr/bin/env bash
# Whole-command ingest figures: wall time, CPU time, rows/s and peak RSS for
# a synthetic --parsable2 dump of ROWS rows (default 10M), through bin/mirage.
# Usage: scripts/bench-ingest.sh [ROWS] [GOMAXPROCS]
set -euo pipefail
rows=${1:-10000000}
procs=${2:-}
bin=bin/mirage
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" synth --jobs "$rows" --partition-nodes 880 --seed 1 -o "$tmp/in.sacct" --log-level error >/dev/null
size=$(stat -c %s "$tmp/in.sacct")
export GOMAXPROCS=${procs:-$(nproc)}
/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
	"$bin" ingest --tz America/Chicago -o "$tmp/out.parquet" "$tmp/in.sacct" --json --log-level error >"$tmp/summary.json"
read -r wall user sys rss <"$tmp/time"
out=$(stat -c %s "$tmp/out.parquet")
awk -v r="$rows" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v isz="$size" -v o="$out" -v p="$GOMAXPROCS" 'BEGIN {
	printf "ingest %d rows (%.0f MB sacct -> %.1f MB parquet), GOMAXPROCS=%d: wall %.2f s (%.0f rows/s), cpu %.2f s (%.0f rows/cpu-s), peak RSS %.0f MB\n",
		r, isz/1e6, o/1e6, p, w, r/w, u+s, r/(u+s), m/1024 }'
