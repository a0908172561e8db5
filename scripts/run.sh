#!/usr/bin/env bash
# The main job: synth -> ingest -> features (train and validation windows)
# -> train forest, xgboost and a DQN -> predict each model on the validation samples
# -> evaluate baselines, oracle and models -> report (with predicted vs
# actual r). Prints the path of report.html.
#
# Environment: BIN (default bin/mirage), OUT (default out), JOBS (30000),
# SEED (1), TRACE (a user's trace, sacct or SWF: skip synth and ingest it
# instead), ZONE (its time zone, default America/Chicago), NODES (partition
# size for the training samples), TRAIN_WINDOWS (300), VAL_WINDOWS (60),
# INTERVAL (6h; whole hours), OVERLAP_BUDGET (1h: the mean overlap per
# window every policy parameter is chosen for, by CV on the training windows),
# DQN_EPISODES (100: the DQN's training episodes).
#
# Training windows start the day after the first submission; validation
# windows are the last VAL_WINDOWS that fit before the last submission, so
# the trace must span more than both (about 4 months by default).
set -euo pipefail

BIN=${BIN:-bin/mirage}
OUT=${OUT:-out}
JOBS=${JOBS:-30000}
SEED=${SEED:-1}
TRACE=${TRACE:-}
ZONE=${ZONE:-America/Chicago}
NODES=${NODES:-}
TRAIN_WINDOWS=${TRAIN_WINDOWS:-300}
VAL_WINDOWS=${VAL_WINDOWS:-60}
INTERVAL=${INTERVAL:-6h}
OVERLAP_BUDGET=${OVERLAP_BUDGET:-1h}
DQN_EPISODES=${DQN_EPISODES:-100}
LOG=(--log-level warn)

mkdir -p "$OUT"
stage() { printf '\n== %s\n' "$*" >&2; }
begun=$SECONDS

if [ -z "$TRACE" ]; then
	stage "synth: $JOBS jobs, seed $SEED"
	"$BIN" synth --jobs "$JOBS" --seed "$SEED" -o "$OUT/synth.sacct" "${LOG[@]}"
	TRACE=$OUT/synth.sacct
	name=synth
else
	name=$(basename "$TRACE")
	name=${name%%.*}
fi

stage "ingest $TRACE"
"$BIN" ingest --tz "$ZONE" --cluster "$name" -o "$OUT/$name.parquet" "$TRACE" "${LOG[@]}"
"$BIN" trace stats "$OUT/$name.parquet" | sed -n '1,3p;/^months/p'

# Training windows start a day after the first submission; validation
# windows end before the last one (a window spans warm-up + workload, 7 d).
span=$("$BIN" trace stats "$OUT/$name.parquet" | awk '/^submit/ {print $2, $4}')
first=${span% *}
last=${span#* }
ivl_h=${INTERVAL%h}
train_start=$(date -u -d "${first:0:10} + 1 day" +%Y-%m-%dT00:00:00)
val_start=$(date -u -d "${last:0:10} - 8 days - $((VAL_WINDOWS * ivl_h)) hours" +%Y-%m-%dT00:00:00)
windows=(--windows "$TRAIN_WINDOWS" --interval "$INTERVAL" --start "$train_start" --chain-nodes 1)
if [ -n "$NODES" ]; then windows+=(--nodes "$NODES"); fi
train_end=$(date -u -d "$train_start + $((TRAIN_WINDOWS * ivl_h)) hours + 7 days" +%s)
if [ "$(date -u -d "$val_start" +%s)" -lt "$train_end" ]; then
	echo "run: the trace is too short: validation windows from $val_start overlap the training windows" >&2
	echo "     (set TRAIN_WINDOWS, VAL_WINDOWS or INTERVAL smaller)" >&2
	exit 2
fi

stage "features build: $TRAIN_WINDOWS training windows from $train_start, every $INTERVAL"
"$BIN" features build --trace "$OUT/$name.parquet" --protocol mirage-ls6 "${windows[@]}" \
	--probes grid -o "$OUT/train.parquet" "${LOG[@]}"

# Every policy's parameter (θ, τ, margin) is chosen by time-blocked CV on
# the training windows for a mean overlap of at most OVERLAP_BUDGET.
for m in forest xgboost; do
	stage "train $m (target r)"
	"$BIN" train --model "$m" --samples "$OUT/train.parquet" --cv 3 --overlap-budget "$OVERLAP_BUDGET" -o "$OUT/$m" "${LOG[@]}"
done
stage "train xgboost (target interrupt: P(r > 0), calibrated)"
"$BIN" train --model xgboost --target interrupt --samples "$OUT/train.parquet" --cv 3 --overlap-budget "$OVERLAP_BUDGET" \
	-o "$OUT/xgboost-interrupt" "${LOG[@]}"
stage "train estimate (the margin of the scheduler's own estimate)"
"$BIN" train --model estimate --samples "$OUT/train.parquet" --overlap-budget "$OVERLAP_BUDGET" -o "$OUT/estimate" "${LOG[@]}"
"$BIN" train --model estimate-rt --samples "$OUT/train.parquet" --overlap-budget "$OVERLAP_BUDGET" -o "$OUT/estimate-rt" "${LOG[@]}"

stage "train dqn: $DQN_EPISODES episodes on the same training windows"
"$BIN" train --model dqn --trace "$OUT/$name.parquet" --protocol mirage-ls6 "${windows[@]}" \
	--episodes "$DQN_EPISODES" -o "$OUT/dqn" "${LOG[@]}"

# The predicted-vs-actual figure uses samples of the validation windows,
# which no model saw: an out-of-sample check of the regressors.
stage "features build: $VAL_WINDOWS validation windows from $val_start"
val=(--windows "$VAL_WINDOWS" --interval "$INTERVAL" --start "$val_start" --chain-nodes 1)
if [ -n "$NODES" ]; then val+=(--nodes "$NODES"); fi
"$BIN" features build --trace "$OUT/$name.parquet" --protocol mirage-ls6-val "${val[@]}" \
	-o "$OUT/val.parquet" "${LOG[@]}"
preds=()
for m in forest xgboost; do
	stage "predict $m on the validation samples"
	"$BIN" predict --model "$OUT/$m" --samples "$OUT/val.parquet" -o "$OUT/$m.predictions.parquet" "${LOG[@]}"
	preds+=(--predictions "$OUT/$m.predictions.parquet")
done

stage "evaluate: $VAL_WINDOWS validation windows from $val_start, every $INTERVAL"
"$BIN" evaluate --trace "$OUT/$name.parquet" --protocol mirage-ls6-val --nodes 1 \
	--start "$val_start" --windows "$VAL_WINDOWS" --interval "$INTERVAL" \
	--policy "reactive,immediate,avg,slurm-estimate,slurm-estimate:$OUT/estimate,slurm-estimate:$OUT/estimate-rt,oracle,oracle-cost,forest:$OUT/forest,xgboost:$OUT/xgboost,xgboost:$OUT/xgboost-interrupt,dqn:$OUT/dqn" \
	--sweep -o "$OUT/eval" "${LOG[@]}"

stage "report"
"$BIN" report --trace "$OUT/$name.parquet" "${preds[@]}" \
	--predictions-note "Predictions are on the validation windows' samples (out of sample)." \
	"$OUT/eval" --log-level warn
printf '\nmake run: %d s\n' $((SECONDS - begun)) >&2
