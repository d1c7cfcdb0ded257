#!/usr/bin/env bash
# install-valgrind.sh makes sure valgrind (its cachegrind tool counts the
# instructions of deferbench's count tier) is on PATH, installing Debian's
# valgrind package when it is missing and this shell may install packages
# (see install-debian.sh). Used by make test-counts and CI.
set -euo pipefail

command -v valgrind >/dev/null 2>&1 && exit 0
"$(dirname "$0")/install-debian.sh" install-valgrind valgrind
if ! command -v valgrind >/dev/null 2>&1; then
	echo "install-valgrind: valgrind installed but still not on PATH" >&2
	exit 1
fi
