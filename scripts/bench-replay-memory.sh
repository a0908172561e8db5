#!/usr/bin/env bash
# Memory of a whole-trace replay: peak RSS of
# `mirage sim replay` over a synthetic trace of JOBS jobs (default 5 M) on
# 1,000 nodes at 70 % offered load, in bytes per job. Goal: under 250.
# Usage: scripts/bench-replay-memory.sh [JOBS]
# Environment: KEEP=DIR keeps the generated trace there (reused next time).
set -euo pipefail
bin=${BIN:-bin/mirage}
jobs=${1:-5000000}
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-mem-XXXXXX")}
mkdir -p "$tmp"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
t=$(BIN="$bin" scripts/synth-trace.sh "$tmp" 1000 0.7 "$jobs")
/usr/bin/time -f '%M %e' -o "$tmp/time.txt" "$bin" sim replay --trace "$t" --partition-nodes 1000 --json --log-level error >"$tmp/replay.json"
read -r rss_kb wall <"$tmp/time.txt"
python3 - "$tmp/replay.json" "$rss_kb" "$wall" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rss = int(sys.argv[2]) * 1024
per = rss / max(s["jobs"], 1)
print(f"replay memory: {s['jobs']} jobs, peak RSS {rss / 2**20:.0f} MiB = {per:.0f} bytes/job "
      f"(goal 250: {'met' if per <= 250 else 'NOT met'}), {float(sys.argv[3]):.1f} s wall")
PY
