#!/usr/bin/env bash
# Peak RSS of `mirage ingest` on pathological input:
# a sacct row of 15 MB of '|' (15 million empty fields), and a sacct --json
# job whose name is 200 MB. Both rows must be quarantined and the run must
# go on (exit 0, the good rows kept); the figure is the maximum resident set
# size reported by /usr/bin/time -v (GNU time).
# Usage: scripts/bench-hardening.sh [path/to/mirage]   (default bin/mirage)
set -euo pipefail
bin=${1:-bin/mirage}
command -v /usr/bin/time >/dev/null || { echo "bench-hardening: needs GNU time (/usr/bin/time; apt-get install time)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

hdr='JobID|JobName|User|State|Submit|Start|End'
row() { echo "$1|j$1|alice|COMPLETED|2023-01-01T00:00:00|2023-01-01T00:10:00|2023-01-01T01:00:00"; }
{ echo "$hdr"; row 1; head -c 15000000 /dev/zero | tr '\0' '|'; echo; row 3; } >"$dir/pipes.txt"

job() { # id name-generator
	printf '{"job_id": %s, "name": "' "$1"; $2; printf '", "user": "alice", "state": {"current": "COMPLETED"}, "time": {"submission": 1672531200, "eligible": 1672531200, "start": 1672531800, "end": 1672535400, "limit": 120}, "steps": []}'
}
short() { printf 'j'; }
long() { head -c 200000000 /dev/zero | tr '\0' 'n'; }
{ printf '{"meta": {"plugin": {"type": "openapi/dbv0.0.38"}}, "errors": [], "jobs": [\n'; job 1 short; printf ',\n'; job 2 long; printf ',\n'; job 3 short; printf '\n]}\n'; } >"$dir/name.json"

measure() { # label input
	local out rc
	out=$( { /usr/bin/time -v "$bin" ingest --json --log-level error -o "$dir/o.parquet" "$2" >"$dir/summary.json"; } 2>&1 ) && rc=0 || rc=$?
	local rss
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' <<<"$out")
	local jobs q
	jobs=$(grep -o '"jobs": [0-9]*' "$dir/summary.json" | head -1 | grep -o '[0-9]*$' || echo -)
	q=$(grep -o '"quarantined": [0-9]*' "$dir/summary.json" | head -1 | grep -o '[0-9]*$' || echo -)
	printf '%-32s %8d KiB max RSS (%d MiB)  exit %d  jobs %s  quarantined %s  input %d MB\n' \
		"$1" "$rss" "$((rss / 1024))" "$rc" "$jobs" "$q" "$(($(stat -c %s "$2") / 1000000))"
}
echo "bench-hardening: $bin"
measure "sacct row of 15 MB of '|'" "$dir/pipes.txt"
measure "sacct --json 200 MB job name" "$dir/name.json"
