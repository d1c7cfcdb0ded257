#!/usr/bin/env bash
# ensure-qemu.sh makes sure qemu-user-static (qemu-aarch64-static and
# qemu-arm-static) is on PATH, installing Debian's qemu-user-static package
# when it is missing and this shell may install packages (root, or passwordless
# sudo, with apt-get). Used by test-arm.sh and by pi/run.sh in PI_SSH=local mode.
set -euo pipefail

have_qemu() {
	command -v qemu-aarch64-static >/dev/null 2>&1 && command -v qemu-arm-static >/dev/null 2>&1
}

if have_qemu; then
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-qemu: qemu-aarch64-static/qemu-arm-static not found and no apt-get here; install qemu-user-static (or qemu-user) yourself" >&2
	exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "ensure-qemu: qemu-user-static missing; run: sudo apt-get install -y qemu-user-static" >&2
		exit 1
	fi
fi

echo "ensure-qemu: installing Debian's qemu-user-static" >&2
export DEBIAN_FRONTEND=noninteractive
${sudo[@]+"${sudo[@]}"} apt-get update -qq >&2
${sudo[@]+"${sudo[@]}"} apt-get install -y -qq qemu-user-static >&2

if ! have_qemu; then
	echo "ensure-qemu: qemu-user-static installed but qemu-aarch64-static/qemu-arm-static still not on PATH" >&2
	exit 1
fi
