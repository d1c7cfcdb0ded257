#!/usr/bin/env bash
# test-arm.sh runs the Go test suite for linux/arm64 and linux/arm (GOARM=7,
# 32-bit Pi OS) under qemu-user, installing Debian's qemu-user-static when it
# is missing (see ensure-qemu.sh).
#
#	scripts/test-arm.sh [PACKAGES...]        default ./... ./cmd/deferbench/...
#
# TEST_ARM_FLAGS holds the go test flags (default "-short"); TEST_ARM_ARCHES the
# architectures (default "arm64 arm"). -race is not available for these targets
# under qemu, so the suite runs without it; the host's `make test` covers races.
set -euo pipefail

cd "$(dirname "$0")/.."

"$(dirname "$0")/ensure-qemu.sh"

read -r -a flags <<<"${TEST_ARM_FLAGS--short}"
arches=${TEST_ARM_ARCHES:-arm64 arm}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./... ./cmd/deferbench/...)
fi

status=0
for arch in $arches; do
	case $arch in
	arm64) qemu="qemu-aarch64-static"; env=(GOARCH=arm64) ;;
	arm) qemu="qemu-arm-static"; env=(GOARCH=arm GOARM=7) ;;
	*)
		echo "test-arm: unknown architecture $arch (want arm64 or arm)" >&2
		exit 2
		;;
	esac
	echo "== go test ${env[*]} -exec $qemu ${flags[*]} ${pkgs[*]}"
	if ! env GOOS=linux CGO_ENABLED=0 "${env[@]}" go test -exec "$qemu" "${flags[@]}" "${pkgs[@]}"; then
		echo "test-arm: FAIL for $arch" >&2
		status=1
	fi
done
exit "$status"
