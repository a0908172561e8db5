#!/usr/bin/env bash
# Whole-command figures of `mirage features build` on the LS6 trace: wall
# time, CPU time, peak RSS and samples/s on all cores, for the decision-grid
# protocol ls6 (budget: 3 minutes on 2 cores) and the artifact's 7-probe
# mirage-ls6. Usage: scripts/bench-features.sh [PROTOCOL...]
set -euo pipefail
ls6=${LS6:-../shared/traces/ls6-a100.log}
if [ ! -f "$ls6" ]; then
	echo "bench-features: skipped: $ls6 not found (the LS6 trace lives in ../shared)" >&2
	exit 0
fi
bin=bin/mirage
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-features-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" ingest --tz America/Chicago --cluster ls6 -o "$tmp/ls6.parquet" "$ls6" --log-level error >/dev/null
protocols=("$@")
if ((${#protocols[@]} == 0)); then protocols=(ls6 mirage-ls6); fi
for p in "${protocols[@]}"; do
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
		"$bin" features build --trace "$tmp/ls6.parquet" --protocol "$p" -o "$tmp/samples-$p.parquet" --json --log-level error >"$tmp/summary.json"
	read -r wall user sys rss <"$tmp/time"
	python3 - "$tmp/summary.json" "$p" "$wall" "$user" "$sys" "$rss" "$(nproc)" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p, wall, user, sysc, rss, cores = sys.argv[2], *map(float, sys.argv[3:])
budget = " (budget 180 s on 2 cores)" if p == "ls6" else ""
print(f"features build {p}: {s['windows']} windows x {s['chain_sizes']} chain sizes, {s['samples']} samples, "
      f"wall {wall:.0f} s{budget} on {cores:.0f} cores, cpu {user + sysc:.0f} s, peak RSS {rss / 1024:.0f} MB; "
      f"{s['samples'] / wall:.0f} samples/s")
PY
done
