#!/usr/bin/env bash
# ensure-qemu.sh makes sure qemu-user-static (qemu-aarch64-static and
# qemu-arm-static) is on PATH, installing Debian's qemu-user-static package
# when it is missing and this shell may install packages (see
# install-debian.sh). Used by test-arm.sh and by pi/run.sh in PI_SSH=local mode.
set -euo pipefail

have_qemu() {
	command -v qemu-aarch64-static >/dev/null 2>&1 && command -v qemu-arm-static >/dev/null 2>&1
}

have_qemu && exit 0
"$(dirname "$0")/install-debian.sh" ensure-qemu qemu-user-static
if ! have_qemu; then
	echo "ensure-qemu: qemu-user-static installed but qemu-aarch64-static/qemu-arm-static still not on PATH" >&2
	exit 1
fi
