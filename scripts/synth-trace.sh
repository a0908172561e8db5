#!/usr/bin/env bash
# Makes (once) the synthetic Parquet trace the bench scripts replay:
# `mirage synth` of JOBS jobs on NODES nodes at offered load UTIL, then
# `mirage ingest`, as DIR/synth-NODES-UTIL-JOBS.parquet, and prints its
# path. An existing file is reused.
# Usage: scripts/synth-trace.sh DIR NODES UTIL JOBS
# Environment: BIN=PATH (default bin/mirage).
set -euo pipefail
bin=${BIN:-bin/mirage}
dir=$1 nodes=$2 util=$3 jobs=$4
t="$dir/synth-$nodes-$util-$jobs.parquet"
if [ ! -f "$t" ]; then
	mkdir -p "$dir"
	"$bin" synth --partition-nodes "$nodes" --jobs "$jobs" --utilisation "$util" -o "$dir/x.sacct" --log-level error >/dev/null
	"$bin" ingest --tz America/Chicago --cluster synth -o "$t" "$dir/x.sacct" --log-level error >/dev/null
	rm -f "$dir/x.sacct" "${t%.parquet}.quarantine.jsonl"
fi
echo "$t"
