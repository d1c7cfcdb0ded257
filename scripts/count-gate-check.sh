#!/usr/bin/env bash
# count-gate-check.sh checks the instruction-count gate (docs/counts.md) by repetition: it runs
# `deferbench ab -measure instructions` RUNS times on the same pair of builds and reports, per
# run, ab's exit status (0 pass, 1 gate failed), the load average beside it, and per row the
# difference of HEAD's median instr/op from BASE's; then how many runs failed and the largest
# difference per row. A run whose ab gave no gate verdict (a round failed) is reported as an
# error, not counted as a failure of the gate. An A/A check (the same build on both sides) should fail 0 runs; a build
# that adds work should fail every run on the rows it changes, and on no other.
#
#   scripts/count-gate-check.sh -n 10 -out /tmp/aa BASE HEAD -scenarios Stage -strategies cmdbuffer
#   scripts/count-gate-check.sh -n 10 -out /tmp/pi BASE HEAD -isa pi4 -scenarios Stage -strategies cmdbuffer
#
# With -isa (ab's, as deferbench run -isa) the rows are counted on the Pi's instruction sets
# under qemu-user (scripts/install-qemu-count.sh installs what that needs), each named [ISA].
# BASE and HEAD are what deferbench ab takes (git revisions or deferbench binaries); the flags
# after them go to ab. DEFERBENCH names the deferbench that runs ab (default: built from this
# tree). OUT must be new or empty; run i's results stay in OUT/run-i.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "usage: scripts/count-gate-check.sh [-n RUNS] -out DIR BASE HEAD [ab flags...]" >&2
	exit 2
}
runs=10
out=
while [ $# -gt 0 ]; do
	case $1 in
	-n)
		[ $# -ge 2 ] || usage
		runs=$2
		shift 2
		;;
	-out)
		[ $# -ge 2 ] || usage
		out=$2
		shift 2
		;;
	*) break ;;
	esac
done
if [ $# -lt 2 ] || [ -z "$out" ]; then
	usage
fi
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ]; then
	echo "count-gate-check: -n $runs: want a whole number of runs, at least 1" >&2
	exit 2
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	echo "count-gate-check: -out $out is not empty: give a new or empty directory" >&2
	exit 2
fi
base=$1
head=$2
shift 2
mkdir -p "$out"
db=${DEFERBENCH:-}
if [ -z "$db" ]; then
	db="$out/deferbench"
	CGO_ENABLED=0 go build -trimpath -ldflags=-w -o "$db" ./cmd/deferbench
fi

# medians FILE prints "NAME MEDIAN" of every instr/op row of a bench.txt; a row counted on an
# emulated ISA (-isa pi4: its isa: config line) is named [ISA]NAME.
medians() {
	awk '$1 == "isa:" { isa = ($2 == "") ? "" : "[" $2 "]" }
		$1 ~ /^Benchmark/ { for (i = 3; i < NF; i++) if ($(i + 1) == "instr/op") print isa $1, $i }' "$1" |
		sort -k1,1 -k2,2g |
		awk '{ n[$1]++; v[$1, n[$1]] = $2 }
			END { for (k in n) { m = n[k]; x = (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2; print k, x } }' |
		sort
}

fails=0
errors=0
: >"$out/diffs.txt"
for i in $(seq 1 "$runs"); do
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	status=0
	"$db" ab -measure instructions -out "$out/run-$i" "$@" "$base" "$head" >"$out/run-$i.txt" 2>"$out/run-$i.err" || status=$?
	if [ "$status" -gt 1 ]; then
		echo "count-gate-check: run $i: ab exited with status $status:" >&2
		tail -n 5 "$out/run-$i.err" >&2
		exit 1
	fi
	if ! grep -q 'count gate' "$out/run-$i.err"; then
		# ab ran no gate (a round failed): an error, not a verdict on the counts.
		errors=$((errors + 1))
		echo "run $i: exit $status, load average $load; no gate verdict: $(tail -n 1 "$out/run-$i.err" | cut -c1-300)"
		continue
	fi
	[ "$status" -eq 0 ] || fails=$((fails + 1))
	echo "run $i: exit $status, load average $load; $(grep 'count gate' "$out/run-$i.err" | sed 's/^deferbench: ab: //')"
	join <(medians "$out/run-$i/base/bench.txt") <(medians "$out/run-$i/head/bench.txt") |
		awk -v run="$i" '{ d = ($3 / $2 - 1) * 100; printf "  %-50s %12.3f %12.3f %+8.3f%%\n", $1, $2, $3, d; print run, $1, d >> "'"$out/diffs.txt"'" }'
done
echo "$fails of $((runs - errors)) runs with a verdict failed the gate ($errors of $runs runs ended without one); largest difference of HEAD's median from BASE's per row:"
awk '{ a = $3 < 0 ? -$3 : $3; if (!($2 in m) || a > m[$2]) { m[$2] = a; s[$2] = $3 } }
	END { for (k in m) printf "  %-50s %+8.3f%%\n", k, s[k] }' "$out/diffs.txt" | sort
