#!/usr/bin/env bash
# Whole-command DQN training figures on the LS6 trace: wall time, CPU time,
# peak RSS, episodes, decisions/s and gradient steps/s of
# `mirage train --model dqn` with the default hyper-parameters.
# Usage: scripts/bench-dqn.sh [PROTOCOL...]   (default: mirage-ls6 ls6)
# DQN_CONFIG=FILE.json times a --dqn-config instead, e.g.
# DQN_CONFIG=train/dqn/converge.json (early stopping on validation-like
# held-out windows, epsilon by progress, the submit shaping).
set -euo pipefail
ls6=${LS6:-../shared/traces/ls6-a100.log}
if [ ! -f "$ls6" ]; then
	echo "bench-dqn: skipped: $ls6 not found (the LS6 trace lives in ../shared)" >&2
	exit 0
fi
bin=bin/mirage
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mirage-bench-dqn-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" ingest --tz America/Chicago --cluster ls6 -o "$tmp/ls6.parquet" "$ls6" --log-level error >/dev/null
cfg=()
if [ -n "${DQN_CONFIG:-}" ]; then cfg=(--dqn-config "$DQN_CONFIG"); fi
protocols=("$@")
if ((${#protocols[@]} == 0)); then protocols=(mirage-ls6 ls6); fi
for p in "${protocols[@]}"; do
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
		"$bin" train --model dqn --trace "$tmp/ls6.parquet" --protocol "$p" "${cfg[@]}" -o "$tmp/dqn-$p" --json --log-level error >"$tmp/summary.json"
	read -r wall user sys rss <"$tmp/time"
	python3 - "$tmp/summary.json" "$p" "$wall" "$user" "$sys" "$rss" "$tmp/dqn-$p/manifest.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[7]))["training"]
p, wall, user, sysc, rss = sys.argv[2], *map(float, sys.argv[3:7])
print(f"dqn train {p}: {s['episodes']} episodes, {s['decisions']} decisions, {s['grad_steps']} gradient steps, "
      f"wall {wall:.0f} s (budget 600 s), cpu {user + sysc:.0f} s, peak RSS {rss / 1024:.0f} MB; "
      f"{s['decisions'] / wall:.0f} decisions/s, {s['grad_steps'] / wall:.0f} gradient steps/s overall; "
      f"early stopped {t['early_stopped']}, best held-out return {t.get('best_valid_return', float('nan')):.2f} h "
      f"(reactive {t.get('valid_reactive_return', float('nan')):.2f}, oracle {t.get('valid_oracle_return', float('nan')):.2f})")
PY
done
