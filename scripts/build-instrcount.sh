#!/usr/bin/env bash
# build-instrcount.sh builds cmd/deferbench/internal/instrcount into OUT for count-instr.sh and
# count-functions.sh: with PGO=FILE set, as a build with profile-guided optimisation from that
# profile (instrcount -cpuprofile FILE WORKLOAD N writes one); NAME prefixes its messages.
#
#   scripts/build-instrcount.sh NAME OUT
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: scripts/build-instrcount.sh NAME OUT" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
pgo=off
if [ -n "${PGO:-}" ]; then
	if [ ! -f "$PGO" ]; then
		echo "$1: PGO=$PGO: no such file; write one with instrcount -cpuprofile FILE WORKLOAD N" >&2
		exit 2
	fi
	pgo=$(realpath "$PGO")
fi
cd cmd/deferbench
go build -pgo="$pgo" -o "$2" ./internal/instrcount
