#!/usr/bin/env bash
# Simulator scale figures (issue 12): `mirage sim replay` of synthetic
# traces from `mirage synth` on 1,000 and 10,000 nodes, at 70 % offered
# load and overloaded (120 %), with 1 M jobs, on one core (GOMAXPROCS=1),
# and the cost per event over 10 k, 100 k and 1 M jobs. The replay time
# is the simulation alone (the command's wall time adds reading the
# Parquet file and the fidelity figures). Goal: each 1 M-job replay within
# 10 s; the cost per event within 2x from 10 k to 1 M jobs.
# Usage: scripts/bench-scale.sh [JOBS...]   (default 10000 100000 1000000)
# Environment: KEEP=DIR keeps the generated traces there (reused next time).
set -euo pipefail
bin=${BIN:-bin/mirage}
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-scale-XXXXXX")}
mkdir -p "$tmp"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
sizes=("$@")
if ((${#sizes[@]} == 0)); then sizes=(10000 100000 1000000); fi
export GOMAXPROCS=1
for nodes in 1000 10000; do
	for util in 0.7 1.2; do
		for jobs in "${sizes[@]}"; do
			t=$(BIN="$bin" scripts/synth-trace.sh "$tmp" "$nodes" "$util" "$jobs")
			"$bin" sim replay --trace "$t" --nodes "$nodes" --json --log-level error >"$tmp/replay.json"
			python3 - "$tmp/replay.json" "$nodes" "$util" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s["work"]
goal = ""
if s["jobs"] >= 1000000:
    goal = "  (goal 10 s: " + ("met" if s["wall_sec"] <= 10 else "NOT met") + ")"
print(f"replay {sys.argv[2]:>5} nodes, load {float(sys.argv[3]):.0%}, {s['jobs']:>7} jobs: {s['events']:>7} events in {s['wall_sec']:7.2f} s, "
      f"{1e6 * s['wall_sec'] / max(s['events'], 1):6.2f} us/event; at most {w['max_pending']} pending, "
      f"{w['backfill_passes']} backfill passes testing {w['backfill_tested'] / max(w['backfill_passes'], 1):.0f} jobs on average "
      f"(planning {(w['backfill_tested'] - w.get('backfill_skipped', 0)) / max(w['backfill_passes'], 1):.0f}; {w.get('backfill_stopped', 0)} stopped early), "
      f"{w.get('users_evaluated', 0) / max(w['main_passes'] + w['backfill_passes'], 1):.1f} users evaluated per pass{goal}")
PY
		done
	done
done
