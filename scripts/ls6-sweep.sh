#!/usr/bin/env bash
# Chooses the LS6 simulator defaults by replay (sim/FIDELITY.md): replays
# the LS6 trace under many configurations with `bin/mirage sim replay --json`
# and writes one TSV row per configuration, then prints the best ones.
#
# Usage: scripts/ls6-sweep.sh [TRACE] [OUT.tsv]
#        scripts/ls6-sweep.sh --ablation [TRACE]   (the tables of sim/FIDELITY.md, as Markdown)
#   TRACE    LS6 trace table (default /tmp/ls6.parquet, from
#            bin/mirage ingest --tz America/Chicago --cluster ls6 -o /tmp/ls6.parquet ../shared/traces/ls6-a100.log)
#   OUT.tsv  results (default /tmp/ls6-sweep.tsv)
# Environment: JOBS parallel replays (default nproc), STAGES (default "A B C").
#
# Stages (each replay takes about 0.2 s; the whole sweep about 700 replays):
#   A  effects: nodes 72..88 x flavour {conservative, easy} x infer-deps
#      {off, on} x infer-capacity {off, on} x cancelled {leave, run-zero};
#      no per-user limits.
#   B  per-user limits: jobs {0,4,6,8,12,16} x nodes {0,8,16,32} x flavour x
#      infer-capacity {off, on}, nodes {76, 80, 88}, deps on, leave.
#   C  capacity inference: bucket {6h,12h,24h,48h} x smooth {0,1} x
#      headroom {0,1} x min-pending {0,1h} x flavour, nodes {80, 88},
#      deps on, leave, no limits.
# Columns: stage nodes flavour jobs_pu nodes_pu deps cap cancelled bucket
# smooth headroom min_pending mae_h median_h spearman within_2x steps, then
# per month "spearman/within_2x" for 2022-11 .. 2023-03.
set -euo pipefail
ablation=false
if [ "${1:-}" = --ablation ]; then
	ablation=true
	shift
fi
trace=${1:-/tmp/ls6.parquet}
out=${2:-/tmp/ls6-sweep.tsv}
bin=${BIN:-bin/mirage}
jobs=${JOBS:-$(nproc)}
stages=${STAGES:-A B C}
[ -x "$bin" ] || { echo "ls6-sweep: $bin not found (run make build)" >&2; exit 1; }
[ -r "$trace" ] || { echo "ls6-sweep: $trace not found (see the usage in $0)" >&2; exit 1; }

# one STAGE NODES FLAVOUR JOBS_PU NODES_PU DEPS CAP CANCELLED BUCKET SMOOTH HEADROOM MINPEND
one() {
	local stage=$1 n=$2 fl=$3 jpu=$4 npu=$5 deps=$6 cap=$7 canc=$8 bucket=$9 smooth=${10} head=${11} minp=${12}
	"$BIN" sim replay --trace "$TRACE" --tz America/Chicago --json --log-level error \
		--partition-nodes "$n" --backfill "$fl" --max-jobs-per-user "$jpu" --max-nodes-per-user "$npu" \
		--infer-deps="$deps" --infer-capacity="$cap" --cancelled "$canc" \
		--capacity-bucket "$bucket" --capacity-smooth "$smooth" --capacity-headroom "$head" \
		--capacity-min-pending "$minp" |
		jq -r --arg pre "$*" '
			($pre | split(" ")) + [(.wait_mae_sec/3600*1000|round/1000), (.wait_median_abs_err_sec/3600*1000|round/1000),
			 (.wait_spearman*1000|round/1000), (.within_2x*1000|round/1000), .capacity_steps] +
			[.per_month[] | select(.month >= "2022-11") |
			 "\(.wait_spearman*100|round/100)/\(.within_2x*100|round/100)"] | @tsv'
}
export -f one
export BIN=$bin TRACE=$trace

