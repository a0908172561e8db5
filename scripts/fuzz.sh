#!/usr/bin/env bash
# Runs every Go fuzz target of the module (every `func FuzzX(f *testing.F)`
# in a _test.go file, found by grep, so a new target is fuzzed without
# being listed anywhere) for FUZZTIME each, then prints one line per target:
# package, name, executions and executions per second (the last progress
# line of `go test -fuzz`), and fails on the first crash. FUZZ_MIN_EXECS > 0
# also fails a target that ran fewer executions. FUZZ_MINIMIZE bounds the
# minimisation of each new interesting input (`-fuzzminimizetime`; Go's
# default, 60s, can spend a whole short run minimising one large input).
# Usage: scripts/fuzz.sh [--list] [PATTERN]   (PATTERN: a regexp over
# "pkg:Name"; --list prints the targets, one pkg:Name a line, and runs none)
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
fuzztime=${FUZZTIME:-30s}
minimize=${FUZZ_MINIMIZE:-5s}
minexecs=${FUZZ_MIN_EXECS:-0}
list=""
if [[ ${1:-} == --list ]]; then list=1; shift; fi
pattern=${1:-.}

# pkg:Name for every fuzz target, sorted, so runs go in one order.
mapfile -t targets < <(grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
	sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1:\2#' | sort -u | grep -E -- "$pattern" || true)
((${#targets[@]})) || { echo "fuzz: no fuzz target matches '$pattern'" >&2; exit 1; }
if [[ -n $list ]]; then printf '%s\n' "${targets[@]}"; exit 0; fi
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

summary=()
status=0
for t in "${targets[@]}"; do
	pkg=${t%%:*} name=${t#*:}
	echo "fuzz $pkg $name ($fuzztime)" >&2
	log="$logdir/${pkg//\//_}-$name.log"
	if ! "$go" test "./$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" 2>&1 | tee "$log" >&2 ||
		! grep -q '^PASS' "$log"; then
		echo "fuzz: $pkg $name failed (its new failing input is under $pkg/testdata/fuzz/$name/)" >&2
		status=1
		summary+=("$(printf '%-14s %-28s FAILED' "$pkg" "$name")")
		break
	fi
	last=$(grep -E 'fuzz: elapsed: .*execs: [0-9]+' "$log" | tail -n 1)
	execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
	# The mean rate over the run (the last line's own rate is often 0/sec,
	# a minimisation pause): execs over the elapsed time, h, m and s.
	elapsed=$(sed -E 's/.*elapsed: ([0-9hms.]+),.*/\1/' <<<"$last")
	secs=$(awk -v e="$elapsed" 'BEGIN { t = 0; while (match(e, /^[0-9.]+[hms]/)) { v = substr(e, 1, RLENGTH - 1); u = substr(e, RLENGTH, 1); t += v * (u == "h" ? 3600 : u == "m" ? 60 : 1); e = substr(e, RLENGTH + 1) } print (t > 0 ? t : 1) }')
	rate=$(awk -v n="${execs:-0}" -v t="$secs" 'BEGIN { printf "%d", n / t }')
	line=$(printf '%-14s %-28s %10s execs %7s/s' "$pkg" "$name" "${execs:-?}" "${rate:-?}")
	if ((minexecs > 0)) && [[ -z $execs || $execs -lt $minexecs ]]; then
		line+="  below FUZZ_MIN_EXECS=$minexecs"
		status=1
	fi
	summary+=("$line")
done
echo "== fuzz summary ($fuzztime each) =="
printf '%s\n' "${summary[@]}"
exit $status
