#!/usr/bin/env bash
# count-instr.sh counts instructions per operation of named micro-workloads: it builds
# cmd/deferbench/internal/instrcount and runs its -count mode, which counts each workload with
# the count tier's cachegrind driver (cmd/deferbench/internal/counts, the one
# `deferbench run -measure instructions` uses): under `valgrind --tool=cachegrind --cache-sim=no`
# with GOMAXPROCS=1, the collector off and no asynchronous preemption, at two iteration
# counts, printing (I(N2) - I(N1)) / (N2 - N1): setup, warm-up and the runtime's start-up
# cancel out. Instruction counts barely vary, so one run each is enough, and the machine's
# load does not matter.
#
#   scripts/count-instr.sh                  every workload
#   scripts/count-instr.sh set-stage ...    the named ones
#   N1=200000 N2=400000 scripts/count-instr.sh query-ecs
#   scripts/count-instr.sh -list            what each workload counts as one op
#   PGO=/tmp/set.pgo scripts/count-instr.sh set-stage-generic
#                                            a build with profile-guided optimisation: the
#                                            profile from instrcount -cpuprofile (docs/counts.md)
#
# N1 and N2 default to 400000 and 800000 (multiples of 400: the add/remove workloads run
# whole rounds of 400 component operations).
set -euo pipefail

cd "$(dirname "$0")/.."

N1=${N1:-400000}
N2=${N2:-800000}
if ! [[ $N1 =~ ^[0-9]+$ && $N2 =~ ^[0-9]+$ ]] || [ "$N1" -lt 1 ] || [ "$N2" -le "$N1" ]; then
	echo "count-instr: N1=$N1 N2=$N2: want whole numbers with 1 <= N1 < N2" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/instrcount"
scripts/build-instrcount.sh count-instr "$bin"

if [ "${1:-}" = "-list" ]; then
	"$bin" -list
	exit 0
fi
command -v valgrind >/dev/null 2>&1 || {
	echo "count-instr: valgrind missing; install it (Debian: apt-get install valgrind)" >&2
	exit 1
}
"$bin" -count -n1 "$N1" -n2 "$N2" "$@"
