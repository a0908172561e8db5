#!/usr/bin/env bash
# features build and evaluate per window on a 1,000-node synthetic study
# against the same on LS6 (88 nodes), one window at a time on one core
# (GOMAXPROCS=1, --workers 1), WINDOWS windows of each (default 12) from
# the start of each study's training period (features) and validation
# period (evaluate: the baselines and the oracle). The 1,000-node trace
# is `mirage synth --partition-nodes 1000 --jobs 250000` (70 % offered load, about 2.5
# months) and its study comes from `mirage study init`. Prints seconds per
# window and per simulated job (the jobs a window replays: warm-up plus
# workload), and the ratio of the two clusters' per-job costs (the
# goal: the same proportion as LS6's time per window, i.e. a ratio near 1).
# Usage: scripts/bench-scale-study.sh   Environment: WINDOWS, KEEP=DIR.
set -euo pipefail
bin=${BIN:-bin/mirage}
ls6=${LS6:-../shared/traces/ls6-a100.log}
windows=${WINDOWS:-12}
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-study-XXXXXX")}
mkdir -p "$tmp"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export GOMAXPROCS=1
if [ ! -f "$tmp/s1k.parquet" ]; then
	"$bin" synth --partition-nodes 1000 --jobs 250000 -o "$tmp/s1k.sacct" --log-level error >/dev/null
	"$bin" ingest --tz America/Chicago --cluster synth1k -o "$tmp/s1k.parquet" "$tmp/s1k.sacct" --log-level error >/dev/null
	rm -f "$tmp/s1k.sacct"
fi
"$bin" study init --trace "$tmp/s1k.parquet" -o "$tmp/s1k.yaml" --force --log-level error >/dev/null
studies=("s1k $tmp/s1k.parquet $tmp/s1k.yaml")
if [ -f "$ls6" ]; then
	[ -f "$tmp/ls6.parquet" ] || "$bin" ingest --tz America/Chicago --cluster ls6 -o "$tmp/ls6.parquet" "$ls6" --log-level error >/dev/null
	studies+=("ls6 $tmp/ls6.parquet ls6")
else
	echo "bench-scale-study: LS6 skipped: $ls6 not found (the LS6 trace lives in ../shared)" >&2
fi
for spec in "${studies[@]}"; do
	read -r name trace study <<<"$spec"
	/usr/bin/time -f '%e' -o "$tmp/t-f" "$bin" features build --trace "$trace" --study "$study" --windows "$windows" \
		--workers 1 -o "$tmp/f-$name.parquet" --json --log-level error >"$tmp/f-$name.json"
	/usr/bin/time -f '%e' -o "$tmp/t-e" "$bin" evaluate --trace "$trace" --study "$study" --windows "$windows" \
		--workers 1 --policy reactive,avg,slurm-estimate,oracle -o "$tmp/e-$name" --json --log-level error >"$tmp/e-$name.json"
	"$bin" trace stats "$trace" --json --log-level error >"$tmp/r-$name.json"
	python3 - "$name" "$tmp/t-f" "$tmp/t-e" "$tmp/f-$name.json" "$tmp/r-$name.json" "$windows" "$tmp/per-$name.txt" <<'PY'
import json, sys
name, tf, te, fj, rj, windows, out = sys.argv[1:]
wf, we = float(open(tf).read().split()[-1]), float(open(te).read().split()[-1])
f, r = json.load(open(fj)), json.load(open(rj))
w = int(windows)
# jobs a window replays: the trace's submission rate times the window's
# span (2 days of warm-up and 5 of workload in both studies)
from datetime import datetime
days = (datetime.fromisoformat(r["last_submit"].replace("Z", "+00:00")) -
        datetime.fromisoformat(r["first_submit"].replace("Z", "+00:00"))).total_seconds() / 86400
jobs = r["jobs"] / days * 7
print(f"{name}: features build {wf / w:.2f} s/window, evaluate {we / w:.2f} s/window (4 policies) on 1 core, "
      f"{w} windows x {f['chain_sizes']} chain sizes; about {jobs:.0f} jobs per window")
open(out, "w").write(f"{wf / w / jobs} {we / w / jobs}\n")
PY
done
if [ -f "$tmp/per-ls6.txt" ]; then
	python3 - "$tmp/per-s1k.txt" "$tmp/per-ls6.txt" <<'PY'
import sys
a = list(map(float, open(sys.argv[1]).read().split()))
b = list(map(float, open(sys.argv[2]).read().split()))
print(f"per simulated job, 1,000 nodes vs LS6: features build {a[0] / b[0]:.2f}x, evaluate {a[1] / b[1]:.2f}x (goal: about 1x or less)")
PY
fi
