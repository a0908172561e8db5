#!/usr/bin/env bash
# Memory of `mirage trace stats`: peak RSS, wall and CPU time
# of `mirage trace stats --json` over a synthetic trace of JOBS jobs
# (default 10 M) on 1,000 nodes at 70 % offered load, in bytes per job.
# The statistics keep distinct wait and run times, not one per job, so RSS
# is mostly the Parquet reader's and the runtime's: about 117 MiB (12
# bytes/job) at 10 M jobs, 102 MiB at 1 M; when they kept every wait and
# run time, 540 MiB (56 bytes/job) at 10 M.
# Usage: scripts/bench-trace-stats-memory.sh [JOBS]
# Environment: KEEP=DIR keeps the generated trace there (reused next time;
# the same file name as scripts/bench-replay-memory.sh uses);
# BIN=PATH runs another binary (default bin/mirage).
set -euo pipefail
bin=${BIN:-bin/mirage}
jobs=${1:-10000000}
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-stats-XXXXXX")}
mkdir -p "$tmp"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
t=$(BIN="$bin" scripts/synth-trace.sh "$tmp" 1000 0.7 "$jobs")
out=$(mktemp "${TMPDIR:-/tmp}/mirage-stats-XXXXXX")
trap 'rm -f "$out" "$out.time"; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
/usr/bin/time -f '%M %e %U %S' -o "$out.time" "$bin" trace stats --json --log-level error "$t" >"$out"
read -r rss_kb wall user sys <"$out.time"
python3 - "$out" "$rss_kb" "$wall" "$user" "$sys" <<'PY'
import hashlib, json, sys
raw = open(sys.argv[1], "rb").read()
s = json.loads(raw)
rss = int(sys.argv[2]) * 1024
per = rss / max(s["jobs"], 1)
print(f"trace stats memory: {s['jobs']} jobs, peak RSS {rss / 2**20:.0f} MiB = {per:.1f} bytes/job, "
      f"{float(sys.argv[3]):.1f} s wall, {float(sys.argv[4]) + float(sys.argv[5]):.1f} s CPU; output sha256 {hashlib.sha256(raw).hexdigest()[:16]}")
PY
