#!/usr/bin/env bash
# lint-sh.sh runs shellcheck on the project's shell scripts (scripts/ and
# scripts/pi/), installing Debian's shellcheck package when it is missing and
# this shell may install packages (root, or passwordless sudo, with apt-get).
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v shellcheck >/dev/null 2>&1; then
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			sudo=(sudo -n)
		else
			echo "lint-sh: shellcheck missing; run: sudo apt-get install -y shellcheck" >&2
			exit 1
		fi
	fi
	command -v apt-get >/dev/null 2>&1 || {
		echo "lint-sh: shellcheck missing and no apt-get here; install shellcheck" >&2
		exit 1
	}
	echo "lint-sh: installing Debian's shellcheck" >&2
	export DEBIAN_FRONTEND=noninteractive
	${sudo[@]+"${sudo[@]}"} apt-get update -qq >&2
	${sudo[@]+"${sudo[@]}"} apt-get install -y -qq shellcheck >&2
fi

echo "== shellcheck scripts/*.sh scripts/pi/*.sh"
shellcheck scripts/*.sh scripts/pi/*.sh
