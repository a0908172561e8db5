#!/usr/bin/env bash
# The operating-point table: for a training protocol P (ls6 or mirage-ls6) on the
# LS6 trace, build decision-grid samples, choose every policy's operating
# point by time-blocked CV on the training windows (overlap budget 1 h),
# train forest and xgboost for each target and a DQN, and evaluate them on
# P-val. Usage: scripts/operating-points.sh PROTOCOL OUTDIR [TRACE.parquet]
# Environment: BIN (bin/mirage), DQN (1: train and evaluate a DQN),
# EVERY_BLOCK (1: the budget must hold in every CV time block,
# train --budget-every-block), BUDGET_RULE (train --budget-rule: mean,
# every-block or nested; empty: train's default), BUDGET (1h), SWEEP (1:
# evaluate --sweep; 0 replays the training-chosen points only), MODELS
# (the tree kinds, "xgboost forest"), TARGETS (their targets, "cliff
# interrupt deadline r wait"; stop is train --target stop), STOP_HORIZONS
# (e.g. "4h": also stop models trained with --stop-horizon H, named
# stopH), WIDE_TARGETS (targets also trained on samples built with
# features build --wide, named TARGET-wide), REUSE (1: keep a model
# directory that has a manifest.json instead of training it again). It ends with
# scripts/operating-points-table.sh: CV against validation overlap, and
# scripts/light-overlap.sh: the share of overlap spent in light windows.
set -euo pipefail
P=${1:?protocol: ls6 or mirage-ls6}
D=${2:?output directory}
BIN=${BIN:-bin/mirage}
mkdir -p "$D"
T=${3:-$D/ls6.parquet}
if [ ! -f "$T" ]; then
  "$BIN" ingest --tz America/Chicago --cluster ls6 -o "$T" ../shared/traces/ls6-a100.log --log-level error
fi
log() { echo "== $(date -u +%H:%M:%S) $*" >&2; }
S=$D/$P-grid.parquet
if [ ! -f "$S" ]; then
  log features; /usr/bin/time -f "%e s wall %U s user" "$BIN" features build --trace "$T" --protocol "$P" --probes grid -o "$S" --log-level error
fi
op=(--overlap-budget "${BUDGET:-1h}")
if [ "${EVERY_BLOCK:-0}" = 1 ]; then op+=(--budget-every-block); fi
if [ -n "${BUDGET_RULE:-}" ]; then op+=(--budget-rule "$BUDGET_RULE"); fi
sweep=(--sweep --margins=-8h,-6h,-4h,-3h,-2h,-1h,0)
if [ "${SWEEP:-1}" = 0 ]; then sweep=(); fi
W=$D/$P-wide-grid.parquet
if [ -n "${WIDE_TARGETS:-}" ] && [ ! -f "$W" ]; then
  log features --wide; /usr/bin/time -f "%e s wall %U s user" "$BIN" features build --trace "$T" --protocol "$P" --probes grid --wide -o "$W" --log-level error
fi
# fit NAME SAMPLES ARGS...: train $D/$P-NAME unless REUSE=1 finds it.
fit() {
  local name=$1 samples=$2
  shift 2
  if [ "${REUSE:-0}" = 1 ] && [ -f "$D/$P-$name/manifest.json" ]; then
    log "$name: kept"
    return
  fi
  log "$name"
  /usr/bin/time -f "%e s wall" "$BIN" train "$@" --samples "$samples" "${op[@]}" -o "$D/$P-$name" --threads 2 --log-level error
}
log estimate; "$BIN" train --model estimate --samples "$S" "${op[@]}" -o "$D/$P-estimate" --log-level error
"$BIN" train --model estimate-rt --samples "$S" "${op[@]}" -o "$D/$P-estimate-rt" --log-level error
pol="reactive,avg,slurm-estimate,slurm-estimate-rt,slurm-estimate:$D/$P-estimate,slurm-estimate:$D/$P-estimate-rt,oracle,oracle-cost"
for m in ${MODELS:-xgboost forest}; do
  for t in ${TARGETS:-cliff interrupt deadline r wait}; do
    fit "$m-$t" "$S" --model $m --target $t
    pol="$pol,$m:$D/$P-$m-$t"
  done
  for h in ${STOP_HORIZONS:-}; do
    fit "$m-stop$h" "$S" --model $m --target stop --stop-horizon "$h"
    pol="$pol,$m:$D/$P-$m-stop$h"
  done
  for t in ${WIDE_TARGETS:-}; do
    fit "$m-$t-wide" "$W" --model $m --target $t
    pol="$pol,$m:$D/$P-$m-$t-wide"
  done
done
if [ "${DQN:-1}" = 1 ]; then
  log dqn; /usr/bin/time -f "%e s wall" "$BIN" train --model dqn --trace "$T" --protocol "$P" --overlap-budget "${BUDGET:-1h}" -o "$D/$P-dqn" --log-level error
  pol="$pol,dqn:$D/$P-dqn"
fi
log evaluate; /usr/bin/time -f "%e s wall" "$BIN" evaluate --trace "$T" --protocol "$P-val" --policy "$pol" "${sweep[@]}" \
  -o "$D/$P-val" --log-level error
"$BIN" report --trace "$T" "$D/$P-val" --log-level error || true
"$(dirname "$0")/operating-points-table.sh" "$P" "$D" | tee "$D/$P-table.txt"
"$(dirname "$0")/light-overlap.sh" "$P" "$D" | tee "$D/$P-light.txt"
log done
