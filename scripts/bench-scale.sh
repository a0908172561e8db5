#!/usr/bin/env bash
# Simulator scale figures: `mirage sim replay` of synthetic
# traces from `mirage synth` on 1,000 and 10,000 nodes, at 70 % offered
# load and overloaded (120 %), with 1 M jobs, on one core (GOMAXPROCS=1),
# and the cost per event over 10 k, 100 k and 1 M jobs. The replay time
# is the simulation alone (the command's wall time adds reading the
# Parquet file and the fidelity figures). Goal: each 1 M-job replay within
# 10 s; the cost per event within 2x from 10 k to 1 M jobs.
#
# The sizes are interleaved: each of REPS rounds replays every size (the
# small ones several times, 1 M jobs once), so that every size sees the
# same spells of a shared machine, whose speed drifts by a third over
# minutes; a replay's figure is the median over the rounds, with the
# fastest and every run's time beside it. After each trace kind, the cost
# per event of the largest size over the smallest, by medians (the goal)
# and by the fastest runs (a 25 ms replay's fastest of many is one caught
# in a fast spell, so that ratio overstates the growth).
# Usage: scripts/bench-scale.sh [JOBS...]   (default 10000 100000 1000000)
# Environment: KEEP=DIR keeps the generated traces there (reused next time);
# REPS=N rounds (default 5; a size under 1 M jobs runs 5 times a round
# under 100 k jobs and twice under 1 M).
set -euo pipefail
bin=${BIN:-bin/mirage}
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-scale-XXXXXX")}
mkdir -p "$tmp"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
sizes=("$@")
if ((${#sizes[@]} == 0)); then sizes=(10000 100000 1000000); fi
reps=${REPS:-5}
export GOMAXPROCS=1
for nodes in 1000 10000; do
	for util in 0.7 1.2; do
		: >"$tmp/curve.txt"
		for jobs in "${sizes[@]}"; do
			BIN="$bin" scripts/synth-trace.sh "$tmp" "$nodes" "$util" "$jobs" >/dev/null
			rm -f "$tmp"/replay-"$jobs"-*.json
		done
		for r in $(seq "$reps"); do
			for jobs in "${sizes[@]}"; do
				n=1
				if ((jobs < 100000)); then n=5; elif ((jobs < 1000000)); then n=2; fi
				for k in $(seq "$n"); do
					"$bin" sim replay --trace "$tmp/synth-$nodes-$util-$jobs.parquet" --partition-nodes "$nodes" --json --log-level error \
						>"$tmp/replay-$jobs-$r-$k.json"
				done
			done
		done
		for jobs in "${sizes[@]}"; do
			python3 - "$tmp/curve.txt" "$nodes" "$util" "$tmp"/replay-"$jobs"-*.json <<'PY'
import json, statistics, sys
runs = [json.load(open(f)) for f in sys.argv[4:]]
s = min(runs, key=lambda r: r["wall_sec"])
w = s["work"]
med = statistics.median(r["wall_sec"] for r in runs)
goal = ""
if s["jobs"] >= 1000000:
    goal = "  (goal 10 s: " + ("met" if med <= 10 else "NOT met") + ")"
us, fast = 1e6 * med / max(s["events"], 1), 1e6 * s["wall_sec"] / max(s["events"], 1)
open(sys.argv[1], "a").write(f"{s['jobs']} {us} {fast}\n")
print(f"replay {sys.argv[2]:>5} nodes, load {float(sys.argv[3]):.0%}, {s['jobs']:>7} jobs: {s['events']:>7} events in {med:7.2f} s, "
      f"{us:6.2f} us/event (median of {len(runs)}; fastest {fast:.2f}; runs " + ", ".join(f"{r['wall_sec']:.3f}" for r in runs) + f" s); at most {w['max_pending']} pending, "
      f"{w['backfill_passes']} backfill passes testing {w['backfill_tested'] / max(w['backfill_passes'], 1):.0f} jobs on average "
      f"(planning {(w['backfill_tested'] - w.get('backfill_skipped', 0)) / max(w['backfill_passes'], 1):.0f}; {w.get('backfill_stopped', 0)} stopped early), "
      f"{w.get('users_evaluated', 0) / max(w['main_passes'] + w['backfill_passes'], 1):.1f} users evaluated per pass{goal}")
PY
			rm -f "$tmp"/replay-"$jobs"-*.json
		done
		python3 - "$tmp/curve.txt" "$nodes" "$util" <<'PY'
import sys
pts = sorted((int(j), float(u), float(f)) for j, u, f in (l.split() for l in open(sys.argv[1])))
if len(pts) > 1:
    (j0, u0, f0), (j1, u1, f1) = pts[0], pts[-1]
    r = u1 / u0
    print(f"curve {sys.argv[2]:>5} nodes, load {float(sys.argv[3]):.0%}: cost per event at {j1} jobs / at {j0} jobs = {r:.2f}x by medians "
          f"(goal 2x: {'met' if r <= 2 else 'NOT met'}), {f1 / f0:.2f}x by the fastest runs; medians " + ", ".join(f"{j}: {u:.2f}" for j, u, _ in pts) + " us/event")
PY
	done
done
