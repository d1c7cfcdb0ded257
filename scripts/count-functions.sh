#!/usr/bin/env bash
# count-functions.sh attributes one micro-workload's instructions per op to the functions that
# execute them: where count-instr.sh says how many instructions an op takes, this says which
# code takes them (the workload's own loop, the stage, the commit's apply loop). It builds
# cmd/deferbench/internal/instrcount, runs the workload under
# `valgrind --tool=cachegrind --cache-sim=no` at N1 and N2 operations with the count tier's
# settings (GOMAXPROCS=1, the collector off, no asynchronous preemption), takes the difference
# of the two profiles with valgrind's cg_diff, and prints cg_annotate's per-function
# instructions of that difference divided by N2 - N1, largest first: setup, warm-up and the
# runtime's start-up cancel out. A function the compiler inlined counts in its caller.
#
#   scripts/count-functions.sh set-commit-generic
#   N1=200000 N2=400000 TOP=20 scripts/count-functions.sh addremove-versioned
#   PGO=/tmp/set.pgo scripts/count-functions.sh set-stage-generic   (see count-instr.sh)
#
# N1 and N2 default to 400000 and 800000 (as count-instr.sh), TOP to 12 functions.
set -euo pipefail

cd "$(dirname "$0")/.."

N1=${N1:-400000}
N2=${N2:-800000}
TOP=${TOP:-12}
if [ $# -ne 1 ]; then
	echo "usage: scripts/count-functions.sh WORKLOAD (scripts/count-instr.sh -list names them)" >&2
	exit 2
fi
if ! [[ $N1 =~ ^[0-9]+$ && $N2 =~ ^[0-9]+$ && $TOP =~ ^[0-9]+$ ]] || [ "$N1" -lt 1 ] || [ "$N2" -le "$N1" ]; then
	echo "count-functions: N1=$N1 N2=$N2 TOP=$TOP: want whole numbers with 1 <= N1 < N2" >&2
	exit 2
fi
for t in valgrind cg_diff cg_annotate; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "count-functions: $t missing; install valgrind (Debian: apt-get install valgrind)" >&2
		exit 1
	}
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/instrcount"
scripts/build-instrcount.sh count-functions "$bin"
if ! "$bin" -list | awk '{print $1}' | grep -qx -- "$1"; then
	echo "count-functions: unknown workload \"$1\": scripts/count-instr.sh -list names them" >&2
	exit 2
fi
for n in "$N1" "$N2"; do
	GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0 \
		valgrind --tool=cachegrind --cache-sim=no --vgdb=no --cachegrind-out-file="$tmp/cg.$n" \
		"$bin" "$1" "$n" >/dev/null 2>"$tmp/valgrind.$n.log" || {
		echo "count-functions: valgrind failed at $n operations:" >&2
		tail -5 "$tmp/valgrind.$n.log" >&2
		exit 1
	}
done
cg_diff "$tmp/cg.$N1" "$tmp/cg.$N2" >"$tmp/diff"
echo "$1: instructions per op by function (cachegrind, (I($N2) - I($N1)) / $((N2 - N1)))"
# cg_annotate's function lines: "COUNT (PCT%)  FILE:FUNCTION"; generic shapes shortened.
cg_annotate --auto=no --threshold=0.01 "$tmp/diff" | awk -v d="$((N2 - N1))" -v top="$TOP" '
	/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%10.1f  total\n", $1 / d; next }
	/^ *-?[0-9,]+ +\( *-?[0-9.]+%\) +[^ ]+:/ {
		if (shown >= top) next
		n = $1; gsub(",", "", n)
		f = $0; sub(/^[^)]*\) +/, "", f); sub(/^[^:]*:/, "", f)
		gsub(/github\.com\/deferbench\/deferbench\//, "", f)
		gsub(/go\.shape\.[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/, "shape", f)
		gsub(/go\.shape\.struct \{ Verb deferral\.Verb; Component ecs\.ComponentID; Entity ecs\.Entity; Bundle ecs\.Bundle \}/, "Command", f)
		printf "%10.1f  %s\n", n / d, substr(f, 1, 150)
		shown++
	}'
