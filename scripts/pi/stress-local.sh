#!/usr/bin/env bash
# stress-local.sh runs the quick Contention and Readers plan of the arm64 binary from
# `make cross` under qemu-aarch64-static, repeatedly, at GOMAXPROCS above the CPUs
# (-procs 2,4,8 on any machine), alternating the CPU model between a Pi 5 (qemu's default:
# LSE atomics) and a Pi 4 (QEMU_CPU=cortex-a72: load/store-exclusive loops). Each run must
# finish within a bound; one that does not gets SIGQUIT, so its goroutine dump is printed,
# and the script fails naming the try. Emulation reorders an arm64 store before a later
# load of another variable on an x86 host, which once parked a versioned commit forever
# here: this is the test that would have caught it. CI runs it through `make test-arm`.
#
# usage: scripts/pi/stress-local.sh [RUNS [BOUND_SECONDS]]     default: 10 runs, 240 s each
set -euo pipefail

cd "$(dirname "$0")/../.."
runs=${1:-10}
bound=${2:-240}
case $runs$bound in
*[!0-9]*)
	echo "stress-local: runs ($runs) and bound ($bound) must be whole numbers of runs and seconds" >&2
	exit 2
	;;
esac
bin=bin/deferbench-linux-arm64
[ -x "$bin" ] || {
	echo "stress-local: $bin missing; run make cross first" >&2
	exit 2
}
qemu=$(command -v qemu-aarch64-static || true)
if [ -z "$qemu" ]; then
	scripts/install-debian.sh stress-local qemu-user-static || exit 1
	qemu=$(command -v qemu-aarch64-static)
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-stress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

status=0
for i in $(seq 1 "$runs"); do
	cpu=max
	[ $((i % 2)) -eq 0 ] && cpu=cortex-a72
	start=$(date +%s)
	rc=0
	QEMU_CPU=$cpu timeout -s QUIT -k 10 "$bound" "$qemu" "$bin" run -quick -count 1 -procs 2,4,8 \
		-scenarios Contention,Readers -out "$tmp/run$i" >"$tmp/log$i" 2>&1 || rc=$?
	took=$(($(date +%s) - start))
	n=$(grep -c '^Benchmark' "$tmp/run$i/bench.txt" 2>/dev/null || true)
	if [ "$rc" -ne 0 ]; then
		echo "stress-local: run $i of $runs (cpu $cpu) failed after ${took}s (exit $rc, ${n:-0} results); its last lines:" >&2
		tail -n 60 "$tmp/log$i" >&2
		status=1
		continue
	fi
	echo "stress-local: run $i of $runs (cpu $cpu): ok in ${took}s, $n results"
done
[ "$status" -eq 0 ] && echo "stress-local: ok: $runs of $runs runs finished within ${bound}s each"
exit "$status"
