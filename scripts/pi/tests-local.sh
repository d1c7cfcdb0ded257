#!/usr/bin/env bash
# tests-local.sh runs the test binaries from scripts/pi/build-tests.sh through
# `scripts/pi/run.sh --tests` in PI_SSH=local mode: arm64 under
# qemu-aarch64-static, arm (GOARM=7) under qemu-arm-static. It fails unless
# run.sh exits 0 and fetches a summary.txt with an "ok" line for every binary
# of the bundle and no FAIL. The race binaries (bin/tests-linux-arm64-race.tar)
# are built but not run here: ThreadSanitizer does not run under qemu-user.
# CI runs it through `make test-arm`.
#
# usage: scripts/pi/tests-local.sh [ARCH...]     ARCH: arm64, arm (default both)
set -euo pipefail

cd "$(dirname "$0")/../.."

arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(arm64 arm)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-tests-local.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

status=0
for arch in "${arches[@]}"; do
	case $arch in
	arm64) machine=aarch64 ;;
	arm) machine=armv7l ;;
	*)
		echo "tests-local: unknown architecture $arch (want arm64 or arm)" >&2
		exit 2
		;;
	esac
	tar=bin/tests-linux-$arch.tar
	[ -f "$tar" ] || scripts/pi/build-tests.sh "$arch"
	want=$(tar -xOf "$tar" ./tests.txt | wc -l)
	mkdir -p "$tmp/$arch"
	echo "== PI_SSH=local PI_LOCAL_MACHINE=$machine scripts/pi/run.sh --tests localhost ($want test binaries)"
	start=$(date +%s)
	if ! PI_SSH=local PI_LOCAL_MACHINE=$machine scripts/pi/run.sh --tests --idle-timeout 0 --results "$tmp/$arch" localhost; then
		echo "tests-local: $arch: run.sh --tests failed" >&2
		status=1
	fi
	summary=$(find "$tmp/$arch" -name summary.txt | head -n 1)
	if [ -z "$summary" ]; then
		echo "tests-local: $arch: no summary.txt fetched" >&2
		status=1
		continue
	fi
	case $summary in
	*-"$arch"-tests-emulated*/summary.txt) ;;
	*)
		echo "tests-local: $arch: $summary is not in a …-$arch-tests-emulated folder" >&2
		status=1
		;;
	esac
	ok=$(grep -c '^ok ' "$summary" || true)
	if [ "$ok" -ne "$want" ] || grep -q '^FAIL' "$summary"; then
		echo "tests-local: $arch: $ok of $want test binaries ok:" >&2
		cat "$summary" >&2
		for log in "$(dirname "$summary")"/*.log; do
			if grep -q -- '--- FAIL\|^FAIL\|panic:' "$log"; then
				echo "--- $(basename "$log"):" >&2
				grep -B2 -A10 -- '--- FAIL\|panic:' "$log" | head -n 40 >&2
			fi
		done
		status=1
	else
		echo "tests-local: $arch: all $want test binaries ok ($(($(date +%s) - start))s)"
	fi
done
exit "$status"