# The ablation: the ls6 protocol, then one effect removed or changed at a
# time, then the unmodelled baselines. Each line: label | flags.
ablation_rows() {
	cat <<-'ROWS'
	ls6 protocol (80 nodes, conservative, deps, capacity 1 d) | --profile ls6
	- inferred capacity | --profile ls6 --infer-capacity=false
	- inferred dependencies | --profile ls6 --infer-deps=false
	- both (80 nodes, nothing inferred) | --profile ls6 --infer-deps=false --infer-capacity=false
	- capacity, 76 nodes instead | --profile ls6 --infer-capacity=false --partition-nodes 76
	- capacity, 76 nodes, + 8 jobs/user | --profile ls6 --infer-capacity=false --partition-nodes 76 --max-jobs-per-user 8
	88 nodes instead of 80 | --profile ls6 --partition-nodes 88
	EASY instead of conservative | --profile ls6 --backfill easy
	no backfill | --profile ls6 --backfill none
	cancelled run-zero instead of leave | --profile ls6 --cancelled run-zero
	+ 8 jobs/user | --profile ls6 --max-jobs-per-user 8
	+ 6 jobs/user | --profile ls6 --max-jobs-per-user 6
	+ 16 nodes/user | --profile ls6 --max-nodes-per-user 16
	capacity per 6 h | --profile ls6 --capacity-bucket 6h
	capacity per 2 d | --profile ls6 --capacity-bucket 48h
	capacity smoothed over +-1 d | --profile ls6 --capacity-smooth 1
	capacity + 1 node headroom | --profile ls6 --capacity-headroom 1
	capacity lowered only where a job waited 1 h | --profile ls6 --capacity-min-pending 1h
	mirage-compat priority and rounding, ls6 protocol | --profile mirage-compat --partition-nodes 80 --infer-deps --infer-capacity --backfill conservative
	default, 88 nodes, nothing modelled | --partition-nodes 88
	mirage-compat, 88 nodes (the artifact) | --profile mirage-compat
	ROWS
}

if $ablation; then
	echo "| configuration | MAE h | median h | Spearman | within 2x | 2022-11 | 2022-12 | 2023-01 | 2023-02 | 2023-03 |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	ablation_rows | while IFS='|' read -r label flags; do
		# shellcheck disable=SC2086 # flags are words
		"$bin" sim replay --trace "$trace" --tz America/Chicago --json --log-level error $flags |
			jq -r --arg name "${label% }" '
				"| \($name) | \(.wait_mae_sec/3600*100|round/100) | \(.wait_median_abs_err_sec/3600*100|round/100) | \(.wait_spearman*1000|round/1000) | \(.within_2x*1000|round/1000) | " +
				([.per_month[] | select(.month >= "2022-11") | "\(.wait_spearman*100|round/100) / \(.within_2x*100|round/100)"] | join(" | ")) + " |"'
	done
	exit 0
fi

configs() {
	local n fl d c canc jpu npu b s h m
	for st in $stages; do
		case $st in
		A) for n in $(seq 72 88); do for fl in conservative easy; do for d in false true; do
			for c in false true; do for canc in leave run-zero; do
				echo A $n $fl 0 0 $d $c $canc 24h 0 0 0s
			done; done; done; done; done ;;
		B) for n in 76 80 88; do for fl in conservative easy; do for c in false true; do
			for jpu in 0 4 6 8 12 16; do for npu in 0 8 16 32; do
				echo B $n $fl $jpu $npu true $c leave 24h 0 0 0s
			done; done; done; done; done ;;
		C) for n in 80 88; do for fl in conservative easy; do for b in 6h 12h 24h 48h; do
			for s in 0 1; do for h in 0 1; do for m in 0s 1h; do
				echo C $n $fl 0 0 true true leave $b $s $h $m
			done; done; done; done; done; done ;;
		esac
	done
}

{
	printf 'stage\tnodes\tflavour\tjobs_pu\tnodes_pu\tdeps\tcap\tcancelled\tbucket\tsmooth\theadroom\tmin_pending\tmae_h\tmedian_h\tspearman\twithin_2x\tsteps\t2022-11\t2022-12\t2023-01\t2023-02\t2023-03\n'
	configs | xargs -P "$jobs" -L 1 bash -c 'one "$@"' _ | sort -t$'\t' -k1,1 -k2,2n -k3,3 -k4,4n -k5,5n -k6,6 -k7,7 -k8,8 -k9,9 -k10,10n -k11,11n -k12,12
} >"$out"

echo "wrote $(($(wc -l <"$out") - 1)) replays to $out"
echo "best 15 by within_2x + spearman (ties: lower MAE); min_month_w2x = worst month 2022-11..2023-03:"
awk -F'\t' 'NR > 1 {
	minw = 1; for (i = 18; i <= 22; i++) { split($i, a, "/"); if (a[2] < minw) minw = a[2] }
	printf "%.4f\t%s\t%.3f\n", $15 + $16, $0, minw }' "$out" |
	sort -t$'\t' -k1,1gr -k14,14g | head -15 |
	awk -F'\t' 'BEGIN { printf "%-5s %5s %-12s %4s %4s %-5s %-5s %-8s %-5s %2s %2s %-4s %6s %6s %6s %5s\n",
		"stage", "nodes", "flavour", "j/u", "n/u", "deps", "cap", "cancel", "bkt", "sm", "hr", "minp", "MAE_h", "spear", "w2x", "minw" }
		{ printf "%-5s %5s %-12s %4s %4s %-5s %-5s %-8s %-5s %2s %2s %-4s %6.2f %6.3f %6.3f %5.2f\n",
		$2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $16, $17, $NF }'
