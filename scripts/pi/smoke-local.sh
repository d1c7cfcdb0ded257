#!/usr/bin/env bash
# smoke-local.sh exercises run.sh end to end without a board: PI_SSH=local,
# the arm64 binary from `make cross` under qemu-aarch64-static, results in a
# temporary folder. It fails unless the fetched run folder holds bench.txt
# with "goarch: arm64" and an env.json and is named …-emulated, or unless
# --performance left a fake cpufreq folder (PI_SYS_ROOT) changed. CI runs it
# through `make test-arm`; scripts/pi/test-ssh.sh tests the same over ssh.
#
# usage: scripts/pi/smoke-local.sh [DEFERBENCH RUN FLAGS...]
#   default: -quick -count 1 without the Determinism scenario, which runs natively in
#   make test and .ci/run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

flags=("$@")
if [ ${#flags[@]} -eq 0 ]; then
	flags=(-quick -count 1 -scenarios "Stage,StageApply,Frame,Contention,Readers,Spike,Peer")
fi

# A fake /sys and /proc (PI_SYS_ROOT), so that --performance, the restore and
# the idle wait run too.
cpufreq="$tmp/root/sys/devices/system/cpu/cpufreq"
mkdir -p "$cpufreq/policy0" "$cpufreq/policy4" "$tmp/root/proc" "$tmp/results"
echo ondemand >"$cpufreq/policy0/scaling_governor"
echo schedutil >"$cpufreq/policy4/scaling_governor"
echo "0.00 0.00 0.00 1/100 4242" >"$tmp/root/proc/loadavg"

echo "== PI_SSH=local scripts/pi/run.sh --performance localhost ${flags[*]}"
PI_SSH=local PI_LOCAL_MACHINE=aarch64 PI_SYS_ROOT="$tmp/root" \
	"$here/run.sh" --performance --idle-timeout 0 --results "$tmp/results" localhost "${flags[@]}"

if [ "$(cat "$cpufreq/policy0/scaling_governor" "$cpufreq/policy4/scaling_governor" | tr '\n' ' ')" != "ondemand schedutil " ]; then
	echo "smoke-local: governors not restored: $(cat "$cpufreq"/policy*/scaling_governor | tr '\n' ' ')" >&2
	exit 1
fi

runs=("$tmp/results"/*/)
[ -d "${runs[0]}" ] || {
	echo "smoke-local: run.sh fetched no run folder" >&2
	exit 1
}
[ ${#runs[@]} -eq 1 ] || {
	echo "smoke-local: run.sh fetched ${#runs[@]} run folders, want 1" >&2
	exit 1
}
run=${runs[0]%/}
case $run in
*-arm64-emulated) ;;
*)
	echo "smoke-local: $run is not named …-arm64-emulated" >&2
	exit 1
	;;
esac
grep -qx 'goarch: arm64' "$run/bench.txt" || {
	echo "smoke-local: $run/bench.txt has no 'goarch: arm64' line" >&2
	exit 1
}
grep -q '^Benchmark' "$run/bench.txt" || {
	echo "smoke-local: $run/bench.txt has no benchmark results" >&2
	exit 1
}
[ -s "$run/env.json" ] || {
	echo "smoke-local: $run/env.json missing" >&2
	exit 1
}
echo "smoke-local: ok: $(basename "$run") has goarch: arm64, $(grep -c '^Benchmark' "$run/bench.txt") results, env.json"
