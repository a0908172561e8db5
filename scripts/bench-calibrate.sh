#!/usr/bin/env bash
# Calibration time (mirage sim calibrate) on the shared traces: wall time
# (budget: 10 minutes on 2 cores for a 300,000-job trace), CPU time, peak
# RSS, candidates and month replays, and the fidelity before and after on
# the check months (not used to fit), the chosen settings, and the trace's
# own chains' real and simulated reactive interruption.
# Usage: scripts/bench-calibrate.sh   (needs ../shared/traces; skips without)
set -euo pipefail
shared=${SHARED:-../shared/traces}
if [ ! -d "$shared" ]; then
	echo "bench-calibrate: skipped: $shared not found (the traces live in ../shared)" >&2
	exit 0
fi
bin=bin/mirage
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-calibrate-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# name, file, ingest flags, zone, calibration months [from, to)
while read -r name file zone from to extra; do
	[ -f "$shared/$file" ] || { echo "bench-calibrate: $name: skipped: $shared/$file not found" >&2; continue; }
	# shellcheck disable=SC2086
	"$bin" ingest --tz "$zone" --cluster "$name" -o "$tmp/$name.parquet" "$shared/$file" $extra --log-level error >/dev/null
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
		"$bin" sim calibrate --trace "$tmp/$name.parquet" --tz "$zone" --from "$from" --to "$to" --allow-skip -o "$tmp/$name.yaml" \
		--json --progress never --log-level error >"$tmp/$name.json"
	read -r wall user sys rss <"$tmp/time"
	python3 - "$tmp/$name.json" "$name" "$wall" "$user" "$sys" "$rss" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
name, wall, user, sysc, rss = sys.argv[2], *map(float, sys.argv[3:])
cb, cf = s["check_base"], s["check_fitted"]
print(f"calibrate {name}: {s['candidates']} candidates, {s['replays']} month replays, wall {wall:.1f} s (budget 600 s), "
      f"cpu {user + sysc:.1f} s, peak RSS {rss / 1024:.0f} MB; check months {s['check_months'][0]}..{s['check_months'][-1]}: "
      f"Spearman {cb['wait_spearman']:.3f} -> {cf['wait_spearman']:.3f}, within 2x {100 * cb['within_2x']:.1f}% -> {100 * cf['within_2x']:.1f}%")
def chains(c):
    return f"real {c['real_interruption_h']:.1f} h, simulated {c['simulated_reactive_interruption_h']:.1f} h ({c['replayed_links']} links)" if c else "none"
print(f"  chosen: {s['best']}")
print(f"  chains: calibration months {chains(s['calibration_fitted'].get('chains'))}; check months base "
      f"{chains(s.get('check_chains_base'))}, fitted {chains(s.get('check_chains_fitted'))}")
PY
done <<'LIST'
ls6 ls6-a100.log America/Chicago 2022-11-01 2023-03-01
kth-sp2 KTH-SP2-1996-2.1-cln.swf.gz UTC 1996-10-01 1997-06-01
hpc2n HPC2N-2002-2.1-cln.swf.gz UTC 2002-08-01 2005-01-01
metacentrum METACENTRUM-2009-2.swf.gz UTC 2009-01-01 2009-05-01 --start-time 2009-01-01T00:00:00Z
LIST
