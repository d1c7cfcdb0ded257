#!/usr/bin/env bash
# install-debian.sh installs Debian packages for the project's scripts when
# this shell may install them: root, or passwordless sudo, with apt-get.
# Otherwise it prints the command to run and exits 1, installing nothing.
#
# Usage: install-debian.sh WHO PACKAGE...
#   WHO prefixes every message (the calling script's name).
# The caller checks first whether what it needs is already there.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: install-debian.sh WHO PACKAGE..." >&2
	exit 2
fi
who=$1
shift

if ! command -v apt-get >/dev/null 2>&1; then
	echo "$who: $* missing and no apt-get here; install the package(s) $* yourself" >&2
	exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "$who: $* missing; run: sudo apt-get install -y $*" >&2
		exit 1
	fi
fi

echo "$who: installing Debian's $*" >&2
export DEBIAN_FRONTEND=noninteractive
${sudo[@]+"${sudo[@]}"} apt-get update -qq >&2
${sudo[@]+"${sudo[@]}"} apt-get install -y -qq --no-install-recommends "$@" >&2
