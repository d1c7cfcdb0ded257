#!/usr/bin/env bash
# lint-sh.sh runs shellcheck on the project's shell scripts (scripts/ and
# scripts/pi/), installing Debian's shellcheck package when it is missing and
# this shell may install packages (see install-debian.sh).
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v shellcheck >/dev/null 2>&1; then
	scripts/install-debian.sh lint-sh shellcheck
fi

echo "== shellcheck scripts/*.sh scripts/pi/*.sh"
shellcheck scripts/*.sh scripts/pi/*.sh
