#!/usr/bin/env bash
# install-valgrind.sh makes sure valgrind (its cachegrind tool counts the
# instructions of deferbench's count tier) is on PATH, installing Debian's
# valgrind package when it is missing and this shell may install packages
# (root, or passwordless sudo, with apt-get). Used by make test-counts and CI.
set -euo pipefail

if command -v valgrind >/dev/null 2>&1; then
	exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-valgrind: valgrind not found and no apt-get here; install valgrind (Debian/Ubuntu package valgrind)" >&2
	exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "install-valgrind: valgrind missing; run: sudo apt-get install -y valgrind" >&2
		exit 1
	fi
fi

echo "install-valgrind: installing Debian's valgrind" >&2
export DEBIAN_FRONTEND=noninteractive
${sudo[@]+"${sudo[@]}"} apt-get update -qq >&2
${sudo[@]+"${sudo[@]}"} apt-get install -y -qq valgrind >&2

if ! command -v valgrind >/dev/null 2>&1; then
	echo "install-valgrind: valgrind installed but still not on PATH" >&2
	exit 1
fi
