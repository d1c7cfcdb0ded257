#!/usr/bin/env bash
# count-instr.sh counts instructions per operation of named micro-workloads: it builds
# cmd/deferbench/internal/instrcount, runs each workload under
# `valgrind --tool=cachegrind --cache-sim=no` with GOMAXPROCS=1 and GOGC=off at two
# iteration counts, and prints (I(N2) - I(N1)) / (N2 - N1): setup, warm-up and the
# runtime's start-up cancel out. Instruction counts are deterministic, so one run each is
# enough, and the machine's load does not matter.
#
#   scripts/count-instr.sh                  every workload
#   scripts/count-instr.sh set-stage ...    the named ones
#   N1=200000 N2=400000 scripts/count-instr.sh query-ecs
#   scripts/count-instr.sh -list            what each workload counts as one op
#
# N1 and N2 default to 400000 and 800000 (multiples of 400: the add/remove workloads run
# whole rounds of 400 component operations).
set -euo pipefail

cd "$(dirname "$0")/.."

N1=${N1:-400000}
N2=${N2:-800000}
if ! [[ $N1 =~ ^[0-9]+$ && $N2 =~ ^[0-9]+$ ]] || [ "$N2" -le "$N1" ]; then
	echo "count-instr: N1=$N1 N2=$N2: want whole numbers with N2 > N1" >&2
	exit 2
fi
command -v valgrind >/dev/null 2>&1 || {
	echo "count-instr: valgrind missing; install it (Debian: apt-get install valgrind)" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/instrcount"
(cd cmd/deferbench && go build -o "$bin" ./internal/instrcount)

if [ "${1:-}" = "-list" ]; then
	"$bin" -list
	exit 0
fi
if [ $# -eq 0 ]; then
	mapfile -t names < <("$bin" -list | awk '{ print $1 }')
else
	names=("$@")
fi

# count NAME N prints the instructions cachegrind counted for N operations of NAME. Valgrind
# does not decode RDTSCP, which the runtime executes now and then (runtime.cputicks, when
# sysmon waits on a contended lock), so a run killed by SIGILL is tried again, up to 5 times.
count() {
	local out="$tmp/cg.out"
	for _ in 1 2 3 4 5; do
		if GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=no \
			--cachegrind-out-file="$out" "$bin" "$1" "$2" >/dev/null 2>"$tmp/cg.err"; then
			awk '/^summary:/ { print $2 }' "$out"
			return
		fi
		grep -q 'SIGILL' "$tmp/cg.err" || break
	done
	echo "count-instr: $1 $2 failed:" >&2
	cat "$tmp/cg.err" >&2
	exit 1
}

printf '%-24s %12s\n' workload 'instr/op'
for name in "${names[@]}"; do
	i1=$(count "$name" "$N1")
	i2=$(count "$name" "$N2")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v name="$name" \
		'BEGIN { printf "%-24s %12.1f\n", name, (b - a) / (n2 - n1) }'
done
